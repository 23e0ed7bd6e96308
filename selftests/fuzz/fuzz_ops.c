// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ops.c - pmc-fuzz's operations: every /dev/pmc op with random and
 * boundary arguments, bad pointers and short buffers, and what surrounds
 * them (mmap of the ring, poll, read, close, fork, exec, thread exit,
 * target and owner kills, log sinks that stall or close).
 *
 * What an op checks beyond "the kernel said nothing":
 *  - every errno is one pmc(4) and perfmon(4) ERRORS document;
 *  - a call with a bad, short or read-only (for results) buffer fails;
 *  - an unknown ioctl is ENOTTY;
 *  - a new PMC's id carries the mode, class and CPU asked for;
 *  - an unprivileged worker never administers rows, never gets a system
 *    PMC when unprivileged_syspmcs is off, never attaches to root's processes;
 *  - GETCPUINFO and GETPMCINFO describe the machine consistently;
 *  - the mapped ring's control page and every record read from it are
 *    well formed;
 *  - a forked child cannot use its parent's descriptor.
 */
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmc/perfmon.h>
#include <pmc/pmclog.h>
#include <pmc/ring.h>

#define PERF_TYPE_SOFTWARE	1
#define FZ_KERNEL_ADDR		((void *)0xffffffff81000000UL)
#define FZ_NONCANON_ADDR	((void *)0x8000000000001000UL)
#define FZ_EDGE_PAGES		16	/* RW pages before the guard page */

uint64_t fz_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

pid_t fz_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ---------------------------------------------------------------- checks */

/* The errnos pmc(4) and perfmon(4) document, and EINTR (signals). */
static bool fz_errno_documented(int e)
{
	switch (e) {
	case EBADF: case EBUSY: case EEXIST: case EFAULT: case EINVAL:
	case ENOMEM: case ENOTTY: case ENXIO: case EOPNOTSUPP: case EPERM:
	case ESRCH: case EPROTO: case EPROTONOSUPPORT: case EINTR:
		return true;
	}
	return false;
}

static void fz_count(unsigned int op, int ret, int err)
{
	atomic_fetch_add(&fz_sh->op_calls[op], 1);
	if (ret >= 0)
		atomic_fetch_add(&fz_sh->op_ok[op], 1);
	else if (err > 0 && err < FZ_NERRNO)
		atomic_fetch_add(&fz_sh->errnos[err], 1);
}

/* ---------------------------------------------------------------- placement */

/* Where an ioctl's argument struct is put. */
enum fz_place {
	PL_OK, PL_UNALIGNED, PL_RDONLY, PL_SHORT, PL_NULL, PL_PROTNONE,
	PL_KERNEL, PL_NONCANON, PL_N
};

static const char *const fz_place_name[PL_N] = {
	"ok", "unaligned", "read-only", "short", "NULL", "unmapped",
	"kernel", "non-canonical",
};

/* Per-thread buffers for the placements (set up in fz_thread_bufs()). */
static __thread char *fz_rw_view;	/* RW view of a memfd page */
static __thread char *fz_ro_view;	/* ... and its read-only view */
static __thread char *fz_edge;		/* a RW page followed by PROT_NONE */
static __thread char fz_scratch[4096 + 64] __attribute__((aligned(64)));

/* All or nothing (--faults retries it): what was mapped is unmapped on failure. */
static int fz_thread_bufs(size_t page)
{
	size_t two_len = (FZ_EDGE_PAGES + 1) * page;
	int mfd = memfd_create("pmc-fuzz", MFD_CLOEXEC);
	char *two = MAP_FAILED;

	fz_rw_view = fz_ro_view = MAP_FAILED;
	if (mfd < 0)
		return -1;
	if (ftruncate(mfd, (off_t)page))
		goto fail;
	fz_rw_view = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	fz_ro_view = mmap(NULL, page, PROT_READ, MAP_SHARED, mfd, 0);
	two = mmap(NULL, two_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fz_rw_view == MAP_FAILED || fz_ro_view == MAP_FAILED ||
	    two == MAP_FAILED ||
	    mprotect(two + FZ_EDGE_PAGES * page, page, PROT_NONE))
		goto fail;
	close(mfd);
	fz_edge = two + FZ_EDGE_PAGES * page;	/* the guard page; data ends before it */
	return 0;
fail:
	if (fz_rw_view != MAP_FAILED)
		munmap(fz_rw_view, page);
	if (fz_ro_view != MAP_FAILED)
		munmap(fz_ro_view, page);
	if (two != MAP_FAILED)
		munmap(two, two_len);
	close(mfd);
	return -1;
}

/* A bad pointer of kind @pl (PL_NULL .. PL_NONCANON), for nested pointers. */
static void *fz_bad_ptr(struct fz_proc *p, int pl)
{
	switch (pl) {
	case PL_NULL: return NULL;
	case PL_PROTNONE: return p->protnone;
	case PL_KERNEL: return FZ_KERNEL_ADDR;
	default: return FZ_NONCANON_ADDR;
	}
}

/*
 * ioctl(@fd, @cmd) with the @size bytes of @s placed somewhere (mostly
 * where they should be); results are copied back into @s when the
 * placement lets the kernel write them. Returns 0 or the errno, checked.
 */
static int fz_ioctl(struct fz_thread *t, unsigned int op, int fd,
		    unsigned long cmd, void *s, size_t size)
{
	int pl = PL_OK, ret, err;
	size_t cut = 0;
	void *arg = s;

	if (size && fz_chance(&t->rng, 10))
		pl = 1 + (int)fz_below(&t->rng, PL_N - 1);
	switch (pl) {
	case PL_UNALIGNED:
		arg = fz_scratch + 1 + fz_below(&t->rng, 7);
		memcpy(arg, s, size);
		break;
	case PL_RDONLY:
		memcpy(fz_rw_view, s, size);
		arg = fz_ro_view;
		break;
	case PL_SHORT:
		cut = 1 + fz_below(&t->rng, (uint32_t)size - 1 ? (uint32_t)size - 1 : 1);
		if (cut >= size)
			cut = size - 1;
		arg = fz_edge - (size - cut);
		memcpy(arg, s, size - cut);
		break;
	case PL_NULL: case PL_PROTNONE: case PL_KERNEL: case PL_NONCANON:
		arg = fz_bad_ptr(t->p, pl);
		break;
	}
	if (pl != PL_OK)
		atomic_fetch_add(&fz_sh->bad_pointers, pl >= PL_SHORT);

	ret = ioctl(fd, cmd, arg);
	err = ret < 0 ? errno : 0;
	fz_count(op, ret, err);

	if (pl == PL_UNALIGNED || pl == PL_RDONLY)
		memcpy(s, arg, size);

	if (ret < 0 && !fz_errno_documented(err))
		fz_fail("%s (cmd 0x%lx, %s buffer): undocumented errno %d (%s)",
			fz_op_name(op), cmd, fz_place_name[pl], err, strerror(err));
	if (pl >= PL_SHORT && ret >= 0)
		fz_fail("%s (cmd 0x%lx): succeeded with a %s buffer %p (%zu of %zu bytes)",
			fz_op_name(op), cmd, fz_place_name[pl], arg, size - cut, size);
	if (pl == PL_RDONLY && (_IOC_DIR(cmd) & _IOC_READ) && ret >= 0)
		fz_fail("%s (cmd 0x%lx): succeeded though its result could not be written (read-only buffer)",
			fz_op_name(op), cmd);
	if (pl >= PL_SHORT && ret < 0 && err != EFAULT && err != EPERM &&
	    err != ESRCH && err != EBADF && err != EINTR &&
	    !(fz_sh->faults && err == ENOMEM))
		fz_fail("%s (cmd 0x%lx, %s buffer): errno %d (%s), not EFAULT",
			fz_op_name(op), cmd, fz_place_name[pl], err, strerror(err));
	return ret < 0 ? err : 0;
}

/* ---------------------------------------------------------------- ids, pids */

/*
 * A /dev/pmc descriptor of the worker: mostly the one the op's id was
 * allocated on (each open file is an owner of its own), else any.
 */
static int fz_fd(struct fz_thread *t)
{
	t->fd_slot = t->id_slot >= 0 && fz_chance(&t->rng, 80) ? t->id_slot :
		(int)fz_below(&t->rng, FZ_NFD);
	return atomic_load(&t->p->fds[t->fd_slot]);
}

static void fz_note_id(struct fz_thread *t, uint32_t id)
{
	unsigned int i = t->nids < FZ_NID ? t->nids++ : fz_below(&t->rng, FZ_NID);

	t->ids[i].id = id;
	t->ids[i].slot = t->fd_slot;
	t->ids[i].gen = atomic_load(&t->p->fd_gen[t->fd_slot]);
	t->ids[i].live = true;
	atomic_store(&fz_sh->ids[fz_below(&t->rng, FZ_SHARED_IDS)], id);
}

static void fz_forget_id(struct fz_thread *t, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < t->nids; i++)
		if (t->ids[i].id == id)
			t->ids[i].live = false;
}

/*
 * Allocated and not released by this thread, and its descriptor not
 * reopened since (by any thread of the worker: its owner is gone).
 */
static bool fz_id_live(const struct fz_thread *t, const struct fz_id *e)
{
	return e->live && e->gen == atomic_load(&t->p->fd_gen[e->slot]);
}

