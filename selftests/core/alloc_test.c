// SPDX-License-Identifier: GPL-2.0
/*
 * alloc_test.c - PMCALLOCATE and PMCRELEASE: what each mode and class
 * accepts, the ids they return, the caps granted, and every EINVAL,
 * EOPNOTSUPP, ENXIO and ESRCH of hwpmc(4) that allocation can give.
 */
#include "pmc_test.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

FIXTURE(alloc) {
	int fd;
};

FIXTURE_SETUP(alloc)
{
	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	self->fd = pmc_t_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(alloc)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Each mode of the SOFT class: the id encodes cpu, mode, class and row. */
TEST_F(alloc, soft_every_mode_gets_a_wellformed_id)
{
	int row0 = pmc_t_class_row(self->fd, PMC_CLASS_SOFT, 0);
	uint32_t mode, id;

	ASSERT_LE(0, row0);
	for (mode = PMC_MODE_FIRST; mode <= PMC_MODE_LAST; mode++) {
		uint32_t cpu = PMC_IS_SYSTEM_MODE(mode) ? 1 : PMC_CPU_ANY;

		ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, mode, cpu,
					      PMC_T_SW_TASK_CLOCK,
					      PMC_IS_SAMPLING_MODE(mode) ?
					      PMC_CAP_INTERRUPT : 0, 0, &id));
		EXPECT_EQ(mode, PMC_ID_TO_MODE(id));
		EXPECT_EQ((uint32_t)PMC_CLASS_SOFT, PMC_ID_TO_CLASS(id));
		EXPECT_EQ(PMC_IS_SYSTEM_MODE(mode) ? 1U : PMC_ID_CPU_ANY,
			  PMC_ID_TO_CPU(id));
		EXPECT_EQ((uint32_t)row0, PMC_ID_TO_ROWINDEX(id));
		EXPECT_EQ(0, pmc_t_release(self->fd, id));
	}
}

/* Neither USER nor SYSTEM asked: both are granted; otherwise as asked. */
TEST_F(alloc, getcaps_reports_the_modes_counted)
{
	uint32_t id, caps;

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_PAGE_FAULTS, 0, 0, &id));
	ASSERT_EQ(0, pmc_t_getcaps(self->fd, id, &caps));
	EXPECT_EQ((uint32_t)(PMC_CAP_USER | PMC_CAP_SYSTEM), caps);
	ASSERT_EQ(0, pmc_t_release(self->fd, id));

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_PAGE_FAULTS, PMC_CAP_USER, 0,
				      &id));
	ASSERT_EQ(0, pmc_t_getcaps(self->fd, id, &caps));
	EXPECT_EQ((uint32_t)PMC_CAP_USER, caps);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* The TSC class: one row, system counting only, its value is the TSC. */
TEST_F(alloc, tsc_is_system_counting_only)
{
	struct pmc_classinfo ci;
	struct pmc_op_pmcallocate pa = {
		.pm_class = PMC_CLASS_TSC, .pm_ev = PMC_EV_TSC_TSC,
		.pm_mode = PMC_MODE_SC, .pm_cpu = 0,
	};
	uint64_t v1, v2;
	uint32_t id, mode;

	if (pmc_t_class_info(self->fd, PMC_CLASS_TSC, &ci))
		SKIP(return, "no TSC class on this machine");
	EXPECT_EQ(1U, ci.pm_num);
	ASSERT_EQ(0, pmc_t_allocate(self->fd, &pa, &id));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v1));
	usleep(1000);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v2));
	EXPECT_LT(v1, v2);
	/* Read-only: no value can be written. */
	ASSERT_EQ(0, pmc_t_stop(self->fd, id));
	EXPECT_EQ(-EINVAL, pmc_t_write(self->fd, id, 5));
	EXPECT_EQ(-EINVAL, pmc_t_setcount(self->fd, id, 5));
	/* Its one row is taken on CPU 0. */
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));

	for (mode = PMC_MODE_FIRST; mode <= PMC_MODE_LAST; mode++) {
		if (mode == PMC_MODE_SC)
			continue;
		pa.pm_mode = mode;
		pa.pm_cpu = PMC_IS_SYSTEM_MODE(mode) ? 0 : PMC_CPU_ANY;
		EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	}
}

