// SPDX-License-Identifier: GPL-2.0
/*
 * owner.c - owners of PMCs: one per open /dev/pmc file, created on first
 * use by the process that opened it; references; and the teardown that
 * stops, detaches and releases all its PMCs when the file goes away or the
 * owner process exits.
 *
 * Process context everywhere except pmc_owner_exit_probe() (the
 * sched_process_exit probe of a dying task, preemption off) and
 * pmc_owner_get()/pmc_owner_put() (see pmc_core.h).
 */
#include "pmc_core_priv.h"

#include <linux/module.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "compat/task_work.h"

/*
 * The live owners, for the probes (owner exit, system-sampling owners'
 * records). Readers: rcu_read_lock(), any context but NMI. Writers hold
 * pmc_owners_lock (process context; never taken by a probe).
 */
LIST_HEAD(pmc_owners);
DEFINE_SPINLOCK(pmc_owners_lock);

void pmc_owner_get(struct pmc_owner *po)
{
	refcount_inc(&po->refs);
}

void pmc_owner_put(struct pmc_owner *po)
{
	if (!refcount_dec_and_test(&po->refs))
		return;
	put_pid(po->tgid);
	atomic_dec(&pmc_live[PMC_LIVE_OWNER]);
	kfree_rcu(po, rcu);
}

/*
 * The first half of an owner's teardown, @po->lock held: the owner is dead
 * from now on (every op and work that takes the lock finds it so and does
 * nothing), and its PMCs are stopped, detached and released. False if it
 * was dead already: the other of the file's release and the owner
 * process's exit came first, and finishes.
 */
static bool pmc_owner_kill(struct pmc_owner *po)
{
	struct pmc_obj *pm, *tmp;

	lockdep_assert_held(&po->lock);
	if (po->dead)
		return false;
	po->dead = true;
	pmc_dbg(PMC_DBG_OWNER, PMC_DBG_RELEASE, 0, pid_nr(po->tgid), -1, 0);
	list_for_each_entry_safe(pm, tmp, &po->pmcs, owner_link)
		pmc_release_pmc(pm);
	return true;
}

/*
 * The second half, without @po->lock: the owner leaves the probes' list and
 * its log goes. Both wait: for RCU grace periods, for the per-CPU sample
 * drains, and for the log's writer to hand the file what is left, which
 * lasts as long as the reader at the other end of a pipe keeps reading.
 * The fork and exit works of the processes the owner counts take its lock
 * (in the child before it returns to user space, in do_exit()): with the
 * lock held here they would all wait as long. They find the owner dead.
 * So does every op, and the log's own ops never reach a dead owner's log
 * state (pmc_log_lookup()).
 */
static void pmc_owner_finish(struct pmc_owner *po)
{
	spin_lock(&pmc_owners_lock);
	list_del_rcu(&po->link);
	spin_unlock(&pmc_owners_lock);
	/*
	 * No scheduler probe is still emitting a record for this owner (they
	 * run under rcu_read_lock() and found it through what was just
	 * unlinked) when its log goes away.
	 */
	synchronize_rcu();
	pmc_log_owner_exit(po);
}

/*
 * Release all of @po and let its log go, once, whichever comes first of the
 * file's release and the owner process's exit. Process context, may sleep.
 */
static void pmc_owner_teardown(struct pmc_owner *po)
{
	bool killed;

	mutex_lock(&po->lock);
	killed = pmc_owner_kill(po);
	mutex_unlock(&po->lock);
	if (killed)
		pmc_owner_finish(po);
}

/* The owner process has exited: run by its last thread in do_exit(). */
static void pmc_owner_exit_work(struct callback_head *cb)
{
	struct pmc_owner *po = container_of(cb, struct pmc_owner, exit_work);

	pmc_owner_teardown(po);
	pmc_owner_put(po);
	/* Last: the work held the module since the probe queued it. */
	module_put(THIS_MODULE);
}

static struct pmc_owner *pmc_owner_create(struct pmc_file *pf)
{
	struct pmc_owner *po;

