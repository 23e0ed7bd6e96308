/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR BSD-2-Clause */
/*
 * pmclog.h - the records pmc.ko writes to an owner's log file and mmap'd ring.
 *
 * hwpmc's pmclog layout (FreeBSD <sys/pmclog.h>, ABI 10), adapted to Linux:
 *
 *  - every record starts with struct pmclog_header: a header word (magic 0xEE,
 *    type, total length in bytes), a sequence number and a timestamp;
 *  - pl_tsc holds CLOCK_MONOTONIC nanoseconds (the INITIALIZE record says so
 *    by giving pl_tsc_freq = 1000000000), so hwpmc readers that convert with
 *    the TSC frequency get seconds;
 *  - pl_seq is the owner's record sequence number: it increases by one per
 *    record the owner is sent, in log and ring alike, so a reader sees every
 *    loss (records lost to a full buffer are reported by a DROPNOTIFY record);
 *  - every length is a multiple of 8, every field naturally aligned, every
 *    address a __u64: identical for 32- and 64-bit readers;
 *  - strings are NUL-terminated and padded with NULs to the record length.
 *
 * The same byte stream goes to the log file (PMC_OP_CONFIGURELOG) and to the
 * ring (mmap of /dev/pmc, see ring.h): a reader can parse either.
 */
#ifndef _UAPI_PMC_PMCLOG_H
#define _UAPI_PMC_PMCLOG_H

#include <linux/types.h>

#define PMCLOG_HEADER_MAGIC		0xEEU
#define PMCLOG_HEADER_TO_LENGTH(h)	((h) & 0xffff)
#define PMCLOG_HEADER_TO_TYPE(h)	(((h) >> 16) & 0xff)
#define PMCLOG_HEADER_TO_MAGIC(h)	(((h) >> 24) & 0xff)
#define PMCLOG_HEADER_CHECK_MAGIC(h)	(PMCLOG_HEADER_TO_MAGIC(h) == PMCLOG_HEADER_MAGIC)
#define PMCLOG_HEADER(type, len) \
	((PMCLOG_HEADER_MAGIC << 24) | (((__u32)(type) & 0xff) << 16) | \
	 ((__u32)(len) & 0xffff))
#define PMCLOG_ALIGN			8
#define PMCLOG_MAX_RECORD		0xfff8	/* largest length, a multiple of 8 */

enum pmclog_type {
	PMCLOG_TYPE_CLOSELOG = 1,
	PMCLOG_TYPE_DROPNOTIFY = 2,
	PMCLOG_TYPE_INITIALIZE = 3,
	PMCLOG_TYPE_PMCALLOCATE = 5,
	PMCLOG_TYPE_PMCATTACH = 6,
	PMCLOG_TYPE_PMCDETACH = 7,
	PMCLOG_TYPE_PROCCSW = 8,
	PMCLOG_TYPE_PROCEXEC = 9,
	PMCLOG_TYPE_PROCEXIT = 10,
	PMCLOG_TYPE_PROCFORK = 11,
	PMCLOG_TYPE_SYSEXIT = 12,
	PMCLOG_TYPE_USERDATA = 13,
	PMCLOG_TYPE_MAP_IN = 14,
	PMCLOG_TYPE_MAP_OUT = 15,
	PMCLOG_TYPE_CALLCHAIN = 16,
	PMCLOG_TYPE_PMCALLOCATEDYN = 17,
	PMCLOG_TYPE_THR_CREATE = 18,
	PMCLOG_TYPE_THR_EXIT = 19,
	PMCLOG_TYPE_PROC_CREATE = 20,
	/* Linux extensions. */
	PMCLOG_TYPE_SNAPSHOT = 64,	/* periodic value of a PMC_F_SNAPSHOT PMC */
	PMCLOG_TYPE_OVERFLOW = 65,	/* a PMC_F_OVF_SIGNAL set overflowed */
	PMCLOG_TYPE_SNAPSET = 66,	/* periodic values of a PMC_F_SNAPSHOT set */
};

