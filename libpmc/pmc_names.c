// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_names.c - pmc_name_of_*(): the names of modes, classes, states,
 * capabilities and events, FreeBSD's where FreeBSD has one (event names
 * from the device layer's tables); the name lists of
 * pmc_event_names_of_class().
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libpmc_impl.h"
#include "pmcdev.h"

static const char *pmc_lookup(const char *const *names, size_t n, unsigned int i)
{
	if (i >= n || !names[i]) {
		errno = EINVAL;
		return NULL;
	}
	return names[i];
}

static const char *const pmc_mode_names[] = {
	[PMC_MODE_SS] = "SS",
	[PMC_MODE_SC] = "SC",
	[PMC_MODE_TS] = "TS",
	[PMC_MODE_TC] = "TC",
};

const char *pmc_name_of_mode(enum pmc_mode pm)
{
	return pmc_lookup(pmc_mode_names, PMC_ARRAY_SIZE(pmc_mode_names), pm);
}

static const char *const pmc_state_names[] = {
	[PMC_STATE_DISABLED] = "DISABLED",
	[PMC_STATE_FREE] = "FREE",
	[PMC_STATE_ALLOCATED] = "ALLOCATED",
	[PMC_STATE_STOPPED] = "STOPPED",
	[PMC_STATE_RUNNING] = "RUNNING",
	[PMC_STATE_DELETED] = "DELETED",
};

const char *pmc_name_of_state(enum pmc_state ps)
{
	return pmc_lookup(pmc_state_names, PMC_ARRAY_SIZE(pmc_state_names), ps);
}

static const char *const pmc_disp_names[] = {
	[PMC_DISP_STANDALONE] = "STANDALONE",
	[PMC_DISP_FREE] = "FREE",
	[PMC_DISP_THREAD] = "THREAD",
	[PMC_DISP_UNKNOWN] = "UNKNOWN",
};

const char *pmc_name_of_disposition(enum pmc_disp pd)
{
	return pmc_lookup(pmc_disp_names, PMC_ARRAY_SIZE(pmc_disp_names), pd);
}

static const char *const pmc_class_names[] = {
	[PMC_CLASS_TSC] = "TSC",
	[PMC_CLASS_K8] = "K8",
	[PMC_CLASS_IAF] = "IAF",
	[PMC_CLASS_IAP] = "IAP",
	[PMC_CLASS_SOFT] = "SOFT",
	[PMC_CLASS_ARMV8] = "ARMV8",
};

const char *pmc_name_of_class(enum pmc_class pc)
{
	return pmc_lookup(pmc_class_names, PMC_ARRAY_SIZE(pmc_class_names), pc);
}

const char *pmc_name_of_cputype(enum pmc_cputype cp)
{
	switch (cp) {
	case PMC_CPU_AMD_K8:
		return "AMD_K8";
	case PMC_CPU_INTEL_CORE:
		return "INTEL_CORE";
	case PMC_CPU_GENERIC:
		return "GENERIC";
	case PMC_CPU_ARMV8_CORTEX_A53:
		return "ARMV8_CORTEX_A53";
	case PMC_CPU_ARMV8_CORTEX_A57:
		return "ARMV8_CORTEX_A57";
	case PMC_CPU_ARMV8_CORTEX_A76:
		return "ARMV8_CORTEX_A76";
	}
	errno = EINVAL;
	return NULL;
}

static const char *const pmc_cap_names[] = {
	"INTERRUPT", "USER", "SYSTEM", "EDGE", "THRESHOLD", "READ", "WRITE",
	"INVERT", "QUALIFIER", "PRECISE", "TAGGING", "CASCADE", "SYSWIDE",
	"DOMWIDE",
};

/* One capability bit; anything else (0, several bits, unknown) is EINVAL. */
const char *pmc_name_of_capability(enum pmc_caps c)
{
	unsigned int v = (unsigned int)c;

	if (v == 0 || (v & (v - 1)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	return pmc_lookup(pmc_cap_names, PMC_ARRAY_SIZE(pmc_cap_names),
			  (unsigned int)__builtin_ctz(v));
}

/*
 * Works without pmc_init() (pmclog(3) names events of logs read anywhere);
 * after it, SOFT names come from the driver's table.
 */
const char *pmc_name_of_event(enum pmc_event pe)
{
	uint32_t ev = (uint32_t)pe;
	const struct pmc_mdesc *m;
	const char *name = NULL;
	unsigned int i;
	int saved = errno;

	if (ev == PMC_EV_TSC_TSC)
		return "TSC";
	if (ev == PMC_EV_RAW)
		return "RAW";
	if (ev >= PMC_EV_GENERIC_FIRST && ev < PMC_EV_RAW)
		name = pmcdev_hw_name(ev - PMC_EV_GENERIC_FIRST);
	else if (ev >= PMC_EV_SOFT_FIRST && ev < PMC_EV_GENERIC_FIRST) {
		m = pmc__mdesc();
		errno = saved;
		for (i = 0; m && i < m->nsoft; i++)
			if (m->soft[i].pm_ev_code == ev)
				return m->soft[i].pm_ev_name;
		name = pmcdev_soft_name(ev - PMC_EV_SOFT_FIRST);
	}
	if (!name)
		errno = EINVAL;
	return name;
}

int pmc__namelist_add(struct pmc_namelist *nl, const char *name)
{
	char **names;
	char *copy;

	if (nl->n == nl->cap) {
		size_t cap = nl->cap ? nl->cap * 2 : 64;

		names = realloc(nl->names, cap * sizeof(*names));
		if (!names)
			return ENOMEM;
		nl->names = names;
		nl->cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return ENOMEM;
	nl->names[nl->n++] = copy;
	nl->bytes += strlen(name) + 1;
	return 0;
}

int pmc__namelist_pack(struct pmc_namelist *nl, const char ***out, int *n)
{
	size_t i, len;
	char **block;
	char *p;

	if (nl->n > INT32_MAX)
		return EOVERFLOW;
	block = malloc((nl->n ? nl->n : 1) * sizeof(char *) + nl->bytes);
	if (!block)
		return ENOMEM;
	p = (char *)(block + (nl->n ? nl->n : 1));
	for (i = 0; i < nl->n; i++) {
		len = strlen(nl->names[i]) + 1;
		memcpy(p, nl->names[i], len);
		block[i] = p;
		p += len;
	}
	*out = (const char **)block;
	*n = (int)nl->n;
	return 0;
}

void pmc__namelist_free(struct pmc_namelist *nl)
{
	size_t i;

	for (i = 0; i < nl->n; i++)
		free(nl->names[i]);
	free(nl->names);
	memset(nl, 0, sizeof(*nl));
}
