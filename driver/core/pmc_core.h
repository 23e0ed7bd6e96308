/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_core.h - the interface of core/: the hwpmc object model (owners, one
 * per open /dev/pmc file; PMCs and the rows they occupy), what the core
 * offers the other parts, and what it asks of log/ (declared here,
 * implemented there: docs/architecture.md, "The arrows").
 *
 * Owned by core/. Other parts may read the fields documented as stable
 * below; they add their own state through the pointers reserved for them
 * (struct pmc_owner.log). docs/core.md describes the whole model.
 */
#ifndef _PMC_CORE_H
#define _PMC_CORE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rcupdate.h>
#include <linux/perf_event.h>
#include <linux/task_work.h>
#include <linux/wait.h>

#include "base/pmc_base.h"

struct pmc_log_state;		/* pmc_log.h: log file, buffers and ring */
struct pid;

/*
 * struct pmc_owner - the owner of PMCs: the process that opened a /dev/pmc
 * file, through that file.
 * @pf:		the open file (NULL once the file is gone); under @lock
 * @tgid:	the owner process (a reference is held)
 * @lock:	serialises the owner's ops and everything below that says
 *		"under @lock" (process context only)
 * @pmcs:	its PMCs (struct pmc_obj.owner_link), under @lock
 * @log:	logging and ring state of log.c/ring.c, NULL until configured;
 *		set by log.c under @log_lock, cleared when the owner is dead
 * @dead:	torn down, under @lock: its PMCs are released, and its log
 *		goes without @lock (owner.c): a holder of @lock reads @log
 *		of a live owner only
 * @log_lock:	serialises the creation and the end of @log. Taken under
 *		@lock by the ops and without it by mmap() of the ring (which
 *		holds mmap_lock: @lock must never be taken there, an op holds
 *		it while it makes kernel counters, under perf's context
 *		mutex, which perf holds while it copies to user space).
 *		Nothing under it sleeps on anything but allocations.
 * @ring_wait:	the pollers of the owner's ring (log/ring.c): poll() and
 *		epoll on its file wait here, and a commit to this owner's
 *		ring wakes only them. In the owner, not in the log state:
 *		the file holds the owner until it is released, after epoll
 *		dropped its entries, so the queue outlives every waiter.
 *
 * Core-private fields follow; see owner.c. The owner's memory is freed with
 * kfree_rcu() once its last reference is gone, so a pointer read under
 * rcu_read_lock() from a PMC or a kernel counter stays valid to the end of
 * that read-side section.
 */
struct pmc_owner {
	struct pmc_file *pf;
	struct pid *tgid;
	struct mutex lock;
	struct list_head pmcs;
	struct pmc_log_state *log;
	struct mutex log_lock;
	bool log_closed;		/* the owner exited; under @log_lock */
	bool dead;
	wait_queue_head_t ring_wait;
	/* Core-private. */
	refcount_t refs;		/* pf, each PMC, each pending work */
	atomic_t exit_queued;		/* owner-exit task_work queued (once) */
	unsigned int nss;		/* system-sampling PMCs; under @lock */
	struct list_head link;		/* pmc_owners (RCU list) */
	struct callback_head exit_work;	/* owner exit, run in the dying task */
	struct rcu_head rcu;
};

/*
 * struct pmc_obj - one PMC. The fields below are stable: the sampling and
 * logging code reads them (from any context, NMI included, for the ones it
 * is given in an overflow handler); only the core writes them, and none of
 * them changes after PMCALLOCATE except @count (PMCSETCOUNT, under the
 * owner's lock, only while the PMC is not running).
 * @id:		the PMC id (PMC_ID_MAKE_ID)
 * @mode:	enum pmc_mode
 * @pmc_class:	enum pmc_class
 * @row:	global row index
 * @cpu:	CPU of a system-mode PMC, PMC_CPU_ANY for virtual ones
 * @flags:	PMC_F_* given at allocation
 * @caps:	PMC_CAP_* granted; USER and SYSTEM both set when the request
 *		named neither (both modes are counted)
 * @event:	the event code (pm_ev)
 * @group:	pm_group tag (0 = none)
 * @count:	sampling period, or initial/preset count of a counting PMC
 * @signo:	the PMC_F_OVF_SIGNAL signal number (0 without the flag)
 * @attr:	the perf attribute every kernel counter of this PMC is made from
 * @owner:	the owner
 * @kernel_ok:	the owner may see kernel addresses and kernel-mode counts
 *		(decided at allocation by the privilege checks)
 */
