// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcdev_selfread.c - the self-read page (<pmc/ring.h>): a thread reads the
 * PMCs of a set attached to it without a system call, with perf's seqcount
 * protocol. STATIC, CLOCK and RDPMC entries are computed here (RDPMC: the
 * rdpmc instruction on x86, the PMUv3 counter registers on arm64); any
 * other kind sends the caller to PMC_OP_PMCREADSET. Async-signal-safe.
 */
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pmcdev.h"
#include "pmcdev_selfread_inline.h"

const struct pmc_selfread_page *pmcdev_selfread_map(int fd, uint32_t group,
						    size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	if (fd < 0)
		return NULL;
	if (page <= 0) {
		errno = EINVAL;
		return NULL;
	}
	p = pmcdev_mmap(fd, (size_t)page, PROT_READ,
			(off_t)PMC_MMAP_SELFREAD_OFFSET(group, (uint64_t)page));
	if (p == MAP_FAILED)
		return NULL;
	*len = (size_t)page;
	return p;
}

int pmcdev_selfread_unmap(const struct pmc_selfread_page *pg, size_t len)
{
	if (!pg) {
		errno = EINVAL;
		return -1;
	}
	pmcdev_munmap((void *)(uintptr_t)pg, len);
	return 0;
}

static uint64_t pmcdev_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One pass over the page; what pmcdev_selfread() returns. */
static int pmcdev_selfread_once(const struct pmc_selfread_page *pg,
				unsigned int n, const uint32_t *ids,
				uint64_t *values, uint64_t *ts, int *hint)
{
	uint32_t nent = __atomic_load_n(&pg->ps_nentries, __ATOMIC_RELAXED);
	const struct pmc_selfread_entry *e;
	uint64_t now = 0;
	unsigned int i;

	if (nent > PMC_SELFREAD_MAX)
		nent = PMC_SELFREAD_MAX;
	for (i = 0; i < n; i++) {
		e = pmcdev_entry(pg, nent, ids[i], hint ? &hint[i] : NULL);
		if (!e) {
			errno = ENOENT;
			return -1;
		}
		if (pmcdev_entry_value(e, &values[i]))
			continue;
		if (__atomic_load_n(&e->se_kind, __ATOMIC_RELAXED) !=
		    PMC_SELFREAD_CLOCK)
			return 0;	/* SYSCALL, and kinds added later */
		if (!now)
			now = pmcdev_mono_ns();
		values[i] = (uint64_t)e->se_offset + (now - e->se_stamp);
	}
	if (ts)
		*ts = now ? now : pmcdev_mono_ns();
	return 1;
}

int pmcdev_selfread(const struct pmc_selfread_page *pg, unsigned int n,
		    const uint32_t *ids, uint64_t *values, uint64_t *ts,
		    int *hint)
{
	unsigned int spins = 0;
	uint32_t seq;
	int ret;

	for (;;) {
		seq = __atomic_load_n(&pg->ps_seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			/* The kernel is rewriting it (a switch-in): wait. */
			if (++spins % 64 == 0)
				sched_yield();
			continue;
		}
		ret = pmcdev_selfread_once(pg, n, ids, values, ts, hint);
		/* The entries were read before the second load of the count. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pg->ps_seq, __ATOMIC_RELAXED) == seq)
			return ret;
	}
}
