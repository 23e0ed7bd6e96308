// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_open.c - the handle: cpc_open's errors, what the counters are on the
 * three simulated machines, error reporting, and the overflow signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

START_TEST(open_refuses_other_versions)
{
	struct fake_pmc fp;

	fake_pmc_init(&fp, FAKE_SOFT);
	fake_arm(&fp);
	errno = 0;
	ck_assert_ptr_null(cpc_open(1));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(cpc_open(3));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(open_passes_on_the_device_error)
{
	struct fake_pmc fp;

	fake_pmc_init(&fp, FAKE_SOFT);
	fp.open_errno = EACCES;
	fake_arm(&fp);
	errno = 0;
	ck_assert_ptr_null(cpc_open(CPC_VER_CURRENT));
	ck_assert_int_eq(errno, EACCES);
}
END_TEST

START_TEST(open_refuses_another_abi_major)
{
	struct fake_pmc fp;

	fake_pmc_init(&fp, FAKE_SOFT);
	fp.version = 0x02000000;
	fake_arm(&fp);
	errno = 0;
	ck_assert_ptr_null(cpc_open(CPC_VER_CURRENT));
	ck_assert_int_eq(errno, PMC_EPROGMISMATCH);
}
END_TEST

START_TEST(npic_without_pmu_is_soft_rows_less_the_tick)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_SOFT);

	ck_assert_ptr_nonnull(cpc);
	ck_assert_uint_eq(cpc_npic(cpc), 15);
	ck_assert_uint_eq(cpc_caps(cpc), CPC_CAP_OVERFLOW_INTERRUPT |
			  CPC_CAP_OVERFLOW_PRECISE);
	ck_assert_str_eq(cpc_cciname(cpc), "Linux Software Events");
	ck_assert_ptr_nonnull(strstr(cpc_cpuref(cpc), "perf_event_open(2)"));
	cpc_close(cpc);
}
END_TEST

START_TEST(npic_on_intel_is_general_plus_fixed)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_INTEL);

	ck_assert_ptr_nonnull(cpc);
	ck_assert_uint_eq(cpc_npic(cpc), 7);
	ck_assert_str_eq(cpc_cciname(cpc),
			 "Intel Arch PerfMon v4 on Family 6 Model 85");
	ck_assert_ptr_nonnull(strstr(cpc_cpuref(cpc), "Volume 3B"));
	ck_assert_ptr_nonnull(strstr(cpc_cpuref(cpc), "PMU skl"));
	ck_assert_uint_lt(strlen(cpc_cpuref(cpc)), CPC_MAX_CPUREF);
	cpc_close(cpc);
}
END_TEST

START_TEST(npic_on_amd_is_the_core_counters)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_AMD);

	ck_assert_ptr_nonnull(cpc);
	ck_assert_uint_eq(cpc_npic(cpc), 6);
	ck_assert_str_eq(cpc_cciname(cpc), "AMD Family 19h");
	cpc_close(cpc);
}
END_TEST

START_TEST(errstr_has_every_illumos_message)
{
	static const struct {
		int code;
		const char *msg;
	} t[] = {
		{ CPC_INVALID_EVENT, "Unknown event\n" },
		{ CPC_INVALID_PICNUM, "Invalid counter number\n" },
		{ CPC_INVALID_ATTRIBUTE, "Unknown attribute\n" },
		{ CPC_ATTRIBUTE_OUT_OF_RANGE, "Attribute out of range\n" },
		{ CPC_RESOURCE_UNAVAIL, "Hardware resource unavailable\n" },
		{ CPC_PIC_NOT_CAPABLE, "Counter cannot count requested event\n" },
		{ CPC_REQ_INVALID_FLAGS, "Invalid flags in a request\n" },
		{ CPC_CONFLICTING_REQS, "Requests conflict with each other\n" },
		{ CPC_ATTR_REQUIRES_PRIVILEGE,
		  "Attribute requires the cpc_cpu privilege\n" },
		{ CPC_PBIND_FAILED, "Couldn't bind LWP to requested processor\n" },
		{ CPC_HV_NO_ACCESS, "Hypervisor event access denied\n" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_str_eq(cpc_errstr(t[i].code), t[i].msg);
	ck_assert_int_eq(CPC_INVALID_EVENT, 1);
	ck_assert_int_eq(CPC_HV_NO_ACCESS, 11);
	ck_assert_ptr_null(cpc_errstr(-1));
	ck_assert_ptr_null(cpc_errstr(0));
	ck_assert_ptr_null(cpc_errstr(12));
}
END_TEST

START_TEST(default_handler_prints_libcpc_fn_message)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_SOFT);
	cpc_set_t *set = cpc_set_create(cpc);
	char out[256] = "";
	int pipefd[2], saved;
	ssize_t n;

	ck_assert_int_eq(pipe(pipefd), 0);
	saved = dup(STDERR_FILENO);
	dup2(pipefd[1], STDERR_FILENO);
	errno = 0;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "no_such_event", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(pipefd[1]);
	n = read(pipefd[0], out, sizeof(out) - 1);
	ck_assert_int_gt(n, 0);
	out[n] = '\0';
	ck_assert_str_eq(out, "libcpc: cpc_set_add_request: Unknown event\n");
	close(pipefd[0]);
	close(saved);
	cpc_close(cpc);
}
END_TEST

