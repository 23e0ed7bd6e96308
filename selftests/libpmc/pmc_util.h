/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_util.h - helpers of the libpmc VM tests: workloads with an independent
 * measure (CPU time, fresh pages), the probe that skips a test when /dev/pmc
 * is absent (the one reason to skip here), and the calls that must succeed.
 */
#ifndef _LIBPMC_SELFTEST_UTIL_H
#define _LIBPMC_SELFTEST_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <pmc.h>
#include <pmclog.h>

/*
 * The harness's EXPECT_EQ(0, u32_field) compares an int literal with an
 * unsigned value: right, but -Wsign-compare says otherwise.
 */
#pragma GCC diagnostic ignored "-Wsign-compare"

static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Burn @ns of this thread's CPU time, nearly all of it in user mode: the
 * clock is a system call, slow on the debug kernel (KASAN, lockdep) under
 * TCG, so it is read only every 20,000 additions.
 */
static inline void spin_cpu_ns(uint64_t ns)
{
	uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	volatile uint64_t x = 0;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 20000; i++)
			x += (uint64_t)i;
}

/* Touch @n fresh anonymous pages once each: @n user page faults. */
static inline int touch_pages(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), i;
	volatile char *p;

	p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise((void *)p, n * pg, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * pg] = 1;
	munmap((void *)p, n * pg);
	return 0;
}

static inline long minflt(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return ru.ru_minflt;
}

/* pmc_init(), or SKIP the test when the module is not loaded. */
#define PMC_INIT_OR_SKIP() do {						\
	if (pmc_init() < 0) {						\
		if (errno == ENXIO)					\
			SKIP(return, "no /dev/pmc: pmc.ko not loaded");	\
		ASSERT_EQ(0, errno) TH_LOG("pmc_init: %s", strerror(errno)); \
	}								\
} while (0)

/* @call must return 0 (EOPNOTSUPP too is a failure: every op has landed). */
#define PMC_OK(call, what) do {						\
	int __r = (call);						\
	ASSERT_EQ(0, __r) TH_LOG("%s: %s", what, strerror(errno));	\
} while (0)

/* Allocate @spec: it must succeed. */
#define PMC_ALLOC(spec, mode, flags, cpu, idp, count) do {		\
	int __r = pmc_allocate(spec, mode, flags, cpu, idp, count);	\
	ASSERT_EQ(0, __r) TH_LOG("pmc_allocate(%s): %s", spec, strerror(errno)); \
} while (0)

/* @a within @pct percent plus @slack of @b. */
#define EXPECT_NEAR_PCT(a, b, pct, slack) do {				\
	double __a = (double)(a), __b = (double)(b);			\
	double __d = __a > __b ? __a - __b : __b - __a;			\
	EXPECT_LE(__d, __b * (pct) / 100.0 + (slack))			\
		TH_LOG("%s = %.0f, %s = %.0f", #a, __a, #b, __b);	\
} while (0)

#endif /* _LIBPMC_SELFTEST_UTIL_H */
