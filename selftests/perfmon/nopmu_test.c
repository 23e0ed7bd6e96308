// SPDX-License-Identifier: GPL-2.0
/*
 * nopmu_test.c - where the CPU has no PMU (the VM without the test PMU),
 * every counter ioctl fails with ENXIO, PMIOTSTAMP still works, and the
 * example program says so.
 */
#include "kselftest_harness.h"
#include "perfmon_util.h"

FIXTURE(nopmu) {
	int fd;
};

FIXTURE_SETUP(nopmu)
{
	const char *why = tp_cannot_load();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, tp_unload());
	if (tp_pmc_hwclass(NULL, NULL) == 0)
		SKIP(return, "this CPU has a PMU");
	self->fd = open(_PATH_PERFMON, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(nopmu)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(nopmu, counters_are_not_there)
{
	struct pmc p = { .pmc_num = 0 };
	long long v;
	int num;

	if (_metadata->skip)
		return;
	for (num = 0; num < NPMC; num++) {
		EXPECT_EQ(ENXIO, pm_setup(self->fd, num, 0x3c, 0, PMCF_USR, 0));
		p.pmc_num = num;
		EXPECT_EQ(ENXIO, pm_ioctl(self->fd, PMIOGET, &p));
		EXPECT_EQ(ENXIO, pm_read(self->fd, num, &v));
		EXPECT_EQ(ENXIO, pm_num(self->fd, PMIOSTART, num));
		EXPECT_EQ(ENXIO, pm_num(self->fd, PMIOSTOP, num));
		EXPECT_EQ(ENXIO, pm_num(self->fd, PMIORESET, num));
	}
}

TEST_F(nopmu, tstamp_still_works)
{
	struct pmc_tstamp a, b;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_ioctl(self->fd, PMIOTSTAMP, &a));
	ASSERT_EQ(0, pm_ioctl(self->fd, PMIOTSTAMP, &b));
	EXPECT_LT(0, a.pmct_rate);
	EXPECT_LT(a.pmct_value, b.pmct_value);
}

TEST_F(nopmu, example_program_reports_the_error)
{
	char cmd[PATH_MAX + 64], line[256] = "";
	FILE *f;
	int st;

	if (_metadata->skip)
		return;
	snprintf(cmd, sizeof(cmd), "%s -u 0x3c 2>&1", pm_example_path());
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	st = pclose(f);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(1, WEXITSTATUS(st));
	EXPECT_NE(NULL, strstr(line, "ioctl(PMIOSETUP): No such device or address"))
		TH_LOG("'%s'", line);
}

TEST_HARNESS_MAIN
