/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_debug.h - hwpmc's debug trace points on Linux: the debugflags module
 * parameter selects (major, minor) pairs, and each selected pair that a call
 * site reaches is recorded as a trace event of the group pmc (tracefs
 * events/pmc/pmc_<major>), read with the kernel's tracing tools.
 *
 * A call site is
 *	pmc_dbg(PMC_DBG_PMC, PMC_DBG_ALLOCATE, pm->id, pid, cpu, value);
 * Its cost while no minor of the major is selected is one static branch
 * (a NOP); otherwise pmc_dbg_emit() checks the minor and calls the trace
 * event, which records only if the event is also enabled in tracefs.
 * pmc_dbg() may be used in any context, NMI included: it takes no lock,
 * allocates nothing and never sleeps.
 */
#ifndef _PMC_DEBUG_H
#define _PMC_DEBUG_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/jump_label.h>

/*
 * The major groups of hwpmc(4), in canonical (documentation) order; the
 * lower-case name is the one debugflags takes and the trace event's suffix
 * (tracefs events/pmc/pmc_<name>).
 */
enum pmc_dbg_major {
	PMC_DBG_CPU,
	PMC_DBG_CSW,
	PMC_DBG_LOGGING,
	PMC_DBG_MD,
	PMC_DBG_MODULE,
	PMC_DBG_OWNER,
	PMC_DBG_PMC,
	PMC_DBG_PROCESS,
	PMC_DBG_SAMPLING,
	PMC_DBG_NMAJOR
};

/*
 * The minor names of hwpmc(4), in canonical order; any of them may be given
 * for any major. "close" and "detach" are Linux additions: hwpmc has no
 * name for them.
 */
enum pmc_dbg_minor {
	PMC_DBG_ALLOCATEROW,
	PMC_DBG_ALLOCATE,
	PMC_DBG_ATTACH,
	PMC_DBG_BIND,
	PMC_DBG_CLOSE,
	PMC_DBG_CONFIG,
	PMC_DBG_DETACH,
	PMC_DBG_EXEC,
	PMC_DBG_EXIT,
	PMC_DBG_FIND,
	PMC_DBG_FLUSH,
	PMC_DBG_FORK,
	PMC_DBG_GETBUF,
	PMC_DBG_HOOK,
	PMC_DBG_INIT,
	PMC_DBG_INTR,
	PMC_DBG_LINKTARGET,
	PMC_DBG_MAYBEREMOVE,
	PMC_DBG_OPS,
	PMC_DBG_READ,
	PMC_DBG_REGISTER,
	PMC_DBG_RELEASE,
	PMC_DBG_REMOVE,
	PMC_DBG_SAMPLE,
	PMC_DBG_SCHEDULEIO,
	PMC_DBG_SELECT,
	PMC_DBG_SIGNAL,
	PMC_DBG_SWI,
	PMC_DBG_SWO,
	PMC_DBG_START,
	PMC_DBG_STOP,
	PMC_DBG_SYSCALL,
	PMC_DBG_UNLINKTARGET,
	PMC_DBG_WRITE,
	PMC_DBG_NMINOR
};

/*
 * The points the driver records (pmc(4) DEBUGGING) with their fields (id,
 * pid, cpu, value; pid is a tgid unless it says tid; cpu -1 for none):
 *  module=init/release	load/unload (value: PMC_VERSION)
 *  module=config		debugflags changed (value: bit per selected major)
 *  module=syscall		each ioctl (value: op number)
 *  md=init		class announced at load (id: class, value: rows)
 *  md=allocate/release	a perf kernel counter created/released (pid: tid)
 *  md=start/stop/read/config	perf_event_enable/disable/read/period
 *  owner=allocate/release	owner created / torn down
 *  pmc=allocaterow/allocate/attach/detach/start/stop/read/write/config/release
 *			the ops (attach/detach pid: the target; read/write
 *			value: the value; config: PMCSETCOUNT's count)
 *  cpu=bind		a system-mode PMC given its CPU
 *  process=linktarget/unlinktarget	a target linked/unlinked
 *  process=fork		a PMC_F_DESCENDANTS target forks (value: child)
 *  process=exec/exit	a target execs (value: privileges raised) / ends
 *  csw=swo		a PMC_F_LOG_PROCCSW thread switched out (pid: tid,
 *			value: delta)
 *  logging=config/write/scheduleio/flush/close/release	the log file
 *  sampling=intr		an overflow taken (pid: tid, value: the IP)
 *  sampling=sample	a sample became a CALLCHAIN record (value: frames)
 */

/* One bit per minor in a u64 selection mask. */
#define PMC_DBG_ALL_MINORS	(BIT_ULL(PMC_DBG_NMINOR) - 1)

/*
 * One key per major, true while any of its minors is selected. Written only
 * by debugflags.c (process context); read by pmc_dbg() anywhere.
 */
extern struct static_key_false pmc_dbg_keys[PMC_DBG_NMAJOR];

/*
 * Record (major, minor) if the minor is selected, through the trace event
 * pmc_<major>. Any context, NMI included. Call it through pmc_dbg().
 * @id: a PMC id (0 when none), @pid: a pid or tid (0 when none),
 * @cpu: a CPU (-1 when none), @value: what the call site documents.
 */
void pmc_dbg_emit(enum pmc_dbg_major major, enum pmc_dbg_minor minor,
		  u32 id, s32 pid, s32 cpu, u64 value);

/* Is (major, minor) selected? For call sites whose arguments cost. */
bool pmc_dbg_selected(enum pmc_dbg_major major, enum pmc_dbg_minor minor);

/*
 * pmc_dbg - record a debug point. @major must be a constant PMC_DBG_<major>
 * (the static branch needs a constant key); the arguments are evaluated only
 * while the major is selected.
 */
#define pmc_dbg(major, minor, id, pid, cpu, value)			\
	do {								\
		if (static_branch_unlikely(&pmc_dbg_keys[major]))	\
			pmc_dbg_emit(major, minor, id, pid, cpu, value); \
	} while (0)

/*
 * Module lifecycle, called by main.c (process context):
 * pmc_preflight() first thing in pmc_init(): refuses the load, with one line
 * naming what is missing, on a kernel whose perf_event core or sched
 * tracepoints the driver cannot use (preflight.c);
 * pmc_debug_init() once the driver is up, pmc_debug_exit() first thing in
 * pmc_exit(): they record module=init and module=release.
 */
int pmc_preflight(void);
int pmc_debug_init(void);
void pmc_debug_exit(void);

#endif /* _PMC_DEBUG_H */
