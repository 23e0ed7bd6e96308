// SPDX-License-Identifier: GPL-2.0
/*
 * event.c - from a PMCALLOCATE descriptor to the perf_event_attr every
 * kernel counter of the PMC is made from; creating, reading and releasing
 * those counters; and the TSC class, which has none.
 *
 * Process context (counters are created, read and released with perf's
 * sleeping calls; pmc_event_read() turns IRQs off for the counters it can
 * read locally), except pmc_event_ovf_period() and pmc_class_is_hw(): any
 * context.
 */
#include "pmc_core_priv.h"

#include <linux/perf_event.h>
#include <linux/smp.h>

bool pmc_class_is_hw(u32 pmc_class)
{
	return pmc_class == PMC_CLASS_IAP || pmc_class == PMC_CLASS_IAF ||
	       pmc_class == PMC_CLASS_K8 || pmc_class == PMC_CLASS_ARMV8;
}

/* A generic cache event: cache id, op and result, one byte each. */
static bool pmc_hw_cache_valid(u64 config)
{
	return (config & 0xff) < PERF_COUNT_HW_CACHE_MAX &&
	       ((config >> 8) & 0xff) < PERF_COUNT_HW_CACHE_OP_MAX &&
	       ((config >> 16) & 0xff) < PERF_COUNT_HW_CACHE_RESULT_MAX &&
	       !(config >> 24);
}

/* The Intel fixed counters, in counter order: IAF-0, IAF-1, IAF-2. */
static int pmc_iaf_row(u64 config)
{
	switch (config) {
	case PERF_COUNT_HW_INSTRUCTIONS:
		return 0;
	case PERF_COUNT_HW_CPU_CYCLES:
		return 1;
	case PERF_COUNT_HW_REF_CPU_CYCLES:
		return 2;
	}
	return -1;
}

/* Check the descriptor of a hardware class (IAP, K8, IAF, ARMV8). */
static int pmc_event_check_hw(const struct pmc_classdesc *cd,
			      const struct pmc_md_op_pmcallocate *md,
			      int *fixed_row)
{
	if (cd->class == PMC_CLASS_IAF) {
		if (md->pm_type != PERF_TYPE_HARDWARE || md->pm_config1 ||
		    md->pm_config2)
			return -EINVAL;
		*fixed_row = pmc_iaf_row(md->pm_config);
		if (*fixed_row < 0 || *fixed_row >= cd->num)
			return -EINVAL;
		return 0;
	}

	switch (md->pm_type) {
	case PERF_TYPE_RAW:
		/* config1/config2 are perf's extra registers: perf checks them. */
		return pmc_arch_validate_raw(cd->class, md->pm_config);
	case PERF_TYPE_HARDWARE:
		if (md->pm_config >= PERF_COUNT_HW_MAX || md->pm_config1 ||
		    md->pm_config2)
			return -EINVAL;
		return 0;
	case PERF_TYPE_HW_CACHE:
		if (!pmc_hw_cache_valid(md->pm_config) || md->pm_config1 ||
		    md->pm_config2)
			return -EINVAL;
		return 0;
	}
	return -EINVAL;
}

/*
 * Check the descriptor of @pa against the class @cd and build pm->attr.
 * *@fixed_row is the row within the class the event needs (Intel fixed
 * counters), or -1 for any. Returns 0 or -EINVAL.
 */
int pmc_event_attr(struct pmc_obj *pm, const struct pmc_op_pmcallocate *pa,
		   const struct pmc_classdesc *cd, int *fixed_row)
{
	const struct pmc_md_op_pmcallocate *md = &pa->pm_md;
	struct perf_event_attr *attr = &pm->attr;
	bool user = pm->caps & PMC_CAP_USER;
	bool sys = pm->caps & PMC_CAP_SYSTEM;
	int ret;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->disabled = 1;
	*fixed_row = -1;

	switch (cd->class) {
	case PMC_CLASS_TSC:
		/* Read with RDTSC on the PMC's CPU: no kernel counter. */
		if (md->pm_type || md->pm_config || md->pm_config1 ||
		    md->pm_config2 || pa->pm_ev != PMC_EV_TSC_TSC)
			return -EINVAL;
		return 0;
	case PMC_CLASS_SOFT:
		if (md->pm_type != PERF_TYPE_SOFTWARE ||
		    !pmc_soft_event_find(md->pm_config) || md->pm_config1 ||
		    md->pm_config2 ||
		    pa->pm_ev != PMC_EV_SOFT_FIRST + md->pm_config)
			return -EINVAL;
		break;
	case PMC_CLASS_IAP:
	case PMC_CLASS_IAF:
	case PMC_CLASS_K8:
	case PMC_CLASS_ARMV8:
		ret = pmc_event_check_hw(cd, md, fixed_row);
		if (ret)
			return ret;
		/* A hardware PMC owns a counter: never multiplexed. */
		attr->pinned = 1;
		break;
	default:
		return -EINVAL;
	}

	attr->type = md->pm_type;
	attr->config = md->pm_config;
	attr->config1 = md->pm_config1;
	attr->config2 = md->pm_config2;
	attr->exclude_kernel = user && !sys;
	attr->exclude_user = sys && !user;
	/* One overflow per interrupt: no large PEBS batches (linux.md 1.4). */
	attr->wakeup_events = 1;
	return 0;
}

