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

#include <stddef.h>
#include <string.h>

#include "pmcdev.h"

/*
 * pmcdev_rdpmc_index(i, &raw): 1 with the raw count of the counter that an
 * RDPMC entry's se_index i names (the hardware index + 1, as perf's mmap
 * page has it), 0 where i names none this reader can read.
 */
#if defined(__x86_64__) || defined(__i386__)
static inline __attribute__((always_inline)) int
pmcdev_rdpmc_index(uint32_t index, uint64_t *raw)
{
	uint32_t lo, hi;

	if (!index)
		return 0;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index - 1));
	*raw = ((uint64_t)hi << 32) | lo;
	return 1;
}
#elif defined(__aarch64__)
/*
 * PMUv3 at EL0 (the driver writes RDPMC entries where the kernel gave the
 * thread user access, PMUSERENR_EL0): se_index n + 1 is event counter n,
 * PMEVCNTR<n>_EL0, n = 0..30, and 32 the cycle counter, PMCCNTR_EL0, as
 * perf's own mmap reader (tools/lib/perf/mmap.c) reads them. The register
 * is named in the instruction, so one case per counter; the kernel gives a
 * thread only counters that exist. The switch on se_index itself is the
 * one range check: no case for 0 or above 32.
 */
#define PMCDEV_EVCNTR(n, index)						\
	case index:							\
		__asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(*raw)); \
		return 1
static inline __attribute__((always_inline)) int
pmcdev_rdpmc_index(uint32_t index, uint64_t *raw)
{
	switch (index) {
	PMCDEV_EVCNTR(0, 1); PMCDEV_EVCNTR(1, 2); PMCDEV_EVCNTR(2, 3);
	PMCDEV_EVCNTR(3, 4); PMCDEV_EVCNTR(4, 5); PMCDEV_EVCNTR(5, 6);
	PMCDEV_EVCNTR(6, 7); PMCDEV_EVCNTR(7, 8); PMCDEV_EVCNTR(8, 9);
	PMCDEV_EVCNTR(9, 10); PMCDEV_EVCNTR(10, 11); PMCDEV_EVCNTR(11, 12);
	PMCDEV_EVCNTR(12, 13); PMCDEV_EVCNTR(13, 14); PMCDEV_EVCNTR(14, 15);
	PMCDEV_EVCNTR(15, 16); PMCDEV_EVCNTR(16, 17); PMCDEV_EVCNTR(17, 18);
	PMCDEV_EVCNTR(18, 19); PMCDEV_EVCNTR(19, 20); PMCDEV_EVCNTR(20, 21);
	PMCDEV_EVCNTR(21, 22); PMCDEV_EVCNTR(22, 23); PMCDEV_EVCNTR(23, 24);
	PMCDEV_EVCNTR(24, 25); PMCDEV_EVCNTR(25, 26); PMCDEV_EVCNTR(26, 27);
	PMCDEV_EVCNTR(27, 28); PMCDEV_EVCNTR(28, 29); PMCDEV_EVCNTR(29, 30);
	PMCDEV_EVCNTR(30, 31);
	case 32:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(*raw));
		return 1;
	default:
		return 0;
	}
}
#undef PMCDEV_EVCNTR
#else
static inline int pmcdev_rdpmc_index(uint32_t index, uint64_t *raw)
{
	(void)index;
	(void)raw;
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
 * The value of RDPMC entry @e: 1 with *@v, the counter sign-extended from
 * its width, as perf does, plus the offset; 0 where the entry names no
 * counter this reader can read.
 */
static inline __attribute__((always_inline)) int
pmcdev_rdpmc_value(const struct pmc_selfread_entry *e, uint64_t *v)
{
	uint32_t shift;
	uint64_t raw;

	if (!pmcdev_rdpmc_index(e->se_index, &raw))
		return 0;
	/* Width 64 (or 0, unset) shifts by 0: no branch on the way. */
	shift = (64 - e->se_width) & 63;
	raw = (uint64_t)((int64_t)(raw << shift) >> shift);
	*v = (uint64_t)e->se_offset + raw;
	return 1;
}

/*
 * The value of entry @e when it needs no call: 1 with *@v for RDPMC and
 * STATIC; 0 for every other kind. The hot path of every read.
 */
static inline __attribute__((always_inline)) int
pmcdev_entry_value(const struct pmc_selfread_entry *e, uint64_t *v)
{
	uint32_t kind = __atomic_load_n(&e->se_kind, __ATOMIC_RELAXED);

	if (kind == PMC_SELFREAD_RDPMC)
		return pmcdev_rdpmc_value(e, v);
	if (kind == PMC_SELFREAD_STATIC) {
		*v = (uint64_t)e->se_offset;
		return 1;
	}
	return 0;
}

/*
 * An entry's first eight bytes, se_pmcid and se_kind, as one load, and what
 * they are for PMC @id with kind @kind: one compare both finds the entry
 * and checks its kind.
 */
_Static_assert(offsetof(struct pmc_selfread_entry, se_kind) == 4,
	       "se_pmcid and se_kind share one 64-bit word");
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PMCDEV_ENTRY_KEY(id, kind) \
	((uint64_t)(uint32_t)(id) | (uint64_t)(kind) << 32)
#else
#define PMCDEV_ENTRY_KEY(id, kind) \
	((uint64_t)(uint32_t)(id) << 32 | (uint64_t)(kind))
#endif
static inline __attribute__((always_inline)) uint64_t
pmcdev_entry_key(const struct pmc_selfread_entry *e)
{
	uint64_t k;

	memcpy(&k, e, sizeof(k));
	return k;
}

/*
 * One PMC, no timestamp, with no call on the way: 1 with *@value when the
 * page is not being rewritten and the entry is RDPMC or STATIC (a running
 * or stopped hardware PMC of the thread); 0, *@value untouched, for
 * everything else, which the caller hands to pmcdev_selfread(). The fast
 * path calls nothing, so that its caller needs no stack frame either.
 *
 * The common case, a running PMC in the page's first entry, costs one
 * compare: the entry's id and kind against @id and RDPMC. No count of
 * entries is needed for it, because the driver keeps every entry from
 * ps_nentries on zero (kind SYSCALL; <pmc/ring.h>, docs/selfread.md), so
 * entry 0 is RDPMC only while it is in use. Any other entry or kind takes
 * the general lookup.
 */
static inline __attribute__((always_inline)) int
pmcdev_selfread1(const struct pmc_selfread_page *pg, uint32_t id,
		 uint64_t *value)
{
	uint32_t seq = __atomic_load_n(&pg->ps_seq, __ATOMIC_ACQUIRE);
	const struct pmc_selfread_entry *e = pg->ps_entries;
	uint32_t nent;
	uint64_t v;

	if (seq & 1)
		return 0;
	if (__builtin_expect(pmcdev_entry_key(e) ==
			     PMCDEV_ENTRY_KEY(id, PMC_SELFREAD_RDPMC), 1)) {
		if (!pmcdev_rdpmc_value(e, &v))
			return 0;
	} else {
		nent = __atomic_load_n(&pg->ps_nentries, __ATOMIC_RELAXED);
		if (nent > PMC_SELFREAD_MAX)
			nent = PMC_SELFREAD_MAX;
		e = pmcdev_entry(pg, nent, id, NULL);
		if (!e || !pmcdev_entry_value(e, &v))
			return 0;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&pg->ps_seq, __ATOMIC_RELAXED) != seq)
		return 0;
	*value = v;
	return 1;
}

#endif /* PMCDEV_SELFREAD_INLINE_H */
