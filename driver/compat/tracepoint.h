/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/tracepoint.h - <trace/events/sched.h>: the prototypes of the
 * scheduler tracepoints the core probes (core/sched_hooks.c).
 *
 * The __tracepoint_sched_* symbols are not exported, so the core finds the
 * tracepoints by name and registers its probes with
 * tracepoint_probe_register(), which takes any function: nothing checks
 * the probe's prototype against the tracepoint's. The pmc_tp_*_fn types
 * say what the probes assume; pmc_tp_check_prototypes() checks each one
 * against the kernel's TP_PROTO, and sched_hooks.c assigns its probes to
 * them, so a prototype change breaks the build, not the machine.
 *
 * History:
 *   5.18 on	sched_switch(bool preempt, prev, next, prev_state)
 *   6.1 on	sched_process_fork(parent, child),
 *		sched_process_exec(p, old_pid, bprm), sched_process_exit(p)
 */
#ifndef _PMC_COMPAT_TRACEPOINT_H
#define _PMC_COMPAT_TRACEPOINT_H

#include <linux/tracepoint.h>
#include <trace/events/sched.h>

struct linux_binprm;
struct task_struct;

typedef void (*pmc_tp_switch_fn)(void *data, bool preempt,
				 struct task_struct *prev,
				 struct task_struct *next,
				 unsigned int prev_state);
typedef void (*pmc_tp_fork_fn)(void *data, struct task_struct *parent,
			       struct task_struct *child);
typedef void (*pmc_tp_exec_fn)(void *data, struct task_struct *p,
			       pid_t old_pid, struct linux_binprm *bprm);
typedef void (*pmc_tp_exit_fn)(void *data, struct task_struct *p);

/* Never called: the kernel's own callback type checks (DECLARE_TRACE). */
static inline void __maybe_unused pmc_tp_check_prototypes(void)
{
	check_trace_callback_type_sched_switch((pmc_tp_switch_fn)NULL);
	check_trace_callback_type_sched_process_fork((pmc_tp_fork_fn)NULL);
	check_trace_callback_type_sched_process_exec((pmc_tp_exec_fn)NULL);
	check_trace_callback_type_sched_process_exit((pmc_tp_exit_fn)NULL);
}

#endif /* _PMC_COMPAT_TRACEPOINT_H */
