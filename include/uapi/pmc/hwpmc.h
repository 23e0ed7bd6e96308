/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR BSD-2-Clause */
/*
 * hwpmc.h - the hwpmc(4)-style ioctl ABI of /dev/pmc.
 *
 * This header is the whole contract between pmc.ko and user space for the
 * hwpmc operations (FreeBSD's <sys/pmc.h>, adapted to Linux):
 *
 *  - every PMC_OP_* of hwpmc(4) is an ioctl on /dev/pmc whose number is the
 *    op's hwpmc value; the argument is one of the structs below;
 *  - every struct is built from fixed-width fields, padded explicitly to a
 *    multiple of 8 bytes, with user pointers carried as __u64: the layout is
 *    identical for 32- and 64-bit callers (compat_ioctl needs no translation);
 *  - reserved fields must be zero on input (EINVAL otherwise), so they can be
 *    given a meaning later without a new ABI major.
 *
 * Events are described by a class (PMC_CLASS_*) and a perf-style descriptor
 * (struct pmc_md_op_pmcallocate: perf type, config, config1, config2); the
 * driver counts with the kernel's perf_event engine and never programs PMU
 * registers itself.
 *
 * Linux extensions (marked "Linux:" below): thread scope, the multi-read op,
 * snapshot records, overflow signals, and the self-read page. pmc(4)
 * documents each of them.
 */
#ifndef _UAPI_PMC_HWPMC_H
#define _UAPI_PMC_HWPMC_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define PMC_DEVICE_PATH		"/dev/pmc"

/*
 * Versioning. GETMODULEVERSION takes the client's PMC_VERSION and refuses it
 * (PMC_EPROGMISMATCH) when the client's major.minor is newer than the
 * module's; libpmc's pmc_init() also requires the majors to be equal.
 */
#define PMC_VERSION_MAJOR	0x01
#define PMC_VERSION_MINOR	0x00
#define PMC_VERSION_PATCH	0x0000
#define PMC_VERSION		((PMC_VERSION_MAJOR << 24) | \
				 (PMC_VERSION_MINOR << 16) | PMC_VERSION_PATCH)
#define PMC_VERSION_TO_MAJOR(v)	(((v) >> 24) & 0xff)

/*
 * Errno values for FreeBSD errors Linux lacks. EDOOFUS ("programming error":
 * starting a PMC that needs a log without one) is EPROTO; EPROGMISMATCH
 * (ABI version mismatch) is EPROTONOSUPPORT. libpmc's <pmc.h> defines the
 * FreeBSD names to these values.
 */
#define PMC_EDOOFUS		71	/* EPROTO */
#define PMC_EPROGMISMATCH	93	/* EPROTONOSUPPORT */

#define PMC_NAME_MAX		64
#define PMC_CLASS_MAX		8
#define PMC_CPUID_LEN		64
#define PMC_CPU_ANY		(~(__u32)0)
#define PMC_ID_INVALID		(~(__u32)0)
#define PMC_CALLCHAIN_DEPTH_MAX	512
#define PMC_READSET_MAX		64	/* ids per PMC_OP_PMCREADSET call */

/* Operations: the ioctl number of each is its hwpmc op value. */
enum pmc_ops {
	PMC_OP_CONFIGURELOG	= 0,
	PMC_OP_FLUSHLOG		= 1,
	PMC_OP_GETCPUINFO	= 2,
	PMC_OP_GETDRIVERSTATS	= 3,
	PMC_OP_GETMODULEVERSION	= 4,
	PMC_OP_GETPMCINFO	= 5,
	PMC_OP_PMCADMIN		= 6,
	PMC_OP_PMCALLOCATE	= 7,
	PMC_OP_PMCATTACH	= 8,
	PMC_OP_PMCDETACH	= 9,
	PMC_OP_PMCGETMSR	= 10,
	PMC_OP_PMCRELEASE	= 11,
	PMC_OP_PMCRW		= 12,
	PMC_OP_PMCSETCOUNT	= 13,
	PMC_OP_PMCSTART		= 14,
	PMC_OP_PMCSTOP		= 15,
	PMC_OP_WRITELOG		= 16,
	PMC_OP_CLOSELOG		= 17,
	PMC_OP_GETDYNEVENTINFO	= 18,
	PMC_OP_GETCAPS		= 19,
	/* Linux: read several PMCs of one owner with one timestamp. */
	PMC_OP_PMCREADSET	= 32,
};

