// SPDX-License-Identifier: GPL-2.0
/*
 * track.c - cpcstat track, alias cputrack: counts of one command or process
 * per thread (LWP), as illumos cputrack(1) prints them: a tick line per LWP
 * every interval, lwp_create/lwp_exit/exit lines, exec (-e follows it) and
 * fork (-f follows the children) markers.
 *
 * libcpc's libpctx subset cannot report exec and fork, so the process control
 * is done here with ptrace (PTRACE_SEIZE and the CLONE/FORK/VFORK/EXEC/EXIT
 * events): every new thread is stopped until its counters are bound, so
 * nothing it does goes uncounted. Counters are bound with cpc_bind_pctx() on
 * a pctx_capture() handle naming the process; libcpc counts the thread with
 * a thread-scope PMC.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpc_common.h"
#include "cpcstat.h"

struct proc;

struct lwp {
	pid_t tid;
	struct proc *proc;
	cpc_set_t **sets;
	cpc_buf_t **base, **now, **diff;
	uint64_t **tot;			/* per set: this LWP's totals */
	uint64_t *tot_tick;
	int cur;			/* bound set, -1 if none */
	bool started;			/* its first stop was seen and resumed */
	bool exiting;			/* PTRACE_EVENT_EXIT seen */
	struct lwp *next;
};

struct proc {
	pid_t pid;
	pctx_t *pctx;
	bool created;			/* our command: killed with us */
	bool exec_pending;		/* created: bind at the initial exec */
	uint64_t **tot;			/* per set: the process's totals */
	uint64_t *tot_tick;
	hrtime_t origin;		/* time 0 of its lines */
	unsigned long ticks;
	struct proc *next;
};

struct track {
	struct cpc_opts c;
	cpc_t *cpc;
	double interval;		/* -T, seconds; 0 = no ticks */
	unsigned long nsamples;		/* -N, 0 = unlimited */
	bool follow_exec;		/* -e */
	bool follow_fork;		/* -f */
	bool verbose;			/* -v */
	const char *outfile;		/* -o */
	pid_t attach_pid;		/* -p */
	char **argv;
	struct proc *procs;
	struct lwp *lwps;
	pid_t *pending;			/* new tracees stopped before their parent's event */
	unsigned int npending;
	int failed;
};

static const char cputrack_usage[] =
	"Usage:\n"
	"\t%s [-T secs] [-N count] [-Defhnv] [-o file]\n"
	"\t\t-c events [command [args] | -p pid]\n"
	"\n"
	"\t-T secs\t  seconds between samples, default 1\n"
	"\t-N count  number of samples, default unlimited\n"
	"\t-D\t  enable debug mode\n"
	"\t-e\t  follow exec(2), and execve(2)\n"
	"\t-f\t  follow fork(2), fork1(2), and vfork(2)\n"
	"\t-h\t  print extended usage information\n"
	"\t-n\t  suppress titles\n"
	"\t-t\t  include virtualized tsc register\n"
	"\t-v\t  verbose mode\n"
	"\t-o file\t  write cpu statistics to this file\n"
	"\t-c events specify processor events to be monitored\n"
	"\t-p pid\t  pid of existing process to capture\n"
	"%s"
	"\n"
	"\tUse cpustat(8) to monitor system-wide statistics.\n";

/* illumos numbers LWPs from 1: the initial thread is lwp 1, others keep their tid. */
static int lwp_id(const struct lwp *l)
{
	return l->tid == l->proc->pid ? 1 : (int)l->tid;
}

static struct lwp *lwp_find(struct track *t, pid_t tid)
{
	for (struct lwp *l = t->lwps; l; l = l->next)
		if (l->tid == tid)
			return l;
	return NULL;
}

static uint64_t **totals_alloc(const struct track *t)
{
	uint64_t **tot = calloc(t->c.nspecs, sizeof(*tot));

	for (unsigned int k = 0; tot && k < t->c.nspecs; k++) {
		tot[k] = calloc(t->c.specs[k].nreqs ? t->c.specs[k].nreqs : 1, sizeof(uint64_t));
		if (!tot[k])
			return NULL;
	}
	return tot;
}

