/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timing.h - what every benchmark program shares: the clock, the
 * per-operation timer, statistics of repeated figures, and failing loudly.
 *
 * A benchmark program measures one thing once and prints its figure on
 * stdout as "name=value" words; bench/run-all repeats it, alternating pmc
 * and the Linux baseline, and bench-report takes medians.
 */
#ifndef _BENCH_TIMING_H
#define _BENCH_TIMING_H

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* CPU time (user + system) of the calling process, in nanoseconds. */
uint64_t bench_cpu_ns(void);

/*
 * Run @op(@arg) @count times after @warmup untimed calls, in
 * BENCH_BATCHES batches (fewer if @count is smaller); the median of the
 * batches' mean cost of one call, in nanoseconds. The median of short
 * batches leaves out the batches during which the host ran something else
 * instead of the VM's CPU (a loaded host stretches a whole run's mean by
 * tens of per cent). @op returns 0, or -1 with errno set, which ends the
 * program with a message naming @what.
 */
#define BENCH_BATCHES 1000
double bench_per_op_ns(const char *what, int (*op)(void *arg), void *arg,
		       unsigned long count, unsigned long warmup);

/* Figures of repeated runs: median, min, max (sorts @v in place). */
struct bench_stats {
	double median;
	double min;
	double max;
	size_t n;
};
void bench_stats(double *v, size_t n, struct bench_stats *out);

/* A positive count from the command line, or exit with usage. */
unsigned long bench_count_arg(const char *s, const char *what);

/* Print "prog: message: strerror(errno)" (with @errnum != 0) and exit 1. */
__attribute__((noreturn, format(printf, 2, 3)))
void bench_die(int errnum, const char *fmt, ...);

/* The program name for messages (set from argv[0] by bench_init()). */
void bench_init(const char *argv0);

#endif /* _BENCH_TIMING_H */