/* Modes (hwpmc values). */
enum pmc_mode {
	PMC_MODE_SS = 0,	/* system-wide sampling */
	PMC_MODE_SC = 1,	/* system-wide counting */
	PMC_MODE_TS = 2,	/* process/thread-virtual sampling */
	PMC_MODE_TC = 3,	/* process/thread-virtual counting */
	PMC_MODE_INVALID = 4,
};
#define PMC_MODE_FIRST		PMC_MODE_SS
#define PMC_MODE_LAST		PMC_MODE_TC
#define PMC_IS_COUNTING_MODE(m)	((m) == PMC_MODE_SC || (m) == PMC_MODE_TC)
#define PMC_IS_SYSTEM_MODE(m)	((m) == PMC_MODE_SS || (m) == PMC_MODE_SC)
#define PMC_IS_SAMPLING_MODE(m)	((m) == PMC_MODE_SS || (m) == PMC_MODE_TS)
#define PMC_IS_VIRTUAL_MODE(m)	((m) == PMC_MODE_TS || (m) == PMC_MODE_TC)

/* Row dispositions (hwpmc values). */
enum pmc_disp {
	PMC_DISP_STANDALONE = 0,	/* used by a system-mode PMC */
	PMC_DISP_FREE = 1,
	PMC_DISP_THREAD = 2,		/* used by process-mode PMCs */
	PMC_DISP_UNKNOWN = 3,
};

/* PMC and row states (hwpmc values). */
enum pmc_state {
	PMC_STATE_DISABLED = 0,
	PMC_STATE_FREE = 1,
	PMC_STATE_ALLOCATED = 2,
	PMC_STATE_STOPPED = 3,
	PMC_STATE_RUNNING = 4,
	PMC_STATE_DELETED = 5,
	PMC_STATE_MAX = 6,
};

/*
 * Classes (hwpmc values). The descriptor types each class accepts:
 *   TSC   one row, system counting only, no descriptor (type must be 0);
 *   K8    AMD core counters: PERF_TYPE_RAW (PERFEVTSEL event/umask/edge/inv/
 *         cmask bits; USR/OS come from PMC_CAP_USER/SYSTEM), or the generic
 *         PERF_TYPE_HARDWARE / PERF_TYPE_HW_CACHE events;
 *   IAP   Intel programmable counters: as K8 with the Intel encoding;
 *   IAF   Intel fixed counters: PERF_TYPE_HARDWARE instructions, cycles and
 *         ref-cycles only;
 *   ARMV8 Arm PMUv3 counters (arm64): PERF_TYPE_RAW (the event number
 *         alone), or the generic PERF_TYPE_HARDWARE / PERF_TYPE_HW_CACHE
 *         events; TSC is the generic timer's CNTVCT_EL0 there;
 *   SOFT  Linux software events: PERF_TYPE_SOFTWARE with config one of
 *         task-clock, cpu-clock, page-faults, minor-faults, major-faults,
 *         context-switches, cpu-migrations, alignment-faults,
 *         emulation-faults.
 */
enum pmc_class {
	PMC_CLASS_TSC = 0x00,
	PMC_CLASS_K8 = 0x02,
	PMC_CLASS_IAF = 0x06,
	PMC_CLASS_IAP = 0x07,
	PMC_CLASS_SOFT = 0x0F,
	PMC_CLASS_ARMV8 = 0x11,
};

/* CPU types reported by GETCPUINFO (hwpmc values where hwpmc has one). */
enum pmc_cputype {
	PMC_CPU_AMD_K8 = 0x01,
	PMC_CPU_INTEL_CORE = 0x87,	/* any Intel CPU with architectural perfmon */
	PMC_CPU_GENERIC = 0x400,	/* no hardware PMU: SOFT (and TSC) only */
	/* arm64: any PMUv3 core not named below is reported as the A53 */
	PMC_CPU_ARMV8_CORTEX_A53 = 0x600,
	PMC_CPU_ARMV8_CORTEX_A57 = 0x601,
	PMC_CPU_ARMV8_CORTEX_A76 = 0x602,
};

/*
 * Event codes (pm_ev). They name the event in GETPMCINFO and in the log; the
 * driver counts what the descriptor (pm_md) says and checks that pm_ev is
 * consistent with it for the SOFT and TSC classes.
 */
