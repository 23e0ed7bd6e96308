// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_buf.c - sample buffers: creation, destruction, the value accessors and
 * the arithmetic (sub, add, copy, zero) with illumos' rules: a buffer is
 * sized by its set's requests at creation, the arithmetic silently does
 * nothing on a size mismatch, and the result's hrtime is the later one.
 * Linux: the requests that overflowed (cpc_buf_overflowed) travel with the
 * values: copied by copy, the union of both operands' by sub and add.
 * Sampling itself is cpc_set_sample() in cpc_bind.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc_impl.h"

static bool buf_valid(const cpc_t *cpc, const cpc_buf_t *buf)
{
	return cpc_valid(cpc) && buf && buf->magic == CPC_BUF_MAGIC &&
	       buf->cpc == cpc;
}

void cpc_buf_free(cpc_buf_t *buf)
{
	buf->magic = 0;
	free(buf);
}

cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set)
{
	cpc_buf_t *buf;
	sigset_t saved;

	if (!cpc_set_valid(cpc, set)) {
		errno = EINVAL;
		return NULL;
	}
	/* One value more: a direct sample reads the tick there (cpc_bind.c). */
	buf = calloc(1, sizeof(*buf) +
		     ((size_t)set->nreqs + 1) * sizeof(uint64_t));
	if (!buf)
		return NULL;
	buf->magic = CPC_BUF_MAGIC;
	buf->cpc = cpc;
	buf->set = set;
	buf->nreqs = set->nreqs;
	cpc_lock(cpc, &saved);
	buf->next = cpc->bufs;
	cpc->bufs = buf;
	cpc_unlock(cpc, &saved);
	return buf;
}

int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf)
{
	cpc_buf_t **pp;
	sigset_t saved;

	if (!buf_valid(cpc, buf)) {
		errno = EINVAL;
		return -1;
	}
	cpc_lock(cpc, &saved);
	for (pp = &cpc->bufs; *pp && *pp != buf; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = buf->next;
	cpc_unlock(cpc, &saved);
	cpc_buf_free(buf);
	return 0;
}

/*
 * illumos does no range check here; an index outside the buffer is an
 * error on Linux (EINVAL) rather than a wild memory access.
 */
int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val)
{
	if (!buf_valid(cpc, buf) || index < 0 || index >= buf->nreqs || !val) {
		errno = EINVAL;
		return -1;
	}
	*val = buf->vals[index];
	return 0;
}

int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val)
{
	if (!buf_valid(cpc, buf) || index < 0 || index >= buf->nreqs) {
		errno = EINVAL;
		return -1;
	}
	buf->vals[index] = val;
	return 0;
}

hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf)
{
	return buf_valid(cpc, buf) ? buf->hrtime : 0;
}

uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf)
{
	return buf_valid(cpc, buf) ? buf->tick : 0;
}

static bool same_size3(const cpc_t *cpc, const cpc_buf_t *ds,
		       const cpc_buf_t *a, const cpc_buf_t *b)
{
	return buf_valid(cpc, ds) && buf_valid(cpc, a) && buf_valid(cpc, b) &&
	       ds->nreqs == a->nreqs && a->nreqs == b->nreqs;
}

void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	int i;

	if (!same_size3(cpc, ds, a, b))
		return;
	ds->hrtime = a->hrtime > b->hrtime ? a->hrtime : b->hrtime;
	ds->tick = a->tick - b->tick;
	ds->ovf_mask = a->ovf_mask | b->ovf_mask;
	for (i = 0; i < ds->nreqs; i++)
		ds->vals[i] = a->vals[i] - b->vals[i];
}

void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	int i;

	if (!same_size3(cpc, ds, a, b))
		return;
	ds->hrtime = a->hrtime > b->hrtime ? a->hrtime : b->hrtime;
	ds->tick = a->tick + b->tick;
	ds->ovf_mask = a->ovf_mask | b->ovf_mask;
	for (i = 0; i < ds->nreqs; i++)
		ds->vals[i] = a->vals[i] + b->vals[i];
}

void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src)
{
	if (!buf_valid(cpc, ds) || !buf_valid(cpc, src) ||
	    ds->nreqs != src->nreqs || ds == src)
		return;
	ds->hrtime = src->hrtime;
	ds->tick = src->tick;
	ds->ovf_mask = src->ovf_mask;
	memcpy(ds->vals, src->vals, (size_t)ds->nreqs * sizeof(uint64_t));
}

void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf)
{
	if (!buf_valid(cpc, buf))
		return;
	buf->hrtime = 0;
	buf->tick = 0;
	buf->ovf_mask = 0;
	memset(buf->vals, 0, (size_t)buf->nreqs * sizeof(uint64_t));
}
