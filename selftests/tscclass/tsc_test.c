// SPDX-License-Identifier: GPL-2.0
/*
 * tsc_test.c - hwpmc's TSC class (pmc(4) "Classes"): one row, system-scope
 * counting only, reading the CPU's time stamp counter; the other modes, a
 * wrong event code or descriptor, and attaching are refused with EINVAL as
 * hwpmc refuses them.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <pmc/hwpmc.h>

#include "kselftest_harness.h"

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t rdtsc(void)
{
	return __builtin_ia32_rdtsc();
}
#define HAVE_RDTSC 1
#else
static inline uint64_t rdtsc(void)
{
	return 0;
}
#define HAVE_RDTSC 0
#endif

static int op(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

/* Allocate a TSC PMC; its id, or -errno. */
static long tsc_alloc(int fd, unsigned int mode, unsigned int cpu,
		      unsigned int ev, unsigned int type)
{
	struct pmc_op_pmcallocate a = {
		.pm_caps = PMC_CAP_READ,
		.pm_cpu = cpu,
		.pm_class = PMC_CLASS_TSC,
		.pm_ev = ev,
		.pm_mode = mode,
		.pm_md = { .pm_type = type },
	};
	int ret = op(fd, PMC_IOC_PMCALLOCATE, &a);

	return ret ? ret : (long)a.pm_pmcid;
}

static int simple(int fd, unsigned long req, unsigned int id)
{
	struct pmc_op_simple s = { .pm_pmcid = id };

	return op(fd, req, &s);
}

static int tsc_read(int fd, unsigned int id, uint64_t *v)
{
	struct pmc_op_pmcrw rw = { .pm_flags = PMC_F_OLDVALUE, .pm_pmcid = id };
	int ret = op(fd, PMC_IOC_PMCRW, &rw);

	*v = rw.pm_value;
	return ret;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

FIXTURE(tsc) {
	int fd;
	struct pmc_op_getcpuinfo ci;
	struct pmc_classinfo tsc;
	int ncpu;		/* online CPUs we may pin to */
	int cpus[64];
};

FIXTURE_SETUP(tsc)
{
	cpu_set_t set;
	long id;
	bool found = false;

	self->fd = -1;
	if (geteuid())
		SKIP(return, "needs root (system-scope PMCs)");
	if (!HAVE_RDTSC)
		SKIP(return, "not an x86 machine: no TSC");
	self->fd = open(PMC_DEVICE_PATH, O_RDWR);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, "no %s: pmc.ko not loaded", PMC_DEVICE_PATH);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %m", PMC_DEVICE_PATH);
	ASSERT_EQ(0, op(self->fd, PMC_IOC_GETCPUINFO, &self->ci));
	for (unsigned int i = 0; i < self->ci.pm_nclass; i++)
		if (self->ci.pm_classes[i].pm_class == PMC_CLASS_TSC) {
			self->tsc = self->ci.pm_classes[i];
			found = true;
		}
	if (!found)
		SKIP(return, "the driver has no TSC class (the CPU reports no TSC)");

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	for (int c = 0; c < CPU_SETSIZE && self->ncpu < 64; c++)
		if (CPU_ISSET(c, &set))
			self->cpus[self->ncpu++] = c;

	id = tsc_alloc(self->fd, PMC_MODE_SC, self->cpus[0], PMC_EV_TSC_TSC, 0);
	ASSERT_LE(0, id) TH_LOG("allocating the TSC on CPU %d: %s",
				self->cpus[0], strerror((int)-id));
	ASSERT_EQ(0, simple(self->fd, PMC_IOC_PMCRELEASE, (unsigned int)id));
}

FIXTURE_TEARDOWN(tsc)
{
	if (self->fd >= 0)
		close(self->fd);
}

#define RETURN_IF_SKIPPED()			\
	do {					\
		if (_metadata->skip)		\
			return;			\
	} while (0)

