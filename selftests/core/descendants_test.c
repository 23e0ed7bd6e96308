// SPDX-License-Identifier: GPL-2.0
/*
 * descendants_test.c - PMC_F_DESCENDANTS: a 32-fork storm under an
 * attached process is counted in full, descendants that exist at attach
 * time are attached too, and without the flag children are not counted.
 *
 * The independent measure is perf_event_open(2) on the same processes
 * (with perf's inherit for children forked later): user-mode page faults
 * must agree exactly (a child missed would lose its PAGES faults).
 */
#include "pmc_test.h"

#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define NCHILD		32
#define PAGES		64		/* fresh pages each child touches */
#define CHILD_NS	5000000ULL	/* CPU each child burns */

/* Shared with the workload processes. */
struct storm {
	int failed;
	int gate[2];			/* the pre-existing child waits on it */
	pid_t grandchild;
	atomic_int phase;		/* phased_root: the test's step */
	atomic_int done;		/* phased_root: the worker's step */
};

static void storm_child(void)
{
	if (pmc_t_touch_pages(PAGES))
		_exit(1);
	pmc_t_spin_ns(CHILD_NS);
	_exit(0);
}

/* The attached root: fork NCHILD children at once, reap them. */
static int storm_root(void *arg)
{
	struct storm *s = arg;
	int i, st;

	if (pmc_t_touch_pages(PAGES))
		return 1;
	for (i = 0; i < NCHILD; i++) {
		pid_t pid = fork();

		if (pid < 0)
			s->failed = 1;
		if (!pid)
			storm_child();
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			s->failed = 1;
	return 0;
}

/* A root whose child exists before the attach, and works after it. */
static int gated_root(void *arg)
{
	struct storm *s = arg;
	pid_t pid = fork();
	char b;
	int st;

	if (!pid) {
		if (read(s->gate[0], &b, 1) != 1)
			_exit(1);
		storm_child();
	}
	s->grandchild = pid;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static void *touch_thread(void *arg)
{
	return (void *)(long)pmc_t_touch_pages(PAGES);
}

/*
 * A worker in three steps, each PAGES fresh pages, the last one by a new
 * thread: it waits for s->phase to reach each step (spinning: no page
 * fault while the test looks) and reports it in s->done.
 */
static void phased_worker(struct storm *s)
{
	pthread_t t;
	void *ret;
	int step;

	for (step = 1; step <= 3; step++) {
		while (atomic_load(&s->phase) < step)
			;
		if (step < 3) {
			if (pmc_t_touch_pages(PAGES))
				_exit(1);
		} else if (pthread_create(&t, NULL, touch_thread, NULL) ||
			   pthread_join(t, &ret) || ret) {
			_exit(1);
		}
		atomic_store(&s->done, step);
	}
	_exit(0);
}

/* The attached root of the stop/start test: one phased worker. */
static int phased_root(void *arg)
{
	struct storm *s = arg;
	pid_t pid = fork();
	int st;

	if (!pid)
		phased_worker(s);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

FIXTURE(desc) {
	int fd;
	struct storm *s;
	struct pmc_t_child root;
};

FIXTURE_SETUP(desc)
{
	self->root.pid = 0;
	self->s = MAP_FAILED;
	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	self->fd = pmc_t_open();
	ASSERT_LE(0, self->fd);
	self->s = mmap(NULL, sizeof(*self->s), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->s);
	ASSERT_EQ(0, pipe(self->s->gate));
}

FIXTURE_TEARDOWN(desc)
{
	pmc_t_child_kill(&self->root);
	if (self->s != MAP_FAILED)
		munmap(self->s, sizeof(*self->s));
	if (self->fd >= 0)
		close(self->fd);
}

struct storm_result {
	uint64_t faults, faults_ref;	/* PMC, perf (user mode) */
	uint64_t clock, clock_ref;	/* PMC, perf task-clock */
};

/*
 * Run the storm under two PMCs with @flags (user page faults, task-clock)
 * and perf's inherited counters of the same events.
 */
static void run_storm(struct __test_metadata *_metadata,
		      FIXTURE_DATA(desc) *self, uint32_t flags,
		      struct storm_result *r)
{
	uint32_t pf, tc;
	int pfd, tfd, st;

	ASSERT_EQ(0, pmc_t_child_start(&self->root, storm_root, self->s));
	pfd = pmc_t_perf_open_ex(self->root.pid, PMC_T_SW_PAGE_FAULTS,
				 flags & PMC_F_DESCENDANTS, true);
	tfd = pmc_t_perf_open_ex(self->root.pid, PMC_T_SW_TASK_CLOCK,
				 flags & PMC_F_DESCENDANTS, false);
	ASSERT_LE(0, pfd);
	ASSERT_LE(0, tfd);
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_PAGE_FAULTS, PMC_CAP_USER,
				      flags, &pf));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, flags, &tc));
	ASSERT_EQ(0, pmc_t_attach(self->fd, pf, self->root.pid, 0));
	ASSERT_EQ(0, pmc_t_attach(self->fd, tc, self->root.pid, 0));
	ASSERT_EQ(0, pmc_t_perf_enable(pfd));
	ASSERT_EQ(0, pmc_t_perf_enable(tfd));
	ASSERT_EQ(0, pmc_t_start(self->fd, pf));
	ASSERT_EQ(0, pmc_t_start(self->fd, tc));
	ASSERT_EQ(0, pmc_t_child_go(&self->root));
	ASSERT_EQ(0, pmc_t_child_wait(&self->root, &st, NULL));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_EQ(0, self->s->failed);
	ASSERT_EQ(0, pmc_t_read(self->fd, pf, &r->faults));
	ASSERT_EQ(0, pmc_t_read(self->fd, tc, &r->clock));
	ASSERT_EQ(0, pmc_t_perf_read(pfd, &r->faults_ref));
	ASSERT_EQ(0, pmc_t_perf_read(tfd, &r->clock_ref));
	TH_LOG("page faults: PMC %llu, perf %llu; task-clock: PMC %llu ns, perf %llu ns",
	       (unsigned long long)r->faults,
	       (unsigned long long)r->faults_ref,
	       (unsigned long long)r->clock,
	       (unsigned long long)r->clock_ref);
	EXPECT_EQ(0, pmc_t_release(self->fd, pf));
	EXPECT_EQ(0, pmc_t_release(self->fd, tc));
	close(pfd);
	close(tfd);
}