static uint32_t fz_pick_id(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	unsigned int k = fz_below(r, 100), i;

	if (k < 55 && t->nids) {
		for (i = 0; i < 4; i++) {
			struct fz_id *e = &t->ids[fz_below(r, t->nids)];

			if (fz_id_live(t, e)) {
				t->id_slot = e->slot;
				return e->id;
			}
		}
		k = 60;
	}
	if (k < 65 && t->nids) {
		struct fz_id *e = &t->ids[fz_below(r, t->nids)];	/* maybe released */

		t->id_slot = e->slot;
		return e->id;
	}
	if (k < 82)
		return atomic_load(&fz_sh->ids[fz_below(r, FZ_SHARED_IDS)]);
	if (k < 86)
		return PMC_ID_INVALID;
	if (k < 96)
		return PMC_ID_MAKE_ID(fz_chance(r, 50) ? PMC_ID_CPU_ANY :
				      fz_below(r, (uint32_t)fz_sh->ncpu + 2),
				      fz_below(r, 5), fz_chance(r, 80) ? PMC_CLASS_SOFT :
				      fz_below(r, 16), fz_below(r, fz_sh->nrows + 2));
	return fz_u32(r);
}

static unsigned int fz_live_ids(const struct fz_thread *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->nids; i++)
		n += fz_id_live(t, &t->ids[i]);
	return n;
}

/* A live id of this thread, else any pick. */
static uint32_t fz_pick_live_id(struct fz_thread *t)
{
	unsigned int i, start;

	if (t->nids) {
		start = fz_below(&t->rng, t->nids);
		for (i = 0; i < t->nids; i++) {
			struct fz_id *e = &t->ids[(start + i) % t->nids];

			if (fz_id_live(t, e)) {
				t->id_slot = e->slot;
				return e->id;
			}
		}
	}
	return fz_pick_id(t);
}

static pid_t fz_pick_pid(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct fz_child *c;
	int tid;

	switch (fz_below(r, 14)) {
	case 0: return 0;
	case 1: return getpid();
	case 2: return t->tid;
	case 3: case 4: case 5:
		c = &t->p->children[fz_below(r, FZ_NCHILD)];
		return c->pid > 0 ? c->pid : 0;
	case 6:
		tid = atomic_load(&t->p->tids[fz_below(r, 16)]);
		return tid > 0 ? tid : getpid();
	case 7: return getppid();	/* the master: root */
	case 8: return 1;
	case 9: return -1;
	case 10: return (pid_t)fz_u32(r);
	default:
		tid = atomic_load(&fz_sh->pids[fz_below(r, FZ_SHARED_PIDS)]);
		return tid > 0 ? tid : 0;
	}
}

static void fz_note_pid(struct fz_rng *r, pid_t pid)
{
	atomic_store(&fz_sh->pids[fz_below(r, FZ_SHARED_PIDS)], pid);
}

/* Signals a PMC_F_OVF_SIGNAL PMC may send us: handled ones, and invalid numbers. */
static uint32_t fz_pick_signo(struct fz_rng *r)
{
	static const uint32_t safe[] = { 0, SIGUSR1, SIGUSR2, SIGWINCH, 65, 1000,
					 0xffffffffU };

	if (fz_chance(r, 30))
		return (uint32_t)SIGRTMIN + fz_below(r, (uint32_t)(SIGRTMAX - SIGRTMIN + 1));
	return safe[fz_below(r, sizeof(safe) / sizeof(safe[0]))];
}

/* ---------------------------------------------------------------- PMC ops */

enum {
	OP_ALLOCATE, OP_ATTACH, OP_DETACH, OP_START, OP_STOP, OP_RELEASE, OP_RW,
	OP_SETCOUNT, OP_GETCAPS, OP_GETMSR, OP_READSET, OP_GETPMCINFO,
	OP_GETCPUINFO, OP_DRIVERSTATS, OP_MODVERSION, OP_DYNEVENTINFO, OP_ADMIN,
	OP_CONFIGURELOG, OP_FLUSHLOG, OP_CLOSELOG, OP_WRITELOG, OP_PERFMON,
	OP_BADIOCTL, OP_MMAP, OP_MUNMAP, OP_MREMAP, OP_RINGREAD, OP_POLL,
	OP_FDIO, OP_CLOSEFD, OP_FORK, OP_EXEC, OP_KILL, OP_OWNERKILL,
	OP_THREADEXIT, OP_SPIN, OP_COUNT
};

static void fz_gen_allocate(struct fz_thread *t, struct pmc_op_pmcallocate *pa)
{
	struct fz_rng *r = &t->rng;
	static const uint32_t caps[] = { PMC_CAP_INTERRUPT, PMC_CAP_USER,
		PMC_CAP_SYSTEM, PMC_CAP_READ, PMC_CAP_WRITE, PMC_CAP_EDGE,
		PMC_CAP_PRECISE };
	static const uint32_t flags[] = { PMC_F_DESCENDANTS, PMC_F_LOG_PROCCSW,
		PMC_F_LOG_PROCEXIT, PMC_F_CALLCHAIN, PMC_F_USERCALLCHAIN,
		PMC_F_SNAPSHOT, PMC_F_OVF_SIGNAL };
	unsigned int i;

	memset(pa, 0, sizeof(*pa));
	pa->pm_mode = fz_chance(r, 85) ? fz_below(r, 4) : fz_u32(r);
	switch (fz_below(r, 20)) {
	case 0:
		pa->pm_class = PMC_CLASS_TSC;
		pa->pm_ev = PMC_EV_TSC_TSC;
		break;
	case 1:
		pa->pm_class = (const uint32_t[]){ PMC_CLASS_K8, PMC_CLASS_IAF,
			PMC_CLASS_IAP }[fz_below(r, 3)];
		pa->pm_md.pm_type = fz_below(r, 5);
		pa->pm_md.pm_config = fz_chance(r, 50) ? fz_below(r, 10) : fz_u64(r);
		pa->pm_ev = PMC_EV_GENERIC_FIRST + (uint32_t)pa->pm_md.pm_config;
		break;
	case 2:
		pa->pm_class = fz_u32(r);
		pa->pm_ev = fz_u32(r);
		break;
	default:
		pa->pm_class = PMC_CLASS_SOFT;
		pa->pm_md.pm_type = fz_chance(r, 92) ? PERF_TYPE_SOFTWARE : fz_u32(r);
		pa->pm_md.pm_config = fz_chance(r, 90) ? fz_below(r, 12) : fz_u64(r);
		pa->pm_ev = fz_chance(r, 90) ?
			PMC_EV_SOFT_FIRST + (uint32_t)pa->pm_md.pm_config : fz_u32(r);
		break;
	}
	if (fz_chance(r, 5))
		pa->pm_md.pm_config1 = fz_u64(r);
	if (fz_chance(r, 5))
		pa->pm_md.pm_config2 = fz_u64(r);
	if (fz_chance(r, 3))
		pa->pm_md.pm_pad = fz_u32(r);

	if (fz_chance(r, 90)) {
		for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
			if (fz_chance(r, i < 3 ? 40 : 8))
				pa->pm_caps |= caps[i];
	} else {
		pa->pm_caps = fz_u32(r);
	}
	if (fz_chance(r, 92)) {
		for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
			if (fz_chance(r, 12))
				pa->pm_flags |= flags[i];
	} else {
		pa->pm_flags = fz_u32(r);
	}

	if (PMC_IS_SYSTEM_MODE(pa->pm_mode))
		pa->pm_cpu = fz_chance(r, 85) ? fz_below(r, (uint32_t)fz_sh->ncpu) :
			(fz_chance(r, 50) ? (uint32_t)fz_sh->ncpu + fz_below(r, 2) : fz_u32(r));
	else
		pa->pm_cpu = fz_chance(r, 90) ? PMC_CPU_ANY : fz_u32(r);

	/* Sampling periods in events (ns for the clocks): 0.1 .. 20 ms mostly. */
	if (fz_chance(r, 75))
		pa->pm_count = PMC_IS_SAMPLING_MODE(pa->pm_mode) ?
			100000 + fz_below(r, 20000000) : fz_below(r, 1000);
	else if (fz_chance(r, 50))
		pa->pm_count = fz_sh->mincount - 1 + fz_below(r, 3);
	else
		pa->pm_count = fz_u64(r);

	if (fz_chance(r, 15))
		pa->pm_group = fz_below(r, 4);
	if (fz_chance(r, 10))
		pa->pm_snapshot_us = fz_chance(r, 50) ? PMC_SNAPSHOT_MIN_US +
			fz_below(r, 100000) : fz_u32(r);
	if ((pa->pm_flags & PMC_F_OVF_SIGNAL) || fz_chance(r, 5))
		pa->pm_signo = fz_pick_signo(r);
	if (fz_chance(r, 3))
		pa->pm_reserved[fz_below(r, 4)] = fz_u64(r);
}

/*
 * A request the driver should accept (rows permitting): a SOFT event
 * (task-clock, cpu-clock, page faults, context switches) in a random mode,
 * with the caps, flags, CPU and period that mode takes. Half the
 * allocations are these, so that the ops behind them (attach, start,
 * sampling, logs, exits) run in depth.
 */
