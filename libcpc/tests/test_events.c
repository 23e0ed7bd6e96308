// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_events.c - the event catalogue and walkers on the three simulated
 * machines (libpfm4 forced to model a Skylake core PMU), the attribute
 * list, and how requests are encoded into PMCALLOCATE descriptors.
 */
#include <errno.h>
#include <string.h>

#include <linux/perf_event.h>

#include "unit.h"

struct names {
	int n;
	uint_t pic;
	bool saw[8];
	const char *want[8];
};

static void note(struct names *nm, const char *event)
{
	int i;

	nm->n++;
	for (i = 0; i < 8 && nm->want[i]; i++)
		if (!strcmp(nm->want[i], event))
			nm->saw[i] = true;
}

static void all_cb(void *arg, const char *event)
{
	note(arg, event);
}

static void pic_cb(void *arg, uint_t picno, const char *event)
{
	struct names *nm = arg;

	ck_assert_uint_eq(picno, nm->pic);
	note(nm, event);
}

static void attr_cb(void *arg, const char *attr)
{
	struct names *nm = arg;

	ck_assert_int_lt(nm->n, 8);
	nm->want[nm->n++] = attr;
}

START_TEST(soft_machine_lists_software_events_on_every_pic)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_SOFT);
	struct names nm = { .want = { "task-clock", "page-faults",
				      "cpu-clock" } };
	uint_t pic;

	cpc_walk_events_all(cpc, &nm, all_cb);
	ck_assert_int_eq(nm.n, 9);
	ck_assert(nm.saw[0] && nm.saw[1] && nm.saw[2]);
	for (pic = 0; pic < cpc_npic(cpc); pic++) {
		memset(&nm, 0, sizeof(nm));
		nm.pic = pic;
		cpc_walk_events_pic(cpc, pic, &nm, pic_cb);
		ck_assert_int_eq(nm.n, 9);
		cpc_walk_generic_events_pic(cpc, pic, &nm, pic_cb);
		ck_assert_int_eq(nm.n, 9);
	}
	memset(&nm, 0, sizeof(nm));
	cpc_walk_generic_events_all(cpc, &nm, all_cb);
	ck_assert_int_eq(nm.n, 0);
	cpc_walk_attrs(cpc, &nm, attr_cb);
	ck_assert_int_eq(nm.n, 1);
	ck_assert_str_eq(nm.want[0], "picnum");
	cpc_close(cpc);
}
END_TEST

START_TEST(walking_a_pic_past_npic_is_einval)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);
	struct names nm = { 0 };

	errno = 0;
	nm.pic = 7;
	cpc_walk_events_pic(cpc, 7, &nm, pic_cb);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	cpc_walk_generic_events_pic(cpc, 7, &nm, pic_cb);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(nm.n, 0);
	cpc_close(cpc);
}
END_TEST

START_TEST(intel_lists_platform_fixed_soft_and_generic_events)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);
	struct names all = { .want = { "inst_retired.any_p", "instr_retired.any",
				       "task-clock", "br_misp_retired",
				       "PAPI_tot_cyc" } };
	struct names gen = { .want = { "PAPI_tot_cyc", "PAPI_l3_tcm",
				       "PAPI_l2_tcm", "PAPI_l1_dcm" } };
	struct names attrs = { 0 };

	cpc_walk_events_all(cpc, &all, all_cb);
	ck_assert_int_gt(all.n, 400);	/* skl: ~500 names with unit masks */
	ck_assert(all.saw[0] && all.saw[1] && all.saw[2] && all.saw[3]);
	ck_assert(!all.saw[4]);	/* generic names are walked apart */
	cpc_walk_generic_events_all(cpc, &gen, all_cb);
	ck_assert(gen.saw[0] && gen.saw[1] && gen.saw[3]);
	ck_assert(!gen.saw[2]);	/* AMD's mapping only */
	cpc_walk_attrs(cpc, &attrs, attr_cb);
	ck_assert_int_eq(attrs.n, 5);
	ck_assert_str_eq(attrs.want[0], "edge");
	ck_assert_str_eq(attrs.want[1], "inv");
	ck_assert_str_eq(attrs.want[2], "umask");
	ck_assert_str_eq(attrs.want[3], "cmask");
	ck_assert_str_eq(attrs.want[4], "picnum");
	cpc_close(cpc);
}
END_TEST

