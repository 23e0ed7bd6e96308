// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle_test.c - pmc(3) end to end: PMCs of the SOFT class in all four
 * modes (TC, TS, SC, SS) through allocate, attach, start, read, write,
 * stop and release, each count checked against an independent measure
 * (getrusage, CPU clocks, CLOCK_MONOTONIC); the machine and row information;
 * the Linux extensions (thread scope, multi-read).
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "pmc_test.h"
#include "pmc_util.h"

#define NPAGES	256

/* Counting the caller's own page faults: exact up to the faults of the ioctls. */
TEST(tc_counts_own_page_faults)
{
	pmc_value_t v, old;
	uint32_t caps, width;
	long r0, r1;
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-page-faults", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0);
	ASSERT_EQ(PMC_MODE_TC, PMC_ID_TO_MODE(id));
	ASSERT_EQ(PMC_CLASS_SOFT, PMC_ID_TO_CLASS(id));
	ASSERT_EQ(0, pmc_attach(id, 0));
	ASSERT_EQ(0, pmc_capabilities(id, &caps));
	EXPECT_EQ(PMC_CAP_USER | PMC_CAP_SYSTEM, caps);
	ASSERT_EQ(0, pmc_width(id, &width));
	EXPECT_EQ(64, width);

	r0 = minflt(RUSAGE_SELF);
	ASSERT_EQ(0, pmc_start(id));
	ASSERT_EQ(0, touch_pages(NPAGES));
	ASSERT_EQ(0, pmc_stop(id));
	r1 = minflt(RUSAGE_SELF);
	ASSERT_EQ(0, pmc_read(id, &v));
	EXPECT_GE(v, NPAGES);
	EXPECT_LE(v, (pmc_value_t)(r1 - r0));

	/* Stopped: the count holds still. */
	ASSERT_EQ(0, touch_pages(16));
	ASSERT_EQ(0, pmc_read(id, &old));
	EXPECT_EQ(v, old);

	/* Write, exchange, initial count. */
	ASSERT_EQ(0, pmc_write(id, 1000));
	ASSERT_EQ(0, pmc_read(id, &v));
	EXPECT_EQ(1000, v);
	ASSERT_EQ(0, pmc_rw(id, 5, &old));
	EXPECT_EQ(1000, old);
	ASSERT_EQ(0, pmc_read(id, &v));
	EXPECT_EQ(5, v);
	ASSERT_EQ(0, pmc_set(id, 77));
	ASSERT_EQ(0, pmc_read(id, &v));
	EXPECT_EQ(77, v);

	/* Counting resumes from the value written. */
	ASSERT_EQ(0, pmc_start(id));
	ASSERT_EQ(0, touch_pages(NPAGES));
	ASSERT_EQ(0, pmc_stop(id));
	ASSERT_EQ(0, pmc_read(id, &v));
	EXPECT_GE(v, 77 + NPAGES);
	EXPECT_LE(v, 77 + NPAGES + 32);

	ASSERT_EQ(0, pmc_release(id));
	EXPECT_EQ(-1, pmc_read(id, &v));
	EXPECT_EQ(EINVAL, errno);
}

/* hwpmc's main use: count a child from its start to its exit. */
TEST(tc_counts_a_child_process)
{
	struct rusage ru;
	int go[2], status;
	pmc_value_t v;
	pmc_id_t id;
	pid_t pid;
	char c = 0;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-page-faults", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0);
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		_exit(touch_pages(NPAGES) ? 3 : 0);
	}
	close(go[0]);
	ASSERT_EQ(0, pmc_attach(id, pid));
	ASSERT_EQ(0, pmc_start(id));
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, wait4(pid, &status, 0, &ru));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, pmc_stop(id));
	/* The child's count survives it, as hwpmc's does. */
	ASSERT_EQ(0, pmc_read(id, &v));
	EXPECT_GE(v, NPAGES);
	EXPECT_LE(v, (pmc_value_t)ru.ru_minflt);
	ASSERT_EQ(0, pmc_release(id));
	close(go[1]);
}

