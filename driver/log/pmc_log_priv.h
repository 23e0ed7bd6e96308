/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_log_priv.h - private to log/ (log*.c, ring.c, sample*.c, callchain.c,
 * map_hooks.c): the log state, its buffers and what the files of log/ ask
 * of each other. log/ implements the record emitters the core declares in
 * core/pmc_core.h and the interface of pmc_log.h.
 */
#ifndef _PMC_LOG_PRIV_H
#define _PMC_LOG_PRIV_H

/*
 * ---------------------------------------------------------------------------
 * Internal to the sampling and logging files (log*.c, ring.c, sample.c,
 * callchain.c); the core uses only the functions core/pmc_core.h declares.
 *
 * Data flow. Records are built where their event happens and *staged* in
 * the owner's per-CPU log buffer of the CPU they happen on (struct
 * pmc_log_cpu), under a per-CPU raw spinlock taken with IRQs off: process
 * context, tracepoint probes, and the sample drain (irq_work, hard IRQ) may
 * stage; NMI never does (the overflow handler fills the per-CPU sample ring
 * of sample.c instead, and its irq_work stages the CALLCHAIN records).
 *
 * The *publisher* (pmc_log_publish(), under pub_lock: the log workqueue or
 * an ioctl) is the single producer of the owner's record stream: it merges
 * the records staged on the CPUs in pl_tsc (CLOCK_MONOTONIC) order, each
 * CPU's in its staging order, up to the time it started (log.c), gives
 * each its pl_seq, and copies it into the mmap'd ring if one is mapped and
 * into the file's output buffer if a log file is configured. Output buffers go to the
 * writer kthread, which writes them to the file unchanged: the ring and the
 * file get the same bytes in the same order. All buffers (staging and
 * output) come from the owner's pool.
 * ---------------------------------------------------------------------------
 */
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <pmc/pmclog.h>

#include "core/pmc_core.h"
#include "pmc_log.h"

struct file;
struct pmc_ring;

/*
 * struct pmc_logbuf - one log buffer (logbuffersize KiB).
 * @link:	in a pmc_log_cpu.full list, the write queue or the free pool
 * @fill:	bytes of complete records (written under the CPU's lock)
 * @pub:	bytes already published (publisher only)
 * @size:	capacity of @data
 */
struct pmc_logbuf {
	struct list_head link;
	u32 fill;
	u32 pub;
	u32 size;
	u32 pad;
	u8 data[];
};

/*
 * struct pmc_log_cpu - the staging state of one owner on one CPU.
 * @lock:	protects @cur (and its @fill) and @full. A raw spinlock taken
 *		with IRQs off, from process, tracepoint (sched_switch with the
 *		rq lock held included) and hard IRQ context, never from NMI;
 *		nothing is taken inside it but the owner's pool_lock. Raw
 *		because of those contexts: a spinlock_t sleeps on PREEMPT_RT.
 * @cur:	the buffer records are appended to, NULL until needed
 * @full:	buffers filled on this CPU, oldest first, for the publisher
 *
 * The publisher's own (under the log's pub_lock, no other lock):
 * @pubq:	buffers it took from @full and has not wholly published,
 *		oldest first
 * @snap:	@cur when the pass took the CPU's records, @snap_fill its
 *		fill then: the records of @snap it may publish in the pass
 * @head:	the CPU's next record to publish in the pass (NULL: none), in
 *		@headbuf
 */
struct pmc_log_cpu {
	raw_spinlock_t lock;
	struct pmc_logbuf *cur;
	struct list_head full;

	struct list_head pubq;
	struct pmc_logbuf *snap;
	u32 snap_fill;
	struct pmclog_header *head;
	struct pmc_logbuf *headbuf;
};

/* How the writer writes the log file (log_writer.c). */
enum pmc_log_wmode {
	PMC_LOG_WRITE_KERNEL,	/* kernel_write() */
	PMC_LOG_WRITE_ITER,	/* vfs_iter_write() of a kvec */
	PMC_LOG_WRITE_USER,	/* ->write from a buffer in the owner's mm */
};

