// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_set.c - sets and requests: the index rules, illumos' checks of
 * cpc_set_add_request in order with their messages, private copies, and
 * cpc_walk_requests.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static cpc_t *open_recording(struct fake_pmc *fp, enum fake_machine m)
{
	cpc_t *cpc = fake_open(fp, m);
	cpc_errhndlr_t *h;

	ck_assert_ptr_nonnull(cpc);
	record_errors(&h);
	errlog_reset();
	cpc_seterrhndlr(cpc, h);
	return cpc;
}

START_TEST(indexes_count_from_zero_in_add_order)
{
	struct fake_pmc fp;
	cpc_t *cpc = open_recording(&fp, FAKE_SOFT);
	cpc_set_t *set = cpc_set_create(cpc);

	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
					     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "page-faults", 0,
					     CPC_COUNT_USER, 0, NULL), 1);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
					     CPC_COUNT_SYSTEM, 0, NULL), 2);
	ck_assert_int_eq(errlog.calls, 0);
	cpc_close(cpc);
}
END_TEST

START_TEST(unknown_event_is_invalid_event)
{
	struct fake_pmc fp;
	cpc_t *cpc = open_recording(&fp, FAKE_SOFT);
	cpc_set_t *set = cpc_set_create(cpc);

	errno = 0;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "EC_ref", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_EVENT);
	ck_assert_str_eq(errlog.fn, "cpc_set_add_request");
	/* Without a PMU a raw code names nothing. */
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0xc0", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_EVENT);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "PAPI_tot_cyc", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errlog.calls, 3);
	cpc_close(cpc);
}
END_TEST

START_TEST(raw_codes_need_a_pmu_and_parse_whole)
{
	struct fake_pmc fp;
	cpc_t *cpc = open_recording(&fp, FAKE_INTEL);
	cpc_set_t *set = cpc_set_create(cpc);

	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0xc0", 0,
					     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "192", 0,
					     CPC_COUNT_USER, 0, NULL), 1);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0", 0,
					     CPC_COUNT_USER, 0, NULL), 2);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0xc0g", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_EVENT);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "-1", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	cpc_close(cpc);
}
END_TEST

START_TEST(attributes_are_checked_by_name_then_picnum)
{
	struct fake_pmc fp;
	cpc_t *cpc = open_recording(&fp, FAKE_INTEL);
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t bad_name = { "nosuch", 1 };
	cpc_attr_t empty = { "", 1 };
	cpc_attr_t pic7 = { "picnum", 7 };
	cpc_attr_t pic4 = { "picnum", 4 };
	cpc_attr_t pic0 = { "picnum", 0 };
	cpc_attr_t two[2] = { { "umask", 0x1 }, { "picnum", 3 } };

	ck_assert_int_eq(cpc_set_add_request(cpc, set, "inst_retired.any_p", 0,
					     CPC_COUNT_USER, 1, &bad_name), -1);
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_ATTRIBUTE);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "inst_retired.any_p", 0,
					     CPC_COUNT_USER, 1, &empty), -1);
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_ATTRIBUTE);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "inst_retired.any_p", 0,
					     CPC_COUNT_USER, 1, &pic7), -1);
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_PICNUM);
	/* pic 4 is fixed counter 0: it counts instr_retired.any only. */
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "inst_retired.any_p", 0,
					     CPC_COUNT_USER, 1, &pic4), -1);
	ck_assert_int_eq(errlog.subcode, CPC_PIC_NOT_CAPABLE);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "instr_retired.any", 0,
					     CPC_COUNT_USER, 1, &pic0), -1);
	ck_assert_int_eq(errlog.subcode, CPC_PIC_NOT_CAPABLE);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "instr_retired.any", 0,
					     CPC_COUNT_USER, 1, &pic4), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "inst_retired.any_p", 0,
					     CPC_COUNT_USER, 2, two), 1);
	/* Values are not checked before bind. */
	two[0].ca_val = 0x1000;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "inst_retired.any_p", 0,
					     CPC_COUNT_USER, 1, two), 2);
	cpc_close(cpc);
}
END_TEST

START_TEST(picnum_is_the_only_attribute_without_pmu)
{
	struct fake_pmc fp;
	cpc_t *cpc = open_recording(&fp, FAKE_SOFT);
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t pic = { "picnum", 14 }, umask = { "umask", 1 };

	ck_assert_int_eq(cpc_set_add_request(cpc, set, "page-faults", 0,
					     CPC_COUNT_USER, 1, &pic), 0);
	pic.ca_val = 15;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "page-faults", 0,
					     CPC_COUNT_USER, 1, &pic), -1);
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_PICNUM);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "page-faults", 0,
					     CPC_COUNT_USER, 1, &umask), -1);
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_ATTRIBUTE);
	cpc_close(cpc);
}
END_TEST

