// SPDX-License-Identifier: GPL-2.0
/*
 * counts_test.c - the test PMU counts 1 event per nanosecond an event is
 * active: task events agree with task-clock, CPU events with wall time;
 * generic hardware and cache events reach it too; bad configurations are
 * refused with perf's errors.
 */
#include "kselftest_harness.h"
#include "../testpmu/testpmu_util.h"

#define BUSY_NS		300000000ull	/* 300 ms of CPU time */

struct tp_group_read {
	uint64_t nr;
	uint64_t enabled;
	uint64_t running;
	uint64_t values[8];
};

FIXTURE(counts) {
	int unused;
};

FIXTURE_SETUP(counts)
{
	const char *why = tp_cannot_load();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, tp_load(4, 48));
}

FIXTURE_TEARDOWN(counts)
{
}

static int open_counter(uint32_t type, uint64_t config, int group)
{
	struct perf_event_attr attr = {
		.type = type,
		.config = config,
		.disabled = group < 0,
		.read_format = PERF_FORMAT_GROUP |
			       PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	return tp_perf_open(&attr, 0, -1, group, 0);
}

/* A group of test PMU events and task-clock over a busy loop. */
static void busy_group(struct __test_metadata *_metadata,
		       const uint32_t *types, const uint64_t *configs, int n,
		       struct tp_group_read *rd)
{
	int fds[8], i;

	fds[0] = open_counter(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1);
	ASSERT_LE(0, fds[0]);
	for (i = 0; i < n; i++) {
		fds[i + 1] = open_counter(types[i], configs[i], fds[0]);
		ASSERT_LE(0, fds[i + 1]) TH_LOG("type %u config 0x%llx: %s",
			types[i], (unsigned long long)configs[i], strerror(errno));
	}
	ASSERT_EQ(0, ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	tp_busy_ns(BUSY_NS);
	ASSERT_EQ(0, ioctl(fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_LT(0, read(fds[0], rd, sizeof(*rd)));
	ASSERT_EQ((uint64_t)n + 1, rd->nr);
	for (i = 0; i <= n; i++)
		close(fds[i]);
}

/*
 * How far a group's test-PMU counters may be from its task-clock leader:
 * perf switches the leader in first and out first, so each switch leaves
 * out a little of the counter's time. Within 1 % on the Debian kernel
 * (the bound before); 1.2 % once on the debug kernel on a loaded host.
 */
#define GROUP_TOL	0.03

/* A raw event of a thread agrees with its task-clock within GROUP_TOL. */
TEST_F(counts, raw_event_matches_task_clock)
{
	const uint32_t types[] = { PERF_TYPE_RAW };
	const uint64_t configs[] = { 0x3c };
	struct tp_group_read rd;

	if (_metadata->skip)
		return;
	busy_group(_metadata, types, configs, 1, &rd);
	TH_LOG("raw %llu, task-clock %llu",
	       (unsigned long long)rd.values[1],
	       (unsigned long long)rd.values[0]);
	EXPECT_LE(BUSY_NS * 99 / 100, rd.values[0]);
	EXPECT_TRUE(tp_within(rd.values[1], rd.values[0], GROUP_TOL))
		TH_LOG("raw %llu task-clock %llu",
		       (unsigned long long)rd.values[1],
		       (unsigned long long)rd.values[0]);
}

/* Generic hardware and cache events land on the test PMU and count alike. */
TEST_F(counts, generic_events_match_task_clock)
{
	const uint32_t types[] = { PERF_TYPE_HARDWARE, PERF_TYPE_HARDWARE,
				   PERF_TYPE_HW_CACHE };
	const uint64_t configs[] = {
		PERF_COUNT_HW_CPU_CYCLES,
		PERF_COUNT_HW_INSTRUCTIONS,
		PERF_COUNT_HW_CACHE_L1D |
			(PERF_COUNT_HW_CACHE_OP_READ << 8) |
			(PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16),
	};
	struct tp_group_read rd;
	int i;

	if (_metadata->skip)
		return;
	busy_group(_metadata, types, configs, 3, &rd);
	for (i = 1; i <= 3; i++) {
		EXPECT_TRUE(tp_within(rd.values[i], rd.values[0], GROUP_TOL))
			TH_LOG("event %d: %llu task-clock %llu", i,
			       (unsigned long long)rd.values[i],
			       (unsigned long long)rd.values[0]);
	}
}

/* Excluding both user and kernel mode counts nothing, as on hardware. */
TEST_F(counts, excluding_both_modes_counts_nothing)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.config = 0xc0,
		.exclude_user = 1,
		.exclude_kernel = 1,
		.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	uint64_t rd[2];
	int fd;

	if (_metadata->skip)
		return;
	fd = tp_perf_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	tp_busy_ns(50000000);
	ASSERT_EQ((ssize_t)sizeof(rd), read(fd, rd, sizeof(rd)));
	EXPECT_EQ(0ull, rd[0]);
	EXPECT_LE(50000000ull, rd[1]);	/* it was on a counter all along */
	close(fd);
}

/* A CPU event counts wall-clock time, idle included. */
TEST_F(counts, cpu_event_counts_wall_time)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.config = 0x3c,
		.disabled = 1,
	};
	uint64_t t0, t0s, t1s, t1, count;
	int fd;

	if (_metadata->skip)
		return;
	fd = tp_perf_open(&attr, -1, 0, -1, 0);
	ASSERT_LE(0, fd);
	/*
	 * At most the wall time around the enable and the disable, at least
	 * (within 1 %: local_clock() against CLOCK_MONOTONIC) the wall time
	 * between them: on the PREEMPT_RT debug kernel under a loaded host
	 * the two ioctls took 5.7 ms of the 511 around them.
	 */
	t0 = tp_clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	t0s = tp_clock_ns(CLOCK_MONOTONIC);
	tp_sleep_ns(500000000);
	t1s = tp_clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	t1 = tp_clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ((ssize_t)sizeof(count), read(fd, &count, sizeof(count)));
	TH_LOG("count %llu, %llu ns elapsed around, %llu inside",
	       (unsigned long long)count, (unsigned long long)(t1 - t0),
	       (unsigned long long)(t1s - t0s));
	EXPECT_LE(count, t1 - t0);
	EXPECT_GE(count + count / 100, t1s - t0s);
	close(fd);
}

/* What x86 refuses, the test PMU refuses with the same errors. */
TEST_F(counts, bad_configurations_refused)
{
	struct perf_event_attr attr;

	if (_metadata->skip)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_MAX;
	EXPECT_EQ(-1, tp_perf_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HW_CACHE;
	attr.config = PERF_COUNT_HW_CACHE_MAX;
	EXPECT_EQ(-1, tp_perf_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EINVAL, errno);

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_RAW;
	attr.config = 0xc0;
	attr.sample_period = 100000;
	attr.precise_ip = 2;
	EXPECT_EQ(-1, tp_perf_open(&attr, 0, -1, -1, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

/* pmc.ko sized its hardware class from the test PMU and holds it loaded. */
TEST_F(counts, pmc_class_comes_from_testpmu)
{
	struct pmc_classinfo ci;
	unsigned int cputype;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, tp_pmc_hwclass(&ci, &cputype));
	EXPECT_EQ(4u, ci.pm_num);
	EXPECT_EQ(48u, ci.pm_width);
	EXPECT_TRUE((ci.pm_class == PMC_CLASS_K8 && cputype == PMC_CPU_AMD_K8) ||
		    (ci.pm_class == PMC_CLASS_IAP &&
		     cputype == PMC_CPU_INTEL_CORE));
	EXPECT_NE(0, tp_sh("rmmod testpmu 2>/dev/null"));
	EXPECT_TRUE(tp_module_loaded("testpmu"));
}

TEST_HARNESS_MAIN
