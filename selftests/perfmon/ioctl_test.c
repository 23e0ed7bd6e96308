// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl_test.c - perfmon(4) on the test PMU (4 counters per CPU, every event
 * counts 1 per ns, a CPU's counter all the time): each ioctl, each error,
 * the writer rule, privilege, and the counts, which are global: the sum
 * over the online CPUs, so N online CPUs count N events per ns of wall time.
 */
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "perfmon_util.h"

#define NCOUNTERS	4
#define NOBODY		65534

FIXTURE(perfmon) {
	int fd;		/* O_RDWR */
	long ncpus;
	bool chmoded;
	bool tunable_set;
	int paranoid;	/* kernel.perf_event_paranoid to restore, INT_MIN: none */
};

FIXTURE_SETUP(perfmon)
{
	const char *why = tp_cannot_load();

	self->fd = -1;
	self->paranoid = INT_MIN;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, tp_load(NCOUNTERS, 48));
	self->ncpus = pm_ncpus();
	self->fd = open(_PATH_PERFMON, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(perfmon)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->tunable_set)
		tp_set_module_param("pmc", "unprivileged_syspmcs", "0");
	if (self->chmoded)
		chmod(_PATH_PERFMON, 0660);
	if (self->paranoid != INT_MIN) {
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");

		if (f) {
			fprintf(f, "%d\n", self->paranoid);
			fclose(f);
		}
	}
}

/*
 * When a counter ran: surely from inner0 to inner1 (after its start
 * returned, before its stop was called), at most from outer0 to outer1.
 * Counts are checked against both, with 0.1 % for the clocks: no tolerance
 * for a slow virtual CPU is needed.
 */
struct window {
	uint64_t outer0, inner0, inner1, outer1;
};

/* An ioctl on counter @num with the time before and after it; errno. */
static int timed(int fd, unsigned long req, int num, uint64_t *before,
		 uint64_t *after)
{
	int ret;

	*before = tp_clock_ns(CLOCK_MONOTONIC);
	ret = pm_num(fd, req, num);
	*after = tp_clock_ns(CLOCK_MONOTONIC);
	return ret;
}

/* Count for @ns on counter @num of @fd; false if an ioctl failed. */
static bool run_for(int fd, int num, uint64_t ns, struct window *w)
{
	if (timed(fd, PMIOSTART, num, &w->outer0, &w->inner0))
		return false;
	tp_sleep_ns(ns);
	return !timed(fd, PMIOSTOP, num, &w->inner1, &w->outer1);
}

/* @v events for @ncpus CPUs counting during @w. */
static bool in_window(long long v, long ncpus, const struct window *w)
{
	double lo = (double)ncpus * (w->inner1 - w->inner0) * 0.999;
	double hi = (double)ncpus * (w->outer1 - w->outer0) * 1.001;

	return v >= lo && v <= hi;
}

#define EXPECT_IN_WINDOW(v, w) \
	EXPECT_TRUE(in_window((v), self->ncpus, (w))) \
		TH_LOG("%lld events, %ld CPUs x %llu..%llu ns", (long long)(v), \
		       self->ncpus, \
		       (unsigned long long)((w)->inner1 - (w)->inner0), \
		       (unsigned long long)((w)->outer1 - (w)->outer0))

TEST_F(perfmon, setup_then_get_returns_the_setup)
{
	struct pmc p;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 1, PMC6_INST_RETIRED, 0x01,
			      PMCF_USR | PMCF_OS | PMCF_E | PMCF_INV | PMCF_PC, 3));
	memset(&p, 0, sizeof(p));
	p.pmc_num = 1;
	ASSERT_EQ(0, pm_ioctl(self->fd, PMIOGET, &p));
	EXPECT_EQ(1, p.pmc_num);
	EXPECT_EQ(PMC6_INST_RETIRED, p.pmc_event);
	EXPECT_EQ(0x01, p.pmc_unit);
	EXPECT_EQ(PMCF_USR | PMCF_OS | PMCF_E | PMCF_INV | PMCF_PC, p.pmc_flags);
	EXPECT_EQ(3, p.pmc_mask);
}

/* As the original: INT and EN belong to the kernel and are dropped. */
TEST_F(perfmon, system_flags_are_stripped)
{
	struct pmc p;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 0, PMC6_CPU_CLK_UNHALTED, 0,
			      PMCF_USR | PMCF_SYS_FLAGS, 0));
	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, pm_ioctl(self->fd, PMIOGET, &p));
	EXPECT_EQ(PMCF_USR, p.pmc_flags);
}

