/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_perfmon.h - the interface of perfmon/: OpenBSD's perfmon(4) ioctls on
 * /dev/pmc, called by the device layer (dev/main.c). Process context.
 */
#ifndef _PMC_PERFMON_H
#define _PMC_PERFMON_H

#include "base/pmc_base.h"

/* the PMIO* ioctls; @cmd is one of them. */
long pmc_perfmon_ioctl(struct pmc_file *pf, unsigned int cmd, void __user *arg);
bool pmc_perfmon_is_cmd(unsigned int cmd);
int pmc_perfmon_open(struct pmc_file *pf);
void pmc_perfmon_release(struct pmc_file *pf);

#endif /* _PMC_PERFMON_H */
