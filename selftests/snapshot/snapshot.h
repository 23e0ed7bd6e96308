/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot.h - helpers of the snapshot suite: SNAPSHOT PMCs, reading the
 * SNAPSHOT and SNAPSET records of the ring, PMCREADSET.
 */
#ifndef _SELFTESTS_SNAPSHOT_H
#define _SELFTESTS_SNAPSHOT_H

#include "../sampling/sampling.h"

/* A SOFT counting PMC (@mode SC on @cpu, or TC) with PMC_F_SNAPSHOT. */
static inline int64_t snap_alloc(int fd, uint32_t mode, uint32_t cpu,
				 uint64_t config, uint32_t group,
				 uint32_t period_us)
{
	struct smp_set set = { .group = group, .snapshot_us = period_us };

	return smp_alloc_ext(fd, PMC_CLASS_SOFT, mode, cpu, PERF_TYPE_SOFTWARE,
			     config, 0, PMC_F_SNAPSHOT, smp_set_ext, &set);
}

static inline int snap_readset(int fd, const uint32_t *ids, uint32_t n,
			       uint64_t *values)
{
	struct pmc_op_pmcreadset rs = {
		.pm_count = n,
		.pm_ids = (uint64_t)(uintptr_t)ids,
		.pm_values = (uint64_t)(uintptr_t)values,
	};

	return smp_ioctl(fd, PMC_IOC_PMCREADSET, &rs);
}

/*
 * Is the SNAPSET record @h well formed: at least the fixed part long, and
 * its pl_nentries entries within its length?
 */
static inline bool snap_set_ok(const struct pmclog_header *h)
{
	const struct pmclog_snapset *s = (const void *)h;
	uint32_t len = smp_rec_len(h);

	if (len < sizeof(*s))
		return false;
	return (uint64_t)s->pl_nentries * sizeof(s->pl_entries[0]) +
	       sizeof(*s) <= len;
}

/* The SNAPSET records of @b that are not well formed (snap_set_ok()). */
static inline size_t snap_bad_sets(const struct smp_buf *b)
{
	const struct pmclog_header *h;
	size_t off, n = 0;

	smp_for_each_rec(h, b, off)
		if (smp_rec_type(h) == PMCLOG_TYPE_SNAPSET && !snap_set_ok(h))
			n++;
	return n;
}

/*
 * Publish what is staged and move the ring's records to @b (checked: the
 * stream, and every SNAPSET's entries within its length).
 */
static inline bool snap_collect(int fd, struct smp_ring *r, struct smp_buf *b)
{
	struct smp_stream_info si;

	if (smp_flushlog(fd))
		return false;
	smp_ring_drain(r, b);
	return smp_check_stream(b, &si) && snap_bad_sets(b) == 0;
}

/*
 * The values of @pmcid in @b, in stream order, into @out (max @max): the
 * SNAPSHOT records of @pmcid as they are, and for each SNAPSET record with
 * an entry of @pmcid a SNAPSHOT made of it: the SNAPSET's header (its type
 * says where the value came from; pl_seq and pl_tsc are the set's, shared
 * by all its entries), pl_group, pl_cpu and pl_tid, and the entry's value.
 * Returns how many there are (more than @max if @out is too short).
 */
static inline size_t snap_records(const struct smp_buf *b, uint32_t pmcid,
				  struct pmclog_snapshot *out, size_t max)
{
	const struct pmclog_header *h;
	const struct pmclog_snapshot *s;
	const struct pmclog_snapset *set;
	size_t off, n = 0;
	uint32_t i;

	smp_for_each_rec(h, b, off) {
		switch (smp_rec_type(h)) {
		case PMCLOG_TYPE_SNAPSHOT:
			s = (const void *)h;
			if (s->pl_pmcid != pmcid)
				continue;
			if (n < max)
				out[n] = *s;
			n++;
			break;
		case PMCLOG_TYPE_SNAPSET:
			/* Never read past a short one (snap_collect fails). */
			if (!snap_set_ok(h))
				continue;
			set = (const void *)h;
			for (i = 0; i < set->pl_nentries; i++) {
				if (set->pl_entries[i].pl_pmcid != pmcid)
					continue;
				if (n < max)
					out[n] = (struct pmclog_snapshot) {
						.pl_hdr = set->pl_hdr,
						.pl_pmcid = pmcid,
						.pl_group = set->pl_group,
						.pl_cpu = set->pl_cpu,
						.pl_tid = set->pl_tid,
						.pl_value =
							set->pl_entries[i].pl_value,
					};
				n++;
			}
			break;
		}
	}
	return n;
}

/* Did snap_records() make @r of a SNAPSET record? */
static inline bool snap_from_set(const struct pmclog_snapshot *r)
{
	return smp_rec_type(&r->pl_hdr) == PMCLOG_TYPE_SNAPSET;
}

/*
 * The SNAPSET records of set @group in @b: all of them if @nentries is
 * SNAP_ANY_SIZE, else those with @nentries entries.
 */
#define SNAP_ANY_SIZE	UINT32_MAX
static inline size_t snap_sets(const struct smp_buf *b, uint32_t group,
			       uint32_t nentries)
{
	const struct pmclog_header *h;
	const struct pmclog_snapset *set;
	size_t off, n = 0;

	smp_for_each_rec(h, b, off) {
		if (smp_rec_type(h) != PMCLOG_TYPE_SNAPSET ||
		    smp_rec_len(h) < sizeof(*set))
			continue;
		set = (const void *)h;
		if (set->pl_group == group &&
		    (nentries == SNAP_ANY_SIZE || set->pl_nentries == nentries))
			n++;
	}
	return n;
}

#endif /* _SELFTESTS_SNAPSHOT_H */
