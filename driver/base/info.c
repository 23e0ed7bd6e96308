// SPDX-License-Identifier: GPL-2.0
/*
 * info.c - the machine description (classes and rows) and the informational
 * ops: GETMODULEVERSION, GETCPUINFO, GETDRIVERSTATS, GETDYNEVENTINFO.
 *
 * pmc_machine is written once by pmc_machine_init() at load and read-only
 * afterwards, so readers need no lock. Ops run in process context.
 */
#include "pmc_base.h"
#include "debug/pmc_debug.h"

#include <linux/kernel.h>
#include <linux/cpumask.h>
#include <linux/perf_event.h>
#include <linux/uaccess.h>

struct pmc_machine pmc_machine;

/* Capabilities of the SOFT class: Linux software events count user and kernel. */
#define PMC_SOFT_CAPS	(PMC_CAP_INTERRUPT | PMC_CAP_USER | PMC_CAP_SYSTEM | \
			 PMC_CAP_READ | PMC_CAP_WRITE)
#define PMC_TSC_CAPS	(PMC_CAP_READ | PMC_CAP_SYSWIDE)

static const char *pmc_class_name(u32 pmc_class)
{
	switch (pmc_class) {
	case PMC_CLASS_TSC:
		return "TSC";
	case PMC_CLASS_K8:
		return "K8";
	case PMC_CLASS_IAF:
		return "IAF";
	case PMC_CLASS_IAP:
		return "IAP";
	case PMC_CLASS_SOFT:
		return "SOFT";
	case PMC_CLASS_ARMV8:
		return "ARMV8";
	}
	return "UNKNOWN";
}

static void pmc_add_class(u32 pmc_class, u32 caps, u32 width, u32 num)
{
	struct pmc_classdesc *cd;

	if (!num || pmc_machine.nclasses >= PMC_CLASS_MAX)
		return;
	cd = &pmc_machine.classes[pmc_machine.nclasses++];
	cd->class = pmc_class;
	cd->caps = caps;
	cd->width = width;
	cd->num = num;
	cd->first_row = pmc_machine.nrows;
	cd->name = pmc_class_name(pmc_class);
	pmc_machine.nrows += num;
}

/* hwpmc's "[class/npmc/capabilities]" announcement, one line per class. */
static void pmc_announce_class(const struct pmc_classdesc *cd)
{
	static const char * const bits[] = {
		"INT", "USR", "SYS", "EDG", "THR", "REA", "WRI", "INV",
		"QUA", "PRC", "TAG", "CSC", "SYW", "DMW",
	};
	char buf[96];
	int len = 0, i;
	bool first = true;

	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		if (!(cd->caps & BIT(i)))
			continue;
		len += scnprintf(buf + len, sizeof(buf) - len, "%s%s",
				 first ? "" : ",", bits[i]);
		first = false;
	}
	pr_info("%s/%u/%u/0x%x<%s>\n", cd->name, cd->num, cd->width, cd->caps,
		buf);
	pmc_dbg(PMC_DBG_MD, PMC_DBG_INIT, cd->class, 0, -1, cd->num);
}

int pmc_machine_init(void)
{
	const struct pmc_arch_info *arch = &pmc_machine.arch;
	unsigned int i;

	if (arch->has_tsc)
		pmc_add_class(PMC_CLASS_TSC, PMC_TSC_CAPS, 64, 1);
	for (i = 0; i < arch->nclasses; i++)
		pmc_add_class(arch->classes[i].class, arch->classes[i].caps,
			      arch->classes[i].width, arch->classes[i].num);
	pmc_add_class(PMC_CLASS_SOFT, PMC_SOFT_CAPS, 64, pmc_softevents);

	if (pmc_machine.nrows > 256) {
		pr_err("%u rows exceed the 256 a PMC id can name\n",
		       pmc_machine.nrows);
		return -EINVAL;
	}
	for (i = 0; i < pmc_machine.nclasses; i++)
		pmc_announce_class(&pmc_machine.classes[i]);
	return 0;
}

const struct pmc_classdesc *pmc_class_of_row(unsigned int row)
{
	unsigned int i;

	for (i = 0; i < pmc_machine.nclasses; i++) {
		const struct pmc_classdesc *cd = &pmc_machine.classes[i];

		if (row >= cd->first_row && row < cd->first_row + cd->num)
			return cd;
	}
	return NULL;
}

const struct pmc_classdesc *pmc_class_find(u32 pmc_class)
{
	unsigned int i;

	for (i = 0; i < pmc_machine.nclasses; i++)
		if (pmc_machine.classes[i].class == pmc_class)
			return &pmc_machine.classes[i];
	return NULL;
}

