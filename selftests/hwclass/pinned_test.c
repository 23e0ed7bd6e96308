// SPDX-License-Identifier: GPL-2.0
/*
 * pinned_test.c - hardware PMCs are pinned perf events: with testpmu
 * ncounters=2 and both counters of CPU 0 held by other perf users, a system
 * PMC on CPU 0 cannot start (EBUSY, pmc(4)), one on another CPU can, and a
 * process PMC counts nothing while its thread runs on CPU 0 (pmc(4)
 * IMPLEMENTATION NOTES).
 */
#include <sched.h>

#include "kselftest_harness.h"
#include "hwclass.h"

#define NCOUNTERS	2

FIXTURE(hwpinned) {
	int fd;
	struct pmc_classinfo ci;
	int perf[NCOUNTERS];
};

FIXTURE_SETUP(hwpinned)
{
	const char *why = tp_cannot_load();
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.config = HW_RAW_EVENT,
		.pinned = 1,
	};
	cpu_set_t cpu0;
	int i;

	self->fd = -1;
	for (i = 0; i < NCOUNTERS; i++)
		self->perf[i] = -1;
	if (why)
		SKIP(return, "%s", why);
	self->fd = hw_setup(NCOUNTERS, 48, &self->ci);
	ASSERT_LE(0, self->fd);
	/* Another perf user takes every counter of CPU 0. */
	for (i = 0; i < NCOUNTERS; i++) {
		self->perf[i] = tp_perf_open(&attr, -1, 0, -1, 0);
		ASSERT_LE(0, self->perf[i]);
	}
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu0), &cpu0));
}

FIXTURE_TEARDOWN(hwpinned)
{
	int i;

	for (i = 0; i < NCOUNTERS; i++)
		if (self->perf[i] >= 0)
			close(self->perf[i]);
	if (self->fd >= 0)
		close(self->fd);
}

static void free_cpu0(FIXTURE_DATA(hwpinned) * self)
{
	int i;

	for (i = 0; i < NCOUNTERS; i++) {
		close(self->perf[i]);
		self->perf[i] = -1;
	}
}

TEST_F(hwpinned, system_pmc_start_is_busy)
{
	uint64_t v;
	uint32_t id, id1;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_SC, 0,
			      PERF_TYPE_RAW, HW_RAW_EVENT, 0, 0, &id));
	EXPECT_EQ(-EBUSY, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	EXPECT_EQ(0ull, v);

	/* CPU 1's counters are free. */
	if (pm_ncpus_online() > 1) {
		ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_SC, 1,
				      PERF_TYPE_RAW, HW_RAW_EVENT, 0, 0, &id1));
		EXPECT_EQ(0, pmc_t_start(self->fd, id1));
		EXPECT_EQ(0, pmc_t_release(self->fd, id1));
	}

	/* Once the other user is gone, the PMC starts and counts. */
	free_cpu0(self);
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	tp_sleep_ns(50000000);
	ASSERT_EQ(0, pmc_t_stop(self->fd, id));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	EXPECT_LE(50000000ull, v);
}

TEST_F(hwpinned, process_pmc_counts_nothing_without_a_counter)
{
	uint64_t v;
	uint32_t id;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_TC, PMC_CPU_ANY,
			      PERF_TYPE_RAW, HW_RAW_EVENT, 0, 0, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, 0, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	tp_busy_ns(50000000);
	ASSERT_EQ(0, pmc_t_stop(self->fd, id));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	EXPECT_EQ(0ull, v);
}

TEST_HARNESS_MAIN