/*
 * The sampling period of a PMC_F_OVF_SIGNAL counter whose PMC holds @value:
 * it overflows when the value wraps past 2^64. Periods perf cannot take
 * (bit 63 set, or 2^64) mean "not within 2^63 events". Any context.
 */
u64 pmc_event_ovf_period(const struct pmc_obj *pm, u64 value)
{
	u64 period = -value;

	if (!period || period >= BIT_ULL(63))
		period = BIT_ULL(63) - 1;
	return period;
}

/* Marks inherited counters as a PMC's (pmc_event_inherit_pmc()). */
void pmc_inherit_mark(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
}

/*
 * A kernel counter for @pm: on @cpu (system mode) or following @task
 * (@cpu == -1). Sampling and OVF_SIGNAL counters get the overflow handler
 * with @pm as its context. Returns the counter or an ERR_PTR of perf's
 * error mapped by pmc_event_errno().
 */
struct perf_event *pmc_event_create(struct pmc_obj *pm, int cpu,
				    struct task_struct *task, bool enabled)
{
	struct perf_event_attr attr = pm->attr;
	perf_overflow_handler_t handler = NULL;
	struct perf_event *event;

	attr.disabled = !enabled;
	/* Inherited by the task's new threads and processes (target.c). */
	attr.inherit = task && pm->inherit;
	/* Book mode: a task's counter holds its own count (book.c). */
	attr.inherit_stat = attr.inherit && pmc_book_wanted(pm);
	/* The thread may read it (the self-read page's RDPMC entries). */
	if (task && pmc_class_is_hw(pm->pmc_class))
		pmc_arch_user_read(&attr);
	if (attr.sample_period)
		handler = pmc_sample_overflow;
	else if (attr.inherit)
		handler = pmc_inherit_mark;
	event = perf_event_create_kernel_counter(&attr, cpu, task, handler, pm);
	if (IS_ERR(event))
		return ERR_PTR(pmc_event_errno(PTR_ERR(event)));
	pmc_dbg(PMC_DBG_MD, PMC_DBG_ALLOCATE, pm->id,
		task ? task_pid_nr(task) : 0, cpu, attr.config);
	return event;
}

void pmc_event_release(struct perf_event *event)
{
	perf_event_release_kernel(event);
}

/*
 * The counter's value (a pinned counter that could not be scheduled keeps
 * what it counted while it was, and counts nothing more): a local one as
 * pmc_event_read_irqoff() reads it, any other through
 * perf_event_read_value(), which takes the counter's context and child
 * mutexes and reads it on its CPU with a cross-call: several times the
 * cost (docs/performance.md). Process context.
 */
u64 pmc_event_read(struct perf_event *event)
{
	u64 enabled, running, value;
	unsigned long flags;
	bool local;

	local_irq_save(flags);
	local = pmc_event_read_irqoff(event, &value);
	local_irq_restore(flags);
	if (local)
		return value;
	return perf_event_read_value(event, &enabled, &running);
}

/*
 * hwpmc's errno for perf's: no such event on this machine is "could not be
 * allocated" (EINVAL), an offline CPU is ENXIO.
 */
int pmc_event_errno(int err)
{
	switch (err) {
	case -ENOENT:
		return -EINVAL;
	case -ENODEV:
		return -ENXIO;
	case -EACCES:
		return -EPERM;
	}
	return err;
}

static void pmc_tsc_read_fn(void *info)
{
	*(u64 *)info = pmc_arch_read_tsc();
}

/* The TSC of @cpu (online). Process context. */
u64 pmc_tsc_read_cpu(int cpu)
{
	u64 value = 0;

	smp_call_function_single(cpu, pmc_tsc_read_fn, &value, 1);
	return value;
}
