// SPDX-License-Identifier: GPL-2.0
/*
 * short_test.c - the short pmc-fuzz run of the VM suite: 50,000 ops
 * ($PMC_FUZZ_OPS) from 4 processes of 3 threads, two of them as uid 65534,
 * with a new seed each time ($PMC_FUZZ_SEED replays one). pmc-fuzz checks
 * every errno and bad-pointer outcome, the kernel log, that no row stays
 * owned and that the driver still counts; then the module must unload
 * (nothing the run did holds it) and load again.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pmc_test.h"

/* build/selftests/fuzz/pmc-fuzz, beside the directory of this binary. */
static int fuzz_path(char *out, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(out, len, "%s/../fuzz/pmc-fuzz", exe);
	return access(out, X_OK);
}

/* The module the VM loaded: $PMC_KO, else driver/pmc.ko. */
static const char *module_path(void)
{
	const char *env = getenv("PMC_KO");

	return env && *env ? env : PMC_TEST_MODULE;
}

FIXTURE(fuzz) {
	char bin[PATH_MAX];
};

FIXTURE_SETUP(fuzz)
{
	if (geteuid())
		SKIP(return, "needs root (the VM suite runs as root)");
	if (!pmc_t_have_device())
		SKIP(return, "no %s (pmc.ko not loaded)", PMC_DEVICE_PATH);
	if (fuzz_path(self->bin, sizeof(self->bin)))
		SKIP(return, "no pmc-fuzz beside the test binaries (make fuzz)");
}

FIXTURE_TEARDOWN(fuzz)
{
}

TEST_F_TIMEOUT(fuzz, short_run, 600)
{
	const char *ops = getenv("PMC_FUZZ_OPS");
	const char *seed = getenv("PMC_FUZZ_SEED");
	int st;

	if (_metadata->skip)
		return;		/* the 6.1 harness runs the body after a SKIP */
	st = pmc_t_system("%s --ops %s --procs 4 --threads 3 --unpriv 2 --timeout 500%s%s",
			  self->bin, ops && *ops ? ops : "50000",
			  seed && *seed ? " --seed " : "", seed && *seed ? seed : "");
	ASSERT_EQ(0, st) TH_LOG("pmc-fuzz failed: its seed and failures are above");
}

TEST_F_TIMEOUT(fuzz, module_unloads_after, 120)
{
	int i, st = -1;

	if (_metadata->skip)
		return;
	/* The killed owners' last references go with their exit: retry briefly. */
	for (i = 0; i < 50; i++) {
		st = pmc_t_system("rmmod pmc 2>/dev/null");
		if (!st)
			break;
		usleep(100000);
	}
	EXPECT_EQ(0, st) TH_LOG("rmmod pmc refused after the fuzz run: a reference leaked");
	ASSERT_EQ(0, pmc_t_system("grep -qw ^pmc /proc/modules || insmod %s", module_path()));
	ASSERT_TRUE(pmc_t_have_device());
}

TEST_HARNESS_MAIN
