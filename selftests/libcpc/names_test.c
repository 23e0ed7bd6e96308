// SPDX-License-Identifier: GPL-2.0
/*
 * names_test.c - libcpc accepts pmc(3)'s vocabulary on the driver's
 * software events (docs/events.md): FreeBSD's spelling of the Linux
 * software names, pmc(3)'s aliases (which count the thread's clock where
 * there is no hardware PMU, as in pmc(3)), and refuses names of the
 * hardware vocabulary there. testpmu_test.c checks them on a hardware class.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "kselftest_harness.h"
#include "cpc_util.h"

#define MS	1000000ULL

/* Bind @name in thread scope, spin 20 ms, and return its count, or -errno. */
static int64_t count_name(cpc_t *cpc, const char *name)
{
	cpc_buf_t *a, *b;
	cpc_set_t *set;
	uint64_t v;
	int err;

	set = cpc_set_create(cpc);
	if (!set)
		return -errno;
	if (cpc_set_add_request(cpc, set, name, 0,
				CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) < 0 ||
	    !(a = cpc_buf_create(cpc, set)) || !(b = cpc_buf_create(cpc, set)) ||
	    cpc_bind_curlwp(cpc, set, 0) < 0 || cpc_set_sample(cpc, set, a) < 0)
		goto fail;
	spin_cpu_ns(20 * MS);
	if (cpc_set_sample(cpc, set, b) < 0)
		goto fail;
	cpc_buf_sub(cpc, b, b, a);
	cpc_buf_get(cpc, b, 0, &v);
	cpc_set_destroy(cpc, set);
	return (int64_t)v;
fail:
	err = errno;
	cpc_set_destroy(cpc, set);
	return -err;
}

static void quiet(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn;
	(void)subcode;
	(void)fmt;
	(void)ap;
}

/* Without a PMU: every kind of software name counts; hardware names fail. */
TEST(software_vocabulary_without_a_pmu)
{
	static const char *const clocks[] = {
		"task-clock", "TASK_CLOCK", "Task.Clock", "instructions",
		"unhalted-cycles",
	};
	cpc_t *cpc;
	size_t i;
	int64_t v;

	REQUIRE_CPC();
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	if (strcmp(cpc_cciname(cpc), "Linux Software Events")) {
		cpc_close(cpc);
		SKIP(return, "a hardware PMU is present (testpmu_test.c covers it)");
	}
	cpc_seterrhndlr(cpc, quiet);
	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		v = count_name(cpc, clocks[i]);
		/* A clock: at least most of the 20 ms spun, in ns. */
		EXPECT_GE(v, (int64_t)(10 * MS)) TH_LOG("%s: %" PRId64, clocks[i], v);
	}
	EXPECT_LE(0, count_name(cpc, "page_faults"));
	/* The hardware vocabulary has nothing to count here. */
	EXPECT_EQ(-EINVAL, count_name(cpc, "PAPI_tot_ins"));
	EXPECT_EQ(-EINVAL, count_name(cpc, "branches"));
	EXPECT_EQ(-EINVAL, count_name(cpc, "no-such-event"));
	cpc_close(cpc);
}

TEST_HARNESS_MAIN
