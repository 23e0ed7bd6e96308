// SPDX-License-Identifier: GPL-2.0
/*
 * example_test.c - the example program (build/tools/perfmon, FreeBSD's
 * /usr/share/examples/perfmon) on the test PMU: its output lines have the
 * original's format, its total and mean are the sum and mean of its
 * intervals, the intervals add up to every CPU's time over the TSC ticks it
 * reports, and bad arguments get the usage message, or FreeBSD's message
 * for a bad number. The program is written as FreeBSD's is
 * (<machine/perfmon.h>, _PATH_PERFMON) and built with only the flags of
 * pkg-config pmc-perfmon: it opens /dev/perfmon.
 */
#include <regex.h>

#include "kselftest_harness.h"
#include "perfmon_util.h"

#define MAX_LINES	64

struct output {
	int status;
	int nlines;
	char lines[MAX_LINES][128];
	char err[1024];
};

FIXTURE(example) {
	int unused;
};

FIXTURE_SETUP(example)
{
	const char *why = tp_cannot_load();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, access(pm_example_path(), X_OK));
	ASSERT_EQ(0, tp_load(4, 48));
}

FIXTURE_TEARDOWN(example)
{
}

/* Run the example program with @args; stdout lines and stderr in @out. */
static int run_example(const char *args, struct output *out)
{
	char cmd[PATH_MAX + 512], errpath[] = "/tmp/perfmon-err.XXXXXX";
	FILE *f;
	int efd, st;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	efd = mkstemp(errpath);
	if (efd < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "%s %s 2>%s", pm_example_path(), args,
		 errpath);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (out->nlines < MAX_LINES &&
	       fgets(out->lines[out->nlines], sizeof(out->lines[0]), f)) {
		out->lines[out->nlines][strcspn(out->lines[out->nlines], "\n")] = 0;
		out->nlines++;
	}
	st = pclose(f);
	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	n = read(efd, out->err, sizeof(out->err) - 1);
	out->err[n > 0 ? n : 0] = '\0';
	close(efd);
	unlink(errpath);
	return 0;
}

static bool matches(const char *re, const char *s)
{
	regex_t rx;
	bool ok;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return false;
	ok = regexec(&rx, s, 0, NULL, 0) == 0;
	regfree(&rx);
	return ok;
}

/*
 * Check the format of an output of @loops intervals; return the total and
 * the TSC time in ns it reports.
 */
static void check_format(struct __test_metadata *_metadata,
			 const struct output *out, int loops,
			 double *total, double *ns)
{
	long long sum = 0, v;
	double mean;
	int i, n, mhz;
	long long clocks;

	ASSERT_EQ(0, out->status) TH_LOG("stderr: %s", out->err);
	ASSERT_EQ(loops + 3, out->nlines);
	for (i = 0; i < loops; i++) {
		ASSERT_TRUE(matches("^[0-9]+: -?[0-9]+$", out->lines[i]))
			TH_LOG("line %d: '%s'", i + 1, out->lines[i]);
		ASSERT_EQ(2, sscanf(out->lines[i], "%d: %lld", &n, &v));
		EXPECT_EQ(i + 1, n);
		sum += v;
	}
	ASSERT_TRUE(matches("^total: [0-9]+\\.[0-9]{6}$", out->lines[loops]))
		TH_LOG("'%s'", out->lines[loops]);
	ASSERT_TRUE(matches("^mean: [0-9]+\\.[0-9]{6}$", out->lines[loops + 1]))
		TH_LOG("'%s'", out->lines[loops + 1]);
	ASSERT_TRUE(matches("^clocks \\(at [0-9]+-MHz\\): [0-9]+$",
			    out->lines[loops + 2]))
		TH_LOG("'%s'", out->lines[loops + 2]);
	ASSERT_EQ(1, sscanf(out->lines[loops], "total: %lf", total));
	ASSERT_EQ(1, sscanf(out->lines[loops + 1], "mean: %lf", &mean));
	ASSERT_EQ(2, sscanf(out->lines[loops + 2], "clocks (at %d-MHz): %lld",
			    &mhz, &clocks));
	EXPECT_EQ((double)sum, *total);
	EXPECT_TRUE(mean - *total / loops < 1e-6 && *total / loops - mean < 1e-6);
	ASSERT_LT(0, mhz);
	*ns = clocks * 1000.0 / mhz;
}

/* Five intervals of a shell command: the counts cover every CPU's time. */
TEST_F(example, intervals_add_up_to_all_cpus_time)
{
	struct output out;
	double total, ns;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, run_example("-u -o -l 5 -c 'sleep 0.1' 0x3c", &out));
	check_format(_metadata, &out, 5, &total, &ns);
	if (_metadata->passed == 0)
		return;
	TH_LOG("total %.0f events, %ld CPUs x %.0f ns", total, pm_ncpus(), ns);
	/* Between STOP and START nothing counts: a little below the time. */
	EXPECT_LE(total, pm_ncpus() * ns);
	EXPECT_LE(pm_ncpus() * ns * 0.9, total);
}

/* The default is 50 intervals; without -u and -o nothing is counted. */
TEST_F(example, default_loops_and_no_mode)
{
	struct output out;
	double total, ns;

	if (_metadata->skip)
		return;
	ASSERT_EQ(0, run_example("0x3c", &out));
	check_format(_metadata, &out, 50, &total, &ns);
	EXPECT_EQ(0.0, total);
}

TEST_F(example, bad_arguments_get_the_usage)
{
	static const char * const bad[] = {
		"", "1 2", "256", "-U 256 1", "-m x 1", "-l 0 1", "-z 1",
	};
	struct output out;
	const char *what;
	unsigned int i;

	if (_metadata->skip)
		return;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, run_example(bad[i], &out));
		EXPECT_EQ(1, out.status) TH_LOG("args '%s'", bad[i]);
		EXPECT_EQ(0, out.nlines);
		/* FreeBSD's getnum() says what is wrong with a number. */
		what = i >= 2 && i <= 5 ? "must be" : "usage: ";
		EXPECT_NE(NULL, strstr(out.err, what))
			TH_LOG("args '%s': %s", bad[i], out.err);
	}
}

TEST_HARNESS_MAIN
