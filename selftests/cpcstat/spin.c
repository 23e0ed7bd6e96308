// SPDX-License-Identifier: GPL-2.0
/*
 * spin.c - a workload for the cpcstat track tests: burn CPU for a given
 * time in the main thread and, optionally, in extra threads; optionally fork
 * a child that execs a command.
 *
 *   spin SECONDS [THREADS]          busy for SECONDS of wall time
 *   spin SECONDS 0 CMD [ARGS...]    busy, then fork and exec CMD, wait for it
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double secs;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
	volatile unsigned long x = 0;
	double end = now() + secs;

	(void)arg;
	while (now() < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 2 ? atoi(argv[2]) : 0;
	pthread_t thr[64];

	if (argc < 2) {
		fprintf(stderr, "usage: spin SECONDS [THREADS [CMD ARGS...]]\n");
		return 2;
	}
	secs = atof(argv[1]);
	if (nthreads > 64)
		nthreads = 64;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&thr[i], NULL, burn, NULL);
	burn(NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_join(thr[i], NULL);
	if (argc > 3) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			execvp(argv[3], argv + 3);
			_exit(127);
		}
		waitpid(pid, &st, 0);
	}
	return 0;
}
