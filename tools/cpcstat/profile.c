// SPDX-License-Identifier: GPL-2.0
/* profile.c - aggregation of symbolized samples into a flat table and a call tree. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

#define MAX_FRAMES	1024

void profile_init(struct profile *prof, enum sort_key sort)
{
	memset(prof, 0, sizeof(*prof));
	prof->sort = sort;
}

static size_t key_hash(const struct profile *prof, const struct flat_entry *e)
{
	uintptr_t h;

	switch (prof->sort) {
	case SORT_PID:
		h = (uintptr_t)e->pid * 0x9e3779b97f4a7c15ULL;
		break;
	case SORT_DSO:
		h = (uintptr_t)e->name * 0x9e3779b97f4a7c15ULL;
		break;
	default:
		h = ((uintptr_t)e->name * 31 + (uintptr_t)e->dso) * 0x9e3779b97f4a7c15ULL;
		break;
	}
	return (size_t)(h >> 17);
}

static bool key_equal(const struct profile *prof, const struct flat_entry *a,
		      const struct flat_entry *b)
{
	if (prof->sort == SORT_PID)
		return a->pid == b->pid;
	return a->name == b->name && a->dso == b->dso;
}

static int grow_index(struct profile *prof)
{
	size_t cap = prof->capindex ? prof->capindex * 2 : 256;
	size_t *index = calloc(cap, sizeof(*index));

	if (!index)
		return -1;
	for (size_t e = 0; e < prof->nflat; e++) {
		size_t i = key_hash(prof, &prof->flat[e]) & (cap - 1);

		while (index[i])
			i = (i + 1) & (cap - 1);
		index[i] = e + 1;
	}
	free(prof->index);
	prof->index = index;
	prof->capindex = cap;
	return 0;
}

/* The flat entry for KEY, created with zero counts; its index, or -1. */
static long flat_get(struct profile *prof, const struct flat_entry *key)
{
	size_t i;

	if ((prof->nflat + 1) * 2 > prof->capindex && grow_index(prof))
		return -1;
	for (i = key_hash(prof, key) & (prof->capindex - 1); prof->index[i];
	     i = (i + 1) & (prof->capindex - 1))
		if (key_equal(prof, &prof->flat[prof->index[i] - 1], key))
			return (long)prof->index[i] - 1;
	if (prof->nflat == prof->capflat) {
		size_t cap = prof->capflat ? prof->capflat * 2 : 256;
		struct flat_entry *flat = realloc(prof->flat, cap * sizeof(*flat));

		if (!flat)
			return -1;
		prof->flat = flat;
		prof->capflat = cap;
	}
	prof->flat[prof->nflat] = *key;
	prof->flat[prof->nflat].self = prof->flat[prof->nflat].total = 0;
	prof->index[i] = ++prof->nflat;
	return (long)prof->nflat - 1;
}

static void frame_key(const struct profile *prof, pid_t pid,
		      const struct frame *f, struct flat_entry *key)
{
	memset(key, 0, sizeof(*key));
	switch (prof->sort) {
	case SORT_PID:
		key->pid = pid;
		break;
	case SORT_DSO:
		key->name = f->dso;
		break;
	default:
		key->name = f->sym;
		key->dso = f->dso;
		break;
	}
}

static struct cg_node *child_get(struct cg_node *parent, const char *sym, const char *dso)
{
	struct cg_node *c;

	for (c = parent->children; c; c = c->next)
		if (c->sym == sym && c->dso == dso)
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->sym = sym;
	c->dso = dso;
	c->next = parent->children;
	parent->children = c;
	return c;
}

static struct cg_node *proc_get(struct cg_node *root, pid_t pid)
{
	struct cg_node *c;

	for (c = root->children; c; c = c->next)
		if (c->pid == pid)
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->pid = pid;
	c->next = root->children;
	root->children = c;
	return c;
}

