// SPDX-License-Identifier: GPL-2.0
/*
 * descendants_test.c - PMC_F_DESCENDANTS: a 32-fork storm under an
 * attached process is counted in full (every child from its first user
 * instruction), descendants that exist at attach time are attached too,
 * and without the flag children are not counted.
 */
#include "pmc_test.h"

#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define NCHILD		32
#define CHILD_NS	8000000ULL	/* CPU each child burns */
#define ROOT_NS		20000000ULL

/* Shared with the workload processes. */
struct storm {
	_Atomic uint64_t children_ns;	/* CPU the children measured */
	uint64_t root_ns;		/* CPU the root measured */
	uint64_t total_ns;		/* root's rusage: self + children */
	int failed;
	int gate[2];			/* pre-existing child waits on it */
};

static uint64_t cpu_now(void)
{
	return pmc_t_now_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* A storm child: burn CHILD_NS, say what that cost. */
static void storm_child(struct storm *s)
{
	uint64_t t0 = cpu_now();

	pmc_t_spin_ns(CHILD_NS);
	atomic_fetch_add(&s->children_ns, cpu_now() - t0);
	_exit(0);
}

/* The attached root: burn, fork NCHILD children at once, reap them. */
static int storm_root(void *arg)
{
	struct storm *s = arg;
	uint64_t t0 = cpu_now();
	struct rusage self, kids;
	int i, st;

	pmc_t_spin_ns(ROOT_NS);
	for (i = 0; i < NCHILD; i++) {
		pid_t pid = fork();

		if (pid < 0)
			s->failed = 1;
		if (!pid)
			storm_child(s);
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			s->failed = 1;
	s->root_ns = cpu_now() - t0;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	s->total_ns = pmc_t_rusage_ns(&self) + pmc_t_rusage_ns(&kids);
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
		storm_child(s);
	}
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

/* Run the storm under a PMC with @flags; return the PMC's value. */
static uint64_t run_storm(struct __test_metadata *_metadata,
			  FIXTURE_DATA(desc) *self, uint32_t flags)
{
	uint64_t v = 0;
	uint32_t id;
	int st;

	ASSERT_EQ(0, pmc_t_child_start(&self->root, storm_root, self->s));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, flags, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, self->root.pid, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, pmc_t_child_go(&self->root));
	ASSERT_EQ(0, pmc_t_child_wait(&self->root, &st, NULL));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_EQ(0, self->s->failed);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	return v;
}

/*
 * Every child of the storm is counted from its first user instruction:
 * the PMC sees at least what the root and children measured themselves,
 * and no more than their rusage.
 */
TEST_F(desc, fork_storm_children_are_counted)
{
	uint64_t v = run_storm(_metadata, self, PMC_F_DESCENDANTS);
	uint64_t measured = self->s->root_ns + self->s->children_ns;

	TH_LOG("PMC %llu ns; measured root %llu + children %llu ns; rusage %llu ns",
	       (unsigned long long)v, (unsigned long long)self->s->root_ns,
	       (unsigned long long)self->s->children_ns,
	       (unsigned long long)self->s->total_ns);
	EXPECT_LE((uint64_t)NCHILD * CHILD_NS, self->s->children_ns);
	EXPECT_LE(measured, v);
	EXPECT_GE(self->s->total_ns + self->s->total_ns / 50 + 4000000, v);
}

/* Without PMC_F_DESCENDANTS the children are not counted. */
TEST_F(desc, children_not_counted_without_descendants)
{
	uint64_t v = run_storm(_metadata, self, 0);

	TH_LOG("PMC %llu ns; root measured %llu ns, children %llu ns",
	       (unsigned long long)v, (unsigned long long)self->s->root_ns,
	       (unsigned long long)self->s->children_ns);
	EXPECT_LE(ROOT_NS, v);
	EXPECT_GT(self->s->root_ns + self->s->children_ns / 2, v);
}

/* A descendant that exists at attach time is attached too. */
TEST_F(desc, existing_descendants_are_attached)
{
	uint64_t v;
	uint32_t id;
	char b = 'g';
	int st;

	ASSERT_EQ(0, pmc_t_child_start(&self->root, gated_root, self->s));
	ASSERT_EQ(0, pmc_t_child_go(&self->root));
	usleep(50000);	/* the root has forked its child */
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0,
				      PMC_F_DESCENDANTS, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, self->root.pid, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(1, write(self->s->gate[1], &b, 1));
	ASSERT_EQ(0, pmc_t_child_wait(&self->root, &st, NULL));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	TH_LOG("PMC %llu ns; the child measured %llu ns",
	       (unsigned long long)v,
	       (unsigned long long)self->s->children_ns);
	EXPECT_LE(self->s->children_ns, v);
	EXPECT_GE(self->s->children_ns + self->s->children_ns / 10 + 3000000,
		  v);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

TEST_HARNESS_MAIN
