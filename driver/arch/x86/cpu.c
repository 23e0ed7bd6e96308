// SPDX-License-Identifier: GPL-2.0
/*
 * arch/x86/cpu.c - x86 capability discovery from CPUID (architectural
 * perfmon version, general and fixed counters and their widths, AMD core
 * counters and PerfMonV2), raw event-select validation, RDPMC indices and the
 * TSC.
 *
 * The driver never programs PMU registers: these facts only size the rows of
 * the hardware classes and check what user space asks perf to count. Where
 * CPUID reports no PMU (a VM), a perf PMU that takes raw encodings and
 * describes its counters in sysfs (a test PMU loaded first) stands in for
 * one (pmc_x86_perf_pmu()).
 */
#include <pmc/hwpmc.h>

#include "arch/pmc_arch.h"

#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/perf_event.h>
#include <asm/processor.h>
#include <asm/cpufeature.h>
#include <asm/tsc.h>
#include <asm/msr.h>

/* Intel architectural perfmon: CPUID leaf 0xA. */
#define CPUID_ARCH_PERFMON	0x0a
/* AMD extended perfmon and debug: CPUID leaf 0x80000022 (PerfMonV2). */
#define CPUID_AMD_PERFMON_V2	0x80000022

/* PERFEVTSEL fields user space may set in a raw encoding. */
#define PMC_X86_EVSEL_EVENT	0x000000ffULL
#define PMC_X86_EVSEL_UMASK	0x0000ff00ULL
#define PMC_X86_EVSEL_EDGE	BIT_ULL(18)
#define PMC_X86_EVSEL_INV	BIT_ULL(23)
#define PMC_X86_EVSEL_CMASK	0xff000000ULL
#define PMC_X86_RAW_MASK	(PMC_X86_EVSEL_EVENT | PMC_X86_EVSEL_UMASK | \
				 PMC_X86_EVSEL_EDGE | PMC_X86_EVSEL_INV | \
				 PMC_X86_EVSEL_CMASK)
/* AMD's 12-bit event select keeps bits 11:8 in config bits 35:32. */
#define PMC_AMD_EVSEL_EVENT_HI	0x0000000f00000000ULL

#define PMC_X86_HW_CAPS		(PMC_CAP_INTERRUPT | PMC_CAP_USER | \
				 PMC_CAP_SYSTEM | PMC_CAP_EDGE | \
				 PMC_CAP_THRESHOLD | PMC_CAP_READ | \
				 PMC_CAP_WRITE | PMC_CAP_INVERT | \
				 PMC_CAP_QUALIFIER)
#define PMC_X86_FIXED_CAPS	(PMC_CAP_INTERRUPT | PMC_CAP_USER | \
				 PMC_CAP_SYSTEM | PMC_CAP_READ | PMC_CAP_WRITE)

static void pmc_x86_intel(struct pmc_arch_info *info)
{
	unsigned int eax, ebx, ecx, edx;
	u32 ngp, gpwidth, nfixed, fixwidth;

	if (boot_cpu_data.cpuid_level < CPUID_ARCH_PERFMON)
		return;
	cpuid(CPUID_ARCH_PERFMON, &eax, &ebx, &ecx, &edx);
	info->perfmon_version = eax & 0xff;
	if (!info->perfmon_version)
		return;

	ngp = (eax >> 8) & 0xff;
	gpwidth = (eax >> 16) & 0xff;
	nfixed = info->perfmon_version > 1 ? edx & 0x1f : 0;
	fixwidth = (edx >> 5) & 0xff;

	info->cputype = PMC_CPU_INTEL_CORE;
	pmc_arch_add_class(info, PMC_CLASS_IAP, PMC_X86_HW_CAPS, gpwidth, ngp);
	pmc_arch_add_class(info, PMC_CLASS_IAF, PMC_X86_FIXED_CAPS, fixwidth,
			   nfixed);
}

