// SPDX-License-Identifier: GPL-2.0
/*
 * cpuread.c - benchmark 6's per-CPU interval reader over perf_event_open(2):
 * the lines of `perf stat -a -A -I MS -x,`, read the way that keeps up
 * while every CPU is busy.
 *
 *   bench-cpuread EVENT MS      one counting EVENT (a software event by
 *                               perf's name) on each online CPU, and one
 *                               thread bound to each CPU that, every MS
 *                               milliseconds at absolute deadlines, reads
 *                               its CPU's counter with read(2) and prints
 *                               the delta as perf stat's CSV line
 *                               ("time,CPUn,msec,unit,event,...")
 *
 * Why not perf stat itself: in interval mode its one thread moves to each
 * CPU in turn (sched_setaffinity(), read_affinity_counters() in
 * builtin-stat.c; no option turns that off) to read the counter there, and
 * with a spinning thread on every CPU each move waits for that thread's
 * time slice: perf stat falls far behind its interval (about 180 lines of
 * the 3,200 due in a run of 8 arm64 CPUs) and cannot be compared with
 * cpcstat cpu, which prints them all. One thread reading every CPU's
 * counter from where it runs falls behind as well: a read(2) of a counter
 * active on another CPU calls that CPU and waits (perf_event_read()),
 * which in an emulator that runs the CPUs in turns is a wait for that
 * CPU's turn. A thread on each CPU reads its own counter with no call,
 * and wakes at its deadline as cpcstat cpu's read mode does (a woken
 * thread preempts the spinning one). Like cpcstat cpu, a reader that is
 * late skips the deadlines that passed. SIGTERM or SIGINT end it.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lib/counters.h"
#include "lib/timing.h"

struct reader {
	pthread_t thread;
	int cpu;
	int fd;
	const char *event;
	uint64_t step;		/* ns */
	uint64_t start;		/* CLOCK_MONOTONIC ns, the same for all */
	atomic_int *stop;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint64_t deadline = r->start + r->step, last = 0, v;
	struct timespec ts;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	errno = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (errno)
		bench_die(errno, "binding a thread to CPU%d", r->cpu);
	while (!atomic_load(r->stop)) {
		ts.tv_sec = (time_t)(deadline / 1000000000ull);
		ts.tv_nsec = (long)(deadline % 1000000000ull);
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			continue;
		if (read(r->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			bench_die(errno, "read(CPU%d)", r->cpu);
		printf("%.6f,CPU%d,%.2f,msec,%s,%" PRIu64 ",100.00,,\n",
		       (double)(deadline - r->start) / 1e9, r->cpu,
		       (double)(v - last) / 1e6, r->event, v - last);
		last = v;
		deadline += r->step;
		/* Late (a busy machine): skip the deadlines that passed. */
		while (deadline < bench_now_ns())
			deadline += r->step;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct reader *readers;
	atomic_int stop = 0;
	uint64_t config, step, start;
	int ncpu, sig;
	sigset_t sigs;

	bench_init(argv[0]);
	if (argc != 3)
		bench_die(0, "usage: bench-cpuread EVENT MS");
	config = bench_soft_event(argv[1]);
	step = bench_count_arg(argv[2], "MS") * 1000000ull;

	/* The signals that end it go to the main thread's sigwait() only. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	/* A line a write, as cpcstat's. */
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* CPUs 0 to the number online less one, as bench-pmcrun -a's. */
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	readers = calloc((size_t)ncpu, sizeof(*readers));
	if (!readers)
		bench_die(ENOMEM, "%d CPUs", ncpu);
	for (int i = 0; i < ncpu; i++) {
		readers[i].cpu = i;
		readers[i].fd = perf_open_cpu(config, i);
	}
	start = bench_now_ns();
	for (int i = 0; i < ncpu; i++) {
		readers[i].event = argv[1];
		readers[i].step = step;
		readers[i].start = start;
		readers[i].stop = &stop;
		errno = pthread_create(&readers[i].thread, NULL, reader_main,
				       &readers[i]);
		if (errno)
			bench_die(errno, "a thread for CPU%d", readers[i].cpu);
	}
	sigwait(&sigs, &sig);
	atomic_store(&stop, 1);
	for (int i = 0; i < ncpu; i++)
		pthread_join(readers[i].thread, NULL);
	return 0;
}