long pmc_op_getmoduleversion(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_getmoduleversion v;

	if (copy_from_user(&v, arg, sizeof(v)))
		return -EFAULT;
	/* A client newer (major.minor) than the module is refused. */
	if ((v.pm_version & 0xffff0000) > (PMC_VERSION & 0xffff0000))
		return -PMC_EPROGMISMATCH;
	v.pm_version = PMC_VERSION;
	v.pm_pad = 0;
	if (copy_to_user(arg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

long pmc_op_getcpuinfo(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_getcpuinfo ci;
	unsigned int i;

	memset(&ci, 0, sizeof(ci));
	ci.pm_cputype = pmc_machine.arch.cputype;
	ci.pm_ncpu = nr_cpu_ids;
	ci.pm_npmc = pmc_machine.nrows;
	ci.pm_nclass = pmc_machine.nclasses;
	for (i = 0; i < pmc_machine.nclasses; i++) {
		ci.pm_classes[i].pm_class = pmc_machine.classes[i].class;
		ci.pm_classes[i].pm_caps = pmc_machine.classes[i].caps;
		ci.pm_classes[i].pm_width = pmc_machine.classes[i].width;
		ci.pm_classes[i].pm_num = pmc_machine.classes[i].num;
	}
	strscpy(ci.pm_cpuid, pmc_machine.arch.cpuid, sizeof(ci.pm_cpuid));
	ci.pm_perfmon_version = pmc_machine.arch.perfmon_version;
	if (copy_to_user(arg, &ci, sizeof(ci)))
		return -EFAULT;
	return 0;
}

long pmc_op_getdriverstats(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_getdriverstats ds;

	memset(&ds, 0, sizeof(ds));
	ds.pm_intr_ignored = atomic64_read(&pmc_stats.intr_ignored);
	ds.pm_intr_processed = atomic64_read(&pmc_stats.intr_processed);
	ds.pm_intr_bufferfull = atomic64_read(&pmc_stats.intr_bufferfull);
	ds.pm_syscalls = atomic64_read(&pmc_stats.syscalls);
	ds.pm_syscall_errors = atomic64_read(&pmc_stats.syscall_errors);
	ds.pm_buffer_requests = atomic64_read(&pmc_stats.buffer_requests);
	ds.pm_buffer_requests_failed =
		atomic64_read(&pmc_stats.buffer_requests_failed);
	ds.pm_log_sweeps = atomic64_read(&pmc_stats.log_sweeps);
	ds.pm_ring_dropped = atomic64_read(&pmc_stats.ring_dropped);
	ds.pm_log_buffer_bytes = atomic64_read(&pmc_stats.log_buffer_bytes);
	if (copy_to_user(arg, &ds, sizeof(ds)))
		return -EFAULT;
	return 0;
}

/* GETDYNEVENTINFO: the named events of a class (SOFT and TSC). */
long pmc_op_getdyneventinfo(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_getdyneventinfo gi;
	struct pmc_dyn_event_descr __user *uev;
	struct pmc_dyn_event_descr ev;
	unsigned int n, i;

	if (copy_from_user(&gi, arg, sizeof(gi)))
		return -EFAULT;
	if (!pmc_class_find(gi.pm_class))
		return -EINVAL;

	uev = u64_to_user_ptr(gi.pm_events);
	switch (gi.pm_class) {
	case PMC_CLASS_SOFT:
		n = pmc_soft_event_count();
		break;
	case PMC_CLASS_TSC:
		n = 1;
		break;
	default:
		n = 0;	/* hardware events are named by libpfm4 in user space */
		break;
	}

	for (i = 0; i < n && i < gi.pm_nevent; i++) {
		memset(&ev, 0, sizeof(ev));
		if (gi.pm_class == PMC_CLASS_SOFT) {
			const struct pmc_soft_event *se = pmc_soft_event_at(i);

			strscpy(ev.pm_ev_name, se->name, sizeof(ev.pm_ev_name));
			ev.pm_ev_code = PMC_EV_SOFT_FIRST + se->config;
			ev.pm_type = PERF_TYPE_SOFTWARE;
			ev.pm_config = se->config;
		} else {
			strscpy(ev.pm_ev_name, "TSC", sizeof(ev.pm_ev_name));
			ev.pm_ev_code = PMC_EV_TSC_TSC;
		}
		if (copy_to_user(&uev[i], &ev, sizeof(ev)))
			return -EFAULT;
	}
	gi.pm_nevent = n;
	if (copy_to_user(arg, &gi, sizeof(gi)))
		return -EFAULT;
	return 0;
}
