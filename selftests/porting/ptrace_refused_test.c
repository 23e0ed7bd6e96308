// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace_refused_test.c - attach rights fail closed: pmc.ko reloaded with
 * test_ptrace_unfound=1 loads as on a kernel where ptrace_may_access()
 * cannot be found (compat/ptrace.h). The load logs one line saying attach
 * is refused, and every PMCATTACH to another process then fails with
 * EPERM, root's to its own child too, while attaching to itself still
 * works. Reloaded with the defaults, the same attach succeeds (the
 * control). Leaves the module loaded with its defaults.
 *
 * The module reloaded is $PMC_KO, or driver/pmc.ko from the repository root.
 */
#include "pmc_test.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define REFUSAL	"pmc: ptrace_may_access() not found: attaching PMCs to other processes is refused (EPERM)"

static uint64_t spin_ns = 1000000;

FIXTURE(refused) {
	bool reloaded;
	int lines;		/* refusal lines the reload logged */
	char line[512];
};

FIXTURE_SETUP(refused)
{
	const char *why = pmc_t_cannot_reload(pmc_t_ko());
	int before;

	self->reloaded = false;
	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	if (why)
		SKIP(return, "%s", why);
	before = pmc_t_kmsg_count(REFUSAL, self->line, sizeof(self->line));
	ASSERT_LE(0, before);
	ASSERT_EQ(0, pmc_t_unload());
	self->reloaded = true;
	ASSERT_EQ(0, pmc_t_load("test_ptrace_unfound=1"));
	self->lines = pmc_t_kmsg_count(REFUSAL, self->line,
				       sizeof(self->line)) - before;
}

FIXTURE_TEARDOWN(refused)
{
	if (self->reloaded) {
		EXPECT_EQ(0, pmc_t_unload());
		EXPECT_EQ(0, pmc_t_load(""));
	}
}

/*
 * PMCATTACH of a new task-clock PMC to @pid through a fresh /dev/pmc:
 * 0 or -errno.
 */
static int attach_to(pid_t pid)
{
	int fd = pmc_t_open(), ret;
	uint32_t id;

	if (fd < 0)
		return fd;
	ret = pmc_t_alloc_soft(fd, PMC_MODE_TC, PMC_CPU_ANY,
			       PERF_COUNT_SW_TASK_CLOCK, PMC_CAP_USER, 0, &id);
	if (!ret)
		ret = pmc_t_attach(fd, id, pid, 0);
	close(fd);
	return ret;
}

TEST_F(refused, attach_to_others_fails_closed)
{
	struct pmc_t_child c;

	if (_metadata->skip)
		return;
	EXPECT_EQ(1, self->lines) TH_LOG("refusal lines at load: %d (last: %s)",
					 self->lines, self->line);
	/* Itself: no ptrace check, allowed. */
	EXPECT_EQ(0, attach_to(getpid()));
	/* Its own child, as root with CAP_SYS_PTRACE: refused. */
	ASSERT_EQ(0, pmc_t_child_start(&c, pmc_t_spin_fn, &spin_ns));
	EXPECT_EQ(-EPERM, attach_to(c.pid));
	pmc_t_child_kill(&c);

	/* The control: with the lookup, the same attach is allowed. */
	ASSERT_EQ(0, pmc_t_unload());
	ASSERT_EQ(0, pmc_t_load(""));
	self->reloaded = false;
	ASSERT_EQ(0, pmc_t_child_start(&c, pmc_t_spin_fn, &spin_ns));
	EXPECT_EQ(0, attach_to(c.pid));
	pmc_t_child_kill(&c);
}

TEST_HARNESS_MAIN
