// SPDX-License-Identifier: GPL-2.0
/*
 * track_trace.c - track mode's process control with ptrace: the command is
 * started stopped and seized (or a running process's threads seized), and
 * the CLONE, FORK/VFORK (-f), EXEC and EXIT events become cputrack's
 * lwp_create, fork, exec, lwp_exit and exit lines. Every new thread stays
 * stopped until its counters are bound, so nothing it does goes uncounted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "track.h"

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
	track_print_totals(t, p, 1, "exec");
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
		track_drop_proc(t, p);
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
		track_print_line(t, parent->proc, lwp_id(l), "lwp_create", &t->c.specs[0], zero, 0,
			   mono_ns());
}

static void on_fork(struct track *t, struct lwp *parent, pid_t child)
{
	struct proc *p = track_proc_new(t, child, parent->proc->origin);
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
		track_print_totals(t, p, lwp_id(l), "exit");
	} else {
		for (unsigned int k = 0; k < t->c.nspecs; k++)
			track_print_line(t, p, lwp_id(l), "lwp_exit", &t->c.specs[k], l->tot[k],
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

void track_on_stop(struct track *t, pid_t tid, int status)
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

void track_on_gone(struct track *t, pid_t tid)
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
	track_proc_del(t, p);
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
int track_start_command(struct track *t)
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
	p = track_proc_new(t, pid, mono_ns());
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
			track_drop_proc(t, p);
			return -1;
		}
		if (status >> 16 == PTRACE_EVENT_EXEC) {
			struct lwp *l;

			on_exec(t, p, pid);
			l = lwp_find(t, pid);
			if (l && l->cur >= 0)
				return 0;
			/* Not counted (init_lwp said why): the command does not run. */
			kill(pid, SIGKILL);
			/* It may still stop at its exit event: let it go on dying. */
			while (waitpid(pid, &status, __WALL) == pid && WIFSTOPPED(status))
				resume(pid, 0);
			track_drop_proc(t, p);
			return l ? -2 : -1;
		}
		resume(pid, (status >> 16) ? 0 : (WSTOPSIG(status) == SIGCONT ||
						 WSTOPSIG(status) == SIGSTOP) ? 0 : WSTOPSIG(status));
	}
}

/* Seize every thread of PID (listing again until no new one appears). */
int track_capture(struct track *t, pid_t pid)
{
	struct proc *p = track_proc_new(t, pid, mono_ns());
	bool found = true;
	char path[64];

	struct lwp *first;

	if (!p || ptrace(PTRACE_SEIZE, pid, NULL, (void *)trace_options(t)))
		return -1;
	first = init_lwp(t, p, pid);
	if (!first)
		return -1;
	first->started = true;
	if (first->cur < 0)
		return -2;	/* not counted: init_lwp said why */
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
void track_release_all(struct track *t, int sig)
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
