/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_core_priv.h - private to core/: what its files (core.c, owner.c,
 * rows.c, target.c, event.c, sched_hooks.c, security.c, snapshot.c,
 * selfread.c) share and no other part includes (mk/check-layout.py):
 * targets, per-thread counters, rows, scheduler hooks, snapshots,
 * self-read pages and privilege checks.
 *
 * Locking, outermost first (docs/core.md has the picture):
 *   pmc_file.lock -> pmc_owner.lock -> pmc_rows_lock -> pmc_hooks_lock
 *   -> (perf and tracepoint internals)
 *   pmc_owner.lock -> pmc_hash_lock (spinlock, innermost)
 * The scheduler probes take no lock: they walk the RCU hash tables and
 * the owner list under rcu_read_lock().
 */
#ifndef _PMC_CORE_PRIV_H
#define _PMC_CORE_PRIV_H

#include "pmc_core.h"
#include "debug/pmc_debug.h"

#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

struct linux_binprm;

/*
 * struct pmc_target - a process (or, with PMC_ATTACH_F_THREAD, a thread)
 * a virtual PMC is attached to.
 * @pm:		the PMC (a reference is held)
 * @pid:	tgid of a process target, pid of a thread target (ref held)
 * @thread:	thread scope (PMC_ATTACH_F_THREAD)
 * @inherit:	thread scope: threads the thread creates are counted too
 * @owner_priv:	the owner had CAP_SYS_PTRACE when it attached: the target
 *		stays attached across a setuid/setgid exec
 * @accum:	counts of the target's exited threads (per-target value,
 *		PROCEXIT); under the owner's lock
 * @threads:	struct pmc_thr of its counted threads, under the owner's lock
 * @pm_link:	in pm->targets, under the owner's lock
 * @hnode:	in pmc_proc_hash (process targets only), keyed by @pid
 * @dead:	detached; under the owner's lock
 * @refs:	pm->targets, each struct pmc_thr, each pending work
 *
 * Freed with kfree_rcu(): the fork probe reads it under rcu_read_lock().
 */
struct pmc_target {
	struct pmc_obj *pm;
	struct pid *pid;
	bool thread;
	bool inherit;
	bool owner_priv;
	bool dead;
	bool hashed;
	u64 accum;
	struct list_head threads;
	struct list_head pm_link;
	struct hlist_node hnode;
	refcount_t refs;
	struct rcu_head rcu;
};

/*
 * struct pmc_thr - one counted thread of a target: its kernel counter.
 * @task:	the thread (a reference is held)
 * @tgt:	its target (a reference is held)
 * @event:	the per-thread kernel counter; NULL once released
 * @last_csw:	counter value at the thread's last switch-out (PROCCSW);
 *		written only by the sched_switch probe of @task
 * @last_snap:	CLOCK_MONOTONIC ns of the thread's last SNAPSHOT record;
 *		written only by the sched_switch probe of @task
 * @inh_off:	inherited counter (pm->inherit), running: what its value
 *		adds to the counter's (target.c, pmc_thr_value())
 * @inh_frozen:	inherited counter, stopped: its value
 * @inh_on:	inherited counter: the PMC runs (@inh_off applies)
 * @inh_ended:	inherited counter whose thread ended (exit, setuid exec,
 *		detach): out of the hash, on pm->inh_ended until release
 * @hnode:	in pmc_thr_hash, keyed by @task, under pmc_hash_lock (RCU)
 * @switch_parts: PMC_THR_SW_* bits: the parts of the sched_switch probe
 *		that have work for it while hashed (pmc_thr_switch_live)
 * @tgt_link:	in tgt->threads (pm->inh_ended once ended), under the
 *		owner's lock
 * @dead:	counter folded and released; under the owner's lock
 * @exec_detach: the exec work detaches the target (else renews the
 *		counter); written by the exec probe before it queues the work
 * @work_flags:	PMC_THR_EXIT_QUEUED / PMC_THR_EXEC_QUEUED
 * @exit_work:	fold at thread exit, run by the exiting thread
 * @exec_work:	setuid/setgid exec check, run before return to user space
 * @refs:	the target's list, each queued work
 */
struct pmc_thr {
	struct task_struct *task;
	struct pmc_target *tgt;
	struct perf_event *event;
	u64 last_csw;
	u64 last_snap;
	u64 inh_off;
	u64 inh_frozen;
	bool inh_on;
	bool inh_ended;
	u8 switch_parts;
	struct hlist_node hnode;
	struct list_head tgt_link;
	bool dead;
	bool exec_detach;
	unsigned long work_flags;
	struct callback_head exit_work;
	struct callback_head exec_work;
	refcount_t refs;
	struct rcu_head rcu;
};

