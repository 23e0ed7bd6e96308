/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/mm.h - <linux/mm.h>: setting and clearing a mapping's vm_flags.
 *
 * History:
 *   up to 6.2	vma->vm_flags is a plain field, set with |= and &= ~.
 *   6.3 on	vm_flags is const for everyone but mm/ (per-VMA locks):
 *		vm_flags_set() and vm_flags_clear() write it.
 */
#ifndef _PMC_COMPAT_MM_H
#define _PMC_COMPAT_MM_H

#include <linux/mm.h>

#include "kernel-version.h"

/* Set @flags on @vma, being set up by an mmap handler (mmap_lock held). */
static inline void pmc_vm_flags_set(struct vm_area_struct *vma,
				    vm_flags_t flags)
{
#if PMC_KERNEL_GE(6, 3, 0)
	vm_flags_set(vma, flags);
#else /* !PMC_KERNEL_GE(6, 3, 0) */
	vma->vm_flags |= flags;
#endif /* PMC_KERNEL_GE(6, 3, 0) */
}

/* Clear @flags of @vma, being set up by an mmap handler (mmap_lock held). */
static inline void pmc_vm_flags_clear(struct vm_area_struct *vma,
				      vm_flags_t flags)
{
#if PMC_KERNEL_GE(6, 3, 0)
	vm_flags_clear(vma, flags);
#else /* !PMC_KERNEL_GE(6, 3, 0) */
	vma->vm_flags &= ~flags;
#endif /* PMC_KERNEL_GE(6, 3, 0) */
}

#endif /* _PMC_COMPAT_MM_H */