#define PMC_EV_TSC_TSC		0x00001
#define PMC_EV_SOFT_FIRST	0x20000	/* + PERF_COUNT_SW_* */
#define PMC_EV_GENERIC_FIRST	0x30000	/* + PERF_COUNT_HW_* */
#define PMC_EV_RAW		0x40000	/* raw event-select encoding in pm_md */

/* Capabilities (hwpmc values). */
#define PMC_CAP_INTERRUPT	0x0001
#define PMC_CAP_USER		0x0002
#define PMC_CAP_SYSTEM		0x0004
#define PMC_CAP_EDGE		0x0008
#define PMC_CAP_THRESHOLD	0x0010
#define PMC_CAP_READ		0x0020
#define PMC_CAP_WRITE		0x0040
#define PMC_CAP_INVERT		0x0080
#define PMC_CAP_QUALIFIER	0x0100
#define PMC_CAP_PRECISE		0x0200
#define PMC_CAP_TAGGING		0x0400
#define PMC_CAP_CASCADE		0x0800
#define PMC_CAP_SYSWIDE		0x1000
#define PMC_CAP_DOMWIDE		0x2000
#define PMC_CAP_FIRST		PMC_CAP_INTERRUPT
#define PMC_CAP_LAST		PMC_CAP_DOMWIDE

/*
 * Flags (pm_flags of PMCALLOCATE and PMCRW; hwpmc values, and Linux
 * extensions in the top byte).
 */
#define PMC_F_DESCENDANTS	0x00000002	/* attach to descendants too */
#define PMC_F_LOG_PROCCSW	0x00000004	/* log a PROCCSW record per switch-out */
#define PMC_F_LOG_PROCEXIT	0x00000008	/* log a PROCEXIT record per target exit */
#define PMC_F_NEWVALUE		0x00000010	/* PMCRW: write pm_value */
#define PMC_F_OLDVALUE		0x00000020	/* PMCRW: return the previous value */
#define PMC_F_CALLCHAIN		0x00000080	/* samples carry callchains */
#define PMC_F_USERCALLCHAIN	0x00000100	/* ... with the user part for kernel hits */
/*
 * Linux: counting PMC writes a SNAPSHOT record into the owner's log/ring every
 * pm_snapshot_us microseconds (floor PMC_SNAPSHOT_MIN_US); PMCs of one owner
 * sharing a pm_group tag are snapshot together with one timestamp.
 */
#define PMC_F_SNAPSHOT		0x01000000
/*
 * Linux: a virtual counting PMC with a preset (pm_count = 2^64 - N) that
 * overflows after N events: the PMCs of its pm_group stop, an OVERFLOW record
 * goes into the owner's ring, and the target thread receives signal
 * pm_signo with si_code POLL_IN and si_addr the PC of the overflow
 * (libcpc's CPC_OVF_NOTIFY_EMT, EMT_CPCOVF). PMCSTART re-arms it.
 */
#define PMC_F_OVF_SIGNAL	0x02000000
#define PMC_F_ALLOCATE_MASK	(PMC_F_DESCENDANTS | PMC_F_LOG_PROCCSW | \
				 PMC_F_LOG_PROCEXIT | PMC_F_CALLCHAIN | \
				 PMC_F_USERCALLCHAIN | PMC_F_SNAPSHOT | \
				 PMC_F_OVF_SIGNAL)
#define PMC_SNAPSHOT_MIN_US	1000

/* Callchain flags in log records (cpuflags low 16 bits). */
#define PMC_CC_F_USERSPACE	0x01	/* the sample hit user mode */

/*
 * PMC ids: CPU[31:20] MODE[19:16] CLASS[15:8] ROW[7:0] as in hwpmc. Virtual
 * PMCs carry PMC_CPU_ANY truncated to 12 bits. Ids are opaque to programs;
 * the driver checks every field and the owner of every id it is given.
 */
#define PMC_ID_TO_ROWINDEX(id)	((id) & 0xff)
#define PMC_ID_TO_CLASS(id)	(((id) >> 8) & 0xff)
#define PMC_ID_TO_MODE(id)	(((id) >> 16) & 0xf)
#define PMC_ID_TO_CPU(id)	(((id) >> 20) & 0xfff)
#define PMC_ID_MAKE_ID(cpu, mode, class, row) \
	((((__u32)(cpu) & 0xfff) << 20) | (((__u32)(mode) & 0xf) << 16) | \
	 (((__u32)(class) & 0xff) << 8) | ((__u32)(row) & 0xff))
