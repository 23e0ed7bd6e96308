// SPDX-License-Identifier: GPL-2.0
/*
 * sys_test.c - PMC_F_SNAPSHOT in system scope: records at the period from
 * the PMC's CPU, one timestamp per set (one SNAPSET record), the last
 * record (written at PMCSTOP) equal to the value read after the stop, none
 * while the set is partly stopped; the allocation errors.
 */
#include "kselftest_harness.h"

#include "snapshot.h"

#define PERIOD_US	10000u
#define RUN_NS		500000000ull
#define MAXREC		1024

FIXTURE(sys) {
	int fd;
	struct smp_ring r;
	struct smp_buf b;
};

FIXTURE_SETUP(sys)
{
	const char *why = smp_cannot_run();

	self->fd = -1;
	memset(&self->r, 0, sizeof(self->r));
	memset(&self->b, 0, sizeof(self->b));
	if (why)
		SKIP(return, "%s", why);
	self->fd = smp_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(sys)
{
	smp_ring_unmap(&self->r);
	smp_buf_free(&self->b);
	if (self->fd >= 0)
		close(self->fd);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ull,
			       .tv_nsec = ns % 1000000000ull };

	while (nanosleep(&ts, &ts))
		;
}

/*
 * Two PMCs of one set on CPU 0: a value each per period, sharing the
 * timestamp (one SNAPSET record of the set); values never go back; the
 * last one (a SNAPSHOT record) equals the read.
 */
TEST_F(sys, set_records_at_the_period_share_timestamps)
{
	static struct pmclog_snapshot ra[MAXREC], rb[MAXREC];
	uint32_t ids[2];
	uint64_t t0, t1, v[2], expect;
	size_t na, nb, i, j, shared;
	int64_t a, b;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_ring_map(self->fd, 64, &self->r));
	a = snap_alloc(self->fd, PMC_MODE_SC, 0, PERF_COUNT_SW_CPU_CLOCK, 3,
		       PERIOD_US);
	b = snap_alloc(self->fd, PMC_MODE_SC, 0, PERF_COUNT_SW_CONTEXT_SWITCHES,
		       3, PERIOD_US);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ids[0] = a;
	ids[1] = b;
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, b));
	sleep_ns(RUN_NS);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, a));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, b));
	t1 = pmc_t_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, snap_readset(self->fd, ids, 2, v));
	ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));

	na = snap_records(&self->b, a, ra, MAXREC);
	nb = snap_records(&self->b, b, rb, MAXREC);
	expect = (t1 - t0) / (PERIOD_US * 1000ull);
	TH_LOG("%zu and %zu records in %llu ms (%llu periods)", na, nb,
	       (unsigned long long)((t1 - t0) / 1000000),
	       (unsigned long long)expect);
	ASSERT_LE(2, na);
	ASSERT_LE(2, nb);
	ASSERT_GE(MAXREC, na);
	ASSERT_GE(MAXREC, nb);
	/* The timer's records, then the one written at the stop. */
	EXPECT_LE(expect * 7 / 10, na - 1);
	EXPECT_GE(expect * 13 / 10, na - 1);
	/*
	 * No record while one of them is not started yet or stopped
	 * already: every period of the set gives both a value.
	 */
	EXPECT_EQ(na, nb);
	/*
	 * Each period's values in one SNAPSET record of the whole set, the
	 * stop's in a SNAPSHOT record.
	 */
	EXPECT_EQ(na - 1, snap_sets(&self->b, 3, 2));
	EXPECT_EQ(na - 1, snap_sets(&self->b, 3, SNAP_ANY_SIZE));
	for (i = 0; i + 1 < na; i++)
		EXPECT_TRUE(snap_from_set(&ra[i]));
	for (i = 0; i + 1 < nb; i++)
		EXPECT_TRUE(snap_from_set(&rb[i]));
	EXPECT_FALSE(snap_from_set(&ra[na - 1]));
	EXPECT_FALSE(snap_from_set(&rb[nb - 1]));
	for (i = 0; i < na; i++) {
		EXPECT_EQ(0, ra[i].pl_cpu);
		EXPECT_EQ(0, ra[i].pl_tid);
		EXPECT_EQ(3, ra[i].pl_group);
		EXPECT_LE(t0, ra[i].pl_hdr.pl_tsc);
		EXPECT_GE(t1, ra[i].pl_hdr.pl_tsc);
		if (i)
			EXPECT_LE(ra[i - 1].pl_value, ra[i].pl_value);
	}
	/*
	 * One timestamp per set: each timer record of a from b's first to
	 * b's last timer record has a record of b with its timestamp (the
	 * records written at the two stops are two instants).
	 */
	for (i = 0, j = 0, shared = 0; i + 1 < na; i++) {
		uint64_t ts = ra[i].pl_hdr.pl_tsc;

		if (ts < rb[0].pl_hdr.pl_tsc || ts > rb[nb - 2].pl_hdr.pl_tsc)
			continue;
		while (j + 2 < nb && rb[j].pl_hdr.pl_tsc < ts)
			j++;
		EXPECT_EQ(ts, rb[j].pl_hdr.pl_tsc)
			TH_LOG("record %zu of a (%llu ns) has no twin in b", i,
			       (unsigned long long)ts);
		shared++;
	}
	EXPECT_GE(shared + 2, na - 1);
	/* Stopped: the last record is the value PMCREADSET returns. */
	EXPECT_EQ(v[0], ra[na - 1].pl_value);
	EXPECT_EQ(v[1], rb[nb - 1].pl_value);
	/* cpu-clock counts time: records a period apart differ by one. */
	for (i = 1; i + 1 < na; i++) {
		uint64_t dv = ra[i].pl_value - ra[i - 1].pl_value;
		uint64_t dt = ra[i].pl_hdr.pl_tsc - ra[i - 1].pl_hdr.pl_tsc;

		EXPECT_GE(dt + dt / 10 + 1000000, dv);
	}
}

