// SPDX-License-Identifier: GPL-2.0
/*
 * regress_test.c - minimal reproducers of the driver bugs pmc-fuzz and the
 * fault tests (selftests/faults/) found, one test each, named after the
 * bug (docs/reliability.md lists them). A test here fails until its bug is
 * fixed; one that would crash the VM suite for everyone is SKIPped with the
 * bug's name until then (PMC_REGRESS_CRASHERS=1 runs it anyway).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pmc_test.h"
#include <pmc/ring.h>

#pragma GCC diagnostic ignored "-Wclobbered"

#define MS	1000000ULL

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* /dev/kmsg from its end: what the kernel logs from now on; -1 if none. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* The first kernel message since kmsg_open() that has @what, in @line. */
static bool kmsg_find(int fd, const char *what, char *line, size_t len)
{
	char rec[2048];
	ssize_t n;

	while (fd >= 0) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = '\0';
		if (strstr(rec, what)) {
			snprintf(line, len, "%s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
			return true;
		}
	}
	return false;
}

/* Is lockdep in this kernel and still on (one report turns it off)? */
static int lockdep_state(void)
{
	char buf[8192];
	FILE *f = fopen("/proc/lockdep_stats", "re");
	size_t n;
	char *p;

	if (!f)
		return -1;	/* no lockdep */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "debug_locks:");
	return p && strtoul(p + strlen("debug_locks:"), NULL, 10) ? 1 : 0;
}

/* In a test: SKIP it unless lockdep is in this kernel and still on. */
#define SKIP_UNLESS_LOCKDEP_ON()					\
	do {								\
		switch (lockdep_state()) {				\
		case -1:						\
			SKIP(return, "no lockdep in this kernel (/proc/lockdep_stats)"); \
		case 0:							\
			SKIP(return, "lockdep was turned off by an earlier report"); \
		}							\
	} while (0)

static volatile sig_atomic_t nsig;

static void on_sig(int sig)
{
	nsig++;
}

FIXTURE(regress) {
	int fd;
};

FIXTURE_SETUP(regress)
{
	self->fd = -1;
	if (geteuid())
		SKIP(return, "needs root");
	if (!pmc_t_have_device())
		SKIP(return, "no %s", PMC_DEVICE_PATH);
	self->fd = pmc_t_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(regress)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Bug "hotplug-restart": a system PMC whose CPU went offline and came back
 * never counts again. perf removes the CPU's events from its context at
 * offline (state OFF); the driver still has the PMC RUNNING, so PMCSTART
 * returns 0 at once (core.c pmc_start_pmc()) and nothing re-creates the
 * counter: the count stays frozen and a sampling PMC never samples again.
 * Fixed in 4c4e9bd (PMCSTART gives the PMC a new counter).
 */
TEST_F_TIMEOUT(regress, hotplug_restart_counts, 60)
{
	uint64_t a = 0, b = 0;
	uint32_t id;

	if (_metadata->skip)
		return;
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "no writable cpu1/online");
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, 1, PMC_T_SW_CPU_CLOCK, 0, 0, &id));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, write_str("/sys/devices/system/cpu/cpu1/online", "0"));
	ASSERT_EQ(0, write_str("/sys/devices/system/cpu/cpu1/online", "1"));
	ASSERT_EQ(0, pmc_t_stop(self->fd, id));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &a));
	usleep(200000);
	ASSERT_EQ(0, pmc_t_read(self->fd, id, &b));
	/* cpu-clock of a CPU counts wall time: about 200 ms. */
	EXPECT_LT(100 * MS, b - a) TH_LOG("cpu1 counted %llu ns in 200 ms after online",
					  (unsigned long long)(b - a));
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
}

/*
 * Bug "owner-exit-blocked-writer": an owner killed while its log writer is
 * blocked on a pipe nobody reads never finishes exiting. Its last close of
 * /dev/pmc runs in do_exit() (SIGKILL already dequeued), where
 * pmc_log_owner_exit() -> pmc_log_close_file(log, true) ->
 * pmc_log_file_drain() sleeps in wait_event_killable() for the writer,
 * and the writer sleeps in pipe_write(): the process stays in D state
 * for good and pins the module. Here the owner's own reading end (a lower
 * descriptor than /dev/pmc) is closed after /dev/pmc at exit, so the pipe
 * never breaks. Fixed in e0630c8 (a killed owner does not wait for its
 * writer); before, this left an unkillable process and a module that would
 * not unload.
 */
