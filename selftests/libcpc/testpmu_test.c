// SPDX-License-Identifier: GPL-2.0
/*
 * testpmu_test.c - libcpc on a hardware class: the test PMU
 * (selftests/testpmu/testpmu.ko, every event counts 1 per ns its event is
 * active) loaded before pmc.ko. Hardware counters appear as pics, the PAPI
 * generic events are listed and count the thread's run time like
 * task-clock, and overflow signals come from hardware-class PMCs.
 *
 * The fixture reloads the modules (rmmod pmc; insmod testpmu.ko; insmod
 * pmc.ko) and restores a plain pmc.ko afterwards.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "cpc_util.h"

#define TESTPMU_KO	"selftests/testpmu/testpmu.ko"
#define PMC_KO		"driver/pmc.ko"
#define MS		1000000ULL

FIXTURE(testpmu) {
	bool loaded;
};

FIXTURE_SETUP(testpmu)
{
	struct stat st;

	self->loaded = false;
#if !defined(__x86_64__) && !defined(__i386__)
	SKIP(return, "not an x86 machine: the test PMU's overflow interrupt is an APIC NMI (selftests/arm64 tests this machine's PMU)");
#endif
	if (getuid() != 0)
		SKIP(return, "needs root to load modules");
	if (stat(TESTPMU_KO, &st) != 0 || stat(PMC_KO, &st) != 0)
		SKIP(return, "%s or %s is not built", TESTPMU_KO, PMC_KO);
	if (!getenv("PMC_VM"))
		SKIP(return, "reloads kernel modules: only in the test VM");
	ASSERT_EQ(0, system("rmmod pmc 2>/dev/null; rmmod testpmu 2>/dev/null; "
			    "insmod " TESTPMU_KO " && insmod " PMC_KO));
	self->loaded = true;
}

FIXTURE_TEARDOWN(testpmu)
{
	if (self->loaded)
		EXPECT_EQ(0, system("rmmod pmc && rmmod testpmu && insmod " PMC_KO));
}

struct found {
	const char *want;
	bool seen;
	int n;
};

static void find_cb(void *arg, const char *event)
{
	struct found *f = arg;

	f->n++;
	if (!strcmp(event, f->want))
		f->seen = true;
}

TEST_F(testpmu, hardware_pics_and_generic_events_are_listed)
{
	struct found f = { .want = "PAPI_tot_cyc" };
	cpc_t *cpc;

	if (!self->loaded)
		return;	/* skipped: no test PMU */
	REQUIRE_CPC();
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	TH_LOG("%s: %u pics", cpc_cciname(cpc), cpc_npic(cpc));
	EXPECT_STRNE("Linux Software Events", cpc_cciname(cpc));
	EXPECT_GE(cpc_npic(cpc), 1U);
	cpc_walk_generic_events_all(cpc, &f, find_cb);
	EXPECT_TRUE(f.seen);
	f.want = "task-clock";
	f.seen = false;
	cpc_walk_events_all(cpc, &f, find_cb);
	EXPECT_TRUE(f.seen);
	cpc_close(cpc);
}

/* PAPI_tot_cyc on the test PMU counts run time: it matches task-clock. */
TEST_F_TIMEOUT(testpmu, generic_cycles_count_like_task_clock, 60)
{
	cpc_buf_t *a, *b, *d;
	uint64_t cyc, clk;
	cpc_set_t *set;
	cpc_t *cpc;

	if (!self->loaded)
		return;	/* skipped: no test PMU */
	REQUIRE_CPC();
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "PAPI_tot_cyc", 0,
					 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
					 NULL));
	ASSERT_EQ(1, cpc_set_add_request(cpc, set, "task-clock", 0,
					 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
					 NULL));
	a = cpc_buf_create(cpc, set);
	b = cpc_buf_create(cpc, set);
	d = cpc_buf_create(cpc, set);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, cpc_set_sample(cpc, set, a));
	spin_cpu_ns(300 * MS);
	ASSERT_EQ(0, cpc_set_sample(cpc, set, b));
	cpc_buf_sub(cpc, d, b, a);
	cpc_buf_get(cpc, d, 0, &cyc);
	cpc_buf_get(cpc, d, 1, &clk);
	TH_LOG("PAPI_tot_cyc %" PRIu64 ", task-clock %" PRIu64, cyc, clk);
	EXPECT_TRUE(within_pct(cyc, clk, 2.0));
	EXPECT_GE(clk, 300 * MS);
	cpc_close(cpc);
}

