/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmc.h - FreeBSD's pmc(3) API on Linux: names, types and functions of
 * FreeBSD's <pmc.h>, over the /dev/pmc ABI of <pmc/hwpmc.h>. Link with -lpmc.
 */
#ifndef _PMC_H_
#define _PMC_H_

#include <stdint.h>
#include <sys/types.h>
#include <errno.h>

#include <pmc/hwpmc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* FreeBSD's errnos that Linux lacks: the values the driver returns. */
#ifndef EDOOFUS
#define EDOOFUS		PMC_EDOOFUS
#endif
#ifndef EPROGMISMATCH
#define EPROGMISMATCH	PMC_EPROGMISMATCH
#endif

typedef uint32_t pmc_id_t;
typedef uint64_t pmc_value_t;

/*
 * Capabilities. The PMC_CAP_* values are macros of <pmc/hwpmc.h> (so they
 * work in #if); this enum gives FreeBSD's type name to functions taking one.
 */
enum pmc_caps {
	PMC_CAP_ENUM_FIRST_ = PMC_CAP_FIRST,
	PMC_CAP_ENUM_LAST_ = PMC_CAP_LAST,
};

/*
 * Event codes (pm_ev, pl_event in logs). TSC: PMC_EV_TSC_TSC. SOFT: Linux
 * software events, PMC_EV_SOFT_FIRST + PERF_COUNT_SW_*. Hardware classes:
 * perf's generic events, PMC_EV_GENERIC_FIRST + PERF_COUNT_HW_*, or
 * PMC_EV_RAW for an event given by its encoding (libpfm4 names, cache events).
 */
enum pmc_event {
	PMC_EV_SOFT_CPU_CLOCK = PMC_EV_SOFT_FIRST,
	PMC_EV_SOFT_TASK_CLOCK,
	PMC_EV_SOFT_PAGE_FAULTS,
	PMC_EV_SOFT_CONTEXT_SWITCHES,
	PMC_EV_SOFT_CPU_MIGRATIONS,
	PMC_EV_SOFT_PAGE_FAULTS_MIN,
	PMC_EV_SOFT_PAGE_FAULTS_MAJ,
	PMC_EV_SOFT_ALIGNMENT_FAULTS,
	PMC_EV_SOFT_EMULATION_FAULTS,
	PMC_EV_SOFT_LAST = PMC_EV_SOFT_EMULATION_FAULTS,

	PMC_EV_GENERIC_CPU_CYCLES = PMC_EV_GENERIC_FIRST,
	PMC_EV_GENERIC_INSTRUCTIONS,
	PMC_EV_GENERIC_CACHE_REFERENCES,
	PMC_EV_GENERIC_CACHE_MISSES,
	PMC_EV_GENERIC_BRANCH_INSTRUCTIONS,
	PMC_EV_GENERIC_BRANCH_MISSES,
	PMC_EV_GENERIC_BUS_CYCLES,
	PMC_EV_GENERIC_STALLED_CYCLES_FRONTEND,
	PMC_EV_GENERIC_STALLED_CYCLES_BACKEND,
	PMC_EV_GENERIC_REF_CPU_CYCLES,
	PMC_EV_GENERIC_LAST = PMC_EV_GENERIC_REF_CPU_CYCLES,
};

/* PMC_OP_GETCPUINFO, FreeBSD's shape, plus the Linux fields at the end. */
struct pmc_cpuinfo {
	enum pmc_cputype pm_cputype;
	uint32_t	pm_ncpu;	/* highest possible CPU id + 1 */
	uint32_t	pm_npmc;	/* rows per CPU, all classes */
	uint32_t	pm_nclass;
	struct pmc_classinfo pm_classes[PMC_CLASS_MAX];
	char		pm_cpuid[PMC_CPUID_LEN];	/* Linux: "GenuineIntel-6-85-7" */
	uint32_t	pm_perfmon_version;	/* Linux: x86 arch perfmon version */
};

/* PMC_OP_GETPMCINFO for one CPU; pmc_pmcinfo() mallocs it. */
struct pmc_pmcinfo {
	int32_t		pm_cpu;
	struct pmc_info	pm_pmcs[];	/* pmc_npmc() entries */
};

/*
 * PMC_OP_GETDRIVERSTATS with FreeBSD's names and types (unsigned int: the
 * driver's 64-bit counters wrap here as FreeBSD's do).
 */
struct pmc_driverstats {
	unsigned int	pm_intr_ignored;	/* overflows not taken */
	unsigned int	pm_intr_processed;	/* overflows handled */
	unsigned int	pm_intr_bufferfull;	/* samples lost: per-CPU ring full */
	unsigned int	pm_syscalls;		/* /dev/pmc ioctls */
	unsigned int	pm_syscall_errors;	/* ... that failed */
	unsigned int	pm_buffer_requests;	/* log buffers requested */
	unsigned int	pm_buffer_requests_failed; /* ... with none free */
	unsigned int	pm_log_sweeps;		/* sample ring drain passes */
	unsigned int	pm_merges;		/* always 0 on Linux */
	unsigned int	pm_overwrites;		/* always 0 on Linux */
	unsigned int	pm_ring_dropped;	/* Linux: records lost, mmap ring full */
	unsigned int	pm_log_buffer_kbytes;	/* Linux: KiB in log buffers now */
};

