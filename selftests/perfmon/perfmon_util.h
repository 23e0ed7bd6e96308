/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfmon_util.h - helpers of the perfmon(4) tests: the ioctls as errno
 * values, a counter set up in one call, the example program's path.
 */
#ifndef _SELFTESTS_PERFMON_UTIL_H
#define _SELFTESTS_PERFMON_UTIL_H

#include <pmc/perfmon.h>

#include "../testpmu/testpmu_util.h"

/* An ioctl's errno, 0 on success. */
static inline int pm_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? errno : 0;
}

static inline int pm_num(int fd, unsigned long req, int num)
{
	__s32 n = num;

	return pm_ioctl(fd, req, &n);
}

static inline int pm_setup(int fd, int num, int event, int unit, int flags,
			   int mask)
{
	struct pmc p;

	memset(&p, 0, sizeof(p));
	p.pmc_num = num;
	p.pmc_event = event;
	p.pmc_unit = unit;
	p.pmc_flags = flags;
	p.pmc_mask = mask;
	return pm_ioctl(fd, PMIOSETUP, &p);
}

/* PMIOREAD: errno, the value in *@value. */
static inline int pm_read(int fd, int num, long long *value)
{
	struct pmc_data d;
	int ret;

	memset(&d, 0, sizeof(d));
	d.pmcd_num = num;
	ret = pm_ioctl(fd, PMIOREAD, &d);
	*value = ret ? -1 : (long long)d.pmcd_value;
	return ret;
}

static inline long pm_ncpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* build/tools/perfmon: two levels above build/selftests/bin/. */
static inline const char *pm_example_path(void)
{
	static char path[PATH_MAX + 32];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int i;

	if (n <= 0)
		return "build/tools/perfmon";
	exe[n] = '\0';
	for (i = 0; i < 3; i++) {
		char *slash = strrchr(exe, '/');

		if (slash)
			*slash = '\0';
	}
	snprintf(path, sizeof(path), "%s/tools/perfmon", exe);
	return path;
}

#endif /* _SELFTESTS_PERFMON_UTIL_H */
