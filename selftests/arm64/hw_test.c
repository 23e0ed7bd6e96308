// SPDX-License-Identifier: GPL-2.0
/*
 * hw_test.c - the hardware-class behaviours on QEMU's real PMUv3, not the
 * test PMU: cycles sampling with callchains lands in the hot function;
 * 32-bit counters keep 64-bit values across many wraps (system scope on
 * each CPU, read before and after every wrap, as FreeBSD's arm64 backend
 * extends them); process-scope counting follows a thread exactly across
 * context switches, and across migrations as exactly as QEMU's PMU allows
 * with two CPUs; perfmon(4) counts PMUv3 event numbers.
 *
 * QEMU's cycle counter runs at 1 GHz of the guest's virtual clock (with
 * -icount, idle time included), so a system-scope cycles counter wraps
 * 2^32 every 4.3 s whatever the load. Runs in tools/pmc-vm --arch arm64;
 * elsewhere each test skips, naming what is absent.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "pmc_test.h"
#include "a64_test.h"

#include "../sampling/sampling.h"
#include <pmc/perfmon.h>

#define HW_INST_RETIRED	0x08	/* PMUv3 common event numbers */
#define HW_CPU_CYCLES	0x11

static volatile uint64_t sink;

/* The sampled function (frame built, so the walk finds its caller). */
void __attribute__((noinline, noclone)) hot_loop(uint64_t n)
{
	uint64_t i, x = sink;

	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ull + i;
	sink = x;
}

void __attribute__((noinline, noclone)) hot_caller(uint64_t cpu_ns)
{
	uint64_t end = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) + cpu_ns;

	while (pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		hot_loop(2000000);
}

/* An ARMV8 PMC of raw PMUv3 event @event. Its id, or -errno. */
static int64_t hw_alloc(int fd, uint32_t mode, uint32_t cpu, uint64_t event,
			uint64_t count, uint32_t flags, uint32_t caps)
{
	struct pmc_op_pmcallocate pa;
	int ret;

	memset(&pa, 0, sizeof(pa));
	pa.pm_caps = caps;
	pa.pm_cpu = cpu;
	pa.pm_class = PMC_CLASS_ARMV8;
	pa.pm_ev = PMC_EV_RAW;
	pa.pm_mode = mode;
	pa.pm_flags = flags;
	pa.pm_count = count;
	pa.pm_md.pm_type = PERF_TYPE_RAW;
	pa.pm_md.pm_config = event;
	ret = smp_ioctl(fd, PMC_IOC_PMCALLOCATE, &pa);
	return ret ? ret : pa.pm_pmcid;
}

/* A TC INST_RETIRED PMC of user mode on this thread, attached: its id. */
static int64_t hw_thread_instructions(int fd)
{
	int64_t id = hw_alloc(fd, PMC_MODE_TC, PMC_CPU_ANY, HW_INST_RETIRED, 0,
			      0, PMC_CAP_USER);
	int ret;

	if (id < 0)
		return id;
	ret = smp_attach_flags(fd, (uint32_t)id, 0, PMC_ATTACH_F_THREAD);
	return ret ? ret : id;
}

FIXTURE(hw) {
	int fd;
	char path[64];
};

/* Each test returns at once where this skipped: 6.1's harness runs it. */
FIXTURE_SETUP(hw)
{
	self->fd = -1;
	self->path[0] = '\0';
	A64_SKIP_UNLESS_PMUV3();
	self->fd = smp_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(hw)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->path[0])
		unlink(self->path);
}

/*
 * Cycles sampling (PMUv3's own overflow interrupt, every 10^6 cycles) with
 * callchains on a child spending 1 s of CPU in hot_loop(): >= 90 % of the
 * samples in hot_loop with hot_caller in the chain, all of them the
 * child's, and their number near the child's CPU time in periods.
 */
