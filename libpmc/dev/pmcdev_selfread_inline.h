/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmcdev_selfread_inline.h - the self-read page's hot path, inline: the
 * counter read of an RDPMC entry (rdpmc on x86, the PMUv3 counter registers
 * on arm64), the entry lookup and the one-PMC read, so that pmc(3)'s
 * pmc_selfread() of one PMC makes no call at all (docs/performance.md,
 * "arm64"). Everything else is in pmcdev_selfread.c. Async-signal-safe.
 */
#ifndef PMCDEV_SELFREAD_INLINE_H
#define PMCDEV_SELFREAD_INLINE_H

#include "pmcdev.h"

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
	uint32_t shift;
	uint64_t raw;

	if (kind == PMC_SELFREAD_RDPMC) {
		if (!PMCDEV_RDPMC_OK(e->se_index))
			return 0;
		raw = pmcdev_rdpmc(e->se_index - 1);
		/* Width 64 (or 0, unset) shifts by 0: no branch on the way. */
		shift = (64 - e->se_width) & 63;
		raw = (uint64_t)((int64_t)(raw << shift) >> shift);
		*v = (uint64_t)e->se_offset + raw;
		return 1;
	}
	if (kind == PMC_SELFREAD_STATIC) {
		*v = (uint64_t)e->se_offset;
		return 1;
	}
	return 0;
}

/*
 * One PMC, no timestamp, with no call on the way: 1 with *@value when the
 * page is not being rewritten and the entry is RDPMC or STATIC (a running
 * or stopped hardware PMC of the thread); 0, *@value untouched, for
 * everything else, which the caller hands to pmcdev_selfread(). The fast
 * path calls nothing, so that its caller needs no stack frame either.
 */
static inline __attribute__((always_inline)) int
pmcdev_selfread1(const struct pmc_selfread_page *pg, uint32_t id,
		 uint64_t *value)
{
	uint32_t seq = __atomic_load_n(&pg->ps_seq, __ATOMIC_ACQUIRE);
	uint32_t nent = __atomic_load_n(&pg->ps_nentries, __ATOMIC_RELAXED);
	const struct pmc_selfread_entry *e;
	uint64_t v;

	if (seq & 1)
		return 0;
	if (nent > PMC_SELFREAD_MAX)
		nent = PMC_SELFREAD_MAX;
	e = pmcdev_entry(pg, nent, id, NULL);
	if (!e || !pmcdev_entry_value(e, &v))
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&pg->ps_seq, __ATOMIC_RELAXED) != seq)
		return 0;
	*value = v;
	return 1;
}

#endif /* PMCDEV_SELFREAD_INLINE_H */
