// SPDX-License-Identifier: GPL-2.0
/*
 * unload_test.c - 50 cycles of: load pmc.ko, run processes that use PMCs
 * of every kind (system, process with descendants and a fork loop,
 * thread scope with inherit, a descriptor shared with a child), kill them
 * all, unload. The module must unload every time and the slab caches the
 * driver allocates from must not grow (and the driver's own count of live
 * objects, checked at every unload, must be zero: a WARNING otherwise).
 * The module is loaded again at the end, as the test found it.
 * PMC_UNLOAD_CYCLES=N runs N cycles instead of 50 (debugging).
 */
#include "pmc_test.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define CYCLES		(getenv("PMC_UNLOAD_CYCLES") ? atoi(getenv("PMC_UNLOAD_CYCLES")) : 50)
#define WARMUP		5
#define OWNERS		3

static const char *module_path(void)
{
	const char *p = getenv("PMC_MODULE");

	return p ? p : PMC_TEST_MODULE;
}

static bool module_loaded(void)
{
	return access("/sys/module/pmc", F_OK) == 0;
}

static int load(void)
{
	return module_loaded() ? 0 : pmc_t_system("insmod %s", module_path());
}

/* rmmod, retried while the last exit work of the killed owners finishes. */
static int unload(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!pmc_t_system("rmmod pmc 2>/dev/null"))
			return 0;
		usleep(50000);
	}
	return pmc_t_system("rmmod pmc");
}

static void *inherit_thread(void *arg)
{
	pthread_t t;

	/* A thread made by the INHERIT thread: counted, then killed. */
	if (arg)
		pthread_create(&t, NULL, inherit_thread, NULL);
	for (;;)
		pmc_t_spin_ns(1000000);
	return NULL;
}

/*
 * An owner: PMCs of every kind, running, attached to itself and its
 * descendants (a child that forks children without end, a child that
 * holds the descriptor). It says ready and works until killed; on a setup
 * failure it exits, and the test sees EOF instead of its byte.
 */
static void owner(int ready)
{
	uint32_t tc, sc, th, ss;
	pthread_t t;
	pid_t kid;
	int fd = pmc_t_open();
	char b = 'r';

	if (fd < 0)
		_exit(1);
	/* Sampling another process needs a log (hwpmc's NEEDS_LOGFILE). */
	if (mmap(NULL, 3 * sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0) == MAP_FAILED)
		_exit(4);
	kid = fork();
	if (!kid) {
		close(ready);
		for (;;) {
			pid_t p = fork();

			if (!p) {
				pmc_t_spin_ns(200000);
				_exit(0);
			}
			if (p > 0)
				waitpid(p, NULL, 0);
		}
	}
	if (!fork()) {
		close(ready);
		pause();	/* holds the descriptor */
		_exit(0);
	}
	if (pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0,
			     PMC_F_DESCENDANTS, &tc) ||
	    pmc_t_alloc_soft(fd, PMC_MODE_SC, 0, PMC_T_SW_CPU_CLOCK, 0, 0,
			     &sc) ||
	    pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS, 0, 0,
			     &th) ||
	    pmc_t_alloc_soft(fd, PMC_MODE_TS, 0, PMC_T_SW_CPU_CLOCK,
			     PMC_CAP_INTERRUPT, 0, &ss) ||
	    /* 1 kHz: at mincount the emulated CPUs do little but sample. */
	    pmc_t_setcount(fd, ss, 1000000) ||
	    /* With DESCENDANTS this attaches the children made above too. */
	    pmc_t_attach(fd, tc, 0, 0) ||
	    pmc_t_attach(fd, th, 0,
			 PMC_ATTACH_F_THREAD | PMC_ATTACH_F_INHERIT) ||
	    pmc_t_attach(fd, ss, kid, 0) ||
	    pmc_t_start(fd, tc) || pmc_t_start(fd, sc) ||
	    pmc_t_start(fd, th) || pmc_t_start(fd, ss))
		_exit(2);
	pthread_create(&t, NULL, inherit_thread, &fd);
	if (write(ready, &b, 1) != 1)
		_exit(3);
	for (;;)
		pmc_t_touch_pages(4);
}

static void start_owner(int ready, int i, void *arg)
{
	owner(ready);
}

/* Start the owners, each in a process group of its own; kill them all. */
static int run_and_kill_owners(void)
{
	pid_t pgid[OWNERS];
	int ret;

	ret = pmc_t_owners_start(pgid, OWNERS, start_owner, NULL);
	usleep(20000);
	pmc_t_owners_kill(pgid, OWNERS);
	return ret;
}

static const char * const caches[] = {
	"kmalloc-64", "kmalloc-96", "kmalloc-128", "kmalloc-192",
	"kmalloc-256", "kmalloc-512", "kmalloc-1k", "kmalloc-2k",
	"perf_event", "task_struct", "pid",
};

/*
 * Growth allowed over the 45 measured cycles, per cache, for what the rest
 * of the system allocates meanwhile (the counts are exact once the caches
 * are shrunk): a leak of one object per cycle goes beyond it.
 */
static const long slack[] = {
	32, 32, 32, 32, 32, 32, 32, 32, 4, 8, 8,
};

#define NCACHES	(sizeof(caches) / sizeof(caches[0]))

FIXTURE(unload) {
	bool was_loaded;
};

FIXTURE_SETUP(unload)
{
	const char *why = pmc_t_cannot_reload(module_path());

	if (why)
		SKIP(return, "%s", why);
	self->was_loaded = module_loaded();
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
}

FIXTURE_TEARDOWN(unload)
{
	if (!geteuid() && self->was_loaded)
		load();
}

TEST_F_TIMEOUT(unload, load_use_kill_unload_50_times_leaks_nothing, 900)
{
	long before[NCACHES], after[NCACHES];
	int cycle;

	for (cycle = 0; cycle < CYCLES; cycle++) {
		if (cycle == WARMUP)
			pmc_t_slab_objects(caches, NCACHES, before);
		ASSERT_EQ(0, load());
		ASSERT_TRUE(pmc_t_have_device());
		ASSERT_EQ(0, run_and_kill_owners());
		ASSERT_EQ(0, unload());
		if (!((cycle + 1) % 10))
			TH_LOG("%d cycles", cycle + 1);
	}
	pmc_t_slab_objects(caches, NCACHES, after);
	EXPECT_EQ(0u, pmc_t_slabs_over(caches, NCACHES, before, after, slack,
				      true));
}

TEST_HARNESS_MAIN
