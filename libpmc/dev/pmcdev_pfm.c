// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcdev_pfm.c - CPU-specific event names through libpfm4: encoding a name
 * with its modifiers into a perf descriptor, and walking the core PMU's
 * events. The one place the user-space libraries call libpfm4.
 *
 * Privilege levels: libpfm4 is always asked for PLM0|PLM3 (kernel and
 * user), so a name counts both unless its own modifiers (":u", ":k") say
 * otherwise; those come back as PMC_CAP_USER / PMC_CAP_SYSTEM, which the
 * resolver combines with the caller's qualifiers (pmcdev_levels()).
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

#include "pmcdev.h"

static pthread_once_t pmcdev_pfm_once = PTHREAD_ONCE_INIT;
static int pmcdev_pfm_status = PFM_ERR_NOINIT;

static void pmcdev_pfm_init(void)
{
	pmcdev_pfm_status = pfm_initialize();
}

static bool pmcdev_pfm_ready(void)
{
	pthread_once(&pmcdev_pfm_once, pmcdev_pfm_init);
	return pmcdev_pfm_status == PFM_SUCCESS;
}

static int pmcdev_pfm_errno(int ret)
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

static int pmcdev_pfm_try(const char *name, struct pmcdev_pfm_encoding *enc)
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
		return pmcdev_pfm_errno(ret);
	enc->type = attr.type;
	enc->config = attr.config;
	enc->config1 = attr.config1;
	enc->config2 = attr.config2;
	enc->caps = 0;
	if (attr.exclude_kernel && !attr.exclude_user)
		enc->caps = PMC_CAP_USER;
	else if (attr.exclude_user && !attr.exclude_kernel)
		enc->caps = PMC_CAP_SYSTEM;
	return 0;
}

int pmcdev_pfm_encode(const char *name, struct pmcdev_pfm_encoding *enc)
{
	char *alt, *p;
	int err;

	if (!pmcdev_pfm_ready())
		return ENOENT;
	err = pmcdev_pfm_try(name, enc);
	if (err != ENOENT || !strpbrk(name, "- "))
		return err;

	/* FreeBSD spells "cpu-clk-unhalted.thread_p" what libpfm4 calls "CPU_CLK_UNHALTED:THREAD_P". */
	alt = strdup(name);
	if (!alt)
		return ENOMEM;
	for (p = alt; *p; p++)
		if (*p == '-' || *p == ' ')
			*p = '_';
	err = pmcdev_pfm_try(alt, enc);
	free(alt);
	return err;
}

/* The unit mask @i of event @idx, or false when attribute @i is not one. */
static bool pmcdev_pfm_umask(int idx, int i, pfm_event_attr_info_t *ai)
{
	memset(ai, 0, sizeof(*ai));
	ai->size = sizeof(*ai);
	return pfm_get_event_attr_info(idx, i, PFM_OS_NONE, ai) == PFM_SUCCESS &&
	       ai->type == PFM_ATTR_UMASK;
}

/* The events of one core PMU: see pmcdev_pfm_walk(). */
static int pmcdev_pfm_walk_pmu(const pfm_pmu_info_t *pi,
			       pmcdev_pfm_walker_t *fn, void *arg)
{
	pfm_event_attr_info_t ai;
	pfm_event_info_t ev;
	int idx, i, nmask, err;
	bool dfl;

	for (idx = pi->first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		memset(&ev, 0, sizeof(ev));
		ev.size = sizeof(ev);
		if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
			continue;
		nmask = 0;
		dfl = false;
		for (i = 0; i < ev.nattrs; i++) {
			if (!pmcdev_pfm_umask(idx, i, &ai))
				continue;
			nmask++;
			dfl |= ai.is_dfl;
		}
		err = fn(arg, pi->name, ev.name, NULL, nmask, dfl);
		for (i = 0; i < ev.nattrs && !err; i++)
			if (pmcdev_pfm_umask(idx, i, &ai))
				err = fn(arg, pi->name, ev.name, ai.name, nmask,
					 dfl);
		if (err)
			return err;
	}
	return 0;
}

int pmcdev_pfm_walk(bool default_only, pmcdev_pfm_walker_t *fn, void *arg)
{
	pfm_pmu_info_t pi, best;
	bool found = false;
	int p, err;

	if (!pmcdev_pfm_ready())
		return 0;
	pfm_for_all_pmus(p) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present ||
		    pi.type != PFM_PMU_TYPE_CORE)
			continue;
		if (!default_only) {
			err = pmcdev_pfm_walk_pmu(&pi, fn, arg);
			if (err)
				return err;
			continue;
		}
		if (!found || pi.is_dfl) {
			best = pi;
			found = true;
		}
		if (pi.is_dfl)
			break;
	}
	return found ? pmcdev_pfm_walk_pmu(&best, fn, arg) : 0;
}
