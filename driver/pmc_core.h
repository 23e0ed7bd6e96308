/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_core.h - the hwpmc object model: owners (one per open /dev/pmc file),
 * PMCs, and the rows they occupy.
 *
 * Owned by the core (core.c and the files beside it). Other files may read
 * the fields documented as stable below; they add their own state through
 * the pointers reserved for them (struct pmc_owner.log).
 */
#ifndef _PMC_CORE_H
#define _PMC_CORE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>

#include "pmc_main.h"

struct pmc_log_state;		/* pmc_log.h: log file, buffers and ring */

/*
 * struct pmc_owner - the owner of PMCs: the process that opened a /dev/pmc
 * file, through that file.
 * @pf:		the open file (NULL once the file is gone)
 * @tgid:	the owner process
 * @lock:	serialises the owner's ops (process context only)
 * @pmcs:	its PMCs (struct pmc_obj.owner_link), under @lock
 * @log:	logging and ring state of log.c/ring.c, NULL until configured;
 *		set and cleared by log.c under @lock
 */
struct pmc_owner {
	struct pmc_file *pf;
	struct pid *tgid;
	struct mutex lock;
	struct list_head pmcs;
	struct pmc_log_state *log;
};

/*
 * struct pmc_obj - one PMC. The fields below are stable: the sampling and
 * logging code reads them (from any context, NMI included, for the ones it
 * is given in an overflow handler); only the core writes them.
 * @id:		the PMC id (PMC_ID_MAKE_ID)
 * @mode:	enum pmc_mode
 * @pmc_class:	enum pmc_class
 * @row:	global row index
 * @cpu:	CPU of a system-mode PMC, PMC_CPU_ANY for virtual ones
 * @flags:	PMC_F_* given at allocation
 * @caps:	PMC_CAP_* granted
 * @event:	the event code (pm_ev)
 * @group:	pm_group tag (0 = none)
 * @count:	sampling period, or initial/preset count of a counting PMC
 * @attr:	the perf attribute every kernel counter of this PMC is made from
 * @owner:	the owner
 * @kernel_ok:	the owner may see kernel addresses and kernel-mode counts
 *		(decided at allocation by the privilege checks)
 */
struct pmc_obj {
	u32 id;
	u32 mode;
	u32 pmc_class;
	u32 row;
	u32 cpu;
	u32 flags;
	u32 caps;
	u32 event;
	u32 group;
	u64 count;
	struct perf_event_attr attr;
	struct pmc_owner *owner;
	bool kernel_ok;
	struct list_head owner_link;
	/* Core-private state follows; see core.c. */
};

/*
 * Every kernel counter the core creates for a sampling PMC (system or
 * per-thread) uses pmc_sample_overflow() (pmc_log.h) as its overflow handler,
 * with the struct pmc_obj as overflow_handler_context.
 */

#endif /* _PMC_CORE_H */
