// SPDX-License-Identifier: GPL-2.0
/*
 * ring_test.c - the mmap'd record ring of ring.h: its layout, who may map it
 * and with which sizes, unmapping and re-mapping, drop-and-count when the
 * reader falls behind (DROPNOTIFY, pr_lost, sequence gaps all agree), poll
 * with the watermark, the same bytes in the ring as in the log file, and
 * samples in the ring within the publication delay.
 */
#include <pthread.h>

#include "kselftest_harness.h"

#include "sampling.h"

FIXTURE(ring) {
	int fd;
	long ps;
	struct smp_ring r;
	char path[64];
};

FIXTURE_SETUP(ring)
{
	const char *why = smp_cannot_run();

	self->fd = -1;
	self->path[0] = '\0';
	memset(&self->r, 0, sizeof(self->r));
	if (why)
		SKIP(return, "%s", why);
	self->ps = sysconf(_SC_PAGESIZE);
	self->fd = smp_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(ring)
{
	smp_ring_unmap(&self->r);
	if (self->fd >= 0)
		close(self->fd);
	if (self->path[0])
		unlink(self->path);
}

static int try_map(int fd, size_t pages, int prot, int flags, off_t off)
{
	void *p = mmap(NULL, pages * sysconf(_SC_PAGESIZE), prot, flags, fd,
		       off);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, pages * sysconf(_SC_PAGESIZE));
	return 0;
}

TEST_F(ring, layout_and_initialize)
{
	struct smp_stream_info si;
	struct smp_buf b = {};
	const struct pmclog_header *h;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_ring_map(self->fd, 4, &self->r));
	EXPECT_EQ(PMC_RING_VERSION, self->r.pg->pr_version);
	EXPECT_EQ(self->ps, self->r.pg->pr_page_size);
	EXPECT_EQ(self->ps, self->r.pg->pr_data_offset);
	EXPECT_EQ(4 * self->ps, self->r.pg->pr_data_size);
	EXPECT_EQ(0, self->r.pg->pr_lost);
	/* A new ring starts with INITIALIZE, published at once. */
	EXPECT_EQ(sizeof(struct pmclog_initialize), smp_ring_avail(&self->r));
	smp_ring_drain(&self->r, &b);
	ASSERT_TRUE(smp_check_stream(&b, &si)) TH_LOG("%s", si.error);
	ASSERT_EQ(1, si.nrecs);
	h = smp_rec_at(&b, 0);
	EXPECT_EQ(PMCLOG_TYPE_INITIALIZE, smp_rec_type(h));
	EXPECT_EQ(0, h->pl_seq);
	/* The ring is a log: WRITELOG and FLUSHLOG work without a file. */
	EXPECT_EQ(0, smp_writelog(self->fd, 42));
	EXPECT_EQ(0, smp_flushlog(self->fd));
	EXPECT_EQ(sizeof(struct pmclog_userdata), smp_ring_avail(&self->r));
	smp_buf_free(&b);
}

TEST_F(ring, refuses_bad_mappings)
{
	int prw = PROT_READ | PROT_WRITE;

	RETURN_IF_SKIPPED();
	/* 1 + 2^n pages, shared, read-write, at offset 0, not executable. */
	EXPECT_EQ(-EINVAL, try_map(self->fd, 1, prw, MAP_SHARED, 0));
	EXPECT_EQ(-EINVAL, try_map(self->fd, 4, prw, MAP_SHARED, 0));
	EXPECT_EQ(-EINVAL, try_map(self->fd, 2, prw, MAP_SHARED, self->ps));
	EXPECT_EQ(-EINVAL, try_map(self->fd, 2, prw, MAP_PRIVATE, 0));
	EXPECT_EQ(-EINVAL, try_map(self->fd, 2, PROT_READ, MAP_SHARED, 0));
	EXPECT_EQ(-EPERM, try_map(self->fd, 2, prw | PROT_EXEC, MAP_SHARED, 0));
	/* None of them left a ring behind: no log. */
	EXPECT_EQ(-EINVAL, smp_writelog(self->fd, 1));
	EXPECT_EQ(0, try_map(self->fd, 2, prw, MAP_SHARED, 0));
}

/* A process that did not open /dev/pmc may not map its ring (EPERM). */
TEST_F(ring, other_process_is_refused)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	int st;
	pid_t pid;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_ring_map(self->fd, 1, &self->r));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int bad = 0;

		bad |= try_map(self->fd, 2, PROT_READ | PROT_WRITE,
			       MAP_SHARED, 0) != -EPERM;
		bad |= (poll(&pfd, 1, 0) != 1 || pfd.revents != POLLERR) << 1;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/* The mapping is not inherited by a child (VM_DONTCOPY). */
TEST_F(ring, fork_does_not_inherit_the_mapping)
{
	int st;
	pid_t pid;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_ring_map(self->fd, 1, &self->r));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		_exit(self->r.pg->pr_version == PMC_RING_VERSION ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(SIGSEGV, WTERMSIG(st));
}

