// SPDX-License-Identifier: GPL-2.0
/*
 * wrap_test.c - with 32-bit counters (testpmu width=32) a CPU event passes
 * 2^32 events in 4.3 s: the counter wraps and the 64-bit count goes on,
 * still equal to the wall time it counted.
 */
#include "kselftest_harness.h"
#include "../testpmu/testpmu_util.h"

#define WRAP_SLEEP_NS	4600000000ull	/* > 2^32 ns */

FIXTURE(wrap) {
	int unused;
};

FIXTURE_SETUP(wrap)
{
	const char *why = tp_cannot_load();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, tp_load(4, 32));
}

FIXTURE_TEARDOWN(wrap)
{
}

TEST_F_TIMEOUT(wrap, count_goes_past_the_counter_width, 60)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.config = 0x3c,
		.disabled = 1,
	};
	long long wraps0, wraps1;
	uint64_t t0, t1, count;
	int fd;

	if (_metadata->skip)
		return;
	fd = tp_perf_open(&attr, -1, 0, -1, 0);
	ASSERT_LE(0, fd);
	wraps0 = tp_stat("wraps");
	ASSERT_LE(0, wraps0);
	t0 = tp_clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	tp_sleep_ns(WRAP_SLEEP_NS);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	t1 = tp_clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ((ssize_t)sizeof(count), read(fd, &count, sizeof(count)));
	wraps1 = tp_stat("wraps");
	close(fd);

	TH_LOG("count %llu (2^32 = %llu), %llu ns elapsed, %lld wraps",
	       (unsigned long long)count, 1ull << 32,
	       (unsigned long long)(t1 - t0), wraps1 - wraps0);
	EXPECT_LT(1ull << 32, count);
	EXPECT_LE(count, t1 - t0);
	EXPECT_TRUE(tp_within(count, t1 - t0, 0.01));
	/* The counter itself did pass through zero. */
	EXPECT_LE(1, wraps1 - wraps0);
}

TEST_HARNESS_MAIN
