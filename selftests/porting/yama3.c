// SPDX-License-Identifier: GPL-2.0
/*
 * yama3.c - Yama ptrace_scope 3 ("no attach") refuses ptrace(2) attach
 * to any process, even root's; a PMC attach, read-mode access as
 * perf_event_open(2)'s, gets what perf_event_open(2) gets, Yama limiting
 * attach mode only. Scope 3 cannot be lowered until reboot, so this is not
 * a *_test.c of the VM suite: `make vm-yama3` runs it in a guest of its
 * own.
 */
#include "pmc_test.h"

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

static int pause_fn(void *arg)
{
	pause();
	return 0;
}

TEST(yama_scope_3_no_attach)
{
	struct pmc_t_child c = { 0 };
	uint32_t id;
	int fd, perf;

	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	if (geteuid())
		SKIP(return, "needs root to set ptrace_scope");
	if (pmc_t_sysctl_write("kernel/yama/ptrace_scope", "3", NULL, 0))
		SKIP(return, "Yama not in this kernel (no kernel/yama/ptrace_scope)");
	fd = pmc_t_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS,
				      PMC_CAP_USER, 0, &id));
	ASSERT_EQ(0, pmc_t_child_start(&c, pause_fn, NULL));
	/* ptrace(2): refused, even to root for its own child. */
	EXPECT_EQ(-1, ptrace(PTRACE_SEIZE, c.pid, NULL, NULL));
	EXPECT_EQ(EPERM, errno);
	/* A PMC: what perf_event_open(2) gets. */
	perf = pmc_t_perf_open(c.pid, PMC_T_SW_PAGE_FAULTS);
	EXPECT_LE(0, perf);
	EXPECT_EQ(0, pmc_t_attach(fd, id, c.pid, 0));
	EXPECT_EQ(0, pmc_t_attach(fd, id, 0, 0));
	if (perf >= 0)
		EXPECT_EQ(0, close(perf));
	pmc_t_child_kill(&c);
	EXPECT_EQ(0, close(fd));
}

TEST_HARNESS_MAIN
