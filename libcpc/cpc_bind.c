// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_bind.c - binding sets to counters and using them: cpc_bind_curlwp,
 * cpc_bind_pctx, cpc_bind_cpu, cpc_unbind, cpc_set_sample,
 * cpc_request_preset, cpc_set_restart, cpc_enable, cpc_disable.
 *
 * A set is bound all-or-nothing: one PMC per counting request, all tagged
 * with the set's pm_group, plus a hidden tick PMC; if any of them cannot be
 * allocated, attached or started, every PMC of the set is released and the
 * bind fails. The driver pins hardware counters, so a bound set is never
 * multiplexed. A sample reads every PMC of the set at one instant: from the
 * self-read page of a set bound to the calling thread (the device layer's
 * reader, libpmc/dev/pmcdev_selfread.c), from
 * the OVERFLOW record of a set stopped by an overflow (cpc_ring.c), or with
 * one PMC_OP_PMCREADSET: one timestamp for all.
 *
 * Signal safety: cpc_set_sample, cpc_request_preset and cpc_set_restart
 * take no lock and allocate nothing for a set bound with cpc_bind_curlwp,
 * so the overflow signal handler may call them (illumos' usage).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "libcpc_impl.h"

/*
 * The set cpc_bind_curlwp() bound to this thread. illumos keeps it in the
 * kernel's per-LWP context; cpc_request_preset(), cpc_set_restart(),
 * cpc_enable() and cpc_disable() act on it, so the API forces per-thread
 * state. A set unbound by another thread is recognised by its bind state.
 *
 * Both per-thread variables use the initial-exec TLS model: an access is
 * one load from the thread pointer, where the default model of a shared
 * library calls __tls_get_addr(), which may allocate on a thread's first
 * access (not async-signal-safe, and a call on every sample).
 */
#define CPC_TLS _Thread_local __attribute__((tls_model("initial-exec")))
static CPC_TLS cpc_set_t *cpc_lwp_set;

/*
 * The calling thread's id without a system call after the first: glibc
 * 2.36's gettid() enters the kernel every time, and the sample path checks
 * the thread on every call. The cache is per thread; a fork() child's
 * thread drops it (registered once, at the first call).
 */
static CPC_TLS pid_t cpc_tid_cache;
static pthread_once_t cpc_atfork_once = PTHREAD_ONCE_INIT;

static void cpc_tid_forget(void)
{
	cpc_tid_cache = 0;
}

static void cpc_atfork_register(void)
{
	pthread_atfork(NULL, NULL, cpc_tid_forget);
}

pid_t cpc_gettid(void)
{
	if (!cpc_tid_cache) {
		pthread_once(&cpc_atfork_once, cpc_atfork_register);
		cpc_tid_cache = gettid();
	}
	return cpc_tid_cache;
}

static bool lwp_set_ok(const cpc_set_t *set)
{
	return set && set->magic == CPC_SET_MAGIC &&
	       set->bind == CPC_BIND_LWP && set->tid == cpc_gettid();
}

/* The errno and subcode of a failed PMCALLOCATE or PMCATTACH. */
static int map_driver_error(int err, int *subcode)
{
	*subcode = -1;
	switch (err) {
	case EPERM:
	case EACCES:
		*subcode = CPC_ATTR_REQUIRES_PRIVILEGE;
		return EACCES;
	case ENOENT:
		/* perf has no such event on this PMU. */
		*subcode = CPC_PIC_NOT_CAPABLE;
		return EINVAL;
	case EBUSY:
	case ENOSPC:
	case EAGAIN:
		/* Rows or counters held by others: try again later. */
		*subcode = CPC_RESOURCE_UNAVAIL;
		return EAGAIN;
	default:
		return err;
	}
}

static void set_release_pmcs(cpc_t *cpc, cpc_set_t *set)
{
	int i;

	for (i = 0; i < set->nids; i++) {
		pmcdev_op(cpc_fd(cpc), PMC_IOC_PMCSTOP, set->ids[i]);
		pmcdev_op(cpc_fd(cpc), PMC_IOC_PMCRELEASE, set->ids[i]);
	}
	for (i = 0; i < set->nreqs; i++) {
		set->reqs[i].pmcid = PMC_ID_INVALID;
		set->reqs[i].slot = -1;
	}
	set->nids = 0;
	set->tick_slot = -1;
	set->sample_direct = false;
}

/*
 * Can cpc_set_sample() read @set's PMCs straight into a buffer? Request i
 * reads slot i, the tick reads slot nreqs or shares a request's, and no
 * request needs its overflow judged. Every set of the usual kind does.
 */
static bool set_sample_direct(const cpc_set_t *set)
{
	int i;

	if (set->nids > set->nreqs + 1)
		return false;
	for (i = 0; i < set->nreqs; i++)
		if (set->reqs[i].slot != i ||
		    (set->reqs[i].flags & CPC_OVF_NOTIFY_EMT))
			return false;
	return true;
}

/* What binding needs: scope, target and PMCALLOCATE defaults. */
struct bind_ctx {
	enum cpc_bind_kind kind;
	pid_t attach_pid;	/* LWP: 0 (the caller); PCTX: the target */
	int cpu;		/* CPU scope */
	uint32_t attach_flags;
	uint32_t group;
	pid_t tid;		/* LWP: the binder (OVERFLOW records are its) */
	uint32_t period_us;	/* PMC_F_SNAPSHOT period, or 0 */
};

static void fill_alloc(const struct bind_ctx *bc,
		       struct pmc_op_pmcallocate *a)
{
	bool system = bc->kind == CPC_BIND_CPU;

	memset(a, 0, sizeof(*a));
	a->pm_cpu = system ? (uint32_t)bc->cpu : PMC_CPU_ANY;
	a->pm_mode = system ? PMC_MODE_SC : PMC_MODE_TC;
	a->pm_group = bc->group;
	if (bc->period_us) {
		a->pm_flags |= PMC_F_SNAPSHOT;
		a->pm_snapshot_us = bc->period_us;
	}
}

/* Allocate one PMC and, in thread scope, attach it. */
static int pmc_add(cpc_t *cpc, cpc_set_t *set, const struct bind_ctx *bc,
		   struct pmc_op_pmcallocate *a)
{
	int err;

	if (set->nids >= PMC_READSET_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (pmcdev_allocate(cpc_fd(cpc), a) < 0)
		return -1;
	if (bc->kind != CPC_BIND_CPU &&
	    pmcdev_attach(cpc_fd(cpc), PMC_IOC_PMCATTACH, a->pm_pmcid,
			  bc->attach_pid, bc->attach_flags) < 0) {
		err = errno;
		pmcdev_op(cpc_fd(cpc), PMC_IOC_PMCRELEASE, a->pm_pmcid);
		errno = err;
		return -1;
	}
	set->ids[set->nids++] = a->pm_pmcid;
	return 0;
}

/*
 * A request of @set that counts what the tick would, from zero: the same
 * event (@pmc_class, @type, @config) at the same levels (@caps), no
 * preset, no overflow. Its slot, or -1.
 */
static int tick_shared_slot(const cpc_set_t *set, const struct cpc_enc *enc,
			    uint32_t pmc_class, uint32_t type, uint64_t config,
			    uint32_t caps)
{
	int i;

	for (i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->reqs[i];

		if (r->slot >= 0 && !r->preset &&
		    !(r->flags & CPC_OVF_NOTIFY_EMT) &&
		    enc[i].pmc_class == pmc_class && enc[i].type == type &&
		    enc[i].config == config && !enc[i].config1 &&
		    !enc[i].config2 && enc[i].caps == caps)
			return r->slot;
	}
	return -1;
}

/*
 * The hidden tick PMC: an Intel fixed cycle counter where there is one,
 * else the set's on-CPU time in nanoseconds (task-clock in thread scope,
 * cpu-clock on a CPU), counting user and system time, or user time only
 * where the caller may not count the kernel. Without any, the tick is 0.
 * A request that counts the same from zero is the tick: no second counter
 * (one less to read at every sample, and a hardware counter kept free).
 */
static void tick_add(cpc_t *cpc, cpc_set_t *set, const struct bind_ctx *bc,
		     const struct cpc_enc *enc)
{
	uint64_t clock = bc->kind == CPC_BIND_CPU ? PERF_COUNT_SW_CPU_CLOCK :
						   PERF_COUNT_SW_TASK_CLOCK;
	struct {
		uint32_t pmc_class, type, caps;
		uint64_t config;
		int unit;
	} tries[] = {
		{ cpc->fixed_class, PERF_TYPE_HARDWARE,
		  PMC_CAP_USER | PMC_CAP_SYSTEM, PERF_COUNT_HW_CPU_CYCLES,
		  CPC_TICK_CYCLES },
		/* arm64: PMUv3's cycle counter, read from the page too. */
		{ cpc->gp_class == PMC_CLASS_ARMV8 ? PMC_CLASS_ARMV8 : 0,
		  PERF_TYPE_HARDWARE, PMC_CAP_USER | PMC_CAP_SYSTEM,
		  PERF_COUNT_HW_CPU_CYCLES, CPC_TICK_CYCLES },
		{ PMC_CLASS_SOFT, PERF_TYPE_SOFTWARE,
		  PMC_CAP_USER | PMC_CAP_SYSTEM, clock, CPC_TICK_NSEC },
		{ PMC_CLASS_SOFT, PERF_TYPE_SOFTWARE, PMC_CAP_USER, clock,
		  CPC_TICK_NSEC },
	};
	struct pmc_op_pmcallocate a;
	size_t i;

	set->tick_slot = -1;
	set->tick_unit = CPC_TICK_NSEC;
	set->tick_base = 0;
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (!tries[i].pmc_class ||
		    (tries[i].pmc_class == PMC_CLASS_SOFT && !cpc->nsoft))
			continue;
		set->tick_slot = tick_shared_slot(set, enc, tries[i].pmc_class,
						  tries[i].type,
						  tries[i].config,
						  tries[i].caps);
		if (set->tick_slot >= 0) {
			set->tick_unit = tries[i].unit;
			return;
		}
		fill_alloc(bc, &a);
		a.pm_caps = tries[i].caps;
		a.pm_class = tries[i].pmc_class;
		a.pm_md.pm_type = tries[i].type;
		a.pm_md.pm_config = tries[i].config;
		a.pm_ev = tries[i].type == PERF_TYPE_SOFTWARE ?
			  PMC_EV_SOFT_FIRST + (uint32_t)tries[i].config :
			  PMC_EV_GENERIC_FIRST + (uint32_t)tries[i].config;
		if (pmc_add(cpc, set, bc, &a) == 0) {
			set->tick_slot = set->nids - 1;
			set->tick_unit = tries[i].unit;
			return;
		}
	}
}

/*
 * Check the requests and place them on pics; fill @enc. Returns 0, or -1
 * with errno set and the reason reported through the error handler.
 */
static int set_plan(cpc_t *cpc, cpc_set_t *set, const char *fn, bool system,
		    struct cpc_enc *enc)
{
	int pics[CPC_SET_MAX_REQS];
	bool ovf = false;
	int i, subcode;

	if (set->nreqs == 0) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < set->nreqs; i++) {
		uint_t flags = set->reqs[i].flags;

		if (!KCPC_REQ_VALID_FLAGS(flags)) {
			cpc_err(cpc, fn, CPC_REQ_INVALID_FLAGS);
			errno = EINVAL;
			return -1;
		}
		if (flags & CPC_COUNT_HV) {
			cpc_err(cpc, fn, CPC_HV_NO_ACCESS);
			errno = EACCES;
			return -1;
		}
		if (flags & CPC_OVF_NOTIFY_EMT)
			ovf = true;
	}
	if (ovf && !system && !(cpc->caps & CPC_CAP_OVERFLOW_INTERRUPT)) {
		errno = ENOTSUP;
		return -1;
	}
	if (cpc_assign_pics(cpc, set, pics, &subcode) < 0) {
		cpc_err(cpc, fn, subcode);
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < set->nreqs; i++) {
		subcode = cpc_req_encode(cpc, &set->reqs[i], pics[i], system,
					 &enc[i]);
		if (subcode) {
			cpc_err(cpc, fn, subcode);
			errno = EINVAL;
			return -1;
		}
	}
	return 0;
}

