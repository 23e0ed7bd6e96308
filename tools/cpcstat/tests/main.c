// SPDX-License-Identifier: GPL-2.0
/* main.c - runs every cpcstat unit-test suite (TAP via CK_TAP_LOG_FILE_NAME). */
#include <check.h>
#include <stdlib.h>

Suite *spec_suite(void);
Suite *out_suite(void);
Suite *caps_suite(void);
Suite *report_suite(void);
Suite *recspec_suite(void);

int main(void)
{
	SRunner *sr = srunner_create(spec_suite());
	int failed;

	srunner_add_suite(sr, out_suite());
	srunner_add_suite(sr, caps_suite());
	srunner_add_suite(sr, report_suite());
	srunner_add_suite(sr, recspec_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
