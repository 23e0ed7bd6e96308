// SPDX-License-Identifier: GPL-2.0
/*
 * core.c - PMC objects and the hwpmc ops on them: PMCALLOCATE, PMCATTACH,
 * PMCDETACH, PMCRELEASE, PMCRW, PMCSETCOUNT, PMCSTART, PMCSTOP,
 * PMCGETMSR, GETCAPS and the Linux PMCREADSET; module init/exit of the
 * core. Rows are in rows.c, targets in target.c, counters in event.c.
 *
 * Every op runs in process context under the owner's lock: the caller must
 * be the process that opened the file (EPERM otherwise: a PMC is used only
 * by its owner, even through an inherited or passed descriptor). A caller
 * that has never allocated a PMC gets ESRCH; an id that is not one of the
 * caller's live PMCs (released, another owner's, forged) gets EINVAL.
 */
#include "pmc_core_priv.h"

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

/* ------------------------------------------------------------ objects */

atomic_t pmc_live[PMC_LIVE_NKINDS];

void pmc_obj_put(struct pmc_obj *pm)
{
	if (!refcount_dec_and_test(&pm->refs))
		return;
	pmc_owner_put(pm->owner);
	atomic_dec(&pmc_live[PMC_LIVE_PMC]);
	kfree_rcu(pm, rcu);
}

/*
 * The owner's PMC @id, or NULL. An id that no PMC has, well formed or not,
 * finds none. Owner's lock held.
 */
struct pmc_obj *pmc_find_pmc(struct pmc_owner *po, u32 id)
{
	struct pmc_obj *pm;

	list_for_each_entry(pm, &po->pmcs, owner_link)
		if (pm->id == id)
			return pm;
	return NULL;
}

/*
 * The caller's PMC @id, with its owner locked in *@pop; or an ERR_PTR:
 * EPERM (not the opener), ESRCH (no PMC ever allocated), EINVAL (no such
 * PMC of the caller).
 */
static struct pmc_obj *pmc_lookup(struct pmc_file *pf, u32 id,
				  struct pmc_owner **pop)
{
	struct pmc_owner *po;
	struct pmc_obj *pm;

	po = pmc_owner_lock(pf, false);
	if (IS_ERR(po))
		return ERR_CAST(po);
	if (!po)
		return ERR_PTR(-ESRCH);
	pm = pmc_find_pmc(po, id);
	if (!pm) {
		pmc_owner_unlock(po);
		pr_debug("pmc id 0x%08x refused\n", id);
		return ERR_PTR(-EINVAL);
	}
	*pop = po;
	return pm;
}

/*
 * Before an op on a system PMC tests cpu_online() and acts on the CPU's
 * counter: a hotplug of that CPU in progress goes first (pmc_cpu_settle(),
 * driver/base/cpu_settle.c, which says why no lock is held across the op).
 * Process context; may sleep.
 */
static void pmc_sys_settle(const struct pmc_obj *pm)
{
	if (PMC_IS_SYSTEM_MODE(pm->mode))
		pmc_cpu_settle(pm->cpu);
}

/* The CPU field of the debug events of @pm: its CPU, or -1 (process mode). */
static int pmc_dbg_cpu(const struct pmc_obj *pm)
{
	return PMC_IS_SYSTEM_MODE(pm->mode) ? (int)pm->cpu : -1;
}

static void pmc_set_state(struct pmc_obj *pm, u32 state)
{
	/* GETPMCINFO reads it without the owner's lock. */
	WRITE_ONCE(pm->state, state);
}

/*
 * @pm's value in a reader's IRQs-off pass (pmc_read_set()), if its
 * counters are the calling thread's or this CPU's: false otherwise, for
 * pmc_read_value() to read. Owner's lock held, IRQs off.
 */
static bool pmc_read_value_irqoff(struct pmc_obj *pm, u64 *value)
{
	u64 v;

	if (pm->pmc_class == PMC_CLASS_TSC)
		return false;	/* read on its CPU by a cross-call */
	if (!pm->sysev)
		return pmc_virtual_read_irqoff(pm, value);
	if (!pmc_event_read_irqoff(pm->sysev, &v))
		return false;
	pmc_dbg(PMC_DBG_MD, PMC_DBG_READ, pm->id, 0, pm->cpu, v);
	*value = pm->accum + v;
	return true;
}

/* The PMC's value. System PMCs: their CPU is online. */
static u64 pmc_read_value(struct pmc_obj *pm)
{
	u64 value;

	if (pm->pmc_class == PMC_CLASS_TSC)
		return pmc_tsc_read_cpu(pm->cpu);
	if (pm->sysev) {
		value = pmc_event_read(pm->sysev);
		pmc_dbg(PMC_DBG_MD, PMC_DBG_READ, pm->id, 0, pm->cpu, value);
		return pm->accum + value;
	}
	return pmc_virtual_read(pm);
}

u64 pmc_core_read_value(struct pmc_obj *pm)
{
	return pmc_read_value(pm);
}

/* Make the value @value from now on: counters keep counting from it. */
static void pmc_write_value(struct pmc_obj *pm, u64 value)
{
	/* Read first: the read may fold ended counters into pm->accum. */
	u64 now = pmc_read_value(pm);

	pm->accum += value - now;
}