static void totals_free(const struct track *t, uint64_t **tot)
{
	for (unsigned int k = 0; tot && k < t->c.nspecs; k++)
		free(tot[k]);
	free(tot);
}

static struct proc *proc_new(struct track *t, pid_t pid, hrtime_t origin)
{
	struct proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->origin = origin;
	p->tot = totals_alloc(t);
	p->tot_tick = calloc(t->c.nspecs, sizeof(uint64_t));
	p->pctx = pctx_capture(pid, NULL, 0, NULL);
	if (!p->tot || !p->tot_tick || !p->pctx) {
		totals_free(t, p->tot);
		free(p->tot_tick);
		if (p->pctx)
			pctx_release(p->pctx);
		free(p);
		return NULL;
	}
	p->next = t->procs;
	t->procs = p;
	return p;
}

static void proc_del(struct track *t, struct proc *p)
{
	for (struct proc **pp = &t->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	totals_free(t, p->tot);
	free(p->tot_tick);
	pctx_release(p->pctx);
	free(p);
}

static void print_line(struct track *t, struct proc *p, int lwp, const char *label,
		       const struct spec_set *spec, const uint64_t *vals, uint64_t tick,
		       hrtime_t when)
{
	struct out_sample s = {
		.time = (double)(when - p->origin) / 1e9,
		.pid = p->pid,
		.id = lwp,
		.label = label,
		.tsc = tick,
		.values = vals,
		.set = spec,
	};

	out_sample(&t->c.out, &s);
	fflush(t->c.out.fp);
}

/* Print BUF of set K of L. */
static void print_buf(struct track *t, struct lwp *l, int k, const char *label, cpc_buf_t *buf)
{
	const struct spec_set *spec = &t->c.specs[k];
	uint64_t vals[256];

	for (unsigned int i = 0; i < spec->nreqs && i < 256; i++)
		cpc_buf_get(t->cpc, buf, (int)i, &vals[i]);
	print_line(t, l->proc, lwp_id(l), label, spec, vals, cpc_buf_tick(t->cpc, buf),
		   cpc_buf_hrtime(t->cpc, buf));
}

static int lwp_bind(struct track *t, struct lwp *l, int k)
{
	if (cpc_bind_pctx(t->cpc, l->proc->pctx, (id_t)l->tid, l->sets[k], 0) ||
	    cpc_set_sample(t->cpc, l->sets[k], l->base[k])) {
		fprintf(stderr, "%6d: init_lwp: can't bind perf counters to lwp%d - %s\n",
			(int)l->proc->pid, lwp_id(l), strerror(errno));
		t->failed = 1;
		l->cur = -1;
		return -1;
	}
	l->cur = k;
	return 0;
}

/* Sample the bound set: DIFF = since the last sample, added to the LWP's totals. */
static int lwp_sample(struct track *t, struct lwp *l)
{
	int k = l->cur;

	if (k < 0)
		return -1;
	if (cpc_set_sample(t->cpc, l->sets[k], l->now[k])) {
		if (errno == EAGAIN)
			fprintf(stderr, "%6d: tick: lwp%d: perf counter contents invalidated\n",
				(int)l->proc->pid, lwp_id(l));
		return -1;
	}
	cpc_buf_sub(t->cpc, l->diff[k], l->now[k], l->base[k]);
	cpc_buf_copy(t->cpc, l->base[k], l->now[k]);
	for (unsigned int i = 0; i < t->c.specs[k].nreqs; i++) {
		uint64_t v;

		cpc_buf_get(t->cpc, l->diff[k], (int)i, &v);
		l->tot[k][i] += v;
	}
	l->tot_tick[k] += cpc_buf_tick(t->cpc, l->diff[k]);
	return 0;
}

static struct lwp *lwp_new(struct track *t, struct proc *p, pid_t tid)
{
	struct lwp *l = calloc(1, sizeof(*l));
	unsigned int n = t->c.nspecs;

	if (!l)
		return NULL;
	l->tid = tid;
	l->proc = p;
	l->cur = -1;
	l->sets = calloc(n, sizeof(*l->sets));
	l->base = calloc(n, sizeof(*l->base));
	l->now = calloc(n, sizeof(*l->now));
	l->diff = calloc(n, sizeof(*l->diff));
	l->tot = totals_alloc(t);
	l->tot_tick = calloc(n, sizeof(uint64_t));
	if (!l->sets || !l->base || !l->now || !l->diff || !l->tot || !l->tot_tick)
		goto fail;
	for (unsigned int k = 0; k < n; k++) {
		l->sets[k] = set_from_spec(t->cpc, &t->c.specs[k]);
		if (!l->sets[k])
			goto fail;
		l->base[k] = cpc_buf_create(t->cpc, l->sets[k]);
		l->now[k] = cpc_buf_create(t->cpc, l->sets[k]);
		l->diff[k] = cpc_buf_create(t->cpc, l->sets[k]);
		if (!l->base[k] || !l->now[k] || !l->diff[k])
			goto fail;
	}
	l->next = t->lwps;
	t->lwps = l;
	return l;
fail:
	fprintf(stderr, "%6d: init_lwp: lwp%d - %s\n", (int)p->pid, (int)tid, strerror(errno));
	t->failed = 1;
	return NULL;
}

static void lwp_free(struct track *t, struct lwp *l)
{
	for (unsigned int k = 0; l->sets && k < t->c.nspecs; k++) {
		if (!l->sets[k])
			continue;
		cpc_buf_destroy(t->cpc, l->base[k]);
		cpc_buf_destroy(t->cpc, l->now[k]);
		cpc_buf_destroy(t->cpc, l->diff[k]);
		cpc_set_destroy(t->cpc, l->sets[k]);
	}
	free(l->sets);
	free(l->base);
	free(l->now);
	free(l->diff);
	totals_free(t, l->tot);
	free(l->tot_tick);
	free(l);
}

/* init_lwp: a thread to count from now on. */
static struct lwp *init_lwp(struct track *t, struct proc *p, pid_t tid)
{
	struct lwp *l = lwp_new(t, p, tid);

	if (!l)
		return NULL;
	if (lwp_bind(t, l, 0) == 0 && t->verbose)
		print_buf(t, l, 0, "init_lwp", l->base[0]);
	return l;
}

/*
 * fini_lwp: the last sample of a thread, its totals added to the process's;
 * it stays in the list (unbound) until it is reaped.
 */
static void fini_lwp(struct track *t, struct lwp *l)
{
	struct proc *p = l->proc;

	if (l->cur < 0)
		return;
	lwp_sample(t, l);
	if (t->verbose)
		print_buf(t, l, l->cur, "fini_lwp", l->diff[l->cur]);
	cpc_unbind(t->cpc, l->sets[l->cur]);
	l->cur = -1;
	for (unsigned int k = 0; k < t->c.nspecs; k++) {
		for (unsigned int i = 0; i < t->c.specs[k].nreqs; i++)
			p->tot[k][i] += l->tot[k][i];
		p->tot_tick[k] += l->tot_tick[k];
	}
}

static void lwp_del(struct track *t, struct lwp *l)
{
	for (struct lwp **pl = &t->lwps; *pl; pl = &(*pl)->next) {
		if (*pl == l) {
			*pl = l->next;
			break;
		}
	}
	lwp_free(t, l);
}

static unsigned int live_lwps(struct track *t, struct proc *p)
{
	unsigned int n = 0;

	for (struct lwp *l = t->lwps; l; l = l->next)
		n += l->proc == p && !l->exiting;
	return n;
}

/* One line per set with the process's totals (exit, exec, and total at the end). */
static void print_proc_totals(struct track *t, struct proc *p, int lwp, const char *label)
{
	hrtime_t when = mono_ns();

	for (unsigned int k = 0; k < t->c.nspecs; k++)
		print_line(t, p, lwp, label, &t->c.specs[k], p->tot[k], p->tot_tick[k], when);
}

static void tick_lwp(struct track *t, struct lwp *l)
{
	int k = l->cur;

	if (k < 0 || lwp_sample(t, l))
		return;
	print_buf(t, l, k, "tick", l->diff[k]);
	if (t->c.nspecs > 1) {
		/* Several sets: the next one counts the next interval. */
		cpc_unbind(t->cpc, l->sets[k]);
		lwp_bind(t, l, (k + 1) % (int)t->c.nspecs);
	}
}

static void read_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

static void resume(pid_t tid, int sig)
{
	ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
}

static void drop_proc(struct track *t, struct proc *p)
{
	struct lwp *l, *next;

	for (l = t->lwps; l; l = next) {
		next = l->next;
		if (l->proc == p)
			lwp_del(t, l);
	}
	proc_del(t, p);
}

/* The process exec'ed (the thread TID is now its only one, with the pid). */
static void on_exec(struct track *t, struct proc *p, pid_t tid)
{
	char cmd[4096];
	unsigned long former = 0;
	struct lwp *l, *next;

	if (p->exec_pending) {
		/* Our command's own exec: counting starts in the new image. */
		p->exec_pending = false;
		if (!init_lwp(t, p, p->pid))
			t->failed = 1;
		resume(tid, 0);
		return;
	}
	ptrace(PTRACE_GETEVENTMSG, tid, NULL, &former);
	for (l = t->lwps; l; l = l->next)
		if (l->proc == p)
			fini_lwp(t, l);
	for (l = t->lwps; l; l = next) {
		next = l->next;
		if (l->proc == p)
			lwp_del(t, l);
	}
	print_proc_totals(t, p, 1, "exec");
	for (unsigned int k = 0; k < t->c.nspecs; k++) {
		memset(p->tot[k], 0, t->c.specs[k].nreqs * sizeof(uint64_t));
		p->tot_tick[k] = 0;
	}
	read_cmdline(p->pid, cmd, sizeof(cmd));
	p->origin = mono_ns();
	out_exec(&t->c.out, 0.0, p->pid, 1, cmd);
	fflush(t->c.out.fp);
	if (!t->follow_exec) {
		/* As cputrack without -e: tracking stops at exec. */
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		drop_proc(t, p);
		return;
	}
	l = init_lwp(t, p, p->pid);
	if (l)
		l->started = true;
	resume(tid, 0);
}

static void on_clone(struct track *t, struct lwp *parent, pid_t tid)
{
	struct lwp *l = lwp_find(t, tid);
	uint64_t zero[256] = { 0 };

	if (!l)
		l = init_lwp(t, parent->proc, tid);
	if (l)
		print_line(t, parent->proc, lwp_id(l), "lwp_create", &t->c.specs[0], zero, 0,
			   mono_ns());
}

static void on_fork(struct track *t, struct lwp *parent, pid_t child)
{
	struct proc *p = proc_new(t, child, parent->proc->origin);
	struct lwp *l;

	out_fork(&t->c.out, (double)(mono_ns() - parent->proc->origin) / 1e9,
		 parent->proc->pid, lwp_id(parent), child);
	fflush(t->c.out.fp);
	if (!p) {
		t->failed = 1;
		return;
	}
	l = lwp_find(t, child);
	if (!l)
		init_lwp(t, p, child);
}

static void on_exit_event(struct track *t, struct lwp *l)
{
	struct proc *p = l->proc;

	fini_lwp(t, l);
	l->exiting = true;
	if (live_lwps(t, p) == 0) {
		print_proc_totals(t, p, lwp_id(l), "exit");
	} else {
		for (unsigned int k = 0; k < t->c.nspecs; k++)
			print_line(t, p, lwp_id(l), "lwp_exit", &t->c.specs[k], l->tot[k],
				   l->tot_tick[k], mono_ns());
	}
}

/*
 * New threads and children of seized tracees start in a PTRACE_EVENT_STOP,
 * which may come before or after their parent's CLONE/FORK event: they stay
 * stopped until their counters are bound.
 */
static bool pending_take(struct track *t, pid_t tid)
{
	for (unsigned int i = 0; i < t->npending; i++) {
		if (t->pending[i] == tid) {
			t->pending[i] = t->pending[--t->npending];
			return true;
		}
	}
	return false;
}

static void pending_add(struct track *t, pid_t tid)
{
	pid_t *p = realloc(t->pending, (t->npending + 1) * sizeof(*p));

	if (!p) {
		resume(tid, 0);		/* uncounted for a while rather than stuck */
		return;
	}
	t->pending = p;
	t->pending[t->npending++] = tid;
}

/* Start a new thread or child once it is bound (or known not to be wanted). */
static void start_new(struct track *t, pid_t tid)
{
	struct lwp *l = lwp_find(t, tid);

	if (pending_take(t, tid)) {
		if (l)
			l->started = true;
		resume(tid, 0);
	}
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_stop(struct track *t, pid_t tid, int status)
{
	struct lwp *l = lwp_find(t, tid);
	unsigned long msg = 0;
	int event = status >> 16, sig = WSTOPSIG(status);

	if (!l || !l->started) {
		if (event == PTRACE_EVENT_STOP) {
			if (l)
				l->started = true;
			if (l)
				resume(tid, 0);
			else
				pending_add(t, tid);
			return;
		}
		if (!l) {
			resume(tid, event ? 0 : sig);
			return;
		}
		l->started = true;
	}
	switch (event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg);
		if (event == PTRACE_EVENT_CLONE)
			on_clone(t, l, (pid_t)msg);
		else if (t->follow_fork)
			on_fork(t, l, (pid_t)msg);
		start_new(t, (pid_t)msg);
		resume(tid, 0);
		return;
	case PTRACE_EVENT_EXEC:
		on_exec(t, l->proc, tid);
		return;
	case PTRACE_EVENT_EXIT:
		on_exit_event(t, l);
		resume(tid, 0);
		return;
	case PTRACE_EVENT_STOP:
		/* A group stop (job control): stay stopped, keep reporting. */
		if (is_stop_signal(sig))
			ptrace(PTRACE_LISTEN, tid, NULL, NULL);
		else
			resume(tid, 0);
		return;
	default:
		resume(tid, sig);
		return;
	}
}

static void on_gone(struct track *t, pid_t tid)
{
	struct lwp *l = lwp_find(t, tid);
	struct proc *p;

	if (!l)
		return;
	p = l->proc;
	if (!l->exiting) {
		/* Killed without an exit stop (SIGKILL): count what can be read. */
		on_exit_event(t, l);
	}
	lwp_del(t, l);
	for (struct lwp *o = t->lwps; o; o = o->next)
		if (o->proc == p)
			return;
	proc_del(t, p);
}

static long trace_options(const struct track *t)
{
	long opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;

	if (t->follow_fork)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (!t->attach_pid)
		opts |= PTRACE_O_EXITKILL;
	return opts;
}

/* Start the command stopped, seize it, let it exec: counting starts at its exec. */
static int start_command(struct track *t)
{
	struct proc *p;
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		raise(SIGSTOP);
		execvp(t->argv[0], t->argv);
		_exit(127);
	}
	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SEIZE, pid, NULL, (void *)trace_options(t))) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	p = proc_new(t, pid, mono_ns());
	if (!p) {
		kill(pid, SIGKILL);
		return -1;
	}
	p->created = true;
	p->exec_pending = true;
	kill(pid, SIGCONT);
	/* Until its exec the command runs unbound; its exec stop binds it. */
	for (;;) {
		pid_t w = waitpid(pid, &status, __WALL);

		if (w != pid)
			return -1;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			drop_proc(t, p);
			return -1;
		}
		if (status >> 16 == PTRACE_EVENT_EXEC) {
			on_exec(t, p, pid);
			return lwp_find(t, pid) ? 0 : -1;
		}
		resume(pid, (status >> 16) ? 0 : (WSTOPSIG(status) == SIGCONT ||
						 WSTOPSIG(status) == SIGSTOP) ? 0 : WSTOPSIG(status));
	}
}

