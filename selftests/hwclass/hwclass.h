/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwclass.h - what the hwclass tests share: the hwpmc core on a hardware
 * class (K8 or IAP), which the test PMU provides in the VM (every event
 * counts 1 per ns: a thread's run time, or a CPU's wall time).
 */
#ifndef _SELFTESTS_HWCLASS_H
#define _SELFTESTS_HWCLASS_H

#include "pmc_test.h"
#include "../testpmu/testpmu_util.h"

/* The test PMU's event of choice; any raw event counts the same. */
#define HW_RAW_EVENT	0x3c

static inline long pm_ncpus_online(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * Load the test PMU (@ncounters of @width bits), open /dev/pmc and find
 * its hardware class. The descriptor, or -1 (errno-less: ASSERT it).
 */
static inline int hw_setup(unsigned int ncounters, unsigned int width,
			   struct pmc_classinfo *ci)
{
	int fd;

	if (tp_load(ncounters, width))
		return -1;
	fd = pmc_t_open();
	if (fd < 0)
		return -1;
	if (pmc_t_class_info(fd, PMC_CLASS_K8, ci) &&
	    pmc_t_class_info(fd, PMC_CLASS_IAP, ci)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Allocate a PMC of the hardware class @ci counting perf event @type/@config
 * in both user and kernel mode: on @cpu for system modes, with sampling
 * period @count in sampling modes. 0 or -errno.
 */
static inline int hw_alloc(int fd, const struct pmc_classinfo *ci,
			   uint32_t mode, uint32_t cpu, uint32_t type,
			   uint64_t config, uint64_t count, uint32_t flags,
			   uint32_t *id)
{
	struct pmc_op_pmcallocate pa;

	memset(&pa, 0, sizeof(pa));
	pa.pm_caps = PMC_CAP_USER | PMC_CAP_SYSTEM;
	if (PMC_IS_SAMPLING_MODE(mode))
		pa.pm_caps |= PMC_CAP_INTERRUPT;
	pa.pm_cpu = PMC_IS_SYSTEM_MODE(mode) ? cpu : PMC_CPU_ANY;
	pa.pm_class = ci->pm_class;
	pa.pm_ev = type == PERF_TYPE_HARDWARE ?
		   PMC_EV_GENERIC_FIRST + (uint32_t)config : PMC_EV_RAW;
	pa.pm_mode = mode;
	pa.pm_flags = flags;
	pa.pm_count = count;
	pa.pm_md.pm_type = type;
	pa.pm_md.pm_config = config;
	return pmc_t_allocate(fd, &pa, id);
}

/*
 * When a PMC ran, in some clock: surely from inner0 to inner1, at most
 * from outer0 to outer1 (the times around its start and stop).
 */
struct hw_window {
	uint64_t outer0, inner0, inner1, outer1;
};

static inline int hw_start(int fd, uint32_t id, clockid_t clk,
			   struct hw_window *w)
{
	int ret;

	w->outer0 = tp_clock_ns(clk);
	ret = pmc_t_start(fd, id);
	w->inner0 = tp_clock_ns(clk);
	return ret;
}

static inline int hw_stop(int fd, uint32_t id, clockid_t clk,
			  struct hw_window *w)
{
	int ret;

	w->inner1 = tp_clock_ns(clk);
	ret = pmc_t_stop(fd, id);
	w->outer1 = tp_clock_ns(clk);
	return ret;
}

/* @v counted during @w, with @tol of slack for the clocks. */
static inline bool hw_in_window(uint64_t v, const struct hw_window *w,
				double tol)
{
	return v >= (w->inner1 - w->inner0) * (1 - tol) &&
	       v <= (w->outer1 - w->outer0) * (1 + tol);
}

#define EXPECT_IN_WINDOW(v, w, tol) \
	EXPECT_TRUE(hw_in_window((v), (w), (tol))) \
		TH_LOG("%llu events, window %llu..%llu ns", \
		       (unsigned long long)(v), \
		       (unsigned long long)((w)->inner1 - (w)->inner0), \
		       (unsigned long long)((w)->outer1 - (w)->outer0))

#endif /* _SELFTESTS_HWCLASS_H */
