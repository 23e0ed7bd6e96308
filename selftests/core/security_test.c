// SPDX-License-Identifier: GPL-2.0
/*
 * security_test.c - the driver's privilege checks, each refusal tried as
 * uid/gid 65534: system PMCs (unprivileged_syspmcs), kernel-mode counting
 * (perf_event_paranoid), PMCADMIN, attaching to others' processes
 * (ptrace_may_access() in read mode, unprivileged_proc_debug), and the
 * setuid-exec detach (with a setuid-root copy of this binary in /tmp).
 */
#include "pmc_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SUID_PATH	"/tmp/pmc-core-suid"
#define PLAIN_PATH	"/tmp/pmc-core-plain"
/*
 * What the exec'd image spins. The setuid case may count what execve()
 * costs before the detach, which on the debug kernel (KASAN, lockdep)
 * under a loaded TCG host reached 60 ms: keep the spin well above twice
 * that.
 */
#define EXEC_SPIN_NS	400000000ULL

/*
 * "--spin-ns N": the exec'd (setuid) image only burns N ns of CPU. Runs
 * before the harness sees the arguments.
 */
__attribute__((constructor))
static void spin_mode(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--spin-ns")) {
		pmc_t_spin_ns(strtoull(argv[2], NULL, 10));
		_exit(0);
	}
}

FIXTURE(sec) {
	mode_t dev_mode;
	char syspmcs[16], proc_debug[16], paranoid[16], yama[16];
	bool have_yama;
};

FIXTURE_SETUP(sec)
{
	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	if (geteuid())
		SKIP(return, "needs root to set up the unprivileged user");
	ASSERT_EQ(0, pmc_t_dev_chmod(0666, &self->dev_mode));
	ASSERT_EQ(0, pmc_t_param_read("unprivileged_syspmcs", self->syspmcs,
				      sizeof(self->syspmcs)));
	ASSERT_EQ(0, pmc_t_param_read("unprivileged_proc_debug",
				      self->proc_debug,
				      sizeof(self->proc_debug)));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "2",
					self->paranoid,
					sizeof(self->paranoid)));
	self->have_yama = !pmc_t_sysctl_write("kernel/yama/ptrace_scope", "0",
					      self->yama, sizeof(self->yama));
}

FIXTURE_TEARDOWN(sec)
{
	if (!pmc_t_have_device() || geteuid())
		return;
	pmc_t_dev_chmod(self->dev_mode, NULL);
	pmc_t_param_write("unprivileged_syspmcs", self->syspmcs);
	pmc_t_param_write("unprivileged_proc_debug", self->proc_debug);
	pmc_t_sysctl_write("kernel/perf_event_paranoid", self->paranoid,
			   NULL, 0);
	if (self->have_yama)
		pmc_t_sysctl_write("kernel/yama/ptrace_scope", self->yama,
				   NULL, 0);
	unlink(SUID_PATH);
	unlink(PLAIN_PATH);
}

/* Each check below returns 0, or the line that failed (for the log). */
#define CHECK(cond) do { if (!(cond)) return __LINE__ & 0xff; } while (0)

static int alloc_sys(int fd, uint32_t mode, uint32_t caps)
{
	return pmc_t_alloc_soft(fd, mode, 0, PMC_T_SW_CPU_CLOCK,
				caps | (PMC_IS_SAMPLING_MODE(mode) ?
					PMC_CAP_INTERRUPT : 0), 0, NULL);
}

static int nobody_system(void *arg)
{
	int fd = pmc_t_open();

	CHECK(fd >= 0);
	CHECK(alloc_sys(fd, PMC_MODE_SC, PMC_CAP_USER) == -EPERM);
	CHECK(alloc_sys(fd, PMC_MODE_SS, PMC_CAP_USER) == -EPERM);
	return 0;
}

static int nobody_system_allowed(void *arg)
{
	int fd = pmc_t_open();

	CHECK(fd >= 0);
	CHECK(alloc_sys(fd, PMC_MODE_SC, PMC_CAP_USER) == 0);
	CHECK(alloc_sys(fd, PMC_MODE_SC, 0) == 0);
	return 0;
}

/*
 * unprivileged_syspmcs=1 lets users have system PMCs as far as perf lets
 * them have CPU-wide counters: perf_event_paranoid <= 0.
 */
TEST_F(sec, system_pmcs_need_privilege_or_unprivileged_syspmcs)
{
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_syspmcs", "0"));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "0",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_system, NULL));
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_syspmcs", "1"));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "1",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_system, NULL));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "0",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_system_allowed, NULL));
}