struct pmc_obj {
	u32 id;
	u32 mode;
	u32 pmc_class;
	u32 row;
	u32 cpu;
	u32 flags;
	u32 caps;
	u32 event;
	u32 group;
	u64 count;
	u32 signo;
	struct perf_event_attr attr;
	struct pmc_owner *owner;
	bool kernel_ok;
	struct list_head owner_link;
	/* Core-private state follows; see core.c. */
	u32 state;			/* enum pmc_state; under owner->lock */
	refcount_t refs;		/* owner list, targets, pending works */
	u64 accum;			/* value = accum + live counters */
	struct perf_event *sysev;	/* system-mode counter */
	struct list_head targets;	/* struct pmc_target, under owner->lock */
	struct list_head row_link;	/* rows.c: process PMCs of a row */
	bool attach_done;		/* attached at least once */
	bool msr_taken;			/* PMCGETMSR handed out the index */
	bool inherit;			/* target.c: counters perf inherits */
	struct list_head inh_ended;	/* target.c: their threads ended */
	/* book.c: the books of its threads (pmc_book_lock), closed at release */
	struct list_head books;
	bool books_closed;
	bool book_kp;			/* holds a reference on book.c's kprobe */
	u32 snapshot_us;		/* PMC_F_SNAPSHOT period */
	/*
	 * snapshot.c: @snap, the timer of its set on its CPU (system scope,
	 * while running), under owner->lock; @snap_whole, it counts one
	 * thread only (thread scope, no inherit), so a switch-out record
	 * carries the PMC's value: written under owner->lock, read by the
	 * sched_switch probe.
	 */
	struct pmc_snap *snap;
	bool snap_whole;
	struct rcu_head rcu;
};

struct pmc_snap;

/*
 * Every kernel counter the core creates for a sampling PMC (system or
 * per-thread), and every per-thread counter of a PMC_F_OVF_SIGNAL PMC, uses
 * pmc_sample_overflow() (pmc_log.h) as its overflow handler, with the struct
 * pmc_obj as overflow_handler_context. A PMC and its owner outlive every
 * kernel counter made for it.
 */

/*
 * pmc_owner_lock - the owner of @pf, locked (owner->lock held).
 * @create: create the owner if the file has none yet.
 *
 * Returns the owner, NULL if there is none and !@create, ERR_PTR(-EPERM) if
 * the caller is not the process that opened @pf, or ERR_PTR(-ENOMEM).
 * An owner already torn down (its process exited) is returned too, with
 * its PMCs gone; the caller cannot be its process then, so this happens
 * only for create == false paths that tolerate it.
 * Process context; may sleep.
 */
struct pmc_owner *pmc_owner_lock(struct pmc_file *pf, bool create);
/*
 * pmc_owner_find - the same, not locked: for mmap(), which holds mmap_lock
 * and so must not take owner->lock (see @log_lock). The owner stays valid
 * while @pf is open. Process context; may sleep (creation).
 */
struct pmc_owner *pmc_owner_find(struct pmc_file *pf, bool create);
/* Drop owner->lock taken by pmc_owner_lock(). Process context. */
void pmc_owner_unlock(struct pmc_owner *po);

/*
 * References on an owner, for work that outlives the ioctl or the overflow
 * that started it. pmc_owner_get() is safe in any context, NMI included,
 * given a pointer read from a PMC whose kernel counter is live (an overflow
 * handler's context). pmc_owner_put() in any context but NMI.
 */
void pmc_owner_get(struct pmc_owner *po);
void pmc_owner_put(struct pmc_owner *po);

/*
 * The PMC of @po with id @id, or NULL. @po->lock held (process context).
 */
struct pmc_obj *pmc_find_pmc(struct pmc_owner *po, u32 id);

/*
 * pmc_core_stop_group - stop every running PMC of @po whose pm_group tag is
 * @group (0 names no group and stops nothing), as PMCSTOP would; PMCSTART
 * re-arms them. pmc_core_stop_pmcid() stops one PMC by id (an ungrouped
 * OVF_SIGNAL PMC). Both take @po->lock themselves: the caller must not hold
 * it, and holds a reference on @po. No-op on an owner torn down.
 * Process context; may sleep.
 */
void pmc_core_stop_group(struct pmc_owner *po, u32 group);
void pmc_core_stop_pmcid(struct pmc_owner *po, u32 pmcid);

