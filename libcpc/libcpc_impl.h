/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libcpc_impl.h - libcpc's private structures: the handle, sets, requests,
 * buffers, the event catalogue and the /dev/pmc layer. Never installed.
 */
#ifndef _LIBCPC_IMPL_H
#define _LIBCPC_IMPL_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmc/hwpmc.h>
#include <pmc/pmclog.h>
#include <pmc/ring.h>

#include "libcpc.h"
#include "pmcdev.h"

#define CPC_HANDLE_MAGIC	0x43504348U	/* "CPCH" */
#define CPC_SET_MAGIC		0x43505354U	/* "CPST" */
#define CPC_BUF_MAGIC		0x43504246U	/* "CPBF" */

/* The most requests one set may hold: the multi-read op, less the tick. */
#define CPC_SET_MAX_REQS	(PMC_READSET_MAX - 1)
/* The most counters (pics) libcpc models: one bit each in a 64-bit mask. */
#define CPC_MAX_PICS		64

#define CPC_PICMASK(n)		((n) >= 64 ? ~0ULL : ((1ULL << (n)) - 1))

/* What kind of event a catalogue entry is; decides class and encoding. */
enum cpc_event_kind {
	CPC_EV_SOFT,		/* Linux software event (SOFT class) */
	CPC_EV_GENERIC,		/* PAPI_* generic: a perf generic hardware event */
	CPC_EV_PLATFORM,	/* libpfm4 event of the core PMU (raw encoding) */
	CPC_EV_FIXED,		/* an Intel fixed counter's own event */
};

/* One event name libcpc knows, with the pics that can count it. */
struct cpc_event {
	char		*name;		/* as listed, e.g. "inst_retired.any_p" */
	enum cpc_event_kind kind;
	uint64_t	picmask;	/* pics that can count it */
	uint32_t	type;		/* SOFT, GENERIC, FIXED: perf type ... */
	uint64_t	config;		/* ... and config */
	const char	*pfm_event;	/* PLATFORM: libpfm4 event name ... */
	const char	*pfm_umask;	/* ... and unit mask name, or NULL */
};

/* A perf-style event descriptor in one PMC class: what PMCALLOCATE takes. */
struct cpc_enc {
	uint32_t	pmc_class;
	uint32_t	ev;		/* pm_ev */
	uint32_t	type;
	uint64_t	config;
	uint64_t	config1;
	uint64_t	config2;
	uint32_t	named;		/* levels the event name's modifiers ask for */
	uint32_t	caps;		/* PMC_CAP_USER/SYSTEM counted (pmcdev_levels) */
};

struct cpc_req {
	char		*event;		/* private copy, at most CPC_MAX_EVENT_LEN */
	uint64_t	preset;		/* initial value; cpc_request_preset() */
	uint_t		flags;
	uint_t		nattrs;
	cpc_attr_t	*attrs;		/* private copies of names and values */
	const struct cpc_event *ev;	/* a catalogue event, or NULL: */
	bool		named;		/* ... a name the resolver knows (dev) */
	struct pmcdev_event dev;	/* ... (as resolved in thread scope) */
	uint64_t	raw;		/* ... or a raw numeric event code */
	int		picnum;		/* explicit "picnum" attribute, or -1 */
	/* While bound: */
	uint64_t	bound_preset;	/* preset cpc_set_restart() restores */
	uint32_t	pmcid;		/* PMC_ID_INVALID for a request that counts nothing */
	int		slot;		/* index in the set's read list, or -1 */
};

/*
 * What the ring tells about one bound set (cpc_ring.c): its snapshots,
 * rebuilt from SNAPSHOT records that share pl_tsc and pl_group, queued
 * until cpc_snapshot_next() takes them, and its last OVERFLOW record.
 * Allocated at bind, so that the reader (possibly a signal handler) never
 * allocates; written only by the ring reader, which holds the ring's busy
 * flag, and read by the set's users under that flag too.
 */
