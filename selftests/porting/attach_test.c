// SPDX-License-Identifier: GPL-2.0
/*
 * attach_test.c - PMCATTACH to another process is decided by the kernel's
 * own ptrace_may_access(PTRACE_MODE_READ_REALCREDS), LSMs included, the
 * check perf_event_open(2) makes on a target: at Yama ptrace_scope 0, 1
 * and 2 (as uid 65534 and root) a PMC attach gets what perf_event_open(2)
 * gets on the same target, while ptrace(2) attach is refused (Yama limits
 * only attach-mode access); an AppArmor profile that denies "ptrace
 * (read)" refuses the attach (EPERM). Scope 3 cannot be undone until
 * reboot: yama3.c checks it in a guest of its own (make vm-yama3).
 */
#include "pmc_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define AA_PROFILE	"pmc-porting-noptrace"
#define AA_PROFILE_PATH	"/tmp/pmc-porting-noptrace.aa"
#define AA_PARSER	"/usr/sbin/apparmor_parser"

#define CHECK(cond) do { if (!(cond)) return __LINE__ & 0xff; } while (0)

FIXTURE(att) {
	mode_t dev_mode;
	char yama[16], proc_debug[16], paranoid[16];
	bool have_yama;
	pid_t sibling;		/* a process of uid 65534, not our child */
	bool aa_loaded;
};

static pid_t start_sibling(bool ptracer_any)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (pmc_t_drop_privileges())
		_exit(1);
	if (ptracer_any && prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0))
		_exit(2);
	pause();
	_exit(0);
}

FIXTURE_SETUP(att)
{
	self->sibling = -1;
	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	if (geteuid())
		SKIP(return, "needs root to set up the unprivileged user");
	ASSERT_EQ(0, pmc_t_dev_chmod(0666, &self->dev_mode));
	ASSERT_EQ(0, pmc_t_param_read("unprivileged_proc_debug",
				      self->proc_debug,
				      sizeof(self->proc_debug)));
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_proc_debug", "1"));
	/* perf_event_open(2), the oracle, open to users (user mode). */
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "2",
					self->paranoid,
					sizeof(self->paranoid)));
	self->have_yama = !pmc_t_sysctl_write("kernel/yama/ptrace_scope", "0",
					      self->yama, sizeof(self->yama));
	self->sibling = start_sibling(false);
	ASSERT_LT(0, self->sibling);
	pmc_t_wait_sleeping(self->sibling);
}

FIXTURE_TEARDOWN(att)
{
	if (self->sibling > 0) {
		kill(self->sibling, SIGKILL);
		waitpid(self->sibling, NULL, 0);
	}
	if (!pmc_t_have_device() || geteuid())
		return;
	pmc_t_dev_chmod(self->dev_mode, NULL);
	pmc_t_param_write("unprivileged_proc_debug", self->proc_debug);
	pmc_t_sysctl_write("kernel/perf_event_paranoid", self->paranoid,
			   NULL, 0);
	if (self->have_yama)
		pmc_t_sysctl_write("kernel/yama/ptrace_scope", self->yama,
				   NULL, 0);
	if (self->aa_loaded)
		pmc_t_system(AA_PARSER " -R -K " AA_PROFILE_PATH " >/dev/null 2>&1");
	unlink(AA_PROFILE_PATH);
}

static int pause_fn(void *arg)
{
	pause();
	return 0;
}

/* Attach then detach: 0, or the attach's -errno. */
static int try_attach(int fd, uint32_t id, pid_t pid)
{
	int ret = pmc_t_attach(fd, id, pid, 0);

	if (!ret && pmc_t_detach(fd, id, pid, 0))
		return -1000;
	return ret;
}

#define BY_PERF		1	/* expect what perf_event_open(2) gets */

struct expect {
	pid_t sibling;
	int child;		/* expected result for our own child, or BY_PERF */
	int sib;		/* ... for the sibling */
	int ptrace_sib;		/* expected ptrace(PTRACE_SEIZE) of the sibling */
	bool check_ptrace;
};

/* 0 if perf_event_open(2) may count @pid's page faults, else -EPERM. */
static int perf_may(pid_t pid)
{
	int fd = pmc_t_perf_open_ex(pid, PMC_T_SW_PAGE_FAULTS, false, true);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return fd == -EACCES || fd == -EPERM ? -EPERM : fd;
}

/* ptrace(PTRACE_SEIZE, @pid) from a child of ours: 0 or -errno. */
static int ptrace_may(pid_t pid)
{
	pid_t t = fork();
	int st;

	if (!t)
		_exit(ptrace(PTRACE_SEIZE, pid, NULL, NULL) ? errno : 0);
	if (t < 0 || waitpid(t, &st, 0) != t || !WIFEXITED(st))
		return -1000;
	return -WEXITSTATUS(st);
}

static int expected(int want, pid_t pid)
{
	return want == BY_PERF ? perf_may(pid) : want;
}