static int set_bind(cpc_t *cpc, cpc_set_t *set, const char *fn,
		    struct bind_ctx *bc)
{
	struct cpc_enc enc[CPC_SET_MAX_REQS];
	bool system = bc->kind == CPC_BIND_CPU;
	struct pmc_op_pmcallocate a;
	int i, err, subcode;
	bool ovf_ring;

	if (set_plan(cpc, set, fn, system, enc) < 0)
		return -1;

	bc->group = atomic_fetch_add(&cpc->next_group, 1);
	bc->period_us = set->period_us;
	set->group = bc->group;
	set->has_ovf = false;
	set->sample_direct = false;
	set->nids = 0;
	set->tick_slot = -1;
	for (i = 0; i < set->nreqs; i++) {
		struct cpc_req *r = &set->reqs[i];

		r->pmcid = PMC_ID_INVALID;
		r->slot = -1;
		r->bound_preset = r->preset;
		/* Neither user nor system: accepted, counts nothing. */
		if (!(r->flags & (CPC_COUNT_USER | CPC_COUNT_SYSTEM)))
			continue;
		fill_alloc(bc, &a);
		a.pm_caps |= enc[i].caps;
		if ((r->flags & CPC_OVF_NOTIFY_EMT) && !system) {
			set->has_ovf = true;
			a.pm_caps |= PMC_CAP_INTERRUPT;
			a.pm_flags |= PMC_F_OVF_SIGNAL;
			a.pm_signo = (uint32_t)cpc->ovf_signo;
		}
		a.pm_class = enc[i].pmc_class;
		a.pm_ev = enc[i].ev;
		a.pm_count = r->preset;
		a.pm_md.pm_type = enc[i].type;
		a.pm_md.pm_config = enc[i].config;
		a.pm_md.pm_config1 = enc[i].config1;
		a.pm_md.pm_config2 = enc[i].config2;
		if (pmc_add(cpc, set, bc, &a) < 0)
			goto fail;
		r->pmcid = a.pm_pmcid;
		r->slot = set->nids - 1;
	}
	tick_add(cpc, set, bc, enc);
	set->sample_direct = set_sample_direct(set);
	/*
	 * Snapshots and overflow records come through the ring: read it
	 * before the PMCs start. Snapshots need it; overflow requests do
	 * without (cpc_set_sample() reads the counters then).
	 */
	ovf_ring = set->has_ovf && bc->kind == CPC_BIND_LWP;
	if ((set->period_us || ovf_ring) &&
	    cpc_ring_subscribe(cpc, set, ovf_ring ? bc->tid : 0) < 0 &&
	    set->period_us) {
		if (errno != ENOMEM && errno != EAGAIN)
			errno = ENOTSUP;
		goto fail;
	}
	for (i = 0; i < set->nids; i++)
		if (pmcdev_op(cpc_fd(cpc), PMC_IOC_PMCSTART, set->ids[i]) < 0)
			goto fail;
	set->bind = bc->kind;
	set->frozen = false;
	return 0;

fail:
	err = map_driver_error(errno, &subcode);
	cpc_ring_unsubscribe(cpc, set);
	set_release_pmcs(cpc, set);
	cpc_err(cpc, fn, subcode);
	errno = err;
	return -1;
}

