// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_rand.c - pmc-fuzz's values: derived seeds and boundary numbers.
 */
#include "fuzz.h"

uint64_t fz_derive(uint64_t seed, uint64_t a, uint64_t b)
{
	struct fz_rng r = { seed ^ (a * 0xd1342543de82ef95ULL) ^ (b << 32) ^ b };

	fz_next(&r);
	return fz_next(&r);
}

uint64_t fz_u64(struct fz_rng *r)
{
	unsigned int k = fz_below(r, 64);

	switch (fz_below(r, 12)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return ~0ULL;
	case 3: return 1ULL << k;
	case 4: return (1ULL << k) - 1;
	case 5: return (1ULL << k) + 1;
	case 6: return -(1ULL << k);		/* 2^64 - 2^k: a preset */
	case 7: return 0x7fffffffffffffffULL;
	case 8: return 0x8000000000000000ULL;
	case 9: return fz_below(r, 4096);
	case 10: return 0xffffffffULL + fz_below(r, 3) - 1;
	default: return fz_next(r);
	}
}

uint32_t fz_u32(struct fz_rng *r)
{
	unsigned int k = fz_below(r, 32);

	switch (fz_below(r, 10)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return ~0U;
	case 3: return 1U << k;
	case 4: return (1U << k) - 1;
	case 5: return 0x7fffffffU;
	case 6: return 0x80000000U;
	case 7: return fz_below(r, 300);
	default: return (uint32_t)fz_next(r);
	}
}