TEST_F(perfmon, unknown_flag_refused)
{
	if (_metadata->skip)
		return;
	EXPECT_EQ(EINVAL, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | 0x20, 0));
}

TEST_F(perfmon, unconfigured_counter_is_busy)
{
	struct pmc p = { .pmc_num = 2 };
	long long v;

	if (_metadata->skip)
		return;
	EXPECT_EQ(EBUSY, pm_ioctl(self->fd, PMIOGET, &p));
	EXPECT_EQ(EBUSY, pm_read(self->fd, 2, &v));
	EXPECT_EQ(EBUSY, pm_num(self->fd, PMIOSTART, 2));
	EXPECT_EQ(EBUSY, pm_num(self->fd, PMIOSTOP, 2));
	EXPECT_EQ(EBUSY, pm_num(self->fd, PMIORESET, 2));
}

TEST_F(perfmon, bad_counter_number_is_invalid)
{
	static const int bad[] = { PMC_ALL, -7, NCOUNTERS, 1000 };
	struct pmc p;
	long long v;
	unsigned int i;

	if (_metadata->skip)
		return;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&p, 0, sizeof(p));
		p.pmc_num = bad[i];
		EXPECT_EQ(EINVAL, pm_setup(self->fd, bad[i], 0x3c, 0, PMCF_USR, 0));
		EXPECT_EQ(EINVAL, pm_ioctl(self->fd, PMIOGET, &p));
		EXPECT_EQ(EINVAL, pm_read(self->fd, bad[i], &v));
		EXPECT_EQ(EINVAL, pm_num(self->fd, PMIOSTART, bad[i]));
		EXPECT_EQ(EINVAL, pm_num(self->fd, PMIOSTOP, bad[i]));
		EXPECT_EQ(EINVAL, pm_num(self->fd, PMIORESET, bad[i]));
	}
}

/* NPMC of this machine: the general counters of its hardware class. */
TEST_F(perfmon, every_general_counter_is_usable)
{
	struct pmc_classinfo ci;
	long long v;
	int i;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, tp_pmc_hwclass(&ci, NULL));
	ASSERT_EQ((unsigned int)NCOUNTERS, ci.pm_num);
	for (i = 0; i < NCOUNTERS; i++) {
		ASSERT_EQ(0, pm_setup(self->fd, i, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
		ASSERT_EQ(0, pm_num(self->fd, PMIOSTART, i));
	}
	EXPECT_EQ(EINVAL, pm_setup(self->fd, NCOUNTERS, 0x3c, 0, PMCF_USR, 0));
	tp_sleep_ns(50000000);
	for (i = 0; i < NCOUNTERS; i++) {
		ASSERT_EQ(0, pm_num(self->fd, PMIOSTOP, i));
		ASSERT_EQ(0, pm_read(self->fd, i, &v));
		EXPECT_LE(self->ncpus * 50000000ll, v);
	}
}

/* Global counts: every online CPU's time, summed. */
TEST_F(perfmon, counts_what_all_cpus_do)
{
	struct window w;
	long long v;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_TRUE(run_for(self->fd, 0, 300000000, &w));
	ASSERT_EQ(0, pm_read(self->fd, 0, &v));
	TH_LOG("%lld events, %ld CPUs x %llu ns", v, self->ncpus,
	       (unsigned long long)(w.outer1 - w.outer0));
	EXPECT_IN_WINDOW(v, &w);
}

/* Neither PMCF_USR nor PMCF_OS: nothing is counted, as on hardware. */
TEST_F(perfmon, no_mode_flag_counts_nothing)
{
	struct window w;
	long long v;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, 0, 0));
	ASSERT_TRUE(run_for(self->fd, 0, 50000000, &w));
	ASSERT_EQ(0, pm_read(self->fd, 0, &v));
	EXPECT_EQ(0, v);
}

TEST_F(perfmon, stopped_counter_keeps_its_value)
{
	struct window w;
	long long v1, v2;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_TRUE(run_for(self->fd, 0, 50000000, &w));
	ASSERT_EQ(0, pm_read(self->fd, 0, &v1));
	tp_sleep_ns(100000000);
	ASSERT_EQ(0, pm_read(self->fd, 0, &v2));
	EXPECT_LT(0, v1);
	EXPECT_EQ(v1, v2);
	/* Stopping twice and starting twice are harmless. */
	EXPECT_EQ(0, pm_num(self->fd, PMIOSTOP, 0));
	EXPECT_EQ(0, pm_num(self->fd, PMIOSTART, 0));
	EXPECT_EQ(0, pm_num(self->fd, PMIOSTART, 0));
	EXPECT_EQ(0, pm_num(self->fd, PMIOSTOP, 0));
}

