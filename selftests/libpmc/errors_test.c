// SPDX-License-Identifier: GPL-2.0
/*
 * errors_test.c - pmc(3) fails as hwpmc(4) ERRORS documents: bad modes,
 * CPUs, flags and events; ids that are not the caller's; attach and detach
 * misuse; values written to running PMCs; starts without the log a PMC
 * needs; log misuse; privileged ops from an unprivileged user.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "pmc_util.h"

/* A pid that is no process: a child already reaped. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

TEST(allocate_refuses_bad_requests)
{
	const struct pmc_cpuinfo *ci;
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	ASSERT_EQ(0, pmc_cpuinfo(&ci));
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0);
	ASSERT_EQ(0, pmc_release(id));

	/* Library: mode, event, qualifier. */
	EXPECT_EQ(-1, pmc_allocate("SOFT-task-clock", (enum pmc_mode)7, 0,
				   PMC_CPU_ANY, &id, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_allocate("SOFT-no-such-event", PMC_MODE_TC, 0,
				   PMC_CPU_ANY, &id, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_allocate("SOFT-task-clock,edge", PMC_MODE_TC, 0,
				   PMC_CPU_ANY, &id, 0));
	EXPECT_EQ(EINVAL, errno);
	/* Driver: CPU for the mode, flags. */
	EXPECT_EQ(-1, pmc_allocate("SOFT-cpu-clock", PMC_MODE_SC, 0,
				   PMC_CPU_ANY, &id, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_allocate("SOFT-task-clock", PMC_MODE_TC, 0, 0, &id, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_allocate("SOFT-cpu-clock", PMC_MODE_SC, 0,
				   (int)ci->pm_ncpu + 3, &id, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_allocate("SOFT-task-clock", PMC_MODE_TC, 0x40,
				   PMC_CPU_ANY, &id, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_allocate("SOFT-cpu-clock", PMC_MODE_SC,
				   PMC_F_DESCENDANTS, 0, &id, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_allocate("SOFT-task-clock", PMC_MODE_TC, 0,
				   PMC_CPU_ANY, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST(ids_must_be_the_callers)
{
	pmc_value_t v;
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	/* hwpmc: ESRCH for a process that has allocated no PMC. */
	EXPECT_EQ(-1, pmc_start(0x12345));
	EXPECT_EQ(ESRCH, errno);
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0);
	/* EINVAL: an invalid PMC handle. */
	EXPECT_EQ(-1, pmc_start(id ^ 0x1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_read(PMC_ID_INVALID, &v));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_release(id + 0x10000));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, pmc_release(id));
	EXPECT_EQ(-1, pmc_release(id));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_stop(id));
	EXPECT_EQ(EINVAL, errno);
}

TEST(attach_and_detach_misuse)
{
	pmc_id_t sc, a, b;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-cpu-clock", PMC_MODE_SC, 0, 0, &sc, 0);
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, 0, PMC_CPU_ANY, &a, 0);
	PMC_ALLOC("SOFT-page-faults", PMC_MODE_TC, 0, PMC_CPU_ANY, &b, 0);

	/* EINVAL: a system-wide PMC given to attach or detach. */
	EXPECT_EQ(-1, pmc_attach(sc, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_detach(sc, 0));
	EXPECT_EQ(EINVAL, errno);
	/* EINVAL: an illegal process id. */
	EXPECT_EQ(-1, pmc_attach(a, -2));
	EXPECT_EQ(EINVAL, errno);
	/* ESRCH: a non-existent process. */
	EXPECT_EQ(-1, pmc_attach(a, dead_pid()));
	EXPECT_EQ(ESRCH, errno);
	/* ESRCH: detaching from a process hwpmc does not monitor. */
	EXPECT_EQ(-1, pmc_detach(a, 0));
	EXPECT_EQ(ESRCH, errno);
	ASSERT_EQ(0, pmc_attach(a, 0));
	/* EEXIST: attached again. */
	EXPECT_EQ(-1, pmc_attach(a, getpid()));
	EXPECT_EQ(EEXIST, errno);
	/* EINVAL: detaching a PMC not attached to a monitored process. */
	EXPECT_EQ(-1, pmc_detach(b, 0));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, pmc_detach(a, 0));

	ASSERT_EQ(0, pmc_release(sc));
	ASSERT_EQ(0, pmc_release(a));
	ASSERT_EQ(0, pmc_release(b));
}

/* EBUSY: a value or a count set on a running PMC. */
TEST(running_pmcs_take_no_value)
{
	pmc_id_t id;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0);
	ASSERT_EQ(0, pmc_start(id));
	EXPECT_EQ(-1, pmc_write(id, 5));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, pmc_set(id, 5));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, pmc_stop(id));
	EXPECT_EQ(0, pmc_write(id, 5));
	EXPECT_EQ(0, pmc_set(id, 5));
	ASSERT_EQ(0, pmc_release(id));
}

/* EDOOFUS: starting, without a log, a PMC that writes to one. */
TEST(start_without_a_needed_log_is_edoofus)
{
	static const uint32_t flags[] = { PMC_F_LOG_PROCEXIT, PMC_F_LOG_PROCCSW };
	pmc_id_t id;
	size_t i;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-cpu-clock", PMC_MODE_SS, 0, 0, &id, 1000000);
	EXPECT_EQ(-1, pmc_start(id));
	EXPECT_EQ(EDOOFUS, errno);
	ASSERT_EQ(0, pmc_release(id));
	for (i = 0; i < 2; i++) {
		PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, flags[i],
				  PMC_CPU_ANY, &id, 0);
		EXPECT_EQ(-1, pmc_start(id));
		EXPECT_EQ(EDOOFUS, errno);
		ASSERT_EQ(0, pmc_release(id));
	}
}

TEST(log_misuse)
{
	char path[] = "/tmp/libpmc-errors-XXXXXX";
	int fd, rd;

	PMC_INIT_OR_SKIP();
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	rd = open(path, O_RDONLY);
	ASSERT_GE(rd, 0);
	unlink(path);

	/* EINVAL: flush, write or de-configure without a log. */
	EXPECT_EQ(-1, pmc_flush_logfile());
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_writelog(1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_configure_logfile(-1));
	EXPECT_EQ(EINVAL, errno);
	/* EBADF: a descriptor not open for writing. */
	EXPECT_EQ(-1, pmc_configure_logfile(rd));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, pmc_configure_logfile(12345));
	EXPECT_EQ(EBADF, errno);
	/* EBUSY: a second log while one is active. */
	ASSERT_EQ(0, pmc_configure_logfile(fd));
	EXPECT_EQ(-1, pmc_configure_logfile(fd));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, pmc_writelog(1));
	EXPECT_EQ(0, pmc_flush_logfile());
	ASSERT_EQ(0, pmc_close_logfile());
	close(rd);
	close(fd);
}

