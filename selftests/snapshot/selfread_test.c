// SPDX-License-Identifier: GPL-2.0
/*
 * selfread_test.c - the self-read page: contents (tid, group, ids, kinds),
 * values equal to PMCREADSET, the seqcount under a thread that is
 * preempted and migrated, the mapping outliving the PMC, the mmap errors,
 * and the RDPMC kind (none written: see docs/selfread.md).
 */
#include "kselftest_harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "snapshot.h"

static volatile uint64_t sink;

FIXTURE(sr) {
	int fd;
	long page;
};

FIXTURE_SETUP(sr)
{
	const char *why = smp_cannot_run();

	self->fd = -1;
	self->page = sysconf(_SC_PAGESIZE);
	if (why)
		SKIP(return, "%s", why);
	self->fd = smp_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(sr)
{
	if (self->fd >= 0)
		close(self->fd);
}

static void *sr_map(int fd, uint32_t group, int prot, int flags, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);

	return mmap(NULL, len ? len : (size_t)page, prot, flags, fd,
		    (off_t)PMC_MMAP_SELFREAD_OFFSET(group, (uint64_t)page));
}

/* A thread-scope TC PMC of the calling thread in @group. */
static int64_t sr_pmc(int fd, uint64_t config, uint32_t group)
{
	int64_t id = smp_alloc_tc(fd, config, 0, 0, group, 0);

	if (id < 0)
		return id;
	return smp_attach_flags(fd, id, 0, PMC_ATTACH_F_THREAD) ?: id;
}

/*
 * Read the entries of @pg with the seqcount protocol: SYSCALL entries with
 * PMCREADSET. Returns the number of retries; *@kinds gets the kinds.
 */
static unsigned int sr_read(int fd, const struct pmc_selfread_page *pg,
			    unsigned int n, uint64_t *v, uint32_t *kinds)
{
	unsigned int i, retries = 0;
	uint32_t seq, id;

	for (;;) {
		seq = __atomic_load_n(&pg->ps_seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			retries++;
			continue;
		}
		for (i = 0; i < n; i++) {
			kinds[i] = pg->ps_entries[i].se_kind;
			v[i] = pg->ps_entries[i].se_offset;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pg->ps_seq, __ATOMIC_RELAXED) == seq)
			break;
		retries++;
	}
	for (i = 0; i < n; i++) {
		if (kinds[i] != PMC_SELFREAD_SYSCALL)
			continue;
		id = pg->ps_entries[i].se_pmcid;
		if (snap_readset(fd, &id, 1, &v[i]))
			v[i] = ~0ull;
	}
	return retries;
}

TEST_F(sr, page_describes_the_set_and_equals_readset)
{
	const struct pmc_selfread_page *pg;
	uint64_t v[2], w[2];
	uint32_t ids[2], k[2];
	int64_t a, b, other;
	unsigned int i;

	RETURN_IF_SKIPPED();
	a = sr_pmc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 5);
	b = sr_pmc(self->fd, PERF_COUNT_SW_PAGE_FAULTS, 5);
	other = sr_pmc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 6);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, other);
	pg = sr_map(self->fd, 5, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, pg);
	EXPECT_EQ((uint32_t)gettid(), pg->ps_tid);
	EXPECT_EQ(5, pg->ps_group);
	ASSERT_EQ(2, pg->ps_nentries);
	EXPECT_EQ(0, pg->ps_seq & 1);
	for (i = 0; i < 2; i++) {
		ids[i] = pg->ps_entries[i].se_pmcid;
		EXPECT_TRUE(ids[i] == (uint32_t)a || ids[i] == (uint32_t)b);
		/* Not started: the value is static. */
		EXPECT_EQ(PMC_SELFREAD_STATIC, pg->ps_entries[i].se_kind);
		EXPECT_EQ(0, pg->ps_entries[i].se_offset);
	}
	EXPECT_NE(ids[0], ids[1]);

	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, b));
	/* Running, on this CPU now: a system call reads them. */
	sr_read(self->fd, pg, 2, v, k);
	EXPECT_EQ(PMC_SELFREAD_SYSCALL, k[0]);
	EXPECT_EQ(PMC_SELFREAD_SYSCALL, k[1]);
	ASSERT_EQ(0, pmc_t_pin_cpu(0) ?: pmc_t_pin_cpu(0));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, a));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, b));
	/* Stopped: static, and exactly what PMCREADSET says. */
	sr_read(self->fd, pg, 2, v, k);
	ASSERT_EQ(0, snap_readset(self->fd, ids, 2, w));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(PMC_SELFREAD_STATIC, k[i]);
		EXPECT_EQ(w[i], v[i]);
	}
	EXPECT_LT(0, v[0]);
	/* PMCRW writes show. */
	ASSERT_EQ(0, smp_ioctl(self->fd, PMC_IOC_PMCRW, &(struct pmc_op_pmcrw){
		.pm_flags = PMC_F_NEWVALUE, .pm_pmcid = ids[0],
		.pm_value = 123456 }));
	sr_read(self->fd, pg, 2, v, k);
	EXPECT_EQ(123456, v[0]);
	EXPECT_EQ(0, munmap((void *)pg, self->page));
}

