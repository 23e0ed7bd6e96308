// SPDX-License-Identifier: GPL-2.0
/*
 * layout_test.c - the perfmon(4) ABI is the same for 32- and 64-bit
 * programs: struct sizes, field offsets and ioctl numbers are asserted at
 * compile time, and every ioctl is run, with a 64-bit count past 2^32. The
 * build compiles this file twice: perfmon-layout (native) and, with
 * i686-linux-gnu-gcc, perfmon-layout32 (-m32, through the driver's compat_ioctl).
 */
#include <assert.h>
#include <stddef.h>

#include "kselftest_harness.h"
#include "perfmon_util.h"

static_assert(sizeof(struct pmc) == 8, "struct pmc");
static_assert(offsetof(struct pmc, pmc_num) == 0, "pmc_num");
static_assert(offsetof(struct pmc, pmc_pmcu) == 4, "pmc_pmcu");
static_assert(offsetof(struct pmc, pmc_event) == 4, "pmc_event");
static_assert(offsetof(struct pmc, pmc_unit) == 5, "pmc_unit");
static_assert(offsetof(struct pmc, pmc_flags) == 6, "pmc_flags");
static_assert(offsetof(struct pmc, pmc_mask) == 7, "pmc_mask");
static_assert(sizeof(struct pmc_data) == 16, "struct pmc_data");
static_assert(offsetof(struct pmc_data, pmcd_value) == 8, "pmcd_value");
static_assert(sizeof(struct pmc_tstamp) == 16, "struct pmc_tstamp");
static_assert(offsetof(struct pmc_tstamp, pmct_value) == 8, "pmct_value");

/* Linux encodings: dir << 30 | size << 16 | '5' << 8 | nr. */
static_assert(PMIOSETUP == 0x40083501u, "PMIOSETUP");
static_assert(PMIOSTART == 0x40043502u, "PMIOSTART");
static_assert(PMIOSTOP == 0x40043503u, "PMIOSTOP");
static_assert(PMIOREAD == 0xc0103504u, "PMIOREAD");
static_assert(PMIORESET == 0x40043505u, "PMIORESET");
static_assert(PMIOTSTAMP == 0x80103506u, "PMIOTSTAMP");
static_assert(PMIOGET == 0xc0083507u, "PMIOGET");

/* The values of the original header. */
static_assert(NPMC == 2 && PMC_ALL == -1, "NPMC, PMC_ALL");
static_assert(PMCF_USR == 0x01 && PMCF_OS == 0x02 && PMCF_E == 0x04 &&
	      PMCF_PC == 0x08 && PMCF_INT == 0x10 && PMCF_EN == 0x40 &&
	      PMCF_INV == 0x80 && PMCF_SYS_FLAGS == 0x50, "PMCF_*");

FIXTURE(layout) {
	int fd;
};

FIXTURE_SETUP(layout)
{
	const char *why = tp_cannot_load();

	self->fd = -1;
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, tp_load(4, 48));
	self->fd = open(_PATH_PERFMON, O_RDWR);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(layout)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(layout, pointer_size_of_this_build)
{
	TH_LOG("%zu-bit program", sizeof(void *) * 8);
}

/*
 * Every ioctl, and a value that needs the 64 bits of pmcd_value: 2^32
 * events take 4.3 s of one CPU, less with more CPUs.
 */
TEST_F_TIMEOUT(layout, every_ioctl_and_a_64_bit_count, 60)
{
	uint64_t need = (1ull << 32) + (1ull << 28);
	long ncpus = pm_ncpus();
	struct pmc_tstamp t0, t1;
	struct pmc p;
	uint64_t ran;
	long long v;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, pm_setup(self->fd, 1, PMC6_INST_RETIRED, 0x02,
			      PMCF_USR | PMCF_OS | PMCF_E, 5));
	memset(&p, 0, sizeof(p));
	p.pmc_num = 1;
	ASSERT_EQ(0, pm_ioctl(self->fd, PMIOGET, &p));
	EXPECT_EQ(1, p.pmc_num);
	EXPECT_EQ(PMC6_INST_RETIRED, p.pmc_event);
	EXPECT_EQ(0x02, p.pmc_unit);
	EXPECT_EQ(PMCF_USR | PMCF_OS | PMCF_E, p.pmc_flags);
	EXPECT_EQ(5, p.pmc_mask);

	ASSERT_EQ(0, pm_ioctl(self->fd, PMIOTSTAMP, &t0));
	ASSERT_EQ(0, pm_num(self->fd, PMIOSTART, 1));
	tp_sleep_ns(need / ncpus);
	ASSERT_EQ(0, pm_num(self->fd, PMIOSTOP, 1));
	ASSERT_EQ(0, pm_ioctl(self->fd, PMIOTSTAMP, &t1));
	ASSERT_EQ(0, pm_read(self->fd, 1, &v));
	ran = (uint64_t)((t1.pmct_value - t0.pmct_value) / t1.pmct_rate) * 1000;
	TH_LOG("%lld events in %llu ns on %ld CPUs", v,
	       (unsigned long long)ran, ncpus);
	EXPECT_LT((long long)(1ull << 32), v);
	EXPECT_TRUE(tp_within(v, ncpus * ran, 0.02));

	ASSERT_EQ(0, pm_num(self->fd, PMIORESET, 1));
	ASSERT_EQ(0, pm_read(self->fd, 1, &v));
	EXPECT_EQ(0, v);
}

TEST_HARNESS_MAIN
