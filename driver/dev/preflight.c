// SPDX-License-Identifier: GPL-2.0
/*
 * preflight.c - the load-time check that the running kernel gives the driver
 * what it counts and hooks with: the sched tracepoints and perf kernel
 * counters (the Linux counterpart of hwpmc's "options HWPMC_HOOKS" check).
 *
 * Process context, at module load only.
 */
#include "base/pmc_base.h"
#include "debug/pmc_debug.h"

#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static const char * const pmc_needed_tracepoints[] = {
	"sched_switch",
	"sched_process_fork",
	"sched_process_exec",
	"sched_process_exit",
};

/* Called for every core-kernel tracepoint: marks the ones we need. */
static void pmc_preflight_tp(struct tracepoint *tp, void *priv)
{
	unsigned long *found = priv;
	int i;

	for (i = 0; i < ARRAY_SIZE(pmc_needed_tracepoints); i++)
		if (!strcmp(tp->name, pmc_needed_tracepoints[i]))
			*found |= BIT(i);
}

/*
 * Create and release a kernel cpu-clock counter on the current CPU (kept
 * online meanwhile): what every PMC of the driver is made of.
 */
static int pmc_preflight_perf(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.disabled = 1,
	};
	struct perf_event *event;

	if (!IS_ENABLED(CONFIG_PERF_EVENTS))
		return -EOPNOTSUPP;

	cpus_read_lock();
	event = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
						 NULL, NULL, NULL);
	cpus_read_unlock();
	if (IS_ERR(event))
		return PTR_ERR(event);
	perf_event_release_kernel(event);
	return 0;
}

int pmc_preflight(void)
{
	unsigned long found = 0;
	char what[160];
	int len = 0, i, ret;

	for_each_kernel_tracepoint(pmc_preflight_tp, &found);
	for (i = 0; i < ARRAY_SIZE(pmc_needed_tracepoints); i++) {
		if (found & BIT(i))
			continue;
		len += scnprintf(what + len, sizeof(what) - len, "%s%s",
				 len ? ", " : "the tracepoints ",
				 pmc_needed_tracepoints[i]);
	}

	ret = pmc_preflight_perf();
	if (ret)
		len += scnprintf(what + len, sizeof(what) - len,
				 "%sperf kernel counters (cpu-clock: error %d)",
				 len ? " and " : "", ret);

	if (!len)
		return 0;
	pr_err("this kernel lacks %s; the driver needs CONFIG_PERF_EVENTS and the sched tracepoints\n",
	       what);
	return -ENODEV;
}