TEST_F(hw, cycles_sampling_callchains_in_the_hot_function)
{
	const uint64_t period = 1000000;
	uint64_t hot0, hot1, call0, call1, cpu_ns, expect;
	size_t off, n = 0, in_hot = 0, chained = 0;
	const struct pmclog_header *h;
	struct smp_buf b = {};
	struct rusage ru;
	int64_t id;
	int lfd, p[2], st;
	pid_t pid;
	char c;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, smp_func_range("hot_loop", (void *)hot_loop, &hot0, &hot1));
	ASSERT_EQ(0, smp_func_range("hot_caller", (void *)hot_caller, &call0,
				    &call1));
	snprintf(self->path, sizeof(self->path), "/tmp/pmchw.XXXXXX");
	lfd = mkstemp(self->path);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, smp_configurelog(self->fd, lfd));
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(2);
		hot_caller(1000000000ull);
		_exit(0);
	}
	close(p[0]);
	id = hw_alloc(self->fd, PMC_MODE_TS, PMC_CPU_ANY, HW_CPU_CYCLES, period,
		      PMC_F_CALLCHAIN, PMC_CAP_INTERRUPT | PMC_CAP_USER);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, (uint32_t)id, pid));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, (uint32_t)id));
	ASSERT_EQ(1, write(p[1], "g", 1));
	close(p[1]);
	ASSERT_EQ(pid, wait4(pid, &st, 0, &ru));
	ASSERT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, (uint32_t)id));
	ASSERT_EQ(0, smp_closelog(self->fd));
	ASSERT_EQ(0, lseek(lfd, 0, SEEK_SET));
	ASSERT_LE(0, smp_buf_read_fd(&b, lfd));
	close(lfd);
	smp_for_each_rec(h, &b, off) {
		const struct pmclog_callchain *cc = (const void *)h;
		unsigned int i, npc;

		if (smp_rec_type(h) != PMCLOG_TYPE_CALLCHAIN)
			continue;
		npc = (smp_rec_len(h) - sizeof(*cc)) / 8;
		n++;
		EXPECT_EQ(pid, cc->pl_pid);
		EXPECT_EQ((uint32_t)id, cc->pl_pmcid);
		if (!npc || cc->pl_pc[0] < hot0 || cc->pl_pc[0] >= hot1)
			continue;
		in_hot++;
		for (i = 1; i < npc; i++) {
			if (cc->pl_pc[i] >= call0 && cc->pl_pc[i] < call1) {
				chained++;
				break;
			}
		}
	}
	smp_buf_free(&b);
	cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
		 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
	expect = cpu_ns / period;	/* 1 GHz: a cycle is a ns */
	TH_LOG("%zu samples for %" PRIu64 " ms of CPU (%" PRIu64 " periods), %zu in hot_loop, %zu through hot_caller",
	       n, cpu_ns / 1000000, expect, in_hot, chained);
	EXPECT_LE(expect / 2, n);
	EXPECT_GE(expect * 3 / 2 + 2, n);
	EXPECT_LE(n * 9, in_hot * 10);
	EXPECT_LE(in_hot * 9, chained * 10);
}

/*
 * System scope on each CPU: a cycles PMC per CPU runs 9.5 s, more than two
 * wraps of the 32-bit counter. Read every 250 ms (before and after each
 * wrap) no value goes back, the last is past 2^33, and each equals the
 * virtual time it ran within 1 %.
 */
TEST_F_TIMEOUT(hw, system_cycles_keep_64bit_values_across_wraps, 60)
{
	long i, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t v[8] = { 0 }, last[8] = { 0 }, t0, t1, back = 0;
	int64_t id[8];
	struct timespec q = { 0, 250000000 };

	if (_metadata->skip)
		return;
	ASSERT_LE(1, ncpu);
	if (ncpu > 8)
		ncpu = 8;
	for (i = 0; i < ncpu; i++) {
		id[i] = hw_alloc(self->fd, PMC_MODE_SC, (uint32_t)i, HW_CPU_CYCLES,
				 0, 0, PMC_CAP_USER | PMC_CAP_SYSTEM);
		ASSERT_LE(0, id[i]) TH_LOG("CPU %ld: %s", i, strerror((int)-id[i]));
	}
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	for (i = 0; i < ncpu; i++)
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, (uint32_t)id[i]));
	while (pmc_t_now_ns(CLOCK_MONOTONIC) - t0 < 9500000000ull) {
		nanosleep(&q, NULL);
		for (i = 0; i < ncpu; i++) {
			ASSERT_EQ(0, smp_read(self->fd, (uint32_t)id[i], &v[i]));
			if (v[i] < last[i])
				back++;
			last[i] = v[i];
		}
	}
	for (i = 0; i < ncpu; i++)
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, (uint32_t)id[i]));
	t1 = pmc_t_now_ns(CLOCK_MONOTONIC);
	EXPECT_EQ(0U, back);
	for (i = 0; i < ncpu; i++) {
		ASSERT_EQ(0, smp_read(self->fd, (uint32_t)id[i], &v[i]));
		TH_LOG("CPU %ld: %" PRIu64 " cycles in %" PRIu64 " ns (2^33 = %llu)",
		       i, v[i], t1 - t0, 1ull << 33);
		EXPECT_LT(1ull << 33, v[i]);
		EXPECT_LE(last[i], v[i]);
		EXPECT_LE(v[i], (t1 - t0) * 101 / 100);
		EXPECT_LE((t1 - t0) * 99 / 100, v[i]);
	}
}

