/* SPDX-License-Identifier: GPL-2.0 */
/*
 * a64_test.h - what the arm64 PMUv3 tests (pmu_test.c, hw_test.c,
 * selfread_test.c) share: the PMU's sysfs node, a loop of known length,
 * perf's own count of it, and the skips of a machine without PMUv3 or
 * with more than one CPU.
 * Include after kselftest_harness.h.
 */
#ifndef A64_TEST_H
#define A64_TEST_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define A64_PMU_SYSFS	"/sys/bus/event_source/devices/armv8_pmuv3"

#if defined(__aarch64__)
#define HAVE_ARM64	1
/* @n (> 0) iterations of a two-instruction loop: 2 * @n instructions. */
static inline void a64_loop(uint64_t n)
{
	__asm__ __volatile__("1:	subs	%0, %0, #1\n"
			     "	b.ne	1b\n" : "+r"(n) : : "cc");
}
#else
#define HAVE_ARM64	0
static inline void a64_loop(uint64_t n)
{
	(void)n;
}
#endif /* __aarch64__ */

/*
 * perf's own user-mode count of event @type/@config for @pid on @cpu (as
 * perf_event_open(2) takes them), disabled (to compare a PMC's count
 * with): its fd, or -1 with errno.
 */
static inline int a64_perf_user(uint32_t type, uint64_t config, int pid,
				int cpu)
{
	struct perf_event_attr attr = {
		.type = type,
		.size = sizeof(attr),
		.config = config,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return (int)syscall(SYS_perf_event_open, &attr, pid, cpu, -1, 0);
}

/* perf's instructions:u of this thread on any CPU (see a64_perf_user()). */
static inline int a64_perf_instructions(void)
{
	return a64_perf_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			     0, -1);
}

/* In a FIXTURE_SETUP: skip unless an arm64 kernel registered PMUv3. */
#define A64_SKIP_UNLESS_PMUV3()						\
	do {								\
		if (!HAVE_ARM64)					\
			SKIP(return, "not an arm64 machine: no PMUv3");	\
		if (access(A64_PMU_SYSFS, F_OK))			\
			SKIP(return, "no armv8_pmuv3 PMU registered (%s)", \
			     A64_PMU_SYSFS);				\
	} while (0)

/*
 * QEMU's PMUv3 counts instructions off its one virtual instruction clock:
 * while a counter's vCPU sits at EL0, instructions other vCPUs execute
 * count too (seen: perf_event_open's own count of the loop program
 * 8,011,711 for 2,000,005 with a busy second vCPU). Exact counts need a
 * guest with one online CPU (pmc-vm --arch arm64 --smp 1).
 */
#define A64_SKIP_UNLESS_ONE_CPU()					\
	do {								\
		if (sysconf(_SC_NPROCESSORS_ONLN) != 1)			\
			SKIP(return, "needs one CPU: exact counts, as QEMU's PMU counts other vCPUs' instructions too (pmc-vm --smp 1)"); \
	} while (0)

#endif /* A64_TEST_H */
