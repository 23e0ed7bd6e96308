// SPDX-License-Identifier: GPL-2.0
/*
 * soak_test.c - 200 load/unload cycles ($PMC_SOAK_CYCLES) of pmc.ko with
 * PMCs of every mode in use, by processes killed between cycles:
 *   owner A: a system sampling PMC on CPU 0 and a system counting one on
 *            the last CPU, into a mapped ring nobody drains;
 *   owner B: a process sampling PMC with callchains and PROCCSW records
 *            and a DESCENDANTS counting PMC attached to itself and to a
 *            child that forks without end, a thread-scope INHERIT PMC on a
 *            thread, an OVF_SIGNAL PMC, logging to an unlinked file;
 *   owner C: perfmon(4)'s global counters where the CPU has them, else a
 *            descriptor passed to a child that holds it open.
 * While they run, rmmod must be refused (the module in use); once they are
 * killed it must succeed. No slab cache the driver allocates from may grow
 * over the cycles (/proc/slabinfo, after shrinking), kmemleak (debug
 * kernel) suspects nothing, and pmc.ko is loaded again at the end.
 */
#include "faults.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <pmc/perfmon.h>

#include "kselftest_harness.h"

#define CYCLES	(getenv("PMC_SOAK_CYCLES") ? atoi(getenv("PMC_SOAK_CYCLES")) : 200)
#define WARMUP	10
#define OWNERS	3

/* insmod, by finit_module(2) (no process to start): 0 or -errno. */
static int load(void)
{
	int fd, r;

	if (flt_module_loaded())
		return 0;
	fd = open(flt_module_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return r;
}

/* rmmod without waiting (delete_module(2), O_NONBLOCK): 0 or -errno. */
static int try_unload(void)
{
	return syscall(SYS_delete_module, "pmc", O_NONBLOCK) ? -errno : 0;
}

/* rmmod, retried while the killed owners' last references go. */
static int unload(void)
{
	int i, r = 0;

	for (i = 0; i < 200; i++) {
		r = try_unload();
		if (r != -EWOULDBLOCK && r != -EBUSY)
			return r;
		usleep(25000);
	}
	return r;
}

static void ready_and_work(int ready)
{
	char b = 'r';

	if (write(ready, &b, 1) != 1)
		_exit(3);
	close(ready);
	for (;;)
		pmc_t_touch_pages(2);
}

static void owner_system(int ready, int ncpu)
{
	struct flt_ring ring;
	uint32_t ss, sc;
	int fd = pmc_t_open();

	if (fd < 0 || flt_ring_map(fd, 2, &ring) ||
	    pmc_t_alloc_soft(fd, PMC_MODE_SS, 0, PMC_T_SW_CPU_CLOCK, PMC_CAP_INTERRUPT,
			     PMC_F_CALLCHAIN, &ss) ||
	    pmc_t_alloc_soft(fd, PMC_MODE_SC, (uint32_t)(ncpu - 1), PMC_T_SW_CPU_CLOCK, 0, 0, &sc) ||
	    pmc_t_start(fd, ss) || pmc_t_start(fd, sc))
		_exit(2);
	ready_and_work(ready);
}

static void *spin_thread(void *arg)
{
	pthread_t t;

	if (arg)
		pthread_create(&t, NULL, spin_thread, NULL);	/* inherited */
	for (;;)
		pmc_t_spin_ns(1000000);
	return NULL;
}

static void owner_process(int ready)
{
	struct pmc_op_configurelog cl;
	struct pmc_op_pmcallocate pa;
	char path[64];
	uint32_t ts, tc, th, ovf;
	pthread_t t;
	pid_t kid;
	int fd = pmc_t_open(), logfd;

	snprintf(path, sizeof(path), "/tmp/pmc-soak.%d", getpid());
	logfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	unlink(path);
	if (fd < 0 || logfd < 0)
		_exit(2);
	cl = (struct pmc_op_configurelog){ .pm_logfd = logfd };
	kid = fork();
	if (!kid) {
		for (;;) {
			pid_t p = fork();

			if (!p) {
				pmc_t_spin_ns(300000);
				_exit(0);
			}
			if (p > 0)
				waitpid(p, NULL, 0);
		}
	}
	pmc_t_soft_request(&pa, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK);
	pa.pm_flags = PMC_F_OVF_SIGNAL;
	pa.pm_count = -(uint64_t)1000000000;	/* overflows after 1 s: never here */
	pa.pm_signo = SIGUSR1;
	if (ioctl(fd, PMC_IOC_CONFIGURELOG, &cl) ||
	    pmc_t_alloc_soft(fd, PMC_MODE_TS, 0, PMC_T_SW_CPU_CLOCK, PMC_CAP_INTERRUPT,
			     PMC_F_CALLCHAIN | PMC_F_LOG_PROCCSW, &ts) ||
	    pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0,
			     PMC_F_DESCENDANTS | PMC_F_LOG_PROCEXIT, &tc) ||
	    pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS, 0, 0, &th) ||
	    pmc_t_allocate(fd, &pa, &ovf) ||
	    pmc_t_attach(fd, ts, 0, 0) || pmc_t_attach(fd, ts, kid, 0) ||
	    pmc_t_attach(fd, tc, 0, 0) ||
	    pmc_t_attach(fd, th, 0, PMC_ATTACH_F_THREAD | PMC_ATTACH_F_INHERIT) ||
	    pmc_t_attach(fd, ovf, 0, 0) ||
	    pmc_t_start(fd, ts) || pmc_t_start(fd, tc) || pmc_t_start(fd, th) ||
	    pmc_t_start(fd, ovf))
		_exit(2);
	close(logfd);
	pthread_create(&t, NULL, spin_thread, &fd);
	ready_and_work(ready);
}

