// SPDX-License-Identifier: BSD-2-Clause
/*
 * names_test.c - pmc_name_of_*(), FreeBSD's name comparison, the event name
 * lists, and what the API does before pmc_init().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

START_TEST(modes_states_dispositions_have_freebsd_names)
{
	ck_assert_str_eq(pmc_name_of_mode(PMC_MODE_SS), "SS");
	ck_assert_str_eq(pmc_name_of_mode(PMC_MODE_SC), "SC");
	ck_assert_str_eq(pmc_name_of_mode(PMC_MODE_TS), "TS");
	ck_assert_str_eq(pmc_name_of_mode(PMC_MODE_TC), "TC");
	ck_assert_str_eq(pmc_name_of_state(PMC_STATE_DISABLED), "DISABLED");
	ck_assert_str_eq(pmc_name_of_state(PMC_STATE_FREE), "FREE");
	ck_assert_str_eq(pmc_name_of_state(PMC_STATE_ALLOCATED), "ALLOCATED");
	ck_assert_str_eq(pmc_name_of_state(PMC_STATE_STOPPED), "STOPPED");
	ck_assert_str_eq(pmc_name_of_state(PMC_STATE_RUNNING), "RUNNING");
	ck_assert_str_eq(pmc_name_of_state(PMC_STATE_DELETED), "DELETED");
	ck_assert_str_eq(pmc_name_of_disposition(PMC_DISP_STANDALONE), "STANDALONE");
	ck_assert_str_eq(pmc_name_of_disposition(PMC_DISP_FREE), "FREE");
	ck_assert_str_eq(pmc_name_of_disposition(PMC_DISP_THREAD), "THREAD");
	ck_assert_str_eq(pmc_name_of_disposition(PMC_DISP_UNKNOWN), "UNKNOWN");
}
END_TEST

START_TEST(classes_and_cputypes_have_freebsd_names)
{
	ck_assert_str_eq(pmc_name_of_class(PMC_CLASS_TSC), "TSC");
	ck_assert_str_eq(pmc_name_of_class(PMC_CLASS_K8), "K8");
	ck_assert_str_eq(pmc_name_of_class(PMC_CLASS_IAF), "IAF");
	ck_assert_str_eq(pmc_name_of_class(PMC_CLASS_IAP), "IAP");
	ck_assert_str_eq(pmc_name_of_class(PMC_CLASS_SOFT), "SOFT");
	ck_assert_str_eq(pmc_name_of_cputype(PMC_CPU_AMD_K8), "AMD_K8");
	ck_assert_str_eq(pmc_name_of_cputype(PMC_CPU_INTEL_CORE), "INTEL_CORE");
	ck_assert_str_eq(pmc_name_of_cputype(PMC_CPU_GENERIC), "GENERIC");
}
END_TEST

START_TEST(out_of_range_names_are_null_with_einval)
{
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_mode(PMC_MODE_INVALID));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_mode((enum pmc_mode)-1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_state(PMC_STATE_MAX));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_disposition((enum pmc_disp)4));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_class((enum pmc_class)1));	/* K7: not here */
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_class((enum pmc_class)0x100));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_cputype((enum pmc_cputype)0x88));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(each_capability_bit_has_a_name)
{
	static const char *const names[] = {
		"INTERRUPT", "USER", "SYSTEM", "EDGE", "THRESHOLD", "READ",
		"WRITE", "INVERT", "QUALIFIER", "PRECISE", "TAGGING", "CASCADE",
		"SYSWIDE", "DOMWIDE",
	};
	unsigned int bit;

	for (bit = 0; bit < PMC_ARRAY_SIZE(names); bit++)
		ck_assert_str_eq(pmc_name_of_capability((enum pmc_caps)(1u << bit)),
				 names[bit]);
	ck_assert_str_eq(pmc_name_of_capability(PMC_CAP_DOMWIDE), "DOMWIDE");
	ck_assert_int_eq(PMC_CAP_LAST, 1u << (PMC_ARRAY_SIZE(names) - 1));

	errno = 0;
	ck_assert_ptr_null(pmc_name_of_capability((enum pmc_caps)0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_capability(
		(enum pmc_caps)(PMC_CAP_USER | PMC_CAP_SYSTEM)));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_capability((enum pmc_caps)0x4000));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(events_are_named_without_pmc_init)
{
	ck_assert_str_eq(pmc_name_of_event((enum pmc_event)PMC_EV_TSC_TSC), "TSC");
	ck_assert_str_eq(pmc_name_of_event((enum pmc_event)PMC_EV_RAW), "RAW");
	ck_assert_str_eq(pmc_name_of_event(PMC_EV_SOFT_CPU_CLOCK), "cpu-clock");
	ck_assert_str_eq(pmc_name_of_event(PMC_EV_SOFT_TASK_CLOCK), "task-clock");
	ck_assert_str_eq(pmc_name_of_event(PMC_EV_SOFT_PAGE_FAULTS_MAJ), "major-faults");
	ck_assert_str_eq(pmc_name_of_event(PMC_EV_SOFT_LAST), "emulation-faults");
	ck_assert_str_eq(pmc_name_of_event(PMC_EV_GENERIC_CPU_CYCLES), "cpu-cycles");
	ck_assert_str_eq(pmc_name_of_event(PMC_EV_GENERIC_INSTRUCTIONS), "instructions");
	ck_assert_str_eq(pmc_name_of_event(PMC_EV_GENERIC_BRANCH_MISSES), "branch-misses");
	ck_assert_str_eq(pmc_name_of_event(PMC_EV_GENERIC_LAST), "ref-cycles");

	errno = 0;
	ck_assert_ptr_null(pmc_name_of_event((enum pmc_event)(PMC_EV_SOFT_LAST + 1)));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_event((enum pmc_event)(PMC_EV_GENERIC_LAST + 1)));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(pmc_name_of_event((enum pmc_event)0x12345));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(names_compare_as_freebsd_does)
{
	ck_assert(pmcdev_name_eq("task-clock", "task-clock"));
	ck_assert(pmcdev_name_eq("TASK_CLOCK", "task-clock"));
	ck_assert(pmcdev_name_eq("Task.Clock", "task-clock"));
	ck_assert(pmcdev_name_eq("task clock", "task-clock"));
	ck_assert(pmcdev_name_eq("k8-dc-miss", "K8_DC_MISS"));
	ck_assert(!pmcdev_name_eq("task-clocks", "task-clock"));
	ck_assert(!pmcdev_name_eq("task-cloc", "task-clock"));
	ck_assert(!pmcdev_name_eq("", "task-clock"));
	ck_assert(!pmcdev_name_eq("taskclock", "task-clock"));
	ck_assert(pmcdev_name_eqn("abc", "abcdef", 3));
	ck_assert(!pmcdev_name_eqn("abcd", "abcdef", 3));
}
END_TEST

static void check_names(const struct pmc_mdesc *m, uint32_t cl,
			const char *const *want, int nwant)
{
	const char **names = NULL;
	int n = -1, i;

	ck_assert_int_eq(pmc__event_names(m, cl, &names, &n), 0);
	ck_assert_int_ge(n, nwant);
	for (i = 0; i < nwant; i++)
		ck_assert_str_eq(names[i], want[i]);
	free(names);	/* one block: FreeBSD callers free the array only */
}

START_TEST(event_names_of_each_class)
{
	static const char *const soft[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults",
		"alignment-faults", "emulation-faults",
	};
	static const char *const tsc[] = { "TSC" };
	static const char *const iaf[] = {
		"instr-retired.any", "cpu-clk-unhalted.core", "cpu-clk-unhalted.ref",
	};
	static const char *const generic[] = {
		"cpu-cycles", "instructions", "cache-references", "cache-misses",
		"branch-instructions", "branch-misses", "bus-cycles",
		"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
	};
	const struct pmc_mdesc *intel = unit_machine(UNIT_INTEL);
	const char **names;
	int n;

	check_names(intel, PMC_CLASS_SOFT, soft, 9);
	check_names(intel, PMC_CLASS_TSC, tsc, 1);
	check_names(intel, PMC_CLASS_IAF, iaf, 3);
	check_names(intel, PMC_CLASS_IAP, generic, 10);
	check_names(unit_machine(UNIT_AMD), PMC_CLASS_K8, generic, 10);

	/* A class the machine lacks. */
	ck_assert_int_eq(pmc__event_names(intel, PMC_CLASS_K8, &names, &n), EINVAL);
	ck_assert_int_eq(pmc__event_names(unit_machine(UNIT_SOFT_ONLY),
					  PMC_CLASS_TSC, &names, &n), EINVAL);
	ck_assert_int_eq(pmc__event_names(intel, PMC_CLASS_SOFT, NULL, &n), EINVAL);
}
END_TEST

/* With libpfm4 forced to Skylake, IAP lists its events as EVENT.UMASK. */
START_TEST(iap_event_names_include_libpfm4s)
{
	const char **names = NULL;
	int n = 0, i, found = 0;

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	ck_assert_int_eq(pmc__event_names(unit_machine(UNIT_INTEL),
					  PMC_CLASS_IAP, &names, &n), 0);
	ck_assert_int_gt(n, 100);
	for (i = 0; i < n; i++)
		if (strcmp(names[i], "INST_RETIRED.ANY_P") == 0 ||
		    strcmp(names[i], "BR_MISP_RETIRED.ALL_BRANCHES") == 0)
			found++;
	ck_assert_int_eq(found, 2);
	free(names);
}
END_TEST

START_TEST(api_before_pmc_init_fails_with_enxio)
{
	const struct pmc_cpuinfo *ci;
	const char **names;
	pmc_id_t id;
	pmc_value_t v;
	int n;

	errno = 0;
	ck_assert_int_eq(pmc_allocate("instructions", PMC_MODE_TC, 0,
				      (int)PMC_CPU_ANY, &id, 0), -1);
	ck_assert_int_eq(errno, ENXIO);
	errno = 0;
	ck_assert_int_eq(pmc_read(1, &v), -1);
	ck_assert_int_eq(errno, ENXIO);
	errno = 0;
	ck_assert_int_eq(pmc_cpuinfo(&ci), -1);
	ck_assert_int_eq(errno, ENXIO);
	errno = 0;
	ck_assert_int_eq(pmc_ncpu(), -1);
	ck_assert_int_eq(errno, ENXIO);
	errno = 0;
	ck_assert_int_eq(pmc_event_names_of_class(PMC_CLASS_SOFT, &names, &n), -1);
	ck_assert_int_eq(errno, ENXIO);
	errno = 0;
	ck_assert_ptr_null(pmclog_open_ring(PMCLOG_FD_NONE, 1));
	ck_assert_int_eq(errno, ENXIO);
}
END_TEST

START_TEST(pmc_init_without_dev_pmc_fails_with_enxio)
{
	if (access(PMC_DEVICE_PATH, F_OK) == 0)
		return;		/* this host has the driver: nothing to check */
	errno = 0;
	ck_assert_int_eq(pmc_init(), -1);
	ck_assert_int_eq(errno, ENXIO);
	/* Still uninitialised: a retry fails the same way. */
	errno = 0;
	ck_assert_int_eq(pmc_init(), -1);
	ck_assert_int_eq(errno, ENXIO);
}
END_TEST

START_TEST(freebsd_errnos_are_the_drivers)
{
	ck_assert_int_eq(EDOOFUS, PMC_EDOOFUS);
	ck_assert_int_eq(EPROGMISMATCH, PMC_EPROGMISMATCH);
	ck_assert_int_eq(PMC_CPU_ANY, 0xffffffffu);
	ck_assert_int_eq(PMC_ID_INVALID, 0xffffffffu);
}
END_TEST

Suite *names_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, modes_states_dispositions_have_freebsd_names);
	tcase_add_test(tc, classes_and_cputypes_have_freebsd_names);
	tcase_add_test(tc, out_of_range_names_are_null_with_einval);
	tcase_add_test(tc, each_capability_bit_has_a_name);
	tcase_add_test(tc, events_are_named_without_pmc_init);
	tcase_add_test(tc, names_compare_as_freebsd_does);
	tcase_add_test(tc, event_names_of_each_class);
	tcase_add_test(tc, iap_event_names_include_libpfm4s);
	tcase_add_test(tc, api_before_pmc_init_fails_with_enxio);
	tcase_add_test(tc, pmc_init_without_dev_pmc_fails_with_enxio);
	tcase_add_test(tc, freebsd_errnos_are_the_drivers);
	suite_add_tcase(s, tc);
	return s;
}