/* Sinks of a log state (pmc_log_state.sinks). */
#define PMC_LOG_SINK_FILE	0x1
#define PMC_LOG_SINK_RING	0x2

/*
 * A CPU in a publishing pass's merge, with its head's pl_tsc: the merge
 * compares the times in one array, not through two pointers each.
 */
struct pmc_log_merge_cpu {
	u64 tsc;
	struct pmc_log_cpu *lc;
};

/*
 * struct pmc_log_state - the log and ring of one owner (struct
 * pmc_owner.log). Created by the first CONFIGURELOG or mmap, kept until the
 * owner goes away (pmc_log_owner_exit()); freed when its last reference
 * goes (kref: the owner, each ring that maps it, pending task_works and
 * map dumps).
 * @po:		the owner (a reference: the ring wakes its @ring_wait)
 * @sinks:	PMC_LOG_SINK_*; read anywhere, written under @pub_lock
 * @dead:	the owner is gone: nothing is staged any more
 * @cpu:	per-CPU staging
 * @merge:	the CPUs with records in a publishing pass, each with its
 *		head's pl_tsc (nr_cpu_ids entries), under @pub_lock
 * @pool_lock:	protects @free, @nfree and @low_free (raw; any context but
 *		NMI, IRQs off; nests inside a pmc_log_cpu.lock; raw for the
 *		hard IRQ and tracepoint stagers on PREEMPT_RT)
 * @fill_lock:	serialises the pool's allocations and trims (@nbufs,
 *		@pool_want): process context, the publisher (under @pub_lock),
 *		@grow_work or @trim_work (without it)
 * @out:	the file's output buffer being filled, under @pub_lock
 * @out_since:	jiffies when @out took its first record, under @pub_lock
 * @out_spare:	buffers kept for the next @out (at most PMC_LOG_OUT_SPARES,
 *		@nout_spare of them): staging buffers a pass has published,
 *		under @pub_lock
 * @drops_file:	records the file could not take (no buffer), not yet
 *		reported; under @pub_lock
 * @cfg_lock:	serialises configuring, flushing and closing the log file
 *		(held while waiting for the writer); process context. Taken
 *		under owner->lock, before @pub_lock.
 * @pub_lock:	serialises publishing (pl_seq, @ring, @sinks, the routing of
 *		buffers to the file); process context only, held briefly.
 *		Taken under owner->lock, @cfg_lock and mmap_lock, never the
 *		other way round.
 * @wq_lock:	protects @writeq and @writing (process context, the writer)
 * @error:	the first write error (negative errno), returned by FLUSHLOG
 * @lost_records: records not staged for want of a buffer, not yet reported
 * @lost_samples: samples dropped (per-CPU sample ring full), not yet reported
 */
struct pmc_log_state {
	struct kref ref;
	struct pmc_owner *po;
	unsigned int sinks;
	bool dead;
	pid_t owner_pid;
	struct pid *owner_tgid;		/* a reference: its pid namespace */

	struct pmc_log_cpu __percpu *cpu;
	struct pmc_log_merge_cpu *merge;
	u32 bufsize;

	raw_spinlock_t pool_lock;
	struct list_head free;
	unsigned int nfree;
	struct mutex fill_lock;		/* the pool's growth (log_buf.c) */
	unsigned int nbufs;		/* allocated, under fill_lock */
	unsigned int maxbufs;
	unsigned int pool_want;		/* free ones to keep, ditto */
	unsigned int burst_bufs;	/* a CPU's whole sample ring, at load */
	unsigned int low_free;		/* fewest free since the last trim */
	/*
	 * CPUs with a staging buffer (or expected to stage); written under
	 * pub_lock, read by the pool's growth without it
	 */
	unsigned int nstaging;

