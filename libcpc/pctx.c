// SPDX-License-Identifier: BSD-2-Clause
/*
 * pctx.c - the libpctx subset libcpc provides for cpc_bind_pctx() and
 * cputrack-style tools, without /proc agent LWPs or ptrace:
 *
 *  - pctx_create() forks a child that waits, before exec, until pctx_run()
 *    has called the init_lwp handler (so counters bound there see the whole
 *    program); pctx_capture() names a running process;
 *  - pctx_run() calls init_lwp for each thread it finds (the initial thread
 *    first), tick every msec milliseconds for each thread, init_lwp and
 *    lwp_create for threads that appear, fini_lwp and lwp_exit for threads
 *    that vanish, and fini_lwp for every thread then exit when the process
 *    ends. Threads are found by polling /proc/<pid>/task, so short-lived
 *    threads may be missed. exec and fork events are not reported.
 *  - LWP ids are Linux thread ids (the initial thread's is the pid).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libcpc_impl.h"

#define PCTX_MAGIC	0x50435458U	/* "PCTX" */

struct __pctx {
	uint32_t	magic;
	pid_t		pid;
	bool		created;	/* our child: we reap it */
	bool		released;	/* the child was let go to exec */
	int		go_fd;		/* created: write end of the start pipe */
	void		*arg;
	int		verbose;
	pctx_errfn_t	*errfn;
	volatile sig_atomic_t terminate;
	pctx_sysc_exitfn_t *exit_fn;
	pctx_sysc_lwp_createfn_t *lwp_create_fn;
	pctx_init_lwpfn_t *init_lwp_fn;
	pctx_fini_lwpfn_t *fini_lwp_fn;
	pctx_sysc_lwp_exitfn_t *lwp_exit_fn;
	pid_t		*tids;		/* threads init_lwp was called for */
	size_t		ntids;
};

static void pctx_error(pctx_t *pctx, const char *fn, const char *fmt, ...)
{
	va_list ap;

	if (!pctx->verbose && !pctx->errfn)
		return;
	va_start(ap, fmt);
	if (pctx->errfn) {
		pctx->errfn(fn, fmt, ap);
	} else {
		fprintf(stderr, "libpctx: %s: ", fn);
		vfprintf(stderr, fmt, ap);
	}
	va_end(ap);
}

pid_t cpc_pctx_pid(const pctx_t *pctx)
{
	return pctx && pctx->magic == PCTX_MAGIC ? pctx->pid : -1;
}

static pctx_t *pctx_alloc(void *arg, int verbose, pctx_errfn_t *errfn)
{
	pctx_t *pctx = calloc(1, sizeof(*pctx));

	if (!pctx)
		return NULL;
	pctx->magic = PCTX_MAGIC;
	pctx->go_fd = -1;
	pctx->arg = arg;
	pctx->verbose = verbose;
	pctx->errfn = errfn;
	return pctx;
}

pctx_t *pctx_create(const char *filename, char *const *argv, void *arg,
		    int verbose, pctx_errfn_t *errfn)
{
	pctx_t *pctx;
	int fds[2];
	char go;
	pid_t pid;

	if (!filename || !argv) {
		errno = EINVAL;
		return NULL;
	}
	pctx = pctx_alloc(arg, verbose, errfn);
	if (!pctx)
		return NULL;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(pctx);
		return NULL;
	}
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free(pctx);
		return NULL;
	}
	if (pid == 0) {
		/* Wait for pctx_run(); end if the controller lets go first. */
		close(fds[1]);
		if (read(fds[0], &go, 1) != 1)
			_exit(127);
		close(fds[0]);
		execvp(filename, argv);
		_exit(127);
	}
	close(fds[0]);
	pctx->pid = pid;
	pctx->created = true;
	pctx->go_fd = fds[1];
	return pctx;
}

pctx_t *pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn)
{
	pctx_t *pctx;

	if (pid <= 0) {
		errno = EINVAL;
		return NULL;
	}
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return NULL;
	pctx = pctx_alloc(arg, verbose, errfn);
	if (pctx)
		pctx->pid = pid;
	return pctx;
}

