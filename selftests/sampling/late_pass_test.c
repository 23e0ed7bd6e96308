// SPDX-License-Identifier: GPL-2.0
/*
 * late_pass_test.c - the log's pool while no publishing pass runs: pmc.ko
 * reloaded with test_publish_delay_ms, so that every pass from the
 * workqueue begins a second late, as one left on a starved CPU did
 * (docs/performance.md, "A late pass"). Samples at 10 kHz fill 4 KiB
 * buffers meanwhile; the pool must grow without the pass (grow_work,
 * driver/log/log.c), up to nbuffers_pcpu per CPU and no further. Leaves the
 * module loaded with its defaults.
 *
 * The module reloaded is $PMC_KO, or driver/pmc.ko from the repository root.
 */
#include "kselftest_harness.h"

#include "pmc_test.h"
#include "sampling.h"

#define DELAY_MS	1000
/*
 * The window: records stamped before a pass could give buffers back, and
 * staged before it too. A sample waits in its CPU's sample ring until a
 * quarter of it fills (13 ms at 10 kHz) or a pass drains it, so one taken
 * just before the first pass may be staged after it: the window stops a
 * quarter of the delay short, and the child spins past its end (the last
 * samples of a run wait for a pass).
 */
#define WINDOW_MS	(DELAY_MS * 3 / 4)
#define BUF_KIB		4
#define PERIOD_NS	100000ull		/* 10 kHz */
#define CHILD_CPU_NS	1000000000ull
#define RING_PAGES	1024			/* 4 MiB: every record fits */
#define TRIM_S		30

/*
 * At most the bytes the pool keeps free from the start: a buffer for each
 * CPU, two more, and for each CPU that stages, the buffers its whole sample
 * ring fills (pmc_log_pool_base(), pmc_log_burst_bufs()), counted high.
 */
static uint64_t pool_base_bytes(long ncpu)
{
	long long nsamples = pmc_t_param_num("nsamples");
	long long depth = pmc_t_param_num("callchaindepth");
	uint64_t buf = BUF_KIB * 1024, ring, burst;

	if (nsamples <= 0 || depth <= 0)
		return 0;
	ring = (uint64_t)nsamples * (sizeof(struct pmclog_callchain) + 8 * depth);
	burst = (ring + buf - 1) / buf + 1;
	return (ncpu + 2 + ncpu * burst) * buf;
}

FIXTURE(late) {
	int fd;
	struct smp_ring r;
	bool reloaded;
};

/* The module's parameters, and how many buffers a CPU may have. */
FIXTURE_VARIANT(late) {
	const char *params;
	int nbuffers_pcpu;
	bool loses;		/* the window's records exceed the limit */
};

/* Room for all the window's records: none may be lost. */
FIXTURE_VARIANT_ADD(late, grows) {
	.params = "test_publish_delay_ms=1000 logbuffersize=4 nbuffers_pcpu=256",
	.nbuffers_pcpu = 256,
};

/* Room for a fraction of them: the pool stops at its limit and counts. */
FIXTURE_VARIANT_ADD(late, stops_at_its_limit) {
	.params = "test_publish_delay_ms=1000 logbuffersize=4 nbuffers_pcpu=2",
	.nbuffers_pcpu = 2,
	.loses = true,
};

FIXTURE_SETUP(late)
{
	SMP_SETUP_RELOADED(variant->params, RING_PAGES);
}

FIXTURE_TEARDOWN(late)
{
	SMP_TEARDOWN_RELOADED();
}

/*
 * A child spins 1 s of CPU under a 10 kHz cpu-clock PMC with callchains.
 * No pass can give a buffer back before DELAY_MS after the stream's first
 * record (each begins that late after its kick, and the first kick follows
 * the first record): every record kept from the window (WINDOW_MS) was in
 * the pool's buffers at once, so their bytes are within the pool's limit.
 * With room for them all, they are more than the pool keeps free at the
 * start (pool_base_bytes()): it grew without a pass, and nothing is lost.
 * With nbuffers_pcpu too small, records are lost, exactly as many as the
 * DROPNOTIFYs and GETDRIVERSTATS say. A pool that grew gives its buffers
 * back once no record needs them (pmc_log_pool_trim()): halving what no
 * record took each second, it is back within TRIM_S to what it holds at
 * rest (its start, a buffer for each CPU's records and the file's three).
 */
