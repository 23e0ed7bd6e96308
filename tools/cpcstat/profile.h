/* SPDX-License-Identifier: GPL-2.0 */
/*
 * profile.h - symbolized samples aggregated two ways: a flat table (by
 * function, object or process) with self and inclusive counts, and a
 * top-down call tree (process, then outermost caller ... sampled function)
 * from which the callgraph, the folded stacks and the flame graph are drawn.
 */
#ifndef CPCSTAT_PROFILE_H
#define CPCSTAT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum sort_key { SORT_SYM, SORT_DSO, SORT_PID };

/* One frame of a sample; strings are interned (compared by pointer). */
struct frame {
	const char *sym;
	const char *dso;
};

struct cg_node {
	const char *sym;	/* process level: its command, named by profile_finish */
	pid_t pid;		/* process level, before naming merges them */
	const char *dso;
	uint64_t total;		/* samples in this node and below */
	uint64_t self;		/* samples whose sampled function is this node */
	struct cg_node *children;
	struct cg_node *next;	/* sibling */
};

struct flat_entry {
	const char *name;	/* function, object or command */
	const char *dso;	/* SORT_SYM: the function's object */
	pid_t pid;		/* SORT_PID */
	uint64_t self;
	uint64_t total;
};

struct profile {
	enum sort_key sort;
	uint64_t samples;
	bool callchains;	/* some sample had more than one frame */
	struct cg_node root;	/* children: one per command */
	struct flat_entry *flat;
	size_t nflat, capflat;
	size_t *index;		/* hash of flat entries: slot -> entry + 1 */
	size_t capindex;
};

void profile_init(struct profile *prof, enum sort_key sort);
/* FRAMES[0] is the sampled function, then its callers; PID the process. */
int profile_add(struct profile *prof, pid_t pid, const struct frame *frames, unsigned int n);
/*
 * Name the processes with NAME(CTX, pid) (interned strings; a process is
 * named once the whole log is read, after its last exec), merge the call
 * trees of processes with the same name, sort the flat table and every
 * node's children, largest first.
 */
void profile_finish(struct profile *prof, const char *(*name)(void *ctx, pid_t pid), void *ctx);
void profile_free(struct profile *prof);

static inline double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

#endif /* CPCSTAT_PROFILE_H */