#define CPC_SNAPQ_LEN		64	/* complete snapshots kept per set */
/* The queue's slots: its snapshots and the one being rebuilt. */
#define CPC_SNAPQ_SLOTS		(CPC_SNAPQ_LEN + 1)
struct cpc_ringsub {
	uint32_t	group;
	uint32_t	tid;		/* OVERFLOW records of this thread (0: any) */
	int		nids;
	uint32_t	ids[PMC_READSET_MAX];
	uint64_t	all_slots;	/* a bit per slot of ids[] */
	/*
	 * The snapshot being rebuilt, in the queue's slot after its last
	 * snapshot (q_asm): a complete one is queued without a copy.
	 */
	uint64_t	asm_tsc;
	uint64_t	asm_have;	/* bit per slot of ids[] received */
	int		asm_next;	/* the slot the next record is likely for */
	unsigned int	q_asm;		/* its slot of the queue */
	uint64_t	*asm_vals;	/* q_vals of slot q_asm */
	uint64_t	incomplete;	/* snapshots abandoned with a record missing */
	/* Complete snapshots, oldest at q_head. */
	unsigned int	q_head, q_len;
	uint64_t	q_dropped;	/* the oldest dropped: the queue was full */
	uint64_t	q_tsc[CPC_SNAPQ_SLOTS];
	/* The last OVERFLOW record, until cpc_set_restart(). */
	bool		ovf_valid;
	uint64_t	ovf_after;	/* cpc_set_restart(): older records are stale */
	uint64_t	ovf_tsc, ovf_ip, ovf_mask;	/* mask: slots of ids[] */
	uint64_t	ovf_vals[PMC_READSET_MAX];
	uint64_t	q_vals[];	/* CPC_SNAPQ_SLOTS * nids */
};

/* The queue slot after @at. */
static inline unsigned int cpc_snapq_next(unsigned int at)
{
	return at + 1 == CPC_SNAPQ_SLOTS ? 0 : at + 1;
}

/*
 * The handle's mmap'd record ring (one per handle: its /dev/pmc file is the
 * owner). @busy is the one consumer's claim: the reader takes it with an
 * atomic exchange and never waits for it, so a signal handler that finds it
 * taken (it interrupted a reader) goes without the ring's news; bind and
 * unbind, which change @subs, wait for it. @subs holds the sets that read
 * the ring, looked up by pm_group.
 */
#define CPC_RING_PAGES		64	/* data pages: 256 KiB with 4 KiB pages */
#define CPC_RING_REC_MAX	4096	/* records copied out whole; longer ones skipped */
struct cpc_ring {
	struct pmcdev_ring rd;		/* the device layer's reader */
	atomic_bool	busy;
	uint64_t	lost;		/* records the kernel dropped (DROPNOTIFY) */
	uint64_t	records;	/* records read */
	unsigned int	nsubs;
	struct cpc_ringsub *last;	/* the set sub_of() found last, or NULL */
	struct cpc_ringsub **subs;	/* nsubs entries, NULL when free */
	uint64_t	rec[CPC_RING_REC_MAX / 8]; /* a record copied out of the ring */
};

/* The self-read page of a set bound to the calling thread (cpc_bind.c). */
struct cpc_selfread {
	const struct pmc_selfread_page *pg;
	size_t		len;
	int		ent[PMC_READSET_MAX];	/* entry of each slot, a hint */
};

enum cpc_bind_kind {
	CPC_BIND_NONE = 0,
	CPC_BIND_LWP,		/* cpc_bind_curlwp: thread scope, the binder */
	CPC_BIND_PCTX,		/* cpc_bind_pctx: thread scope, another process */
	CPC_BIND_CPU,		/* cpc_bind_cpu: system scope on one CPU */
};

/*
 * A set. Its PMCs share the pm_group @group, the tag by which the driver
 * stops them together on overflow and (issue 12) tags their snapshot and
 * overflow records in the owner's mmap'd ring and their self-read page:
 * cpc_set_sample() is the one read path, where a self-read or ring
 * consumer goes before the PMCREADSET fallback.
 */
