// SPDX-License-Identifier: GPL-2.0
/* strpool.c - interned strings in an open-addressing hash set. */
#include <stdlib.h>
#include <string.h>

#include "strpool.h"

static int grow(struct strpool *pool)
{
	size_t cap = pool->cap ? pool->cap * 2 : 256;
	char **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < pool->cap; i++) {
		size_t j;

		if (!pool->slots[i])
			continue;
		for (j = str_hash(pool->slots[i]) & (cap - 1); slots[j]; j = (j + 1) & (cap - 1))
			;
		slots[j] = pool->slots[i];
	}
	free(pool->slots);
	pool->slots = slots;
	pool->cap = cap;
	return 0;
}

const char *strpool_get(struct strpool *pool, const char *s)
{
	size_t i;

	if ((pool->n + 1) * 2 > pool->cap && grow(pool))
		return NULL;
	for (i = str_hash(s) & (pool->cap - 1); pool->slots[i]; i = (i + 1) & (pool->cap - 1))
		if (strcmp(pool->slots[i], s) == 0)
			return pool->slots[i];
	pool->slots[i] = strdup(s);
	if (!pool->slots[i])
		return NULL;
	pool->n++;
	return pool->slots[i];
}

void strpool_free(struct strpool *pool)
{
	for (size_t i = 0; i < pool->cap; i++)
		free(pool->slots[i]);
	free(pool->slots);
	memset(pool, 0, sizeof(*pool));
}
