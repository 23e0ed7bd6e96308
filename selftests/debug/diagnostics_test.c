// SPDX-License-Identifier: GPL-2.0
/*
 * diagnostics_test.c - pmc(4) DIAGNOSTICS: reload pmc.ko with out-of-range
 * parameters and check the kernel log lines, the resets (read back in
 * /sys/module/pmc/parameters), the class announcement, and that every line
 * the driver logs at load is one that pmc(4) documents. Leaves the module
 * loaded with its defaults.
 *
 * The module reloaded is $PMC_KO, or driver/pmc.ko from the repository root.
 */
#include <regex.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"

#include "debug_util.h"
#include "pmc_test.h"

#define MAN_PAGE	"docs/pmc.4"

static bool pmc_loaded(void)
{
	return path_exists("/sys/module/pmc");
}

/* Lines of the kernel's module loader, not of the driver. */
static bool from_module_loader(const char *line)
{
	return strstr(line, "loading out-of-tree module taints kernel") ||
	       strstr(line, "module verification failed");
}

/* The message templates of pmc(4) DIAGNOSTICS, as anchored regexes. */
static int man_templates(regex_t *re, int max)
{
	FILE *f = fopen(MAN_PAGE, "r");
	char *line = NULL;
	size_t cap = 0;
	bool in = false;
	int n = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0 && n < max) {
		char pat[1024], *q = pat;
		const char *p;

		if (!strncmp(line, ".SH ", 4)) {
			in = !strncmp(line, ".SH DIAGNOSTICS", 15);
			continue;
		}
		if (!in || strncmp(line, ".B pmc: ", 8))
			continue;
		*q++ = '^';
		for (p = line + 3; *p && *p != '\n' && q < pat + sizeof(pat) - 16; p++) {
			if (!strncmp(p, "\\(dq", 4) || !strncmp(p, "\\(aq", 4) ||
			    !strncmp(p, "\\(ga", 4)) {
				*q++ = p[2] == 'd' ? '"' : p[2] == 'a' ? '\'' : '`';
				p += 3;
			} else if (!strncmp(p, "\\-", 2)) {
				*q++ = '-';
				p += 1;
			} else if (!strncmp(p, "\\&", 2)) {
				p += 1;
			} else if (*p == '%') {
				const char *conv = p + 1;

				while (*conv >= '0' && *conv <= '9')
					conv++;
				if (*conv == 'd')
					q += sprintf(q, "-?[0-9]+");
				else if (*conv == 'u')
					q += sprintf(q, "[0-9]+");
				else if (*conv == 'x')
					q += sprintf(q, "[0-9a-f]+");
				else
					q += sprintf(q, ".*");
				p = conv;
			} else {
				if (strchr(".[]()*+?{}|^$\\", *p))
					*q++ = '\\';
				*q++ = *p;
			}
		}
		*q++ = '$';
		*q = '\0';
		if (!regcomp(&re[n], pat, REG_EXTENDED | REG_NOSUB))
			n++;
	}
	free(line);
	fclose(f);
	return n;
}

/* Every "pmc: " line of @log matches a template of pmc(4) DIAGNOSTICS. */
static void check_documented(struct __test_metadata *_metadata, const char *log)
{
	regex_t re[64];
	char line[1024];
	int n = man_templates(re, 64);

	ASSERT_LT(10, n) TH_LOG("cannot read the DIAGNOSTICS of %s", MAN_PAGE);
	for (const char *p = log; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		bool ok = false;

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (nl ? 1 : 0);
		if (strncmp(line, "pmc: ", 5) || from_module_loader(line))
			continue;
		for (int i = 0; i < n && !ok; i++)
			ok = !regexec(&re[i], line, 0, NULL, 0);
		EXPECT_TRUE(ok) TH_LOG("\"%s\" is not in pmc(4) DIAGNOSTICS", line);
	}
	for (int i = 0; i < n; i++)
		regfree(&re[i]);
}

struct expect_value {
	const char *name;
	long value;
};

FIXTURE(reload) {
	char log[32768];
};

