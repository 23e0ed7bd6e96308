// SPDX-License-Identifier: GPL-2.0
/*
 * perfmon.c - FreeBSD's perfmon(4) ioctls (PMIO*) on /dev/pmc.
 *
 * The original drove the two counters of a uniprocessor Pentium: counters
 * are global, not per process. Here each counter is one pinned perf kernel
 * counter per online CPU (PERF_TYPE_RAW with the event-select word built
 * from struct pmc), and a read sums them: everything all CPUs do. There is
 * one set of counters for the whole device, and one writer at a time: the
 * first file opened for writing that issues PMIOSETUP takes the writer slot
 * and keeps it until it is closed, which stops and frees the counters.
 * Files opened O_RDWR by hwpmc programs are therefore not refused at open.
 * perfmon(4) in docs/ describes the rules and each errno.
 *
 * All functions run in process context (ioctl, open, release).
 */
#include "base/pmc_base.h"
#include "core/pmc_core.h"
#include "pmc_perfmon.h"

#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <pmc/perfmon.h>

/* The flags struct pmc may carry; 0x20 (AnyThread on later CPUs) may not. */
#define PMC_PERFMON_FLAGS	(PMCF_USR | PMCF_OS | PMCF_E | PMCF_PC | \
				 PMCF_INT | PMCF_EN | PMCF_INV)
/* More counters than any x86 CPU (or the test PMU) has. */
#define PMC_PERFMON_MAX		32

/*
 * struct pmc_perfmon_ctr - one perfmon counter.
 * @configured:	set up by PMIOSETUP (else EBUSY)
 * @running:	started (PMIOSTART) and not stopped since
 * @val:	pmc_val as set up (PMCF_SYS_FLAGS stripped), for PMIOGET
 * @offset:	the sum of the per-CPU counts at the last reset
 * @events:	one kernel counter per possible CPU, NULL for CPUs that were
 *		offline at PMIOSETUP
 */
struct pmc_perfmon_ctr {
	bool configured;
	bool running;
	u32 val;
	u64 offset;
	struct perf_event **events;
};

/*
 * pmc_perfmon_lock protects pmc_perfmon: the counters and the writer slot.
 * Process context only (ioctls and release; the perf calls under it sleep).
 */
static DEFINE_MUTEX(pmc_perfmon_lock);
static struct {
	struct pmc_file *writer;	/* holds the writer slot, or NULL */
	struct pmc_perfmon_ctr ctr[PMC_PERFMON_MAX];
} pmc_perfmon;

bool pmc_perfmon_is_cmd(unsigned int cmd)
{
	switch (cmd) {
	case PMIOSETUP:
	case PMIOGET:
	case PMIOSTART:
	case PMIOSTOP:
	case PMIORESET:
	case PMIOREAD:
	case PMIOTSTAMP:
		return true;
	}
	return false;
}

/* Counters the CPU has (NPMC of this machine); 0 without a PMU. */
static unsigned int pmc_perfmon_ncounters(void)
{
	const struct pmc_arch_class *c;

	c = pmc_arch_general_class(&pmc_machine.arch);
	return c ? min_t(u32, c->num, PMC_PERFMON_MAX) : 0;
}

/* The counts are global: reading them needs what system-scope PMCs need. */
static bool pmc_perfmon_privileged(void)
{
	return READ_ONCE(pmc_unprivileged_syspmcs) || perfmon_capable();
}

/*
 * The perf attribute of a counter set up with @p: the raw encoding of its
 * event, unit, counter mask, edge and invert fields (the arch layer's: x86's
 * event-select word), PMCF_USR/PMCF_OS as the user/kernel exclusions.
 * PMCF_PC has no perf equivalent and is ignored. 0 or -EINVAL.
 */
