// SPDX-License-Identifier: BSD-2-Clause
/*
 * spec_test.c - event specifiers into PMCALLOCATE requests: the generic
 * aliases, SOFT- and TSC- events, class prefixes, libpfm4 names (with the
 * PMU forced, so the results do not depend on the host CPU), qualifiers,
 * and every way a specifier can be wrong.
 */
#include <errno.h>
#include <stdlib.h>

#include <linux/perf_event.h>

#include "unit.h"

static struct pmc_op_pmcallocate req;

static int enc(enum unit_machine m, const char *spec, enum pmc_mode mode)
{
	return pmc__spec_encode(unit_machine(m), spec, mode, &req);
}

static void expect(uint32_t cl, uint32_t ev, uint32_t type, uint64_t config,
		   uint32_t caps)
{
	ck_assert_uint_eq(req.pm_class, cl);
	ck_assert_uint_eq(req.pm_ev, ev);
	ck_assert_uint_eq(req.pm_md.pm_type, type);
	ck_assert_uint_eq(req.pm_md.pm_config, config);
	ck_assert_uint_eq(req.pm_caps, caps);
}

/* The rest of a request is the caller's: the parser leaves it zero. */
static void expect_rest_zero(void)
{
	ck_assert_uint_eq(req.pm_flags, 0);
	ck_assert_uint_eq(req.pm_cpu, 0);
	ck_assert_uint_eq(req.pm_count, 0);
	ck_assert_uint_eq(req.pm_group, 0);
	ck_assert_uint_eq(req.pm_pmcid, 0);
}

#define GEN(x)	(PMC_EV_GENERIC_FIRST + (x))
#define SOFT(x)	(PMC_EV_SOFT_FIRST + (x))
#define L1_READ_MISS(c) ((c) | (PERF_COUNT_HW_CACHE_OP_READ << 8) | \
			 (PERF_COUNT_HW_CACHE_RESULT_MISS << 16))