START_TEST(intel_fixed_pics_count_their_own_events)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);
	struct names nm = { .want = { "instr_retired.any", "task-clock",
				      "inst_retired.any_p" } };
	struct names gp = { .want = { "PAPI_tot_cyc", "PAPI_tot_ins" } };

	nm.pic = 4;	/* fixed counter 0 */
	cpc_walk_events_pic(cpc, 4, &nm, pic_cb);
	ck_assert(nm.saw[0] && nm.saw[1] && !nm.saw[2]);
	ck_assert_int_eq(nm.n, 10);	/* its event and 9 software events */
	gp.pic = 5;	/* fixed counter 1: cycles */
	cpc_walk_generic_events_pic(cpc, 5, &gp, pic_cb);
	ck_assert(gp.saw[0] && !gp.saw[1]);
	ck_assert_int_eq(gp.n, 1);
	cpc_close(cpc);
}
END_TEST

START_TEST(amd_maps_cache_generics_to_l2)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_AMD);
	struct names gen = { .want = { "PAPI_l2_tcm", "PAPI_l3_tcm",
				       "PAPI_stl_icy" } };

	cpc_walk_generic_events_all(cpc, &gen, all_cb);
	ck_assert(gen.saw[0] && !gen.saw[1] && gen.saw[2]);
	cpc_close(cpc);
}
END_TEST

START_TEST(event_names_match_case_insensitively)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);

	ck_assert_ptr_nonnull(cpc_event_find(cpc, "INST_RETIRED.ANY_P"));
	ck_assert_ptr_nonnull(cpc_event_find(cpc, "papi_tot_cyc"));
	ck_assert_ptr_null(cpc_event_find(cpc, "inst_retired:any_p"));
	cpc_close(cpc);
}
END_TEST

/* Bind one request, return the PMC the fake allocated for it. */
static struct fake_pmcobj *bind_one(struct fake_pmc *fp, cpc_t *cpc,
				    const char *event, uint_t nattrs,
				    const cpc_attr_t *attrs, int *err,
				    int *subcode)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_errhndlr_t *h;

	record_errors(&h);
	errlog_reset();
	cpc_seterrhndlr(cpc, h);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, event, 0,
					     CPC_COUNT_USER, nattrs, attrs), 0);
	if (cpc_bind_curlwp(cpc, set, 0) < 0) {
		*err = errno;
		*subcode = errlog.subcode;
		return NULL;
	}
	*err = 0;
	*subcode = 0;
	return fake_pmc_by_id(fp, set->reqs[0].pmcid);
}

START_TEST(platform_events_encode_through_libpfm_with_attributes)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);
	cpc_attr_t a[4] = {
		{ "umask", 0x01 }, { "cmask", 2 }, { "edge", 1 }, { "inv", 1 },
	};
	struct fake_pmcobj *o;
	int err, sub;

	o = bind_one(&fp, cpc, "inst_retired.any_p", 0, NULL, &err, &sub);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_class, PMC_CLASS_IAP);
	ck_assert_uint_eq(o->alloc.pm_ev, PMC_EV_RAW);
	ck_assert_uint_eq(o->alloc.pm_md.pm_type, PERF_TYPE_RAW);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config, 0xc0);
	ck_assert_uint_eq(o->alloc.pm_caps, PMC_CAP_USER);
	o = bind_one(&fp, cpc, "inst_retired.any_p", 4, a, &err, &sub);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config,
			  0xc0 | 0x0100 | (1u << 18) | (1u << 23) | (2u << 24));
	/* Offcore events keep libpfm4's extra register in config1. */
	o = bind_one(&fp, cpc, "offcore_response_0.dmnd_data_rd", 0, NULL,
		     &err, &sub);
	if (o)
		ck_assert_uint_eq(o->alloc.pm_md.pm_config & 0xff, 0xb7);
	cpc_close(cpc);
}
END_TEST

START_TEST(attribute_values_are_checked_at_bind)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);
	cpc_attr_t big = { "umask", 0x100 }, cm = { "cmask", 0x1ff };
	cpc_attr_t um = { "umask", 1 };
	int err, sub;

	ck_assert_ptr_null(bind_one(&fp, cpc, "inst_retired.any_p", 1, &big,
				    &err, &sub));
	ck_assert_int_eq(err, EINVAL);
	ck_assert_int_eq(sub, CPC_ATTRIBUTE_OUT_OF_RANGE);
	ck_assert_str_eq(errlog.fn, "cpc_bind_curlwp");
	ck_assert_ptr_null(bind_one(&fp, cpc, "inst_retired.any_p", 1, &cm,
				    &err, &sub));
	ck_assert_int_eq(sub, CPC_ATTRIBUTE_OUT_OF_RANGE);
	/* Generic events take no attributes (illumos: out of range). */
	ck_assert_ptr_null(bind_one(&fp, cpc, "PAPI_tot_ins", 1, &um, &err,
				    &sub));
	ck_assert_int_eq(sub, CPC_ATTRIBUTE_OUT_OF_RANGE);
	/* Nor do software events (unknown attribute for them). */
	ck_assert_ptr_null(bind_one(&fp, cpc, "task-clock", 1, &um, &err,
				    &sub));
	ck_assert_int_eq(sub, CPC_INVALID_ATTRIBUTE);
	ck_assert_int_eq(fake_live(&fp), 0);
	cpc_close(cpc);
}
END_TEST