static void fz_gen_allocate_valid(struct fz_thread *t, struct pmc_op_pmcallocate *pa)
{
	struct fz_rng *r = &t->rng;
	static const uint64_t configs[] = { 0, 1, 2, 3 };
	uint32_t mode = fz_below(r, 4);

	memset(pa, 0, sizeof(*pa));
	pa->pm_mode = mode;
	pa->pm_class = PMC_CLASS_SOFT;
	pa->pm_md.pm_type = PERF_TYPE_SOFTWARE;
	pa->pm_md.pm_config = configs[fz_below(r, 4)];
	pa->pm_ev = PMC_EV_SOFT_FIRST + (uint32_t)pa->pm_md.pm_config;
	pa->pm_caps = PMC_CAP_USER | PMC_CAP_SYSTEM |
		(PMC_IS_SAMPLING_MODE(mode) ? PMC_CAP_INTERRUPT : 0);
	pa->pm_cpu = PMC_IS_SYSTEM_MODE(mode) ? fz_below(r, (uint32_t)fz_sh->ncpu) :
		PMC_CPU_ANY;
	if (PMC_IS_SAMPLING_MODE(mode)) {
		/* Periods of the clocks in ns: 0.2 .. 10 ms. */
		pa->pm_count = pa->pm_md.pm_config <= 1 ? 200000 + fz_below(r, 9800000) :
			1 + fz_below(r, 100);
		if (fz_chance(r, 50))
			pa->pm_flags |= PMC_F_CALLCHAIN;
		if (fz_chance(r, 20))
			pa->pm_flags |= PMC_F_USERCALLCHAIN;
	}
	if (PMC_IS_VIRTUAL_MODE(mode)) {
		if (fz_chance(r, 30))
			pa->pm_flags |= PMC_F_DESCENDANTS;
		if (fz_chance(r, 15))
			pa->pm_flags |= PMC_F_LOG_PROCCSW;
		if (fz_chance(r, 15))
			pa->pm_flags |= PMC_F_LOG_PROCEXIT;
	}
	if (mode == PMC_MODE_TC && fz_chance(r, 15)) {
		pa->pm_flags |= PMC_F_OVF_SIGNAL;
		pa->pm_count = -(uint64_t)(100000 + fz_below(r, 10000000));
		/* One the workers catch (fuzz_main.c). */
		pa->pm_signo = fz_chance(r, 50) ? (fz_chance(r, 50) ? SIGUSR1 : SIGUSR2) :
			(uint32_t)SIGRTMIN + fz_below(r, 4);
		pa->pm_group = fz_below(r, 3);
	}
}

static void fz_op_allocate(struct fz_thread *t)
{
	struct pmc_op_pmcallocate pa, in;
	uint32_t id;
	int err;

	if (fz_chance(&t->rng, 50))
		fz_gen_allocate_valid(t, &pa);
	else
		fz_gen_allocate(t, &pa);
	in = pa;
	err = fz_ioctl(t, OP_ALLOCATE, fz_fd(t), PMC_IOC_PMCALLOCATE, &pa, sizeof(pa));
	if (err)
		return;
	id = pa.pm_pmcid;
	fz_note_id(t, id);
	if (PMC_ID_TO_MODE(id) != in.pm_mode || PMC_ID_TO_CLASS(id) != in.pm_class ||
	    PMC_ID_TO_CPU(id) != (PMC_IS_SYSTEM_MODE(in.pm_mode) ?
				  (in.pm_cpu & 0xfff) : PMC_ID_CPU_ANY))
		fz_fail("PMCALLOCATE mode %u class 0x%x cpu %u: id 0x%08x does not say so",
			in.pm_mode, in.pm_class, in.pm_cpu, id);
	if (in.pm_reserved[0] | in.pm_reserved[1] | in.pm_reserved[2] |
	    in.pm_reserved[3])
		fz_fail("PMCALLOCATE with a non-zero pm_reserved succeeded (id 0x%08x)", id);
	if (t->p->unpriv && PMC_IS_SYSTEM_MODE(in.pm_mode) && !fz_sh_unpriv_sys())
		fz_fail("PMCALLOCATE: uid 65534 got system-mode PMC 0x%08x with unprivileged_syspmcs=0",
			id);
}

static void fz_op_attach(struct fz_thread *t, bool detach)
{
	struct fz_rng *r = &t->rng;
	struct pmc_op_pmcattach a = {
		.pm_pmc = fz_pick_id(t),
		.pm_pid = fz_pick_pid(t),
	};
	unsigned int k = fz_below(r, 20);
	int err;

	/* Mostly a sensible pair: a live PMC of ours and us or a child. */
	if (fz_chance(r, 50)) {
		struct fz_child *c = &t->p->children[fz_below(r, FZ_NCHILD)];

		a.pm_pmc = fz_pick_live_id(t);
		a.pm_pid = fz_chance(r, 60) || c->pid <= 0 ? 0 : c->pid;
	}

	a.pm_flags = k < 13 ? 0 : k < 16 ? PMC_ATTACH_F_THREAD :
		k < 19 ? PMC_ATTACH_F_THREAD | PMC_ATTACH_F_INHERIT : fz_u32(r);
	if (fz_chance(r, 2))
		a.pm_pad = fz_u32(r);
	err = fz_ioctl(t, detach ? OP_DETACH : OP_ATTACH, fz_fd(t),
		       detach ? PMC_IOC_PMCDETACH : PMC_IOC_PMCATTACH, &a, sizeof(a));
	if (!err && !detach && t->p->unpriv && (a.pm_pid == 1 || a.pm_pid == getppid()))
		fz_fail("PMCATTACH: uid 65534 attached PMC 0x%08x to root's pid %d",
			a.pm_pmc, a.pm_pid);
}

static void fz_op_simple(struct fz_thread *t, unsigned int op, unsigned long cmd)
{
	struct pmc_op_simple s = { .pm_pmcid = fz_chance(&t->rng, 50) ?
		fz_pick_live_id(t) : fz_pick_id(t) };

	int err;

	if (fz_chance(&t->rng, 2))
		s.pm_pad = fz_u32(&t->rng);
	err = fz_ioctl(t, op, fz_fd(t), cmd, &s, sizeof(s));
	/* Released, or not (or no longer) an id of that owner. */
	if (op == OP_RELEASE && (!err || (err == EINVAL && !s.pm_pad &&
					  t->fd_slot == t->id_slot)))
		fz_forget_id(t, s.pm_pmcid);
}

static void fz_op_rw(struct fz_thread *t)
{
	static const uint32_t fl[] = { PMC_F_OLDVALUE, PMC_F_NEWVALUE,
		PMC_F_OLDVALUE | PMC_F_NEWVALUE, 0 };
	struct pmc_op_pmcrw rw = {
		.pm_pmcid = fz_pick_id(t),
		.pm_value = fz_u64(&t->rng),
	};

	rw.pm_flags = fz_chance(&t->rng, 95) ? fl[fz_below(&t->rng, 4)] : fz_u32(&t->rng);
	fz_ioctl(t, OP_RW, fz_fd(t), PMC_IOC_PMCRW, &rw, sizeof(rw));
}

static void fz_op_setcount(struct fz_thread *t)
{
	struct pmc_op_pmcsetcount sc = {
		.pm_pmcid = fz_pick_id(t),
		.pm_count = fz_chance(&t->rng, 50) ? 100000 + fz_below(&t->rng, 1000000) :
			fz_u64(&t->rng),
	};

	fz_ioctl(t, OP_SETCOUNT, fz_fd(t), PMC_IOC_PMCSETCOUNT, &sc, sizeof(sc));
}

static void fz_op_getcaps(struct fz_thread *t, bool msr)
{
	struct pmc_op_caps c = { .pm_pmcid = fz_pick_id(t), .pm_caps = fz_u32(&t->rng) };
	struct pmc_op_getmsr m = { .pm_pmcid = fz_pick_id(t), .pm_msr = fz_u32(&t->rng) };

	if (msr)
		fz_ioctl(t, OP_GETMSR, fz_fd(t), PMC_IOC_PMCGETMSR, &m, sizeof(m));
	else
		fz_ioctl(t, OP_GETCAPS, fz_fd(t), PMC_IOC_GETCAPS, &c, sizeof(c));
}

/* What fz_array() gave: room for the elements, too little, or a bad pointer. */
enum { ARR_OK, ARR_SHORT, ARR_BAD };

/*
 * A user array of @n elements of @size for a nested pointer: ending exactly
 * on the thread's guard page, a few bytes short of that, or a bad pointer
 * (*@kind says which).
 */
static void *fz_array(struct fz_thread *t, size_t size, uint32_t n, int *kind)
{
	size_t len = (size_t)n * size;
	unsigned int k = fz_below(&t->rng, 100);

	*kind = ARR_OK;
	if (len > FZ_EDGE_PAGES * t->p->page)
		len = FZ_EDGE_PAGES * t->p->page;
	if (k < 88)
		return fz_edge - len;
	if (k < 92 && len > 1) {
		*kind = ARR_SHORT;
		return fz_edge - len + 1 + fz_below(&t->rng, (uint32_t)len - 1);
	}
	*kind = ARR_BAD;
	return fz_bad_ptr(t->p, PL_NULL + (int)fz_below(&t->rng, 4));
}

/* Did a call that succeeded need more of the array than it had? */
static bool fz_array_misused(int kind, uint32_t cap, uint32_t used)
{
	uint32_t need = cap < used ? cap : used;

	return (kind == ARR_BAD && need) || (kind == ARR_SHORT && need && cap <= used);
}

static void fz_op_readset(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct pmc_op_pmcreadset rs;
	int ids_kind = ARR_OK, vals_kind;
	uint32_t *ids, n, i;
	int err;

	n = fz_chance(r, 80) ? 1 + fz_below(r, 8) :
		fz_chance(r, 50) ? PMC_READSET_MAX - 1 + fz_below(r, 3) : fz_u32(r);
	memset(&rs, 0, sizeof(rs));
	rs.pm_count = n;
	if (fz_chance(r, 3))
		rs.pm_flags = fz_u32(r);
	/* The ids in the scratch buffer (after a misplaced struct), the values on the edge. */
	ids = (uint32_t *)(void *)(fz_scratch + 512);
	if (n <= 512 && fz_chance(r, 92)) {
		for (i = 0; i < n; i++)
			ids[i] = fz_pick_id(t);
	} else {
		ids = fz_bad_ptr(t->p, PL_NULL + (int)fz_below(r, 4));
		ids_kind = ARR_BAD;
	}
	rs.pm_ids = (uint64_t)(uintptr_t)ids;
	rs.pm_values = (uint64_t)(uintptr_t)fz_array(t, sizeof(uint64_t),
						     n <= 512 ? n : 512, &vals_kind);
	if (n > 512 && vals_kind == ARR_OK)
		vals_kind = ARR_SHORT;
	err = fz_ioctl(t, OP_READSET, fz_fd(t), PMC_IOC_PMCREADSET, &rs, sizeof(rs));
	if (!err && n && (ids_kind != ARR_OK || vals_kind != ARR_OK))
		fz_fail("PMCREADSET of %u ids succeeded with ids %p values %p",
			n, (void *)(uintptr_t)rs.pm_ids, (void *)(uintptr_t)rs.pm_values);
	if (!err && n > PMC_READSET_MAX)
		fz_fail("PMCREADSET of %u ids (max %u) succeeded", n, PMC_READSET_MAX);
}