/*
 * A reader hammers the page of a thread that yields, sleeps and migrates
 * between CPUs 0 and 1: it never takes an odd sequence, and a STATIC
 * value never goes back.
 */
struct hammer {
	int fd;
	_Atomic(const struct pmc_selfread_page *) pg;
	atomic_int stop;
	atomic_int err;
	int64_t id;
	uint64_t final, final_read;
};

static void *hammer_bound(void *arg)
{
	struct hammer *h = arg;
	const struct pmc_selfread_page *pg;
	struct timespec ts = { .tv_nsec = 50000 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int i;
	uint32_t id;

	h->id = sr_pmc(h->fd, PERF_COUNT_SW_TASK_CLOCK, 11);
	if (h->id < 0 || smp_simple(h->fd, PMC_IOC_PMCSTART, h->id)) {
		h->err = 1;
		return NULL;
	}
	pg = sr_map(h->fd, 11, PROT_READ, MAP_SHARED, 0);
	if (pg == MAP_FAILED) {
		h->err = 2;
		return NULL;
	}
	atomic_store(&h->pg, pg);
	for (i = 0; !atomic_load(&h->stop); i++) {
		if (ncpu > 1 && i % 8 == 0)
			pmc_t_pin_cpu(i / 8 % 2);
		if (i % 3 == 0)
			nanosleep(&ts, NULL);
		else
			sched_yield();
		for (int j = 0; j < 2000; j++)
			sink++;
	}
	smp_simple(h->fd, PMC_IOC_PMCSTOP, h->id);
	h->final = pg->ps_entries[0].se_offset;
	id = h->id;
	snap_readset(h->fd, &id, 1, &h->final_read);
	return NULL;
}

TEST_F(sr, hammered_page_is_never_torn_nor_decreasing)
{
	const struct pmc_selfread_page *pg;
	struct hammer h = { .fd = self->fd };
	uint64_t last = 0, v, reads = 0, statics = 0, odd = 0, retries = 0;
	uint64_t end;
	uint32_t seq, kind;
	pthread_t t;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pthread_create(&t, NULL, hammer_bound, &h));
	while (!(pg = atomic_load(&h.pg)) && !h.err)
		sched_yield();
	ASSERT_EQ(0, h.err);
	end = pmc_t_now_ns(CLOCK_MONOTONIC) + 1500000000ull;
	while (pmc_t_now_ns(CLOCK_MONOTONIC) < end) {
		seq = __atomic_load_n(&pg->ps_seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			odd++;
			continue;
		}
		kind = pg->ps_entries[0].se_kind;
		v = pg->ps_entries[0].se_offset;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pg->ps_seq, __ATOMIC_RELAXED) != seq) {
			retries++;
			continue;
		}
		reads++;
		if (kind != PMC_SELFREAD_STATIC)
			continue;
		statics++;
		if (v < last) {
			TH_LOG("STATIC went back: %llu after %llu (seq %u)",
			       (unsigned long long)v, (unsigned long long)last,
			       seq);
			EXPECT_LE(last, v);
			break;
		}
		last = v;
	}
	atomic_store(&h.stop, 1);
	pthread_join(t, NULL);
	TH_LOG("%llu reads, %llu static, %llu odd, %llu retried, seq %u",
	       (unsigned long long)reads, (unsigned long long)statics,
	       (unsigned long long)odd, (unsigned long long)retries,
	       pg->ps_seq);
	EXPECT_LT(1000, reads);
	EXPECT_LT(10, statics);
	/* The thread switched hundreds of times: the page followed. */
	EXPECT_LT(200, pg->ps_seq);
	EXPECT_EQ(h.final_read, h.final);
	EXPECT_LE(last, h.final);
	munmap((void *)pg, self->page);
}

