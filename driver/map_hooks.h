/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map_hooks.h - the kprobes that follow the executable file mappings of
 * sampled processes (map_hooks.c) and the records they log (log_maps.c).
 */
#ifndef _PMC_MAP_HOOKS_H
#define _PMC_MAP_HOOKS_H

#include <linux/types.h>

struct pmc_log_state;

/*
 * A sampling owner needs the hooks: register them if they are not (they
 * stay while any owner has a log, and PMC_MAP_LINGER after). Process
 * context, no driver lock held (registration takes kprobe and text locks).
 */
void pmc_map_hooks_want(void);
/* The same from any context but NMI: registration is left to a work. */
void pmc_map_hooks_want_async(void);
/* Module unload: no hook runs module code once this returns. Process. */
void pmc_map_hooks_exit(void);

/*
 * log_maps.c. Kprobe context (preemption off, maybe IRQs off), @log
 * reached under rcu_read_lock(): queue a task_work on current that logs
 * MAP_IN for its executable file mapping at @start on the way back to user
 * space.
 */
void pmc_log_queue_map_in(struct pmc_log_state *log, unsigned long start);
/* Stage MAP_OUT of [@start, @end) of process @pid. Any context but NMI. */
void pmc_log_map_out(struct pmc_log_state *log, pid_t pid,
		     unsigned long start, unsigned long end);

#endif /* _PMC_MAP_HOOKS_H */