/* As whoever runs it: attach to an own child and to the sibling. */
static int attach_as(void *arg)
{
	struct expect *e = arg;
	struct pmc_t_child c = { 0 };
	int fd = pmc_t_open(), ret = 0;
	uint32_t id;

	CHECK(fd >= 0);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS,
			       PMC_CAP_USER, 0, &id) == 0);
	CHECK(pmc_t_child_start(&c, pause_fn, NULL) == 0);
	if (try_attach(fd, id, c.pid) != expected(e->child, c.pid))
		ret = __LINE__;
	else if (try_attach(fd, id, e->sibling) !=
		 expected(e->sib, e->sibling))
		ret = __LINE__;
	else if (e->check_ptrace && ptrace_may(e->sibling) != e->ptrace_sib)
		ret = __LINE__;
	/* Itself, always. */
	else if (try_attach(fd, id, 0))
		ret = __LINE__;
	pmc_t_child_kill(&c);
	close(fd);
	return ret & 0xff;
}

static void set_scope(struct __test_metadata *_metadata, const char *scope)
{
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/yama/ptrace_scope", scope,
					NULL, 0));
}

/*
 * Yama decides through its own hook, which limits attach-mode access only:
 * at every scope a PMC attach (read mode) gets what perf_event_open(2)
 * gets, while ptrace(2) attach follows the scope.
 */
TEST_F(att, yama_scopes)
{
	struct expect e = {
		.sibling = self->sibling, .child = BY_PERF, .sib = BY_PERF,
		.check_ptrace = true,
	};
	pid_t any;

	if (!self->have_yama)
		SKIP(return, "Yama not in this kernel (no kernel/yama/ptrace_scope)");
	/* 0: classic ptrace permissions, the same uid suffices. */
	set_scope(_metadata, "0");
	e.ptrace_sib = 0;
	EXPECT_EQ(0, pmc_t_run_as_nobody(attach_as, &e));
	/* The oracle: perf lets the user count its own processes. */
	EXPECT_EQ(0, perf_may(self->sibling));
	/* 1: ptrace(2) to descendants only; a PMC as perf. */
	set_scope(_metadata, "1");
	e.ptrace_sib = -EPERM;
	EXPECT_EQ(0, pmc_t_run_as_nobody(attach_as, &e));
	/* ...or a process that named us (any) its ptracer. */
	any = start_sibling(true);
	ASSERT_LT(0, any);
	pmc_t_wait_sleeping(any);
	e.sibling = any;
	e.ptrace_sib = 0;
	EXPECT_EQ(0, pmc_t_run_as_nobody(attach_as, &e));
	kill(any, SIGKILL);
	waitpid(any, NULL, 0);
	e.sibling = self->sibling;
	/* 2: ptrace(2) with CAP_SYS_PTRACE only; a PMC as perf. */
	set_scope(_metadata, "2");
	e.ptrace_sib = -EPERM;
	EXPECT_EQ(0, pmc_t_run_as_nobody(attach_as, &e));
	/* ...root may ptrace too. */
	e.ptrace_sib = 0;
	EXPECT_EQ(0, attach_as(&e));
}

/* ---------------------------------------------------------------- AppArmor */

static bool aa_enabled(void)
{
	char buf[8] = "";
	int fd = open("/sys/module/apparmor/parameters/enabled", O_RDONLY);

	if (fd < 0)
		return false;
	if (read(fd, buf, sizeof(buf) - 1) < 1)
		buf[0] = 0;
	close(fd);
	return buf[0] == 'Y';
}

/* Enter the profile (change_profile, at once), drop to 65534, attach. */
static int confined_attach(void *arg)
{
	static const char cmd[] = "changeprofile " AA_PROFILE;
	struct expect *e = arg;
	pid_t pid;
	int fd, st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		fd = open("/proc/self/attr/apparmor/current", O_WRONLY);
		if (fd < 0)
			fd = open("/proc/self/attr/current", O_WRONLY);
		if (fd < 0 || write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
			_exit(2);
		close(fd);
		if (pmc_t_drop_privileges())
			_exit(3);
		_exit(attach_as(e));
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 4;
	return WEXITSTATUS(st);
}

/* An AppArmor profile denying "ptrace (read)" denies the attach too. */
TEST_F(att, apparmor_ptrace_read_denied)
{
	static const char profile[] =
		"abi <abi/3.0>,\n"
		"profile " AA_PROFILE " {\n"
		"  file,\n"
		"  capability,\n"
		"  signal,\n"
		"  network,\n"
		"  ptrace (readby, tracedby),\n"
		"  deny ptrace (read, trace),\n"
		"}\n";
	struct expect e = { .sibling = self->sibling };
	FILE *f;

	if (!aa_enabled())
		SKIP(return, "AppArmor not enabled in this kernel");
	if (access(AA_PARSER, X_OK))
		SKIP(return, "apparmor_parser not installed (package apparmor)");
	if (access("/sys/kernel/security/apparmor", F_OK))
		ASSERT_EQ(0, mount("securityfs", "/sys/kernel/security",
				   "securityfs", 0, NULL));
	f = fopen(AA_PROFILE_PATH, "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1u, fwrite(profile, sizeof(profile) - 1, 1, f));
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, pmc_t_system(AA_PARSER " -r -K " AA_PROFILE_PATH));
	self->aa_loaded = true;

	/* Unconfined, the user may attach to its own child and sibling... */
	e.child = 0;
	e.sib = 0;
	EXPECT_EQ(0, pmc_t_run_as_nobody(attach_as, &e));
	/* ...in the profile, to neither. */
	e.child = -EPERM;
	e.sib = -EPERM;
	EXPECT_EQ(0, confined_attach(&e));
}

TEST_HARNESS_MAIN