#define PMC_THR_EXIT_QUEUED	0
#define PMC_THR_EXEC_QUEUED	1

/* Global hash tables of targets, read by the scheduler probes. */
extern spinlock_t pmc_hash_lock;
extern struct hlist_head *pmc_thr_hash;
extern struct hlist_head *pmc_proc_hash;
extern unsigned int pmc_hash_bits;
struct hlist_head *pmc_thr_bucket(const struct task_struct *task);
struct hlist_head *pmc_proc_bucket(const struct pid *pid);
/* Entries of @tsk's bucket: callers skip those whose ->task is not @tsk. */
#define pmc_for_each_thr_rcu(thr, tsk) \
	hlist_for_each_entry_rcu(thr, pmc_thr_bucket(tsk), hnode)

/*
 * The parts of the sched_switch probe that walk pmc_thr_hash, and how many
 * hashed threads each has work for: the probe skips a part while its count
 * is zero, so a switch costs only what the PMCs alive ask for (book mode,
 * 4c in docs/performance.md, walks the books alone). Written under
 * pmc_hash_lock; a thread is counted before it is hashed, and a probe that
 * runs the part finds it.
 */
enum pmc_thr_switch_part {
	PMC_THR_SW_CSW,		/* pmc_target_switch_probe(): PROCCSW */
	PMC_THR_SW_SNAP,	/* pmc_snap_switch_probe(): SNAPSHOT */
	PMC_THR_SW_NPARTS
};
extern atomic_t pmc_thr_switch_live[PMC_THR_SW_NPARTS];

/*
 * Live objects of each kind, for the leak check at module unload (every
 * one is gone by then: files hold the module, works hold the module).
 */
enum pmc_obj_kind { PMC_LIVE_OWNER, PMC_LIVE_PMC, PMC_LIVE_TARGET,
		    PMC_LIVE_THREAD, PMC_LIVE_NKINDS };
extern atomic_t pmc_live[PMC_LIVE_NKINDS];

/* owner.c */
extern spinlock_t pmc_owners_lock;
void pmc_owner_exit_probe(struct task_struct *task);
pid_t pmc_owner_pid_nr(struct pmc_owner *po, struct task_struct *task,
		       bool tgid);

/* core.c */
void pmc_obj_put(struct pmc_obj *pm);
void pmc_release_pmc(struct pmc_obj *pm);
int pmc_stop_pmc(struct pmc_obj *pm);

/* rows.c: dispositions and admin state of the rows. */
int pmc_rows_init(void);
void pmc_rows_exit(void);
int pmc_row_allocate(struct pmc_obj *pm, const struct pmc_classdesc *cd,
		     int fixed_row);
void pmc_row_release(struct pmc_obj *pm);
bool pmc_cpu_is_valid(u32 cpu);

/* event.c: descriptors, kernel counters, values. */
int pmc_event_attr(struct pmc_obj *pm, const struct pmc_op_pmcallocate *pa,
		   const struct pmc_classdesc *cd, int *fixed_row);
struct perf_event *pmc_event_create(struct pmc_obj *pm, int cpu,
				    struct task_struct *task, bool enabled);
void pmc_event_release(struct perf_event *event);
u64 pmc_event_read(struct perf_event *event);
u64 pmc_event_ovf_period(const struct pmc_obj *pm, u64 value);
int pmc_event_errno(int err);
bool pmc_class_is_hw(u32 pmc_class);
u64 pmc_tsc_read_cpu(int cpu);

/*
 * Can @event be read here without perf's locks? perf_event_read_local()'s
 * rule, which a module cannot call (not exported): a counter of the
 * calling thread, or one of this CPU, not inherited. With IRQs off such a
 * counter can be neither scheduled in or out nor rotated, nor be active
 * anywhere but here. Called with IRQs off.
 */
static inline bool pmc_event_is_local(struct perf_event *event)
{
	if (event->attr.inherit)
		return false;
	if (event->attach_state & PERF_ATTACH_TASK)
		return event->hw.target == current;
	return event->cpu == smp_processor_id();
}

/*
 * A counter of the calling thread or of this CPU (the self-attached PMC,
 * the system PMC of the reader's CPU) is read as perf_event_read_local()
 * would: the PMU's read brings it up to date if it is active here, and a
 * counter that is not active does not move. True with its value in
 * *@value; false, nothing read, for any other counter. IRQs off (a reader
 * of several takes them all in one pass, as perf reads a group). Inline:
 * PMCREADSET's pass (core.c) reads each counter of a set with it.
 */
