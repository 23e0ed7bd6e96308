// SPDX-License-Identifier: GPL-2.0
/*
 * counts_test.c - libcpc's counts against perf stat on the same workload:
 * a thread's task-clock, with and without CPC_BIND_LWP_INHERIT, and another
 * process through cpc_bind_pctx; and a CPU-bound set against
 * CLOCK_MONOTONIC.
 *
 * perf stat is the independent measure: thread CPU clocks leave out the
 * interrupt time task-clock includes, a few to many per cent under TCG.
 * The binary is also its own workload: with LIBCPC_TEST_WORKER set, a
 * constructor runs it and exits before the harness starts.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cpc_util.h"
#include "pmc_test.h"

#define MS	1000000ULL

static void *thread_spin(void *arg)
{
	spin_cpu_ns(*(uint64_t *)arg);
	return NULL;
}

/* "spin:MS": burn MS ms of CPU and exit (the pctx test's child). */
__attribute__((constructor)) static void worker(void)
{
	const char *w = getenv("LIBCPC_TEST_WORKER");

	if (!w)
		return;
	if (strncmp(w, "spin:", 5))
		_exit(2);
	spin_cpu_ns(strtoull(w + 5, NULL, 10) * MS);
	_exit(0);
}

#define REQUIRE_PERF() do {						\
	if (system("perf --version >/dev/null 2>&1") != 0)		\
		SKIP(return, "perf is not installed");			\
} while (0)

/* A thread that binds, waits for perf, runs, and reports its count. */
struct measured {
	unsigned int main_ms, thread_ms;
	uint_t flags;
	pid_t tid;
	/* Pipes: ready and done to the test, go and release to the thread. */
	int ready[2], go[2], done[2], release[2];
	int err;
	uint64_t counted;
	cpc_t *cpc;		/* closed by the test, not in perf's window */
};

static void *measured_thread(void *arg)
{
	struct measured *m = arg;
	uint64_t va, vb, thread_ns = m->thread_ms * MS;
	cpc_buf_t *a = NULL, *b = NULL;
	cpc_set_t *set;
	pthread_t th;
	char c = 0;
	cpc_t *cpc;

	m->tid = gettid();
	cpc = m->cpc = cpc_open(CPC_VER_CURRENT);
	set = cpc ? cpc_set_create(cpc) : NULL;
	if (!set || cpc_set_add_request(cpc, set, "task-clock", 0,
					CPC_COUNT_USER, 0, NULL) != 0 ||
	    !(a = cpc_buf_create(cpc, set)) || !(b = cpc_buf_create(cpc, set)) ||
	    cpc_bind_curlwp(cpc, set, m->flags) != 0)
		m->err = errno ? errno : EINVAL;
	if (write(m->ready[1], &c, 1) != 1 || read(m->go[0], &c, 1) != 1 ||
	    m->err)
		goto out;
	if (cpc_set_sample(cpc, set, a) != 0)
		goto fail;
	if (m->thread_ms && (pthread_create(&th, NULL, thread_spin, &thread_ns) ||
			     pthread_join(th, NULL)))
		goto fail;
	spin_cpu_ns(m->main_ms * MS);
	if (cpc_set_sample(cpc, set, b) != 0)
		goto fail;
	cpc_buf_get(cpc, a, 0, &va);
	cpc_buf_get(cpc, b, 0, &vb);
	m->counted = vb - va;
	goto out;
fail:
	m->err = errno;
out:
	/* Block until perf has its count: the thread's exit is not counted. */
	if (write(m->done[1], &c, 1) == 1)
		(void)!read(m->release[0], &c, 1);
	return NULL;
}

/*
 * Run a measured thread under `perf stat -t TID` (--no-inherit: that
 * thread only); its count and perf's. perf counts from its attach to its
 * interrupt, both while the thread waits, so both count the same work.
 */
static int perf_thread(struct measured *m, bool no_inherit, uint64_t *perf_ns)
{
	pthread_t th;
	int status, ret = -1;
	pid_t perf;
	char c = 0;

	if (pipe(m->ready) || pipe(m->go) || pipe(m->done) || pipe(m->release) ||
	    pthread_create(&th, NULL, measured_thread, m))
		return -1;
	if (read(m->ready[0], &c, 1) != 1)
		return -1;
	perf = m->err ? -1 : pmc_t_perf_stat("-t", m->tid,
					     no_inherit ? "--no-inherit" : NULL,
					     "/tmp/libcpc-counts.perf");
	if (write(m->go[1], &c, 1) != 1 || read(m->done[0], &c, 1) != 1)
		return -1;
	/* The thread waits, counting nothing: stop perf there. */
	if (perf > 0 && !kill(perf, SIGINT) && waitpid(perf, &status, 0) == perf)
		ret = 0;
	if (write(m->release[1], &c, 1) != 1 || pthread_join(th, NULL))
		return -1;
	cpc_close(m->cpc);
	if (ret || m->err)
		return -1;
	*perf_ns = pmc_t_perf_stat_task_clock("/tmp/libcpc-counts.perf");
	return *perf_ns ? 0 : -1;
}

