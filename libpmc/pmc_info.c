// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_info.c - what pmc(3) tells about the machine and the driver: CPU and
 * class information (cached by pmc_init()), row states, driver statistics,
 * row administration and the event names of a class.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libpmc_impl.h"
#include "pmcdev.h"

const struct pmc_classinfo *pmc__class_info(const struct pmc_cpuinfo *cpu,
					    uint32_t cl)
{
	uint32_t i;

	for (i = 0; i < cpu->pm_nclass && i < PMC_CLASS_MAX; i++)
		if (cpu->pm_classes[i].pm_class == cl)
			return &cpu->pm_classes[i];
	return NULL;
}

const struct pmc_classinfo *pmc__hw_class(const struct pmc_cpuinfo *cpu)
{
	const struct pmc_classinfo *ci = pmc__class_info(cpu, PMC_CLASS_IAP);

	if (!ci)
		ci = pmc__class_info(cpu, PMC_CLASS_K8);
	return ci ? ci : pmc__class_info(cpu, PMC_CLASS_ARMV8);
}

int pmc_cpuinfo(const struct pmc_cpuinfo **cpu_info)
{
	const struct pmc_mdesc *m = pmc__mdesc();

	if (!m)
		return -1;
	if (!cpu_info) {
		errno = EINVAL;
		return -1;
	}
	*cpu_info = m->cpu;
	return 0;
}

int pmc_ncpu(void)
{
	const struct pmc_mdesc *m = pmc__mdesc();

	return m ? (int)m->cpu->pm_ncpu : -1;
}

int pmc_npmc(int cpu)
{
	const struct pmc_mdesc *m = pmc__mdesc();

	if (!m)
		return -1;
	if (cpu < 0 || (uint32_t)cpu >= m->cpu->pm_ncpu) {
		errno = EINVAL;
		return -1;
	}
	return (int)m->cpu->pm_npmc;
}

int pmc_width(pmc_id_t pmc, uint32_t *width)
{
	const struct pmc_mdesc *m = pmc__mdesc();
	const struct pmc_classinfo *ci;

	if (!m)
		return -1;
	ci = pmc__class_info(m->cpu, PMC_ID_TO_CLASS(pmc));
	if (!ci || !width) {
		errno = EINVAL;
		return -1;
	}
	*width = ci->pm_width;
	return 0;
}

int pmc_pmcinfo(int cpu, struct pmc_pmcinfo **pmc_info)
{
	const struct pmc_mdesc *m = pmc__mdesc();
	struct pmc_op_getpmcinfo gp;
	struct pmc_pmcinfo *pi;
	uint32_t n;

	if (!m)
		return -1;
	if (!pmc_info || cpu < 0 || (uint32_t)cpu >= m->cpu->pm_ncpu) {
		errno = EINVAL;
		return -1;
	}
	n = m->cpu->pm_npmc;
	pi = calloc(1, sizeof(*pi) + (size_t)n * sizeof(struct pmc_info));
	if (!pi)
		return -1;
	gp.pm_cpu = cpu;
	gp.pm_npmc = n;
	gp.pm_pmcs = (uint64_t)(uintptr_t)pi->pm_pmcs;
	if (pmc__ioctl(PMC_IOC_GETPMCINFO, &gp) < 0) {
		free(pi);
		return -1;
	}
	for (n = 0; n < gp.pm_npmc && n < m->cpu->pm_npmc; n++)
		pi->pm_pmcs[n].pm_name[PMC_NAME_MAX - 1] = '\0';
	pi->pm_cpu = cpu;
	*pmc_info = pi;
	return 0;
}

int pmc_get_driver_stats(struct pmc_driverstats *gms)
{
	struct pmc_op_getdriverstats ds;

	if (!gms) {
		errno = EINVAL;
		return -1;
	}
	memset(&ds, 0, sizeof(ds));
	if (pmc__ioctl(PMC_IOC_GETDRIVERSTATS, &ds) < 0)
		return -1;
	memset(gms, 0, sizeof(*gms));
	gms->pm_intr_ignored = (unsigned int)ds.pm_intr_ignored;
	gms->pm_intr_processed = (unsigned int)ds.pm_intr_processed;
	gms->pm_intr_bufferfull = (unsigned int)ds.pm_intr_bufferfull;
	gms->pm_syscalls = (unsigned int)ds.pm_syscalls;
	gms->pm_syscall_errors = (unsigned int)ds.pm_syscall_errors;
	gms->pm_buffer_requests = (unsigned int)ds.pm_buffer_requests;
	gms->pm_buffer_requests_failed =
		(unsigned int)ds.pm_buffer_requests_failed;
	gms->pm_log_sweeps = (unsigned int)ds.pm_log_sweeps;
	gms->pm_ring_dropped = (unsigned int)ds.pm_ring_dropped;
	gms->pm_log_buffer_kbytes = (unsigned int)(ds.pm_log_buffer_bytes / 1024);
	return 0;
}

