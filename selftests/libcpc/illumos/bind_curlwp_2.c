/*
 * cpc_bind_curlwp(3CPC), EXAMPLES, Example 2: "Write a signal handler to
 * catch overflow signals." As the illumos page prints it; the lines
 * marked "Linux:" are the Solaris libc differences touched: _lwp_self()
 * is gettid(), the gregs[] indices PC and SP are glibc's REG_RIP and
 * REG_RSP (x86-64; arm64 has no gregs[], so the program is built for x86
 * only), and the global `index` is `req_index` (glibc's <strings.h>,
 * which bzero() needs, declares index()). The lines marked "page:" fix
 * the page's own misprint (an `if` missing; ind1 and val1, undeclared,
 * stand for index and PRESET). error() and the computation under the
 * placeholder come from reader.h/reader.c. Run by
 * selftests/libcpc/examples_test.c with EVENT=page-faults.
 */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <signal.h>
#include <string.h>		/* Linux: strerror() */
#include <strings.h>		/* Linux: bzero() */
#include <unistd.h>		/* Linux: gettid() */
#include <libcpc.h>

#define	PC	REG_RIP		/* Linux: <sys/regset.h>'s PC */
#define	SP	REG_RSP		/* Linux: <sys/regset.h>'s SP */

#define	PRESET (UINT64_MAX - 999ull)

volatile	int	count;
cpc_t		*cpc;
cpc_set_t	*set;
cpc_buf_t	*buf;
int		req_index;	/* Linux: index */

static void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	uint64_t val;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		psignal(sig, "example");
		psiginfo(sip, "example");
		return;
	}

	(void) printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n",
	    gettid(), (void *)sip->si_addr,	/* Linux: _lwp_self() */
	    (void *)uap->uc_mcontext.gregs[PC],
	    (void *)uap->uc_mcontext.gregs[SP]);

	if (cpc_set_sample(cpc, set, buf) != 0)
		error("cannot sample: %s", strerror(errno));

	cpc_buf_get(cpc, buf, req_index, &val);

	(void) printf("0x%" PRIx64"\n", val);
	(void) fflush(stdout);

	/*
	 * Update a request's preset and restart the counters. Counters which
	 * have not been preset with cpc_request_preset() will resume counting
	 * from their current value.
	 */
	if (cpc_request_preset(cpc, req_index, PRESET) != 0)	/* page: */
		error("cannot set preset for request %d: %s", req_index,
		    strerror(errno));
	if (cpc_set_restart(cpc, set) != 0)
		error("cannot restart lwp%d: %s", gettid(),	/* Linux */
		    strerror(errno));
}

int
main(int argc, char *argv[])
{
	struct sigaction act;
	char *event;
	int iter;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));

	if ((set = cpc_set_create(cpc)) == NULL)
		error("could not create set: %s", strerror(errno));

	if ((event = getenv("EVENT")) == NULL)
		event = "EC_ref";

	act.sa_sigaction = emt_handler;
	bzero(&act.sa_mask, sizeof (act.sa_mask));
	act.sa_flags = SA_RESTART|SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) == -1)
		error("sigaction: %s", strerror(errno));

	if ((req_index = cpc_set_add_request(cpc, set, event, PRESET,
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL)) != 0)
		error("cannot add request to set: %s", strerror(errno));

	if ((buf = cpc_buf_create(cpc, set)) == NULL)
		error("cannot create buffer: %s", strerror(errno));

	if (cpc_bind_curlwp(cpc, set, 0) == -1)
		error("cannot bind lwp%d: %s", gettid(),	/* Linux */
		    strerror(errno));

	for (iter = 1; iter <= 20; iter++) {
		/* ==> Computation to be measured goes here <== */
		computation();
	}

	cpc_unbind(cpc, set);		/* done */

	return (0);
}