FIXTURE_VARIANT(reload) {
	const char *params;
	int load_error;			/* 0, or the -errno the load gives */
	const char *lines[3];		/* kernel log lines that must appear */
	struct expect_value values[3];	/* parameters after the load */
	bool quiet;			/* no parameter message at all */
};

FIXTURE_VARIANT_ADD(reload, defaults) {
	.params = "",
	.lines = { "pmc: version 0x01000000 loaded" },
	.values = { { "nsamples", 512 }, { "softevents", 16 },
		    { "logbuffersize", 256 } },
	.quiet = true,
};

FIXTURE_VARIANT_ADD(reload, callchaindepth_zero) {
	.params = "callchaindepth=0",
	.lines = { "pmc: tunable callchaindepth=0 out of range, resetting to 8." },
	.values = { { "callchaindepth", 8 } },
};

FIXTURE_VARIANT_ADD(reload, callchaindepth_too_deep) {
	.params = "callchaindepth=513",
	.lines = { "pmc: tunable callchaindepth=513 out of range, resetting to 8." },
	.values = { { "callchaindepth", 8 } },
};

FIXTURE_VARIANT_ADD(reload, callchaindepth_max_is_kept) {
	.params = "callchaindepth=512",
	.values = { { "callchaindepth", 512 } },
	.quiet = true,
};

FIXTURE_VARIANT_ADD(reload, hashsize_negative) {
	.params = "hashsize=-1",
	.lines = { "pmc: tunable hashsize=-1 must be greater than zero." },
	.values = { { "hashsize", 16 } },
};

FIXTURE_VARIANT_ADD(reload, logbuffersize_too_large) {
	.params = "logbuffersize=16385",
	.lines = { "pmc: logbuffersize=16385 must be greater than zero and less than or equal to 16384, resetting to 256." },
	.values = { { "logbuffersize", 256 } },
};

FIXTURE_VARIANT_ADD(reload, logbuffersize_zero) {
	.params = "logbuffersize=0",
	.lines = { "pmc: logbuffersize=0 must be greater than zero and less than or equal to 16384, resetting to 256." },
	.values = { { "logbuffersize", 256 } },
};

FIXTURE_VARIANT_ADD(reload, nbuffers_pcpu_zero) {
	.params = "nbuffers_pcpu=0",
	.lines = { "pmc: nbuffers_pcpu=0 must be greater than zero, resetting to 32." },
	.values = { { "nbuffers_pcpu", 32 } },
};

FIXTURE_VARIANT_ADD(reload, log_memory_over_32mb_per_cpu) {
	.params = "nbuffers_pcpu=1024 logbuffersize=1024",
	.lines = { "pmc: nbuffers_pcpu=1024 * logbuffersize=1024 exceeds 32MB per CPU limit, resetting to defaults (32 * 256)." },
	.values = { { "nbuffers_pcpu", 32 }, { "logbuffersize", 256 } },
};

FIXTURE_VARIANT_ADD(reload, log_memory_of_32mb_per_cpu_is_kept) {
	.params = "nbuffers_pcpu=128 logbuffersize=256",
	.values = { { "nbuffers_pcpu", 128 }, { "logbuffersize", 256 } },
	.quiet = true,
};

FIXTURE_VARIANT_ADD(reload, nsamples_not_power_of_two) {
	.params = "nsamples=3",
	.lines = { "pmc: tunable nsamples=3 out of range." },
	.values = { { "nsamples", 512 } },
};

FIXTURE_VARIANT_ADD(reload, nsamples_too_large) {
	.params = "nsamples=65536",
	.lines = { "pmc: tunable nsamples=65536 out of range." },
	.values = { { "nsamples", 512 } },
};

FIXTURE_VARIANT_ADD(reload, nsamples_power_of_two_is_kept) {
	.params = "nsamples=32768",
	.values = { { "nsamples", 32768 } },
	.quiet = true,
};

FIXTURE_VARIANT_ADD(reload, mtxpoolsize_zero) {
	.params = "mtxpoolsize=0",
	.lines = { "pmc: tunable mtxpoolsize=0 must be greater than zero." },
	.values = { { "mtxpoolsize", 32 } },
};

