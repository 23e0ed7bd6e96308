// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot.c - PMC_F_SNAPSHOT: counting PMCs that write their values into the
 * owner's log/ring every pm_snapshot_us microseconds: a set (pm_group) as
 * one SNAPSET record, a PMC of group 0 as a SNAPSHOT record.
 *
 * System scope: one pinned hard-IRQ hrtimer per (owner, pm_group, CPU), a
 * struct pmc_snap shared by the running SNAPSHOT PMCs of that set on that
 * CPU (a PMC of group 0 has one of its own). It fires on the PMC's CPU and
 * writes the values of all its members in one record, reading each kernel
 * counter there (perf_event_read_local() is not exported: the counter is
 * read as lttng does, pmu->read() on its own CPU with IRQs off), but only
 * while every PMC of the set on that CPU runs: PMCSTOP stops a set one PMC
 * at a time, each writing its last record (a SNAPSHOT), and a record of
 * the members left, written in between, would mix running values with
 * last ones (a reader rebuilding the set from the last records would take
 * them for the set's last values); likewise before the last member has
 * started. It is armed at PMCSTART (from the CPU itself, by IPI) and
 * cancelled at PMCSTOP and release (owner exit releases every PMC). A CPU
 * that goes offline takes the counter with it (core.c pmc_sys_revive());
 * the timer, migrated by the hotplug code, finds itself on another CPU and
 * stops; PMCSTART after the CPU came back arms a new one.
 *
 * Process/thread scope: the sched_switch probe writes, at the switch-out
 * of a counted thread, the records of the thread's SNAPSHOT PMCs whose
 * period elapsed since that thread's last record; the PMCs of one owner
 * and group counting the thread are written together, one SNAPSET record.
 *
 * PMCSTOP (and an overflow stopping the set) writes a last record of the
 * stopped PMC with its final value, the one PMCRW/PMCREADSET return.
 *
 * Locks: pmc_snap.lock (raw spinlock, below).
 */
#include "pmc_core_priv.h"
#include "arch/pmc_arch.h"

#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <pmc/pmclog.h>

/*
 * struct pmc_snap - the snapshot timer of one set on one CPU.
 * @timer:	pinned to @cpu, hard IRQ
 * @lock:	protects @n, @size and @pms: taken by the timer (hard IRQ)
 *		and by process context (members join and leave, owner's
 *		lock held), IRQs off; the log's staging locks nest inside
 *		it. Never held around hrtimer_cancel(). Raw: the timer is a
 *		_HARD hrtimer, in hard IRQ on PREEMPT_RT too.
 * @po:		the owner (the PMCs hold it)
 * @group:	the set (pm_group), 0 for a PMC alone
 * @cpu:	the CPU
 * @period:	ns between records (the set's pm_snapshot_us)
 * @n:		the number of running members, in @pms
 * @size:	the number of the set's PMCs on @cpu (system scope,
 *		PMC_F_SNAPSHOT, allocated and not released), running or not;
 *		the timer writes records only while @n equals it
 * @pms:	the running members; a PMC joins at PMCSTART and leaves at
 *		PMCSTOP or release, owner's lock held
 */
struct pmc_snap {
	struct hrtimer timer;
	raw_spinlock_t lock;
	struct pmc_owner *po;
	u32 group;
	int cpu;
	u64 period;
	unsigned int n;
	unsigned int size;
	struct pmc_obj *pms[PMC_READSET_MAX];
};

/*
 * A system PMC's value on its CPU, now. Hard IRQ on pm->cpu (IRQs off):
 * an active counter is brought up to date there; an inactive one (stopped
 * by an error, or its CPU's context gone) holds still.
 */
static u64 pmc_snap_read_sys(struct pmc_obj *pm)
{
	struct perf_event *event = pm->sysev;

	if (pm->pmc_class == PMC_CLASS_TSC)
		return pmc_arch_read_tsc();
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	    READ_ONCE(event->oncpu) == smp_processor_id())
		event->pmu->read(event);
	return READ_ONCE(pm->accum) + local64_read(&event->count) +
	       atomic64_read(&event->child_count);
}

/*
 * The SNAPSET entries of @arg's (a struct pmc_snap's) members, read now.
 * The timer's pmc_snapset_fill_t: hard IRQ on the set's CPU, snap->lock
 * and the staging lock held.
 */
