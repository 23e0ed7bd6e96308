// SPDX-License-Identifier: GPL-2.0
/*
 * semantics_test.c - hwpmc semantics a FreeBSD program meets when ported
 * (issue 22), with raw ioctls: an allocation that names no mode counts
 * user mode only where kernel mode needs privilege (uid 65534 at
 * perf_event_paranoid 3, 2, 1, and root); PMC_F_NEEDS_LOGFILE (a sampling
 * PMC on another process needs a log file or the mapped ring); SIGIO on
 * PMCRW of a process PMC with no targets; the set-id exec rule (traced,
 * untraced, fexecve, privileged owner, with set-uid root copies of this
 * binary in /tmp).
 */
#include "pmc_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SUID_PATH	"/tmp/pmc-porting-suid"
#define PLAIN_PATH	"/tmp/pmc-porting-plain"
/* What the exec'd image spins: well above what an exec itself costs. */
#define EXEC_SPIN_NS	400000000ULL

/* "--spin-ns N": the exec'd image only burns N ns of CPU. */
__attribute__((constructor))
static void spin_mode(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--spin-ns")) {
		pmc_t_spin_ns(strtoull(argv[2], NULL, 10));
		_exit(0);
	}
}

/* Each check below returns 0, or the line that failed (for the log). */
#define CHECK(cond) do { if (!(cond)) return __LINE__ & 0xff; } while (0)

FIXTURE(port) {
	mode_t dev_mode;
	char paranoid[16];
};

FIXTURE_SETUP(port)
{
	if (!pmc_t_have_device())
		SKIP(return, "no /dev/pmc (pmc.ko not loaded)");
	if (geteuid())
		SKIP(return, "needs root to set up the unprivileged user");
	ASSERT_EQ(0, pmc_t_dev_chmod(0666, &self->dev_mode));
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "2",
					self->paranoid,
					sizeof(self->paranoid)));
}

FIXTURE_TEARDOWN(port)
{
	if (!pmc_t_have_device() || geteuid())
		return;
	pmc_t_dev_chmod(self->dev_mode, NULL);
	pmc_t_sysctl_write("kernel/perf_event_paranoid", self->paranoid,
			   NULL, 0);
	unlink(SUID_PATH);
	unlink(PLAIN_PATH);
}

/* ---------------------------------------------------------------- modes */

/* What GETCAPS says a PMC of @caps counts, or -errno of the allocation. */
static int modes_of(int fd, uint32_t caps)
{
	uint32_t id, got;
	int ret;

	ret = pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS, caps,
			       0, &id);
	if (ret)
		return ret;
	ret = pmc_t_getcaps(fd, id, &got);
	pmc_t_release(fd, id);
	return ret ? ret : (int)(got & (PMC_CAP_USER | PMC_CAP_SYSTEM));
}

/* Kernel mode not permitted: no mode named counts user mode, and counts. */
static int nobody_user_default(void *arg)
{
	int fd = pmc_t_open();
	uint64_t v;
	uint32_t id, caps;

	CHECK(fd >= 0);
	CHECK(modes_of(fd, 0) == PMC_CAP_USER);
	CHECK(modes_of(fd, PMC_CAP_USER) == PMC_CAP_USER);
	/* Kernel mode named: still refused. */
	CHECK(modes_of(fd, PMC_CAP_SYSTEM) == -EPERM);
	CHECK(modes_of(fd, PMC_CAP_USER | PMC_CAP_SYSTEM) == -EPERM);
	/* The default PMC counts the user's page faults. */
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_PAGE_FAULTS, 0, 0,
			       &id) == 0);
	CHECK(pmc_t_getcaps(fd, id, &caps) == 0 && !(caps & PMC_CAP_SYSTEM));
	CHECK(pmc_t_start(fd, id) == 0);
	CHECK(pmc_t_touch_pages(50) == 0);
	CHECK(pmc_t_stop(fd, id) == 0);
	CHECK(pmc_t_read(fd, id, &v) == 0 && v >= 50);
	close(fd);
	return 0;
}