TEST_F_TIMEOUT(regress, owner_exit_blocked_writer, 60)
{
	struct pmc_op_writelog wl = { .pm_userdata = 1 };
	int p[2], st, i, fd;
	uint64_t t0;
	pid_t pid;

	if (_metadata->skip)
		return;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct pmc_op_configurelog cl;

		if (pipe(p))		/* before /dev/pmc: closed after it at exit */
			_exit(1);
		fd = pmc_t_open();
		cl = (struct pmc_op_configurelog){ .pm_logfd = p[1] };
		if (fd < 0 || ioctl(fd, PMC_IOC_CONFIGURELOG, &cl))
			_exit(2);
		for (i = 0; i < 20000; i++)	/* more than the pipe holds */
			ioctl(fd, PMC_IOC_WRITELOG, &wl);
		ioctl(fd, PMC_IOC_FLUSHLOG);	/* starts the writer; it blocks */
		_exit(3);
	}
	usleep(500000);
	kill(pid, SIGKILL);
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	while (waitpid(pid, &st, WNOHANG) == 0 &&
	       pmc_t_now_ns(CLOCK_MONOTONIC) - t0 < 10000 * MS)
		usleep(100000);
	EXPECT_GT(10000 * MS, pmc_t_now_ns(CLOCK_MONOTONIC) - t0)
		TH_LOG("the killed owner did not exit within 10 s");
}

/*
 * Bug "allocate-copyout-mmap-lock" (found by check-debug: lockdep, possible
 * circular locking dependency): PMCALLOCATE copies its result to user space
 * with the owner's lock held (driver/core/core.c pmc_op_pmcallocate():
 * copy_to_user() between pmc_owner_lock() and pmc_owner_unlock()), so
 * po->lock -> mm->mmap_lock (a fault takes mmap_lock); mmap of the ring
 * takes po->lock under mmap_lock (driver/log/ring.c pmc_ring_mmap() ->
 * pmc_owner_lock()): mmap_lock -> po->lock. A thread whose PMCALLOCATE
 * result page faults while another thread of the process maps the ring
 * deadlocks both (and every later mmap or fault of the process). Here:
 * allocate, then map the ring, and lockdep must say nothing (a kernel
 * without lockdep SKIPs: the deadlock itself needs a racing page fault).
 * Fixed in 8cc936a (the result is copied out after the unlock).
 */
TEST_F_TIMEOUT(regress, allocate_copyout_vs_ring_mmap, 60)
{
	long ps = sysconf(_SC_PAGESIZE);
	char line[512] = "";
	uint32_t id;
	void *ring;
	int kfd;

	if (_metadata->skip)
		return;
	SKIP_UNLESS_LOCKDEP_ON();
	kfd = kmsg_open();
	ASSERT_LE(0, kfd);
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, PMC_CPU_ANY,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &id));
	ring = mmap(NULL, 5 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, ring);
	munmap(ring, 5 * ps);
	EXPECT_FALSE(kmsg_find(kfd, "possible circular locking", line, sizeof(line)))
		TH_LOG("kernel: %s", line);
	EXPECT_EQ(1, lockdep_state());
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	close(kfd);
}

/*
 * Bug "ovf-record-atomic-read" (found by check-debug: BUG: sleeping
 * function called from invalid context, DEBUG_ATOMIC_SLEEP): the OVERFLOW
 * record of a PMC_F_OVF_SIGNAL PMC is staged with pmc_log_begin(), which
 * keeps IRQs off until pmc_log_end(), and its entries' values are read in
 * between (driver/log/sample_ovf.c pmc_ovf_record() -> pmc_core_read_value()
 * -> pmc_virtual_read() -> perf_event_read_value(), which takes the perf
 * context's mutex): a mutex taken with IRQs off, in the overflowed
 * thread's task_work. Here: a ring (so the log takes records), a thread
 * PMC preset to overflow after 10 ms of task-clock, spin until the signal:
 * the signal and the record come, the kernel logs nothing. Fixed in
 * 8cc936a (the values are read before pmc_log_begin()).
 */