TEST_F_TIMEOUT(late, pool_grows_while_no_pass_runs, 120)
{
	/* The driver's limit counts possible CPUs (nbuffers_pcpu each). */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long npossible = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t base_bytes, max_bytes, rest_bytes, window = 0, t0 = 0, lost;
	struct pmc_op_getdriverstats ds0, ds1, ds2;
	const struct pmclog_header *h;
	struct smp_stream_info si;
	struct smp_buf b = {};
	size_t off, nsamples;
	int64_t id;

	RETURN_IF_SKIPPED();
	ASSERT_LT(0, npossible);
	base_bytes = pool_base_bytes(ncpu);
	ASSERT_LT(0, base_bytes);
	max_bytes = (uint64_t)variant->nbuffers_pcpu * npossible * BUF_KIB * 1024;

	ASSERT_EQ(0, smp_stats(self->fd, &ds0));
	id = smp_sample_child(self->fd, pmc_t_spin_ns, CHILD_CPU_NS,
			      PERIOD_NS, PMC_F_CALLCHAIN);
	ASSERT_LE(0, id) TH_LOG("%s", strerror(-id));
	ASSERT_EQ(0, smp_flushlog(self->fd));
	smp_ring_drain(&self->r, &b);
	/* A publication reports the drops of the last one's records. */
	ASSERT_EQ(0, smp_writelog(self->fd, 1));
	smp_ring_drain(&self->r, &b);
	ASSERT_EQ(0, smp_stats(self->fd, &ds1));

	ASSERT_TRUE(smp_check_stream(&b, &si)) TH_LOG("%s", si.error);
	smp_for_each_rec(h, &b, off) {
		if (off == 0)
			t0 = h->pl_tsc;
		if (h->pl_tsc - t0 < WINDOW_MS * 1000000ull)
			window += smp_rec_len(h);
	}
	nsamples = si.by_type[PMCLOG_TYPE_CALLCHAIN];
	lost = ds1.pm_buffer_requests_failed - ds0.pm_buffer_requests_failed;
	TH_LOG("%zu samples, %llu bytes in the first %d ms (pool base %llu, limit %llu); %llu records lost for want of a buffer",
	       nsamples, (unsigned long long)window, WINDOW_MS,
	       (unsigned long long)base_bytes, (unsigned long long)max_bytes,
	       (unsigned long long)lost);

	EXPECT_EQ(0, si.seq_gaps);		/* the ring lost nothing */
	EXPECT_EQ(0, si.drop_samples);		/* nor the sample rings */
	EXPECT_EQ(lost, si.drop_records);
	/* No pass in the window: what it kept was in the pool at once. */
	EXPECT_GE(max_bytes, window);
	if (variant->loses) {
		EXPECT_LT(0, lost);
	} else {
		/* More than the pool's start: it grew, and lost nothing. */
		EXPECT_LT(base_bytes, window);
		EXPECT_EQ(0, lost);
		/* The logs hold what this one grew to, then give it back. */
		EXPECT_LE(window, ds1.pm_log_buffer_bytes);
		rest_bytes = base_bytes + (ncpu + 3) * BUF_KIB * 1024;
		t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
		do {
			ASSERT_EQ(0, smp_stats(self->fd, &ds2));
			if (ds2.pm_log_buffer_bytes <= rest_bytes)
				break;
			usleep(250000);
		} while (pmc_t_now_ns(CLOCK_MONOTONIC) - t0 < TRIM_S * 1000000000ull);
		TH_LOG("log buffers: %llu bytes after the run, %llu %.1f s later (at rest at most %llu)",
		       (unsigned long long)ds1.pm_log_buffer_bytes,
		       (unsigned long long)ds2.pm_log_buffer_bytes,
		       (pmc_t_now_ns(CLOCK_MONOTONIC) - t0) / 1e9,
		       (unsigned long long)rest_bytes);
		EXPECT_GE(rest_bytes, ds2.pm_log_buffer_bytes);
	}
	smp_buf_free(&b);
}

TEST_HARNESS_MAIN
