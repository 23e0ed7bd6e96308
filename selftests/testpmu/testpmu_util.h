/* SPDX-License-Identifier: GPL-2.0 */
/*
 * testpmu_util.h - what the tests that run on the test PMU share (the
 * testpmu, perfmon and hwclass suites): loading testpmu.ko under pmc.ko,
 * its statistics, clocks and busy loops.
 *
 * The tests run as root in the test VM (tools/pmc-vm loads pmc.ko at boot).
 * A fixture calls tp_load(ncounters, width), which reloads the modules only
 * when the loaded test PMU differs ("rmmod pmc; insmod testpmu.ko ...;
 * insmod pmc.ko", pmc.ko after testpmu.ko so that it gets a hardware class),
 * and the test binary puts back the VM's default state (pmc.ko alone) when
 * it exits: a destructor that runs in the harness's parent process only (the
 * harness ends each forked test with _exit(); forks in the tests must
 * _exit() too). The fixtures run in forked children, so the parent cannot
 * know what they loaded: in the VM, as root, it always restores.
 */
#ifndef _SELFTESTS_TESTPMU_UTIL_H
#define _SELFTESTS_TESTPMU_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <pmc/hwpmc.h>

/*
 * The harness leaves a failed ASSERT with longjmp() to the fixture's
 * teardown; the test's locals are dead by then, so gcc's -Wclobbered
 * warnings about them (-Wextra) are noise here.
 */
#pragma GCC diagnostic ignored "-Wclobbered"

#define TP_TESTPMU_KO	"selftests/testpmu/testpmu.ko"
#define TP_PMC_KO	"driver/pmc.ko"
#define TP_STATS	"/sys/kernel/debug/testpmu/stats"

/* The repository root: three levels above the test binary, else ".". */
static inline const char *tp_top(void)
{
	static char top[PATH_MAX];
	char exe[PATH_MAX], probe[PATH_MAX + 64];
	ssize_t n;
	int i;

	if (top[0])
		return top;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		for (i = 0; i < 4; i++) {
			char *slash = strrchr(exe, '/');

			if (!slash)
				break;
			*slash = '\0';
		}
		snprintf(probe, sizeof(probe), "%s/" TP_TESTPMU_KO, exe);
		if (access(probe, F_OK) == 0) {
			snprintf(top, sizeof(top), "%s", exe);
			return top;
		}
	}
	snprintf(top, sizeof(top), ".");
	return top;
}

/* The pmc.ko the VM loaded: $PMC_KO, else driver/pmc.ko. */
static inline const char *tp_pmc_ko(void)
{
	static char path[PATH_MAX + 16];
	const char *env = getenv("PMC_KO");

	if (env && *env)
		return env;
	snprintf(path, sizeof(path), "%s/" TP_PMC_KO, tp_top());
	return path;
}

/* Run a shell command; its exit status, or -1. */
static inline int tp_sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(NULL);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static inline bool tp_module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

/* A module parameter as a number, or -1. */
static inline long long tp_module_param(const char *mod, const char *param)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, param);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Write a module parameter; 0 or -1. */
static inline int tp_set_module_param(const char *mod, const char *param,
				      const char *val)
{
	char path[256];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, param);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fputs(val, f) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

/* NULL if this process may load modules in the test VM, else why not. */
static inline const char *tp_cannot_load(void)
{
	static char why[512];

#if !defined(__x86_64__) && !defined(__i386__)
	return "not an x86 machine: the test PMU's overflow interrupt is an APIC NMI; this machine's own PMU is tested instead (selftests/arm64)";
#endif
	if (!getenv("PMC_VM"))
		return "needs the test VM (tools/pmc-vm)";
	if (geteuid() != 0)
		return "needs root";
	snprintf(why, sizeof(why), "%s/" TP_TESTPMU_KO, tp_top());
	if (access(why, R_OK)) {
		snprintf(why, sizeof(why), "%s/%s not built (make selftests)",
			 tp_top(), TP_TESTPMU_KO);
		return why;
	}
	return NULL;
}

/*
 * pmc.ko's general hardware class (K8 or IAP) from GETCPUINFO, with the
 * CPU type; -1 if /dev/pmc cannot be asked or has none.
 */