/* Seize every thread of PID (listing again until no new one appears). */
static int capture(struct track *t, pid_t pid)
{
	struct proc *p = proc_new(t, pid, mono_ns());
	bool found = true;
	char path[64];

	if (!p || ptrace(PTRACE_SEIZE, pid, NULL, (void *)trace_options(t)))
		return -1;
	if (!init_lwp(t, p, pid))
		return -1;
	lwp_find(t, pid)->started = true;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	while (found) {
		DIR *d = opendir(path);
		struct dirent *de;

		found = false;
		while (d && (de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			struct lwp *l;

			if (tid <= 0 || lwp_find(t, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)trace_options(t)))
				continue;
			l = init_lwp(t, p, tid);
			if (l)
				l->started = true;
			found = true;
		}
		if (d)
			closedir(d);
	}
	return 0;
}

/* Let every tracee go: captured processes run on, our command stops with us. */
static void release_all(struct track *t, int sig)
{
	for (struct proc *p = t->procs; p; p = p->next)
		if (p->created)
			kill(p->pid, sig ? sig : SIGKILL);
	for (struct lwp *l = t->lwps; l; l = l->next) {
		int st;

		if (l->proc->created)
			continue;
		if (ptrace(PTRACE_INTERRUPT, l->tid, NULL, NULL) == 0 &&
		    waitpid(l->tid, &st, __WALL) == l->tid && WIFSTOPPED(st))
			ptrace(PTRACE_DETACH, l->tid, NULL, NULL);
	}
}

