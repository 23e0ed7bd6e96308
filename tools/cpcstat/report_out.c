// SPDX-License-Identifier: GPL-2.0
/* report_out.c - the top table, call tree, folded stacks and JSON of a profile. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_out.h"

static const char *sort_name(enum sort_key s)
{
	return s == SORT_DSO ? "dso" : s == SORT_PID ? "pid" : "sym";
}

static unsigned int shown(const struct profile *prof, unsigned int limit)
{
	return limit && limit < prof->nflat ? limit : (unsigned int)prof->nflat;
}

static void top_human(FILE *fp, const struct profile *prof, const struct report_info *info,
		      unsigned int n)
{
	bool total = prof->callchains && prof->sort != SORT_PID;
	int w = 6;

	fprintf(fp, "# %" PRIu64 " samples of %s, %" PRIu64 " lost, %.3f s, %lu process%s\n",
		prof->samples, info->events ? info->events : "?", info->dropped,
		info->duration, info->nprocs, info->nprocs == 1 ? "" : "es");
	for (unsigned int i = 0; i < n; i++) {
		int len = (int)strlen(prof->flat[i].name ? prof->flat[i].name : "");

		if (len > w)
			w = len < 60 ? len : 60;
	}
	fprintf(fp, "#\n#  %7s", "Self");
	if (total)
		fprintf(fp, " %7s", "Total");
	fprintf(fp, " %9s  ", "Samples");
	switch (prof->sort) {
	case SORT_PID:
		fprintf(fp, "%7s  %s\n", "PID", "Command");
		break;
	case SORT_DSO:
		fprintf(fp, "%s\n", "Object");
		break;
	default:
		fprintf(fp, "%-*s  %s\n", w, "Symbol", "Object");
		break;
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct flat_entry *e = &prof->flat[i];

		fprintf(fp, "   %6.2f%%", pct(e->self, prof->samples));
		if (total)
			fprintf(fp, " %6.2f%%", pct(e->total, prof->samples));
		fprintf(fp, " %9" PRIu64 "  ", e->self);
		switch (prof->sort) {
		case SORT_PID:
			fprintf(fp, "%7d  %s\n", (int)e->pid, e->name);
			break;
		case SORT_DSO:
			fprintf(fp, "%s\n", e->name);
			break;
		default:
			fprintf(fp, "%-*s  %s\n", w, e->name, e->dso);
			break;
		}
	}
}

static void top_csv(FILE *fp, const struct profile *prof, const char *sep, unsigned int n)
{
	const char *key = prof->sort == SORT_PID ? "pid" : prof->sort == SORT_DSO ? "object" : "symbol";

	fprintf(fp, "self_pct%stotal_pct%ssamples%s%s", sep, sep, sep, key);
	if (prof->sort == SORT_SYM)
		fprintf(fp, "%sobject", sep);
	if (prof->sort == SORT_PID)
		fprintf(fp, "%scommand", sep);
	fputc('\n', fp);
	for (unsigned int i = 0; i < n; i++) {
		const struct flat_entry *e = &prof->flat[i];

		fprintf(fp, "%.2f%s%.2f%s%" PRIu64 "%s", pct(e->self, prof->samples), sep,
			pct(e->total, prof->samples), sep, e->self, sep);
		if (prof->sort == SORT_PID) {
			fprintf(fp, "%d%s", (int)e->pid, sep);
			csv_field(fp, sep, e->name);
		} else {
			csv_field(fp, sep, e->name);
			if (prof->sort == SORT_SYM) {
				fputs(sep, fp);
				csv_field(fp, sep, e->dso);
			}
		}
		fputc('\n', fp);
	}
}

void report_top(FILE *fp, const struct profile *prof, const struct report_info *info,
		enum out_format format, const char *sep, unsigned int limit)
{
	unsigned int n = shown(prof, limit);

	if (format == OUT_CSV)
		top_csv(fp, prof, sep, n);
	else if (format == OUT_JSON)
		report_json(fp, prof, info, false, limit);
	else
		top_human(fp, prof, info, n);
}

static void callgraph_node(FILE *fp, const struct cg_node *node, uint64_t all, int depth)
{
	for (const struct cg_node *c = node->children; c; c = c->next) {
		if (pct(c->total, all) < CALLGRAPH_MIN_PCT)
			continue;
		fprintf(fp, "%7.2f%% %7.2f%%  %*s%s", pct(c->total, all), pct(c->self, all),
			2 * depth, "", c->sym);
		/* Pseudo objects ("[kernel.kallsyms]") bring their own brackets. */
		if (c->dso)
			fprintf(fp, c->dso[0] == '[' ? "  %s" : "  [%s]", c->dso);
		fputc('\n', fp);
		callgraph_node(fp, c, all, depth + 1);
	}
}

