// SPDX-License-Identifier: GPL-2.0
/*
 * maps_refused_test.c - a kernel that renamed a function the map hooks
 * probe: pmc.ko reloaded with test_munmap_symbol naming a function that
 * does not exist logs one line naming it, refuses MAP_IN/MAP_OUT tracking
 * (map_tracking reads -ENOENT, no MAP_IN for a mapping made after attach),
 * and still counts and samples. Leaves the module loaded with its
 * defaults.
 *
 * The module reloaded is $PMC_KO, or driver/pmc.ko from the repository root.
 */
#include <sys/syscall.h>

#include "kselftest_harness.h"

#include "pmc_test.h"
#include "sampling.h"

#define MISSING		"pmc_no_such_function"
#define REFUSAL		"pmc: MAP_IN/MAP_OUT tracking off: cannot probe "

FIXTURE(refused) {
	int fd;
	struct smp_ring r;
	bool reloaded;
	int lines;		/* refusal lines the reload logged */
	char line[512];		/* the last of them */
};

FIXTURE_SETUP(refused)
{
	const char *why = smp_cannot_run();
	int before;

	self->fd = -1;
	self->reloaded = false;
	memset(&self->r, 0, sizeof(self->r));
	if (why)
		SKIP(return, "%s", why);
	if (access(pmc_t_ko(), R_OK))
		SKIP(return, "no %s to load (build it, or set PMC_KO)", pmc_t_ko());
	if (pmc_t_param_num("../refcnt") > 0)
		SKIP(return, "pmc.ko is in use");

	before = pmc_t_kmsg_count(REFUSAL, self->line, sizeof(self->line));
	ASSERT_LE(0, before);
	ASSERT_EQ(0, pmc_t_unload());
	self->reloaded = true;
	ASSERT_EQ(0, pmc_t_load("test_munmap_symbol=" MISSING));
	self->lines = pmc_t_kmsg_count(REFUSAL, self->line, sizeof(self->line)) -
		      before;
	self->fd = smp_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(refused)
{
	smp_ring_unmap(&self->r);
	if (self->fd >= 0)
		EXPECT_EQ(0, close(self->fd));
	if (self->reloaded) {
		EXPECT_EQ(0, pmc_t_unload());
		EXPECT_EQ(0, pmc_t_load(""));
	}
}

/* One line at load names the function; map_tracking says -ENOENT. */
TEST_F(refused, one_line_names_the_missing_function)
{
	RETURN_IF_SKIPPED();
	EXPECT_EQ(1, self->lines) TH_LOG("refusal lines at load: %d", self->lines);
	EXPECT_NE(NULL, strstr(self->line, REFUSAL MISSING " (-2)"))
		TH_LOG("line: %s", self->line);
	EXPECT_EQ(-ENOENT, pmc_t_param_num("map_tracking"));
}

/* A counting PMC counts. */
TEST_F(refused, counting_still_works)
{
	uint64_t v = 0;
	int64_t id;

	RETURN_IF_SKIPPED();
	id = smp_alloc_tc(self->fd, PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0, 0);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, id, getpid()));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	pmc_t_spin_ns(50000000);
	ASSERT_EQ(0, smp_read(self->fd, id, &v));
	EXPECT_LE(40000000ull, v);
}

/*
 * A sampling PMC samples, while an executable mapping made and removed
 * after attach gives no MAP_IN or MAP_OUT (tracking refused).
 */
TEST_F(refused, sampling_works_without_map_records)
{
	const struct pmclog_header *h;
	const struct pmclog_map_in *mi;
	struct smp_stream_info si;
	struct smp_buf b = {};
	size_t off, samples = 0, maps = 0;
	long ps = sysconf(_SC_PAGESIZE);
	void *exec_map;
	int64_t id;
	int exe;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_ring_map(self->fd, 64, &self->r));
	id = smp_alloc_soft(self->fd, PMC_MODE_TS, PMC_CPU_ANY,
			    PERF_COUNT_SW_CPU_CLOCK, 1000000, 0);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, id, getpid()));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));

	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, exe);
	exec_map = mmap(NULL, 3 * ps, PROT_READ | PROT_EXEC, MAP_PRIVATE, exe, 0);
	ASSERT_NE(MAP_FAILED, exec_map);
	close(exe);
	pmc_t_spin_ns(200000000);
	EXPECT_EQ(0, munmap(exec_map, 3 * ps));

	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, id));
	ASSERT_EQ(0, smp_flushlog(self->fd));
	smp_ring_drain(&self->r, &b);
	ASSERT_TRUE(smp_check_stream(&b, &si));
	smp_for_each_rec(h, &b, off) {
		if (smp_rec_type(h) == PMCLOG_TYPE_CALLCHAIN)
			samples++;
		if (smp_rec_type(h) != PMCLOG_TYPE_MAP_IN &&
		    smp_rec_type(h) != PMCLOG_TYPE_MAP_OUT)
			continue;
		mi = (const void *)h;	/* MAP_OUT has the same start */
		if (mi->pl_start == (uintptr_t)exec_map)
			maps++;
	}
	smp_buf_free(&b);
	TH_LOG("%zu samples, %zu records of the mapping made after attach",
	       samples, maps);
	EXPECT_LE(20u, samples);
	EXPECT_EQ(0u, maps);
}

TEST_HARNESS_MAIN
