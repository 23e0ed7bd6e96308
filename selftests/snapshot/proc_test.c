// SPDX-License-Identifier: GPL-2.0
/*
 * proc_test.c - PMC_F_SNAPSHOT in thread scope (records at the thread's
 * switch-outs, at most one per period, one timestamp per set: one SNAPSET
 * record) and the values of OVERFLOW records (the stopped set's values,
 * exactly).
 */
#include "kselftest_harness.h"

#include "snapshot.h"

#define PERIOD_US	5000u
#define MAXREC		4096
#define PRESET_NS	30000000ull

static volatile uint64_t sink;
static volatile sig_atomic_t nsig;

static void on_sig(int sig)
{
	nsig++;
}

FIXTURE(proc) {
	int fd;
	struct smp_ring r;
	struct smp_buf b;
};

FIXTURE_SETUP(proc)
{
	struct sigaction sa = { .sa_handler = on_sig };

	memset(&self->b, 0, sizeof(self->b));
	SMP_SETUP_RING(64);
	nsig = 0;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
}

FIXTURE_TEARDOWN(proc)
{
	SMP_TEARDOWN_RING();
	smp_buf_free(&self->b);
	signal(SIGUSR1, SIG_DFL);
}

/* Spin @ns of CPU time, sleeping 200 us every @slice_ns (switch-outs). */
static unsigned int spin_and_sleep(uint64_t ns, uint64_t slice_ns)
{
	uint64_t end = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) + ns, next;
	struct timespec ts = { .tv_nsec = 200000 };
	unsigned int sleeps = 0;

	while (pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) < end) {
		next = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) + slice_ns;
		while (pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) < next)
			sink++;
		nanosleep(&ts, NULL);
		sleeps++;
	}
	return sleeps;
}

/*
 * @n switch-outs at which a PMC_SNAPSHOT_MIN_US period has elapsed (by
 * the clock the driver's period follows, whatever the CPU time).
 */
static void switch_out_when_due(unsigned int n)
{
	uint64_t due;

	while (n--) {
		due = pmc_t_now_ns(CLOCK_MONOTONIC) +
		      PMC_SNAPSHOT_MIN_US * 1500ull;
		while (pmc_t_now_ns(CLOCK_MONOTONIC) < due)
			sink++;
		usleep(200);
	}
}

/*
 * Two SNAPSHOT PMCs of set @group counting the calling thread (@ca, then
 * @cb), one period: their ids in @ids. 0, or -1.
 */
static int thread_set_alloc(int fd, uint64_t ca, uint64_t cb, uint32_t group,
			    uint32_t period_us, uint32_t ids[2])
{
	int64_t a = snap_alloc(fd, PMC_MODE_TC, PMC_CPU_ANY, ca, group,
			       period_us);
	int64_t b = snap_alloc(fd, PMC_MODE_TC, PMC_CPU_ANY, cb, group,
			       period_us);

	if (a < 0 || b < 0)
		return -1;
	ids[0] = a;
	ids[1] = b;
	if (smp_attach_flags(fd, a, 0, PMC_ATTACH_F_THREAD) ||
	    smp_attach_flags(fd, b, 0, PMC_ATTACH_F_THREAD))
		return -1;
	return 0;
}

