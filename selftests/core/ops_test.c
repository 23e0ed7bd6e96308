// SPDX-License-Identifier: GPL-2.0
/*
 * ops_test.c - the life of a counting PMC: start, stop, read, write,
 * set-count, read-set, get-msr; counts checked against an independent
 * clock, and the EBUSY/EINVAL/EDOOFUS rules of hwpmc(4).
 */
#include "pmc_test.h"

#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

/* |a - b| <= pct% of b + slack. */
static int near(uint64_t a, uint64_t b, double pct, uint64_t slack)
{
	double d = (double)a - (double)b;

	if (d < 0)
		d = -d;
	return d <= (double)b * pct / 100.0 + (double)slack;
}

FIXTURE(ops) {
	int fd;
};

FIXTURE_SETUP(ops)
{
	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	self->fd = pmc_t_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ops)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * A process counting PMC started without an attach counts its owner:
 * task-clock equals the process CPU time spent between start and stop.
 */
TEST_F(ops, process_task_clock_counts_own_cpu_time)
{
	uint64_t o0, o1, i0, i1, ref, v;
	uint32_t id;
	int pfd = pmc_t_perf_open(0, PMC_T_SW_TASK_CLOCK);

	ASSERT_LE(0, pfd);
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &id));
	/*
	 * perf's own task-clock on this thread around start..stop, and the
	 * CPU clock read around (o) and inside (i) the PMC's window.
	 */
	o0 = pmc_t_now_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(0, pmc_t_perf_enable(pfd));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	i0 = pmc_t_now_ns(CLOCK_PROCESS_CPUTIME_ID);
	pmc_t_spin_ns(200000000);
	i1 = pmc_t_now_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(0, pmc_t_stop(self->fd, id));
	ASSERT_EQ(0, pmc_t_perf_disable(pfd));
	o1 = pmc_t_now_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(0, pmc_t_perf_read(pfd, &ref));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	TH_LOG("task-clock %llu ns, perf %llu ns, CPU time %llu ns inside, %llu ns around",
	       (unsigned long long)v, (unsigned long long)ref,
	       (unsigned long long)(i1 - i0), (unsigned long long)(o1 - o0));
	/*
	 * PMC <= perf, and perf - PMC is at most what ran between the outer
	 * and inner readings (the start and stop ioctls: milliseconds each
	 * on the debug kernel), with 2 % for the two clocks' differences.
	 * The PMC saw all of the spin (the CPU clock runs up to 4 % below
	 * task-clock under TCG, never above).
	 */
	EXPECT_GE(ref, v);
	EXPECT_GE((o1 - o0) - (i1 - i0) + ref / 50 + 200000, ref - v);
	EXPECT_GE(v + v / 50 + 200000, i1 - i0);
	close(pfd);
	/* Stopped: the value does not move. */
	pmc_t_spin_ns(20000000);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &ref));
	EXPECT_EQ(v, ref);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* Page faults are counted exactly. */
TEST_F(ops, process_page_faults_are_exact)
{
	uint64_t v;
	uint32_t id;

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_PAGE_FAULTS, PMC_CAP_USER, 0,
				      &id));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, pmc_t_touch_pages(1000));
	ASSERT_EQ(0, pmc_t_stop(self->fd, id));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	/* 1000 touches, plus the few faults of the calls around them. */
	EXPECT_LE(1000U, v);
	EXPECT_GE(1010U, v);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* A system cpu-clock PMC counts the wall time it was enabled. */
