/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/kprobes.h - <linux/kprobes.h>: the kernel functions the map hooks
 * (log/map_hooks.c) and the self-read page (core/selfread.c) probe by
 * name, the arguments their pre-handlers read, and the build-time check of
 * the prototypes those reads assume.
 *
 * USERPAGE: perf_event_update_userpage(event), which perf's PMU drivers
 * call each time an event gets, loses or reprograms a counter.
 * TASKEXIT: perf_event_exit_task(task), called by do_exit() before any
 * of its tracepoints up to 6.15, and by a privilege-raising exec
 * (core/book.c reads a thread's last slice there).
 * MAP_IN: perf_event_mmap(vma), called by mmap_region() for every new
 * mapping. MAP_OUT: the function every munmap path goes through,
 * (mas or vmi, mm, start, len, ...).
 *
 * History:
 *   6.1	do_mas_munmap(struct ma_state *, mm, start, len, uf, downgrade)
 *   6.2 on	do_vmi_munmap(struct vma_iterator *, mm, start, len, uf,
 *		downgrade), the last argument renamed unlock in 6.4
 *   6.1 on	perf_event_mmap(struct vm_area_struct *vma)
 *
 * A kprobe finds its function by name at run time, so a kernel that
 * renames one still builds; pmc_kp_check_prototypes() makes one that
 * changes the arguments break the build instead of making the handlers
 * read the wrong registers. A name missing at load turns MAP_IN/MAP_OUT
 * tracking off with one line naming it (map_hooks.c); the rest of the
 * driver works.
 */
#ifndef _PMC_COMPAT_KPROBES_H
#define _PMC_COMPAT_KPROBES_H

#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>

#include "kernel-version.h"

#define PMC_KP_MMAP_SYMBOL	"perf_event_mmap"
/* The last slice of a thread counted in book mode (core/book.c), 6.1 on. */
#define PMC_KP_TASKEXIT_SYMBOL	"perf_event_exit_task"
/* The self-read page's RDPMC entries (core/selfread.c), 6.1 on. */
#define PMC_KP_USERPAGE_SYMBOL	"perf_event_update_userpage"
#if PMC_KERNEL_GE(6, 2, 0)
#define PMC_KP_MUNMAP_SYMBOL	"do_vmi_munmap"
#else /* !PMC_KERNEL_GE(6, 2, 0) */
#define PMC_KP_MUNMAP_SYMBOL	"do_mas_munmap"
#endif /* PMC_KERNEL_GE(6, 2, 0) */

/*
 * Never called: each probed function assigned to a pointer of the
 * prototype its handler assumes (-Werror=incompatible-pointer-types).
 */
static inline void __maybe_unused pmc_kp_check_prototypes(void)
{
	void (*mmap_fn)(struct vm_area_struct *vma) = perf_event_mmap;
#if PMC_KERNEL_GE(6, 2, 0)
	int (*munmap_fn)(struct vma_iterator *vmi, struct mm_struct *mm,
			 unsigned long start, size_t len,
			 struct list_head *uf, bool unlock) = do_vmi_munmap;
#else /* !PMC_KERNEL_GE(6, 2, 0) */
	int (*munmap_fn)(struct ma_state *mas, struct mm_struct *mm,
			 unsigned long start, size_t len,
			 struct list_head *uf, bool downgrade) = do_mas_munmap;
#endif /* PMC_KERNEL_GE(6, 2, 0) */

	void (*userpage_fn)(struct perf_event *event) =
		perf_event_update_userpage;
	void (*taskexit_fn)(struct task_struct *task) = perf_event_exit_task;

	(void)userpage_fn;
	(void)taskexit_fn;
	(void)mmap_fn;
	(void)munmap_fn;
}

/* The event, in the kprobe pre-handler of the user page point. */
static inline struct perf_event *pmc_kp_userpage_event(struct pt_regs *regs)
{
	return (struct perf_event *)regs_get_kernel_argument(regs, 0);
}

/* The new mapping, in the kprobe pre-handler of the mmap point. */
static inline struct vm_area_struct *pmc_kp_mmap_vma(struct pt_regs *regs)
{
	return (struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
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

#endif /* _PMC_COMPAT_KPROBES_H */
