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
#include <linux/ptrace.h>
#include <linux/sched.h>

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

/*
 * The path @file was opened with, the one /proc/PID/maps shows. Overlayfs
 * maps the underlying file (a "backing file") in the overlay file's place:
 * until 6.8 its f_path was the overlay path (open_with_fake_path()); from
 * 6.8 f_path is the underlying file's own and file_user_path() gives the
 * overlay one.
 */
static inline const struct path *pmc_file_user_path(const struct file *file)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	return file_user_path(file);
#else /* LINUX_VERSION_CODE < 6.8 */
	return &file->f_path;
#endif /* LINUX_VERSION_CODE >= 6.8 */
}

/*
 * The kprobe points of map_hooks.c. MAP_IN: perf_event_mmap(vma), called
 * by mmap_region() for every new mapping (6.1 and later). MAP_OUT: the
 * function every munmap path goes through, (mas/vmi, mm, start, len, ...):
 * do_mas_munmap() in 6.1, do_vmi_munmap() from 6.2.
 */
#define PMC_KP_MMAP_SYMBOL	"perf_event_mmap"
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define PMC_KP_MUNMAP_SYMBOL	"do_vmi_munmap"
#else /* LINUX_VERSION_CODE < 6.2 */
#define PMC_KP_MUNMAP_SYMBOL	"do_mas_munmap"
#endif /* LINUX_VERSION_CODE >= 6.2 */

/* The new mapping, in the kprobe pre-handler of the mmap point. */
static inline struct vm_area_struct *pmc_kp_mmap_vma(struct pt_regs *regs)
{
	return (struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
}

/*
 * Is @task inside execve() (between the new mm and the return to user
 * space)? Any context. The mappings of a new image are logged by the exec
 * task_work, not one by one.
 */
static inline bool pmc_task_in_execve(struct task_struct *task)
{
	return task->in_execve;
}

/* The arguments of the munmap point, read in its kprobe pre-handler. */
static inline void pmc_kp_munmap_args(struct pt_regs *regs,
				      struct mm_struct **mm,
				      unsigned long *start, size_t *len)
{
	*mm = (struct mm_struct *)regs_get_kernel_argument(regs, 1);
	*start = regs_get_kernel_argument(regs, 2);
	*len = regs_get_kernel_argument(regs, 3);
}

#endif /* _PMC_COMPAT_H */
