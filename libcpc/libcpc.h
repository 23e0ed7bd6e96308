/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libcpc.h - the illumos CPU Performance Counters library, v2 API, on Linux
 * (/dev/pmc). Source-compatible with illumos <libcpc.h>; the Linux
 * differences are marked "Linux:" and described in libcpc(3).
 */
#ifndef _LIBCPC_H
#define _LIBCPC_H

#include <sys/types.h>
#include <inttypes.h>
#include <stdarg.h>
#include <signal.h>
#include <ucontext.h>
#include <libpctx.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Solaris types the API uses. */
#ifndef _LIBCPC_SOLARIS_TYPES
#define _LIBCPC_SOLARIS_TYPES
typedef unsigned int uint_t;
typedef long long hrtime_t;	/* nanoseconds, CLOCK_MONOTONIC on Linux */
typedef int processorid_t;
#endif /* _LIBCPC_SOLARIS_TYPES */

/* <sys/cpc_impl.h> */
typedef struct {
	char		*ca_name;	/* attribute name, e.g. "umask" */
	uint64_t	ca_val;		/* value */
} cpc_attr_t;

/* Set flags of the bind calls. */
#define CPC_BIND_LWP_INHERIT	(0x1)
#define CPC_BIND_EMT_OVF	(0x2)	/* v1 only: not accepted by v2 binds */

#define CPC_MAX_IMPL_NAME	512	/* longest cpc_cciname() string */
#define CPC_MAX_CPUREF		1024	/* longest cpc_cpuref() string */

/* Request flags (cpc_set_add_request). */
#define CPC_OVF_NOTIFY_EMT	0x1
#define CPC_COUNT_USER		0x2
#define CPC_COUNT_SYSTEM	0x4
#define CPC_COUNT_HV		0x8	/* sun4v only: refused on Linux */
#define KCPC_REQ_ALL_FLAGS	(CPC_OVF_NOTIFY_EMT | CPC_COUNT_USER | \
				 CPC_COUNT_SYSTEM | CPC_COUNT_HV)
#define KCPC_REQ_VALID_FLAGS(flags) \
	(((flags) | KCPC_REQ_ALL_FLAGS) == KCPC_REQ_ALL_FLAGS)

/* Capabilities (cpc_caps). */
#define CPC_CAP_OVERFLOW_INTERRUPT	0x1
#define CPC_CAP_OVERFLOW_PRECISE	0x2

#define CPC_SET_ALL_FLAGS	0x1
#define CPC_SET_VALID_FLAGS(flags) \
	(((flags) | CPC_SET_ALL_FLAGS) == CPC_SET_ALL_FLAGS)

#define CPC_MAX_EVENT_LEN	512	/* event names are truncated to this */
#define CPC_MAX_ATTR_LEN	32	/* attribute names are truncated to this */

/* Subcodes given to the error handler. */
#define CPC_INVALID_EVENT		1
#define CPC_INVALID_PICNUM		2
#define CPC_INVALID_ATTRIBUTE		3
#define CPC_ATTRIBUTE_OUT_OF_RANGE	4
#define CPC_RESOURCE_UNAVAIL		5
#define CPC_PIC_NOT_CAPABLE		6
#define CPC_REQ_INVALID_FLAGS		7
#define CPC_CONFLICTING_REQS		8
#define CPC_ATTR_REQUIRES_PRIVILEGE	9
#define CPC_PBIND_FAILED		10
#define CPC_HV_NO_ACCESS		11

#define CPC_VER_CURRENT		2
#define CPC_VER_NONE		0

/*
 * Linux: x86 and arm64 Linux have no SIGEMT. libcpc delivers the overflow
 * signal of CPC_OVF_NOTIFY_EMT as SIGIO, and SIGEMT is SIGIO: a constant,
 * the same in every process, so `case SIGEMT:` compiles.
 * cpc_set_ovf_signal() picks another signal for one handle (for a program
 * that uses SIGIO itself). The handler sees si_code == EMT_CPCOVF (1, as
 * on illumos x86; POLL_IN to Linux) and in si_addr the user PC where the
 * counter overflowed.
 */
#ifndef SIGEMT
#define SIGEMT		SIGIO
#define _LIBCPC_SIGEMT_IS_LINUX	1
#endif /* !SIGEMT */
#ifndef EMT_CPCOVF
#define EMT_CPCOVF	1
#endif /* !EMT_CPCOVF */

typedef struct __cpc cpc_t;
typedef struct __cpc_set cpc_set_t;
typedef struct __cpc_buf cpc_buf_t;

/* The error handler: fn is the libcpc function, fmt the message. */
typedef void (cpc_errhndlr_t)(const char *fn, int subcode, const char *fmt,
    va_list ap);

/* The handle. */
extern cpc_t *cpc_open(int ver);
extern int cpc_close(cpc_t *cpc);

/* Processor information. */
extern uint_t cpc_npic(cpc_t *cpc);
extern uint_t cpc_caps(cpc_t *cpc);
extern const char *cpc_cciname(cpc_t *cpc);
extern const char *cpc_cpuref(cpc_t *cpc);