	struct mutex cfg_lock;
	struct mutex pub_lock;
	u32 seq;
	struct pmc_ring *ring;
	u64 drops_ring;			/* ring drops not yet reported */
	struct pmc_logbuf *out;
	unsigned long out_since;
	struct list_head out_spare;
	unsigned int nout_spare;
	u64 drops_file;
	struct file *file;
	const struct cred *cred;	/* the configuring process's */
	loff_t pos;
	enum pmc_log_wmode wmode;
	struct mm_struct *mm;		/* PMC_LOG_WRITE_USER: mmgrab()ed */
	unsigned long ubuf;		/* ... its bounce buffer there */
	struct task_struct *writer;
	u64 written;			/* bytes written, by the writer */

	spinlock_t wq_lock;
	struct list_head writeq;
	bool writing;
	wait_queue_head_t writer_wait;
	wait_queue_head_t drained_wait;
	int error;

	atomic64_t lost_records;
	atomic64_t lost_samples;

	/* (tgid, exec id) of the last exec whose mappings were logged */
	pid_t maps_tgid;
	u64 maps_exec_id;

	unsigned long kick_flags;	/* PMC_LOG_KICK_* */
	struct irq_work kick;
	struct delayed_work pub_work;
	struct work_struct grow_work;	/* pmc_log_pool_grow(), queued by kick */
	struct delayed_work trim_work;	/* pmc_log_pool_trim(), while above base */
};

/* The file's output keeps this many published buffers (log_writer.c). */
#define PMC_LOG_OUT_SPARES	2
/*
 * The pool gives back, once a period, half the free buffers no record took
 * in it (pmc_log_pool_trim()).
 */
#define PMC_LOG_TRIM_PERIOD	HZ

#define PMC_LOG_KICK_URGENT	0	/* a buffer filled up: publish now */
#define PMC_LOG_KICK_QUEUED	1	/* an urgent kick's pass has not begun */
#define PMC_LOG_KICK_GROW	2	/* the pool ran short: grow it now */

/* A record being staged: between pmc_log_begin() and pmc_log_end(). */
struct pmc_log_rsv {
	struct pmc_log_state *log;
	struct pmc_log_cpu *lc;
	unsigned long flags;
	u32 len;
	bool urgent;
	bool grow;
};

/* The module's log workqueue (publisher and map dumps). */
extern struct workqueue_struct *pmc_log_wq;

/*
 * Stage a record of @type and @len bytes (rounded up to 8) with timestamp
 * @tsc (0: now) on this CPU. Returns the zeroed record with its header set,
 * or NULL (nothing staged: no sink, owner gone, or no free buffer, which is
 * counted). On success the caller fills the body and calls pmc_log_end().
 * Any context but NMI; IRQs are off in between.
 */
void *pmc_log_begin(struct pmc_log_state *log, u32 type, size_t len, u64 tsc,
		    struct pmc_log_rsv *rsv);
/*
 * pmc_log_begin() on @cpu's staging, from any CPU: the sample drain of a
 * ring run by the publisher from its own CPU stages the ring's samples
 * where their CPU's other records are (each CPU's records stay in the
 * order they were staged). Same contexts.
 */
void *pmc_log_begin_cpu(struct pmc_log_state *log, unsigned int cpu, u32 type,
			size_t len, u64 tsc, struct pmc_log_rsv *rsv);
void pmc_log_end(struct pmc_log_rsv *rsv);

/*
 * A sample of @log waits in this CPU's sample ring: ask for a publishing
 * pass within the log's delay, if none is pending (pmc_log_kick_fn()). The
 * pass drains the sample rings before it publishes. NMI-safe (the overflow
 * handler's), on a CPU with preemption off.
 */
void pmc_log_sampled(struct pmc_log_state *log);

/* Largest record a log state can stage. Any context. */
static inline u32 pmc_log_max_record(const struct pmc_log_state *log)
{
	return min_t(u32, log->bufsize, PMCLOG_MAX_RECORD);
}

/* Does the log state take records now? Any context. */
static inline bool pmc_log_accepting(const struct pmc_log_state *log)
{
	return READ_ONCE(log->sinks) && !READ_ONCE(log->dead);
}

