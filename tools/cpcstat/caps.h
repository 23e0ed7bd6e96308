/* SPDX-License-Identifier: GPL-2.0 */
/*
 * caps.h - what the CPU's counters offer (events per counter, attributes,
 * names), gathered once from libcpc so the parser and the -h listing can be
 * tested without it.
 */
#ifndef CPCSTAT_CAPS_H
#define CPCSTAT_CAPS_H

#include <stdbool.h>
#include <stdio.h>

struct name_list {
	char **names;
	unsigned int n;
	unsigned int cap;
};

struct cpu_caps {
	unsigned int npic;
	struct name_list *events;	/* [npic]: platform events of each counter */
	struct name_list *generic;	/* [npic]: PAPI_* events of each counter */
	struct name_list attrs;		/* PCBE attributes, picnum included */
	char *cciname;
	char *cpuref;
	/*
	 * The names the lists leave out (pmc(3) aliases, libpfm4 names with
	 * modifiers, FreeBSD's spellings: docs/events.md), asked of libcpc's
	 * resolver; NULL where there is no libcpc (host tests).
	 */
	bool (*resolves)(void *ctx, unsigned int pic, const char *event);
	void *resolves_ctx;
};

int name_list_add(struct name_list *l, const char *name);
bool name_list_has(const struct name_list *l, const char *name);
void name_list_free(struct name_list *l);

/* Allocate empty lists for NPIC counters. */
int caps_init(struct cpu_caps *caps, unsigned int npic);
void caps_free(struct cpu_caps *caps);

/*
 * Can counter PIC count EVENT (a listed name, a non-zero raw code, or a
 * name the resolves() hook accepts)?
 */
bool caps_can_count(const struct cpu_caps *caps, unsigned int pic, const char *event);
/* Is ATTR an attribute users may give (listed, and not picnum)? */
bool caps_has_attr(const struct cpu_caps *caps, const char *attr);

/* The -h capability listing, illumos caps.c layout. */
void caps_print(FILE *fp, const struct cpu_caps *caps);

#endif /* CPCSTAT_CAPS_H */