/* Does @r[0 .. @n) have a record with @r's timestamp @tsc? */
static bool has_twin(const struct pmclog_snapshot *r, size_t n, uint64_t tsc)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].pl_hdr.pl_tsc == tsc)
			return true;
	return false;
}

/*
 * PMCSTART and PMCSTOP take a set one PMC at a time. While one of its
 * PMCs is stopped (or not yet started) the set's timer writes nothing:
 * after a's stop record comes b's stop record alone, and every other
 * value of one has its twin of the other (both in one SNAPSET record of
 * the whole set), so a reader taking the last value of each PMC never
 * mixes a last value with a running one. Each round leaves several
 * periods between the two starts and between the two stops.
 */
TEST_F(sys, no_timer_record_of_a_partly_stopped_set)
{
	static struct pmclog_snapshot ra[MAXREC], rb[MAXREC];
	unsigned int round, after = 0, alone = 0, paired = 0;
	size_t na, nb, fa = 0, fb = 0, i;
	uint32_t ids[2];
	uint64_t v[2];
	int64_t a, b;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_ring_map(self->fd, 64, &self->r));
	/* Two cpu-clocks: b counts on while a is stopped. */
	a = snap_alloc(self->fd, PMC_MODE_SC, 0, PERF_COUNT_SW_CPU_CLOCK, 6,
		       PMC_SNAPSHOT_MIN_US);
	b = snap_alloc(self->fd, PMC_MODE_SC, 0, PERF_COUNT_SW_CPU_CLOCK, 6,
		       PMC_SNAPSHOT_MIN_US);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ids[0] = a;
	ids[1] = b;
	for (round = 0; round < 10; round++) {
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
		sleep_ns(PMC_SNAPSHOT_MIN_US * 5000ull);
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, b));
		sleep_ns(PMC_SNAPSHOT_MIN_US * 5000ull);
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, a));
		sleep_ns(PMC_SNAPSHOT_MIN_US * 5000ull);
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, b));
		ASSERT_EQ(0, snap_readset(self->fd, ids, 2, v));
		ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));
		na = snap_records(&self->b, a, ra, MAXREC);
		nb = snap_records(&self->b, b, rb, MAXREC);
		ASSERT_GE(MAXREC, na);
		ASSERT_GE(MAXREC, nb);
		ASSERT_LT(fa, na);
		ASSERT_LT(fb, nb);
		/* Each one's last record is its stop's, its final value. */
		EXPECT_EQ(v[0], ra[na - 1].pl_value);
		EXPECT_EQ(v[1], rb[nb - 1].pl_value);
		/* b ran on between the stops. */
		EXPECT_LT(ra[na - 1].pl_hdr.pl_tsc, rb[nb - 1].pl_hdr.pl_tsc);
		for (i = fb; i < nb; i++)
			if (rb[i].pl_hdr.pl_tsc > ra[na - 1].pl_hdr.pl_tsc)
				after++;
		/* The timer's records (all but the stops'): in pairs. */
		for (i = fa; i + 1 < na; i++) {
			if (has_twin(rb + fb, nb - 1 - fb, ra[i].pl_hdr.pl_tsc))
				paired++;
			else
				alone++;
		}
		for (i = fb; i + 1 < nb; i++)
			if (!has_twin(ra + fa, na - 1 - fa, rb[i].pl_hdr.pl_tsc))
				alone++;
		fa = na;
		fb = nb;
	}
	TH_LOG("%u paired timer records, %u alone, %u of b after a's stop",
	       paired, alone, after);
	/* After a's stop only b's own stop, each round. */
	EXPECT_EQ(10, after);
	EXPECT_EQ(0, alone);
	/* The set wrote its pairs while both ran, each one SNAPSET of both. */
	EXPECT_LE(10, paired);
	EXPECT_EQ(paired, snap_sets(&self->b, 6, 2));
	EXPECT_EQ(paired, snap_sets(&self->b, 6, SNAP_ANY_SIZE));
}

