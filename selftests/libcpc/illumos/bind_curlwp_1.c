/*
 * cpc_bind_curlwp(3CPC), EXAMPLES, Example 1: "Use hardware performance
 * counters to measure events in a process." As the illumos page prints
 * it; the lines marked "Linux:" are the Solaris libc differences touched
 * (_lwp_self() is gettid()). error() and the computation under the
 * placeholder comment come from reader.h/reader.c.
 * Run by selftests/libcpc/examples_test.c with EVENT0/EVENT1 set to
 * Linux events (the defaults are UltraSPARC names).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>		/* Linux: gettid() */
#include <libcpc.h>

#define	NDATA 100

int
main(int argc, char *argv[])
{
	int iter;
	char *event0 = NULL, *event1 = NULL;
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *diff, *after, *before;
	int ind0, ind1;
	uint64_t val0, val1;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));

	if ((event0 = getenv("EVENT0")) == NULL)
		event0 = "EC_ref";
	if ((event1 = getenv("EVENT1")) == NULL)
		event1 = "EC_hit";

	if ((set = cpc_set_create(cpc)) == NULL)
		error("could not create set: %s", strerror(errno));

	if ((ind0 = cpc_set_add_request(cpc, set, event0, 0, CPC_COUNT_USER, 0,
	    NULL)) == -1)
		error("could not add first request: %s", strerror(errno));

	if ((ind1 = cpc_set_add_request(cpc, set, event1, 0, CPC_COUNT_USER, 0,
	    NULL)) == -1)
		error("could not add first request: %s", strerror(errno));

	if ((diff = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));
	if ((after = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));
	if ((before = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));

	if (cpc_bind_curlwp(cpc, set, 0) == -1)
		error("cannot bind lwp%d: %s", gettid(), /* Linux: _lwp_self() */
		    strerror(errno));

	for (iter = 1; iter <= 20; iter++) {

		if (cpc_set_sample(cpc, set, before) == -1)
			break;

		/* ==> Computation to be measured goes here <== */
		computation();

		if (cpc_set_sample(cpc, set, after) == -1)
			break;

		cpc_buf_sub(cpc, diff, after, before);
		cpc_buf_get(cpc, diff, ind0, &val0);
		cpc_buf_get(cpc, diff, ind1, &val1);

		(void) printf("%3d: %" PRId64 " %" PRId64 "\n", iter,
		    val0, val1);
	}

	if (iter != 21)
		error("cannot sample set: %s",  strerror(errno));

	cpc_close(cpc);

	return (0);
}
