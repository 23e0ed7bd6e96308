// SPDX-License-Identifier: GPL-2.0
/*
 * device_test.c - the foundation's promises about /dev/pmc: the node and its
 * mode, the version and CPU-info ops, PMIOTSTAMP, bad ioctl numbers and bad
 * pointers, and rmmod refused while the device is open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <pmc/hwpmc.h>
#include <pmc/perfmon.h>

#include "kselftest_harness.h"

#define MISC_MAJOR	10

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (self->fd < 0 && errno == ENOENT)
		SKIP(return, "no %s: pmc.ko is not loaded", PMC_DEVICE_PATH);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* devtmpfs creates the misc node root:root 0660; udev (dist/) may regroup it. */
TEST_F(dev, node_is_a_misc_char_device_with_mode_0660)
{
	struct stat st;

	ASSERT_EQ(0, stat(PMC_DEVICE_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ((unsigned int)MISC_MAJOR, major(st.st_rdev));
	EXPECT_EQ(0660U, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);
}

TEST_F(dev, module_version_is_returned_and_newer_clients_refused)
{
	struct pmc_op_getmoduleversion v = { .pm_version = PMC_VERSION };

	ASSERT_EQ(0, ioctl(self->fd, PMC_IOC_GETMODULEVERSION, &v));
	EXPECT_EQ((uint32_t)PMC_VERSION, v.pm_version);

	/* An older client is served... */
	v.pm_version = 0;
	ASSERT_EQ(0, ioctl(self->fd, PMC_IOC_GETMODULEVERSION, &v));
	EXPECT_EQ((uint32_t)PMC_VERSION, v.pm_version);

	/* ... a client with a newer minor is refused (EPROGMISMATCH). */
	v.pm_version = PMC_VERSION + (1 << 16);
	EXPECT_EQ(-1, ioctl(self->fd, PMC_IOC_GETMODULEVERSION, &v));
	EXPECT_EQ(PMC_EPROGMISMATCH, errno);
}

TEST_F(dev, cpu_info_describes_cpus_classes_and_rows)
{
	struct pmc_op_getcpuinfo ci;
	unsigned int i, rows = 0;
	bool soft = false;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	memset(&ci, 0xa5, sizeof(ci));
	ASSERT_EQ(0, ioctl(self->fd, PMC_IOC_GETCPUINFO, &ci));
	EXPECT_GE(ci.pm_ncpu, (uint32_t)ncpu);
	ASSERT_GE(ci.pm_nclass, 1U);
	ASSERT_LE(ci.pm_nclass, (uint32_t)PMC_CLASS_MAX);
	for (i = 0; i < ci.pm_nclass; i++) {
		const struct pmc_classinfo *c = &ci.pm_classes[i];

		EXPECT_GE(c->pm_num, 1U);
		EXPECT_GE(c->pm_width, 32U);
		EXPECT_LE(c->pm_width, 64U);
		EXPECT_NE(0U, c->pm_caps & PMC_CAP_READ);
		rows += c->pm_num;
		if (c->pm_class == PMC_CLASS_SOFT) {
			soft = true;
			EXPECT_EQ(16U, c->pm_num);	/* softevents default */
			EXPECT_EQ(64U, c->pm_width);
		}
		if (c->pm_class == PMC_CLASS_TSC)
			EXPECT_EQ(1U, c->pm_num);
	}
	EXPECT_TRUE(soft);
	EXPECT_EQ(rows, ci.pm_npmc);
	EXPECT_NE(0, ci.pm_cpuid[0]);
	EXPECT_NE(NULL, memchr(ci.pm_cpuid, 0, sizeof(ci.pm_cpuid)));
	/* QEMU TCG exposes no PMU: without the test PMU the CPU is generic. */
	if (ci.pm_nclass <= 2)
		EXPECT_EQ((uint32_t)PMC_CPU_GENERIC, ci.pm_cputype);
}

/* PMIOTSTAMP: the TSC never goes back, and its rate agrees with the clock. */
TEST_F(dev, tstamp_is_monotonic_and_its_rate_matches_the_clock)
{
	struct pmc_tstamp a, b, prev;
	uint64_t t0, t1;
	double mhz;
	int i;

	ASSERT_EQ(0, ioctl(self->fd, PMIOTSTAMP, &a));
	ASSERT_GT(a.pmct_rate, 0);
	prev = a;
	t0 = mono_ns();
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, ioctl(self->fd, PMIOTSTAMP, &b));
		ASSERT_LE(prev.pmct_value, b.pmct_value);
		EXPECT_EQ(a.pmct_rate, b.pmct_rate);
		prev = b;
	}
	usleep(200000);
	ASSERT_EQ(0, ioctl(self->fd, PMIOTSTAMP, &b));
	t1 = mono_ns();
	ASSERT_LT(a.pmct_value, b.pmct_value);
	mhz = (double)(b.pmct_value - a.pmct_value) * 1000.0 / (double)(t1 - t0);
	TH_LOG("rate %d MHz, measured %.1f MHz", a.pmct_rate, mhz);
	/* The emulated TSC runs at its nominal rate (reads bracket the window). */
	EXPECT_LT(mhz, a.pmct_rate * 1.05);
	EXPECT_GT(mhz, a.pmct_rate * 0.80);
}

/* Unknown commands: a foreign magic, an unused number, a wrong size or direction. */
TEST_F(dev, bad_ioctl_numbers_are_enotty)
{
	struct pmc_op_getcpuinfo ci;
	const unsigned long bad[] = {
		_IO('Q', 1),
		_IOR(PMC_IOC_MAGIC, 31, struct pmc_op_getcpuinfo),
		_IOR(PMC_IOC_MAGIC, 200, struct pmc_op_getcpuinfo),
		_IOR(PMC_IOC_MAGIC, PMC_OP_GETCPUINFO, uint32_t),
		_IOW(PMC_IOC_MAGIC, PMC_OP_GETCPUINFO, struct pmc_op_getcpuinfo),
		_IOR('5', 9, struct pmc_tstamp),
		TCGETS,
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, bad[i], &ci)) TH_LOG("cmd 0x%lx", bad[i]);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd 0x%lx", bad[i]);
	}
}

/* NULL, an unmapped page, a read-only page (for output) and a kernel address. */
TEST_F(dev, bad_pointers_are_efault)
{
	void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *const ptrs[] = { NULL, unmapped, (void *)0xffffffff81000000UL };
	unsigned int i;

	ASSERT_NE(MAP_FAILED, unmapped);
	ASSERT_NE(MAP_FAILED, ro);
	for (i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, PMC_IOC_GETCPUINFO, ptrs[i]));
		EXPECT_EQ(EFAULT, errno);
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, PMC_IOC_GETMODULEVERSION, ptrs[i]));
		EXPECT_EQ(EFAULT, errno);
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, PMIOTSTAMP, ptrs[i]));
		EXPECT_EQ(EFAULT, errno);
	}
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, PMC_IOC_GETDRIVERSTATS, ro));
	EXPECT_EQ(EFAULT, errno);
	munmap(unmapped, 4096);
	munmap(ro, 4096);
}

/* The module cannot go while /dev/pmc is open (it holds a module reference). */
TEST_F(dev, rmmod_is_refused_while_open)
{
	if (geteuid())
		SKIP(return, "needs root");
	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_delete_module, "pmc", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	EXPECT_EQ(0, access("/sys/module/pmc", F_OK));
}

TEST_HARNESS_MAIN