FIXTURE_VARIANT_ADD(reload, softevents_and_nsamples) {
	.params = "softevents=999 nsamples=3",
	.lines = { "pmc: tunable softevents=999 out of range, resetting to 16.",
		   "pmc: tunable nsamples=3 out of range.",
		   "pmc: SOFT/16/64/0x67<INT,USR,SYS,REA,WRI>" },
	.values = { { "softevents", 16 }, { "nsamples", 512 } },
};

FIXTURE_VARIANT_ADD(reload, softevents_max_is_announced) {
	.params = "softevents=64",
	.lines = { "pmc: SOFT/64/64/0x67<INT,USR,SYS,REA,WRI>" },
	.values = { { "softevents", 64 } },
	.quiet = true,
};

FIXTURE_VARIANT_ADD(reload, mincount_zero_is_reset) {
	.params = "mincount=0",
	.lines = { "pmc: tunable mincount=0 must be greater than zero." },
	.values = { { "mincount", 1000 } },
};

FIXTURE_VARIANT_ADD(reload, bad_debugflags_refuses_the_load) {
	.params = "debugflags=bogus=*",
	.load_error = -EINVAL,
	.lines = { "pmc: debugflags: unknown major \"bogus\"",
		   "pmc: `bogus=*' invalid for parameter `debugflags'" },
};

FIXTURE_SETUP(reload)
{
	char buf[64];

	if (geteuid())
		SKIP(return, "needs root");
	if (!path_exists(pmc_t_ko()))
		SKIP(return, "no %s (build it, or set PMC_KO)", pmc_t_ko());
	if (pmc_loaded() && param_get_long("../refcnt") > 0)
		SKIP(return, "pmc.ko is in use (refcnt %s)",
		     param_get("../refcnt", buf, sizeof(buf)));
}

/* Leave the module loaded with its defaults. */
FIXTURE_TEARDOWN(reload)
{
	if (geteuid() || !path_exists(pmc_t_ko()))
		return;
	if (pmc_loaded() && strcmp(variant->params, ""))
		pmc_t_unload();
	if (!pmc_loaded())
		pmc_t_load("");
}

TEST_F(reload, logs_the_documented_messages_and_resets)
{
	char mark[128];
	int n, ret;

	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, pmc_t_unload());
	ASSERT_FALSE(pmc_loaded());
	ASSERT_EQ(0, kmsg_mark(mark, sizeof(mark)));

	ret = pmc_t_load(variant->params);
	ASSERT_EQ(variant->load_error, ret)
		TH_LOG("loading %s with \"%s\"", pmc_t_ko(), variant->params);
	EXPECT_EQ(!variant->load_error, pmc_loaded());

	n = kmsg_after(mark, self->log, sizeof(self->log));
	ASSERT_LE(0, n);
	for (int i = 0; i < 3 && variant->lines[i]; i++) {
		EXPECT_TRUE(lines_have(self->log, variant->lines[i]))
			TH_LOG("no line \"%s\"; the kernel log has:\n%s",
			       variant->lines[i], self->log);
	}
	if (variant->quiet) {
		EXPECT_EQ(NULL, strstr(self->log, "tunable"))
			TH_LOG("%s", self->log);
		EXPECT_EQ(NULL, strstr(self->log, "resetting"))
			TH_LOG("%s", self->log);
		EXPECT_EQ(NULL, strstr(self->log, "greater than zero"))
			TH_LOG("%s", self->log);
		/* pmc_preflight() found what it needs. */
		EXPECT_EQ(NULL, strstr(self->log, "this kernel lacks"))
			TH_LOG("%s", self->log);
	}
	for (int i = 0; i < 3 && variant->values[i].name; i++) {
		EXPECT_EQ(variant->values[i].value,
			  param_get_long(variant->values[i].name))
			TH_LOG("parameter %s", variant->values[i].name);
	}
	check_documented(_metadata, self->log);
}

/* Checks made on a load with the defaults. */
FIXTURE(loaded) {
	char log[32768];
};