void report_callgraph(FILE *fp, const struct profile *prof)
{
	fprintf(fp, "#\n# Call graph (callers above callees; nodes under %.1f%% left out)\n#\n",
		CALLGRAPH_MIN_PCT);
	fprintf(fp, "#  %7s %7s  %s\n", "Total", "Self", "Function  [Object]");
	callgraph_node(fp, &prof->root, prof->root.total, 0);
}

/* Folded frames: ';' separates frames, so it may not appear in one. */
static void folded_name(FILE *fp, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s == ' ' ? '_' : *s, fp);
}

struct path {
	const struct cg_node *nodes[1100];
	int depth;
};

static void folded_node(FILE *fp, const struct cg_node *node, struct path *path)
{
	if (path->depth >= (int)(sizeof(path->nodes) / sizeof(path->nodes[0])))
		return;
	path->nodes[path->depth++] = node;
	if (node->self) {
		for (int i = 0; i < path->depth; i++) {
			if (i)
				fputc(';', fp);
			folded_name(fp, path->nodes[i]->sym);
		}
		fprintf(fp, " %" PRIu64 "\n", node->self);
	}
	for (const struct cg_node *c = node->children; c; c = c->next)
		folded_node(fp, c, path);
	path->depth--;
}

void report_folded(FILE *fp, const struct profile *prof)
{
	struct path *path = calloc(1, sizeof(*path));

	if (!path)
		return;
	for (const struct cg_node *c = prof->root.children; c; c = c->next)
		folded_node(fp, c, path);
	free(path);
}

static void json_node(FILE *fp, const struct cg_node *node, uint64_t all)
{
	bool first = true;

	fputs("{\"name\":", fp);
	json_string(fp, node->sym);
	if (node->dso) {
		fputs(",\"object\":", fp);
		json_string(fp, node->dso);
	}
	fprintf(fp, ",\"total\":%" PRIu64 ",\"self\":%" PRIu64 ",\"children\":[",
		node->total, node->self);
	for (const struct cg_node *c = node->children; c; c = c->next) {
		if (pct(c->total, all) < CALLGRAPH_MIN_PCT)
			continue;
		if (!first)
			fputc(',', fp);
		first = false;
		json_node(fp, c, all);
	}
	fputs("]}", fp);
}

void report_json(FILE *fp, const struct profile *prof, const struct report_info *info,
		 bool callgraph, unsigned int limit)
{
	unsigned int n = shown(prof, limit);

	fprintf(fp, "{\"samples\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"duration\":%.3f,"
		"\"processes\":%lu,\"events\":", prof->samples, info->dropped,
		info->duration, info->nprocs);
	json_string(fp, info->events ? info->events : "");
	fprintf(fp, ",\"sort\":\"%s\",\"entries\":[", sort_name(prof->sort));
	for (unsigned int i = 0; i < n; i++) {
		const struct flat_entry *e = &prof->flat[i];

		fputs(i ? ",{" : "{", fp);
		if (prof->sort == SORT_PID) {
			fprintf(fp, "\"pid\":%d,\"command\":", (int)e->pid);
			json_string(fp, e->name);
		} else if (prof->sort == SORT_DSO) {
			fputs("\"object\":", fp);
			json_string(fp, e->name);
		} else {
			fputs("\"symbol\":", fp);
			json_string(fp, e->name);
			fputs(",\"object\":", fp);
			json_string(fp, e->dso);
		}
		fprintf(fp, ",\"samples\":%" PRIu64 ",\"self_pct\":%.2f,\"total_pct\":%.2f}",
			e->self, pct(e->self, prof->samples), pct(e->total, prof->samples));
	}
	fputc(']', fp);
	if (callgraph) {
		const struct cg_node root = { .sym = "all", .total = prof->root.total,
					      .children = prof->root.children };

		fputs(",\"callgraph\":", fp);
		json_node(fp, &root, prof->root.total);
	}
	fputs("}\n", fp);
}