/* hwpmc(4) ERRORS of PMCALLOCATE. */
TEST_F(alloc, bad_requests_are_refused)
{
	struct pmc_op_pmcallocate pa;
	uint32_t id;
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);

#define REQ(mode, cpu) pmc_t_soft_request(&pa, mode, cpu, PMC_T_SW_TASK_CLOCK)
	/* Invalid mode. */
	REQ(PMC_MODE_TC, 0);
	pa.pm_mode = PMC_MODE_INVALID;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	/* PMC_CPU_ANY for a system PMC, a CPU for a process PMC. */
	REQ(PMC_MODE_SC, 0);
	pa.pm_cpu = PMC_CPU_ANY;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TC, 0);
	pa.pm_cpu = 0;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	/* A CPU that cannot exist. */
	REQ(PMC_MODE_SC, 0);
	pa.pm_cpu = 4096 + ncpu;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	pa.pm_cpu = 4000;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	/* Unknown flags, and process-only flags on a system PMC. */
	REQ(PMC_MODE_TC, 0);
	pa.pm_flags = 0x40;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_SC, 0);
	pa.pm_flags = PMC_F_DESCENDANTS;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	pa.pm_flags = PMC_F_LOG_PROCEXIT;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	/* OVF_SIGNAL: virtual counting only, with a signal number. */
	pa.pm_flags = PMC_F_OVF_SIGNAL;
	pa.pm_signo = SIGUSR1;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TC, 0);
	pa.pm_flags = PMC_F_OVF_SIGNAL;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	pa.pm_signo = 65;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TC, 0);
	pa.pm_signo = SIGUSR1;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	/*
	 * Snapshots: a counting mode, a period at or above the floor, and no
	 * period without the flag (the snapshot suite tests what they do).
	 */
	REQ(PMC_MODE_TC, 0);
	pa.pm_flags = PMC_F_SNAPSHOT;
	pa.pm_snapshot_us = PMC_SNAPSHOT_MIN_US - 1;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TS, 0);
	pa.pm_caps |= PMC_CAP_INTERRUPT;
	pa.pm_count = 1000000;
	pa.pm_flags = PMC_F_SNAPSHOT;
	pa.pm_snapshot_us = PMC_SNAPSHOT_MIN_US;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TC, 0);
	pa.pm_snapshot_us = PMC_SNAPSHOT_MIN_US;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TC, 0);
	pa.pm_flags = PMC_F_SNAPSHOT;
	pa.pm_snapshot_us = PMC_SNAPSHOT_MIN_US;
	EXPECT_EQ(0, pmc_t_allocate(self->fd, &pa, &id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	/* Reserved fields. */
	REQ(PMC_MODE_TC, 0);
	pa.pm_reserved[3] = 1;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	/* Unknown class; capabilities the class lacks. */
	REQ(PMC_MODE_TC, 0);
	pa.pm_class = 0x55;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TC, 0);
	pa.pm_caps = PMC_CAP_EDGE;
	EXPECT_EQ(-EOPNOTSUPP, pmc_t_allocate(self->fd, &pa, NULL));
	/* SOFT descriptors: the type, a known config, a matching event. */
	REQ(PMC_MODE_TC, 0);
	pa.pm_md.pm_type = 0;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TC, 0);
	pa.pm_md.pm_config = 99;
	pa.pm_ev = PMC_EV_SOFT_FIRST + 99;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TC, 0);
	pa.pm_ev = PMC_EV_SOFT_FIRST + PMC_T_SW_PAGE_FAULTS;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	REQ(PMC_MODE_TC, 0);
	pa.pm_md.pm_config1 = 1;
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
	/* A bad pointer. */
	EXPECT_EQ(-EFAULT, pmc_t_ioctl(self->fd, PMC_IOC_PMCALLOCATE,
				       (void *)8));