static inline bool pmc_event_read_irqoff(struct perf_event *event, u64 *value)
{
	if (!pmc_event_is_local(event))
		return false;
	if (READ_ONCE(event->oncpu) == smp_processor_id())
		event->pmu->read(event);
	*value = local64_read(&event->count) +
		 atomic64_read(&event->child_count);
	return true;
}

/* target.c: attach, detach, per-thread counters, fork/exit/exec work. */
int pmc_target_init(void);
void pmc_target_exit(void);
int pmc_attach(struct pmc_obj *pm, pid_t pid, u32 flags);
int pmc_attach_self(struct pmc_obj *pm);
int pmc_detach(struct pmc_obj *pm, pid_t pid, u32 flags);
void pmc_detach_all(struct pmc_obj *pm);
bool pmc_virtual_attached(struct pmc_obj *pm);

/*
 * The overflow handler of inherited counters (event.c), never called: it
 * marks them, and the children perf makes of them, as a PMC's, the
 * handler's context (inherit_event() copies both, reference/linux.md 1.7).
 */
void pmc_inherit_mark(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs);

/*
 * The PMC counting with @event if it is an inherited counter of pmc or a
 * child of one, else NULL. Under rcu_read_lock() (the PMC is freed after
 * a grace period, once its counters are released). Inline: the books'
 * switch probe asks it of each counter in the thread's context.
 */
static inline struct pmc_obj *pmc_event_inherit_pmc(struct perf_event *event)
{
	struct perf_event *root = READ_ONCE(event->parent) ?: event;

	if (READ_ONCE(root->overflow_handler) != pmc_inherit_mark)
		return NULL;
	return root->overflow_handler_context;
}

void pmc_virtual_enable(struct pmc_obj *pm, bool enable);
u64 pmc_virtual_read(struct pmc_obj *pm);
int pmc_virtual_set_period(struct pmc_obj *pm, u64 period);
struct perf_event *pmc_virtual_self_event(struct pmc_obj *pm);
bool pmc_virtual_only_owner(struct pmc_obj *pm);
void pmc_target_fork_probe(struct task_struct *parent,
			   struct task_struct *child);
void pmc_target_exit_probe(struct task_struct *task);
void pmc_target_exec_probe(struct task_struct *task,
			   struct linux_binprm *bprm);
void pmc_target_switch_probe(struct task_struct *prev);

/*
 * What @thr's counter, read as @value, adds to its PMC's value. An inherited
 * counter (pm->inherit) is never disabled: perf's children copy the state
 * of the counter at fork and perf_event_disable() does not reach them, so
 * PMCSTOP and PMCSTART move the value by arithmetic instead
 * (pmc_virtual_enable()): running, the counter's value plus @inh_off;
 * stopped, @inh_frozen. Owner's lock held.
 */
static inline u64 pmc_thr_adjust(const struct pmc_thr *thr, u64 value)
{
	if (!thr->tgt->pm->inherit)
		return value;
	return thr->inh_on ? value + thr->inh_off : thr->inh_frozen;
}

/*
 * Add what @pm's live counters count now to *@sum, each read by
 * pmc_event_read() or, with @irqoff (IRQs off), by pmc_event_read_irqoff():
 * then false, *@sum untouched, at the first that is not the caller's.
 * Owner's lock held. Always inline: each caller gets the loop for its
 * constant @irqoff (PMCREADSET's pass runs it for every PMC of a set).
 */
static __always_inline bool pmc_virtual_sum_live(struct pmc_obj *pm,
						 bool irqoff, u64 *sum)
{
	struct pmc_target *tgt;
	struct pmc_thr *thr;
	u64 v, total = *sum;

	list_for_each_entry(tgt, &pm->targets, pm_link) {
		list_for_each_entry(thr, &tgt->threads, tgt_link) {
			if (!irqoff)
				v = pmc_event_read(thr->event);
			else if (!pmc_event_read_irqoff(thr->event, &v))
				return false;
			v = pmc_thr_adjust(thr, v);
			pmc_dbg(PMC_DBG_MD, PMC_DBG_READ, pm->id,
				task_pid_nr(thr->task), -1, v);
			total += v;
		}
	}
	*sum = total;
	return true;
}

/*
 * pmc_virtual_read() in a reader's IRQs-off pass: true with the value when
 * every counter it sums is the calling thread's and none has ended (their
 * prune may sleep); false, for pmc_virtual_read() to read it, otherwise.
 * Owner's lock held, IRQs off. Inline: PMCREADSET's pass (core.c) calls
 * it for every PMC of a set.
 */
static inline bool pmc_virtual_read_irqoff(struct pmc_obj *pm, u64 *value)
{
	u64 sum = pm->accum;

	if (!list_empty(&pm->inh_ended) || !pmc_virtual_sum_live(pm, true, &sum))
		return false;
	*value = sum;
	return true;
}