static void fz_op_getpmcinfo(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct pmc_op_getpmcinfo gi = { 0 };
	struct pmc_info *info;
	uint32_t cap, i, max = (uint32_t)(FZ_EDGE_PAGES * t->p->page / sizeof(*info));
	int kind, err;

	gi.pm_cpu = fz_chance(r, 85) ? (int32_t)fz_below(r, (uint32_t)fz_sh->ncpu) :
		(int32_t)fz_u32(r);
	cap = fz_chance(r, 70) ? fz_sh->nrows : fz_chance(r, 50) ? fz_below(r, max + 1) :
		fz_u32(r);
	gi.pm_npmc = cap;
	info = fz_array(t, sizeof(*info), cap < max ? cap : max, &kind);
	gi.pm_pmcs = (uint64_t)(uintptr_t)info;
	err = fz_ioctl(t, OP_GETPMCINFO, fz_fd(t), PMC_IOC_GETPMCINFO, &gi, sizeof(gi));
	if (err)
		return;
	if ((uint32_t)gi.pm_cpu < (uint32_t)fz_sh->ncpu && gi.pm_npmc != fz_sh->nrows)
		fz_fail("GETPMCINFO cpu %d: %u rows, GETCPUINFO said %u",
			gi.pm_cpu, gi.pm_npmc, fz_sh->nrows);
	if (fz_array_misused(kind, cap, gi.pm_npmc))
		fz_fail("GETPMCINFO cpu %d: succeeded with a bad array %p (capacity %u, %u rows)",
			gi.pm_cpu, (void *)info, cap, gi.pm_npmc);
	if (kind != ARR_OK || cap > max)
		return;
	for (i = 0; i < cap && i < gi.pm_npmc; i++)
		if (info[i].pm_state >= PMC_STATE_MAX || info[i].pm_rowdisp > PMC_DISP_UNKNOWN ||
		    !memchr(info[i].pm_name, 0, sizeof(info[i].pm_name)))
			fz_fail("GETPMCINFO cpu %d row %u: state %u disp %u or name not terminated",
				gi.pm_cpu, i, info[i].pm_state, info[i].pm_rowdisp);
}

static void fz_op_info(struct fz_thread *t, unsigned int op)
{
	struct fz_rng *r = &t->rng;
	union {
		struct pmc_op_getcpuinfo ci;
		struct pmc_op_getdriverstats ds;
		struct pmc_op_getmoduleversion mv;
		struct pmc_op_getdyneventinfo de;
	} u;
	int kind = ARR_OK, err;
	uint32_t cap;

	memset(&u, 0, sizeof(u));
	switch (op) {
	case OP_GETCPUINFO:
		err = fz_ioctl(t, op, fz_fd(t), PMC_IOC_GETCPUINFO, &u.ci, sizeof(u.ci));
		if (!err && (u.ci.pm_npmc != fz_sh->nrows || u.ci.pm_nclass > PMC_CLASS_MAX ||
			     (int)u.ci.pm_ncpu != fz_sh->ncpu))
			fz_fail("GETCPUINFO: npmc %u (was %u), nclass %u, ncpu %u (was %d)",
				u.ci.pm_npmc, fz_sh->nrows, u.ci.pm_nclass, u.ci.pm_ncpu,
				fz_sh->ncpu);
		break;
	case OP_DRIVERSTATS:
		fz_ioctl(t, op, fz_fd(t), PMC_IOC_GETDRIVERSTATS, &u.ds, sizeof(u.ds));
		break;
	case OP_MODVERSION:
		u.mv.pm_version = fz_chance(r, 50) ? PMC_VERSION : fz_u32(r);
		if (fz_chance(r, 3))
			u.mv.pm_pad = fz_u32(r);
		fz_ioctl(t, op, fz_fd(t), PMC_IOC_GETMODULEVERSION, &u.mv, sizeof(u.mv));
		break;
	default:
		u.de.pm_class = fz_chance(r, 70) ? PMC_CLASS_SOFT : fz_chance(r, 50) ?
			(const uint32_t[]){ PMC_CLASS_TSC, PMC_CLASS_K8, PMC_CLASS_IAF,
			PMC_CLASS_IAP }[fz_below(r, 4)] : fz_u32(r);
		cap = fz_chance(r, 80) ? fz_below(r, 40) : fz_u32(r);
		u.de.pm_nevent = cap;
		u.de.pm_events = (uint64_t)(uintptr_t)fz_array(t,
			sizeof(struct pmc_dyn_event_descr), cap < 40 ? cap : 40, &kind);
		err = fz_ioctl(t, op, fz_fd(t), PMC_IOC_GETDYNEVENTINFO, &u.de, sizeof(u.de));
		if (!err && fz_array_misused(kind, cap, u.de.pm_nevent) && cap <= 40)
			fz_fail("GETDYNEVENTINFO class 0x%x: succeeded with a bad array %p (capacity %u)",
				u.de.pm_class, (void *)(uintptr_t)u.de.pm_events, cap);
		break;
	}
}

static void fz_op_admin(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct pmc_op_pmcadmin a = {
		.pm_cpu = fz_chance(r, 85) ? (int32_t)fz_below(r, (uint32_t)fz_sh->ncpu) :
			(int32_t)fz_u32(r),
		.pm_pmc = fz_chance(r, 85) ? (int32_t)fz_below(r, fz_sh->nrows) :
			(int32_t)fz_u32(r),
		.pm_state = fz_chance(r, 90) ? (fz_chance(r, 60) ? PMC_STATE_FREE :
			PMC_STATE_DISABLED) : fz_u32(r),
		.pm_flags = fz_chance(r, 95) ? 0 : fz_u32(r),
	};

	if (!fz_ioctl(t, OP_ADMIN, fz_fd(t), PMC_IOC_PMCADMIN, &a, sizeof(a)) &&
	    t->p->unpriv)
		fz_fail("PMCADMIN cpu %d row %d state %u succeeded for uid 65534",
			a.pm_cpu, a.pm_pmc, a.pm_state);
}

/* ---------------------------------------------------------------- logs */

enum { SINK_PIPE, SINK_SOCKET, SINK_FILE, SINK_DEVNULL, SINK_DEVFULL,
       SINK_RDONLY, SINK_BADFD, SINK_NONE, SINK_PMCFD, SINK_N };

/* Keep @rfd (the reading end) for the sink thread; the oldest goes. */
static void fz_sink_add(struct fz_proc *p, struct fz_rng *r, int rfd, int kind)
{
	uint64_t now = fz_now_ns();
	struct fz_sink *s;
	unsigned int i, best = 0;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < FZ_NSINK; i++) {
		if (p->sinks[i].rfd < 0) {
			best = i;
			break;
		}
		if (p->sinks[i].close_at < p->sinks[best].close_at)
			best = i;
	}
	s = &p->sinks[best];
	if (s->rfd >= 0)
		close(s->rfd);
	s->rfd = rfd;
	s->kind = kind;
	/* Drained at once, after a stall (the writer blocks), or never: closed. */
	s->stall_until = now + (fz_chance(r, 50) ? 0 : fz_below(r, 100) * 1000000ULL);
	s->close_at = fz_chance(r, 30) ? now + fz_below(r, 200) * 1000000ULL : UINT64_MAX;
	pthread_mutex_unlock(&p->lock);
}

void fz_sinks_service(struct fz_proc *p)
{
	static char buf[65536];
	uint64_t now = fz_now_ns();
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < FZ_NSINK; i++) {
		struct fz_sink *s = &p->sinks[i];

		if (s->rfd < 0)
			continue;
		if (now >= s->close_at) {
			close(s->rfd);
			s->rfd = -1;
			continue;
		}
		if (now < s->stall_until)
			continue;
		if (s->kind == SINK_FILE) {
			if (ftruncate(s->rfd, 0) < 0)
				continue;
			continue;
		}
		while (read(s->rfd, buf, sizeof(buf)) > 0)
			;
	}
	pthread_mutex_unlock(&p->lock);
}