/* Kernel mode permitted: no mode named counts both, as on FreeBSD. */
static int both_default(void *arg)
{
	int fd = pmc_t_open();

	CHECK(fd >= 0);
	CHECK(modes_of(fd, 0) == (PMC_CAP_USER | PMC_CAP_SYSTEM));
	CHECK(modes_of(fd, PMC_CAP_SYSTEM) == PMC_CAP_SYSTEM);
	CHECK(modes_of(fd, PMC_CAP_USER) == PMC_CAP_USER);
	close(fd);
	return 0;
}

TEST_F(port, unqualified_modes_fall_back_to_user)
{
	static const char *const levels[] = { "3", "2" };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid",
						levels[i], NULL, 0));
		EXPECT_EQ(0, pmc_t_run_as_nobody(nobody_user_default, NULL))
			TH_LOG("uid 65534, perf_event_paranoid %s", levels[i]);
		/* root (CAP_PERFMON) counts both at any level. */
		EXPECT_EQ(0, both_default(NULL))
			TH_LOG("root, perf_event_paranoid %s", levels[i]);
	}
	ASSERT_EQ(0, pmc_t_sysctl_write("kernel/perf_event_paranoid", "1",
					NULL, 0));
	EXPECT_EQ(0, pmc_t_run_as_nobody(both_default, NULL));
	EXPECT_EQ(0, both_default(NULL));
}

/* ---------------------------------------------------------------- log */

static int pause_fn(void *arg)
{
	pause();
	return 0;
}

/* A task-clock sampling PMC of the caller. */
static int alloc_ts(int fd, uint32_t *id)
{
	struct pmc_op_pmcallocate pa;

	pmc_t_soft_request(&pa, PMC_MODE_TS, PMC_CPU_ANY, PMC_T_SW_TASK_CLOCK);
	pa.pm_caps = PMC_CAP_INTERRUPT | PMC_CAP_USER;
	pa.pm_count = 1000000;
	return pmc_t_allocate(fd, &pa, id);
}

static int configurelog(int fd, int logfd)
{
	struct pmc_op_configurelog cl = { .pm_logfd = logfd };

	return pmc_t_ioctl(fd, PMC_IOC_CONFIGURELOG, &cl);
}

/*
 * hwpmc's PMC_F_NEEDS_LOGFILE: sampling another process needs a log
 * (EDOOFUS until there is one; a log file or the mapped ring); sampling
 * only the owner needs none.
 */
TEST_F(port, sampling_another_process_needs_a_log)
{
	struct pmc_t_child c = { 0 };
	long ps = sysconf(_SC_PAGESIZE);
	uint32_t self_id, id;
	int fd, logfd;
	void *ring;

	fd = pmc_t_open();
	ASSERT_LE(0, fd);
	/* Only its owner: starts without a log. */
	ASSERT_EQ(0, alloc_ts(fd, &self_id));
	EXPECT_EQ(0, pmc_t_start(fd, self_id));
	EXPECT_EQ(0, pmc_t_stop(fd, self_id));
	/* ...or only one of its threads. */
	ASSERT_EQ(0, alloc_ts(fd, &id));
	ASSERT_EQ(0, pmc_t_attach(fd, id, 0, PMC_ATTACH_F_THREAD));
	EXPECT_EQ(0, pmc_t_start(fd, id));
	EXPECT_EQ(0, pmc_t_release(fd, id));
	ASSERT_EQ(0, pmc_t_child_start(&c, pause_fn, NULL));
	ASSERT_EQ(0, alloc_ts(fd, &id));
	ASSERT_EQ(0, pmc_t_attach(fd, id, c.pid, 0));
	EXPECT_EQ(-PMC_EDOOFUS, pmc_t_start(fd, id));
	/* A log file lets it start. */
	logfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, logfd);
	ASSERT_EQ(0, configurelog(fd, logfd));
	EXPECT_EQ(0, pmc_t_start(fd, id));
	EXPECT_EQ(0, pmc_t_stop(fd, id));
	ASSERT_EQ(0, configurelog(fd, -1));
	EXPECT_EQ(-PMC_EDOOFUS, pmc_t_start(fd, id));
	/* So does the mapped record ring. */
	ring = mmap(NULL, 3 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, ring);
	EXPECT_EQ(0, pmc_t_start(fd, id));
	EXPECT_EQ(0, pmc_t_stop(fd, id));
	EXPECT_EQ(0, munmap(ring, 3 * ps));
	pmc_t_child_kill(&c);
	EXPECT_EQ(0, close(logfd));
	EXPECT_EQ(0, close(fd));
}