/*
 * task-clock counts the thread's CPU time in nanoseconds, as perf's own
 * task-clock does: no less than a perf counter enabled after PMCSTART and
 * disabled before PMCSTOP, no more than one enabled before PMCSTART and
 * disabled after PMCSTOP. The three read one clock (the task's perf
 * context time), so the bounds are exact on any kernel and any load.
 * The thread's CPU clock is another clock, charged from the scheduler's
 * pick rather than perf's switch-in: on the PREEMPT_RT debug kernel
 * under a loaded host the two drifted 5 % apart (docs/reliability.md),
 * and a PMCSTART there took up to 30 ms of CPU time. It only shows the
 * unit.
 */
TEST(tc_task_clock_matches_cpu_time)
{
	uint64_t c0, c1, inner, outer;
	int fin, fout;
	pmc_value_t v;
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	fout = pmc_t_perf_open(0, PMC_T_SW_TASK_CLOCK);
	fin = pmc_t_perf_open(0, PMC_T_SW_TASK_CLOCK);
	ASSERT_LE(0, fout);
	ASSERT_LE(0, fin);
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0);
	/* Started without an attach: hwpmc attaches it to its owner. */
	ASSERT_EQ(0, pmc_t_perf_enable(fout));
	ASSERT_EQ(0, pmc_start(id));
	ASSERT_EQ(0, pmc_t_perf_enable(fin));
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	spin_cpu_ns(100000000);
	c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	ASSERT_EQ(0, pmc_t_perf_disable(fin));
	ASSERT_EQ(0, pmc_stop(id));
	ASSERT_EQ(0, pmc_t_perf_disable(fout));
	ASSERT_EQ(0, pmc_read(id, &v));
	ASSERT_EQ(0, pmc_t_perf_read(fin, &inner));
	ASSERT_EQ(0, pmc_t_perf_read(fout, &outer));
	EXPECT_LE(inner, v);
	EXPECT_LE(v, outer);
	EXPECT_NEAR_PCT(inner, c1 - c0, 25, 2000000);
	ASSERT_EQ(0, pmc_release(id));
	close(fin);
	close(fout);
}

/* A sampling PMC goes through its life without a log (its samples are dropped). */
TEST(ts_lifecycle)
{
	uint32_t caps;
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TS, 0, PMC_CPU_ANY, &id,
			  1000000);
	ASSERT_EQ(PMC_MODE_TS, PMC_ID_TO_MODE(id));
	ASSERT_EQ(0, pmc_capabilities(id, &caps));
	EXPECT_EQ(PMC_CAP_INTERRUPT | PMC_CAP_USER | PMC_CAP_SYSTEM, caps);
	ASSERT_EQ(0, pmc_set(id, 2000000));
	ASSERT_EQ(0, pmc_attach(id, 0));
	ASSERT_EQ(0, pmc_start(id));
	spin_cpu_ns(20000000);
	EXPECT_EQ(-1, pmc_set(id, 3000000));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, pmc_stop(id));
	/* A sampling PMC takes no value. */
	EXPECT_EQ(-1, pmc_write(id, 1));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, pmc_release(id));
}

/* cpu-clock of one CPU counts the time the PMC ran, busy or idle. */
TEST(sc_cpu_clock_matches_elapsed_time)
{
	struct pmc_pmcinfo *pi;
	uint64_t t0, t0s, t1s, t1;
	pmc_value_t v;
	int i, found = 0;
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-cpu-clock", PMC_MODE_SC, 0, 0, &id, 0);
	ASSERT_EQ(PMC_MODE_SC, PMC_ID_TO_MODE(id));
	ASSERT_EQ(0, PMC_ID_TO_CPU(id));
	/*
	 * At least the wall time between the start's return and the stop's
	 * call, at most the wall time around both: on the PREEMPT_RT debug
	 * kernel under a loaded host the two ops took 10 ms between them.
	 * 1 % and 100 us for the two clocks (sched_clock and
	 * CLOCK_MONOTONIC) and the reads.
	 */
	t0 = clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pmc_start(id));
	t0s = clock_ns(CLOCK_MONOTONIC);
	usleep(100000);
	t1s = clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pmc_stop(id));
	t1 = clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pmc_read(id, &v));
	EXPECT_GE(v + v / 100 + 100000, t1s - t0s)
		TH_LOG("cpu-clock %" PRIu64 ", wall time %" PRIu64 " inside",
		       v, t1s - t0s);
	EXPECT_LE(v, t1 - t0 + (t1 - t0) / 100 + 100000)
		TH_LOG("cpu-clock %" PRIu64 ", wall time %" PRIu64 " around",
		       v, t1 - t0);

	/* Its row on CPU 0 says who owns it and how. */
	ASSERT_EQ(0, pmc_pmcinfo(0, &pi));
	for (i = 0; i < pmc_npmc(0); i++) {
		struct pmc_info *p = &pi->pm_pmcs[i];

		if (p->pm_ownerpid != getpid())
			continue;
		found++;
		EXPECT_EQ(PMC_CLASS_SOFT, p->pm_class);
		EXPECT_EQ(PMC_MODE_SC, p->pm_mode);
		EXPECT_EQ(PMC_EV_SOFT_CPU_CLOCK, p->pm_event);
		EXPECT_EQ(PMC_DISP_STANDALONE, p->pm_rowdisp);
		EXPECT_EQ(PMC_STATE_STOPPED, p->pm_state);
		EXPECT_EQ(PMC_ID_TO_ROWINDEX(id), i);
	}
	EXPECT_EQ(1, found);
	free(pi);
	ASSERT_EQ(0, pmc_release(id));
}

