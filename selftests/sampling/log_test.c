// SPDX-License-Identifier: GPL-2.0
/*
 * log_test.c - the log file ops: CONFIGURELOG, FLUSHLOG, WRITELOG and
 * CLOSELOG with hwpmc(4)'s errors, logs to a regular file, a pipe and
 * /dev/full, and the record stream a reader gets (INITIALIZE first,
 * consecutive sequence numbers, CLOSELOG last); samples that land inside
 * a map kprobe's ring entry.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "kselftest_harness.h"

#include "sampling.h"

FIXTURE(log) {
	int fd;
	char path[64];
};

FIXTURE_SETUP(log)
{
	const char *why = smp_cannot_run();

	self->fd = -1;
	self->path[0] = '\0';
	if (why)
		SKIP(return, "%s", why);
	self->fd = smp_open();
	ASSERT_LE(0, self->fd);
	snprintf(self->path, sizeof(self->path), "/tmp/pmclog.XXXXXX");
	ASSERT_LE(0, close(mkstemp(self->path)));
}

FIXTURE_TEARDOWN(log)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->path[0])
		unlink(self->path);
}

/* Read the log file at @path into @b and check it. */
static void read_log(struct __test_metadata *_metadata, const char *path,
		     struct smp_buf *b, struct smp_stream_info *si)
{
	int fd = open(path, O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_LE(0, smp_buf_read_fd(b, fd));
	close(fd);
	ASSERT_TRUE(smp_check_stream(b, si)) TH_LOG("%s", si->error);
}

TEST_F(log, errors_without_a_log)
{
	RETURN_IF_SKIPPED();
	EXPECT_EQ(-EINVAL, smp_configurelog(self->fd, -1));
	EXPECT_EQ(-EINVAL, smp_flushlog(self->fd));
	EXPECT_EQ(-EINVAL, smp_writelog(self->fd, 1));
	EXPECT_EQ(-EINVAL, smp_closelog(self->fd));
}

TEST_F(log, configure_refuses_bad_descriptors)
{
	struct pmc_op_configurelog cl = { .pm_flags = 1, .pm_logfd = -1 };
	int ro, dir, closed;

	RETURN_IF_SKIPPED();
	/* A closed descriptor. */
	closed = dup(0);
	ASSERT_LE(0, closed);
	close(closed);
	EXPECT_EQ(-EBADF, smp_configurelog(self->fd, closed));
	EXPECT_EQ(-EBADF, smp_configurelog(self->fd, -2));
	/* Open for reading only. */
	ro = open(self->path, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, smp_configurelog(self->fd, ro));
	close(ro);
	/* A directory: it cannot be open for writing, so EBADF (pmc(4)). */
	dir = open("/tmp", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dir);
	EXPECT_EQ(-EBADF, smp_configurelog(self->fd, dir));
	close(dir);
	EXPECT_EQ(EISDIR, open("/tmp", O_WRONLY) < 0 ? errno : 0);
	/* Flags must be zero. */
	EXPECT_EQ(-EINVAL, smp_ioctl(self->fd, PMC_IOC_CONFIGURELOG, &cl));
	/* /dev/pmc itself has no write method. */
	EXPECT_EQ(-EBADF, smp_configurelog(self->fd, self->fd));
	/* None of them configured a log. */
	EXPECT_EQ(-EINVAL, smp_writelog(self->fd, 1));
}

TEST_F(log, regular_file_gets_initialize_userdata_closelog)
{
	struct smp_stream_info si;
	const struct pmclog_header *h;
	struct smp_buf b = {};
	uint64_t t0, t1, last_ts = 0;
	uint32_t want = 0;
	size_t off, n = 0;
	int lfd, i;

	RETURN_IF_SKIPPED();
	lfd = open(self->path, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, lfd);
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, smp_configurelog(self->fd, lfd));
	EXPECT_EQ(-EBUSY, smp_configurelog(self->fd, lfd));
	/* The log holds its own reference: the owner's copy may go. */
	close(lfd);
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, smp_writelog(self->fd, 0x1000 + i));
	ASSERT_EQ(0, smp_flushlog(self->fd));
	ASSERT_EQ(0, smp_closelog(self->fd));
	t1 = pmc_t_now_ns(CLOCK_MONOTONIC);
	/* CLOSELOG de-configured the log. */
	EXPECT_EQ(-EINVAL, smp_flushlog(self->fd));

	read_log(_metadata, self->path, &b, &si);
	ASSERT_EQ(1002, si.nrecs);
	EXPECT_EQ(0, si.seq_gaps);
	EXPECT_EQ(si.first_seq + 1001, si.last_seq);
	smp_for_each_rec(h, &b, off) {
		if (n == 0) {
			const struct pmclog_initialize *ini = (const void *)h;

			ASSERT_EQ(PMCLOG_TYPE_INITIALIZE, smp_rec_type(h));
			EXPECT_EQ(sizeof(*ini), smp_rec_len(h));
			EXPECT_EQ(PMC_VERSION, ini->pl_version);
			EXPECT_EQ(1000000000ull, ini->pl_tsc_freq);
			EXPECT_EQ(ini->pl_hdr.pl_tsc, ini->pl_ts_mono);
			EXPECT_LE(t0, ini->pl_ts_mono);
			EXPECT_GE(t1, ini->pl_ts_mono);
			EXPECT_LT(1600000000ll, ini->pl_ts_sec);
		} else if (n == 1001) {
			EXPECT_EQ(PMCLOG_TYPE_CLOSELOG, smp_rec_type(h));
			EXPECT_EQ(sizeof(struct pmclog_closelog),
				  smp_rec_len(h));
		} else {
			const struct pmclog_userdata *u = (const void *)h;

			ASSERT_EQ(PMCLOG_TYPE_USERDATA, smp_rec_type(h));
			EXPECT_EQ(0x1000 + want, u->pl_userdata);
			want++;
		}
		EXPECT_LE(t0, h->pl_tsc);
		EXPECT_GE(t1, h->pl_tsc);
		EXPECT_LE(last_ts, h->pl_tsc);
		last_ts = h->pl_tsc;
		n++;
	}
	smp_buf_free(&b);
}

