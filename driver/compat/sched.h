/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/sched.h - <linux/sched.h>: is a task inside execve()?
 *
 * History:
 *   6.1 to 6.12 (at least)	task->in_execve, set by execve() from the
 *				new mm to the return to user space.
 */
#ifndef _PMC_COMPAT_SCHED_H
#define _PMC_COMPAT_SCHED_H

#include <linux/sched.h>

/*
 * Is @task inside execve() (between the new mm and the return to user
 * space)? Any context. The mappings of a new image are logged by the exec
 * task_work, not one by one.
 */
static inline bool pmc_task_in_execve(struct task_struct *task)
{
	return task->in_execve;
}

#endif /* _PMC_COMPAT_SCHED_H */