static int pmc_perfmon_attr(const struct pmc *p, struct perf_event_attr *attr)
{
	u64 config;
	int ret;

	ret = pmc_arch_perfmon_config(p->pmc_event, p->pmc_unit, p->pmc_mask,
				      p->pmc_flags & PMCF_E,
				      p->pmc_flags & PMCF_INV, &config);
	if (ret)
		return ret;
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_RAW;
	attr->size = sizeof(*attr);
	attr->config = config;
	attr->exclude_user = !(p->pmc_flags & PMCF_USR);
	attr->exclude_kernel = !(p->pmc_flags & PMCF_OS);
	attr->exclude_hv = 1;
	attr->pinned = 1;
	attr->disabled = 1;
	return 0;
}

/* Stop and free a counter's kernel counters. Caller holds pmc_perfmon_lock. */
static void pmc_perfmon_free(struct pmc_perfmon_ctr *ctr)
{
	unsigned int cpu;

	if (ctr->events) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (ctr->events[cpu])
				perf_event_release_kernel(ctr->events[cpu]);
		kfree(ctr->events);
	}
	memset(ctr, 0, sizeof(*ctr));
}

/*
 * perf's refusals as perfmon(4) errors: no PMU for raw events is ENXIO;
 * perf's own rule for CPU-wide counters (6.1 applies it to kernel counters
 * too: CAP_PERFMON or kernel.perf_event_paranoid <= 0) is EPERM.
 */
static int pmc_perfmon_errno(long err)
{
	switch (err) {
	case -ENOENT:
	case -EOPNOTSUPP:
		return -ENXIO;
	case -EACCES:
		return -EPERM;
	}
	return err;
}

/*
 * One disabled, pinned kernel counter per online CPU. CPUs that come online
 * later are not counted (documented). Caller holds pmc_perfmon_lock.
 */
static int pmc_perfmon_create(struct pmc_perfmon_ctr *ctr,
			      const struct pmc *p)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	unsigned int cpu;
	int ret = 0;

	ret = pmc_perfmon_attr(p, &attr);
	if (ret)
		return ret;
	ctr->events = kcalloc(nr_cpu_ids, sizeof(*ctr->events), GFP_KERNEL);
	if (!ctr->events)
		return -ENOMEM;

	/*
	 * A CPU that goes offline meanwhile, refused by perf (-ENODEV),
	 * gets no counter, as one offline before.
	 */
	for_each_online_cpu(cpu) {
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL,
						      NULL);
		if (IS_ERR(ev) && PTR_ERR(ev) == -ENODEV && !cpu_online(cpu))
			continue;
		if (IS_ERR(ev)) {
			ret = pmc_perfmon_errno(PTR_ERR(ev));
			break;
		}
		ctr->events[cpu] = ev;
	}

	if (ret) {
		pr_debug("perfmon: cannot count 0x%llx on cpu %u: %d\n",
			 attr.config, cpu, ret);
		pmc_perfmon_free(ctr);
		return ret;
	}
	ctr->val = p->pmc_val;
	ctr->configured = true;
	return 0;
}

/*
 * The per-CPU loops below let a hotplug of a CPU in progress go first
 * before they act on its counter (pmc_cpu_settle(), as the core's ops on a
 * system PMC do): a CPU's teardown takes the mutex of the context these
 * calls hold while they call the CPU. The counter of a CPU that went
 * offline is out of its context: perf reads and switches it without
 * calling the CPU.
 */

/* The sum of the per-CPU counts. Caller holds pmc_perfmon_lock. */
static u64 pmc_perfmon_sum(const struct pmc_perfmon_ctr *ctr)
{
	u64 sum = 0, enabled, running;
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (!ctr->events[cpu])
			continue;
		pmc_cpu_settle(cpu);
		sum += perf_event_read_value(ctr->events[cpu], &enabled,
					     &running);
	}
	return sum;
}

static void pmc_perfmon_stop(struct pmc_perfmon_ctr *ctr)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (!ctr->events[cpu])
			continue;
		pmc_cpu_settle(cpu);
		perf_event_disable(ctr->events[cpu]);
	}
	ctr->running = false;
}