/* System sampling needs a log (hwpmc: EDOOFUS); log_test runs it with one. */
TEST(ss_lifecycle_without_log)
{
	uint32_t caps;
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-cpu-clock", PMC_MODE_SS, 0, 0, &id, 1000000);
	ASSERT_EQ(PMC_MODE_SS, PMC_ID_TO_MODE(id));
	ASSERT_EQ(0, pmc_capabilities(id, &caps));
	EXPECT_TRUE(caps & PMC_CAP_INTERRUPT);
	EXPECT_EQ(-1, pmc_start(id));
	EXPECT_EQ(EDOOFUS, errno);
	ASSERT_EQ(0, pmc_set(id, 2000000));
	ASSERT_EQ(0, pmc_release(id));
}

/*
 * A read of @id between two clock readings (*@before, *@after): the host
 * may stop the guest between a read and a clock reading, so the read's
 * instant is known only within them.
 */
static int tsc_read_between(pmc_id_t id, pmc_value_t *v, uint64_t *before,
			    uint64_t *after)
{
	int ret;

	*before = clock_ns(CLOCK_MONOTONIC);
	ret = pmc_read(id, v);
	*after = clock_ns(CLOCK_MONOTONIC);
	return ret;
}

/* The TSC counts system-wide only; its rate is steady. */
TEST(tsc_counts_in_system_counting_mode)
{
	const struct pmc_cpuinfo *ci;
	pmc_value_t v0, v1, v2;
	uint64_t b0, a0, b1, a1, b2, a2;
	double lo1, hi1, lo2, hi2;
	cpu_set_t cpus, old;
	pmc_id_t id;
	uint32_t i;
	bool tsc = false;

	PMC_INIT_OR_SKIP();
	ASSERT_EQ(0, pmc_cpuinfo(&ci));
	for (i = 0; i < ci->pm_nclass; i++)
		tsc |= ci->pm_classes[i].pm_class == PMC_CLASS_TSC;
	if (!tsc)
		SKIP(return, "no TSC class on this machine");
	EXPECT_EQ(-1, pmc_allocate("TSC-TSC", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0));
	EXPECT_EQ(EINVAL, errno);
	/*
	 * On CPU 0 with its PMC: each read is local, not a cross-call whose
	 * delay (milliseconds under TCG on a loaded host) would skew the
	 * intervals.
	 */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	PMC_ALLOC("TSC-TSC", PMC_MODE_SC, 0, 0, &id, 0);
	ASSERT_EQ(0, pmc_start(id));
	ASSERT_EQ(0, tsc_read_between(id, &v0, &b0, &a0));
	usleep(40000);
	ASSERT_EQ(0, tsc_read_between(id, &v1, &b1, &a1));
	usleep(80000);
	ASSERT_EQ(0, tsc_read_between(id, &v2, &b2, &a2));
	sched_setaffinity(0, sizeof(old), &old);
	ASSERT_GT(v1, v0);
	ASSERT_GT(v2, v1);
	/*
	 * Ticks per nanosecond over two intervals: the same rate. Each rate
	 * lies between the ticks over the widest and over the narrowest span
	 * the clock readings allow; the two ranges must come within 10 % of
	 * each other (a stall widens them, never moves them apart).
	 */
	lo1 = (double)(v1 - v0) / (double)(a1 - b0);
	hi1 = (double)(v1 - v0) / (double)(b1 - a0);
	lo2 = (double)(v2 - v1) / (double)(a2 - b1);
	hi2 = (double)(v2 - v1) / (double)(b2 - a1);
	EXPECT_GT(hi2 / lo1, 0.9)
		TH_LOG("rate 2 / rate 1 at most %.3f", hi2 / lo1);
	EXPECT_LT(lo2 / hi1, 1.1)
		TH_LOG("rate 2 / rate 1 at least %.3f", lo2 / hi1);
	ASSERT_EQ(0, pmc_stop(id));
	ASSERT_EQ(0, pmc_release(id));
}