/* Release the set's PMCs and restore what binding changed. Always 0. */
int cpc_unbind_set(cpc_t *cpc, cpc_set_t *set)
{
	cpc_selfread_unmap(cpc, set);
	cpc_ring_unsubscribe(cpc, set);
	set_release_pmcs(cpc, set);
	if (set->bind == CPC_BIND_CPU && set->saved_affinity)
		sched_setaffinity(set->tid, set->saved_affinity_size,
				  set->saved_affinity);
	free(set->saved_affinity);
	set->saved_affinity = NULL;
	CPU_FREE(set->aff_check);
	set->aff_check = NULL;
	if (cpc_lwp_set == set)
		cpc_lwp_set = NULL;
	set->bind = CPC_BIND_NONE;
	set->pctx = NULL;
	set->frozen = false;
	return 0;
}

/* Is @set a bound set of @cpc? EINVAL if not. */
static bool set_bound(const cpc_t *cpc, const cpc_set_t *set)
{
	if (cpc_set_valid(cpc, set) && set->bind != CPC_BIND_NONE)
		return true;
	errno = EINVAL;
	return false;
}

int cpc_unbind(cpc_t *cpc, cpc_set_t *set)
{
	return set_bound(cpc, set) ? cpc_unbind_set(cpc, set) : -1;
}