struct pipe_reader {
	int fd;
	struct smp_buf b;
};

static void *pipe_reader_fn(void *arg)
{
	struct pipe_reader *r = arg;

	smp_buf_read_fd(&r->b, r->fd);
	return NULL;
}

/*
 * 100000 records through a pipe read by another thread: many log buffers,
 * a writer that blocks on the pipe, nothing lost or reordered.
 */
TEST_F(log, pipe_gets_every_record_in_order)
{
	const int nrec = 100000;
	struct pipe_reader r = {};
	struct smp_stream_info si;
	const struct pmclog_header *h;
	pthread_t thr;
	int p[2], i, next = 0;
	size_t off;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe(p));
	r.fd = p[0];
	ASSERT_EQ(0, pthread_create(&thr, NULL, pipe_reader_fn, &r));
	ASSERT_EQ(0, smp_configurelog(self->fd, p[1]));
	close(p[1]);
	for (i = 0; i < nrec; i++)
		ASSERT_EQ(0, smp_writelog(self->fd, i));
	ASSERT_EQ(0, smp_flushlog(self->fd));
	/* De-configuring drops the last reference to the write end: EOF. */
	ASSERT_EQ(0, smp_configurelog(self->fd, -1));
	pthread_join(thr, NULL);
	close(p[0]);

	ASSERT_TRUE(smp_check_stream(&r.b, &si)) TH_LOG("%s", si.error);
	EXPECT_EQ(nrec + 1, si.nrecs);
	EXPECT_EQ(0, si.seq_gaps);
	EXPECT_EQ(0, si.by_type[PMCLOG_TYPE_DROPNOTIFY]);
	smp_for_each_rec(h, &r.b, off) {
		if (smp_rec_type(h) != PMCLOG_TYPE_USERDATA)
			continue;
		ASSERT_EQ(next, ((const struct pmclog_userdata *)h)->pl_userdata);
		next++;
	}
	EXPECT_EQ(nrec, next);
	smp_buf_free(&r.b);
}

/* A write error stops the log; FLUSHLOG returns it (hwpmc: ENOSPC). */
TEST_F(log, dev_full_gives_enospc_at_flush)
{
	int lfd = open("/dev/full", O_WRONLY);

	RETURN_IF_SKIPPED();
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, smp_configurelog(self->fd, lfd));
	close(lfd);
	ASSERT_EQ(0, smp_writelog(self->fd, 1));
	EXPECT_EQ(-ENOSPC, smp_flushlog(self->fd));
	/* Logging stopped; the error stays until the log is de-configured. */
	EXPECT_EQ(0, smp_writelog(self->fd, 2));
	EXPECT_EQ(-ENOSPC, smp_flushlog(self->fd));
	EXPECT_EQ(0, smp_configurelog(self->fd, -1));
	EXPECT_EQ(-EINVAL, smp_flushlog(self->fd));
}