TEST_F_TIMEOUT(regress, ovf_record_reads_in_process_context, 60)
{
	struct pmc_op_pmcallocate pa;
	long ps = sysconf(_SC_PAGESIZE);
	struct sigaction sa = { .sa_handler = on_sig };
	volatile uint64_t sink = 0;
	char line[512] = "";
	uint64_t t0;
	uint32_t id;
	void *ring;
	int kfd, i;

	if (_metadata->skip)
		return;
	kfd = kmsg_open();
	ASSERT_LE(0, kfd);
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ring = mmap(NULL, 17 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, ring);
	pmc_t_soft_request(&pa, PMC_MODE_TC, PMC_CPU_ANY, PMC_T_SW_TASK_CLOCK);
	pa.pm_flags |= PMC_F_OVF_SIGNAL;
	pa.pm_count = -(uint64_t)(10 * MS);
	pa.pm_signo = SIGUSR1;
	ASSERT_EQ(0, pmc_t_allocate(self->fd, &pa, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, 0, PMC_ATTACH_F_THREAD));
	nsig = 0;
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	t0 = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID);
	while (!nsig && pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0 < 2000 * MS)
		for (i = 0; i < 100000; i++)
			sink += i;
	EXPECT_EQ(1, nsig) TH_LOG("no overflow signal after 2 s of CPU (preset 10 ms)");
	EXPECT_FALSE(kmsg_find(kfd, "sleeping function called from invalid context",
			       line, sizeof(line)))
		TH_LOG("kernel: %s", line);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	munmap(ring, 17 * ps);
	signal(SIGUSR1, SIG_DFL);
	close(kfd);
}

/*
 * Bug "attach-vs-mmap-lock" (found by check-debug: lockdep, "possible
 * circular locking dependency", in faults-failslab): an op holds the
 * owner's lock while it makes kernel counters (PMCATTACH ->
 * perf_event_create_kernel_counter() takes the target's perf context
 * mutex: po->lock -> ctx->mutex); perf's read() copies to user space with
 * that mutex held (ctx->mutex -> mmap_lock); mmap() of the ring and of a
 * self-read page took the owner's lock under mmap_lock (mmap_lock ->
 * po->lock). Three threads of one process doing the three at once
 * deadlock. Here: a perf read(), an attach, then both mmaps: lockdep must
 * say nothing (a kernel without lockdep SKIPs that part), and the
 * self-read page must be built by the time mmap() returns. Fixed in
 * driver/log/ring.c and driver/core/selfread.c: mmap() takes no owner lock (the
 * log state has a lock of its own; the page is built by a task_work).
 */
TEST_F_TIMEOUT(regress, attach_vs_ring_and_selfread_mmap, 60)
{
	const struct pmc_selfread_page *pg;
	struct pmc_op_pmcallocate pa;
	long ps = sysconf(_SC_PAGESIZE);
	char line[512] = "";
	int kfd = -1, pfd, lockdep;
	uint64_t count;
	uint32_t id;
	void *ring;

	if (_metadata->skip)
		return;
	lockdep = lockdep_state();
	if (lockdep == 1) {
		kfd = kmsg_open();
		ASSERT_LE(0, kfd);
	}
	/* ctx->mutex -> mmap_lock: perf_read() copies out under the mutex. */
	pfd = pmc_t_perf_open_ex(0, PMC_T_SW_TASK_CLOCK, false, true);
	ASSERT_LE(0, pfd);
	ASSERT_EQ((ssize_t)sizeof(count), read(pfd, &count, sizeof(count)));
	/* po->lock -> ctx->mutex: the attach makes a kernel counter. */
	pmc_t_soft_request(&pa, PMC_MODE_TC, PMC_CPU_ANY, PMC_T_SW_TASK_CLOCK);
	pa.pm_group = 9;
	ASSERT_EQ(0, pmc_t_allocate(self->fd, &pa, &id));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id, 0, PMC_ATTACH_F_THREAD));
	ASSERT_EQ(0, pmc_t_start(self->fd, id));
	/* mmap_lock -> ? : both mappings. */
	ring = mmap(NULL, 5 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, ring);
	pg = mmap(NULL, (size_t)ps, PROT_READ, MAP_SHARED, self->fd,
		  (off_t)PMC_MMAP_SELFREAD_OFFSET(9, (uint64_t)ps));
	ASSERT_NE(MAP_FAILED, pg);
	/* Built before mmap() returned. */
	EXPECT_EQ(1U, pg->ps_nentries);
	EXPECT_EQ(id, pg->ps_entries[0].se_pmcid);
	EXPECT_EQ((uint32_t)PMC_SELFREAD_SYSCALL, pg->ps_entries[0].se_kind);
	EXPECT_EQ(9U, pg->ps_group);
	EXPECT_EQ(gettid(), (pid_t)pg->ps_tid);
	munmap((void *)pg, (size_t)ps);
	munmap(ring, 5 * ps);
	EXPECT_EQ(0, pmc_t_release(self->fd, id));
	close(pfd);
	if (lockdep != 1) {
		SKIP(return, "%s", lockdep < 0 ?
		     "no lockdep in this kernel (/proc/lockdep_stats)" :
		     "lockdep was turned off by an earlier report");
	}
	EXPECT_FALSE(kmsg_find(kfd, "possible circular locking", line, sizeof(line)))
		TH_LOG("kernel: %s", line);
	EXPECT_EQ(1, lockdep_state());
	close(kfd);
}