/*
 * snapshot.c: PMC_F_SNAPSHOT records. Process context, owner's lock held,
 * except pmc_snap_switch_probe() (sched_switch: @prev is current, IRQs
 * off, rq lock held).
 */
int pmc_snap_check(struct pmc_owner *po, const struct pmc_obj *pm);
int pmc_snap_start(struct pmc_obj *pm);
void pmc_snap_stop(struct pmc_obj *pm);
void pmc_snap_final(struct pmc_obj *pm, u64 tsc);
void pmc_snap_set_changed(struct pmc_obj *pm);
void pmc_snap_targets_changed(struct pmc_obj *pm);
void pmc_snap_switch_probe(struct task_struct *prev);

/*
 * selfread.c: the self-read pages. pmc_selfread_update() rebuilds the
 * pages of (@po, @group) after an op changed a PMC of the set (process
 * context, owner's lock held); the probe updates the pages of @prev and
 * @next at a context switch (sched_switch context).
 */
void pmc_selfread_update(struct pmc_owner *po, u32 group);
void pmc_selfread_switch_probe(struct task_struct *prev,
			       struct task_struct *next);
void pmc_selfread_exit(void);

/*
 * kp_ref.c: a kprobe on @symbol registered while it has users (get: 0 or
 * the errno of register_kprobe(), which is logged naming @what; put: the
 * last user's unregisters it from a work; exit: module unload). Process
 * context. Define one with PMC_KP_REF(name, symbol, handler, what).
 */
struct pmc_kp_ref {
	struct kprobe kp;
	const char *symbol;
	kprobe_pre_handler_t pre;
	const char *what;
	struct mutex lock;
	unsigned int users;
	bool on;
	struct work_struct idle;
};
void pmc_kp_ref_idle_fn(struct work_struct *work);
#define PMC_KP_REF(name, sym, handler, desc)				\
	struct pmc_kp_ref name = {					\
		.symbol = sym,						\
		.pre = handler,						\
		.what = desc,						\
		.lock = __MUTEX_INITIALIZER(name.lock),			\
		.idle = __WORK_INITIALIZER(name.idle, pmc_kp_ref_idle_fn), \
	}
int pmc_kp_ref_get(struct pmc_kp_ref *r);
void pmc_kp_ref_put(struct pmc_kp_ref *r);
void pmc_kp_ref_exit(struct pmc_kp_ref *r);

/*
 * book.c: per-thread PROCCSW/PROCEXIT bookkeeping of inherited DESCENDANTS
 * PMCs. The probes: tracepoint context (sched_switch: @prev is current,
 * IRQs off, rq lock held); pmc_book_add(), pmc_bproc_new() and
 * pmc_bproc_put(): any context but NMI and sched_switch; the rest: process
 * context.
 */
struct pmc_bproc;
bool pmc_book_wanted(const struct pmc_obj *pm);
int pmc_book_kp_get(void);
void pmc_book_kp_put(void);
struct pmc_bproc *pmc_bproc_new(void);
void pmc_bproc_put(struct pmc_bproc *proc);
bool pmc_book_add(struct pmc_obj *pm, struct task_struct *task,
		  struct pmc_bproc *proc);
void pmc_book_forget(struct pmc_obj *pm, struct task_struct *task);
void pmc_book_release_pm(struct pmc_obj *pm);
void pmc_book_enable(struct pmc_obj *pm, bool enable);
void pmc_book_switch_probe(struct task_struct *prev);
void pmc_book_fork_probe(struct task_struct *parent, struct task_struct *child);
void pmc_book_exit_probe(struct task_struct *task);
void pmc_book_exit(void);

/* probe_pool.c: the blocks of pmc_probe_block_get(). Process context. */
int pmc_probe_pool_init(void);
void pmc_probe_pool_exit(void);

/* sched_hooks.c: tracepoint registration. */
int pmc_hooks_init(void);
void pmc_hooks_exit(void);
int pmc_hooks_get(void);		/* fork/exec/exit probes */
void pmc_hooks_put(void);
int pmc_switch_hook_get(void);		/* sched_switch probe */
void pmc_switch_hook_put(void);

/* target.c: is @pm attached to a process other than its owner's? */
bool pmc_virtual_targets_others(struct pmc_obj *pm);

/* security.c */
void pmc_sec_init(void);		/* finds ptrace_may_access() */
int pmc_sec_may_attach(struct task_struct *task);
bool pmc_sec_owner_privileged(void);
int pmc_sec_admin(void);
bool pmc_sec_exec_changes_creds(struct task_struct *task,
				struct linux_binprm *bprm);

#endif /* _PMC_CORE_PRIV_H */