static inline int tp_pmc_hwclass(struct pmc_classinfo *ci, unsigned int *cputype)
{
	struct pmc_op_getcpuinfo info;
	unsigned int i;
	int fd, ret = -1;

	fd = open(PMC_DEVICE_PATH, O_RDONLY);
	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, PMC_IOC_GETCPUINFO, &info) == 0) {
		for (i = 0; i < info.pm_nclass && i < PMC_CLASS_MAX; i++) {
			if (info.pm_classes[i].pm_class != PMC_CLASS_K8 &&
			    info.pm_classes[i].pm_class != PMC_CLASS_IAP)
				continue;
			if (ci)
				*ci = info.pm_classes[i];
			if (cputype)
				*cputype = info.pm_cputype;
			ret = 0;
			break;
		}
	}
	close(fd);
	return ret;
}

/*
 * Make the test PMU (@ncounters counters of @width bits) the hardware class
 * of pmc.ko, reloading both modules unless that is already the case.
 * 0 or -1. Root in the VM (check tp_cannot_load() first).
 */
static inline int tp_load(unsigned int ncounters, unsigned int width)
{
	struct pmc_classinfo ci;

	if (tp_module_loaded("testpmu") && tp_module_loaded("pmc") &&
	    tp_module_param("testpmu", "ncounters") == ncounters &&
	    tp_module_param("testpmu", "width") == width &&
	    tp_pmc_hwclass(&ci, NULL) == 0 && ci.pm_num == ncounters &&
	    ci.pm_width == width)
		return 0;
	if (tp_sh("rmmod pmc 2>/dev/null; rmmod testpmu 2>/dev/null; "
		  "insmod %s/" TP_TESTPMU_KO " ncounters=%u width=%u && insmod %s",
		  tp_top(), ncounters, width, tp_pmc_ko()))
		return -1;
	return 0;
}

/* The VM's default state: pmc.ko loaded, the test PMU not. 0 or -1. */
static inline int tp_unload(void)
{
	if (!tp_module_loaded("testpmu") && tp_module_loaded("pmc"))
		return 0;
	return tp_sh("rmmod pmc 2>/dev/null; rmmod testpmu 2>/dev/null; insmod %s",
		     tp_pmc_ko()) ? -1 : 0;
}

static void __attribute__((destructor)) tp_restore_at_exit(void)
{
	if (getenv("PMC_VM") && geteuid() == 0 && tp_unload())
		fprintf(stderr, "# could not restore pmc.ko without the test PMU\n");
}

/* A line "name N" of the test PMU's debugfs statistics, or -1. */
static inline long long tp_stat(const char *name)
{
	char key[64];
	long long v, ret = -1;
	FILE *f = fopen(TP_STATS, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &v) == 2) {
		if (!strcmp(key, name)) {
			ret = v;
			break;
		}
	}
	fclose(f);
	return ret;
}

static inline uint64_t tp_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Spin in user mode for @ns of this thread's CPU time. The clock is a
 * system call: it is asked every 200000 iterations (about a millisecond in
 * the VM), so that the thread spends nearly all of its time in user mode.
 */
static inline void tp_busy_ns(uint64_t ns)
{
	uint64_t end = tp_clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	uint64_t x = 0;

	while (tp_clock_ns(CLOCK_THREAD_CPUTIME_ID) < end) {
		int i;

		for (i = 0; i < 200000; i++) {
			x += i;
			asm volatile("" : "+r" (x));	/* keep the loop */
		}
	}
}

static inline void tp_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ull,
		.tv_nsec = ns % 1000000000ull,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline int tp_perf_open(struct perf_event_attr *attr, pid_t pid,
			       int cpu, int group, unsigned long flags)
{
	attr->size = sizeof(*attr);
	return syscall(__NR_perf_event_open, attr, pid, cpu, group, flags);
}

/* |a/b - 1| <= tol */
static inline bool tp_within(double a, double b, double tol)
{
	return b != 0 && a / b - 1 <= tol && 1 - a / b <= tol;
}

#endif /* _SELFTESTS_TESTPMU_UTIL_H */
