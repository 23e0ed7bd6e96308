// SPDX-License-Identifier: GPL-2.0
/*
 * rows.c - rows and their dispositions (hwpmc(4) PMC ROW DISPOSITIONS):
 * which row a new PMC gets, PMCADMIN (enable/disable a row on a CPU) and
 * GETPMCINFO (the state of every row of a CPU).
 *
 * A row's disposition is hwpmc's pmc_pmcdisp[]: 0 free, > 0 the number of
 * process-mode PMCs using it (THREAD, on every CPU), < 0 the number of CPUs
 * where it is STANDALONE (a system-mode PMC, or administratively disabled).
 * A row is never THREAD and STANDALONE at once.
 *
 * Process context only.
 */
#include "pmc_core_priv.h"

#include <linux/cpumask.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

/* One row on one CPU. */
struct pmc_rowcpu {
	struct pmc_obj *pm;	/* the system-mode PMC on it, or NULL */
	bool disabled;		/* PMCADMIN disabled it */
};

/*
 * pmc_rows_lock protects everything below: the dispositions, the per-CPU
 * slots and the lists of process-mode PMCs per row. Taken in process
 * context, inside an owner's lock when an op of that owner holds one.
 */
static DEFINE_MUTEX(pmc_rows_lock);
static int *pmc_row_disp;			/* [nrows] */
static struct pmc_rowcpu *pmc_rowcpu;		/* [nr_cpu_ids][nrows] */
static struct list_head *pmc_row_pmcs;		/* [nrows]: process PMCs */

static struct pmc_rowcpu *pmc_rowcpu_at(unsigned int cpu, unsigned int row)
{
	return &pmc_rowcpu[cpu * pmc_machine.nrows + row];
}

int pmc_rows_init(void)
{
	unsigned int nrows = pmc_machine.nrows, i;

	pmc_row_disp = kcalloc(nrows, sizeof(*pmc_row_disp), GFP_KERNEL);
	pmc_row_pmcs = kcalloc(nrows, sizeof(*pmc_row_pmcs), GFP_KERNEL);
	pmc_rowcpu = kvcalloc(nr_cpu_ids * nrows, sizeof(*pmc_rowcpu),
			      GFP_KERNEL);
	if (!pmc_row_disp || !pmc_row_pmcs || !pmc_rowcpu) {
		pmc_rows_exit();
		return -ENOMEM;
	}
	for (i = 0; i < nrows; i++)
		INIT_LIST_HEAD(&pmc_row_pmcs[i]);
	return 0;
}

void pmc_rows_exit(void)
{
	kvfree(pmc_rowcpu);
	kfree(pmc_row_pmcs);
	kfree(pmc_row_disp);
	pmc_rowcpu = NULL;
	pmc_row_pmcs = NULL;
	pmc_row_disp = NULL;
}

bool pmc_cpu_is_valid(u32 cpu)
{
	return cpu < nr_cpu_ids && cpu < PMC_ID_CPU_ANY && cpu_possible(cpu);
}

/* Does another process-mode PMC of the same owner use @row? */
static bool pmc_owner_uses_row(const struct pmc_obj *pm, unsigned int row)
{
	const struct pmc_obj *other;

	list_for_each_entry(other, &pm->owner->pmcs, owner_link)
		if (other->row == row && PMC_IS_VIRTUAL_MODE(other->mode))
			return true;
	return false;
}

/*
 * Give @pm (mode, cpu, class and owner set; the owner's lock held) a row of
 * class @cd: the row @fixed_row of the class if >= 0, else the first that
 * can take it. Sets pm->row. Returns 0, or -EINVAL when no row can (hwpmc's
 * "could not be allocated").
 */
int pmc_row_allocate(struct pmc_obj *pm, const struct pmc_classdesc *cd,
		     int fixed_row)
{
	bool system = PMC_IS_SYSTEM_MODE(pm->mode);
	unsigned int i, row;
	int ret = -EINVAL;

	mutex_lock(&pmc_rows_lock);
	for (i = 0; i < cd->num; i++) {
		if (fixed_row >= 0 && i != fixed_row)
			continue;
		row = cd->first_row + i;
		if (system) {
			struct pmc_rowcpu *rc = pmc_rowcpu_at(pm->cpu, row);

			if (pmc_row_disp[row] > 0 || rc->disabled || rc->pm)
				continue;
			rc->pm = pm;
			pmc_row_disp[row]--;
		} else {
			if (pmc_row_disp[row] < 0 || pmc_owner_uses_row(pm, row))
				continue;
			pmc_row_disp[row]++;
			list_add_tail(&pm->row_link, &pmc_row_pmcs[row]);
		}
		pm->row = row;
		ret = 0;
		break;
	}
	mutex_unlock(&pmc_rows_lock);
	return ret;
}

void pmc_row_release(struct pmc_obj *pm)
{
	mutex_lock(&pmc_rows_lock);
	if (PMC_IS_SYSTEM_MODE(pm->mode)) {
		pmc_rowcpu_at(pm->cpu, pm->row)->pm = NULL;
		pmc_row_disp[pm->row]++;
	} else {
		list_del(&pm->row_link);
		pmc_row_disp[pm->row]--;
	}
	mutex_unlock(&pmc_rows_lock);
}

