// SPDX-License-Identifier: GPL-2.0
/*
 * caps.c - the CPU's counter capabilities as plain lists, and the -h listing
 * in the layout of illumos' caps.c (cpustat -h, cputrack -h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"

int name_list_add(struct name_list *l, const char *name)
{
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? l->cap * 2 : 16;
		char **names = realloc(l->names, cap * sizeof(*names));

		if (!names)
			return -1;
		l->names = names;
		l->cap = cap;
	}
	l->names[l->n] = strdup(name);
	if (!l->names[l->n])
		return -1;
	l->n++;
	return 0;
}

bool name_list_has(const struct name_list *l, const char *name)
{
	for (unsigned int i = 0; i < l->n; i++)
		if (strcmp(l->names[i], name) == 0)
			return true;
	return false;
}

static bool name_lists_equal(const struct name_list *a, const struct name_list *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned int i = 0; i < a->n; i++)
		if (strcmp(a->names[i], b->names[i]) != 0)
			return false;
	return true;
}

void name_list_free(struct name_list *l)
{
	for (unsigned int i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

int caps_init(struct cpu_caps *caps, unsigned int npic)
{
	memset(caps, 0, sizeof(*caps));
	caps->npic = npic;
	caps->events = calloc(npic ? npic : 1, sizeof(*caps->events));
	caps->generic = calloc(npic ? npic : 1, sizeof(*caps->generic));
	if (!caps->events || !caps->generic) {
		caps_free(caps);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void caps_free(struct cpu_caps *caps)
{
	for (unsigned int i = 0; caps->events && i < caps->npic; i++)
		name_list_free(&caps->events[i]);
	for (unsigned int i = 0; caps->generic && i < caps->npic; i++)
		name_list_free(&caps->generic[i]);
	free(caps->events);
	free(caps->generic);
	name_list_free(&caps->attrs);
	free(caps->cciname);
	free(caps->cpuref);
	memset(caps, 0, sizeof(*caps));
}

bool caps_can_count(const struct cpu_caps *caps, unsigned int pic, const char *event)
{
	char *end;
	long code;

	if (pic >= caps->npic || !event || !*event)
		return false;
	if (name_list_has(&caps->events[pic], event) ||
	    name_list_has(&caps->generic[pic], event))
		return true;
	/* A raw event code; the tools refuse 0 although libcpc takes it. */
	errno = 0;
	code = strtol(event, &end, 0);
	if (errno == 0 && *end == '\0')
		return code != 0;
	return caps->resolves && caps->resolves(caps->resolves_ctx, pic, event);
}

/* Attributes the tools handle themselves or never show. */
static bool attr_hidden(const char *attr)
{
	return strcmp(attr, "picnum") == 0 ||
	       strcmp(attr, "count_sibling_usr") == 0 ||
	       strcmp(attr, "count_sibling_sys") == 0;
}

bool caps_has_attr(const struct cpu_caps *caps, const char *attr)
{
	return !attr_hidden(attr) && name_list_has(&caps->attrs, attr);
}

/* Word wrapping as caps.c does it: break before column 76, indent MARGIN. */
struct wrap {
	FILE *fp;
	unsigned int col;
	unsigned int margin;
};

static void wrap_word(struct wrap *w, const char *word)
{
	if (w->col + strlen(word) + 1 > 76) {
		fprintf(w->fp, "\n%*s", (int)w->margin, "");
		w->col = w->margin;
	}
	w->col += fprintf(w->fp, "%s ", word);
}

static void print_list(FILE *fp, const struct name_list *l)
{
	struct wrap w = { fp, 17, 17 };

	for (unsigned int i = 0; i < l->n; i++)
		wrap_word(&w, l->names[i]);
}

static bool pics_differ(const struct cpu_caps *caps)
{
	for (unsigned int i = 1; i < caps->npic; i++)
		if (!name_lists_equal(&caps->events[0], &caps->events[i]))
			return true;
	return false;
}

static void print_section(FILE *fp, const struct cpu_caps *caps,
			  const struct name_list *lists, bool differ)
{
	if (caps->npic == 0) {
		fputc('\n', fp);
		return;
	}
	if (!differ) {
		fprintf(fp, "\n\tevent[0-%u]: ", caps->npic - 1);
		print_list(fp, &lists[0]);
	} else {
		for (unsigned int i = 0; i < caps->npic; i++) {
			fprintf(fp, "\n\tevent%u: %s", i, i < 10 ? " " : "");
			print_list(fp, &lists[i]);
		}
	}
	fputc('\n', fp);
}

/* The reference string, word-wrapped, each line starting with a tab. */
static void print_cpuref(FILE *fp, const char *ref)
{
	unsigned int col = 8;
	const char *p = ref;

	fputc('\t', fp);
	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " \n\t");
		if (col > 8 && col + n + 1 > 76) {
			fputs("\n\t", fp);
			col = 8;
		}
		if (col > 8) {
			fputc(' ', fp);
			col++;
		}
		fwrite(p, 1, n, fp);
		col += n;
		p += n;
	}
	fputc('\n', fp);
}

void caps_print(FILE *fp, const struct cpu_caps *caps)
{
	bool differ = pics_differ(caps);
	struct wrap w = { fp, 20, 20 };

	fprintf(fp, "\tCPU performance counter interface: %s\n\n",
		caps->cciname ? caps->cciname : "No information available");
	fprintf(fp, "\tevent specification syntax:\n");
	fprintf(fp, "\t[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>"
		"[,attr[n][=<val>]],...]\n");

	fprintf(fp, "\n\tGeneric Events:\n");
	print_section(fp, caps, caps->generic, differ);
	fprintf(fp, "\n\tSee generic_events(3CPC) for descriptions of these events\n\n");

	fprintf(fp, "\tPlatform Specific Events:\n");
	print_section(fp, caps, caps->events, differ);

	fprintf(fp, "\n\tattributes: ");
	for (unsigned int i = 0; i < caps->attrs.n; i++)
		if (!attr_hidden(caps->attrs.names[i]))
			wrap_word(&w, caps->attrs.names[i]);
	wrap_word(&w, "nouser");
	wrap_word(&w, "sys");
	fputc('\n', fp);

	if (caps->cpuref && *caps->cpuref) {
		fputc('\n', fp);
		print_cpuref(fp, caps->cpuref);
	}
}
