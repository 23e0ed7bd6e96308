// SPDX-License-Identifier: GPL-2.0
/*
 * pmc_testlib.c - the shared selftest helpers of pmc_test.h (not named
 * *_test.c: the build makes a test binary of every such file).
 */
#include "pmc_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int pmc_t_open(void)
{
	int fd = open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

bool pmc_t_have_device(void)
{
	return access(PMC_DEVICE_PATH, F_OK) == 0;
}

int pmc_t_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

void pmc_t_soft_request(struct pmc_op_pmcallocate *pa, uint32_t mode,
			uint32_t cpu, uint64_t config)
{
	memset(pa, 0, sizeof(*pa));
	pa->pm_mode = mode;
	pa->pm_cpu = PMC_IS_SYSTEM_MODE(mode) ? cpu : PMC_CPU_ANY;
	pa->pm_class = PMC_CLASS_SOFT;
	pa->pm_ev = PMC_EV_SOFT_FIRST + (uint32_t)config;
	pa->pm_md.pm_type = PMC_T_PERF_TYPE_SOFTWARE;
	pa->pm_md.pm_config = config;
}

int pmc_t_allocate(int fd, struct pmc_op_pmcallocate *pa, uint32_t *id)
{
	int ret = pmc_t_ioctl(fd, PMC_IOC_PMCALLOCATE, pa);

	if (!ret && id)
		*id = pa->pm_pmcid;
	return ret;
}

int pmc_t_alloc_soft(int fd, uint32_t mode, uint32_t cpu, uint64_t config,
		     uint32_t caps, uint32_t flags, uint32_t *id)
{
	struct pmc_op_pmcallocate pa;

	pmc_t_soft_request(&pa, mode, cpu, config);
	pa.pm_caps = caps;
	pa.pm_flags = flags;
	if (PMC_IS_SAMPLING_MODE(mode))
		pa.pm_count = 1000000;
	return pmc_t_allocate(fd, &pa, id);
}

int pmc_t_attach(int fd, uint32_t id, pid_t pid, uint32_t flags)
{
	struct pmc_op_pmcattach pa = {
		.pm_pmc = id, .pm_pid = pid, .pm_flags = flags,
	};

	return pmc_t_ioctl(fd, PMC_IOC_PMCATTACH, &pa);
}

int pmc_t_detach(int fd, uint32_t id, pid_t pid, uint32_t flags)
{
	struct pmc_op_pmcattach pa = {
		.pm_pmc = id, .pm_pid = pid, .pm_flags = flags,
	};

	return pmc_t_ioctl(fd, PMC_IOC_PMCDETACH, &pa);
}

static int pmc_t_simple(int fd, unsigned long cmd, uint32_t id)
{
	struct pmc_op_simple sp = { .pm_pmcid = id };

	return pmc_t_ioctl(fd, cmd, &sp);
}

int pmc_t_release(int fd, uint32_t id)
{
	return pmc_t_simple(fd, PMC_IOC_PMCRELEASE, id);
}

int pmc_t_start(int fd, uint32_t id)
{
	return pmc_t_simple(fd, PMC_IOC_PMCSTART, id);
}

int pmc_t_stop(int fd, uint32_t id)
{
	return pmc_t_simple(fd, PMC_IOC_PMCSTOP, id);
}

int pmc_t_rw(int fd, uint32_t id, uint32_t flags, uint64_t *value)
{
	struct pmc_op_pmcrw rw = {
		.pm_flags = flags, .pm_pmcid = id, .pm_value = *value,
	};
	int ret = pmc_t_ioctl(fd, PMC_IOC_PMCRW, &rw);

	if (!ret)
		*value = rw.pm_value;
	return ret;
}

int pmc_t_read(int fd, uint32_t id, uint64_t *value)
{
	*value = 0;
	return pmc_t_rw(fd, id, PMC_F_OLDVALUE, value);
}

int pmc_t_write(int fd, uint32_t id, uint64_t value)
{
	return pmc_t_rw(fd, id, PMC_F_NEWVALUE, &value);
}

int pmc_t_setcount(int fd, uint32_t id, uint64_t count)
{
	struct pmc_op_pmcsetcount sc = { .pm_count = count, .pm_pmcid = id };

	return pmc_t_ioctl(fd, PMC_IOC_PMCSETCOUNT, &sc);
}

int pmc_t_getcaps(int fd, uint32_t id, uint32_t *caps)
{
	struct pmc_op_caps gc = { .pm_pmcid = id };
	int ret = pmc_t_ioctl(fd, PMC_IOC_GETCAPS, &gc);

	if (!ret)
		*caps = gc.pm_caps;
	return ret;
}

int pmc_t_getmsr(int fd, uint32_t id, uint32_t *msr)
{
	struct pmc_op_getmsr gm = { .pm_pmcid = id };
	int ret = pmc_t_ioctl(fd, PMC_IOC_PMCGETMSR, &gm);

	if (!ret)
		*msr = gm.pm_msr;
	return ret;
}

int pmc_t_readset(int fd, const uint32_t *ids, uint32_t n, uint64_t *values,
		  uint64_t *timestamp)
{
	struct pmc_op_pmcreadset rs = {
		.pm_count = n,
		.pm_ids = (uintptr_t)ids,
		.pm_values = (uintptr_t)values,
	};
	int ret = pmc_t_ioctl(fd, PMC_IOC_PMCREADSET, &rs);

	if (!ret && timestamp)
		*timestamp = rs.pm_timestamp;
	return ret;
}

int pmc_t_admin(int fd, int cpu, int row, uint32_t state)
{
	struct pmc_op_pmcadmin pa = {
		.pm_cpu = cpu, .pm_pmc = row, .pm_state = state,
	};

	return pmc_t_ioctl(fd, PMC_IOC_PMCADMIN, &pa);
}

int pmc_t_getpmcinfo(int fd, int cpu, struct pmc_info *info, uint32_t *n)
{
	struct pmc_op_getpmcinfo gi = {
		.pm_cpu = cpu, .pm_npmc = *n, .pm_pmcs = (uintptr_t)info,
	};
	int ret = pmc_t_ioctl(fd, PMC_IOC_GETPMCINFO, &gi);

	if (!ret)
		*n = gi.pm_npmc;
	return ret;
}

int pmc_t_getcpuinfo(int fd, struct pmc_op_getcpuinfo *ci)
{
	memset(ci, 0, sizeof(*ci));
	return pmc_t_ioctl(fd, PMC_IOC_GETCPUINFO, ci);
}

int pmc_t_class_info(int fd, uint32_t pmc_class, struct pmc_classinfo *out)
{
	struct pmc_op_getcpuinfo ci;
	uint32_t i;
	int ret = pmc_t_getcpuinfo(fd, &ci);

	if (ret)
		return ret;
	for (i = 0; i < ci.pm_nclass && i < PMC_CLASS_MAX; i++) {
		if (ci.pm_classes[i].pm_class == pmc_class) {
			*out = ci.pm_classes[i];
			return 0;
		}
	}
	return -ENOENT;
}

int pmc_t_class_row(int fd, uint32_t pmc_class, uint32_t index)
{
	struct pmc_op_getcpuinfo ci;
	uint32_t i, first = 0;
	int ret = pmc_t_getcpuinfo(fd, &ci);

	if (ret)
		return ret;
	for (i = 0; i < ci.pm_nclass && i < PMC_CLASS_MAX; i++) {
		if (ci.pm_classes[i].pm_class == pmc_class)
			return index < ci.pm_classes[i].pm_num ?
			       (int)(first + index) : -EINVAL;
		first += ci.pm_classes[i].pm_num;
	}
	return -ENOENT;
}

uint64_t pmc_t_now_ns(clockid_t clk)
{
	struct timespec ts = { 0 };

	/*
	 * Retried: under fault injection its copy to user space may fail
	 * (EFAULT), and a garbage start made a spin never end.
	 */
	while (clock_gettime(clk, &ts) && errno == EFAULT)
		;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void pmc_t_spin_ns(uint64_t ns)
{
	uint64_t end = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	volatile uint64_t x = 0;
	int i;

	while (pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (i = 0; i < 1000; i++)
			x += (uint64_t)i;
}

int pmc_t_touch_pages(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), i;
	volatile char *p;

	p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	/* One fault per page: no transparent huge page. */
	madvise((void *)p, n * pg, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * pg] = 1;
	munmap((void *)p, n * pg);
	return 0;
}

int pmc_t_spin_fn(void *arg)
{
	pmc_t_spin_ns(*(uint64_t *)arg);
	return 0;
}

/*
 * Unregisters the calling thread's rseq area (glibc registers one per
 * thread). With allocation faults injected (fail-nth, make-it-fail), the
 * kernel's update of that area on the way back to user space can fail:
 * after a fork() its page is copy-on-write and the copy needs a page. The
 * kernel then raises SIGSEGV (kernel/rseq.c), fatal during a signal's
 * delivery, which says nothing about the driver. The length must be the
 * registered one: 32 bytes in Debian 12's glibc, whose __rseq_size says 20.
 */
void pmc_t_rseq_off(void)
{
	struct rseq *rs;

	if (!__rseq_size)
		return;
	rs = (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	if (syscall(SYS_rseq, rs, 32, RSEQ_FLAG_UNREGISTER, RSEQ_SIG))
		syscall(SYS_rseq, rs, __rseq_size, RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
}

/*
 * Waits (up to 10 s) until @pid sleeps: a child fresh from fork() still
 * runs (copy-on-write faults, the way back to user space) before it blocks
 * on its go pipe, and on a slow guest that CPU time would land in a PMC
 * attached right after pmc_t_child_start().
 */
void pmc_t_wait_sleeping(pid_t pid)
{
	char path[64], buf[256], *state;
	int fd, i;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 10000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = '\0';
		state = strrchr(buf, ')');	/* "pid (comm) S ..." */
		if (!state || state[1] != ' ' ||
		    (state[2] != 'R' && state[2] != 'D'))
			return;
		usleep(1000);
	}
}

int pmc_t_child_start(struct pmc_t_child *c, int (*fn)(void *), void *arg)
{
	int p[2];
	char b;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!c->pid) {
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(125);
		close(p[0]);
		_exit(fn(arg) & 0xff);
	}
	close(p[0]);
	c->go_fd = p[1];
	pmc_t_wait_sleeping(c->pid);
	return 0;
}

int pmc_t_child_go(struct pmc_t_child *c)
{
	char b = 'g';
	int ret = write(c->go_fd, &b, 1) == 1 ? 0 : -errno;

	close(c->go_fd);
	c->go_fd = -1;
	return ret;
}

int pmc_t_child_wait(struct pmc_t_child *c, int *status, struct rusage *ru)
{
	struct rusage r;
	int st;

	if (c->go_fd >= 0) {
		close(c->go_fd);
		c->go_fd = -1;
	}
	if (wait4(c->pid, &st, 0, &r) != c->pid)
		return -errno;
	c->pid = 0;
	if (status)
		*status = st;
	if (ru)
		*ru = r;
	return 0;
}

void pmc_t_child_kill(struct pmc_t_child *c)
{
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		pmc_t_child_wait(c, NULL, NULL);
	}
}

uint64_t pmc_t_rusage_ns(const struct rusage *ru)
{
	return ((uint64_t)ru->ru_utime.tv_sec + (uint64_t)ru->ru_stime.tv_sec) *
	       1000000000ULL +
	       ((uint64_t)ru->ru_utime.tv_usec +
		(uint64_t)ru->ru_stime.tv_usec) * 1000ULL;
}

/* Copy /proc/@pid/task/@tid/@what to stderr, each line after @prefix. */
static void pmc_t_dump_file(pid_t pid, const char *tid, const char *what,
			    const char *prefix)
{
	char path[320], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/%s", pid, tid, what);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "%s%s%s", prefix, line,
			strchr(line, '\n') ? "" : "\n");
	if (f)
		fclose(f);
}