struct hw_spin {
	volatile int stop;
};

static void *hw_spinner(void *arg)
{
	struct hw_spin *s = arg;

	while (!s->stop)
		hot_loop(10000);
	return NULL;
}

/*
 * Process scope across context switches: a thread-counting instructions
 * PMC on this thread counts a loop of 2 x 2^31 instructions (two of
 * perf's overflow interrupts) exactly, while two spinners take the CPU
 * from it hundreds of times: only this thread's instructions, none lost,
 * and what perf's own instructions:u event of this thread, enabled inside
 * the PMC's start and stop, counts of the same loop, plus the few user
 * instructions between the two starts and between the two stops.
 * One CPU (QEMU's PMU counts the other vCPU's instructions too).
 */
TEST_F_TIMEOUT(hw, thread_count_is_exact_across_switches, 120)
{
	const uint64_t n = 1ull << 31;
	struct hw_spin s = { 0 };
	struct rusage r0, r1;
	pthread_t t[2];
	uint64_t v0, v1, f0, f1;
	int64_t id;
	int i, pfd;

	if (_metadata->skip)
		return;
	A64_SKIP_UNLESS_ONE_CPU();
	id = hw_thread_instructions(self->fd);
	ASSERT_LE(0, id);
	pfd = a64_perf_instructions();
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open(instructions:u): %m");
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, hw_spinner, &s));
	getrusage(RUSAGE_THREAD, &r0);
	ASSERT_EQ(0, smp_read(self->fd, (uint32_t)id, &v0));
	ASSERT_EQ(0, pmc_t_perf_read(pfd, &f0));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, (uint32_t)id));
	ASSERT_EQ(0, pmc_t_perf_enable(pfd));
	a64_loop(n);
	ASSERT_EQ(0, pmc_t_perf_disable(pfd));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, (uint32_t)id));
	ASSERT_EQ(0, smp_read(self->fd, (uint32_t)id, &v1));
	ASSERT_EQ(0, pmc_t_perf_read(pfd, &f1));
	getrusage(RUSAGE_THREAD, &r1);
	s.stop = 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	close(pfd);
	TH_LOG("%" PRIu64 " instructions (perf: %" PRIu64 ") for a loop of %" PRIu64 ", %ld involuntary switches",
	       v1 - v0, f1 - f0, 2 * n, r1.ru_nivcsw - r0.ru_nivcsw);
	EXPECT_LT(100, r1.ru_nivcsw - r0.ru_nivcsw);
	/* The loop, plus the user side of the calls around it. */
	EXPECT_LE(2 * n, f1 - f0);
	EXPECT_LE(f1 - f0, v1 - v0);
	EXPECT_GE(f1 - f0 + 100, v1 - v0);
	EXPECT_GE(2 * n + 200, v1 - v0);
}

/*
 * One round of the migration test: a thread-counting instructions PMC
 * (@id) and perf's own instructions:u event (@pfd) on this thread count
 * HW_MIG_ROUNDS chunks of the loop, and after each the thread moves to CPU
 * @a or @b in turn (@a == @b: it stays). The user-mode instructions run
 * are the same whatever @a and @b are. The counts in @pmc and @perf, the
 * rounds after which the thread was on the CPU it asked for in @on.
 */
