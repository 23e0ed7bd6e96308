/* SPDX-License-Identifier: GPL-2.0 */
/*
 * results.h - the raw results bench/run-all prints in the VM, read back on
 * the host by bench-report (table, JSON, TAP) and bench-plot (SVG).
 *
 * One record per line, words separated by blanks:
 *   ROW id unit goal title...   a table row; goal is "ratio<=X" (median
 *                               of the paired ratios pmc / baseline),
 *                               "pmc<=base" (median of the paired
 *                               differences <= 0: for overheads, which may
 *                               be near 0), "pmcmax<=X" (every pmc
 *                               figure), "info" or "n/a"
 *   VAL id pmc|base number      one repetition's figure; the i-th pmc and
 *                               the i-th base figure of a row are a pair
 *                               (measured back to back)
 *   NOTE id text...             shown in the row (e.g. why it is n/a)
 *   STATUS name ok|fail why...  one benchmark program ran (or not)
 * Anything else (the programs' own messages) is ignored.
 */
#ifndef _BENCH_RESULTS_H
#define _BENCH_RESULTS_H

#include <stddef.h>

#include "timing.h"

#define RES_MAX_VALS 64

struct res_row {
	char id[48];
	char unit[24];
	char goal[24];
	char title[128];
	char note[128];
	double pmc[RES_MAX_VALS], base[RES_MAX_VALS];
	size_t npmc, nbase;
	/* Filled by res_load(): */
	struct bench_stats spmc, sbase;
	/* Paired ratios pmc / baseline of each repetition (n = 0: none). */
	struct bench_stats sratio;
	/* Their median, else the ratio of the medians; 0: no ratio. */
	double ratio;
	/*
	 * pass, miss, "miss?" (the median misses, some repetitions meet the
	 * goal: within the noise of the run), info, n/a, no data
	 */
	const char *verdict;
};

struct res_status {
	char name[48];
	int ok;
	char why[128];
};

struct results {
	struct res_row *rows;
	size_t nrows;
	struct res_status *status;
	size_t nstatus;
};

/* Read @path into @r and compute every row's statistics and verdict. */
void res_load(const char *path, struct results *r);
struct res_row *res_find(struct results *r, const char *id);
void res_free(struct results *r);

#endif /* _BENCH_RESULTS_H */
