// SPDX-License-Identifier: GPL-2.0
/*
 * scale.c - benchmark 5, scale: what attaching and reading cost, and the
 * kernel memory it takes, against bigger targets:
 *   threads N  one process of N threads (all asleep);
 *   tree N     N single-threaded processes, a binary tree under one root;
 *   pmcs N     N counters on the calling process itself.
 * pmc attaches one process-scope task-clock PMC (PMC_F_DESCENDANTS for a
 * tree, to its root) and reads it with one PMC_OP_PMCRW; perf opens one
 * task-clock counter per thread, as `perf stat -p` does, and reads each.
 * For "pmcs", each of the N counters is allocated and attached (pmc) or
 * opened (perf) on the caller.
 *
 *   bench-scale threads|tree|pmcs N pmc|perf [READS]
 *	prints "attach_ns=N read_ns=N slab_bytes=N per_unit_bytes=N"
 * (with pmc, "pmcs N" needs N + 1 free SOFT rows: one PMC is allocated
 * before the measurement)
 * attach_ns: the whole attach (all N counters); read_ns: one read of the
 * whole target (mean of READS, default 20); slab_bytes: the change of the
 * slab caches' memory (/proc/slabinfo, active objects) over the attach;
 * per_unit_bytes: slab_bytes / N.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/counters.h"
#include "lib/timing.h"

#define SCALE_MAX 4096

struct target {
	pid_t root;			/* threads/tree: the process to kill */
	pid_t pids[SCALE_MAX];		/* perf: the threads to open */
	unsigned long n;
};

/* Bytes held in the slab caches: sum of active objects x object size. */
static long long slab_bytes(void)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512], name[128];
	unsigned long active, total, size;
	long long sum = 0;

	if (!f)
		bench_die(errno, "open /proc/slabinfo (root needed)");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lu %lu %lu", name, &active, &total,
			   &size) == 4)
			sum += (long long)active * (long long)size;
	fclose(f);
	return sum;
}

static void __attribute__((noreturn)) sleep_forever(void)
{
	for (;;)
		pause();
}

static void *sleeper(void *arg)
{
	(void)arg;
	sleep_forever();
}

/* A process of @n threads; returns when all exist. */
static void make_threads(struct target *t, unsigned long n)
{
	int ready[2];
	char dir[64];
	struct dirent *de;
	DIR *d;
	char b;

	if (pipe(ready) < 0)
		bench_die(errno, "pipe");
	t->root = fork();
	if (t->root < 0)
		bench_die(errno, "fork");
	if (!t->root) {
		pthread_attr_t attr;
		pthread_t th;
		unsigned long i;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		for (i = 1; i < n; i++)
			if (pthread_create(&th, &attr, sleeper, NULL))
				_exit(1);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		sleep_forever();
	}
	close(ready[1]);
	if (read(ready[0], &b, 1) != 1)
		bench_die(0, "the target process did not start %lu threads", n);
	close(ready[0]);
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)t->root);
	d = opendir(dir);
	if (!d)
		bench_die(errno, "opendir %s", dir);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && t->n < SCALE_MAX)
			t->pids[t->n++] = (pid_t)atoi(de->d_name);
	closedir(d);
	if (t->n != n)
		bench_die(0, "%s lists %lu threads, not %lu", dir, t->n, n);
}

/*
 * Process @i of a tree of @n: forks children 2i+1 and 2i+2 (each goes on
 * as that node), reports its pid, sleeps.
 */
static void __attribute__((noreturn)) tree_node(unsigned long i,
						unsigned long n, int ready_w)
{
	unsigned long c;
	pid_t self;

again:
	for (c = 2 * i + 1; c <= 2 * i + 2 && c < n; c++) {
		pid_t pid = fork();

		if (pid < 0)
			_exit(1);
		if (!pid) {
			i = c;
			goto again;
		}
	}
	self = getpid();
	if (write(ready_w, &self, sizeof(self)) != sizeof(self))
		_exit(1);
	sleep_forever();
}

static void make_tree(struct target *t, unsigned long n)
{
	int ready[2];
	unsigned long i;

	if (pipe(ready) < 0)
		bench_die(errno, "pipe");
	t->root = fork();
	if (t->root < 0)
		bench_die(errno, "fork");
	if (!t->root) {
		close(ready[0]);
		/* Die with the benchmark: the tree must not outlive it. */
		setpgid(0, 0);
		tree_node(0, n, ready[1]);
	}
	setpgid(t->root, t->root);
	close(ready[1]);
	for (i = 0; i < n; i++)
		if (read(ready[0], &t->pids[i], sizeof(pid_t)) != sizeof(pid_t))
			bench_die(0, "the process tree did not reach %lu", n);
	t->n = n;
	close(ready[0]);
}

