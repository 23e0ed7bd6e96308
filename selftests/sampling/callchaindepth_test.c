// SPDX-License-Identifier: GPL-2.0
/*
 * callchaindepth_test.c - the callchaindepth tunable (hwpmc's
 * kern.hwpmc.callchaindepth) bounds every CALLCHAIN record: pmc.ko
 * reloaded with callchaindepth=3, and with its default (8), samples a
 * thread spinning 24 frames deep (frame pointers kept), and the records
 * carry exactly that many frames, never more. Leaves the module loaded
 * with its defaults.
 *
 * The module reloaded is $PMC_KO, or driver/pmc.ko from the repository root.
 */
#include "kselftest_harness.h"

#include "pmc_test.h"
#include "sampling.h"

#define FRAMES		24

static volatile uint64_t sink;

/* Spin @ns of thread CPU time FRAMES frames down; the chain of frame pointers intact. */
static __attribute__((noinline, optimize("no-omit-frame-pointer")))
void deep(int level, uint64_t ns)
{
	uint64_t end;

	if (level > 0) {
		deep(level - 1, ns);
		sink++;		/* not a tail call */
		return;
	}
	end = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	while (pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		sink++;
}

static void user_mode_only(struct pmc_op_pmcallocate *pa, const void *arg)
{
	pa->pm_caps = PMC_CAP_INTERRUPT | PMC_CAP_USER;
}

FIXTURE(depth) {
	int fd;
	struct smp_ring r;
	bool reloaded;
};

FIXTURE_VARIANT(depth) {
	const char *params;
	unsigned int depth;
};

FIXTURE_VARIANT_ADD(depth, three) {
	.params = "callchaindepth=3",
	.depth = 3,
};

FIXTURE_VARIANT_ADD(depth, default_eight) {
	.params = "",
	.depth = 8,
};

FIXTURE_SETUP(depth)
{
	SMP_SETUP_RELOADED(variant->params, 256);
}

FIXTURE_TEARDOWN(depth)
{
	SMP_TEARDOWN_RELOADED();
}

/*
 * cpu-clock every 500 us of the thread, user mode, with callchains: no
 * record longer than the tunable, and nearly all as long (the spin is
 * deeper than it; the rest are samples taken on the way down or up).
 */
TEST_F(depth, callchains_stop_at_the_tunable)
{
	struct smp_buf b = {};
	const struct pmclog_header *h;
	size_t off, n = 0, full = 0, over = 0;
	unsigned int npc;
	int64_t id;

	RETURN_IF_SKIPPED();
	id = smp_alloc_ext(self->fd, PMC_CLASS_SOFT, PMC_MODE_TS, PMC_CPU_ANY,
			   PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 500000,
			   PMC_F_CALLCHAIN, user_mode_only, NULL);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, id, getpid()));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	deep(FRAMES, 500000000);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, id));
	ASSERT_EQ(0, smp_flushlog(self->fd));
	smp_ring_drain(&self->r, &b);
	smp_for_each_rec(h, &b, off) {
		if (smp_rec_type(h) != PMCLOG_TYPE_CALLCHAIN)
			continue;
		npc = (smp_rec_len(h) - sizeof(struct pmclog_callchain)) / 8;
		n++;
		full += npc == variant->depth;
		over += npc > variant->depth;
	}
	smp_buf_free(&b);
	TH_LOG("%zu callchains, %zu of %u frames", n, full, variant->depth);
	ASSERT_LE(10U, n);	/* arm64's guest: about one per 10 ms */
	EXPECT_EQ(0U, over);
	EXPECT_LE(n * 9, full * 10);
}

TEST_HARNESS_MAIN
