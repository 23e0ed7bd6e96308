// SPDX-License-Identifier: GPL-2.0
/*
 * sched_hooks.c - the scheduler tracepoints the core attaches to from the
 * module: sched_process_fork, sched_process_exec and sched_process_exit
 * while any owner exists (owner exit, targets' fork/exec/exit, the records
 * of system-sampling owners), and sched_switch while any process-mode PMC
 * with PMC_F_LOG_PROCCSW or PMC_F_SNAPSHOT or any self-read page exists
 * (and PMC_HOOKS_LINGER after): PROCCSW records (target.c), switch-out
 * SNAPSHOT records (snapshot.c), self-read page updates (selfread.c). An
 * idle driver costs the scheduler nothing.
 *
 * The tracepoints are looked up by name with for_each_kernel_tracepoint()
 * (the __tracepoint_sched_* symbols are not exported) and attached with
 * tracepoint_probe_register(). pmc_probe_typecheck() and
 * compat/tracepoint.h make the compiler check the probe prototypes against
 * the kernel's headers.
 *
 * Probe context (6.1 and 6.12, PREEMPT_RT included): preemption disabled
 * by the tracepoint; sched_switch also has IRQs off and the rq lock held.
 * The probes take no sleeping lock (on PREEMPT_RT a spinlock_t is one, and
 * the slab allocator takes them: no kmalloc() or kfree(), GFP_ATOMIC or
 * not), only the raw spinlocks of the log's staging, the probe pool and
 * the self-read pages; they never sleep, take the work they queue from the
 * probe pool (probe_pool.c) and defer everything else to task_work. They
 * find targets and owners under rcu_read_lock(), and a reference they drop
 * frees nothing there (pmc_target_put(), pmc_owner_exit_probe()).
 */
#include "pmc_core_priv.h"

#include <linux/sched/signal.h>
#include <linux/workqueue.h>

#include "compat/tracepoint.h"

static struct tracepoint *pmc_tp_switch;
static struct tracepoint *pmc_tp_fork;
static struct tracepoint *pmc_tp_exec;
static struct tracepoint *pmc_tp_exit;

/*
 * pmc_hooks_lock serialises (un)registration and protects the user counts
 * and registered flags. Process context; taken inside owner and rows
 * locks.
 *
 * Probes stay registered for PMC_HOOKS_LINGER after their last user goes:
 * each (un)registration live-patches hot scheduler code (static keys and
 * static calls), which back-to-back owners (a test suite, pmcstat run in a
 * loop) would otherwise do several times a second.
 */
#define PMC_HOOKS_LINGER	(2 * HZ)

static DEFINE_MUTEX(pmc_hooks_lock);
static unsigned int pmc_hooks_users;	/* owners: fork/exec/exit probes */
/* sched_switch users: PROCCSW and SNAPSHOT virtual PMCs, self-read pages */
static unsigned int pmc_switch_users;
static bool pmc_hooks_registered;
static bool pmc_switch_registered;

static void pmc_hooks_idle_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(pmc_hooks_idle, pmc_hooks_idle_fn);

/*
 * sched_switch: prev is still current, IRQs off, rq lock held. A part
 * with nothing alive to do returns at once (the books and the self-read
 * pages check their own counts).
 */
static void pmc_probe_switch(void *data, bool preempt,
			     struct task_struct *prev,
			     struct task_struct *next,
			     unsigned int prev_state)
{
	if (atomic_read(&pmc_thr_switch_live[PMC_THR_SW_CSW]))
		pmc_target_switch_probe(prev);
	pmc_book_switch_probe(prev);
	if (atomic_read(&pmc_thr_switch_live[PMC_THR_SW_SNAP]))
		pmc_snap_switch_probe(prev);
	pmc_selfread_switch_probe(prev, next);
}

/* sched_process_fork: in the parent, the child not yet woken. */
static void pmc_probe_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	struct pmc_owner *po;
	pid_t ppid, cpid;

	pmc_target_fork_probe(parent, child);
	pmc_book_fork_probe(parent, child);
	if (same_thread_group(parent, child))
		return;
	/* PROCFORK goes to every system-sampling owner. */
	rcu_read_lock();
	pmc_for_each_owner_rcu(po) {
		if (!READ_ONCE(po->nss))
			continue;
		ppid = pmc_owner_pid_nr(po, parent, true);
		cpid = pmc_owner_pid_nr(po, child, true);
		pmc_log_procfork(po, ppid, cpid);
	}
	rcu_read_unlock();
}

/* sched_process_exec: current after the exec, new creds committed. */
static void pmc_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	struct pmc_owner *po;

	pmc_target_exec_probe(p, bprm);
	rcu_read_lock();
	pmc_for_each_owner_rcu(po)
		if (READ_ONCE(po->nss))
			pmc_log_procexec(po, NULL, p);
	rcu_read_unlock();
}

/*
 * sched_process_exit: current, in do_exit() after perf_event_exit_task()
 * (6.1) and before exit_task_work(), which runs the work queued here.
 */
