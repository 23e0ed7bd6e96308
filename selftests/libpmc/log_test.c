// SPDX-License-Identifier: GPL-2.0
/*
 * log_test.c - logs of real runs written by pmc.ko and read back with
 * pmclog(3), every record accounted for: process and system sampling to a
 * log file (sample counts against CPU time and elapsed time, sampled
 * addresses inside the process's executable mappings), PROCCSW/PROCEXIT
 * records of a child against the PMC's own count, and the mmap'd ring.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "pmc_test.h"
#include "pmc_util.h"

#define PERIOD_NS	1000000ULL	/* task-clock/cpu-clock sampling period */

/*
 * Samples of a clock event sampled every PERIOD_NS: at most one per period
 * of the time it counted (perf's hrtimer drops the periods that pass while
 * its interrupt is late, often in a QEMU TCG guest, so there can be far
 * fewer), and exactly as many as the driver counted overflows handled
 * (driver statistics around the run; nothing else samples in the VM).
 */
#define EXPECT_SAMPLES(n, ns, s0, s1) do {				\
	uint64_t __max = (ns) / PERIOD_NS;				\
	unsigned int __done = (s1).pm_intr_processed - (s0).pm_intr_processed; \
	EXPECT_LE((n), __max + __max / 20 + 2)				\
		TH_LOG("%zu samples, %llu periods", (size_t)(n),	\
		       (unsigned long long)__max);			\
	EXPECT_EQ((n), __done)						\
		TH_LOG("%zu samples, %u overflows handled, %u ring full, %u ignored", \
		       (size_t)(n), __done,				\
		       (s1).pm_intr_bufferfull - (s0).pm_intr_bufferfull, \
		       (s1).pm_intr_ignored - (s0).pm_intr_ignored);	\
} while (0)

/*
 * What a log held, by type, and its sequence numbers. The driver numbers
 * the records it sends an owner, but writes its per-CPU buffers in any
 * order (as hwpmc does): every number from the lowest to the highest must
 * appear once, in whatever order.
 */
#define SEQ_MAX	65536
struct log_tally {
	size_t n, bytype[PMCLOG_TYPE_OVERFLOW + 1];
	uint32_t min_seq, max_seq, close_seq, dups;
	enum pmclog_state end;
	char error[160];
	uint8_t seen[SEQ_MAX / 8];
};

typedef void (*log_visit_fn)(const struct pmclog_ev *ev, void *arg);

static void tally_event(struct log_tally *t, const struct pmclog_ev *ev)
{
	uint32_t seq = ev->pl_seq;

	if (t->n == 0 || seq < t->min_seq)
		t->min_seq = seq;
	if (t->n == 0 || seq > t->max_seq)
		t->max_seq = seq;
	if (seq < SEQ_MAX) {
		t->dups += (t->seen[seq / 8] >> (seq % 8)) & 1;
		t->seen[seq / 8] |= (uint8_t)(1u << (seq % 8));
	}
	if (ev->pl_type == PMCLOG_TYPE_CLOSELOG)
		t->close_seq = seq;
	if ((unsigned int)ev->pl_type <= PMCLOG_TYPE_OVERFLOW)
		t->bytype[ev->pl_type]++;
	t->n++;
}

/* Every sequence number from the first to the last, once: nothing lost. */
static bool tally_complete(const struct log_tally *t)
{
	return t->n && !t->dups && t->max_seq < SEQ_MAX &&
	       t->max_seq - t->min_seq + 1 == t->n;
}

/* Parse the log file @fd from its start. */
static void read_log(int fd, struct log_tally *t, log_visit_fn fn, void *arg)
{
	struct pmclog_ev ev;
	void *p;

	memset(t, 0, sizeof(*t));
	lseek(fd, 0, SEEK_SET);
	p = pmclog_open(fd);
	while (pmclog_read(p, &ev) == 0) {
		/* LIBPMC_TEST_DUMP=1: the records, to see what a failure saw. */
		if (getenv("LIBPMC_TEST_DUMP"))
			fprintf(stderr, "# seq %u type %u len %d tsc %llu\n",
				ev.pl_seq, ev.pl_type, ev.pl_len,
				(unsigned long long)ev.pl_tsc);
		tally_event(t, &ev);
		if (fn)
			fn(&ev, arg);
	}
	t->end = ev.pl_state;
	snprintf(t->error, sizeof(t->error), "%s", pmclog_error(p));
	pmclog_close(p);
}