TEST_F(proc, thread_records_at_switch_out)
{
	static struct pmclog_snapshot ra[MAXREC], rb[MAXREC];
	uint64_t t0, t1, v[2];
	unsigned int sleeps;
	uint32_t ids[2];
	size_t na, nb, i, j, paired = 0;
	int64_t a, b;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, thread_set_alloc(self->fd, PERF_COUNT_SW_TASK_CLOCK,
				      PERF_COUNT_SW_CONTEXT_SWITCHES, 4,
				      PERIOD_US, ids));
	a = ids[0];
	b = ids[1];
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, b));
	sleeps = spin_and_sleep(100000000ull, 1000000ull);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, a));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, b));
	t1 = pmc_t_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, snap_readset(self->fd, ids, 2, v));
	ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));

	na = snap_records(&self->b, a, ra, MAXREC);
	nb = snap_records(&self->b, b, rb, MAXREC);
	TH_LOG("%zu/%zu records, %u sleeps, %llu switches in %llu ms", na, nb,
	       sleeps, (unsigned long long)v[1],
	       (unsigned long long)((t1 - t0) / 1000000));
	ASSERT_LE(3, na);
	ASSERT_GE(MAXREC, na);
	/*
	 * At most one per period and per switch-out, then the stop's. The
	 * switch-outs are the set's own context-switch count: more than the
	 * sleeps where the thread is also preempted (PREEMPT_RT's threaded
	 * interrupts: 28 records for 23 sleeps on the RT debug kernel).
	 */
	EXPECT_GE((t1 - t0) / (PERIOD_US * 1000ull) + 1, na - 1);
	EXPECT_GE(v[1] + 1, na - 1);
	for (i = 0; i + 1 < na; i++) {
		EXPECT_EQ((uint32_t)gettid(), ra[i].pl_tid);
		EXPECT_EQ(4, ra[i].pl_group);
		EXPECT_GT(sysconf(_SC_NPROCESSORS_CONF), ra[i].pl_cpu);
		if (i) {
			EXPECT_LE(ra[i - 1].pl_value, ra[i].pl_value);
			EXPECT_LE(ra[i - 1].pl_hdr.pl_tsc +
				  PERIOD_US * 1000ull, ra[i].pl_hdr.pl_tsc);
		}
		for (j = 0; j + 1 < nb; j++)
			if (rb[j].pl_hdr.pl_tsc == ra[i].pl_hdr.pl_tsc)
				paired++;
		/* A switch-out record is below the final value. */
		EXPECT_GE(v[0], ra[i].pl_value);
	}
	/* The set is written together: one timestamp for both. */
	EXPECT_EQ(na - 1, paired);
	/*
	 * In one SNAPSET record of the whole set per switch-out; the stop's
	 * values in SNAPSHOT records.
	 */
	EXPECT_EQ(na - 1, snap_sets(&self->b, 4, 2));
	EXPECT_EQ(na - 1, snap_sets(&self->b, 4, SNAP_ANY_SIZE));
	for (i = 0; i + 1 < na; i++)
		EXPECT_TRUE(snap_from_set(&ra[i]));
	EXPECT_FALSE(snap_from_set(&ra[na - 1]));
	EXPECT_FALSE(snap_from_set(&rb[nb - 1]));
	/* The stop's record: the PMC's value, no thread, no CPU. */
	EXPECT_EQ(0, ra[na - 1].pl_tid);
	EXPECT_EQ(PMC_CPU_ANY, ra[na - 1].pl_cpu);
	EXPECT_EQ(v[0], ra[na - 1].pl_value);
	EXPECT_EQ(v[1], rb[nb - 1].pl_value);
}

/*
 * PMCSTOP stops a set one PMC at a time. While one is stopped, the set's
 * switch-outs write nothing: the other's records after the first stop's
 * are its own stop's only, so a reader taking the last value of each PMC
 * never mixes a last value with a switch-out value. Before the first
 * stop, each switch-out wrote one SNAPSET record of both.
 */
TEST_F(proc, no_switch_out_record_of_a_partly_stopped_set)
{
	static struct pmclog_snapshot ra[MAXREC], rb[MAXREC];
	uint64_t v[2];
	uint32_t ids[2];
	size_t na, nb, i, after = 0;

	RETURN_IF_SKIPPED();
	/* Two task-clocks: b counts on while a is stopped. */
	ASSERT_EQ(0, thread_set_alloc(self->fd, PERF_COUNT_SW_TASK_CLOCK,
				      PERF_COUNT_SW_TASK_CLOCK, 5,
				      PMC_SNAPSHOT_MIN_US, ids));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, ids[0]));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, ids[1]));
	spin_and_sleep(20000000ull, 2000000ull);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, ids[0]));
	switch_out_when_due(10);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, ids[1]));
	ASSERT_EQ(0, snap_readset(self->fd, ids, 2, v));
	ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));

	na = snap_records(&self->b, ids[0], ra, MAXREC);
	nb = snap_records(&self->b, ids[1], rb, MAXREC);
	TH_LOG("%zu/%zu records", na, nb);
	ASSERT_LE(2, na);
	ASSERT_LE(2, nb);
	/* Each one's last record is its stop's, with its final value. */
	EXPECT_EQ(0, ra[na - 1].pl_tid);
	EXPECT_EQ(v[0], ra[na - 1].pl_value);
	EXPECT_EQ(0, rb[nb - 1].pl_tid);
	EXPECT_EQ(v[1], rb[nb - 1].pl_value);
	for (i = 0; i < nb; i++)
		if (rb[i].pl_hdr.pl_tsc > ra[na - 1].pl_hdr.pl_tsc)
			after++;
	EXPECT_EQ(1, after);
	EXPECT_EQ(na - 1, snap_sets(&self->b, 5, 2));
	EXPECT_EQ(nb - 1, snap_sets(&self->b, 5, SNAP_ANY_SIZE));
	/* b ran on between the stops. */
	EXPECT_LT(v[0], v[1]);
}

