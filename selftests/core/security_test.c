// SPDX-License-Identifier: GPL-2.0
/*
 * security_test.c - the driver's privilege checks, each refusal tried as
 * uid/gid 65534: system PMCs (unprivileged_syspmcs), kernel-mode counting
 * (perf_event_paranoid), PMCADMIN, attaching to others' processes
 * (ptrace_may_access() in read mode, unprivileged_proc_debug). The
 * set-id exec rule is tested in selftests/porting/semantics_test.c.
 */
#include "pmc_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

FIXTURE(sec) {
	mode_t dev_mode;
	char syspmcs[16], proc_debug[16], paranoid[16], yama[16];
	bool have_yama;
};

FIXTURE_SETUP(sec)
{
	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	if (geteuid())
		SKIP(return, "needs root to set up the unprivileged user");
	ASSERT_EQ(0, pmc_t_dev_chmod(0666, &self->dev_mode));
	ASSERT_EQ(0, pmc_t_param_read("unprivileged_syspmcs", self->syspmcs,
				      sizeof(self->syspmcs)));
	ASSERT_EQ(0, pmc_t_param_read("unprivileged_proc_debug",
				      self->proc_debug,
				      sizeof(self->proc_debug)));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "2",
					self->paranoid,
					sizeof(self->paranoid)));
	self->have_yama = !pmc_t_sysctl_write("kernel/yama/ptrace_scope", "0",
					      self->yama, sizeof(self->yama));
}

FIXTURE_TEARDOWN(sec)
{
	if (!pmc_t_have_device() || geteuid())
		return;
	pmc_t_dev_chmod(self->dev_mode, NULL);
	pmc_t_param_write("unprivileged_syspmcs", self->syspmcs);
	pmc_t_param_write("unprivileged_proc_debug", self->proc_debug);
	pmc_t_sysctl_write("kernel/perf_event_paranoid", self->paranoid,
			   NULL, 0);
	if (self->have_yama)
		pmc_t_sysctl_write("kernel/yama/ptrace_scope", self->yama,
				   NULL, 0);
}

/* Each check below returns 0, or the line that failed (for the log). */
#define CHECK(cond) do { if (!(cond)) return __LINE__ & 0xff; } while (0)

static int alloc_sys(int fd, uint32_t mode, uint32_t caps)
{
	return pmc_t_alloc_soft(fd, mode, 0, PMC_T_SW_CPU_CLOCK,
				caps | (PMC_IS_SAMPLING_MODE(mode) ?
					PMC_CAP_INTERRUPT : 0), 0, NULL);
}

static int nobody_system(void *arg)
{
	int fd = pmc_t_open();

	CHECK(fd >= 0);
	CHECK(alloc_sys(fd, PMC_MODE_SC, PMC_CAP_USER) == -EPERM);
	CHECK(alloc_sys(fd, PMC_MODE_SS, PMC_CAP_USER) == -EPERM);
	return 0;
}

static int nobody_system_allowed(void *arg)
{
	int fd = pmc_t_open();

	CHECK(fd >= 0);
	CHECK(alloc_sys(fd, PMC_MODE_SC, PMC_CAP_USER) == 0);
	CHECK(alloc_sys(fd, PMC_MODE_SC, 0) == 0);
	return 0;
}

/*
 * unprivileged_syspmcs=1 lets users have system PMCs as far as perf lets
 * them have CPU-wide counters: perf_event_paranoid <= 0.
 */
TEST_F(sec, system_pmcs_need_privilege_or_unprivileged_syspmcs)
{
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_syspmcs", "0"));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "0",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_system, NULL));
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_syspmcs", "1"));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "1",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_system, NULL));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "0",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_system_allowed, NULL));
}

static int nobody_kernel_paranoid2(void *arg)
{
	int fd = pmc_t_open();
	uint32_t id, caps;

	CHECK(fd >= 0);
	/* No mode named: user mode only (selftests/porting/semantics). */
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0,
			       0, &id) == 0);
	CHECK(pmc_t_getcaps(fd, id, &caps) == 0 &&
	      !(caps & PMC_CAP_SYSTEM));
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK,
			       PMC_CAP_SYSTEM, 0, NULL) == -EPERM);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK,
			       PMC_CAP_USER | PMC_CAP_SYSTEM, 0, NULL) ==
	      -EPERM);
	/* User mode only: allowed, and it counts. */
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS,
			       PMC_CAP_USER, 0, &id) == 0);
	CHECK(pmc_t_start(fd, id) == 0);
	CHECK(pmc_t_touch_pages(50) == 0);
	CHECK(pmc_t_stop(fd, id) == 0);
	{
		uint64_t v;

		CHECK(pmc_t_read(fd, id, &v) == 0 && v >= 50);
	}
	return 0;
}

static int nobody_kernel_paranoid1(void *arg)
{
	int fd = pmc_t_open();

	CHECK(fd >= 0);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0,
			       0, NULL) == 0);
	return 0;
}

