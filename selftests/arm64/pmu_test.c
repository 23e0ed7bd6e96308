// SPDX-License-Identifier: GPL-2.0
/*
 * pmu_test.c - the driver on arm64's PMUv3 (docs/arm64.md): the ARMV8 class
 * as the kernel's PMU describes it, instruction counts that are exact and
 * equal to perf's, raw event validation, GETMSR's counter numbers, and the
 * TSC class on the generic timer (CNTVCT_EL0).
 *
 * Runs in tools/pmc-vm --arch arm64, whose QEMU (-cpu max -icount shift=0)
 * emulates a PMUv3 that counts every executed instruction; the exact-count
 * tests need a one-CPU guest (--smp 1, make arm64-vm-smoke). Elsewhere
 * (x86, or an arm64 machine without a PMU) each test skips, naming what is
 * absent.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pmc_test.h"
#include "a64_test.h"

/* The loop program (selftests/arm64/loop.S) and its iterations. */
#define A64_LOOP	"build/selftests/arm64/loop"
#define A64_LOOP_N	1000000
/* PMSELR_EL0's number of the cycle counter, which GETMSR reports for it. */
#define A64_CYCLE_COUNTER 31U

#if defined(__aarch64__)
static uint64_t a64_cntvct(void)
{
	uint64_t v;

	__asm__ __volatile__("isb\n	mrs	%0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}
#else
static uint64_t a64_cntvct(void)
{
	return 0;
}
#endif /* __aarch64__ */

/* Allocate an ARMV8 PMC counting perf event @type/@config. 0 or -errno. */
static int a64_alloc(int fd, uint32_t mode, uint32_t type, uint64_t config,
		     uint32_t caps, uint32_t *id)
{
	struct pmc_op_pmcallocate pa;

	memset(&pa, 0, sizeof(pa));
	pa.pm_caps = caps;
	pa.pm_cpu = PMC_IS_SYSTEM_MODE(mode) ? 0 : PMC_CPU_ANY;
	pa.pm_class = PMC_CLASS_ARMV8;
	pa.pm_ev = type == PERF_TYPE_HARDWARE ?
		   PMC_EV_GENERIC_FIRST + (uint32_t)config : PMC_EV_RAW;
	pa.pm_mode = mode;
	pa.pm_md.pm_type = type;
	pa.pm_md.pm_config = config;
	return pmc_t_allocate(fd, &pa, id);
}

/* A thread-counting PMC of user-mode @config on the calling process, started. */
static int a64_self(int fd, uint32_t type, uint64_t config, uint32_t *id)
{
	int ret = a64_alloc(fd, PMC_MODE_TC, type, config, PMC_CAP_USER, id);

	if (!ret)
		ret = pmc_t_attach(fd, *id, getpid(), 0);
	return ret;
}

/* User-mode instructions of a64_loop(@n) counted by PMC @id (attached to us). */
static int a64_pmc_loop(int fd, uint32_t id, uint64_t n, uint64_t *count)
{
	uint64_t v0, v1;
	int ret;

	ret = pmc_t_read(fd, id, &v0);
	if (!ret)
		ret = pmc_t_start(fd, id);
	if (ret)
		return ret;
	a64_loop(n);
	ret = pmc_t_stop(fd, id);
	if (!ret)
		ret = pmc_t_read(fd, id, &v1);
	*count = v1 - v0;
	return ret;
}

/* The same through perf_event_open(2): instructions:u of this thread. */
static int a64_perf_loop(int pfd, uint64_t n, uint64_t *count)
{
	uint64_t v0, v1;

	if (pmc_t_perf_read(pfd, &v0) || pmc_t_perf_enable(pfd))
		return -1;
	a64_loop(n);
	if (pmc_t_perf_disable(pfd) || pmc_t_perf_read(pfd, &v1))
		return -1;
	*count = v1 - v0;
	return 0;
}


/* "hw perfevents: enabled with armv8_pmuv3 PMU driver, N counters available" */
static int a64_kernel_counters(void)
{
	static const char key[] = "armv8_pmuv3 PMU driver, ";
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *p;
	int n = -1;

	if (len <= 0)
		return -1;
	buf = malloc((size_t)len + 1);
	if (!buf)
		return -1;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (len > 0) {
		buf[len] = '\0';
		p = strstr(buf, key);
		if (p && sscanf(p + strlen(key), "%d counters", &n) != 1)
			n = -1;
	}
	free(buf);
	return n;
}

FIXTURE(pmu) {
	int fd;
	struct pmc_classinfo armv8;
};

FIXTURE_SETUP(pmu)
{
	self->fd = -1;
	A64_SKIP_UNLESS_PMUV3();
	self->fd = pmc_t_open();
	if (self->fd < 0)
		SKIP(return, "cannot open %s: %s", PMC_DEVICE_PATH,
		     strerror(-self->fd));
	ASSERT_EQ(0, pmc_t_class_info(self->fd, PMC_CLASS_ARMV8, &self->armv8))
		TH_LOG("the kernel has an armv8_pmuv3 PMU but the driver no ARMV8 class");
}

FIXTURE_TEARDOWN(pmu)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The class describes the PMU the kernel registered: its counters, 32 bits. */
TEST_F(pmu, class_is_the_registered_pmu)
{
	const uint32_t caps = PMC_CAP_INTERRUPT | PMC_CAP_USER |
			      PMC_CAP_SYSTEM | PMC_CAP_READ | PMC_CAP_WRITE;
	int n = a64_kernel_counters();

	if (!self->armv8.pm_class)
		return;
	EXPECT_EQ(32U, self->armv8.pm_width);
	EXPECT_EQ(caps, self->armv8.pm_caps);
	if (n < 0)
		SKIP(return, "the kernel log has no armv8_pmuv3 counter count");
	EXPECT_EQ((uint32_t)n, self->armv8.pm_num);
}

/*
 * Instruction counts are exact: a loop 100,000 iterations longer counts
 * exactly 200,000 more user instructions, through the driver as through
 * perf_event_open(2) on the same thread.
 */
TEST_F(pmu, instructions_count_exactly)
{
	const uint64_t n1 = 10000, n2 = 110000;
	uint64_t d1, d2, p1, p2;
	uint32_t id;
	int pfd;

	if (!self->armv8.pm_class)
		return;
	A64_SKIP_UNLESS_ONE_CPU();
	pfd = a64_perf_instructions();
	if (pfd < 0 && errno == ENOENT)
		SKIP(return, "the PMU counts no instructions (QEMU without -icount)");
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open(instructions:u): %m");

	ASSERT_EQ(0, a64_self(self->fd, PERF_TYPE_HARDWARE,
			      PERF_COUNT_HW_INSTRUCTIONS, &id));
	ASSERT_EQ(0, a64_pmc_loop(self->fd, id, n1, &d1));
	ASSERT_EQ(0, a64_pmc_loop(self->fd, id, n2, &d2));
	ASSERT_EQ(0, a64_perf_loop(pfd, n1, &p1));
	ASSERT_EQ(0, a64_perf_loop(pfd, n2, &p2));
	TH_LOG("driver %" PRIu64 " and %" PRIu64 ", perf %" PRIu64 " and %" PRIu64,
	       d1, d2, p1, p2);
	EXPECT_EQ(2 * (n2 - n1), d2 - d1);
	EXPECT_EQ(2 * (n2 - n1), p2 - p1);
	/* The rest is the few instructions of the start and stop calls. */
	EXPECT_LE(2 * n1, d1);
	EXPECT_GE(2 * n1 + 200, d1);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	close(pfd);
}

/* perf stat -x, -e instructions:u PROGRAM's count, or -1. */
static int64_t a64_perf_stat(const char *prog, const char *out)
{
	char cmd[512], line[256];
	int64_t v = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "perf stat -x, -e instructions:u -o %s %s >/dev/null 2>&1",
		 out, prog);
	if (system(cmd))
		return -1;
	f = fopen(out, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, ",instructions:u,") &&
		    sscanf(line, "%" SCNd64 ",", &v) != 1)
			v = -1;
	fclose(f);
	return v;
}