/* The executable mappings of this process, from /proc/self/maps. */
struct xmaps {
	size_t n;
	uint64_t lo[256], hi[256];
};

static void read_xmaps(struct xmaps *m)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8];
	unsigned long lo, hi;

	m->n = 0;
	while (f && fgets(line, sizeof(line), f) && m->n < 256)
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
		    perms[2] == 'x') {
			m->lo[m->n] = lo;
			m->hi[m->n++] = hi;
		}
	if (f)
		fclose(f);
}

static bool in_xmaps(const struct xmaps *m, uint64_t pc)
{
	for (size_t i = 0; i < m->n; i++)
		if (pc >= m->lo[i] && pc < m->hi[i])
			return true;
	return false;
}

/* What a process-sampling log should say about our PMC. */
struct ts_check {
	pmc_id_t id;
	pid_t pid, tid;
	struct xmaps maps;
	size_t samples, user_samples, user_in_maps, alloc, attach;
	size_t userdata, foreign;
	uint32_t first_udata;		/* USERDATA values first_udata + 0, 1 */
	uint32_t udata_seq[2];		/* their sequence numbers, + 1 */
};

static void ts_visit(const struct pmclog_ev *ev, void *arg)
{
	struct ts_check *c = arg;

	switch (ev->pl_type) {
	case PMCLOG_TYPE_CALLCHAIN:
		if (ev->pl_u.pl_cc.pl_pmcid != c->id ||
		    (pid_t)ev->pl_u.pl_cc.pl_pid != c->pid ||
		    (pid_t)ev->pl_u.pl_cc.pl_tid != c->tid) {
			c->foreign++;
			break;
		}
		c->samples++;
		if (PMC_CALLCHAIN_CPUFLAGS_TO_USERMODE(ev->pl_u.pl_cc.pl_cpuflags)) {
			c->user_samples++;
			c->user_in_maps += in_xmaps(&c->maps, ev->pl_u.pl_cc.pl_pc[0]);
		}
		break;
	case PMCLOG_TYPE_PMCALLOCATE:
		c->alloc += ev->pl_u.pl_a.pl_pmcid == c->id;
		break;
	case PMCLOG_TYPE_PMCALLOCATEDYN:
		c->alloc += ev->pl_u.pl_ad.pl_pmcid == c->id &&
			strcmp(ev->pl_u.pl_ad.pl_evname, "task-clock") == 0;
		break;
	case PMCLOG_TYPE_PMCATTACH:
		c->attach += ev->pl_u.pl_t.pl_pmcid == c->id &&
			ev->pl_u.pl_t.pl_pid == c->pid;
		break;
	case PMCLOG_TYPE_USERDATA:
		c->userdata++;
		if (ev->pl_u.pl_u.pl_userdata - c->first_udata < 2)
			c->udata_seq[ev->pl_u.pl_u.pl_userdata - c->first_udata] =
				ev->pl_seq + 1;
		break;
	default:
		break;
	}
}

