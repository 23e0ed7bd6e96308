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
 *   bench-scale threads|tree|pmcs N pmc|perf [READS]   (N < 16384)
 *	prints "attach_ns=N read_ns=N kmem_bytes=N per_unit_bytes=N"
 * (with pmc, "pmcs N" needs N + 1 free SOFT rows: one PMC is allocated
 * before the measurement)
 * attach_ns: the whole attach (all N counters; the quickest of 5 attempts,
 * 3 for N >= 1000); read_ns: one read of the whole target (the median of
 * READS reads, default 21); kmem_bytes: the kernel memory
 * the first attach left allocated (lib/kmem.h: kmalloc and kmem_cache objects,
 * not per-CPU or vmalloc memory); per_unit_bytes: kmem_bytes / N.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/counters.h"
#include "lib/kmem.h"
#include "lib/timing.h"

#define SCALE_MAX 16384

struct target {
	pid_t root;			/* threads/tree: the process to kill */
	pid_t pids[SCALE_MAX];		/* perf: the threads to open */
	unsigned long n;
};

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

/*
 * Room for @n threads and @n descriptors: the guest's threads-max (1/8 of
 * its memory in kernel stacks: about 8,000 threads in 1 GiB) and the
 * descriptor limit are raised where they are below (the VM runs as root).
 */
static void make_room(unsigned long n)
{
	struct rlimit rl;
	unsigned long max = 0;
	FILE *f;

	f = fopen("/proc/sys/kernel/threads-max", "r+");
	if (f && fscanf(f, "%lu", &max) == 1 && max < 2 * n + 1024) {
		rewind(f);
		fprintf(f, "%lu\n", 2 * n + 1024);
	}
	if (f && fclose(f))
		bench_die(errno, "raise threads-max to %lu", 2 * n + 1024);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < n + 64) {
		rl.rlim_cur = n + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			bench_die(errno, "raise RLIMIT_NOFILE to %lu", n + 64);
	}
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

/*
 * Wait until every task of @t sleeps (state S in /proc/TID/stat): one
 * still running when the counters are made costs a cross-CPU call that
 * has nothing to do with either interface.
 */
static void wait_asleep(const struct target *t)
{
	char path[64], buf[256], *p;
	unsigned long i, tries;
	FILE *f;

	for (i = 0; i < t->n; i++) {
		for (tries = 0; tries < 2000; tries++) {
			/* /proc/TID works for every thread id too. */
			snprintf(path, sizeof(path), "/proc/%d/stat",
				 (int)t->pids[i]);
			f = fopen(path, "r");
			if (!f)
				bench_die(errno, "open %s", path);
			p = fgets(buf, sizeof(buf), f);
			fclose(f);
			p = p ? strrchr(buf, ')') : NULL;
			if (p && p[1] == ' ' && p[2] == 'S')
				break;
			usleep(1000);
		}
	}
}

static void kill_target(struct target *t, int tree)
{
	if (!t->root)
		return;
	kill(tree ? -t->root : t->root, SIGKILL);
	waitpid(t->root, NULL, 0);
}

/* What one run measures, and what it holds. */
struct scale {
	struct target t;
	unsigned long n;
	int pmc, self, tree, fd;
	uint64_t config;
	uint32_t ids[SCALE_MAX];
	int fds[SCALE_MAX];
};

/* Attach (pmc) or open (perf) everything; the time it took, in ns. */
static uint64_t attach_all(struct scale *s)
{
	uint64_t t0 = bench_now_ns();
	unsigned long i;

	if (s->pmc && s->self) {
		for (i = 0; i < s->n; i++) {
			s->ids[i] = bench_pmc_alloc(s->fd, PMC_MODE_TC, s->config,
						    0, 0);
			bench_pmc_attach(s->fd, s->ids[i], 0);
		}
	} else if (s->pmc) {
		bench_pmc_attach(s->fd, s->ids[0], s->t.root);
	} else {
		for (i = 0; i < s->n; i++)
			s->fds[i] = perf_open(s->config,
					      s->self ? 0 : s->t.pids[i], -1, 0);
	}
	return bench_now_ns() - t0;
}

/* Undo attach_all(); for a target, allocate the next attempt's PMC. */
static void detach_all(struct scale *s)
{
	unsigned long i;

	for (i = 0; i < s->n; i++) {
		if (s->pmc && (s->self || !i))
			bench_pmc_release(s->fd, s->ids[i]);
		else if (!s->pmc)
			close(s->fds[i]);
	}
	if (s->pmc && !s->self)
		s->ids[0] = bench_pmc_alloc(s->fd, PMC_MODE_TC, s->config,
					    s->tree ? PMC_F_DESCENDANTS : 0, 0);
}