int pmc_stop_pmc(struct pmc_obj *pm)
{
	if (pm->state == PMC_STATE_RUNNING) {
		if (pm->sysev) {
			perf_event_disable(pm->sysev);
			pmc_dbg(PMC_DBG_MD, PMC_DBG_STOP, pm->id, 0, pm->cpu, 0);
		} else if (PMC_IS_VIRTUAL_MODE(pm->mode)) {
			pmc_virtual_enable(pm, false);
		}
	}
	pmc_set_state(pm, PMC_STATE_STOPPED);
	return 0;
}

/*
 * Stop @pm as PMCSTOP does: its snapshot timer first, then the counters,
 * then the SNAPSHOT PMC's last record, with its final value, at @tsc (0:
 * now). Owner's lock held.
 */
static void pmc_stop_and_log(struct pmc_obj *pm, u64 tsc)
{
	bool was_running = pm->state == PMC_STATE_RUNNING;

	pmc_snap_stop(pm);
	pmc_stop_pmc(pm);
	if (was_running)
		pmc_snap_final(pm, tsc);
}

/*
 * Does @pm need the sched_switch probe (PROCCSW records, switch-out
 * SNAPSHOT records, the per-thread counts of PROCEXIT in book mode)?
 */
static bool pmc_needs_switch_hook(const struct pmc_obj *pm)
{
	u32 book_exit = PMC_F_LOG_PROCEXIT | PMC_F_DESCENDANTS;

	return PMC_IS_VIRTUAL_MODE(pm->mode) &&
	       ((pm->flags & (PMC_F_LOG_PROCCSW | PMC_F_SNAPSHOT)) ||
		(pm->flags & book_exit) == book_exit);
}

/* Is @pm a system PMC whose counter CPU hotplug took out for good? */
static bool pmc_sys_dead(const struct pmc_obj *pm)
{
	return pm->sysev &&
	       !(READ_ONCE(pm->sysev->attach_state) & PERF_ATTACH_CONTEXT);
}

/*
 * When its CPU goes offline perf takes a system counter out of the CPU's
 * context for good: the counter keeps its count and counts nothing more,
 * even once the CPU is back. PMCSTART (running or not) gives such a PMC a
 * new counter on its online CPU, the old count folded into its value; until
 * then reads return the value it had when its CPU went. Returns 0 or the
 * creation's error (the old counter stays). @pm is pmc_sys_dead(); owner's
 * lock held.
 */
static int pmc_sys_revive(struct pmc_obj *pm)
{
	struct perf_event *event;

	event = pmc_event_create(pm, pm->cpu, NULL,
				 pm->state == PMC_STATE_RUNNING);
	if (IS_ERR(event))
		return PTR_ERR(event);
	pm->accum += pmc_event_read(pm->sysev);
	pmc_event_release(pm->sysev);
	pm->sysev = event;
	return 0;
}

/* Start @pm; a system PMC's counter is alive (pmc_sys_revive()). */
static int pmc_start_pmc(struct pmc_obj *pm)
{
	int ret;

	if (pm->state == PMC_STATE_RUNNING)
		return 0;
	if (pm->sysev) {
		perf_event_enable(pm->sysev);
		pmc_dbg(PMC_DBG_MD, PMC_DBG_START, pm->id, 0, pm->cpu, 0);
		/* A pinned counter that found no free hardware counter. */
		if (READ_ONCE(pm->sysev->state) == PERF_EVENT_STATE_ERROR) {
			perf_event_disable(pm->sysev);
			return -EBUSY;
		}
	} else if (PMC_IS_VIRTUAL_MODE(pm->mode)) {
		if (pm->flags & PMC_F_OVF_SIGNAL) {
			/* Re-arm: overflow when the value next wraps. */
			pm->attr.sample_period =
				pmc_event_ovf_period(pm, pmc_read_value(pm));
			ret = pmc_virtual_set_period(pm, pm->attr.sample_period);
			if (ret)
				return ret;
		}
		pmc_virtual_enable(pm, true);
	}
	pmc_set_state(pm, PMC_STATE_RUNNING);
	return 0;
}

/* Stop, detach and release @pm; the owner's lock held. */
void pmc_release_pmc(struct pmc_obj *pm)
{
	struct pmc_owner *po = pm->owner;

	pmc_dbg(PMC_DBG_PMC, PMC_DBG_RELEASE, pm->id, pid_nr(po->tgid),
		pmc_dbg_cpu(pm), 0);
	pmc_snap_stop(pm);
	pmc_stop_pmc(pm);
	pmc_set_state(pm, PMC_STATE_DELETED);
	if (PMC_IS_VIRTUAL_MODE(pm->mode))
		pmc_detach_all(pm);
	if (pm->sysev) {
		pmc_dbg(PMC_DBG_MD, PMC_DBG_RELEASE, pm->id, 0, pm->cpu, 0);
		pmc_event_release(pm->sysev);
		pm->sysev = NULL;
	}
	pmc_row_release(pm);
	if (pmc_needs_switch_hook(pm))
		pmc_switch_hook_put();
	if (pm->mode == PMC_MODE_SS)
		WRITE_ONCE(po->nss, po->nss - 1);
	list_del(&pm->owner_link);
	/* The set's timer writes the members left again. */
	pmc_snap_set_changed(pm);
	/* Off the self-read pages before the PMC can go. */
	if (PMC_IS_VIRTUAL_MODE(pm->mode))
		pmc_selfread_update(po, pm->group);
	pmc_obj_put(pm);
}

/* ------------------------------------------------------------ allocate */

