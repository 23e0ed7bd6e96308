// SPDX-License-Identifier: GPL-2.0
/*
 * kills_test.c - owners and targets that die at the worst moment:
 *  - an owner killed while its log writer is blocked on a full pipe
 *    (whether or not someone else still holds the pipe's reading end): the
 *    kill completes at once, the writer thread goes, the rows come free;
 *  - an owner closing its file while its log drains to a slow reader: the
 *    processes it counts exit meanwhile, without waiting for the drain;
 *  - a target killed while it is being sampled: the owner's PMC reports
 *    ESRCH at the next start (every target gone), its samples stop, the
 *    owner releases it normally;
 *  - a ring nobody drains: the kernel never writes past the reader's tail,
 *    counts what it drops (pr_lost, GETDRIVERSTATS pm_ring_dropped) and
 *    says so with a DROPNOTIFY record once there is room;
 *  - owners in a memory cgroup above its memory.high (reclaim and throttling
 *    at every charge) that allocate PMCs, rings and logs: clean errors only,
 *    nothing left behind. (Not beyond memory.max: the OOM killer's report
 *    has a stack trace, which the VM reads as a kernel bug.)
 */
#include "faults.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "kselftest_harness.h"

#define MS	1000000ULL

FIXTURE(kills) {
	int fd;
};

FIXTURE_SETUP(kills)
{
	self->fd = -1;
	if (geteuid())
		SKIP(return, "needs root");
	if (!pmc_t_have_device())
		SKIP(return, "no %s", PMC_DEVICE_PATH);
	self->fd = pmc_t_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(kills)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Threads named "pmclog/<pid>" (the log writers of owner @pid). */
static int log_writers(pid_t pid)
{
	char path[300], comm[64], want[32];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	int n = 0;

	if (!dir)
		return -1;
	snprintf(want, sizeof(want), "pmclog/%d", pid);
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		if (!flt_read(path, comm, sizeof(comm)) && !strcmp(comm, want))
			n++;
	}
	closedir(dir);
	return n;
}

/*
 * The owner: samples itself into the pipe @wfd at 1 kHz with callchains and
 * writes USERDATA records until the pipe is full, then blocks in FLUSHLOG.
 */
static void blocked_owner(int wfd, int ready)
{
	int fd = pmc_t_open(), i;
	struct pmc_op_configurelog cl = { .pm_logfd = wfd };
	struct pmc_op_writelog wl = { .pm_userdata = 42 };
	uint32_t ss;
	char b = 'r';

	if (fd < 0 || ioctl(fd, PMC_IOC_CONFIGURELOG, &cl) ||
	    pmc_t_alloc_soft(fd, PMC_MODE_TS, 0, PMC_T_SW_CPU_CLOCK, PMC_CAP_INTERRUPT,
			     PMC_F_CALLCHAIN | PMC_F_LOG_PROCCSW, &ss) ||
	    pmc_t_attach(fd, ss, 0, 0) || pmc_t_start(fd, ss))
		_exit(2);
	close(wfd);
	for (i = 0; i < 20000; i++)
		ioctl(fd, PMC_IOC_WRITELOG, &wl);	/* 20000 x 24 bytes: more than a pipe */
	if (write(ready, &b, 1) != 1)
		_exit(3);
	for (;;) {
		ioctl(fd, PMC_IOC_FLUSHLOG);	/* blocks: nobody reads */
		pmc_t_spin_ns(1000000);
	}
}

/*
 * Bug "owner-exit-blocked-writer" (fixed, docs/reliability.md): the dying
 * owner used to wait in pmc_log_file_drain() for a writer that waited for
 * a reader that never reads, unkillable and holding the module.
 */
