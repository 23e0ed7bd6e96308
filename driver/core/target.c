// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - what virtual (process-mode) PMCs count: their targets
 * (processes, or threads with PMC_ATTACH_F_THREAD), one non-inherited
 * kernel counter per counted thread, attach and detach, and the scheduler
 * work that keeps targets right across fork, exec and exit. A counting
 * DESCENDANTS PMC that needs no per-process count (pmc_may_inherit())
 * has inherited counters instead: perf's children count the descendants
 * (pm->inherit, pmc_thr_value(), pmc_thr_end_inherited()); one that logs
 * PROCCSW or PROCEXIT keeps per-thread books beside them (book.c).
 *
 * A PMC's value is pm->accum (written value, counts of exited and detached
 * threads) plus the live per-thread counters; a target's value (PROCEXIT)
 * is tgt->accum plus its live counters. Counters are created, read and
 * released in process context under the owner's lock: by the ops, and by
 * task_work queued from the probes and run by the thread concerned:
 *   - fork: the child (thread or process) gets its counter before it first
 *     returns to user space (TWA_RESUME work queued on the child);
 *   - exit: the exiting thread folds its final count into the PMC and its
 *     target, and a process target whose last thread exits is detached
 *     after its PROCEXIT record (work run in do_exit()'s exit_task_work());
 *   - exec: a target whose exec raised its privileges is detached before it
 *     returns to user space, unless its owner is privileged (its counter,
 *     ended by the kernel at that exec, is then made anew).
 * Every queued work holds a reference on what it uses and on the module
 * (task_work_cancel() is not exported, so works always run).
 *
 * Probe functions (pmc_target_*_probe) run in tracepoint context: see
 * sched_hooks.c. Everything else: process context.
 */
#include "pmc_core_priv.h"

#include <linux/hash.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "compat/perf_ctx.h"
#include "compat/task_work.h"

/*
 * The targets by task (pmc_thr_hash, struct pmc_thr) and by tgid
 * (pmc_proc_hash, process targets). Readers: rcu_read_lock(), any context
 * but NMI. Writers: pmc_hash_lock, taken inside an owner's lock (process
 * context; never by a probe). Entries are freed with kfree_rcu().
 */
DEFINE_SPINLOCK(pmc_hash_lock);
struct hlist_head *pmc_thr_hash;
struct hlist_head *pmc_proc_hash;
unsigned int pmc_hash_bits;
atomic_t pmc_thr_switch_live[PMC_THR_SW_NPARTS];

struct hlist_head *pmc_thr_bucket(const struct task_struct *task)
{
	return &pmc_thr_hash[hash_ptr(task, pmc_hash_bits)];
}

struct hlist_head *pmc_proc_bucket(const struct pid *pid)
{
	return &pmc_proc_hash[hash_ptr(pid, pmc_hash_bits)];
}

int pmc_target_init(void)
{
	unsigned int buckets;

	/* hashsize x 64 buckets: 1024 by default, hwpmc's current size. */
	buckets = roundup_pow_of_two(clamp(pmc_hashsize, 1, 1024) * 64);
	pmc_hash_bits = ilog2(buckets);
	pmc_thr_hash = kvcalloc(buckets, sizeof(*pmc_thr_hash), GFP_KERNEL);
	pmc_proc_hash = kvcalloc(buckets, sizeof(*pmc_proc_hash), GFP_KERNEL);
	if (!pmc_thr_hash || !pmc_proc_hash) {
		pmc_target_exit();
		return -ENOMEM;
	}
	return 0;
}

void pmc_target_exit(void)
{
	unsigned int part;

	for (part = 0; part < PMC_THR_SW_NPARTS; part++)
		WARN_ON_ONCE(atomic_read(&pmc_thr_switch_live[part]));
	kvfree(pmc_proc_hash);
	kvfree(pmc_thr_hash);
	pmc_proc_hash = NULL;
	pmc_thr_hash = NULL;
}

/* ------------------------------------------------------------ objects */

/*
 * Context: an RCU callback (softirq; a preemptible kthread on PREEMPT_RT),
 * a grace period after the last reference went.
 */
static void pmc_target_free_rcu(struct rcu_head *rcu)
{
	struct pmc_target *tgt = container_of(rcu, struct pmc_target, rcu);

	put_pid(tgt->pid);
	pmc_obj_put(tgt->pm);
	atomic_dec(&pmc_live[PMC_LIVE_TARGET]);
	kfree(tgt);
}

/*
 * Context: any but NMI. A probe's reference may be the last one (the
 * target detached meanwhile, without a grace period), and put_pid() frees
 * to a slab, which on PREEMPT_RT takes sleeping locks: the references the
 * target holds are dropped by an RCU callback (pmc_core_exit() waits for
 * them with rcu_barrier()).
 */
static void pmc_target_put(struct pmc_target *tgt)
{
	if (refcount_dec_and_test(&tgt->refs))
		call_rcu(&tgt->rcu, pmc_target_free_rcu);
}

/*
 * Context: any but NMI (put_task_struct() defers to RCU on PREEMPT_RT when
 * not preemptible; pmc_target_put() and kfree_rcu() are safe anywhere).
 */
static void pmc_thr_put(struct pmc_thr *thr)
{
	if (!refcount_dec_and_test(&thr->refs))
		return;
	put_task_struct(thr->task);
	pmc_target_put(thr->tgt);
	atomic_dec(&pmc_live[PMC_LIVE_THREAD]);
	kfree_rcu(thr, rcu);
}

/* The parts of the sched_switch probe with work for a thread of @pm. */
static u8 pmc_thr_switch_parts(const struct pmc_obj *pm)
{
	u8 parts = 0;

	/* Inherited counters log PROCCSW from their books (book.c). */
	if ((pm->flags & PMC_F_LOG_PROCCSW) && !pm->inherit)
		parts |= BIT(PMC_THR_SW_CSW);
	if (pm->flags & PMC_F_SNAPSHOT)
		parts |= BIT(PMC_THR_SW_SNAP);
	return parts;
}

/* Put @thr in pmc_thr_hash, counted by the switch parts it needs. */
static void pmc_thr_hash_add(struct pmc_thr *thr)
{
	unsigned int part;

	spin_lock(&pmc_hash_lock);
	thr->switch_parts = pmc_thr_switch_parts(thr->tgt->pm);
	for (part = 0; part < PMC_THR_SW_NPARTS; part++)
		if (thr->switch_parts & BIT(part))
			atomic_inc(&pmc_thr_switch_live[part]);
	hlist_add_head_rcu(&thr->hnode, pmc_thr_bucket(thr->task));
	spin_unlock(&pmc_hash_lock);
}

/* Take @thr out of pmc_thr_hash if it is there. */
static void pmc_thr_hash_del(struct pmc_thr *thr)
{
	unsigned int part;

	spin_lock(&pmc_hash_lock);
	if (!hlist_unhashed(&thr->hnode)) {
		hlist_del_init_rcu(&thr->hnode);
		for (part = 0; part < PMC_THR_SW_NPARTS; part++)
			if (thr->switch_parts & BIT(part))
				atomic_dec(&pmc_thr_switch_live[part]);
	}
	spin_unlock(&pmc_hash_lock);
}

/* The live counter of @pm for @task, or NULL. Under rcu_read_lock(). */
static struct pmc_thr *pmc_thr_find(const struct pmc_obj *pm,
				    struct task_struct *task)
{
	struct pmc_thr *thr;

	pmc_for_each_thr_rcu(thr, task)
		if (thr->task == task && thr->tgt->pm == pm &&
		    !READ_ONCE(thr->dead))
			return thr;
	return NULL;
}

/*
 * A target of @pm for @pid, whose reference it takes over (dropped here if
 * there is no memory for the target). Owner's lock held.
 */
static struct pmc_target *pmc_target_new(struct pmc_obj *pm, struct pid *pid,
					 bool thread, bool inherit,
					 bool owner_priv)
{
	struct pmc_target *tgt;

	tgt = kzalloc(sizeof(*tgt), GFP_KERNEL);
	if (!tgt) {
		put_pid(pid);
		return NULL;
	}
	tgt->pm = pm;
	refcount_inc(&pm->refs);
	tgt->pid = pid;
	tgt->thread = thread;
	tgt->inherit = inherit;
	tgt->owner_priv = owner_priv;
	INIT_LIST_HEAD(&tgt->threads);
	refcount_set(&tgt->refs, 1);	/* pm->targets */
	atomic_inc(&pmc_live[PMC_LIVE_TARGET]);
	list_add_tail(&tgt->pm_link, &pm->targets);
	if (!thread) {
		spin_lock(&pmc_hash_lock);
		hlist_add_head_rcu(&tgt->hnode, pmc_proc_bucket(pid));
		spin_unlock(&pmc_hash_lock);
		tgt->hashed = true;
	}
	pmc_dbg(PMC_DBG_PROCESS, PMC_DBG_LINKTARGET, pm->id, pid_nr(pid), -1,
		thread);
	return tgt;
}

/* The live target of @pm for @pid (@thread scope or not), or NULL. */
static struct pmc_target *pmc_target_find(struct pmc_obj *pm, struct pid *pid,
					  bool thread)
{
	struct pmc_target *tgt;

	list_for_each_entry(tgt, &pm->targets, pm_link)
		if (tgt->pid == pid && tgt->thread == thread)
			return tgt;
	return NULL;
}

/* What @thr's counter @event adds now. Owner's lock held, process context. */
static u64 pmc_thr_value(struct pmc_thr *thr, struct perf_event *event)
{
	return pmc_thr_adjust(thr, pmc_event_read(event));
}

/*
 * Stop counting @thr: fold its count into its PMC and target, release its
 * counter, drop it. Owner's lock held.
 */
static void pmc_thr_fold(struct pmc_thr *thr)
{
	struct pmc_target *tgt = thr->tgt;
	struct perf_event *event = thr->event;
	u64 value;

	if (thr->dead)
		return;
	WRITE_ONCE(thr->dead, true);
	pmc_thr_hash_del(thr);
	list_del(&thr->tgt_link);
	/*
	 * The sched_switch probe may still hold the counter under RCU; perf
	 * frees events after a grace period, and the probe checks its state.
	 */
	WRITE_ONCE(thr->event, NULL);
	perf_event_disable(event);
	value = pmc_thr_value(thr, event);
	pmc_event_release(event);
	pmc_dbg(PMC_DBG_MD, PMC_DBG_RELEASE, tgt->pm->id,
		task_pid_nr(thr->task), -1, value);
	tgt->pm->accum += value;
	tgt->accum += value;
	pmc_thr_put(thr);
}

/*
 * The thread of @thr, an inherited counter, is no longer counted by it:
 * it exited, a setuid exec ended its counters, or its target was detached
 * (@disable: the counter counts the thread no more, nor the children it
 * forks from now on). The children perf made of the counter still count
 * into it: it leaves the hash and its target for pm->inh_ended, where it
 * is read until the PMC is released. Owner's lock held.
 */
static void pmc_thr_end_inherited(struct pmc_thr *thr, bool disable)
{
	thr->inh_ended = true;
	if (disable)
		perf_event_disable(thr->event);
	pmc_thr_hash_del(thr);
	list_move_tail(&thr->tgt_link, &thr->tgt->pm->inh_ended);
}

/*
 * Is @thr, an ended inherited counter, final: its own thread counts no more
 * (the thread exited, or a detach disabled the counter) and no child of it
 * is left? Nothing can add to it then. Owner's lock held.
 */
static bool pmc_thr_inh_final(struct pmc_thr *thr)
{
	struct perf_event *event = thr->event;
	bool final;

	if (READ_ONCE(event->state) > PERF_EVENT_STATE_OFF)
		return false;
	mutex_lock(&event->child_mutex);
	final = list_empty(&event->child_list);
	mutex_unlock(&event->child_mutex);
	return final;
}

/*
 * Fold the ended inherited counters of @pm that are final into its value:
 * each held its counter, its target and its thread's task_struct, and a
 * PMC attached again and again to processes that exit kept them all until
 * its release. Owner's lock held, process context.
 */
static void pmc_inh_prune(struct pmc_obj *pm)
{
	struct pmc_thr *thr, *tmp;

	list_for_each_entry_safe(thr, tmp, &pm->inh_ended, tgt_link)
		if (pmc_thr_inh_final(thr))
			pmc_thr_fold(thr);
}

/* Stop counting @thr's thread: fold it, or end it if inherited. */
static void pmc_thr_stop(struct pmc_thr *thr, bool disable)
{
	if (thr->tgt->pm->inherit)
		pmc_thr_end_inherited(thr, disable);
	else
		pmc_thr_fold(thr);
}

static void pmc_thr_exit_work(struct callback_head *cb);
static void pmc_thr_exec_work(struct callback_head *cb);

/*
 * Count @task for @tgt: create its counter (enabled if the PMC runs).
 * A task already counted by the PMC is left alone; one that is exiting
 * is skipped. Owner's lock held.
 */
static int pmc_thr_attach(struct pmc_target *tgt, struct task_struct *task)
{
	struct pmc_obj *pm = tgt->pm;
	struct perf_event *event;
	struct pmc_thr *thr;
	bool counted;

	if (task->flags & (PF_KTHREAD | PF_IO_WORKER))
		return 0;
	rcu_read_lock();
	counted = pmc_thr_find(pm, task);
	rcu_read_unlock();
	if (counted)
		return 0;

	thr = kzalloc(sizeof(*thr), GFP_KERNEL);
	if (!thr)
		return -ENOMEM;
	event = pmc_event_create(pm, -1, task,
				 pm->inherit || pm->state == PMC_STATE_RUNNING);
	if (IS_ERR(event)) {
		kfree(thr);
		/* The task is past perf_event_exit_task(): nothing to count. */
		return PTR_ERR(event) == -ESRCH ? 0 : PTR_ERR(event);
	}
	thr->task = get_task_struct(task);
	thr->tgt = tgt;
	refcount_inc(&tgt->refs);
	thr->event = event;
	thr->inh_on = pm->state == PMC_STATE_RUNNING;
	refcount_set(&thr->refs, 1);	/* tgt->threads and the hash */
	atomic_inc(&pmc_live[PMC_LIVE_THREAD]);
	init_task_work(&thr->exit_work, pmc_thr_exit_work);
	init_task_work(&thr->exec_work, pmc_thr_exec_work);
	list_add_tail(&thr->tgt_link, &tgt->threads);
	pmc_thr_hash_add(thr);

	/*
	 * A thread that started exiting before it was hashed may have missed
	 * its exit probe: its count is (nearly) final, fold it now.
	 */
	if (READ_ONCE(task->flags) & PF_EXITING)
		pmc_thr_stop(thr, true);
	return 0;
}

/*
 * Detach @tgt from its PMC: fold and release its counters, and log the
 * detach if @log (not for an attach that failed half-way). Owner's lock
 * held.
 */
static void pmc_target_detach(struct pmc_target *tgt, bool log)
{
	struct pmc_obj *pm = tgt->pm;
	struct pmc_owner *po = pm->owner;
	struct pmc_thr *thr, *tmp;

	if (tgt->dead)
		return;
	WRITE_ONCE(tgt->dead, true);
	if (tgt->hashed) {
		spin_lock(&pmc_hash_lock);
		hlist_del_rcu(&tgt->hnode);
		spin_unlock(&pmc_hash_lock);
	}
	list_for_each_entry_safe(thr, tmp, &tgt->threads, tgt_link) {
		if (pm->book_kp)
			pmc_book_forget(pm, thr->task);
		pmc_thr_stop(thr, true);
	}
	list_del(&tgt->pm_link);
	pmc_dbg(PMC_DBG_PROCESS, PMC_DBG_UNLINKTARGET, pm->id,
		pid_nr(tgt->pid), -1, tgt->accum);
	if (log)
		pmc_log_pmcdetach(po, pm,
				  pid_nr_ns(tgt->pid, ns_of_pid(po->tgid)));
	pmc_target_put(tgt);
}

void pmc_detach_all(struct pmc_obj *pm)
{
	struct pmc_target *tgt, *tmp;
	struct pmc_thr *thr, *ttmp;

	list_for_each_entry_safe(tgt, tmp, &pm->targets, pm_link)
		pmc_target_detach(tgt, true);
	/* Released: their children in other processes go with them. */
	list_for_each_entry_safe(thr, ttmp, &pm->inh_ended, tgt_link)
		pmc_thr_fold(thr);
	pmc_book_release_pm(pm);
	if (pm->book_kp)
		pmc_book_kp_put();
	pm->book_kp = false;
}

/*
 * Does @pm count anything: a target, or an ended inherited counter whose
 * children still count (processes forked before its thread went)? Owner's
 * lock held.
 */
bool pmc_virtual_attached(struct pmc_obj *pm)
{
	struct pmc_thr *thr;
	bool live = false;

	if (!list_empty(&pm->targets))
		return true;
	pmc_inh_prune(pm);
	list_for_each_entry(thr, &pm->inh_ended, tgt_link) {
		mutex_lock(&thr->event->child_mutex);
		live = !list_empty(&thr->event->child_list);
		mutex_unlock(&thr->event->child_mutex);
		if (live)
			break;
	}
	return live;
}

/* ------------------------------------------------------------ tasks */

/*
 * A snapshot of tasks: the threads of a process, or the descendants of a
 * process. Collected under RCU with references, used outside it.
 */
struct pmc_task_set {
	struct task_struct **tasks;
	unsigned int n, cap;
};

static void pmc_task_set_free(struct pmc_task_set *ts)
{
	while (ts->n)
		put_task_struct(ts->tasks[--ts->n]);
	kvfree(ts->tasks);
	ts->tasks = NULL;
}

/* Is @t a descendant process of @root's process? Under rcu_read_lock(). */
static bool pmc_is_descendant(struct task_struct *t, struct task_struct *root)
{
	if (same_thread_group(t, root))
		return false;
	for (t = rcu_dereference(t->real_parent); t->pid > 0;
	     t = rcu_dereference(t->real_parent))
		if (same_thread_group(t, root))
			return true;
	return false;
}

/*
 * Fill @ts with the threads of @leader's process (@descendants false) or
 * the leaders of the processes descending from it (true). Retries with a
 * larger array when the set grows meanwhile.
 */
static int pmc_task_set_collect(struct pmc_task_set *ts,
				struct task_struct *leader, bool descendants)
{
	struct task_struct *p, *t;
	unsigned int cap = 16;
	bool full;

	for (;;) {
		ts->tasks = kvmalloc_array(cap, sizeof(*ts->tasks), GFP_KERNEL);
		if (!ts->tasks)
			return -ENOMEM;
		ts->cap = cap;
		ts->n = 0;
		full = false;
		rcu_read_lock();
		if (descendants) {
			for_each_process(p) {
				if (!pmc_is_descendant(p, leader))
					continue;
				if (ts->n == ts->cap) {
					full = true;
					break;
				}
				ts->tasks[ts->n++] = get_task_struct(p);
			}
		} else {
			for_each_thread(leader, t) {
				if (ts->n == ts->cap) {
					full = true;
					break;
				}
				ts->tasks[ts->n++] = get_task_struct(t);
			}
		}
		rcu_read_unlock();
		if (!full)
			return 0;
		pmc_task_set_free(ts);
		cap *= 4;
	}
}

/*
 * Would attaching @pm to @task collide with what @task already has?
 * -EEXIST: @pm counts it already; -EBUSY: another PMC of the same row does
 * (hwpmc: one PMC per row per target). Under rcu_read_lock().
 */
struct pmc_inh_conflict {
	const struct pmc_obj *pm;
	int ret;
};

static bool pmc_inh_conflict_fn(struct perf_event *event, void *arg)
{
	struct pmc_inh_conflict *c = arg;
	struct pmc_obj *other = pmc_event_inherit_pmc(event);

	if (!other || READ_ONCE(event->state) < PERF_EVENT_STATE_INACTIVE)
		return false;
	if (other == c->pm)
		c->ret = -EEXIST;
	else if (other->row == c->pm->row)
		c->ret = -EBUSY;
	return c->ret;
}

static int pmc_task_conflict(const struct pmc_obj *pm, struct task_struct *task)
{
	struct pmc_inh_conflict c = { .pm = pm };
	struct pmc_thr *thr;

	pmc_for_each_thr_rcu(thr, task) {
		const struct pmc_obj *other = thr->tgt->pm;

		if (thr->task != task || READ_ONCE(thr->dead))
			continue;
		if (other == pm)
			return -EEXIST;
		if (other->row == pm->row)
			return -EBUSY;
	}
	/* Counted as a descendant by perf's inheritance. */
	pmc_task_events_rcu(task, pmc_inh_conflict_fn, &c);
	return c.ret;
}

/* Is @event an enabled inherited counter of a PMC (or a child of one)? */
static bool pmc_inh_any_fn(struct perf_event *event, void *arg)
{
	return pmc_event_inherit_pmc(event) &&
	       READ_ONCE(event->state) >= PERF_EVENT_STATE_INACTIVE;
}

/* Is anything monitoring the task(s) of @pid? */
static bool pmc_pid_monitored(struct pid *pid, bool thread)
{
	struct task_struct *task, *t;
	struct pmc_thr *thr;
	bool found = false;

	rcu_read_lock();
	task = pid_task(pid, thread ? PIDTYPE_PID : PIDTYPE_TGID);
	if (task) {
		for_each_thread(task, t) {
			if (thread && t != task)
				continue;
			pmc_for_each_thr_rcu(thr, t)
				if (thr->task == t && !READ_ONCE(thr->dead))
					found = true;
			if (pmc_task_events_rcu(t, pmc_inh_any_fn, NULL))
				found = true;
		}
	}
	rcu_read_unlock();
	return found;
}

/* ------------------------------------------------------------ attach */

/*
 * Attach @pm to the process of @leader: a process target and a counter for
 * each of its threads. Threads created meanwhile are caught by the fork
 * probe: the target is in the process hash before the threads are listed
 * (a thread both listed and forked is counted once).
 */
static int pmc_attach_process(struct pmc_obj *pm, struct task_struct *leader,
			      bool owner_priv)
{
	struct pmc_task_set ts = {};
	struct pmc_bproc *proc = NULL;
	struct pmc_target *tgt;
	struct pid *tgid;
	unsigned int i;
	int ret;

	/*
	 * A reference, not task_tgid(): @leader may be reaped meanwhile,
	 * and its struct pid freed after a grace period (kzalloc sleeps).
	 */
	tgid = get_task_pid(leader, PIDTYPE_TGID);
	if (!tgid)
		return -ESRCH;
	if (pmc_target_find(pm, tgid, false)) {
		ret = -EEXIST;
		goto out_put;
	}
	ret = pmc_task_set_collect(&ts, leader, false);
	if (ret)
		goto out_put;
	rcu_read_lock();
	for (i = 0; i < ts.n && !ret; i++)
		ret = pmc_task_conflict(pm, ts.tasks[i]);
	rcu_read_unlock();
	pmc_task_set_free(&ts);
	if (ret)
		goto out_put;

	tgt = pmc_target_new(pm, tgid, false, false, owner_priv);
	if (!tgt)
		return -ENOMEM;
	/* Book mode: the process's record, while its threads get books. */
	if (pm->inherit && pm->book_kp) {
		proc = pmc_bproc_new();
		if (!proc) {
			pmc_target_detach(tgt, false);
			return -ENOMEM;
		}
	}
	ret = pmc_task_set_collect(&ts, leader, false);
	for (i = 0; i < ts.n && !ret; i++) {
		ret = pmc_thr_attach(tgt, ts.tasks[i]);
		/* The thread's PROCCSW and PROCEXIT counts. */
		if (!ret && proc && !pmc_book_add(pm, ts.tasks[i], proc))
			pr_warn_ratelimited("pid %d: no PROCCSW or PROCEXIT for it\n",
					    task_pid_nr(ts.tasks[i]));
	}
	pmc_task_set_free(&ts);
	pmc_bproc_put(proc);
	if (!ret && list_empty(&tgt->threads))
		ret = -ESRCH;		/* every thread has exited */
	if (ret) {
		pmc_target_detach(tgt, false);
		return ret;
	}
	pmc_log_pmcattach(pm->owner, pm, leader);
	return 0;

out_put:
	put_pid(tgid);
	return ret;
}

/* Thread scope: count @task only (and, with @inherit, its new threads). */
static int pmc_attach_thread(struct pmc_obj *pm, struct task_struct *task,
			     bool inherit, bool owner_priv)
{
	struct pmc_target *tgt;
	struct pid *pid;
	int ret;

	pid = get_task_pid(task, PIDTYPE_PID);	/* as in pmc_attach_process() */
	if (!pid)
		return -ESRCH;
	rcu_read_lock();	/* task_tgid(task) stays valid */
	if (pmc_target_find(pm, pid, true) ||
	    pmc_target_find(pm, task_tgid(task), false))
		ret = -EEXIST;
	else
		ret = pmc_task_conflict(pm, task);
	rcu_read_unlock();
	if (ret) {
		put_pid(pid);
		return ret;
	}
	tgt = pmc_target_new(pm, pid, true, inherit, owner_priv);
	if (!tgt)
		return -ENOMEM;
	ret = pmc_thr_attach(tgt, task);
	if (!ret && list_empty(&tgt->threads))
		ret = -ESRCH;
	if (ret) {
		pmc_target_detach(tgt, false);
		return ret;
	}
	pmc_log_pmcattach(pm->owner, pm, task);
	return 0;
}

/*
 * PMC_F_DESCENDANTS at attach time: the processes already descending from
 * @leader, each one the caller may attach to.
 */
static void pmc_attach_descendants(struct pmc_obj *pm,
				   struct task_struct *leader, bool owner_priv)
{
	struct pmc_task_set ts = {};
	unsigned int i;

	if (pmc_task_set_collect(&ts, leader, true))
		return;
	for (i = 0; i < ts.n; i++)
		if (!pmc_sec_may_attach(ts.tasks[i]))
			pmc_attach_process(pm, ts.tasks[i], owner_priv);
	pmc_task_set_free(&ts);
}

/* The task pid @nr names in the caller's namespace (0: the caller). */
static struct task_struct *pmc_get_task(pid_t nr, bool thread)
{
	struct task_struct *task;
	struct pid *pid;

	if (!nr)
		return get_task_struct(thread ? current : current->group_leader);
	pid = find_get_pid(nr);
	if (!pid)
		return NULL;
	task = get_pid_task(pid, thread ? PIDTYPE_PID : PIDTYPE_TGID);
	put_pid(pid);
	return task;
}

/*
 * May perf's inheritance count @pm's descendants (one counter per attached
 * thread, attr.inherit, its children in the descendants' threads)? A
 * counting DESCENDANTS PMC outside a set, without SNAPSHOT or OVF_SIGNAL.
 * The probes find its descendants for PROCFORK and PROCEXEC records and
 * attach checks in perf's contexts (pmc_event_inherit_pmc()). PROCCSW and
 * PROCEXIT need per-thread counts: books (book.c), which need the kprobe
 * that reads a thread's last slice; without it, per-process counters.
 */
static bool pmc_may_inherit(struct pmc_obj *pm)
{
	if (pm->mode != PMC_MODE_TC || !(pm->flags & PMC_F_DESCENDANTS) ||
	    (pm->flags & (PMC_F_SNAPSHOT | PMC_F_OVF_SIGNAL)) || pm->group)
		return false;
	if (!pmc_book_wanted(pm) || pm->book_kp)
		return true;
	pm->book_kp = !pmc_book_kp_get();
	return pm->book_kp;
}

/* Attach @pm to @task (a process leader, or a thread) and what @flags add. */
static int pmc_attach_task(struct pmc_obj *pm, struct task_struct *task,
			   u32 flags)
{
	bool priv = pmc_sec_owner_privileged();
	int ret;

	pmc_inh_prune(pm);
	if (list_empty(&pm->targets) && list_empty(&pm->inh_ended))
		pm->inherit = pmc_may_inherit(pm) &&
			      !(flags & PMC_ATTACH_F_THREAD);
	else if (pm->inherit && (flags & PMC_ATTACH_F_THREAD))
		return -EINVAL;	/* not counted apart from its descendants */
	if (flags & PMC_ATTACH_F_THREAD)
		return pmc_attach_thread(pm, task,
					 flags & PMC_ATTACH_F_INHERIT, priv);
	ret = pmc_attach_process(pm, task, priv);
	if (!ret && (pm->flags & PMC_F_DESCENDANTS))
		pmc_attach_descendants(pm, task, priv);
	return ret;
}

int pmc_attach(struct pmc_obj *pm, pid_t nr, u32 flags)
{
	bool thread = flags & PMC_ATTACH_F_THREAD;
	struct task_struct *task;
	int ret;

	if (!PMC_IS_VIRTUAL_MODE(pm->mode) || nr < 0 ||
	    (flags & ~(PMC_ATTACH_F_THREAD | PMC_ATTACH_F_INHERIT)) ||
	    ((flags & PMC_ATTACH_F_INHERIT) && !thread))
		return -EINVAL;
	if (pm->state == PMC_STATE_RUNNING)
		return -EBUSY;
	if (pm->msr_taken)
		return -EPERM;
	task = pmc_get_task(nr, thread);
	if (!task)
		return -ESRCH;
	if (task->flags & (PF_KTHREAD | PF_IO_WORKER))
		ret = -EPERM;	/* as ptrace: no kernel threads */
	else
		ret = pmc_sec_may_attach(task);
	if (!ret)
		ret = pmc_attach_task(pm, task, flags);
	if (!ret)
		pm->attach_done = true;
	put_task_struct(task);
	return ret;
}

/* PMCSTART of a PMC never attached: attach it to its owner process. */
int pmc_attach_self(struct pmc_obj *pm)
{
	int ret = pmc_attach_task(pm, current->group_leader, 0);

	if (!ret)
		pm->attach_done = true;
	return ret;
}

int pmc_detach(struct pmc_obj *pm, pid_t nr, u32 flags)
{
	bool thread = flags & PMC_ATTACH_F_THREAD;
	struct pmc_target *tgt;
	struct pid *pid;
	int ret = 0;

	if (!PMC_IS_VIRTUAL_MODE(pm->mode) || nr < 0 ||
	    (flags & ~(PMC_ATTACH_F_THREAD | PMC_ATTACH_F_INHERIT)))
		return -EINVAL;
	if (nr)
		pid = find_get_pid(nr);
	else
		pid = get_pid(thread ? task_pid(current) : task_tgid(current));
	if (!pid)
		return -ESRCH;
	tgt = pmc_target_find(pm, pid, thread);
	if (tgt) {
		pmc_target_detach(tgt, true);
		/* hwpmc: a PMC left without targets re-attaches at start. */
		if (!pmc_virtual_attached(pm))
			pm->attach_done = false;
	} else {
		/* hwpmc: not attached to this PMC vs not monitored at all. */
		ret = pmc_pid_monitored(pid, thread) ? -EINVAL : -ESRCH;
	}
	put_pid(pid);
	return ret;
}

/* ------------------------------------------------------------ counters */

/*
 * PMCSTOP and PMCSTART of an inherited counter (see pmc_thr_value()): the
 * value it has at the stop is kept, and counting resumes from it.
 */
static void pmc_thr_inh_enable(struct pmc_thr *thr, bool enable)
{
	u64 v = pmc_event_read(thr->event);

	if (enable)
		thr->inh_off = thr->inh_frozen - v;
	else
		thr->inh_frozen = v + thr->inh_off;
	thr->inh_on = enable;
}

void pmc_virtual_enable(struct pmc_obj *pm, bool enable)
{
	struct pmc_target *tgt;
	struct pmc_thr *thr;

	/* Before a stop, the caller's slice; after a start, from now. */
	if (!enable)
		pmc_book_enable(pm, false);
	list_for_each_entry(thr, &pm->inh_ended, tgt_link)
		pmc_thr_inh_enable(thr, enable);
	list_for_each_entry(tgt, &pm->targets, pm_link) {
		list_for_each_entry(thr, &tgt->threads, tgt_link) {
			if (pm->inherit)
				pmc_thr_inh_enable(thr, enable);
			else if (enable)
				perf_event_enable(thr->event);
			else
				perf_event_disable(thr->event);
			pmc_dbg(PMC_DBG_MD,
				enable ? PMC_DBG_START : PMC_DBG_STOP, pm->id,
				task_pid_nr(thr->task), -1, 0);
		}
	}
	if (enable)
		pmc_book_enable(pm, true);
}

/* @pm's value. Owner's lock held, process context. */
u64 pmc_virtual_read(struct pmc_obj *pm)
{
	struct pmc_thr *thr;
	u64 value;

	pmc_inh_prune(pm);
	value = pm->accum;
	list_for_each_entry(thr, &pm->inh_ended, tgt_link)
		value += pmc_thr_value(thr, thr->event);
	pmc_virtual_sum_live(pm, false, &value);
	return value;
}

int pmc_virtual_set_period(struct pmc_obj *pm, u64 period)
{
	struct pmc_target *tgt;
	struct pmc_thr *thr;
	int ret;

	list_for_each_entry(tgt, &pm->targets, pm_link) {
		list_for_each_entry(thr, &tgt->threads, tgt_link) {
			ret = perf_event_period(thr->event, period);
			if (ret)
				return ret;
			pmc_dbg(PMC_DBG_MD, PMC_DBG_CONFIG, pm->id,
				task_pid_nr(thr->task), -1, period);
		}
	}
	return 0;
}

/* The counter of @pm for the calling thread, or NULL. */
struct perf_event *pmc_virtual_self_event(struct pmc_obj *pm)
{
	struct pmc_thr *thr;

	rcu_read_lock();
	thr = pmc_thr_find(pm, current);
	rcu_read_unlock();
	/* The owner's lock keeps @thr and its counter. */
	return thr ? thr->event : NULL;
}

/* Is @pm attached to its owner process, and to nothing else? */
bool pmc_virtual_only_owner(struct pmc_obj *pm)
{
	struct pmc_target *tgt;

	if (!list_is_singular(&pm->targets))
		return false;
	tgt = list_first_entry(&pm->targets, struct pmc_target, pm_link);
	return !tgt->thread && tgt->pid == pm->owner->tgid;
}

/*
 * Is @pm attached to a process other than its owner's (a process target,
 * or a thread of another process)? The owner's lock held.
 */
bool pmc_virtual_targets_others(struct pmc_obj *pm)
{
	struct pid *owner = pm->owner->tgid;
	struct pmc_target *tgt;
	struct pmc_thr *thr;

	list_for_each_entry(tgt, &pm->targets, pm_link) {
		if (!tgt->thread) {
			if (tgt->pid != owner)
				return true;
			continue;
		}
		list_for_each_entry(thr, &tgt->threads, tgt_link)
			if (task_tgid(thr->task) != owner)
				return true;
	}
	return false;
}

/* ------------------------------------------------------------ fork */

/* A new thread or process to count, queued on it by the fork probe. */
struct pmc_fork_work {
	struct callback_head cb;
	struct pmc_target *tgt;		/* the parent's target (ref held) */
	bool new_process;		/* PMC_F_DESCENDANTS: a new target */
};
static_assert(sizeof(struct pmc_fork_work) <= PMC_PROBE_BLOCK_SIZE);

/*
 * Context: task_work, in the child before it first returns to user space
 * (process context, may sleep).
 */
static void pmc_fork_work_fn(struct callback_head *cb)
{
	struct pmc_fork_work *fw = container_of(cb, struct pmc_fork_work, cb);
	struct pmc_target *tgt = fw->tgt, *ntgt;
	struct pmc_obj *pm = tgt->pm;
	struct pmc_owner *po = pm->owner;

	mutex_lock(&po->lock);
	if (tgt->dead || pm->state == PMC_STATE_DELETED || po->dead)
		goto out;
	if (!fw->new_process) {
		pmc_thr_attach(tgt, current);
		goto out;
	}
	ntgt = pmc_target_find(pm, task_tgid(current), false);
	if (!ntgt)
		ntgt = pmc_target_new(pm, get_pid(task_tgid(current)), false,
				      false, tgt->owner_priv);
	if (ntgt && (pmc_thr_attach(ntgt, current) ||
		     list_empty(&ntgt->threads)))
		pmc_target_detach(ntgt, false);
out:
	mutex_unlock(&po->lock);
	pmc_target_put(tgt);
	pmc_probe_block_put(fw);
	/* Last: the work held the module since the probe queued it. */
	module_put(THIS_MODULE);
}

/*
 * Queue the counting of @child for @tgt. Context: the fork probe
 * (preemption off, under rcu_read_lock()): no allocation, the work is a
 * block of the probe pool; the failure paths free nothing either.
 */
static void pmc_fork_queue(struct task_struct *child, struct pmc_target *tgt,
			   bool new_process)
{
	struct pmc_fork_work *fw;

	if (!refcount_inc_not_zero(&tgt->refs))
		return;
	fw = pmc_probe_block_get(sizeof(*fw));
	if (!fw)
		goto err_ref;
	if (!try_module_get(THIS_MODULE))
		goto err_free;
	init_task_work(&fw->cb, pmc_fork_work_fn);
	fw->tgt = tgt;
	fw->new_process = new_process;
	if (!pmc_task_work_add_atomic(child, &fw->cb, TWA_RESUME))
		return;
	module_put(THIS_MODULE);
err_free:
	pmc_probe_block_put(fw);
err_ref:
	pmc_target_put(tgt);
	pr_warn_ratelimited("pid %d cannot be counted\n", task_pid_nr(child));
}

void pmc_task_sampling_owners(struct task_struct *task,
			      void (*fn)(struct pmc_owner *po, void *arg),
			      void *arg)
{
	struct pmc_thr *thr;
	struct pmc_obj *pm;

	pmc_for_each_thr_rcu(thr, task) {
		if (thr->task != task || READ_ONCE(thr->dead))
			continue;
		pm = thr->tgt->pm;
		if (PMC_IS_SAMPLING_MODE(pm->mode))
			fn(pm->owner, arg);
	}
}

/* PROCFORK of @child, forked by @parent, counted by @pm. Under RCU. */
static void pmc_target_log_fork(struct pmc_obj *pm, struct task_struct *parent,
				struct task_struct *child)
{
	struct pmc_owner *po = pm->owner;

	pmc_dbg(PMC_DBG_PROCESS, PMC_DBG_FORK, pm->id, task_tgid_nr(parent),
		-1, task_tgid_nr(child));
	/* System-sampling owners get PROCFORK anyway. */
	if (!READ_ONCE(po->nss))
		pmc_log_procfork(po, pmc_owner_pid_nr(po, parent, true),
				 pmc_owner_pid_nr(po, child, true));
}

/* A task and its parent, for the probes' scans of perf's contexts. */
struct pmc_inh_task {
	struct task_struct *task, *parent;
};

/* An inheriting PMC counting the new process: its PROCFORK. */
static bool pmc_inh_fork_fn(struct perf_event *event, void *arg)
{
	struct pmc_inh_task *it = arg;
	struct pmc_obj *pm = pmc_event_inherit_pmc(event);

	if (pm && READ_ONCE(event->state) >= PERF_EVENT_STATE_INACTIVE)
		pmc_target_log_fork(pm, it->parent, it->task);
	return false;
}

/*
 * sched_process_fork probe (in the parent, @child not yet running): a new
 * thread of a process target, a thread created by an INHERIT thread
 * target, and a child process of a PMC_F_DESCENDANTS target are counted by
 * work queued on @child.
 */
void pmc_target_fork_probe(struct task_struct *parent,
			   struct task_struct *child)
{
	bool thread = same_thread_group(parent, child);
	struct pmc_target *tgt;
	struct pmc_thr *thr;

	if (child->flags & (PF_KTHREAD | PF_IO_WORKER))
		return;
	rcu_read_lock();
	if (thread) {
		struct pid *tgid = task_tgid(child);

		hlist_for_each_entry_rcu(tgt, pmc_proc_bucket(tgid), hnode)
			if (tgt->pid == tgid && !READ_ONCE(tgt->dead) &&
			    !tgt->pm->inherit)
				pmc_fork_queue(child, tgt, false);
	}
	pmc_for_each_thr_rcu(thr, parent) {
		tgt = thr->tgt;
		if (thr->task != parent || READ_ONCE(thr->dead) ||
		    READ_ONCE(tgt->dead) || tgt->pm->inherit)
			continue;
		if (thread && tgt->thread && tgt->inherit) {
			pmc_fork_queue(child, tgt, false);
		} else if (!thread && (tgt->pm->flags & PMC_F_DESCENDANTS)) {
			pmc_fork_queue(child, tgt, true);
			pmc_target_log_fork(tgt->pm, parent, child);
		}
	}
	/* perf gave the child a counter of each inheriting PMC: PROCFORK. */
	if (!thread) {
		struct pmc_inh_task it = { .task = child, .parent = parent };

		pmc_task_events_rcu(child, pmc_inh_fork_fn, &it);
	}
	rcu_read_unlock();
}

/* ------------------------------------------------------------ exit, exec */

/* Probe context: queue @cb of @thr on its task, with references. */
static void pmc_thr_queue(struct pmc_thr *thr, struct callback_head *cb,
			  enum task_work_notify_mode mode)
{
	if (!refcount_inc_not_zero(&thr->refs))
		return;
	if (!try_module_get(THIS_MODULE))
		goto err_ref;
	if (!pmc_task_work_add_atomic(thr->task, cb, mode))
		return;
	module_put(THIS_MODULE);
err_ref:
	pmc_thr_put(thr);
}

/*
 * The PROCCSW record of @delta events counted by thread @task since its
 * last switch-out, which moves on by @delta. Called by @task itself: the
 * sched_switch probe of @task (IRQs off, rq lock held) or its exit work
 * (process context, the owner's lock held); both are the only writers of
 * @thr->last_csw.
 */
static void pmc_thr_log_csw(struct pmc_thr *thr, struct task_struct *task,
			    u64 delta)
{
	struct pmc_obj *pm = thr->tgt->pm;
	struct pmc_owner *po = pm->owner;

	thr->last_csw += delta;
	pmc_log_proccsw(po, pm, pmc_owner_pid_nr(po, task, true),
			pmc_owner_pid_nr(po, task, false), delta);
}

/*
 * The PROCCSW record of what an exiting thread counted since its last
 * switch-out: its last switch comes after perf ended its counter (6.1:
 * perf_event_exit_task() runs early in do_exit()), so the switch probe
 * cannot log it, and the switch-out deltas must add up to the PMC's
 * count as hwpmc's do. Process context, the owner's lock held.
 */
static void pmc_thr_log_last_csw(struct pmc_thr *thr)
{
	u64 delta;

	if (!thr->event)
		return;
	delta = pmc_event_read(thr->event) - thr->last_csw;
	if (delta)
		pmc_thr_log_csw(thr, current, delta);
}

/*
 * Run by an exiting counted thread in do_exit() (its counter is final):
 * fold it; when it was the last thread of its target, log PROCEXIT and
 * detach the target.
 */
static void pmc_thr_exit_work(struct callback_head *cb)
{
	struct pmc_thr *thr = container_of(cb, struct pmc_thr, exit_work);
	struct pmc_target *tgt = thr->tgt;
	struct pmc_obj *pm = tgt->pm;
	struct pmc_owner *po = pm->owner;
	bool gone;

	mutex_lock(&po->lock);
	if (thr->dead || thr->inh_ended)
		goto out;
	/* Book mode: the books logged both (book.c). */
	if ((pm->flags & PMC_F_LOG_PROCCSW) && !pm->inherit)
		pmc_thr_log_last_csw(thr);
	pmc_thr_stop(thr, false);
	gone = tgt->thread || !atomic_read(&current->signal->live);
	if (tgt->dead || !list_empty(&tgt->threads) || !gone)
		goto out;
	pmc_dbg(PMC_DBG_PROCESS, PMC_DBG_EXIT, pm->id, pid_nr(tgt->pid), -1,
		tgt->accum);
	if (!tgt->thread && (pm->flags & PMC_F_LOG_PROCEXIT) && !pm->inherit)
		pmc_log_procexit(po, pm,
				 pid_nr_ns(tgt->pid, ns_of_pid(po->tgid)),
				 tgt->accum);
	pmc_target_detach(tgt, true);
out:
	mutex_unlock(&po->lock);
	pmc_thr_put(thr);
	module_put(THIS_MODULE);
}

/* sched_process_exit probe (@task is current). */
void pmc_target_exit_probe(struct task_struct *task)
{
	struct pmc_thr *thr;

	rcu_read_lock();
	pmc_for_each_thr_rcu(thr, task) {
		if (thr->task != task || READ_ONCE(thr->dead) ||
		    test_and_set_bit(PMC_THR_EXIT_QUEUED, &thr->work_flags))
			continue;
		pmc_thr_queue(thr, &thr->exit_work, TWA_NONE);
	}
	rcu_read_unlock();
}

/*
 * Run before a target whose exec raised its privileges returns to user
 * space. The kernel has ended the thread's counter (fs/exec.c ends every
 * perf counter of a task its exec makes undumpable): an unprivileged
 * owner's PMC is detached; a privileged owner's gets a new counter for the
 * new image.
 */
static void pmc_thr_exec_work(struct callback_head *cb)
{
	struct pmc_thr *thr = container_of(cb, struct pmc_thr, exec_work);
	struct pmc_target *tgt = thr->tgt;
	struct pmc_owner *po = tgt->pm->owner;

	mutex_lock(&po->lock);
	if (!thr->dead && !thr->inh_ended && !tgt->dead) {
		if (thr->exec_detach) {
			pmc_target_detach(tgt, true);
		} else {
			pmc_thr_stop(thr, false);
			pmc_thr_attach(tgt, current);
		}
	}
	mutex_unlock(&po->lock);
	pmc_thr_put(thr);
	module_put(THIS_MODULE);
}

/*
 * An inheriting PMC counting @arg (current, after its exec) through a
 * child of its counter: PROCEXEC, unless the loop over the task's own
 * counters logged it. Under RCU.
 */
static bool pmc_inh_exec_fn(struct perf_event *event, void *arg)
{
	struct task_struct *task = arg;
	struct pmc_obj *pm = pmc_event_inherit_pmc(event);

	if (!pm || READ_ONCE(event->state) < PERF_EVENT_STATE_INACTIVE ||
	    pmc_thr_find(pm, task))
		return false;
	pmc_dbg(PMC_DBG_PROCESS, PMC_DBG_EXEC, pm->id, task_tgid_nr(task), -1,
		0);
	if (!READ_ONCE(pm->owner->nss))
		pmc_log_procexec(pm->owner, pm, task);
	return false;
}

/*
 * An exec that raised @task's privileges ended its perf counters before
 * this probe (fs/exec.c), the children of inheriting PMCs' counters with
 * them: the nearest ancestor that is an attached thread of such a PMC
 * tells which counted it. As the exec work does for a target: PROCEXEC,
 * then for a privileged owner a counter of its own (made as for a new
 * process), else PMCDETACH. Under RCU.
 */
static void pmc_inh_exec_raised(struct task_struct *task)
{
	struct task_struct *t = task;
	struct pmc_target *tgt;
	struct pmc_owner *po;
	struct pmc_thr *thr;
	bool found = false;

	for (t = rcu_dereference(t->real_parent); t->pid > 0 && !found;
	     t = rcu_dereference(t->real_parent)) {
		pmc_for_each_thr_rcu(thr, t) {
			tgt = thr->tgt;
			if (thr->task != t || READ_ONCE(thr->dead) ||
			    READ_ONCE(tgt->dead) || !tgt->pm->inherit)
				continue;
			found = true;
			if (pmc_thr_find(tgt->pm, task))
				continue;	/* its own target: exec work */
			po = tgt->pm->owner;
			if (!READ_ONCE(po->nss))
				pmc_log_procexec(po, tgt->pm, task);
			if (tgt->owner_priv)
				pmc_fork_queue(task, tgt, true);
			else
				pmc_log_pmcdetach(po, tgt->pm,
						  pmc_owner_pid_nr(po, task,
								   true));
		}
	}
}

/*
 * sched_process_exec probe (@task is current, new creds committed):
 * PROCEXEC to the owners of the PMCs counting it; after an exec that
 * raised its privileges, detach (or, for a privileged owner, renew the
 * counter) before it returns to user space.
 */
void pmc_target_exec_probe(struct task_struct *task, struct linux_binprm *bprm)
{
	bool raised = pmc_sec_exec_changes_creds(task, bprm);
	struct pmc_target *tgt;
	struct pmc_thr *thr;
	struct pmc_owner *po;

	rcu_read_lock();
	pmc_for_each_thr_rcu(thr, task) {
		if (thr->task != task || READ_ONCE(thr->dead))
			continue;
		tgt = thr->tgt;
		po = tgt->pm->owner;
		pmc_dbg(PMC_DBG_PROCESS, PMC_DBG_EXEC, tgt->pm->id,
			task_tgid_nr(task), -1, raised);
		/* System-sampling owners get PROCEXEC anyway. */
		if (!READ_ONCE(po->nss))
			pmc_log_procexec(po, tgt->pm, task);
		if (raised &&
		    !test_and_set_bit(PMC_THR_EXEC_QUEUED, &thr->work_flags)) {
			thr->exec_detach = !tgt->owner_priv;
			pmc_thr_queue(thr, &thr->exec_work, TWA_RESUME);
		}
	}
	/* A descendant counted by an inheriting PMC's counter: PROCEXEC. */
	if (raised)
		pmc_inh_exec_raised(task);
	else
		pmc_task_events_rcu(task, pmc_inh_exec_fn, task);
	rcu_read_unlock();
}

/* ------------------------------------------------------------ switch */

/*
 * sched_switch probe, @prev still current (IRQs off, rq lock held): the
 * PROCCSW record of each PMC_F_LOG_PROCCSW PMC counting @prev, with what
 * its counter saw since the thread's last switch-out. The counter is read
 * as lttng does, valid because it is active on this CPU.
 */
void pmc_target_switch_probe(struct task_struct *prev)
{
	struct perf_event *event;
	struct pmc_obj *pm;
	struct pmc_thr *thr;
	u64 value, delta;

	rcu_read_lock();
	pmc_for_each_thr_rcu(thr, prev) {
		if (thr->task != prev)
			continue;
		pm = thr->tgt->pm;
		event = READ_ONCE(thr->event);
		/* Book mode: pmc_book_switch_probe(). */
		if (!(pm->flags & PMC_F_LOG_PROCCSW) || !event || pm->inherit ||
		    READ_ONCE(pm->state) != PMC_STATE_RUNNING)
			continue;
		if (READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE ||
		    READ_ONCE(event->oncpu) != smp_processor_id())
			continue;
		event->pmu->read(event);
		value = local64_read(&event->count);
		delta = value - thr->last_csw;
		pmc_dbg(PMC_DBG_CSW, PMC_DBG_SWO, pm->id, task_pid_nr(prev),
			smp_processor_id(), delta);
		pmc_thr_log_csw(thr, prev, delta);
	}
	rcu_read_unlock();
}
