// SPDX-License-Identifier: GPL-2.0
/*
 * nmi_test.c - sampling events of the test PMU overflow in NMI context:
 * every period delivers one overflow, each from an NMI (the module counts
 * the in_nmi() ones), with the registers of the interrupted task (user
 * IPs for a user-mode busy loop), through perf's ring buffer. The counts
 * are exact however late the virtual CPU's timers fire: every elapsed
 * period is delivered, at the latest when the event stops.
 */
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "../testpmu/testpmu_util.h"

#define PERIOD		1000000ull	/* 1 ms of events */
#define RING_PAGES	16

struct sample {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
};

struct ring_stats {
	long long samples, user_ips, own;
};

FIXTURE(nmi) {
	int fd;
	void *ring;
	size_t ring_len;
	long long in_nmi, outside, timeouts, skipped, bursts;
};

FIXTURE_SETUP(nmi)
{
	const char *why = tp_cannot_load();

	self->fd = -1;
	self->ring = MAP_FAILED;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, tp_load(4, 48));
	self->in_nmi = tp_stat("overflows_in_nmi");
	self->outside = tp_stat("overflows_outside_nmi");
	self->timeouts = tp_stat("nmi_timeouts");
	self->skipped = tp_stat("overflows_skipped");
	self->bursts = tp_stat("bursts");
	ASSERT_LE(0, self->in_nmi);
}

FIXTURE_TEARDOWN(nmi)
{
	if (self->ring != MAP_FAILED)
		munmap(self->ring, self->ring_len);
	if (self->fd >= 0)
		close(self->fd);
}

static int open_sampling(pid_t pid, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.config = 0x3c,
		.sample_period = PERIOD,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.disabled = 1,
	};

	return tp_perf_open(&attr, pid, cpu, -1, 0);
}

static void count_samples(void *ring, struct ring_stats *st)
{
	struct perf_event_mmap_page *pg = ring;
	size_t page = sysconf(_SC_PAGESIZE);
	char *data = (char *)ring + page;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = 0, size = RING_PAGES * page;

	memset(st, 0, sizeof(*st));
	while (pos < head) {
		struct sample *s = (struct sample *)(data + pos % size);

		if (s->header.type == PERF_RECORD_SAMPLE) {
			st->samples++;
			if (s->ip < 0x800000000000ull)
				st->user_ips++;
			if (s->pid == (uint32_t)getpid() &&
			    s->tid == (uint32_t)gettid())
				st->own++;
		}
		pos += s->header.size;
	}
}

/*
 * Map the event's ring buffer, run the event for @ns (busy on the thread or
 * asleep), then read it: its count, or 0 on failure.
 */
static uint64_t run_event(int fd, void **ring, size_t *ring_len, bool busy,
			  uint64_t ns)
{
	uint64_t count;

	*ring_len = (RING_PAGES + 1) * sysconf(_SC_PAGESIZE);
	*ring = mmap(NULL, *ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*ring == MAP_FAILED)
		return 0;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return 0;
	if (busy)
		tp_busy_ns(ns);
	else
		tp_sleep_ns(ns);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) ||
	    read(fd, &count, sizeof(count)) != sizeof(count))
		return 0;
	return count;
}

/*
 * What every sampling run must show: each overflow delivered in NMI, one
 * per period (delivered, or skipped in a burst of more than the module
 * takes at once after a long stall). A virtual CPU's timers are often late
 * and it can stall for hundreds of milliseconds on a busy host: the "late"
 * NMIs delivered several periods at once, with one set of registers.
 * Returns true when none was skipped.
 */
static bool check_overflows(struct __test_metadata *_metadata,
			    FIXTURE_DATA(nmi) * self, uint64_t count,
			    const struct ring_stats *st)
{
	long long periods = count / PERIOD;
	long long in_nmi = tp_stat("overflows_in_nmi") - self->in_nmi;
	long long skipped = tp_stat("overflows_skipped") - self->skipped;
	long long bursts = tp_stat("bursts") - self->bursts;

	TH_LOG("count %llu: %lld periods, %lld samples (%lld user IPs, %lld own), %lld in NMI, %lld skipped, %lld late NMIs",
	       (unsigned long long)count, periods, st->samples, st->user_ips,
	       st->own, in_nmi, skipped, bursts);
	EXPECT_EQ(in_nmi, st->samples);
	EXPECT_EQ(0, tp_stat("overflows_outside_nmi") - self->outside);
	EXPECT_EQ(0, tp_stat("nmi_timeouts") - self->timeouts);
	/* Exactly one per period: a late one is taken when the event stops. */
	EXPECT_EQ(periods, st->samples + skipped);
	return skipped == 0;
}

/* Overflows of a task's event, with the task's registers. */
TEST_F(nmi, task_overflows_arrive_in_nmi)
{
	struct ring_stats st;
	uint64_t count;

	if (_metadata->skip)
		return;
	self->fd = open_sampling(0, -1);
	ASSERT_LE(0, self->fd);
	count = run_event(self->fd, &self->ring, &self->ring_len, true,
			  200000000);
	ASSERT_LT(0ull, count);
	count_samples(self->ring, &st);
	EXPECT_EQ(st.samples, st.own);
	EXPECT_LT(0, st.user_ips);
	/*
	 * The registers are the task's, not the NMI's (which are all kernel
	 * mode): most samples hit the user-mode loop, unless a stall gave
	 * hundreds of samples the registers of one interrupt.
	 */
	if (check_overflows(_metadata, self, count, &st))
		EXPECT_LE(st.samples / 2, st.user_ips);
}

/* A CPU event samples the idle CPU: kernel IPs, same NMI delivery. */
TEST_F(nmi, cpu_overflows_arrive_in_nmi)
{
	struct ring_stats st;
	uint64_t count;

	if (_metadata->skip)
		return;
	self->fd = open_sampling(-1, 1);
	ASSERT_LE(0, self->fd);
	count = run_event(self->fd, &self->ring, &self->ring_len, false,
			  200000000);
	ASSERT_LT(0ull, count);
	count_samples(self->ring, &st);
	check_overflows(_metadata, self, count, &st);
}

TEST_HARNESS_MAIN
