/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_log.h - what the core asks of sampling, logging and the ring
 * (sample.c, log.c, ring.c): record emission at the points hwpmc logs, the
 * overflow handler, and the owner's log lifecycle.
 *
 * Records go to the owner's log file and/or mmap'd ring, whichever exist;
 * with neither, the emitters do nothing. Every emitter is safe in the
 * context its comment names and never sleeps unless it says "process".
 */
#ifndef _PMC_LOG_H
#define _PMC_LOG_H

#include <linux/types.h>

struct pmc_owner;
struct pmc_obj;
struct perf_event;
struct perf_sample_data;
struct pt_regs;
struct task_struct;

/* Process context: at module load/unload (per-CPU sample rings, workers). */
int pmc_sampling_init(void);
void pmc_sampling_exit(void);

/*
 * Process context: the owner is going away (file released or owner exited)
 * after all its PMCs were stopped and released. Flushes and closes the log,
 * drops the ring's reference. Called with owner->lock held.
 */
void pmc_log_owner_exit(struct pmc_owner *po);

/*
 * Does the owner have a log file configured? (hwpmc's EDOOFUS rules for
 * starting system sampling or PROCCSW/PROCEXIT PMCs.) Process context,
 * owner->lock held.
 */
bool pmc_log_configured(struct pmc_owner *po);

/* Process context, owner->lock held. */
void pmc_log_pmcallocate(struct pmc_owner *po, struct pmc_obj *pm);
void pmc_log_pmcattach(struct pmc_owner *po, struct pmc_obj *pm,
		       struct task_struct *target);
void pmc_log_pmcdetach(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid);

/*
 * Scheduler-hook context (sched_switch: IRQs off, rq lock held; fork/exit/
 * exec probes: preemption off). No locks taken, no allocation: records are
 * staged per CPU and published later.
 */
void pmc_log_proccsw(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid,
		     pid_t tid, u64 delta);
void pmc_log_procexit(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid,
		      u64 value);
void pmc_log_procfork(struct pmc_owner *po, pid_t oldpid, pid_t newpid);
void pmc_log_sysexit(struct pmc_owner *po, pid_t pid);
/* Process context (exec probe of the task itself): path and mappings. */
void pmc_log_procexec(struct pmc_owner *po, struct pmc_obj *pm,
		      struct task_struct *task);

/*
 * The overflow handler of every sampling kernel counter; its
 * overflow_handler_context is the struct pmc_obj. NMI context on x86
 * hardware, hard IRQ for hrtimer software events, inline for others.
 */
void pmc_sample_overflow(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs);

#endif /* _PMC_LOG_H */
