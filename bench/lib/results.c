// SPDX-License-Identifier: GPL-2.0
/*
 * results.c - parse bench/run-all's raw results and judge each row against
 * its goal (see results.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

static void *grow(void *p, size_t n, size_t size)
{
	p = realloc(p, n * size);
	if (!p)
		bench_die(ENOMEM, "reading results");
	return p;
}

struct res_row *res_find(struct results *r, const char *id)
{
	size_t i;

	for (i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].id, id))
			return &r->rows[i];
	return NULL;
}

/* Copy the rest of the line after @n words of @line into @dst. */
static void rest(const char *line, int n, char *dst, size_t size)
{
	const char *p = line;

	while (n-- > 0) {
		p += strspn(p, " \t");
		p += strcspn(p, " \t\n");
	}
	p += strspn(p, " \t");
	snprintf(dst, size, "%.*s", (int)strcspn(p, "\n"), p);
}

/*
 * The ratio of the row: with as many pmc as baseline figures, each pmc
 * figure is paired with the baseline figure of the same repetition (they
 * ran back to back, under the same host load), and the ratio is the median
 * of the pairs' ratios, with their min and max; otherwise the ratio of the
 * medians. 0 where it has no meaning (no figures, a baseline <= 0).
 */
static void ratios(struct res_row *row)
{
	double r[RES_MAX_VALS];
	size_t i;

	memset(&row->sratio, 0, sizeof(row->sratio));
	row->ratio = 0;
	if (!row->npmc || !row->nbase)
		return;
	if (row->npmc == row->nbase) {
		for (i = 0; i < row->npmc; i++) {
			if (row->base[i] <= 0)
				return;
			r[i] = row->pmc[i] / row->base[i];
		}
		bench_stats(r, row->npmc, &row->sratio);
		row->ratio = row->sratio.median;
	} else if (row->sbase.median > 0) {
		row->ratio = row->spmc.median / row->sbase.median;
	}
}

/* Paired differences pmc - baseline (for goals on overheads). */
static void differences(const struct res_row *row, struct bench_stats *d)
{
	double v[RES_MAX_VALS];
	size_t i;

	memset(d, 0, sizeof(*d));
	if (row->npmc != row->nbase || !row->npmc) {
		d->median = row->spmc.median - row->sbase.median;
		d->min = d->max = d->median;
		return;
	}
	for (i = 0; i < row->npmc; i++)
		v[i] = row->pmc[i] - row->base[i];
	bench_stats(v, row->npmc, d);
}

/*
 * pass: the median meets the goal; "miss?": it does not, but some
 * repetitions do (the pmc and baseline figures are within this run's
 * noise of each other); miss: no repetition does.
 */
static void judge(struct res_row *row)
{
	struct bench_stats d;
	double v[RES_MAX_VALS];
	double x;

	memcpy(v, row->pmc, sizeof(v));
	bench_stats(v, row->npmc, &row->spmc);
	memcpy(v, row->base, sizeof(v));
	bench_stats(v, row->nbase, &row->sbase);
	ratios(row);

	if (!strcmp(row->goal, "info")) {
		row->verdict = "info";
	} else if (!strcmp(row->goal, "n/a")) {
		row->verdict = "n/a";
	} else if (sscanf(row->goal, "ratio<=%lf", &x) == 1) {
		if (row->ratio == 0)
			row->verdict = "no data";
		else if (row->ratio <= x)
			row->verdict = "pass";
		else if (row->sratio.n && row->sratio.min <= x)
			row->verdict = "miss?";
		else
			row->verdict = "miss";
	} else if (!strcmp(row->goal, "pmc<=base")) {
		if (!row->npmc || !row->nbase) {
			row->verdict = "no data";
		} else {
			/* A ratio of overheads at or below 0 means nothing. */
			if (row->spmc.median <= 0 || row->sbase.median <= 0) {
				row->ratio = 0;
				row->sratio.n = 0;
			}
			differences(row, &d);
			row->verdict = d.median <= 0 ? "pass" :
				       d.min <= 0 ? "miss?" : "miss";
		}
	} else if (sscanf(row->goal, "pmcmax<=%lf", &x) == 1) {
		if (!row->npmc)
			row->verdict = "no data";
		else
			row->verdict = row->spmc.max <= x ? "pass" : "miss";
	} else {
		row->verdict = "bad goal";
	}
}

void res_load(const char *path, struct results *r)
{
	FILE *f = fopen(path, "r");
	char line[1024], kind[16], id[48], side[16], word[48];
	struct res_row *row;
	double val;
	size_t i;

	if (!f)
		bench_die(errno, "open %s", path);
	memset(r, 0, sizeof(*r));
	while (fgets(line, sizeof(line), f)) {
		/* A guest's serial console ends its lines with CR LF. */
		line[strcspn(line, "\r\n")] = '\0';
		if (sscanf(line, "%15s %47s", kind, id) != 2)
			continue;
		if (!strcmp(kind, "ROW")) {
			if (res_find(r, id))
				continue;
			r->rows = grow(r->rows, r->nrows + 1, sizeof(*row));
			row = &r->rows[r->nrows++];
			memset(row, 0, sizeof(*row));
			snprintf(row->id, sizeof(row->id), "%s", id);
			if (sscanf(line, "%*s %*s %23s %23s", row->unit,
				   row->goal) != 2)
				bench_die(0, "bad ROW line: %s", line);
			rest(line, 4, row->title, sizeof(row->title));
		} else if (!strcmp(kind, "VAL")) {
			row = res_find(r, id);
			if (!row || sscanf(line, "%*s %*s %15s %lf", side, &val) != 2)
				continue;
			if (!strcmp(side, "pmc") && row->npmc < RES_MAX_VALS)
				row->pmc[row->npmc++] = val;
			else if (!strcmp(side, "base") && row->nbase < RES_MAX_VALS)
				row->base[row->nbase++] = val;
		} else if (!strcmp(kind, "NOTE")) {
			row = res_find(r, id);
			if (row)
				rest(line, 2, row->note, sizeof(row->note));
		} else if (!strcmp(kind, "STATUS")) {
			struct res_status *s;

			if (sscanf(line, "%*s %*s %47s", word) != 1)
				continue;
			r->status = grow(r->status, r->nstatus + 1, sizeof(*s));
			s = &r->status[r->nstatus++];
			memset(s, 0, sizeof(*s));
			snprintf(s->name, sizeof(s->name), "%s", id);
			s->ok = !strcmp(word, "ok");
			rest(line, 3, s->why, sizeof(s->why));
		}
	}
	fclose(f);
	for (i = 0; i < r->nrows; i++)
		judge(&r->rows[i]);
}

void res_free(struct results *r)
{
	free(r->rows);
	free(r->status);
	memset(r, 0, sizeof(*r));
}