static void fz_op_configurelog(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct pmc_op_configurelog cl = { 0 };
	int kind = (int)fz_below(r, SINK_N), fds[2] = { -1, -1 }, wfd = -1, err;
	char path[64];

	switch (kind) {
	case SINK_PIPE:
		if (pipe2(fds, O_CLOEXEC | O_NONBLOCK))
			return;
		/* The writing end blocks: only our reading end is non-blocking. */
		fcntl(fds[1], F_SETFL, 0);
		wfd = fds[1];
		break;
	case SINK_SOCKET:
		if (socketpair(AF_UNIX, fz_chance(r, 50) ? SOCK_STREAM : SOCK_SEQPACKET,
			       0, fds))
			return;
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
		wfd = fds[1];
		break;
	case SINK_FILE:
		snprintf(path, sizeof(path), "/tmp/pmc-fuzz.%d.%d", getpid(), t->index);
		wfd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC |
			   (fz_chance(r, 30) ? O_APPEND : 0), 0600);
		if (wfd < 0)
			return;
		unlink(path);
		fds[0] = fcntl(wfd, F_DUPFD_CLOEXEC, 0);
		break;
	case SINK_DEVNULL:
		wfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		break;
	case SINK_DEVFULL:
		wfd = open("/dev/full", O_WRONLY | O_CLOEXEC);
		break;
	case SINK_RDONLY:
		wfd = open(fz_chance(r, 50) ? "/dev/null" : "/", O_RDONLY | O_CLOEXEC);
		break;
	case SINK_BADFD:
		/* Never a small number: that could be our stdout. */
		cl.pm_logfd = (const int32_t[]){ 1000 + (int32_t)fz_below(r, 1000), -2,
			INT32_MIN, INT32_MAX }[fz_below(r, 4)];
		break;
	case SINK_NONE:
		cl.pm_logfd = -1;
		break;
	case SINK_PMCFD:
		cl.pm_logfd = fz_fd(t);
		break;
	}
	if (wfd >= 0)
		cl.pm_logfd = wfd;
	if (fz_chance(r, 3))
		cl.pm_flags = fz_u32(r);
	atomic_fetch_add(&fz_sh->logs, 1);
	err = fz_ioctl(t, OP_CONFIGURELOG, fz_fd(t), PMC_IOC_CONFIGURELOG, &cl, sizeof(cl));
	if (!err && (kind == SINK_RDONLY || kind == SINK_PMCFD || kind == SINK_BADFD))
		fz_fail("CONFIGURELOG succeeded with descriptor %d (%s)", cl.pm_logfd,
			kind == SINK_RDONLY ? "read-only" : kind == SINK_PMCFD ?
			"/dev/pmc" : "not open");
	if (wfd >= 0)
		close(wfd);
	if (fds[0] >= 0)
		fz_sink_add(t->p, r, fds[0], kind);
}

static void fz_op_nullary(struct fz_thread *t, unsigned int op, unsigned long cmd)
{
	int ret = ioctl(fz_fd(t), cmd, fz_chance(&t->rng, 50) ? NULL : FZ_KERNEL_ADDR);
	int err = ret < 0 ? errno : 0;

	fz_count(op, ret, err);
	/* They also return the log writer's error: what write(2) may give. */
	if (ret < 0 && !fz_errno_documented(err) && err != ENOSPC && err != EPIPE &&
	    err != EIO && err != EAGAIN && err != EFBIG && err != EDQUOT &&
	    err != EMSGSIZE && err != ECONNRESET && err != ENOTCONN && err != ENOBUFS)
		fz_fail("%s: errno %d (%s) is neither documented nor a write(2) error",
			fz_op_name(op), err, strerror(err));
}

static void fz_op_writelog(struct fz_thread *t)
{
	struct pmc_op_writelog w = { .pm_userdata = fz_u32(&t->rng) };

	if (fz_chance(&t->rng, 3))
		w.pm_pad = fz_u32(&t->rng);
	fz_ioctl(t, OP_WRITELOG, fz_fd(t), PMC_IOC_WRITELOG, &w, sizeof(w));
}

/* ---------------------------------------------------------------- perfmon, bad ioctls */

static void fz_op_perfmon(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	union {
		struct pmc pmc;
		struct pmc_data d;
		struct pmc_tstamp ts;
		int32_t num;
	} u;
	static const unsigned long cmds[] = { PMIOSETUP, PMIOSTART, PMIOSTOP,
		PMIOREAD, PMIORESET, PMIOTSTAMP, PMIOGET };
	static const size_t sizes[] = { sizeof(struct pmc), sizeof(int32_t),
		sizeof(int32_t), sizeof(struct pmc_data), sizeof(int32_t),
		sizeof(struct pmc_tstamp), sizeof(struct pmc) };
	unsigned int k = fz_below(r, 7);
	int32_t num = fz_chance(r, 85) ? (int32_t)fz_below(r, 4) - 1 : (int32_t)fz_u32(r);

	memset(&u, 0, sizeof(u));
	switch (k) {
	case 0: case 6:
		u.pmc.pmc_num = num;
		u.pmc.pmc_val = fz_chance(r, 50) ? fz_u32(r) :
			(uint32_t)fz_below(r, 256) | (PMCF_USR | PMCF_OS) << 16;
		break;
	case 3:
		u.d.pmcd_num = num;
		break;
	case 5:
		break;
	default:
		u.num = num;
		break;
	}
	fz_ioctl(t, OP_PERFMON, fz_fd(t), cmds[k], &u, sizes[k]);
}

static bool fz_known_cmd(unsigned long cmd)
{
	static const unsigned long known[] = {
		PMC_IOC_CONFIGURELOG, PMC_IOC_FLUSHLOG, PMC_IOC_GETCPUINFO,
		PMC_IOC_GETDRIVERSTATS, PMC_IOC_GETMODULEVERSION, PMC_IOC_GETPMCINFO,
		PMC_IOC_PMCADMIN, PMC_IOC_PMCALLOCATE, PMC_IOC_PMCATTACH,
		PMC_IOC_PMCDETACH, PMC_IOC_PMCGETMSR, PMC_IOC_PMCRELEASE,
		PMC_IOC_PMCRW, PMC_IOC_PMCSETCOUNT, PMC_IOC_PMCSTART,
		PMC_IOC_PMCSTOP, PMC_IOC_WRITELOG, PMC_IOC_CLOSELOG,
		PMC_IOC_GETDYNEVENTINFO, PMC_IOC_GETCAPS, PMC_IOC_PMCREADSET,
		PMIOSETUP, PMIOSTART, PMIOSTOP, PMIOREAD, PMIORESET, PMIOTSTAMP,
		PMIOGET,
	};
	unsigned int i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i] == cmd)
			return true;
	return false;
}

static void fz_op_badioctl(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	unsigned long cmd;
	int ret, err;

	/* Known numbers with the wrong size or direction, and unknown ones. */
	cmd = _IOC(fz_below(r, 4), fz_chance(r, 45) ? 'P' : fz_chance(r, 60) ? '5' :
		   fz_below(r, 256), fz_chance(r, 70) ? fz_below(r, 40) : fz_below(r, 256),
		   fz_chance(r, 50) ? fz_below(r, 300) : fz_below(r, 1 << 14));
	if (fz_chance(r, 2))
		cmd = fz_next(r);
	ret = ioctl(fz_fd(t), cmd, fz_chance(r, 90) ? (void *)fz_scratch :
		    fz_bad_ptr(t->p, PL_NULL + (int)fz_below(r, 4)));
	err = ret < 0 ? errno : 0;
	fz_count(OP_BADIOCTL, ret, err);
	if (fz_known_cmd(cmd & 0xffffffffUL))
		return;
	if (ret >= 0)
		fz_fail("unknown ioctl 0x%lx succeeded", cmd);
	else if (err != ENOTTY && err != EBADF)
		fz_fail("unknown ioctl 0x%lx: errno %d (%s), not ENOTTY", cmd, err, strerror(err));
}

/* ---------------------------------------------------------------- mmap */

static void fz_op_mmap(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct fz_proc *p = t->p;
	size_t pg = p->page, npages, len;
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED, err, i, slot = -1;
	bool good;
	off_t off = 0;
	void *a;

	if (fz_chance(r, 85))
		len = (1 + (1UL << fz_below(r, 6))) * pg;
	else if (fz_chance(r, 70))
		len = (1 + fz_below(r, 40)) * pg;
	else
		len = pg * (1 + fz_below(r, 3)) + 1 + fz_below(r, (uint32_t)pg - 1);
	npages = (len + pg - 1) / pg - 1;	/* data pages, as the kernel sees them */
	if (fz_chance(r, 8))
		off = (off_t)(fz_chance(r, 50) ? PMC_MMAP_SELFREAD_OFFSET(fz_below(r, 4), pg) :
			      pg * fz_below(r, 64));
	if (fz_chance(r, 6))
		prot = (const int[]){ PROT_READ, PROT_WRITE, PROT_READ | PROT_WRITE | PROT_EXEC,
			PROT_NONE }[fz_below(r, 4)];
	if (fz_chance(r, 5))
		flags = MAP_PRIVATE;
	good = npages && !(npages & (npages - 1)) && !off && flags == MAP_SHARED &&
		prot == (PROT_READ | PROT_WRITE);

	pthread_rwlock_wrlock(&p->map_lock);
	for (i = 0; i < FZ_NMAP; i++)
		if (!p->maps[i].addr) {
			slot = i;
			break;
		}
	if (slot < 0) {
		pthread_rwlock_unlock(&p->map_lock);
		return;
	}
	a = mmap(NULL, len, prot, flags, fz_fd(t), off);
	err = a == MAP_FAILED ? errno : 0;
	fz_count(OP_MMAP, a == MAP_FAILED ? -1 : 0, err);
	atomic_fetch_add(&fz_sh->maps, 1);
	if (a == MAP_FAILED) {
		pthread_rwlock_unlock(&p->map_lock);
		if (err != EINVAL && err != EPERM && err != EBUSY && err != ENOMEM &&
		    err != ESRCH && err != EACCES && err != EBADF)
			fz_fail("mmap of %zu bytes at offset %lld prot %d flags %d: errno %d (%s)",
				len, (long long)off, prot, flags, err, strerror(err));
		return;
	}
	p->maps[slot] = (struct fz_map){ .addr = a, .len = (npages + 1) * pg, .ring = good };
	/* Another offset is a self-read page: one page, read-only, of a set. */
	if (!good && (off < (off_t)(PMC_MMAP_SELFREAD_PGOFF * pg) || npages ||
		      (prot & PROT_WRITE) || flags != MAP_SHARED))
		fz_fail("mmap of %zu bytes (%zu data pages) at offset %lld prot %d flags %d succeeded",
			len, npages, (long long)off, prot, flags);
	if (good) {
		const struct pmc_ring_page *rp = a;

		if (rp->pr_version != PMC_RING_VERSION || rp->pr_page_size != pg ||
		    rp->pr_data_offset != pg || rp->pr_data_size != npages * pg)
			fz_fail("ring control page: version %u page %u data at %llu size %llu (%zu pages mapped)",
				rp->pr_version, rp->pr_page_size,
				(unsigned long long)rp->pr_data_offset,
				(unsigned long long)rp->pr_data_size, npages);
	}
	pthread_rwlock_unlock(&p->map_lock);
}