FIXTURE(slow) {
	int unused;
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
	unlink("/tmp/libcpc-counts.cpc");
	unlink("/tmp/libcpc-counts.perf");
	unlink("/tmp/libcpc-counts.child");
}

/*
 * Up to three runs: a stall of the emulated CPU (the host is shared)
 * while the thread is between perf's window and its own samples adds
 * milliseconds to one side at random; a run free of it must agree.
 */
static int perf_compare(struct __test_metadata *_metadata,
			const struct measured *proto, bool no_inherit,
			const char *what, uint64_t *counted)
{
	uint64_t perf_ns = 0;
	struct measured m;
	int run;

	for (run = 0; run < 3; run++) {
		m = *proto;
		if (perf_thread(&m, no_inherit, &perf_ns) < 0) {
			TH_LOG("run %d failed: %s", run, strerror(m.err));
			return -1;
		}
		TH_LOG("perf stat (%s) %" PRIu64 " ns, libcpc %" PRIu64 " ns",
		       what, perf_ns, m.counted);
		*counted = m.counted;
		if (within_pct(m.counted, perf_ns, 2.0))
			return 0;
	}
	return 1;
}

/* One thread burns 1 s of CPU: libcpc and perf stat -t count it alike. */
TEST_F_TIMEOUT(slow, task_clock_agrees_with_perf_stat, 300)
{
	struct measured m = { .main_ms = 1000 };
	uint64_t counted = 0;

	REQUIRE_CPC();
	REQUIRE_PERF();
	EXPECT_EQ(0, perf_compare(_metadata, &m, false, "thread", &counted));
	EXPECT_GE(counted, 900 * MS);
}

/* With CPC_BIND_LWP_INHERIT a thread created after the bind is counted. */
TEST_F_TIMEOUT(slow, inherit_counts_threads_created_after_bind, 300)
{
	struct measured m = { .main_ms = 200, .thread_ms = 300,
			      .flags = CPC_BIND_LWP_INHERIT };
	uint64_t counted = 0;

	REQUIRE_CPC();
	REQUIRE_PERF();
	EXPECT_EQ(0, perf_compare(_metadata, &m, false, "with new threads",
				  &counted));
	EXPECT_GE(counted, 450 * MS);
}

/* Without it only the binder is: perf stat --no-inherit agrees. */
TEST_F_TIMEOUT(slow, no_inherit_counts_the_binder_only, 300)
{
	struct measured m = { .main_ms = 200, .thread_ms = 300 };
	uint64_t counted = 0;

	REQUIRE_CPC();
	REQUIRE_PERF();
	EXPECT_EQ(0, perf_compare(_metadata, &m, true, "the binder", &counted));
	EXPECT_GE(counted, 180 * MS);
	EXPECT_LT(counted, 400 * MS);
}

static bool bound_to(int cpu)
{
	cpu_set_t m;

	CPU_ZERO(&m);
	return sched_getaffinity(0, sizeof(m), &m) == 0 && CPU_COUNT(&m) == 1 &&
	       CPU_ISSET(cpu, &m);
}

/*
 * A CPU-bound set counts the CPU whatever runs there: cpu-clock over a
 * sampling interval equals the interval (CLOCK_MONOTONIC, the samples'
 * hrtime). The caller is bound to the CPU meanwhile and restored after;
 * once moved away, samples fail with EAGAIN.
 */
TEST(bind_cpu_counts_the_cpu_and_pins_the_caller)
{
	cpu_set_t saved, now;
	cpc_buf_t *a, *b, *d;
	cpc_set_t *set;
	uint64_t v;
	cpc_t *cpc;

	REQUIRE_CPC();
	CPU_ZERO(&saved);
	sched_getaffinity(0, sizeof(saved), &saved);
	cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, cpc);
	set = cpc_set_create(cpc);
	ASSERT_EQ(0, cpc_set_add_request(cpc, set, "cpu-clock", 0,
					 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
					 NULL));
	a = cpc_buf_create(cpc, set);
	b = cpc_buf_create(cpc, set);
	d = cpc_buf_create(cpc, set);
	ASSERT_EQ(0, cpc_bind_cpu(cpc, 0, set, 0)) TH_LOG("%s", strerror(errno));
	EXPECT_TRUE(bound_to(0));
	ASSERT_EQ(0, cpc_set_sample(cpc, set, a));
	spin_cpu_ns(100 * MS);
	usleep(100000);
	ASSERT_EQ(0, cpc_set_sample(cpc, set, b));
	cpc_buf_sub(cpc, d, b, a);
	cpc_buf_get(cpc, d, 0, &v);
	TH_LOG("cpu-clock %" PRIu64 " ns over %lld ns, tick %" PRIu64, v,
	       cpc_buf_hrtime(cpc, b) - cpc_buf_hrtime(cpc, a),
	       cpc_buf_tick(cpc, d));
	EXPECT_TRUE(within_pct(v, (uint64_t)(cpc_buf_hrtime(cpc, b) -
					     cpc_buf_hrtime(cpc, a)), 2.0));
	if (cpc_set_tick_unit(cpc, set) == CPC_TICK_NSEC)
		EXPECT_TRUE(within_pct(cpc_buf_tick(cpc, d), v, 2.0));
	if (CPU_COUNT(&saved) > 1) {
		CPU_ZERO(&now);
		CPU_SET(1, &now);
		ASSERT_EQ(0, sched_setaffinity(0, sizeof(now), &now));
		EXPECT_EQ(-1, cpc_set_sample(cpc, set, b));
		EXPECT_EQ(EAGAIN, errno);
	}
	ASSERT_EQ(0, cpc_unbind(cpc, set));
	CPU_ZERO(&now);
	sched_getaffinity(0, sizeof(now), &now);
	EXPECT_TRUE(CPU_EQUAL(&saved, &now));
	cpc_close(cpc);
}

