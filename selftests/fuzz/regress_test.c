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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "pmc_test.h"

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

TEST_HARNESS_MAIN