/* De-configure and configure again: a new stream, INITIALIZE first. */
TEST_F(log, reconfigure_starts_a_new_stream)
{
	struct smp_stream_info si;
	struct smp_buf b = {};
	const struct pmclog_header *h;
	int lfd;
	size_t off;

	RETURN_IF_SKIPPED();
	lfd = open("/dev/null", O_WRONLY);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, smp_configurelog(self->fd, lfd));
	close(lfd);
	ASSERT_EQ(0, smp_writelog(self->fd, 7));
	ASSERT_EQ(0, smp_configurelog(self->fd, -1));
	EXPECT_EQ(-EINVAL, smp_configurelog(self->fd, -1));

	lfd = open(self->path, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, smp_configurelog(self->fd, lfd));
	close(lfd);
	ASSERT_EQ(0, smp_writelog(self->fd, 8));
	ASSERT_EQ(0, smp_configurelog(self->fd, -1));

	read_log(_metadata, self->path, &b, &si);
	ASSERT_EQ(2, si.nrecs);
	h = smp_rec_at(&b, 0);
	EXPECT_EQ(PMCLOG_TYPE_INITIALIZE, smp_rec_type(h));
	/* The owner's sequence goes on: two records went to /dev/null. */
	EXPECT_EQ(2, h->pl_seq);
	smp_for_each_rec(h, &b, off)
		if (smp_rec_type(h) == PMCLOG_TYPE_USERDATA)
			EXPECT_EQ(8, ((const struct pmclog_userdata *)h)->pl_userdata);
	smp_buf_free(&b);
}

/* Only the process that opened /dev/pmc owns its log (hwpmc: EPERM). */
TEST_F(log, other_process_is_refused)
{
	int lfd, st;
	pid_t pid;

	RETURN_IF_SKIPPED();
	lfd = open("/dev/null", O_WRONLY);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, smp_configurelog(self->fd, lfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int bad = 0;

		bad |= smp_configurelog(self->fd, lfd) != -EPERM;
		bad |= smp_configurelog(self->fd, -1) != -EPERM;
		bad |= smp_writelog(self->fd, 1) != -EPERM;
		bad |= (smp_flushlog(self->fd) != -EPERM) << 1;
		bad |= (smp_closelog(self->fd) != -EPERM) << 2;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, smp_flushlog(self->fd));
	close(lfd);
}

/* CALLCHAIN records in the log file at @path (checked as a stream). */
static size_t log_callchains(struct __test_metadata *_metadata,
			     const char *path)
{
	struct smp_stream_info si;
	struct smp_buf b = {};
	size_t n;

	read_log(_metadata, path, &b, &si);
	n = si.by_type[PMCLOG_TYPE_CALLCHAIN];
	smp_buf_free(&b);
	return n;
}

/*
 * A sample waits in its CPU's ring for the log's next publishing pass
 * (which drains the rings first) unless the ring is filling: at 1 kHz it
 * never is. FLUSHLOG and CLOSELOG must drain the rings first, so every
 * overflow the driver counted (intr_processed, read before the op) is a
 * CALLCHAIN in the file when the op returns. Each round spins until the
 * driver has counted one more sample, then asks at once: without the drain
 * at the op, a round passes only where a pass came in between (the sample
 * is at most tens of us old against a pass every 100 ms for a file).
 */
