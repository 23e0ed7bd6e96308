/* SPDX-License-Identifier: GPL-2.0 */
/*
 * out.h - the count lines of cpu and track mode: illumos cpustat/cputrack
 * columns (human), CSV with a chosen separator (-x SEP), or one JSON object
 * per line (--json).
 */
#ifndef CPCSTAT_OUT_H
#define CPCSTAT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "spec.h"

enum out_format { OUT_HUMAN, OUT_CSV, OUT_JSON };
enum out_tool { OUT_CPUSTAT, OUT_CPUTRACK };

struct out {
	FILE *fp;
	enum out_format format;
	enum out_tool tool;
	const char *sep;	/* CSV separator */
	bool tsc;		/* -t: the tsc column */
	bool pid;		/* cputrack -f: the pid column */
	bool several_sets;	/* lines end with " # <spec>" */
};

/* One line of counts. */
struct out_sample {
	double time;		/* seconds since the start */
	pid_t pid;		/* cputrack */
	int id;			/* cpu (cpustat), lwp (cputrack); ncpus on total */
	const char *label;	/* tick, total, exit, lwp_exit, init_lwp ... */
	uint64_t tsc;
	const uint64_t *values;	/* one per request of SET */
	const struct spec_set *set;
};

/* The title line (the first set's columns); nothing for JSON. */
void out_title(const struct out *o, const struct spec_set *first);
void out_sample(const struct out *o, const struct out_sample *s);
/* cputrack's exec marker: the new command line in the note column. */
void out_exec(const struct out *o, double time, pid_t pid, int lwp, const char *cmd);
/* cputrack's fork marker: the child's pid in the note column. */
void out_fork(const struct out *o, double time, pid_t pid, int lwp, pid_t child);

/* Helpers shared with report: JSON string and CSV field writers. */
void json_string(FILE *fp, const char *s);
void csv_field(FILE *fp, const char *sep, const char *s);

#endif /* CPCSTAT_OUT_H */
