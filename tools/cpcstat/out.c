// SPDX-License-Identifier: GPL-2.0
/*
 * out.c - count lines in the exact printf formats of illumos cpustat.c and
 * cputrack.c, or as CSV / JSON lines with the same fields.
 */
#include <inttypes.h>
#include <string.h>

#include "out.h"

void json_string(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", fp);
		else if (c == '\t')
			fputs("\\t", fp);
		else if (c < 0x20)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

void csv_field(FILE *fp, const char *sep, const char *s)
{
	if (!strstr(s, sep) && !strpbrk(s, "\"\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void title_human(const struct out *o, const struct spec_set *set)
{
	char col[32];

	if (o->tool == OUT_CPUSTAT) {
		fprintf(o->fp, "%7s %3s %5s ", "time", "cpu", "event");
	} else {
		fprintf(o->fp, "%7s ", "time");
		if (o->pid)
			fprintf(o->fp, "%6s ", "pid");
		fprintf(o->fp, "%3s %10s ", "lwp", "event");
	}
	if (o->tsc)
		fprintf(o->fp, "%9s ", "tsc");
	for (unsigned int i = 0; i < set->nreqs; i++) {
		spec_column(set, i, col, sizeof(col));
		fputs(col, o->fp);
	}
	fputc('\n', o->fp);
}

static void title_csv(const struct out *o, const struct spec_set *set)
{
	fputs("time", o->fp);
	if (o->tool == OUT_CPUSTAT) {
		fprintf(o->fp, "%scpu", o->sep);
	} else {
		if (o->pid)
			fprintf(o->fp, "%spid", o->sep);
		fprintf(o->fp, "%slwp", o->sep);
	}
	fprintf(o->fp, "%sevent", o->sep);
	if (o->tsc)
		fprintf(o->fp, "%stsc", o->sep);
	for (unsigned int i = 0; i < set->nreqs; i++)
		fprintf(o->fp, "%spic%u", o->sep, set->reqs[i].pic);
	if (o->several_sets)
		fprintf(o->fp, "%sset", o->sep);
	fputc('\n', o->fp);
}

void out_title(const struct out *o, const struct spec_set *first)
{
	if (o->format == OUT_HUMAN)
		title_human(o, first);
	else if (o->format == OUT_CSV)
		title_csv(o, first);
}

static void sample_human(const struct out *o, const struct out_sample *s)
{
	if (o->tool == OUT_CPUSTAT) {
		fprintf(o->fp, "%7.3f %3d %5s ", s->time, s->id, s->label);
	} else {
		fprintf(o->fp, "%7.3f ", s->time);
		if (o->pid)
			fprintf(o->fp, "%6d ", (int)s->pid);
		fprintf(o->fp, "%3d %10s ", s->id, s->label);
	}
	if (o->tsc)
		fprintf(o->fp, "%9" PRId64 " ", (int64_t)s->tsc);
	for (unsigned int i = 0; i < s->set->nreqs; i++)
		fprintf(o->fp, "%9" PRId64 " ", (int64_t)s->values[i]);
	if (o->several_sets)
		fprintf(o->fp, " # %s\n", s->set->text);
	else
		fputc('\n', o->fp);
}

static void sample_csv(const struct out *o, const struct out_sample *s)
{
	fprintf(o->fp, "%.3f", s->time);
	if (o->tool == OUT_CPUTRACK && o->pid)
		fprintf(o->fp, "%s%d", o->sep, (int)s->pid);
	fprintf(o->fp, "%s%d%s", o->sep, s->id, o->sep);
	csv_field(o->fp, o->sep, s->label);
	if (o->tsc)
		fprintf(o->fp, "%s%" PRIu64, o->sep, s->tsc);
	for (unsigned int i = 0; i < s->set->nreqs; i++)
		fprintf(o->fp, "%s%" PRIu64, o->sep, s->values[i]);
	if (o->several_sets) {
		fputs(o->sep, o->fp);
		csv_field(o->fp, o->sep, s->set->text);
	}
	fputc('\n', o->fp);
}

static void json_head(const struct out *o, double time, pid_t pid, int id,
		      const char *label, bool total)
{
	fprintf(o->fp, "{\"time\":%.3f,", time);
	if (o->tool == OUT_CPUSTAT)
		fprintf(o->fp, "\"%s\":%d,", total ? "ncpus" : "cpu", id);
	else
		fprintf(o->fp, "\"pid\":%d,\"lwp\":%d,", (int)pid, id);
	fputs("\"label\":", o->fp);
	json_string(o->fp, label);
}

static void sample_json(const struct out *o, const struct out_sample *s)
{
	const struct spec_set *set = s->set;

	json_head(o, s->time, s->pid, s->id, s->label,
		  o->tool == OUT_CPUSTAT && strcmp(s->label, "total") == 0);
	if (o->tsc)
		fprintf(o->fp, ",\"tsc\":%" PRIu64, s->tsc);
	fputs(",\"set\":", o->fp);
	json_string(o->fp, set->text);
	fputs(",\"counters\":[", o->fp);
	for (unsigned int i = 0; i < set->nreqs; i++) {
		fprintf(o->fp, "%s{\"pic\":%u,\"event\":", i ? "," : "", set->reqs[i].pic);
		json_string(o->fp, set->reqs[i].event);
		fprintf(o->fp, ",\"value\":%" PRIu64 "}", s->values[i]);
	}
	fputs("]}\n", o->fp);
}

void out_sample(const struct out *o, const struct out_sample *s)
{
	if (o->format == OUT_HUMAN)
		sample_human(o, s);
	else if (o->format == OUT_CSV)
		sample_csv(o, s);
	else
		sample_json(o, s);
}

/* The start of a cputrack marker line: time, [pid], lwp, label, [blank tsc]. */
static void marker_human(const struct out *o, double time, pid_t pid, int lwp,
			 const char *label)
{
	fprintf(o->fp, "%7.3f ", time);
	if (o->pid)
		fprintf(o->fp, "%6d ", (int)pid);
	fprintf(o->fp, "%3d %10s ", lwp, label);
	if (o->tsc)
		fprintf(o->fp, "%9s ", "");
	/* Always two blank columns, whatever the number of counters. */
	fprintf(o->fp, "%9s %9s # ", "", "");
}

static void marker_csv(const struct out *o, double time, pid_t pid, int lwp,
		       const char *label, const char *note)
{
	fprintf(o->fp, "%.3f", time);
	if (o->pid)
		fprintf(o->fp, "%s%d", o->sep, (int)pid);
	fprintf(o->fp, "%s%d%s%s", o->sep, lwp, o->sep, label);
	if (o->tsc)
		fputs(o->sep, o->fp);
	fputs(o->sep, o->fp);
	csv_field(o->fp, o->sep, note);
	fputc('\n', o->fp);
}

void out_exec(const struct out *o, double time, pid_t pid, int lwp, const char *cmd)
{
	char note[4096];

	switch (o->format) {
	case OUT_HUMAN:
		marker_human(o, time, pid, lwp, "exec");
		fprintf(o->fp, "'%s'\n", cmd);
		break;
	case OUT_CSV:
		snprintf(note, sizeof(note), "'%s'", cmd);
		marker_csv(o, time, pid, lwp, "exec", note);
		break;
	case OUT_JSON:
		json_head(o, time, pid, lwp, "exec", false);
		fputs(",\"command\":", o->fp);
		json_string(o->fp, cmd);
		fputs("}\n", o->fp);
		break;
	}
}

void out_fork(const struct out *o, double time, pid_t pid, int lwp, pid_t child)
{
	char note[32];

	switch (o->format) {
	case OUT_HUMAN:
		marker_human(o, time, pid, lwp, "fork");
		fprintf(o->fp, "%d\n", (int)child);
		break;
	case OUT_CSV:
		snprintf(note, sizeof(note), "%d", (int)child);
		marker_csv(o, time, pid, lwp, "fork", note);
		break;
	case OUT_JSON:
		json_head(o, time, pid, lwp, "fork", false);
		fprintf(o->fp, ",\"child\":%d}\n", (int)child);
		break;
	}
}
