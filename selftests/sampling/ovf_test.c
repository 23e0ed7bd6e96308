// SPDX-License-Identifier: GPL-2.0
/*
 * ovf_test.c - PMC_F_OVF_SIGNAL: a counting PMC preset to overflow after N
 * events stops its set, writes an OVERFLOW record into the owner's ring and
 * then signals the thread, once (the set stays stopped until PMCSTART).
 */
#include "kselftest_harness.h"

#include "sampling.h"

#define PRESET_NS	30000000ull	/* task-clock: 30 ms of CPU */

static volatile sig_atomic_t nsig;
static volatile uint64_t sink;

static void on_sig(int sig)
{
	nsig++;
}

/* Spin until a signal came or @max_ns of CPU time went by. */
static void spin_until_signal(uint64_t max_ns)
{
	uint64_t end = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) + max_ns;
	int i;

	while (!nsig && pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (i = 0; i < 100000; i++)
			sink += i;
}

static void spin_ns(uint64_t ns)
{
	uint64_t end = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) + ns;

	while (pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		sink++;
}

FIXTURE(ovf) {
	int fd;
	struct smp_ring r;
};

FIXTURE_SETUP(ovf)
{
	struct sigaction sa = { .sa_handler = on_sig };

	SMP_SETUP_RING(16);
	nsig = 0;
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
}

FIXTURE_TEARDOWN(ovf)
{
	SMP_TEARDOWN_RING();
	signal(SIGUSR1, SIG_DFL);
}

/* The OVERFLOW records of the ring. */
static size_t find_overflows(struct smp_ring *r, struct smp_buf *b,
			     const struct pmclog_overflow **last)
{
	struct smp_stream_info si;
	const struct pmclog_header *h;
	size_t off, n = 0;

	smp_ring_drain(r, b);
	if (!smp_check_stream(b, &si))
		return SIZE_MAX;
	smp_for_each_rec(h, b, off) {
		if (smp_rec_type(h) != PMCLOG_TYPE_OVERFLOW)
			continue;
		*last = (const void *)h;
		n++;
	}
	return n;
}

TEST_F(ovf, preset_overflow_stops_records_and_signals_once)
{
	const struct pmclog_overflow *o = NULL;
	struct smp_buf b = {};
	uint64_t v1, v2, vref;
	int64_t id, ref;

	RETURN_IF_SKIPPED();
	id = smp_alloc_tc(self->fd, PERF_COUNT_SW_TASK_CLOCK, -PRESET_NS,
			  PMC_F_OVF_SIGNAL, 0, SIGUSR1);
	/* The thread's task-clock from before the start, another set. */
	ref = smp_alloc_tc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 0, 0, 8, 0);
	ASSERT_LE(0, id);
	ASSERT_LE(0, ref);
	ASSERT_EQ(0, smp_attach_flags(self->fd, id, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, smp_attach_flags(self->fd, ref, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, ref));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	spin_until_signal(20 * PRESET_NS);
	ASSERT_EQ(1, nsig);

	/* The record was in the ring before the signal came. */
	ASSERT_EQ(1, find_overflows(&self->r, &b, &o));
	EXPECT_EQ(gettid(), o->pl_tid);
	EXPECT_EQ(getpid(), o->pl_pid);
	EXPECT_EQ(0, o->pl_group);
	ASSERT_EQ(1, o->pl_nentries);
	EXPECT_EQ((uint32_t)id, o->pl_entries[0].pl_pmcid);
	EXPECT_EQ(1, o->pl_entries[0].pl_overflowed);
	EXPECT_EQ(sizeof(*o) + sizeof(o->pl_entries[0]),
		  smp_rec_len(&o->pl_hdr));
	EXPECT_NE(0, o->pl_ip);

	/* Stopped: it counts no more, and signals no more. */
	ASSERT_EQ(0, smp_read(self->fd, id, &v1));
	ASSERT_EQ(0, smp_read(self->fd, ref, &vref));
	spin_ns(3 * PRESET_NS);
	ASSERT_EQ(0, smp_read(self->fd, id, &v2));
	EXPECT_EQ(v1, v2);
	EXPECT_EQ(1, nsig);
	TH_LOG("counted %llu ns past the preset before the set stopped, %llu ns of task-clock by then",
	       (unsigned long long)v1, (unsigned long long)vref);
	/*
	 * It wrapped past 2^64 (counted the preset and more), and counted
	 * no more than the thread's task-clock did from before its start
	 * to after its stop (how far past the preset is the host's: a TCG
	 * guest off the CPU for 100 ms counts it as task time).
	 */
	EXPECT_LE(PRESET_NS, v1 + PRESET_NS);
	EXPECT_GE(vref, v1 + PRESET_NS);
	smp_buf_free(&b);
}

/* The whole set (same pm_group) stops; the record lists every member. */
TEST_F(ovf, overflow_stops_the_whole_set)
{
	const struct pmclog_overflow *o = NULL;
	struct smp_buf b = {};
	uint64_t a1, a2, c1, c2;
	int64_t a, c, other;
	unsigned int i, seen = 0;

	RETURN_IF_SKIPPED();
	a = smp_alloc_tc(self->fd, PERF_COUNT_SW_TASK_CLOCK, -PRESET_NS,
			 PMC_F_OVF_SIGNAL, 7, SIGUSR1);
	c = smp_alloc_tc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 0, 0, 7, 0);
	other = smp_alloc_tc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 0, 0, 8, 0);
	ASSERT_LE(0, a);
	ASSERT_LE(0, c);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, smp_attach_flags(self->fd, a, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, smp_attach_flags(self->fd, c, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, smp_attach_flags(self->fd, other, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, c));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, other));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	spin_until_signal(20 * PRESET_NS);
	ASSERT_EQ(1, nsig);

	ASSERT_EQ(1, find_overflows(&self->r, &b, &o));
	EXPECT_EQ(7, o->pl_group);
	ASSERT_EQ(2, o->pl_nentries);
	for (i = 0; i < o->pl_nentries; i++) {
		if (o->pl_entries[i].pl_pmcid == (uint32_t)a) {
			EXPECT_EQ(1, o->pl_entries[i].pl_overflowed);
			seen |= 1;
		} else if (o->pl_entries[i].pl_pmcid == (uint32_t)c) {
			EXPECT_EQ(0, o->pl_entries[i].pl_overflowed);
			seen |= 2;
		}
	}
	EXPECT_EQ(3, seen);

	/* Group 7 stopped, group 8 still counts. */
	ASSERT_EQ(0, smp_read(self->fd, c, &c1));
	ASSERT_EQ(0, smp_read(self->fd, other, &a1));
	spin_ns(PRESET_NS);
	ASSERT_EQ(0, smp_read(self->fd, c, &c2));
	ASSERT_EQ(0, smp_read(self->fd, other, &a2));
	EXPECT_EQ(c1, c2);
	EXPECT_LT(a1 + PRESET_NS / 2, a2);
	/* c counted what a did before the overflow: 30 ms of CPU or more. */
	EXPECT_LE(PRESET_NS, c1);
	smp_buf_free(&b);
}

TEST_HARNESS_MAIN
