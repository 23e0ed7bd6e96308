// SPDX-License-Identifier: GPL-2.0
/*
 * rows_test.c - rows and their dispositions (hwpmc(4) PMC ROW
 * DISPOSITIONS): GETPMCINFO, exhaustion and release out of order,
 * PMCADMIN's rules, and offline CPUs (ENXIO).
 */
#include "pmc_test.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define MAXROWS 256

FIXTURE(rows) {
	int fd;
	struct pmc_classinfo soft;
	int soft0;		/* global index of SOFT-0 */
};

FIXTURE_SETUP(rows)
{
	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	self->fd = pmc_t_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pmc_t_class_info(self->fd, PMC_CLASS_SOFT, &self->soft));
	self->soft0 = pmc_t_class_row(self->fd, PMC_CLASS_SOFT, 0);
	ASSERT_LE(0, self->soft0);
}

FIXTURE_TEARDOWN(rows)
{
	if (self->fd >= 0)
		close(self->fd);
}

static int info_of(int fd, int cpu, int row, struct pmc_info *out)
{
	struct pmc_info info[MAXROWS];
	uint32_t n = MAXROWS;
	int ret = pmc_t_getpmcinfo(fd, cpu, info, &n);

	if (!ret)
		*out = info[row];
	return ret;
}

/* GETPMCINFO names every row and shows the PMC on it. */
TEST_F(rows, getpmcinfo_describes_rows)
{
	struct pmc_op_getcpuinfo ci;
	struct pmc_info info[MAXROWS], pi;
	uint32_t n = MAXROWS, small = 1, id;
	char name[PMC_NAME_MAX];

	ASSERT_EQ(0, pmc_t_getcpuinfo(self->fd, &ci));
	ASSERT_EQ(0, pmc_t_getpmcinfo(self->fd, 0, info, &n));
	EXPECT_EQ(ci.pm_npmc, n);
	snprintf(name, sizeof(name), "SOFT-%u", self->soft.pm_num - 1);
	EXPECT_STREQ(name, info[self->soft0 + self->soft.pm_num - 1].pm_name);
	pi = info[self->soft0];
	EXPECT_EQ((uint32_t)PMC_CLASS_SOFT, pi.pm_class);
	EXPECT_EQ(1U, pi.pm_enabled);
	EXPECT_EQ(-1, pi.pm_ownerpid);
	EXPECT_EQ((uint32_t)PMC_DISP_FREE, pi.pm_rowdisp);
	EXPECT_EQ((uint32_t)PMC_STATE_FREE, pi.pm_state);
	/* A smaller buffer gets what fits; the count is always the rows'. */
	ASSERT_EQ(0, pmc_t_getpmcinfo(self->fd, 0, info, &small));
	EXPECT_EQ(ci.pm_npmc, small);

	/* A system PMC: STANDALONE on its CPU, the row free elsewhere. */
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	ASSERT_EQ(0, info_of(self->fd, 1, PMC_ID_TO_ROWINDEX(id), &pi));
	EXPECT_EQ((uint32_t)PMC_DISP_STANDALONE, pi.pm_rowdisp);
	EXPECT_EQ(getpid(), pi.pm_ownerpid);
	EXPECT_EQ((uint32_t)PMC_MODE_SC, pi.pm_mode);
	EXPECT_EQ((uint32_t)(PMC_EV_SOFT_FIRST + PMC_T_SW_CPU_CLOCK),
		  pi.pm_event);
	EXPECT_EQ((uint32_t)PMC_STATE_ALLOCATED, pi.pm_state);
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, info_of(self->fd, 1, PMC_ID_TO_ROWINDEX(id), &pi));
	EXPECT_EQ((uint32_t)PMC_STATE_RUNNING, pi.pm_state);
	ASSERT_EQ(0, info_of(self->fd, 0, PMC_ID_TO_ROWINDEX(id), &pi));
	EXPECT_EQ(-1, pi.pm_ownerpid);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));

	/* A process PMC: THREAD on every CPU. */
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	ASSERT_EQ(0, info_of(self->fd, 0, PMC_ID_TO_ROWINDEX(id), &pi));
	EXPECT_EQ((uint32_t)PMC_DISP_THREAD, pi.pm_rowdisp);
	EXPECT_EQ(getpid(), pi.pm_ownerpid);
	ASSERT_EQ(0, info_of(self->fd, 1, PMC_ID_TO_ROWINDEX(id), &pi));
	EXPECT_EQ((uint32_t)PMC_DISP_THREAD, pi.pm_rowdisp);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	ASSERT_EQ(0, info_of(self->fd, 1, PMC_ID_TO_ROWINDEX(id), &pi));
	EXPECT_EQ((uint32_t)PMC_DISP_FREE, pi.pm_rowdisp);

	EXPECT_EQ(-EINVAL, pmc_t_getpmcinfo(self->fd, -1, info, &n));
	EXPECT_EQ(-EINVAL, pmc_t_getpmcinfo(self->fd, 4096, info, &n));
	n = MAXROWS;
	EXPECT_EQ(-EFAULT, pmc_t_getpmcinfo(self->fd, 0, (void *)8, &n));
}

