// SPDX-License-Identifier: GPL-2.0
/*
 * timing.c - the clock, the per-operation timer and the statistics every
 * benchmark program shares (see timing.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timing.h"

static const char *bench_prog = "bench";

void bench_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	bench_prog = slash ? slash + 1 : argv0;
}

void bench_die(int errnum, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", bench_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
	exit(1);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t bench_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t bench_cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

double bench_per_op_ns(const char *what, int (*op)(void *arg), void *arg,
		       unsigned long count, unsigned long warmup)
{
	unsigned long i, b, nb, batch;
	struct bench_stats st;
	double *mean;
	uint64_t t;

	for (i = 0; i < warmup; i++)
		if (op(arg) < 0)
			bench_die(errno, "%s (warm-up call %lu)", what, i);
	nb = count < BENCH_BATCHES ? count : BENCH_BATCHES;
	batch = count / nb;
	mean = calloc(nb, sizeof(*mean));
	if (!mean)
		bench_die(ENOMEM, "%s", what);
	for (b = 0; b < nb; b++) {
		t = bench_now_ns();
		for (i = 0; i < batch; i++)
			if (op(arg) < 0)
				bench_die(errno, "%s (call %lu)", what,
					  b * batch + i);
		mean[b] = (double)(bench_now_ns() - t) / (double)batch;
	}
	bench_stats(mean, nb, &st);
	free(mean);
	return st.median;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_stats(double *v, size_t n, struct bench_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	out->min = v[0];
	out->max = v[n - 1];
	out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

unsigned long bench_count_arg(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || !v)
		bench_die(0, "%s must be a positive number, not '%s'", what, s);
	return v;
}