TEST_F(log, flush_and_close_stage_samples_waiting_in_the_rings)
{
	struct pmc_op_getdriverstats ds;
	const int rounds = 20;
	uint64_t base, base_full, counted;
	size_t have;
	int64_t id;
	int lfd, i;

	RETURN_IF_SKIPPED();
	lfd = open(self->path, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, smp_configurelog(self->fd, lfd));
	close(lfd);
	id = smp_alloc_soft(self->fd, PMC_MODE_TS, PMC_CPU_ANY,
			    PERF_COUNT_SW_CPU_CLOCK, 1000000, 0);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, id, getpid()));
	ASSERT_EQ(0, smp_stats(self->fd, &ds));
	base = ds.pm_intr_processed;
	base_full = ds.pm_intr_bufferfull;
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));

	counted = 0;
	for (i = 0; i <= rounds; i++) {
		uint64_t before = counted;

		/* The thread runs (cpu-clock) until a sample is counted. */
		do {
			ASSERT_EQ(0, smp_stats(self->fd, &ds));
			counted = ds.pm_intr_processed - base;
		} while (counted == before);
		if (i < rounds) {
			ASSERT_EQ(0, smp_flushlog(self->fd));
		} else {
			ASSERT_EQ(0, smp_closelog(self->fd));
		}
		have = log_callchains(_metadata, self->path);
		EXPECT_LE(counted, have)
			TH_LOG("round %d (%s): %llu samples counted, %zu in the log",
			       i, i < rounds ? "FLUSHLOG" : "CLOSELOG",
			       (unsigned long long)counted, have);
	}
	EXPECT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, id));
	EXPECT_EQ(base_full, ds.pm_intr_bufferfull);
}

/*
 * Sampling a thread that maps and unmaps a file executable 20,000 times:
 * each mapping and unmapping goes through a map kprobe that writes an
 * entry in the CPU's sample ring (MAP_IN, MAP_OUT), and a cpu-clock
 * sample at 10 kHz lands now and then while that entry is being written.
 * Such a nested sample is kept (the ring reserves the entry after the
 * kprobe's): no sample is lost for a full ring, every sample the driver
 * counted is a CALLCHAIN in the file, and every mapping has its MAP_IN
 * and its MAP_OUT.
 */
TEST_F(log, samples_nested_in_map_probes_are_kept)
{
	struct pmc_op_getdriverstats ds0, ds1;
	long ps = sysconf(_SC_PAGESIZE);
	struct smp_stream_info si;
	struct smp_buf b = {};
	uint64_t counted, full;
	int lfd, xfd, i;
	int64_t id;

	RETURN_IF_SKIPPED();
	xfd = open("/proc/self/exe", O_RDONLY);
	ASSERT_LE(0, xfd);
	lfd = open(self->path, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, smp_configurelog(self->fd, lfd));
	close(lfd);
	id = smp_alloc_soft(self->fd, PMC_MODE_TS, PMC_CPU_ANY,
			    PERF_COUNT_SW_CPU_CLOCK, 100000, 0);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, id, getpid()));
	ASSERT_EQ(0, smp_stats(self->fd, &ds0));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	for (i = 0; i < 20000; i++) {
		void *p = mmap(NULL, ps, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			       xfd, 0);

		ASSERT_NE(MAP_FAILED, p);
		ASSERT_EQ(0, munmap(p, ps));
	}
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, id));
	ASSERT_EQ(0, smp_stats(self->fd, &ds1));
	ASSERT_EQ(0, smp_closelog(self->fd));
	close(xfd);
	counted = ds1.pm_intr_processed - ds0.pm_intr_processed;
	full = ds1.pm_intr_bufferfull - ds0.pm_intr_bufferfull;
	read_log(_metadata, self->path, &b, &si);
	TH_LOG("%llu samples counted, %llu lost for a full ring; %zu CALLCHAIN, %zu MAP_IN, %zu MAP_OUT",
	       (unsigned long long)counted, (unsigned long long)full,
	       si.by_type[PMCLOG_TYPE_CALLCHAIN], si.by_type[PMCLOG_TYPE_MAP_IN],
	       si.by_type[PMCLOG_TYPE_MAP_OUT]);
	EXPECT_LT(0, counted);
	EXPECT_EQ(0, full);
	EXPECT_EQ(counted, si.by_type[PMCLOG_TYPE_CALLCHAIN]);
	/*
	 * Each MAP_IN is written before its task returns to user space, so
	 * before the munmap: the drain runs at once, also on PREEMPT_RT
	 * (where it once waited for the tick behind the lazy drain, the
	 * mapping was gone by then, and half the MAP_INs were missing).
	 */
	EXPECT_LE(20000, si.by_type[PMCLOG_TYPE_MAP_IN]);
	EXPECT_LE(20000, si.by_type[PMCLOG_TYPE_MAP_OUT]);
	EXPECT_EQ(0, si.seq_gaps);
	smp_buf_free(&b);
}

TEST_HARNESS_MAIN
