// SPDX-License-Identifier: GPL-2.0
/*
 * exhaust_test.c - with 2 counters per CPU (testpmu ncounters=2), a third
 * pinned event finds none and goes to ERROR state (read() returns 0), three
 * flexible ones share the two counters as perf schedules them (see
 * perf_rotates_sw_context()), and CPU-pinned events starve pinned task
 * events, as on a real PMU.
 */
#include <sched.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>

#include "kselftest_harness.h"
#include "../testpmu/testpmu_util.h"

FIXTURE(exhaust) {
	int fds[4];
	int nfds;
};

FIXTURE_SETUP(exhaust)
{
	const char *why = tp_cannot_load();
	cpu_set_t cpu0;

	self->nfds = 0;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, tp_load(2, 48));
	/* Stay on CPU 0, where the CPU events of the tests are. */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu0), &cpu0));
}

FIXTURE_TEARDOWN(exhaust)
{
	int i;

	for (i = 0; i < self->nfds; i++)
		close(self->fds[i]);
}

static int open_raw(int pinned, pid_t pid, int cpu, uint64_t read_format)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.config = 0x3c,
		.pinned = pinned,
		.read_format = read_format,
	};

	return tp_perf_open(&attr, pid, cpu, -1, 0);
}

TEST_F(exhaust, third_pinned_event_goes_to_error)
{
	long long failures = tp_stat("add_failures");
	uint64_t v;
	int i;

	if (_metadata->skip)
		return;
	for (i = 0; i < 3; i++) {
		self->fds[i] = open_raw(1, 0, -1, 0);
		ASSERT_LE(0, self->fds[i]);
		self->nfds++;
	}
	tp_busy_ns(50000000);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ((ssize_t)sizeof(v), read(self->fds[i], &v, sizeof(v)));
		EXPECT_LE(50000000ull, v);
	}
	/* ERROR state: read() returns end of file. */
	EXPECT_EQ(0, read(self->fds[2], &v, sizeof(v)));
	EXPECT_LT(failures, tp_stat("add_failures"));

	/* A freed counter and a re-enable bring it back. */
	close(self->fds[0]);
	self->fds[0] = self->fds[2];
	self->nfds = 2;
	ASSERT_EQ(0, ioctl(self->fds[0], PERF_EVENT_IOC_ENABLE, 0));
	tp_busy_ns(20000000);
	ASSERT_EQ((ssize_t)sizeof(v), read(self->fds[0], &v, sizeof(v)));
	EXPECT_LE(20000000ull, v);
}

/*
 * Does perf multiplex (rotate) the flexible events of a PMU in the
 * software context (testpmu's, see testpmu_init())? Not before 6.2:
 * __perf_mux_hrtimer_init() gave such a PMU no multiplexing timer ("no
 * multiplexing needed for SW PMU"), so a flexible event that found no free
 * counter waited for one. 6.2 rewrote perf's contexts (one per PMU within a
 * task's context, commit bd2756811766) without that exception: every PMU's
 * flexible events now rotate on its mux hrtimer when one could not be
 * scheduled.
 */
static bool perf_rotates_sw_context(void)
{
	unsigned int major = 0, minor = 0;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return true;
	return major > 6 || (major == 6 && minor >= 2);
}

TEST_F(exhaust, third_flexible_event_waits)
{
	uint64_t rd[3][3], sum_running = 0, span;
	struct timespec t0, t1;
	int i;

	if (_metadata->skip)
		return;
	for (i = 0; i < 3; i++) {
		self->fds[i] = open_raw(0, 0, -1,
					PERF_FORMAT_TOTAL_TIME_ENABLED |
					PERF_FORMAT_TOTAL_TIME_RUNNING);
		ASSERT_LE(0, self->fds[i]);
		self->nfds++;
	}
	tp_busy_ns(50000000);
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &t0));
	for (i = 0; i < 3; i++)
		ASSERT_EQ((ssize_t)sizeof(rd[i]),
			  read(self->fds[i], rd[i], sizeof(rd[i])));
	ASSERT_EQ(0, clock_gettime(CLOCK_MONOTONIC, &t1));
	span = (t1.tv_sec - t0.tv_sec) * 1000000000ull + t1.tv_nsec - t0.tv_nsec;
	for (i = 0; i < 3; i++) {
		EXPECT_LE(50000000ull, rd[i][1]);	/* enabled */
		sum_running += rd[i][2];
		TH_LOG("event %d: count %llu enabled %llu running %llu", i,
		       (unsigned long long)rd[i][0],
		       (unsigned long long)rd[i][1],
		       (unsigned long long)rd[i][2]);
	}
	if (!perf_rotates_sw_context()) {
		/* The first two hold the counters; the third never runs. */
		for (i = 0; i < 2; i++) {
			EXPECT_LE(50000000ull, rd[i][0]);
			EXPECT_EQ(rd[i][1], rd[i][2]);
		}
		EXPECT_EQ(0ull, rd[2][0]);
		EXPECT_EQ(0ull, rd[2][2]);	/* never running */
		return;
	}
	/*
	 * Rotation: each event both waited and ran, and counted while it
	 * ran; in all, never more than the two counters' worth of time since
	 * the first event was enabled (its enabled time, plus the reads'
	 * span for the later reads).
	 */
	for (i = 0; i < 3; i++) {
		EXPECT_LT(0ull, rd[i][2]);
		EXPECT_GT(rd[i][1], rd[i][2]);
		EXPECT_LT(0ull, rd[i][0]);
	}
	EXPECT_GE(2 * (rd[0][1] + span), sum_running);
}

/* CPU-pinned events are scheduled first: a pinned task event errors. */
TEST_F(exhaust, cpu_pinned_events_starve_task_events)
{
	uint64_t v;
	int i;

	if (_metadata->skip)
		return;
	for (i = 0; i < 2; i++) {
		self->fds[i] = open_raw(1, -1, 0, 0);
		ASSERT_LE(0, self->fds[i]);
		self->nfds++;
	}
	self->fds[2] = open_raw(1, 0, -1, 0);
	ASSERT_LE(0, self->fds[2]);
	self->nfds++;
	tp_busy_ns(20000000);
	EXPECT_EQ(0, read(self->fds[2], &v, sizeof(v)));

	/* Without the CPU events the task event gets a counter again. */
	close(self->fds[0]);
	close(self->fds[1]);
	self->fds[0] = self->fds[2];
	self->nfds = 1;
	ASSERT_EQ(0, ioctl(self->fds[0], PERF_EVENT_IOC_ENABLE, 0));
	tp_busy_ns(20000000);
	ASSERT_EQ((ssize_t)sizeof(v), read(self->fds[0], &v, sizeof(v)));
	EXPECT_LE(20000000ull, v);
}

TEST_HARNESS_MAIN
