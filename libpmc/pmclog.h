/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmclog.h - FreeBSD's pmclog(3) on Linux: parse the records pmc.ko writes
 * (<pmc/pmclog.h>) from a log file, a pipe, bytes fed by the caller, or the
 * mmap'd record ring of /dev/pmc. Link with -lpmc.
 */
#ifndef _PMCLOG_H_
#define _PMCLOG_H_

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <pmc.h>
#include <pmc/pmclog.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMCLOG_FD_NONE		(-1)
#define PMCLOG_COMM_LEN		24	/* pl_pcomm, pl_tdname */

enum pmclog_state {
	PMCLOG_OK,
	PMCLOG_EOF,
	PMCLOG_REQUIRE_DATA,
	PMCLOG_ERROR,
};

struct pmclog_ev_callchain {
	uint32_t	pl_pid;
	uint32_t	pl_tid;
	uint32_t	pl_pmcid;
	uint32_t	pl_cpuflags;
	uint32_t	pl_cpuflags2;	/* always 0 on Linux */
	uint32_t	pl_npc;
	uint64_t	pl_pc[PMC_CALLCHAIN_DEPTH_MAX];
};

struct pmclog_ev_dropnotify {
	uint64_t	pl_records;	/* Linux: records lost */
	uint64_t	pl_samples;	/* Linux: samples lost */
};

struct pmclog_ev_closelog {
	char		pl_unused;	/* no fields */
};

struct pmclog_ev_initialize {
	uint32_t	pl_version;
	uint32_t	pl_arch;	/* enum pmc_cputype */
	uint64_t	pl_tsc_freq;	/* timestamp units per second: 1e9 */
	struct timespec	pl_ts;		/* CLOCK_REALTIME when the log started */
	uint64_t	pl_ts_mono;	/* Linux: CLOCK_MONOTONIC ns of that instant */
	char		pl_cpuid[PATH_MAX];
};

struct pmclog_ev_map_in {
	pid_t		pl_pid;
	uint64_t	pl_start;
	uint64_t	pl_end;		/* Linux */
	uint64_t	pl_pgoff;	/* Linux: file offset of pl_start */
	char		pl_pathname[PATH_MAX];
};

struct pmclog_ev_map_out {
	pid_t		pl_pid;
	uint64_t	pl_start;
	uint64_t	pl_end;
};

struct pmclog_ev_pmcallocate {
	uint32_t	pl_event;
	const char	*pl_evname;	/* pmc_name_of_event(pl_event) */
	uint32_t	pl_flags;
	pmc_id_t	pl_pmcid;
	pmc_value_t	pl_rate;
	uint32_t	pl_class;	/* Linux: enum pmc_class */
	uint32_t	pl_type;	/* Linux: perf descriptor type ... */
	uint64_t	pl_config;	/* ... and config */
};

struct pmclog_ev_pmcallocatedyn {
	uint32_t	pl_event;
	char		pl_evname[PMC_NAME_MAX];
	uint32_t	pl_flags;
	pmc_id_t	pl_pmcid;
	pmc_value_t	pl_rate;	/* Linux */
	uint32_t	pl_class;	/* Linux */
};

struct pmclog_ev_pmcattach {
	pmc_id_t	pl_pmcid;
	pid_t		pl_pid;
	char		pl_pathname[PATH_MAX];
};

struct pmclog_ev_pmcdetach {
	pmc_id_t	pl_pmcid;
	pid_t		pl_pid;
};

struct pmclog_ev_proccsw {
	pid_t		pl_pid;
	pmc_id_t	pl_pmcid;
	pmc_value_t	pl_value;
	pid_t		pl_tid;
};

struct pmclog_ev_proccreate {
	pid_t		pl_pid;
	uint32_t	pl_flags;
	char		pl_pcomm[PMCLOG_COMM_LEN];
};

struct pmclog_ev_procexec {
	pid_t		pl_pid;
	pmc_id_t	pl_pmcid;
	uint64_t	pl_baseaddr;
	uint64_t	pl_dynaddr;
	char		pl_pathname[PATH_MAX];
};

struct pmclog_ev_procexit {
	uint32_t	pl_pid;
	pmc_id_t	pl_pmcid;
	pmc_value_t	pl_value;
};

struct pmclog_ev_procfork {
	pid_t		pl_oldpid;
	pid_t		pl_newpid;
};

struct pmclog_ev_sysexit {
	pid_t		pl_pid;
};

struct pmclog_ev_threadcreate {
	pid_t		pl_tid;
	pid_t		pl_pid;
	int		pl_flags;
	char		pl_tdname[PMCLOG_COMM_LEN];
};

struct pmclog_ev_threadexit {
	pid_t		pl_tid;
};