/* Check a PMCALLOCATE request that needs no state. */
static int pmc_allocate_check(const struct pmc_op_pmcallocate *pa,
			      const struct pmc_classdesc **cdp)
{
	const struct pmc_classdesc *cd;
	u32 mode = pa->pm_mode, flags = pa->pm_flags;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pa->pm_reserved); i++)
		if (pa->pm_reserved[i])
			return -EINVAL;
	if (flags & ~PMC_F_ALLOCATE_MASK || mode > PMC_MODE_LAST)
		return -EINVAL;
	/*
	 * SNAPSHOT: counting PMCs only, with a period at or above the floor;
	 * a period without the flag means nothing.
	 */
	if (flags & PMC_F_SNAPSHOT) {
		if (!PMC_IS_COUNTING_MODE(mode) ||
		    pa->pm_snapshot_us < PMC_SNAPSHOT_MIN_US) {
			pr_debug("snapshot period %u us, mode %u refused\n",
				 pa->pm_snapshot_us, mode);
			return -EINVAL;
		}
	} else if (pa->pm_snapshot_us) {
		return -EINVAL;
	}
	cd = pmc_class_find(pa->pm_class);
	if (!cd)
		return -EINVAL;
	if (PMC_IS_SYSTEM_MODE(mode)) {
		if (pa->pm_cpu == PMC_CPU_ANY || !pmc_cpu_is_valid(pa->pm_cpu))
			return -EINVAL;
		if (flags & (PMC_F_DESCENDANTS | PMC_F_LOG_PROCCSW |
			     PMC_F_LOG_PROCEXIT | PMC_F_OVF_SIGNAL))
			return -EINVAL;
		if (!cpu_online(pa->pm_cpu))
			return -ENXIO;
	} else if (pa->pm_cpu != PMC_CPU_ANY) {
		return -EINVAL;
	}
	if (flags & PMC_F_OVF_SIGNAL) {
		if (mode != PMC_MODE_TC || !pa->pm_signo ||
		    !valid_signal(pa->pm_signo))
			return -EINVAL;
	} else if (pa->pm_signo) {
		return -EINVAL;
	}
	/* hwpmc's TSC class counts system-wide only. */
	if (cd->class == PMC_CLASS_TSC && mode != PMC_MODE_SC)
		return -EINVAL;
	if (pa->pm_caps & ~cd->caps)
		return -EOPNOTSUPP;
	if (PMC_IS_SAMPLING_MODE(mode) && !(cd->caps & PMC_CAP_INTERRUPT))
		return -EOPNOTSUPP;
	*cdp = cd;
	return 0;
}

/*
 * A new PMC from a checked request: not yet owned, no row, no counter.
 * @kernel_ok: the caller may count kernel mode.
 */
static struct pmc_obj *pmc_obj_new(const struct pmc_op_pmcallocate *pa,
				   const struct pmc_classdesc *cd,
				   bool kernel_ok, int *fixed_row)
{
	u32 modes = PMC_CAP_USER | PMC_CAP_SYSTEM;
	struct pmc_obj *pm;
	int ret;

	pm = kzalloc(sizeof(*pm), GFP_KERNEL);
	if (!pm)
		return ERR_PTR(-ENOMEM);
	pm->mode = pa->pm_mode;
	pm->pmc_class = cd->class;
	pm->cpu = PMC_IS_SYSTEM_MODE(pm->mode) ? pa->pm_cpu : PMC_CPU_ANY;
	pm->flags = pa->pm_flags;
	pm->caps = pa->pm_caps;
	pm->kernel_ok = kernel_ok;
	/*
	 * Neither USER nor SYSTEM asked (hwpmc's "no qualifier"): both are
	 * counted where the caller may count kernel mode, user mode only
	 * where it may not (as perf(1) falls back). GETCAPS tells which.
	 */
	if (!(pm->caps & modes)) {
		if (cd->class != PMC_CLASS_TSC && !kernel_ok)
			modes = PMC_CAP_USER;
		pm->caps |= cd->caps & modes;
	}
	pm->event = pa->pm_ev;
	pm->group = pa->pm_group;
	pm->signo = pa->pm_signo;
	pm->snapshot_us = pa->pm_snapshot_us;
	pm->count = pa->pm_count;
	refcount_set(&pm->refs, 1);	/* the owner's list */
	INIT_LIST_HEAD(&pm->targets);
	INIT_LIST_HEAD(&pm->inh_ended);
	INIT_LIST_HEAD(&pm->books);
	INIT_LIST_HEAD(&pm->row_link);

	ret = pmc_event_attr(pm, pa, cd, fixed_row);
	if (ret) {
		kfree(pm);
		return ERR_PTR(ret);
	}
	if (PMC_IS_SAMPLING_MODE(pm->mode)) {
		/* The sampling period's floor is the mincount tunable. */
		pm->count = max_t(u64, pm->count, READ_ONCE(pmc_mincount));
		pm->attr.sample_period = pm->count;
	} else {
		pm->accum = pm->count;		/* the initial value */
		if (pm->flags & PMC_F_OVF_SIGNAL)
			pm->attr.sample_period =
				pmc_event_ovf_period(pm, pm->count);
	}
	return pm;
}