void pmc_t_dump_stacks(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		fprintf(stderr, "# task %d/%s:\n", pid, d->d_name);
		pmc_t_dump_file(pid, d->d_name, "comm", "#   comm ");
		pmc_t_dump_file(pid, d->d_name, "syscall", "#   syscall ");
		pmc_t_dump_file(pid, d->d_name, "stack", "#   ");
	}
	closedir(dir);
}

pid_t pmc_t_perf_stat(const char *target, pid_t pid, const char *opt,
		      const char *out)
{
	char pidbuf[16], control[48], reply[8] = "";
	const char *argv[16];
	int ctl[2], ack[2], n = 0, fd;
	pid_t perf;

	if (pipe2(ctl, O_CLOEXEC))
		return -1;
	if (pipe2(ack, O_CLOEXEC)) {
		close(ctl[0]);
		close(ctl[1]);
		return -1;
	}
	snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
	snprintf(control, sizeof(control), "fd:%d,%d", ctl[0], ack[1]);
	argv[n++] = "perf";
	argv[n++] = "stat";
	argv[n++] = "-x,";
	argv[n++] = "-e";
	argv[n++] = "task-clock";
	argv[n++] = "--delay=-1";
	argv[n++] = "--control";
	argv[n++] = control;
	if (opt)
		argv[n++] = opt;
	argv[n++] = target;
	argv[n++] = pidbuf;
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n] = NULL;
	/*
	 * The command waits in the pipe: perf reads its control descriptor
	 * only once its counters are open (and no SIGPIPE if it never runs).
	 */
	if (write(ctl[1], "enable\n", 7) != 7)
		perf = -1;
	else
		perf = fork();
	if (!perf) {
		/* perf's own ends, kept across exec. */
		fcntl(ctl[0], F_SETFD, 0);
		fcntl(ack[1], F_SETFD, 0);
		fd = open("/dev/null", O_RDWR);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp("perf", (char *const *)argv);
		_exit(127);
	}
	close(ctl[0]);
	close(ack[1]);
	/* The read ends with perf's "ack", or with EOF if perf died. */
	if (perf < 0 || read(ack[0], reply, sizeof(reply) - 1) < 3 ||
	    strncmp(reply, "ack", 3)) {
		if (perf > 0) {
			kill(perf, SIGKILL);
			waitpid(perf, NULL, 0);
		}
		perf = -1;
	}
	close(ctl[1]);
	close(ack[0]);
	return perf;
}