/* A PMC alone (group 0) on every online CPU writes from its CPU. */
TEST_F(sys, records_come_from_the_pmc_cpu)
{
	static struct pmclog_snapshot rec[MAXREC];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t id[2];
	size_t n, i;
	long c;

	RETURN_IF_SKIPPED();
	if (ncpu > 2)
		ncpu = 2;
	ASSERT_EQ(0, smp_ring_map(self->fd, 16, &self->r));
	for (c = 0; c < ncpu; c++) {
		id[c] = snap_alloc(self->fd, PMC_MODE_SC, c,
				   PERF_COUNT_SW_CPU_CLOCK, 0, 2 * PERIOD_US);
		ASSERT_LE(0, id[c]);
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id[c]));
	}
	sleep_ns(RUN_NS / 5);
	for (c = 0; c < ncpu; c++)
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, id[c]));
	ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));
	for (c = 0; c < ncpu; c++) {
		n = snap_records(&self->b, id[c], rec, MAXREC);
		EXPECT_LE(3, n);
		for (i = 0; i < n && i < MAXREC; i++) {
			EXPECT_EQ(c, rec[i].pl_cpu);
			EXPECT_EQ(0, rec[i].pl_group);
		}
	}
}

/* Stopped, no record comes; PMCSTART starts them again. */
TEST_F(sys, stopped_pmc_writes_nothing)
{
	static struct pmclog_snapshot rec[MAXREC];
	uint64_t t0, t1;
	int64_t id;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_ring_map(self->fd, 16, &self->r));
	id = snap_alloc(self->fd, PMC_MODE_SC, 0, PERF_COUNT_SW_CPU_CLOCK, 0,
			PMC_SNAPSHOT_MIN_US);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	sleep_ns(RUN_NS / 10);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, id));
	ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));
	EXPECT_LE(5, snap_records(&self->b, id, rec, MAXREC));
	smp_buf_free(&self->b);
	sleep_ns(RUN_NS / 10);
	ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));
	EXPECT_EQ(0, snap_records(&self->b, id, rec, MAXREC));
	/*
	 * Released while running: the timer goes with it. Records come only
	 * for the periods between the start and the release (one, unless the
	 * two ops took more than a period: on the RT debug kernel they can).
	 */
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCRELEASE, id));
	t1 = pmc_t_now_ns(CLOCK_MONOTONIC);
	smp_buf_free(&self->b);
	sleep_ns(RUN_NS / 10);
	ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));
	EXPECT_GE(1 + (int)((t1 - t0) / (PMC_SNAPSHOT_MIN_US * 1000ULL)),
		  snap_records(&self->b, id, rec, MAXREC));
}