START_TEST(generic_aliases_map_to_perf_events_on_the_hardware_class)
{
	ck_assert_int_eq(enc(UNIT_INTEL, "instructions", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(1), PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0);
	ck_assert_uint_eq(req.pm_mode, PMC_MODE_TC);
	expect_rest_zero();

	ck_assert_int_eq(enc(UNIT_INTEL, "unhalted-cycles", PMC_MODE_SC), 0);
	expect(PMC_CLASS_IAP, GEN(0), PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "branches", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(4), PERF_TYPE_HARDWARE,
	       PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0);
	ck_assert_int_eq(enc(UNIT_AMD, "branch-mispredicts", PMC_MODE_TC), 0);
	expect(PMC_CLASS_K8, GEN(5), PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0);
	ck_assert_int_eq(enc(UNIT_AMD, "dc-misses", PMC_MODE_TC), 0);
	expect(PMC_CLASS_K8, PMC_EV_RAW, PERF_TYPE_HW_CACHE,
	       L1_READ_MISS(PERF_COUNT_HW_CACHE_L1D), 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "ic-misses", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_HW_CACHE,
	       L1_READ_MISS(PERF_COUNT_HW_CACHE_L1I), 0);
}
END_TEST

START_TEST(sampling_modes_ask_for_interrupts)
{
	ck_assert_int_eq(enc(UNIT_INTEL, "instructions", PMC_MODE_TS), 0);
	expect(PMC_CLASS_IAP, GEN(1), PERF_TYPE_HARDWARE, 1, PMC_CAP_INTERRUPT);
	ck_assert_int_eq(enc(UNIT_INTEL, "SOFT-task-clock", PMC_MODE_SS), 0);
	expect(PMC_CLASS_SOFT, SOFT(1), PERF_TYPE_SOFTWARE, 1, PMC_CAP_INTERRUPT);
	ck_assert_uint_eq(req.pm_mode, PMC_MODE_SS);
}
END_TEST

START_TEST(aliases_compare_as_freebsd_names)
{
	ck_assert_int_eq(enc(UNIT_INTEL, "INSTRUCTIONS", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(1), PERF_TYPE_HARDWARE, 1, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "Unhalted_Cycles", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(0), PERF_TYPE_HARDWARE, 0, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "branch.mispredicts", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(5), PERF_TYPE_HARDWARE, 5, 0);
}
END_TEST

START_TEST(cycles_is_the_tsc_where_there_is_one)
{
	ck_assert_int_eq(enc(UNIT_INTEL, "cycles", PMC_MODE_SC), 0);
	expect(PMC_CLASS_TSC, PMC_EV_TSC_TSC, 0, 0, 0);
	ck_assert_int_eq(enc(UNIT_GENERIC, "cycles", PMC_MODE_SC), 0);
	expect(PMC_CLASS_TSC, PMC_EV_TSC_TSC, 0, 0, 0);
	ck_assert_int_eq(enc(UNIT_SOFT_ONLY, "cycles", PMC_MODE_SC), EOPNOTSUPP);
}
END_TEST

/* No hardware PMU: instructions and unhalted-cycles count a SOFT clock. */
START_TEST(generic_cpu_counts_instructions_with_a_soft_clock)
{
	ck_assert_int_eq(enc(UNIT_GENERIC, "instructions", PMC_MODE_TC), 0);
	expect(PMC_CLASS_SOFT, SOFT(PERF_COUNT_SW_TASK_CLOCK), PERF_TYPE_SOFTWARE,
	       PERF_COUNT_SW_TASK_CLOCK, 0);
	ck_assert_int_eq(enc(UNIT_GENERIC, "instructions", PMC_MODE_TS), 0);
	expect(PMC_CLASS_SOFT, SOFT(PERF_COUNT_SW_TASK_CLOCK), PERF_TYPE_SOFTWARE,
	       PERF_COUNT_SW_TASK_CLOCK, PMC_CAP_INTERRUPT);
	ck_assert_int_eq(enc(UNIT_GENERIC, "instructions", PMC_MODE_SC), 0);
	expect(PMC_CLASS_SOFT, SOFT(PERF_COUNT_SW_CPU_CLOCK), PERF_TYPE_SOFTWARE,
	       PERF_COUNT_SW_CPU_CLOCK, 0);
	ck_assert_int_eq(enc(UNIT_GENERIC, "unhalted-cycles", PMC_MODE_SS), 0);
	expect(PMC_CLASS_SOFT, SOFT(PERF_COUNT_SW_CPU_CLOCK), PERF_TYPE_SOFTWARE,
	       PERF_COUNT_SW_CPU_CLOCK, PMC_CAP_INTERRUPT);

	ck_assert_int_eq(enc(UNIT_GENERIC, "branches", PMC_MODE_TC), EOPNOTSUPP);
	ck_assert_int_eq(enc(UNIT_GENERIC, "branch-mispredicts", PMC_MODE_TC), EOPNOTSUPP);
	ck_assert_int_eq(enc(UNIT_GENERIC, "dc-misses", PMC_MODE_TC), EOPNOTSUPP);
	ck_assert_int_eq(enc(UNIT_GENERIC, "ic-misses", PMC_MODE_TC), EOPNOTSUPP);
	ck_assert_int_eq(enc(UNIT_GENERIC, "interrupts", PMC_MODE_TC), EOPNOTSUPP);
	/* A hardware name is unknown there, as in FreeBSD's tables. */
	ck_assert_int_eq(enc(UNIT_GENERIC, "cpu-cycles", PMC_MODE_TC), EINVAL);
}
END_TEST

START_TEST(soft_events_by_the_drivers_names)
{
	static const struct { const char *spec; uint64_t config; } t[] = {
		{ "SOFT-task-clock", PERF_COUNT_SW_TASK_CLOCK },
		{ "soft-TASK_CLOCK", PERF_COUNT_SW_TASK_CLOCK },
		{ "SOFT-cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
		{ "SOFT-page.faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "SOFT-context switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "SOFT-CPU-MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "SOFT-minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "SOFT-major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
		{ "SOFT-alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
		{ "SOFT-emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
		{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },	/* no prefix */
		{ "Context_Switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	};
	size_t i;

	for (i = 0; i < PMC_ARRAY_SIZE(t); i++) {
		ck_assert_msg(enc(UNIT_GENERIC, t[i].spec, PMC_MODE_TC) == 0,
			      "%s", t[i].spec);
		expect(PMC_CLASS_SOFT, SOFT((uint32_t)t[i].config),
		       PERF_TYPE_SOFTWARE, t[i].config, 0);
	}
	ck_assert_int_eq(enc(UNIT_GENERIC, "SOFT-no-such-event", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_GENERIC, "SOFT-", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_GENERIC, "SOFT-task-clock,edge", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_GENERIC, "SOFT-task-clock,cmask=1", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_GENERIC, "SOFT-task-clock,usr", PMC_MODE_TC), 0);
	expect(PMC_CLASS_SOFT, SOFT(1), PERF_TYPE_SOFTWARE, 1, PMC_CAP_USER);
	ck_assert_int_eq(enc(UNIT_GENERIC, "SOFT-task-clock,os", PMC_MODE_TC), 0);
	expect(PMC_CLASS_SOFT, SOFT(1), PERF_TYPE_SOFTWARE, 1, PMC_CAP_SYSTEM);
}
END_TEST

START_TEST(tsc_tsc_takes_no_qualifier)
{
	ck_assert_int_eq(enc(UNIT_GENERIC, "TSC-TSC", PMC_MODE_SC), 0);
	expect(PMC_CLASS_TSC, PMC_EV_TSC_TSC, 0, 0, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "tsc-tsc", PMC_MODE_SC), 0);
	expect(PMC_CLASS_TSC, PMC_EV_TSC_TSC, 0, 0, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "tsc", PMC_MODE_SC), 0);
	expect(PMC_CLASS_TSC, PMC_EV_TSC_TSC, 0, 0, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "TSC-TSC,usr", PMC_MODE_SC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "TSC-TSC,edge", PMC_MODE_SC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "TSC-cycles", PMC_MODE_SC), EINVAL);
	ck_assert_int_eq(enc(UNIT_SOFT_ONLY, "TSC-TSC", PMC_MODE_SC), EINVAL);
	ck_assert_int_eq(enc(UNIT_SOFT_ONLY, "tsc", PMC_MODE_SC), EINVAL);
}
END_TEST

START_TEST(class_prefixes_restrict_the_search)
{
	ck_assert_int_eq(enc(UNIT_INTEL, "IAP-branch-misses", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(5), PERF_TYPE_HARDWARE, 5, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "cache-misses", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(3), PERF_TYPE_HARDWARE, 3, 0);
	ck_assert_int_eq(enc(UNIT_AMD, "K8-ref-cycles", PMC_MODE_TC), 0);
	expect(PMC_CLASS_K8, GEN(9), PERF_TYPE_HARDWARE, 9, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "IAF-instr-retired.any", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAF, GEN(1), PERF_TYPE_HARDWARE, 1, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "iaf-cpu-clk-unhalted.core", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAF, GEN(0), PERF_TYPE_HARDWARE, 0, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "IAF-CPU_CLK_UNHALTED.REF", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAF, GEN(9), PERF_TYPE_HARDWARE, 9, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "IAF-instructions,usr", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAF, GEN(1), PERF_TYPE_HARDWARE, 1, PMC_CAP_USER);

	/* Classes the machine does not have, events a class does not have. */
	ck_assert_int_eq(enc(UNIT_INTEL, "K8-cpu-cycles", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_AMD, "IAP-cpu-cycles", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_AMD, "IAF-instructions", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "IAF-branch-misses", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "IAP-task-clock", PMC_MODE_TC), EINVAL);
	/* Aliases are not looked up behind a prefix. */
	ck_assert_int_eq(enc(UNIT_GENERIC, "SOFT-instructions", PMC_MODE_TC), EINVAL);
}
END_TEST

START_TEST(bad_specifiers_and_modes_are_einval)
{
	static const char *const bad[] = {
		"", ",usr", "instructions,", "instructions,,usr",
		"no-such-event", "instructions,bogus", "instructions,usr=1",
		"instructions,edge", "instructions,cmask=1", "instructions,umask=1",
		"instructions,inv",
	};
	size_t i;

	for (i = 0; i < PMC_ARRAY_SIZE(bad); i++) {
		ck_assert_msg(enc(UNIT_INTEL, bad[i], PMC_MODE_TC) == EINVAL,
			      "\"%s\"", bad[i]);
		/* A failed parse leaves nothing half-filled. */
		ck_assert_uint_eq(req.pm_class, 0);
		ck_assert_uint_eq(req.pm_caps, 0);
	}
	ck_assert_int_eq(enc(UNIT_INTEL, "instructions", PMC_MODE_INVALID), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "instructions", (enum pmc_mode)-1), EINVAL);
	ck_assert_int_eq(pmc__spec_encode(unit_machine(UNIT_INTEL), NULL,
					  PMC_MODE_TC, &req), EINVAL);
}
END_TEST

START_TEST(usr_and_os_qualifiers_set_the_capabilities)
{
	ck_assert_int_eq(enc(UNIT_INTEL, "instructions,usr", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(1), PERF_TYPE_HARDWARE, 1, PMC_CAP_USER);
	ck_assert_int_eq(enc(UNIT_INTEL, "instructions,OS", PMC_MODE_TS), 0);
	expect(PMC_CLASS_IAP, GEN(1), PERF_TYPE_HARDWARE, 1,
	       PMC_CAP_SYSTEM | PMC_CAP_INTERRUPT);
	ck_assert_int_eq(enc(UNIT_INTEL, "instructions,usr,os", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(1), PERF_TYPE_HARDWARE, 1,
	       PMC_CAP_USER | PMC_CAP_SYSTEM);
}
END_TEST

/* libpfm4 names, on a Skylake whatever the host. */
START_TEST(libpfm4_names_on_intel)
{
	setenv("LIBPFM_FORCE_PMU", "skl", 1);

	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0, 0);
	ck_assert_uint_eq(req.pm_md.pm_config1, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:ANY_P", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "IAP-inst_retired.any_p", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0, 0);
	/* FreeBSD's spelling: '-' for '_'. */
	ck_assert_int_eq(enc(UNIT_INTEL, "iap-cpu-clk-unhalted.thread_p", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0x3c, 0);
	/* libpfm4 modifiers give the privilege levels. */
	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:ANY_P:u", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0, PMC_CAP_USER);
	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:ANY_P:k", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0, PMC_CAP_SYSTEM);
	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:ANY_P:c=1:i", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0x18000c0, 0);
	/* Extra registers: offcore response in config1. */
	ck_assert_int_eq(enc(UNIT_INTEL, "offcore_response_0:any_request:any_response",
			     PMC_MODE_TC), 0);
	ck_assert_uint_eq(req.pm_md.pm_type, PERF_TYPE_RAW);
	ck_assert_uint_eq(req.pm_md.pm_config, 0x1b7);
	ck_assert_uint_eq(req.pm_md.pm_config1, 0x18007);
	/* The interrupts alias, through libpfm4. */
	ck_assert_int_eq(enc(UNIT_INTEL, "interrupts", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0x1cb, 0);

	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:NO_SUCH_UMASK", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "RETIRED_INSTRUCTIONS", PMC_MODE_TC), EINVAL);
	/* No hardware class: libpfm4 is not asked. */
	ck_assert_int_eq(enc(UNIT_GENERIC, "inst_retired.any_p", PMC_MODE_TC), EINVAL);
}
END_TEST

/* libcpc's spellings resolve in pmc(3) too: one vocabulary (docs/events.md). */
START_TEST(papi_and_fixed_counter_names_resolve_as_in_libcpc)
{
	setenv("LIBPFM_FORCE_PMU", "skl", 1);

	ck_assert_int_eq(enc(UNIT_INTEL, "PAPI_tot_ins", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(1), PERF_TYPE_HARDWARE,
	       PERF_COUNT_HW_INSTRUCTIONS, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "papi_l1_dcm", PMC_MODE_SC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_HW_CACHE,
	       L1_READ_MISS(PERF_COUNT_HW_CACHE_L1D), 0);
	/* Intel-only and AMD-only generic events follow the vendor. */
	ck_assert_int_eq(enc(UNIT_INTEL, "PAPI_l3_tcm", PMC_MODE_TC), 0);
	ck_assert_int_eq(enc(UNIT_AMD, "PAPI_l3_tcm", PMC_MODE_TC), EOPNOTSUPP);
	ck_assert_int_eq(enc(UNIT_AMD, "PAPI_l2_tcm", PMC_MODE_TC), 0);
	expect(PMC_CLASS_K8, GEN(3), PERF_TYPE_HARDWARE,
	       PERF_COUNT_HW_CACHE_MISSES, 0);
	/* Without a hardware PMU a PAPI name has no class to count it. */
	ck_assert_int_eq(enc(UNIT_GENERIC, "PAPI_tot_ins", PMC_MODE_TC),
			 EOPNOTSUPP);
	/* illumos' fixed-counter names, on the general-purpose class. */
	ck_assert_int_eq(enc(UNIT_INTEL, "instr_retired.any", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(1), PERF_TYPE_HARDWARE,
	       PERF_COUNT_HW_INSTRUCTIONS, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "cpu_clk_unhalted.thread,usr",
			     PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, GEN(0), PERF_TYPE_HARDWARE,
	       PERF_COUNT_HW_CPU_CYCLES, PMC_CAP_USER);
	ck_assert_int_eq(enc(UNIT_INTEL, "IAF-cpu_clk_unhalted.thread",
			     PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAF, GEN(0), PERF_TYPE_HARDWARE,
	       PERF_COUNT_HW_CPU_CYCLES, 0);
}
END_TEST

/*
 * The one privilege rule: qualifiers and the name's modifiers each name
 * levels; both: what they share, nothing shared is EINVAL; neither: 0
 * (the driver counts user and kernel).
 */
START_TEST(qualifiers_and_modifiers_follow_the_one_privilege_rule)
{
	setenv("LIBPFM_FORCE_PMU", "skl", 1);

	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:ANY_P", PMC_MODE_TC), 0);
	ck_assert_uint_eq(req.pm_caps, 0);
	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:ANY_P:u,usr",
			     PMC_MODE_TC), 0);
	ck_assert_uint_eq(req.pm_caps, PMC_CAP_USER);
	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:ANY_P:u,usr,os",
			     PMC_MODE_TC), 0);
	ck_assert_uint_eq(req.pm_caps, PMC_CAP_USER);
	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:ANY_P:k,usr",
			     PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "INST_RETIRED:ANY_P:u:k,os",
			     PMC_MODE_TC), 0);
	ck_assert_uint_eq(req.pm_caps, PMC_CAP_SYSTEM);
}
END_TEST

START_TEST(freebsd_qualifiers_edit_the_event_select)
{
	setenv("LIBPFM_FORCE_PMU", "skl", 1);

	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,usr", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0, PMC_CAP_USER);
	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,os", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0, PMC_CAP_SYSTEM);
	ck_assert_int_eq(enc(UNIT_INTEL,
			     "br_misp_retired.all_branches,edge,inv,cmask=2",
			     PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW,
	       0xc5 | (1u << 18) | (1u << 23) | (2u << 24),
	       PMC_CAP_EDGE | PMC_CAP_INVERT | PMC_CAP_THRESHOLD);
	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,umask=0x1,count=0377",
			     PMC_MODE_TS), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0xff0001c0,
	       PMC_CAP_QUALIFIER | PMC_CAP_THRESHOLD | PMC_CAP_INTERRUPT);
	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,mask=3,usr,os", PMC_MODE_TC), 0);
	expect(PMC_CLASS_IAP, PMC_EV_RAW, PERF_TYPE_RAW, 0x3c0,
	       PMC_CAP_QUALIFIER | PMC_CAP_USER | PMC_CAP_SYSTEM);

	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,cmask=256", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,cmask=", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,cmask=x", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,cmask=-1", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,umask=1x", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,edge=1", PMC_MODE_TC), EINVAL);
	ck_assert_int_eq(enc(UNIT_INTEL, "inst_retired.any_p,anythread", PMC_MODE_TC), EINVAL);
}
END_TEST

START_TEST(libpfm4_names_on_amd)
{
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);

	ck_assert_int_eq(enc(UNIT_AMD, "RETIRED_INSTRUCTIONS", PMC_MODE_TC), 0);
	expect(PMC_CLASS_K8, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0, 0);
	ck_assert_int_eq(enc(UNIT_AMD, "K8-retired-instructions,usr", PMC_MODE_TC), 0);
	expect(PMC_CLASS_K8, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0, PMC_CAP_USER);
	ck_assert_int_eq(enc(UNIT_AMD, "retired_instructions:k,edge", PMC_MODE_TC), 0);
	expect(PMC_CLASS_K8, PMC_EV_RAW, PERF_TYPE_RAW, 0xc0 | (1u << 18),
	       PMC_CAP_SYSTEM | PMC_CAP_EDGE);
	ck_assert_int_eq(enc(UNIT_AMD, "interrupts", PMC_MODE_TC), 0);
	expect(PMC_CLASS_K8, PMC_EV_RAW, PERF_TYPE_RAW, 0x2c, 0);
	ck_assert_int_eq(enc(UNIT_AMD, "inst_retired.any_p", PMC_MODE_TC), EINVAL);
}
END_TEST

/* A PMU libpfm4 knows no interrupt event for. */
START_TEST(interrupts_without_an_event_is_eopnotsupp)
{
	setenv("LIBPFM_FORCE_PMU", "hsw", 1);
	ck_assert_int_eq(enc(UNIT_INTEL, "interrupts", PMC_MODE_TC), EOPNOTSUPP);
}
END_TEST

Suite *spec_suite(void)
{
	Suite *s = suite_create("spec");
	TCase *tc = tcase_create("spec");

	tcase_add_test(tc, generic_aliases_map_to_perf_events_on_the_hardware_class);
	tcase_add_test(tc, sampling_modes_ask_for_interrupts);
	tcase_add_test(tc, aliases_compare_as_freebsd_names);
	tcase_add_test(tc, cycles_is_the_tsc_where_there_is_one);
	tcase_add_test(tc, generic_cpu_counts_instructions_with_a_soft_clock);
	tcase_add_test(tc, soft_events_by_the_drivers_names);
	tcase_add_test(tc, tsc_tsc_takes_no_qualifier);
	tcase_add_test(tc, class_prefixes_restrict_the_search);
	tcase_add_test(tc, bad_specifiers_and_modes_are_einval);
	tcase_add_test(tc, usr_and_os_qualifiers_set_the_capabilities);
	tcase_add_test(tc, libpfm4_names_on_intel);
	tcase_add_test(tc, freebsd_qualifiers_edit_the_event_select);
	tcase_add_test(tc, papi_and_fixed_counter_names_resolve_as_in_libcpc);
	tcase_add_test(tc, qualifiers_and_modifiers_follow_the_one_privilege_rule);
	tcase_add_test(tc, libpfm4_names_on_amd);
	tcase_add_test(tc, interrupts_without_an_event_is_eopnotsupp);
	suite_add_tcase(s, tc);
	return s;
}