/*
 * Every child of the storm is counted from its first user instruction:
 * user page faults equal perf's inherited count exactly. perf's task-clock
 * also sees each child's kernel start-up (the PMC's counter is made in
 * it), so it bounds the PMC's from above.
 */
TEST_F(desc, fork_storm_children_are_counted)
{
	struct storm_result r;

	run_storm(_metadata, self, PMC_F_DESCENDANTS, &r);
	EXPECT_LE((uint64_t)(NCHILD + 1) * PAGES, r.faults);
	EXPECT_EQ(r.faults_ref, r.faults);
	EXPECT_GE(r.clock_ref, r.clock);
	EXPECT_LE((uint64_t)NCHILD * CHILD_NS, r.clock);
}

/* Without PMC_F_DESCENDANTS the children are not counted. */
TEST_F(desc, children_not_counted_without_descendants)
{
	struct storm_result r;

	run_storm(_metadata, self, 0, &r);
	EXPECT_EQ(r.faults_ref, r.faults);
	EXPECT_GT((uint64_t)NCHILD * PAGES, r.faults);
	EXPECT_LE((uint64_t)PAGES, r.faults);
	EXPECT_EQ(r.clock_ref, r.clock);
}

/* A descendant that exists at attach time is attached too. */
TEST_F(desc, existing_descendants_are_attached)
{
	uint64_t v, ref_root, ref_child;
	int rfd, cfd, st, i;
	uint32_t id;
	char b = 'g';

	ASSERT_EQ(0, pmc_t_child_start(&self->root, gated_root, self->s));
	ASSERT_EQ(0, pmc_t_child_go(&self->root));
	for (i = 0; i < 500 && !self->s->grandchild; i++)
		usleep(10000);
	ASSERT_LT(0, self->s->grandchild);
	rfd = pmc_t_perf_open_ex(self->root.pid, PMC_T_SW_PAGE_FAULTS, false,
				 true);
	cfd = pmc_t_perf_open_ex(self->s->grandchild, PMC_T_SW_PAGE_FAULTS,
				 false, true);
	ASSERT_LE(0, rfd);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_PAGE_FAULTS, PMC_CAP_USER,
				      PMC_F_DESCENDANTS, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, self->root.pid, 0));
	ASSERT_EQ(0, pmc_t_perf_enable(rfd));
	ASSERT_EQ(0, pmc_t_perf_enable(cfd));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(1, write(self->s->gate[1], &b, 1));
	ASSERT_EQ(0, pmc_t_child_wait(&self->root, &st, NULL));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	ASSERT_EQ(0, pmc_t_perf_read(rfd, &ref_root));
	ASSERT_EQ(0, pmc_t_perf_read(cfd, &ref_child));
	TH_LOG("page faults: PMC %llu, perf root %llu + child %llu",
	       (unsigned long long)v, (unsigned long long)ref_root,
	       (unsigned long long)ref_child);
	EXPECT_LE((uint64_t)PAGES, ref_child);
	EXPECT_EQ(ref_root + ref_child, v);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	close(rfd);
	close(cfd);
}

