// SPDX-License-Identifier: GPL-2.0
/*
 * core.c - PMC objects, rows and owners (being written: the hwpmc core).
 */
#include "pmc_main.h"

#define PMC_CORE_OP_TODO(name)						\
long pmc_op_##name(struct pmc_file *pf, void __user *arg)		\
{									\
	return -EOPNOTSUPP;							\
}

PMC_CORE_OP_TODO(getpmcinfo)
PMC_CORE_OP_TODO(pmcadmin)
PMC_CORE_OP_TODO(pmcallocate)
PMC_CORE_OP_TODO(pmcattach)
PMC_CORE_OP_TODO(pmcdetach)
PMC_CORE_OP_TODO(pmcgetmsr)
PMC_CORE_OP_TODO(pmcrelease)
PMC_CORE_OP_TODO(pmcrw)
PMC_CORE_OP_TODO(pmcsetcount)
PMC_CORE_OP_TODO(pmcstart)
PMC_CORE_OP_TODO(pmcstop)
PMC_CORE_OP_TODO(getcaps)
PMC_CORE_OP_TODO(pmcreadset)

int pmc_core_init(void)
{
	return 0;
}

void pmc_core_exit(void)
{
}

void pmc_core_release_file(struct pmc_file *pf)
{
}
