// SPDX-License-Identifier: GPL-2.0
/*
 * selfread_test.c - reading the PMUv3's counters with no system call: the
 * self-read page's RDPMC entries (driver/core/selfread.c, docs/selfread.md)
 * read from EL0 by pmc(3)'s pmc_selfread() and libcpc's cpc_set_sample()
 * (libpmc/dev/pmcdev_selfread.c).
 *
 * - 100,000 reads of a running set make no system call: a seccomp filter
 *   traps every system call of the reading process (and is shown to trap
 *   one);
 * - a thread reading its page while it is preempted and migrated (two
 *   CPUs) never sees a value go back, across 32-bit counter overflows;
 * - the page and PMCREADSET agree: within the instructions executed
 *   between the two reads while running, exactly once stopped.
 *
 * EL0 access is perf's: kernel.perf_user_access is set to 1 for the test
 * and restored. Runs in tools/pmc-vm --arch arm64; elsewhere each test
 * skips, naming what is absent.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>
#include <pmc.h>
#include <pmc/ring.h>

#include "kselftest_harness.h"
#include "a64_test.h"

#define SR_USER_ACCESS	"/proc/sys/kernel/perf_user_access"
#define SR_READS	100000
#define SR_GROUP	3
/* perf programs a counting 32-bit counter to interrupt every 2^31 events. */
#define SR_PERIOD	(1ULL << 31)


static int sr_sysctl(const char *path, int value)
{
	FILE *f = fopen(path, "r+");
	int old = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &old) != 1)
		old = -1;
	rewind(f);
	fprintf(f, "%d\n", value);
	if (fclose(f))
		return -1;
	return old;
}

/*
 * A PMC of generic hardware event @config (user mode) in set @group,
 * attached to the calling thread alone and started: what the page
 * describes. 0 or -1 with errno.
 */
static int sr_pmc(uint32_t group, uint64_t config, pmc_id_t *id)
{
	struct pmc_op_pmcallocate pa;

	memset(&pa, 0, sizeof(pa));
	pa.pm_caps = PMC_CAP_USER;
	pa.pm_cpu = PMC_CPU_ANY;
	pa.pm_class = PMC_CLASS_ARMV8;
	pa.pm_ev = PMC_EV_GENERIC_FIRST + (uint32_t)config;
	pa.pm_mode = PMC_MODE_TC;
	pa.pm_group = group;
	pa.pm_md.pm_type = PERF_TYPE_HARDWARE;
	pa.pm_md.pm_config = config;
	if (pmc_allocate_request(&pa))
		return -1;
	*id = pa.pm_pmcid;
	if (pmc_attach_thread(*id, 0, 0))
		return -1;
	return pmc_start(*id);
}

/* ------------------------------------------------------------ seccomp */

/* What the trapping child reports, in a shared mapping. */
struct sr_report {
	uint64_t traps_loop;	/* system calls during the reads */
	uint64_t traps_control;	/* ... during the one getppid() */
	uint64_t reads;
	uint64_t backwards;
	uint64_t failed;
	uint64_t first, last;
	uint32_t kinds[2];
	int stage;		/* how far it got */
	int err;
};

static volatile sig_atomic_t sr_traps;

static void sr_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	sr_traps++;
}

/*
 * From here every system call but exit, exit_group and rt_sigreturn of
 * the calling thread raises SIGSYS (and is not made): the handler counts.
 */
static int sr_trap_syscalls(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigreturn, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sr_sigsys;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSYS, &sa, NULL))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/*
 * Read the set @n times through @read_fn under the trap, then make one
 * system call as the control. Child side; fills @r.
 */
static void sr_trapped_reads(struct sr_report *r,
			     int (*read_fn)(void *ctx, uint64_t *v), void *ctx)
{
	uint64_t v[2], prev[2] = { 0, 0 };
	int i;

	r->stage = 1;
	if (sr_trap_syscalls()) {
		r->err = errno;
		return;
	}
	r->stage = 2;
	for (i = 0; i < SR_READS; i++) {
		if (read_fn(ctx, v)) {
			r->failed++;
			continue;
		}
		if (!r->reads)
			r->first = v[0];
		if (v[0] < prev[0] || v[1] < prev[1])
			r->backwards++;
		prev[0] = v[0];
		prev[1] = v[1];
		r->reads++;
	}
	r->last = prev[0];
	r->traps_loop = sr_traps;
	syscall(SYS_getppid);
	r->traps_control = sr_traps - r->traps_loop;
	r->stage = 3;
}