TEST(cpuinfo_rows_and_event_names)
{
	const struct pmc_cpuinfo *ci;
	struct pmc_pmcinfo *pi;
	const char **names;
	uint32_t i, rows = 0;
	int n, j, soft = -1, task_clock = 0;

	PMC_INIT_OR_SKIP();
	ASSERT_EQ(0, pmc_cpuinfo(&ci));
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF), ci->pm_ncpu);
	EXPECT_EQ((int)ci->pm_ncpu, pmc_ncpu());
	ASSERT_LE(ci->pm_nclass, PMC_CLASS_MAX);
	for (i = 0; i < ci->pm_nclass; i++) {
		rows += ci->pm_classes[i].pm_num;
		if (ci->pm_classes[i].pm_class == PMC_CLASS_SOFT) {
			soft = (int)i;
			EXPECT_EQ(64, ci->pm_classes[i].pm_width);
		}
		EXPECT_NE(NULL, pmc_name_of_class(ci->pm_classes[i].pm_class));
	}
	ASSERT_GE(soft, 0);
	EXPECT_EQ(rows, ci->pm_npmc);
	EXPECT_NE(NULL, pmc_name_of_cputype(ci->pm_cputype));
	EXPECT_EQ((int)ci->pm_npmc, pmc_npmc(0));
	EXPECT_EQ(-1, pmc_npmc(-1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_npmc((int)ci->pm_ncpu));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, pmc_pmcinfo(0, &pi)) TH_LOG("GETPMCINFO: %m");
	ASSERT_EQ(0, pi->pm_cpu);
	for (j = 0; j < (int)ci->pm_npmc; j++) {
		EXPECT_NE(0, strlen(pi->pm_pmcs[j].pm_name));
		EXPECT_NE(NULL, pmc_name_of_disposition(pi->pm_pmcs[j].pm_rowdisp));
	}
	free(pi);
	EXPECT_EQ(-1, pmc_pmcinfo((int)ci->pm_ncpu, &pi));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, pmc_event_names_of_class(PMC_CLASS_SOFT, &names, &n));
	for (j = 0; j < n; j++) {
		pmc_id_t id;
		char spec[PMC_NAME_MAX + 8];

		task_clock |= strcmp(names[j], "task-clock") == 0;
		/* Every name listed allocates. */
		snprintf(spec, sizeof(spec), "SOFT-%s", names[j]);
		EXPECT_EQ(0, pmc_allocate(spec, PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0))
			TH_LOG("%s: %s", spec, strerror(errno));
		EXPECT_EQ(0, pmc_release(id));
	}
	EXPECT_TRUE(task_clock);
	free(names);
}

/* Every ioctl is counted; the failed ones twice. */
TEST(driver_stats_count_the_calls)
{
	struct pmc_driverstats s0, s1;
	uint32_t caps;
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0);
	ASSERT_EQ(0, pmc_get_driver_stats(&s0));
	ASSERT_EQ(0, pmc_capabilities(id, &caps));
	ASSERT_EQ(0, pmc_start(id));
	ASSERT_EQ(-1, pmc_capabilities(id + 1, &caps));
	ASSERT_EQ(0, pmc_stop(id));
	ASSERT_EQ(-1, pmc_attach(id, -5));
	ASSERT_EQ(0, pmc_get_driver_stats(&s1));
	EXPECT_EQ(6, s1.pm_syscalls - s0.pm_syscalls);
	EXPECT_EQ(2, s1.pm_syscall_errors - s0.pm_syscall_errors);
	ASSERT_EQ(0, pmc_release(id));
}

