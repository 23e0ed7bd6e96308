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

/* PMCDEV_RDPMC_OK(i): se_index i names a counter this reader can read. */
#if defined(__x86_64__) || defined(__i386__)
#define PMCDEV_RDPMC_OK(i)	((i) != 0)
static inline uint64_t pmcdev_rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
#define PMCDEV_RDPMC_OK(i)	((i) != 0 && (i) <= 32)
/*
 * PMUv3 at EL0 (the driver writes RDPMC entries where the kernel gave the
 * thread user access, PMUSERENR_EL0): event counter n is PMEVCNTR<n>_EL0,
 * n = 0..30, and 31 the cycle counter, PMCCNTR_EL0, as perf's own mmap
 * reader (tools/lib/perf/mmap.c) reads them. The register is named in the
 * instruction, so one case per counter; the kernel gives a thread only
 * counters that exist.
 */
#define PMCDEV_EVCNTR(n)						\
	case n:								\
		__asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break
static inline __attribute__((always_inline)) uint64_t
pmcdev_rdpmc(uint32_t counter)
{
	uint64_t v = 0;

	switch (counter) {
	PMCDEV_EVCNTR(0); PMCDEV_EVCNTR(1); PMCDEV_EVCNTR(2);
	PMCDEV_EVCNTR(3); PMCDEV_EVCNTR(4); PMCDEV_EVCNTR(5);
	PMCDEV_EVCNTR(6); PMCDEV_EVCNTR(7); PMCDEV_EVCNTR(8);
	PMCDEV_EVCNTR(9); PMCDEV_EVCNTR(10); PMCDEV_EVCNTR(11);
	PMCDEV_EVCNTR(12); PMCDEV_EVCNTR(13); PMCDEV_EVCNTR(14);
	PMCDEV_EVCNTR(15); PMCDEV_EVCNTR(16); PMCDEV_EVCNTR(17);
	PMCDEV_EVCNTR(18); PMCDEV_EVCNTR(19); PMCDEV_EVCNTR(20);
	PMCDEV_EVCNTR(21); PMCDEV_EVCNTR(22); PMCDEV_EVCNTR(23);
	PMCDEV_EVCNTR(24); PMCDEV_EVCNTR(25); PMCDEV_EVCNTR(26);
	PMCDEV_EVCNTR(27); PMCDEV_EVCNTR(28); PMCDEV_EVCNTR(29);
	PMCDEV_EVCNTR(30);
	case 31:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	default:
		break;
	}
	return v;
}
#undef PMCDEV_EVCNTR
#else
#define PMCDEV_RDPMC_OK(i)	0
static inline uint64_t pmcdev_rdpmc(uint32_t counter)
{
	(void)counter;
	return 0;
}
#endif /* __x86_64__ || __i386__, __aarch64__ */

static uint64_t pmcdev_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The page's entry of PMC @id (@hint: where it was last time), or NULL. */
static inline __attribute__((always_inline)) const struct pmc_selfread_entry *
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

/*
 * The value of entry @e when it needs no call: 1 with *@v for RDPMC (the
 * counter sign-extended from its width, as perf does, plus the offset) and
 * STATIC; 0 for every other kind. The hot path of every read.
 */
static inline __attribute__((always_inline)) int
pmcdev_entry_value(const struct pmc_selfread_entry *e, uint64_t *v)
{
	uint32_t kind = __atomic_load_n(&e->se_kind, __ATOMIC_RELAXED);
	uint32_t width;
	uint64_t raw;

	if (kind == PMC_SELFREAD_RDPMC) {
		if (!PMCDEV_RDPMC_OK(e->se_index))
			return 0;
		raw = pmcdev_rdpmc(e->se_index - 1);
		width = e->se_width;
		if (width > 0 && width < 64)
			raw = (uint64_t)((int64_t)(raw << (64 - width)) >>
					 (64 - width));
		*v = (uint64_t)e->se_offset + raw;
		return 1;
	}
	if (kind == PMC_SELFREAD_STATIC) {
		*v = (uint64_t)e->se_offset;
		return 1;
	}
	return 0;
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

/*
 * One PMC, no timestamp, with no call on the way: the page not being
 * rewritten and the entry RDPMC or STATIC (a running or stopped hardware
 * PMC of the thread). Anything else goes through pmcdev_selfread().
 */
int pmcdev_selfread1(const struct pmc_selfread_page *pg, uint32_t id,
		     uint64_t *value)
{
	uint32_t seq = __atomic_load_n(&pg->ps_seq, __ATOMIC_ACQUIRE);
	uint32_t nent = __atomic_load_n(&pg->ps_nentries, __ATOMIC_RELAXED);
	const struct pmc_selfread_entry *e;
	uint64_t v;

	if ((seq & 1) || nent > PMC_SELFREAD_MAX)
		return pmcdev_selfread(pg, 1, &id, value, NULL, NULL);
	e = pmcdev_entry(pg, nent, id, NULL);
	if (!e || !pmcdev_entry_value(e, &v))
		return pmcdev_selfread(pg, 1, &id, value, NULL, NULL);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&pg->ps_seq, __ATOMIC_RELAXED) != seq)
		return pmcdev_selfread(pg, 1, &id, value, NULL, NULL);
	*value = v;
	return 1;
}
