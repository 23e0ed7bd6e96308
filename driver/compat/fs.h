/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/fs.h - <linux/fs.h>: a reference to a file found under RCU
 * (get_file_rcu()), here the executable file of an mm; and the path a
 * mapped file was opened with (file_user_path()).
 *
 * get_mm_exe_file() is not exported, so the driver reads mm->exe_file
 * under rcu_read_lock() and takes its reference with get_file_rcu().
 *
 * History:
 *   up to 6.6	get_file_rcu(file) is atomic_long_inc_not_zero() on the
 *		file the caller dereferenced: NULL-safe only by the caller.
 *   6.7 on	files are SLAB_TYPESAFE_BY_RCU: get_file_rcu() takes the
 *		__rcu pointer itself (struct file __rcu **), re-reads it
 *		and returns the file or NULL.
 */
#ifndef _PMC_COMPAT_FS_H
#define _PMC_COMPAT_FS_H

#include <linux/fs.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>

#include "kernel-version.h"

/* A reference to @mm's executable file, or NULL. Any context but NMI. */
static inline struct file *pmc_get_mm_exe_file(struct mm_struct *mm)
{
	struct file *exe;

	rcu_read_lock();
#if PMC_KERNEL_GE(6, 7, 0)
	exe = get_file_rcu(&mm->exe_file);
#else /* !PMC_KERNEL_GE(6, 7, 0) */
	exe = rcu_dereference(mm->exe_file);
	if (exe && !get_file_rcu(exe))
		exe = NULL;
#endif /* PMC_KERNEL_GE(6, 7, 0) */
	rcu_read_unlock();
	return exe;
}

/*
 * The path @file was opened with, the one /proc/PID/maps shows. Overlayfs
 * maps the underlying file (a "backing file") in the overlay file's place.
 * Any context.
 *
 * History:
 *   up to 6.7	the backing file's f_path is the overlay path
 *		(open_with_fake_path()).
 *   6.8 on	f_path is the underlying file's own; file_user_path() gives
 *		the overlay one.
 */
static inline const struct path *pmc_file_user_path(const struct file *file)
{
#if PMC_KERNEL_GE(6, 8, 0)
	return file_user_path(file);
#else /* !PMC_KERNEL_GE(6, 8, 0) */
	return &file->f_path;
#endif /* PMC_KERNEL_GE(6, 8, 0) */
}

#endif /* _PMC_COMPAT_FS_H */