/*
 * Process PMCs of one owner each take a row of their own: the class runs
 * out, rows released out of order are reused, and each owner has its own
 * set (rows shared as THREAD).
 */
TEST_F(rows, process_rows_exhausted_then_released_out_of_order)
{
	uint32_t ids[64], id, n = self->soft.pm_num, i;
	int fd2;

	ASSERT_GE(64U, n);
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
					      PMC_T_SW_PAGE_FAULTS, 0, 0,
					      &ids[i]));
	EXPECT_EQ(-EINVAL, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
					    PMC_T_SW_PAGE_FAULTS, 0, 0, &id));
	/* THREAD rows cannot serve a system PMC. */
	EXPECT_EQ(-EINVAL, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 0,
					    PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	/* Another owner shares the rows. */
	fd2 = pmc_t_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, pmc_t_alloc_soft(fd2, PMC_MODE_TC, 0,
				      PMC_T_SW_PAGE_FAULTS, 0, 0, &id));
	close(fd2);

	/* Release rows 5, 2 and 9: new PMCs get exactly those, lowest first. */
	EXPECT_EQ(0, pmc_t_release(self->fd, ids[5]));
	EXPECT_EQ(0, pmc_t_release(self->fd, ids[2]));
	EXPECT_EQ(0, pmc_t_release(self->fd, ids[9]));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &id));
	EXPECT_EQ(ids[2], id);
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &id));
	EXPECT_EQ(ids[5], id);
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &id));
	EXPECT_EQ(ids[9], id);
	EXPECT_EQ(-EINVAL, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
					    PMC_T_SW_PAGE_FAULTS, 0, 0, &id));
	for (i = n; i-- > 0;)
		EXPECT_EQ(0, pmc_t_release(self->fd, ids[i]));
}

/* System PMCs: one per row per CPU, rows of other CPUs untouched. */
TEST_F(rows, system_rows_exhausted_per_cpu)
{
	uint32_t ids[64], id, n = self->soft.pm_num, i;

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
					      PMC_T_SW_CPU_CLOCK, 0, 0,
					      &ids[i]));
	EXPECT_EQ(-EINVAL, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
					    PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	/* STANDALONE rows cannot serve a process PMC. */
	EXPECT_EQ(-EINVAL, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
					    PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 0,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	EXPECT_EQ(0, pmc_t_release(self->fd, ids[7]));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ(ids[7], id);
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, pmc_t_release(self->fd, ids[i]));
}