struct __cpc_set {
	uint32_t	magic;
	cpc_t		*cpc;
	struct __cpc_set *next;		/* the handle's list, under cpc->lock */
	struct cpc_req	*reqs;		/* by index */
	int		nreqs;
	/* Bind state; written by the bind calls, read by sample/restart. */
	enum cpc_bind_kind bind;
	pid_t		tid;		/* LWP: the binder; PCTX: the target thread */
	int		cpu;		/* CPU: the CPU counted */
	cpu_set_t	*saved_affinity; /* CPU: the binder's affinity before */
	size_t		saved_affinity_size;
	pctx_t		*pctx;		/* PCTX: the process context */
	uint_t		bind_flags;
	uint32_t	group;		/* pm_group of the set's PMCs */
	uint32_t	ids[PMC_READSET_MAX]; /* PMCs read by one sample */
	int		nids;
	int		tick_slot;	/* index in ids of the tick PMC, or -1 */
	/*
	 * Where the tick shares a request's PMC (tick_add()), what
	 * cpc_set_restart() took off that PMC's count: tick = value + base.
	 */
	uint64_t	tick_base;
	int		tick_unit;	/* CPC_TICK_CYCLES or CPC_TICK_NSEC */
	bool		frozen;		/* cpc_disable()d */
	/* Linux extensions (issue 12). */
	uint32_t	period_us;	/* cpc_set_sample_period(); 0: none */
	bool		has_ovf;	/* a request asks for CPC_OVF_NOTIFY_EMT */
	/* request i reads slot i, no overflow request (set_sample_direct()) */
	bool		sample_direct;
	struct cpc_ringsub *sub;	/* while bound and reading the ring */
	struct cpc_selfread sr;		/* LWP: the self-read page, if mapped */
	cpu_set_t	*aff_check;	/* CPU: scratch mask of the sample check */
};

struct __cpc_buf {
	uint32_t	magic;
	cpc_t		*cpc;
	cpc_set_t	*set;
	struct __cpc_buf *next;		/* the handle's list, under cpc->lock */
	int		nreqs;
	hrtime_t	hrtime;
	uint64_t	tick;
	uint64_t	ovf_mask;	/* requests that overflowed, by index */
	uint64_t	vals[];		/* nreqs + 1: the tick's slot after them */
};

/* The tick of @set, from its values by slot of ids[] @v. */
static inline uint64_t cpc_set_tick(const cpc_set_t *set, const uint64_t *v)
{
	return set->tick_slot >= 0 ? v[set->tick_slot] + set->tick_base : 0;
}

/*
 * Give each request of @buf its value from @v, the values of @set by slot
 * of ids[] (a request without a PMC: its preset), and the tick. Request i
 * reads slot i in the usual set (sample_direct).
 */
static inline void cpc_buf_fill(const cpc_set_t *set, cpc_buf_t *buf,
				const uint64_t *v)
{
	int i;

	if (set->sample_direct) {
		for (i = 0; i < set->nreqs; i++)
			buf->vals[i] = v[i];
	} else {
		for (i = 0; i < set->nreqs; i++) {
			const struct cpc_req *r = &set->reqs[i];

			buf->vals[i] = r->slot >= 0 ? v[r->slot] :
						      r->bound_preset;
		}
	}
	buf->tick = cpc_set_tick(set, v);
}

/*
 * The handle. The counters' description and the event catalogue are
 * written by cpc_open() and read-only afterwards. @lock protects the lists
 * of sets and buffers (creation, destruction, cpc_close); the overflow
 * signal is blocked while it is held, so that a signal handler calling
 * libcpc cannot deadlock on it. The bind, sample, preset and restart paths
 * take no lock: like illumos they may run in the overflow signal handler;
 * a set is bound, sampled and unbound by one thread at a time.
 */
struct __cpc {
	uint32_t	magic;
	int		fd;		/* its /dev/pmc: the PMC owner */
	pthread_mutex_t	lock;
	cpc_set_t	*sets;
	cpc_buf_t	*bufs;
	cpc_errhndlr_t	*errfn;
	int		ovf_signo;
	atomic_uint	next_group;
	/* The ring, mapped at the first bind that needs it (under @lock). */
	struct cpc_ring	*ring;
	int		ring_errno;	/* why it could not be mapped, or 0 */
	/* LIBCPC_STATS: count what the sample paths cost, print at close. */
	bool		stats;
	bool		no_selfread;	/* LIBCPC_SELFREAD=0 */
	atomic_ulong	n_ioctls, n_selfreads, n_snapshots;

	struct pmc_op_getcpuinfo cpuinfo;
	uint32_t	gp_class;	/* IAP or K8, 0 without a hardware PMU */
	uint32_t	fixed_class;	/* IAF, or 0 */
	uint_t		ngp;		/* general-purpose hardware counters */
	uint_t		nfixed;		/* fixed counters (at most 3 modelled) */
	uint_t		nsoft;		/* SOFT rows per CPU */
	uint_t		npic;
	uint_t		caps;
	char		cciname[CPC_MAX_IMPL_NAME];
	char		cpuref[CPC_MAX_CPUREF];