START_TEST(handler_gets_fn_subcode_and_message_and_errno_is_kept)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_SOFT);
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t attr = { "umask", 1 };
	cpc_errhndlr_t *h;

	record_errors(&h);
	errlog_reset();
	ck_assert_int_eq(cpc_seterrhndlr(cpc, h), 0);
	errno = 0;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
					     CPC_COUNT_USER, 1, &attr), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(errlog.calls, 1);
	ck_assert_str_eq(errlog.fn, "cpc_set_add_request");
	ck_assert_int_eq(errlog.subcode, CPC_INVALID_ATTRIBUTE);
	ck_assert_str_eq(errlog.msg, "Unknown attribute\n");

	/* Back to the default: the recorder is not called any more. */
	ck_assert_int_eq(cpc_seterrhndlr(cpc, NULL), 0);
	freopen("/dev/null", "w", stderr);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "bogus", 0,
					     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errlog.calls, 1);
	cpc_close(cpc);
}
END_TEST

START_TEST(no_description_calls_no_handler)
{
	struct fake_pmc fp;
	cpc_t *cpc = fake_open(&fp, FAKE_SOFT);
	cpc_errhndlr_t *h;

	record_errors(&h);
	errlog_reset();
	cpc_seterrhndlr(cpc, h);
	errno = 1234;
	cpc_err(cpc, "cpc_bind_curlwp", -1);
	ck_assert_int_eq(errlog.calls, 0);
	cpc_err(cpc, "cpc_bind_curlwp", CPC_PBIND_FAILED);
	ck_assert_int_eq(errlog.calls, 1);
	ck_assert_int_eq(errno, 1234);
	cpc_close(cpc);
}
END_TEST

START_TEST(sigemt_defaults_to_sigio)
{
	struct fake_pmc fp;
	cpc_t *cpc;

	ck_assert_int_eq(SIGEMT, SIGIO);
	cpc = fake_open(&fp, FAKE_SOFT);
	ck_assert_int_eq(cpc_ovf_signal(cpc), SIGIO);
	ck_assert_int_eq(cpc_set_ovf_signal(cpc, SIGRTMIN + 2), 0);
	ck_assert_int_eq(cpc_ovf_signal(cpc), SIGRTMIN + 2);
	ck_assert_int_eq(cpc_set_ovf_signal(cpc, SIGKILL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_set_ovf_signal(cpc, 0), -1);
	ck_assert_int_eq(cpc_ovf_signal(cpc), SIGRTMIN + 2);
	cpc_close(cpc);
}
END_TEST

/* SIGEMT is a constant: it labels a case, and a handle delivers it. */
START_TEST(sigemt_is_a_constant)
{
	struct fake_pmc fp;
	cpc_t *cpc;
	int sig = SIGIO;

	switch (sig) {
	case SIGEMT:
		break;
	default:
		ck_abort_msg("SIGEMT is %d, not SIGIO", SIGEMT);
	}
	ck_assert_int_eq(cpc_sigemt(), SIGEMT);
	cpc = fake_open(&fp, FAKE_SOFT);
	ck_assert_int_eq(cpc_ovf_signal(cpc), SIGEMT);
	cpc_close(cpc);
}
END_TEST

START_TEST(close_accepts_null_and_info_calls_survive_bad_handles)
{
	ck_assert_int_eq(cpc_close(NULL), 0);
	ck_assert_uint_eq(cpc_npic(NULL), 0);
	ck_assert_uint_eq(cpc_caps(NULL), 0);
	ck_assert_str_eq(cpc_cciname(NULL), "");
	ck_assert_str_eq(cpc_cpuref(NULL), "");
}
END_TEST

Suite *open_suite(void)
{
	Suite *s = suite_create("open");
	TCase *tc = tcase_create("handle");

	tcase_add_test(tc, open_refuses_other_versions);
	tcase_add_test(tc, open_passes_on_the_device_error);
	tcase_add_test(tc, open_refuses_another_abi_major);
	tcase_add_test(tc, npic_without_pmu_is_soft_rows_less_the_tick);
	tcase_add_test(tc, npic_on_intel_is_general_plus_fixed);
	tcase_add_test(tc, npic_on_amd_is_the_core_counters);
	tcase_add_test(tc, errstr_has_every_illumos_message);
	tcase_add_test(tc, default_handler_prints_libcpc_fn_message);
	tcase_add_test(tc, handler_gets_fn_subcode_and_message_and_errno_is_kept);
	tcase_add_test(tc, no_description_calls_no_handler);
	tcase_add_test(tc, sigemt_defaults_to_sigio);
	tcase_add_test(tc, sigemt_is_a_constant);
	tcase_add_test(tc, close_accepts_null_and_info_calls_survive_bad_handles);
	suite_add_tcase(s, tc);
	return s;
}