/* ---------------------------------------------------------------- SIGIO */

static volatile sig_atomic_t sigio_seen;

static void on_sigio(int sig)
{
	sigio_seen++;
}

static int exit_fn(void *arg)
{
	return 0;
}

/*
 * hwpmc(4) "Signals": PMCRW of a process PMC with no targets sends the
 * owner SIGIO, and the read itself succeeds as hwpmc's does.
 */
TEST_F(port, sigio_on_read_without_targets)
{
	struct sigaction sa = { .sa_handler = on_sigio }, old;
	struct pmc_t_child c = { 0 };
	uint64_t v = 0;
	uint32_t id;
	int fd, st;

	ASSERT_EQ(0, sigaction(SIGIO, &sa, &old));
	fd = pmc_t_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK,
				      PMC_CAP_USER, 0, &id));
	ASSERT_EQ(0, pmc_t_child_start(&c, exit_fn, NULL));
	ASSERT_EQ(0, pmc_t_attach(fd, id, c.pid, 0));
	ASSERT_EQ(0, pmc_t_start(fd, id));
	/* A target: no signal. */
	EXPECT_EQ(0, pmc_t_read(fd, id, &v));
	EXPECT_EQ(0, sigio_seen);
	ASSERT_EQ(0, pmc_t_child_go(&c));
	ASSERT_EQ(0, pmc_t_child_wait(&c, &st, NULL));
	/* Its only target gone (the exit work ran before the reap). */
	EXPECT_EQ(0, pmc_t_read(fd, id, &v));
	EXPECT_EQ(1, sigio_seen);
	/* Stopped or not, the same; a write too. */
	EXPECT_EQ(0, pmc_t_stop(fd, id));
	EXPECT_EQ(0, pmc_t_write(fd, id, 5));
	EXPECT_EQ(2, sigio_seen);
	EXPECT_EQ(0, pmc_t_read(fd, id, &v));
	EXPECT_EQ(5u, v);
	EXPECT_EQ(3, sigio_seen);
	/* A system PMC: never. */
	EXPECT_EQ(0, pmc_t_alloc_soft(fd, PMC_MODE_SC, 0, PMC_T_SW_CPU_CLOCK,
				      0, 0, &id));
	EXPECT_EQ(0, pmc_t_read(fd, id, &v));
	EXPECT_EQ(3, sigio_seen);
	EXPECT_EQ(0, close(fd));
	ASSERT_EQ(0, sigaction(SIGIO, &old, NULL));
}

/*
 * A program that does not catch SIGIO is not sent it (FreeBSD ignores it
 * by default, Linux would terminate), even while it blocks it (libcpc
 * does around its calls).
 */
static int read_untargeted(void *arg)
{
	sigset_t set, pending;
	uint64_t v;
	uint32_t id;
	int fd = pmc_t_open();

	CHECK(fd >= 0);
	CHECK(signal(SIGIO, SIG_DFL) != SIG_ERR);
	CHECK(pmc_t_alloc_soft(fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK,
			       PMC_CAP_USER, 0, &id) == 0);
	CHECK(pmc_t_read(fd, id, &v) == 0);
	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
	CHECK(pmc_t_read(fd, id, &v) == 0);
	CHECK(sigpending(&pending) == 0 && !sigismember(&pending, SIGIO));
	CHECK(signal(SIGIO, SIG_IGN) != SIG_ERR);
	CHECK(pmc_t_read(fd, id, &v) == 0);
	CHECK(sigpending(&pending) == 0 && !sigismember(&pending, SIGIO));
	close(fd);
	return 0;
}

TEST_F(port, sigio_default_disposition_is_ignored)
{
	EXPECT_EQ(0, pmc_t_run_as_nobody(read_untargeted, NULL));
}

/* ---------------------------------------------------------------- exec */

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

enum exec_how { EXEC_PLAIN, EXEC_TRACED, EXEC_FD };

struct exec_args {
	const char *path;
	enum exec_how how;
	int drop;		/* the target drops to 65534 first (root owner) */
	uint64_t value;		/* what the PMC counted */
};

