// SPDX-License-Identifier: GPL-2.0
/*
 * arch/arm64/pmu.c - arm64 capability discovery from the PMU the kernel
 * registered (the arm_pmu behind PERF_TYPE_HARDWARE: its counters, the
 * PMUv3 version, 64-bit event counters from PMUv3p5), FreeBSD's ARMV8
 * class, raw event validation, the counter number user space reads
 * (GETMSR), and the generic timer's virtual count (CNTVCT_EL0) as the TSC
 * class.
 *
 * As on x86 the driver never programs PMU registers: perf's armv8_pmuv3
 * driver does, for the kernel counters the core creates. On Debian's arm64
 * kernels (no CONFIG_ARM64_PSEUDO_NMI) perf calls the core's overflow
 * handler from the PMU's ordinary interrupt, hard IRQ context, where x86
 * calls it from NMI; the functions here that the overflow path uses are
 * safe in both.
 */
#include <pmc/hwpmc.h>

#include "arch/pmc_arch.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/perf/arm_pmu.h>
#include <asm/arch_timer.h>
#include <asm/cpufeature.h>
#include <asm/cputype.h>
#include <asm/sysreg.h>

/* PMUv3's event number: 10 bits in PMUv3 (v8.0), 16 bits from PMUv3p1. */
#define PMC_ARM64_EVENT_V3	0x3ffULL
#define PMC_ARM64_EVENT_V3P1	0xffffULL

/* PMSELR_EL0 / PMCNTENSET_EL0 number of the cycle counter (PMCCNTR_EL0). */
#define PMC_ARM64_CYCLE_COUNTER	31
/* perf's arm_pmu index of the cycle counter; event counter n is n + 1. */
#define PMC_ARM64_IDX_CYCLE	0

/*
 * The event counters are 32 bits wide unless an event asks perf for a long
 * one (attr.config1 bit 0): then PMUv3p5 counts in one 64-bit counter,
 * older PMUs chain two. The driver's counters are plain ones.
 */
#define PMC_ARM64_WIDTH		32

/* MIDR_EL1 part numbers of two of the cores hwpmc has a CPU type for. */
#define PMC_ARM64_PART_A57	0xd07
#define PMC_ARM64_PART_A76	0xd0b

/* PMUv3 has no edge, threshold, invert or unit-mask fields. */
#define PMC_ARM64_CAPS		(PMC_CAP_INTERRUPT | PMC_CAP_USER | \
				 PMC_CAP_SYSTEM | PMC_CAP_READ | PMC_CAP_WRITE)

/* ID_AA64DFR0_EL1.PMUVer of the PMU found at load; read-only afterwards. */
static u32 pmc_arm64_pmuver;

/*
 * hwpmc names three ARMv8 cores; any other core gets the Cortex-A53 type:
 * the ARMV8 class's events are PMUv3's common (architectural) events, the
 * same on every core, and the CPUID string (MIDR_EL1) tells cores apart.
 */
static u32 pmc_arm64_cputype(u32 midr)
{
	if (MIDR_IMPLEMENTOR(midr) == ARM_CPU_IMP_ARM) {
		switch (MIDR_PARTNUM(midr)) {
		case PMC_ARM64_PART_A57:
			return PMC_CPU_ARMV8_CORTEX_A57;
		case PMC_ARM64_PART_A76:
			return PMC_CPU_ARMV8_CORTEX_A76;
		}
	}
	return PMC_CPU_ARMV8_CORTEX_A53;
}

/*
 * The PMU perf counts PERF_TYPE_HARDWARE events with: make a disabled
 * cycles counter on one CPU and look at the PMU that took it. On arm64
 * that is an arm_pmu (armv8_pmuv3); a PMU of another kind is not ours to
 * describe. Returns the number of counters (event counters and the cycle
 * counter) and sets pmc_arm64_pmuver, or returns 0. Process context.
 */
static u32 pmc_arm64_probe_pmu(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.size = sizeof(attr),
		.disabled = 1,
	};
	struct perf_event *event;
	struct arm_pmu *armpmu;
	u32 num = 0;
	int cpu;

	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	event = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	cpus_read_unlock();
	if (IS_ERR(event))
		return 0;
	/* perf_hw_context: the CPU's own PMU, which arm_pmu registers. */
	if (event->pmu->task_ctx_nr == perf_hw_context) {
		armpmu = to_arm_pmu(event->pmu);
		if (armpmu->pmuver > 0 &&
		    armpmu->pmuver != ID_AA64DFR0_EL1_PMUVer_IMP_DEF &&
		    armpmu->num_events > 0 &&
		    armpmu->num_events <= ARMV8_PMU_MAX_COUNTERS) {
			/* GETCPUINFO reports them: the class rows, pm_perfmon_version. */
			pmc_arm64_pmuver = armpmu->pmuver;
			num = armpmu->num_events;
		}
	}
	perf_event_release_kernel(event);
	return num;
}