#undef REQ
}

/* Hardware classes are absent without a PMU: allocation is EINVAL. */
TEST_F(alloc, absent_classes_are_einval)
{
	struct pmc_classinfo ci;
	struct pmc_op_pmcallocate pa = {
		.pm_class = PMC_CLASS_IAP, .pm_ev = PMC_EV_RAW,
		.pm_mode = PMC_MODE_TC, .pm_cpu = PMC_CPU_ANY,
		.pm_md = { .pm_type = 4, .pm_config = 0xc0 },
	};

	if (!pmc_t_class_info(self->fd, PMC_CLASS_IAP, &ci))
		SKIP(return, "this machine has an IAP class");
	EXPECT_EQ(-EINVAL, pmc_t_allocate(self->fd, &pa, NULL));
}

/* Sampling periods below mincount are raised to it. */
TEST_F(alloc, sampling_period_floor_is_mincount)
{
	struct pmc_op_pmcallocate pa;
	struct pmc_info info[256];
	uint32_t n = 256, id;
	char buf[32];
	uint64_t mincount;

	ASSERT_EQ(0, pmc_t_param_read("mincount", buf, sizeof(buf)));
	mincount = strtoull(buf, NULL, 10);
	pmc_t_soft_request(&pa, PMC_MODE_TS, 0, PMC_T_SW_TASK_CLOCK);
	pa.pm_caps = PMC_CAP_INTERRUPT;
	pa.pm_count = 1;
	ASSERT_EQ(0, pmc_t_allocate(self->fd, &pa, &id));
	ASSERT_EQ(0, pmc_t_getpmcinfo(self->fd, 0, info, &n));
	EXPECT_EQ(mincount, info[PMC_ID_TO_ROWINDEX(id)].pm_reloadcount);
	EXPECT_EQ(0, pmc_t_setcount(self->fd, id, 2));
	n = 256;
	ASSERT_EQ(0, pmc_t_getpmcinfo(self->fd, 0, info, &n));
	EXPECT_EQ(mincount, info[PMC_ID_TO_ROWINDEX(id)].pm_reloadcount);
	EXPECT_EQ(0, pmc_t_setcount(self->fd, id, mincount * 10));
	n = 256;
	ASSERT_EQ(0, pmc_t_getpmcinfo(self->fd, 0, info, &n));
	EXPECT_EQ(mincount * 10, info[PMC_ID_TO_ROWINDEX(id)].pm_reloadcount);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* A process that never allocated gets ESRCH for ops on ids. */
TEST_F(alloc, ops_without_pmcs_are_esrch)
{
	uint64_t v;

	EXPECT_EQ(-ESRCH, pmc_t_start(self->fd, 0x00f0f01));
	EXPECT_EQ(-ESRCH, pmc_t_read(self->fd, 0x00f0f01, &v));
	EXPECT_EQ(-ESRCH, pmc_t_release(self->fd, 0x00f0f01));
}

/*
 * A PMC belongs to the process that opened the file: a child using the
 * inherited descriptor is refused with EPERM, even to allocate.
 */
TEST_F(alloc, inherited_descriptor_is_eperm)
{
	uint32_t id;
	pid_t pid;
	int st;

	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &id));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint64_t v;
		uint32_t id2;

		if (pmc_t_start(self->fd, id) != -EPERM ||
		    pmc_t_read(self->fd, id, &v) != -EPERM ||
		    pmc_t_release(self->fd, id) != -EPERM ||
		    pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				     PMC_T_SW_TASK_CLOCK, 0, 0, &id2) != -EPERM)
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

TEST_HARNESS_MAIN
