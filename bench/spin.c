// SPDX-License-Identifier: GPL-2.0
/*
 * spin.c - the CPU-bound program of benchmark 3 (sampling overhead): a fixed
 * amount of arithmetic under a few levels of calls (so callchains have
 * frames to walk), timing itself so that the sampler's start-up and
 * post-processing stay out of the figure.
 *
 * The work is done in SPIN_BATCHES equal batches, each timed: steady_ns is
 * the median batch's time scaled to the whole run. Under TCG on a shared
 * host, the host takes the VM's CPU away for milliseconds at a time, which
 * stretches a whole run by tens of per cent at random; the median batch
 * leaves those batches out, while a sampler's cost, spread evenly over the
 * run (a batch spans about 10 ms: 10 samples at 1 kHz), stays in every
 * batch.
 *
 *   bench-spin UNITS [GOFD]   do UNITS units of work (after reading one byte
 *                             from fd GOFD, when given); prints
 *                             "elapsed_ns=N cpu_ns=N steady_ns=N"
 *   bench-spin --calibrate MS prints "units=N": the units that take about
 *                             MS milliseconds here
 *   bench-spin --threads N UNITS [GOFD]
 *                             the same work in N threads at once, thread i
 *                             on CPU i (modulo the CPUs): a machine-wide
 *                             load for the system-scope rows; steady_ns is
 *                             the mean of the threads' own, cpu_ns the
 *                             process's
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/timing.h"

#define SPIN_DEPTH 6
#define SPIN_LEAF_ITERS 20000
#define SPIN_BATCHES 100

/* The leaf: integer work the compiler cannot fold away. */
static __attribute__((noinline)) uint64_t spin_leaf(uint64_t x)
{
	unsigned int i;

	for (i = 0; i < SPIN_LEAF_ITERS; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

/* SPIN_DEPTH frames above the leaf. */
static __attribute__((noinline)) uint64_t spin_frame(int depth, uint64_t x)
{
	uint64_t r;

	if (!depth)
		return spin_leaf(x);
	r = spin_frame(depth - 1, x + (uint64_t)depth);
	__asm__ __volatile__("" : "+r"(r));
	return r;
}

static uint64_t spin_units(unsigned long units)
{
	uint64_t x = 1;
	unsigned long i;

	for (i = 0; i < units; i++)
		x = spin_frame(SPIN_DEPTH, x);
	return x;
}

/*
 * Do @units units in batches; the median batch's time scaled to @units
 * (see above).
 */
static double spin_batches(unsigned long units, uint64_t *x)
{
	unsigned long nb = units < SPIN_BATCHES ? units : SPIN_BATCHES;
	unsigned long per = units / nb, b, i;
	double ns[SPIN_BATCHES];
	struct bench_stats st;
	uint64_t t;

	for (b = 0; b < nb; b++) {
		t = bench_now_ns();
		for (i = 0; i < per; i++)
			*x = spin_frame(SPIN_DEPTH, *x);
		ns[b] = (double)(bench_now_ns() - t);
	}
	/* The units the batches leave over, untimed. */
	for (i = per * nb; i < units; i++)
		*x = spin_frame(SPIN_DEPTH, *x);
	bench_stats(ns, nb, &st);
	return st.median * (double)units / (double)per;
}

static void calibrate(unsigned long ms)
{
	unsigned long units = 1;
	uint64_t t;

	/* Double until one run takes 50 ms or more, then scale. */
	for (;;) {
		t = bench_now_ns();
		spin_units(units);
		t = bench_now_ns() - t;
		if (t >= 50000000u || units >= (1ul << 30))
			break;
		units *= 2;
	}
	units = (unsigned long)((double)units * (double)ms * 1e6 / (double)t);
	printf("units=%lu\n", units ? units : 1);
}

#define SPIN_MAX_THREADS 256

struct spin_thread {
	pthread_t tid;
	unsigned int cpu;
	unsigned long units;
	uint64_t x;
	double steady;
};

static void *spin_thread_main(void *arg)
{
	struct spin_thread *t = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	/* Best effort: an unpinned thread still loads the machine. */
	(void)sched_setaffinity(0, sizeof(set), &set);
	t->x = t->cpu + 1;
	t->steady = spin_batches(t->units, &t->x);
	return NULL;
}

/* @n threads of @units each; the mean of their steady times. */
static double spin_threads(unsigned long n, unsigned long units, uint64_t *x)
{
	static struct spin_thread th[SPIN_MAX_THREADS];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double sum = 0;
	unsigned long i;
	int err;

	if (ncpu < 1)
		ncpu = 1;
	for (i = 0; i < n; i++) {
		th[i].cpu = (unsigned int)(i % (unsigned long)ncpu);
		th[i].units = units;
		err = pthread_create(&th[i].tid, NULL, spin_thread_main, &th[i]);
		if (err)
			bench_die(err, "pthread_create (thread %lu of %lu)", i, n);
	}
	for (i = 0; i < n; i++) {
		pthread_join(th[i].tid, NULL);
		sum += th[i].steady;
		*x ^= th[i].x;
	}
	return sum / (double)n;
}

int main(int argc, char **argv)
{
	uint64_t t0, c0, t1, c1, x = 1;
	unsigned long units, nthreads = 0;
	double steady;
	char go;

	bench_init(argv[0]);
	if (argc == 3 && !strcmp(argv[1], "--calibrate")) {
		calibrate(bench_count_arg(argv[2], "MS"));
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "--threads")) {
		nthreads = bench_count_arg(argv[2], "N");
		if (!nthreads || nthreads > SPIN_MAX_THREADS)
			bench_die(0, "--threads takes 1 to %d, not %lu",
				  SPIN_MAX_THREADS, nthreads);
		argc -= 2;
		argv += 2;
	}
	if (argc != 2 && argc != 3)
		bench_die(0, "usage: bench-spin [--threads N] UNITS [GOFD] | --calibrate MS");
	units = bench_count_arg(argv[1], "UNITS");
	if (argc == 3) {
		int fd = (int)bench_count_arg(argv[2], "GOFD");

		if (read(fd, &go, 1) != 1)
			bench_die(errno, "waiting for the go byte on fd %d", fd);
		close(fd);
	}
	t0 = bench_now_ns();
	c0 = bench_cpu_ns();
	steady = nthreads ? spin_threads(nthreads, units, &x) :
			    spin_batches(units, &x);
	t1 = bench_now_ns();
	c1 = bench_cpu_ns();
	printf("elapsed_ns=%llu cpu_ns=%llu steady_ns=%.0f check=%llu\n",
	       (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0),
	       steady, (unsigned long long)(x & 0xff));
	return 0;
}