/*
 * The value of @pm as PMCRW and PMCREADSET return it (a system PMC's CPU
 * online). @po->lock held; process context (reads may sleep).
 */
u64 pmc_core_read_value(struct pmc_obj *pm);

/*
 * The self-read pages (selfread.c): mmap of /dev/pmc at
 * PMC_MMAP_SELFREAD_OFFSET(group) (ring.c hands such offsets here). Process
 * context, mmap_lock held.
 */
int pmc_selfread_mmap(struct pmc_file *pf, struct vm_area_struct *vma);

/*
 * Iterate the live owners (system-wide sampling owners have
 * READ_ONCE(po->nss) > 0). Under rcu_read_lock(); any context but NMI.
 */
extern struct list_head pmc_owners;
#define pmc_for_each_owner_rcu(po) \
	list_for_each_entry_rcu(po, &pmc_owners, link)

/* The ops of core/ (PMC objects, rows, targets). */
long pmc_op_getpmcinfo(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcadmin(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcallocate(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcattach(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcdetach(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcgetmsr(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcrelease(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcrw(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcsetcount(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcstart(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcstop(struct pmc_file *pf, void __user *arg);
long pmc_op_getcaps(struct pmc_file *pf, void __user *arg);
long pmc_op_pmcreadset(struct pmc_file *pf, void __user *arg);

/*
 * Hooks of the core (core.c, owner.c) called by dev/main.c: module init/exit and
 * the start and end of an open file. Process context.
 */
int pmc_core_init(void);
void pmc_core_exit(void);
int pmc_core_open_file(struct pmc_file *pf);
void pmc_core_release_file(struct pmc_file *pf);

/*
 * struct pmc_sec_caller - the caller's perf privileges, read once per
 * request by pmc_sec_caller_get() (process context; the paranoid level is
 * a procfs read, done only without CAP_PERFMON).
 * @priv:	CAP_PERFMON
 * @paranoid:	kernel.perf_event_paranoid (-1 when @priv)
 */
struct pmc_sec_caller {
	bool priv;
	int paranoid;
};
void pmc_sec_caller_get(struct pmc_sec_caller *sc);
/* pmc_sec_kernel_ok - may @sc count kernel mode? Any context. */
bool pmc_sec_kernel_ok(const struct pmc_sec_caller *sc);
/*
 * pmc_sec_allocate - may @sc allocate a PMC of @mode (counting kernel mode
 * if @counts_kernel)? 0 or -EPERM. Any context. perfmon/ applies the same
 * rules.
 */
int pmc_sec_allocate(const struct pmc_sec_caller *sc, u32 mode,
		     bool counts_kernel);

/*
 * Blocks for the work the fork and exec probes queue (core/probe_pool.c):
 * a tracepoint probe runs with preemption disabled, where PREEMPT_RT's
 * slab allocator may sleep, so the probes allocate and free nothing.
 * pmc_probe_block_get() returns PMC_PROBE_BLOCK_SIZE bytes (at least
 * @size) from this CPU's preallocated pool, or NULL when it is empty (the
 * caller counts the loss as it would a failed allocation); any context but
 * NMI and sched_switch (the rq lock held). pmc_probe_block_put() gives one
 * back; any context but NMI.
 */
#define PMC_PROBE_BLOCK_SIZE	104
void *pmc_probe_block_get(size_t size);
void pmc_probe_block_put(void *block);

/*
 * pmc_task_sampling_owners - call @fn(po, @arg) for the owner of each
 * sampling PMC that counts thread @task (an owner may come more than once).
 * Under rcu_read_lock(); any context but NMI (the map kprobes included).
 */
void pmc_task_sampling_owners(struct task_struct *task,
			      void (*fn)(struct pmc_owner *po, void *arg),
			      void *arg);

/*
 * ---------------------------------------------------------------------------
 * What the core asks of log/ (sampling, logging and the ring), implemented
 * there: record emission at the points hwpmc logs, the overflow handler,
 * the owner's log lifecycle and the map hooks. The core owns this contract
 * and log/ fulfils it, so the core includes nothing of log/ while log/
 * reads the objects above (docs/architecture.md, "Parts").
 *
 * Records go to the owner's log file and/or mmap'd ring, whichever exist;
 * with neither, the emitters do nothing. Every emitter is safe in the
 * context its comment names and never sleeps unless it says "process".
 * ---------------------------------------------------------------------------
 */
struct perf_sample_data;
struct pt_regs;
struct task_struct;

/*
 * Process context: the owner is going away (file released or owner exited)
 * after all its PMCs were stopped and released. Flushes and closes the log,
 * drops the ring's reference. Called with owner->lock held.
 */
void pmc_log_owner_exit(struct pmc_owner *po);

/*
 * Does the owner have a log file configured? (hwpmc's EDOOFUS rules for
 * starting system sampling or PROCCSW/PROCEXIT PMCs.) Process context,
 * owner->lock held.
 */
bool pmc_log_configured(struct pmc_owner *po);

/*
 * The owner's records are about to come from @ncpus CPUs at once (its
 * system-sampling PMCs start): keep a free log buffer for each of them
 * from now on, as a publishing pass does once it has counted them. The
 * pass can come tens of milliseconds after the start, while every CPU
 * fills its first buffer (a pool sized for one CPU staging lost samples
 * at the start of 10 kHz runs on 8 CPUs). Process context, owner->lock
 * held.
 */
void pmc_log_expect_cpus(struct pmc_owner *po, unsigned int ncpus);

/* Process context, owner->lock held. */
void pmc_log_pmcallocate(struct pmc_owner *po, struct pmc_obj *pm);
void pmc_log_pmcattach(struct pmc_owner *po, struct pmc_obj *pm,
		       struct task_struct *target);
void pmc_log_pmcdetach(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid);

/*
 * Scheduler-hook context (sched_switch: IRQs off, rq lock held; fork/exit/
 * exec probes: preemption off). No locks taken, no allocation: records are
 * staged per CPU and published later.
 */
void pmc_log_proccsw(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid,
		     pid_t tid, u64 delta);
void pmc_log_procexit(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid,
		      u64 value);
void pmc_log_procfork(struct pmc_owner *po, pid_t oldpid, pid_t newpid);
void pmc_log_sysexit(struct pmc_owner *po, pid_t pid);
/*
 * Exec probe of the task itself (@task == current, preemption off): the
 * PROCEXEC record (path, AT_BASE, PIE load address) and, for a sampling
 * PMC, the MAP_IN records of the new image are built by a task_work when
 * the task returns to user space, where the mm may be locked and read.
 * @pm NULL: for an owner with system-sampling PMCs (pl_pmcid is
 * PMC_ID_INVALID, mappings logged).
 */
void pmc_log_procexec(struct pmc_owner *po, struct pmc_obj *pm,
		      struct task_struct *task);

/*
 * A SNAPSHOT record (PMC_F_SNAPSHOT): @pm's @value, counted on @cpu (by
 * thread @tid, 0 for system scope), at @tsc (CLOCK_MONOTONIC ns, shared by
 * the records of one set). Any context but NMI (hrtimer, sched_switch with
 * the rq lock held, process); stages only.
 */
void pmc_log_snapshot(struct pmc_owner *po, struct pmc_obj *pm, u32 cpu,
		      pid_t tid, u64 value, u64 tsc);

/*
 * A SNAPSET record: the values of the running PMCs of set @group (not 0),
 * counted on @cpu (by thread @tid, 0 for system scope), at @tsc, one
 * record for the set. @fill writes up to @n entries into @ents and returns
 * how many it wrote: it runs with the record staged (IRQs off, the CPU's
 * raw staging lock held), so it reads counters and takes no lock. Same
 * contexts as pmc_log_snapshot(); stages only.
 */
struct pmclog_snapset_entry;
typedef unsigned int (*pmc_snapset_fill_t)(void *arg,
					   struct pmclog_snapset_entry *ents,
					   unsigned int n);
void pmc_log_snapset(struct pmc_owner *po, u32 group, u32 cpu, pid_t tid,
		     u64 tsc, unsigned int n, pmc_snapset_fill_t fill,
		     void *arg);

/*
 * The overflow handler of every sampling kernel counter; its
 * overflow_handler_context is the struct pmc_obj. NMI context on x86
 * hardware, hard IRQ for hrtimer software events, inline for others.
 */
void pmc_sample_overflow(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs);

/*
 * A sampling owner needs the map hooks (log/map_hooks.c): register them if
 * they are not (they stay while any owner has a log, and a short while
 * after). pmc_map_hooks_want(): process context, no driver lock held
 * (registration takes kprobe and text locks); pmc_map_hooks_want_async():
 * any context but NMI, registration is left to a work.
 */
void pmc_map_hooks_want(void);
void pmc_map_hooks_want_async(void);

#endif /* _PMC_CORE_H */