static void tick_all(struct track *t)
{
	for (struct proc *p = t->procs; p; p = p->next)
		p->ticks++;
	for (struct lwp *l = t->lwps; l; l = l->next)
		if (!l->exiting)
			tick_lwp(t, l);
}

static bool samples_done(struct track *t)
{
	if (!t->nsamples)
		return false;
	for (struct proc *p = t->procs; p; p = p->next)
		if (p->ticks < t->nsamples)
			return false;
	return true;
}

/* SET: the signals run() blocked, taken here with sigtimedwait. */
static void run_loop(struct track *t, const sigset_t *set)
{
	hrtime_t step = (hrtime_t)(t->interval * 1e9), next = mono_ns() + step;
	while (t->procs && !cpcstat_stop) {
		struct timespec tmo = { 1, 0 };
		hrtime_t now = mono_ns();
		int status, sig;
		pid_t tid;

		if (step) {
			hrtime_t left = next > now ? next - now : 0;

			tmo.tv_sec = left / 1000000000LL;
			tmo.tv_nsec = left % 1000000000LL;
		}
		sig = sigtimedwait(set, NULL, &tmo);
		if (sig > 0 && sig != SIGCHLD) {
			cpcstat_stop = sig;
			break;
		}
		while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
			if (WIFSTOPPED(status))
				on_stop(t, tid, status);
			else
				on_gone(t, tid);
		}
		if (step && mono_ns() >= next) {
			tick_all(t);
			next += step;
			while (next < mono_ns())
				next += step;
			if (samples_done(t))
				break;
		}
	}
}