struct pmclog_ev_userdata {
	uint32_t	pl_userdata;
};

/*
 * Linux: SNAPSHOT, the value of one PMC_F_SNAPSHOT PMC: the periodic value of
 * a group-0 PMC, or any such PMC's last value at stop.
 */
struct pmclog_ev_snapshot {
	pmc_id_t	pl_pmcid;
	uint32_t	pl_group;
	uint32_t	pl_cpu;
	pid_t		pl_tid;
	pmc_value_t	pl_value;
};

/*
 * Linux: SNAPSET, the values of the PMC_F_SNAPSHOT PMCs of one set (pl_group,
 * not 0) at one instant. pl_entries points into the parser's copy of the
 * record: valid until the next pmclog_read().
 */
struct pmclog_ev_snapset {
	uint32_t	pl_group;
	uint32_t	pl_cpu;
	pid_t		pl_tid;
	uint32_t	pl_nentries;
	const struct pmclog_snapset_entry *pl_entries;
};

/*
 * Linux: OVERFLOW, a PMC_F_OVF_SIGNAL set stopped. pl_entries points into the
 * parser's copy of the record: valid until the next pmclog_read().
 */
struct pmclog_ev_overflow {
	uint32_t	pl_group;
	pid_t		pl_tid;
	pid_t		pl_pid;
	uint32_t	pl_nentries;
	uint64_t	pl_ip;
	const struct pmclog_overflow_entry *pl_entries;
};

struct pmclog_ev {
	enum pmclog_state pl_state;	/* why pmclog_read() returned -1 */
	off_t		pl_offset;	/* offset of the record in the stream */
	size_t		pl_count;	/* records read so far, this one included */
	struct timespec	pl_ts;		/* CLOCK_MONOTONIC time of the record */
	enum pmclog_type pl_type;
	void		*pl_data;	/* the raw record, valid until the next read */
	int		pl_len;		/* its length in bytes */
	uint32_t	pl_seq;		/* Linux: the owner's record sequence number */
	uint64_t	pl_tsc;		/* Linux: the raw timestamp (ns) */
	union {
		struct pmclog_ev_callchain	pl_cc;
		struct pmclog_ev_closelog	pl_cl;
		struct pmclog_ev_dropnotify	pl_dn;
		struct pmclog_ev_initialize	pl_i;
		struct pmclog_ev_map_in		pl_mi;
		struct pmclog_ev_map_out	pl_mo;
		struct pmclog_ev_pmcallocate	pl_a;
		struct pmclog_ev_pmcallocatedyn	pl_ad;
		struct pmclog_ev_pmcattach	pl_t;
		struct pmclog_ev_pmcdetach	pl_d;
		struct pmclog_ev_proccsw	pl_c;
		struct pmclog_ev_proccreate	pl_pc;
		struct pmclog_ev_procexec	pl_x;
		struct pmclog_ev_procexit	pl_e;
		struct pmclog_ev_procfork	pl_f;
		struct pmclog_ev_sysexit	pl_se;
		struct pmclog_ev_threadcreate	pl_tc;
		struct pmclog_ev_threadexit	pl_te;
		struct pmclog_ev_userdata	pl_u;
		struct pmclog_ev_snapshot	pl_s;	/* Linux */
		struct pmclog_ev_overflow	pl_o;	/* Linux */
		struct pmclog_ev_snapset	pl_ss;	/* Linux */
	} pl_u;
};

/* FreeBSD's API (version node PMC_1.0). */
void	*pmclog_open(int _fd);
int	pmclog_feed(void *_cookie, char *_data, int _len);
int	pmclog_read(void *_cookie, struct pmclog_ev *_ev);
void	pmclog_close(void *_cookie);

/* Linux extensions (version node PMC_LINUX_1.0); pmclog(3) documents them. */

/*
 * Map the owner's record ring of /dev/pmc (1 control page + _data_pages, a
 * power of two) and parse it with pmclog_read(), which returns -1 with
 * PMCLOG_REQUIRE_DATA when the ring is empty. _fd is a /dev/pmc descriptor
 * of the calling process, or PMCLOG_FD_NONE for libpmc's own (pmc_init()).
 */
void	*pmclog_open_ring(int _fd, size_t _data_pages);
/*
 * Wait until at least _min_bytes (0: any) are readable in the ring or
 * _timeout_ms passes (-1: forever): 1 readable, 0 timeout, -1 error.
 */
int	pmclog_ring_wait(void *_cookie, size_t _min_bytes, int _timeout_ms);
/* Why the last pmclog_read() failed, in words ("" if it did not). */
const char *pmclog_error(void *_cookie);

#ifdef __cplusplus
}
#endif

#endif /* !_PMCLOG_H_ */
