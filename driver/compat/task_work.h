/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/task_work.h - <linux/task_work.h>: queue a task_work from a
 * context that must not allocate.
 *
 * History:
 *   6.1		task_work_add() takes a notify mode only.
 *   6.12 (at least)	TWAF_NO_ALLOC: with KASAN, task_work_add() records
 *			its caller's stack in the stack depot, which may
 *			allocate pages, under the zone lock, a sleeping lock
 *			on PREEMPT_RT (the RT debug kernel reported it from
 *			the exit probe, preemption off); with the flag the
 *			stack is recorded only if that needs no allocation.
 *			Without KASAN the flag changes nothing.
 */
#ifndef _PMC_COMPAT_TASK_WORK_H
#define _PMC_COMPAT_TASK_WORK_H

#include <linux/task_work.h>

#include "compat/kernel-version.h"

/*
 * task_work_add() for a caller that must not allocate or sleep: the sched
 * tracepoint probes (preemption off), the irq_work of the overflow path.
 * Any context but NMI.
 */
static inline int pmc_task_work_add_atomic(struct task_struct *task,
					   struct callback_head *work,
					   enum task_work_notify_mode notify)
{
#if PMC_KERNEL_GE(6, 12, 0)
	return task_work_add(task, work, notify | TWAF_NO_ALLOC);
#else
	return task_work_add(task, work, notify);
#endif
}

#endif /* _PMC_COMPAT_TASK_WORK_H */