static int pmc_admin(int cpu, int pmc, uint32_t state)
{
	struct pmc_op_pmcadmin pa = {
		.pm_cpu = cpu,
		.pm_pmc = pmc,
		.pm_state = state,
	};

	return pmc__ioctl(PMC_IOC_PMCADMIN, &pa);
}

int pmc_enable(int cpu, int pmc)
{
	return pmc_admin(cpu, pmc, PMC_STATE_FREE);
}

int pmc_disable(int cpu, int pmc)
{
	return pmc_admin(cpu, pmc, PMC_STATE_DISABLED);
}

/* libpfm4's events: "EVENT.UMASK" for each unit mask, "EVENT" without any. */
static int pmc_pfm_name(void *arg, const char *pmu, const char *event,
			const char *umask, int nmask, bool dfl)
{
	char name[256];

	(void)pmu;
	(void)dfl;
	if (!umask)
		return nmask ? 0 : pmc__namelist_add(arg, event);
	snprintf(name, sizeof(name), "%s.%s", event, umask);
	return pmc__namelist_add(arg, name);
}

static int pmc_class_names(const struct pmc_mdesc *m, uint32_t cl,
			   struct pmc_namelist *nl)
{
	unsigned int i;
	uint64_t config;
	int err = 0, ctr;

	switch (cl) {
	case PMC_CLASS_TSC:
		return pmc__namelist_add(nl, "TSC");
	case PMC_CLASS_SOFT:
		for (i = 0; i < m->nsoft && !err; i++)
			err = pmc__namelist_add(nl, m->soft[i].pm_ev_name);
		return err;
	case PMC_CLASS_IAF:
		/* By their FreeBSD names: what the fixed counters count. */
		for (i = 0; i < PMCDEV_NFIXED && !err; i++)
			err = pmc__namelist_add(nl, pmcdev_fixed_name(
					PMCDEV_FIXED_FREEBSD + i, &ctr, &config));
		return err;
	case PMC_CLASS_IAP:
	case PMC_CLASS_K8:
		/* perf's generic events, then libpfm4's for this CPU. */
		for (i = 0; pmcdev_hw_name(i) && !err; i++)
			err = pmc__namelist_add(nl, pmcdev_hw_name(i));
		return err ? err : pmcdev_pfm_walk(false, pmc_pfm_name, nl);
	case PMC_CLASS_ARMV8:
		/* perf's generic events, PMUv3's common ones, libpfm4's. */
		for (i = 0; pmcdev_hw_name(i) && !err; i++)
			err = pmc__namelist_add(nl, pmcdev_hw_name(i));
		for (i = 0; pmcdev_armv8_name(i, NULL) && !err; i++)
			err = pmc__namelist_add(nl, pmcdev_armv8_name(i, NULL));
		return err ? err : pmcdev_pfm_walk(false, pmc_pfm_name, nl);
	}
	return EINVAL;
}

int pmc__event_names(const struct pmc_mdesc *m, uint32_t cl,
		     const char ***eventnames, int *nevents)
{
	struct pmc_namelist nl = { 0 };
	int err;

	if (!eventnames || !nevents || !pmc__class_info(m->cpu, cl))
		return EINVAL;
	err = pmc_class_names(m, cl, &nl);
	if (!err)
		err = pmc__namelist_pack(&nl, eventnames, nevents);
	pmc__namelist_free(&nl);
	return err;
}

int pmc_event_names_of_class(enum pmc_class cl, const char ***eventnames,
			     int *nevents)
{
	const struct pmc_mdesc *m = pmc__mdesc();
	int err;

	if (!m)
		return -1;
	err = pmc__event_names(m, cl, eventnames, nevents);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