/* Give @pm to @po: a row, its counter, hooks. The owner's lock held. */
static int pmc_obj_install(struct pmc_owner *po, struct pmc_obj *pm,
			   const struct pmc_classdesc *cd, int fixed_row)
{
	int ret;

	pm->owner = po;
	ret = pmc_snap_check(po, pm);
	if (ret)
		return ret;
	ret = pmc_row_allocate(pm, cd, fixed_row);
	if (ret)
		return ret;
	pm->id = PMC_ID_MAKE_ID(PMC_IS_SYSTEM_MODE(pm->mode) ? pm->cpu :
				PMC_ID_CPU_ANY, pm->mode, pm->pmc_class,
				pm->row);
	pmc_dbg(PMC_DBG_PMC, PMC_DBG_ALLOCATEROW, pm->id, task_tgid_nr(current),
		pmc_dbg_cpu(pm), pm->row);
	if (PMC_IS_SYSTEM_MODE(pm->mode))
		pmc_dbg(PMC_DBG_CPU, PMC_DBG_BIND, pm->id,
			task_tgid_nr(current), pm->cpu, pm->row);
	if (PMC_IS_SYSTEM_MODE(pm->mode) && cd->class != PMC_CLASS_TSC) {
		pm->sysev = cpu_online(pm->cpu) ?
			pmc_event_create(pm, pm->cpu, NULL, false) :
			ERR_PTR(-ENXIO);
		if (IS_ERR(pm->sysev)) {
			ret = PTR_ERR(pm->sysev);
			pm->sysev = NULL;
			goto err_row;
		}
	}
	if (pmc_needs_switch_hook(pm)) {
		ret = pmc_switch_hook_get();
		if (ret)
			goto err_event;
	}
	pmc_owner_get(po);
	atomic_inc(&pmc_live[PMC_LIVE_PMC]);
	list_add_tail(&pm->owner_link, &po->pmcs);
	if (pm->mode == PMC_MODE_SS) {
		WRITE_ONCE(po->nss, po->nss + 1);
		/* MAP_IN/MAP_OUT of every process it samples. */
		pmc_map_hooks_want_async();
	}
	pmc_set_state(pm, PMC_STATE_ALLOCATED);
	/* A running set's timer on its CPU waits for it to start. */
	pmc_snap_set_changed(pm);
	return 0;

err_event:
	if (pm->sysev)
		pmc_event_release(pm->sysev);
	pm->sysev = NULL;
err_row:
	pmc_row_release(pm);
	return ret;
}

long pmc_op_pmcallocate(struct pmc_file *pf, void __user *arg)
{
	const struct pmc_classdesc *cd = NULL;
	struct pmc_op_pmcallocate pa;
	struct pmc_sec_caller sc;
	struct pmc_owner *po;
	struct pmc_obj *pm;
	int fixed_row, ret;
	u32 id;

	if (copy_from_user(&pa, arg, sizeof(pa)))
		return -EFAULT;
	ret = pmc_allocate_check(&pa, &cd);
	if (ret)
		return ret;
	pmc_sec_caller_get(&sc);
	pm = pmc_obj_new(&pa, cd, pmc_sec_kernel_ok(&sc), &fixed_row);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	ret = pmc_sec_allocate(&sc, pm->mode, pm->pmc_class != PMC_CLASS_TSC &&
			       !pm->attr.exclude_kernel);
	if (ret)
		goto err_free;
	/*
	 * The id is written back without the owner's lock: a fault there
	 * takes mmap_lock, which mmap() of the ring holds when it takes the
	 * owner's lock. Find a read-only result buffer now, not after.
	 */
	ret = -EFAULT;
	if (copy_to_user(arg, &pa, sizeof(pa)))
		goto err_free;

	po = pmc_owner_lock(pf, true);
	if (IS_ERR(po)) {
		ret = PTR_ERR(po);
		goto err_free;
	}
	ret = pmc_obj_install(po, pm, cd, fixed_row);
	if (ret) {
		pmc_owner_unlock(po);
		goto err_free;
	}
	id = pm->id;
	pmc_log_pmcallocate(po, pm);
	pmc_dbg(PMC_DBG_PMC, PMC_DBG_ALLOCATE, pm->id, task_tgid_nr(current),
		pmc_dbg_cpu(pm), pm->event);
	pmc_owner_unlock(po);

	if (put_user(id, &((struct pmc_op_pmcallocate __user *)arg)->pm_pmcid)) {
		/* Unmapped meanwhile: the caller never learns the id. */
		po = pmc_owner_lock(pf, false);
		if (!IS_ERR_OR_NULL(po)) {
			pm = pmc_find_pmc(po, id);
			if (pm)
				pmc_release_pmc(pm);
			pmc_owner_unlock(po);
		}
		return -EFAULT;
	}
	return 0;

err_free:
	kfree(pm);
	return ret;
}

/* ------------------------------------------------------------ ops on ids */

long pmc_op_pmcrelease(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_simple sp;
	struct pmc_owner *po;
	struct pmc_obj *pm;

	if (copy_from_user(&sp, arg, sizeof(sp)))
		return -EFAULT;
	pm = pmc_lookup(pf, sp.pm_pmcid, &po);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	pmc_release_pmc(pm);
	pmc_owner_unlock(po);
	return 0;
}