/*
 * Enable every per-CPU counter. A pinned counter that finds no free hardware
 * counter goes to ERROR state: the counter is then stopped again and EBUSY
 * returned.
 */
static int pmc_perfmon_start(struct pmc_perfmon_ctr *ctr)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (!ctr->events[cpu])
			continue;
		pmc_cpu_settle(cpu);
		perf_event_enable(ctr->events[cpu]);
	}
	ctr->running = true;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (ctr->events[cpu] &&
		    READ_ONCE(ctr->events[cpu]->state) == PERF_EVENT_STATE_ERROR) {
			pr_debug("perfmon: no free counter on cpu %u\n", cpu);
			pmc_perfmon_stop(ctr);
			return -EBUSY;
		}
	}
	return 0;
}

/* PMIOSETUP: take the writer slot, stop, reset and reprogram counter N. */
static long pmc_perfmon_setup(struct pmc_file *pf, void __user *arg)
{
	struct pmc_perfmon_ctr *ctr;
	struct pmc_sec_caller sc;
	struct pmc p;
	int ret;

	if (copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	if (!(pf->file->f_mode & FMODE_WRITE))
		return -EPERM;
	if (!pmc_perfmon_ncounters())
		return -ENXIO;
	if (p.pmc_num < 0 || p.pmc_num >= pmc_perfmon_ncounters())
		return -EINVAL;
	if (p.pmc_flags & ~PMC_PERFMON_FLAGS)
		return -EINVAL;
	/* A system-scope PMC's rules, kernel-mode counting included. */
	pmc_sec_caller_get(&sc);
	ret = pmc_sec_allocate(&sc, PMC_MODE_SC, p.pmc_flags & PMCF_OS);
	if (ret)
		return ret;
	/* As the original, the kernel's own flags are silently dropped. */
	p.pmc_flags &= ~PMCF_SYS_FLAGS;

	mutex_lock(&pmc_perfmon_lock);
	ret = -EBUSY;
	if (pmc_perfmon.writer && pmc_perfmon.writer != pf)
		goto out;
	ctr = &pmc_perfmon.ctr[p.pmc_num];
	pmc_perfmon_free(ctr);
	ret = pmc_perfmon_create(ctr, &p);
	if (ret)
		goto out;
	pmc_perfmon.writer = pf;
	pf->perfmon_writer = true;
out:
	mutex_unlock(&pmc_perfmon_lock);
	return ret;
}

/* Look up counter @num for an op; -EINVAL for a bad number. */
static int pmc_perfmon_check_num(s32 num)
{
	if (!pmc_perfmon_ncounters())
		return -ENXIO;
	if (num < 0 || num >= pmc_perfmon_ncounters())
		return -EINVAL;
	return 0;
}

/* PMIOSTART, PMIOSTOP, PMIORESET: the writer's ops on a configured counter. */
static long pmc_perfmon_control(struct pmc_file *pf, unsigned int cmd,
				void __user *arg)
{
	struct pmc_perfmon_ctr *ctr;
	s32 num;
	int ret;

	if (copy_from_user(&num, arg, sizeof(num)))
		return -EFAULT;
	if (!(pf->file->f_mode & FMODE_WRITE))
		return -EPERM;
	ret = pmc_perfmon_check_num(num);
	if (ret)
		return ret;

	mutex_lock(&pmc_perfmon_lock);
	ctr = &pmc_perfmon.ctr[num];
	ret = -EBUSY;
	if (pmc_perfmon.writer != pf || !ctr->configured)
		goto out;
	ret = 0;
	switch (cmd) {
	case PMIOSTART:
		if (!ctr->running)
			ret = pmc_perfmon_start(ctr);
		break;
	case PMIOSTOP:
		if (ctr->running)
			pmc_perfmon_stop(ctr);
		break;
	case PMIORESET:
		ctr->offset = pmc_perfmon_sum(ctr);
		break;
	}
out:
	mutex_unlock(&pmc_perfmon_lock);
	return ret;
}

/* PMIOGET: the setup of a configured counter; any opener. */
static long pmc_perfmon_get(void __user *arg)
{
	struct pmc p;
	int ret;

	if (copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	ret = pmc_perfmon_check_num(p.pmc_num);
	if (ret)
		return ret;

	mutex_lock(&pmc_perfmon_lock);
	ret = -EBUSY;
	if (pmc_perfmon.ctr[p.pmc_num].configured) {
		p.pmc_val = pmc_perfmon.ctr[p.pmc_num].val;
		ret = 0;
	}
	mutex_unlock(&pmc_perfmon_lock);
	if (!ret && copy_to_user(arg, &p, sizeof(p)))
		ret = -EFAULT;
	return ret;
}

/*
 * PMIOREAD: the count since the last setup or reset, summed over the CPUs.
 * Any opener with the privilege of system-scope PMCs: the value describes
 * the whole system.
 */
static long pmc_perfmon_read(void __user *arg)
{
	struct pmc_data d;
	int ret;

	if (copy_from_user(&d, arg, sizeof(d)))
		return -EFAULT;
	ret = pmc_perfmon_check_num(d.pmcd_num);
	if (ret)
		return ret;
	if (!pmc_perfmon_privileged())
		return -EPERM;

	mutex_lock(&pmc_perfmon_lock);
	ret = -EBUSY;
	if (pmc_perfmon.ctr[d.pmcd_num].configured) {
		struct pmc_perfmon_ctr *ctr = &pmc_perfmon.ctr[d.pmcd_num];

		d.pmcd_value = pmc_perfmon_sum(ctr) - ctr->offset;
		ret = 0;
	}
	mutex_unlock(&pmc_perfmon_lock);
	d.pmcd_pad = 0;
	if (!ret && copy_to_user(arg, &d, sizeof(d)))
		ret = -EFAULT;
	return ret;
}

/* PMIOTSTAMP: the TSC and its rate in MHz; ENOTTY where the rate is unknown. */
static long pmc_perfmon_tstamp(void __user *arg)
{
	struct pmc_tstamp ts = { 0 };
	unsigned long khz = pmc_arch_tsc_khz();

	if (!khz)
		return -ENOTTY;
	ts.pmct_rate = DIV_ROUND_CLOSEST(khz, 1000);
	ts.pmct_value = pmc_arch_read_tsc();
	if (copy_to_user(arg, &ts, sizeof(ts)))
		return -EFAULT;
	return 0;
}

long pmc_perfmon_ioctl(struct pmc_file *pf, unsigned int cmd, void __user *arg)
{
	switch (cmd) {
	case PMIOSETUP:
		return pmc_perfmon_setup(pf, arg);
	case PMIOSTART:
	case PMIOSTOP:
	case PMIORESET:
		return pmc_perfmon_control(pf, cmd, arg);
	case PMIOGET:
		return pmc_perfmon_get(arg);
	case PMIOREAD:
		return pmc_perfmon_read(arg);
	case PMIOTSTAMP:
		return pmc_perfmon_tstamp(arg);
	}
	return -ENOTTY;
}

int pmc_perfmon_open(struct pmc_file *pf)
{
	return 0;
}

/* The writer's file is closing: stop and free every counter (perfmon_fini). */
void pmc_perfmon_release(struct pmc_file *pf)
{
	unsigned int i;

	if (!pf->perfmon_writer)
		return;
	mutex_lock(&pmc_perfmon_lock);
	for (i = 0; i < PMC_PERFMON_MAX; i++)
		pmc_perfmon_free(&pmc_perfmon.ctr[i]);
	pmc_perfmon.writer = NULL;
	pf->perfmon_writer = false;
	mutex_unlock(&pmc_perfmon_lock);
}