TEST(get_msr_needs_a_self_attached_hardware_pmc)
{
	uint32_t msr;
	pmc_id_t tc, sc;

	PMC_INIT_OR_SKIP();
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TC, 0, PMC_CPU_ANY, &tc, 0);
	PMC_ALLOC("SOFT-cpu-clock", PMC_MODE_SC, 0, 0, &sc, 0);
	ASSERT_EQ(0, pmc_start(tc));
	/* ENOSYS: no RDPMC for a software event. */
	EXPECT_EQ(-1, pmc_get_msr(tc, &msr));
	EXPECT_EQ(ENOSYS, errno);
	/* EINVAL: not a process-virtual PMC. */
	EXPECT_EQ(-1, pmc_get_msr(sc, &msr));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_get_msr(tc, NULL));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, pmc_release(tc));
	ASSERT_EQ(0, pmc_release(sc));
}

/* PMCADMIN: EINVAL for a bad CPU or row; EBUSY for a row in use. */
TEST(admin_rows)
{
	struct pmc_pmcinfo *pi;
	pmc_id_t id;
	int row, npmc;

	PMC_INIT_OR_SKIP();
	if (geteuid() != 0)
		SKIP(return, "needs root (PMCADMIN)");
	npmc = pmc_npmc(0);
	EXPECT_EQ(-1, pmc_disable(pmc_ncpu() + 1, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, pmc_disable(0, npmc));
	EXPECT_EQ(EINVAL, errno);

	PMC_ALLOC("SOFT-cpu-clock", PMC_MODE_SC, 0, 0, &id, 0);
	row = (int)PMC_ID_TO_ROWINDEX(id);
	EXPECT_EQ(-1, pmc_disable(0, row));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, pmc_release(id));

	/* A free row disabled shows so, and comes back. */
	ASSERT_EQ(0, pmc_disable(0, row));
	ASSERT_EQ(0, pmc_pmcinfo(0, &pi));
	EXPECT_EQ(0, pi->pm_pmcs[row].pm_enabled);
	EXPECT_EQ(PMC_STATE_DISABLED, pi->pm_pmcs[row].pm_state);
	free(pi);
	ASSERT_EQ(0, pmc_enable(0, row));
	ASSERT_EQ(0, pmc_pmcinfo(0, &pi));
	EXPECT_NE(0, pi->pm_pmcs[row].pm_enabled);
	free(pi);
}

/* An unprivileged user: /dev/pmc opened to all for the test. */
FIXTURE(unprivileged) {
	mode_t mode;
	bool changed;
};

FIXTURE_SETUP(unprivileged)
{
	struct stat st;

	self->changed = false;
	if (stat(PMC_DEVICE_PATH, &st) < 0)
		SKIP(return, "no /dev/pmc: pmc.ko not loaded");
	if (geteuid() != 0)
		SKIP(return, "needs root to switch users");
	self->mode = st.st_mode & 07777;
	ASSERT_EQ(0, chmod(PMC_DEVICE_PATH, 0666));
	self->changed = true;
}

FIXTURE_TEARDOWN(unprivileged)
{
	if (self->changed)
		chmod(PMC_DEVICE_PATH, self->mode);
}

/* Exit codes of the unprivileged child: 0, or the step that failed. */
static int unprivileged_child(void)
{
	pmc_id_t id;

	if (setgid(65534) < 0 || setuid(65534) < 0)
		return 1;
	if (pmc_init() < 0)
		return 2;
	if (pmc_allocate("SOFT-task-clock,usr", PMC_MODE_TC, 0, PMC_CPU_ANY,
			 &id, 0) < 0)
		return 3;
	/* EPERM: a target the user may not debug. */
	if (pmc_attach(id, 1) == 0 || errno != EPERM)
		return 4;
	/* EPERM: PMCADMIN without privilege. */
	if (pmc_disable(0, 0) == 0 || errno != EPERM)
		return 5;
	/* Its own process, in user mode, is fine. */
	if (pmc_attach(id, 0) < 0 || pmc_start(id) < 0 || pmc_stop(id) < 0)
		return 6;
	return 0;
}

TEST_F(unprivileged, refused_what_ptrace_and_perf_refuse)
{
	int status;
	pid_t pid;

	if (_metadata->skip)
		return;
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(unprivileged_child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
