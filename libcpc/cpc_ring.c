// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_ring.c - libcpc as a consumer of the handle's mmap'd record ring
 * (<pmc/ring.h>, records of <pmc/pmclog.h>): SNAPSET records (and the
 * SNAPSHOT records of last values) made whole-set samples
 * (cpc_set_sample_period, cpc_snapshot_next) and OVERFLOW
 * records kept for the overflow signal handler (cpc_set_sample,
 * cpc_buf_overflowed).
 *
 * One ring per handle: the handle's /dev/pmc file is the PMC owner, and the
 * driver writes every record of the owner there. The reader is the device
 * layer's (libpmc/dev/pmcdev_ring.c, perf's consumer protocol); records it
 * has no use for (PMCALLOCATE, ...) are skipped.
 *
 * Async-signal safety: cpc_ring_drain() takes no lock and allocates
 * nothing. The single-consumer rule is kept by the ring's busy flag, taken
 * with an atomic exchange: a drain that finds it taken (a signal handler
 * that interrupted a drain in progress, or a second thread) does nothing.
 * Everything a drain writes was allocated at bind (struct cpc_ringsub).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc_impl.h"

/* Map the ring. cpc->lock held. 0, or -1 with errno (remembered). */
static int ring_map(cpc_t *cpc)
{
	struct cpc_ring *r;
	unsigned int nsubs;

	if (cpc->ring)
		return 0;
	if (cpc->ring_errno) {
		errno = cpc->ring_errno;
		return -1;
	}
	/* Sets reading the ring: one per CPU (cpustat) and then some. */
	nsubs = cpc->cpuinfo.pm_ncpu * 2 + 64;
	r = calloc(1, sizeof(*r));
	if (r)
		r->subs = calloc(nsubs, sizeof(*r->subs));
	if (!r || !r->subs) {
		free(r);
		errno = ENOMEM;
		return -1;
	}
	if (pmcdev_ring_map(cpc->fd, CPC_RING_PAGES, &r->rd) < 0) {
		cpc->ring_errno = errno;
		free(r->subs);
		free(r);
		errno = cpc->ring_errno;
		return -1;
	}
	r->nsubs = nsubs;
	atomic_init(&r->busy, false);
	/* Wake poll() on any byte. */
	__atomic_store_n(&r->rd.pg->pr_watermark, 0, __ATOMIC_RELAXED);
	cpc->ring = r;
	return 0;
}

/* Claim the ring, waiting for another thread's drain (never a handler). */
static void ring_claim_wait(cpc_t *cpc)
{
	while (!cpc_ring_claim(cpc))
		sched_yield();
}

/*
 * Make @set a reader of the ring (a snapshot period, or overflow requests
 * with @tid the thread whose OVERFLOW records count): map the ring if
 * needed and give the set its preallocated state. Before the set's PMCs
 * start, so no record of theirs is missed. 0, or -1 with errno.
 */
int cpc_ring_subscribe(cpc_t *cpc, cpc_set_t *set, pid_t tid)
{
	struct cpc_ringsub *sub;
	unsigned int i;
	sigset_t ss;
	int ret;

	cpc_lock(cpc, &ss);
	ret = ring_map(cpc);
	cpc_unlock(cpc, &ss);
	if (ret < 0)
		return -1;
	sub = calloc(1, sizeof(*sub) +
		     (size_t)CPC_SNAPQ_SLOTS * (size_t)set->nids * sizeof(uint64_t));
	if (!sub) {
		errno = ENOMEM;
		return -1;
	}
	sub->group = set->group;
	sub->tid = (uint32_t)tid;
	sub->nids = set->nids;
	sub->all_slots = set->nids >= 64 ? ~0ULL : (1ULL << set->nids) - 1;
	sub->asm_vals = sub->q_vals;
	memcpy(sub->ids, set->ids, (size_t)set->nids * sizeof(uint32_t));
	ring_claim_wait(cpc);
	for (i = 0; i < cpc->ring->nsubs; i++)
		if (!cpc->ring->subs[i])
			break;
	if (i < cpc->ring->nsubs)
		cpc->ring->subs[i] = sub;
	cpc_ring_release(cpc);
	if (i == cpc->ring->nsubs) {
		free(sub);
		errno = EAGAIN;
		return -1;
	}
	set->sub = sub;
	return 0;
}

