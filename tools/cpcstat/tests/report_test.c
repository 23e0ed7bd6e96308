// SPDX-License-Identifier: GPL-2.0
/*
 * report_test.c - aggregation, top table, call tree, folded stacks, JSON and
 * SVG of a profile built from hand-made samples; symbolization of this very
 * binary's functions through its own mappings.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report_out.h"
#include "../symbols.h"

static struct strpool pool;
static struct profile prof;
static char *buf;
static size_t len;
static FILE *fp;

static void setup(void)
{
	memset(&pool, 0, sizeof(pool));
	fp = open_memstream(&buf, &len);
}

static void teardown(void)
{
	fclose(fp);
	free(buf);
	profile_free(&prof);
	strpool_free(&pool);
}

static const char *S(const char *s)
{
	return strpool_get(&pool, s);
}

static const char *text(void)
{
	fflush(fp);
	return buf;
}

static const char *proc_name(void *ctx, pid_t pid)
{
	(void)ctx;
	return S(pid == 43 ? "other" : pid == 1 ? "x" : "hot3to1");
}

/* hot_a x3 and hot_b x1 under main, 4 times; one sample in libc's memset. */
static void fill(enum sort_key sort)
{
	struct frame a[] = { { S("hot_a"), S("hot3to1") }, { S("main"), S("hot3to1") } };
	struct frame b[] = { { S("hot_b"), S("hot3to1") }, { S("main"), S("hot3to1") } };
	struct frame m[] = { { S("memset"), S("libc.so.6") }, { S("hot_b"), S("hot3to1") },
			     { S("main"), S("hot3to1") } };

	profile_init(&prof, sort);
	for (int i = 0; i < 4; i++) {
		for (int k = 0; k < 3; k++)
			ck_assert_int_eq(profile_add(&prof, 42, a, 2), 0);
		ck_assert_int_eq(profile_add(&prof, 42, b, 2), 0);
	}
	ck_assert_int_eq(profile_add(&prof, 43, m, 3), 0);
	profile_finish(&prof, proc_name, NULL);
}

START_TEST(flat_table_has_self_and_inclusive_counts)
{
	fill(SORT_SYM);
	ck_assert_uint_eq(prof.samples, 17);
	ck_assert_uint_eq(prof.nflat, 4);
	ck_assert_str_eq(prof.flat[0].name, "hot_a");
	ck_assert_uint_eq(prof.flat[0].self, 12);
	ck_assert_str_eq(prof.flat[1].name, "hot_b");
	ck_assert_uint_eq(prof.flat[1].self, 4);
	ck_assert_uint_eq(prof.flat[1].total, 5);
	ck_assert_str_eq(prof.flat[3].name, "main");
	ck_assert_uint_eq(prof.flat[3].self, 0);
	ck_assert_uint_eq(prof.flat[3].total, 17);
}
END_TEST

START_TEST(sort_by_object_and_by_process)
{
	fill(SORT_DSO);
	ck_assert_uint_eq(prof.nflat, 2);
	ck_assert_str_eq(prof.flat[0].name, "hot3to1");
	ck_assert_uint_eq(prof.flat[0].self, 16);
	ck_assert_uint_eq(prof.flat[0].total, 17);
	profile_free(&prof);
	fill(SORT_PID);
	ck_assert_uint_eq(prof.nflat, 2);
	ck_assert_int_eq(prof.flat[0].pid, 42);
	ck_assert_str_eq(prof.flat[0].name, "hot3to1");
	ck_assert_uint_eq(prof.flat[1].self, 1);
}
END_TEST

START_TEST(top_table_aligns_columns)
{
	struct report_info info = { .events = "cpu-clock", .duration = 1.5, .nprocs = 2 };

	fill(SORT_SYM);
	report_top(fp, &prof, &info, OUT_HUMAN, ",", 0);
	ck_assert_str_eq(text(),
		"# 17 samples of cpu-clock, 0 lost, 1.500 s, 2 processes\n"
		"#\n"
		"#     Self   Total   Samples  Symbol  Object\n"
		"    70.59%  70.59%        12  hot_a   hot3to1\n"
		"    23.53%  29.41%         4  hot_b   hot3to1\n"
		"     5.88%   5.88%         1  memset  libc.so.6\n"
		"     0.00% 100.00%         0  main    hot3to1\n");
}
END_TEST

START_TEST(top_table_as_csv_and_json)
{
	struct report_info info = { .events = "cpu-clock" };

	fill(SORT_SYM);
	report_top(fp, &prof, &info, OUT_CSV, ";", 2);
	report_top(fp, &prof, &info, OUT_JSON, ",", 1);
	ck_assert_str_eq(text(),
		"self_pct;total_pct;samples;symbol;object\n"
		"70.59;70.59;12;hot_a;hot3to1\n"
		"23.53;29.41;4;hot_b;hot3to1\n"
		"{\"samples\":17,\"lost\":0,\"duration\":0.000,\"processes\":0,"
		"\"events\":\"cpu-clock\",\"sort\":\"sym\",\"entries\":[{\"symbol\":\"hot_a\","
		"\"object\":\"hot3to1\",\"samples\":12,\"self_pct\":70.59,\"total_pct\":70.59}]}\n");
}
END_TEST