	struct cpc_event *events;	/* the catalogue, in listing order */
	size_t		nevents;
	struct cpc_event **sorted;	/* by name, case-insensitive */
	const char	**attrs;	/* attribute names, "picnum" last */
	size_t		nattrs;
	char		pfm_pmu[64];	/* libpfm4 PMU of the platform events */
	/* What the device layer's resolver knows of the machine. */
	struct pmcdev_mdesc md;
	struct pmc_dyn_event_descr *soft;	/* the SOFT class's events */
};

/* cpc_open.c */
static inline bool cpc_valid(const cpc_t *cpc)
{
	return cpc && cpc->magic == CPC_HANDLE_MAGIC;
}

void cpc_err(cpc_t *cpc, const char *fn, int subcode);
const char *cpc_errstr(int subcode);
void cpc_lock(cpc_t *cpc, sigset_t *saved);
void cpc_unlock(cpc_t *cpc, const sigset_t *saved);

/* cpc_set.c */
static inline bool cpc_set_valid(const cpc_t *cpc, const cpc_set_t *set)
{
	return cpc_valid(cpc) && set && set->magic == CPC_SET_MAGIC &&
	       set->cpc == cpc;
}

void cpc_set_free(cpc_set_t *set);

/* cpc_buf.c */
void cpc_buf_free(cpc_buf_t *buf);

/* cpc_bind.c */
int cpc_unbind_set(cpc_t *cpc, cpc_set_t *set);

/* cpc_events.c */
int cpc_events_init(cpc_t *cpc);
void cpc_events_fini(cpc_t *cpc);
const struct cpc_event *cpc_event_find(const cpc_t *cpc, const char *name);
bool cpc_event_parse_raw(const cpc_t *cpc, const char *name, uint64_t *code);
int cpc_event_resolve(const cpc_t *cpc, const char *name, bool system,
		      struct pmcdev_event *e);
bool cpc_attr_known(const cpc_t *cpc, const char *name);
uint64_t cpc_req_picmask(const cpc_t *cpc, const struct cpc_req *req);
bool cpc_pic_is_fixed(const cpc_t *cpc, int pic);
int cpc_req_encode(const cpc_t *cpc, const struct cpc_req *req, int pic,
		   bool system, struct cpc_enc *enc);
int cpc_assign_pics(const cpc_t *cpc, const cpc_set_t *set, int *pics,
		    int *subcode);

/*
 * The handle's descriptor for one ioctl of the device layer (pmcdev.h),
 * counted for LIBCPC_STATS.
 */
static inline int cpc_fd(cpc_t *cpc)
{
	if (cpc->stats)
		atomic_fetch_add_explicit(&cpc->n_ioctls, 1,
					  memory_order_relaxed);
	return cpc->fd;
}

/* cpc_bind.c: the calling thread's id (cached), the self-read page. */
pid_t cpc_gettid(void);
void cpc_selfread_map(cpc_t *cpc, cpc_set_t *set);
void cpc_selfread_unmap(cpc_t *cpc, cpc_set_t *set);

/* cpc_ring.c */
int cpc_ring_subscribe(cpc_t *cpc, cpc_set_t *set, pid_t tid);
void cpc_ring_unsubscribe(cpc_t *cpc, cpc_set_t *set);
int cpc_ring_drain(cpc_t *cpc);
int cpc_ring_read_claimed(cpc_t *cpc);
int cpc_ring_read_for(cpc_t *cpc, const cpc_set_t *set);
void cpc_ring_fini(cpc_t *cpc);

/*
 * The ring's one consumer: taken with an atomic exchange, never waited
 * for (false: no ring, or another reader holds it). Inline: a snapshot
 * taken from the set's queue costs a claim and a release.
 */
static inline bool cpc_ring_claim(cpc_t *cpc)
{
	struct cpc_ring *r = cpc->ring;

	return r && !atomic_exchange_explicit(&r->busy, true,
					      memory_order_acquire);
}

static inline void cpc_ring_release(cpc_t *cpc)
{
	atomic_store_explicit(&cpc->ring->busy, false, memory_order_release);
}

/* pctx.c */
pid_t cpc_pctx_pid(const pctx_t *pctx);
void cpc_pctx_terminate_all(cpc_t *cpc);

#endif /* _LIBCPC_IMPL_H */