int pctx_set_events(pctx_t *pctx, ...)
{
	pctx_event_t ev;
	va_list ap;
	int ret = 0;

	if (!pctx || pctx->magic != PCTX_MAGIC) {
		errno = EINVAL;
		return -1;
	}
	va_start(ap, pctx);
	while ((ev = va_arg(ap, pctx_event_t)) != PCTX_NULL_EVENT) {
		switch (ev) {
		case PCTX_SYSC_EXIT_EVENT:
			pctx->exit_fn = va_arg(ap, pctx_sysc_exitfn_t *);
			break;
		case PCTX_SYSC_LWP_CREATE_EVENT:
			pctx->lwp_create_fn =
				va_arg(ap, pctx_sysc_lwp_createfn_t *);
			break;
		case PCTX_INIT_LWP_EVENT:
			pctx->init_lwp_fn = va_arg(ap, pctx_init_lwpfn_t *);
			break;
		case PCTX_FINI_LWP_EVENT:
			pctx->fini_lwp_fn = va_arg(ap, pctx_fini_lwpfn_t *);
			break;
		case PCTX_SYSC_LWP_EXIT_EVENT:
			pctx->lwp_exit_fn = va_arg(ap, pctx_sysc_lwp_exitfn_t *);
			break;
		case PCTX_SYSC_EXEC_EVENT:
		case PCTX_SYSC_FORK_EVENT:
			/* Not observable without tracing: refused. */
			(void)va_arg(ap, void *);
			pctx_error(pctx, "pctx_set_events",
				   "exec and fork events are not supported\n");
			errno = ENOTSUP;
			ret = -1;
			break;
		default:
			pctx_error(pctx, "pctx_set_events",
				   "unknown event %d\n", (int)ev);
			errno = EINVAL;
			va_end(ap);
			return -1;
		}
	}
	va_end(ap);
	return ret;
}

static bool has_tid(const pctx_t *pctx, pid_t tid)
{
	size_t i;

	for (i = 0; i < pctx->ntids; i++)
		if (pctx->tids[i] == tid)
			return true;
	return false;
}

/* The threads of the process now, the initial one first. */
static int list_threads(pid_t pid, pid_t **out, size_t *n)
{
	char path[64];
	struct dirent *de;
	pid_t *tids = NULL, *t;
	size_t cnt = 0, cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0)
			continue;
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			t = realloc(tids, cap * sizeof(*t));
			if (!t) {
				free(tids);
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
			tids = t;
		}
		tids[cnt++] = tid;
		if (tid == pid) {
			tids[cnt - 1] = tids[0];
			tids[0] = pid;
		}
	}
	closedir(d);
	*out = tids;
	*n = cnt;
	return 0;
}

static int track_tid(pctx_t *pctx, pid_t tid)
{
	pid_t *t = realloc(pctx->tids, (pctx->ntids + 1) * sizeof(*t));

	if (!t)
		return -1;
	pctx->tids = t;
	pctx->tids[pctx->ntids++] = tid;
	return 0;
}

/* Report threads that appeared or vanished. Returns -1 to stop. */
static int sync_threads(pctx_t *pctx, bool first)
{
	pid_t *now = NULL;
	size_t n = 0, i, j;

	if (list_threads(pctx->pid, &now, &n) < 0)
		return 0;	/* the process is gone: the caller sees it */
	for (i = 0; i < n; i++) {
		if (has_tid(pctx, now[i]))
			continue;
		if (track_tid(pctx, now[i]) < 0)
			break;
		if (pctx->init_lwp_fn &&
		    pctx->init_lwp_fn(pctx, pctx->pid, now[i], pctx->arg) < 0)
			goto stop;
		if (!first && pctx->lwp_create_fn &&
		    pctx->lwp_create_fn(pctx, pctx->pid, now[i],
					pctx->arg) < 0)
			goto stop;
	}
	for (j = 0; j < pctx->ntids;) {
		bool alive = false;

		for (i = 0; i < n && !alive; i++)
			alive = now[i] == pctx->tids[j];
		if (alive) {
			j++;
			continue;
		}
		if (pctx->fini_lwp_fn)
			pctx->fini_lwp_fn(pctx, pctx->pid, pctx->tids[j],
					  pctx->arg);
		if (pctx->lwp_exit_fn)
			pctx->lwp_exit_fn(pctx, pctx->pid, pctx->tids[j],
					  pctx->arg);
		pctx->tids[j] = pctx->tids[--pctx->ntids];
	}
	free(now);
	return 0;
stop:
	free(now);
	return -1;
}