void cpc_ring_unsubscribe(cpc_t *cpc, cpc_set_t *set)
{
	unsigned int i;

	if (!set->sub || !cpc->ring)
		return;
	ring_claim_wait(cpc);
	for (i = 0; i < cpc->ring->nsubs; i++)
		if (cpc->ring->subs[i] == set->sub)
			cpc->ring->subs[i] = NULL;
	if (cpc->ring->last == set->sub)
		cpc->ring->last = NULL;
	cpc_ring_release(cpc);
	free(set->sub);
	set->sub = NULL;
}

/* At cpc_close(), every set unbound. */
void cpc_ring_fini(cpc_t *cpc)
{
	struct cpc_ring *r = cpc->ring;

	if (!r)
		return;
	pmcdev_ring_unmap(&r->rd);
	free(r->subs);
	free(r);
	cpc->ring = NULL;
}

/* The set of @group, searched: sub_of() found it was not the last one. */
static struct cpc_ringsub *sub_search(struct cpc_ring *r, uint32_t group)
{
	unsigned int i;

	if (!group)
		return NULL;
	for (i = 0; i < r->nsubs; i++) {
		if (r->subs[i] && r->subs[i]->group == group) {
			r->last = r->subs[i];
			return r->last;
		}
	}
	return NULL;
}

/* The set of @group; the last one found first (records come in runs). */
static inline struct cpc_ringsub *sub_of(struct cpc_ring *r, uint32_t group)
{
	if (r->last && r->last->group == group)
		return r->last;
	return sub_search(r, group);
}

/*
 * The slot of @pmcid in @sub. The kernel writes the records of a set in
 * one order, so the slot after the last one is tried first.
 */
static inline int slot_of(const struct cpc_ringsub *sub, uint32_t pmcid)
{
	int i = sub->asm_next;

	if (i < sub->nids && sub->ids[i] == pmcid)
		return i;
	for (i = 0; i < sub->nids; i++)
		if (sub->ids[i] == pmcid)
			return i;
	return -1;
}

/*
 * The snapshot @sub rebuilt, already in its queue slot, joins the queue
 * (the oldest out when it is full), and the next one is rebuilt in the
 * slot after it: the slot of the one dropped, if any. Its first record is
 * likely for slot 0.
 */
static void queue_push(struct cpc_ringsub *sub)
{
	if (sub->q_len == CPC_SNAPQ_LEN) {
		sub->q_head = cpc_snapq_next(sub->q_head);
		sub->q_dropped++;
	} else {
		sub->q_len++;
	}
	sub->q_tsc[sub->q_asm] = sub->asm_tsc;
	sub->q_asm = cpc_snapq_next(sub->q_asm);
	sub->asm_vals = &sub->q_vals[(size_t)sub->q_asm * (size_t)sub->nids];
	sub->asm_next = 0;
}

/*
 * A SNAPSHOT record: one PMC of a set, its last value, which PMCSTOP writes
 * for each stopped PMC at its own instant (its value no longer changes).
 * So a set's snapshot is complete when each of its PMCs has sent one
 * record, and it is dated by the latest; a PMC that sends a second record
 * first means records were lost (the older instant is dropped and
 * counted), as does a DROPNOTIFY (every set starts over). True when a
 * snapshot was queued.
 */
static inline bool on_snapshot(struct cpc_ring *r,
			       const struct pmclog_snapshot *s)
{
	struct cpc_ringsub *sub = sub_of(r, s->pl_group);
	uint64_t bit, have;
	int slot;

	if (!sub || (slot = slot_of(sub, s->pl_pmcid)) < 0)
		return false;
	sub->asm_next = slot + 1;
	bit = 1ULL << slot;
	have = sub->asm_have;
	if (have & bit) {
		sub->incomplete++;
		have = 0;
	}
	if (!have || s->pl_hdr.pl_tsc > sub->asm_tsc)
		sub->asm_tsc = s->pl_hdr.pl_tsc;
	sub->asm_vals[slot] = s->pl_value;
	have |= bit;
	if (have != sub->all_slots) {
		sub->asm_have = have;
		return false;
	}
	sub->asm_have = 0;
	queue_push(sub);
	return true;
}

