// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_ops.c - the PMC operations of pmc(3): allocate, attach, start, read,
 * the log ops, and the Linux extensions. Each is one ioctl; the driver's
 * errno is returned unchanged (hwpmc(4) ERRORS).
 */
#include <errno.h>
#include <string.h>

#include "libpmc_impl.h"
#include "pmcdev.h"

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
	return pmcdev_allocate(pmc__fd(), req);
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

int pmc_attach(pmc_id_t pmcid, pid_t pid)
{
	return pmcdev_attach(pmc__fd(), PMC_IOC_PMCATTACH, pmcid, pid, 0);
}

int pmc_detach(pmc_id_t pmcid, pid_t pid)
{
	return pmcdev_attach(pmc__fd(), PMC_IOC_PMCDETACH, pmcid, pid, 0);
}

int pmc_attach_thread(pmc_id_t pmcid, pid_t tid, uint32_t flags)
{
	if (flags & ~PMC_ATTACH_F_INHERIT) {
		errno = EINVAL;
		return -1;
	}
	return pmcdev_attach(pmc__fd(), PMC_IOC_PMCATTACH, pmcid, tid,
			     PMC_ATTACH_F_THREAD | flags);
}

int pmc_detach_thread(pmc_id_t pmcid, pid_t tid)
{
	return pmcdev_attach(pmc__fd(), PMC_IOC_PMCDETACH, pmcid, tid,
			     PMC_ATTACH_F_THREAD);
}

int pmc_release(pmc_id_t pmc)
{
	return pmcdev_op(pmc__fd(), PMC_IOC_PMCRELEASE, pmc);
}

int pmc_start(pmc_id_t pmc)
{
	return pmcdev_op(pmc__fd(), PMC_IOC_PMCSTART, pmc);
}

int pmc_stop(pmc_id_t pmc)
{
	return pmcdev_op(pmc__fd(), PMC_IOC_PMCSTOP, pmc);
}

static int pmc_rw_op(pmc_id_t pmc, uint32_t flags, pmc_value_t newvalue,
		     pmc_value_t *oldvalue)
{
	return pmcdev_rw(pmc__fd(), pmc, flags, newvalue, oldvalue);
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
	return pmcdev_setcount(pmc__fd(), pmc, value);
}

int pmc_capabilities(pmc_id_t pmc, uint32_t *caps)
{
	if (!caps) {
		errno = EINVAL;
		return -1;
	}
	return pmcdev_caps(pmc__fd(), pmc, caps);
}

int pmc_get_msr(pmc_id_t pmc, uint32_t *msr)
{
	if (!msr) {
		errno = EINVAL;
		return -1;
	}
	if (pmcdev_getmsr(pmc__fd(), pmc, msr) < 0) {
		/* pmc(4) says EOPNOTSUPP where hwpmc(4) says ENOSYS: no RDPMC. */
		if (errno == EOPNOTSUPP)
			errno = ENOSYS;
		return -1;
	}
	return 0;
}

int pmc_read_set(unsigned int n, const pmc_id_t *ids, pmc_value_t *values,
		 uint64_t *timestamp)
{
	if (n == 0 || n > PMC_READSET_MAX || !ids || !values) {
		errno = EINVAL;
		return -1;
	}
	return pmcdev_readset(pmc__fd(), n, ids, values, timestamp);
}

/* Logging. */

int pmc_configure_logfile(int fd)
{
	return pmcdev_configurelog(pmc__fd(), fd);
}

int pmc_flush_logfile(void)
{
	return pmcdev_flushlog(pmc__fd());
}

int pmc_close_logfile(void)
{
	return pmcdev_closelog(pmc__fd());
}

int pmc_writelog(uint32_t udata)
{
	return pmcdev_writelog(pmc__fd(), udata);
}