long pmc_op_pmcadmin(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_pmcadmin pa;
	struct pmc_rowcpu *rc;
	int ret;

	ret = pmc_sec_admin();
	if (ret)
		return ret;
	if (copy_from_user(&pa, arg, sizeof(pa)))
		return -EFAULT;
	if (pa.pm_cpu < 0 || !pmc_cpu_is_valid(pa.pm_cpu) || pa.pm_flags)
		return -EINVAL;
	if (!cpu_online(pa.pm_cpu))
		return -ENXIO;
	if (pa.pm_state != PMC_STATE_DISABLED && pa.pm_state != PMC_STATE_FREE)
		return -EINVAL;
	if (pa.pm_pmc < 0 || pa.pm_pmc >= pmc_machine.nrows)
		return -EINVAL;

	mutex_lock(&pmc_rows_lock);
	rc = pmc_rowcpu_at(pa.pm_cpu, pa.pm_pmc);
	if (pa.pm_state == PMC_STATE_DISABLED && pmc_row_disp[pa.pm_pmc] > 0) {
		/* In use by process-mode PMCs. */
		ret = -EBUSY;
	} else if (rc->pm) {
		/* A system-mode PMC is on it. */
		ret = -EBUSY;
	} else if (pa.pm_state == PMC_STATE_DISABLED && !rc->disabled) {
		rc->disabled = true;
		pmc_row_disp[pa.pm_pmc]--;
	} else if (pa.pm_state == PMC_STATE_FREE && rc->disabled) {
		rc->disabled = false;
		pmc_row_disp[pa.pm_pmc]++;
	}
	/* Disabling a disabled row or enabling an enabled one: no-op. */
	mutex_unlock(&pmc_rows_lock);
	return ret;
}

/* The row's name: "<CLASS>-<index in class>", or "TSC". */
static void pmc_row_name(char *buf, size_t len, unsigned int row)
{
	const struct pmc_classdesc *cd = pmc_class_of_row(row);

	if (cd->class == PMC_CLASS_TSC)
		strscpy(buf, cd->name, len);
	else
		snprintf(buf, len, "%s-%u", cd->name, row - cd->first_row);
}

/* Describe row @row of @cpu; pmc_rows_lock held. */
static void pmc_row_describe(struct pmc_info *pi, unsigned int cpu,
			     unsigned int row)
{
	const struct pmc_classdesc *cd = pmc_class_of_row(row);
	struct pmc_rowcpu *rc = pmc_rowcpu_at(cpu, row);
	const struct pmc_obj *pm = rc->pm;
	int disp = pmc_row_disp[row];

	memset(pi, 0, sizeof(*pi));
	pmc_row_name(pi->pm_name, sizeof(pi->pm_name), row);
	pi->pm_class = cd->class;
	pi->pm_enabled = !rc->disabled;
	pi->pm_rowdisp = disp > 0 ? PMC_DISP_THREAD :
			 disp < 0 ? PMC_DISP_STANDALONE : PMC_DISP_FREE;
	pi->pm_ownerpid = -1;
	pi->pm_state = rc->disabled ? PMC_STATE_DISABLED : PMC_STATE_FREE;
	/* A THREAD row shows its first process-mode PMC. */
	if (!pm && disp > 0)
		pm = list_first_entry(&pmc_row_pmcs[row], struct pmc_obj,
				      row_link);
	if (!pm)
		return;
	pi->pm_ownerpid = pid_vnr(pm->owner->tgid);
	pi->pm_mode = pm->mode;
	pi->pm_event = pm->event;
	pi->pm_flags = pm->flags;
	pi->pm_state = READ_ONCE(pm->state);
	if (PMC_IS_SAMPLING_MODE(pm->mode))
		pi->pm_reloadcount = READ_ONCE(pm->count);
}

long pmc_op_getpmcinfo(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_getpmcinfo gi;
	struct pmc_info __user *upi;
	struct pmc_info *pi;
	unsigned int n, i;
	long ret = 0;

	if (copy_from_user(&gi, arg, sizeof(gi)))
		return -EFAULT;
	if (gi.pm_cpu < 0 || !pmc_cpu_is_valid(gi.pm_cpu))
		return -EINVAL;
	if (!cpu_online(gi.pm_cpu))
		return -ENXIO;

	n = min_t(unsigned int, gi.pm_npmc, pmc_machine.nrows);
	pi = kvcalloc(max(n, 1U), sizeof(*pi), GFP_KERNEL);
	if (!pi)
		return -ENOMEM;
	mutex_lock(&pmc_rows_lock);
	for (i = 0; i < n; i++)
		pmc_row_describe(&pi[i], gi.pm_cpu, i);
	mutex_unlock(&pmc_rows_lock);

	upi = u64_to_user_ptr(gi.pm_pmcs);
	if (n && copy_to_user(upi, pi, n * sizeof(*pi)))
		ret = -EFAULT;
	gi.pm_npmc = pmc_machine.nrows;
	if (!ret && copy_to_user(arg, &gi, sizeof(gi)))
		ret = -EFAULT;
	kvfree(pi);
	return ret;
}