static void pmc_x86_amd(struct pmc_arch_info *info)
{
	u32 ncounters = 4;

	if (boot_cpu_has(X86_FEATURE_PERFCTR_CORE))
		ncounters = 6;
	if (boot_cpu_has(X86_FEATURE_PERFMON_V2) &&
	    boot_cpu_data.extended_cpuid_level >= CPUID_AMD_PERFMON_V2)
		ncounters = cpuid_ebx(CPUID_AMD_PERFMON_V2) & 0xf;

	/* A hypervisor that hides the PMU leaves the feature bits clear. */
	if (!boot_cpu_has(X86_FEATURE_ARCH_PERFMON) &&
	    !boot_cpu_has(X86_FEATURE_PERFCTR_CORE) &&
	    boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return;

	info->cputype = PMC_CPU_AMD_K8;
	pmc_arch_add_class(info, PMC_CLASS_K8, PMC_X86_HW_CAPS, 48, ncounters);
}

/* The module of the PMU described from perf (a reference is held), or NULL. */
static struct module *pmc_x86_perf_pmu_owner;

/*
 * A PMU's counters as its sysfs "caps" group says (num_counters,
 * counter_width): read through the PMU's own attribute, as sysfs would.
 * 0 if the PMU has no such attribute. Process context.
 */
static u32 pmc_x86_pmu_cap(struct pmu *pmu, const char *name, char *page)
{
	const struct attribute_group **grp;
	struct device_attribute *dattr;
	struct attribute **attr;
	u32 val;

	for (grp = pmu->attr_groups; grp && *grp; grp++) {
		if (!(*grp)->name || strcmp((*grp)->name, "caps"))
			continue;
		for (attr = (*grp)->attrs; attr && *attr; attr++) {
			if (strcmp((*attr)->name, name))
				continue;
			dattr = container_of(*attr, struct device_attribute, attr);
			if (!dattr->show || dattr->show(pmu->dev, dattr, page) <= 0)
				return 0;
			return kstrtou32(strim(page), 0, &val) ? 0 : val;
		}
	}
	return 0;
}

/*
 * No PMU in CPUID (a VM): ask perf which PMU takes raw event-select
 * encodings here, as perf(1) would, with a disabled probe counter of
 * PERF_TYPE_RAW. A PMU that takes them and describes its counters in its
 * sysfs caps (num_counters, counter_width) gives the general class of the
 * CPU's vendor (IAP on Intel, K8 otherwise); a reference on the PMU's
 * module keeps it until pmc_arch_exit(). Process context, at load.
 */
static void pmc_x86_perf_pmu(struct pmc_arch_info *info)
{
	bool intel = boot_cpu_data.x86_vendor == X86_VENDOR_INTEL;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.disabled = 1,
	};
	struct perf_event *probe;
	u32 ncounters, width;
	struct pmu *pmu;
	char *page;

	probe = perf_event_create_kernel_counter(&attr, raw_smp_processor_id(),
						 NULL, NULL, NULL);
	if (IS_ERR(probe))
		return;
	pmu = probe->pmu;
	page = (char *)get_zeroed_page(GFP_KERNEL);
	ncounters = page ? pmc_x86_pmu_cap(pmu, "num_counters", page) : 0;
	width = page ? pmc_x86_pmu_cap(pmu, "counter_width", page) : 0;
	free_page((unsigned long)page);
	if (ncounters && width && try_module_get(pmu->module)) {
		pmc_x86_perf_pmu_owner = pmu->module;
		info->pmu_from_perf = true;
		info->cputype = intel ? PMC_CPU_INTEL_CORE : PMC_CPU_AMD_K8;
		pmc_arch_add_class(info, intel ? PMC_CLASS_IAP : PMC_CLASS_K8,
				   PMC_X86_HW_CAPS, width, ncounters);
		pr_info("no hardware PMU in CPUID: using perf PMU %s (%u counters of %u bits)\n",
			pmu->name, ncounters, width);
	}
	perf_event_release_kernel(probe);
}

void pmc_arch_init(struct pmc_arch_info *info)
{
	struct cpuinfo_x86 *c = &boot_cpu_data;

	memset(info, 0, sizeof(*info));
	info->cputype = PMC_CPU_GENERIC;
	info->has_tsc = boot_cpu_has(X86_FEATURE_TSC);
	/* CPUID leaf 0's vendor string is 12 characters: bound it for gcc's W=1. */
	snprintf(info->cpuid, sizeof(info->cpuid), "%.12s-%u-%u-%u",
		 c->x86_vendor_id[0] ? c->x86_vendor_id : "unknown",
		 c->x86, c->x86_model, c->x86_stepping);

	switch (c->x86_vendor) {
	case X86_VENDOR_INTEL:
		pmc_x86_intel(info);
		break;
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		pmc_x86_amd(info);
		break;
	default:
		break;
	}

	if (!info->nclasses)
		pmc_x86_perf_pmu(info);
}

void pmc_arch_exit(void)
{
	module_put(pmc_x86_perf_pmu_owner);
	pmc_x86_perf_pmu_owner = NULL;
}

const struct pmc_arch_class *pmc_arch_general_class(const struct pmc_arch_info *info)
{
	unsigned int i;

	for (i = 0; i < info->nclasses; i++)
		if (info->classes[i].class == PMC_CLASS_IAP ||
		    info->classes[i].class == PMC_CLASS_K8)
			return &info->classes[i];
	return NULL;
}

/* PERFEVTSEL from perfmon(4)'s struct pmc fields. Any context. */
int pmc_arch_perfmon_config(u32 event, u32 unit, u32 mask, bool edge,
			    bool inv, u64 *config)
{
	if (event > 0xff || unit > 0xff || mask > 0xff)
		return -EINVAL;
	*config = FIELD_PREP(PMC_X86_EVSEL_EVENT, event) |
		  FIELD_PREP(PMC_X86_EVSEL_UMASK, unit) |
		  FIELD_PREP(PMC_X86_EVSEL_CMASK, mask) |
		  (edge ? PMC_X86_EVSEL_EDGE : 0) |
		  (inv ? PMC_X86_EVSEL_INV : 0);
	return 0;
}

int pmc_arch_validate_raw(u32 pmc_class, u64 config)
{
	u64 allowed = PMC_X86_RAW_MASK;

	if (pmc_class == PMC_CLASS_K8)
		allowed |= PMC_AMD_EVSEL_EVENT_HI;
	else if (pmc_class != PMC_CLASS_IAP)
		return -EINVAL;
	return (config & ~allowed) ? -EINVAL : 0;
}

int pmc_arch_rdpmc_index(struct perf_event *event)
{
	/* perf keeps the RDPMC index of an active hardware event here. */
	if (!event->hw.event_base_rdpmc && event->hw.idx < 0)
		return -ENOENT;
	return event->hw.event_base_rdpmc;
}

/*
 * Not on x86 (the self-read page's RDPMC entries are written on arm64
 * only): perf calls perf_event_update_userpage() from the NMI handler
 * there, where the page's raw spinlock cannot be taken, and RDPMC needs
 * CR4.PCE, which perf sets only for an mm with a perf mmap. QEMU's TCG
 * has no RDPMC to test it with (docs/selfread.md).
 */
bool pmc_arch_user_read(struct perf_event_attr *attr)
{
	return false;
}

u64 pmc_arch_read_tsc(void)
{
	return boot_cpu_has(X86_FEATURE_TSC) ? rdtsc() : 0;
}

unsigned long pmc_arch_tsc_khz(void)
{
	return boot_cpu_has(X86_FEATURE_TSC) ? tsc_khz : 0;
}
