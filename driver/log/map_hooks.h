/* SPDX-License-Identifier: GPL-2.0 */
/*
 * map_hooks.h - the kprobes that follow the executable file mappings of
 * sampled processes (map_hooks.c) and the records they log (log_maps.c).
 */
#ifndef _PMC_MAP_HOOKS_H
#define _PMC_MAP_HOOKS_H

#include <linux/types.h>

struct pmc_log_state;
struct task_struct;

/*
 * At load (pmc_sampling_init()): check that the probed functions exist;
 * refuse MAP_IN/MAP_OUT tracking with one line otherwise. Process context.
 */
void pmc_map_hooks_init(void);

/*
 * sample.c: queue a MAP_IN (@in; of current's mapping at @start) or a
 * MAP_OUT (of [@start, @end) of process @pid) for @log on this CPU's
 * sample ring, for its drain (hard IRQ) to do. Kprobe context: as NMI
 * code (an int3 kprobe's handler is one); @log reached under
 * rcu_read_lock() (pmc_sample_sync() waits for the drain).
 */
void pmc_sample_map(struct pmc_log_state *log, bool in, pid_t pid,
		    unsigned long start, unsigned long end);
/*
 * log_maps.c. Hard IRQ (the sample drain) or process context: queue a
 * task_work on @task that logs MAP_IN for its executable file mapping at
 * @start on the way back to user space.
 */
void pmc_log_queue_map_in(struct pmc_log_state *log, struct task_struct *task,
			  unsigned long start);
/* Stage MAP_OUT of [@start, @end) of process @pid. Any context but NMI. */
void pmc_log_map_out(struct pmc_log_state *log, pid_t pid,
		     unsigned long start, unsigned long end);

#endif /* _PMC_MAP_HOOKS_H */