/*
 * pmc(3)'s vocabulary in libcpc: its aliases, perf's generic names and
 * FreeBSD's spelling of the software names bind and count on the test
 * PMU, whose every event counts run time.
 */
TEST_F_TIMEOUT(testpmu, pmc3_names_bind_and_count, 60)
{
	static const char *const names[] = {
		"instructions", "unhalted-cycles", "branches", "cycles",
		"cpu-cycles", "branch-misses", "TASK_CLOCK",
	};
	uint64_t v;
	cpc_buf_t *a, *b;
	cpc_set_t *set;
	cpc_t *cpc;
	size_t i;

	if (!self->loaded)
		return;	/* skipped: no test PMU */
	REQUIRE_CPC();
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		set = cpc_set_create(cpc);
		ASSERT_NE(NULL, set);
		ASSERT_EQ(0, cpc_set_add_request(cpc, set, names[i], 0,
						 CPC_COUNT_USER |
						 CPC_COUNT_SYSTEM, 0, NULL))
			TH_LOG("%s: %s", names[i], strerror(errno));
		a = cpc_buf_create(cpc, set);
		b = cpc_buf_create(cpc, set);
		ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0))
			TH_LOG("%s: %s", names[i], strerror(errno));
		ASSERT_EQ(0, cpc_set_sample(cpc, set, a));
		spin_cpu_ns(20 * MS);
		ASSERT_EQ(0, cpc_set_sample(cpc, set, b));
		cpc_buf_sub(cpc, b, b, a);
		cpc_buf_get(cpc, b, 0, &v);
		EXPECT_GE(v, 10 * MS) TH_LOG("%s counted %" PRIu64, names[i], v);
		EXPECT_EQ(0, cpc_unbind(cpc, set));
		EXPECT_EQ(0, cpc_set_destroy(cpc, set));
	}
	cpc_close(cpc);
}

static void first_platform(void *arg, const char *event)
{
	char *name = arg;

	/* Software events are the names with a '-'. */
	if (!name[0] && !strchr(event, '-'))
		snprintf(name, 128, "%s", event);
}

/*
 * A libpfm4 platform event, encoded raw with the umask/cmask/edge/inv
 * attributes, is accepted by the driver and counts on the test PMU
 * (where every event counts run time) like task-clock.
 */
TEST_F_TIMEOUT(testpmu, platform_events_encode_and_count, 60)
{
	cpc_attr_t attrs[2] = { { "cmask", 1 }, { "edge", 0 } };
	char event[128] = "";
	cpc_buf_t *a, *b, *d;
	uint64_t plat, clk;
	cpc_set_t *set;
	cpc_t *cpc;

	if (!self->loaded)
		return;	/* skipped: no test PMU */
	REQUIRE_CPC();
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	cpc_walk_events_all(cpc, event, first_platform);
	if (!event[0])
		SKIP(return, "libpfm4 knows no core PMU for this CPU");
	set = cpc_set_create(cpc);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, event, 0,
					 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 2,
					 attrs));
	ASSERT_EQ(1, cpc_set_add_request(cpc, set, "task-clock", 0,
					 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
					 NULL));
	a = cpc_buf_create(cpc, set);
	b = cpc_buf_create(cpc, set);
	d = cpc_buf_create(cpc, set);
	ASSERT_EQ(0, cpc_bind_curlwp(cpc, set, 0))
		TH_LOG("%s: %s", event, strerror(errno));
	ASSERT_EQ(0, cpc_set_sample(cpc, set, a));
	spin_cpu_ns(200 * MS);
	ASSERT_EQ(0, cpc_set_sample(cpc, set, b));
	cpc_buf_sub(cpc, d, b, a);
	cpc_buf_get(cpc, d, 0, &plat);
	cpc_buf_get(cpc, d, 1, &clk);
	TH_LOG("%s %" PRIu64 ", task-clock %" PRIu64, event, plat, clk);
	EXPECT_TRUE(within_pct(plat, clk, 2.0));
	cpc_close(cpc);
}

