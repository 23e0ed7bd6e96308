// SPDX-License-Identifier: GPL-2.0
/*
 * failslab_test.c - allocation failures inside the driver's calls (debug
 * kernel: CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC, USERCOPY,
 * debugfs; SKIP on a kernel without /sys/kernel/debug/failslab).
 *
 *  - systematic: a scenario of 20 steps (open, allocate, attach, start,
 *    read, mmap the ring, configure a log, write and flush it, READSET,
 *    a system PMC, GETPMCINFO, fork a target of a DESCENDANTS PMC,
 *    CLOSELOG, release, close) runs again and again in a fresh process,
 *    with the Nth fault point of step K failed (/proc/thread-self/fail-nth:
 *    slab, page and user-copy faults alike), for every K and every N until
 *    step K has no Nth fault point. The step must succeed or fail with an
 *    errno pmc(4) documents (ENOMEM, EFAULT, ...), the process must end,
 *    and no row may stay owned afterwards;
 *  - random: pmc-fuzz with failslab and fail_page_alloc failing 3 % of its
 *    workers' allocations (task filter, make-it-fail);
 *  - then no kmemleak suspect, and the module unloads (its own count of
 *    live objects is checked there) and loads again.
 */
#include "faults.h"

#include "kselftest_harness.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define NTH_MAX		400	/* fault points tried per step at most */

enum step {
	S_OPEN, S_ALLOC_TC, S_ATTACH_TC, S_START_TC, S_READ, S_ALLOC_TS, S_MMAP,
	S_CONFIGLOG, S_ATTACH_TS, S_START_TS, S_WRITELOG, S_FLUSHLOG, S_READSET,
	S_ALLOC_SC, S_START_SC, S_GETPMCINFO, S_FORK, S_CLOSELOG, S_RELEASE,
	S_CLOSE, S_N
};

static const char *const step_name[S_N] = {
	"open", "allocate TC", "attach TC", "start TC", "read", "allocate TS",
	"mmap ring", "configure log", "attach TS", "start TS", "write log",
	"flush log", "readset", "allocate SC", "start SC", "getpmcinfo",
	"fork target", "close log", "release", "close",
};

struct scen {
	int fd, pipe[2];
	uint32_t tc, ts, sc;
	struct flt_ring ring;
	pid_t kid;
};

static bool documented(int err)
{
	switch (err) {
	case EBADF: case EBUSY: case EEXIST: case EFAULT: case EINVAL: case ENOMEM:
	case ENOTTY: case ENXIO: case EOPNOTSUPP: case EPERM: case ESRCH: case EPROTO:
	case EINTR:
		return true;
	}
	return false;
}

static int ret_errno(int r)
{
	return r < 0 ? -errno : 0;
}

/* Step @k of the scenario: 0 or -errno. */
static int step(struct scen *s, int k)
{
	struct pmc_op_configurelog cl;
	struct pmc_op_writelog wl = { .pm_userdata = 7 };
	struct pmc_info info[64];
	uint64_t v[2];
	uint32_t n = 64, ids[2];
	int r;

	switch (k) {
	case S_OPEN:
		s->fd = pmc_t_open();
		return s->fd < 0 ? s->fd : 0;
	case S_ALLOC_TC:
		return pmc_t_alloc_soft(s->fd, PMC_MODE_TC, 0, PMC_T_SW_TASK_CLOCK, 0,
					PMC_F_DESCENDANTS, &s->tc);
	case S_ATTACH_TC:
		return pmc_t_attach(s->fd, s->tc, 0, 0);
	case S_START_TC:
		return pmc_t_start(s->fd, s->tc);
	case S_READ:
		return pmc_t_read(s->fd, s->tc, v);
	case S_ALLOC_TS:
		return pmc_t_alloc_soft(s->fd, PMC_MODE_TS, 0, PMC_T_SW_CPU_CLOCK,
					PMC_CAP_INTERRUPT, PMC_F_CALLCHAIN, &s->ts);
	case S_MMAP:
		return flt_ring_map(s->fd, 4, &s->ring);
	case S_CONFIGLOG:
		cl = (struct pmc_op_configurelog){ .pm_logfd = s->pipe[1] };
		return ret_errno(ioctl(s->fd, PMC_IOC_CONFIGURELOG, &cl));
	case S_ATTACH_TS:
		return pmc_t_attach(s->fd, s->ts, 0, 0);
	case S_START_TS:
		r = pmc_t_start(s->fd, s->ts);
		pmc_t_spin_ns(5000000);		/* a few samples */
		return r;
	case S_WRITELOG:
		return ret_errno(ioctl(s->fd, PMC_IOC_WRITELOG, &wl));
	case S_FLUSHLOG:
		return ret_errno(ioctl(s->fd, PMC_IOC_FLUSHLOG));
	case S_READSET:
		ids[0] = s->tc;
		ids[1] = s->ts;
		return pmc_t_readset(s->fd, ids, 2, v, NULL);
	case S_ALLOC_SC:
		return pmc_t_alloc_soft(s->fd, PMC_MODE_SC, 0, PMC_T_SW_CPU_CLOCK, 0, 0, &s->sc);
	case S_START_SC:
		return pmc_t_start(s->fd, s->sc);
	case S_GETPMCINFO:
		return pmc_t_getpmcinfo(s->fd, 0, info, &n);
	case S_FORK:
		s->kid = fork();
		if (s->kid < 0)
			return -errno;
		if (!s->kid) {
			pmc_t_spin_ns(2000000);
			_exit(0);
		}
		return 0;
	case S_CLOSELOG:
		return ret_errno(ioctl(s->fd, PMC_IOC_CLOSELOG));
	case S_RELEASE:
		r = pmc_t_release(s->fd, s->tc);
		pmc_t_release(s->fd, s->ts);
		pmc_t_release(s->fd, s->sc);
		return r;
	case S_CLOSE:
		flt_ring_unmap(&s->ring);
		return ret_errno(close(s->fd));
	}
	return 0;
}