struct pmclog_header {
	__u32	pl_header;	/* PMCLOG_HEADER(type, length) */
	__u32	pl_seq;		/* the owner's record sequence number */
	__u64	pl_tsc;		/* CLOCK_MONOTONIC ns */
};

/* CALLCHAIN: a sample; pl_pc[0] is the sampled IP, then callers. */
struct pmclog_callchain {
	struct pmclog_header pl_hdr;
	__u32	pl_pid;
	__u32	pl_tid;
	__u32	pl_pmcid;
	__u32	pl_cpuflags;	/* PMC_CALLCHAIN_TO_CPUFLAGS(cpu, PMC_CC_F_*) */
	__u64	pl_pc[];	/* 1 .. callchaindepth frames */
};
#define PMC_CALLCHAIN_TO_CPUFLAGS(cpu, flags)	((((__u32)(cpu)) << 16) | ((flags) & 0xffff))
#define PMC_CALLCHAIN_CPUFLAGS_TO_CPU(cf)	(((cf) >> 16) & 0xffff)
#define PMC_CALLCHAIN_CPUFLAGS_TO_USERMODE(cf)	((cf) & 0x01)

struct pmclog_closelog {
	struct pmclog_header pl_hdr;
};

/* DROPNOTIFY: records were lost since the previous one (Linux: with counts). */
struct pmclog_dropnotify {
	struct pmclog_header pl_hdr;
	__u64	pl_records;	/* records lost (log buffers or ring full) */
	__u64	pl_samples;	/* samples lost (per-CPU sample ring full) */
};

struct pmclog_initialize {
	struct pmclog_header pl_hdr;
	__u32	pl_version;	/* PMC_VERSION */
	__u32	pl_cpu;		/* enum pmc_cputype */
	__u64	pl_tsc_freq;	/* timestamp units per second: 1000000000 */
	__s64	pl_ts_sec;	/* CLOCK_REALTIME when the log started ... */
	__s64	pl_ts_nsec;
	__u64	pl_ts_mono;	/* ... and the CLOCK_MONOTONIC ns of that instant */
	char	pl_cpuid[64];	/* PMC_CPUID_LEN */
};

/* MAP_IN (Linux: with end and file offset): an executable file mapping. */
struct pmclog_map_in {
	struct pmclog_header pl_hdr;
	__u32	pl_pid;
	__u32	pl_pad;
	__u64	pl_start;
	__u64	pl_end;
	__u64	pl_pgoff;	/* file offset of pl_start, in bytes */
	char	pl_pathname[];
};

struct pmclog_map_out {
	struct pmclog_header pl_hdr;
	__u32	pl_pid;
	__u32	pl_pad;
	__u64	pl_start;
	__u64	pl_end;
};

struct pmclog_pmcallocate {
	struct pmclog_header pl_hdr;
	__u32	pl_pmcid;
	__u32	pl_event;
	__u32	pl_flags;
	__u32	pl_class;	/* Linux: hwpmc's pl_pad carries the class */
	__u64	pl_rate;	/* sampling period or initial count */
	__u32	pl_type;	/* Linux: the perf descriptor */
	__u32	pl_pad;
	__u64	pl_config;
};

/* PMCALLOCATEDYN: as PMCALLOCATE, for events the driver names (SOFT). */
struct pmclog_pmcallocatedyn {
	struct pmclog_header pl_hdr;
	__u32	pl_pmcid;
	__u32	pl_event;
	__u32	pl_flags;
	__u32	pl_class;
	__u64	pl_rate;
	char	pl_evname[64];	/* PMC_NAME_MAX */
};

struct pmclog_pmcattach {
	struct pmclog_header pl_hdr;
	__u32	pl_pmcid;
	__u32	pl_pid;
	char	pl_pathname[];
};

struct pmclog_pmcdetach {
	struct pmclog_header pl_hdr;
	__u32	pl_pmcid;
	__u32	pl_pid;
};