#define PMC_ID_CPU_ANY		0xfff

/* PMC_OP_GETMODULEVERSION: in: the client's PMC_VERSION; out: the module's. */
struct pmc_op_getmoduleversion {
	__u32	pm_version;
	__u32	pm_pad;
};

/* PMC_OP_PMCALLOCATE: the perf-style event descriptor. */
struct pmc_md_op_pmcallocate {
	__u32	pm_type;	/* PERF_TYPE_* (0 for the TSC class) */
	__u32	pm_pad;
	__u64	pm_config;	/* perf_event_attr.config */
	__u64	pm_config1;	/* perf_event_attr.config1 (x86: extra regs) */
	__u64	pm_config2;	/* perf_event_attr.config2 */
};

/*
 * The modes counted: PMC_CAP_USER and/or PMC_CAP_SYSTEM as asked (an
 * explicit request: SYSTEM without the privilege to count kernel mode is
 * EPERM). Neither is hwpmc's unqualified spec: both modes where the caller
 * may count kernel mode (CAP_PERFMON, or kernel.perf_event_paranoid <= 1),
 * user mode only where it may not. PMC_OP_GETCAPS returns the modes the
 * PMC counts.
 */
struct pmc_op_pmcallocate {
	__u32	pm_caps;	/* in: PMC_CAP_*; USER/SYSTEM: the modes (above) */
	__u32	pm_cpu;		/* in: CPU (SS/SC) or PMC_CPU_ANY (TS/TC) */
	__u32	pm_class;	/* in: enum pmc_class */
	__u32	pm_ev;		/* in: event code (PMC_EV_*) */
	__u32	pm_flags;	/* in: PMC_F_* within PMC_F_ALLOCATE_MASK */
	__u32	pm_mode;	/* in: enum pmc_mode */
	__u32	pm_pmcid;	/* out: the new PMC's id */
	__u32	pm_group;	/* in, Linux: set tag for SNAPSHOT/OVF_SIGNAL, 0 = none */
	__u64	pm_count;	/* in: sampling period, or initial/preset count */
	struct pmc_md_op_pmcallocate pm_md;	/* in: the event descriptor */
	__u32	pm_snapshot_us;	/* in, Linux: SNAPSHOT period (microseconds) */
	__u32	pm_signo;	/* in, Linux: OVF_SIGNAL signal number */
	__u64	pm_reserved[4];	/* must be zero */
};

/* PMC_OP_PMCADMIN: enable (PMC_STATE_FREE) or disable a row on one CPU. */
struct pmc_op_pmcadmin {
	__s32	pm_cpu;
	__u32	pm_flags;	/* must be zero */
	__s32	pm_pmc;		/* row index */
	__u32	pm_state;	/* PMC_STATE_DISABLED or PMC_STATE_FREE */
};

/* PMC_OP_PMCATTACH, PMC_OP_PMCDETACH. */
struct pmc_op_pmcattach {
	__u32	pm_pmc;		/* PMC id */
	__s32	pm_pid;		/* target pid (0 = the caller); a tid with PMC_ATTACH_F_THREAD */
	__u32	pm_flags;	/* Linux: PMC_ATTACH_F_* */
	__u32	pm_pad;
};
/*
 * Linux thread scope: count only the thread pm_pid (0 = the calling thread),
 * and with PMC_ATTACH_F_INHERIT also the threads it creates afterwards.
 */
#define PMC_ATTACH_F_THREAD	0x1
#define PMC_ATTACH_F_INHERIT	0x2

/* PMC_OP_PMCSTART, PMC_OP_PMCSTOP, PMC_OP_PMCRELEASE. */
struct pmc_op_simple {
	__u32	pm_pmcid;
	__u32	pm_pad;
};

/* PMC_OP_PMCSETCOUNT: sampling period (>= mincount) or initial count. */
struct pmc_op_pmcsetcount {
	__u64	pm_count;
	__u32	pm_pmcid;
	__u32	pm_pad;
};

/* PMC_OP_PMCRW: PMC_F_NEWVALUE writes pm_value, PMC_F_OLDVALUE returns the old one. */
struct pmc_op_pmcrw {
	__u32	pm_flags;
	__u32	pm_pmcid;
	__u64	pm_value;
};