static int parse_args(struct track *t, const struct cpu_caps *caps, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 },
	};
	int c, errs = 0;
	char *end;
	long n;

	while ((c = getopt_long(argc, argv, "+T:N:Defhntvo:r:c:p:x:", longopts, NULL)) != -1) {
		switch (c) {
		case 'T':
			t->interval = atof(optarg);
			if (t->interval < 0)
				errs++;
			break;
		case 'N':
			n = strtol(optarg, &end, 10);
			if (*end || n < 0)
				errs++;
			t->nsamples = (unsigned long)n;
			break;
		case 'D':
			t->c.debug = true;
			break;
		case 'e':
			t->follow_exec = true;
			break;
		case 'f':
			t->follow_fork = true;
			t->c.out.pid = true;
			break;
		case 'h':
			return 1;
		case 'n':
			t->c.notitle = true;
			break;
		case 't':
			t->c.out.tsc = true;
			break;
		case 'v':
			t->verbose = true;
			break;
		case 'o':
			t->outfile = optarg;
			break;
		case 'c':
			if (cpc_opts_add_spec(&t->c, caps, optarg))
				errs++;
			break;
		case 'p':
			n = strtol(optarg, &end, 10);
			if (*end || n <= 0)
				errs++;
			t->attach_pid = (pid_t)n;
			break;
		case 'x':
			t->c.out.format = OUT_CSV;
			t->c.out.sep = optarg;
			break;
		case 'J':
			t->c.out.format = OUT_JSON;
			break;
		default:	/* -r and unknown options */
			errs++;
			break;
		}
	}
	t->argv = argv + optind;
	if (errs || t->c.nspecs == 0 || (optind < argc) == (t->attach_pid != 0))
		return -1;
	return 0;
}