int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	struct bind_ctx bc = {
		.kind = CPC_BIND_LWP,
		.attach_flags = PMC_ATTACH_F_THREAD,
		.tid = cpc_gettid(),
	};
	cpc_set_t *old = cpc_lwp_set;

	if (!cpc_set_valid(cpc, set) || !CPC_SET_VALID_FLAGS(flags)) {
		errno = EINVAL;
		return -1;
	}
	if (flags & CPC_BIND_LWP_INHERIT)
		bc.attach_flags |= PMC_ATTACH_F_INHERIT;
	/* An LWP holds one set: binding another unbinds the previous one. */
	if (lwp_set_ok(old))
		cpc_unbind_set(old->cpc, old);
	if (set->bind != CPC_BIND_NONE)
		cpc_unbind_set(cpc, set);
	if (set_bind(cpc, set, "cpc_bind_curlwp", &bc) < 0)
		return -1;
	set->tid = bc.tid;
	set->bind_flags = flags;
	cpc_lwp_set = set;
	/* The page describes this thread's PMCs: map it from here. */
	if (!cpc->no_selfread)
		cpc_selfread_map(cpc, set);
	return 0;
}

/* Does thread @tid belong to process @pid? */
static bool thread_of(pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return access(path, F_OK) == 0;
}

int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set,
		  uint_t flags)
{
	struct bind_ctx bc = {
		.kind = CPC_BIND_PCTX,
		.attach_flags = PMC_ATTACH_F_THREAD,
	};
	pid_t pid, tid;

	if (!cpc_set_valid(cpc, set) || flags != 0 || !pctx ||
	    set->nreqs == 0) {
		errno = EINVAL;
		return -1;
	}
	pid = cpc_pctx_pid(pctx);
	if (pid <= 0) {
		errno = EINVAL;
		return -1;
	}
	/* LWP 1 is the initial thread; other ids are Linux thread ids. */
	tid = id == 1 ? pid : (pid_t)id;
	if (!thread_of(pid, tid)) {
		errno = ESRCH;
		return -1;
	}
	if (set->bind != CPC_BIND_NONE)
		cpc_unbind_set(cpc, set);
	bc.attach_pid = tid;
	if (set_bind(cpc, set, "cpc_bind_pctx", &bc) < 0)
		return -1;
	set->tid = tid;
	set->pctx = pctx;
	set->bind_flags = 0;
	return 0;
}