START_TEST(generic_events_use_perf_generic_descriptors)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);
	cpc_attr_t fixed1 = { "picnum", 5 };
	struct fake_pmcobj *o;
	int err, sub;

	o = bind_one(&fp, cpc, "PAPI_tot_cyc", 0, NULL, &err, &sub);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_class, PMC_CLASS_IAP);
	ck_assert_uint_eq(o->alloc.pm_md.pm_type, PERF_TYPE_HARDWARE);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config, PERF_COUNT_HW_CPU_CYCLES);
	ck_assert_uint_eq(o->alloc.pm_ev,
			  PMC_EV_GENERIC_FIRST + PERF_COUNT_HW_CPU_CYCLES);
	o = bind_one(&fp, cpc, "PAPI_tot_cyc", 1, &fixed1, &err, &sub);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_class, PMC_CLASS_IAF);
	o = bind_one(&fp, cpc, "PAPI_l1_dcm", 0, NULL, &err, &sub);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_md.pm_type, PERF_TYPE_HW_CACHE);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config,
			  PERF_COUNT_HW_CACHE_L1D |
			  (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	o = bind_one(&fp, cpc, "instr_retired.any", 0, NULL, &err, &sub);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_class, PMC_CLASS_IAF);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config, PERF_COUNT_HW_INSTRUCTIONS);
	cpc_close(cpc);
}
END_TEST

/* pmc(3)'s vocabulary in libcpc: aliases, perf's names, libpfm4 spellings. */
START_TEST(names_outside_the_catalogue_resolve_as_in_pmc3)
{
	static const struct {
		enum fake_machine m;
		const char *name;
		int pic;		/* -1: any */
		uint32_t cls, type;
		uint64_t config;
	} t[] = {
		{ FAKE_INTEL, "instructions", -1, PMC_CLASS_IAP,
		  PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		/* An alias of a fixed counter's event may use that counter. */
		{ FAKE_INTEL, "instructions", 4, PMC_CLASS_IAF,
		  PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		/* "cycles": libcpc has no TSC counter, so the core's cycles. */
		{ FAKE_INTEL, "cycles", -1, PMC_CLASS_IAP,
		  PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ FAKE_AMD, "branch-misses", -1, PMC_CLASS_K8,
		  PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
		/* libpfm4's own spelling, and FreeBSD's. */
		{ FAKE_INTEL, "INST_RETIRED:ANY_P", -1, PMC_CLASS_IAP,
		  PERF_TYPE_RAW, 0xc0 },
		{ FAKE_INTEL, "cpu-clk-unhalted.thread-p", -1, PMC_CLASS_IAP,
		  PERF_TYPE_RAW, 0x3c },
		/* Software names compare as FreeBSD's: '_' for '-', any case. */
		{ FAKE_INTEL, "TASK_CLOCK", -1, PMC_CLASS_SOFT,
		  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
		/* No PMU: "instructions" counts the thread's clock, as in pmc(3). */
		{ FAKE_SOFT, "instructions", -1, PMC_CLASS_SOFT,
		  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	};
	struct fake_pmcobj *o;
	struct fake_pmc fp;
	cpc_attr_t pic;
	int err, sub;
	size_t i;
	cpc_t *cpc;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cpc = fake_open(&fp, t[i].m);
		pic = (cpc_attr_t){ "picnum", (uint64_t)t[i].pic };
		o = bind_one(&fp, cpc, t[i].name, t[i].pic < 0 ? 0 : 1, &pic,
			     &err, &sub);
		ck_assert_msg(o, "%s: errno %d, subcode %d", t[i].name, err, sub);
		ck_assert_uint_eq(o->alloc.pm_class, t[i].cls);
		ck_assert_uint_eq(o->alloc.pm_md.pm_type, t[i].type);
		ck_assert_uint_eq(o->alloc.pm_md.pm_config, t[i].config);
		cpc_close(cpc);
	}
}
END_TEST

/* Flags and the name's modifiers follow pmc(3)'s privilege rule. */
START_TEST(modifiers_meet_the_request_flags)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);
	cpc_set_t *set;
	struct fake_pmcobj *o;
	int err, sub;

	/* bind_one() asks for CPC_COUNT_USER. */
	o = bind_one(&fp, cpc, "INST_RETIRED:ANY_P:u", 0, NULL, &err, &sub);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_caps & (PMC_CAP_USER | PMC_CAP_SYSTEM),
			  PMC_CAP_USER);
	ck_assert_ptr_null(bind_one(&fp, cpc, "INST_RETIRED:ANY_P:k", 0, NULL,
				    &err, &sub));
	ck_assert_int_eq(err, EINVAL);
	ck_assert_int_eq(sub, CPC_REQ_INVALID_FLAGS);
	/* User and system asked, the name says kernel: the kernel only. */
	set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "INST_RETIRED:ANY_P:k",
					     0, CPC_COUNT_USER |
					     CPC_COUNT_SYSTEM, 0, NULL), 0);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	o = fake_pmc_by_id(&fp, set->reqs[0].pmcid);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_caps & (PMC_CAP_USER | PMC_CAP_SYSTEM),
			  PMC_CAP_SYSTEM);
	/* And what neither knows is an unknown event. */
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "no_such_event", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	cpc_close(cpc);
}
END_TEST