int profile_add(struct profile *prof, pid_t pid, const struct frame *frames, unsigned int n)
{
	long seen[MAX_FRAMES];
	unsigned int nseen = 0;
	struct cg_node *node;

	if (n == 0)
		return 0;
	if (n > MAX_FRAMES)
		n = MAX_FRAMES;
	prof->samples++;
	if (n > 1)
		prof->callchains = true;

	/* Flat: self for the sampled frame, total once per distinct key. */
	for (unsigned int i = 0; i < n; i++) {
		struct flat_entry key;
		long e;
		bool dup = false;

		frame_key(prof, pid, &frames[i], &key);
		e = flat_get(prof, &key);
		if (e < 0)
			return -ENOMEM;
		if (i == 0)
			prof->flat[e].self++;
		for (unsigned int k = 0; k < nseen && !dup; k++)
			dup = seen[k] == e;
		if (!dup) {
			prof->flat[e].total++;
			seen[nseen++] = e;
		}
		if (prof->sort == SORT_PID)
			break;
	}

	/* Tree: process, then the outermost caller down to the sampled function. */
	prof->root.total++;
	node = proc_get(&prof->root, pid);
	if (!node)
		return -ENOMEM;
	node->total++;
	for (unsigned int i = n; i-- > 0;) {
		node = child_get(node, frames[i].sym, frames[i].dso);
		if (!node)
			return -ENOMEM;
		node->total++;
	}
	node->self++;
	return 0;
}

static int flat_cmp(const void *a, const void *b)
{
	const struct flat_entry *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->name && y->name ? strcmp(x->name, y->name) : 0;
}

static int node_cmp(const void *a, const void *b)
{
	const struct cg_node *x = *(struct cg_node *const *)a, *y = *(struct cg_node *const *)b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->sym ? x->sym : "", y->sym ? y->sym : "");
}

static void sort_children(struct cg_node *node)
{
	struct cg_node **v, *c;
	size_t n = 0, i = 0;

	for (c = node->children; c; c = c->next)
		n++;
	if (n > 1) {
		v = malloc(n * sizeof(*v));
		if (v) {
			for (c = node->children; c; c = c->next)
				v[i++] = c;
			qsort(v, n, sizeof(*v), node_cmp);
			for (i = 0; i + 1 < n; i++)
				v[i]->next = v[i + 1];
			v[n - 1]->next = NULL;
			node->children = v[0];
			free(v);
		}
	}
	for (c = node->children; c; c = c->next)
		sort_children(c);
}

static void free_children(struct cg_node *node);

/* Add SRC's counts and subtree to DST's, then free SRC. */
static void merge_node(struct cg_node *dst, struct cg_node *src)
{
	struct cg_node *c, *next;

	dst->total += src->total;
	dst->self += src->self;
	for (c = src->children; c; c = next) {
		struct cg_node *d;

		next = c->next;
		for (d = dst->children; d; d = d->next)
			if (d->sym == c->sym && d->dso == c->dso)
				break;
		if (d) {
			merge_node(d, c);
		} else {
			c->next = dst->children;
			dst->children = c;
		}
	}
	src->children = NULL;
	free(src);
}

/* One process-level node per name. */
static void merge_processes(struct cg_node *root)
{
	struct cg_node *c = root->children, *next, *kept = NULL;

	root->children = NULL;
	for (; c; c = next) {
		struct cg_node *d;

		next = c->next;
		for (d = kept; d; d = d->next)
			if (d->sym == c->sym)
				break;
		if (d) {
			merge_node(d, c);
		} else {
			c->next = kept;
			kept = c;
		}
	}
	root->children = kept;
}

void profile_finish(struct profile *prof, const char *(*name)(void *ctx, pid_t pid), void *ctx)
{
	for (struct cg_node *c = prof->root.children; c; c = c->next)
		c->sym = name(ctx, c->pid);
	if (prof->sort == SORT_PID)
		for (size_t i = 0; i < prof->nflat; i++)
			prof->flat[i].name = name(ctx, prof->flat[i].pid);
	merge_processes(&prof->root);
	if (prof->nflat)
		qsort(prof->flat, prof->nflat, sizeof(*prof->flat), flat_cmp);
	/* The index no longer matches the order: lookups are over. */
	free(prof->index);
	prof->index = NULL;
	prof->capindex = 0;
	sort_children(&prof->root);
}

static void free_children(struct cg_node *node)
{
	struct cg_node *c = node->children, *next;

	for (; c; c = next) {
		next = c->next;
		free_children(c);
		free(c);
	}
	node->children = NULL;
}

void profile_free(struct profile *prof)
{
	free_children(&prof->root);
	free(prof->flat);
	free(prof->index);
	memset(prof, 0, sizeof(*prof));
}