/* PROCCSW: events counted while the thread ran, at its switch-out. */
struct pmclog_proccsw {
	struct pmclog_header pl_hdr;
	__u64	pl_value;
	__u32	pl_pmcid;
	__u32	pl_pid;
	__u32	pl_tid;
	__u32	pl_pad;
};

struct pmclog_procexec {
	struct pmclog_header pl_hdr;
	__u32	pl_pid;
	__u32	pl_pmcid;
	__u64	pl_baseaddr;	/* AT_BASE: the dynamic loader's load address */
	__u64	pl_dynaddr;	/* load address of a PIE executable, else 0 */
	char	pl_pathname[];
};

/* PROCEXIT: a target's accumulated count when it exits. */
struct pmclog_procexit {
	struct pmclog_header pl_hdr;
	__u32	pl_pmcid;
	__u32	pl_pid;
	__u64	pl_value;
};

struct pmclog_procfork {
	struct pmclog_header pl_hdr;
	__u32	pl_oldpid;
	__u32	pl_newpid;
};

struct pmclog_sysexit {
	struct pmclog_header pl_hdr;
	__u32	pl_pid;
	__u32	pl_pad;
};

struct pmclog_userdata {
	struct pmclog_header pl_hdr;
	__u32	pl_userdata;
	__u32	pl_pad;
};

struct pmclog_threadcreate {
	struct pmclog_header pl_hdr;
	__u32	pl_tid;
	__u32	pl_pid;
	__u32	pl_flags;
	__u32	pl_pad;
	char	pl_tdname[24];
};

struct pmclog_threadexit {
	struct pmclog_header pl_hdr;
	__u32	pl_tid;
	__u32	pl_pad;
};

struct pmclog_proccreate {
	struct pmclog_header pl_hdr;
	__u32	pl_pid;
	__u32	pl_flags;
	char	pl_pcomm[24];
};

/*
 * SNAPSHOT (Linux): the value of one PMC_F_SNAPSHOT PMC: the periodic
 * records of a PMC of group 0 (a set alone), and the last value of every
 * SNAPSHOT PMC, written when it stops (each at its own instant).
 */
struct pmclog_snapshot {
	struct pmclog_header pl_hdr;
	__u32	pl_pmcid;
	__u32	pl_group;
	__u32	pl_cpu;		/* CPU that counted (system scope) or ran the thread */
	__u32	pl_tid;		/* 0 for system scope */
	__u64	pl_value;
};

/*
 * SNAPSET (Linux): the values of the running PMC_F_SNAPSHOT PMCs of one set
 * (pl_group, not 0) at one instant, pl_hdr.pl_tsc: written at the set's
 * period by its timer on each CPU (system scope) or at the counted
 * thread's switch-out (process scope). One record for the whole set, so a
 * reader rebuilds a sample from one record. Entries past pl_nentries, if
 * the record is longer, are zero.
 */
struct pmclog_snapset_entry {
	__u32	pl_pmcid;
	__u32	pl_reserved;	/* 0 */
	__u64	pl_value;
};

struct pmclog_snapset {
	struct pmclog_header pl_hdr;
	__u32	pl_group;
	__u32	pl_cpu;		/* CPU that counted (system scope) or ran the thread */
	__u32	pl_tid;		/* 0 for system scope */
	__u32	pl_nentries;
	struct pmclog_snapset_entry pl_entries[];
};

/*
 * OVERFLOW (Linux): a PMC_F_OVF_SIGNAL set stopped on overflow. One entry
 * per PMC of the set, with the overflowed ones flagged.
 */
struct pmclog_overflow_entry {
	__u32	pl_pmcid;
	__u32	pl_overflowed;	/* 1 if this PMC reached its preset */
	__u64	pl_value;	/* its value when the set stopped */
};

struct pmclog_overflow {
	struct pmclog_header pl_hdr;
	__u32	pl_group;
	__u32	pl_tid;
	__u32	pl_pid;
	__u32	pl_nentries;
	__u64	pl_ip;		/* interrupted instruction pointer (0 if not allowed) */
	struct pmclog_overflow_entry pl_entries[];
};

#endif /* _UAPI_PMC_PMCLOG_H */