TEST_F(sr, mapping_survives_release)
{
	const struct pmc_selfread_page *pg;
	int64_t a;

	RETURN_IF_SKIPPED();
	a = sr_pmc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 8);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, a));
	pg = sr_map(self->fd, 8, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, pg);
	ASSERT_EQ(1, pg->ps_nentries);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCRELEASE, a));
	EXPECT_EQ(0, pg->ps_nentries);
	EXPECT_EQ(0, pg->ps_entries[0].se_pmcid);
	EXPECT_EQ(0, pg->ps_seq & 1);
	/* Still mapped after the file is gone too. */
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, pg->ps_nentries);
	EXPECT_EQ(0, munmap((void *)pg, self->page));
}

TEST_F(sr, mmap_errors)
{
	pid_t child;
	int64_t a;
	void *p;
	int st;

	RETURN_IF_SKIPPED();
	/* No PMC of the set on this thread (and group 0 is no set). */
	EXPECT_EQ(MAP_FAILED, sr_map(self->fd, 4, PROT_READ, MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	a = sr_pmc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 0);
	ASSERT_LE(0, a);
	EXPECT_EQ(MAP_FAILED, sr_map(self->fd, 0, PROT_READ, MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	a = sr_pmc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 4);
	ASSERT_LE(0, a);
	EXPECT_EQ(MAP_FAILED, sr_map(self->fd, 4, PROT_READ | PROT_WRITE,
				     MAP_SHARED, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, sr_map(self->fd, 4, PROT_READ | PROT_EXEC,
				     MAP_SHARED, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, sr_map(self->fd, 4, PROT_READ, MAP_PRIVATE, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, sr_map(self->fd, 4, PROT_READ, MAP_SHARED,
				     2 * self->page));
	EXPECT_EQ(EINVAL, errno);
	/* A good one cannot be made writable. */
	p = sr_map(self->fd, 4, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, self->page, PROT_READ | PROT_WRITE));
	EXPECT_EQ(0, munmap(p, self->page));
	/* A process that did not open the file: EPERM. */
	child = fork();
	if (!child)
		_exit(sr_map(self->fd, 4, PROT_READ, MAP_SHARED, 0) ==
		      MAP_FAILED && errno == EPERM ? 0 : 1);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
}

/*
 * RDPMC entries: this driver version writes none (docs/selfread.md,
 * "What's left"), so where user RDPMC exists the entry of a running
 * hardware PMC that its own thread reads is SYSCALL, and PMCREADSET gives
 * its value. Without user RDPMC there is nothing to test: no cpu/rdpmc
 * (no x86 hardware PMU: QEMU TCG has none and raises #UD on RDPMC), or
 * cpu/rdpmc is 0.
 */
TEST_F(sr, rdpmc_kind)
{
	static const uint32_t classes[] = { PMC_CLASS_IAP, PMC_CLASS_K8 };
	const struct pmc_selfread_page *pg;
	char buf[16] = "";
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/rdpmc", "r");
	int64_t id = -1;
	unsigned int i;
	uint32_t k;
	uint64_t v;

	RETURN_IF_SKIPPED();
	if (!f)
		SKIP(return, "no RDPMC: no /sys/bus/event_source/devices/cpu/rdpmc (no x86 hardware PMU; QEMU TCG raises #UD on RDPMC)");
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	if (atoi(buf) == 0)
		SKIP(return, "no RDPMC: cpu/rdpmc is 0 (user RDPMC turned off)");
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]) && id < 0; i++)
		id = smp_alloc_ext(self->fd, classes[i], PMC_MODE_TC,
				   PMC_CPU_ANY, PERF_TYPE_HARDWARE,
				   PERF_COUNT_HW_INSTRUCTIONS, 0, 0,
				   smp_set_ext, &(struct smp_set){ .group = 7 });
	ASSERT_LE(0, id) TH_LOG("a hardware PMC on a machine with cpu/rdpmc: %m");
	ASSERT_EQ(0, smp_attach_flags(self->fd, id, 0, PMC_ATTACH_F_THREAD));
	pg = sr_map(self->fd, 7, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, pg);
	ASSERT_EQ(1, pg->ps_nentries);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	for (i = 0; i < 100000; i++)
		sink += i;
	sr_read(self->fd, pg, 1, &v, &k);
	EXPECT_EQ(PMC_SELFREAD_SYSCALL, k);
	EXPECT_NE(~0ull, v);
	EXPECT_LT(100000, v);
	EXPECT_EQ(0, munmap((void *)pg, self->page));
}

TEST_HARNESS_MAIN
