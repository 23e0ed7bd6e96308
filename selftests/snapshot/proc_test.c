// SPDX-License-Identifier: GPL-2.0
/*
 * proc_test.c - PMC_F_SNAPSHOT in thread scope (records at the thread's
 * switch-outs, at most one per period, one timestamp per set) and the
 * values of OVERFLOW records (the stopped set's values, exactly).
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
	uint64_t end = smp_now_ns(CLOCK_THREAD_CPUTIME_ID) + ns, next;
	struct timespec ts = { .tv_nsec = 200000 };
	unsigned int sleeps = 0;

	while (smp_now_ns(CLOCK_THREAD_CPUTIME_ID) < end) {
		next = smp_now_ns(CLOCK_THREAD_CPUTIME_ID) + slice_ns;
		while (smp_now_ns(CLOCK_THREAD_CPUTIME_ID) < next)
			sink++;
		nanosleep(&ts, NULL);
		sleeps++;
	}
	return sleeps;
}

TEST_F(proc, thread_records_at_switch_out)
{
	static const struct pmclog_snapshot *ra[MAXREC], *rb[MAXREC];
	uint64_t t0, t1, v[2];
	unsigned int sleeps;
	uint32_t ids[2];
	size_t na, nb, i, j, paired = 0;
	int64_t a, b;

	RETURN_IF_SKIPPED();
	a = snap_alloc(self->fd, PMC_MODE_TC, PMC_CPU_ANY,
		       PERF_COUNT_SW_TASK_CLOCK, 4, PERIOD_US);
	b = snap_alloc(self->fd, PMC_MODE_TC, PMC_CPU_ANY,
		       PERF_COUNT_SW_CONTEXT_SWITCHES, 4, PERIOD_US);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ids[0] = a;
	ids[1] = b;
	ASSERT_EQ(0, smp_attach_flags(self->fd, a, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, smp_attach_flags(self->fd, b, 0, PMC_ATTACH_F_THREAD));
	t0 = smp_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, b));
	sleeps = spin_and_sleep(100000000ull, 1000000ull);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, a));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, b));
	t1 = smp_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, snap_readset(self->fd, ids, 2, v));
	ASSERT_TRUE(snap_collect(self->fd, &self->r, &self->b));

	na = snap_records(&self->b, a, ra, MAXREC);
	nb = snap_records(&self->b, b, rb, MAXREC);
	TH_LOG("%zu/%zu records, %u sleeps in %llu ms", na, nb, sleeps,
	       (unsigned long long)((t1 - t0) / 1000000));
	ASSERT_LE(3, na);
	ASSERT_GE(MAXREC, na);
	/* At most one per period (and per switch-out), then the stop's. */
	EXPECT_GE((t1 - t0) / (PERIOD_US * 1000ull) + 1, na - 1);
	EXPECT_GE(sleeps + 1, na - 1);
	for (i = 0; i + 1 < na; i++) {
		EXPECT_EQ((uint32_t)gettid(), ra[i]->pl_tid);
		EXPECT_EQ(4, ra[i]->pl_group);
		EXPECT_GT(sysconf(_SC_NPROCESSORS_CONF), ra[i]->pl_cpu);
		if (i) {
			EXPECT_LE(ra[i - 1]->pl_value, ra[i]->pl_value);
			EXPECT_LE(ra[i - 1]->pl_hdr.pl_tsc +
				  PERIOD_US * 1000ull, ra[i]->pl_hdr.pl_tsc);
		}
		for (j = 0; j + 1 < nb; j++)
			if (rb[j]->pl_hdr.pl_tsc == ra[i]->pl_hdr.pl_tsc)
				paired++;
		/* A switch-out record is below the final value. */
		EXPECT_GE(v[0], ra[i]->pl_value);
	}
	/* The set is written together: one timestamp for both. */
	EXPECT_EQ(na - 1, paired);
	/* The stop's record: the PMC's value, no thread, no CPU. */
	EXPECT_EQ(0, ra[na - 1]->pl_tid);
	EXPECT_EQ(PMC_CPU_ANY, ra[na - 1]->pl_cpu);
	EXPECT_EQ(v[0], ra[na - 1]->pl_value);
	EXPECT_EQ(v[1], rb[nb - 1]->pl_value);
}

/* A thread that never switches out writes only the stop's record. */
TEST_F(proc, no_switch_no_record)
{
	static const struct pmclog_snapshot *ra[MAXREC];
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
	EXPECT_EQ(v, ra[snap_records(&self->b, a, ra, MAXREC) - 1]->pl_value);
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
	end = smp_now_ns(CLOCK_THREAD_CPUTIME_ID) + 20 * PRESET_NS;
	while (!nsig && smp_now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
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
			/* It went past its preset: wrapped past 2^64. */
			EXPECT_GT(PRESET_NS, o->pl_entries[i].pl_value);
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
}

TEST_HARNESS_MAIN
