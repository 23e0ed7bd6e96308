// SPDX-License-Identifier: GPL-2.0
/*
 * track.c - cpcstat track, alias cputrack: counts of one command or process
 * per thread (LWP), as illumos cputrack(1) prints them: a tick line per LWP
 * every interval, lwp_create/lwp_exit/exit lines, exec (-e follows it) and
 * fork (-f follows the children) markers.
 *
 * libcpc's libpctx subset cannot report exec and fork, so the processes are
 * followed with ptrace (track_trace.c); each thread's counters are bound with
 * cpc_bind_pctx() on a pctx_capture() handle naming its process
 * (track_count.c). This file: options, the run loop, ticks, the end.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "cpcstat.h"
#include "track.h"

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
				track_on_stop(t, tid, status);
			else
				track_on_gone(t, tid);
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
	int ret = 0, r;

	/* Signals are taken with sigtimedwait in the loop. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	cpcstat_stop_signals(&set);
	sigprocmask(SIG_BLOCK, &set, &old);

	if (t->attach_pid && kill(t->attach_pid, 0) && errno == ESRCH) {
		fprintf(stderr, "%s: failed to capture pid %d\n", t->c.prog, (int)t->attach_pid);
		ret = 1;
		goto out;
	}
	if (!t->c.notitle)
		out_title(&t->c.out, &t->c.specs[0]);
	fflush(t->c.out.fp);
	r = t->attach_pid ? track_capture(t, t->attach_pid) : track_start_command(t);
	if (r) {
		if (r == -1 && t->attach_pid)
			fprintf(stderr, "%s: failed to capture pid %d\n", t->c.prog,
				(int)t->attach_pid);
		else if (r == -1)
			fprintf(stderr, "%s: failed to start program '%s'\n", t->c.prog,
				t->argv[0]);
		track_release_all(t, 0);
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
				track_print_totals(t, p, 1, "total");
		track_release_all(t, cpcstat_stop);
	}
	ret = t->failed;
out:
	while (t->procs)
		track_drop_proc(t, t->procs);
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