/* FreeBSD's API (version node PMC_1.0). */
int	pmc_init(void);
int	pmc_allocate(const char *_ctrspec, enum pmc_mode _mode, uint32_t _flags,
	    int _cpu, pmc_id_t *_pmcid, uint64_t _count);
int	pmc_attach(pmc_id_t _pmcid, pid_t _pid);
int	pmc_detach(pmc_id_t _pmcid, pid_t _pid);
int	pmc_release(pmc_id_t _pmc);
int	pmc_start(pmc_id_t _pmc);
int	pmc_stop(pmc_id_t _pmc);
int	pmc_read(pmc_id_t _pmc, pmc_value_t *_value);
int	pmc_write(pmc_id_t _pmc, pmc_value_t _value);
int	pmc_rw(pmc_id_t _pmc, pmc_value_t _newvalue, pmc_value_t *_oldvalue);
int	pmc_set(pmc_id_t _pmc, pmc_value_t _value);
int	pmc_capabilities(pmc_id_t _pmc, uint32_t *_caps);
int	pmc_configure_logfile(int _fd);
int	pmc_flush_logfile(void);
int	pmc_close_logfile(void);
int	pmc_writelog(uint32_t _udata);
int	pmc_get_msr(pmc_id_t _pmc, uint32_t *_msr);
int	pmc_cpuinfo(const struct pmc_cpuinfo **_cpu_info);
int	pmc_pmcinfo(int _cpu, struct pmc_pmcinfo **_pmc_info);
int	pmc_get_driver_stats(struct pmc_driverstats *_gms);
int	pmc_ncpu(void);
int	pmc_npmc(int _cpu);
int	pmc_width(pmc_id_t _pmc, uint32_t *_width);
int	pmc_enable(int _cpu, int _pmc);
int	pmc_disable(int _cpu, int _pmc);
int	pmc_event_names_of_class(enum pmc_class _cl, const char ***_eventnames,
	    int *_nevents);
const char *pmc_name_of_capability(enum pmc_caps _c);
const char *pmc_name_of_class(enum pmc_class _pc);
const char *pmc_name_of_cputype(enum pmc_cputype _cp);
const char *pmc_name_of_disposition(enum pmc_disp _pd);
const char *pmc_name_of_event(enum pmc_event _pe);
const char *pmc_name_of_mode(enum pmc_mode _pm);
const char *pmc_name_of_state(enum pmc_state _ps);

/*
 * Linux extensions (version node PMC_LINUX_1.0), for what the /dev/pmc ABI
 * adds to hwpmc's; pmc(3) documents them.
 */

/* Attach/detach a virtual PMC to one thread (0 = the caller's thread). */
int	pmc_attach_thread(pmc_id_t _pmcid, pid_t _tid, uint32_t _flags);
int	pmc_detach_thread(pmc_id_t _pmcid, pid_t _tid);
/* Read _n (<= PMC_READSET_MAX) PMCs at one CLOCK_MONOTONIC instant (ns). */
int	pmc_read_set(unsigned int _n, const pmc_id_t *_ids, pmc_value_t *_values,
	    uint64_t *_timestamp);
/*
 * The two halves of pmc_allocate(): encode an event specifier into a request
 * (pm_caps, pm_class, pm_ev, pm_md, pm_mode; everything else zero), and issue
 * a request filled by the caller (pm_flags, pm_cpu, pm_count, pm_group,
 * pm_snapshot_us, pm_signo). The new id is stored in _req->pm_pmcid.
 */
int	pmc_parse_spec(const char *_ctrspec, enum pmc_mode _mode,
	    struct pmc_op_pmcallocate *_req);
int	pmc_allocate_request(struct pmc_op_pmcallocate *_req);
/*
 * The self-read page of set _group (<pmc/ring.h>): the PMCs with that
 * pm_group attached in thread scope to the calling thread, read without a
 * system call (falling back to PMCREADSET for those the page cannot give).
 * Valid in the thread that mapped it only.
 */
struct pmc_selfread_page;
const struct pmc_selfread_page *pmc_selfread_map(uint32_t _group);
int	pmc_selfread(const struct pmc_selfread_page *_page, unsigned int _n,
	    const pmc_id_t *_ids, pmc_value_t *_values);
int	pmc_selfread_unmap(const struct pmc_selfread_page *_page);

#ifdef __cplusplus
}
#endif

#endif /* !_PMC_H_ */
