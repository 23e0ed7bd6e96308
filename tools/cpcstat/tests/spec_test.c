// SPDX-License-Identifier: GPL-2.0
/* spec_test.c - the eventspec parser against illumos strtoset.c's rules. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../spec.h"
#include "fake_cpu.h"

static struct cpu_caps cpu;
static struct spec_set set;
static char err[SPEC_ERR_LEN];

static void setup(void)
{
	fake_cpu(&cpu);
	memset(&set, 0, sizeof(set));
	err[0] = '\0';
}

static void teardown(void)
{
	spec_free(&set);
	caps_free(&cpu);
}

static int parse(const char *text)
{
	spec_free(&set);
	return spec_parse(&cpu, text, &set, err, sizeof(err));
}

START_TEST(explicit_pics_become_requests_in_counter_order)
{
	ck_assert_int_eq(parse("pic1=inst_retired,pic0=cycles"), 0);
	ck_assert_uint_eq(set.nreqs, 2);
	ck_assert_uint_eq(set.reqs[0].pic, 0);
	ck_assert_str_eq(set.reqs[0].event, "cycles");
	ck_assert_uint_eq(set.reqs[1].pic, 1);
	ck_assert_str_eq(set.reqs[1].event, "inst_retired");
	ck_assert_str_eq(set.text, "pic1=inst_retired,pic0=cycles");
}
END_TEST

START_TEST(default_flags_count_user_only)
{
	ck_assert_int_eq(parse("cycles"), 0);
	ck_assert_uint_eq(set.reqs[0].flags, SPEC_COUNT_USER);
	ck_assert(!spec_system_only(&set));
}
END_TEST

START_TEST(sys_adds_system_and_nouser_removes_user_on_all_counters)
{
	ck_assert_int_eq(parse("cycles,inst_retired,sys"), 0);
	ck_assert_uint_eq(set.reqs[0].flags, SPEC_COUNT_USER | SPEC_COUNT_SYSTEM);
	ck_assert_uint_eq(set.reqs[1].flags, SPEC_COUNT_USER | SPEC_COUNT_SYSTEM);
	ck_assert_int_eq(parse("nouser,cycles,sys"), 0);
	ck_assert_uint_eq(set.reqs[0].flags, SPEC_COUNT_SYSTEM);
	ck_assert(spec_system_only(&set));
	ck_assert_int_eq(parse("cycles,nouser"), 0);
	ck_assert_uint_eq(set.reqs[0].flags, 0);
}
END_TEST

START_TEST(numbered_mode_tokens_change_one_counter)
{
	/* The man page's example: user instructions on pic0, kernel on pic1. */
	ck_assert_int_eq(parse("inst_retired,inst_retired,nouser1,sys1"), 0);
	ck_assert_uint_eq(set.nreqs, 2);
	ck_assert_uint_eq(set.reqs[0].flags, SPEC_COUNT_USER);
	ck_assert_uint_eq(set.reqs[1].flags, SPEC_COUNT_SYSTEM);
}
END_TEST

START_TEST(bare_events_go_after_the_highest_used_counter)
{
	ck_assert_int_eq(parse("pic1=cycles,inst_retired"), 0);
	ck_assert_uint_eq(set.reqs[1].pic, 2);
	ck_assert_str_eq(set.reqs[1].event, "inst_retired");
	/* Four bare events fill the four counters in order. */
	ck_assert_int_eq(parse("cycles,l2_miss,cycles,cycles"), 0);
	ck_assert_uint_eq(set.nreqs, 4);
	ck_assert_uint_eq(set.reqs[3].pic, 3);
}
END_TEST

START_TEST(generic_and_raw_events_are_accepted)
{
	ck_assert_int_eq(parse("PAPI_tot_cyc,PAPI_tot_ins"), 0);
	ck_assert_uint_eq(set.nreqs, 2);
	ck_assert_int_eq(parse("pic0=0x3c"), 0);
	ck_assert_str_eq(set.reqs[0].event, "0x3c");
}
END_TEST

START_TEST(raw_code_zero_is_refused)
{
	ck_assert_int_eq(parse("pic0=0"), -1);
	ck_assert_str_eq(err, "pic0 cannot measure event '0' on this cpu");
}
END_TEST