/* Let the phased worker run step @step and wait until it has. */
static int phase_step(struct storm *s, int step)
{
	int i;

	atomic_store(&s->phase, step);
	for (i = 0; i < 3000 && atomic_load(&s->done) < step; i++)
		usleep(10000);
	return atomic_load(&s->done) == step ? 0 : -1;
}

/*
 * PMCSTOP, PMCWRITE and PMCSTART reach the descendants (and their
 * threads), however the driver counts them: a child's work while the PMC
 * is stopped is not counted, a write of 0 resets the whole value, and
 * after the restart the PMC counts exactly what perf's inherited counter
 * (never stopped) counts from the write on. User page faults: exact.
 */
TEST_F(desc, stop_write_start_reach_descendants)
{
	uint64_t v1, v2, v3, p1, p2, p3;
	int pfd, st;
	uint32_t id;

	ASSERT_EQ(0, pmc_t_child_start(&self->root, phased_root, self->s));
	pfd = pmc_t_perf_open_ex(self->root.pid, PMC_T_SW_PAGE_FAULTS, true,
				 true);
	ASSERT_LE(0, pfd);
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_PAGE_FAULTS, PMC_CAP_USER,
				      PMC_F_DESCENDANTS, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, self->root.pid, 0));
	ASSERT_EQ(0, pmc_t_perf_enable(pfd));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, pmc_t_child_go(&self->root));

	ASSERT_EQ(0, phase_step(self->s, 1));
	ASSERT_EQ(0, pmc_t_stop(self->fd, id));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v1));
	ASSERT_EQ(0, pmc_t_perf_read(pfd, &p1));
	EXPECT_EQ(p1, v1);
	EXPECT_LE((uint64_t)PAGES, v1);

	ASSERT_EQ(0, phase_step(self->s, 2));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v2));
	ASSERT_EQ(0, pmc_t_perf_read(pfd, &p2));
	EXPECT_EQ(v1, v2);
	EXPECT_LE(p1 + PAGES, p2);

	ASSERT_EQ(0, pmc_t_write(self->fd, id, 0));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v2));
	EXPECT_EQ(0ULL, (unsigned long long)v2);
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, phase_step(self->s, 3));
	ASSERT_EQ(0, pmc_t_child_wait(&self->root, &st, NULL));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v3));
	ASSERT_EQ(0, pmc_t_perf_read(pfd, &p3));
	TH_LOG("page faults: step 1 %llu (perf %llu), stopped %llu, after the write %llu (perf %llu)",
	       (unsigned long long)v1, (unsigned long long)p1,
	       (unsigned long long)(p2 - p1), (unsigned long long)v3,
	       (unsigned long long)(p3 - p2));
	EXPECT_LE((uint64_t)PAGES, v3);
	EXPECT_EQ(p3 - p2, v3);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	close(pfd);
}

