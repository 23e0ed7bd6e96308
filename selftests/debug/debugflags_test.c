// SPDX-License-Identifier: GPL-2.0
/*
 * debugflags_test.c - the debugflags module parameter: hwpmc's syntax,
 * normalised read-back, strict refusals that keep the old value and name the
 * bad token in the kernel log, and the writable/read-only parameters of
 * pmc(4) MODULE PARAMETERS.
 */
#include "kselftest_harness.h"

#include "debug_util.h"

FIXTURE(flags) {
	char saved[4096];
};

FIXTURE_SETUP(flags)
{
	if (geteuid())
		SKIP(return, "needs root");
	if (!path_exists(PMC_PARAMS "debugflags"))
		SKIP(return, "pmc.ko is not loaded or has no debugflags parameter");
	ASSERT_NE(NULL, param_get("debugflags", self->saved, sizeof(self->saved)));
}

FIXTURE_TEARDOWN(flags)
{
	if (!geteuid() && path_exists(PMC_PARAMS "debugflags"))
		param_set("debugflags", "");
}

/* Write @in, expect success and the normalised read-back @out. */
static void check_normalised(struct __test_metadata *_metadata,
			     const char *in, const char *out)
{
	char buf[4096];

	ASSERT_EQ(0, param_set("debugflags", in)) TH_LOG("writing \"%s\"", in);
	ASSERT_NE(NULL, param_get("debugflags", buf, sizeof(buf)));
	EXPECT_STREQ(out, buf) TH_LOG("written \"%s\"", in);
}

/* hwpmc(4)'s own examples, normalised to canonical order. */
TEST_F(flags, hwpmc_examples_are_accepted)
{
	RETURN_IF_SKIPPED();

	check_normalised(_metadata, "pmc=allocate,release md=allocate,release",
			 "md=allocate,release pmc=allocate,release");
	check_normalised(_metadata, "process=* csw=*", "csw=* process=*");
	check_normalised(_metadata, "", "");
}

TEST_F(flags, minors_read_back_in_canonical_order)
{
	RETURN_IF_SKIPPED();

	check_normalised(_metadata, "pmc=write,allocaterow,release,allocate",
			 "pmc=allocaterow,allocate,release,write");
	check_normalised(_metadata, "sampling=sample,intr owner=release",
			 "owner=release sampling=intr,sample");
}

TEST_F(flags, every_minor_listed_reads_back_as_star)
{
	char all[1024] = "logging=";

	RETURN_IF_SKIPPED();

	for (size_t i = 0; i < DBG_NMINOR; i++) {
		strcat(all, dbg_minors[DBG_NMINOR - 1 - i]);
		if (i + 1 < DBG_NMINOR)
			strcat(all, ",");
	}
	check_normalised(_metadata, all, "logging=*");
	check_normalised(_metadata, "pmc=*,read", "pmc=*");
}

TEST_F(flags, every_major_and_minor_name_is_accepted)
{
	char in[64];

	RETURN_IF_SKIPPED();

	for (size_t i = 0; i < DBG_NMAJOR; i++)
		for (size_t j = 0; j < DBG_NMINOR; j++) {
			snprintf(in, sizeof(in), "%s=%s", dbg_majors[i],
				 dbg_minors[j]);
			check_normalised(_metadata, in, in);
		}
}

/* As in hwpmc: a major named twice keeps its last list. */
TEST_F(flags, last_list_of_a_major_wins)
{
	RETURN_IF_SKIPPED();

	check_normalised(_metadata, "pmc=allocate pmc=release", "pmc=release");
}

TEST_F(flags, empty_list_selects_nothing)
{
	RETURN_IF_SKIPPED();

	check_normalised(_metadata, "pmc= csw=swi", "csw=swi");
	check_normalised(_metadata, "pmc=", "");
}

TEST_F(flags, blanks_tabs_and_newlines_separate_groups)
{
	RETURN_IF_SKIPPED();

	check_normalised(_metadata, "\t pmc=read \n  csw=swo\t", "csw=swo pmc=read");
}

/* A refused string: EINVAL, the old selection stays, the log names the token. */
FIXTURE(refusal) {
};

FIXTURE_VARIANT(refusal) {
	const char *value;
	const char *message;	/* the kernel log line */
};

FIXTURE_VARIANT_ADD(refusal, unknown_major) {
	.value = "bogus=*",
	.message = "pmc: debugflags: unknown major \"bogus\"",
};

FIXTURE_VARIANT_ADD(refusal, unknown_minor) {
	.value = "csw=swi pmc=allocate,bogus",
	.message = "pmc: debugflags: unknown minor \"bogus\" in pmc",
};

FIXTURE_VARIANT_ADD(refusal, names_are_case_sensitive) {
	.value = "PMC=allocate",
	.message = "pmc: debugflags: unknown major \"PMC\"",
};

FIXTURE_VARIANT_ADD(refusal, uppercase_minor) {
	.value = "pmc=ALLOCATE",
	.message = "pmc: debugflags: unknown minor \"ALLOCATE\" in pmc",
};

FIXTURE_VARIANT_ADD(refusal, group_without_equal_sign) {
	.value = "pmc",
	.message = "pmc: debugflags: \"pmc\" is not major=minor[,minor...]",
};

