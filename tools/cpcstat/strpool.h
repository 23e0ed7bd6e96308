/* SPDX-License-Identifier: GPL-2.0 */
/* strpool.h - interned strings: one copy of each, compared by pointer. */
#ifndef CPCSTAT_STRPOOL_H
#define CPCSTAT_STRPOOL_H

#include <stddef.h>

struct strpool {
	char **slots;
	size_t cap;
	size_t n;
};

/* The pool's copy of S (NULL on ENOMEM); equal strings give equal pointers. */
const char *strpool_get(struct strpool *pool, const char *s);
void strpool_free(struct strpool *pool);

/* FNV-1a, also used for the report's other hash tables. */
static inline size_t str_hash(const char *s)
{
	size_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

#endif /* CPCSTAT_STRPOOL_H */