START_TEST(foreign_or_bound_sets_are_einval_without_message)
{
	struct fake_pmc fp, fp2;
	cpc_t *cpc = open_recording(&fp, FAKE_SOFT);
	cpc_t *other = fake_open(&fp2, FAKE_SOFT);
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_set_t *theirs = cpc_set_create(other);

	ck_assert_int_eq(cpc_set_add_request(cpc, theirs, "task-clock", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_set_destroy(cpc, theirs), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(cpc_buf_create(cpc, theirs));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
					     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(errlog.calls, 0);
	cpc_close(other);
	cpc_close(cpc);
}
END_TEST

START_TEST(requests_keep_private_truncated_copies)
{
	struct fake_pmc fp;
	cpc_t *cpc = open_recording(&fp, FAKE_SOFT);
	cpc_set_t *set = cpc_set_create(cpc);
	char *ev = strdup("task-clock");
	char *aname = strdup("picnum");
	char longname[CPC_MAX_EVENT_LEN + 20];
	cpc_attr_t attr = { aname, 3 };

	ck_assert_int_eq(cpc_set_add_request(cpc, set, ev, 7, CPC_COUNT_USER,
					     1, &attr), 0);
	free(ev);
	free(aname);
	ck_assert_str_eq(set->reqs[0].event, "task-clock");
	ck_assert_str_eq(set->reqs[0].attrs[0].ca_name, "picnum");
	ck_assert_uint_eq(set->reqs[0].attrs[0].ca_val, 3);
	ck_assert_uint_eq(set->reqs[0].preset, 7);

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(cpc_set_add_request(cpc, set, longname, 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_EVENT);
	cpc_close(cpc);
}
END_TEST

struct walked {
	int n;
	int index[8];
	char event[8][32];
	uint64_t preset[8];
	uint_t flags[8];
	int nattrs[8];
};

static void walk_cb(void *arg, int index, const char *event, uint64_t preset,
		    uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	struct walked *w = arg;

	(void)attrs;
	w->index[w->n] = index;
	strncpy(w->event[w->n], event, sizeof(w->event[0]) - 1);
	w->preset[w->n] = preset;
	w->flags[w->n] = flags;
	w->nattrs[w->n] = nattrs;
	w->n++;
}

START_TEST(walk_requests_reports_newest_first)
{
	struct fake_pmc fp;
	cpc_t *cpc = open_recording(&fp, FAKE_SOFT);
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t attr = { "picnum", 2 };
	struct walked w = { 0 };

	cpc_set_add_request(cpc, set, "task-clock", 11, CPC_COUNT_USER, 0,
			    NULL);
	cpc_set_add_request(cpc, set, "page-faults", 22,
			    CPC_COUNT_USER | CPC_COUNT_SYSTEM, 1, &attr);
	cpc_walk_requests(cpc, set, &w, walk_cb);
	ck_assert_int_eq(w.n, 2);
	ck_assert_int_eq(w.index[0], 1);
	ck_assert_str_eq(w.event[0], "page-faults");
	ck_assert_uint_eq(w.preset[0], 22);
	ck_assert_uint_eq(w.flags[0], CPC_COUNT_USER | CPC_COUNT_SYSTEM);
	ck_assert_int_eq(w.nattrs[0], 1);
	ck_assert_int_eq(w.index[1], 0);
	ck_assert_str_eq(w.event[1], "task-clock");
	ck_assert_int_eq(w.nattrs[1], 0);
	/* A foreign set is not walked. */
	w.n = 0;
	cpc_walk_requests(cpc, NULL, &w, walk_cb);
	ck_assert_int_eq(w.n, 0);
	cpc_close(cpc);
}
END_TEST

START_TEST(set_destroy_unlinks_once)
{
	struct fake_pmc fp;
	cpc_t *cpc = open_recording(&fp, FAKE_SOFT);
	cpc_set_t *a = cpc_set_create(cpc), *b = cpc_set_create(cpc);

	ck_assert_int_eq(cpc_set_destroy(cpc, a), 0);
	ck_assert_ptr_eq(cpc->sets, b);
	ck_assert_ptr_null(b->next);
	ck_assert_int_eq(cpc_set_destroy(cpc, b), 0);
	ck_assert_ptr_null(cpc->sets);
	ck_assert_ptr_null(cpc_set_create(NULL));
	ck_assert_int_eq(errno, EINVAL);
	cpc_close(cpc);
}
END_TEST

Suite *set_suite(void)
{
	Suite *s = suite_create("set");
	TCase *tc = tcase_create("requests");

	tcase_add_test(tc, indexes_count_from_zero_in_add_order);
	tcase_add_test(tc, unknown_event_is_invalid_event);
	tcase_add_test(tc, raw_codes_need_a_pmu_and_parse_whole);
	tcase_add_test(tc, attributes_are_checked_by_name_then_picnum);
	tcase_add_test(tc, picnum_is_the_only_attribute_without_pmu);
	tcase_add_test(tc, foreign_or_bound_sets_are_einval_without_message);
	tcase_add_test(tc, requests_keep_private_truncated_copies);
	tcase_add_test(tc, walk_requests_reports_newest_first);
	tcase_add_test(tc, set_destroy_unlinks_once);
	suite_add_tcase(s, tc);
	return s;
}
