// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_pfm.c - CPU-specific event names through libpfm4: encoding a name with
 * its modifiers into a perf descriptor, and listing the core PMU's events.
 *
 * libpfm4 is initialised once per process, on first use (pthread_once): it
 * detects the CPU from CPUID (LIBPFM_FORCE_PMU overrides it, which the unit
 * tests use). Its perf_event.h replaces <linux/perf_event.h> in this file.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

#include "libpmc_impl.h"

static pthread_once_t pmc_pfm_once = PTHREAD_ONCE_INIT;
static int pmc_pfm_status = PFM_ERR_NOINIT;

static void pmc_pfm_init(void)
{
	pmc_pfm_status = pfm_initialize();
}

static int pmc_pfm_ready(void)
{
	pthread_once(&pmc_pfm_once, pmc_pfm_init);
	return pmc_pfm_status == PFM_SUCCESS;
}

static int pmc_pfm_errno(int ret)
{
	switch (ret) {
	case PFM_SUCCESS:
		return 0;
	case PFM_ERR_NOTFOUND:
		return ENOENT;
	case PFM_ERR_NOMEM:
		return ENOMEM;
	default:
		return EINVAL;	/* bad unit mask, attribute or modifier */
	}
}

static int pmc_pfm_try(const char *name, struct pmc_pfm_encoding *enc)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int ret;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.attr = &attr;
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3,
					PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS)
		return pmc_pfm_errno(ret);
	enc->type = attr.type;
	enc->config = attr.config;
	enc->config1 = attr.config1;
	enc->config2 = attr.config2;
	enc->exclude_user = attr.exclude_user;
	enc->exclude_kernel = attr.exclude_kernel;
	return 0;
}

int pmc__pfm_encode(const char *name, struct pmc_pfm_encoding *enc)
{
	char *alt, *p;
	int err;

	if (!pmc_pfm_ready())
		return ENOENT;
	err = pmc_pfm_try(name, enc);
	if (err != ENOENT || !strpbrk(name, "- "))
		return err;

	/* FreeBSD spells "cpu-clk-unhalted.thread_p" what libpfm4 calls "CPU_CLK_UNHALTED:THREAD_P". */
	alt = strdup(name);
	if (!alt)
		return ENOMEM;
	for (p = alt; *p; p++)
		if (*p == '-' || *p == ' ')
			*p = '_';
	err = pmc_pfm_try(alt, enc);
	free(alt);
	return err;
}

static int pmc_pfm_add_event(int idx, const pfm_event_info_t *ev,
			     struct pmc_namelist *nl)
{
	pfm_event_attr_info_t ai;
	char name[256];
	int a, nmask = 0, err;

	for (a = 0; a < ev->nattrs; a++) {
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ai) != PFM_SUCCESS ||
		    ai.type != PFM_ATTR_UMASK)
			continue;
		snprintf(name, sizeof(name), "%s.%s", ev->name, ai.name);
		err = pmc__namelist_add(nl, name);
		if (err)
			return err;
		nmask++;
	}
	return nmask ? 0 : pmc__namelist_add(nl, ev->name);
}

int pmc__pfm_event_names(struct pmc_namelist *nl)
{
	pfm_pmu_info_t pi;
	pfm_event_info_t ev;
	int p, idx, err;

	if (!pmc_pfm_ready())
		return 0;
	pfm_for_all_pmus(p) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present ||
		    pi.type != PFM_PMU_TYPE_CORE)
			continue;
		for (idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			memset(&ev, 0, sizeof(ev));
			ev.size = sizeof(ev);
			if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
				continue;
			err = pmc_pfm_add_event(idx, &ev, nl);
			if (err)
				return err;
		}
	}
	return 0;
}