TEST_F(ops, system_cpu_clock_counts_wall_time)
{
	uint64_t t0, t1, v;
	uint32_t id;

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 0,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	usleep(200000);
	ASSERT_EQ(0, pmc_t_stop(self->fd, id));
	t1 = pmc_t_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	TH_LOG("cpu-clock %llu ns, wall %llu ns", (unsigned long long)v,
	       (unsigned long long)(t1 - t0));
	EXPECT_LE(v, t1 - t0);
	EXPECT_TRUE(near(v, t1 - t0, 5.0, 2000000));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/*
 * PMCRW: a value written while stopped is where counting resumes; the
 * old value comes back with OLDVALUE; writing a running PMC is EBUSY.
 */
TEST_F(ops, write_sets_the_starting_value)
{
	uint64_t v;
	uint32_t id, mode;

	/* The system PMC counts CPU 0: fault there. */
	ASSERT_EQ(0, pmc_t_pin_cpu(0));
	for (mode = PMC_MODE_SC; mode <= PMC_MODE_TC; mode += 2) {
		ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, mode, 0,
					      PMC_T_SW_PAGE_FAULTS, 0, 0, &id));
		ASSERT_EQ(0, pmc_t_write(self->fd, id, 1ULL << 40));
		ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
		EXPECT_EQ(1ULL << 40, v);
		ASSERT_EQ(0, pmc_t_start(self->fd, id));
		ASSERT_EQ(0, pmc_t_touch_pages(100));
		EXPECT_EQ(-EBUSY, pmc_t_write(self->fd, id, 0));
		EXPECT_EQ(-EBUSY, pmc_t_setcount(self->fd, id, 0));
		ASSERT_EQ(0, pmc_t_stop(self->fd, id));
		ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
		EXPECT_LE((1ULL << 40) + 100, v);
		/* Read the old value and write a new one in one call. */
		v = 7;
		ASSERT_EQ(0, pmc_t_rw(self->fd, id,
				      PMC_F_NEWVALUE | PMC_F_OLDVALUE, &v));
		EXPECT_LE((1ULL << 40) + 100, v);
		ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
		EXPECT_EQ(7U, v);
		/* SETCOUNT of a counting PMC: its initial value. */
		ASSERT_EQ(0, pmc_t_setcount(self->fd, id, 12345));
		ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
		EXPECT_EQ(12345U, v);
		/* Values are 64-bit: counting goes on across 2^64. */
		ASSERT_EQ(0, pmc_t_write(self->fd, id, ~0ULL - 9));
		ASSERT_EQ(0, pmc_t_start(self->fd, id));
		ASSERT_EQ(0, pmc_t_touch_pages(100));
		ASSERT_EQ(0, pmc_t_stop(self->fd, id));
		ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
		EXPECT_LE(90U, v);
		EXPECT_GE(200U, v);
		/* Bad flags. */
		EXPECT_EQ(-EINVAL, pmc_t_rw(self->fd, id, 0x100, &v));
		EXPECT_EQ(0, pmc_t_release(self->fd, id));
	}
}

/* A PMC allocated with a count starts from it. */
TEST_F(ops, allocate_count_is_the_initial_value)
{
	struct pmc_op_pmcallocate pa;
	uint64_t v;
	uint32_t id;

	pmc_t_soft_request(&pa, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS);
	pa.pm_count = 1000000;
	ASSERT_EQ(0, pmc_t_allocate(self->fd, &pa, &id));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	EXPECT_EQ(1000000U, v);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* Sampling PMCs take no value; their period is set when stopped. */
TEST_F(ops, sampling_pmcs_take_no_value)
{
	uint32_t id;

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TS, 0,
				      PMC_T_SW_TASK_CLOCK, PMC_CAP_INTERRUPT,
				      0, &id));
	EXPECT_EQ(-EINVAL, pmc_t_write(self->fd, id, 5));
	EXPECT_EQ(0, pmc_t_setcount(self->fd, id, 5000000));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* PMCREADSET: every value and one timestamp between the calls around it. */
TEST_F(ops, readset_reads_all_with_one_timestamp)
{
	uint32_t ids[3];
	uint64_t vals[3], v, ts, t0, t1;
	int i;

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_PAGE_FAULTS, 0, 0, &ids[0]));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &ids[1]));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &ids[2]));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pmc_t_write(self->fd, ids[i], 100 * (i + 1)));
		ASSERT_EQ(0, pmc_t_start(self->fd, ids[i]));
	}
	pmc_t_touch_pages(10);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, pmc_t_stop(self->fd, ids[i]));
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pmc_t_readset(self->fd, ids, 3, vals, &ts));
	t1 = pmc_t_now_ns(CLOCK_MONOTONIC);
	EXPECT_LE(t0, ts);
	EXPECT_GE(t1, ts);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pmc_t_read(self->fd, ids[i], &v));
		EXPECT_EQ(v, vals[i]);
		EXPECT_LT((uint64_t)(100 * (i + 1)), vals[i]);
	}
	/*
	 * One bad id spoils the set (row 0xff: no machine has that many rows;
	 * a flipped row bit can name another of these PMCs, as on arm64 where
	 * ARMV8's rows come first); too many ids; flags.
	 */
	v = ids[1];
	ids[1] |= 0xff;
	EXPECT_EQ(-EINVAL, pmc_t_readset(self->fd, ids, 3, vals, NULL));
	ids[1] = (uint32_t)v;
	EXPECT_EQ(-EINVAL, pmc_t_readset(self->fd, ids, PMC_READSET_MAX + 1,
					 vals, NULL));
	EXPECT_EQ(-EFAULT, pmc_t_readset(self->fd, (uint32_t *)8, 3, vals,
					 NULL));
	EXPECT_EQ(-EFAULT, pmc_t_readset(self->fd, ids, 3, (uint64_t *)8,
					 NULL));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, pmc_t_release(self->fd, ids[i]));
}

/*
 * A PMCREADSET argument cut short by an unmapped page (its output
 * timestamp there) fails with EFAULT before its bad fields are judged.
 */