struct track {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
	int binds, finis, ticks, exits, status, errors;
	pid_t perf;
	uint64_t last;
};

/* Before the created child runs: perf stat -p attaches, libcpc binds. */
static int track_init(pctx_t *pctx, pid_t pid, id_t lwp, void *arg)
{
	struct track *t = arg;

	if (!t->perf)
		t->perf = pmc_t_perf_stat("-t", pid, NULL,
					  "/tmp/libcpc-counts.child");

	if (cpc_bind_pctx(t->cpc, pctx, lwp, t->set, 0) != 0)
		t->errors++;
	else
		t->binds++;
	return 0;
}

static int track_tick(pctx_t *pctx, pid_t pid, id_t lwp, void *arg)
{
	struct track *t = arg;

	if (cpc_set_sample(t->cpc, t->set, t->buf) != 0)
		t->errors++;
	t->ticks++;
	return 0;
}

static int track_fini(pctx_t *pctx, pid_t pid, id_t lwp, void *arg)
{
	struct track *t = arg;

	if (cpc_set_sample(t->cpc, t->set, t->buf) != 0)
		t->errors++;
	else
		cpc_buf_get(t->cpc, t->buf, 0, &t->last);
	t->finis++;
	return 0;
}

static void track_exit(pctx_t *pctx, pid_t pid, id_t lwp, int status,
		       void *arg)
{
	struct track *t = arg;

	t->exits++;
	t->status = status;
}

/*
 * cputrack's sequence: pctx_create, init_lwp binds with cpc_bind_pctx,
 * ticks sample, fini_lwp takes the final count. perf stat -p, attached
 * to the child while it waits to exec, counts the same life.
 */
TEST_F_TIMEOUT(slow, bind_pctx_counts_another_process, 180)
{
	char *argv[] = { "libcpc-worker", NULL };
	struct track t = { 0 };
	uint64_t perf_ns;
	pid_t perf;
	char exe[64];
	pctx_t *pctx;
	int status;

	REQUIRE_CPC();
	REQUIRE_PERF();
	t.cpc = cpc_open(CPC_VER_CURRENT);
	ASSERT_NE(NULL, t.cpc);
	t.set = cpc_set_create(t.cpc);
	ASSERT_EQ(0, cpc_set_add_request(t.cpc, t.set, "task-clock", 0,
					 CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
					 NULL));
	t.buf = cpc_buf_create(t.cpc, t.set);
	setenv("LIBCPC_TEST_WORKER", "spin:600", 1);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", getpid());
	pctx = pctx_create(exe, argv, &t, 0, NULL);
	unsetenv("LIBCPC_TEST_WORKER");
	ASSERT_NE(NULL, pctx);
	ASSERT_EQ(0, pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, track_init,
				     PCTX_FINI_LWP_EVENT, track_fini,
				     PCTX_SYSC_EXIT_EVENT, track_exit,
				     PCTX_NULL_EVENT));
	ASSERT_EQ(0, pctx_run(pctx, 50, 0, track_tick));
	pctx_release(pctx);
	perf = t.perf;
	ASSERT_GT(perf, 0) TH_LOG("perf stat -p did not start");
	ASSERT_EQ(perf, waitpid(perf, &status, 0));
	EXPECT_EQ(1, t.binds);
	EXPECT_EQ(1, t.finis);
	EXPECT_EQ(1, t.exits);
	EXPECT_EQ(0, t.errors);
	EXPECT_GT(t.ticks, 0);
	ASSERT_TRUE(WIFEXITED(t.status) && WEXITSTATUS(t.status) == 0);
	perf_ns = pmc_t_perf_stat_task_clock("/tmp/libcpc-counts.child");
	TH_LOG("libcpc %" PRIu64 " ns, perf stat -t %" PRIu64 " ns", t.last,
	       perf_ns);
	EXPECT_TRUE(within_pct(t.last, perf_ns, 2.0));
	EXPECT_GE(t.last, 600 * MS);
	cpc_close(t.cpc);
}

TEST_HARNESS_MAIN
