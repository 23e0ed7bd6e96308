// SPDX-License-Identifier: GPL-2.0
/*
 * perfmon.c - FreeBSD's perfmon(4) ioctls on /dev/pmc. PMIOTSTAMP returns
 * the TSC and its rate; the counters are being written (perfmon issue).
 *
 * All functions run in process context.
 */
#include "pmc_main.h"

#include <linux/uaccess.h>
#include <pmc/perfmon.h>

bool pmc_perfmon_is_cmd(unsigned int cmd)
{
	switch (cmd) {
	case PMIOSETUP:
	case PMIOGET:
	case PMIOSTART:
	case PMIOSTOP:
	case PMIORESET:
	case PMIOREAD:
	case PMIOTSTAMP:
		return true;
	}
	return false;
}

/* PMIOTSTAMP: the TSC and its rate in MHz; ENOTTY where the rate is unknown. */
static long pmc_perfmon_tstamp(void __user *arg)
{
	struct pmc_tstamp ts = { 0 };
	unsigned long khz = pmc_arch_tsc_khz();

	if (!khz)
		return -ENOTTY;
	ts.pmct_rate = DIV_ROUND_CLOSEST(khz, 1000);
	ts.pmct_value = pmc_arch_read_tsc();
	if (copy_to_user(arg, &ts, sizeof(ts)))
		return -EFAULT;
	return 0;
}

long pmc_perfmon_ioctl(struct pmc_file *pf, unsigned int cmd, void __user *arg)
{
	if (cmd == PMIOTSTAMP)
		return pmc_perfmon_tstamp(arg);
	return -EOPNOTSUPP;
}

int pmc_perfmon_open(struct pmc_file *pf)
{
	return 0;
}

void pmc_perfmon_release(struct pmc_file *pf)
{
}
