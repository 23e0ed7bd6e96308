// SPDX-License-Identifier: GPL-2.0
/*
 * out_test.c - count lines in cpustat/cputrack's printf formats (checked
 * character by character against libcpc.md section 4), CSV and JSON.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../out.h"
#include "fake_cpu.h"

static struct cpu_caps cpu;
static struct spec_set set;
static char *buf;
static size_t len;
static struct out o;

static void setup(void)
{
	char err[SPEC_ERR_LEN];

	fake_cpu(&cpu);
	ck_assert_int_eq(spec_parse(&cpu, "pic0=cycles,pic1=l2_miss", &set, err, sizeof(err)), 0);
	memset(&o, 0, sizeof(o));
	o.fp = open_memstream(&buf, &len);
	o.sep = ",";
}

static void teardown(void)
{
	fclose(o.fp);
	free(buf);
	spec_free(&set);
	caps_free(&cpu);
}

static const char *text(void)
{
	fflush(o.fp);
	return buf;
}

START_TEST(cpustat_title_and_sample_match_illumos)
{
	uint64_t v[2] = { 69284, 1647 };
	struct out_sample s = { .time = 1.008, .id = 0, .label = "tick", .values = v, .set = &set };
	struct out_sample t = { .time = 3.008, .id = 2, .label = "total", .values = v, .set = &set };

	out_title(&o, &set);
	out_sample(&o, &s);
	out_sample(&o, &t);
	ck_assert_str_eq(text(),
		"   time cpu event      pic0      pic1 \n"
		"  1.008   0  tick     69284      1647 \n"
		"  3.008   2 total     69284      1647 \n");
}
END_TEST

START_TEST(cpustat_tsc_column_and_several_sets)
{
	uint64_t v[2] = { 1234, 5678 };
	struct out_sample s = { .time = 1.003, .id = 0, .label = "tick", .tsc = 42,
				.values = v, .set = &set };

	o.tsc = true;
	o.several_sets = true;
	out_title(&o, &set);
	out_sample(&o, &s);
	ck_assert_str_eq(text(),
		"   time cpu event       tsc      pic0      pic1 \n"
		"  1.003   0  tick        42      1234      5678  # pic0=cycles,pic1=l2_miss\n");
}
END_TEST

START_TEST(cputrack_lines_with_and_without_pid)
{
	uint64_t v[2] = { 765308, 219233 };
	struct out_sample s = { .time = 1.007, .pid = 101142, .id = 1, .label = "tick",
				.values = v, .set = &set };

	o.tool = OUT_CPUTRACK;
	out_title(&o, &set);
	out_sample(&o, &s);
	o.pid = true;
	out_title(&o, &set);
	s.label = "init_lwp";
	out_sample(&o, &s);
	out_fork(&o, 0.023, 101142, 1, 101143);
	out_exec(&o, 0.0, 101143, 1, "/usr/bin/sh /usr/bin/basename /bin/ulimit");
	ck_assert_str_eq(text(),
		"   time lwp      event      pic0      pic1 \n"
		"  1.007   1       tick    765308    219233 \n"
		"   time    pid lwp      event      pic0      pic1 \n"
		"  1.007 101142   1   init_lwp    765308    219233 \n"
		"  0.023 101142   1       fork                     # 101143\n"
		"  0.000 101143   1       exec                     # '/usr/bin/sh /usr/bin/basename /bin/ulimit'\n"
		);
}
END_TEST

START_TEST(csv_uses_the_separator_and_quotes_the_spec)
{
	uint64_t v[2] = { 7, 8 };
	struct out_sample s = { .time = 0.5, .id = 3, .label = "tick", .values = v, .set = &set };

	o.format = OUT_CSV;
	o.several_sets = true;
	out_title(&o, &set);
	out_sample(&o, &s);
	o.sep = ";";
	out_sample(&o, &s);
	ck_assert_str_eq(text(),
		"time,cpu,event,pic0,pic1,set\n"
		"0.500,3,tick,7,8,\"pic0=cycles,pic1=l2_miss\"\n"
		"0.500;3;tick;7;8;pic0=cycles,pic1=l2_miss\n");
}
END_TEST

START_TEST(json_lines_name_every_counter)
{
	uint64_t v[2] = { 7, 8 };
	struct out_sample s = { .time = 2.0, .id = 2, .label = "total", .values = v, .set = &set };

	o.format = OUT_JSON;
	out_title(&o, &set);
	out_sample(&o, &s);
	o.tool = OUT_CPUTRACK;
	out_exec(&o, 1.0, 5, 1, "a \"b\"");
	ck_assert_str_eq(text(),
		"{\"time\":2.000,\"ncpus\":2,\"label\":\"total\",\"set\":\"pic0=cycles,pic1=l2_miss\","
		"\"counters\":[{\"pic\":0,\"event\":\"cycles\",\"value\":7},"
		"{\"pic\":1,\"event\":\"l2_miss\",\"value\":8}]}\n"
		"{\"time\":1.000,\"pid\":5,\"lwp\":1,\"label\":\"exec\",\"command\":\"a \\\"b\\\"\"}\n");
}
END_TEST

Suite *out_suite(void)
{
	Suite *s = suite_create("out");
	TCase *tc = tcase_create("lines");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, cpustat_title_and_sample_match_illumos);
	tcase_add_test(tc, cpustat_tsc_column_and_several_sets);
	tcase_add_test(tc, cputrack_lines_with_and_without_pid);
	tcase_add_test(tc, csv_uses_the_separator_and_quotes_the_spec);
	tcase_add_test(tc, json_lines_name_every_counter);
	suite_add_tcase(s, tc);
	return s;
}