#define HW_MIG_ROUNDS	200
#define HW_MIG_CHUNK	100000ull
static int hw_mig_run(int fd, uint32_t id, int pfd, int a, int b,
		      uint64_t *pmc, uint64_t *perf, int *on)
{
	uint64_t p0, p1, f0, f1;
	cpu_set_t set[2];
	int cpu[2] = { a, b }, i, k, n = 0;

	for (k = 0; k < 2; k++) {
		CPU_ZERO(&set[k]);
		CPU_SET(cpu[k], &set[k]);
	}
	if (sched_setaffinity(0, sizeof(set[0]), &set[0]) ||
	    smp_read(fd, id, &p0) || pmc_t_perf_read(pfd, &f0) ||
	    smp_simple(fd, PMC_IOC_PMCSTART, id) || pmc_t_perf_enable(pfd))
		return -1;
	for (i = 0; i < HW_MIG_ROUNDS; i++) {
		k = (i + 1) & 1;
		a64_loop(HW_MIG_CHUNK);
		if (sched_setaffinity(0, sizeof(set[k]), &set[k]))
			break;
		n += sched_getcpu() == cpu[k];
	}
	if (pmc_t_perf_disable(pfd) || smp_simple(fd, PMC_IOC_PMCSTOP, id) ||
	    smp_read(fd, id, &p1) || pmc_t_perf_read(pfd, &f1))
		return -1;
	*pmc = p1 - p0;
	*perf = f1 - f0;
	*on = n;
	return 0;
}

/*
 * Process scope across migrations (two CPUs): the thread's count follows
 * it across 200 moves between CPU 0 and CPU 1, none lost, none doubled,
 * equal to perf's own count of the same thread over the same loop.
 *
 * QEMU's PMUv3 under -icount counts one instruction clock shared by the
 * vCPUs: while this thread's vCPU is at EL0, instructions that the other
 * vCPU runs count too (measured with perf_event_open alone: the same code
 * pinned to CPU 0 counts 2 x 20,000,000 + 7,820 every time, CPU 1 idle in
 * WFI; pinned to CPU 1 it counts 13,000 to 30,000 more, CPU 0 running the
 * guest's interrupts and housekeeping; moving 200 times, 2,700 to 20,000
 * more; with a spinner on the other CPU, millions more). So no absolute
 * count is exact with two CPUs; what is:
 *
 * - the same code pinned to CPU 0, the other CPU idle: the loop plus the
 *   user side of the calls, a fixed number (bounded here);
 * - moving: at least that many (QEMU only ever adds the other vCPU's
 *   instructions, so one the thread runs that the PMC loses shows);
 * - fewer than one chunk of the loop more (the other vCPU's few thousand
 *   instructions; a chunk counted twice, or a count carried over from the
 *   other CPU, shows);
 * - and pmc's count minus perf's the same moving as pinned: both are perf
 *   events of this thread, scheduled in and out together at each switch,
 *   so they see the same instructions of both vCPUs, and differ only by
 *   the user-mode instructions between their start calls and between
 *   their stop calls (a few dozen, always the same ones). The other vCPU
 *   could run inside those few instructions only at the end of its
 *   time slice there, not seen in any run.
 */