/* PMC_OP_PMCREADSET (Linux): read up to PMC_READSET_MAX PMCs of the caller. */
struct pmc_op_pmcreadset {
	__u32	pm_count;	/* in: number of ids */
	__u32	pm_flags;	/* must be zero */
	__u64	pm_ids;		/* in: user pointer to __u32[pm_count] */
	__u64	pm_values;	/* in: user pointer to __u64[pm_count], filled */
	__u64	pm_timestamp;	/* out: CLOCK_MONOTONIC ns of the read */
};

/* PMC_OP_GETPMCINFO: one entry per row of one CPU. */
struct pmc_info {
	char	pm_name[PMC_NAME_MAX];	/* row name, e.g. "SOFT-3", "IAP-0", "TSC" */
	__u32	pm_class;
	__u32	pm_enabled;		/* row administratively enabled */
	__u32	pm_rowdisp;		/* enum pmc_disp */
	__s32	pm_ownerpid;		/* owner of the PMC on the row, -1 if none */
	__u32	pm_mode;		/* if allocated */
	__u32	pm_event;		/* if allocated */
	__u32	pm_flags;		/* if allocated */
	__u32	pm_state;		/* enum pmc_state of the row / its PMC */
	__u64	pm_reloadcount;		/* sampling period, if allocated */
};

struct pmc_op_getpmcinfo {
	__s32	pm_cpu;		/* in */
	__u32	pm_npmc;	/* in: capacity of pm_pmcs; out: rows of this CPU */
	__u64	pm_pmcs;	/* in: user pointer to struct pmc_info[pm_npmc] */
};

/* PMC_OP_GETCPUINFO. */
struct pmc_classinfo {
	__u32	pm_class;
	__u32	pm_caps;	/* PMC_CAP_* of this class */
	__u32	pm_width;	/* counter width in bits (virtualized to 64) */
	__u32	pm_num;		/* rows of this class per CPU */
};

struct pmc_op_getcpuinfo {
	__u32	pm_cputype;	/* enum pmc_cputype */
	__u32	pm_ncpu;	/* highest possible CPU id + 1 */
	__u32	pm_npmc;	/* rows per CPU, all classes */
	__u32	pm_nclass;
	struct pmc_classinfo pm_classes[PMC_CLASS_MAX];
	char	pm_cpuid[PMC_CPUID_LEN];	/* e.g. "GenuineIntel-6-85-7" */
	__u32	pm_perfmon_version;	/* x86 architectural perfmon version, 0 if none */
	__u32	pm_pad;
};

/* PMC_OP_GETDRIVERSTATS. */
struct pmc_op_getdriverstats {
	__u64	pm_intr_ignored;	/* overflows not taken (PMC stopping) */
	__u64	pm_intr_processed;	/* overflows handled */
	__u64	pm_intr_bufferfull;	/* samples dropped: per-CPU ring full */
	__u64	pm_syscalls;		/* ioctls */
	__u64	pm_syscall_errors;	/* ioctls that returned an error */
	__u64	pm_buffer_requests;	/* log buffers requested */
	__u64	pm_buffer_requests_failed; /* ... with none free: records dropped */
	__u64	pm_log_sweeps;		/* sample-ring drain passes */
	__u64	pm_ring_dropped;	/* Linux: records dropped, mmap ring full */
	__u64	pm_log_buffer_bytes;	/* Linux: log buffers held now, all owners */
	__u64	pm_reserved[6];
};

/* PMC_OP_CONFIGURELOG: fd open for writing, or -1 to de-configure. */
struct pmc_op_configurelog {
	__u32	pm_flags;	/* must be zero */
	__s32	pm_logfd;
};

/* PMC_OP_WRITELOG: append a USERDATA record. */
struct pmc_op_writelog {
	__u32	pm_userdata;
	__u32	pm_pad;
};

/* PMC_OP_PMCGETMSR: the RDPMC index of a self-attached counting PMC. */
struct pmc_op_getmsr {
	__u32	pm_msr;		/* out */
	__u32	pm_pmcid;	/* in */
};

/* PMC_OP_GETDYNEVENTINFO: the events of a class the driver knows by name. */
struct pmc_dyn_event_descr {
	char	pm_ev_name[PMC_NAME_MAX];	/* e.g. "task-clock" */
	__u32	pm_ev_code;			/* PMC_EV_* */
	__u32	pm_type;			/* descriptor: PERF_TYPE_* */
	__u64	pm_config;			/* descriptor: config */
};