	/*
	 * The fork/exec/exit probes that watch every owner (its exit, its
	 * logs) are held by its file, from open() on: the ring's mmap creates
	 * an owner under mmap_lock, and registering a tracepoint there would
	 * order mmap_lock before tracepoints_mutex and cpu_hotplug_lock
	 * (lockdep: a cycle through perf's cpuctx_mutex and perf_read()).
	 */
	po = kzalloc(sizeof(*po), GFP_KERNEL);
	if (!po)
		return ERR_PTR(-ENOMEM);
	po->pf = pf;
	po->tgid = get_pid(pf->tgid);
	mutex_init(&po->lock);
	mutex_init(&po->log_lock);
	INIT_LIST_HEAD(&po->pmcs);
	init_waitqueue_head(&po->ring_wait);
	refcount_set(&po->refs, 1);	/* the file's */
	init_task_work(&po->exit_work, pmc_owner_exit_work);
	atomic_inc(&pmc_live[PMC_LIVE_OWNER]);

	spin_lock(&pmc_owners_lock);
	list_add_tail_rcu(&po->link, &pmc_owners);
	spin_unlock(&pmc_owners_lock);
	pmc_dbg(PMC_DBG_OWNER, PMC_DBG_ALLOCATE, 0, pid_nr(po->tgid), -1, 0);
	return po;
}

/*
 * pf->owner is set once, under pf->lock, and cleared only by the file's
 * release, when no op of the file runs any more: an op that need not
 * create the owner reads it without pf->lock (the counter read ops take
 * one mutex, not two). The release store pairs with the acquire load.
 */
struct pmc_owner *pmc_owner_find(struct pmc_file *pf, bool create)
{
	struct pmc_owner *po;

	if (!pmc_file_is_opener(pf))
		return ERR_PTR(-EPERM);
	/* Pairs with the release below: a created owner is initialised. */
	po = smp_load_acquire(&pf->owner);
	if (!po && create) {
		mutex_lock(&pf->lock);
		po = pf->owner;
		if (!po) {
			po = pmc_owner_create(pf);
			if (IS_ERR(po)) {
				mutex_unlock(&pf->lock);
				return po;
			}
			/* Pairs with the acquire above: published initialised. */
			smp_store_release(&pf->owner, po);
		}
		mutex_unlock(&pf->lock);
	}
	return po;
}

struct pmc_owner *pmc_owner_lock(struct pmc_file *pf, bool create)
{
	struct pmc_owner *po = pmc_owner_find(pf, create);

	if (!IS_ERR_OR_NULL(po))
		mutex_lock(&po->lock);
	return po;
}

void pmc_owner_unlock(struct pmc_owner *po)
{
	mutex_unlock(&po->lock);
}

int pmc_core_open_file(struct pmc_file *pf)
{
	/* The probes the file's owner will need (pmc_owner_create()). */
	return pmc_hooks_get();
}

void pmc_core_release_file(struct pmc_file *pf)
{
	struct pmc_owner *po = pf->owner;

	/* The last reference to the file: no op of it runs any more. */
	if (po) {
		pmc_owner_teardown(po);
		mutex_lock(&po->lock);
		po->pf = NULL;
		mutex_unlock(&po->lock);
		pf->owner = NULL;
		pmc_owner_put(po);
	}
	pmc_hooks_put();	/* pmc_core_open_file()'s */
}

/*
 * sched_process_exit probe, for the last thread of a process (@task is
 * current, preemption off): the owners that process had are torn down by a
 * task_work the dying thread runs later in do_exit(), where it may sleep.
 * The work holds a reference on the owner and on the module. The
 * pmc_owner_put() of a failure is never the last (which would free with
 * put_pid(), not allowed under preemption-off on PREEMPT_RT): the owner is
 * on pmc_owners, so its file's reference stands until
 * pmc_owner_finish()'s grace period, after this probe.
 */
void pmc_owner_exit_probe(struct task_struct *task)
{
	struct pid *tgid = task_tgid(task);
	struct pmc_owner *po;

	rcu_read_lock();
	pmc_for_each_owner_rcu(po) {
		if (po->tgid != tgid || atomic_xchg(&po->exit_queued, 1))
			continue;
		if (!refcount_inc_not_zero(&po->refs))
			continue;
		if (!try_module_get(THIS_MODULE)) {
			pmc_owner_put(po);
			continue;
		}
		if (pmc_task_work_add_atomic(task, &po->exit_work, TWA_NONE)) {
			module_put(THIS_MODULE);
			pmc_owner_put(po);
		}
	}
	rcu_read_unlock();
}

/* @task's tgid (or pid) as the owner's pid namespace sees it. Any context. */
pid_t pmc_owner_pid_nr(struct pmc_owner *po, struct task_struct *task,
		       bool tgid)
{
	return __task_pid_nr_ns(task, tgid ? PIDTYPE_TGID : PIDTYPE_PID,
				ns_of_pid(po->tgid));
}
