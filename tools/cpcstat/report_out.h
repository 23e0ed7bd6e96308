/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_out.h - what `cpcstat report` prints from a profile: the top table
 * (human, CSV, JSON), the call tree, folded stacks and the flame-graph SVG.
 */
#ifndef CPCSTAT_REPORT_OUT_H
#define CPCSTAT_REPORT_OUT_H

#include <stdio.h>

#include "out.h"
#include "profile.h"

/* What the log said beside the samples. */
struct report_info {
	const char *events;	/* sampled events, comma separated */
	uint64_t dropped;	/* samples and records the driver lost */
	double duration;	/* seconds from the first to the last record */
	unsigned long nprocs;	/* processes seen */
};

/* Nodes under this share of all samples are left out of the call tree. */
#define CALLGRAPH_MIN_PCT	0.5

void report_top(FILE *fp, const struct profile *prof, const struct report_info *info,
		enum out_format format, const char *sep, unsigned int limit);
void report_callgraph(FILE *fp, const struct profile *prof);
void report_folded(FILE *fp, const struct profile *prof);
/* The whole report as one JSON object; with the call tree if CALLGRAPH. */
void report_json(FILE *fp, const struct profile *prof, const struct report_info *info,
		 bool callgraph, unsigned int limit);
/* A self-contained flame graph; hovering a frame shows its name and share. */
void report_svg(FILE *fp, const struct profile *prof, const char *title);

#endif /* CPCSTAT_REPORT_OUT_H */
