// SPDX-License-Identifier: GPL-2.0
/*
 * perfstat_test.c - a process task-clock PMC and `perf stat -e task-clock`
 * attached to the same workload agree within 2 %.
 *
 * perf starts with its counter disabled (--delay=-1) and is enabled through
 * its control descriptor: the workload runs only after perf acknowledged,
 * so a slow perf start-up on a loaded machine cannot shorten its count.
 */
#include "pmc_test.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define WORK_NS		500000000ULL
#define PERF_OUT	"/tmp/pmc-core-perfstat.csv"

/* Sends @cmd to perf's control descriptor and waits for its "ack". */
static int perf_control(int ctl, int ack, const char *cmd)
{
	char reply[16] = "";
	ssize_t n;

	if (write(ctl, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		return -1;
	n = read(ack, reply, sizeof(reply) - 1);	/* blocks until perf answers */
	if (n <= 0)
		return -1;
	reply[n] = '\0';
	return strncmp(reply, "ack", 3) ? -1 : 0;
}

/* perf stat's task-clock in ns from its CSV output, or 0. */
static uint64_t perf_task_clock(const char *file)
{
	char line[512];
	uint64_t ns = 0;
	FILE *f = fopen(file, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, ",task-clock"))
			ns = (uint64_t)(strtod(line, NULL) * 1e6);
	fclose(f);
	return ns;
}

TEST(task_clock_agrees_with_perf_stat)
{
	struct pmc_t_child w = { 0 };
	uint64_t spin = WORK_NS, v, ref;
	char pidbuf[16], control[48];
	int ctl[2], ack[2];
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

	/* perf stat on the same process, disabled until told. */
	unlink(PERF_OUT);
	snprintf(pidbuf, sizeof(pidbuf), "%d", w.pid);
	ASSERT_EQ(0, pipe(ctl));
	ASSERT_EQ(0, pipe(ack));
	snprintf(control, sizeof(control), "fd:%d,%d", ctl[0], ack[1]);
	perf = fork();
	ASSERT_LE(0, perf);
	if (!perf) {
		close(ctl[1]);
		close(ack[0]);
		execl("/usr/bin/perf", "perf", "stat", "-e", "task-clock",
		      "-x,", "-o", PERF_OUT, "--delay=-1", "--control", control,
		      "-p", pidbuf, (char *)NULL);
		_exit(127);
	}
	close(ctl[0]);
	close(ack[1]);
	ASSERT_EQ(0, perf_control(ctl[1], ack[0], "enable\n"));

	ASSERT_EQ(0, pmc_t_child_go(&w));
	ASSERT_EQ(0, pmc_t_child_wait(&w, &st, NULL));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_EQ(0, pmc_t_read(fd, id, &v));
	close(ctl[1]);
	close(ack[0]);

	/* perf stat -p ends with its target, or at SIGINT. */
	for (i = 0; i < 40 && waitpid(perf, &st, WNOHANG) == 0; i++)
		usleep(100000);
	if (i == 40) {
		kill(perf, SIGINT);
		ASSERT_EQ(perf, waitpid(perf, &st, 0));
	}
	ref = perf_task_clock(PERF_OUT);
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