static size_t affinity_size(const cpc_t *cpc)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	size_t n = cpc->cpuinfo.pm_ncpu;

	if (conf > 0 && (size_t)conf > n)
		n = (size_t)conf;
	if (n < CPU_SETSIZE)
		n = CPU_SETSIZE;
	return n;
}

/* Is the binder still bound to exactly the set's CPU? */
static bool cpu_still_bound(const cpc_set_t *set)
{
	size_t size = set->saved_affinity_size;
	cpu_set_t *mask = set->aff_check;

	if (!mask)
		return true;	/* cannot tell: do not fail the sample */
	/* Running elsewhere: no longer bound (no system call to see it). */
	if (sched_getcpu() >= 0 && sched_getcpu() != set->cpu)
		return false;
	return sched_getaffinity(0, size, mask) == 0 &&
	       CPU_COUNT_S(size, mask) == 1 &&
	       CPU_ISSET_S((size_t)set->cpu, size, mask);
}

int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags)
{
	static const char fn[] = "cpc_bind_cpu";
	struct bind_ctx bc = { .kind = CPC_BIND_CPU, .cpu = id };
	size_t ncpu, size;
	cpu_set_t *saved, *one;
	cpc_set_t *s;
	sigset_t ss;
	bool busy = false;
	int err;

	if (!cpc_set_valid(cpc, set) || flags != 0 || set->nreqs == 0) {
		errno = EINVAL;
		return -1;
	}
	if (set->bind != CPC_BIND_NONE)
		cpc_unbind_set(cpc, set);
	cpc_lock(cpc, &ss);
	for (s = cpc->sets; s; s = s->next)
		if (s->bind == CPC_BIND_CPU && s->cpu == id)
			busy = true;
	cpc_unlock(cpc, &ss);
	if (busy) {
		/* illumos: one bound set per CPU. */
		errno = EAGAIN;
		return -1;
	}

	ncpu = affinity_size(cpc);
	saved = CPU_ALLOC(ncpu);
	one = CPU_ALLOC(ncpu);
	if (!saved || !one) {
		CPU_FREE(saved);
		CPU_FREE(one);
		errno = ENOMEM;
		return -1;
	}
	size = CPU_ALLOC_SIZE(ncpu);
	CPU_ZERO_S(size, one);
	if (id < 0 || (size_t)id >= ncpu) {
		err = EINVAL;
		goto pbind_failed;
	}
	CPU_SET_S((size_t)id, size, one);
	if (sched_getaffinity(0, size, saved) < 0 ||
	    sched_setaffinity(0, size, one) < 0) {
		err = errno;
		goto pbind_failed;
	}
	CPU_FREE(one);
	set->saved_affinity = saved;
	set->saved_affinity_size = size;
	set->aff_check = CPU_ALLOC(ncpu);
	set->tid = gettid();
	set->cpu = id;
	if (set_bind(cpc, set, fn, &bc) < 0) {
		err = errno;
		sched_setaffinity(0, size, saved);
		free(set->saved_affinity);
		set->saved_affinity = NULL;
		CPU_FREE(set->aff_check);
		set->aff_check = NULL;
		errno = err;
		return -1;
	}
	set->bind_flags = 0;
	return 0;

pbind_failed:
	CPU_FREE(saved);
	CPU_FREE(one);
	cpc_err(cpc, fn, CPC_PBIND_FAILED);
	errno = err;
	return -1;
}