/* PMCATTACH and PMCDETACH: the same checks, then pmc_attach() or pmc_detach(). */
static long pmc_op_attach_detach(struct pmc_file *pf, void __user *arg,
				 bool attach)
{
	struct pmc_op_pmcattach pa;
	struct pmc_owner *po;
	struct pmc_obj *pm;
	int ret;

	if (copy_from_user(&pa, arg, sizeof(pa)))
		return -EFAULT;
	pm = pmc_lookup(pf, pa.pm_pmc, &po);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	if (attach)
		ret = pmc_attach(pm, pa.pm_pid, pa.pm_flags);
	else
		ret = pmc_detach(pm, pa.pm_pid, pa.pm_flags);
	if (!ret)
		pmc_dbg(PMC_DBG_PMC, attach ? PMC_DBG_ATTACH : PMC_DBG_DETACH,
			pm->id, pa.pm_pid ?: task_tgid_nr(current), -1,
			pa.pm_flags);
	pmc_snap_targets_changed(pm);
	if (PMC_IS_VIRTUAL_MODE(pm->mode))
		pmc_selfread_update(po, pm->group);
	pmc_owner_unlock(po);
	return ret;
}

long pmc_op_pmcattach(struct pmc_file *pf, void __user *arg)
{
	return pmc_op_attach_detach(pf, arg, true);
}

long pmc_op_pmcdetach(struct pmc_file *pf, void __user *arg)
{
	return pmc_op_attach_detach(pf, arg, false);
}

/*
 * A system counter that CPU hotplug ended gets a new one
 * (pmc_sys_revive()), and the CPU is tested again: it may have gone
 * meanwhile (-ENXIO; also when it keeps going away and coming back, after
 * three tries). Owner's lock held, the PMC's snapshot timer stopped.
 */
static int pmc_sys_restart_dead(struct pmc_obj *pm)
{
	int tries, ret = 0;

	for (tries = 0; pmc_sys_dead(pm) && !ret; tries++) {
		if (tries == 3)
			return -ENXIO;
		ret = pmc_sys_revive(pm);
		if (!ret && !cpu_online(pm->cpu))
			ret = -ENXIO;
	}
	return ret;
}

long pmc_op_pmcstart(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_simple sp;
	struct pmc_owner *po;
	struct pmc_obj *pm;
	int ret = 0;

	if (copy_from_user(&sp, arg, sizeof(sp)))
		return -EFAULT;
	pm = pmc_lookup(pf, sp.pm_pmcid, &po);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	pmc_sys_settle(pm);
	if (PMC_IS_SYSTEM_MODE(pm->mode)) {
		if (!cpu_online(pm->cpu))
			ret = -ENXIO;
		else if (pm->mode == PMC_MODE_SS && !pmc_log_configured(po))
			ret = -PMC_EDOOFUS;
	} else {
		if ((pm->flags & (PMC_F_LOG_PROCCSW | PMC_F_LOG_PROCEXIT)) &&
		    !pmc_log_configured(po))
			ret = -PMC_EDOOFUS;
		else if (!pmc_virtual_attached(pm))
			/* hwpmc: never attached -> the owner; all gone -> ESRCH */
			ret = pm->attach_done ? -ESRCH : pmc_attach_self(pm);
		/*
		 * hwpmc's PMC_F_NEEDS_LOGFILE: the samples of another
		 * process go to a log, a file or the mapped ring (the
		 * same records); sampling only its owner needs none.
		 */
		else if (PMC_IS_SAMPLING_MODE(pm->mode) &&
			 pmc_virtual_targets_others(pm) &&
			 !pmc_log_configured(po))
			ret = -PMC_EDOOFUS;
	}
	/* Snapshot records need somewhere to go: a log file or the ring. */
	if (!ret && (pm->flags & PMC_F_SNAPSHOT) && !pmc_log_configured(po))
		ret = -PMC_EDOOFUS;
	if (!ret) {
		/* Its timer reads the counter pmc_sys_revive() may replace. */
		pmc_snap_stop(pm);
		ret = pmc_sys_restart_dead(pm);
		if (!ret)
			ret = pmc_start_pmc(pm);
		if (!ret) {
			ret = pmc_snap_start(pm);
			if (ret)
				pmc_stop_pmc(pm);
		} else if (pm->state == PMC_STATE_RUNNING) {
			pmc_snap_start(pm);
		}
	}
	if (!ret)
		pmc_dbg(PMC_DBG_PMC, PMC_DBG_START, pm->id,
			task_tgid_nr(current), pmc_dbg_cpu(pm), 0);
	/* Each CPU with a system-sampling PMC stages records from now on. */
	if (!ret && pm->mode == PMC_MODE_SS)
		pmc_log_expect_cpus(po, po->nss);
	if (PMC_IS_VIRTUAL_MODE(pm->mode))
		pmc_selfread_update(po, pm->group);
	pmc_owner_unlock(po);
	return ret;
}

long pmc_op_pmcstop(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_simple sp;
	struct pmc_owner *po;
	struct pmc_obj *pm;
	int ret = 0;

	if (copy_from_user(&sp, arg, sizeof(sp)))
		return -EFAULT;
	pm = pmc_lookup(pf, sp.pm_pmcid, &po);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	pmc_sys_settle(pm);
	if (PMC_IS_SYSTEM_MODE(pm->mode) && !cpu_online(pm->cpu))
		ret = -ENXIO;
	else
		pmc_stop_and_log(pm, 0);
	if (!ret)
		pmc_dbg(PMC_DBG_PMC, PMC_DBG_STOP, pm->id,
			task_tgid_nr(current), pmc_dbg_cpu(pm), 0);
	if (PMC_IS_VIRTUAL_MODE(pm->mode))
		pmc_selfread_update(po, pm->group);
	pmc_owner_unlock(po);
	return ret;
}