static void owner_shared(int ready)
{
	struct pmc setup = { .pmc_num = 0 };
	int32_t num = 0;
	uint32_t tc;
	int fd = pmc_t_open();

	if (fd < 0)
		_exit(2);
	setup.pmc_event = 0xc0;			/* instructions retired */
	setup.pmc_flags = PMCF_USR | PMCF_OS;
	/* perfmon(4) needs a hardware PMU (the test PMU); else a shared descriptor. */
	if (!ioctl(fd, PMIOSETUP, &setup))
		ioctl(fd, PMIOSTART, &num);
	if (pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_CONTEXT_SWITCHES, 0, 0, &tc) ||
	    pmc_t_attach(fd, tc, 0, 0) || pmc_t_start(fd, tc))
		_exit(2);
	if (!fork()) {
		close(ready);
		pause();		/* holds the descriptor */
		_exit(0);
	}
	ready_and_work(ready);
}

/* Owner @i of a cycle: system-wide, process-mode, then shared ones. */
static void start_owner(int ready, int i, void *arg)
{
	int ncpu = *(int *)arg;

	if (i == 0)
		owner_system(ready, ncpu);
	else if (i == 1)
		owner_process(ready);
	owner_shared(ready);
}

/* ---------------------------------------------------------------- slabs */

static const char *const caches[] = {
	"kmalloc-32", "kmalloc-64", "kmalloc-96", "kmalloc-128", "kmalloc-192",
	"kmalloc-256", "kmalloc-512", "kmalloc-1k", "kmalloc-2k", "kmalloc-4k",
	"perf_event", "task_struct", "pid", "vmap_area",
};
#define NCACHES	(sizeof(caches) / sizeof(caches[0]))

FIXTURE(soak) {
	int ncpu;
};

FIXTURE_SETUP(soak)
{
	const char *why = pmc_t_cannot_reload(flt_module_path());

	if (why)
		SKIP(return, "%s", why);
	self->ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, load());
	flt_kmemleak_clear();
}

FIXTURE_TEARDOWN(soak)
{
	if (!geteuid())
		flt_module_default();
}

