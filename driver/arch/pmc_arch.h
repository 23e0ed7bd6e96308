/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_arch.h - what the machine-independent driver asks of the architecture
 * layer (driver/arch/x86/, driver/arch/arm64/): hardware counter discovery, raw event-select
 * validation, RDPMC indices and the timestamp counter.
 */
#ifndef _PMC_ARCH_H
#define _PMC_ARCH_H

#include <linux/types.h>

struct perf_event;
struct perf_event_attr;
struct pt_regs;

/* One hardware class the CPU reports (IAP, IAF or K8). */
struct pmc_arch_class {
	u32 class;		/* enum pmc_class */
	u32 caps;		/* PMC_CAP_* */
	u32 width;		/* counter width in bits */
	u32 num;		/* counters per CPU */
};

#define PMC_ARCH_MAX_CLASSES	2

struct pmc_arch_info {
	u32 cputype;			/* enum pmc_cputype */
	u32 perfmon_version;		/* Intel architectural perfmon version */
	bool has_tsc;
	bool pmu_from_perf;		/* counters described by a perf PMU, not CPUID */
	unsigned int nclasses;
	struct pmc_arch_class classes[PMC_ARCH_MAX_CLASSES];
	char cpuid[64];			/* PMC_CPUID_LEN: "GenuineIntel-6-85-7" */
};

/*
 * Add a class of @num counters to @info (none if @num is 0 or @info is
 * full). For the arch layers' pmc_arch_init(); process context.
 */
static inline void pmc_arch_add_class(struct pmc_arch_info *info,
				      u32 pmc_class, u32 caps, u32 width,
				      u32 num)
{
	struct pmc_arch_class *c;

	if (!num || info->nclasses >= PMC_ARCH_MAX_CLASSES)
		return;
	c = &info->classes[info->nclasses++];
	c->class = pmc_class;
	c->caps = caps;
	c->width = width;
	c->num = num;
}

/* Process context, at module load. Fills @info; never fails. */
void pmc_arch_init(struct pmc_arch_info *info);
/* Process context, at module unload. */
void pmc_arch_exit(void);

/*
 * Check a raw event-select encoding (perf config of PERF_TYPE_RAW) for a
 * hardware class: only the event, unit mask, edge, invert and counter-mask
 * fields may be set (USR/OS/INT/EN belong to the driver). Returns 0 or
 * -EINVAL. Any context.
 */
int pmc_arch_validate_raw(u32 pmc_class, u64 config);

/*
 * The raw encoding (perf config of PERF_TYPE_RAW) of a perfmon(4) counter:
 * struct pmc's event, unit mask, counter mask, edge and invert fields, which
 * are PERFEVTSEL's on x86. On arm64 only the PMUv3 event number applies; any
 * other field set is -EINVAL. Returns 0 or -EINVAL. Any context.
 */
int pmc_arch_perfmon_config(u32 event, u32 unit, u32 mask, bool edge,
			    bool inv, u64 *config);

/*
 * RDPMC index of a hardware counter event active on this CPU, or -ENOENT.
 * Caller has preemption disabled and @event is running on this CPU.
 */
int pmc_arch_rdpmc_index(struct perf_event *event);

/*
 * User-mode reads of a thread's hardware counters (the self-read page's
 * RDPMC entries). Returns true where this architecture supports them: perf
 * lets the thread read a counter that @attr marks, at its class's width
 * (sign-extended from there, perf's pmc_width), and perf's PMU driver calls
 * perf_event_update_userpage() from process or hard IRQ context, never
 * NMI, each time it gives an event a counter, reprograms it (start,
 * overflow) or takes it away. If so and @attr is not NULL, marks @attr, a
 * hardware counter that will follow one thread, as readable by that
 * thread. Returns false, leaving @attr alone, elsewhere or for an @attr
 * that cannot be read that way. Process context.
 */
bool pmc_arch_user_read(struct perf_event_attr *attr);

/* TSC value; any context, NMI included. 0 where there is no TSC. */
u64 pmc_arch_read_tsc(void);
/* TSC rate in kHz, 0 if unknown. */
unsigned long pmc_arch_tsc_khz(void);

/*
 * The first general-purpose hardware class (IAP or K8), or NULL where the
 * CPU has no PMU. What perfmon(4) counts with. Any context.
 */
const struct pmc_arch_class *pmc_arch_general_class(const struct pmc_arch_info *info);

/*
 * The stack walks of a sample, run inside the overflow handler (NMI on x86,
 * hard IRQ on arm64): no lock, no allocation, no fault. Each stores the
 * program counter of @regs and the return addresses above it, at most @max,
 * and returns how many it stored (>= 1).
 *
 * _kernel: @regs of the interrupted kernel code.
 * _user: @regs of user mode (the interrupted ones, or task_pt_regs(current)
 * when the sample hit the kernel).
 */
unsigned int pmc_arch_callchain_kernel(struct pt_regs *regs, u64 *pc,
				       unsigned int max);
unsigned int pmc_arch_callchain_user(struct pt_regs *regs, u64 *pc,
				     unsigned int max);

#endif /* _PMC_ARCH_H */