/*
 * Bug "attach-vs-reap" (found by check-debug: KASAN use-after-free in
 * pmc_target_new(), then an oops in put_pid(), in core-unload): PMCATTACH
 * read the target's struct pid with task_tgid() and took its reference
 * only after kzalloc(), which may sleep; a target reaped meanwhile had its
 * pid freed after an RCU grace period. Here children reap themselves
 * (SIGCHLD ignored) while the owner attaches to them: every attach gives
 * 0 or ESRCH, and the kernel logs no KASAN report (the whole VM run fails
 * on any oops). Fixed in driver/core/target.c: get_task_pid() before anything.
 */
TEST_F_TIMEOUT(regress, attach_vs_reap, 60)
{
	uint64_t end = pmc_t_now_ns(CLOCK_MONOTONIC) + 3000 * MS;
	int kfd, r, n, attached = 0, gone = 0;
	char line[512] = "";
	uint32_t id;
	pid_t pid;

	if (_metadata->skip)
		return;
	kfd = kmsg_open();
	ASSERT_NE(SIG_ERR, signal(SIGCHLD, SIG_IGN));
	for (n = 0; n < 5000 && pmc_t_now_ns(CLOCK_MONOTONIC) < end; n++) {
		ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, 0,
					      PMC_T_SW_TASK_CLOCK, 0, 0, &id));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(0);
		/* Attach and detach until the child is gone. */
		for (;;) {
			r = pmc_t_attach(self->fd, id, pid, 0);
			if (r == -ESRCH) {
				gone++;
				break;
			}
			ASSERT_EQ(0, r) TH_LOG("attach to exiting pid %d", pid);
			attached++;
			r = pmc_t_detach(self->fd, id, pid, 0);
			if (r == -ESRCH)
				break;	/* its target died with it */
			ASSERT_EQ(0, r) TH_LOG("detach from exiting pid %d", pid);
		}
		ASSERT_EQ(0, pmc_t_release(self->fd, id));
	}
	signal(SIGCHLD, SIG_DFL);
	TH_LOG("%d attaches to exiting children: %d attached, %d ESRCH",
	       n, attached, gone);
	EXPECT_FALSE(kmsg_find(kfd, "KASAN", line, sizeof(line)))
		TH_LOG("kernel: %s", line);
	if (kfd >= 0)
		close(kfd);
}

/*
 * Does lockdep's table (/proc/lockdep) have a direct dependency of lock
 * class @from on lock class @to? 1 yes, 0 no, -1 no table with
 * dependencies (no lockdep, or no CONFIG_PROVE_LOCKING).
 */