FIXTURE_SETUP(loaded)
{
	char buf[64];

	if (geteuid())
		SKIP(return, "needs root");
	if (!path_exists(pmc_t_ko()))
		SKIP(return, "no %s (build it, or set PMC_KO)", pmc_t_ko());
	if (pmc_loaded() && param_get_long("../refcnt") > 0)
		SKIP(return, "pmc.ko is in use (refcnt %s)",
		     param_get("../refcnt", buf, sizeof(buf)));
}

FIXTURE_TEARDOWN(loaded)
{
	if (!geteuid() && path_exists(pmc_t_ko()) && !pmc_loaded())
		pmc_t_load("");
}

/* hwpmc's [class/npmc/capabilities] line for every class GETCPUINFO has. */
TEST_F(loaded, announces_every_class)
{
	static const char * const capnames[] = {
		"INT", "USR", "SYS", "EDG", "THR", "REA", "WRI", "INV", "QUA",
		"PRC", "TAG", "CSC", "SYW", "DMW",
	};
	struct pmc_op_getcpuinfo ci;
	char mark[128], want[256];
	int fd;

	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, pmc_t_unload());
	ASSERT_EQ(0, kmsg_mark(mark, sizeof(mark)));
	ASSERT_EQ(0, pmc_t_load(""));
	ASSERT_LE(0, kmsg_after(mark, self->log, sizeof(self->log)));

	fd = open(PMC_DEVICE_PATH, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmc_op(fd, PMC_IOC_GETCPUINFO, &ci));
	close(fd);
	ASSERT_LE(1U, ci.pm_nclass);

	for (unsigned int i = 0; i < ci.pm_nclass; i++) {
		const struct pmc_classinfo *c = &ci.pm_classes[i];
		const char *name;
		int len;

		switch (c->pm_class) {
		case PMC_CLASS_TSC: name = "TSC"; break;
		case PMC_CLASS_K8: name = "K8"; break;
		case PMC_CLASS_IAF: name = "IAF"; break;
		case PMC_CLASS_IAP: name = "IAP"; break;
		case PMC_CLASS_SOFT: name = "SOFT"; break;
		case PMC_CLASS_ARMV8: name = "ARMV8"; break;
		default: name = "?"; break;
		}
		len = snprintf(want, sizeof(want), "pmc: %s/%u/%u/0x%x<", name,
			       c->pm_num, c->pm_width, c->pm_caps);
		for (unsigned int b = 0, first = 1; b < 14; b++) {
			if (!(c->pm_caps & (1U << b)))
				continue;
			len += snprintf(want + len, sizeof(want) - len, "%s%s",
					first ? "" : ",", capnames[b]);
			first = 0;
		}
		snprintf(want + len, sizeof(want) - len, ">");
		EXPECT_TRUE(lines_have(self->log, want))
			TH_LOG("no line \"%s\"; the kernel log has:\n%s", want,
			       self->log);
	}
}

TEST_F(loaded, unload_says_unloaded)
{
	char mark[128];

	RETURN_IF_SKIPPED();

	if (!pmc_loaded())
		ASSERT_EQ(0, pmc_t_load(""));
	ASSERT_EQ(0, kmsg_mark(mark, sizeof(mark)));
	ASSERT_EQ(0, pmc_t_unload());
	ASSERT_LE(0, kmsg_after(mark, self->log, sizeof(self->log)));
	EXPECT_TRUE(lines_have(self->log, "pmc: unloaded"))
		TH_LOG("the kernel log has:\n%s", self->log);
	check_documented(_metadata, self->log);
	ASSERT_EQ(0, pmc_t_load(""));
}

/* A selection given at load is applied and read back normalised. */
TEST_F(loaded, debugflags_given_at_load)
{
	char buf[256];

	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, pmc_t_unload());
	ASSERT_EQ(0, pmc_t_load("debugflags=\"process=* csw=*\""));
	ASSERT_NE(NULL, param_get("debugflags", buf, sizeof(buf)));
	EXPECT_STREQ("csw=* process=*", buf);
	ASSERT_EQ(0, pmc_t_unload());
	ASSERT_EQ(0, pmc_t_load(""));
	ASSERT_NE(NULL, param_get("debugflags", buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
}

TEST_HARNESS_MAIN