/* A child of fork() uses the library without pmc_init(), with its own PMCs. */
TEST(fork_child_has_its_own_pmcs)
{
	pmc_id_t id, cid;
	pmc_value_t v;
	int status;
	pid_t pid;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-page-faults", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		/* The parent's PMC is not the child's: it owns none yet. */
		if (pmc_read(id, &v) == 0 || errno != ESRCH)
			_exit(10);
		if (pmc_allocate("SOFT-page-faults", PMC_MODE_TC, 0, PMC_CPU_ANY,
				 &cid, 0) < 0)
			_exit(11);
		if (pmc_start(cid) < 0 || touch_pages(NPAGES) < 0 ||
		    pmc_stop(cid) < 0 || pmc_read(cid, &v) < 0)
			_exit(12);
		_exit(v >= NPAGES && v < NPAGES + 64 ? 0 : 13);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, pmc_read(id, &v));
	ASSERT_EQ(0, pmc_release(id));
}

static void *spin_thread(void *arg)
{
	spin_cpu_ns(*(uint64_t *)arg);
	return NULL;
}

/* Linux: a PMC attached to one thread counts that thread only. */
TEST(thread_scope_counts_one_thread)
{
	uint64_t spin = 60000000, c0, c1, inner, outer;
	int fin, fout;
	pthread_t t;
	pmc_value_t v;
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	fout = pmc_t_perf_open(0, PMC_T_SW_TASK_CLOCK);
	fin = pmc_t_perf_open(0, PMC_T_SW_TASK_CLOCK);
	ASSERT_LE(0, fout);
	ASSERT_LE(0, fin);
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0);
	PMC_OK(pmc_attach_thread(id, 0, 0), "thread attach");
	ASSERT_EQ(0, pmc_t_perf_enable(fout));
	ASSERT_EQ(0, pmc_start(id));
	ASSERT_EQ(0, pmc_t_perf_enable(fin));
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	ASSERT_EQ(0, pthread_create(&t, NULL, spin_thread, &spin));
	spin_cpu_ns(spin);
	c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	ASSERT_EQ(0, pmc_t_perf_disable(fin));
	ASSERT_EQ(0, pmc_stop(id));
	ASSERT_EQ(0, pmc_t_perf_disable(fout));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, pmc_read(id, &v));
	ASSERT_EQ(0, pmc_t_perf_read(fin, &inner));
	ASSERT_EQ(0, pmc_t_perf_read(fout, &outer));
	/*
	 * This thread's time, not the other's as well: within perf's own
	 * task-clock of this thread (the bounds of
	 * tc_task_clock_matches_cpu_time), while the other thread spins as
	 * long.
	 */
	EXPECT_LE(inner, v);
	EXPECT_LE(v, outer);
	EXPECT_NEAR_PCT(inner, c1 - c0, 25, 3000000);
	ASSERT_EQ(0, pmc_detach_thread(id, 0));
	EXPECT_EQ(-1, pmc_attach_thread(id, 0, 0x80));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, pmc_release(id));
	close(fin);
	close(fout);
}

/* Linux: several PMCs read at one instant. */
TEST(read_set_reads_at_one_instant)
{
	pmc_id_t ids[2];
	pmc_value_t v[2];
	uint64_t ts, t0, t1, w0, w1, i0, i1;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, 0, PMC_CPU_ANY, &ids[0], 0);
	PMC_ALLOC("SOFT-page-faults", PMC_MODE_TC, 0, PMC_CPU_ANY, &ids[1], 0);
	/* Wall time around the PMC's window (w), CPU time inside it (i). */
	w0 = clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pmc_start(ids[0]));
	ASSERT_EQ(0, pmc_start(ids[1]));
	i0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(0, touch_pages(NPAGES));
	spin_cpu_ns(30000000);
	i1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(0, pmc_stop(ids[1]));
	ASSERT_EQ(0, pmc_stop(ids[0]));
	w1 = clock_ns(CLOCK_MONOTONIC);
	t0 = clock_ns(CLOCK_MONOTONIC);
	PMC_OK(pmc_read_set(2, ids, v, &ts), "PMCREADSET");
	t1 = clock_ns(CLOCK_MONOTONIC);
	EXPECT_GE(ts, t0);
	EXPECT_LE(ts, t1);
	/*
	 * At most the wall time around the window (the process has one
	 * thread), at least the CPU time inside it. Not the CPU clock
	 * around it: under TCG that clock ran 4 % below task-clock once
	 * (35.3 against 34.0 ms), and a vCPU the host preempts during
	 * the ioctls stretches any outer window.
	 */
	EXPECT_LE(v[0], w1 - w0 + (w1 - w0) / 100 + 100000)
		TH_LOG("task-clock %" PRIu64 ", wall time %" PRIu64 " around",
		       v[0], w1 - w0);
	EXPECT_GE(v[0] + v[0] / 20 + 200000, i1 - i0)
		TH_LOG("task-clock %" PRIu64 ", CPU clock %" PRIu64 " inside",
		       v[0], i1 - i0);
	EXPECT_GE(v[1], NPAGES);
	EXPECT_LE(v[1], NPAGES + 32);

	EXPECT_EQ(-1, pmc_read_set(0, ids, v, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_read_set(PMC_READSET_MAX + 1, ids, v, NULL));
	EXPECT_EQ(EINVAL, errno);
	ids[1] = ids[0] + 0x100;
	EXPECT_EQ(-1, pmc_read_set(2, ids, v, NULL));
	EXPECT_EQ(EINVAL, errno);
}

