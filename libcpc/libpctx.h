/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpctx.h - the subset of illumos libpctx (process contexts) that
 * cpc_bind_pctx() and cputrack-style tools need, implemented in libcpc
 * without /proc agent LWPs: see pctx_capture(3CPC) for what is supported.
 */
#ifndef _LIBPCTX_H
#define _LIBPCTX_H

#include <sys/types.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* id_t is POSIX (XSI): provide it to strict ISO C programs too (glibc). */
#if defined(__GLIBC__) && !defined(__id_t_defined)
typedef __id_t id_t;
#define __id_t_defined
#endif /* __GLIBC__ && !__id_t_defined */

typedef struct __pctx pctx_t;

typedef void (pctx_errfn_t)(const char *fn, const char *fmt, va_list ap);

typedef enum {
	PCTX_NULL_EVENT = 0,
	PCTX_SYSC_EXEC_EVENT,
	PCTX_SYSC_FORK_EVENT,
	PCTX_SYSC_EXIT_EVENT,
	PCTX_SYSC_LWP_CREATE_EVENT,
	PCTX_INIT_LWP_EVENT,
	PCTX_FINI_LWP_EVENT,
	PCTX_SYSC_LWP_EXIT_EVENT
} pctx_event_t;

typedef int pctx_sysc_execfn_t(pctx_t *, pid_t, id_t, char *, void *);
typedef void pctx_sysc_forkfn_t(pctx_t *, pid_t, id_t, pid_t, void *);
typedef void pctx_sysc_exitfn_t(pctx_t *, pid_t, id_t, int, void *);
typedef int pctx_sysc_lwp_createfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_init_lwpfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_fini_lwpfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_sysc_lwp_exitfn_t(pctx_t *, pid_t, id_t, void *);

extern pctx_t *pctx_create(const char *filename, char *const *argv,
    void *arg, int verbose, pctx_errfn_t *errfn);
extern pctx_t *pctx_capture(pid_t pid, void *arg, int verbose,
    pctx_errfn_t *errfn);
extern int pctx_set_events(pctx_t *pctx, ...);
extern int pctx_run(pctx_t *pctx, unsigned int msec, unsigned int nsamples,
    int (*tick)(pctx_t *, pid_t, id_t, void *));
extern void pctx_release(pctx_t *pctx);
extern void pctx_terminate(pctx_t *pctx);

#ifdef __cplusplus
}
#endif

#endif /* _LIBPCTX_H */
