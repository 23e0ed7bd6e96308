// SPDX-License-Identifier: BSD-2-Clause
/*
 * unit_main.c - runs libcpc's host unit test suites (libcheck; TAP through
 * CK_TAP_LOG_FILE_NAME) against the simulated /dev/pmc.
 */
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

struct errlog errlog;

static void recorder(const char *fn, int subcode, const char *fmt, va_list ap)
{
	errlog.calls++;
	snprintf(errlog.fn, sizeof(errlog.fn), "%s", fn);
	errlog.subcode = subcode;
	vsnprintf(errlog.msg, sizeof(errlog.msg), fmt, ap);
}

void record_errors(cpc_errhndlr_t **out)
{
	*out = recorder;
}

void errlog_reset(void)
{
	errlog.calls = 0;
	errlog.fn[0] = '\0';
	errlog.subcode = 0;
	errlog.msg[0] = '\0';
}

int main(void)
{
	SRunner *sr;
	int failed;

	/* libpfm4 models an Skylake core PMU on any host (none has a PMU). */
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	sr = srunner_create(open_suite());
	srunner_add_suite(sr, set_suite());
	srunner_add_suite(sr, buf_suite());
	srunner_add_suite(sr, events_suite());
	srunner_add_suite(sr, bind_suite());
	srunner_add_suite(sr, ring_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
