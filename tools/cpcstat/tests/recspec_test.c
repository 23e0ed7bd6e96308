// SPDX-License-Identifier: GPL-2.0
/* recspec_test.c - record's -e arguments: period= and freq= taken out. */
#include <check.h>
#include <string.h>

#include "../recspec.h"

START_TEST(rate_qualifiers_are_taken_out)
{
	struct rec_event ev;
	char err[128];

	ck_assert_int_eq(rec_event_parse("cpu-clock,period=250000", &ev, err, sizeof(err)), 0);
	ck_assert_str_eq(ev.spec, "cpu-clock");
	ck_assert_str_eq(ev.name, "cpu-clock");
	ck_assert_uint_eq(rec_event_period(&ev, 2e9), 250000);
	rec_event_free(&ev);
	ck_assert_int_eq(rec_event_parse("inst_retired.any,usr,freq=4000,cmask=1", &ev, err,
					 sizeof(err)), 0);
	ck_assert_str_eq(ev.spec, "inst_retired.any,usr,cmask=1");
	ck_assert_uint_eq(ev.freq, 4000);
	/* A non-clock event at 4 kHz on a 2 GHz CPU: one sample per 500000 events. */
	ck_assert_uint_eq(rec_event_period(&ev, 2e9), 500000);
	rec_event_free(&ev);
}
END_TEST

START_TEST(clock_events_count_nanoseconds)
{
	struct rec_event ev;
	char err[128];

	ck_assert_int_eq(rec_event_parse("SOFT-task-clock", &ev, err, sizeof(err)), 0);
	ck_assert(rec_event_is_clock(ev.name));
	ck_assert_uint_eq(ev.freq, RECORD_DEFAULT_FREQ);
	ck_assert_uint_eq(rec_event_period(&ev, 3e9), 1000000);
	rec_event_free(&ev);
}
END_TEST

START_TEST(bad_rates_name_the_token)
{
	struct rec_event ev;
	char err[128];

	ck_assert_int_eq(rec_event_parse("cpu-clock,period=0", &ev, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "bad token 'period=0'");
	ck_assert_int_eq(rec_event_parse("cpu-clock,period=10,freq=10", &ev, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "bad token 'freq=10'");
	ck_assert_int_eq(rec_event_parse("cpu-clock,freq=-5", &ev, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "bad token 'freq=-5'");
	ck_assert_int_eq(rec_event_parse(",period=5", &ev, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "missing event name in ',period=5'");
}
END_TEST

Suite *recspec_suite(void)
{
	Suite *s = suite_create("recspec");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, rate_qualifiers_are_taken_out);
	tcase_add_test(tc, clock_events_count_nanoseconds);
	tcase_add_test(tc, bad_rates_name_the_token);
	suite_add_tcase(s, tc);
	return s;
}