static int log_file(char *path)
{
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

TEST(ts_sampling_log_every_record_accounted_for)
{
	char path[] = "/tmp/libpmc-log-XXXXXX";
	struct ts_check c = { .first_udata = 0x100 };
	struct pmc_driverstats s0, s1;
	struct log_tally t;
	uint64_t c0, c1;
	size_t other;
	int fd;

	PMC_INIT_OR_SKIP();
	fd = log_file(path);
	ASSERT_GE(fd, 0);
	PMC_OK(pmc_configure_logfile(fd), "CONFIGURELOG");
	ASSERT_EQ(0, pmc_writelog(0x100));
	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TS, PMC_F_CALLCHAIN,
			  PMC_CPU_ANY, &c.id, PERIOD_NS);
	ASSERT_EQ(0, pmc_attach(c.id, 0));
	ASSERT_EQ(0, pmc_get_driver_stats(&s0));
	c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(0, pmc_start(c.id));
	spin_cpu_ns(200 * PERIOD_NS);
	ASSERT_EQ(0, pmc_stop(c.id));
	c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(0, pmc_writelog(0x101));
	ASSERT_EQ(0, pmc_release(c.id));
	ASSERT_EQ(0, pmc_flush_logfile());
	ASSERT_EQ(0, pmc_close_logfile());
	ASSERT_EQ(0, pmc_get_driver_stats(&s1));

	c.pid = getpid();
	c.tid = gettid();
	read_xmaps(&c.maps);
	read_log(fd, &t, ts_visit, &c);
	EXPECT_EQ(PMCLOG_EOF, t.end) TH_LOG("log: %s", t.error);
	EXPECT_TRUE(tally_complete(&t))
		TH_LOG("%zu records, seq %u..%u, %u twice", t.n, t.min_seq,
		       t.max_seq, t.dups);
	EXPECT_EQ(0, t.min_seq);
	/* CLOSELOG was sent last. */
	EXPECT_EQ(t.max_seq, t.close_seq);
	EXPECT_EQ(1, t.bytype[PMCLOG_TYPE_INITIALIZE]);
	EXPECT_EQ(1, t.bytype[PMCLOG_TYPE_CLOSELOG]);
	EXPECT_EQ(0, t.bytype[PMCLOG_TYPE_DROPNOTIFY]);
	EXPECT_EQ(1, c.alloc);
	EXPECT_EQ(1, c.attach);
	/* Both USERDATA, sent (numbered) in the order written. */
	EXPECT_EQ(2, c.userdata);
	EXPECT_NE(0, c.udata_seq[0]);
	EXPECT_GT(c.udata_seq[1], c.udata_seq[0]);
	EXPECT_EQ(0, c.foreign);

	/* One sample per period of CPU time. */
	EXPECT_SAMPLES(c.samples, c1 - c0, s0, s1);
	/*
	 * Many in user space (spin_cpu_ns() reads its clock seldom): most
	 * on the Debian kernel, 47 % once on the debug kernel on a loaded
	 * host, whose interrupt work is slow enough to take many samples.
	 */
	EXPECT_GE(c.user_samples * 4, c.samples);
	EXPECT_EQ(c.user_samples, c.user_in_maps);

	/* Nothing else: the rest are mapping records of this process. */
	other = t.n - t.bytype[PMCLOG_TYPE_INITIALIZE] - t.bytype[PMCLOG_TYPE_CLOSELOG] -
		c.alloc - c.attach - c.userdata - c.samples -
		t.bytype[PMCLOG_TYPE_MAP_IN] - t.bytype[PMCLOG_TYPE_PMCDETACH] -
		t.bytype[PMCLOG_TYPE_PROCEXEC];
	EXPECT_EQ(0, other)
		TH_LOG("%zu records: %zu samples, %zu map-in, %zu detach",
		       t.n, c.samples, t.bytype[PMCLOG_TYPE_MAP_IN],
		       t.bytype[PMCLOG_TYPE_PMCDETACH]);
	close(fd);
}

struct ss_check {
	pmc_id_t id;
	size_t samples, on_cpu0, ours;
	pid_t pid;
};

static void ss_visit(const struct pmclog_ev *ev, void *arg)
{
	struct ss_check *c = arg;

	if (ev->pl_type != PMCLOG_TYPE_CALLCHAIN || ev->pl_u.pl_cc.pl_pmcid != c->id)
		return;
	c->samples++;
	c->on_cpu0 += PMC_CALLCHAIN_CPUFLAGS_TO_CPU(ev->pl_u.pl_cc.pl_cpuflags) == 0;
	c->ours += (pid_t)ev->pl_u.pl_cc.pl_pid == c->pid;
}

TEST(ss_sampling_log_of_one_cpu)
{
	char path[] = "/tmp/libpmc-log-XXXXXX";
	struct ss_check c = { .pid = getpid() };
	struct pmc_driverstats s0, s1;
	struct log_tally t;
	uint64_t t0, t1;
	cpu_set_t set;
	int fd;

	PMC_INIT_OR_SKIP();
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	fd = log_file(path);
	ASSERT_GE(fd, 0);
	PMC_OK(pmc_configure_logfile(fd), "CONFIGURELOG");
	PMC_ALLOC("SOFT-cpu-clock", PMC_MODE_SS, 0, 0, &c.id, PERIOD_NS);
	ASSERT_EQ(0, pmc_get_driver_stats(&s0));
	t0 = clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pmc_start(c.id));
	spin_cpu_ns(100 * PERIOD_NS);
	ASSERT_EQ(0, pmc_stop(c.id));
	t1 = clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pmc_release(c.id));
	ASSERT_EQ(0, pmc_close_logfile());
	ASSERT_EQ(0, pmc_get_driver_stats(&s1));

	read_log(fd, &t, ss_visit, &c);
	EXPECT_EQ(PMCLOG_EOF, t.end) TH_LOG("log: %s", t.error);
	EXPECT_TRUE(tally_complete(&t))
		TH_LOG("%zu records, seq %u..%u, %u twice", t.n, t.min_seq,
		       t.max_seq, t.dups);
	EXPECT_EQ(t.max_seq, t.close_seq);
	EXPECT_EQ(0, t.bytype[PMCLOG_TYPE_DROPNOTIFY]);
	/* cpu-clock of CPU 0 ticks with elapsed time; we kept CPU 0 busy. */
	EXPECT_SAMPLES(c.samples, t1 - t0, s0, s1);
	EXPECT_EQ(c.samples, c.on_cpu0);
	EXPECT_GE(c.ours * 10, c.samples * 8);
	close(fd);
}

