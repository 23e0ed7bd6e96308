// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - turn bench/run-all's raw results into the benchmark table
 * (text or Markdown), the same in JSON, and the TAP of the bench-smoke
 * check step. Runs on the host.
 *
 *   bench-report RAW [--markdown] [--json FILE] [--tap FILE]
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/results.h"
#include "lib/timing.h"

static const char *num(double v, char *buf, size_t size)
{
	double a = v < 0 ? -v : v;

	if (a >= 1000)
		snprintf(buf, size, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.2f", v);
	return buf;
}

/* "median [min..max]", or "-" with no figures. */
static const char *cell(const struct bench_stats *s, char *buf, size_t size)
{
	char a[32], b[32], c[32];

	if (!s->n)
		return snprintf(buf, size, "-"), buf;
	if (s->n == 1)
		snprintf(buf, size, "%s", num(s->median, a, sizeof(a)));
	else
		snprintf(buf, size, "%s [%s..%s]", num(s->median, a, sizeof(a)),
			 num(s->min, b, sizeof(b)), num(s->max, c, sizeof(c)));
	return buf;
}

/* "median [min..max]" of the paired ratios, or the ratio of the medians. */
static const char *ratio(const struct res_row *row, char *buf, size_t size)
{
	if (row->ratio == 0)
		return "-";
	if (row->sratio.n > 1)
		snprintf(buf, size, "%.2f [%.2f..%.2f]", row->ratio,
			 row->sratio.min, row->sratio.max);
	else
		snprintf(buf, size, "%.2f", row->ratio);
	return buf;
}

static void table(const struct results *r, int markdown)
{
	char p[64], b[64], q[48];
	size_t i;

	if (markdown)
		printf("| id | benchmark | unit | pmc median [min..max] | baseline median [min..max] | ratio [min..max] | goal | result |\n"
		       "| --- | --- | --- | ---: | ---: | ---: | --- | --- |\n");
	else
		printf("%-16s %-64s %-9s %-26s %-26s %-18s %-11s %s\n", "id",
		       "benchmark", "unit", "pmc median [min..max]",
		       "baseline median [min..max]", "ratio [min..max]", "goal",
		       "result");
	for (i = 0; i < r->nrows; i++) {
		const struct res_row *row = &r->rows[i];
		const char *verdict = row->verdict;
		char title[300];

		snprintf(title, sizeof(title), "%s%s%s%s", row->title,
			 row->note[0] ? " (" : "", row->note,
			 row->note[0] ? ")" : "");
		if (markdown)
			printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			       row->id, title, row->unit,
			       cell(&row->spmc, p, sizeof(p)),
			       cell(&row->sbase, b, sizeof(b)),
			       ratio(row, q, sizeof(q)), row->goal,
			       strncmp(verdict, "miss", 4) ? verdict :
			       !strcmp(verdict, "miss") ? "**miss**" : "**miss?**");
		else
			printf("%-16s %-64s %-9s %-26s %-26s %-18s %-11s %s\n",
			       row->id, title, row->unit,
			       cell(&row->spmc, p, sizeof(p)),
			       cell(&row->sbase, b, sizeof(b)),
			       ratio(row, q, sizeof(q)), row->goal, verdict);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_stats(FILE *f, const char *name, const struct bench_stats *s,
		       const double *v)
{
	size_t i;

	fprintf(f, "\"%s\": ", name);
	if (!s->n) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"median\": %.6g, \"min\": %.6g, \"max\": %.6g, \"n\": %zu, \"values\": [",
		s->median, s->min, s->max, s->n);
	for (i = 0; i < s->n; i++)
		fprintf(f, "%s%.6g", i ? ", " : "", v[i]);
	fputs("]}", f);
}

static void json(const struct results *r, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		bench_die(errno, "create %s", path);
	fputs("{\n  \"rows\": [\n", f);
	for (i = 0; i < r->nrows; i++) {
		const struct res_row *row = &r->rows[i];

		fputs("    {\"id\": ", f);
		json_str(f, row->id);
		fputs(", \"title\": ", f);
		json_str(f, row->title);
		fputs(", \"unit\": ", f);
		json_str(f, row->unit);
		fputs(", ", f);
		json_stats(f, "pmc", &row->spmc, row->pmc);
		fputs(", ", f);
		json_stats(f, "baseline", &row->sbase, row->base);
		if (row->ratio != 0)
			fprintf(f, ", \"ratio\": %.4g", row->ratio);
		else
			fputs(", \"ratio\": null", f);
		if (row->sratio.n)
			fprintf(f, ", \"ratio_pairs\": {\"median\": %.4g, \"min\": %.4g, \"max\": %.4g, \"n\": %zu}",
				row->sratio.median, row->sratio.min,
				row->sratio.max, row->sratio.n);
		fputs(", \"goal\": ", f);
		json_str(f, row->goal);
		fputs(", \"result\": ", f);
		json_str(f, row->verdict);
		fputs(", \"note\": ", f);
		json_str(f, row->note);
		fprintf(f, "}%s\n", i + 1 < r->nrows ? "," : "");
	}
	fputs("  ],\n  \"runs\": [\n", f);
	for (i = 0; i < r->nstatus; i++) {
		fputs("    {\"name\": ", f);
		json_str(f, r->status[i].name);
		fprintf(f, ", \"ok\": %s}%s\n", r->status[i].ok ? "true" : "false",
			i + 1 < r->nstatus ? "," : "");
	}
	fputs("  ]\n}\n", f);
	if (fclose(f))
		bench_die(errno, "write %s", path);
}

static void tap(const struct results *r, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		bench_die(errno, "create %s", path);
	if (!r->nstatus)
		fputs("not ok 1 bench: no benchmark reported (see the VM output)\n", f);
	for (i = 0; i < r->nstatus; i++) {
		const struct res_status *s = &r->status[i];

		fprintf(f, "%sok %zu bench %s runs%s%s\n", s->ok ? "" : "not ",
			i + 1, s->name, s->why[0] ? " # " : "", s->why);
	}
	if (fclose(f))
		bench_die(errno, "write %s", path);
}

int main(int argc, char **argv)
{
	const char *json_path = NULL, *tap_path = NULL, *raw = NULL;
	struct results r;
	int markdown = 0, i;

	bench_init(argv[0]);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--markdown"))
			markdown = 1;
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json_path = argv[++i];
		else if (!strcmp(argv[i], "--tap") && i + 1 < argc)
			tap_path = argv[++i];
		else if (!raw && argv[i][0] != '-')
			raw = argv[i];
		else
			bench_die(0, "usage: bench-report RAW [--markdown] [--json FILE] [--tap FILE]");
	}
	if (!raw)
		bench_die(0, "usage: bench-report RAW [--markdown] [--json FILE] [--tap FILE]");
	res_load(raw, &r);
	table(&r, markdown);
	if (json_path)
		json(&r, json_path);
	if (tap_path)
		tap(&r, tap_path);
	res_free(&r);
	return 0;
}