uint64_t pmc_t_perf_stat_task_clock(const char *path)
{
	char line[512];
	uint64_t ns = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, ",task-clock"))
			ns = (uint64_t)(strtod(line, NULL) * 1e6);
	fclose(f);
	return ns;
}

int pmc_t_perf_open(pid_t pid, uint64_t config)
{
	return pmc_t_perf_open_ex(pid, config, false, false);
}

int pmc_t_perf_open_ex(pid_t pid, uint64_t config, bool inherit,
		       bool user_only)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.disabled = 1;
	attr.inherit = inherit;
	attr.exclude_kernel = user_only;
	fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int pmc_t_perf_enable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) ? -errno : 0;
}

int pmc_t_perf_disable(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) ? -errno : 0;
}

int pmc_t_perf_read(int fd, uint64_t *value)
{
	ssize_t n = read(fd, value, sizeof(*value));

	return n == sizeof(*value) ? 0 : (n < 0 ? -errno : -EIO);
}

int pmc_t_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int pmc_t_drop_privileges(void)
{
	/* A retry after setuid() (an injected fault failed the rest) resumes. */
	if (getuid() != PMC_TEST_NOBODY &&
	    (setgroups(0, NULL) || setgid(PMC_TEST_NOBODY) ||
	     setuid(PMC_TEST_NOBODY)))
		return -errno;
	/*
	 * The uid change made us undumpable (suid_dumpable): be what a
	 * process a user starts is, ptrace-able by that user.
	 */
	if (prctl(PR_SET_DUMPABLE, 1))
		return -errno;
	return 0;
}

