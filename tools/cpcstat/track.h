/* SPDX-License-Identifier: GPL-2.0 */
/*
 * track.h - what the parts of track mode share: the tracked processes and
 * threads (track_count.c counts and prints them, track_trace.c follows them
 * with ptrace, track.c runs the whole).
 */
#ifndef CPCSTAT_TRACK_H
#define CPCSTAT_TRACK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpc_common.h"

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

/* track_count.c: the counters of each thread, the lines. */
int lwp_id(const struct lwp *l);
struct lwp *lwp_find(struct track *t, pid_t tid);
struct proc *track_proc_new(struct track *t, pid_t pid, hrtime_t origin);
void track_proc_del(struct track *t, struct proc *p);
void track_print_line(struct track *t, struct proc *p, int lwp, const char *label,
		      const struct spec_set *spec, const uint64_t *vals, uint64_t tick,
		      hrtime_t when);
void track_print_buf(struct track *t, struct lwp *l, int k, const char *label, cpc_buf_t *buf);
int lwp_bind(struct track *t, struct lwp *l, int k);
int lwp_sample(struct track *t, struct lwp *l);
struct lwp *init_lwp(struct track *t, struct proc *p, pid_t tid);
void fini_lwp(struct track *t, struct lwp *l);
void lwp_del(struct track *t, struct lwp *l);
unsigned int live_lwps(struct track *t, struct proc *p);
void track_print_totals(struct track *t, struct proc *p, int lwp, const char *label);
void tick_lwp(struct track *t, struct lwp *l);
void track_drop_proc(struct track *t, struct proc *p);

/* track_trace.c: following the processes with ptrace. */
void track_on_stop(struct track *t, pid_t tid, int status);
void track_on_gone(struct track *t, pid_t tid);
/* Both: 0, -1 (the caller says it failed) or -2 (a bind failed and said so). */
int track_start_command(struct track *t);
int track_capture(struct track *t, pid_t pid);
void track_release_all(struct track *t, int sig);

#endif /* CPCSTAT_TRACK_H */