static void owner_killed_blocked(struct __test_metadata *_metadata, int fd, bool keep_reader)
{
	int p[2], ready[2], st, i;
	uint64_t t0, t1;
	pid_t pid;
	char b;


	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(ready[0]);
		if (keep_reader)
			close(p[0]);	/* only the test holds the reading end */
		blocked_owner(p[1], ready[1]);
	}
	close(p[1]);
	close(ready[1]);
	if (!keep_reader) {
		close(p[0]);		/* only the owner holds it: it goes with it */
		p[0] = -1;
	}
	ASSERT_EQ(1, read(ready[0], &b, 1)) TH_LOG("the owner failed its setup");
	close(ready[0]);
	usleep(300000);		/* FLUSHLOG blocks, the writer waits on the pipe */
	EXPECT_EQ(1, log_writers(pid));
	t0 = flt_now_ns();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	t1 = flt_now_ns();
	EXPECT_TRUE(WIFSIGNALED(st));
	EXPECT_LT(t1 - t0, 5000 * MS) TH_LOG("the killed owner took %llu ms to exit",
					      (unsigned long long)((t1 - t0) / MS));
	/* The writer and the rows go with the owner (the pipe may still be open). */
	for (i = 0; i < 50 && log_writers(pid) > 0; i++)
		usleep(100000);
	EXPECT_EQ(0, log_writers(pid)) TH_LOG("pmclog/%d outlived its owner", pid);
	EXPECT_EQ(0, flt_rows_owned(fd, 3000));
	if (p[0] >= 0)
		close(p[0]);
}

TEST_F_TIMEOUT(kills, owner_killed_writer_blocked_reader_open, 60)
{
	FLT_RETURN_IF_SKIPPED();
	/* We hold the reading end and never read: the pipe never breaks. */
	owner_killed_blocked(_metadata, self->fd, true);
}

TEST_F_TIMEOUT(kills, owner_killed_writer_blocked_own_reader, 60)
{
	FLT_RETURN_IF_SKIPPED();
	/* The owner's own copy of the reading end closes with it, after /dev/pmc. */
	owner_killed_blocked(_metadata, self->fd, false);
}

/* Reads the pipe slowly (but steadily: the drain waits as long) or fast. */
struct slow_reader {
	int rfd;
	atomic_bool fast;
};

static void *slow_reader_fn(void *arg)
{
	struct slow_reader *r = arg;
	char buf[4096];

	for (;;) {
		if (read(r->rfd, buf, atomic_load(&r->fast) ? sizeof(buf) : 1024) <= 0)
			break;
		if (!atomic_load(&r->fast))
			usleep(100000);
	}
	return NULL;
}

struct closer {
	int fd;
	atomic_bool done;
	uint64_t took;
};

static void *closer_fn(void *arg)
{
	struct closer *c = arg;
	uint64_t t0 = flt_now_ns();

	close(c->fd);		/* the release runs here, before close() returns */
	c->took = flt_now_ns() - t0;
	atomic_store(&c->done, true);
	return NULL;
}

static int exit_at_once(void *arg)
{
	(void)arg;
	return 0;
}

/*
 * An owner's release drains its log for as long as the reader reads. The
 * processes it counted must not wait for that: their PMCs are released
 * first, so a counted child that exits meanwhile has nothing to fold and
 * does not take the owner's lock (which the drain no longer holds either:
 * owner.c, pmc_owner_finish()).
 */