static void fz_op_munmap(struct fz_thread *t, bool remap)
{
	struct fz_rng *r = &t->rng;
	struct fz_proc *p = t->p;
	struct fz_map *m = &p->maps[fz_below(r, FZ_NMAP)];
	size_t pg = p->page, npg;
	void *n;

	pthread_rwlock_wrlock(&p->map_lock);
	if (!m->addr)
		goto out;
	npg = m->len / pg;
	if (remap) {
		/* Growing a VM_DONTEXPAND mapping fails; moving it works. */
		if (fz_chance(r, 50)) {
			n = mremap(m->addr, m->len, m->len + pg, MREMAP_MAYMOVE);
			if (n != MAP_FAILED) {
				fz_fail("mremap grew a /dev/pmc mapping of %zu bytes (VM_DONTEXPAND)",
					m->len);
				m->addr = n;
				m->len += pg;
				m->ring = false;
				m->damaged = true;
			}
		} else {
			/* Move it onto a reservation of ours. */
			void *to = mmap(NULL, m->len, PROT_NONE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			n = MAP_FAILED;
			if (to != MAP_FAILED) {
				n = mremap(m->addr, m->len, m->len,
					   MREMAP_MAYMOVE | MREMAP_FIXED, to);
				if (n == MAP_FAILED)
					munmap(to, m->len);
				else
					m->addr = n;
			}
		}
		fz_count(OP_MREMAP, n == MAP_FAILED ? -1 : 0, n == MAP_FAILED ? errno : 0);
		goto out;
	}
	if (npg > 1 && fz_chance(r, 30)) {
		/*
		 * A piece: the first, the last or a middle page. What stays
		 * mapped is kept as one or two pieces (never a range with a
		 * hole that a later mmap could fill and a later munmap clear).
		 */
		size_t i = fz_below(r, (uint32_t)npg), j;
		struct fz_map rest = { .addr = (char *)m->addr + (i + 1) * pg,
				       .len = (npg - i - 1) * pg, .damaged = true };

		munmap((char *)m->addr + i * pg, pg);
		m->len = i * pg;
		m->damaged = true;
		m->ring = false;
		if (!m->len) {
			*m = rest;	/* the first page went: the rest is all */
			rest.len = 0;
		}
		if (rest.len) {
			for (j = 0; j < FZ_NMAP && p->maps[j].addr; j++)
				;
			if (j < FZ_NMAP)
				p->maps[j] = rest;
			else
				munmap(rest.addr, rest.len);
		}
	} else {
		munmap(m->addr, m->len);
		m->addr = NULL;
	}
	fz_count(OP_MUNMAP, 0, 0);
out:
	pthread_rwlock_unlock(&p->map_lock);
}

/* Copy @n bytes at ring offset @pos (wrapping) out of the data area. */
static void fz_ring_copy(const char *data, uint64_t size, uint64_t pos, void *out,
			 size_t n)
{
	size_t first = (size_t)(size - (pos & (size - 1)));

	if (first > n)
		first = n;
	memcpy(out, data + (pos & (size - 1)), first);
	memcpy((char *)out + first, data, n - first);
}

static void fz_op_ringread(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	struct fz_proc *p = t->p;
	struct fz_map *m = &p->maps[fz_below(r, FZ_NMAP)];
	struct pmc_ring_page *rp;
	struct pmclog_header h;
	uint64_t head, tail, size, pos;
	const char *data;
	uint32_t len;
	unsigned int i;

	pthread_rwlock_rdlock(&p->map_lock);
	pthread_mutex_lock(&p->lock);
	if (!m->addr || !m->ring || m->damaged)
		goto out;
	rp = m->addr;
	data = (const char *)m->addr + p->page;
	size = rp->pr_data_size;
	if (size != m->len - p->page || rp->pr_data_offset != p->page) {
		fz_fail("ring control page changed: data at %llu, %llu bytes (%zu mapped)",
			(unsigned long long)rp->pr_data_offset, (unsigned long long)size,
			m->len - p->page);
		m->damaged = true;
		goto out;
	}
	head = __atomic_load_n(&rp->pr_data_head, __ATOMIC_ACQUIRE);
	tail = rp->pr_data_tail;
	fz_count(OP_RINGREAD, 0, 0);
	/* A bogus tail we wrote (through this or another mapping of the ring). */
	for (i = 0; i < FZ_NBOGUS; i++)
		if (p->bogus[i] == tail && tail)
			break;
	if (m->untrusted || i < FZ_NBOGUS) {
		__atomic_store_n(&rp->pr_data_tail, head, __ATOMIC_RELEASE);
		m->untrusted = false;
		goto out;
	}
	if (head - tail > size) {
		fz_fail("ring: head %llu tail %llu: more than its %llu bytes",
			(unsigned long long)head, (unsigned long long)tail,
			(unsigned long long)size);
		__atomic_store_n(&rp->pr_data_tail, head, __ATOMIC_RELEASE);
		goto out;
	}
	for (pos = tail; pos < head; pos += len) {
		fz_ring_copy(data, size, pos, &h, sizeof(h));
		len = PMCLOG_HEADER_TO_LENGTH(h.pl_header);
		if (!PMCLOG_HEADER_CHECK_MAGIC(h.pl_header) || len < sizeof(h) ||
		    len % PMCLOG_ALIGN || len > head - pos) {
			fz_fail("ring: record at %llu: header 0x%08x (length %u, %llu bytes left)",
				(unsigned long long)pos, h.pl_header, len,
				(unsigned long long)(head - pos));
			pos = head;
			break;
		}
		atomic_fetch_add(&fz_sh->records, 1);
	}
	if (fz_chance(r, 4)) {
		/*
		 * A bogus tail: the kernel must cope (drop, never overwrite).
		 * Never 0: another mapping of the ring reading it would not
		 * know it for ours (bogus[] is 0 where empty) and take the
		 * kernel's head for an overrun ("head 33344 tail 0: more than
		 * its 4096 bytes", the RT debug kernel, 2026-11-26).
		 */
		uint64_t bogus = fz_u64(r) ?: 1;

		p->bogus[p->nbogus++ % FZ_NBOGUS] = bogus;
		__atomic_store_n(&rp->pr_data_tail, bogus, __ATOMIC_RELEASE);
		m->untrusted = true;
	} else {
		__atomic_store_n(&rp->pr_data_tail, pos, __ATOMIC_RELEASE);
	}
	if (fz_chance(r, 10))
		rp->pr_watermark = fz_chance(r, 50) ? fz_below(r, (uint32_t)size + 2) : fz_u32(r);
out:
	pthread_mutex_unlock(&p->lock);
	pthread_rwlock_unlock(&p->map_lock);
}

static void fz_op_poll(struct fz_thread *t)
{
	struct pollfd pfd = { .fd = fz_fd(t), .events = POLLIN | POLLRDNORM };
	int ret;

	if (fz_chance(&t->rng, 10))
		pfd.events = (short)fz_u32(&t->rng);
	ret = poll(&pfd, 1, (int)fz_below(&t->rng, 3));
	fz_count(OP_POLL, ret, ret < 0 ? errno : 0);
	if (ret < 0 && errno != EINTR)
		fz_fail("poll: errno %d (%s)", errno, strerror(errno));
}

/* read(2), write(2) and lseek(2) on /dev/pmc: not supported, never a crash. */
static void fz_op_fdio(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	size_t n = fz_below(r, 5000);
	void *buf = fz_chance(r, 85) ? (void *)fz_scratch : FZ_KERNEL_ADDR;
	int fd = fz_fd(t), k = (int)fz_below(r, 3);
	ssize_t ret;
	int err;

	if (n > 4096)
		n = 4096;
	if (k == 0)
		ret = read(fd, buf, n);
	else if (k == 1)
		ret = write(fd, buf, n);
	else
		ret = lseek(fd, (off_t)fz_u64(r), (int)fz_below(r, 5));
	err = ret < 0 ? errno : 0;
	fz_count(OP_FDIO, ret < 0 ? -1 : 0, err);
	if (ret >= 0 && n)
		fz_fail("%s on /dev/pmc returned %zd", k == 0 ? "read" : k == 1 ? "write" :
			"lseek", ret);
}

/* Close a descriptor and put a new open of /dev/pmc at its number. */
static void fz_op_closefd(struct fz_thread *t)
{
	unsigned int i = fz_below(&t->rng, FZ_NFD);
	int nfd = open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	fz_count(OP_CLOSEFD, nfd, nfd < 0 ? errno : 0);
	if (nfd < 0)
		return;
	/*
	 * dup3() closes the old file at once (its release runs when the
	 * last in-flight op on it ends); the number is never free, so no
	 * other file lands there.
	 */
	dup3(nfd, atomic_load(&t->p->fds[i]), O_CLOEXEC);
	close(nfd);
	atomic_fetch_add(&t->p->fd_gen[i], 1);	/* that owner's PMCs are gone */
}

/* ---------------------------------------------------------------- processes */

/* Burn about @us of CPU with a page fault now and then. */
static void fz_spin(uint32_t us)
{
	uint64_t end = fz_now_ns() + us * 1000ULL;
	volatile unsigned long x = 0;

	while (fz_now_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
}

/*
 * A forked child (async-signal-safe code only: the parent has threads).
 * Waits up to 100 ms for the parent's go, checks that the inherited
 * descriptor is refused, maybe forks or execs /bin/true, spins, exits.
 */
static void fz_child_main(struct fz_proc *p, int go, uint64_t seed, bool do_exec)
{
	struct fz_rng r = { seed };
	struct pollfd pfd = { .fd = go, .events = POLLIN };
	struct pmc_op_simple s = { .pm_pmcid = (uint32_t)fz_next(&r) };
	char c;
	int i;

	if (poll(&pfd, 1, (int)fz_below(&r, 100)) > 0 && read(go, &c, 1) < 0)
		_exit(2);
	for (i = 0; i < FZ_NFD; i++) {
		struct pmc_op_pmcallocate pa = { .pm_mode = PMC_MODE_TC,
			.pm_cpu = PMC_CPU_ANY, .pm_class = PMC_CLASS_SOFT,
			.pm_ev = PMC_EV_SOFT_FIRST + 1,
			.pm_md = { .pm_type = PERF_TYPE_SOFTWARE, .pm_config = 1 } };

		/* Not the opener: EPERM for every op on the parent's descriptor. */
		if (ioctl(atomic_load(&p->fds[i]), PMC_IOC_PMCALLOCATE, &pa) == 0 ||
		    ioctl(atomic_load(&p->fds[i]), PMC_IOC_PMCSTART, &s) == 0)
			_exit(99);
	}
	if (fz_chance(&r, 20)) {
		pid_t g = fork();

		if (g == 0) {
			fz_spin(fz_below(&r, 3000));
			_exit(0);
		}
	}
	fz_spin(fz_below(&r, 5000));
	if (do_exec) {
		char *const argv[] = { "true", NULL };
		char *const envp[] = { NULL };

		execve("/bin/true", argv, envp);
		_exit(3);
	}
	_exit(0);
}

static void fz_child_status(pid_t pid, int st)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == 99)
		fz_fail("a forked child (pid %d) used its parent's /dev/pmc descriptor", pid);
}

