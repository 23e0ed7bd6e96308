// SPDX-License-Identifier: GPL-2.0
/*
 * hot3to1.c - a test program for cpcstat record/report: two hot functions,
 * hot_three and hot_one, that take CPU time in a 3:1 ratio. They have the
 * same code; each round gives hot_three three times the iterations of
 * hot_one. Neither is inlined (noinline, and the build uses -fno-inline).
 *
 *   hot3to1 [seconds]    run for about that much CPU time (default 2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT	500000UL	/* iterations of hot_one per round */

static volatile unsigned long sink;

/*
 * The hot functions call this at the end so that they are not leaf
 * functions: GCC gives leaf functions no frame pointer even with
 * -fno-omit-frame-pointer, and a frame-pointer unwinder would then skip
 * their caller.
 */
__attribute__((noinline)) void store(unsigned long x)
{
	sink = x;
}

__attribute__((noinline)) void hot_three(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	store(x);
}

__attribute__((noinline)) void hot_one(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	store(x);
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	double t0 = cpu_seconds();
	unsigned long rounds = 0;

	while (cpu_seconds() - t0 < secs) {
		hot_three(3 * UNIT);
		hot_one(UNIT);
		rounds++;
	}
	printf("hot3to1: %lu rounds\n", rounds);
	return 0;
}