/*
 * Start A64_LOOP stopped at its exec (before its first instruction), under
 * ptrace. Its pid, or -1.
 */
static pid_t a64_loop_stopped(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl(A64_LOOP, A64_LOOP, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    WSTOPSIG(st) != SIGTRAP) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* Let @pid run to its end: 0 when it exited with status 0. */
static int a64_loop_finish(pid_t pid)
{
	int st;

	if (ptrace(PTRACE_DETACH, pid, NULL, NULL) ||
	    waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/*
 * The loop program, counted whole by the driver (attached while the
 * program is stopped at its exec, so from its first instruction to its
 * exit, as perf's enable_on_exec counts), is exactly what perf stat -e
 * instructions:u counts in the same guest.
 */
TEST_F(pmu, instructions_equal_perf_stat)
{
	const char *out = "/tmp/pmc-arm64-perf-stat.txt";
	int64_t perf;
	uint64_t v;
	uint32_t id;
	pid_t pid;

	if (!self->armv8.pm_class)
		return;
	A64_SKIP_UNLESS_ONE_CPU();
	if (access(A64_LOOP, X_OK))
		SKIP(return, "no %s (built by make arm64)", A64_LOOP);
	if (system("perf --version >/dev/null 2>&1"))
		SKIP(return, "no perf (Debian's linux-perf) in this root");
	perf = a64_perf_stat(A64_LOOP, out);
	ASSERT_LT(0, perf) TH_LOG("perf stat -e instructions:u %s failed or counted nothing (see %s)",
				  A64_LOOP, out);

	pid = a64_loop_stopped();
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, a64_alloc(self->fd, PMC_MODE_TC, PERF_TYPE_HARDWARE,
			       PERF_COUNT_HW_INSTRUCTIONS, PMC_CAP_USER, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, pid, 0));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, a64_loop_finish(pid));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
	TH_LOG("%s: driver %" PRIu64 ", perf stat %" PRId64 " instructions:u",
	       A64_LOOP, v, perf);
	EXPECT_EQ((uint64_t)perf, v);
	/* loop.S: 2 * LOOP_N + 5 instructions, give or take the exit's svc. */
	EXPECT_LE(2ULL * A64_LOOP_N, v);
	EXPECT_GE(2ULL * A64_LOOP_N + 5, v);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/* A raw encoding is PMUv3's event number alone (16 bits from PMUv3p1). */
TEST_F(pmu, raw_events_are_event_numbers)
{
	uint64_t d1, d2;
	uint32_t id;

	if (!self->armv8.pm_class)
		return;
	/* 0x08 INST_RETIRED: the instructions event, as a raw number. */
	ASSERT_EQ(0, a64_self(self->fd, PERF_TYPE_RAW, 0x08, &id));
	ASSERT_EQ(0, a64_pmc_loop(self->fd, id, 1000, &d1));
	ASSERT_EQ(0, a64_pmc_loop(self->fd, id, 3000, &d2));
	/* Exact on one CPU; other vCPUs can only add (see above). */
	if (sysconf(_SC_NPROCESSORS_ONLN) == 1) {
		EXPECT_EQ(4000U, d2 - d1);
	} else {
		EXPECT_LE(4000U, d2 - d1);
	}
	EXPECT_EQ(0, pmc_t_release(self->fd, id));

	EXPECT_EQ(-EINVAL, a64_alloc(self->fd, PMC_MODE_TC, PERF_TYPE_RAW,
				     0x10000, PMC_CAP_USER, &id));
	EXPECT_EQ(-EINVAL, a64_alloc(self->fd, PMC_MODE_TC, PERF_TYPE_RAW,
				     0x08 | (1ULL << 32), PMC_CAP_USER, &id));
}

/*
 * GETMSR names the counter user space reads: an event counter's number
 * (PMSELR_EL0), or 31 for the cycle counter (PMCCNTR_EL0).
 */
TEST_F(pmu, getmsr_names_the_counter)
{
	uint32_t ins, cyc, msr = ~0U;

	if (!self->armv8.pm_class)
		return;
	ASSERT_EQ(0, a64_self(self->fd, PERF_TYPE_HARDWARE,
			      PERF_COUNT_HW_INSTRUCTIONS, &ins));
	ASSERT_EQ(0, a64_self(self->fd, PERF_TYPE_HARDWARE,
			      PERF_COUNT_HW_CPU_CYCLES, &cyc));
	ASSERT_EQ(0, pmc_t_start(self->fd, ins));
	ASSERT_EQ(0, pmc_t_start(self->fd, cyc));
	ASSERT_EQ(0, pmc_t_getmsr(self->fd, ins, &msr));
	/* pm_num counts the cycle counter too. */
	EXPECT_GT(self->armv8.pm_num - 1, msr);
	ASSERT_EQ(0, pmc_t_getmsr(self->fd, cyc, &msr));
	EXPECT_EQ(A64_CYCLE_COUNTER, msr);
	EXPECT_EQ(0, pmc_t_stop(self->fd, ins));
	EXPECT_EQ(0, pmc_t_stop(self->fd, cyc));
	EXPECT_EQ(0, pmc_t_release(self->fd, ins));
	EXPECT_EQ(0, pmc_t_release(self->fd, cyc));
}

/* The TSC class reads CNTVCT_EL0: between user reads before and after. */
TEST_F(pmu, tsc_class_is_cntvct)
{
	struct pmc_op_pmcallocate pa;
	struct pmc_classinfo tsc;
	uint64_t t0, t1, v, prev = 0;
	cpu_set_t set;
	uint32_t id;

	if (!self->armv8.pm_class)
		return;
	ASSERT_EQ(0, pmc_t_class_info(self->fd, PMC_CLASS_TSC, &tsc));
	EXPECT_EQ(64U, tsc.pm_width);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	memset(&pa, 0, sizeof(pa));
	pa.pm_caps = PMC_CAP_READ;
	pa.pm_class = PMC_CLASS_TSC;
	pa.pm_ev = PMC_EV_TSC_TSC;
	pa.pm_mode = PMC_MODE_SC;
	pa.pm_cpu = 0;
	ASSERT_EQ(0, pmc_t_allocate(self->fd, &pa, &id));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	for (int i = 0; i < 100; i++) {
		t0 = a64_cntvct();
		ASSERT_EQ(0, pmc_t_read(self->fd, id, &v));
		t1 = a64_cntvct();
		ASSERT_LE(t0, v) TH_LOG("read %d", i);
		ASSERT_GE(t1, v) TH_LOG("read %d", i);
		ASSERT_LT(prev, v) TH_LOG("read %d", i);
		prev = v;
	}
	EXPECT_EQ(0, pmc_t_stop(self->fd, id));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

TEST_HARNESS_MAIN