/* Child exit codes. */
#define X_INJECTED	10	/* the fault was injected, all clean */
#define X_NOT_REACHED	11	/* step @k has fewer than @nth fault points */
#define X_BAD_ERRNO	99

/*
 * The scenario with the @nth fault point of step @k failed (a fresh
 * process). The pipe's reading end is drained by a thread-less trick: it
 * is non-blocking and read after the flush.
 */
static void scenario(int k, int nth)
{
	struct scen s = { .fd = -1, .tc = PMC_ID_INVALID, .ts = PMC_ID_INVALID,
			  .sc = PMC_ID_INVALID, .kid = -1 };
	char buf[64];
	int nfd, i, r, injected = 0;

	pmc_t_rseq_off();	/* fail-nth may fail its page: SIGSEGV */
	if (pipe2(s.pipe, O_NONBLOCK))
		_exit(2);
	nfd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	if (nfd < 0)
		_exit(3);
	for (i = 0; i < S_N; i++) {
		if (i == k) {
			snprintf(buf, sizeof(buf), "%d", nth);
			if (pwrite(nfd, buf, strlen(buf), 0) < 0)
				_exit(4);
		}
		r = step(&s, i);
		if (i == k) {
			ssize_t n = pread(nfd, buf, sizeof(buf) - 1, 0);

			/*
			 * The read and the reset are fault points too (their
			 * copies to and from user space, FAULT_INJECTION_USERCOPY):
			 * with one point left after the step, the read's copy
			 * fails (EFAULT: not injected in the step); with two,
			 * the reset's does. Either leaves fail-nth at 0.
			 */
			buf[n > 0 ? n : 0] = '\0';
			injected = n > 0 && atoi(buf) == 0;
			if (pwrite(nfd, "0", 1, 0) < 0 && errno != EFAULT)
				_exit(4);
			/* mmap, fork, open and close have their own errnos. */
			if (r && !documented(-r) && r != -EAGAIN && r != -ENFILE) {
				fprintf(stderr, "# step %s, fault point %d: errno %d (%s)\n",
					step_name[k], nth, -r, strerror(-r));
				_exit(X_BAD_ERRNO);
			}
		} else if (r && !documented(-r) && r != -EAGAIN) {
			fprintf(stderr, "# step %s after a fault in step %s (point %d): errno %d (%s)\n",
				step_name[i], step_name[k], nth, -r, strerror(-r));
			_exit(X_BAD_ERRNO);
		}
		if (i == S_FLUSHLOG)
			while (read(s.pipe[0], buf, sizeof(buf)) > 0)
				;
	}
	if (s.kid > 0)
		waitpid(s.kid, NULL, 0);
	_exit(injected ? X_INJECTED : X_NOT_REACHED);
}

/* Silence every fault attribute: its stack dump would read as a kernel bug. */
static void attrs_quiet(void)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc",
					     "fail_usercopy", "fail_futex" };
	char path[128];
	unsigned int i;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s/verbose", attrs[i]);
		flt_write(path, "0");
	}
	/* Sleeping allocations count too; all page orders. */
	flt_write("/sys/kernel/debug/failslab/ignore-gfp-wait", "N");
	flt_write("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N");
	flt_write("/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem", "N");
	flt_write("/sys/kernel/debug/fail_page_alloc/min-order", "0");
}

FIXTURE(failslab) {
	int fd;
};

