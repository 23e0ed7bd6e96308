// SPDX-License-Identifier: GPL-2.0
/*
 * rows_test.c - the rows of a hardware class are the CPU's counters (4 with
 * testpmu ncounters=4): system PMCs exhaust a CPU's rows (EINVAL, "no free
 * row of the class"), rows are per CPU, and rows released out of order are
 * allocated again and count.
 */
#include "kselftest_harness.h"
#include "hwclass.h"

#define NROWS	4

FIXTURE(hwrows) {
	int fd;
	struct pmc_classinfo ci;
};

FIXTURE_SETUP(hwrows)
{
	const char *why = tp_cannot_load();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	self->fd = hw_setup(NROWS, 48, &self->ci);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ((uint32_t)NROWS, self->ci.pm_num);
}

FIXTURE_TEARDOWN(hwrows)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int alloc_sc(FIXTURE_DATA(hwrows) * self, int cpu, uint32_t *id)
{
	return hw_alloc(self->fd, &self->ci, PMC_MODE_SC, cpu, PERF_TYPE_RAW,
			HW_RAW_EVENT, 0, 0, id);
}

TEST_F(hwrows, exhausted_then_released_out_of_order)
{
	uint32_t id[NROWS], extra, rows = 0, again[2];
	struct hw_window w;
	uint64_t v;
	int i;

	if (_metadata->skip)
		return;
	for (i = 0; i < NROWS; i++) {
		ASSERT_EQ(0, alloc_sc(self, 0, &id[i]));
		EXPECT_EQ(self->ci.pm_class, PMC_ID_TO_CLASS(id[i]));
		rows |= 1u << (PMC_ID_TO_ROWINDEX(id[i]) % 32);
	}
	EXPECT_EQ(NROWS, __builtin_popcount(rows));
	EXPECT_EQ(-EINVAL, alloc_sc(self, 0, &extra));

	/* Rows are per CPU: CPU 1 has all of its own. */
	if (pm_ncpus_online() > 1) {
		ASSERT_EQ(0, alloc_sc(self, 1, &extra));
		ASSERT_EQ(0, pmc_t_release(self->fd, extra));
	}

	/* Release the second and the last, last first; both come back. */
	ASSERT_EQ(0, pmc_t_release(self->fd, id[3]));
	ASSERT_EQ(0, pmc_t_release(self->fd, id[1]));
	ASSERT_EQ(0, alloc_sc(self, 0, &again[0]));
	ASSERT_EQ(0, alloc_sc(self, 0, &again[1]));
	EXPECT_EQ(-EINVAL, alloc_sc(self, 0, &extra));
	EXPECT_TRUE((PMC_ID_TO_ROWINDEX(again[0]) == PMC_ID_TO_ROWINDEX(id[1]) &&
		     PMC_ID_TO_ROWINDEX(again[1]) == PMC_ID_TO_ROWINDEX(id[3])) ||
		    (PMC_ID_TO_ROWINDEX(again[0]) == PMC_ID_TO_ROWINDEX(id[3]) &&
		     PMC_ID_TO_ROWINDEX(again[1]) == PMC_ID_TO_ROWINDEX(id[1])));
	id[1] = again[0];
	id[3] = again[1];

	/* All four rows count, each its CPU's wall time. */
	for (i = 0; i < NROWS; i++)
		ASSERT_EQ(0, pmc_t_start(self->fd, id[i]));
	w.outer0 = tp_clock_ns(CLOCK_MONOTONIC);
	tp_sleep_ns(100000000);
	w.inner1 = tp_clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < NROWS; i++)
		ASSERT_EQ(0, pmc_t_stop(self->fd, id[i]));
	for (i = 0; i < NROWS; i++) {
		ASSERT_EQ(0, pmc_t_read(self->fd, id[i], &v));
		EXPECT_LE(w.inner1 - w.outer0, v);
	}
	EXPECT_EQ(0, tp_stat("counters_in_use"));
}

/* A released system PMC gives its counter back to perf at once. */
TEST_F(hwrows, release_frees_the_hardware_counter)
{
	long long used0 = tp_stat("counters_in_use");
	uint32_t id;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, alloc_sc(self, 0, &id));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	EXPECT_EQ(used0 + 1, tp_stat("counters_in_use"));
	ASSERT_EQ(0, pmc_t_release(self->fd, id));
	EXPECT_EQ(used0, tp_stat("counters_in_use"));
}

TEST_HARNESS_MAIN