static int run(struct track *t)
{
	sigset_t set, old;
	int ret = 0;

	/* Signals are taken with sigtimedwait in the loop. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	cpcstat_stop_signals(&set);
	sigprocmask(SIG_BLOCK, &set, &old);

	if (!t->c.notitle)
		out_title(&t->c.out, &t->c.specs[0]);
	fflush(t->c.out.fp);
	if (t->attach_pid) {
		if (capture(t, t->attach_pid)) {
			fprintf(stderr, "%s: failed to capture pid %d\n", t->c.prog, (int)t->attach_pid);
			release_all(t, 0);
			ret = 1;
			goto out;
		}
	} else if (start_command(t)) {
		fprintf(stderr, "%s: failed to start program '%s'\n", t->c.prog, t->argv[0]);
		ret = 1;
		goto out;
	}
	run_loop(t, &set);
	if (t->procs) {
		/* Interrupted or -N reached: the totals so far, then let go. */
		for (struct lwp *l = t->lwps; l; l = l->next)
			if (!l->exiting)
				fini_lwp(t, l);
		if (cpcstat_stop)
			for (struct proc *p = t->procs; p; p = p->next)
				print_proc_totals(t, p, 1, "total");
		release_all(t, cpcstat_stop);
	}
	ret = t->failed;