TEST_F(ops, readset_short_argument_is_efault)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct pmc_op_pmcreadset *rs;
	char *p;

	p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, mprotect(p + pg, pg, PROT_NONE));
	rs = (void *)(p + pg - offsetof(struct pmc_op_pmcreadset,
					pm_timestamp));
	rs->pm_count = PMC_READSET_MAX + 1;
	rs->pm_flags = 1;
	rs->pm_ids = 0;
	rs->pm_values = 0;
	EXPECT_EQ(-EFAULT, pmc_t_ioctl(self->fd, PMC_IOC_PMCREADSET, rs));
	munmap(p, 2 * pg);
}

/*
 * PMCREADSET of a set that mixes the counters the driver reads in one pass
 * with IRQs off (this thread's, this CPU's) and those it reads after that
 * pass (another process's, another CPU's): each value lies between PMCRW
 * reads made before and after the set's, and the running ones moved.
 */
TEST_F(ops, readset_mixes_local_and_remote_counters)
{
	struct pmc_t_child c = { .go_fd = -1 };
	uint64_t before[4], vals[4], after[4], spin = 400000000ULL;
	uint32_t ids[4];
	int i;

	ASSERT_EQ(0, pmc_t_pin_cpu(0));
	/* This thread, this CPU, the other CPU, a spinning child. */
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &ids[0]));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 0,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &ids[1]));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &ids[2]));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &ids[3]));
	ASSERT_EQ(0, pmc_t_child_start(&c, pmc_t_spin_fn, &spin));
	ASSERT_EQ(0, pmc_t_attach(self->fd, ids[3], c.pid, 0));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pmc_t_start(self->fd, ids[i]));
	ASSERT_EQ(0, pmc_t_child_go(&c));
	pmc_t_spin_ns(50000000ULL);

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pmc_t_read(self->fd, ids[i], &before[i]));
	pmc_t_spin_ns(5000000ULL);
	ASSERT_EQ(0, pmc_t_readset(self->fd, ids, 4, vals, NULL));
	pmc_t_spin_ns(5000000ULL);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pmc_t_read(self->fd, ids[i], &after[i]));
	for (i = 0; i < 4; i++) {
		EXPECT_LE(before[i], vals[i]) TH_LOG("slot %d", i);
		EXPECT_GE(after[i], vals[i]) TH_LOG("slot %d", i);
	}
	/* This thread's and this CPU's counters ran between the reads. */
	EXPECT_LT(before[0], vals[0]);
	EXPECT_LT(before[1], vals[1]);
	EXPECT_LT(vals[0], after[0]);
	EXPECT_LT(vals[1], after[1]);

	pmc_t_child_kill(&c);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, pmc_t_release(self->fd, ids[i]));
}

/* EDOOFUS (EPROTO): PMCs that need a log cannot start without one. */
TEST_F(ops, pmcs_needing_a_log_do_not_start_without_one)
{
	uint32_t id;

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0,
				      PMC_F_LOG_PROCCSW, &id));
	EXPECT_EQ(-PMC_EDOOFUS, pmc_t_start(self->fd, id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0,
				      PMC_F_LOG_PROCEXIT, &id));
	EXPECT_EQ(-PMC_EDOOFUS, pmc_t_start(self->fd, id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SS, 0,
				      PMC_T_SW_CPU_CLOCK, PMC_CAP_INTERRUPT,
				      0, &id));
	EXPECT_EQ(-PMC_EDOOFUS, pmc_t_start(self->fd, id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* PMCGETMSR: only for a hardware process PMC on its owner alone. */
TEST_F(ops, getmsr_rules)
{
	uint32_t id, msr;

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 0,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ(-EINVAL, pmc_t_getmsr(self->fd, id, &msr));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_CPU_CLOCK, 0,
				      PMC_F_DESCENDANTS, &id));
	EXPECT_EQ(0, pmc_t_attach(self->fd, id, 0, 0));
	EXPECT_EQ(-EINVAL, pmc_t_getmsr(self->fd, id, &msr));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	/* SOFT events have no RDPMC index. */
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ(0, pmc_t_attach(self->fd, id, 0, 0));
	EXPECT_EQ(0, pmc_t_start(self->fd, id));
	EXPECT_EQ(-EOPNOTSUPP, pmc_t_getmsr(self->fd, id, &msr));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* Start and stop are idempotent; release of a running PMC stops it. */
TEST_F(ops, start_stop_twice_and_release_running)
{
	uint32_t id;

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ(0, pmc_t_stop(self->fd, id));
	EXPECT_EQ(0, pmc_t_start(self->fd, id));
	EXPECT_EQ(0, pmc_t_start(self->fd, id));
	EXPECT_EQ(0, pmc_t_stop(self->fd, id));
	EXPECT_EQ(0, pmc_t_stop(self->fd, id));
	EXPECT_EQ(0, pmc_t_start(self->fd, id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	EXPECT_EQ(-EINVAL, pmc_t_start(self->fd, id));
}

TEST_HARNESS_MAIN