/*
 * @task's tgid (@tgid) or tid as the owner's pid namespace sees it, as the
 * core reports pids. Any context, NMI included.
 */
static inline pid_t pmc_log_pid(const struct pmc_log_state *log,
				struct task_struct *task, bool tgid)
{
	return __task_pid_nr_ns(task, tgid ? PIDTYPE_TGID : PIDTYPE_PID,
				ns_of_pid(log->owner_tgid));
}

/* The owner's log state, or NULL. Any context (NMI included). */
static inline struct pmc_log_state *pmc_log_of(struct pmc_owner *po)
{
	/* Pairs with the release in pmc_log_state_get(): initialised state. */
	return po ? smp_load_acquire(&po->log) : NULL;
}

/*
 * Publish what is staged (pub_lock taken inside), in pl_tsc order: every
 * record staged before the call; the records staged during it only with
 * @flush, else by the next pass (queued). @flush also hands the file's
 * partial output buffer to the writer. Process context.
 */
void pmc_log_publish(struct pmc_log_state *log, bool flush);
/* The same with pub_lock held. */
void pmc_log_publish_locked(struct pmc_log_state *log, bool flush);
/* Stage an INITIALIZE record. Process context. */
void pmc_log_initialize(struct pmc_log_state *log);

/*
 * Get or create the owner's log state: a new reference (put it with
 * pmc_log_state_put()), or ERR_PTR(-ENOMEM/-ESRCH: the owner exited).
 * Process context; takes owner->log_lock (with or without owner->lock).
 */
struct pmc_log_state *pmc_log_state_get(struct pmc_owner *po);
void pmc_log_state_put(struct pmc_log_state *log);

/* log_buf.c: the buffer pool. Process context. */
int pmc_log_pool_init(struct pmc_log_state *log);
/* A free buffer, or NULL; *@left: how many stay free. Any context but NMI. */
struct pmc_logbuf *pmc_log_pool_get(struct pmc_log_state *log,
				    unsigned int *left);
unsigned int pmc_log_pool_base(const struct pmc_log_state *log);
/* Allocate the free buffers the pool keeps. Takes fill_lock. */
void pmc_log_pool_fill(struct pmc_log_state *log);
/*
 * The pool ran short: keep twice as many free (always with @lost, records
 * lost for want of a buffer; else if fewer than the CPUs are still free).
 * Takes fill_lock.
 */
void pmc_log_pool_grow(struct pmc_log_state *log, bool lost);
/*
 * Give back buffers no record took for a period (PMC_LOG_TRIM_PERIOD);
 * true while the pool holds more than it keeps at rest. Takes fill_lock.
 */
bool pmc_log_pool_trim(struct pmc_log_state *log);
void pmc_log_pool_destroy(struct pmc_log_state *log);
/* Give a buffer back to the pool. Any context but NMI. */
void pmc_log_pool_put(struct pmc_log_state *log, struct pmc_logbuf *buf);

/*
 * How long a published record may wait in the file's output buffer: the
 * writer gets a buffer when it fills (hwpmc's rule), at a flush, or when its
 * first record is this old. A write at every publishing pass (100 ms) cost
 * the sampled program 3 to 4 million instructions a run of 8 CPUs at 1 kHz
 * (docs/performance.md); a file being watched still grows every second.
 */
#define PMC_LOG_FILE_MAX_AGE	HZ

/* log_writer.c: the log file. Process context, pub_lock held. */
int pmc_log_file_start(struct pmc_log_state *log, struct file *file);
/* Append a published record to the file's output. pub_lock held. */
void pmc_log_file_append(struct pmc_log_state *log, const void *rec, u32 len);
/*
 * A staging buffer whose records are all published: kept for the file's
 * output (PMC_LOG_OUT_SPARES), or back to the pool. pub_lock held.
 */