TEST_F_TIMEOUT(soak, load_use_kill_unload, 3000)
{
	long before[NCACHES], after[NCACHES], slack[NCACHES];
	int cycle, cycles = CYCLES, refused = 0, leaks, r;
	pid_t pgid[OWNERS];
	uint64_t t0 = flt_now_ns(), t[6], phase[5] = { 0 };
	unsigned int i;

	FLT_RETURN_IF_SKIPPED();
	for (cycle = 0; cycle < cycles; cycle++) {
		if (cycle == WARMUP)
			pmc_t_slab_objects(caches, NCACHES, before);
		t[0] = flt_now_ns();
		ASSERT_EQ(0, load());
		ASSERT_TRUE(pmc_t_have_device());
		t[1] = flt_now_ns();
		ASSERT_EQ(0, pmc_t_owners_start(pgid, OWNERS, start_owner,
						 &self->ncpu)) {
			pmc_t_owners_kill(pgid, OWNERS);
		}
		t[2] = flt_now_ns();
		/* In use: refused, and still loaded. */
		r = try_unload();
		if ((r == -EWOULDBLOCK || r == -EBUSY) && flt_module_loaded())
			refused++;
		t[3] = flt_now_ns();
		pmc_t_owners_kill(pgid, OWNERS);
		t[4] = flt_now_ns();
		ASSERT_EQ(0, unload()) TH_LOG("cycle %d: rmmod fails after the owners died", cycle);
		t[5] = flt_now_ns();
		for (i = 0; i < 5; i++)
			phase[i] += t[i + 1] - t[i];
		if (!((cycle + 1) % 50))
			TH_LOG("%d cycles, %llu s", cycle + 1,
			       (unsigned long long)((flt_now_ns() - t0) / 1000000000ULL));
	}
	TH_LOG("per cycle: insmod %llu ms, owners %llu ms, refused rmmod %llu ms, kill %llu ms, rmmod %llu ms",
	       (unsigned long long)(phase[0] / cycles / 1000000),
	       (unsigned long long)(phase[1] / cycles / 1000000),
	       (unsigned long long)(phase[2] / cycles / 1000000),
	       (unsigned long long)(phase[3] / cycles / 1000000),
	       (unsigned long long)(phase[4] / cycles / 1000000));
	EXPECT_EQ(cycles, refused) TH_LOG("rmmod succeeded while the module was in use");
	/*
	 * One object leaked per cycle goes beyond this. With kmemleak (the
	 * debug kernel), which finds any object of an unloaded module that
	 * nothing points to, one per cycle: there, after the rest of the
	 * suite, kmalloc-192 and -512 grew by about half an object a cycle
	 * while kmemleak found nothing and the driver's own count of live
	 * objects was 0 at every unload (kernel caches freed lazily, such
	 * as kprobes' instruction pages, are the likely holders).
	 */
	slack[0] = (cycles - WARMUP) / (flt_have_kmemleak() ? 1 : 3) + 16;
	for (i = 1; i < NCACHES; i++)
		slack[i] = slack[0];
	/*
	 * Frees still in flight settle: RCU callbacks, which the debug kernel
	 * (lockdep, KASAN) runs late. Measured again while a cache is over,
	 * for up to 20 s; a leak stays over.
	 */
	for (r = 0; r < 10; r++) {
		pmc_t_slab_objects(caches, NCACHES, after);
		if (!pmc_t_slabs_over(caches, NCACHES, before, after, slack,
				      false))
			break;
		sleep(2);
	}
	if (cycles > WARMUP)
		EXPECT_EQ(0u, pmc_t_slabs_over(caches, NCACHES, before, after,
					      slack, true))
			TH_LOG("caches grew in %d cycles", cycles - WARMUP);
	leaks = flt_kmemleak_scan(40);
	if (leaks >= 0) {
		EXPECT_EQ(0, leaks) TH_LOG("kmemleak suspects %d objects (above)", leaks);
	}
}

TEST_HARNESS_MAIN
