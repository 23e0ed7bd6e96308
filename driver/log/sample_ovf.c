// SPDX-License-Identifier: GPL-2.0
/*
 * sample_ovf.c - PMC_F_OVF_SIGNAL: a virtual counting PMC with a preset
 * overflowed, i.e. its set reached the count the program asked for. The
 * thread that overflowed it then, before it next runs user code: stops the
 * PMCs of the set (pmc_core_stop_group(), or the PMC alone without a
 * group), writes an OVERFLOW record with the values of the stopped set
 * into the owner's log/ring and publishes it, and only then sends itself
 * the PMC's signal (libcpc's CPC_OVF_NOTIFY_EMT): a handler finds the
 * record in the ring.
 *
 * Path: the overflow handler (NMI or hard IRQ, sample.c) queues an
 * OVERFLOW entry in its CPU's sample ring; the ring's drain (irq_work, hard
 * IRQ) calls pmc_ovf_queue(), which queues a task_work on the thread (6.1
 * has no NMI-safe task_work_add()); the task_work runs in process context.
 * One overflow per set and thread is pending at a time: later ones, until
 * the set is stopped, are the same event and are dropped.
 */
#include "base/pmc_base.h"
#include "pmc_log_priv.h"
#include "debug/pmc_debug.h"

#include <linux/list.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "compat/task_work.h"

/*
 * struct pmc_ovf_work - one pending overflow.
 * @po:		the owner (a reference)
 * @task:	the thread (identity only: it runs the work)
 * @pmcid:	the PMC that overflowed
 * @group:	its set (pm_group), 0 for none
 * @ip:		the interrupted IP, as the owner may see it
 */
struct pmc_ovf_work {
	struct callback_head cb;
	struct list_head link;
	struct pmc_owner *po;
	struct task_struct *task;
	u64 ip;
	u64 tsc;
	u32 pmcid;
	u32 group;
	u32 signo;
};

/*
 * The pending overflows, for the one-per-set rule. pmc_ovf_lock: a raw
 * spinlock taken with IRQs off, from the drain (hard IRQ; the irq_work
 * kthread on PREEMPT_RT) and the task_work (process context); innermost.
 * Raw for the hard IRQ drain.
 */
static LIST_HEAD(pmc_ovf_pending);
static DEFINE_RAW_SPINLOCK(pmc_ovf_lock);

static bool pmc_ovf_same(const struct pmc_ovf_work *a, struct pmc_owner *po,
			 struct task_struct *task, u32 pmcid, u32 group)
{
	return a->po == po && a->task == task &&
	       (group ? a->group == group : a->pmcid == pmcid);
}

/* Is @pm in the set of @w? */
static bool pmc_ovf_in_set(const struct pmc_ovf_work *w,
			   const struct pmc_obj *pm)
{
	return w->group ? pm->group == w->group : pm->id == w->pmcid;
}

/*
 * The OVERFLOW record: one entry per PMC of the set, with the values of
 * the stopped set (read here, in process context, after the stop: nothing
 * is read in the overflow handler). po->lock held.
 */
static void pmc_ovf_record(struct pmc_ovf_work *w)
{
	struct pmc_log_state *log = w->po->log;
	struct pmclog_overflow_entry *ents;
	struct pmclog_overflow *o;
	struct pmc_log_rsv rsv;
	struct pmc_obj *pm;
	unsigned int n = 0, max;

	if (!log || !pmc_log_accepting(log))
		return;
	list_for_each_entry(pm, &w->po->pmcs, owner_link)
		n += pmc_ovf_in_set(w, pm);
	max = (pmc_log_max_record(log) - sizeof(*o)) / sizeof(o->pl_entries[0]);
	n = min(n, max);

	/*
	 * The entries are made before the record is begun: reading a value
	 * may sleep (perf's mutexes), and pmc_log_begin() holds a spinlock
	 * with IRQs off until pmc_log_end(). The set is stopped: each value
	 * is what PMCRW returns from now on.
	 */
	ents = kcalloc(max(n, 1U), sizeof(*ents), GFP_KERNEL);
	if (!ents)
		return;
	n = 0;
	list_for_each_entry(pm, &w->po->pmcs, owner_link) {
		if (n == max)
			break;
		if (!pmc_ovf_in_set(w, pm))
			continue;
		ents[n].pl_pmcid = pm->id;
		ents[n].pl_overflowed = pm->id == w->pmcid;
		ents[n].pl_value = pmc_core_read_value(pm);
		n++;
	}

	o = pmc_log_begin(log, PMCLOG_TYPE_OVERFLOW,
			  struct_size(o, pl_entries, n), w->tsc, &rsv);
	if (o) {
		o->pl_group = w->group;
		o->pl_tid = pmc_log_pid(log, current, false);
		o->pl_pid = pmc_log_pid(log, current, true);
		o->pl_nentries = n;
		o->pl_ip = w->ip;
		memcpy(o->pl_entries, ents, n * sizeof(*ents));
		pmc_log_end(&rsv);
		pmc_log_publish(log, false);
	}
	kfree(ents);
}