static void pmc_probe_exit(void *data, struct task_struct *p)
{
	bool group_dead = !atomic_read(&p->signal->live);
	struct pmc_owner *po;

	pmc_book_exit_probe(p);
	pmc_target_exit_probe(p);
	if (!group_dead)
		return;
	rcu_read_lock();
	pmc_for_each_owner_rcu(po)
		if (READ_ONCE(po->nss))
			pmc_log_sysexit(po, pmc_owner_pid_nr(po, p, true));
	rcu_read_unlock();
	pmc_owner_exit_probe(p);
}

/*
 * Never called: the probes have the prototypes compat/tracepoint.h checks
 * against the kernel's tracepoints.
 */
static void __maybe_unused pmc_probe_typecheck(void)
{
	pmc_tp_switch_fn sw = pmc_probe_switch;
	pmc_tp_fork_fn fork = pmc_probe_fork;
	pmc_tp_exec_fn exec = pmc_probe_exec;
	pmc_tp_exit_fn exit = pmc_probe_exit;

	(void)sw;
	(void)fork;
	(void)exec;
	(void)exit;
}

static void pmc_tp_lookup(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		pmc_tp_switch = tp;
	else if (!strcmp(tp->name, "sched_process_fork"))
		pmc_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		pmc_tp_exec = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		pmc_tp_exit = tp;
}

int pmc_hooks_init(void)
{
	for_each_kernel_tracepoint(pmc_tp_lookup, NULL);
	if (!pmc_tp_switch || !pmc_tp_fork || !pmc_tp_exec || !pmc_tp_exit) {
		pr_err("sched tracepoints not found\n");
		return -ENODEV;
	}
	return 0;
}

static int pmc_hooks_register(void)
{
	int ret;

	ret = tracepoint_probe_register(pmc_tp_fork, pmc_probe_fork, NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(pmc_tp_exec, pmc_probe_exec, NULL);
	if (ret)
		goto err_fork;
	ret = tracepoint_probe_register(pmc_tp_exit, pmc_probe_exit, NULL);
	if (ret)
		goto err_exec;
	pmc_hooks_registered = true;
	return 0;

err_exec:
	tracepoint_probe_unregister(pmc_tp_exec, pmc_probe_exec, NULL);
err_fork:
	tracepoint_probe_unregister(pmc_tp_fork, pmc_probe_fork, NULL);
	return ret;
}

/* pmc_hooks_lock held. */
static void pmc_hooks_unregister(void)
{
	if (!pmc_hooks_registered)
		return;
	tracepoint_probe_unregister(pmc_tp_exit, pmc_probe_exit, NULL);
	tracepoint_probe_unregister(pmc_tp_exec, pmc_probe_exec, NULL);
	tracepoint_probe_unregister(pmc_tp_fork, pmc_probe_fork, NULL);
	pmc_hooks_registered = false;
}

/* pmc_hooks_lock held. */
static void pmc_switch_hook_unregister(void)
{
	if (!pmc_switch_registered)
		return;
	tracepoint_probe_unregister(pmc_tp_switch, pmc_probe_switch, NULL);
	pmc_switch_registered = false;
}

/* The linger time is over: unregister what nobody uses. Process context. */
static void pmc_hooks_idle_fn(struct work_struct *work)
{
	mutex_lock(&pmc_hooks_lock);
	if (!pmc_hooks_users)
		pmc_hooks_unregister();
	if (!pmc_switch_users)
		pmc_switch_hook_unregister();
	mutex_unlock(&pmc_hooks_lock);
}

void pmc_hooks_exit(void)
{
	WARN_ON_ONCE(pmc_hooks_users || pmc_switch_users);
	cancel_delayed_work_sync(&pmc_hooks_idle);
	mutex_lock(&pmc_hooks_lock);
	pmc_hooks_unregister();
	pmc_switch_hook_unregister();
	mutex_unlock(&pmc_hooks_lock);
	/* No probe runs module code once this returns. */
	tracepoint_synchronize_unregister();
}

int pmc_hooks_get(void)
{
	int ret = 0;

	mutex_lock(&pmc_hooks_lock);
	if (!pmc_hooks_registered)
		ret = pmc_hooks_register();
	if (!ret)
		pmc_hooks_users++;
	mutex_unlock(&pmc_hooks_lock);
	return ret;
}

void pmc_hooks_put(void)
{
	mutex_lock(&pmc_hooks_lock);
	if (!WARN_ON_ONCE(!pmc_hooks_users) && !--pmc_hooks_users)
		mod_delayed_work(system_wq, &pmc_hooks_idle, PMC_HOOKS_LINGER);
	mutex_unlock(&pmc_hooks_lock);
}

int pmc_switch_hook_get(void)
{
	int ret = 0;

	mutex_lock(&pmc_hooks_lock);
	if (!pmc_switch_registered) {
		ret = tracepoint_probe_register(pmc_tp_switch,
						pmc_probe_switch, NULL);
		pmc_switch_registered = !ret;
	}
	if (!ret)
		pmc_switch_users++;
	mutex_unlock(&pmc_hooks_lock);
	return ret;
}

void pmc_switch_hook_put(void)
{
	mutex_lock(&pmc_hooks_lock);
	if (!WARN_ON_ONCE(!pmc_switch_users) && !--pmc_switch_users)
		mod_delayed_work(system_wq, &pmc_hooks_idle, PMC_HOOKS_LINGER);
	mutex_unlock(&pmc_hooks_lock);
}