static unsigned int pmc_snap_fill_sys(void *arg,
				      struct pmclog_snapset_entry *ents,
				      unsigned int n)
{
	struct pmc_snap *snap = arg;
	unsigned int i;

	for (i = 0; i < n; i++) {
		ents[i].pl_pmcid = snap->pms[i]->id;
		ents[i].pl_value = pmc_snap_read_sys(snap->pms[i]);
	}
	return n;
}

/*
 * The timer: hard IRQ (HRTIMER_MODE_REL_PINNED_HARD, on PREEMPT_RT too), on
 * snap->cpu unless hotplug moved it. Takes snap->lock (raw) and, inside
 * it, the log's staging lock (raw). Writes the set whole, one SNAPSET
 * record (a SNAPSHOT for a PMC of group 0), or nothing while one of its
 * PMCs on this CPU is stopped or not yet started (@n < @size).
 */
static enum hrtimer_restart pmc_snap_fire(struct hrtimer *timer)
{
	struct pmc_snap *snap = container_of(timer, struct pmc_snap, timer);
	u64 tsc;

	/* Its CPU went offline: the counters went with it. */
	if (smp_processor_id() != snap->cpu)
		return HRTIMER_NORESTART;
	tsc = ktime_get_ns();
	raw_spin_lock(&snap->lock);
	if (snap->n == snap->size && snap->n) {
		if (!snap->group)
			pmc_log_snapshot(snap->po, snap->pms[0], snap->cpu, 0,
					 pmc_snap_read_sys(snap->pms[0]), tsc);
		else
			pmc_log_snapset(snap->po, snap->group, snap->cpu, 0,
					tsc, snap->n, pmc_snap_fill_sys, snap);
	}
	raw_spin_unlock(&snap->lock);
	hrtimer_forward_now(timer, ns_to_ktime(snap->period));
	return HRTIMER_RESTART;
}