struct exit_check {
	pmc_id_t id;
	pid_t child;
	uint64_t csw_sum, exit_value;
	size_t csw, exits, attach;
};

static void exit_visit(const struct pmclog_ev *ev, void *arg)
{
	struct exit_check *c = arg;

	switch (ev->pl_type) {
	case PMCLOG_TYPE_PROCCSW:
		if (ev->pl_u.pl_c.pl_pmcid == c->id && ev->pl_u.pl_c.pl_pid == c->child) {
			c->csw++;
			c->csw_sum += ev->pl_u.pl_c.pl_value;
		}
		break;
	case PMCLOG_TYPE_PROCEXIT:
		if (ev->pl_u.pl_e.pl_pmcid == c->id &&
		    (pid_t)ev->pl_u.pl_e.pl_pid == c->child) {
			c->exits++;
			c->exit_value = ev->pl_u.pl_e.pl_value;
		}
		break;
	case PMCLOG_TYPE_PMCATTACH:
		c->attach += ev->pl_u.pl_t.pl_pid == c->child;
		break;
	default:
		break;
	}
}

/* A child's switch-out deltas add up to its exit count, which is the PMC's. */
TEST(proccsw_and_procexit_add_up)
{
	char path[] = "/tmp/libpmc-log-XXXXXX";
	struct exit_check c = { 0 };
	struct log_tally t;
	int go[2], status, fd;
	pmc_value_t v;
	char b = 0;

	PMC_INIT_OR_SKIP();
	fd = log_file(path);
	ASSERT_GE(fd, 0);
	PMC_OK(pmc_configure_logfile(fd), "CONFIGURELOG");
	PMC_ALLOC("SOFT-page-faults", PMC_MODE_TC,
			  PMC_F_LOG_PROCCSW | PMC_F_LOG_PROCEXIT, PMC_CPU_ANY,
			  &c.id, 0);
	ASSERT_EQ(0, pipe(go));
	c.child = fork();
	ASSERT_GE(c.child, 0);
	if (c.child == 0) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(2);
		for (int i = 0; i < 4; i++) {
			if (touch_pages(64))
				_exit(3);
			usleep(2000);	/* switch out between rounds */
		}
		_exit(0);
	}
	close(go[0]);
	ASSERT_EQ(0, pmc_attach(c.id, c.child));
	ASSERT_EQ(0, pmc_start(c.id));
	ASSERT_EQ(1, write(go[1], &b, 1));
	ASSERT_EQ(c.child, waitpid(c.child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, pmc_stop(c.id));
	ASSERT_EQ(0, pmc_read(c.id, &v));
	ASSERT_EQ(0, pmc_release(c.id));
	ASSERT_EQ(0, pmc_close_logfile());

	read_log(fd, &t, exit_visit, &c);
	EXPECT_EQ(PMCLOG_EOF, t.end) TH_LOG("log: %s", t.error);
	EXPECT_TRUE(tally_complete(&t))
		TH_LOG("%zu records, seq %u..%u, %u twice", t.n, t.min_seq,
		       t.max_seq, t.dups);
	EXPECT_EQ(1, c.attach);
	EXPECT_EQ(1, c.exits);
	EXPECT_GE(v, 4 * 64);
	EXPECT_EQ(v, c.exit_value);
	/* The exact check is the sum; how many switch-outs is the scheduler's. */
	EXPECT_GE(c.csw, 1);
	EXPECT_EQ(v, c.csw_sum);
	close(go[1]);
	close(fd);
}

