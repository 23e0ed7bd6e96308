// SPDX-License-Identifier: GPL-2.0
/* caps_test.c - the -h listing in illumos caps.c's layout. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../caps.h"
#include "fake_cpu.h"

static char *listing(struct cpu_caps *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	caps_print(fp, c);
	fclose(fp);
	return buf;
}

START_TEST(same_events_on_every_counter_give_one_line)
{
	struct cpu_caps c;
	char *s;

	caps_init(&c, 2);
	for (int p = 0; p < 2; p++) {
		name_list_add(&c.events[p], "task-clock");
		name_list_add(&c.events[p], "cpu-clock");
		name_list_add(&c.generic[p], "PAPI_tot_cyc");
	}
	name_list_add(&c.attrs, "picnum");
	c.cciname = strdup("Linux software events");
	c.cpuref = strdup("See perf_event_open(2).");
	s = listing(&c);
	ck_assert_str_eq(s,
		"\tCPU performance counter interface: Linux software events\n"
		"\n"
		"\tevent specification syntax:\n"
		"\t[picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]\n"
		"\n"
		"\tGeneric Events:\n"
		"\n"
		"\tevent[0-1]: PAPI_tot_cyc \n"
		"\n"
		"\tSee generic_events(3CPC) for descriptions of these events\n"
		"\n"
		"\tPlatform Specific Events:\n"
		"\n"
		"\tevent[0-1]: task-clock cpu-clock \n"
		"\n"
		"\tattributes: nouser sys \n"
		"\n"
		"\tSee perf_event_open(2).\n");
	free(s);
	caps_free(&c);
}
END_TEST

START_TEST(different_counters_get_one_line_each_and_lines_wrap)
{
	struct cpu_caps c;
	char *s, *line;

	fake_cpu(&c);
	for (int i = 0; i < 12; i++)
		name_list_add(&c.events[0], "a_rather_long_event_name");
	s = listing(&c);
	ck_assert_ptr_nonnull(strstr(s, "\n\tevent0:  PAPI_tot_cyc PAPI_tot_ins \n"));
	ck_assert_ptr_nonnull(strstr(s, "\n\tevent3:  cycles \n"));
	ck_assert_ptr_nonnull(strstr(s, "\tattributes: edge inv umask cmask nouser sys \n"));
	/* Continuation lines start with 17 spaces; no list line passes column 76. */
	ck_assert_ptr_nonnull(strstr(s, "\n                 a_rather_long_event_name "));
	for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
		size_t col = line[0] == '\t' ? 8 + strlen(line) - 1 : strlen(line);

		if (strncmp(line, "\t[picn=]", 8) == 0)
			continue;	/* the fixed syntax line */

		ck_assert_uint_le(col, 76);
	}
	free(s);
	caps_free(&c);
}
END_TEST

Suite *caps_suite(void)
{
	Suite *s = suite_create("caps");
	TCase *tc = tcase_create("listing");

	tcase_add_test(tc, same_events_on_every_counter_give_one_line);
	tcase_add_test(tc, different_counters_get_one_line_each_and_lines_wrap);
	suite_add_tcase(s, tc);
	return s;
}
