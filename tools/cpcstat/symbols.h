/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symbols.h - addresses of sampled processes to function and object names,
 * through elfutils' libdwfl, from the exec and map records of the log (so the
 * processes may be long gone), /proc/PID/maps as a fallback for live ones,
 * and /proc/kallsyms for kernel addresses.
 */
#ifndef CPCSTAT_SYMBOLS_H
#define CPCSTAT_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "strpool.h"

struct symtab;

struct symbol {
	const char *sym;	/* function, or "0x<addr>" when unknown */
	const char *dso;	/* object basename, "[kernel.kallsyms]" or "[unknown]" */
};

/* Names live in POOL, which must outlive the symtab's users. */
struct symtab *symtab_new(struct strpool *pool);
void symtab_free(struct symtab *st);

/* PID exec'ed PATH: its old mappings are gone; DYNADDR is the PIE load base. */
void symtab_exec(struct symtab *st, pid_t pid, const char *path, uint64_t dynaddr);
/* An executable file mapping [START, END) of PATH at file offset PGOFF. */
void symtab_map_in(struct symtab *st, pid_t pid, uint64_t start, uint64_t end,
		   uint64_t pgoff, const char *path);
/*
 * A mapping known from elsewhere than the log (record's FILE.maps, read from
 * /proc): kept across exec records, used for addresses no mapping of the
 * log covers.
 */
void symtab_map_in_fallback(struct symtab *st, pid_t pid, uint64_t start, uint64_t end,
			    uint64_t pgoff, const char *path);
void symtab_map_out(struct symtab *st, pid_t pid, uint64_t start, uint64_t end);
/* CHILD starts with a copy of PARENT's mappings. */
void symtab_fork(struct symtab *st, pid_t parent, pid_t child);
/* Set the process name for PID (defaults to the exec'ed file's basename). */
void symtab_set_comm(struct symtab *st, pid_t pid, const char *comm);
const char *symtab_comm(struct symtab *st, pid_t pid);

/*
 * Name ADDR of PID. RETADDR: the address is a return address (a caller's
 * frame), looked up at ADDR - 1 so a call at a function's end is not
 * attributed to the next function.
 */
void symtab_resolve(struct symtab *st, pid_t pid, uint64_t addr, bool retaddr,
		    struct symbol *out);

#endif /* CPCSTAT_SYMBOLS_H */
