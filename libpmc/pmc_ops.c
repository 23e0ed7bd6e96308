// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_ops.c - the PMC operations of pmc(3): allocate, attach, start, read,
 * the log ops, and the Linux extensions. Each is one ioctl; the driver's
 * errno is returned unchanged (hwpmc(4) ERRORS).
 */
#include <errno.h>
#include <string.h>

#include "libpmc_impl.h"

int pmc_parse_spec(const char *ctrspec, enum pmc_mode mode,
		   struct pmc_op_pmcallocate *req)
{
	const struct pmc_mdesc *m = pmc__mdesc();
	int err;

	if (!m)
		return -1;
	if (!ctrspec || !req) {
		errno = EINVAL;
		return -1;
	}
	err = pmc__spec_encode(m, ctrspec, mode, req);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int pmc_allocate_request(struct pmc_op_pmcallocate *req)
{
	if (!req) {
		errno = EINVAL;
		return -1;
	}
	return pmc__ioctl(PMC_IOC_PMCALLOCATE, req);
}

int pmc_allocate(const char *ctrspec, enum pmc_mode mode, uint32_t flags,
		 int cpu, pmc_id_t *pmcid, uint64_t count)
{
	struct pmc_op_pmcallocate req;

	if (!pmcid) {
		errno = EINVAL;
		return -1;
	}
	if (pmc_parse_spec(ctrspec, mode, &req) < 0)
		return -1;
	req.pm_flags = flags;
	req.pm_cpu = (uint32_t)cpu;
	req.pm_count = count;
	if (pmc_allocate_request(&req) < 0)
		return -1;
	*pmcid = req.pm_pmcid;
	return 0;
}

static int pmc_attach_op(unsigned long request, pmc_id_t pmcid, pid_t pid,
			 uint32_t flags)
{
	struct pmc_op_pmcattach a = {
		.pm_pmc = pmcid,
		.pm_pid = pid,
		.pm_flags = flags,
	};

	return pmc__ioctl(request, &a);
}

int pmc_attach(pmc_id_t pmcid, pid_t pid)
{
	return pmc_attach_op(PMC_IOC_PMCATTACH, pmcid, pid, 0);
}

int pmc_detach(pmc_id_t pmcid, pid_t pid)
{
	return pmc_attach_op(PMC_IOC_PMCDETACH, pmcid, pid, 0);
}

int pmc_attach_thread(pmc_id_t pmcid, pid_t tid, uint32_t flags)
{
	if (flags & ~PMC_ATTACH_F_INHERIT) {
		errno = EINVAL;
		return -1;
	}
	return pmc_attach_op(PMC_IOC_PMCATTACH, pmcid, tid,
			     PMC_ATTACH_F_THREAD | flags);
}

int pmc_detach_thread(pmc_id_t pmcid, pid_t tid)
{
	return pmc_attach_op(PMC_IOC_PMCDETACH, pmcid, tid,
			     PMC_ATTACH_F_THREAD);
}

static int pmc_simple_op(unsigned long request, pmc_id_t pmcid)
{
	struct pmc_op_simple s = { .pm_pmcid = pmcid };

	return pmc__ioctl(request, &s);
}

int pmc_release(pmc_id_t pmc)
{
	return pmc_simple_op(PMC_IOC_PMCRELEASE, pmc);
}

int pmc_start(pmc_id_t pmc)
{
	return pmc_simple_op(PMC_IOC_PMCSTART, pmc);
}

int pmc_stop(pmc_id_t pmc)
{
	return pmc_simple_op(PMC_IOC_PMCSTOP, pmc);
}

static int pmc_rw_op(pmc_id_t pmc, uint32_t flags, pmc_value_t newvalue,
		     pmc_value_t *oldvalue)
{
	struct pmc_op_pmcrw rw = {
		.pm_flags = flags,
		.pm_pmcid = pmc,
		.pm_value = newvalue,
	};

	if (pmc__ioctl(PMC_IOC_PMCRW, &rw) < 0)
		return -1;
	if (oldvalue)
		*oldvalue = rw.pm_value;
	return 0;
}

int pmc_read(pmc_id_t pmc, pmc_value_t *value)
{
	if (!value) {
		errno = EINVAL;
		return -1;
	}
	return pmc_rw_op(pmc, PMC_F_OLDVALUE, 0, value);
}

int pmc_write(pmc_id_t pmc, pmc_value_t value)
{
	return pmc_rw_op(pmc, PMC_F_NEWVALUE, value, NULL);
}

int pmc_rw(pmc_id_t pmc, pmc_value_t newvalue, pmc_value_t *oldvalue)
{
	if (!oldvalue) {
		errno = EINVAL;
		return -1;
	}
	return pmc_rw_op(pmc, PMC_F_NEWVALUE | PMC_F_OLDVALUE, newvalue,
			 oldvalue);
}

int pmc_set(pmc_id_t pmc, pmc_value_t value)
{
	struct pmc_op_pmcsetcount sc = {
		.pm_count = value,
		.pm_pmcid = pmc,
	};

	return pmc__ioctl(PMC_IOC_PMCSETCOUNT, &sc);
}

int pmc_capabilities(pmc_id_t pmc, uint32_t *caps)
{
	struct pmc_op_caps c = { .pm_pmcid = pmc };

	if (!caps) {
		errno = EINVAL;
		return -1;
	}
	if (pmc__ioctl(PMC_IOC_GETCAPS, &c) < 0)
		return -1;
	*caps = c.pm_caps;
	return 0;
}

int pmc_get_msr(pmc_id_t pmc, uint32_t *msr)
{
	struct pmc_op_getmsr gm = { .pm_pmcid = pmc };

	if (!msr) {
		errno = EINVAL;
		return -1;
	}
	if (pmc__ioctl(PMC_IOC_PMCGETMSR, &gm) < 0) {
		/* pmc(4) says EOPNOTSUPP where hwpmc(4) says ENOSYS: no RDPMC. */
		if (errno == EOPNOTSUPP)
			errno = ENOSYS;
		return -1;
	}
	*msr = gm.pm_msr;
	return 0;
}

int pmc_read_set(unsigned int n, const pmc_id_t *ids, pmc_value_t *values,
		 uint64_t *timestamp)
{
	struct pmc_op_pmcreadset rs = {
		.pm_count = n,
		.pm_ids = (uint64_t)(uintptr_t)ids,
		.pm_values = (uint64_t)(uintptr_t)values,
	};

	if (n == 0 || n > PMC_READSET_MAX || !ids || !values) {
		errno = EINVAL;
		return -1;
	}
	if (pmc__ioctl(PMC_IOC_PMCREADSET, &rs) < 0)
		return -1;
	if (timestamp)
		*timestamp = rs.pm_timestamp;
	return 0;
}

/* Logging. */

int pmc_configure_logfile(int fd)
{
	struct pmc_op_configurelog cl = { .pm_logfd = fd };

	return pmc__ioctl(PMC_IOC_CONFIGURELOG, &cl);
}

int pmc_flush_logfile(void)
{
	return pmc__ioctl(PMC_IOC_FLUSHLOG, NULL);
}

int pmc_close_logfile(void)
{
	return pmc__ioctl(PMC_IOC_CLOSELOG, NULL);
}

int pmc_writelog(uint32_t udata)
{
	struct pmc_op_writelog wl = { .pm_userdata = udata };

	return pmc__ioctl(PMC_IOC_WRITELOG, &wl);
}