/* Run @child in a child process with a shared report; its exit status. */
static int sr_in_child(struct sr_report **rp, void (*child)(struct sr_report *))
{
	struct sr_report *r;
	pid_t pid;
	int st;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return -1;
	memset(r, 0, sizeof(*r));
	*rp = r;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		child(r);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void sr_log_report(struct __test_metadata *_metadata,
			  const struct sr_report *r)
{
	TH_LOG("stage %d (err %d): %" PRIu64 " reads, %" PRIu64 " failed, %" PRIu64
	       " backwards, %" PRIu64 " system calls trapped in the loop, %"
	       PRIu64 " in the control; instructions %" PRIu64 " -> %" PRIu64
	       "; kinds %u %u", r->stage, r->err, r->reads, r->failed,
	       r->backwards, r->traps_loop, r->traps_control, r->first,
	       r->last, r->kinds[0], r->kinds[1]);
}

/*
 * Run @child in a child process and check its report: the kinds it saw
 * (@kinds), then no system call in SR_READS reads and one in the control.
 */
static void sr_expect_no_syscall(struct __test_metadata *_metadata,
				 void (*child)(struct sr_report *),
				 const uint32_t kinds[2])
{
	struct sr_report *r;
	int st;

	st = sr_in_child(&r, child);
	ASSERT_LE(0, st);
	sr_log_report(_metadata, r);
	EXPECT_EQ(kinds[0], r->kinds[0]);
	EXPECT_EQ(kinds[1], r->kinds[1]);
	ASSERT_TRUE(WIFEXITED(st)) TH_LOG("child status 0x%x", st);
	ASSERT_EQ(3, r->stage);
	/* The filter traps: the control's one system call was seen. */
	EXPECT_EQ(1U, r->traps_control);
	EXPECT_EQ(0U, r->traps_loop);
	EXPECT_EQ(0U, r->failed);
	EXPECT_EQ((uint64_t)SR_READS, r->reads);
	EXPECT_EQ(0U, r->backwards);
	/* The counters ran: the loop's own instructions, at least. */
	EXPECT_LT(r->first + SR_READS, r->last);
}

/* ------------------------------------------------------------ fixture */

FIXTURE(sr) {
	int old_access;
};

/* Each test returns at once where this skipped: 6.1's harness runs it. */
FIXTURE_SETUP(sr)
{
	self->old_access = -1;
	A64_SKIP_UNLESS_PMUV3();
	if (access(SR_USER_ACCESS, F_OK))
		SKIP(return, "no %s: the kernel gives EL0 no counter access",
		     SR_USER_ACCESS);
	if (pmc_init() < 0)
		SKIP(return, "pmc_init: %s (pmc.ko not loaded?)", strerror(errno));
	self->old_access = sr_sysctl(SR_USER_ACCESS, 1);
	ASSERT_LE(0, self->old_access) TH_LOG("%s: %s", SR_USER_ACCESS,
					       strerror(errno));
}

FIXTURE_TEARDOWN(sr)
{
	if (self->old_access >= 0)
		sr_sysctl(SR_USER_ACCESS, self->old_access);
}

/* ------------------------------------------------------------ pmc(3) */

struct sr_pmc_ctx {
	const struct pmc_selfread_page *pg;
	pmc_id_t ids[2];
};

static int sr_pmc_read(void *ctx, uint64_t *v)
{
	struct sr_pmc_ctx *c = ctx;

	return pmc_selfread(c->pg, 2, c->ids, v);
}

static void sr_pmc_child(struct sr_report *r)
{
	struct sr_pmc_ctx c;
	uint64_t v[2];

	if (sr_pmc(SR_GROUP, PERF_COUNT_HW_INSTRUCTIONS, &c.ids[0]) ||
	    sr_pmc(SR_GROUP, PERF_COUNT_HW_CPU_CYCLES, &c.ids[1])) {
		r->err = errno;
		return;
	}
	c.pg = pmc_selfread_map(SR_GROUP);
	if (!c.pg || pmc_selfread(c.pg, 2, c.ids, v)) {
		r->err = errno;
		return;
	}
	r->kinds[0] = c.pg->ps_entries[0].se_kind;
	r->kinds[1] = c.pg->ps_entries[1].se_kind;
	sr_trapped_reads(r, sr_pmc_read, &c);
}

TEST_F(sr, pmc_selfread_makes_no_system_call)
{
	/* Instructions and cycles, both read from their counters. */
	const uint32_t kinds[2] = { PMC_SELFREAD_RDPMC, PMC_SELFREAD_RDPMC };

	if (_metadata->skip)
		return;
	sr_expect_no_syscall(_metadata, sr_pmc_child, kinds);
}

/* ------------------------------------------------------------ libcpc */

struct sr_cpc_ctx {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
};

static int sr_cpc_read(void *ctx, uint64_t *v)
{
	struct sr_cpc_ctx *c = ctx;

	if (cpc_set_sample(c->cpc, c->set, c->buf))
		return -1;
	cpc_buf_get(c->cpc, c->buf, 0, &v[0]);
	cpc_buf_get(c->cpc, c->buf, 1, &v[1]);
	return 0;
}

static void sr_cpc_child(struct sr_report *r)
{
	struct sr_cpc_ctx c;

	c.cpc = cpc_open(CPC_VER_CURRENT);
	if (!c.cpc) {
		r->err = errno;
		return;
	}
	c.set = cpc_set_create(c.cpc);
	if (!c.set ||
	    cpc_set_add_request(c.cpc, c.set, "instructions", 0,
				CPC_COUNT_USER, 0, NULL) != 0 ||
	    cpc_set_add_request(c.cpc, c.set, "cycles", 0, CPC_COUNT_USER,
				0, NULL) != 1) {
		r->err = errno ? errno : EINVAL;
		return;
	}
	c.buf = cpc_buf_create(c.cpc, c.set);
	if (!c.buf || cpc_bind_curlwp(c.cpc, c.set, 0) ||
	    cpc_set_sample(c.cpc, c.set, c.buf)) {
		r->err = errno;
		return;
	}
	/* 1: the set reads through its page. */
	r->kinds[0] = (uint32_t)cpc_set_selfread(c.cpc, c.set, -1);
	sr_trapped_reads(r, sr_cpc_read, &c);
}

TEST_F(sr, cpc_set_sample_makes_no_system_call)
{
	/* kinds[0]: cpc_set_selfread(-1), 1 when the set has its page. */
	const uint32_t kinds[2] = { 1, 0 };

	if (_metadata->skip)
		return;
	sr_expect_no_syscall(_metadata, sr_cpc_child, kinds);
}

/* ------------------------------------------------------------ hammer */

struct sr_mover {
	pid_t tid;
	atomic_int stop;
	atomic_ulong moves;
};

/* Move the reading thread from CPU to CPU every millisecond. */
static void *sr_move(void *arg)
{
	struct sr_mover *m = arg;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct timespec ms = { 0, 1000000 };
	cpu_set_t set;
	long cpu = 0;

	while (!atomic_load(&m->stop)) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (!sched_setaffinity(m->tid, sizeof(set), &set))
			atomic_fetch_add(&m->moves, 1);
		cpu = (cpu + 1) % ncpu;
		nanosleep(&ms, NULL);
	}
	return NULL;
}

