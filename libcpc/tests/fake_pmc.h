/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fake_pmc.h - a simulated /dev/pmc for libcpc's host unit tests: it keeps
 * the PMCs libcpc allocates, records every call, and fails the calls a test
 * asks it to fail.
 */
#ifndef _FAKE_PMC_H
#define _FAKE_PMC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmc/hwpmc.h>

#include "libcpc_impl.h"

#define FAKE_MAX_PMCS	128

struct fake_pmcobj {
	bool		live;
	struct pmc_op_pmcallocate alloc;
	bool		attached;
	pid_t		pid;
	uint32_t	attach_flags;
	bool		running;
	uint64_t	value;
	int		writes;
};

enum fake_machine { FAKE_SOFT, FAKE_INTEL, FAKE_AMD };

struct fake_pmc {
	struct pmc_op_getcpuinfo cpuinfo;
	uint32_t	version;		/* what GETMODULEVERSION answers */
	int		open_errno;		/* open fails with it if non-zero */
	struct fake_pmcobj pmcs[FAKE_MAX_PMCS];
	int		nallocs;		/* PMCALLOCATE calls that succeeded */
	/* Fail the Nth (1-based) call of an op with fail_errno. */
	int		fail_alloc_at;
	int		fail_attach_at;
	int		fail_start_at;
	int		fail_errno;
	/* Refuse allocations of this class (0: none) with class_errno. */
	uint32_t	refuse_class;
	int		class_errno;
	int		nattach, nstart;
	int		readsets;		/* PMCREADSET calls */
	uint32_t	last_readset_count;
	uint64_t	timestamp;		/* what PMCREADSET reports */
	bool		core_missing;		/* core ops answer EOPNOTSUPP */
	bool		no_snapshot;		/* PMC_F_SNAPSHOT: EOPNOTSUPP */
	/* mmap: the ring (offset 0) and the last self-read page mapped. */
	bool		no_mmap;		/* every mmap fails ENODEV */
	void		*ring;			/* control page + data */
	size_t		ring_len;
	int		ring_maps;
	struct pmc_selfread_page *sr;		/* NULL: none mapped */
	uint32_t	sr_group;
	uint32_t	sr_kind;		/* kind given to every entry */
	int		sr_maps, sr_unmaps;
};

void fake_pmc_init(struct fake_pmc *fp, enum fake_machine m);
/* The device the next open (cpc_open) gets. */
void fake_arm(struct fake_pmc *fp);
/* fake_pmc_init(), fake_arm(), cpc_open(CPC_VER_CURRENT). */
cpc_t *fake_open(struct fake_pmc *fp, enum fake_machine m);

int fake_live(const struct fake_pmc *fp);
struct fake_pmcobj *fake_pmc_by_id(struct fake_pmc *fp, uint32_t id);
/* The n-th (0-based) PMC allocated that is still live. */
struct fake_pmcobj *fake_nth_live(struct fake_pmc *fp, int n);
/* Add @delta to every running PMC. */
void fake_advance(struct fake_pmc *fp, uint64_t delta);

/* Append one record to the fake ring (wrapping as the kernel does). */
void fake_ring_put(struct fake_pmc *fp, const void *rec, uint32_t len);
/*
 * What the driver's timer writes at @tsc: one SNAPSET record of the live
 * SNAPSHOT PMCs of @group and their values (a SNAPSHOT each for group 0).
 */
void fake_snapshot_group(struct fake_pmc *fp, uint32_t group, uint64_t tsc,
			 uint32_t cpu);
/* One PMC's SNAPSHOT record (group 0, or a last value at PMCSTOP). */
void fake_snapshot_one(struct fake_pmc *fp, uint32_t pmcid, uint32_t group,
		       uint64_t tsc, uint32_t cpu, uint64_t value);
/* Fill the self-read page from the live PMCs of its group. */
void fake_selfread_update(struct fake_pmc *fp);

#endif /* _FAKE_PMC_H */
