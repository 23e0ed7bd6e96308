// SPDX-License-Identifier: GPL-2.0
/*
 * sampling_test.c - sampling PMCs of the hardware class take their
 * overflows in NMI context (the test PMU raises a real NMI and counts the
 * overflows it delivers with in_nmi()): one sample per period of the
 * thread's run time (TS) or of a CPU's wall time (SS), each logged as a
 * CALLCHAIN record, mostly user-mode ones for a user-mode busy loop.
 */
#include <pmc/pmclog.h>

#include "kselftest_harness.h"
#include "hwclass.h"

#define PERIOD	1000000ull	/* 1 ms of events */

FIXTURE(hwsampling) {
	int fd;
	struct pmc_classinfo ci;
	char path[64];
	long long in_nmi, outside;
};

FIXTURE_SETUP(hwsampling)
{
	const char *why = tp_cannot_load();
	int lfd;

	self->fd = -1;
	self->path[0] = '\0';
	if (why)
		SKIP(return, "%s", why);
	self->fd = hw_setup(4, 48, &self->ci);
	ASSERT_LE(0, self->fd);
	snprintf(self->path, sizeof(self->path), "/tmp/hwclass-log.XXXXXX");
	lfd = mkstemp(self->path);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, pmc_t_ioctl(self->fd, PMC_IOC_CONFIGURELOG,
				 &(struct pmc_op_configurelog){ .pm_logfd = lfd }));
	close(lfd);
	self->in_nmi = tp_stat("overflows_in_nmi");
	self->outside = tp_stat("overflows_outside_nmi");
}

FIXTURE_TEARDOWN(hwsampling)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->path[0])
		unlink(self->path);
}

struct samples {
	long long n, user, own;
};

/* Close the log and count the CALLCHAIN records of PMC @id in it. */
static int count_samples(FIXTURE_DATA(hwsampling) * self, uint32_t id,
			 struct samples *s)
{
	static char buf[1 << 22];
	size_t off = 0;
	ssize_t len;
	int fd;

	memset(s, 0, sizeof(*s));
	if (pmc_t_ioctl(self->fd, PMC_IOC_FLUSHLOG, NULL) ||
	    pmc_t_ioctl(self->fd, PMC_IOC_CLOSELOG, NULL))
		return -1;
	fd = open(self->path, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf));
	close(fd);
	while (len > 0 && off + sizeof(struct pmclog_header) <= (size_t)len) {
		const struct pmclog_callchain *cc = (const void *)(buf + off);
		uint32_t h = cc->pl_hdr.pl_header;

		if (!PMCLOG_HEADER_CHECK_MAGIC(h) || PMCLOG_HEADER_TO_LENGTH(h) < 8)
			return -1;
		if (PMCLOG_HEADER_TO_TYPE(h) == PMCLOG_TYPE_CALLCHAIN &&
		    cc->pl_pmcid == id) {
			s->n++;
			if (PMC_CALLCHAIN_CPUFLAGS_TO_USERMODE(cc->pl_cpuflags))
				s->user++;
			if (cc->pl_pid == (uint32_t)getpid())
				s->own++;
		}
		off += PMCLOG_HEADER_TO_LENGTH(h);
	}
	return 0;
}

TEST_F(hwsampling, process_samples_come_from_nmi)
{
	long long periods, counted, in_nmi;
	struct hw_window w;
	struct samples s;
	uint32_t id, cid;
	uint64_t v = 0;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_TS, PMC_CPU_ANY,
			      PERF_TYPE_RAW, HW_RAW_EVENT, PERIOD, 0, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, 0, 0));
	/* The same event counted around the sampling one: its periods. */
	ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_TC, PMC_CPU_ANY,
			      PERF_TYPE_RAW, HW_RAW_EVENT, 0, 0, &cid));
	ASSERT_EQ(0, pmc_t_attach(self->fd, cid, 0, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, cid));
	ASSERT_EQ(0, hw_start(self->fd, id, CLOCK_THREAD_CPUTIME_ID, &w));
	tp_busy_ns(200000000);
	ASSERT_EQ(0, hw_stop(self->fd, id, CLOCK_THREAD_CPUTIME_ID, &w));
	ASSERT_EQ(0, pmc_t_stop(self->fd, cid));
	ASSERT_EQ(0, pmc_t_read(self->fd, cid, &v));
	ASSERT_EQ(0, count_samples(self, id, &s));
	in_nmi = tp_stat("overflows_in_nmi") - self->in_nmi;
	periods = (w.outer1 - w.outer0) / PERIOD;
	counted = v / PERIOD;
	TH_LOG("%lld samples (%lld user, %lld own), %lld overflows in NMI, about %lld periods of CPU time, %lld counted",
	       s.n, s.user, s.own, in_nmi, periods, counted);
	EXPECT_EQ(0, tp_stat("overflows_outside_nmi") - self->outside);
	EXPECT_EQ(in_nmi, s.n);
	/*
	 * At most one sample per period the counter counted, within the
	 * drift of two test-PMU events. Not bounded by the thread's CPU
	 * time: the test PMU counts local_clock() from the event's add to
	 * its del, which includes the part of each context switch the
	 * scheduler does not charge to the task. Nor exactly by the
	 * counting event's: at each switch perf adds and removes the two
	 * events one after the other, first in, first out, so each slice of
	 * the sampling event's clock differs from the counting one's by the
	 * time between the two adds less the time between the two removes.
	 * On the PREEMPT_RT debug kernel under a loaded host (lockdep and
	 * KASAN in the switch path, the vCPU preempted inside it) thirty
	 * runs gave samples from 3.9 % below to 9.4 % above the counted
	 * periods (222 for 203). A double or spurious sample per period would be
	 * 100 %.
	 */
	EXPECT_LE(s.n, counted + 1 + counted * 15 / 100);
	EXPECT_LE((long long)((w.inner1 - w.inner0) * 0.99 / PERIOD) - 1, s.n);
	EXPECT_EQ(s.n, s.own);
	/*
	 * The registers are the task's, not the NMI's (which would all be
	 * kernel mode): many samples hit the user-mode loop. Not all: an
	 * overflow whose timer fires while the thread is switched out is
	 * taken at its next switch-in, in the kernel, and on a loaded host
	 * the emulated CPU is switched out often.
	 */
	EXPECT_LE(s.n / 4, s.user);
}

TEST_F(hwsampling, system_samples_come_from_nmi)
{
	long long periods, in_nmi;
	struct hw_window w;
	struct samples s;
	uint32_t id;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, hw_alloc(self->fd, &self->ci, PMC_MODE_SS, 0,
			      PERF_TYPE_RAW, HW_RAW_EVENT, PERIOD, 0, &id));
	ASSERT_EQ(0, hw_start(self->fd, id, CLOCK_MONOTONIC, &w));
	tp_sleep_ns(200000000);
	ASSERT_EQ(0, hw_stop(self->fd, id, CLOCK_MONOTONIC, &w));
	ASSERT_EQ(0, count_samples(self, id, &s));
	in_nmi = tp_stat("overflows_in_nmi") - self->in_nmi;
	periods = (w.outer1 - w.outer0) / PERIOD;
	TH_LOG("%lld samples, %lld overflows in NMI, about %lld periods",
	       s.n, in_nmi, periods);
	EXPECT_EQ(0, tp_stat("overflows_outside_nmi") - self->outside);
	EXPECT_EQ(in_nmi, s.n);
	EXPECT_LE(s.n, periods + 1);
	EXPECT_LE((long long)((w.inner1 - w.inner0) / PERIOD) - 1, s.n);
}

TEST_HARNESS_MAIN