/* The mmap'd ring carries the same records, read as they come. */
TEST(ring_yields_the_records_of_a_run)
{
	struct ts_check c = { .first_udata = 7 };
	struct pmc_driverstats s0, s1;
	struct log_tally t;
	struct pmclog_ev ev;
	uint64_t c0, c1;
	void *ring;
	int tries;

	PMC_INIT_OR_SKIP();
	ring = pmclog_open_ring(PMCLOG_FD_NONE, 16);
	ASSERT_NE(NULL, ring) TH_LOG("pmclog_open_ring: %s", strerror(errno));
	c.pid = getpid();
	c.tid = gettid();
	read_xmaps(&c.maps);
	memset(&t, 0, sizeof(t));

	PMC_ALLOC("SOFT-task-clock", PMC_MODE_TS, 0, PMC_CPU_ANY,
			  &c.id, PERIOD_NS);
	ASSERT_EQ(0, pmc_attach(c.id, 0));
	ASSERT_EQ(0, pmc_get_driver_stats(&s0));
	c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(0, pmc_start(c.id));
	/* Drain as we go: 10 rounds of 10 ms. */
	for (int i = 0; i < 10; i++) {
		spin_cpu_ns(10 * PERIOD_NS);
		while (pmclog_read(ring, &ev) == 0) {
			tally_event(&t, &ev);
			ts_visit(&ev, &c);
		}
		ASSERT_EQ(PMCLOG_REQUIRE_DATA, ev.pl_state)
			TH_LOG("ring: %s", pmclog_error(ring));
	}
	ASSERT_EQ(0, pmc_stop(c.id));
	c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ASSERT_EQ(0, pmc_writelog(7));
	/* The last samples and the USERDATA may still be on their way. */
	for (tries = 0; tries < 50; tries++) {
		size_t before = t.n;

		pmclog_ring_wait(ring, 0, 50);
		while (pmclog_read(ring, &ev) == 0) {
			tally_event(&t, &ev);
			ts_visit(&ev, &c);
		}
		if (c.userdata && t.n == before)
			break;
	}
	ASSERT_EQ(0, pmc_get_driver_stats(&s1));
	EXPECT_NE(PMCLOG_ERROR, ev.pl_state) TH_LOG("ring: %s", pmclog_error(ring));
	EXPECT_TRUE(tally_complete(&t))
		TH_LOG("%zu records, seq %u..%u, %u twice", t.n, t.min_seq,
		       t.max_seq, t.dups);
	EXPECT_EQ(1, c.alloc);
	EXPECT_EQ(1, c.userdata);
	EXPECT_NE(0, c.udata_seq[0]);
	EXPECT_EQ(0, c.foreign);
	EXPECT_EQ(0, t.bytype[PMCLOG_TYPE_DROPNOTIFY]);
	EXPECT_SAMPLES(c.samples, c1 - c0, s0, s1);
	EXPECT_EQ(c.user_samples, c.user_in_maps);
	/* Nothing waits: a wait with no data times out. */
	EXPECT_EQ(0, pmclog_ring_wait(ring, 0, 10));
	ASSERT_EQ(0, pmc_release(c.id));
	pmclog_close(ring);
}

/*
 * pm_buffer_requests and pm_log_sweeps: USERDATA records filling about
 * three log buffers (logbuffersize KiB) take at least two buffer requests
 * per buffer of the log (every byte is staged in a per-CPU buffer, then
 * copied into an output buffer for the file) and none fails, with no sweep
 * of the sample rings (nothing samples); then 50 ms of sampling takes at least one sweep and
 * no more than the overflows it handled; and an idle moment takes
 * neither.
 */