static int exec_target(void *arg)
{
	struct exec_args *a = arg;
	char ns[32];
	char *argv[] = { (char *)a->path, "--spin-ns", ns, NULL };
	int fd;

	if (a->drop && pmc_t_drop_privileges())
		return 98;
	snprintf(ns, sizeof(ns), "%llu", (unsigned long long)EXEC_SPIN_NS);
	if (a->how == EXEC_TRACED && ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		return 97;
	if (a->how == EXEC_FD) {
		fd = open(a->path, O_RDONLY);
		if (fd < 0)
			return 96;
		fexecve(fd, argv, environ);
		return 95;
	}
	execv(a->path, argv);
	return 99;
}

/*
 * Attach a task-clock PMC to a child that execs a->path as a->how says
 * and spins there; what the PMC counted goes to a->value.
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
	if (a->how == EXEC_TRACED) {
		/* Stopped at its exec (SIGTRAP): let it go on untraced. */
		CHECK(waitpid(c.pid, &st, 0) == c.pid && WIFSTOPPED(st));
		CHECK(ptrace(PTRACE_DETACH, c.pid, NULL, NULL) == 0);
	}
	CHECK(pmc_t_child_wait(&c, &st, NULL) == 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(pmc_t_read(fd, id, &a->value) == 0);
	close(fd);
	return 0;
}

/* Run count_exec for @path/@how as uid 65534 (or as root with @drop). */
static int run_exec(struct exec_args *a, const char *path, enum exec_how how,
		    bool root_owner)
{
	a->path = path;
	a->how = how;
	a->drop = root_owner;
	a->value = 0;
	return root_owner ? count_exec(a) : pmc_t_run_as_nobody(count_exec, a);
}

TEST_F(port, setid_exec_detaches_only_when_creds_change)
{
	struct exec_args *a;

	a = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, a);
	ASSERT_EQ(0, copy_self(SUID_PATH, 04755));
	ASSERT_EQ(0, copy_self(PLAIN_PATH, 0755));

	/* An untraced plain exec: nothing changes, kept. */
	EXPECT_EQ(0, run_exec(a, PLAIN_PATH, EXEC_PLAIN, false));
	TH_LOG("plain exec: %llu ns", (unsigned long long)a->value);
	EXPECT_LE(EXEC_SPIN_NS, a->value);
	/* Untraced set-uid exec: the credentials change, detached. */
	EXPECT_EQ(0, run_exec(a, SUID_PATH, EXEC_PLAIN, false));
	TH_LOG("set-uid exec: %llu ns", (unsigned long long)a->value);
	EXPECT_GT(EXEC_SPIN_NS / 2, a->value);
	/* Traced: the kernel runs it with the old credentials, kept. */
	EXPECT_EQ(0, run_exec(a, SUID_PATH, EXEC_TRACED, false));
	TH_LOG("traced set-uid exec: %llu ns", (unsigned long long)a->value);
	EXPECT_LE(EXEC_SPIN_NS, a->value);
	/* A traced plain exec: kept. */
	EXPECT_EQ(0, run_exec(a, PLAIN_PATH, EXEC_TRACED, false));
	EXPECT_LE(EXEC_SPIN_NS, a->value);
	/* fexecve(): the same rules as execve(). */
	EXPECT_EQ(0, run_exec(a, SUID_PATH, EXEC_FD, false));
	TH_LOG("set-uid fexecve: %llu ns", (unsigned long long)a->value);
	EXPECT_GT(EXEC_SPIN_NS / 2, a->value);
	EXPECT_EQ(0, run_exec(a, PLAIN_PATH, EXEC_FD, false));
	TH_LOG("plain fexecve: %llu ns", (unsigned long long)a->value);
	EXPECT_LE(EXEC_SPIN_NS, a->value);
	/* A privileged owner follows the target through its set-uid exec. */
	EXPECT_EQ(0, run_exec(a, SUID_PATH, EXEC_PLAIN, true));
	TH_LOG("set-uid exec, root owner: %llu ns",
	       (unsigned long long)a->value);
	EXPECT_LE(EXEC_SPIN_NS, a->value);
	munmap(a, 4096);
}

TEST_HARNESS_MAIN