/* A set cannot hold more hardware requests than there are counters. */
TEST_F(testpmu, more_hardware_requests_than_counters_fail)
{
	cpc_set_t *set;
	cpc_t *cpc;
	uint_t i;

	if (!self->loaded)
		return;	/* skipped: no test PMU */
	REQUIRE_CPC();
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	cpc_seterrhndlr(cpc, cpc_quiet);
	set = cpc_set_create(cpc);
	for (i = 0; i <= cpc_npic(cpc); i++)
		ASSERT_EQ((int)i, cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
						      CPC_COUNT_USER, 0, NULL));
	EXPECT_EQ(-1, cpc_bind_curlwp(cpc, set, 0));
	EXPECT_EQ(EINVAL, errno);
	cpc_close(cpc);
}

static volatile int ovf_signals, ovf_bad, ovf_errno;
static volatile uint64_t ovf_stopped_ns;	/* CPU time from handler to restart */
static cpc_t *ovf_cpc;
static cpc_set_t *ovf_set;
static cpc_buf_t *ovf_buf;
#define OVF_PERIOD	(20 * MS)

static void ovf_handler(int sig, siginfo_t *si, void *uc)
{
	uint64_t v, t0 = thread_cpu_ns();

	if (cpc_set_sample(ovf_cpc, ovf_set, ovf_buf) != 0) {
		ovf_bad++;
		ovf_errno = ovf_errno ?: errno;
	} else if (cpc_buf_get(ovf_cpc, ovf_buf, 0, &v) != 0 || v >= OVF_PERIOD) {
		ovf_bad++;
	}
	ovf_signals++;
	if (cpc_set_restart(ovf_cpc, ovf_set) != 0) {
		ovf_bad++;
		ovf_errno = ovf_errno ?: errno;
	}
	ovf_stopped_ns += thread_cpu_ns() - t0;
}

/*
 * Overflow of a hardware-class counter preset 20 ms of run time short of
 * wrapping: one signal per 20 ms the thread runs (the set stops until the
 * handler restarts it), each reading the wrapped count.
 */
TEST_F_TIMEOUT(testpmu, hardware_overflow_signals_per_period, 60)
{
	struct sigaction act = { .sa_sigaction = ovf_handler,
				 .sa_flags = SA_SIGINFO | SA_RESTART };
	uint64_t t0, ran;
	int r;

	if (!self->loaded)
		return;	/* skipped: no test PMU */
	REQUIRE_CPC();
	REQUIRE_OVF_SIGNAL();
	ovf_cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, ovf_cpc);
	ASSERT_EQ(0, sigaction(cpc_ovf_signal(ovf_cpc), &act, NULL));
	ovf_set = cpc_set_create(ovf_cpc);
	ASSERT_EQ(0, cpc_set_add_request(ovf_cpc, ovf_set, "PAPI_tot_cyc",
					 UINT64_MAX - OVF_PERIOD + 1,
					 CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT,
					 0, NULL));
	ovf_buf = cpc_buf_create(ovf_cpc, ovf_set);
	r = cpc_bind_curlwp(ovf_cpc, ovf_set, 0);
	ASSERT_EQ(0, r) TH_LOG("%s", strerror(errno));
	t0 = thread_cpu_ns();
	spin_cpu_ns(200 * MS);
	ran = thread_cpu_ns() - t0;
	ASSERT_EQ(0, cpc_unbind(ovf_cpc, ovf_set));
	TH_LOG("%d signals over %" PRIu64 " ns, %" PRIu64 " ns in the handler",
	       ovf_signals, ran, (uint64_t)ovf_stopped_ns);
	EXPECT_EQ(0, ovf_bad) TH_LOG("first error: %s", strerror(ovf_errno));
	/*
	 * The set does not count from the overflow to the restart: the
	 * handler's time (measured) and the signal's delivery (not; a tenth
	 * of the period allowed, the debug kernel under TCG needs it).
	 */
	EXPECT_GE(ovf_signals, (int)((ran - ovf_stopped_ns) * 9 / 10 / OVF_PERIOD) - 1);
	EXPECT_LE(ovf_signals, (int)(ran / OVF_PERIOD) + 1);
	cpc_close(ovf_cpc);
}

TEST_HARNESS_MAIN