out:
	while (t->procs)
		drop_proc(t, t->procs);
	free(t->pending);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return cpcstat_exit_code(ret);
}

int track_main(int argc, char **argv, const char *prog)
{
	struct track t = { .interval = 1.0 };
	struct cpu_caps caps = { 0 };
	int ret;

	t.c.prog = prog;
	t.c.out = (struct out){ .fp = stdout, .format = OUT_HUMAN, .tool = OUT_CPUTRACK, .sep = "," };
	/* cputrack's message says "library" where cpustat's does not. */
	t.cpc = cpc_tool_open(prog, " library", &caps);
	if (!t.cpc)
		return 1;
	ret = parse_args(&t, &caps, argc, argv);
	cpc_tool_errors(t.cpc, prog, t.c.debug);
	ret = cpc_tool_parsed(ret, cputrack_usage, prog, "cputrack", &caps);
	if (ret >= 0) {
		/* -h or a usage error: done. */
	} else if (t.outfile && !(t.c.out.fp = fopen(t.outfile, "w"))) {
		fprintf(stderr, "%s: cannot open '%s' for writing\n", prog, t.outfile);
		ret = 1;
	} else {
		t.c.out.several_sets = t.c.nspecs > 1;
		ret = run(&t);
		if (t.outfile)
			fclose(t.c.out.fp);
	}
	cpc_opts_free(&t.c);
	caps_free(&caps);
	cpc_close(t.cpc);
	return ret;
}
