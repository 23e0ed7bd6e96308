// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcdev_selfread.c - the self-read page (<pmc/ring.h>): a thread reads the
 * PMCs of a set attached to it without a system call, with perf's seqcount
 * protocol. STATIC, CLOCK and RDPMC entries are computed here; any other
 * kind sends the caller to PMC_OP_PMCREADSET. Async-signal-safe.
 */
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pmcdev.h"

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

#if defined(__x86_64__) || defined(__i386__)
#define PMCDEV_HAVE_RDPMC	1
static inline uint64_t pmcdev_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return ((uint64_t)hi << 32) | lo;
}
#else
#define PMCDEV_HAVE_RDPMC	0
static inline uint64_t pmcdev_rdpmc(uint32_t counter)
{
	(void)counter;
	return 0;
}
#endif /* __x86_64__ || __i386__ */

static uint64_t pmcdev_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The page's entry of PMC @id (@hint: where it was last time), or NULL. */
static const struct pmc_selfread_entry *
pmcdev_entry(const struct pmc_selfread_page *pg, uint32_t nent, uint32_t id,
	     int *hint)
{
	const struct pmc_selfread_entry *e = pg->ps_entries;
	uint32_t j;

	if (hint && *hint >= 0 && (uint32_t)*hint < nent &&
	    e[*hint].se_pmcid == id)
		return &e[*hint];
	for (j = 0; j < nent; j++) {
		if (e[j].se_pmcid == id) {
			if (hint)
				*hint = (int)j;
			return &e[j];
		}
	}
	return NULL;
}

/* One pass over the page; what pmcdev_selfread() returns. */
static int pmcdev_selfread_once(const struct pmc_selfread_page *pg,
				unsigned int n, const uint32_t *ids,
				uint64_t *values, uint64_t *ts, int *hint)
{
	uint32_t nent = __atomic_load_n(&pg->ps_nentries, __ATOMIC_RELAXED);
	const struct pmc_selfread_entry *e;
	uint64_t now = 0, raw;
	unsigned int i;

	if (nent > PMC_SELFREAD_MAX)
		nent = PMC_SELFREAD_MAX;
	for (i = 0; i < n; i++) {
		e = pmcdev_entry(pg, nent, ids[i], hint ? &hint[i] : NULL);
		if (!e) {
			errno = ENOENT;
			return -1;
		}
		switch (__atomic_load_n(&e->se_kind, __ATOMIC_RELAXED)) {
		case PMC_SELFREAD_STATIC:
			values[i] = (uint64_t)e->se_offset;
			break;
		case PMC_SELFREAD_CLOCK:
			if (!now)
				now = pmcdev_mono_ns();
			values[i] = (uint64_t)e->se_offset + (now - e->se_stamp);
			break;
		case PMC_SELFREAD_RDPMC:
			if (!PMCDEV_HAVE_RDPMC || !e->se_index)
				return 0;
			raw = pmcdev_rdpmc(e->se_index - 1);
			/* Sign-extend the counter's width, as perf does. */
			if (e->se_width > 0 && e->se_width < 64)
				raw = (uint64_t)((int64_t)(raw << (64 - e->se_width)) >>
						 (64 - e->se_width));
			values[i] = (uint64_t)e->se_offset + raw;
			break;
		default:	/* SYSCALL, and kinds added later */
			return 0;
		}
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
