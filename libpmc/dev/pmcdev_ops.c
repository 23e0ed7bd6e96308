// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcdev_ops.c - one function per /dev/pmc ioctl (include/uapi/pmc/hwpmc.h):
 * each fills the operation's structure and returns 0, or -1 with the errno
 * the driver set. No lock, no allocation except in pmcdev_events().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmcdev.h"

int pmcdev_version(int fd, uint32_t *version)
{
	struct pmc_op_getmoduleversion v = { .pm_version = PMC_VERSION };

	if (pmcdev_ioctl(fd, PMC_IOC_GETMODULEVERSION, &v) < 0)
		return -1;
	*version = v.pm_version;
	if (PMC_VERSION_TO_MAJOR(v.pm_version) != PMC_VERSION_MAJOR) {
		errno = PMC_EPROGMISMATCH;
		return -1;
	}
	return 0;
}

int pmcdev_cpuinfo(int fd, struct pmc_op_getcpuinfo *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (pmcdev_ioctl(fd, PMC_IOC_GETCPUINFO, ci) < 0)
		return -1;
	if (ci->pm_nclass > PMC_CLASS_MAX) {
		errno = PMC_EPROGMISMATCH;
		return -1;
	}
	ci->pm_cpuid[sizeof(ci->pm_cpuid) - 1] = '\0';
	return 0;
}

int pmcdev_events(int fd, uint32_t cl, struct pmc_dyn_event_descr **events,
		  uint32_t *n)
{
	struct pmc_op_getdyneventinfo gi = { .pm_class = cl };
	struct pmc_dyn_event_descr *ev = NULL;
	uint32_t cap, i;

	*events = NULL;
	*n = 0;
	if (pmcdev_ioctl(fd, PMC_IOC_GETDYNEVENTINFO, &gi) < 0)
		return -1;
	/* The count may grow between the calls: ask until it fits. */
	while (gi.pm_nevent > 0) {
		cap = gi.pm_nevent;
		free(ev);
		ev = calloc(cap, sizeof(*ev));
		if (!ev)
			return -1;
		gi.pm_class = cl;
		gi.pm_events = (uint64_t)(uintptr_t)ev;
		if (pmcdev_ioctl(fd, PMC_IOC_GETDYNEVENTINFO, &gi) < 0) {
			free(ev);
			return -1;
		}
		if (gi.pm_nevent <= cap)
			break;
	}
	if (!gi.pm_nevent) {
		free(ev);
		return 0;
	}
	for (i = 0; i < gi.pm_nevent; i++)
		ev[i].pm_ev_name[PMC_NAME_MAX - 1] = '\0';
	*events = ev;
	*n = gi.pm_nevent;
	return 0;
}

int pmcdev_allocate(int fd, struct pmc_op_pmcallocate *req)
{
	req->pm_pmcid = PMC_ID_INVALID;
	return pmcdev_ioctl(fd, PMC_IOC_PMCALLOCATE, req);
}

int pmcdev_attach(int fd, unsigned long request, uint32_t id, pid_t pid,
		  uint32_t flags)
{
	struct pmc_op_pmcattach a = {
		.pm_pmc = id, .pm_pid = pid, .pm_flags = flags,
	};

	return pmcdev_ioctl(fd, request, &a);
}

int pmcdev_op(int fd, unsigned long request, uint32_t id)
{
	struct pmc_op_simple s = { .pm_pmcid = id };

	return pmcdev_ioctl(fd, request, &s);
}

int pmcdev_rw(int fd, uint32_t id, uint32_t flags, uint64_t value,
	      uint64_t *old)
{
	struct pmc_op_pmcrw rw = {
		.pm_flags = flags, .pm_pmcid = id, .pm_value = value,
	};

	if (pmcdev_ioctl(fd, PMC_IOC_PMCRW, &rw) < 0)
		return -1;
	if (old)
		*old = rw.pm_value;
	return 0;
}

int pmcdev_setcount(int fd, uint32_t id, uint64_t count)
{
	struct pmc_op_pmcsetcount sc = { .pm_count = count, .pm_pmcid = id };

	return pmcdev_ioctl(fd, PMC_IOC_PMCSETCOUNT, &sc);
}

int pmcdev_readset(int fd, unsigned int n, const uint32_t *ids,
		   uint64_t *values, uint64_t *timestamp)
{
	struct pmc_op_pmcreadset rs = {
		.pm_count = n,
		.pm_ids = (uint64_t)(uintptr_t)ids,
		.pm_values = (uint64_t)(uintptr_t)values,
	};

	if (pmcdev_ioctl(fd, PMC_IOC_PMCREADSET, &rs) < 0)
		return -1;
	if (timestamp)
		*timestamp = rs.pm_timestamp;
	return 0;
}

int pmcdev_caps(int fd, uint32_t id, uint32_t *caps)
{
	struct pmc_op_caps c = { .pm_pmcid = id };

	if (pmcdev_ioctl(fd, PMC_IOC_GETCAPS, &c) < 0)
		return -1;
	*caps = c.pm_caps;
	return 0;
}

int pmcdev_getmsr(int fd, uint32_t id, uint32_t *msr)
{
	struct pmc_op_getmsr gm = { .pm_pmcid = id };

	if (pmcdev_ioctl(fd, PMC_IOC_PMCGETMSR, &gm) < 0)
		return -1;
	*msr = gm.pm_msr;
	return 0;
}

int pmcdev_configurelog(int fd, int logfd)
{
	struct pmc_op_configurelog cl = { .pm_logfd = logfd };

	return pmcdev_ioctl(fd, PMC_IOC_CONFIGURELOG, &cl);
}

int pmcdev_flushlog(int fd)
{
	return pmcdev_ioctl(fd, PMC_IOC_FLUSHLOG, NULL);
}

int pmcdev_closelog(int fd)
{
	return pmcdev_ioctl(fd, PMC_IOC_CLOSELOG, NULL);
}

int pmcdev_writelog(int fd, uint32_t udata)
{
	struct pmc_op_writelog wl = { .pm_userdata = udata };

	return pmcdev_ioctl(fd, PMC_IOC_WRITELOG, &wl);
}