/* Move the calling thread to @cpu. */
static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Records staged on two CPUs come in pl_tsc order: the switch-out records
 * a thread left on CPU 1 precede the stop's record it wrote next on CPU 0,
 * though the publisher takes CPU 0 first (it merges the CPUs' records).
 */
TEST_F(proc, records_of_two_cpus_come_in_time_order)
{
	static struct pmclog_snapshot ra[MAXREC];
	unsigned int round, bad = 0, total = 0;
	size_t na, i, from = 0;
	int64_t a;

	RETURN_IF_SKIPPED();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online: no records of two CPUs to merge");
	a = snap_alloc(self->fd, PMC_MODE_TC, PMC_CPU_ANY,
		       PERF_COUNT_SW_TASK_CLOCK, 0, PMC_SNAPSHOT_MIN_US);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, smp_attach_flags(self->fd, a, 0, PMC_ATTACH_F_THREAD));
	for (round = 0; round < 20; round++) {
		ASSERT_EQ(0, pin_to(1));
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
		switch_out_when_due(4);
		/* Its switch-out on CPU 1, then the stop's record on CPU 0. */
		ASSERT_EQ(0, pin_to(0));
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, a));
		ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));
		na = snap_records(&self->b, a, ra, MAXREC);
		ASSERT_LT(from, na);
		for (i = from + 1; i < na; i++)
			if (ra[i].pl_hdr.pl_tsc < ra[i - 1].pl_hdr.pl_tsc)
				bad++;
		/* Switch-out records, and last the stop's. */
		EXPECT_LE(from + 2, na);
		EXPECT_EQ(0, ra[na - 1].pl_tid);
		total += na - from;
		from = na;
	}
	TH_LOG("%u records in 20 rounds", total);
	EXPECT_EQ(0, bad);
}

/* A thread that never switches out writes only the stop's record. */
TEST_F(proc, no_switch_no_record)
{
	static struct pmclog_snapshot ra[MAXREC];
	uint64_t v;
	int64_t a;

	RETURN_IF_SKIPPED();
	a = snap_alloc(self->fd, PMC_MODE_TC, PMC_CPU_ANY,
		       PERF_COUNT_SW_PAGE_FAULTS, 0, PMC_SNAPSHOT_MIN_US);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, smp_attach_flags(self->fd, a, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, a));
	ASSERT_EQ(0, smp_read(self->fd, a, &v));
	ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));
	ASSERT_LE(1, snap_records(&self->b, a, ra, MAXREC));
	EXPECT_EQ(v, ra[snap_records(&self->b, a, ra, MAXREC) - 1].pl_value);
}

/* OVERFLOW values: those of the stopped set, equal to PMCRW after it. */
TEST_F(proc, overflow_record_values_are_the_stopped_values)
{
	const struct pmclog_header *h;
	const struct pmclog_overflow *o = NULL;
	uint64_t va, vc, end;
	unsigned int i, seen = 0;
	size_t off;
	int64_t a, c;

	RETURN_IF_SKIPPED();
	a = smp_alloc_tc(self->fd, PERF_COUNT_SW_TASK_CLOCK, -PRESET_NS,
			 PMC_F_OVF_SIGNAL, 7, SIGUSR1);
	c = smp_alloc_tc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 1000, 0, 7, 0);
	ASSERT_LE(0, a);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, smp_attach_flags(self->fd, a, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, smp_attach_flags(self->fd, c, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, c));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	end = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) + 20 * PRESET_NS;
	while (!nsig && pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		sink++;
	ASSERT_EQ(1, nsig);
	ASSERT_EQ(0, smp_read(self->fd, a, &va));
	ASSERT_EQ(0, smp_read(self->fd, c, &vc));
	/* Published before the signal: no flush needed. */
	smp_ring_drain(&self->r, &self->b);
	smp_for_each_rec(h, &self->b, off)
		if (smp_rec_type(h) == PMCLOG_TYPE_OVERFLOW)
			o = (const void *)h;
	ASSERT_NE(NULL, o);
	ASSERT_EQ(2, o->pl_nentries);
	for (i = 0; i < 2; i++) {
		if (o->pl_entries[i].pl_pmcid == (uint32_t)a) {
			EXPECT_EQ(1, o->pl_entries[i].pl_overflowed);
			EXPECT_EQ(va, o->pl_entries[i].pl_value);
			seen |= 1;
		} else if (o->pl_entries[i].pl_pmcid == (uint32_t)c) {
			EXPECT_EQ(0, o->pl_entries[i].pl_overflowed);
			EXPECT_EQ(vc, o->pl_entries[i].pl_value);
			/* Started first, from 1000: at least the preset more. */
			EXPECT_LE(PRESET_NS + 1000, o->pl_entries[i].pl_value);
			seen |= 2;
		}
	}
	EXPECT_EQ(3, seen);
	/*
	 * a went past its preset (wrapped past 2^64) and counted no more
	 * than c, started before it from 1000 and stopped after it, the
	 * same clock: how far past the preset a got is the host's (a TCG
	 * guest off the CPU for 100 ms counts it as task time).
	 */
	TH_LOG("a %llu ns past its preset, c %llu ns",
	       (unsigned long long)va, (unsigned long long)(vc - 1000));
	EXPECT_LE(PRESET_NS, va + PRESET_NS);
	EXPECT_GE(vc - 1000, va + PRESET_NS);
}

TEST_HARNESS_MAIN