TEST_F(perfmon, reset_zeroes_the_counter)
{
	struct window w;
	long long v;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_TRUE(run_for(self->fd, 0, 50000000, &w));
	ASSERT_EQ(0, pm_num(self->fd, PMIORESET, 0));
	ASSERT_EQ(0, pm_read(self->fd, 0, &v));
	EXPECT_EQ(0, v);
	/* And counts on from zero. */
	ASSERT_TRUE(run_for(self->fd, 0, 200000000, &w));
	ASSERT_EQ(0, pm_read(self->fd, 0, &v));
	EXPECT_IN_WINDOW(v, &w);
}

/* A running counter may be reset too: it counts on from zero. */
TEST_F(perfmon, reset_while_running)
{
	struct window w;
	long long v;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_EQ(0, pm_num(self->fd, PMIOSTART, 0));
	tp_sleep_ns(100000000);
	ASSERT_EQ(0, timed(self->fd, PMIORESET, 0, &w.outer0, &w.inner0));
	tp_sleep_ns(200000000);
	ASSERT_EQ(0, timed(self->fd, PMIOSTOP, 0, &w.inner1, &w.outer1));
	ASSERT_EQ(0, pm_read(self->fd, 0, &v));
	EXPECT_IN_WINDOW(v, &w);
}

/* PMIOSETUP stops and resets, even a running counter. */
TEST_F(perfmon, setup_stops_and_resets)
{
	long long v;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_EQ(0, pm_num(self->fd, PMIOSTART, 0));
	tp_sleep_ns(50000000);
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0xc0, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_EQ(0, pm_read(self->fd, 0, &v));
	EXPECT_EQ(0, v);
	tp_sleep_ns(50000000);
	ASSERT_EQ(0, pm_read(self->fd, 0, &v));
	EXPECT_EQ(0, v);
}