/* Linux: a set's PMCs read from the self-read page, without a system call. */
TEST(selfread_page_reads_a_thread_set)
{
	struct pmc_op_pmcallocate req;
	const struct pmc_selfread_page *pg;
	uint64_t c0, c1, inner, outer;
	pmc_value_t v[2], w[2];
	int i, fin, fout;
	pmc_id_t ids[2];

	PMC_INIT_OR_SKIP();
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pmc_parse_spec(i ? "SOFT-page-faults" : "SOFT-task-clock",
					    PMC_MODE_TC, &req));
		req.pm_cpu = PMC_CPU_ANY;
		req.pm_group = 5;
		PMC_OK(pmc_allocate_request(&req), "PMCALLOCATE");
		ids[i] = req.pm_pmcid;
		PMC_OK(pmc_attach_thread(ids[i], 0, 0), "thread attach");
	}
	pg = pmc_selfread_map(5);
	ASSERT_NE(NULL, pg) TH_LOG("self-read page: %m");
	/*
	 * The page's task-clock lies between perf's own task-clock counted
	 * from after the PMCSTARTs, read before, and perf's counted from
	 * before them, read after: one clock, exact bounds (see
	 * tc_task_clock_matches_cpu_time for why not the thread's CPU clock,
	 * which only shows the unit here).
	 */
	fout = pmc_t_perf_open(0, PMC_T_SW_TASK_CLOCK);
	fin = pmc_t_perf_open(0, PMC_T_SW_TASK_CLOCK);
	ASSERT_LE(0, fout);
	ASSERT_LE(0, fin);
	ASSERT_EQ(0, pmc_t_perf_enable(fout));
	ASSERT_EQ(0, pmc_start(ids[0]));
	ASSERT_EQ(0, pmc_start(ids[1]));
	ASSERT_EQ(0, pmc_t_perf_enable(fin));
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	ASSERT_EQ(0, touch_pages(NPAGES));
	spin_cpu_ns(30000000);
	c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	ASSERT_EQ(0, pmc_t_perf_read(fin, &inner));
	ASSERT_EQ(0, pmc_selfread(pg, 2, ids, v));
	ASSERT_EQ(0, pmc_t_perf_read(fout, &outer));
	EXPECT_LE(inner, v[0]);
	EXPECT_LE(v[0], outer);
	EXPECT_NEAR_PCT(inner, c1 - c0, 25, 2000000);
	EXPECT_GE(v[1], NPAGES);
	EXPECT_LE(v[1], NPAGES + 32);
	/* Stopped, the page and the system call agree exactly. */
	ASSERT_EQ(0, pmc_stop(ids[0]));
	ASSERT_EQ(0, pmc_stop(ids[1]));
	ASSERT_EQ(0, pmc_selfread(pg, 2, ids, v));
	ASSERT_EQ(0, pmc_read_set(2, ids, w, NULL));
	EXPECT_EQ(w[0], v[0]);
	EXPECT_EQ(w[1], v[1]);
	EXPECT_EQ(0, pmc_selfread_unmap(pg));
	close(fin);
	close(fout);
}

TEST_HARNESS_MAIN