/* Compete for the CPUs: the reader is preempted. */
static void *sr_spin(void *arg)
{
	struct sr_mover *m = arg;
	volatile uint64_t x = 0;

	while (!atomic_load(&m->stop))
		x++;
	return NULL;
}

/*
 * A thread reads its instructions counter through the page as fast as it
 * can while it is moved between the CPUs and preempted by spinners, until
 * the count has crossed three of perf's 2^31-event overflow interrupts
 * (or 120 s): no value is ever below the one before, the page changed
 * thousands of times, and once stopped the page equals PMCREADSET.
 */
TEST_F_TIMEOUT(sr, hammered_rdpmc_is_never_torn_nor_decreasing, 240)
{
	const struct pmc_selfread_page *pg;
	uint64_t v, last = 0, reads = 0, back = 0, rdpmc = 0, w;
	struct sr_mover m = { .tid = (pid_t)syscall(SYS_gettid) };
	pthread_t mover, spin[2];
	time_t end;
	pmc_id_t id;
	int i;

	if (_metadata->skip)
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs: the reader cannot be migrated with one (pmc-vm --smp 2)");
	ASSERT_EQ(0, sr_pmc(SR_GROUP, PERF_COUNT_HW_INSTRUCTIONS, &id))
		TH_LOG("PMC: %s", strerror(errno));
	pg = pmc_selfread_map(SR_GROUP);
	ASSERT_NE(NULL, pg) TH_LOG("map: %s", strerror(errno));
	ASSERT_EQ(0, pthread_create(&mover, NULL, sr_move, &m));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&spin[i], NULL, sr_spin, &m));
	end = time(NULL) + 120;
	while (last < 3 * SR_PERIOD + SR_PERIOD / 2 && time(NULL) < end) {
		for (i = 0; i < 1000; i++) {
			ASSERT_EQ(0, pmc_selfread(pg, 1, &id, &v));
			if (pg->ps_entries[0].se_kind == PMC_SELFREAD_RDPMC)
				rdpmc++;
			if (v < last) {
				back++;
				TH_LOG("went back: %" PRIu64 " after %" PRIu64, v,
				       last);
			}
			last = v;
			reads++;
		}
	}
	atomic_store(&m.stop, 1);
	pthread_join(mover, NULL);
	for (i = 0; i < 2; i++)
		pthread_join(spin[i], NULL);
	TH_LOG("%" PRIu64 " reads (%" PRIu64 " RDPMC), %lu moves, seq %u, instructions %" PRIu64,
	       reads, rdpmc, (unsigned long)atomic_load(&m.moves), pg->ps_seq,
	       last);
	EXPECT_EQ(0U, back);
	EXPECT_LT(100UL, atomic_load(&m.moves));
	EXPECT_LT(1000U, pg->ps_seq);
	EXPECT_LT(reads / 2, rdpmc);
	/* Three overflow interrupts happened while it was read. */
	EXPECT_LE(3 * SR_PERIOD, last);
	ASSERT_EQ(0, pmc_stop(id));
	ASSERT_EQ(0, pmc_selfread(pg, 1, &id, &v));
	ASSERT_EQ(0, pmc_read_set(1, &id, &w, NULL));
	EXPECT_EQ(w, v);
	EXPECT_LE(last, v);
	pmc_selfread_unmap(pg);
	pmc_release(id);
}

