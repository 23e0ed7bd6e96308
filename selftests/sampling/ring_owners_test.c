// SPDX-License-Identifier: GPL-2.0
/*
 * ring_owners_test.c - each owner's ring has its own poll wait queue: the
 * records committed to one owner's ring wake only that owner's pollers.
 *
 * A poller whose ring stays empty sleeps in poll() without being woken: a
 * wakeup meant for another owner would make it run, re-check its ring and
 * sleep again, which poll() hides but the thread's voluntary context
 * switches (getrusage(RUSAGE_THREAD)) show.
 */
#include <pthread.h>
#include <sys/resource.h>

#include "kselftest_harness.h"

#include "sampling.h"

/* How long the busy owner produces while the other one polls. */
#define BUSY_MS		1000
/* Context switches a quiet poll may take: falling asleep, the timeout. */
#define QUIET_NVCSW	4

FIXTURE(owners) {
	int busy_fd, quiet_fd;
	struct smp_ring busy, quiet;
};

FIXTURE_SETUP(owners)
{
	const char *why = smp_cannot_run();

	self->busy_fd = self->quiet_fd = -1;
	self->busy.pg = self->quiet.pg = NULL;
	if (why)
		SKIP(return, "%s", why);
	/* Two opens: two owners, each with its log state and ring. */
	self->busy_fd = smp_open();
	self->quiet_fd = smp_open();
	ASSERT_LE(0, self->busy_fd);
	ASSERT_LE(0, self->quiet_fd);
	ASSERT_EQ(0, smp_ring_map(self->busy_fd, 4, &self->busy));
	ASSERT_EQ(0, smp_ring_map(self->quiet_fd, 1, &self->quiet));
}

FIXTURE_TEARDOWN(owners)
{
	smp_ring_unmap(&self->quiet);
	smp_ring_unmap(&self->busy);
	if (self->quiet_fd >= 0)
		EXPECT_EQ(0, close(self->quiet_fd));
	if (self->busy_fd >= 0)
		EXPECT_EQ(0, close(self->busy_fd));
}

struct quiet_poll {
	int fd;
	int ret;		/* poll()'s */
	short revents;
	long nvcsw;		/* voluntary context switches during poll() */
};

static void *quiet_poller(void *arg)
{
	struct quiet_poll *q = arg;
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	struct rusage before, after;

	getrusage(RUSAGE_THREAD, &before);
	q->ret = poll(&pfd, 1, BUSY_MS);
	getrusage(RUSAGE_THREAD, &after);
	q->revents = pfd.revents;
	q->nvcsw = after.ru_nvcsw - before.ru_nvcsw;
	return NULL;
}

/* One owner busy committing records; the other's poll() is never woken. */
TEST_F(owners, busy_owner_does_not_wake_other_pollers)
{
	struct quiet_poll q = { .fd = self->quiet_fd };
	struct smp_buf b = {};
	uint64_t t0, drained = 0;
	unsigned int writes = 0;
	pthread_t thr;

	RETURN_IF_SKIPPED();
	/* Both rings start with INITIALIZE: read it, so both are empty. */
	smp_ring_drain(&self->busy, &b);
	smp_ring_drain(&self->quiet, &b);
	b.len = 0;

	ASSERT_EQ(0, pthread_create(&thr, NULL, quiet_poller, &q));
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	while (pmc_t_now_ns(CLOCK_MONOTONIC) - t0 < BUSY_MS * 1000000ull) {
		/* Each WRITELOG is published, committed and wakes its pollers. */
		ASSERT_EQ(0, smp_writelog(self->busy_fd, writes++));
		drained += smp_ring_drain(&self->busy, &b);
		b.len = 0;
	}
	ASSERT_EQ(0, pthread_join(thr, NULL));
	smp_buf_free(&b);

	TH_LOG("%u records committed to the busy ring; quiet poller: %ld switches",
	       writes, q.nvcsw);
	EXPECT_LE(100u, writes);
	EXPECT_LE(writes * sizeof(struct pmclog_userdata), drained);
	EXPECT_EQ(0, q.ret);		/* timed out: nothing for it */
	EXPECT_EQ(0, q.revents);
	EXPECT_GE(QUIET_NVCSW, q.nvcsw);
}

TEST_HARNESS_MAIN