TEST_F(tsc, class_is_one_readable_64_bit_row)
{
	RETURN_IF_SKIPPED();
	EXPECT_EQ(1U, self->tsc.pm_num);
	EXPECT_EQ(64U, self->tsc.pm_width);
	EXPECT_TRUE(!!(self->tsc.pm_caps & PMC_CAP_READ));
	EXPECT_FALSE(!!(self->tsc.pm_caps & PMC_CAP_INTERRUPT))
		TH_LOG("the TSC cannot sample: caps 0x%x", self->tsc.pm_caps);
}

TEST_F(tsc, getpmcinfo_names_the_row_tsc)
{
	struct pmc_info info[256];
	struct pmc_op_getpmcinfo gi = {
		.pm_cpu = self->cpus[0],
		.pm_npmc = 256,
		.pm_pmcs = (uintptr_t)info,
	};
	int rows = 0;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, op(self->fd, PMC_IOC_GETPMCINFO, &gi));
	ASSERT_EQ(self->ci.pm_npmc, gi.pm_npmc);
	for (unsigned int i = 0; i < gi.pm_npmc && i < 256; i++) {
		if (info[i].pm_class != PMC_CLASS_TSC)
			continue;
		rows++;
		EXPECT_STREQ("TSC", info[i].pm_name);
		EXPECT_EQ((unsigned int)PMC_DISP_FREE, info[i].pm_rowdisp);
	}
	EXPECT_EQ(1, rows);
}

/* One row per CPU: a second TSC PMC on a CPU finds no row (EINVAL). */
TEST_F(tsc, system_counting_gets_the_one_row_of_each_cpu)
{
	long ids[64];

	RETURN_IF_SKIPPED();
	for (int i = 0; i < self->ncpu; i++) {
		unsigned int id;

		ids[i] = tsc_alloc(self->fd, PMC_MODE_SC, self->cpus[i],
				   PMC_EV_TSC_TSC, 0);
		ASSERT_LE(0, ids[i]) TH_LOG("CPU %d", self->cpus[i]);
		id = (unsigned int)ids[i];
		EXPECT_EQ((unsigned int)PMC_CLASS_TSC, PMC_ID_TO_CLASS(id));
		EXPECT_EQ((unsigned int)PMC_MODE_SC, PMC_ID_TO_MODE(id));
		EXPECT_EQ((unsigned int)self->cpus[i], PMC_ID_TO_CPU(id));
		EXPECT_EQ(-EINVAL, tsc_alloc(self->fd, PMC_MODE_SC, self->cpus[i],
					     PMC_EV_TSC_TSC, 0))
			TH_LOG("second TSC PMC on CPU %d", self->cpus[i]);
	}
	for (int i = 0; i < self->ncpu; i++)
		EXPECT_EQ(0, simple(self->fd, PMC_IOC_PMCRELEASE,
				    (unsigned int)ids[i]));
	/* Released rows are free again. */
	ids[0] = tsc_alloc(self->fd, PMC_MODE_SC, self->cpus[0], PMC_EV_TSC_TSC, 0);
	ASSERT_LE(0, ids[0]);
	EXPECT_EQ(0, simple(self->fd, PMC_IOC_PMCRELEASE, (unsigned int)ids[0]));
}

/*
 * Pinned to the PMC's CPU, every read lies between the TSC read just before
 * and just after it, and reads increase strictly.
 */