TEST_F(ring, remap_size_rules)
{
	struct smp_ring r2, r3;
	struct smp_buf b = {};
	struct smp_stream_info si;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_ring_map(self->fd, 4, &self->r));
	/* Another size while mapped: EBUSY. The same size: the same ring. */
	EXPECT_EQ(-EBUSY, smp_ring_map(self->fd, 8, &r2));
	ASSERT_EQ(0, smp_ring_map(self->fd, 4, &r2));
	ASSERT_EQ(0, smp_writelog(self->fd, 1));
	EXPECT_EQ(smp_ring_avail(&self->r), smp_ring_avail(&r2));
	EXPECT_EQ(0, memcmp(self->r.data, r2.data, 4 * self->ps));
	/* Still mapped through r2 after the first unmap. */
	smp_ring_unmap(&self->r);
	EXPECT_EQ(-EBUSY, smp_ring_map(self->fd, 8, &r3));
	EXPECT_EQ(0, smp_writelog(self->fd, 2));
	smp_ring_drain(&r2, &b);
	smp_ring_unmap(&r2);
	ASSERT_TRUE(smp_check_stream(&b, &si)) TH_LOG("%s", si.error);
	EXPECT_EQ(3, si.nrecs);
	EXPECT_EQ(2, si.by_type[PMCLOG_TYPE_USERDATA]);
	smp_buf_free(&b);

	/* Unmapped, no log file: no log at all. */
	EXPECT_EQ(-EINVAL, smp_writelog(self->fd, 3));
	/* Any size again: a new ring, INITIALIZE first, the sequence goes on. */
	ASSERT_EQ(0, smp_ring_map(self->fd, 8, &self->r));
	EXPECT_EQ(8 * self->ps, self->r.pg->pr_data_size);
	smp_ring_drain(&self->r, &b);
	ASSERT_TRUE(smp_check_stream(&b, &si)) TH_LOG("%s", si.error);
	ASSERT_EQ(1, si.nrecs);
	EXPECT_EQ(PMCLOG_TYPE_INITIALIZE, smp_rec_type(smp_rec_at(&b, 0)));
	EXPECT_EQ(3, si.first_seq);
	smp_buf_free(&b);
}

/*
 * A reader that does not read: the ring never overwrites; every record that
 * did not fit is counted in pr_lost and GETDRIVERSTATS, shows as a gap in
 * the sequence, and is reported by the DROPNOTIFY written once there is
 * room again.
 */
TEST_F(ring, full_ring_drops_and_reports)
{
	struct pmc_op_getdriverstats ds0, ds1;
	struct smp_stream_info si;
	struct smp_buf b = {};
	const struct pmclog_header *h;
	uint64_t lost, expect_lost;
	uint32_t fit, next = 0;
	size_t off;
	int i, n = 1000;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_stats(self->fd, &ds0));
	ASSERT_EQ(0, smp_ring_map(self->fd, 1, &self->r));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, smp_writelog(self->fd, i));
	ASSERT_EQ(0, smp_stats(self->fd, &ds1));

	fit = (self->r.size - sizeof(struct pmclog_initialize)) /
		sizeof(struct pmclog_userdata);
	expect_lost = n - fit;
	lost = self->r.pg->pr_lost;
	EXPECT_EQ(expect_lost, lost);
	EXPECT_EQ(expect_lost, ds1.pm_ring_dropped - ds0.pm_ring_dropped);
	EXPECT_GE(self->r.size, smp_ring_avail(&self->r));

	/* Room again: the next publication reports the loss. */
	smp_ring_drain(&self->r, &b);
	ASSERT_EQ(0, smp_writelog(self->fd, n));
	smp_ring_drain(&self->r, &b);
	ASSERT_TRUE(smp_check_stream(&b, &si)) TH_LOG("%s", si.error);
	EXPECT_EQ(1, si.by_type[PMCLOG_TYPE_DROPNOTIFY]);
	EXPECT_EQ(lost, si.drop_records);
	EXPECT_EQ(0, si.drop_samples);
	EXPECT_EQ(lost, si.seq_gaps);
	EXPECT_EQ(fit + 1, si.by_type[PMCLOG_TYPE_USERDATA]);
	/* What arrived is the first records, then the last, in order. */
	smp_for_each_rec(h, &b, off) {
		const struct pmclog_userdata *u = (const void *)h;

		if (smp_rec_type(h) != PMCLOG_TYPE_USERDATA)
			continue;
		EXPECT_EQ(next, u->pl_userdata);
		next = next + 1 == fit ? n : next + 1;
	}
	EXPECT_EQ(lost, self->r.pg->pr_lost);
	smp_buf_free(&b);
}

static void *late_writer(void *arg)
{
	int fd = *(int *)arg, i;

	usleep(200000);
	for (i = 0; i < 10; i++)
		smp_writelog(fd, i);
	return NULL;
}