START_TEST(attributes_apply_to_one_or_all_counters)
{
	ck_assert_int_eq(parse("pic0=cycles,pic1=l2_miss,umask1=0x41,edge"), 0);
	ck_assert_uint_eq(set.reqs[0].nattrs, 1);
	ck_assert_str_eq(set.reqs[0].attrs[0].name, "edge");
	ck_assert_uint_eq(set.reqs[0].attrs[0].value, 1);
	ck_assert_uint_eq(set.reqs[1].nattrs, 2);
	ck_assert_str_eq(set.reqs[1].attrs[0].name, "umask");
	ck_assert_uint_eq(set.reqs[1].attrs[0].value, 0x41);
	ck_assert_int_eq(parse("cycles,cmask=010"), 0);
	ck_assert_uint_eq(set.reqs[0].attrs[0].value, 8);
}
END_TEST

START_TEST(errors_name_the_bad_token)
{
	ck_assert_int_eq(parse("cycles,foo=bar"), -1);
	ck_assert_str_eq(err, "bad token 'foo=bar'");
	ck_assert_int_eq(parse("nosuchevent"), -1);
	ck_assert_str_eq(err, "bad token 'nosuchevent'");
	ck_assert_int_eq(parse("pic0=cycles,pic0=l2_miss"), -1);
	ck_assert_str_eq(err, "repeated 'pic0' token");
	ck_assert_int_eq(parse("pic1="), -1);
	ck_assert_str_eq(err, "missing 'pic1' value");
	ck_assert_int_eq(parse("pic3=l2_miss"), -1);
	ck_assert_str_eq(err, "pic3 cannot measure event 'l2_miss' on this cpu");
	ck_assert_int_eq(parse("cycles,umask=zz"), -1);
	ck_assert_str_eq(err, "invalid value 'zz' for attribute 'umask'");
	ck_assert_int_eq(parse("pic9=cycles"), -1);
	ck_assert_str_eq(err, "bad token 'pic9=cycles'");
	ck_assert_int_eq(parse("cycles,picnum=1"), -1);
	ck_assert_str_eq(err, "bad token 'picnum=1'");
	ck_assert_int_eq(parse("cycles,,inst_retired"), -1);
	ck_assert_str_eq(err, "bad token ''");
	ck_assert_int_eq(parse("sys"), -1);
	ck_assert_str_eq(err, "no event in 'sys'");
}
END_TEST

START_TEST(no_free_counter_for_a_bare_event_is_a_bad_token)
{
	ck_assert_int_eq(parse("pic3=cycles,inst_retired"), -1);
	ck_assert_str_eq(err, "bad token 'inst_retired'");
}
END_TEST

START_TEST(columns_are_ten_characters)
{
	char col[32];
	struct cpu_caps big;

	ck_assert_int_eq(parse("pic0=cycles,pic1=cycles"), 0);
	spec_column(&set, 0, col, sizeof(col));
	ck_assert_str_eq(col, "     pic0 ");
	caps_init(&big, 16);
	name_list_add(&big.events[12], "x");
	spec_free(&set);
	ck_assert_int_eq(spec_parse(&big, "pic12=x", &set, err, sizeof(err)), 0);
	spec_column(&set, 0, col, sizeof(col));
	ck_assert_str_eq(col, "     pic12");
	caps_free(&big);
}
END_TEST

Suite *spec_suite(void)
{
	Suite *s = suite_create("spec");
	TCase *tc = tcase_create("parse");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, explicit_pics_become_requests_in_counter_order);
	tcase_add_test(tc, default_flags_count_user_only);
	tcase_add_test(tc, sys_adds_system_and_nouser_removes_user_on_all_counters);
	tcase_add_test(tc, numbered_mode_tokens_change_one_counter);
	tcase_add_test(tc, bare_events_go_after_the_highest_used_counter);
	tcase_add_test(tc, generic_and_raw_events_are_accepted);
	tcase_add_test(tc, raw_code_zero_is_refused);
	tcase_add_test(tc, attributes_apply_to_one_or_all_counters);
	tcase_add_test(tc, errors_name_the_bad_token);
	tcase_add_test(tc, no_free_counter_for_a_bare_event_is_a_bad_token);
	tcase_add_test(tc, columns_are_ten_characters);
	suite_add_tcase(s, tc);
	return s;
}