/*
 * hwpmc(4) "Signals": SIGIO to the owner (the caller) when PMCRW is done
 * on a process-private PMC with no attached targets (pmcstat learns so
 * that its targets are gone); the op itself goes on as hwpmc's does. On
 * FreeBSD SIGIO is ignored by default; on Linux it terminates, and libcpc
 * blocks it (its default overflow signal) around its calls: it is sent
 * only to an owner that catches it, so that a program unaware of it
 * behaves as on FreeBSD.
 */
static void pmc_sigio_owner(struct pmc_owner *po)
{
	struct k_sigaction *ka = &current->sighand->action[SIGIO - 1];
	bool caught;

	spin_lock_irq(&current->sighand->siglock);
	caught = ka->sa.sa_handler != SIG_DFL && ka->sa.sa_handler != SIG_IGN;
	spin_unlock_irq(&current->sighand->siglock);
	if (caught)
		kill_pid(po->tgid, SIGIO, 1);
}

long pmc_op_pmcrw(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_pmcrw prw;
	struct pmc_owner *po;
	struct pmc_obj *pm;
	int ret = 0;
	u64 old;

	if (copy_from_user(&prw, arg, sizeof(prw)))
		return -EFAULT;
	if (prw.pm_flags & ~(PMC_F_NEWVALUE | PMC_F_OLDVALUE))
		return -EINVAL;
	pm = pmc_lookup(pf, prw.pm_pmcid, &po);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	pmc_sys_settle(pm);
	if (prw.pm_flags & PMC_F_NEWVALUE) {
		if (pm->state == PMC_STATE_RUNNING)
			ret = -EBUSY;
		/* Sampling PMCs and read-only classes take no value. */
		else if (PMC_IS_SAMPLING_MODE(pm->mode) ||
			 !(pmc_class_find(pm->pmc_class)->caps & PMC_CAP_WRITE))
			ret = -EINVAL;
	}
	if (!ret && PMC_IS_SYSTEM_MODE(pm->mode) && !cpu_online(pm->cpu))
		ret = -ENXIO;
	if (ret)
		goto out;
	if (PMC_IS_VIRTUAL_MODE(pm->mode) && list_empty(&pm->targets))
		pmc_sigio_owner(po);
	old = pmc_read_value(pm);
	pmc_dbg(PMC_DBG_PMC, PMC_DBG_READ, pm->id, task_tgid_nr(current),
		pmc_dbg_cpu(pm), old);
	if (prw.pm_flags & PMC_F_NEWVALUE) {
		pmc_write_value(pm, prw.pm_value);
		pmc_dbg(PMC_DBG_PMC, PMC_DBG_WRITE, pm->id,
			task_tgid_nr(current), pmc_dbg_cpu(pm), prw.pm_value);
		if (PMC_IS_VIRTUAL_MODE(pm->mode))
			pmc_selfread_update(po, pm->group);
	}
	if (!(prw.pm_flags & PMC_F_NEWVALUE) || (prw.pm_flags & PMC_F_OLDVALUE))
		prw.pm_value = old;
out:
	pmc_owner_unlock(po);
	if (!ret && copy_to_user(arg, &prw, sizeof(prw)))
		ret = -EFAULT;
	return ret;
}

long pmc_op_pmcsetcount(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_pmcsetcount sc;
	struct pmc_owner *po;
	struct pmc_obj *pm;
	int ret = 0;

	if (copy_from_user(&sc, arg, sizeof(sc)))
		return -EFAULT;
	pm = pmc_lookup(pf, sc.pm_pmcid, &po);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	pmc_sys_settle(pm);
	if (pm->state == PMC_STATE_RUNNING) {
		ret = -EBUSY;
	} else if (PMC_IS_SAMPLING_MODE(pm->mode)) {
		u64 period = max_t(u64, sc.pm_count, READ_ONCE(pmc_mincount));

		if (pm->sysev) {
			ret = perf_event_period(pm->sysev, period);
			pmc_dbg(PMC_DBG_MD, PMC_DBG_CONFIG, pm->id, 0, pm->cpu,
				period);
		} else {
			ret = pmc_virtual_set_period(pm, period);
		}
		if (!ret) {
			WRITE_ONCE(pm->count, period);
			pm->attr.sample_period = period;
		}
	} else if (!(pmc_class_find(pm->pmc_class)->caps & PMC_CAP_WRITE)) {
		ret = -EINVAL;
	} else if (PMC_IS_SYSTEM_MODE(pm->mode) && !cpu_online(pm->cpu)) {
		ret = -ENXIO;
	} else {
		WRITE_ONCE(pm->count, sc.pm_count);
		pmc_write_value(pm, sc.pm_count);
		if (PMC_IS_VIRTUAL_MODE(pm->mode))
			pmc_selfread_update(po, pm->group);
	}
	if (!ret)
		pmc_dbg(PMC_DBG_PMC, PMC_DBG_CONFIG, pm->id,
			task_tgid_nr(current), pmc_dbg_cpu(pm), sc.pm_count);
	pmc_owner_unlock(po);
	return ret;
}

long pmc_op_getcaps(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_caps gc;
	struct pmc_owner *po;
	struct pmc_obj *pm;

	if (copy_from_user(&gc, arg, sizeof(gc)))
		return -EFAULT;
	pm = pmc_lookup(pf, gc.pm_pmcid, &po);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	gc.pm_caps = pm->caps;
	pmc_owner_unlock(po);
	if (copy_to_user(arg, &gc, sizeof(gc)))
		return -EFAULT;
	return 0;
}