START_TEST(raw_codes_encode_the_event_select)
{
	struct fake_pmc fp, fa;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);
	cpc_t *amd = fake_open(&fa, FAKE_AMD);
	cpc_attr_t um = { "umask", 0x3 };
	struct fake_pmcobj *o;
	int err, sub;

	o = bind_one(&fp, cpc, "0xc4", 1, &um, &err, &sub);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_md.pm_type, PERF_TYPE_RAW);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config, 0x3c4);
	ck_assert_ptr_null(bind_one(&fp, cpc, "0x1c0", 0, NULL, &err, &sub));
	ck_assert_int_eq(sub, CPC_INVALID_EVENT);
	o = bind_one(&fa, amd, "0x1c0", 0, NULL, &err, &sub);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(o->alloc.pm_class, PMC_CLASS_K8);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config, 0x1000000c0ULL);
	cpc_close(amd);
	cpc_close(cpc);
}
END_TEST

START_TEST(assignment_backtracks_and_reports_unavailable)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);
	cpc_set_t *set = cpc_set_create(cpc);
	int pics[8], sub, i;

	cpc_set_add_request(cpc, set, "PAPI_tot_cyc", 0, CPC_COUNT_USER, 0, NULL);
	cpc_set_add_request(cpc, set, "instr_retired.any", 0, CPC_COUNT_USER, 0,
			    NULL);
	for (i = 0; i < 4; i++)
		cpc_set_add_request(cpc, set, "inst_retired.any_p", 0,
				    CPC_COUNT_USER, 0, NULL);
	/* 6 requests: cycles must move to fixed 1 to leave 4 gp pics. */
	ck_assert_int_eq(cpc_assign_pics(cpc, set, pics, &sub), 0);
	ck_assert_int_eq(pics[0], 5);
	ck_assert_int_eq(pics[1], 4);
	ck_assert_int_eq(pics[2], 0);
	ck_assert_int_eq(pics[5], 3);
	/* A fifth general-purpose event cannot be placed. */
	cpc_set_add_request(cpc, set, "br_misp_retired", 0, CPC_COUNT_USER, 0,
			    NULL);
	ck_assert_int_eq(cpc_assign_pics(cpc, set, pics, &sub), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(sub, CPC_RESOURCE_UNAVAIL);
	cpc_close(cpc);
}
END_TEST

Suite *events_suite(void)
{
	Suite *s = suite_create("events");
	TCase *tc = tcase_create("catalogue");

	tcase_add_test(tc, soft_machine_lists_software_events_on_every_pic);
	tcase_add_test(tc, walking_a_pic_past_npic_is_einval);
	tcase_add_test(tc, intel_lists_platform_fixed_soft_and_generic_events);
	tcase_add_test(tc, intel_fixed_pics_count_their_own_events);
	tcase_add_test(tc, amd_maps_cache_generics_to_l2);
	tcase_add_test(tc, event_names_match_case_insensitively);
	tcase_add_test(tc, platform_events_encode_through_libpfm_with_attributes);
	tcase_add_test(tc, attribute_values_are_checked_at_bind);
	tcase_add_test(tc, generic_events_use_perf_generic_descriptors);
	tcase_add_test(tc, raw_codes_encode_the_event_select);
	tcase_add_test(tc, names_outside_the_catalogue_resolve_as_in_pmc3);
	tcase_add_test(tc, modifiers_meet_the_request_flags);
	tcase_add_test(tc, assignment_backtracks_and_reports_unavailable);
	suite_add_tcase(s, tc);
	return s;
}