static int nobody_kernel_paranoid2(void *arg)
{
	int fd = pmc_t_open();
	uint32_t id, caps;

	CHECK(fd >= 0);
	/* No mode named: user mode only (selftests/porting/semantics). */
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0,
			       0, &id) == 0);
	CHECK(pmc_t_getcaps(fd, id, &caps) == 0 &&
	      !(caps & PMC_CAP_SYSTEM));
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK,
			       PMC_CAP_SYSTEM, 0, NULL) == -EPERM);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK,
			       PMC_CAP_USER | PMC_CAP_SYSTEM, 0, NULL) ==
	      -EPERM);
	/* User mode only: allowed, and it counts. */
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS,
			       PMC_CAP_USER, 0, &id) == 0);
	CHECK(pmc_t_start(fd, id) == 0);
	CHECK(pmc_t_touch_pages(50) == 0);
	CHECK(pmc_t_stop(fd, id) == 0);
	{
		uint64_t v;

		CHECK(pmc_t_read(fd, id, &v) == 0 && v >= 50);
	}
	return 0;
}

static int nobody_kernel_paranoid1(void *arg)
{
	int fd = pmc_t_open();

	CHECK(fd >= 0);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0,
			       0, NULL) == 0);
	return 0;
}

TEST_F(sec, kernel_mode_counting_needs_paranoid_1)
{
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "2",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_kernel_paranoid2, NULL));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "1",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_kernel_paranoid1, NULL));
}

static int nobody_admin(void *arg)
{
	int fd = pmc_t_open();
	int row = pmc_t_class_row(fd, PMC_CLASS_SOFT, 0);

	CHECK(fd >= 0 && row >= 0);
	CHECK(pmc_t_admin(fd, 0, row, PMC_STATE_DISABLED) == -EPERM);
	CHECK(pmc_t_admin(fd, 0, row, PMC_STATE_FREE) == -EPERM);
	return 0;
}

TEST_F(sec, admin_needs_cap_sys_admin)
{
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_admin, NULL));
}

/* ---------------------------------------------------------------- attach */

static int pause_fn(void *arg)
{
	pause();
	return 0;
}

static int undumpable_fn(void *arg)
{
	prctl(PR_SET_DUMPABLE, 0);
	pause();
	return 0;
}

struct attach_args {
	pid_t root_pid;		/* a process of root */
	pid_t sibling;		/* a process of uid 65534, not our child */
	bool yama;
};

static int nobody_attach(void *arg)
{
	struct attach_args *a = arg;
	struct pmc_t_child c = { 0 }, u = { 0 };
	uint32_t id;
	int fd = pmc_t_open(), ret = 0;

	CHECK(fd >= 0);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS,
			       PMC_CAP_USER, 0, &id) == 0);
	CHECK(pmc_t_child_start(&c, pause_fn, NULL) == 0);
	CHECK(pmc_t_child_start(&u, undumpable_fn, NULL) == 0);
	CHECK(pmc_t_child_go(&u) == 0);
	usleep(100000);

	/* Our own child, same credentials: allowed. */
	if (pmc_t_attach(fd, id, c.pid, 0) || pmc_t_detach(fd, id, c.pid, 0))
		ret = __LINE__;
	/* root's process, init: refused. */
	else if (pmc_t_attach(fd, id, a->root_pid, 0) != -EPERM ||
		 pmc_t_attach(fd, id, 1, 0) != -EPERM)
		ret = __LINE__;
	/* Not dumpable: refused. */
	else if (pmc_t_attach(fd, id, u.pid, 0) != -EPERM)
		ret = __LINE__;
	/* Same uid, not a descendant: allowed with Yama off. */
	else if (pmc_t_attach(fd, id, a->sibling, 0) ||
		 pmc_t_detach(fd, id, a->sibling, 0))
		ret = __LINE__;
	pmc_t_child_kill(&c);
	pmc_t_child_kill(&u);
	return ret & 0xff;
}

static int nobody_attach_self_only(void *arg)
{
	struct attach_args *a = arg;
	struct pmc_t_child c = { 0 };
	uint32_t id;
	int fd = pmc_t_open(), ret = 0;

	CHECK(fd >= 0);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS,
			       PMC_CAP_USER, 0, &id) == 0);
	CHECK(pmc_t_child_start(&c, pause_fn, NULL) == 0);
	if (a->yama) {
		/*
		 * Yama 1 limits ptrace(2) attach to descendants; a PMC attach
		 * is read-mode access, as perf_event_open(2)'s, which Yama
		 * leaves alone (selftests/porting/attach).
		 */
		if (pmc_t_attach(fd, id, a->sibling, 0) ||
		    pmc_t_detach(fd, id, a->sibling, 0) ||
		    pmc_t_attach(fd, id, c.pid, 0) ||
		    pmc_t_detach(fd, id, c.pid, 0))
			ret = __LINE__;
	} else {
		/* unprivileged_proc_debug=0: only ourselves. */
		if (pmc_t_attach(fd, id, c.pid, 0) != -EPERM ||
		    pmc_t_attach(fd, id, 0, 0))
			ret = __LINE__;
	}
	pmc_t_child_kill(&c);
	return ret & 0xff;
}