void fz_children_reap(struct fz_proc *p, bool all)
{
	unsigned int i;
	pid_t pid;
	int st;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < FZ_NCHILD; i++) {
		struct fz_child *c = &p->children[i];

		if (c->pid <= 0)
			continue;
		if (all)
			kill(c->pid, SIGKILL);
		pid = waitpid(c->pid, &st, all ? 0 : WNOHANG);
		if (pid == c->pid || (pid < 0 && errno == ECHILD)) {
			if (pid == c->pid)
				fz_child_status(pid, st);
			close(c->go_fd);
			c->pid = 0;
		}
	}
	pthread_mutex_unlock(&p->lock);
}

static void fz_op_fork(struct fz_thread *t, bool do_exec)
{
	struct fz_rng *r = &t->rng;
	struct fz_proc *p = t->p;
	struct fz_child *c = NULL;
	unsigned int i, n;
	int go[2];
	pid_t pid;
	char b = 1;

	fz_children_reap(p, false);
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < FZ_NCHILD; i++)
		if (p->children[i].pid <= 0) {
			c = &p->children[i];
			c->pid = -1;	/* reserved */
			break;
		}
	pthread_mutex_unlock(&p->lock);
	if (!c || pipe2(go, O_CLOEXEC)) {
		if (c)
			c->pid = 0;
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		fz_child_main(p, go[0], fz_next(r), do_exec);
	}
	close(go[0]);
	fz_count(do_exec ? OP_EXEC : OP_FORK, pid, pid < 0 ? errno : 0);
	if (pid < 0) {
		close(go[1]);
		c->pid = 0;
		return;
	}
	atomic_fetch_add(do_exec ? &fz_sh->execs : &fz_sh->forks, 1);
	fz_note_pid(r, pid);
	/* Attach some of our PMCs to it before it goes. */
	n = fz_below(r, 3);
	for (i = 0; i < n; i++) {
		struct pmc_op_pmcattach a = { .pm_pmc = fz_pick_id(t), .pm_pid = pid };
		struct pmc_op_simple s = { .pm_pmcid = a.pm_pmc };

		if (fz_ioctl(t, OP_ATTACH, fz_fd(t), PMC_IOC_PMCATTACH, &a, sizeof(a)) == 0 &&
		    fz_chance(r, 70))
			fz_ioctl(t, OP_START, fz_fd(t), PMC_IOC_PMCSTART, &s, sizeof(s));
	}
	if (write(go[1], &b, 1) < 0)
		b = 0;
	pthread_mutex_lock(&p->lock);
	c->go_fd = go[1];
	c->pid = pid;
	pthread_mutex_unlock(&p->lock);
}

static void fz_op_kill(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	struct fz_child *c = &p->children[fz_below(&t->rng, FZ_NCHILD)];

	pthread_mutex_lock(&p->lock);
	if (c->pid > 0) {
		kill(c->pid, fz_chance(&t->rng, 80) ? SIGKILL : SIGTERM);
		atomic_fetch_add(&fz_sh->kills, 1);
		fz_count(OP_KILL, 0, 0);
	}
	pthread_mutex_unlock(&p->lock);
}

/*
 * An owner that dies: a child opens /dev/pmc, allocates and starts PMCs on
 * itself (one sampling into a pipe nobody reads, or into a ring), spins,
 * and is killed at a random moment.
 */
static void fz_owner_main(uint64_t seed, bool unpriv_sys)
{
	struct fz_rng r = { seed };
	int fd = open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC), pfd[2], i;
	struct pmc_op_configurelog cl = { .pm_logfd = -1 };

	if (fd < 0)
		_exit(0);
	if (fz_chance(&r, 50) && pipe(pfd) == 0) {
		cl.pm_logfd = pfd[1];
		ioctl(fd, PMC_IOC_CONFIGURELOG, &cl);
	} else {
		mmap(NULL, (1 + (1UL << fz_below(&r, 3))) * (size_t)sysconf(_SC_PAGESIZE),
		     PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	for (i = 0; i < 4; i++) {
		uint32_t mode = fz_below(&r, 4);
		struct pmc_op_pmcallocate pa = {
			.pm_mode = mode,
			.pm_cpu = PMC_IS_SYSTEM_MODE(mode) ? 0 : PMC_CPU_ANY,
			.pm_class = PMC_CLASS_SOFT,
			.pm_caps = PMC_CAP_USER | PMC_CAP_SYSTEM |
				(PMC_IS_SAMPLING_MODE(mode) ? PMC_CAP_INTERRUPT : 0),
			.pm_flags = (fz_chance(&r, 50) ? PMC_F_CALLCHAIN : 0) |
				(fz_chance(&r, 30) ? PMC_F_LOG_PROCCSW : 0) |
				(fz_chance(&r, 30) ? PMC_F_DESCENDANTS : 0),
			.pm_count = PMC_IS_SAMPLING_MODE(mode) ? 1000000 : 0,
			.pm_md = { .pm_type = PERF_TYPE_SOFTWARE, .pm_config = i & 1 },
		};
		struct pmc_op_pmcattach a = { .pm_pid = 0 };
		struct pmc_op_simple s;

		pa.pm_ev = PMC_EV_SOFT_FIRST + (uint32_t)pa.pm_md.pm_config;
		if (PMC_IS_SYSTEM_MODE(mode) && !unpriv_sys && getuid())
			continue;
		if (ioctl(fd, PMC_IOC_PMCALLOCATE, &pa))
			continue;
		a.pm_pmc = s.pm_pmcid = pa.pm_pmcid;
		if (PMC_IS_VIRTUAL_MODE(mode))
			ioctl(fd, PMC_IOC_PMCATTACH, &a);
		ioctl(fd, PMC_IOC_PMCSTART, &s);
	}
	for (;;) {
		fz_spin(1000);
		if (fz_chance(&r, 10)) {
			struct pmc_op_writelog w = { .pm_userdata = 1 };

			ioctl(fd, PMC_IOC_WRITELOG, &w);
			ioctl(fd, PMC_IOC_FLUSHLOG, NULL);	/* blocks on the pipe */
		}
	}
}

static void fz_op_ownerkill(struct fz_thread *t)
{
	struct fz_rng *r = &t->rng;
	uint64_t seed = fz_next(r);
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0)
		fz_owner_main(seed, fz_sh_unpriv_sys());
	fz_count(OP_OWNERKILL, pid, pid < 0 ? errno : 0);
	if (pid < 0)
		return;
	fz_note_pid(r, pid);
	usleep(fz_below(r, 10000));
	kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) == pid)
		atomic_fetch_add(&fz_sh->kills, 1);
}

/* A thread that counts itself (thread scope) and exits, maybe still counting. */
struct fz_helper {
	int fd;
	uint64_t seed;
	_Atomic pid_t tid;
};

static void *fz_helper_main(void *arg)
{
	struct fz_helper *h = arg;
	struct fz_rng r = { h->seed };
	struct pmc_op_pmcallocate pa = { .pm_mode = PMC_MODE_TC,
		.pm_cpu = PMC_CPU_ANY, .pm_class = PMC_CLASS_SOFT,
		.pm_caps = PMC_CAP_USER | PMC_CAP_SYSTEM,
		.pm_ev = PMC_EV_SOFT_FIRST + 1,
		.pm_md = { .pm_type = PERF_TYPE_SOFTWARE, .pm_config = 1 } };
	struct pmc_op_pmcattach a = { .pm_flags = PMC_ATTACH_F_THREAD };
	struct pmc_op_simple s;
	void *stack = fz_fault_guard_on();

	atomic_store(&h->tid, fz_gettid());
	if (fz_chance(&r, 30)) {
		pa.pm_flags |= PMC_F_OVF_SIGNAL;
		pa.pm_count = -(uint64_t)100000;
		pa.pm_signo = SIGUSR1;
	}
	if (ioctl(h->fd, PMC_IOC_PMCALLOCATE, &pa) == 0) {
		a.pm_pmc = s.pm_pmcid = pa.pm_pmcid;
		ioctl(h->fd, PMC_IOC_PMCATTACH, &a);
		ioctl(h->fd, PMC_IOC_PMCSTART, &s);
		atomic_store(&fz_sh->ids[fz_below(&r, FZ_SHARED_IDS)], pa.pm_pmcid);
	}
	fz_spin(fz_below(&r, 500));
	if (fz_chance(&r, 30))
		ioctl(h->fd, PMC_IOC_PMCRELEASE, &s);
	fz_fault_guard_off(stack);
	return NULL;
}

