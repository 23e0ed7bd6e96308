// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_snapshot.c - the Linux extensions that read the handle's ring:
 * periodic snapshots of a bound set (cpc_set_sample_period,
 * cpc_snapshot_next, cpc_snapshot_fd, cpc_snapshot_lost) and which requests
 * overflowed (cpc_buf_overflowed).
 */
#include <errno.h>
#include <string.h>

#include "libcpc_impl.h"

int cpc_set_sample_period(cpc_t *cpc, cpc_set_t *set, uint64_t usec)
{
	if (!cpc_set_valid(cpc, set) || set->bind != CPC_BIND_NONE ||
	    (usec && usec < PMC_SNAPSHOT_MIN_US) || usec > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	set->period_us = (uint32_t)usec;
	return 0;
}

/* Fill @buf from queue entry @at of @sub. Ring claimed. */
static void fill_from_queue(const cpc_set_t *set, const struct cpc_ringsub *sub,
			    unsigned int at, cpc_buf_t *buf)
{
	cpc_buf_fill(set, buf, &sub->q_vals[(size_t)at * (size_t)sub->nids]);
	buf->hrtime = (hrtime_t)sub->q_tsc[at];
	buf->ovf_mask = 0;
}

int cpc_snapshot_next(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	struct cpc_ringsub *sub;
	bool got = false;

	if (!cpc_set_valid(cpc, set) || set->bind == CPC_BIND_NONE || !buf ||
	    buf->magic != CPC_BUF_MAGIC || buf->cpc != cpc ||
	    buf->nreqs != set->nreqs) {
		errno = EINVAL;
		return -1;
	}
	sub = set->sub;
	if (!set->period_us || !sub) {
		errno = ENOTSUP;
		return -1;
	}
	if (!cpc_ring_claim(cpc)) {
		errno = EAGAIN;
		return -1;
	}
	/* What is queued first; the ring only when the queue is empty. */
	if (!sub->q_len)
		(void)cpc_ring_read_for(cpc, set);
	if (sub->q_len) {
		fill_from_queue(set, sub, sub->q_head, buf);
		sub->q_head = cpc_snapq_next(sub->q_head);
		sub->q_len--;
		got = true;
	}
	cpc_ring_release(cpc);
	if (!got) {
		errno = EAGAIN;
		return -1;
	}
	if (cpc->stats)
		atomic_fetch_add_explicit(&cpc->n_snapshots, 1,
					  memory_order_relaxed);
	return 0;
}

int cpc_snapshot_fd(cpc_t *cpc)
{
	if (!cpc_valid(cpc)) {
		errno = EINVAL;
		return -1;
	}
	if (!cpc->ring) {
		errno = ENOTSUP;
		return -1;
	}
	return cpc->fd;
}

int cpc_snapshot_lost(cpc_t *cpc, cpc_set_t *set, uint64_t *lost)
{
	struct cpc_ringsub *sub;

	if (!cpc_set_valid(cpc, set) || !lost) {
		errno = EINVAL;
		return -1;
	}
	sub = set->sub;
	if (!sub || !set->period_us) {
		errno = ENOTSUP;
		return -1;
	}
	if (!cpc_ring_claim(cpc)) {
		errno = EAGAIN;
		return -1;
	}
	*lost = sub->q_dropped + sub->incomplete;
	cpc_ring_release(cpc);
	return 0;
}

int cpc_buf_overflowed(cpc_t *cpc, cpc_buf_t *buf, uint64_t *mask)
{
	if (!cpc_valid(cpc) || !buf || buf->magic != CPC_BUF_MAGIC ||
	    buf->cpc != cpc) {
		errno = EINVAL;
		return -1;
	}
	if (mask)
		*mask = buf->ovf_mask;
	if (!buf->ovf_mask) {
		errno = ENOENT;
		return -1;
	}
	return __builtin_ctzll(buf->ovf_mask);
}
