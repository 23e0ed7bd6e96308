/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_base.h - the interface of base/: driver-wide state every part shares:
 * the module parameters (hwpmc's tunables), the driver statistics, the
 * class/row table, the software events, the per-open file context and the
 * type of the ioctl handlers each part provides (the info ops of base/ are
 * declared here, the others in their part's interface header).
 */
#ifndef _PMC_BASE_H
#define _PMC_BASE_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <pmc/hwpmc.h>

#include "arch/pmc_arch.h"

/* Tunables (module parameters), checked and reset at load by main.c. */
extern int pmc_callchaindepth;
extern int pmc_hashsize;
extern int pmc_logbuffersize;		/* KiB */
extern int pmc_mincount;		/* writable at run time */
extern int pmc_nbuffers_pcpu;
extern int pmc_nsamples;
extern int pmc_softevents;
extern bool pmc_unprivileged_syspmcs;	/* writable at run time */
extern bool pmc_unprivileged_proc_debug;	/* writable at run time */

#define PMC_LOGBUFFERSIZE_MAX	16384	/* KiB */
#define PMC_PCPU_LOG_LIMIT_MB	32
#define PMC_NSAMPLES_MAX	65535
#define PMC_SOFTEVENTS_MAX	64

/*
 * Driver statistics (PMC_OP_GETDRIVERSTATS). atomic64 so that the overflow
 * path (NMI) can count too.
 */
struct pmc_stats {
	atomic64_t intr_ignored;
	atomic64_t intr_processed;
	atomic64_t intr_bufferfull;
	atomic64_t syscalls;
	atomic64_t syscall_errors;
	atomic64_t buffer_requests;
	atomic64_t buffer_requests_failed;
	atomic64_t log_sweeps;
	atomic64_t ring_dropped;
	atomic64_t log_buffer_bytes;	/* a gauge: allocated, not yet freed */
};
extern struct pmc_stats pmc_stats;

/*
 * One class of rows. Row indices are global: class c owns rows
 * [first_row, first_row + num). Built once at load, read-only afterwards.
 */
struct pmc_classdesc {
	u32 class;		/* enum pmc_class */
	u32 caps;
	u32 width;
	u32 num;
	u32 first_row;
	const char *name;	/* "TSC", "IAP", "IAF", "K8", "SOFT" */
};

struct pmc_machine {
	struct pmc_arch_info arch;
	unsigned int nclasses;
	struct pmc_classdesc classes[PMC_CLASS_MAX];
	unsigned int nrows;	/* all classes; at most 256 (8 bits of a PMC id) */
};
extern struct pmc_machine pmc_machine;

/*
 * Build pmc_machine from the arch discovery and the tunables, and announce
 * the classes (hwpmc's DIAGNOSTICS line). Process context, at load.
 */
int pmc_machine_init(void);

/*
 * Before an op acts on a counter of @cpu: if the CPU is going offline or
 * coming up, sleep a tick so that perf's hotplug work on the CPU's context
 * goes first (cpu_settle.c). Process context; may sleep.
 */
void pmc_cpu_settle(unsigned int cpu);

/* Class of a row, or NULL. Any context. */
const struct pmc_classdesc *pmc_class_of_row(unsigned int row);
/* Class descriptor by enum pmc_class, or NULL. Any context. */
const struct pmc_classdesc *pmc_class_find(u32 pmc_class);

/* The Linux software events of the SOFT class (soft_events.c). */
struct pmc_soft_event {
	const char *name;	/* perf's name: "task-clock" */
	u64 config;		/* PERF_COUNT_SW_* */
};
const struct pmc_soft_event *pmc_soft_event_find(u64 config);
unsigned int pmc_soft_event_count(void);
const struct pmc_soft_event *pmc_soft_event_at(unsigned int i);

struct pmc_owner;		/* pmc_core.h */
struct pmc_perfmon;		/* perfmon.c */

/*
 * Per-open state of /dev/pmc (file->private_data). The opener's thread group
 * owns every PMC allocated through the file; another process using the file
 * (an inherited or passed fd) is refused by the ops.
 */
struct pmc_file {
	struct file *file;
	struct pid *tgid;		/* the opening process */
	struct pmc_owner *owner;	/* PMCs, log, ring; created on demand */
	struct mutex lock;		/* serialises owner creation */
	bool perfmon_writer;		/* holds the perfmon(4) writer slot */
};

/* Is the caller the process that opened @pf? Process context. */
bool pmc_file_is_opener(const struct pmc_file *pf);

/*
 * The ioctl handlers. Each takes the per-open context and the user argument,
 * runs in process context (may sleep) and returns 0 or a negative errno.
 */
typedef long (*pmc_op_fn)(struct pmc_file *pf, void __user *arg);

/* base/info.c */
long pmc_op_getmoduleversion(struct pmc_file *pf, void __user *arg);
long pmc_op_getcpuinfo(struct pmc_file *pf, void __user *arg);
long pmc_op_getdriverstats(struct pmc_file *pf, void __user *arg);
long pmc_op_getdyneventinfo(struct pmc_file *pf, void __user *arg);

#endif /* _PMC_BASE_H */
