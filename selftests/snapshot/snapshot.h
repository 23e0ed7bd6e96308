/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snapshot.h - helpers of the snapshot suite: SNAPSHOT PMCs, reading the
 * SNAPSHOT records of the ring, PMCREADSET.
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

/* Publish what is staged and move the ring's records to @b (checked). */
static inline bool snap_collect(int fd, struct smp_ring *r, struct smp_buf *b)
{
	struct smp_stream_info si;

	if (smp_flushlog(fd))
		return false;
	smp_ring_drain(r, b);
	return smp_check_stream(b, &si);
}

/* The SNAPSHOT records of @b for @pmcid, in order, into @out (max @max). */
static inline size_t snap_records(const struct smp_buf *b, uint32_t pmcid,
				  const struct pmclog_snapshot **out,
				  size_t max)
{
	const struct pmclog_header *h;
	const struct pmclog_snapshot *s;
	size_t off, n = 0;

	smp_for_each_rec(h, b, off) {
		if (smp_rec_type(h) != PMCLOG_TYPE_SNAPSHOT)
			continue;
		s = (const void *)h;
		if (s->pl_pmcid != pmcid)
			continue;
		if (n < max)
			out[n] = s;
		n++;
	}
	return n;
}

#endif /* _SELFTESTS_SNAPSHOT_H */