extern int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn);

/* Sets and requests. */
extern cpc_set_t *cpc_set_create(cpc_t *cpc);
extern int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set);
extern int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
    uint64_t preset, uint_t flags, uint_t nattrs, const cpc_attr_t *attrs);
extern void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
    void (*action)(void *arg, int index, const char *event, uint64_t preset,
    uint_t flags, int nattrs, const cpc_attr_t *attrs));

/* Binding. */
extern int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags);
extern int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set,
    uint_t flags);
extern int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set,
    uint_t flags);
extern int cpc_unbind(cpc_t *cpc, cpc_set_t *set);
extern int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset);
extern int cpc_set_restart(cpc_t *cpc, cpc_set_t *set);
extern int cpc_enable(cpc_t *cpc);
extern int cpc_disable(cpc_t *cpc);

/* Buffers and sampling. */
extern cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set);
extern int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf);
extern int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf);
extern int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val);
extern int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val);
extern hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf);
extern uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf);
extern void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a,
    cpc_buf_t *b);
extern void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a,
    cpc_buf_t *b);
extern void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src);
extern void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf);

/* Event and attribute discovery. */
extern void cpc_walk_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event));
extern void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event));
extern void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event));
extern void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event));
extern void cpc_walk_attrs(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *attr));

/* Private (cputrack): make pctx_run() of the handle's pctx return. */
extern void cpc_terminate(cpc_t *cpc);

/*
 * Linux extensions (version node LIBCPC_LINUX_1.0).
 *
 * cpc_sigemt: the default overflow signal, SIGEMT.
 * cpc_set_ovf_signal: the signal this handle's later binds deliver on
 *   overflow (1 .. SIGRTMAX, not SIGKILL/SIGSTOP); returns 0 or -1/EINVAL.
 * cpc_ovf_signal: the handle's overflow signal.
 * cpc_set_tick_unit: the unit of cpc_buf_tick() for a bound set:
 *   CPC_TICK_CYCLES (a hardware cycle counter) or CPC_TICK_NSEC (the set's
 *   on-CPU time in nanoseconds, where no cycle counter could be used);
 *   -1/EINVAL for a set that is not bound.
 */
#define CPC_TICK_CYCLES		1
#define CPC_TICK_NSEC		2
extern int cpc_sigemt(void);
extern int cpc_set_ovf_signal(cpc_t *cpc, int signo);
extern int cpc_ovf_signal(cpc_t *cpc);
extern int cpc_set_tick_unit(cpc_t *cpc, cpc_set_t *set);

/*
 * Linux extensions (version node LIBCPC_LINUX_1.1): the driver's mmap'd
 * ring and self-read page.
 *
 * cpc_set_sample_period: before binding, ask for a snapshot of the whole
 *   set every @usec microseconds (0: none; else at least
 *   CPC_SAMPLE_PERIOD_MIN), written by the kernel into the handle's ring
 *   with the kernel's timestamp: on the counted CPU for cpc_bind_cpu, at
 *   the target's context switches for the thread binds. A bind with a
 *   period fails with ENOTSUP where the driver cannot snapshot.
 * cpc_snapshot_next: the oldest snapshot of @set not yet taken, in @buf
 *   (values, tick, and hrtime = the kernel's timestamp); -1/EAGAIN when
 *   none is ready, ENOTSUP for a set bound without a period.
 * cpc_snapshot_fd: a descriptor that poll(2) reports readable (POLLIN)
 *   when the ring holds news; -1/ENOTSUP before a bind used the ring.
 * cpc_snapshot_lost: snapshots of @set lost so far (queue full, or a
 *   record dropped by a full ring).
 * cpc_buf_overflowed: after cpc_set_sample() of a set stopped by an
 *   overflow (CPC_OVF_NOTIFY_EMT), the index of the lowest request that
 *   overflowed, with *mask (if not NULL) the bit (1 << index) of each;
 *   -1/ENOENT if none did.
 * cpc_set_selfread: for a set bound to the calling thread, turn the
 *   self-read page off (0) or on (1), or ask (-1); returns the previous
 *   state (0 or 1), or -1 (EINVAL; ENOTSUP: the driver has no page).
 */
#define CPC_SAMPLE_PERIOD_MIN	1000	/* microseconds */
extern int cpc_set_sample_period(cpc_t *cpc, cpc_set_t *set, uint64_t usec);
extern int cpc_snapshot_next(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf);
extern int cpc_snapshot_fd(cpc_t *cpc);
extern int cpc_snapshot_lost(cpc_t *cpc, cpc_set_t *set, uint64_t *lost);
extern int cpc_buf_overflowed(cpc_t *cpc, cpc_buf_t *buf, uint64_t *mask);
extern int cpc_set_selfread(cpc_t *cpc, cpc_set_t *set, int on);

#ifdef __cplusplus
}
#endif

#endif /* _LIBCPC_H */
