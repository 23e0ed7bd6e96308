// SPDX-License-Identifier: GPL-2.0
/*
 * getmsr_test.c - PMCGETMSR on a hardware class (the test PMU in the VM):
 * the RDPMC index of a running counting PMC attached to its owner alone;
 * EINVAL when its targets are not solely the owner; EPERM for an attach
 * after the index was given out.
 */
#include "kselftest_harness.h"
#include "../hwclass/hwclass.h"

#include <signal.h>

FIXTURE(msr) {
	int fd;
	struct pmc_classinfo ci;
	struct pmc_t_child c;
};

FIXTURE_SETUP(msr)
{
	const char *why = tp_cannot_load();

	self->fd = -1;
	self->c.pid = 0;
	if (why)
		SKIP(return, "%s", why);
	self->fd = hw_setup(4, 48, &self->ci);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(msr)
{
	if (self->c.pid > 0)
		pmc_t_child_kill(&self->c);
	if (self->fd >= 0)
		EXPECT_EQ(0, close(self->fd));
}

static int pause_fn(void *arg)
{
	pause();
	return 0;
}

static int alloc_tc(int fd, const struct pmc_classinfo *ci, uint32_t *id)
{
	return hw_alloc(fd, ci, PMC_MODE_TC, 0, PERF_TYPE_RAW, HW_RAW_EVENT,
			0, 0, id);
}

/* Self-attached and running: an index; then no attach to anyone (EPERM). */
TEST_F(msr, index_then_no_attach)
{
	uint32_t id, msr = ~0u;

	if (_metadata->skip)
		return;	/* no test PMU */
	ASSERT_EQ(0, alloc_tc(self->fd, &self->ci, &id));
	/* Never started: not running on this thread. */
	EXPECT_EQ(-EINVAL, pmc_t_getmsr(self->fd, id, &msr));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));	/* attaches the owner */
	ASSERT_EQ(0, pmc_t_getmsr(self->fd, id, &msr));
	TH_LOG("RDPMC index %u", msr);
	EXPECT_GT(64u, msr);
	ASSERT_EQ(0, pmc_t_child_start(&self->c, pause_fn, NULL));
	ASSERT_EQ(0, pmc_t_stop(self->fd, id));
	EXPECT_EQ(-EPERM, pmc_t_attach(self->fd, id, self->c.pid, 0));
	EXPECT_EQ(-EPERM, pmc_t_attach(self->fd, id, 0, PMC_ATTACH_F_THREAD));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* Targets other than the owner alone: EINVAL. */
TEST_F(msr, target_not_solely_the_owner)
{
	uint32_t id, msr;

	if (_metadata->skip)
		return;	/* no test PMU */
	ASSERT_EQ(0, pmc_t_child_start(&self->c, pause_fn, NULL));
	/* The owner and a child. */
	ASSERT_EQ(0, alloc_tc(self->fd, &self->ci, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, 0, 0));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, self->c.pid, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	EXPECT_EQ(-EINVAL, pmc_t_getmsr(self->fd, id, &msr));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	/* Only a child. */
	ASSERT_EQ(0, alloc_tc(self->fd, &self->ci, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, self->c.pid, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	EXPECT_EQ(-EINVAL, pmc_t_getmsr(self->fd, id, &msr));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	/* The owner with PMC_F_DESCENDANTS. */
	ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_TC, 0,
			      PERF_TYPE_RAW, HW_RAW_EVENT, 0,
			      PMC_F_DESCENDANTS, &id));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	EXPECT_EQ(-EINVAL, pmc_t_getmsr(self->fd, id, &msr));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

TEST_HARNESS_MAIN