static void fz_op_threadexit(struct fz_thread *t)
{
	struct fz_helper h = { .fd = fz_fd(t), .seed = fz_next(&t->rng) };
	pthread_t th;
	pid_t tid;

	if (pthread_create(&th, NULL, fz_helper_main, &h))
		return;
	/* Attach one of ours to it while it lives (or just died). */
	while (!(tid = atomic_load(&h.tid)))
		sched_yield();
	{
		struct pmc_op_pmcattach a = { .pm_pmc = fz_pick_id(t), .pm_pid = tid,
			.pm_flags = PMC_ATTACH_F_THREAD };

		fz_ioctl(t, OP_ATTACH, fz_fd(t), PMC_IOC_PMCATTACH, &a, sizeof(a));
	}
	pthread_join(th, NULL);
	atomic_fetch_add(&fz_sh->thread_exits, 1);
	fz_count(OP_THREADEXIT, 0, 0);
}

static void fz_op_spin(struct fz_thread *t)
{
	char *m;

	fz_spin(fz_below(&t->rng, 300));
	if (fz_chance(&t->rng, 30)) {
		m = mmap(NULL, 4 * t->p->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			for (int i = 0; i < 4; i++)
				m[i * t->p->page] = 1;	/* page faults */
			munmap(m, 4 * t->p->page);
		}
	}
	if (fz_chance(&t->rng, 30))
		sched_yield();
	fz_count(OP_SPIN, 0, 0);
}

/* ---------------------------------------------------------------- the table */

static const struct {
	const char *name;
	unsigned int weight;
} fz_ops[OP_COUNT] = {
	[OP_ALLOCATE] = { "PMCALLOCATE", 56 },
	[OP_ATTACH] = { "PMCATTACH", 28 },
	[OP_DETACH] = { "PMCDETACH", 16 },
	[OP_START] = { "PMCSTART", 28 },
	[OP_STOP] = { "PMCSTOP", 16 },
	[OP_RELEASE] = { "PMCRELEASE", 24 },
	[OP_RW] = { "PMCRW", 20 },
	[OP_SETCOUNT] = { "PMCSETCOUNT", 12 },
	[OP_GETCAPS] = { "GETCAPS", 8 },
	[OP_GETMSR] = { "PMCGETMSR", 8 },
	[OP_READSET] = { "PMCREADSET", 12 },
	[OP_GETPMCINFO] = { "GETPMCINFO", 8 },
	[OP_GETCPUINFO] = { "GETCPUINFO", 4 },
	[OP_DRIVERSTATS] = { "GETDRIVERSTATS", 4 },
	[OP_MODVERSION] = { "GETMODULEVERSION", 4 },
	[OP_DYNEVENTINFO] = { "GETDYNEVENTINFO", 4 },
	[OP_ADMIN] = { "PMCADMIN", 4 },
	[OP_CONFIGURELOG] = { "CONFIGURELOG", 8 },
	[OP_FLUSHLOG] = { "FLUSHLOG", 8 },
	[OP_CLOSELOG] = { "CLOSELOG", 5 },
	[OP_WRITELOG] = { "WRITELOG", 8 },
	[OP_PERFMON] = { "perfmon PMIO*", 12 },
	[OP_BADIOCTL] = { "unknown ioctl", 8 },
	[OP_MMAP] = { "mmap", 6 },
	[OP_MUNMAP] = { "munmap", 3 },
	[OP_MREMAP] = { "mremap", 2 },
	[OP_RINGREAD] = { "ring read", 16 },
	[OP_POLL] = { "poll", 8 },
	[OP_FDIO] = { "read/write/lseek", 4 },
	[OP_CLOSEFD] = { "close+reopen", 4 },
	[OP_FORK] = { "fork target", 2 },
	[OP_EXEC] = { "exec target", 1 },
	[OP_KILL] = { "kill target", 4 },
	[OP_OWNERKILL] = { "kill owner", 1 },
	[OP_THREADEXIT] = { "thread exit", 2 },
	[OP_SPIN] = { "spin", 8 },
};

const char *fz_op_name(unsigned int i)
{
	return i < OP_COUNT ? fz_ops[i].name : "?";
}

unsigned int fz_nops(void)
{
	return OP_COUNT;
}

void fz_op(struct fz_thread *t)
{
	static unsigned int total;
	unsigned int i, k;
	uint64_t start;

	if (!total)
		for (i = 0; i < OP_COUNT; i++)
			total += fz_ops[i].weight;
	k = fz_below(&t->rng, total);
	for (i = 0; k >= fz_ops[i].weight; i++)
		k -= fz_ops[i].weight;
	t->id_slot = -1;
	/* Rows are few (16 SOFT rows a CPU, shared): give some back. */
	if (i == OP_ALLOCATE && fz_live_ids(t) >= 6 && fz_chance(&t->rng, 60))
		i = OP_RELEASE;
	start = fz_now_ns();

	switch (i) {
	case OP_ALLOCATE: fz_op_allocate(t); break;
	case OP_ATTACH: fz_op_attach(t, false); break;
	case OP_DETACH: fz_op_attach(t, true); break;
	case OP_START: fz_op_simple(t, i, PMC_IOC_PMCSTART); break;
	case OP_STOP: fz_op_simple(t, i, PMC_IOC_PMCSTOP); break;
	case OP_RELEASE: fz_op_simple(t, i, PMC_IOC_PMCRELEASE); break;
	case OP_RW: fz_op_rw(t); break;
	case OP_SETCOUNT: fz_op_setcount(t); break;
	case OP_GETCAPS: fz_op_getcaps(t, false); break;
	case OP_GETMSR: fz_op_getcaps(t, true); break;
	case OP_READSET: fz_op_readset(t); break;
	case OP_GETPMCINFO: fz_op_getpmcinfo(t); break;
	case OP_GETCPUINFO: case OP_DRIVERSTATS: case OP_MODVERSION:
	case OP_DYNEVENTINFO: fz_op_info(t, i); break;
	case OP_ADMIN: fz_op_admin(t); break;
	case OP_CONFIGURELOG: fz_op_configurelog(t); break;
	case OP_FLUSHLOG: fz_op_nullary(t, i, PMC_IOC_FLUSHLOG); break;
	case OP_CLOSELOG: fz_op_nullary(t, i, PMC_IOC_CLOSELOG); break;
	case OP_WRITELOG: fz_op_writelog(t); break;
	case OP_PERFMON: fz_op_perfmon(t); break;
	case OP_BADIOCTL: fz_op_badioctl(t); break;
	case OP_MMAP: fz_op_mmap(t); break;
	case OP_MUNMAP: fz_op_munmap(t, false); break;
	case OP_MREMAP: fz_op_munmap(t, true); break;
	case OP_RINGREAD: fz_op_ringread(t); break;
	case OP_POLL: fz_op_poll(t); break;
	case OP_FDIO: fz_op_fdio(t); break;
	case OP_CLOSEFD: fz_op_closefd(t); break;
	case OP_FORK: fz_op_fork(t, false); break;
	case OP_EXEC: fz_op_fork(t, true); break;
	case OP_KILL: fz_op_kill(t); break;
	case OP_OWNERKILL: fz_op_ownerkill(t); break;
	case OP_THREADEXIT: fz_op_threadexit(t); break;
	default: fz_op_spin(t); break;
	}
	atomic_fetch_add(&fz_sh->op_ns[i], fz_now_ns() - start);
	atomic_fetch_add(&fz_sh->proc_ops[t->p->index], 1);
	atomic_fetch_add(&fz_sh->ops, 1);
}

/* ---------------------------------------------------------------- setup */

int fz_proc_init(struct fz_proc *p)
{
	unsigned int i;

	p->page = (size_t)sysconf(_SC_PAGESIZE);
	for (i = 0; i < FZ_NFD; i++) {
		int fd = open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC), err = errno;

		if (fd < 0) {
			while (i--)	/* a clean slate for a retry (--faults) */
				close(atomic_load(&p->fds[i]));
			return -err;
		}
		atomic_store(&p->fds[i], fd);
	}
	pthread_rwlock_init(&p->map_lock, NULL);
	pthread_mutex_init(&p->lock, NULL);
	for (i = 0; i < FZ_NSINK; i++)
		p->sinks[i].rfd = -1;
	p->protnone = mmap(NULL, p->page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->protnone == MAP_FAILED) {
		for (i = 0; i < FZ_NFD; i++)
			close(atomic_load(&p->fds[i]));
		return -ENOMEM;
	}
	return 0;
}

int fz_thread_init(struct fz_thread *t)
{
	t->tid = fz_gettid();
	return fz_thread_bufs(t->p->page);
}

void fz_proc_fini(struct fz_proc *p)
{
	unsigned int i;

	fz_children_reap(p, true);
	for (i = 0; i < FZ_NSINK; i++)
		if (p->sinks[i].rfd >= 0)
			close(p->sinks[i].rfd);
	for (i = 0; i < FZ_NMAP; i++)
		if (p->maps[i].addr)
			munmap(p->maps[i].addr, p->maps[i].len);
	for (i = 0; i < FZ_NFD; i++)
		close(atomic_load(&p->fds[i]));
}