/*
 * The values of a set stopped by an overflow, from its OVERFLOW record:
 * true with @vals (by slot), @ts and @mask (overflowed slots) filled.
 * Reads the ring first; a handler that interrupted another reader goes
 * without (false).
 */
static bool ovf_values(cpc_t *cpc, cpc_set_t *set, uint64_t *vals,
		       uint64_t *ts, uint64_t *mask)
{
	struct cpc_ringsub *sub = set->sub;
	bool got = false;

	if (!sub || !cpc_ring_claim(cpc))
		return false;
	(void)cpc_ring_read_claimed(cpc);
	if (sub->ovf_valid) {
		memcpy(vals, sub->ovf_vals, (size_t)set->nids * sizeof(*vals));
		*ts = sub->ovf_tsc;
		*mask = sub->ovf_mask;
		got = true;
	}
	cpc_ring_release(cpc);
	return got;
}

/*
 * The self-read page of a set bound to the calling thread: STATIC, CLOCK
 * and RDPMC entries are read in user space (the device layer's reader); if
 * any entry of the set needs a system call, the whole set is read with one
 * PMC_OP_PMCREADSET instead (one timestamp for all). Without the page (an
 * older driver), every sample is a PMCREADSET. Async-signal-safe.
 */
void cpc_selfread_map(cpc_t *cpc, cpc_set_t *set)
{
	const struct pmc_selfread_page *pg;
	size_t len;
	int i;

	if (set->sr.pg)
		return;
	pg = pmcdev_selfread_map(cpc->fd, set->group, &len);
	if (!pg)
		return;		/* an older driver: PMCREADSET it is */
	for (i = 0; i < PMC_READSET_MAX; i++)
		set->sr.ent[i] = -1;
	set->sr.len = len;
	set->sr.pg = pg;
}

void cpc_selfread_unmap(cpc_t *cpc, cpc_set_t *set)
{
	(void)cpc;
	if (!set->sr.pg)
		return;
	(void)pmcdev_selfread_unmap(set->sr.pg, set->sr.len);
	set->sr.pg = NULL;
}