static void kill_target(struct target *t, int tree)
{
	if (!t->root)
		return;
	kill(tree ? -t->root : t->root, SIGKILL);
	waitpid(t->root, NULL, 0);
}

int main(int argc, char **argv)
{
	static struct target t;
	static int fds[SCALE_MAX];
	static uint32_t ids[SCALE_MAX];
	uint64_t task_clock = bench_soft_event("task-clock");
	unsigned long n, reads = 20, r, i;
	int tree = 0, self = 0, pmc, fd = -1;
	uint64_t t0, t1, v, sum;
	long long s0, s1;
	double read_ns;

	bench_init(argv[0]);
	if (argc != 4 && argc != 5)
		bench_die(0, "usage: bench-scale threads|tree|pmcs N pmc|perf [READS]");
	n = bench_count_arg(argv[2], "N");
	if (n > SCALE_MAX)
		bench_die(0, "N is at most %d", SCALE_MAX);
	if (argc == 5)
		reads = bench_count_arg(argv[4], "READS");
	pmc = !strcmp(argv[3], "pmc");
	if (!pmc && strcmp(argv[3], "perf"))
		bench_die(0, "unknown side '%s' (pmc or perf)", argv[3]);

	if (!strcmp(argv[1], "threads")) {
		make_threads(&t, n);
	} else if (!strcmp(argv[1], "tree")) {
		make_tree(&t, n);
		tree = 1;
	} else if (!strcmp(argv[1], "pmcs")) {
		self = 1;
		t.n = n;
	} else {
		bench_die(0, "unknown target '%s'", argv[1]);
	}

	/*
	 * The system's first task counter turns perf's scheduler hooks on (a
	 * static key: kernel text is patched, a good part of a second under
	 * TCG), and they go off a second after the last one is gone. Hold one
	 * through the run so that neither side pays for that in its figures.
	 */
	perf_open(task_clock, 0, -1, 0);
	if (pmc) {
		fd = pmcdev_open();
		/*
		 * The first allocation makes the owner, which hooks the fork,
		 * exec and exit tracepoints (text patching again): done before
		 * the measurement, with a PMC left unattached for "pmcs".
		 */
		ids[SCALE_MAX - 1] = pmcdev_alloc(fd, PMC_MODE_TC, task_clock,
						  tree ? PMC_F_DESCENDANTS : 0, 0);
		if (!self)
			ids[0] = ids[SCALE_MAX - 1];
	}
	s0 = slab_bytes();
	t0 = bench_now_ns();
	if (pmc && self) {
		for (i = 0; i < n; i++) {
			ids[i] = pmcdev_alloc(fd, PMC_MODE_TC, task_clock, 0, 0);
			pmcdev_attach(fd, ids[i], 0);
		}
	} else if (pmc) {
		pmcdev_attach(fd, ids[0], t.root);
	} else {
		for (i = 0; i < n; i++)
			fds[i] = perf_open(task_clock, self ? 0 : t.pids[i], -1, 0);
	}
	t1 = bench_now_ns();
	s1 = slab_bytes();

	/* One read of everything attached: 1 PMCRW, or one read(2) per fd. */
	if (pmc)
		for (i = 0; i < (self ? n : 1); i++)
			pmcdev_start(fd, ids[i]);
	t0 = t1 - t0;
	t1 = bench_now_ns();
	for (r = 0; r < reads; r++) {
		sum = 0;
		for (i = 0; i < (pmc && !self ? 1 : n); i++) {
			if (pmc && pmcdev_read(fd, ids[i], &v) < 0)
				bench_die(errno, "PMCRW");
			if (!pmc && read(fds[i], &v, sizeof(v)) != sizeof(v))
				bench_die(errno, "read");
			sum += v;
		}
	}
	read_ns = (double)(bench_now_ns() - t1) / (double)reads;

	printf("attach_ns=%llu read_ns=%.0f slab_bytes=%lld per_unit_bytes=%lld\n",
	       (unsigned long long)t0, read_ns, s1 - s0, (s1 - s0) / (long long)n);
	kill_target(&t, tree);
	return 0;
}
