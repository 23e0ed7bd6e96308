// SPDX-License-Identifier: GPL-2.0
/*
 * names_test.c - pmc(3)'s event names on the driver's software events
 * (docs/events.md): the Linux names in FreeBSD's spellings, the SOFT-
 * prefix, the aliases that count a clock without a hardware PMU, and the
 * hardware vocabulary (PAPI, perf's generic names) refused there.
 * hwclass_test.c checks the hardware names on the test PMU.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "pmc_util.h"

#define MS	1000000ULL

/* Allocate @spec on this thread, spin 20 ms: its count, or -errno. */
static int64_t count_spec(const char *spec, uint32_t *cls)
{
	pmc_value_t v;
	pmc_id_t id;
	int err;

	if (pmc_allocate(spec, PMC_MODE_TC, 0, PMC_CPU_ANY, &id, 0) < 0)
		return -errno;
	*cls = PMC_ID_TO_CLASS(id);
	if (pmc_attach_thread(id, 0, 0) < 0 || pmc_start(id) < 0)
		goto fail;
	spin_cpu_ns(20 * MS);
	if (pmc_stop(id) < 0 || pmc_read(id, &v) < 0)
		goto fail;
	pmc_release(id);
	return (int64_t)v;
fail:
	err = errno;
	pmc_release(id);
	return -err;
}

static bool has_hw_class(void)
{
	const struct pmc_cpuinfo *ci;
	uint32_t i;

	if (pmc_cpuinfo(&ci) < 0)
		return false;
	for (i = 0; i < ci->pm_nclass; i++)
		if (ci->pm_classes[i].pm_class == PMC_CLASS_IAP ||
		    ci->pm_classes[i].pm_class == PMC_CLASS_K8 ||
		    ci->pm_classes[i].pm_class == PMC_CLASS_ARMV8)
			return true;
	return false;
}

TEST(software_vocabulary_without_a_pmu)
{
	static const char *const clocks[] = {
		"task-clock", "TASK_CLOCK", "task.clock", "SOFT-task-clock",
		"instructions", "unhalted-cycles", "task-clock,usr,os",
	};
	uint32_t cls;
	int64_t v;
	size_t i;

	PMC_INIT_OR_SKIP();
	if (has_hw_class())
		SKIP(return, "a hardware PMU is present (hwclass_test.c covers it)");
	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		v = count_spec(clocks[i], &cls);
		EXPECT_GE(v, (int64_t)(10 * MS)) TH_LOG("%s: %lld", clocks[i],
							 (long long)v);
		EXPECT_EQ(PMC_CLASS_SOFT, cls) TH_LOG("%s", clocks[i]);
	}
	EXPECT_LE(0, count_spec("page_faults", &cls));
	/* The hardware vocabulary has no class to count it here. */
	EXPECT_EQ(-EOPNOTSUPP, count_spec("PAPI_tot_ins", &cls));
	EXPECT_EQ(-EOPNOTSUPP, count_spec("branches", &cls));
	EXPECT_EQ(-EINVAL, count_spec("no-such-event", &cls));
}

TEST_HARNESS_MAIN