FIXTURE_VARIANT_ADD(refusal, minors_separated_by_a_blank) {
	.value = "pmc=allocate release",
	.message = "pmc: debugflags: \"release\" is not major=minor[,minor...]",
};

FIXTURE_VARIANT_ADD(refusal, groups_separated_by_a_comma) {
	.value = "csw=swi,pmc=read",
	.message = "pmc: debugflags: unknown minor \"pmc=read\" in csw",
};

FIXTURE_VARIANT_ADD(refusal, trailing_comma) {
	.value = "pmc=allocate,",
	.message = "pmc: debugflags: empty minor in \"pmc=allocate,\"",
};

FIXTURE_VARIANT_ADD(refusal, empty_minor_between_commas) {
	.value = "pmc=allocate,,release",
	.message = "pmc: debugflags: empty minor in \"pmc=allocate,,release\"",
};

FIXTURE_VARIANT_ADD(refusal, empty_major) {
	.value = "=allocate",
	.message = "pmc: debugflags: unknown major \"\"",
};

FIXTURE_SETUP(refusal)
{
	if (geteuid())
		SKIP(return, "needs root");
	if (!path_exists(PMC_PARAMS "debugflags"))
		SKIP(return, "pmc.ko is not loaded or has no debugflags parameter");
}

FIXTURE_TEARDOWN(refusal)
{
	if (!geteuid() && path_exists(PMC_PARAMS "debugflags"))
		param_set("debugflags", "");
}

TEST_F(refusal, is_einval_keeps_old_value_and_names_the_token)
{
	char mark[128], log[16384], buf[4096];

	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, param_set("debugflags", "csw=swi,swo process=exit"));
	ASSERT_EQ(0, kmsg_mark(mark, sizeof(mark)));

	EXPECT_EQ(-EINVAL, param_set("debugflags", variant->value));

	ASSERT_NE(NULL, param_get("debugflags", buf, sizeof(buf)));
	EXPECT_STREQ("csw=swi,swo process=exit", buf);
	ASSERT_LE(0, kmsg_after(mark, log, sizeof(log)));
	EXPECT_TRUE(lines_have(log, variant->message))
		TH_LOG("no line \"%s\" in the kernel log after the write; it has:\n%s",
		       variant->message, log);
}

/* pmc(4) MODULE PARAMETERS: which parameters are writable at run time. */
FIXTURE(params) {
	long mincount;
	long syspmcs;
	long proc_debug;
};

FIXTURE_SETUP(params)
{
	if (geteuid())
		SKIP(return, "needs root");
	if (!path_exists(PMC_PARAMS "mincount"))
		SKIP(return, "pmc.ko is not loaded");
	self->mincount = param_get_long("mincount");
	self->syspmcs = param_get_long("unprivileged_syspmcs");
	self->proc_debug = param_get_long("unprivileged_proc_debug");
}

FIXTURE_TEARDOWN(params)
{
	char v[32];

	if (geteuid() || !path_exists(PMC_PARAMS "mincount"))
		return;
	snprintf(v, sizeof(v), "%ld", self->mincount);
	param_set("mincount", v);
	param_set("unprivileged_syspmcs", self->syspmcs ? "1" : "0");
	param_set("unprivileged_proc_debug", self->proc_debug ? "1" : "0");
}

TEST_F(params, read_only_ones_refuse_writes)
{
	static const char * const ro[] = {
		"callchaindepth", "hashsize", "logbuffersize", "mtxpoolsize",
		"nbuffers_pcpu", "nsamples", "softevents",
	};
	char path[256];

	RETURN_IF_SKIPPED();

	for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		struct stat st;

		snprintf(path, sizeof(path), PMC_PARAMS "%s", ro[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
		EXPECT_EQ(0444U, st.st_mode & 0777) TH_LOG("%s", ro[i]);
		EXPECT_EQ(-EACCES, file_write(path, "1\n")) TH_LOG("%s", ro[i]);
	}
}

TEST_F(params, writable_ones_take_new_values)
{
	struct stat st;

	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, stat(PMC_PARAMS "debugflags", &st));
	EXPECT_EQ(0644U, st.st_mode & 0777);

	ASSERT_EQ(0, param_set("mincount", "2500"));
	EXPECT_EQ(2500, param_get_long("mincount"));
	ASSERT_EQ(0, param_set("unprivileged_syspmcs", "1"));
	EXPECT_EQ(1, param_get_long("unprivileged_syspmcs"));
	ASSERT_EQ(0, param_set("unprivileged_proc_debug", "0"));
	EXPECT_EQ(0, param_get_long("unprivileged_proc_debug"));
}

TEST_F(params, mincount_below_one_is_refused_with_its_message)
{
	char mark[128], log[16384];

	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, param_set("mincount", "1500"));
	ASSERT_EQ(0, kmsg_mark(mark, sizeof(mark)));
	EXPECT_EQ(-EINVAL, param_set("mincount", "0"));
	EXPECT_EQ(1500, param_get_long("mincount"));
	ASSERT_LE(0, kmsg_after(mark, log, sizeof(log)));
	EXPECT_TRUE(lines_have(log, "pmc: mincount=0 must be greater than zero"))
		TH_LOG("kernel log after the write:\n%s", log);
}

TEST_HARNESS_MAIN