TEST_F_TIMEOUT(kills, target_exits_while_owner_drains_to_slow_reader, 120)
{
	struct pmc_op_configurelog cl = { 0 };
	struct pmc_op_writelog wl = { .pm_userdata = 7 };
	struct slow_reader r = { 0 };
	struct closer cl_thr = { 0 };
	pthread_t rt, ct;
	struct pmc_t_child c;
	uint64_t t0, t1;
	uint32_t tc;
	int p[2], st, i;

	FLT_RETURN_IF_SKIPPED();
	/* The child first: it must hold neither the pipe nor the new file. */
	ASSERT_EQ(0, pmc_t_child_start(&c, exit_at_once, NULL));
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	cl_thr.fd = pmc_t_open();
	ASSERT_LE(0, cl_thr.fd);
	cl.pm_logfd = p[1];
	ASSERT_EQ(0, ioctl(cl_thr.fd, PMC_IOC_CONFIGURELOG, &cl));
	close(p[1]);
	ASSERT_EQ(0, pmc_t_alloc_soft(cl_thr.fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0,
				      PMC_F_LOG_PROCEXIT, &tc));
	ASSERT_EQ(0, pmc_t_attach(cl_thr.fd, tc, c.pid, 0));
	ASSERT_EQ(0, pmc_t_start(cl_thr.fd, tc));
	/* More than the pipe holds: the writer blocks, buffers wait behind it. */
	for (i = 0; i < 20000; i++)
		ioctl(cl_thr.fd, PMC_IOC_WRITELOG, &wl);

	r.rfd = p[0];
	ASSERT_EQ(0, pthread_create(&rt, NULL, slow_reader_fn, &r));
	ASSERT_EQ(0, pthread_create(&ct, NULL, closer_fn, &cl_thr));
	usleep(500000);		/* the release is in its drain */
	ASSERT_FALSE(atomic_load(&cl_thr.done))
		TH_LOG("the drain ended in %llu ms: too little queued for this test",
		       (unsigned long long)(cl_thr.took / MS));

	t0 = flt_now_ns();
	ASSERT_EQ(0, pmc_t_child_go(&c));
	ASSERT_EQ(0, pmc_t_child_wait(&c, &st, NULL));
	t1 = flt_now_ns();
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_LT(t1 - t0, 2000 * MS)
		TH_LOG("the counted child took %llu ms to exit behind its owner's drain",
		       (unsigned long long)((t1 - t0) / MS));
	EXPECT_FALSE(atomic_load(&cl_thr.done))
		TH_LOG("the drain (%llu ms) ended before the child's exit: nothing was tested",
		       (unsigned long long)(cl_thr.took / MS));

	/* Then everything is read: the release returns, the writer goes. */
	atomic_store(&r.fast, true);
	pthread_join(ct, NULL);
	pthread_join(rt, NULL);		/* end of file: the writer let the pipe go */
	close(p[0]);
	EXPECT_EQ(0, log_writers(getpid()));
	EXPECT_EQ(0, flt_rows_owned(self->fd, 3000));
}

static int spin_forever(void *arg)
{
	(void)arg;
	for (;;)
		pmc_t_spin_ns(1000000);
	return 0;
}

TEST_F_TIMEOUT(kills, target_killed_mid_sample, 90)
{
	struct flt_ring ring = { 0 };
	struct pmc_t_child c;
	uint64_t h0, h1;
	uint32_t ts, tc;
	int round, st;

	FLT_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, flt_ring_map(self->fd, 16, &ring));
	for (round = 0; round < 8; round++) {
		ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TS, 0, PMC_T_SW_CPU_CLOCK,
					      PMC_CAP_INTERRUPT,
					      PMC_F_CALLCHAIN | PMC_F_LOG_PROCEXIT, &ts));
		ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0,
					      0, &tc));
		ASSERT_EQ(0, pmc_t_child_start(&c, spin_forever, NULL));
		ASSERT_EQ(0, pmc_t_attach(self->fd, ts, c.pid, 0));
		ASSERT_EQ(0, pmc_t_attach(self->fd, tc, c.pid, 0));
		ASSERT_EQ(0, pmc_t_start(self->fd, ts));
		ASSERT_EQ(0, pmc_t_start(self->fd, tc));
		ASSERT_EQ(0, pmc_t_child_go(&c));
		usleep(20000 + 15000 * (unsigned int)round);	/* mid-sample */
		ASSERT_EQ(0, kill(c.pid, SIGKILL));
		ASSERT_EQ(0, pmc_t_child_wait(&c, &st, NULL));
		EXPECT_TRUE(WIFSIGNALED(st));
		/* Every target gone: no more samples, and PMCSTART is ESRCH. */
		usleep(50000);
		h0 = flt_ring_head(&ring);
		usleep(100000);
		h1 = flt_ring_head(&ring);
		EXPECT_EQ(h0, h1) TH_LOG("round %d: %llu bytes logged after the target died",
					 round, (unsigned long long)(h1 - h0));
		EXPECT_EQ(0, pmc_t_stop(self->fd, ts));
		EXPECT_EQ(-ESRCH, pmc_t_start(self->fd, ts));
		EXPECT_EQ(0, pmc_t_stop(self->fd, tc));
		EXPECT_EQ(-ESRCH, pmc_t_start(self->fd, tc));
		EXPECT_EQ(0, pmc_t_release(self->fd, ts));
		EXPECT_EQ(0, pmc_t_release(self->fd, tc));
		flt_ring_drain(&ring);
	}
	flt_ring_unmap(&ring);
}

