// SPDX-License-Identifier: GPL-2.0
/*
 * wrap_test.c - with 32-bit counters (testpmu width=32) a system PMC goes
 * past 2^32 events in 4.3 s: its 64-bit value keeps increasing, read while
 * running and after, and equals the wall time it counted.
 */
#include "kselftest_harness.h"
#include "hwclass.h"

FIXTURE(hwwrap) {
	int fd;
	struct pmc_classinfo ci;
};

FIXTURE_SETUP(hwwrap)
{
	const char *why = tp_cannot_load();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	self->fd = hw_setup(4, 32, &self->ci);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(32u, self->ci.pm_width);
}

FIXTURE_TEARDOWN(hwwrap)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F_TIMEOUT(hwwrap, value_goes_past_the_counter_width, 60)
{
	long long wraps0 = tp_stat("wraps");
	uint64_t v1, v2, t1;
	struct hw_window w;
	uint32_t id;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_SC, 0,
			      PERF_TYPE_RAW, HW_RAW_EVENT, 0, 0, &id));
	ASSERT_EQ(0, hw_start(self->fd, id, CLOCK_MONOTONIC, &w));
	tp_sleep_ns(3000000000ull);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v1));
	t1 = tp_clock_ns(CLOCK_MONOTONIC);
	tp_sleep_ns(1700000000ull);
	ASSERT_EQ(0, hw_stop(self->fd, id, CLOCK_MONOTONIC, &w));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v2));
	TH_LOG("%llu events after 3 s, %llu at the end (2^32 = %llu), %lld wraps",
	       (unsigned long long)v1, (unsigned long long)v2, 1ull << 32,
	       tp_stat("wraps") - wraps0);
	EXPECT_LE(v1, t1 - w.outer0);
	EXPECT_LT(v1, v2);
	EXPECT_LT(1ull << 32, v2);
	EXPECT_IN_WINDOW(v2, &w, 0.001);
	EXPECT_LE(1, tp_stat("wraps") - wraps0);
}

TEST_HARNESS_MAIN