/*
 * Released while its descendant runs and forks: the worker goes on, and
 * the row is free again (a second PMC of the row attaches to the root).
 */
TEST_F(desc, release_while_descendants_run)
{
	uint32_t id, id2;
	int st;

	ASSERT_EQ(0, pmc_t_child_start(&self->root, phased_root, self->s));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0,
				      PMC_F_DESCENDANTS, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, self->root.pid, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, pmc_t_child_go(&self->root));
	ASSERT_EQ(0, phase_step(self->s, 1));
	ASSERT_EQ(0, pmc_t_release(self->fd, id));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0,
				      PMC_F_DESCENDANTS, &id2));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id2, self->root.pid, 0));
	ASSERT_EQ(0, phase_step(self->s, 2));
	ASSERT_EQ(0, phase_step(self->s, 3));
	ASSERT_EQ(0, pmc_t_child_wait(&self->root, &st, NULL));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	EXPECT_EQ(0, pmc_t_release(self->fd, id2));
}

/*
 * Active task_struct objects (/proc/slabinfo, read by root), or -1.
 * The cache is shrunk first: on a KASAN kernel freed objects wait in its
 * quarantine, still counted active, and a shrink frees the cache's share
 * of it (kasan_cache_shrink()); elsewhere it only gives back empty slabs.
 */
static long task_structs(void)
{
	char line[512];
	long active = -1;
	FILE *f = fopen("/sys/kernel/slab/task_struct/shrink", "w");

	if (f) {
		fputs("1", f);
		fclose(f);	/* a kernel without SLUB's sysfs: nothing to do */
	}
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "task_struct %ld", &active) == 1)
			break;
	fclose(f);
	return active;
}

static int touch_and_exit(void *arg)
{
	(void)arg;
	return pmc_t_touch_pages(4) ? 1 : 0;
}

#define NCYCLE	100

/*
 * A counting DESCENDANTS PMC attached again and again to processes that
 * exit. Each attach makes an inherited counter, which outlives its thread
 * for the children perf made of it; once the thread and all its children
 * are gone its count is final, and the counter, its target and the
 * thread's task_struct go (pmc_inh_prune()). They stayed until the PMC's
 * release: one task_struct more per cycle. The count stays whole.
 */
/* About 0.3 s a cycle on the PREEMPT_RT debug kernel under TCG. */
TEST_F_TIMEOUT(desc, ended_inherited_counters_do_not_pile_up, 240)
{
	long before, after = 0;
	uint64_t faults;
	uint32_t pf;
	int i, st;

	before = task_structs();
	if (before < 0)
		SKIP(return, "no /proc/slabinfo task_struct line (not root?)");
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_PAGE_FAULTS, PMC_CAP_USER,
				      PMC_F_DESCENDANTS, &pf));
	for (i = 0; i < NCYCLE; i++) {
		struct pmc_t_child c;

		ASSERT_EQ(0, pmc_t_child_start(&c, touch_and_exit, NULL));
		ASSERT_EQ(0, pmc_t_attach(self->fd, pf, c.pid, 0));
		ASSERT_EQ(0, pmc_t_start(self->fd, pf));
		ASSERT_EQ(0, pmc_t_child_go(&c));
		ASSERT_EQ(0, pmc_t_child_wait(&c, &st, NULL));
		ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
		ASSERT_EQ(0, pmc_t_stop(self->fd, pf));
	}
	ASSERT_EQ(0, pmc_t_read(self->fd, pf, &faults));
	/* Reaped tasks are freed after an RCU grace period. */
	for (i = 0; i < 50; i++) {
		after = task_structs();
		if (after < before + NCYCLE / 4)
			break;
		usleep(100000);
	}
	TH_LOG("task_structs: %ld before, %ld after %d cycles; %llu page faults",
	       before, after, NCYCLE, (unsigned long long)faults);
	EXPECT_LE((uint64_t)NCYCLE * 4, faults);
	EXPECT_GT(before + NCYCLE / 4, after);
	EXPECT_EQ(0, pmc_t_release(self->fd, pf));
}

TEST_HARNESS_MAIN