static int nobody_pause(void *arg)
{
	pause();
	return 0;
}

TEST_F(sec, attach_needs_ptrace_rights)
{
	struct attach_args a = { .root_pid = getpid() };
	pid_t sib = fork();

	ASSERT_LE(0, sib);
	if (!sib) {
		if (pmc_t_drop_privileges())
			_exit(1);
		nobody_pause(NULL);
		_exit(0);
	}
	a.sibling = sib;
	usleep(100000);
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_proc_debug", "1"));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_attach, &a));
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_proc_debug", "0"));
	EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_attach_self_only, &a));
	ASSERT_EQ(0, pmc_t_param_write("unprivileged_proc_debug", "1"));
	if (self->have_yama) {
		ASSERT_EQ(0, pmc_t_sysctl_write("kernel/yama/ptrace_scope",
						"1", NULL, 0));
		a.yama = true;
		EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_attach_self_only, &a));
	}
	kill(sib, SIGKILL);
	waitpid(sib, NULL, 0);
}

/* ---------------------------------------------------------------- setuid exec */

/* Copy this binary to @path with @mode (root-owned). */
static int copy_self(const char *path, mode_t mode)
{
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), out;
	struct stat st;
	ssize_t n;

	if (in < 0 || fstat(in, &st))
		return -1;
	unlink(path);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out < 0)
		return -1;
	n = sendfile(out, in, NULL, (size_t)st.st_size);
	close(in);
	if (close(out) || n != st.st_size)
		return -1;
	return chmod(path, mode);
}

struct exec_args {
	const char *path;
	uint64_t value;		/* what the PMC counted */
	int drop;		/* the target drops to 65534 first (root owner) */
};

static int exec_target(void *arg)
{
	struct exec_args *a = arg;
	char ns[32];

	snprintf(ns, sizeof(ns), "%llu", (unsigned long long)EXEC_SPIN_NS);
	execl(a->path, a->path, "--spin-ns", ns, (char *)NULL);
	return 99;
}

/*
 * Attach a task-clock PMC to a child that then execs @a->path and spins
 * there; what the PMC counted goes to a->value.
 */
static int count_exec(void *arg)
{
	struct exec_args *a = arg;
	struct pmc_t_child c = { 0 };
	int fd = pmc_t_open(), st;
	uint32_t id;

	CHECK(fd >= 0);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK,
			       PMC_CAP_USER, 0, &id) == 0);
	CHECK(pmc_t_child_start(&c, exec_target, a) == 0);
	CHECK(pmc_t_attach(fd, id, c.pid, 0) == 0);
	CHECK(pmc_t_start(fd, id) == 0);
	CHECK(pmc_t_child_go(&c) == 0);
	CHECK(pmc_t_child_wait(&c, &st, NULL) == 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(pmc_t_read(fd, id, &a->value) == 0);
	close(fd);
	return 0;
}

static int exec_target_dropping(void *arg)
{
	if (pmc_t_drop_privileges())
		return 98;
	return exec_target(arg);
}

TEST_F(sec, setuid_exec_detaches_unprivileged_owners)
{
	struct exec_args *a;
	struct pmc_t_child c = { 0 };
	uint32_t id;
	int fd, st;

	a = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_EQ(0, copy_self(SUID_PATH, 04755));
	ASSERT_EQ(0, copy_self(PLAIN_PATH, 0755));

	/* An unprivileged owner: counts the plain image... */
	a->path = PLAIN_PATH;
	EXPECT_EQ(0, pmc_t_run_as_nobody(count_exec, a));
	TH_LOG("plain exec: %llu ns counted", (unsigned long long)a->value);
	EXPECT_LE(EXEC_SPIN_NS, a->value);
	/* ...but not the setuid one: the target is detached at its exec. */
	a->path = SUID_PATH;
	EXPECT_EQ(0, pmc_t_run_as_nobody(count_exec, a));
	TH_LOG("setuid exec: %llu ns counted", (unsigned long long)a->value);
	EXPECT_GT(EXEC_SPIN_NS / 2, a->value);

	/* A privileged owner keeps an unprivileged target that setuids. */
	fd = pmc_t_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK,
				      0, 0, &id));
	ASSERT_EQ(0, pmc_t_child_start(&c, exec_target_dropping, a));
	ASSERT_EQ(0, pmc_t_attach(fd, id, c.pid, 0));
	ASSERT_EQ(0, pmc_t_start(fd, id));
	ASSERT_EQ(0, pmc_t_child_go(&c));
	ASSERT_EQ(0, pmc_t_child_wait(&c, &st, NULL));
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(0, pmc_t_read(fd, id, &a->value));
	TH_LOG("setuid exec, root owner: %llu ns counted",
	       (unsigned long long)a->value);
	EXPECT_LE(EXEC_SPIN_NS, a->value);
	close(fd);
	munmap(a, 4096);
}

TEST_HARNESS_MAIN
