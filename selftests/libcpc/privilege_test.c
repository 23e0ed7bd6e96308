// SPDX-License-Identifier: GPL-2.0
/*
 * privilege_test.c - libcpc for an unprivileged user (uid/gid 65534):
 * counting its own thread in user mode works (the tick falls back to user
 * time), while kernel-mode counting (with perf_event_paranoid > 1) and
 * processor binding fail with EACCES and CPC_ATTR_REQUIRES_PRIVILEGE, and a
 * failed processor bind leaves the caller's affinity as it was.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <pmc/hwpmc.h>

#include "cpc_util.h"

static int last_subcode;

static void keep_subcode(const char *fn, int subcode, const char *fmt,
			 va_list ap)
{
	(void)fn;
	(void)fmt;
	(void)ap;
	last_subcode = subcode;
}

static int read_int(const char *path, int dflt)
{
	FILE *f = fopen(path, "r");
	int v = dflt;
	char c;

	if (f) {
		if (fscanf(f, "%d", &v) != 1 && fseek(f, 0, SEEK_SET) == 0 &&
		    fscanf(f, "%c", &c) == 1)
			v = c == 'Y';
		fclose(f);
	}
	return v;
}

/* Returns 0, or the number of the check that failed. */
static int unprivileged_checks(void)
{
	int paranoid = read_int("/proc/sys/kernel/perf_event_paranoid", 2);
	int syspmcs = read_int("/sys/module/pmc/parameters/unprivileged_syspmcs",
			       0);
	cpu_set_t before, after;
	cpc_set_t *user, *kern, *cpu;
	cpc_buf_t *buf;
	cpc_t *cpc;

	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc)
		return 1;
	cpc_seterrhndlr(cpc, keep_subcode);
	user = cpc_set_create(cpc);
	if (cpc_set_add_request(cpc, user, "task-clock", 0, CPC_COUNT_USER, 0,
				NULL) != 0 || !(buf = cpc_buf_create(cpc, user)))
		return 2;
	if (cpc_bind_curlwp(cpc, user, 0) != 0)
		return 3;
	spin_cpu_ns(20 * 1000 * 1000);
	if (cpc_set_sample(cpc, user, buf) != 0 || cpc_buf_tick(cpc, buf) == 0)
		return 4;
	cpc_unbind(cpc, user);

	kern = cpc_set_create(cpc);
	cpc_set_add_request(cpc, kern, "task-clock", 0,
			    CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL);
	last_subcode = 0;
	if (paranoid > 1 && (cpc_bind_curlwp(cpc, kern, 0) != -1 ||
			     errno != EACCES ||
			     last_subcode != CPC_ATTR_REQUIRES_PRIVILEGE))
		return 5;

	CPU_ZERO(&before);
	sched_getaffinity(0, sizeof(before), &before);
	cpu = cpc_set_create(cpc);
	cpc_set_add_request(cpc, cpu, "cpu-clock", 0, CPC_COUNT_USER, 0, NULL);
	last_subcode = 0;
	if (!syspmcs && (cpc_bind_cpu(cpc, 0, cpu, 0) != -1 ||
			 errno != EACCES ||
			 last_subcode != CPC_ATTR_REQUIRES_PRIVILEGE))
		return 6;
	CPU_ZERO(&after);
	sched_getaffinity(0, sizeof(after), &after);
	if (!syspmcs && !CPU_EQUAL(&before, &after))
		return 7;
	cpc_close(cpc);
	return 0;
}

FIXTURE(unpriv) {
	mode_t mode;
	bool changed;
};

FIXTURE_SETUP(unpriv)
{
	struct stat st;

	self->changed = false;
	if (getuid() != 0)
		SKIP(return, "needs root to switch to uid 65534");
	if (stat(PMC_DEVICE_PATH, &st) != 0)
		SKIP(return, "no %s", PMC_DEVICE_PATH);
	self->mode = st.st_mode & 07777;
	ASSERT_EQ(0, chmod(PMC_DEVICE_PATH, 0666));
	self->changed = true;
}

FIXTURE_TEARDOWN(unpriv)
{
	if (self->changed)
		EXPECT_EQ(0, chmod(PMC_DEVICE_PATH, self->mode));
}

TEST_F(unpriv, user_counting_works_and_privileged_binds_are_refused)
{
	int status;
	pid_t pid;

	REQUIRE_CPC();
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(100);
		_exit(unprivileged_checks());
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("check %d failed (see unprivileged_checks())",
		       WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