/* Records in [from, to) of the ring: their types counted. */
static void ring_types(const struct flt_ring *r, uint64_t from, uint64_t to,
		       unsigned int *counts, unsigned int *bad)
{
	uint64_t pos = from;

	while (pos < to) {
		struct pmclog_header h = flt_ring_header(r, pos);
		uint32_t len = PMCLOG_HEADER_TO_LENGTH(h.pl_header);

		if (!PMCLOG_HEADER_CHECK_MAGIC(h.pl_header) || len < sizeof(h) ||
		    len % 8 || len > to - pos) {
			(*bad)++;
			return;
		}
		counts[PMCLOG_HEADER_TO_TYPE(h.pl_header) & 0x7f]++;
		pos += len;
	}
}

TEST_F_TIMEOUT(kills, ring_never_drained, 60)
{
	struct pmc_op_getdriverstats ds0, ds1;
	struct flt_ring ring = { 0 };
	struct pmclog_header first;
	unsigned int counts[128] = { 0 }, bad = 0;
	uint64_t head, size;
	uint32_t ss;

	FLT_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, ioctl(self->fd, PMC_IOC_GETDRIVERSTATS, &ds0));
	ASSERT_EQ(0, flt_ring_map(self->fd, 1, &ring));
	size = ring.pg->pr_data_size;
	first = flt_ring_header(&ring, 0);
	ASSERT_TRUE(PMCLOG_HEADER_CHECK_MAGIC(first.pl_header));
	ASSERT_EQ(PMCLOG_TYPE_INITIALIZE, PMCLOG_HEADER_TO_TYPE(first.pl_header));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SS, 0, PMC_T_SW_CPU_CLOCK,
				      PMC_CAP_INTERRUPT, PMC_F_CALLCHAIN, &ss));
	ASSERT_EQ(0, pmc_t_start(self->fd, ss));
	usleep(500000);		/* 1 kHz with callchains: far more than a page */
	head = flt_ring_head(&ring);
	EXPECT_LE(head, size) TH_LOG("the kernel wrote %llu bytes past the reader's tail 0",
				     (unsigned long long)(head - size));
	EXPECT_LT(0, ring.pg->pr_lost);
	/* The first record is still the one the reader has not read. */
	EXPECT_EQ(first.pl_header, flt_ring_header(&ring, 0).pl_header);
	EXPECT_EQ(first.pl_seq, flt_ring_header(&ring, 0).pl_seq);
	ASSERT_EQ(0, ioctl(self->fd, PMC_IOC_GETDRIVERSTATS, &ds1));
	EXPECT_LT(ds0.pm_ring_dropped, ds1.pm_ring_dropped);
	/* Drained once: a DROPNOTIFY says what was lost. */
	ring_types(&ring, 0, head, counts, &bad);
	EXPECT_EQ(0, bad);
	flt_ring_drain(&ring);
	usleep(200000);
	ASSERT_EQ(0, pmc_t_stop(self->fd, ss));
	ring_types(&ring, head, flt_ring_head(&ring), counts, &bad);
	EXPECT_EQ(0, bad);
	EXPECT_LT(0, counts[PMCLOG_TYPE_DROPNOTIFY]);
	EXPECT_EQ(0, pmc_t_release(self->fd, ss));
	flt_ring_unmap(&ring);
}

/* ---------------------------------------------------------------- memory pressure */

#define CG_ROOT	"/sys/fs/cgroup"
#define CG_TEST	CG_ROOT "/pmc-faults"

/* A cgroup v2 with the memory controller (mounting cgroup2 if needed). */
static int cgroup_setup(long max_bytes, long high_bytes)
{
	char buf[512];

	if (flt_read(CG_ROOT "/cgroup.controllers", buf, sizeof(buf))) {
		mkdir(CG_ROOT, 0755);
		if (mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL))
			return -errno;
		if (flt_read(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)))
			return -ENOENT;
	}
	if (!strstr(buf, "memory"))
		return -EOPNOTSUPP;
	flt_write(CG_ROOT "/cgroup.subtree_control", "+memory");
	if (mkdir(CG_TEST, 0755) && errno != EEXIST)
		return -errno;
	if (flt_write(CG_TEST "/memory.max", "%ld", max_bytes) ||
	    flt_write(CG_TEST "/memory.high", "%ld", high_bytes))
		return -EIO;
	flt_write(CG_TEST "/memory.swap.max", "0");
	return 0;
}