TEST_F(tsc, reads_increase_and_lie_between_rdtsc_before_and_after)
{
	RETURN_IF_SKIPPED();
	for (int i = 0; i < self->ncpu; i++) {
		int cpu = self->cpus[i];
		uint64_t prev = 0, v, t0, t1;
		long id;

		ASSERT_EQ(0, pin_to(cpu));
		id = tsc_alloc(self->fd, PMC_MODE_SC, cpu, PMC_EV_TSC_TSC, 0);
		ASSERT_LE(0, id);
		ASSERT_EQ(0, simple(self->fd, PMC_IOC_PMCSTART, (unsigned int)id));
		for (int n = 0; n < 1000; n++) {
			t0 = rdtsc();
			ASSERT_EQ(0, tsc_read(self->fd, (unsigned int)id, &v));
			t1 = rdtsc();
			ASSERT_LE(t0, v) TH_LOG("CPU %d read %d", cpu, n);
			ASSERT_GE(t1, v) TH_LOG("CPU %d read %d", cpu, n);
			ASSERT_LT(prev, v) TH_LOG("CPU %d read %d", cpu, n);
			prev = v;
		}
		EXPECT_EQ(0, simple(self->fd, PMC_IOC_PMCSTOP, (unsigned int)id));
		EXPECT_EQ(0, simple(self->fd, PMC_IOC_PMCRELEASE, (unsigned int)id));
	}
}

/* From another CPU the value is that CPU's TSC: still increasing. */
TEST_F(tsc, reads_from_another_cpu_increase)
{
	uint64_t prev = 0, v;
	long id;

	RETURN_IF_SKIPPED();
	if (self->ncpu < 2)
		SKIP(return, "one CPU only");
	ASSERT_EQ(0, pin_to(self->cpus[0]));
	id = tsc_alloc(self->fd, PMC_MODE_SC, self->cpus[1], PMC_EV_TSC_TSC, 0);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, simple(self->fd, PMC_IOC_PMCSTART, (unsigned int)id));
	for (int n = 0; n < 200; n++) {
		ASSERT_EQ(0, tsc_read(self->fd, (unsigned int)id, &v));
		ASSERT_LT(prev, v) TH_LOG("read %d", n);
		prev = v;
	}
	EXPECT_EQ(0, simple(self->fd, PMC_IOC_PMCRELEASE, (unsigned int)id));
}

/* hwpmc's tsc_allocate_pmc(): any mode but SC is EINVAL. */
TEST_F(tsc, other_modes_are_refused_with_einval)
{
	RETURN_IF_SKIPPED();
	EXPECT_EQ(-EINVAL, tsc_alloc(self->fd, PMC_MODE_SS, self->cpus[0],
				     PMC_EV_TSC_TSC, 0));
	EXPECT_EQ(-EINVAL, tsc_alloc(self->fd, PMC_MODE_TS, PMC_CPU_ANY,
				     PMC_EV_TSC_TSC, 0));
	EXPECT_EQ(-EINVAL, tsc_alloc(self->fd, PMC_MODE_TC, PMC_CPU_ANY,
				     PMC_EV_TSC_TSC, 0));
}

TEST_F(tsc, wrong_event_or_descriptor_is_einval)
{
	RETURN_IF_SKIPPED();
	EXPECT_EQ(-EINVAL, tsc_alloc(self->fd, PMC_MODE_SC, self->cpus[0],
				     PMC_EV_SOFT_FIRST, 0));
	EXPECT_EQ(-EINVAL, tsc_alloc(self->fd, PMC_MODE_SC, self->cpus[0],
				     PMC_EV_TSC_TSC, PERF_TYPE_SOFTWARE));
	EXPECT_EQ(-EINVAL, tsc_alloc(self->fd, PMC_MODE_SC, PMC_CPU_ANY,
				     PMC_EV_TSC_TSC, 0));
}

/* A system-scope PMC cannot be attached to a process. */
TEST_F(tsc, attach_is_einval)
{
	struct pmc_op_pmcattach at = { .pm_pid = 0 };
	long id;

	RETURN_IF_SKIPPED();
	id = tsc_alloc(self->fd, PMC_MODE_SC, self->cpus[0], PMC_EV_TSC_TSC, 0);
	ASSERT_LE(0, id);
	at.pm_pmc = (unsigned int)id;
	EXPECT_EQ(-EINVAL, op(self->fd, PMC_IOC_PMCATTACH, &at));
	EXPECT_EQ(0, simple(self->fd, PMC_IOC_PMCRELEASE, (unsigned int)id));
}

TEST_HARNESS_MAIN