/*
 * A SNAPSET record: a set's running values at one instant, the whole set
 * in one record (the timer's and the switch-out's). It is queued as it
 * is; a snapshot being rebuilt from SNAPSHOT records (last values at
 * PMCSTOP) that it interrupts is abandoned. A record that does not carry
 * each of the set's PMCs once (the kernel's set changed under it) is
 * counted as incomplete. Inline in the reader's loop. True when a
 * snapshot was queued.
 */
static inline bool on_snapset(struct cpc_ring *r,
			      const struct pmclog_snapset *s, size_t len)
{
	struct cpc_ringsub *sub = sub_of(r, s->pl_group);
	uint32_t i, n = s->pl_nentries;
	uint64_t bit, have = 0;
	int slot;

	if (!sub)
		return false;
	if (sub->asm_have) {
		sub->incomplete++;
		sub->asm_have = 0;
	}
	if (n != (uint32_t)sub->nids ||
	    n > (len - sizeof(*s)) / sizeof(s->pl_entries[0])) {
		sub->incomplete++;
		return false;
	}
	sub->asm_next = 0;
	for (i = 0; i < n; i++) {
		slot = slot_of(sub, s->pl_entries[i].pl_pmcid);
		if (slot < 0)
			break;
		sub->asm_next = slot + 1;
		bit = 1ULL << slot;
		if (have & bit)
			break;
		have |= bit;
		sub->asm_vals[slot] = s->pl_entries[i].pl_value;
	}
	if (have != sub->all_slots) {
		sub->incomplete++;
		return false;
	}
	sub->asm_tsc = s->pl_hdr.pl_tsc;
	queue_push(sub);
	return true;
}

/* An OVERFLOW record: the set stopped; which PMCs overflowed, the values. */
static void on_overflow(struct cpc_ring *r, const struct pmclog_overflow *o,
			size_t len)
{
	struct cpc_ringsub *sub = sub_of(r, o->pl_group);
	uint32_t i, n = o->pl_nentries;
	int slot;

	if (!sub || (sub->tid && o->pl_tid && o->pl_tid != sub->tid) ||
	    o->pl_hdr.pl_tsc < __atomic_load_n(&sub->ovf_after, __ATOMIC_RELAXED))
		return;
	if (n > (len - sizeof(*o)) / sizeof(o->pl_entries[0]))
		return;
	sub->ovf_mask = 0;
	for (i = 0; i < (uint32_t)sub->nids; i++)
		sub->ovf_vals[i] = 0;
	for (i = 0; i < n; i++) {
		slot = slot_of(sub, o->pl_entries[i].pl_pmcid);
		if (slot < 0)
			continue;
		sub->ovf_vals[slot] = o->pl_entries[i].pl_value;
		if (o->pl_entries[i].pl_overflowed)
			sub->ovf_mask |= 1ULL << slot;
	}
	sub->ovf_tsc = o->pl_hdr.pl_tsc;
	sub->ovf_ip = o->pl_ip;
	sub->ovf_valid = true;
}

/* Records were lost: a snapshot being rebuilt may miss some for good. */
static void on_drop(struct cpc_ring *r, const struct pmclog_dropnotify *d)
{
	unsigned int i;

	r->lost += d->pl_records;
	for (i = 0; i < r->nsubs; i++) {
		if (r->subs[i] && r->subs[i]->asm_have) {
			r->subs[i]->incomplete++;
			r->subs[i]->asm_have = 0;
		}
	}
}

