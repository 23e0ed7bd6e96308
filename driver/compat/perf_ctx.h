/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/perf_ctx.h - <linux/perf_event.h>, <linux/sched.h>: the perf
 * events in a task's contexts.
 *
 * History:
 *   6.1	task->perf_event_ctxp[perf_nr_task_contexts]: one context per
 *		kind of PMU (hardware, software).
 *   6.2	one context per task, task->perf_event_ctxp ("perf: Rewrite
 *		core context handling").
 * In both, a context's events are on ctx->event_list (event_entry), added
 * and removed with list_add_rcu() and list_del_rcu() under ctx->lock, and
 * events and contexts are freed after a grace period.
 */
#ifndef _PMC_COMPAT_PERF_CTX_H
#define _PMC_COMPAT_PERF_CTX_H

#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/sched.h>

#include "kernel-version.h"

static inline bool
pmc_ctx_events_rcu(struct perf_event_context *ctx,
		   bool (*fn)(struct perf_event *event, void *arg), void *arg)
{
	struct perf_event *event;

	if (!ctx)
		return false;
	list_for_each_entry_rcu(event, &ctx->event_list, event_entry)
		if (fn(event, arg))
			return true;
	return false;
}

/*
 * Call @fn on each event of @task's perf contexts until it returns true;
 * returns whether it did. Under rcu_read_lock().
 */
static inline bool
pmc_task_events_rcu(struct task_struct *task,
		    bool (*fn)(struct perf_event *event, void *arg), void *arg)
{
#if PMC_KERNEL_GE(6, 2, 0)
	return pmc_ctx_events_rcu(rcu_dereference(task->perf_event_ctxp), fn,
				  arg);
#else /* !PMC_KERNEL_GE(6, 2, 0) */
	int i;

	for (i = 0; i < perf_nr_task_contexts; i++)
		if (pmc_ctx_events_rcu(rcu_dereference(task->perf_event_ctxp[i]),
				       fn, arg))
			return true;
	return false;
#endif /* PMC_KERNEL_GE(6, 2, 0) */
}

#endif /* _PMC_COMPAT_PERF_CTX_H */