/* A counter of the cgroup's memory.events ("high", "max", "oom"). */
static long long cgroup_event(const char *name)
{
	char line[128], key[64];
	long long v = -1, n;
	FILE *f = fopen(CG_TEST "/memory.events", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", key, &n) == 2 && !strcmp(key, name))
			v = n;
	fclose(f);
	return v;
}

static bool documented(int err)
{
	switch (err) {
	case EBADF: case EBUSY: case EEXIST: case EFAULT: case EINVAL: case ENOMEM:
	case ENOTTY: case ENXIO: case EOPNOTSUPP: case EPERM: case ESRCH: case EPROTO:
		return true;
	}
	return false;
}

/*
 * In the cgroup, above memory.high (the kernel reclaims and throttles us at
 * every charge) and below memory.max (no OOM killer: its report would read
 * as a kernel bug): PMCs of every mode, rings and logs to pipes, opened and
 * closed again and again. Exit status 0, or 99 for an undocumented errno.
 */
static void pressure_owner(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd = -1, p[2] = { -1, -1 }, i, r;
	uint32_t id;

	pmc_t_touch_pages((22U << 20) / page);
	for (i = 0; i < 120; i++) {
		if (i % 20 == 0) {
			if (fd >= 0)
				close(fd);
			if (p[0] >= 0)
				close(p[0]);
			fd = pmc_t_open();
			if (fd < 0)
				_exit(documented(-fd) ? 0 : 99);
			if (pipe2(p, O_NONBLOCK) == 0) {
				struct pmc_op_configurelog cl = { .pm_logfd = p[1] };

				if (ioctl(fd, PMC_IOC_CONFIGURELOG, &cl) && !documented(errno))
					_exit(99);
				close(p[1]);
			}
			mmap(NULL, 9 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		}
		r = pmc_t_alloc_soft(fd, (uint32_t)(i % 4), (uint32_t)(i % 2),
				     PMC_T_SW_CPU_CLOCK, PMC_CAP_INTERRUPT, PMC_F_CALLCHAIN, &id);
		if (r && !documented(-r))
			_exit(99);
		if (!r && PMC_IS_VIRTUAL_MODE((uint32_t)(i % 4)))
			pmc_t_attach(fd, id, 0, 0);
		if (!r) {
			r = pmc_t_start(fd, id);
			if (r && !documented(-r))
				_exit(99);
		}
		if (!r && i % 3 == 0)
			pmc_t_release(fd, id);
		pmc_t_spin_ns(1000000);
	}
	_exit(0);
}

TEST_F_TIMEOUT(kills, memory_pressure_cgroup, 180)
{
	char pidbuf[32];
	uint64_t v = 0;
	uint32_t id;
	int st, r, round;
	pid_t pid;

	FLT_RETURN_IF_SKIPPED();
	r = cgroup_setup(40L << 20, 16L << 20);
	if (r)
		SKIP(return, "no cgroup v2 memory controller: %s", strerror(-r));
	for (round = 0; round < 3; round++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			snprintf(pidbuf, sizeof(pidbuf), "%d", getpid());
			if (flt_write(CG_TEST "/cgroup.procs", "%s", pidbuf))
				_exit(98);
			pressure_owner();
		}
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
			TH_LOG("round %d: the owner %s %d (99: an undocumented errno)",
			       round, WIFSIGNALED(st) ? "died of signal" : "exited",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		EXPECT_EQ(0, flt_rows_owned(self->fd, 3000));
	}
	TH_LOG("memory.events: high %lld", cgroup_event("high"));
	rmdir(CG_TEST);
	/* The driver still works outside the cgroup. */
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0, 0, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, 0, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	pmc_t_spin_ns(20 * MS);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	EXPECT_LT(15 * MS, v);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

TEST_HARNESS_MAIN