/* A record other than SNAPSET and SNAPSHOT. */
static void dispatch_other(struct cpc_ring *r, const void *rec, size_t len)
{
	switch (PMCLOG_HEADER_TO_TYPE(((const struct pmclog_header *)rec)->pl_header)) {
	case PMCLOG_TYPE_OVERFLOW:
		if (len >= sizeof(struct pmclog_overflow))
			on_overflow(r, rec, len);
		break;
	case PMCLOG_TYPE_DROPNOTIFY:
		if (len >= sizeof(struct pmclog_dropnotify))
			on_drop(r, rec);
		break;
	default:
		break;
	}
}

/* A record. True when it completed a snapshot (and queued it). */
static inline bool dispatch(struct cpc_ring *r, const void *rec, size_t len)
{
	switch (PMCLOG_HEADER_TO_TYPE(((const struct pmclog_header *)rec)->pl_header)) {
	case PMCLOG_TYPE_SNAPSET:
		return len >= sizeof(struct pmclog_snapset) &&
		       on_snapset(r, rec, len);
	case PMCLOG_TYPE_SNAPSHOT:
		return len >= sizeof(struct pmclog_snapshot) &&
		       on_snapshot(r, rec);
	default:
		dispatch_other(r, rec, len);
		return false;
	}
}

/*
 * Read the records published so far, with the ring claimed, in place, and
 * give them back to the kernel once at the end. The records that lie in
 * one piece are walked with the device layer's span (a pointer and a
 * count the compiler keeps in registers); a record that wraps past the end
 * of the data area is copied out by pmcdev_ring_peek(). Stops early when
 * @sub's snapshot queue is full (the rest waits in the ring: a reader
 * taking snapshots one by one loses none of its own). Returns the number
 * of records read. A broken stream (bad magic or length) is skipped to the
 * head: the kernel is the only writer, so it cannot happen unless the
 * mapping is not what it claims.
 */
static int ring_read(struct cpc_ring *r, const struct cpc_ringsub *sub)
{
	struct pmcdev_ring_error err;
	const unsigned char *p = NULL;
	const void *rec;
	size_t span, off;
	uint32_t len;
	int n = 0, ret = 0;
	bool full;

	for (;;) {
		span = pmcdev_ring_span(&r->rd, &p);
		for (off = 0; off < span &&
		     (len = pmcdev_ring_span_rec(p + off, span - off));
		     off += len) {
			n++;
			if (dispatch(r, p + off, len) && sub &&
			    sub->q_len == CPC_SNAPQ_LEN) {
				pmcdev_ring_advance(&r->rd, (uint32_t)(off + len));
				goto out;
			}
		}
		pmcdev_ring_advance(&r->rd, (uint32_t)off);
		if (off)
			continue;
		/* Nothing, a record that wraps, or a broken stream. */
		ret = pmcdev_ring_peek(&r->rd, &rec, r->rec, sizeof(r->rec),
				       &len, &err);
		if (ret <= 0)
			break;
		full = rec && dispatch(r, rec, len) && sub &&
		       sub->q_len == CPC_SNAPQ_LEN;
		pmcdev_ring_advance(&r->rd, len);
		n++;
		if (full)
			break;
	}
out:
	if (ret < 0)
		pmcdev_ring_skip_all(&r->rd);
	else if (n)
		pmcdev_ring_publish(&r->rd);
	r->records += (uint64_t)n;
	return n;
}

/* cpc_ring_drain() for a caller that already claimed the ring. */
int cpc_ring_read_claimed(cpc_t *cpc)
{
	return ring_read(cpc->ring, NULL);
}

/* Read until @set has a full queue of snapshots (or the ring is empty). */
int cpc_ring_read_for(cpc_t *cpc, const cpc_set_t *set)
{
	return ring_read(cpc->ring, set->sub);
}

/*
 * Read the ring's new records into the sets' state. Async-signal-safe.
 * Returns the records read, or -1 with errno: ENOTSUP without a ring,
 * EAGAIN when another reader holds it.
 */
int cpc_ring_drain(cpc_t *cpc)
{
	int n;

	if (!cpc->ring) {
		errno = ENOTSUP;
		return -1;
	}
	if (!cpc_ring_claim(cpc)) {
		errno = EAGAIN;
		return -1;
	}
	n = ring_read(cpc->ring, NULL);
	cpc_ring_release(cpc);
	return n;
}