/* Has the process ended? Reaps our own child and gives its status. */
static bool process_ended(pctx_t *pctx, int *status)
{
	char path[64], buf[512], *p;
	int fd;
	ssize_t len;

	*status = 0;
	if (pctx->created)
		return waitpid(pctx->pid, status, WNOHANG) == pctx->pid;
	if (kill(pctx->pid, 0) < 0 && errno == ESRCH)
		return true;
	/* A zombie has ended too: state 'Z' after the command name. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pctx->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return true;
	buf[len] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void finish(pctx_t *pctx, int status)
{
	size_t i;

	for (i = 0; i < pctx->ntids; i++)
		if (pctx->fini_lwp_fn)
			pctx->fini_lwp_fn(pctx, pctx->pid, pctx->tids[i],
					  pctx->arg);
	pctx->ntids = 0;
	if (pctx->exit_fn)
		pctx->exit_fn(pctx, pctx->pid, pctx->pid, status, pctx->arg);
}

int pctx_run(pctx_t *pctx, unsigned int msec, unsigned int nsamples,
	     int (*tick)(pctx_t *, pid_t, id_t, void *))
{
	unsigned int samples = 0, waited = 0;
	const unsigned int poll_ms = 10;
	int status;
	size_t i;

	if (!pctx || pctx->magic != PCTX_MAGIC) {
		errno = EINVAL;
		return -1;
	}
	if (pctx->created && !pctx->released) {
		/* Only the initial thread exists: init it, then let it exec. */
		if (pctx->init_lwp_fn &&
		    pctx->init_lwp_fn(pctx, pctx->pid, pctx->pid, pctx->arg) < 0)
			return -1;
		if (track_tid(pctx, pctx->pid) < 0)
			return -1;
		if (write(pctx->go_fd, "g", 1) != 1)
			return -1;
		close(pctx->go_fd);
		pctx->go_fd = -1;
		pctx->released = true;
	} else if (sync_threads(pctx, true) < 0) {
		return -1;
	}

	while (!pctx->terminate) {
		if (process_ended(pctx, &status)) {
			finish(pctx, status);
			return 0;
		}
		if (sync_threads(pctx, false) < 0)
			return -1;
		sleep_ms(msec && msec < poll_ms ? msec : poll_ms);
		waited += msec && msec < poll_ms ? msec : poll_ms;
		if (!msec || waited < msec)
			continue;
		waited = 0;
		for (i = 0; tick && i < pctx->ntids; i++)
			if (tick(pctx, pctx->pid, pctx->tids[i], pctx->arg) < 0)
				return -1;
		if (nsamples && ++samples >= nsamples)
			return 0;
	}
	return 0;
}

void pctx_terminate(pctx_t *pctx)
{
	if (pctx && pctx->magic == PCTX_MAGIC)
		pctx->terminate = 1;
}

void pctx_release(pctx_t *pctx)
{
	int status;

	if (!pctx || pctx->magic != PCTX_MAGIC)
		return;
	if (pctx->created && !pctx->released) {
		/* Never started: it ends at once when the pipe closes. */
		close(pctx->go_fd);
		waitpid(pctx->pid, &status, 0);
	}
	free(pctx->tids);
	pctx->magic = 0;
	free(pctx);
}

void cpc_pctx_terminate_all(cpc_t *cpc)
{
	cpc_set_t *set;

	for (set = cpc->sets; set; set = set->next)
		if (set->pctx)
			pctx_terminate(set->pctx);
}