int cpc_set_selfread(cpc_t *cpc, cpc_set_t *set, int on)
{
	bool was;

	if (!cpc_set_valid(cpc, set) || set->bind != CPC_BIND_LWP ||
	    set->tid != cpc_gettid()) {
		errno = EINVAL;
		return -1;
	}
	was = set->sr.pg != NULL;
	if (on > 0) {
		cpc_selfread_map(cpc, set);
		if (!set->sr.pg) {
			errno = ENOTSUP;
			return -1;
		}
	} else if (on == 0) {
		cpc_selfread_unmap(cpc, set);
	}
	return was;
}

/* Sample @set from its page: true with @vals (by slot) and @ts filled. */
static bool selfread_sample(cpc_t *cpc, cpc_set_t *set, uint64_t *vals,
			    uint64_t *ts)
{
	if (pmcdev_selfread(set->sr.pg, (unsigned int)set->nids, set->ids,
			    vals, ts, set->sr.ent) <= 0)
		return false;
	if (cpc->stats)
		atomic_fetch_add_explicit(&cpc->n_selfreads, 1,
					  memory_order_relaxed);
	return true;
}

/* The set's values, by slot, at one instant @ts; @mask: overflowed slots. */
static int set_read(cpc_t *cpc, cpc_set_t *set, uint64_t *vals, uint64_t *ts,
		    uint64_t *mask, bool *from_record)
{
	struct timespec now;

	*mask = 0;
	*from_record = false;
	if (!set->nids) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		*ts = (uint64_t)now.tv_sec * 1000000000ULL +
		      (uint64_t)now.tv_nsec;
		return 0;
	}
	if (set->has_ovf && ovf_values(cpc, set, vals, ts, mask)) {
		*from_record = true;
		return 0;
	}
	if (set->sr.pg && selfread_sample(cpc, set, vals, ts))
		return 0;
	return pmcdev_readset(cpc_fd(cpc), (unsigned int)set->nids, set->ids, vals,
			      ts);
}

/*
 * Read @set by slot into @vals, then give each request of @buf its value
 * and the tick (cpc_buf_fill()), and the overflowed ones' bits.
 */
static int sample_by_slot(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf,
			  uint64_t *vals, uint64_t *ts)
{
	uint64_t mask;
	bool from_record;
	int i;

	if (set_read(cpc, set, vals, ts, &mask, &from_record) < 0)
		return -1;
	cpc_buf_fill(set, buf, vals);
	buf->ovf_mask = 0;
	for (i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->reqs[i];

		if (r->slot < 0 || !(r->flags & CPC_OVF_NOTIFY_EMT))
			continue;
		/*
		 * Which requests overflowed: the record says; without one
		 * (no ring), a notify counter whose value wrapped past 2^64
		 * to below its preset did.
		 */
		if (from_record ? (mask & (1ULL << r->slot)) != 0 :
		    r->bound_preset && buf->vals[i] < r->bound_preset)
			buf->ovf_mask |= 1ULL << i;
	}
	return 0;
}

int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	uint64_t vals[PMC_READSET_MAX], ts = 0;

	if (!cpc_set_valid(cpc, set) || !buf || buf->magic != CPC_BUF_MAGIC ||
	    buf->cpc != cpc || buf->set != set || buf->nreqs != set->nreqs ||
	    set->bind == CPC_BIND_NONE) {
		errno = EINVAL;
		return -1;
	}
	/* A set bound to an LWP can be sampled by that LWP only. */
	if (set->bind == CPC_BIND_LWP && set->tid != cpc_gettid()) {
		errno = EINVAL;
		return -1;
	}
	if (set->bind == CPC_BIND_CPU && !cpu_still_bound(set)) {
		errno = EAGAIN;
		return -1;
	}
	/*
	 * The usual set (set_sample_direct(): no overflow request either)
	 * is read straight into the buffer; any other by slot, then copied.
	 */
	if (set->sample_direct && !set->sr.pg) {
		if (pmcdev_readset(cpc_fd(cpc), (unsigned int)set->nids,
				   set->ids, buf->vals, &ts) < 0)
			return -1;
		buf->tick = cpc_set_tick(set, buf->vals);
		buf->ovf_mask = 0;
	} else if (sample_by_slot(cpc, set, buf, vals, &ts) < 0) {
		return -1;
	}
	buf->hrtime = (hrtime_t)ts;
	return 0;
}