/* PMCADMIN: disabled rows are never allocated; hwpmc's EBUSY rules. */
TEST_F(rows, admin_disables_and_enables_rows)
{
	int row = self->soft0;
	struct pmc_op_pmcadmin bad = {
		.pm_cpu = 0, .pm_flags = 1, .pm_pmc = row,
		.pm_state = PMC_STATE_FREE,
	};
	struct pmc_info pi;
	uint32_t id;

	ASSERT_EQ(0, pmc_t_admin(self->fd, 0, row, PMC_STATE_DISABLED));
	ASSERT_EQ(0, info_of(self->fd, 0, row, &pi));
	EXPECT_EQ(0U, pi.pm_enabled);
	EXPECT_EQ((uint32_t)PMC_STATE_DISABLED, pi.pm_state);
	EXPECT_EQ((uint32_t)PMC_DISP_STANDALONE, pi.pm_rowdisp);
	/* Disabling twice is a no-op. */
	EXPECT_EQ(0, pmc_t_admin(self->fd, 0, row, PMC_STATE_DISABLED));
	/* System PMCs on CPU 0 skip the row; CPU 1 still has it. */
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 0,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ((uint32_t)row + 1, PMC_ID_TO_ROWINDEX(id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ((uint32_t)row, PMC_ID_TO_ROWINDEX(id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	/* Process PMCs skip a row disabled on any CPU. */
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ((uint32_t)row + 1, PMC_ID_TO_ROWINDEX(id));
	/* A row in use by process PMCs cannot be disabled. */
	EXPECT_EQ(-EBUSY, pmc_t_admin(self->fd, 1, row + 1,
				      PMC_STATE_DISABLED));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	ASSERT_EQ(0, pmc_t_admin(self->fd, 0, row, PMC_STATE_FREE));
	ASSERT_EQ(0, info_of(self->fd, 0, row, &pi));
	EXPECT_EQ(1U, pi.pm_enabled);
	EXPECT_EQ((uint32_t)PMC_DISP_FREE, pi.pm_rowdisp);

	/* A row with a system PMC on that CPU: EBUSY either way. */
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	EXPECT_EQ(-EBUSY, pmc_t_admin(self->fd, 1, PMC_ID_TO_ROWINDEX(id),
				      PMC_STATE_DISABLED));
	EXPECT_EQ(-EBUSY, pmc_t_admin(self->fd, 1, PMC_ID_TO_ROWINDEX(id),
				      PMC_STATE_FREE));
	EXPECT_EQ(0, pmc_t_admin(self->fd, 0, PMC_ID_TO_ROWINDEX(id),
				 PMC_STATE_DISABLED));
	EXPECT_EQ(0, pmc_t_admin(self->fd, 0, PMC_ID_TO_ROWINDEX(id),
				 PMC_STATE_FREE));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));

	/* Bad requests. */
	EXPECT_EQ(-EINVAL, pmc_t_admin(self->fd, -1, row, PMC_STATE_FREE));
	EXPECT_EQ(-EINVAL, pmc_t_admin(self->fd, 4096, row, PMC_STATE_FREE));
	EXPECT_EQ(-EINVAL, pmc_t_admin(self->fd, 0, -1, PMC_STATE_FREE));
	EXPECT_EQ(-EINVAL, pmc_t_admin(self->fd, 0, MAXROWS, PMC_STATE_FREE));
	EXPECT_EQ(-EINVAL, pmc_t_admin(self->fd, 0, row, PMC_STATE_RUNNING));
	EXPECT_EQ(-EINVAL, pmc_t_ioctl(self->fd, PMC_IOC_PMCADMIN, &bad));
}

/*
 * hwpmc's ENXIO: an offline CPU for GETPMCINFO, ADMIN, ALLOCATE, START,
 * STOP, RW. Back online, the PMC counts again once started again.
 */
TEST_F(rows, offline_cpu_is_enxio)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	struct pmc_info info[MAXROWS];
	uint32_t n = MAXROWS, id;
	uint64_t v, v0;
	FILE *f;

	if (access(online, W_OK))
		SKIP(return, "CPU 1 cannot be taken offline here");
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
				      PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	f = fopen(online, "w");
	ASSERT_NE(NULL, f);
	fputs("0", f);
	ASSERT_EQ(0, fclose(f));

	EXPECT_EQ(-ENXIO, pmc_t_getpmcinfo(self->fd, 1, info, &n));
	EXPECT_EQ(-ENXIO, pmc_t_admin(self->fd, 1, self->soft0,
				      PMC_STATE_DISABLED));
	EXPECT_EQ(-ENXIO, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1,
					   PMC_T_SW_CPU_CLOCK, 0, 0, NULL));
	EXPECT_EQ(-ENXIO, pmc_t_stop(self->fd, id));
	EXPECT_EQ(-ENXIO, pmc_t_start(self->fd, id));
	EXPECT_EQ(-ENXIO, pmc_t_read(self->fd, id, &v));

	f = fopen(online, "w");
	ASSERT_NE(NULL, f);
	fputs("1", f);
	ASSERT_EQ(0, fclose(f));
	/* perf ended the counter with the CPU: frozen until PMCSTART. */
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v0));
	usleep(50000);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	EXPECT_EQ(v0, v);
	/* PMCSTART of the (still running) PMC makes it count again. */
	EXPECT_EQ(0, pmc_t_start(self->fd, id));
	usleep(50000);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	EXPECT_LT(v0 + 20000000, v);
	EXPECT_EQ(0, pmc_t_stop(self->fd, id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

TEST_HARNESS_MAIN