TEST_F(sec, kernel_mode_counting_needs_paranoid_1)
{
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "2",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_kernel_paranoid2, NULL));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "1",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_kernel_paranoid1, NULL));
}

static int nobody_admin(void *arg)
{
	int fd = pmc_t_open();
	int row = pmc_t_class_row(fd, PMC_CLASS_SOFT, 0);

	CHECK(fd >= 0 && row >= 0);
	CHECK(pmc_t_admin(fd, 0, row, PMC_STATE_DISABLED) == -EPERM);
	CHECK(pmc_t_admin(fd, 0, row, PMC_STATE_FREE) == -EPERM);
	return 0;
}

TEST_F(sec, admin_needs_cap_sys_admin)
{
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_admin, NULL));
}

/* ---------------------------------------------------------------- attach */

static int pause_fn(void *arg)
{
	pause();
	return 0;
}

static int undumpable_fn(void *arg)
{
	prctl(PR_SET_DUMPABLE, 0);
	pause();
	return 0;
}

struct attach_args {
	pid_t root_pid;		/* a process of root */
	pid_t sibling;		/* a process of uid 65534, not our child */
	bool yama;
};

static int nobody_attach(void *arg)
{
	struct attach_args *a = arg;
	struct pmc_t_child c = { 0 }, u = { 0 };
	uint32_t id;
	int fd = pmc_t_open(), ret = 0;

	CHECK(fd >= 0);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS,
			       PMC_CAP_USER, 0, &id) == 0);
	CHECK(pmc_t_child_start(&c, pause_fn, NULL) == 0);
	CHECK(pmc_t_child_start(&u, undumpable_fn, NULL) == 0);
	CHECK(pmc_t_child_go(&u) == 0);
	usleep(100000);

	/* Our own child, same credentials: allowed. */
	if (pmc_t_attach(fd, id, c.pid, 0) || pmc_t_detach(fd, id, c.pid, 0))
		ret = __LINE__;
	/* root's process, init: refused. */
	else if (pmc_t_attach(fd, id, a->root_pid, 0) != -EPERM ||
		 pmc_t_attach(fd, id, 1, 0) != -EPERM)
		ret = __LINE__;
	/* Not dumpable: refused. */
	else if (pmc_t_attach(fd, id, u.pid, 0) != -EPERM)
		ret = __LINE__;
	/* Same uid, not a descendant: allowed with Yama off. */
	else if (pmc_t_attach(fd, id, a->sibling, 0) ||
		 pmc_t_detach(fd, id, a->sibling, 0))
		ret = __LINE__;
	pmc_t_child_kill(&c);
	pmc_t_child_kill(&u);
	return ret & 0xff;
}

static int nobody_attach_self_only(void *arg)
{
	struct attach_args *a = arg;
	struct pmc_t_child c = { 0 };
	uint32_t id;
	int fd = pmc_t_open(), ret = 0;

	CHECK(fd >= 0);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS,
			       PMC_CAP_USER, 0, &id) == 0);
	CHECK(pmc_t_child_start(&c, pause_fn, NULL) == 0);
	if (a->yama) {
		/*
		 * Yama 1 limits ptrace(2) attach to descendants; a PMC attach
		 * is read-mode access, as perf_event_open(2)'s, which Yama
		 * leaves alone (selftests/porting/attach).
		 */
		if (pmc_t_attach(fd, id, a->sibling, 0) ||
		    pmc_t_detach(fd, id, a->sibling, 0) ||
		    pmc_t_attach(fd, id, c.pid, 0) ||
		    pmc_t_detach(fd, id, c.pid, 0))
			ret = __LINE__;
	} else {
		/* unprivileged_proc_debug=0: only ourselves. */
		if (pmc_t_attach(fd, id, c.pid, 0) != -EPERM ||
		    pmc_t_attach(fd, id, 0, 0))
			ret = __LINE__;
	}
	pmc_t_child_kill(&c);
	return ret & 0xff;
}

static int nobody_pause(void *arg)
{
	pause();
	return 0;
}

TEST_F(sec, attach_needs_ptrace_rights)
{
	struct attach_args a = { .root_pid = getpid() };
	pid_t sib = fork();

	ASSERT_LE(0, sib);
	if (!sib) {
		if (pmc_t_drop_privileges())
			_exit(1);
		nobody_pause(NULL);
		_exit(0);
	}
	a.sibling = sib;
	usleep(100000);
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_proc_debug", "1"));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_attach, &a));
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_proc_debug", "0"));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_attach_self_only, &a));
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_proc_debug", "1"));
	if (self->have_yama) {
		ASSERT_EQ(0, pmc_t_sysctl_write("kernel/yama/ptrace_scope",
						"1", NULL, 0));
		a.yama = true;
		EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_attach_self_only, &a));
	}
	kill(sib, SIGKILL);
	waitpid(sib, NULL, 0);
}

TEST_HARNESS_MAIN
