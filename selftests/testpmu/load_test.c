// SPDX-License-Identifier: GPL-2.0
/*
 * load_test.c - loading the test PMU: parameters out of range are refused,
 * pmc.ko sizes its hardware class from whatever was loaded, and unloading
 * after a task had events on it leaves the kernel sound.
 */
#include <sched.h>

#include "kselftest_harness.h"
#include "../testpmu/testpmu_util.h"

FIXTURE(load) {
	int unused;
};

FIXTURE_SETUP(load)
{
	const char *why = tp_cannot_load();

	if (why)
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(load)
{
}

TEST_F(load, parameters_out_of_range_refused)
{
	static const char * const bad[] = {
		"ncounters=0", "ncounters=33", "width=31", "width=65",
	};
	unsigned int i;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, tp_sh("rmmod pmc 2>/dev/null; rmmod testpmu 2>/dev/null; true"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_NE(0, tp_sh("insmod %s/" TP_TESTPMU_KO " %s 2>/dev/null",
				   tp_top(), bad[i])) TH_LOG("%s loaded", bad[i]);
		EXPECT_FALSE(tp_module_loaded("testpmu"));
	}
	ASSERT_EQ(0, tp_load(4, 48));
}

/* pmc.ko's class has the test PMU's counters and width, whatever they are. */
TEST_F(load, pmc_class_follows_the_parameters)
{
	static const unsigned int params[][2] = { { 1, 32 }, { 3, 40 }, { 8, 64 } };
	struct pmc_classinfo ci;
	unsigned int i;

	if (_metadata->skip)
		return;
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, tp_load(params[i][0], params[i][1]));
		ASSERT_EQ(0, tp_pmc_hwclass(&ci, NULL));
		EXPECT_EQ(params[i][0], ci.pm_num);
		EXPECT_EQ(params[i][1], ci.pm_width);
		EXPECT_EQ((long long)params[i][0], tp_stat("ncounters"));
	}
}

/*
 * A task whose events were on the test PMU keeps a perf context that
 * pointed at it: unloading the module and switching that task in and out
 * afterwards must not touch freed memory (the VM fails the run on an oops).
 */
TEST_F(load, unload_after_task_events_is_safe)
{
	struct perf_event_attr raw = { .type = PERF_TYPE_RAW, .config = 0x3c };
	struct perf_event_attr clk = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
	};
	uint64_t v;
	int fd, keep, i;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, tp_load(4, 48));
	fd = tp_perf_open(&raw, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	tp_busy_ns(10000000);
	close(fd);
	/* A live task event keeps perf's context-switch hooks on. */
	keep = tp_perf_open(&clk, 0, -1, -1, 0);
	ASSERT_LE(0, keep);

	ASSERT_EQ(0, tp_sh("rmmod pmc && rmmod testpmu"));
	for (i = 0; i < 200; i++) {
		sched_yield();
		tp_sleep_ns(100000);
	}
	ASSERT_EQ(0, tp_load(4, 48));
	fd = tp_perf_open(&raw, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	tp_busy_ns(10000000);
	ASSERT_EQ((ssize_t)sizeof(v), read(fd, &v, sizeof(v)));
	/*
	 * It counts again: the test PMU's time from perf's add to its del,
	 * which misses the part of each switch the scheduler charges to the
	 * thread (up to 9 % on the RT debug kernel, whose switches are many
	 * and slow).
	 */
	EXPECT_LE(9000000ull, v);
	close(fd);
	close(keep);
}

TEST_HARNESS_MAIN
