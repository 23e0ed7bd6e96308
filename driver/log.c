// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - hwpmc logging: CONFIGURELOG, FLUSHLOG, WRITELOG, CLOSELOG (being
 * written: the sampling and logging issue).
 */
#include "pmc_main.h"

long pmc_op_configurelog(struct pmc_file *pf, void __user *arg)
{
	return -EOPNOTSUPP;
}

long pmc_op_flushlog(struct pmc_file *pf, void __user *arg)
{
	return -EOPNOTSUPP;
}

long pmc_op_writelog(struct pmc_file *pf, void __user *arg)
{
	return -EOPNOTSUPP;
}

long pmc_op_closelog(struct pmc_file *pf, void __user *arg)
{
	return -EOPNOTSUPP;
}