/* illumos ignores @cpc: the preset is for the calling LWP's bound set. */
int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset)
{
	cpc_set_t *set = cpc_lwp_set;

	(void)cpc;
	if (!lwp_set_ok(set) || index < 0 || index >= set->nreqs) {
		errno = EINVAL;
		return -1;
	}
	set->reqs[index].bound_preset = preset;
	return 0;
}

/* Stop every PMC of the set; 0, or -1 with the first error. */
static int set_stop_all(cpc_t *cpc, cpc_set_t *set)
{
	int i, ret = 0, err = 0;

	for (i = 0; i < set->nids; i++)
		if (pmcdev_op(cpc_fd(cpc), PMC_IOC_PMCSTOP, set->ids[i]) < 0 &&
		    !ret) {
			ret = -1;
			err = errno;
		}
	errno = ret ? err : errno;
	return ret;
}

static int set_start_all(cpc_t *cpc, cpc_set_t *set)
{
	int i;

	for (i = 0; i < set->nids; i++)
		if (pmcdev_op(cpc_fd(cpc), PMC_IOC_PMCSTART, set->ids[i]) < 0)
			return -1;
	return 0;
}

/*
 * Restart the calling LWP's bound set (illumos ignores @set too): every
 * request's counter is reset to its preset and the whole set, stopped by an
 * overflow or not, counts again. The tick goes on from its value.
 */
int cpc_set_restart(cpc_t *cpc, cpc_set_t *set)
{
	cpc_set_t *s = cpc_lwp_set;
	int i;

	(void)set;
	if (!lwp_set_ok(s)) {
		errno = EINVAL;
		return -1;
	}
	cpc = s->cpc;
	(void)set_stop_all(cpc, s);	/* an overflow may have stopped it */
	/*
	 * Its overflow record is history once the counters are reset: read
	 * what the ring holds, forget the record, and ignore any older one a
	 * reader we interrupted has not seen yet.
	 */
	if (s->sub) {
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		__atomic_store_n(&s->sub->ovf_after,
				 (uint64_t)now.tv_sec * 1000000000ULL +
				 (uint64_t)now.tv_nsec, __ATOMIC_RELAXED);
		if (cpc_ring_claim(cpc)) {
			(void)cpc_ring_read_claimed(cpc);
			cpc_ring_release(cpc);
		}
		__atomic_store_n(&s->sub->ovf_valid, false, __ATOMIC_RELAXED);
	}
	for (i = 0; i < s->nreqs; i++) {
		const struct cpc_req *r = &s->reqs[i];
		uint64_t old;

		if (r->pmcid == PMC_ID_INVALID)
			continue;
		if (pmcdev_rw(cpc_fd(cpc), r->pmcid,
			      PMC_F_NEWVALUE | PMC_F_OLDVALUE, r->bound_preset,
			      &old) < 0)
			return -1;
		/* The tick goes on from its value (a shared PMC: tick_add()). */
		if (r->slot == s->tick_slot)
			s->tick_base += old - r->bound_preset;
	}
	if (set_start_all(cpc, s) < 0)
		return -1;
	s->frozen = false;
	return 0;
}

int cpc_enable(cpc_t *cpc)
{
	cpc_set_t *s = cpc_lwp_set;

	(void)cpc;
	if (!lwp_set_ok(s) || !s->frozen) {
		errno = EINVAL;
		return -1;
	}
	if (set_start_all(s->cpc, s) < 0)
		return -1;
	s->frozen = false;
	return 0;
}

int cpc_disable(cpc_t *cpc)
{
	cpc_set_t *s = cpc_lwp_set;

	(void)cpc;
	if (!lwp_set_ok(s) || s->frozen) {
		errno = EINVAL;
		return -1;
	}
	if (set_stop_all(s->cpc, s) < 0)
		return -1;
	/*
	 * The stop wrote each PMC's last snapshot; the driver publishes
	 * records within ~10 ms: have them in the ring when we return.
	 */
	if (s->period_us && s->sub)
		(void)pmcdev_flushlog(cpc_fd(s->cpc));
	s->frozen = true;
	return 0;
}

int cpc_set_tick_unit(cpc_t *cpc, cpc_set_t *set)
{
	return set_bound(cpc, set) ? set->tick_unit : -1;
}
