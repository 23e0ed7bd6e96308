// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong.c - the workload of benchmark 4 (scheduler cost): two processes
 * passing one byte back and forth over two pipes, both pinned to CPU 0 so
 * that every round trip is two context switches on one CPU (what a
 * scheduler hook costs shows up whole, without cross-CPU wake-up noise).
 *
 *   bench-pingpong ROUNDTRIPS   prints "ns_per_roundtrip=N" (the median of
 *                               the batches' means, lib/timing.h)
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/timing.h"

struct pipes {
	int ping_w;	/* to the partner */
	int pong_r;	/* from the partner */
};

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		bench_die(errno, "sched_setaffinity");
}

static int roundtrip(void *arg)
{
	struct pipes *p = arg;
	char b = 0;

	if (write(p->ping_w, &b, 1) != 1)
		return -1;
	if (read(p->pong_r, &b, 1) != 1) {
		errno = errno ? errno : EPIPE;
		return -1;
	}
	return 0;
}

/* The partner: echo every byte until the other end closes. */
static void __attribute__((noreturn)) echo(int rfd, int wfd)
{
	char b;

	while (read(rfd, &b, 1) == 1)
		if (write(wfd, &b, 1) != 1)
			_exit(1);
	_exit(0);
}

int main(int argc, char **argv)
{
	int ping[2], pong[2], status;
	struct pipes p;
	unsigned long n;
	double ns;
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
		close(ping[1]);
		close(pong[0]);
		echo(ping[0], pong[1]);
	}
	close(ping[0]);
	close(pong[1]);
	p.ping_w = ping[1];
	p.pong_r = pong[0];
	ns = bench_per_op_ns("round trip", roundtrip, &p, n, n / 20 + 1);
	close(ping[1]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		bench_die(0, "the partner process failed");
	printf("ns_per_roundtrip=%.1f\n", ns);
	return 0;
}