TEST(driver_stats_count_log_buffers_and_sweeps)
{
	char path[] = "/tmp/libpmc-log-XXXXXX", path2[] = "/tmp/libpmc-log-XXXXXX";
	struct pmc_driverstats s0, s1, s2, s3;
	char param[32] = "";
	long bufsize;
	unsigned int req, least, done, sweeps;
	uint32_t i, n;
	cpu_set_t set;
	pmc_id_t id;
	off_t size;
	int fd;

	PMC_INIT_OR_SKIP();
	ASSERT_EQ(0, pmc_t_param_read("logbuffersize", param, sizeof(param)));
	bufsize = atol(param) * 1024;
	ASSERT_LT(0, bufsize);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	fd = log_file(path);
	ASSERT_GE(fd, 0);
	n = (uint32_t)(3 * bufsize / 24);
	ASSERT_EQ(0, pmc_get_driver_stats(&s0));
	PMC_OK(pmc_configure_logfile(fd), "CONFIGURELOG");
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, pmc_writelog(i)) TH_LOG("record %u: %m", i);
	}
	ASSERT_EQ(0, pmc_close_logfile());
	ASSERT_EQ(0, pmc_get_driver_stats(&s1));
	size = lseek(fd, 0, SEEK_END);
	close(fd);
	req = s1.pm_buffer_requests - s0.pm_buffer_requests;
	least = (unsigned int)((size + bufsize - 1) / bufsize);
	TH_LOG("%u records, %lld bytes of log, %ld-byte buffers: %u requests",
	       n, (long long)size, bufsize, req);
	ASSERT_LE((off_t)(2 * bufsize), size);
	EXPECT_LE(2 * least, req);
	EXPECT_EQ(s0.pm_buffer_requests_failed, s1.pm_buffer_requests_failed);
	EXPECT_EQ(s0.pm_log_sweeps, s1.pm_log_sweeps);

	fd = log_file(path2);
	ASSERT_GE(fd, 0);
	PMC_OK(pmc_configure_logfile(fd), "CONFIGURELOG");
	PMC_ALLOC("SOFT-cpu-clock", PMC_MODE_SS, 0, 0, &id, PERIOD_NS);
	ASSERT_EQ(0, pmc_get_driver_stats(&s1));
	ASSERT_EQ(0, pmc_start(id));
	spin_cpu_ns(50 * PERIOD_NS);
	ASSERT_EQ(0, pmc_stop(id));
	ASSERT_EQ(0, pmc_release(id));
	ASSERT_EQ(0, pmc_close_logfile());
	close(fd);
	ASSERT_EQ(0, pmc_get_driver_stats(&s2));
	sweeps = s2.pm_log_sweeps - s1.pm_log_sweeps;
	done = s2.pm_intr_processed - s1.pm_intr_processed;
	TH_LOG("%u overflows handled, %u sweeps", done, sweeps);
	ASSERT_LT(0U, done);
	EXPECT_LE(1U, sweeps);
	EXPECT_GE(done, sweeps);

	usleep(50000);
	ASSERT_EQ(0, pmc_get_driver_stats(&s3));
	EXPECT_EQ(s2.pm_log_sweeps, s3.pm_log_sweeps);
	EXPECT_EQ(s2.pm_buffer_requests, s3.pm_buffer_requests);
}

/*
 * pm_log_buffer_kbytes is the memory the logs' buffers hold: a child that
 * configures a log holds its pool (at least a buffer for each online CPU
 * and two more), and its exit gives every byte back.
 */
TEST(driver_stats_count_log_memory_until_the_owner_exits)
{
	long long kib = pmc_t_param_num("logbuffersize");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pmc_driverstats s0, s1, s2;
	int p[2], status, i;
	pid_t pid;

	PMC_INIT_OR_SKIP();
	ASSERT_LT(0, kib);
	ASSERT_LT(0, ncpu);
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, pmc_get_driver_stats(&s0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		close(p[0]);
		if (fd < 0 || pmc_configure_logfile(fd) < 0 ||
		    pmc_writelog(1) < 0 || pmc_get_driver_stats(&s1) < 0)
			_exit(1);
		_exit(write(p[1], &s1, sizeof(s1)) == sizeof(s1) ? 0 : 2);
	}
	close(p[1]);
	ASSERT_EQ(sizeof(s1), read(p[0], &s1, sizeof(s1)));
	close(p[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The log goes with the owner's last reference: give it a moment. */
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, pmc_get_driver_stats(&s2));
		if (s2.pm_log_buffer_kbytes == s0.pm_log_buffer_kbytes)
			break;
		usleep(100000);
	}
	TH_LOG("log buffers: %u KiB before, %u with the child's log, %u after its exit (%lld KiB buffers, %ld CPUs)",
	       s0.pm_log_buffer_kbytes, s1.pm_log_buffer_kbytes,
	       s2.pm_log_buffer_kbytes, kib, ncpu);
	EXPECT_LE(s0.pm_log_buffer_kbytes + (ncpu + 2) * kib,
		  (long long)s1.pm_log_buffer_kbytes);
	EXPECT_EQ(s0.pm_log_buffer_kbytes, s2.pm_log_buffer_kbytes);
}

TEST_HARNESS_MAIN
