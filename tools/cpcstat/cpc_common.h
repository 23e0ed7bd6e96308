/* SPDX-License-Identifier: GPL-2.0 */
/* cpc_common.h - what cpu and track mode share on top of libcpc. */
#ifndef CPCSTAT_CPC_COMMON_H
#define CPCSTAT_CPC_COMMON_H

#include <stdbool.h>

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