/*
 * PMCGETMSR: the RDPMC index of a running hardware PMC attached only to
 * its owner process (not with DESCENDANTS), for the calling thread. perf
 * may move the event to another counter at a context switch; user space
 * pairs the index with perf's self-monitoring rules (docs/core.md).
 */
long pmc_op_pmcgetmsr(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_getmsr gm;
	struct perf_event *event;
	struct pmc_owner *po;
	struct pmc_obj *pm;
	int ret = 0, idx = -ENOENT;

	if (copy_from_user(&gm, arg, sizeof(gm)))
		return -EFAULT;
	pm = pmc_lookup(pf, gm.pm_pmcid, &po);
	if (IS_ERR(pm))
		return PTR_ERR(pm);
	if (!PMC_IS_VIRTUAL_MODE(pm->mode) ||
	    (pm->flags & PMC_F_DESCENDANTS) || !pmc_virtual_only_owner(pm)) {
		ret = -EINVAL;
		goto out;
	}
	if (!pmc_class_is_hw(pm->pmc_class)) {
		ret = -EOPNOTSUPP;	/* hwpmc: ENOSYS, no RDPMC */
		goto out;
	}
	event = pmc_virtual_self_event(pm);
	if (event) {
		preempt_disable();
		if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
		    READ_ONCE(event->oncpu) == smp_processor_id())
			idx = pmc_arch_rdpmc_index(event);
		preempt_enable();
	}
	if (idx < 0) {
		ret = -EINVAL;	/* not running on the calling thread */
		goto out;
	}
	gm.pm_msr = idx;
	pm->msr_taken = true;
out:
	pmc_owner_unlock(po);
	if (!ret && copy_to_user(arg, &gm, sizeof(gm)))
		ret = -EFAULT;
	return ret;
}

/* A slot of PMCREADSET: its PMC, then its value (no buffer per call). */
union pmc_set_slot {
	struct pmc_obj *pm;
	u64 value;
};

/*
 * Read the @n PMCs of @set, each slot's PMC replaced by its value, and
 * return the CLOCK_MONOTONIC time of the read. The counters of the calling
 * thread and of this CPU are read in one pass with IRQs off, as perf reads
 * a group: at one instant, and with one IRQ toggle in all. The others
 * follow (their reads may sleep). Owner's lock held, process context.
 */
static u64 pmc_read_set(union pmc_set_slot *set, unsigned int n)
{
	u64 later = 0, ts, v;	/* later: the slots read after the pass */
	unsigned long flags;
	unsigned int i;

	BUILD_BUG_ON(PMC_READSET_MAX > 64);
	local_irq_save(flags);
	ts = ktime_get_ns();
	for (i = 0; i < n; i++) {
		if (pmc_read_value_irqoff(set[i].pm, &v))
			set[i].value = v;
		else
			later |= BIT_ULL(i);
	}
	local_irq_restore(flags);
	for (i = 0; i < n; i++)
		if (later & BIT_ULL(i))
			set[i].value = pmc_read_value(set[i].pm);
	return ts;
}

/*
 * PMCREADSET's argument, in, with one access check: every field, the
 * output timestamp too, so that a buffer shorter than the structure fails
 * with EFAULT before its fields are judged, as copy_from_user() of the
 * whole structure does.
 */