/*
 * The signal, from the task_work: si_code POLL_IN (1, libcpc's EMT_CPCOVF,
 * which is 1 on illumos x86 too), si_addr the PC of the overflow.
 */
static void pmc_ovf_signal(struct pmc_ovf_work *w)
{
	struct kernel_siginfo info;

	clear_siginfo(&info);
	info.si_signo = w->signo;
	info.si_code = POLL_IN;
	info.si_addr = (void __user *)(unsigned long)w->ip;
	send_sig_info(w->signo, &info, current);
}

/* task_work: the overflowed thread, returning to user space. */
static void pmc_ovf_work_fn(struct callback_head *cb)
{
	struct pmc_ovf_work *w = container_of(cb, struct pmc_ovf_work, cb);
	struct pmc_owner *po = w->po;
	unsigned long flags;
	bool alive;

	if (w->group)
		pmc_core_stop_group(po, w->group);
	else
		pmc_core_stop_pmcid(po, w->pmcid);

	mutex_lock(&po->lock);
	/* A PMC released meanwhile (or a gone owner) signals nobody. */
	alive = pmc_find_pmc(po, w->pmcid);
	if (alive)
		pmc_ovf_record(w);
	mutex_unlock(&po->lock);
	if (alive)
		pmc_ovf_signal(w);
	pmc_dbg(PMC_DBG_SAMPLING, PMC_DBG_SIGNAL, w->pmcid,
		task_pid_nr(current), -1, w->signo);

	raw_spin_lock_irqsave(&pmc_ovf_lock, flags);
	list_del(&w->link);
	raw_spin_unlock_irqrestore(&pmc_ovf_lock, flags);
	pmc_owner_put(po);
	kfree(w);
	/* The work ran in module text: the reference kept the module. */
	module_put(THIS_MODULE);
}

void pmc_ovf_queue(struct pmc_owner *po, struct task_struct *task, u32 pmcid,
		   u32 group, u32 signo, u64 ip, u64 tsc)
{
	struct pmc_ovf_work *w, *p;
	unsigned long flags;
	bool dup = false;

	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		goto drop;
	w->po = po;
	w->task = task;
	w->pmcid = pmcid;
	w->group = group;
	w->signo = signo;
	w->ip = ip;
	w->tsc = tsc;
	init_task_work(&w->cb, pmc_ovf_work_fn);

	raw_spin_lock_irqsave(&pmc_ovf_lock, flags);
	list_for_each_entry(p, &pmc_ovf_pending, link) {
		if (pmc_ovf_same(p, po, task, pmcid, group)) {
			dup = true;
			break;
		}
	}
	if (!dup)
		list_add_tail(&w->link, &pmc_ovf_pending);
	raw_spin_unlock_irqrestore(&pmc_ovf_lock, flags);
	if (dup) {
		kfree(w);
		goto drop;
	}

	__module_get(THIS_MODULE);
	if (pmc_task_work_add_atomic(task, &w->cb, TWA_RESUME)) {
		/* The thread is exiting: nobody to signal. */
		raw_spin_lock_irqsave(&pmc_ovf_lock, flags);
		list_del(&w->link);
		raw_spin_unlock_irqrestore(&pmc_ovf_lock, flags);
		module_put(THIS_MODULE);
		kfree(w);
		goto drop;
	}
	put_task_struct(task);
	return;

drop:
	pmc_owner_put(po);
	put_task_struct(task);
}
