/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - the trace events of pmc.ko (tracefs events/pmc/): one event per
 * hwpmc(4) debug major, pmc_<major>, whose fields name the minor and carry
 * a PMC id, a pid, a CPU and a value. debugflags.c calls them through
 * pmc_dbg_emit(); nothing else should (see pmc_debug.h).
 *
 * The minor is a short string so that tracefs filters can name it:
 *	echo 'minor == "swi"' > events/pmc/pmc_csw/filter
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pmc

#if !defined(_PMC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _PMC_TRACE_H

#include <linux/tracepoint.h>
#include <linux/string.h>

/* Longest minor name ("unlinktarget") and its NUL, rounded up. */
#define PMC_DBG_MINOR_LEN	16

DECLARE_EVENT_CLASS(pmc_dbg_class,
	TP_PROTO(const char *minor, u32 id, s32 pid, s32 cpu, u64 value),
	TP_ARGS(minor, id, pid, cpu, value),
	TP_STRUCT__entry(
		__array(char, minor, PMC_DBG_MINOR_LEN)
		__field(u32, id)
		__field(s32, pid)
		__field(s32, cpu)
		__field(u64, value)
	),
	TP_fast_assign(
		strscpy(__entry->minor, minor, PMC_DBG_MINOR_LEN);
		__entry->id = id;
		__entry->pid = pid;
		__entry->cpu = cpu;
		__entry->value = value;
	),
	TP_printk("minor=%s id=0x%x pid=%d cpu=%d value=%llu",
		  __entry->minor, __entry->id, __entry->pid, __entry->cpu,
		  __entry->value)
);

#define PMC_DBG_TRACE_PROTO \
	TP_PROTO(const char *minor, u32 id, s32 pid, s32 cpu, u64 value)
#define PMC_DBG_TRACE_ARGS TP_ARGS(minor, id, pid, cpu, value)

DEFINE_EVENT(pmc_dbg_class, pmc_cpu, PMC_DBG_TRACE_PROTO, PMC_DBG_TRACE_ARGS);
DEFINE_EVENT(pmc_dbg_class, pmc_csw, PMC_DBG_TRACE_PROTO, PMC_DBG_TRACE_ARGS);
DEFINE_EVENT(pmc_dbg_class, pmc_logging, PMC_DBG_TRACE_PROTO, PMC_DBG_TRACE_ARGS);
DEFINE_EVENT(pmc_dbg_class, pmc_md, PMC_DBG_TRACE_PROTO, PMC_DBG_TRACE_ARGS);
DEFINE_EVENT(pmc_dbg_class, pmc_module, PMC_DBG_TRACE_PROTO, PMC_DBG_TRACE_ARGS);
DEFINE_EVENT(pmc_dbg_class, pmc_owner, PMC_DBG_TRACE_PROTO, PMC_DBG_TRACE_ARGS);
DEFINE_EVENT(pmc_dbg_class, pmc_pmc, PMC_DBG_TRACE_PROTO, PMC_DBG_TRACE_ARGS);
DEFINE_EVENT(pmc_dbg_class, pmc_process, PMC_DBG_TRACE_PROTO, PMC_DBG_TRACE_ARGS);
DEFINE_EVENT(pmc_dbg_class, pmc_sampling, PMC_DBG_TRACE_PROTO, PMC_DBG_TRACE_ARGS);

#endif /* _PMC_TRACE_H */

/* Out-of-tree: define_trace.h finds this file through -I$(src) (Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