/* IPI on snap->cpu: arm the pinned timer there. Hard IRQ. */
static void pmc_snap_arm(void *info)
{
	struct pmc_snap *snap = info;

	hrtimer_start(&snap->timer, ns_to_ktime(snap->period),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * The timer of @pm's set on its CPU, if another member runs. Owner's lock
 * held; process context.
 */
static struct pmc_snap *pmc_snap_find(struct pmc_obj *pm)
{
	struct pmc_obj *p;

	if (!pm->group)
		return NULL;
	list_for_each_entry(p, &pm->owner->pmcs, owner_link)
		if (p != pm && p->snap && p->group == pm->group &&
		    p->cpu == pm->cpu)
			return p->snap;
	return NULL;
}

/*
 * The number of PMCs of @snap's set on its CPU: the owner's system
 * SNAPSHOT PMCs of its group and CPU not released (a PMC of group 0 is a
 * set alone). Owner's lock held; process context.
 */
static unsigned int pmc_snap_set_size(const struct pmc_snap *snap)
{
	struct pmc_obj *p;
	unsigned int size = 0;

	if (!snap->group)
		return 1;
	list_for_each_entry(p, &snap->po->pmcs, owner_link)
		if (PMC_IS_SYSTEM_MODE(p->mode) &&
		    (p->flags & PMC_F_SNAPSHOT) && p->group == snap->group &&
		    p->cpu == snap->cpu && p->state != PMC_STATE_DELETED)
			size++;
	return size;
}

/*
 * Count the PMCs of @snap's set again, after one was allocated, started,
 * stopped or released. Owner's lock held; process context (takes
 * snap->lock with IRQs off).
 */
static void pmc_snap_resize(struct pmc_snap *snap)
{
	unsigned int size = pmc_snap_set_size(snap);
	unsigned long flags;

	raw_spin_lock_irqsave(&snap->lock, flags);
	snap->size = size;
	raw_spin_unlock_irqrestore(&snap->lock, flags);
}

/*
 * A system SNAPSHOT PMC of a set joined it (allocated) or left it
 * (released, off the owner's list): the set's timer on its CPU, if one
 * runs, counts the set's PMCs again. Owner's lock held; process context.
 */
void pmc_snap_set_changed(struct pmc_obj *pm)
{
	struct pmc_snap *snap;

	if (!(pm->flags & PMC_F_SNAPSHOT) || !PMC_IS_SYSTEM_MODE(pm->mode))
		return;
	snap = pm->snap ?: pmc_snap_find(pm);
	if (snap)
		pmc_snap_resize(snap);
}

/*
 * A SNAPSHOT PMC being installed: the PMCs of one set must share one
 * period (the set is written together). Owner's lock held.
 */
int pmc_snap_check(struct pmc_owner *po, const struct pmc_obj *pm)
{
	struct pmc_obj *p;

	if (!(pm->flags & PMC_F_SNAPSHOT) || !pm->group)
		return 0;
	list_for_each_entry(p, &po->pmcs, owner_link)
		if ((p->flags & PMC_F_SNAPSHOT) && p->group == pm->group &&
		    p->snapshot_us != pm->snapshot_us) {
			pr_debug("snapshot period %u us, set %u has %u us\n",
				 pm->snapshot_us, pm->group, p->snapshot_us);
			return -EINVAL;
		}
	return 0;
}

/*
 * Is @pm counting exactly one thread, for good (a thread target without
 * inherit, no descendants)? Then a switch-out record of that thread
 * carries the PMC's own value. Owner's lock held.
 */
static bool pmc_snap_counts_one_thread(struct pmc_obj *pm)
{
	struct pmc_target *tgt;

	if (pm->flags & PMC_F_DESCENDANTS || !list_is_singular(&pm->targets))
		return false;
	tgt = list_first_entry(&pm->targets, struct pmc_target, pm_link);
	return tgt->thread && !tgt->inherit;
}

void pmc_snap_targets_changed(struct pmc_obj *pm)
{
	if (PMC_IS_VIRTUAL_MODE(pm->mode))
		WRITE_ONCE(pm->snap_whole, pmc_snap_counts_one_thread(pm));
}

/*
 * @pm (running now) starts writing records: a system PMC joins its set's
 * timer on its CPU, arming one if it is the first. Owner's lock held;
 * process context.
 * Returns 0 or -ENOMEM / -ENXIO (CPU gone).
 */
int pmc_snap_start(struct pmc_obj *pm)
{
	struct pmc_snap *snap;
	unsigned long flags;
	int ret = 0;

	if (!(pm->flags & PMC_F_SNAPSHOT))
		return 0;
	if (PMC_IS_VIRTUAL_MODE(pm->mode)) {
		pmc_snap_targets_changed(pm);
		return 0;
	}
	if (pm->snap)
		return 0;
	snap = pmc_snap_find(pm);
	if (snap) {
		raw_spin_lock_irqsave(&snap->lock, flags);
		if (snap->n < ARRAY_SIZE(snap->pms))
			snap->pms[snap->n++] = pm;
		else
			ret = -ENOSPC;
		raw_spin_unlock_irqrestore(&snap->lock, flags);
		if (!ret)
			pm->snap = snap;
		return ret;
	}

	snap = kzalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	raw_spin_lock_init(&snap->lock);
	hrtimer_init(&snap->timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	snap->timer.function = pmc_snap_fire;
	snap->po = pm->owner;
	snap->group = pm->group;
	snap->cpu = pm->cpu;
	snap->period = (u64)pm->snapshot_us * NSEC_PER_USEC;
	snap->pms[snap->n++] = pm;
	snap->size = pmc_snap_set_size(snap);
	pm->snap = snap;
	ret = smp_call_function_single(pm->cpu, pmc_snap_arm, snap, 1);
	if (ret) {
		pm->snap = NULL;
		hrtimer_cancel(&snap->timer);
		kfree(snap);
		return -ENXIO;
	}
	return 0;
}

/*
 * @pm stops writing records: it leaves its set's timer, which is
 * cancelled (outside its lock) and freed with its last member. Owner's
 * lock held; process context.
 */
void pmc_snap_stop(struct pmc_obj *pm)
{
	struct pmc_snap *snap = pm->snap;
	unsigned long flags;
	unsigned int i, left;

	if (!snap)
		return;
	raw_spin_lock_irqsave(&snap->lock, flags);
	for (i = 0; i < snap->n; i++) {
		if (snap->pms[i] == pm) {
			snap->pms[i] = snap->pms[--snap->n];
			break;
		}
	}
	left = snap->n;
	raw_spin_unlock_irqrestore(&snap->lock, flags);
	pm->snap = NULL;
	if (left)
		return;
	hrtimer_cancel(&snap->timer);
	kfree(snap);
}

/*
 * The last record of @pm, just stopped: its final value at @tsc (0: now).
 * System scope from its CPU (pl_cpu, pl_tid 0); process scope with pl_cpu
 * PMC_CPU_ANY and pl_tid 0. Owner's lock held; process context.
 */
void pmc_snap_final(struct pmc_obj *pm, u64 tsc)
{
	if (!(pm->flags & PMC_F_SNAPSHOT))
		return;
	if (PMC_IS_SYSTEM_MODE(pm->mode) && !cpu_online(pm->cpu))
		return;
	pmc_log_snapshot(pm->owner, pm,
			 PMC_IS_SYSTEM_MODE(pm->mode) ? pm->cpu : PMC_CPU_ANY,
			 0, pmc_core_read_value(pm), tsc ?: ktime_get_ns());
}

/* ------------------------------------------------------------ switch */

#define PMC_SNAP_DUE_MAX	8

/* A set at a switch-out (due, or stopped): its owner and group. */
struct pmc_snap_due {
	struct pmc_owner *po;
	u32 group;
};

/* Is (@po, @group) in @due[0 .. @n)? */
static bool pmc_snap_is_due(const struct pmc_snap_due *due, unsigned int n,
			    struct pmc_owner *po, u32 group)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (due[i].po == po && due[i].group == group)
			return true;
	return false;
}

/* A running SNAPSHOT PMC's counter of @thr, active here; or NULL. */
static struct perf_event *pmc_snap_thr_event(struct pmc_thr *thr)
{
	struct perf_event *event = READ_ONCE(thr->event);
	struct pmc_obj *pm = thr->tgt->pm;

	if (!(pm->flags & PMC_F_SNAPSHOT) || !event || READ_ONCE(thr->dead) ||
	    READ_ONCE(pm->state) != PMC_STATE_RUNNING)
		return NULL;
	if (READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE ||
	    READ_ONCE(event->oncpu) != smp_processor_id())
		return NULL;
	return event;
}

/*
 * @thr's PMC's value now, for a record at @now (the PMC's counter of the
 * thread, @event, is active here). sched_switch context.
 */
static u64 pmc_snap_thr_read(struct pmc_thr *thr, struct perf_event *event,
			     u64 now)
{
	struct pmc_obj *pm = thr->tgt->pm;
	u64 value;

	event->pmu->read(event);
	value = local64_read(&event->count);
	if (READ_ONCE(pm->snap_whole))
		value += READ_ONCE(pm->accum);
	thr->last_snap = now;
	return value;
}

/* The SNAPSHOT record of @thr's PMC (group 0) at @now. sched_switch context. */
static void pmc_snap_thr_write(struct pmc_thr *thr, struct perf_event *event,
			       struct task_struct *prev, u64 now)
{
	struct pmc_obj *pm = thr->tgt->pm;
	struct pmc_owner *po = pm->owner;

	pmc_log_snapshot(po, pm, smp_processor_id(),
			 pmc_owner_pid_nr(po, prev, false),
			 pmc_snap_thr_read(thr, event, now), now);
}

/* What pmc_snap_fill_thr() reads: @prev's PMCs of @set, at @now. */
struct pmc_snap_set_fill {
	struct task_struct *prev;
	struct pmc_snap_due set;
	u64 now;
};

/* The running counter of @thr if its PMC is of @set; or NULL. */
static struct perf_event *pmc_snap_thr_of(struct pmc_thr *thr,
					  struct task_struct *prev,
					  const struct pmc_snap_due *set)
{
	struct pmc_obj *pm = thr->tgt->pm;

	if (thr->task != prev || pm->owner != set->po ||
	    pm->group != set->group)
		return NULL;
	return pmc_snap_thr_event(thr);
}

/*
 * The SNAPSET entries of the thread's running PMCs of one set; the
 * switch-out's pmc_snapset_fill_t (sched_switch context, the staging lock
 * held).
 */
static unsigned int pmc_snap_fill_thr(void *arg,
				      struct pmclog_snapset_entry *ents,
				      unsigned int n)
{
	struct pmc_snap_set_fill *f = arg;
	struct perf_event *event;
	struct pmc_thr *thr;
	unsigned int i = 0;

	pmc_for_each_thr_rcu(thr, f->prev) {
		if (i == n)
			break;
		event = pmc_snap_thr_of(thr, f->prev, &f->set);
		if (!event)
			continue;
		ents[i].pl_pmcid = thr->tgt->pm->id;
		ents[i].pl_value = pmc_snap_thr_read(thr, event, f->now);
		i++;
	}
	return i;
}

/*
 * The SNAPSET record of @prev's running PMCs of @set at @now: counted
 * first, then read into the staged record. sched_switch context, under
 * rcu_read_lock().
 */
static void pmc_snap_set_write(struct task_struct *prev,
			       const struct pmc_snap_due *set, u64 now)
{
	struct pmc_snap_set_fill f = { .prev = prev, .set = *set, .now = now };
	struct pmc_thr *thr;
	unsigned int n = 0;

	pmc_for_each_thr_rcu(thr, prev)
		n += !!pmc_snap_thr_of(thr, prev, set);
	pmc_log_snapset(set->po, set->group, smp_processor_id(),
			pmc_owner_pid_nr(set->po, prev, false), now, n,
			pmc_snap_fill_thr, &f);
}

/*
 * Is @thr's PMC a stopped member of a set (a SNAPSHOT PMC with a group)?
 * sched_switch context.
 */
static bool pmc_snap_thr_stopped(struct pmc_thr *thr)
{
	struct pmc_obj *pm = thr->tgt->pm;

	return pm->group && (pm->flags & PMC_F_SNAPSHOT) &&
	       !READ_ONCE(thr->dead) &&
	       READ_ONCE(pm->state) != PMC_STATE_RUNNING;
}

/*
 * sched_switch probe, @prev still current (IRQs off, rq lock held): the
 * records of @prev's SNAPSHOT PMCs whose period elapsed since its last
 * record; a set (owner, group) is written whole with one timestamp when
 * any of its PMCs is due, and not at all while one of its PMCs is stopped:
 * PMCSTOP stops a set one PMC at a time, each writing its last record, and
 * a switch-out in between would write the others' values at an instant
 * between those last records (a reader rebuilding the set from one record
 * per PMC would take them for the set's last values). No lock but the
 * log's staging lock.
 */
void pmc_snap_switch_probe(struct task_struct *prev)
{
	/* Entries [0, n) only are read: not zeroed at every switch. */
	struct pmc_snap_due due[PMC_SNAP_DUE_MAX] __uninitialized;
	struct pmc_snap_due stopped[PMC_SNAP_DUE_MAX] __uninitialized;
	struct perf_event *event;
	struct pmc_obj *pm;
	struct pmc_thr *thr;
	unsigned int i, ndue = 0, nstopped = 0;
	u64 now = 0;

	rcu_read_lock();
	pmc_for_each_thr_rcu(thr, prev) {
		if (thr->task != prev)
			continue;
		pm = thr->tgt->pm;
		if (pmc_snap_thr_stopped(thr)) {
			if (nstopped < PMC_SNAP_DUE_MAX &&
			    !pmc_snap_is_due(stopped, nstopped, pm->owner,
					     pm->group))
				stopped[nstopped++] = (struct pmc_snap_due){
					pm->owner, pm->group };
			continue;
		}
		event = pmc_snap_thr_event(thr);
		if (!event)
			continue;
		if (!now)
			now = ktime_get_ns();
		if (now - thr->last_snap < (u64)pm->snapshot_us * NSEC_PER_USEC)
			continue;
		if (!pm->group)
			pmc_snap_thr_write(thr, event, prev, now);
		else if (ndue < PMC_SNAP_DUE_MAX &&
			 !pmc_snap_is_due(due, ndue, pm->owner, pm->group))
			due[ndue++] = (struct pmc_snap_due){ pm->owner,
							     pm->group };
	}
	for (i = 0; i < ndue; i++)
		if (!pmc_snap_is_due(stopped, nstopped, due[i].po,
				     due[i].group))
			pmc_snap_set_write(prev, &due[i], now);
	rcu_read_unlock();
}