void pmc_log_file_recycle(struct pmc_log_state *log, struct pmc_logbuf *buf);
/*
 * Hand the output buffer to the writer: always (@all, a flush) or once its
 * first record is PMC_LOG_FILE_MAX_AGE old. Returns the jiffies until the
 * buffer is due (the caller publishes again then), 0 if none waits.
 * pub_lock held.
 */
unsigned long pmc_log_file_push(struct pmc_log_state *log, bool all);
/* How pmc_log_file_drain() waits for the writer. */
enum pmc_log_wait {
	PMC_LOG_WAIT_INTR,	/* until interrupted by a signal (ops) */
	PMC_LOG_WAIT_STALL,	/* killable, and while the writer makes progress */
	PMC_LOG_WAIT_NONE,	/* not at all */
};

/*
 * Wait until the writer has written everything queued; returns 0, or
 * -ERESTARTSYS (a signal), -ETIMEDOUT (the writer wrote nothing for a
 * second while PMC_LOG_WAIT_STALL, or PMC_LOG_WAIT_NONE with work left).
 * Process context, pub_lock not held.
 */
int pmc_log_file_drain(struct pmc_log_state *log, enum pmc_log_wait how);
/* Take no more buffers for the file. Process context, pub_lock held. */
void pmc_log_file_stop(struct pmc_log_state *log);
/*
 * Reap the writer and drop the file after pmc_log_file_stop(); @kill: give
 * up what is still queued. Process context, cfg_lock held, not pub_lock.
 */
void pmc_log_file_release(struct pmc_log_state *log, bool kill);

/* log_records.c: the executable path of @task in @buf, or NULL. Process context. */
char *pmc_task_exe_path(struct task_struct *task, char *buf, int len);

/*
 * log_maps.c: MAP_IN records of @task's mappings, written when the caller
 * returns to user space. Process context, any lock held.
 */
void pmc_log_queue_map_dump(struct pmc_log_state *log, struct task_struct *task);

/* ring.c: the mmap'd ring, under the log state's pub_lock. */
bool pmc_ring_put_record(struct pmc_ring *ring, const void *rec, u32 len);
void pmc_ring_commit(struct pmc_ring *ring);
/* Would a record of @len bytes fit now? */
bool pmc_ring_has_room(struct pmc_ring *ring, u32 len);
/* Unlink the ring of a dying log state. pub_lock held. */
void pmc_ring_detach(struct pmc_log_state *log);

/* sample.c: the per-CPU sample rings. Process context, at load/unload. */
int pmc_sample_init(void);
void pmc_sample_exit(void);
/*
 * Stage every entry committed to a sample ring before the call, on every
 * CPU, before returning: an IPI to each CPU whose ring is not empty, which
 * runs the ring's drain, and a wait for it. Every publishing pass begins
 * with one (pmc_log_pub_work()), as do the ops that read the log. Process
 * context, no spinlock held (a log's cfg_lock may be), not pub_lock.
 */
void pmc_sample_flush(void);
/*
 * Wait until every sample taken so far is staged (or dropped): in-flight
 * overflow handlers (RCU), then pmc_sample_flush(). Process context.
 */
void pmc_sample_sync(void);
/*
 * irq_work_queue(@work) on this CPU, and the irq_work interrupt at once to
 * run it, also on PREEMPT_RT where @work (not hard) could otherwise wait
 * for the tick behind another work. NMI-safe.
 */
void pmc_irq_work_raise(struct irq_work *work);
/*
 * The pl_tsc of the oldest entry still in a sample ring (any CPU, any
 * owner), or U64_MAX: records later than it wait for the next publishing
 * pass, so that the drain's records keep the stream in pl_tsc order.
 * Process context (the publisher).
 */
u64 pmc_sample_horizon(void);

/*
 * sample_ovf.c: an OVF_SIGNAL PMC overflowed in @task. Takes over the
 * references on @po and @task. Hard IRQ (the sample drain).
 */
void pmc_ovf_queue(struct pmc_owner *po, struct task_struct *task, u32 pmcid,
		   u32 group, u32 signo, u64 ip, u64 tsc);

#endif /* _PMC_LOG_PRIV_H */