TEST_F(perfmon, counters_are_independent)
{
	struct window w0, w1;
	long long v0, v1;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_EQ(0, pm_setup(self->fd, 1, 0xc0, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_EQ(0, timed(self->fd, PMIOSTART, 0, &w0.outer0, &w0.inner0));
	ASSERT_EQ(0, timed(self->fd, PMIOSTART, 1, &w1.outer0, &w1.inner0));
	tp_sleep_ns(100000000);
	ASSERT_EQ(0, timed(self->fd, PMIOSTOP, 1, &w1.inner1, &w1.outer1));
	tp_sleep_ns(200000000);
	ASSERT_EQ(0, timed(self->fd, PMIOSTOP, 0, &w0.inner1, &w0.outer1));
	ASSERT_EQ(0, pm_read(self->fd, 0, &v0));
	ASSERT_EQ(0, pm_read(self->fd, 1, &v1));
	EXPECT_IN_WINDOW(v0, &w0);
	EXPECT_IN_WINDOW(v1, &w1);
}

/* A file opened read-only can look but not touch. */
TEST_F(perfmon, reader_may_get_read_and_tstamp_only)
{
	struct window w;
	struct pmc_tstamp ts;
	struct pmc p;
	long long vw, vr;
	int ro;

	if (_metadata->skip)
		return;
	ro = open(_PATH_PERFMON, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(EPERM, pm_setup(ro, 0, 0x3c, 0, PMCF_USR, 0));
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_TRUE(run_for(self->fd, 0, 20000000, &w));
	EXPECT_EQ(EPERM, pm_num(ro, PMIOSTART, 0));
	EXPECT_EQ(EPERM, pm_num(ro, PMIOSTOP, 0));
	EXPECT_EQ(EPERM, pm_num(ro, PMIORESET, 0));

	memset(&p, 0, sizeof(p));
	EXPECT_EQ(0, pm_ioctl(ro, PMIOGET, &p));
	EXPECT_EQ(0x3c, p.pmc_event);
	EXPECT_EQ(0, pm_read(self->fd, 0, &vw));
	EXPECT_EQ(0, pm_read(ro, 0, &vr));
	EXPECT_EQ(vw, vr);
	EXPECT_EQ(0, pm_ioctl(ro, PMIOTSTAMP, &ts));
	close(ro);
}

/*
 * One writer: the first file that sets a counter up holds the device until
 * it is closed; opening for writing is not refused (hwpmc programs open
 * /dev/pmc O_RDWR too).
 */
TEST_F(perfmon, one_writer_at_a_time)
{
	struct pmc p;
	long long v;
	int other;

	if (_metadata->skip)
		return;
	other = open(_PATH_PERFMON, O_RDWR);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	EXPECT_EQ(EBUSY, pm_setup(other, 0, 0xc0, 0, PMCF_USR, 0));
	EXPECT_EQ(EBUSY, pm_setup(other, 1, 0xc0, 0, PMCF_USR, 0));
	EXPECT_EQ(EBUSY, pm_num(other, PMIOSTART, 0));
	EXPECT_EQ(EBUSY, pm_num(other, PMIOSTOP, 0));
	EXPECT_EQ(EBUSY, pm_num(other, PMIORESET, 0));
	memset(&p, 0, sizeof(p));
	EXPECT_EQ(0, pm_ioctl(other, PMIOGET, &p));
	EXPECT_EQ(0, pm_read(other, 0, &v));

	/* The writer's close stops and frees everything, and frees the slot. */
	close(self->fd);
	self->fd = other;
	EXPECT_EQ(EBUSY, pm_ioctl(other, PMIOGET, &p));
	EXPECT_EQ(EBUSY, pm_read(other, 0, &v));
	EXPECT_EQ(0, pm_setup(other, 0, 0xc0, 0, PMCF_USR, 0));
}

/* Another process is refused the slot too. */
TEST_F(perfmon, writer_slot_is_per_device)
{
	int st;
	pid_t pid;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(_PATH_PERFMON, O_RDWR);

		_exit(fd < 0 ? 100 : pm_setup(fd, 1, 0x3c, 0, PMCF_USR, 0));
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(EBUSY, WEXITSTATUS(st));
}

/* Closing the writer's file gives the hardware counters back. */
TEST_F(perfmon, release_frees_the_counters)
{
	long long used0;

	if (_metadata->skip)
		return;
	used0 = tp_stat("counters_in_use");
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_EQ(0, pm_setup(self->fd, 1, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	ASSERT_EQ(0, pm_num(self->fd, PMIOSTART, 0));
	ASSERT_EQ(0, pm_num(self->fd, PMIOSTART, 1));
	EXPECT_EQ(used0 + 2 * self->ncpus, tp_stat("counters_in_use"));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(used0, tp_stat("counters_in_use"));
}

/*
 * A pinned per-CPU counter that finds every hardware counter of its CPU
 * taken cannot start: EBUSY, and it starts once they are free.
 */
TEST_F(perfmon, start_without_free_hardware_counter_is_busy)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.config = 0x3c,
		.pinned = 1,
	};
	int fds[NCOUNTERS], i;
	long long v;

	if (_metadata->skip)
		return;
	for (i = 0; i < NCOUNTERS; i++) {
		fds[i] = tp_perf_open(&attr, -1, 0, -1, 0);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	EXPECT_EQ(EBUSY, pm_num(self->fd, PMIOSTART, 0));
	for (i = 0; i < NCOUNTERS; i++)
		close(fds[i]);
	EXPECT_EQ(0, pm_num(self->fd, PMIOSTART, 0));
	tp_sleep_ns(20000000);
	EXPECT_EQ(0, pm_num(self->fd, PMIOSTOP, 0));
	EXPECT_EQ(0, pm_read(self->fd, 0, &v));
	EXPECT_LE(self->ncpus * 20000000ll, v);
}

/* PMIOTSTAMP: the TSC, increasing at the rate it reports. */
TEST_F(perfmon, tstamp_is_monotonic_at_its_rate)
{
	struct pmc_tstamp a, b;
	uint64_t t0, t1;
	double us;

	if (_metadata->skip)
		return;
	t0 = tp_clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, pm_ioctl(self->fd, PMIOTSTAMP, &a));
	tp_sleep_ns(200000000);
	ASSERT_EQ(0, pm_ioctl(self->fd, PMIOTSTAMP, &b));
	t1 = tp_clock_ns(CLOCK_MONOTONIC);
	EXPECT_LT(a.pmct_value, b.pmct_value);
	EXPECT_LE(100, a.pmct_rate);
	EXPECT_GE(10000, a.pmct_rate);
	EXPECT_EQ(a.pmct_rate, b.pmct_rate);
	us = (double)(b.pmct_value - a.pmct_value) / a.pmct_rate;
	TH_LOG("%lld ticks at %d MHz = %.0f us; %llu us elapsed",
	       (long long)(b.pmct_value - a.pmct_value), a.pmct_rate, us,
	       (unsigned long long)(t1 - t0) / 1000);
	EXPECT_TRUE(tp_within(us, (t1 - t0) / 1000.0, 0.02));
}

TEST_F(perfmon, bad_pointers_fault)
{
	if (_metadata->skip)
		return;
	EXPECT_EQ(EFAULT, pm_ioctl(self->fd, PMIOSETUP, NULL));
	EXPECT_EQ(EFAULT, pm_ioctl(self->fd, PMIOGET, (void *)8));
	EXPECT_EQ(EFAULT, pm_ioctl(self->fd, PMIOREAD, NULL));
	EXPECT_EQ(EFAULT, pm_ioctl(self->fd, PMIOSTART, NULL));
	EXPECT_EQ(EFAULT, pm_ioctl(self->fd, PMIOTSTAMP, NULL));
	EXPECT_EQ(ENOTTY, pm_ioctl(self->fd, _IO('5', 8), NULL));
}

/* Run @fn as uid/gid 65534 in a child; its exit status. */
static int as_nobody(int (*fn)(void))
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(101);
		_exit(fn());
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Unprivileged: open works (file mode), counting needs CAP_PERFMON. */
static int nobody_is_refused(void)
{
	struct pmc_tstamp ts;
	struct pmc p = { .pmc_num = 0 };
	long long v;
	int fd = open(_PATH_PERFMON, O_RDWR);

	if (fd < 0)
		return 100;
	if (pm_setup(fd, 0, 0x3c, 0, PMCF_USR, 0) != EPERM)
		return 1;
	if (pm_read(fd, 0, &v) != EPERM)	/* system-wide counts */
		return 2;
	if (pm_ioctl(fd, PMIOGET, &p) != 0)	/* root's setup */
		return 3;
	if (pm_ioctl(fd, PMIOTSTAMP, &ts) != 0)
		return 4;
	return 0;
}

/* Nothing set up: setting up and reading are refused all the same. */
static int nobody_may_not_count(void)
{
	long long v;
	int fd = open(_PATH_PERFMON, O_RDWR);

	if (fd < 0)
		return 100;
	if (pm_setup(fd, 0, 0x3c, 0, PMCF_USR, 0) != EPERM)
		return 1;
	if (pm_read(fd, 0, &v) != EPERM)
		return 2;
	return 0;
}

/*
 * With unprivileged_syspmcs=1 the driver lets anyone count system-wide,
 * but perf's own rule for CPU-wide counters still applies: CAP_PERFMON or
 * kernel.perf_event_paranoid <= 0. Kernel mode: paranoid <= 1.
 */
static int nobody_refused_by_paranoid(void)
{
	int fd = open(_PATH_PERFMON, O_RDWR);

	if (fd < 0)
		return 100;
	if (pm_setup(fd, 0, 0x3c, 0, PMCF_USR, 0) != EPERM)
		return 1;
	if (pm_setup(fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0) != EPERM)
		return 2;
	return 0;
}

static int nobody_counts(void)
{
	long long v;
	int fd = open(_PATH_PERFMON, O_RDWR);
	int err;

	if (fd < 0)
		return 100;
	err = pm_setup(fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0);
	if (err)
		return 10 + err;
	if (pm_num(fd, PMIOSTART, 0) || pm_num(fd, PMIOSTOP, 0))
		return 3;
	if (pm_read(fd, 0, &v) != 0 || v <= 0)
		return 4;
	return 0;
}

static void set_paranoid(struct __test_metadata *_metadata,
			 FIXTURE_DATA(perfmon) * self, int value)
{
	FILE *f;

	if (self->paranoid == INT_MIN) {
		f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		ASSERT_NE(NULL, f);
		ASSERT_EQ(1, fscanf(f, "%d", &self->paranoid));
		fclose(f);
	}
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "%d\n", value);
	ASSERT_EQ(0, fclose(f));
}

TEST_F(perfmon, privilege_of_system_scope_pmcs)
{
	if (_metadata->skip)
		return;
	ASSERT_EQ(0, chmod(_PATH_PERFMON, 0666));
	self->chmoded = true;
	/* Root's counter 0 is set up and the slot is root's. */
	ASSERT_EQ(0, pm_setup(self->fd, 0, 0x3c, 0, PMCF_USR | PMCF_OS, 0));
	EXPECT_EQ(0, as_nobody(nobody_is_refused));
	close(self->fd);
	self->fd = -1;

	/* The driver's rule first: paranoid 0 alone does not let nobody in. */
	set_paranoid(_metadata, self, 0);
	EXPECT_EQ(0, as_nobody(nobody_may_not_count));

	ASSERT_EQ(0, tp_set_module_param("pmc", "unprivileged_syspmcs", "1"));
	self->tunable_set = true;
	EXPECT_EQ(0, as_nobody(nobody_counts));
	set_paranoid(_metadata, self, 2);
	EXPECT_EQ(0, as_nobody(nobody_refused_by_paranoid));
}

TEST_HARNESS_MAIN
