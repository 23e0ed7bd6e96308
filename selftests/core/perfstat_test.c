// SPDX-License-Identifier: GPL-2.0
/*
 * perfstat_test.c - a process task-clock PMC and `perf stat -e task-clock`
 * attached to the same workload agree within 2 %.
 *
 * The workload runs only once perf acknowledged its enable
 * (pmc_t_perf_stat()): a slow perf start-up cannot shorten its count.
 */
#include "pmc_test.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define WORK_NS		500000000ULL
#define PERF_OUT	"/tmp/pmc-core-perfstat.csv"

TEST(task_clock_agrees_with_perf_stat)
{
	struct pmc_t_child w = { 0 };
	uint64_t spin = WORK_NS, v, ref;
	uint32_t id;
	pid_t perf;
	int fd, st, i;

	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	if (access("/usr/bin/perf", X_OK))
		SKIP(return, "no perf(1)");
	fd = pmc_t_open();
	ASSERT_LE(0, fd);

	/* The workload, blocked until go. */
	ASSERT_EQ(0, pmc_t_child_start(&w, pmc_t_spin_fn, &spin));
	ASSERT_EQ(0, pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK,
				      0, 0, &id));
	ASSERT_EQ(0, pmc_t_attach(fd, id, w.pid, 0));
	ASSERT_EQ(0, pmc_t_start(fd, id));

	/* perf stat on the same process, counting before the workload runs. */
	unlink(PERF_OUT);
	perf = pmc_t_perf_stat("-p", w.pid, NULL, PERF_OUT);
	ASSERT_LT(0, perf);

	ASSERT_EQ(0, pmc_t_child_go(&w));
	ASSERT_EQ(0, pmc_t_child_wait(&w, &st, NULL));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_EQ(0, pmc_t_read(fd, id, &v));

	/* perf stat -p ends with its target, or at SIGINT. */
	for (i = 0; i < 40 && waitpid(perf, &st, WNOHANG) == 0; i++)
		usleep(100000);
	if (i == 40) {
		kill(perf, SIGINT);
		ASSERT_EQ(perf, waitpid(perf, &st, 0));
	}
	ref = pmc_t_perf_stat_task_clock(PERF_OUT);
	TH_LOG("/dev/pmc task-clock %llu ns, perf stat %llu ns",
	       (unsigned long long)v, (unsigned long long)ref);
	ASSERT_LT(0U, ref);
	EXPECT_LE(WORK_NS, v);
	EXPECT_GE(ref / 50, v > ref ? v - ref : ref - v);
	EXPECT_EQ(0, pmc_t_release(fd, id));
	close(fd);
	unlink(PERF_OUT);
}

TEST_HARNESS_MAIN