static int lockdep_has_dep(const char *from, const char *to)
{
	FILE *f = fopen("/proc/lockdep", "re");
	bool in = false, any = false;
	char line[512];
	size_t nf = strlen(from);
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		line[n] = '\0';
		if (!strncmp(line, " -> ", 4)) {
			any = true;
			/* " -> [ffff...] &ctx->mutex" */
			if (in && strchr(line, ']') && !strcmp(strchr(line, ']') + 2, to))
				found = 1;
			continue;
		}
		/* A class: "ffff... FD: 4 BD: 1 ++++: cpu_hotplug_lock" */
		in = n > nf && !strcmp(line + n - nf, from) && line[n - nf - 1] == ' ';
	}
	fclose(f);
	return any ? found : -1;
}

/*
 * Bug "sys-op-hotplug-lock-cycle" (found by check-debug on the PREEMPT_RT
 * debug kernel: lockdep, possible circular locking dependency, pmc-fuzz
 * 657 s in): the ops on a system PMC held cpu_hotplug_lock (read) around
 * their perf calls, and PMCREADSET of a system and a process PMC took the
 * task context's mutex under it: cpu_hotplug_lock -> &ctx->mutex. perf
 * takes cpu_hotplug_lock under a task context's mutex (an inherited
 * software counter freed at a task's exit drops its static key): with a
 * hotplug writer waiting between the two readers, a deadlock. perf's side
 * needs a release racing a child's exit; here: start, read, readset and
 * stop system PMCs and a child's process PMC: lockdep must say nothing (the
 * old driver: a cycle through the hotplug lock, the task context's mutex,
 * mmap_lock and the tracepoint registration lock) and its table must have
 * no cpu_hotplug_lock -> &ctx->mutex dependency. Fixed by
 * driver/base/cpu_settle.c.
 */
TEST_F_TIMEOUT(regress, sys_ops_take_no_context_mutex_under_hotplug_lock, 60)
{
	long i, n = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t v[9], spin = 5000 * MS;
	struct pmc_t_child c;
	char line[512] = "";
	uint32_t id[9];
	int kfd;

	if (_metadata->skip)
		return;
	SKIP_UNLESS_LOCKDEP_ON();
	if (lockdep_has_dep("cpu_hotplug_lock", "&ctx->mutex") < 0)
		SKIP(return, "no lockdep dependency table in this kernel (/proc/lockdep)");
	kfd = kmsg_open();
	ASSERT_LE(0, kfd);
	/*
	 * A system PMC on each CPU (those of other CPUs are read through
	 * perf's locks), and a process PMC of a child (another task's
	 * counter is read under its context's mutex): id[n].
	 */
	ASSERT_LE(1, n);
	if (n > 8)
		n = 8;
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_SC, (uint32_t)i,
					      PMC_T_SW_CPU_CLOCK, 0, 0, &id[i]));
	ASSERT_EQ(0, pmc_t_alloc_soft(self->fd, PMC_MODE_TC, PMC_CPU_ANY,
				      PMC_T_SW_TASK_CLOCK, 0, 0, &id[n]));
	ASSERT_EQ(0, pmc_t_child_start(&c, pmc_t_spin_fn, &spin));
	ASSERT_EQ(0, pmc_t_attach(self->fd, id[n], c.pid, 0));
	for (i = 0; i <= n; i++)
		ASSERT_EQ(0, pmc_t_start(self->fd, id[i]));
	/* The child makes its counter as it returns to user space. */
	ASSERT_EQ(0, pmc_t_child_go(&c));
	usleep(200000);
	for (i = 0; i <= n; i++)
		ASSERT_EQ(0, pmc_t_read(self->fd, id[i], &v[i]));
	ASSERT_EQ(0, pmc_t_readset(self->fd, id, (uint32_t)n + 1, v, NULL));
	for (i = 0; i <= n; i++)
		ASSERT_EQ(0, pmc_t_stop(self->fd, id[i]));
	ASSERT_EQ(0, pmc_t_readset(self->fd, id, (uint32_t)n + 1, v, NULL));
	EXPECT_FALSE(kmsg_find(kfd, "possible circular locking", line, sizeof(line)))
		TH_LOG("kernel: %s", line);
	EXPECT_EQ(1, lockdep_state());
	EXPECT_EQ(0, lockdep_has_dep("cpu_hotplug_lock", "&ctx->mutex"));
	close(kfd);
	pmc_t_child_kill(&c);
	for (i = 0; i <= n; i++)
		EXPECT_EQ(0, pmc_t_release(self->fd, id[i]));
}

TEST_HARNESS_MAIN