static int pmc_readset_get_arg(struct pmc_op_pmcreadset *rs,
			       const struct pmc_op_pmcreadset __user *urs)
{
	if (!user_access_begin(urs, sizeof(*urs)))
		return -EFAULT;
	unsafe_get_user(rs->pm_count, &urs->pm_count, efault);
	unsafe_get_user(rs->pm_flags, &urs->pm_flags, efault);
	unsafe_get_user(rs->pm_ids, &urs->pm_ids, efault);
	unsafe_get_user(rs->pm_values, &urs->pm_values, efault);
	unsafe_get_user(rs->pm_timestamp, &urs->pm_timestamp, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/*
 * PMCREADSET's arrays, @n entries (at most PMC_READSET_MAX), in and out:
 * one access check and no call per array, where copy_from_user() and
 * copy_to_user() of a size known only at run time also check the kernel
 * buffer (hardened usercopy) on every call. Process context.
 */
static int pmc_readset_get_ids(u32 *ids, const u32 __user *uids,
			       unsigned int n)
{
	unsigned int i;

	if (!user_access_begin(uids, n * sizeof(*uids)))
		return -EFAULT;
	for (i = 0; i < n; i++)
		unsafe_get_user(ids[i], &uids[i], efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

static int pmc_readset_put_values(u64 __user *uvals,
				  const union pmc_set_slot *set, unsigned int n)
{
	unsigned int i;

	if (!user_access_begin(uvals, n * sizeof(*uvals)))
		return -EFAULT;
	for (i = 0; i < n; i++)
		unsafe_put_user(set[i].value, &uvals[i], efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/*
 * The PMC @id of @po for a set read: the one after @prev (the set's last
 * one found) first, as a set's PMCs are usually allocated in a row and
 * read in that order, then any. Owner's lock held.
 */
static struct pmc_obj *pmc_find_set_pmc(struct pmc_owner *po,
					struct pmc_obj *prev, u32 id)
{
	struct pmc_obj *next;

	if (prev && !list_is_last(&prev->owner_link, &po->pmcs)) {
		next = list_next_entry(prev, owner_link);
		if (next->id == id)
			return next;
	}
	return pmc_find_pmc(po, id);
}

/*
 * PMCREADSET: up to PMC_READSET_MAX PMCs of the caller, all checked before
 * any is read, with one CLOCK_MONOTONIC timestamp.
 */
long pmc_op_pmcreadset(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_pmcreadset rs;
	/*
	 * Not zeroed at entry (Debian's kernels build with
	 * CONFIG_INIT_STACK_ALL_ZERO, 768 bytes a call here): entries
	 * [0, pm_count) are written before they are read or copied out,
	 * and no other entry is.
	 */
	union pmc_set_slot set[PMC_READSET_MAX] __uninitialized;
	u32 ids[PMC_READSET_MAX] __uninitialized;
	struct pmc_owner *po;
	unsigned int i;
	int ret = 0;

	BUILD_BUG_ON(sizeof(set[0]) != sizeof(u64));
	if (pmc_readset_get_arg(&rs, arg))
		return -EFAULT;
	if (rs.pm_flags || rs.pm_count > PMC_READSET_MAX)
		return -EINVAL;
	if (pmc_readset_get_ids(ids, u64_to_user_ptr(rs.pm_ids), rs.pm_count))
		return -EFAULT;

	po = pmc_owner_lock(pf, false);
	if (IS_ERR_OR_NULL(po))
		return po ? PTR_ERR(po) : -ESRCH;
	for (i = 0; i < rs.pm_count && !ret; i++) {
		set[i].pm = pmc_find_set_pmc(po, i ? set[i - 1].pm : NULL,
					     ids[i]);
		if (!set[i].pm)
			ret = -EINVAL;
	}
	for (i = 0; i < rs.pm_count && !ret; i++) {
		pmc_sys_settle(set[i].pm);
		if (PMC_IS_SYSTEM_MODE(set[i].pm->mode) &&
		    !cpu_online(set[i].pm->cpu))
			ret = -ENXIO;
	}
	if (!ret)
		rs.pm_timestamp = pmc_read_set(set, rs.pm_count);
	pmc_owner_unlock(po);
	if (ret)
		return ret;
	if (pmc_readset_put_values(u64_to_user_ptr(rs.pm_values), set,
				   rs.pm_count) ||
	    put_user(rs.pm_timestamp,
		     &((struct pmc_op_pmcreadset __user *)arg)->pm_timestamp))
		return -EFAULT;
	return 0;
}

/* ------------------------------------------------------------ for others */

void pmc_core_stop_group(struct pmc_owner *po, u32 group)
{
	struct pmc_obj *pm;
	u64 tsc = ktime_get_ns();	/* the set's last records share it */

	if (!group)
		return;
	mutex_lock(&po->lock);
	if (!po->dead) {
		list_for_each_entry(pm, &po->pmcs, owner_link)
			if (pm->group == group &&
			    pm->state == PMC_STATE_RUNNING)
				pmc_stop_and_log(pm, tsc);
		pmc_selfread_update(po, group);
	}
	mutex_unlock(&po->lock);
}

void pmc_core_stop_pmcid(struct pmc_owner *po, u32 pmcid)
{
	struct pmc_obj *pm;

	mutex_lock(&po->lock);
	pm = po->dead ? NULL : pmc_find_pmc(po, pmcid);
	if (pm && pm->state == PMC_STATE_RUNNING) {
		pmc_stop_and_log(pm, 0);
		pmc_selfread_update(po, pm->group);
	}
	mutex_unlock(&po->lock);
}

/* ------------------------------------------------------------ module */

int pmc_core_init(void)
{
	int ret;

	ret = pmc_rows_init();
	if (ret)
		return ret;
	pmc_sec_init();
	ret = pmc_target_init();
	if (ret)
		goto err_rows;
	ret = pmc_probe_pool_init();
	if (ret)
		goto err_target;
	ret = pmc_hooks_init();
	if (ret)
		goto err_pool;
	return 0;

err_pool:
	pmc_probe_pool_exit();
err_target:
	pmc_target_exit();
err_rows:
	pmc_rows_exit();
	return ret;
}

void pmc_core_exit(void)
{
	/*
	 * No file is open: every owner is gone, and no work is pending. The
	 * RCU callbacks that drop the last references of targets
	 * (pmc_target_put()) and free books (book.c) have run after the
	 * barrier.
	 */
	pmc_book_exit();
	rcu_barrier();
	if (WARN_ON_ONCE(atomic_read(&pmc_live[PMC_LIVE_OWNER]) ||
			 atomic_read(&pmc_live[PMC_LIVE_PMC]) ||
			 atomic_read(&pmc_live[PMC_LIVE_TARGET]) ||
			 atomic_read(&pmc_live[PMC_LIVE_THREAD])))
		pr_err("leaked %d owners, %d PMCs, %d targets, %d threads\n",
		       atomic_read(&pmc_live[PMC_LIVE_OWNER]),
		       atomic_read(&pmc_live[PMC_LIVE_PMC]),
		       atomic_read(&pmc_live[PMC_LIVE_TARGET]),
		       atomic_read(&pmc_live[PMC_LIVE_THREAD]));
	pmc_hooks_exit();
	pmc_probe_pool_exit();
	pmc_selfread_exit();
	pmc_target_exit();
	pmc_rows_exit();
}