FIXTURE_SETUP(failslab)
{
	self->fd = -1;
	if (geteuid())
		SKIP(return, "needs root");
	if (!pmc_t_have_device())
		SKIP(return, "no %s", PMC_DEVICE_PATH);
	if (access("/sys/kernel/debug/failslab", F_OK) || access(FAIL_NTH, W_OK))
		SKIP(return, "no debugfs fault injection (the Debian kernel): make check-debug runs this");
	attrs_quiet();
	flt_kmemleak_clear();
	self->fd = pmc_t_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(failslab)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * PMC_FAILSLAB_ONLY="STEP:N" replays one run: the step's name as logged,
 * with '-' for a space (e.g. "start-TS:2").
 */
static bool wanted(int k, int nth)
{
	const char *only = getenv("PMC_FAILSLAB_ONLY");
	const char *colon = only ? strrchr(only, ':') : NULL;
	size_t i, len;

	if (!colon)
		return true;
	len = (size_t)(colon - only);
	if (strlen(step_name[k]) != len || atoi(colon + 1) != nth)
		return false;
	for (i = 0; i < len; i++)
		if (only[i] != step_name[k][i] &&
		    !(only[i] == '-' && step_name[k][i] == ' '))
			return false;
	return true;
}

TEST_F_TIMEOUT(failslab, every_fault_point, 3000)
{
	int k, nth, st, total = 0, bad = 0;
	uint64_t t0;
	pid_t pid;

	FLT_RETURN_IF_SKIPPED();
	for (k = 0; k < S_N; k++) {
		for (nth = 1; nth <= NTH_MAX; nth++) {
			if (!wanted(k, nth))
				continue;
			fflush(NULL);
			pid = fork();
			ASSERT_LE(0, pid);
			if (!pid)
				scenario(k, nth);
			t0 = flt_now_ns();
			while (waitpid(pid, &st, WNOHANG) == 0) {
				if (flt_now_ns() - t0 > 20000000000ULL) {
					pmc_t_dump_stacks(pid);
					kill(pid, SIGKILL);
					waitpid(pid, &st, 0);
					TH_LOG("step %s, fault point %d: the scenario hung",
					       step_name[k], nth);
					bad++;
					break;
				}
				usleep(2000);
			}
			if (!WIFEXITED(st) || (WEXITSTATUS(st) != X_INJECTED &&
					       WEXITSTATUS(st) != X_NOT_REACHED)) {
				TH_LOG("step %s, fault point %d: the scenario %s %d", step_name[k],
				       nth, WIFSIGNALED(st) ? "died of signal" : "exited",
				       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
				bad++;
			}
			if (flt_rows_owned(self->fd, 3000)) {
				TH_LOG("step %s, fault point %d: rows still owned after the owner exited",
				       step_name[k], nth);
				bad++;
			}
			if (WIFEXITED(st) && WEXITSTATUS(st) == X_NOT_REACHED)
				break;
			total++;
		}
		TH_LOG("step %-13s %3d fault points", step_name[k], nth - 1);
		if (bad > 10)
			break;
	}
	TH_LOG("%d faults injected, one per run", total);
	EXPECT_EQ(0, bad);
}

TEST_F_TIMEOUT(failslab, fuzz_with_random_faults, 900)
{
	const char *ops = getenv("PMC_FAULTS_FUZZ_OPS");
	char exe[PATH_MAX];
	ssize_t n;
	int st;

	FLT_RETURN_IF_SKIPPED();
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	st = pmc_t_system("%s/../fuzz/pmc-fuzz --ops %s --procs 2 --threads 2 --unpriv 1 --faults 3",
			  exe, ops && *ops ? ops : "20000");
	EXPECT_EQ(0, st) TH_LOG("pmc-fuzz with faults failed (seed above)");
	EXPECT_EQ(0, flt_rows_owned(self->fd, 5000));
}

TEST_F_TIMEOUT(failslab, no_leak_and_module_unloads, 120)
{
	int leaks, i, st = -1;

	FLT_RETURN_IF_SKIPPED();
	close(self->fd);
	self->fd = -1;
	leaks = flt_kmemleak_scan(40);
	if (leaks >= 0) {
		EXPECT_EQ(0, leaks) TH_LOG("kmemleak suspects %d objects (above)", leaks);
	}
	for (i = 0; i < 50 && st; i++) {
		st = pmc_t_system("rmmod pmc 2>/dev/null");
		if (st)
			usleep(100000);
	}
	EXPECT_EQ(0, st) TH_LOG("pmc.ko does not unload after the faults");
	ASSERT_EQ(0, flt_module_default());
}

TEST_HARNESS_MAIN
