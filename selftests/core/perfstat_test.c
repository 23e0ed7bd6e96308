// SPDX-License-Identifier: GPL-2.0
/*
 * perfstat_test.c - a process task-clock PMC and `perf stat -e task-clock`
 * attached to the same workload agree within 2 %.
 */
#include "pmc_test.h"

#include <dirent.h>
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

/* Does process @pid hold a perf_event descriptor? */
static bool holds_perf_event(pid_t pid)
{
	char dir[64], path[600], link[128];
	struct dirent *de;
	bool found = false;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			found = strstr(link, "perf_event") != NULL;
		}
	}
	closedir(d);
	return found;
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
	char pidbuf[16];
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

	/* perf stat on the same process. */
	unlink(PERF_OUT);
	snprintf(pidbuf, sizeof(pidbuf), "%d", w.pid);
	perf = fork();
	ASSERT_LE(0, perf);
	if (!perf) {
		execl("/usr/bin/perf", "perf", "stat", "-e", "task-clock",
		      "-x,", "-o", PERF_OUT, "-p", pidbuf, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 600 && !holds_perf_event(perf); i++)
		usleep(50000);
	ASSERT_TRUE(holds_perf_event(perf));
	usleep(500000);	/* perf enables its counters after opening them */

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