/* One read of everything: one PMCRW per PMC, one read(2) per fd. */
static uint64_t read_all(struct scale *s)
{
	uint64_t t0 = bench_now_ns(), v;
	unsigned long i;

	for (i = 0; i < (s->pmc && !s->self ? 1 : s->n); i++) {
		if (s->pmc && bench_pmc_read(s->fd, s->ids[i], &v) < 0)
			bench_die(errno, "PMCRW");
		if (!s->pmc && read(s->fds[i], &v, sizeof(v)) != sizeof(v))
			bench_die(errno, "read");
	}
	return bench_now_ns() - t0;
}

int main(int argc, char **argv)
{
	static struct scale s;
	unsigned long reads = 21, attempts, a, i;
	uint64_t attach = UINT64_MAX, t;
	struct bench_stats st;
	long long kmem = -1;
	double *rd;

	bench_init(argv[0]);
	if (argc != 4 && argc != 5)
		bench_die(0, "usage: bench-scale threads|tree|pmcs N pmc|perf [READS]");
	s.n = bench_count_arg(argv[2], "N");
	if (s.n > SCALE_MAX - 1)
		bench_die(0, "N is at most %d", SCALE_MAX - 1);
	if (argc == 5)
		reads = bench_count_arg(argv[4], "READS");
	make_room(s.n);
	s.pmc = !strcmp(argv[3], "pmc");
	if (!s.pmc && strcmp(argv[3], "perf"))
		bench_die(0, "unknown side '%s' (pmc or perf)", argv[3]);
	s.config = bench_soft_event("task-clock");

	if (!strcmp(argv[1], "threads")) {
		make_threads(&s.t, s.n);
	} else if (!strcmp(argv[1], "tree")) {
		make_tree(&s.t, s.n);
		s.tree = 1;
	} else if (!strcmp(argv[1], "pmcs")) {
		s.self = 1;
	} else {
		bench_die(0, "unknown target '%s'", argv[1]);
	}

	/*
	 * The system's first task counter turns perf's scheduler hooks on (a
	 * static key: kernel text is patched, a good part of a second under
	 * TCG), and they go off a second after the last one is gone. Hold one
	 * through the run so that neither side pays for that in its figures.
	 */
	perf_open(s.config, 0, -1, 0);
	if (!s.self)
		wait_asleep(&s.t);
	if (s.pmc) {
		s.fd = bench_pmc_open();
		/*
		 * The first allocation makes the owner, which hooks the fork,
		 * exec and exit tracepoints (text patching again): done before
		 * the measurement, with a PMC left unattached for "pmcs".
		 */
		s.ids[SCALE_MAX - 1] = bench_pmc_alloc(s.fd, PMC_MODE_TC, s.config,
						       s.tree ? PMC_F_DESCENDANTS : 0,
						       0);
		if (!s.self)
			s.ids[0] = s.ids[SCALE_MAX - 1];
	}

	/*
	 * The attach is short and done once per attempt: a host that runs
	 * something else for a while instead of the VM's CPU stretches it
	 * many times over. Keep the quickest of a few attempts; the memory
	 * is the first attempt's (counting fresh threads).
	 */
	attempts = s.n >= 1000 ? 3 : 5;
	for (a = 0; a < attempts; a++) {
		if (a)
			detach_all(&s);
		if (!a && kmem_trace_start() < 0)
			bench_die(errno, "tracing the kmem events (root and tracefs needed)");
		t = attach_all(&s);
		if (!a) {
			kmem = kmem_trace_stop();
			if (kmem < 0)
				bench_die(0, "kmem trace events were lost");
		}
		if (t < attach)
			attach = t;
	}

	/* Reads: the median of single reads of the whole target. */
	if (s.pmc)
		for (i = 0; i < (s.self ? s.n : 1); i++)
			bench_pmc_start(s.fd, s.ids[i]);
	rd = calloc(reads, sizeof(*rd));
	if (!rd)
		bench_die(ENOMEM, "reads");
	for (i = 0; i < reads; i++)
		rd[i] = (double)read_all(&s);
	bench_stats(rd, reads, &st);
	free(rd);

	printf("attach_ns=%llu read_ns=%.0f kmem_bytes=%lld per_unit_bytes=%lld\n",
	       (unsigned long long)attach, st.median, kmem,
	       kmem / (long long)s.n);
	kill_target(&s.t, s.tree);
	return 0;
}