/* poll() is ready when pr_watermark bytes (0: any byte) are readable. */
TEST_F(ring, poll_follows_the_watermark)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct smp_buf b = {};
	uint64_t t0;
	pthread_t thr;
	int i;

	RETURN_IF_SKIPPED();
	/* No ring yet: nothing to wait for. */
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLERR, pfd.revents);

	ASSERT_EQ(0, smp_ring_map(self->fd, 4, &self->r));
	EXPECT_EQ(1, poll(&pfd, 1, 0));		/* INITIALIZE */
	EXPECT_EQ(POLLIN, pfd.revents);
	smp_ring_drain(&self->r, &b);
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	self->r.pg->pr_watermark = 10 * sizeof(struct pmclog_userdata);
	for (i = 0; i < 9; i++)
		ASSERT_EQ(0, smp_writelog(self->fd, i));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, smp_writelog(self->fd, 9));
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	smp_ring_drain(&self->r, &b);

	/* A sleeping poller is woken when the watermark is reached. */
	ASSERT_EQ(0, pthread_create(&thr, NULL, late_writer, &self->fd));
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_LE(150000000ull, pmc_t_now_ns(CLOCK_MONOTONIC) - t0);
	pthread_join(thr, NULL);
	EXPECT_EQ(10 * sizeof(struct pmclog_userdata), smp_ring_avail(&self->r));
	smp_buf_free(&b);
}

/*
 * A sample waits in its CPU's sample ring for the log's next publishing
 * pass, which drains the rings first: a mapped ring's reader gets it within
 * the ring's publication delay (10 ms), not when the sample ring fills (a
 * quarter of nsamples: 128 samples by default, 2.56 s at this test's 50 Hz)
 * nor at a flush, which this test never asks for. Each CALLCHAIN is timed
 * from its pl_tsc to the moment the reader first sees it, while the
 * sampled thread (this one) spins reading the ring.
 */
TEST_F(ring, samples_reach_the_reader_within_the_publication_delay)
{
	const uint64_t limit = 500000000ull;	/* 50 times the delay */
	const struct pmclog_header *h;
	uint64_t deadline, now, age, worst = 0;
	struct smp_buf b = {};
	size_t off = 0;
	int n = 0;
	int64_t id;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_ring_map(self->fd, 64, &self->r));
	id = smp_alloc_soft(self->fd, PMC_MODE_TS, PMC_CPU_ANY,
			    PERF_COUNT_SW_CPU_CLOCK, 20000000, 0);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, id, getpid()));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	deadline = pmc_t_now_ns(CLOCK_MONOTONIC) + 20000000000ull;
	while (n < 30 && pmc_t_now_ns(CLOCK_MONOTONIC) < deadline) {
		if (!smp_ring_drain(&self->r, &b))
			continue;
		now = pmc_t_now_ns(CLOCK_MONOTONIC);
		for (; (h = smp_rec_at(&b, off)) != NULL; off += smp_rec_len(h)) {
			if (smp_rec_type(h) != PMCLOG_TYPE_CALLCHAIN)
				continue;
			n++;
			age = now - h->pl_tsc;
			if (age > worst)
				worst = age;
		}
	}
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, id));
	TH_LOG("%d samples read, the oldest %.1f ms old when first seen", n,
	       worst / 1e6);
	EXPECT_LE(30, n);
	EXPECT_GT(limit, worst);
	smp_buf_free(&b);
}

/* The ring and the log file get the same bytes for the same records. */
TEST_F(ring, ring_and_file_are_byte_identical)
{
	struct smp_stream_info si_r, si_f;
	struct smp_buf rb = {}, fb = {};
	int lfd, i;

	RETURN_IF_SKIPPED();
	snprintf(self->path, sizeof(self->path), "/tmp/pmcring.XXXXXX");
	lfd = mkstemp(self->path);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, smp_ring_map(self->fd, 64, &self->r));
	ASSERT_EQ(0, smp_configurelog(self->fd, lfd));
	for (i = 0; i < 5000; i++) {
		ASSERT_EQ(0, smp_writelog(self->fd, i));
		if (i % 1000 == 0)
			smp_ring_drain(&self->r, &rb);
	}
	ASSERT_EQ(0, smp_closelog(self->fd));
	smp_ring_drain(&self->r, &rb);
	ASSERT_EQ(0, lseek(lfd, 0, SEEK_SET));
	ASSERT_LE(0, smp_buf_read_fd(&fb, lfd));
	close(lfd);

	ASSERT_TRUE(smp_check_stream(&rb, &si_r)) TH_LOG("%s", si_r.error);
	ASSERT_TRUE(smp_check_stream(&fb, &si_f)) TH_LOG("%s", si_f.error);
	EXPECT_EQ(0, si_r.seq_gaps);
	EXPECT_EQ(0, si_f.seq_gaps);
	/* The file starts at its own INITIALIZE, seq 1 in the ring. */
	EXPECT_EQ(1, si_f.first_seq);
	EXPECT_EQ(si_r.last_seq, si_f.last_seq);
	EXPECT_EQ(si_f.nrecs, smp_same_suffix(&fb, &rb));
	EXPECT_EQ(5000, si_f.by_type[PMCLOG_TYPE_USERDATA]);
	EXPECT_EQ(1, si_f.by_type[PMCLOG_TYPE_CLOSELOG]);
	smp_buf_free(&rb);
	smp_buf_free(&fb);
}

TEST_HARNESS_MAIN