TEST_F(sys, allocation_and_start_errors)
{
	struct smp_set r = { .snapshot_us = PMC_SNAPSHOT_MIN_US };
	int64_t a, b;

	RETURN_IF_SKIPPED();
	/* Below the floor. */
	EXPECT_EQ(-EINVAL, snap_alloc(self->fd, PMC_MODE_SC, 0,
				      PERF_COUNT_SW_CPU_CLOCK, 0,
				      PMC_SNAPSHOT_MIN_US - 1));
	EXPECT_EQ(-EINVAL, snap_alloc(self->fd, PMC_MODE_TC, PMC_CPU_ANY,
				      PERF_COUNT_SW_TASK_CLOCK, 0, 0));
	/* Sampling modes. */
	EXPECT_EQ(-EINVAL, smp_alloc_ext(self->fd, PMC_CLASS_SOFT, PMC_MODE_SS,
					 0, PERF_TYPE_SOFTWARE,
					 PERF_COUNT_SW_CPU_CLOCK, 1000000,
					 PMC_F_SNAPSHOT, smp_set_ext, &r));
	EXPECT_EQ(-EINVAL, smp_alloc_ext(self->fd, PMC_CLASS_SOFT, PMC_MODE_TS,
					 PMC_CPU_ANY, PERF_TYPE_SOFTWARE,
					 PERF_COUNT_SW_TASK_CLOCK, 1000000,
					 PMC_F_SNAPSHOT, smp_set_ext, &r));
	/* A period without the flag. */
	EXPECT_EQ(-EINVAL, smp_alloc_ext(self->fd, PMC_CLASS_SOFT, PMC_MODE_SC,
					 0, PERF_TYPE_SOFTWARE,
					 PERF_COUNT_SW_CPU_CLOCK, 0, 0,
					 smp_set_ext, &r));
	/* One set, one period. */
	a = snap_alloc(self->fd, PMC_MODE_SC, 0, PERF_COUNT_SW_CPU_CLOCK, 9,
		       PMC_SNAPSHOT_MIN_US);
	ASSERT_LE(0, a);
	EXPECT_EQ(-EINVAL, snap_alloc(self->fd, PMC_MODE_SC, 0,
				      PERF_COUNT_SW_CPU_CLOCK, 9,
				      2 * PMC_SNAPSHOT_MIN_US));
	b = snap_alloc(self->fd, PMC_MODE_TC, PMC_CPU_ANY,
		       PERF_COUNT_SW_TASK_CLOCK, 9, PMC_SNAPSHOT_MIN_US);
	ASSERT_LE(0, b);
	/* Neither a log file nor a ring: nowhere to write (EDOOFUS). */
	EXPECT_EQ(-PMC_EDOOFUS, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	EXPECT_EQ(-PMC_EDOOFUS, smp_simple(self->fd, PMC_IOC_PMCSTART, b));
	ASSERT_EQ(0, smp_ring_map(self->fd, 4, &self->r));
	EXPECT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	EXPECT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, b));
	EXPECT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, a));
	EXPECT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, b));
}

TEST_HARNESS_MAIN
