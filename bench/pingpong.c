// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong.c - the workload of benchmark 4 (scheduler cost): two processes
 * passing one byte back and forth over two pipes, both pinned to CPU 0 so
 * that every round trip is two context switches on one CPU (what a
 * scheduler hook costs shows up whole, without cross-CPU wake-up noise).
 *
 *   bench-pingpong ROUNDTRIPS   prints "ns_per_roundtrip=N"
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/timing.h"

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		bench_die(errno, "sched_setaffinity");
}

static void xfer(int rfd, int wfd, unsigned long n, int reader_first)
{
	unsigned long i;
	char b = 0;

	for (i = 0; i < n; i++) {
		if (reader_first && read(rfd, &b, 1) != 1)
			bench_die(errno, "read");
		if (write(wfd, &b, 1) != 1)
			bench_die(errno, "write");
		if (!reader_first && read(rfd, &b, 1) != 1)
			bench_die(errno, "read");
	}
}

int main(int argc, char **argv)
{
	int ping[2], pong[2], status;
	unsigned long n;
	uint64_t t0, t1;
	pid_t pid;

	bench_init(argv[0]);
	if (argc != 2)
		bench_die(0, "usage: bench-pingpong ROUNDTRIPS");
	n = bench_count_arg(argv[1], "ROUNDTRIPS");
	pin_cpu0();
	if (pipe(ping) < 0 || pipe(pong) < 0)
		bench_die(errno, "pipe");
	pid = fork();
	if (pid < 0)
		bench_die(errno, "fork");
	if (!pid) {
		/* +1: the warm-up round trip. */
		xfer(ping[0], pong[1], n + 1, 1);
		_exit(0);
	}
	xfer(pong[0], ping[1], 1, 0);
	t0 = bench_now_ns();
	xfer(pong[0], ping[1], n, 0);
	t1 = bench_now_ns();
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		bench_die(0, "the partner process failed");
	printf("ns_per_roundtrip=%.1f\n", (double)(t1 - t0) / (double)n);
	return 0;
}