void pmc_arch_init(struct pmc_arch_info *info)
{
	u32 midr = read_cpuid_id();
	u32 num;

	memset(info, 0, sizeof(*info));
	info->cputype = PMC_CPU_GENERIC;
	/* The generic timer is architectural: always there. */
	info->has_tsc = true;
	/* Linux perf's and FreeBSD's arm64 CPUID string: MIDR_EL1. */
	snprintf(info->cpuid, sizeof(info->cpuid), "0x%016llx", (u64)midr);

	pmc_arm64_pmuver = 0;
	num = pmc_arm64_probe_pmu();
	if (num) {
		info->cputype = pmc_arm64_cputype(midr);
		info->perfmon_version = pmc_arm64_pmuver;
		pmc_arch_add_class(info, PMC_CLASS_ARMV8, PMC_ARM64_CAPS,
				   PMC_ARM64_WIDTH, num);
	}
	/*
	 * Without a PMU there is no hardware class. (The x86 test PMU is not
	 * built for arm64: QEMU's PMUv3 is a real one.)
	 */
}

/* Nothing to undo: no reference is held. Process context, at unload. */
void pmc_arch_exit(void)
{
}

const struct pmc_arch_class *pmc_arch_general_class(const struct pmc_arch_info *info)
{
	unsigned int i;

	for (i = 0; i < info->nclasses; i++)
		if (info->classes[i].class == PMC_CLASS_ARMV8)
			return &info->classes[i];
	return NULL;
}

/*
 * perfmon(4) on PMUv3: the event number is PMEVTYPER's; unit and counter
 * masks, edge and invert do not exist there. Any context.
 */
int pmc_arch_perfmon_config(u32 event, u32 unit, u32 mask, bool edge,
			    bool inv, u64 *config)
{
	if (unit || mask || edge || inv)
		return -EINVAL;
	*config = event;
	return pmc_arch_validate_raw(PMC_CLASS_ARMV8, *config);
}

/*
 * A raw ARMV8 encoding is PMEVTYPER's event number alone: the exception
 * level filters are the driver's (USR/SYS), and PMUv3 has nothing else.
 * Any context.
 */
int pmc_arch_validate_raw(u32 pmc_class, u64 config)
{
	u64 allowed = PMC_ARM64_EVENT_V3P1;

	if (pmc_class != PMC_CLASS_ARMV8)
		return -EINVAL;
	if (pmc_arm64_pmuver == ID_AA64DFR0_EL1_PMUVer_IMP)
		allowed = PMC_ARM64_EVENT_V3;
	return (config & ~allowed) ? -EINVAL : 0;
}

/*
 * The counter number user space reads @event's count with: n for event
 * counter n (PMSELR_EL0 = n, then PMXEVCNTR_EL0, or PMEVCNTR<n>_EL0), 31
 * for the cycle counter (PMCCNTR_EL0). It is perf's user page index minus
 * one, as x86's RDPMC index is. A chained (two-counter) event has no one
 * counter to read: -ENOENT. Caller has preemption disabled and @event is
 * running on this CPU.
 */
int pmc_arch_rdpmc_index(struct perf_event *event)
{
	int idx = event->hw.idx;

	if (idx < 0 || idx > ARMV8_PMU_MAX_COUNTERS)
		return -ENOENT;
	if (idx == PMC_ARM64_IDX_CYCLE)
		return PMC_ARM64_CYCLE_COUNTER;
	if ((event->hw.flags & ARMPMU_EVT_64BIT) &&
	    pmc_arm64_pmuver < ID_AA64DFR0_EL1_PMUVer_V3P5)
		return -ENOENT;
	return idx - 1;
}

/*
 * EL0 reads of a thread's counters, the way perf's own mmap self-read gets
 * them: the event's "rdpmc" format bit (config1 bit 1) makes armv8_pmuv3
 * give a counter of the thread's task context user access (PMUSERENR_EL0
 * EN/CR, set at each PMU enable while kernel.perf_user_access is 1) and
 * makes its event_idx() name the counter; with perf_user_access 0 the bit
 * is accepted and event_idx() is 0, so the page says SYSCALL. The overflow
 * interrupt is an ordinary IRQ unless the kernel masks IRQs by priority
 * (pseudo-NMI): there perf_event_update_userpage() runs in NMI, where the
 * page's raw spinlock cannot be taken, and user reads are refused. The
 * counters are read at the class's 32 bits: the event counters wrap there,
 * and perf sets the 64-bit cycle counter's top half to ones so that it
 * interrupts at the same point (perf's pmc_width is 32 for both).
 */
#define PMC_ARM64_CONFIG1_LONG	BIT_ULL(0)
#define PMC_ARM64_CONFIG1_RDPMC	BIT_ULL(1)

/*
 * A "long" event (a raw encoding's config1 bit 0) is 64 bits wide, not the
 * class's 32: it stays a system-call read.
 */
bool pmc_arch_user_read(struct perf_event_attr *attr)
{
	if (!pmc_arm64_pmuver || system_uses_irq_prio_masking())
		return false;
	if (!attr)
		return true;
	if (attr->config1 & PMC_ARM64_CONFIG1_LONG)
		return false;
	attr->config1 |= PMC_ARM64_CONFIG1_RDPMC;
	return true;
}

/*
 * The TSC class on arm64: the generic timer's count as the kernel reads it
 * (CNTVCT_EL0 in a kernel at EL1, what user space reads with
 * "mrs cntvct_el0"; the kernel's accessor also applies the timer errata
 * workarounds). Any context, hard IRQ and NMI included.
 */
u64 pmc_arch_read_tsc(void)
{
	return arch_timer_read_counter();
}

/* CNTFRQ_EL0, the timer's frequency, in kHz. */
unsigned long pmc_arch_tsc_khz(void)
{
	return arch_timer_get_cntfrq() / 1000;
}
