/* SPDX-License-Identifier: GPL-2.0 */
/* cpc_common.h - what cpu and track mode share on top of libcpc. */
#ifndef CPCSTAT_CPC_COMMON_H
#define CPCSTAT_CPC_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include <libcpc.h>

#include "caps.h"
#include "out.h"
#include "spec.h"

/* Fill CAPS from the handle's walkers (events per counter, attributes, names). */
int caps_from_cpc(cpc_t *cpc, struct cpu_caps *caps);
/* Route libcpc's messages to stderr as "<prog>: <message>" (-D: with the function). */
void cpc_tool_errors(cpc_t *cpc, const char *prog, bool debug);
/* A libcpc set with the spec's requests, on the counters it names. */
cpc_set_t *set_from_spec(cpc_t *cpc, const struct spec_set *spec);

/*
 * Print an illumos usage text FMT ("%s" for the program name, then "%s" for
 * cpcstat's extra options, given only when PROG is not ILLUMOS_NAME).
 */
void cpc_tool_usage(FILE *fp, const char *fmt, const char *prog, const char *illumos_name);
/*
 * cpc_open() with the tool's error handler, and CAPS filled; on failure
 * "<prog>: cannot access performance counter<WHAT> - <error>" and NULL.
 */
cpc_t *cpc_tool_open(const char *prog, const char *what, struct cpu_caps *caps);
/*
 * What parse_args' result R asks: -h (R > 0: usage on stdout, a blank line,
 * the listing; 0), a usage error (R < 0: usage on stderr; EXIT_USAGE), or a
 * run (R == 0: -1).
 */
int cpc_tool_parsed(int r, const char *fmt, const char *prog, const char *illumos_name,
		    const struct cpu_caps *caps);
/* CLOCK_MONOTONIC in ns, the clock of cpc_buf_hrtime(). */
hrtime_t mono_ns(void);

/* Options and sets both tools parse the same way. */
struct cpc_opts {
	const char *prog;
	struct spec_set *specs;
	unsigned int nspecs;
	struct out out;
	bool debug;		/* -D */
	bool notitle;		/* -n */
};

/*
 * Parse a -c argument into OPTS->specs; on a bad spec print "<prog>: <msg>"
 * and return -1 (the caller prints the usage and exits 2).
 */
int cpc_opts_add_spec(struct cpc_opts *opts, const struct cpu_caps *caps, const char *arg);
void cpc_opts_free(struct cpc_opts *opts);

#endif /* CPCSTAT_CPC_COMMON_H */
