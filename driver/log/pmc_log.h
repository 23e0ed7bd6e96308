/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_log.h - the interface of log/ to the device layer (dev/main.c): module
 * load and unload of sampling and logging, the log ioctls, and mmap/poll of
 * the owner's ring. What the core asks of log/ (record emitters, overflow
 * handler) is declared by the core, in core/pmc_core.h.
 */
#ifndef _PMC_LOG_H
#define _PMC_LOG_H

#include "base/pmc_base.h"

struct poll_table_struct;
struct vm_area_struct;

/*
 * Process context: at module load (after pmc_core_init()) and unload
 * (before pmc_core_exit()): per-CPU sample rings, workers.
 */
int pmc_sampling_init(void);
void pmc_sampling_exit(void);

/* Module unload: no map hook runs module code once this returns. Process. */
void pmc_map_hooks_exit(void);

/* log.c: the log ioctls. */
long pmc_op_configurelog(struct pmc_file *pf, void __user *arg);
long pmc_op_flushlog(struct pmc_file *pf, void __user *arg);
long pmc_op_writelog(struct pmc_file *pf, void __user *arg);
long pmc_op_closelog(struct pmc_file *pf, void __user *arg);

/* mmap/poll of the owner's ring (ring.c); pmc_ring_poll() waits on the owner's own queue. Process context. */
int pmc_ring_mmap(struct pmc_file *pf, struct vm_area_struct *vma);
__poll_t pmc_ring_poll(struct pmc_file *pf, struct file *file,
		       struct poll_table_struct *wait);

#endif /* _PMC_LOG_H */