START_TEST(folded_stacks_start_with_the_command)
{
	fill(SORT_SYM);
	report_folded(fp, &prof);
	ck_assert_str_eq(text(),
		"hot3to1;main;hot_a 12\n"
		"hot3to1;main;hot_b 4\n"
		"other;main;hot_b;memset 1\n");
}
END_TEST

START_TEST(callgraph_nests_callees_under_callers)
{
	fill(SORT_SYM);
	report_callgraph(fp, &prof);
	ck_assert_ptr_nonnull(strstr(text(),
		"  94.12%    0.00%  hot3to1\n"
		"  94.12%    0.00%    main  [hot3to1]\n"
		"  70.59%   70.59%      hot_a  [hot3to1]\n"
		"  23.53%   23.53%      hot_b  [hot3to1]\n"
		"   5.88%    0.00%  other\n"));
}
END_TEST

START_TEST(processes_of_one_name_share_a_tree)
{
	struct frame a[] = { { S("hot_a"), S("hot3to1") }, { S("main"), S("hot3to1") } };

	profile_init(&prof, SORT_SYM);
	profile_add(&prof, 42, a, 2);
	profile_add(&prof, 44, a, 2);
	profile_add(&prof, 43, a, 1);
	profile_finish(&prof, proc_name, NULL);
	report_folded(fp, &prof);
	ck_assert_str_eq(text(), "hot3to1;main;hot_a 2\nother;hot_a 1\n");
}
END_TEST

START_TEST(svg_titles_give_frame_and_share)
{
	struct frame odd[] = { { S("operator<<"), S("a&b") } };

	fill(SORT_SYM);
	profile_free(&prof);
	fill(SORT_SYM);
	report_svg(fp, &prof, "test");
	ck_assert_ptr_nonnull(strstr(text(), "<title>hot_a [hot3to1] (12 samples, 70.59%)</title>"));
	ck_assert_ptr_nonnull(strstr(text(), "<title>all (17 samples, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(text(), "</svg>\n"));
	profile_free(&prof);
	profile_init(&prof, SORT_SYM);
	profile_add(&prof, 1, odd, 1);
	profile_finish(&prof, proc_name, NULL);
	report_svg(fp, &prof, NULL);
	ck_assert_ptr_nonnull(strstr(text(), "<title>operator&lt;&lt; [a&amp;b] (1 sample, 100.00%)"));
}
END_TEST

/* A function of this binary, found through its /proc/self/maps mappings. */
START_TEST(symbols_resolve_this_binary_through_its_mappings)
{
	struct symtab *st = symtab_new(&pool);
	char line[4096], file[4096], perms[8];
	uint64_t start, end, off, addr = (uint64_t)(uintptr_t)&profile_add;
	struct symbol sym;
	FILE *maps = fopen("/proc/self/maps", "r");

	ck_assert_ptr_nonnull(maps);
	while (fgets(line, sizeof(line), maps)) {
		file[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095[^\n]",
			   &start, &end, perms, &off, file) == 5 && perms[2] == 'x')
			symtab_map_in(st, 4242, start, end, off, file);
	}
	fclose(maps);
	symtab_resolve(st, 4242, addr + 1, false, &sym);
	ck_assert_str_eq(sym.sym, "profile_add");
	ck_assert_str_eq(sym.dso, "unit-tests");
	/* A return address just past the function's end still names it. */
	symtab_resolve(st, 4242, addr, true, &sym);
	ck_assert_str_ne(sym.sym, "profile_add");
	symtab_resolve(st, 4243, 0x1234, false, &sym);
	ck_assert_str_eq(sym.dso, "[unknown]");
	symtab_fork(st, 4242, 4244);
	symtab_resolve(st, 4244, addr + 4, false, &sym);
	ck_assert_str_eq(sym.sym, "profile_add");
	ck_assert_str_eq(symtab_comm(st, 4244), "pid:4244");
	symtab_free(st);
}
END_TEST

Suite *report_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("profile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, flat_table_has_self_and_inclusive_counts);
	tcase_add_test(tc, sort_by_object_and_by_process);
	tcase_add_test(tc, top_table_aligns_columns);
	tcase_add_test(tc, top_table_as_csv_and_json);
	tcase_add_test(tc, folded_stacks_start_with_the_command);
	tcase_add_test(tc, callgraph_nests_callees_under_callers);
	tcase_add_test(tc, processes_of_one_name_share_a_tree);
	tcase_add_test(tc, svg_titles_give_frame_and_share);
	tcase_add_test(tc, symbols_resolve_this_binary_through_its_mappings);
	suite_add_tcase(s, tc);
	return s;
}