TEST_F_TIMEOUT(hw, thread_count_follows_migrations, 300)
{
	uint64_t pin_pmc, pin_perf, mig_pmc, mig_perf;
	int pfd, pin_on, mig_on;
	int64_t id;

	if (_metadata->skip)
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs: a thread cannot migrate with one (pmc-vm --smp 2)");
	id = hw_thread_instructions(self->fd);
	ASSERT_LE(0, id);
	pfd = a64_perf_instructions();
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open(instructions:u): %m");

	ASSERT_EQ(0, hw_mig_run(self->fd, (uint32_t)id, pfd, 0, 0, &pin_pmc,
				&pin_perf, &pin_on));
	ASSERT_EQ(0, hw_mig_run(self->fd, (uint32_t)id, pfd, 0, 1, &mig_pmc,
				&mig_perf, &mig_on));
	close(pfd);
	TH_LOG("loop %llu: pinned pmc %" PRIu64 " perf %" PRIu64
	       ", moving %d times pmc %" PRIu64 " perf %" PRIu64,
	       2 * HW_MIG_CHUNK * HW_MIG_ROUNDS, pin_pmc, pin_perf, mig_on,
	       mig_pmc, mig_perf);
	ASSERT_EQ(HW_MIG_ROUNDS, pin_on);
	ASSERT_EQ(HW_MIG_ROUNDS, mig_on);
	EXPECT_LE(2 * HW_MIG_CHUNK * HW_MIG_ROUNDS, pin_pmc);
	EXPECT_GE(2 * HW_MIG_CHUNK * HW_MIG_ROUNDS + 100 * HW_MIG_ROUNDS,
		  pin_pmc);
	EXPECT_LE(pin_pmc, mig_pmc);
	EXPECT_GT(pin_pmc + HW_MIG_CHUNK, mig_pmc);
	EXPECT_EQ(pin_pmc - pin_perf, mig_pmc - mig_perf);
	EXPECT_LE(pin_perf, mig_perf);
}

/*
 * perfmon(4) on PMUv3: the event selector is the PMUv3 event number
 * (INST_RETIRED), counting user mode on this (the only) CPU, the same as
 * perf's CPU-wide count of the event over a window inside perfmon's; a
 * unit mask, edge or invert, which PMUv3 does not have, is EINVAL.
 */
TEST_F(hw, perfmon_counts_pmuv3_event_numbers)
{
	const uint64_t n = 5000000;
	struct pmc p = { .pmc_num = 0 };
	struct pmc_data d = { .pmcd_num = 0 };
	uint64_t perf_count = 0;
	int32_t num = 0;
	int pfd;

	if (_metadata->skip)
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		SKIP(return, "needs one CPU: perfmon(4) counts a CPU, and one online CPU bounds the count (pmc-vm --smp 1)");
	p.pmc_event = HW_INST_RETIRED;
	p.pmc_flags = PMCF_USR;
	pfd = a64_perf_user(PERF_TYPE_RAW, HW_INST_RETIRED, -1, 0);
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open raw 0x%x on cpu 0: %s",
				 HW_INST_RETIRED, strerror(errno));
	ASSERT_EQ(0, smp_ioctl(self->fd, PMIOSETUP, &p));
	ASSERT_EQ(0, smp_ioctl(self->fd, PMIOSTART, &num));
	ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0);
	a64_loop(n);
	ioctl(pfd, PERF_EVENT_IOC_DISABLE, 0);
	ASSERT_EQ(0, smp_ioctl(self->fd, PMIOSTOP, &num));
	ASSERT_EQ(0, smp_ioctl(self->fd, PMIOREAD, &d));
	ASSERT_EQ((ssize_t)sizeof(perf_count),
		  read(pfd, &perf_count, sizeof(perf_count)));
	close(pfd);
	TH_LOG("perfmon INST_RETIRED: %lld, perf's CPU-wide count %llu, for a loop of %llu",
	       (long long)d.pmcd_value, (unsigned long long)perf_count,
	       (unsigned long long)(2 * n));
	/* The loop, and whatever else ran in user mode meanwhile (little). */
	EXPECT_LE((int64_t)(2 * n), d.pmcd_value);
	EXPECT_GE((int64_t)(2 * n * 11 / 10), d.pmcd_value);
	/*
	 * Everything perf counted, plus the user-mode instructions between
	 * the two starts and the two stops (the return from one ioctl and
	 * the call of the next: a few dozen, and whatever other program ran
	 * on the CPU in user mode in those few microseconds).
	 */
	EXPECT_LE((int64_t)perf_count, d.pmcd_value);
	EXPECT_GE((int64_t)perf_count + 2000, d.pmcd_value);
	p.pmc_unit = 1;
	EXPECT_EQ(-EINVAL, smp_ioctl(self->fd, PMIOSETUP, &p));
	p.pmc_unit = 0;
	p.pmc_flags = PMCF_USR | PMCF_E;
	EXPECT_EQ(-EINVAL, smp_ioctl(self->fd, PMIOSETUP, &p));
}

TEST_HARNESS_MAIN
