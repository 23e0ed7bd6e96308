/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every kernel-version difference the driver depends on.
 *
 * Callers use the pmc_ names below and never test LINUX_VERSION_CODE
 * themselves; each wrapper forwards to the signature of the running kernel's
 * API. Supported: 6.1 (Debian 12) and later.
 */
#ifndef _PMC_COMPAT_H
#define _PMC_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/hrtimer.h>
#include <linux/fs.h>
#include <linux/rcupdate.h>

/* vma->vm_flags became read-only in 6.3: vm_flags_set() replaces |=. */
static inline void pmc_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else /* LINUX_VERSION_CODE < 6.3 */
	vma->vm_flags |= flags;
#endif /* LINUX_VERSION_CODE >= 6.3 */
}

static inline void pmc_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, flags);
#else /* LINUX_VERSION_CODE < 6.3 */
	vma->vm_flags &= ~flags;
#endif /* LINUX_VERSION_CODE >= 6.3 */
}

/* hrtimer_init() + .function gave way to hrtimer_setup() in 6.13. */
static inline void pmc_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else /* LINUX_VERSION_CODE < 6.13 */
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif /* LINUX_VERSION_CODE >= 6.13 */
}

/*
 * A reference to mm->exe_file, or NULL; any context but NMI, no lock taken.
 * get_mm_exe_file() is not exported, and get_file_rcu() takes the __rcu
 * pointer itself since 6.7 (files became SLAB_TYPESAFE_BY_RCU).
 */
static inline struct file *pmc_get_mm_exe_file(struct mm_struct *mm)
{
	struct file *exe;

	rcu_read_lock();
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	exe = get_file_rcu(&mm->exe_file);
#else /* LINUX_VERSION_CODE < 6.7 */
	exe = rcu_dereference(mm->exe_file);
	if (exe && !get_file_rcu(exe))
		exe = NULL;
#endif /* LINUX_VERSION_CODE >= 6.7 */
	rcu_read_unlock();
	return exe;
}

#endif /* _PMC_COMPAT_H */
