// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - hwpmc logging: CONFIGURELOG, FLUSHLOG, WRITELOG, CLOSELOG (being
 * written: the sampling and logging issue).
 */
#include "pmc_main.h"
#include "pmc_log.h"

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

/* Placeholders until sampling and logging land: records go nowhere. */
int pmc_sampling_init(void)
{
	return 0;
}

void pmc_sampling_exit(void)
{
}

void pmc_log_owner_exit(struct pmc_owner *po)
{
}

bool pmc_log_configured(struct pmc_owner *po)
{
	return false;
}

void pmc_log_pmcallocate(struct pmc_owner *po, struct pmc_obj *pm)
{
}

void pmc_log_pmcattach(struct pmc_owner *po, struct pmc_obj *pm,
		       struct task_struct *target)
{
}

void pmc_log_pmcdetach(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid)
{
}

void pmc_log_proccsw(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid,
		     pid_t tid, u64 delta)
{
}

void pmc_log_procexit(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid,
		      u64 value)
{
}

void pmc_log_procfork(struct pmc_owner *po, pid_t oldpid, pid_t newpid)
{
}

void pmc_log_sysexit(struct pmc_owner *po, pid_t pid)
{
}

void pmc_log_procexec(struct pmc_owner *po, struct pmc_obj *pm,
		      struct task_struct *task)
{
}

void pmc_sample_overflow(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs)
{
}