int pmc_t_run_as_nobody(int (*fn)(void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (pmc_t_drop_privileges())
			_exit(126);
		_exit(fn(arg) & 0xff);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int pmc_t_dev_chmod(mode_t mode, mode_t *old)
{
	struct stat st;

	if (stat(PMC_DEVICE_PATH, &st))
		return -errno;
	if (old)
		*old = st.st_mode & 07777;
	return chmod(PMC_DEVICE_PATH, mode) ? -errno : 0;
}

static int pmc_t_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static int pmc_t_write_file(const char *path, const char *value)
{
	ssize_t n, len = (ssize_t)strlen(value);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, value, (size_t)len);
	close(fd);
	return n == len ? 0 : (n < 0 ? -errno : -EIO);
}

int pmc_t_param_read(const char *name, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/pmc/parameters/%s", name);
	return pmc_t_read_file(path, buf, len);
}

long long pmc_t_param_num(const char *name)
{
	char buf[32], *end;
	long long v;

	if (pmc_t_param_read(name, buf, sizeof(buf)))
		return LLONG_MIN;
	errno = 0;
	v = strtoll(buf, &end, 10);
	return end == buf || errno ? LLONG_MIN : v;
}

int pmc_t_param_write(const char *name, const char *value)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/pmc/parameters/%s", name);
	return pmc_t_write_file(path, value);
}

