// SPDX-License-Identifier: GPL-2.0
/*
 * soft_events.c - the Linux software events the SOFT class counts, named as
 * perf names them. Read-only tables; any context.
 */
#include "pmc_base.h"

#include <linux/kernel.h>
#include <linux/perf_event.h>

static const struct pmc_soft_event pmc_soft_events[] = {
	{ "cpu-clock",		PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",		PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",	PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches",	PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",	PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults",	PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",	PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults",	PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",	PERF_COUNT_SW_EMULATION_FAULTS },
};

const struct pmc_soft_event *pmc_soft_event_find(u64 config)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pmc_soft_events); i++)
		if (pmc_soft_events[i].config == config)
			return &pmc_soft_events[i];
	return NULL;
}

unsigned int pmc_soft_event_count(void)
{
	return ARRAY_SIZE(pmc_soft_events);
}

const struct pmc_soft_event *pmc_soft_event_at(unsigned int i)
{
	return i < ARRAY_SIZE(pmc_soft_events) ? &pmc_soft_events[i] : NULL;
}
