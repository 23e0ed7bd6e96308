// SPDX-License-Identifier: GPL-2.0
/*
 * counts_test.c - hwpmc PMCs of the hardware class (the test PMU in the
 * VM): raw, generic and cache events in process (TC) and system (SC)
 * counting modes count what the test PMU counts: the thread's run time
 * (against perf's task-clock, which like the test PMU includes interrupt
 * time, which CLOCK_THREAD_CPUTIME_ID leaves out), a CPU's wall time
 * (CLOCK_MONOTONIC), a child's run time with PMC_F_DESCENDANTS.
 */
#include "kselftest_harness.h"
#include "hwclass.h"

FIXTURE(hwcounts) {
	int fd;
	struct pmc_classinfo ci;
};

FIXTURE_SETUP(hwcounts)
{
	const char *why = tp_cannot_load();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	self->fd = hw_setup(4, 48, &self->ci);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(hwcounts)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int open_task_clock(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.disabled = 1,
	};

	return tp_perf_open(&attr, 0, -1, -1, 0);
}

static uint64_t read_counter(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* TC PMCs on the calling thread: raw, generic and cache events. */
TEST_F(hwcounts, process_pmcs_count_thread_run_time)
{
	static const struct {
		uint32_t type;
		uint64_t config;
	} ev[] = {
		{ PERF_TYPE_RAW, HW_RAW_EVENT },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_LL |
		  (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) },
	};
	uint64_t v, outer, inner;
	int clk_outer, clk_inner;
	uint32_t id[4];
	unsigned int i;

	if (_metadata->skip)
		return;
	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_TC,
				      PMC_CPU_ANY, ev[i].type, ev[i].config, 0,
				      0, &id[i]));
		ASSERT_EQ(0, pmc_t_attach(self->fd, id[i], 0, 0));
	}
	/* task-clock around all the starts and stops, and within them. */
	clk_outer = open_task_clock();
	clk_inner = open_task_clock();
	ASSERT_LE(0, clk_outer);
	ASSERT_LE(0, clk_inner);
	ASSERT_EQ(0, ioctl(clk_outer, PERF_EVENT_IOC_ENABLE, 0));
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		ASSERT_EQ(0, pmc_t_start(self->fd, id[i]));
	ASSERT_EQ(0, ioctl(clk_inner, PERF_EVENT_IOC_ENABLE, 0));
	tp_busy_ns(200000000);
	ASSERT_EQ(0, ioctl(clk_inner, PERF_EVENT_IOC_DISABLE, 0));
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		ASSERT_EQ(0, pmc_t_stop(self->fd, id[i]));
	ASSERT_EQ(0, ioctl(clk_outer, PERF_EVENT_IOC_DISABLE, 0));
	outer = read_counter(clk_outer);
	inner = read_counter(clk_inner);
	close(clk_outer);
	close(clk_inner);

	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		ASSERT_EQ(0, pmc_t_read(self->fd, id[i], &v));
		EXPECT_LE(inner * 0.999, v)
			TH_LOG("event %u: %llu, task-clock %llu..%llu", i,
			       (unsigned long long)v,
			       (unsigned long long)inner,
			       (unsigned long long)outer);
		EXPECT_LE(v, outer * 1.001)
			TH_LOG("event %u: %llu, task-clock %llu..%llu", i,
			       (unsigned long long)v,
			       (unsigned long long)inner,
			       (unsigned long long)outer);
		if (!i)
			TH_LOG("TC raw: %llu events, task-clock %llu..%llu ns",
			       (unsigned long long)v,
			       (unsigned long long)inner,
			       (unsigned long long)outer);
	}
}

/* SC PMCs: one per online CPU, each counting its CPU's wall time. */
TEST_F(hwcounts, system_pmcs_count_each_cpu)
{
	long ncpus = pm_ncpus_online();
	struct hw_window w[64];
	uint32_t id[64];
	uint64_t v;
	long cpu;

	if (_metadata->skip)
		return;
	ASSERT_GE(64, ncpus);
	for (cpu = 0; cpu < ncpus; cpu++)
		ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_SC, cpu,
				      PERF_TYPE_RAW, HW_RAW_EVENT, 0, 0,
				      &id[cpu]));
	for (cpu = 0; cpu < ncpus; cpu++)
		ASSERT_EQ(0, hw_start(self->fd, id[cpu], CLOCK_MONOTONIC,
				      &w[cpu]));
	tp_sleep_ns(300000000);
	for (cpu = 0; cpu < ncpus; cpu++)
		ASSERT_EQ(0, hw_stop(self->fd, id[cpu], CLOCK_MONOTONIC,
				     &w[cpu]));
	for (cpu = 0; cpu < ncpus; cpu++) {
		ASSERT_EQ(0, pmc_t_read(self->fd, id[cpu], &v));
		EXPECT_IN_WINDOW(v, &w[cpu], 0.001);
	}
}

/* A generic event in system mode, read while it runs and after. */
TEST_F(hwcounts, system_pmc_reads_while_running)
{
	struct hw_window w;
	uint64_t v1, v2, t;
	uint32_t id;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_SC, 0,
			      PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0,
			      0, &id));
	ASSERT_EQ(0, hw_start(self->fd, id, CLOCK_MONOTONIC, &w));
	tp_sleep_ns(100000000);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v1));
	t = tp_clock_ns(CLOCK_MONOTONIC);
	EXPECT_LE(v1, t - w.outer0);
	EXPECT_LE((t - w.inner0) * 0.9, v1);
	tp_sleep_ns(100000000);
	ASSERT_EQ(0, hw_stop(self->fd, id, CLOCK_MONOTONIC, &w));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v2));
	EXPECT_LT(v1, v2);
	EXPECT_IN_WINDOW(v2, &w, 0.001);
}

/*
 * PMC_F_DESCENDANTS on a child attached before it works: at least the CPU
 * time it spins after the go, at most its whole CPU time (rusage, which
 * leaves out interrupt time: 5 % and 2 ms of slack).
 */
TEST_F(hwcounts, descendants_count_the_child)
{
	uint64_t spin = 150000000, v, cpu_ns;
	struct pmc_t_child c;
	struct rusage ru;
	uint32_t id;
	int st;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_TC, PMC_CPU_ANY,
			      PERF_TYPE_RAW, HW_RAW_EVENT, 0,
			      PMC_F_DESCENDANTS, &id));
	ASSERT_EQ(0, pmc_t_child_start(&c, pmc_t_spin_fn, &spin));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, c.pid, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, pmc_t_child_go(&c));
	ASSERT_EQ(0, pmc_t_child_wait(&c, &st, &ru));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	cpu_ns = pmc_t_rusage_ns(&ru);
	TH_LOG("child: %llu events, spun %llu ns, rusage %llu ns",
	       (unsigned long long)v, (unsigned long long)spin,
	       (unsigned long long)cpu_ns);
	EXPECT_LE(spin, v);
	EXPECT_LE(v, cpu_ns * 1.05 + 2000000);
}

TEST_HARNESS_MAIN