int pmc_t_sysctl_write(const char *path, const char *value, char *old,
		       size_t oldlen)
{
	char file[256];
	int ret;

	snprintf(file, sizeof(file), "/proc/sys/%s", path);
	if (old) {
		ret = pmc_t_read_file(file, old, oldlen);
		if (ret)
			return ret;
	}
	return pmc_t_write_file(file, value);
}

int pmc_t_system(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	st = system(cmd);
	if (st < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Active objects of slab cache @name, from /proc/slabinfo; -1 if none. */
static long slab_active(const char *name)
{
	char line[512], cache[64];
	long active = -1, n;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", cache, &n) == 2 &&
		    !strcmp(cache, name))
			active = n;
	fclose(f);
	return active;
}

/* Flush a cache's per-CPU partial slabs so its counts are close to exact. */
static void slab_shrink(const char *name)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", name);
	f = fopen(path, "w");
	if (f) {
		fputs("1", f);
		fclose(f);
	}
}

void pmc_t_slab_objects(const char *const *names, unsigned int n, long *v)
{
	unsigned int i;

	sync();
	pmc_t_sysctl_write("vm/drop_caches", "3", NULL, 0);
	usleep(500000);
	for (i = 0; i < n; i++) {
		slab_shrink(names[i]);
		v[i] = slab_active(names[i]);
	}
}

const char *pmc_t_cannot_reload(const char *ko)
{
	static char why[300];

	if (geteuid())
		return "needs root to load and unload the module";
	if (access(ko, R_OK)) {
		snprintf(why, sizeof(why), "no %s to load", ko);
		return why;
	}
	return NULL;
}

const char *pmc_t_ko(void)
{
	const char *ko = getenv("PMC_KO");

	return ko && *ko ? ko : "driver/pmc.ko";
}

int pmc_t_load(const char *params)
{
	int fd = open(pmc_t_ko(), O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

int pmc_t_kmsg_count(const char *what, char *last, size_t len)
{
	char rec[8192];	/* CONSOLE_EXT_LOG_MAX: a read takes a whole record */
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int n = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten while read: go on */
		if (r <= 0)
			break;
		rec[r] = '\0';
		if (strstr(rec, what)) {
			n++;
			snprintf(last, len, "%s", strchr(rec, ';') ?: rec);
		}
	}
	close(fd);
	return n;
}

int pmc_t_unload(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (access("/sys/module/pmc", F_OK))
			return 0;
		if (!syscall(SYS_delete_module, "pmc", O_NONBLOCK))
			return 0;
		usleep(50000);
	}
	return -errno;
}

unsigned int pmc_t_slabs_over(const char *const *names, unsigned int n,
			      const long *before, const long *after,
			      const long *slack, bool report)
{
	unsigned int i, over = 0;

	for (i = 0; i < n; i++) {
		if (before[i] < 0 || after[i] < 0)
			continue;
		if (report)
			printf("#   %-12s %6ld -> %6ld objects\n", names[i],
			       before[i], after[i]);
		if (after[i] - before[i] <= slack[i])
			continue;
		over++;
		if (report)
			printf("#   %s grew by %ld objects (allowed: %ld)\n",
			       names[i], after[i] - before[i], slack[i]);
	}
	return over;
}

int pmc_t_owners_start(pid_t *pgid, int n,
		       void (*fn)(int ready, int i, void *arg), void *arg)
{
	int p[2], i, ret = 0;
	char b;

	for (i = 0; i < n; i++)
		pgid[i] = -1;
	if (pipe(p))
		return -errno;
	for (i = 0; i < n; i++) {
		pgid[i] = fork();
		if (pgid[i] < 0) {
			ret = -errno;
			break;
		}
		if (!pgid[i]) {
			setpgid(0, 0);
			close(p[0]);
			fn(p[1], i, arg);
			_exit(127);
		}
		/* Both sides set it: neither may see the group missing. */
		setpgid(pgid[i], pgid[i]);
	}
	close(p[1]);
	for (i = 0; i < n && pgid[i] > 0; i++)
		if (read(p[0], &b, 1) != 1 && !ret)
			ret = -EIO;	/* an owner failed its setup */
	close(p[0]);
	return ret;
}

void pmc_t_owners_kill(const pid_t *pgid, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pgid[i] > 0)
			kill(-pgid[i], SIGKILL);
	/* The caller is the subreaper: every descendant comes back to it. */
	while (wait(NULL) > 0 || errno == EINTR)
		;
}