/* ------------------------------------------------------------ agree */

/*
 * Page, PMCREADSET, page while running: in order, and the two page reads
 * apart by no more than the user-mode instructions of one PMCREADSET call
 * (the library's side of the system call: a few hundred); stopped, equal.
 * Exact counts need one CPU (QEMU counts the other vCPU's instructions).
 */
TEST_F(sr, page_agrees_with_readset)
{
	const struct pmc_selfread_page *pg;
	uint64_t a, b, w, maxgap = 0;
	pmc_id_t id;
	int i;

	if (_metadata->skip)
		return;
	A64_SKIP_UNLESS_ONE_CPU();
	ASSERT_EQ(0, sr_pmc(SR_GROUP, PERF_COUNT_HW_INSTRUCTIONS, &id))
		TH_LOG("PMC: %s", strerror(errno));
	pg = pmc_selfread_map(SR_GROUP);
	ASSERT_NE(NULL, pg) TH_LOG("map: %s", strerror(errno));
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, pmc_selfread(pg, 1, &id, &a));
		ASSERT_EQ(0, pmc_read_set(1, &id, &w, NULL));
		ASSERT_EQ(0, pmc_selfread(pg, 1, &id, &b));
		EXPECT_EQ((uint32_t)PMC_SELFREAD_RDPMC, pg->ps_entries[0].se_kind);
		ASSERT_LT(a, w);
		ASSERT_LT(w, b);
		if (b - a > maxgap)
			maxgap = b - a;
	}
	TH_LOG("largest page-to-page gap around a PMCREADSET: %" PRIu64
	       " instructions", maxgap);
	EXPECT_GT(2000U, maxgap);
	ASSERT_EQ(0, pmc_stop(id));
	ASSERT_EQ(0, pmc_selfread(pg, 1, &id, &a));
	ASSERT_EQ(0, pmc_read_set(1, &id, &w, NULL));
	EXPECT_EQ((uint32_t)PMC_SELFREAD_STATIC, pg->ps_entries[0].se_kind);
	EXPECT_EQ(w, a);
	pmc_selfread_unmap(pg);
	pmc_release(id);
}

TEST_HARNESS_MAIN