struct pmc_op_getdyneventinfo {
	__u32	pm_class;	/* in */
	__u32	pm_nevent;	/* in: capacity of pm_events; out: events of the class */
	__u64	pm_events;	/* in: user pointer to struct pmc_dyn_event_descr[] */
};

/* PMC_OP_GETCAPS. */
struct pmc_op_caps {
	__u32	pm_pmcid;	/* in */
	__u32	pm_caps;	/* out */
};

/* The ioctls. */
#define PMC_IOC_MAGIC		'P'
#define PMC_IOC_CONFIGURELOG	_IOW(PMC_IOC_MAGIC, PMC_OP_CONFIGURELOG, struct pmc_op_configurelog)
#define PMC_IOC_FLUSHLOG	_IO(PMC_IOC_MAGIC, PMC_OP_FLUSHLOG)
#define PMC_IOC_GETCPUINFO	_IOR(PMC_IOC_MAGIC, PMC_OP_GETCPUINFO, struct pmc_op_getcpuinfo)
#define PMC_IOC_GETDRIVERSTATS	_IOR(PMC_IOC_MAGIC, PMC_OP_GETDRIVERSTATS, struct pmc_op_getdriverstats)
#define PMC_IOC_GETMODULEVERSION _IOWR(PMC_IOC_MAGIC, PMC_OP_GETMODULEVERSION, struct pmc_op_getmoduleversion)
#define PMC_IOC_GETPMCINFO	_IOWR(PMC_IOC_MAGIC, PMC_OP_GETPMCINFO, struct pmc_op_getpmcinfo)
#define PMC_IOC_PMCADMIN	_IOW(PMC_IOC_MAGIC, PMC_OP_PMCADMIN, struct pmc_op_pmcadmin)
#define PMC_IOC_PMCALLOCATE	_IOWR(PMC_IOC_MAGIC, PMC_OP_PMCALLOCATE, struct pmc_op_pmcallocate)
#define PMC_IOC_PMCATTACH	_IOW(PMC_IOC_MAGIC, PMC_OP_PMCATTACH, struct pmc_op_pmcattach)
#define PMC_IOC_PMCDETACH	_IOW(PMC_IOC_MAGIC, PMC_OP_PMCDETACH, struct pmc_op_pmcattach)
#define PMC_IOC_PMCGETMSR	_IOWR(PMC_IOC_MAGIC, PMC_OP_PMCGETMSR, struct pmc_op_getmsr)
#define PMC_IOC_PMCRELEASE	_IOW(PMC_IOC_MAGIC, PMC_OP_PMCRELEASE, struct pmc_op_simple)
#define PMC_IOC_PMCRW		_IOWR(PMC_IOC_MAGIC, PMC_OP_PMCRW, struct pmc_op_pmcrw)
#define PMC_IOC_PMCSETCOUNT	_IOW(PMC_IOC_MAGIC, PMC_OP_PMCSETCOUNT, struct pmc_op_pmcsetcount)
#define PMC_IOC_PMCSTART	_IOW(PMC_IOC_MAGIC, PMC_OP_PMCSTART, struct pmc_op_simple)
#define PMC_IOC_PMCSTOP		_IOW(PMC_IOC_MAGIC, PMC_OP_PMCSTOP, struct pmc_op_simple)
#define PMC_IOC_WRITELOG	_IOW(PMC_IOC_MAGIC, PMC_OP_WRITELOG, struct pmc_op_writelog)
#define PMC_IOC_CLOSELOG	_IO(PMC_IOC_MAGIC, PMC_OP_CLOSELOG)
#define PMC_IOC_GETDYNEVENTINFO	_IOWR(PMC_IOC_MAGIC, PMC_OP_GETDYNEVENTINFO, struct pmc_op_getdyneventinfo)
#define PMC_IOC_GETCAPS		_IOWR(PMC_IOC_MAGIC, PMC_OP_GETCAPS, struct pmc_op_caps)
#define PMC_IOC_PMCREADSET	_IOWR(PMC_IOC_MAGIC, PMC_OP_PMCREADSET, struct pmc_op_pmcreadset)

#endif /* _UAPI_PMC_HWPMC_H */
