// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcdev_event.c - the one event vocabulary of the user-space libraries:
 * the name tables (perf's generic and software names, pmc(3)'s aliases,
 * illumos' PAPI names, the fixed-counter events) and the resolver that
 * turns a name into a PMC class and a perf descriptor. pmc(3)
 * (pmc_allocate, pmc_parse_spec) and libcpc (cpc_set_add_request) both ask
 * it, so every tool accepts the same names with the same privilege levels;
 * docs/events.md lists them.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>

#include "pmcdev.h"

#define PMCDEV_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define PMCDEV_HW_CACHE(cache, op, result) \
	((uint64_t)(cache) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))
#define PMCDEV_L1_READ_MISS(cache) \
	PMCDEV_HW_CACHE(PERF_COUNT_HW_CACHE_##cache, PERF_COUNT_HW_CACHE_OP_READ, \
			PERF_COUNT_HW_CACHE_RESULT_MISS)

/* ------------------------------------------------------------ names */

static int pmcdev_fold(int c)
{
	if (c == ' ' || c == '-' || c == '.')
		return '_';
	return tolower((unsigned char)c);
}

bool pmcdev_name_eqn(const char *a, const char *b, size_t blen)
{
	size_t i;

	for (i = 0; i < blen && b[i]; i++)
		if (pmcdev_fold(a[i]) != pmcdev_fold(b[i]))
			return false;
	return a[i] == '\0';
}

bool pmcdev_name_eq(const char *a, const char *b)
{
	return pmcdev_name_eqn(a, b, strlen(b));
}

/* perf's names (tools/perf), indexed by PERF_COUNT_HW_* / PERF_COUNT_SW_*. */
static const char *const pmcdev_hw_names[] = {
	"cpu-cycles", "instructions", "cache-references", "cache-misses",
	"branch-instructions", "branch-misses", "bus-cycles",
	"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
};

static const char *const pmcdev_soft_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults",
};

const char *pmcdev_hw_name(uint64_t config)
{
	return config < PMCDEV_ARRAY_SIZE(pmcdev_hw_names) ?
		pmcdev_hw_names[config] : NULL;
}

const char *pmcdev_soft_name(uint64_t config)
{
	return config < PMCDEV_ARRAY_SIZE(pmcdev_soft_names) ?
		pmcdev_soft_names[config] : NULL;
}

/*
 * illumos' PAPI names (generic_events(3CPC)) mapped to perf's generic
 * events, on the vendors whose Linux PMU driver implements them.
 */
#define PMCDEV_HW(event)	PERF_TYPE_HARDWARE, PERF_COUNT_HW_##event
/* A read miss or access of a cache: a perf cache event. */
#define PMCDEV_READ(cache, result) \
	PERF_TYPE_HW_CACHE, PMCDEV_HW_CACHE(PERF_COUNT_HW_CACHE_##cache, \
		PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_##result)
#define PMCDEV_ALL	PMCDEV_VENDOR_ALL
#define PMCDEV_AMD	PMCDEV_VENDOR_AMD
#define PMCDEV_INTEL	PMCDEV_VENDOR_INTEL

static const struct pmcdev_generic pmcdev_generics[] = {
	{ "PAPI_tot_cyc", PMCDEV_HW(CPU_CYCLES), PMCDEV_ALL, 1 },
	{ "PAPI_tot_ins", PMCDEV_HW(INSTRUCTIONS), PMCDEV_ALL, 0 },
	{ "PAPI_br_ins", PMCDEV_HW(BRANCH_INSTRUCTIONS), PMCDEV_ALL, -1 },
	{ "PAPI_br_msp", PMCDEV_HW(BRANCH_MISSES), PMCDEV_ALL, -1 },
	{ "PAPI_l1_dca", PMCDEV_READ(L1D, ACCESS), PMCDEV_ALL, -1 },
	{ "PAPI_l1_dcm", PMCDEV_READ(L1D, MISS), PMCDEV_ALL, -1 },
	{ "PAPI_l1_ldm", PMCDEV_READ(L1D, MISS), PMCDEV_ALL, -1 },
	{ "PAPI_l1_ica", PMCDEV_READ(L1I, ACCESS), PMCDEV_AMD, -1 },
	{ "PAPI_l1_icm", PMCDEV_READ(L1I, MISS), PMCDEV_ALL, -1 },
	{ "PAPI_l2_tca", PMCDEV_HW(CACHE_REFERENCES), PMCDEV_AMD, -1 },
	{ "PAPI_l2_tcm", PMCDEV_HW(CACHE_MISSES), PMCDEV_AMD, -1 },
	{ "PAPI_l3_tca", PMCDEV_HW(CACHE_REFERENCES), PMCDEV_INTEL, -1 },
	{ "PAPI_l3_tcm", PMCDEV_HW(CACHE_MISSES), PMCDEV_INTEL, -1 },
	{ "PAPI_tlb_dm", PMCDEV_READ(DTLB, MISS), PMCDEV_ALL, -1 },
	{ "PAPI_tlb_im", PMCDEV_READ(ITLB, MISS), PMCDEV_ALL, -1 },
	{ "PAPI_stl_icy", PMCDEV_HW(STALLED_CYCLES_FRONTEND), PMCDEV_AMD, -1 },
	{ "PAPI_res_stl", PMCDEV_HW(STALLED_CYCLES_BACKEND), PMCDEV_AMD, -1 },
};

const struct pmcdev_generic *pmcdev_generic(size_t i)
{
	return i < PMCDEV_ARRAY_SIZE(pmcdev_generics) ? &pmcdev_generics[i] :
		NULL;
}

/*
 * The Intel fixed counters' events, one per counter in counter order:
 * illumos' names (what libcpc lists), FreeBSD's (what pmc(3) lists), then
 * perf's spellings of the same.
 */
static const struct {
	const char *name;
	int counter;
	uint64_t config;
} pmcdev_fixed[] = {
	{ "instr_retired.any", 0, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cpu_clk_unhalted.thread", 1, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu_clk_unhalted.ref", 2, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "instr-retired.any", 0, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cpu-clk-unhalted.core", 1, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-clk-unhalted.ref", 2, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "instructions", 0, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cpu-cycles", 1, PERF_COUNT_HW_CPU_CYCLES },
	{ "ref-cycles", 2, PERF_COUNT_HW_REF_CPU_CYCLES },
};

const char *pmcdev_fixed_name(size_t i, int *counter, uint64_t *config)
{
	if (i >= PMCDEV_ARRAY_SIZE(pmcdev_fixed))
		return NULL;
	*counter = pmcdev_fixed[i].counter;
	*config = pmcdev_fixed[i].config;
	return pmcdev_fixed[i].name;
}

unsigned int pmcdev_vendor(uint32_t cputype)
{
	switch (cputype) {
	case PMC_CPU_INTEL_CORE:
		return PMCDEV_VENDOR_INTEL;
	case PMC_CPU_AMD_K8:
		return PMCDEV_VENDOR_AMD;
	default:
		return PMCDEV_VENDOR_ALL;
	}
}

int pmcdev_levels(uint32_t asked, uint32_t named, uint32_t *caps)
{
	const uint32_t levels = PMC_CAP_USER | PMC_CAP_SYSTEM;

	asked &= levels;
	named &= levels;
	if (asked && named && !(asked & named))
		return -1;
	*caps = asked && named ? asked & named : asked | named;
	return 0;
}

/* ------------------------------------------------------------ resolver */

static void pmcdev_set(struct pmcdev_event *e, uint32_t cls, uint32_t ev,
		       uint32_t type, uint64_t config)
{
	memset(e, 0, sizeof(*e));
	e->cls = cls;
	e->ev = ev;
	e->type = type;
	e->config = config;
	e->fixed = -1;
}

/* A perf generic hardware event (or cache event) on hardware class @cls. */
static void pmcdev_set_hw(struct pmcdev_event *e, uint32_t cls, uint32_t type,
			  uint64_t config)
{
	uint32_t ev = type == PERF_TYPE_HARDWARE ?
		PMC_EV_GENERIC_FIRST + (uint32_t)config : PMC_EV_RAW;

	pmcdev_set(e, cls, ev, type, config);
}

/* The fixed counter that counts generic hardware event @config, or -1. */
static int pmcdev_fixed_of(const struct pmcdev_mdesc *m, uint32_t type,
			   uint64_t config)
{
	size_t i;

	if (!m->has_iaf || type != PERF_TYPE_HARDWARE)
		return -1;
	for (i = 0; i < PMCDEV_NFIXED; i++)
		if (pmcdev_fixed[i].config == config)
			return pmcdev_fixed[i].counter;
	return -1;
}

/* The SOFT row of software event @config. */
static int pmcdev_set_soft(const struct pmcdev_mdesc *m, struct pmcdev_event *e,
			   uint64_t config)
{
	uint32_t i;

	for (i = 0; i < m->nsoft; i++) {
		if (m->soft[i].pm_type == PERF_TYPE_SOFTWARE &&
		    m->soft[i].pm_config == config) {
			pmcdev_set(e, PMC_CLASS_SOFT, m->soft[i].pm_ev_code,
				   PERF_TYPE_SOFTWARE, config);
			return 0;
		}
	}
	return EOPNOTSUPP;
}

static int pmcdev_find_soft(const struct pmcdev_mdesc *m, const char *name,
			    struct pmcdev_event *e)
{
	uint32_t i;

	for (i = 0; i < m->nsoft; i++) {
		if (pmcdev_name_eq(name, m->soft[i].pm_ev_name)) {
			pmcdev_set(e, PMC_CLASS_SOFT, m->soft[i].pm_ev_code,
				   m->soft[i].pm_type, m->soft[i].pm_config);
			return 0;
		}
	}
	return EINVAL;
}

static int pmcdev_set_tsc(const struct pmcdev_mdesc *m, struct pmcdev_event *e)
{
	if (!m->has_tsc)
		return EOPNOTSUPP;
	pmcdev_set(e, PMC_CLASS_TSC, PMC_EV_TSC_TSC, 0, 0);
	return 0;
}

/*
 * libpfm4's encoding of @name on hardware class @cls; with @any_class, its
 * "perf::" software events go to the SOFT class.
 */
static int pmcdev_set_pfm(const struct pmcdev_mdesc *m, uint32_t cls,
			  bool any_class, const char *name,
			  struct pmcdev_event *e)
{
	struct pmcdev_pfm_encoding enc;
	int err;

	err = pmcdev_pfm_encode(name, &enc);
	if (err)
		return err == ENOENT ? EINVAL : err;

	switch (enc.type) {
	case PERF_TYPE_RAW:
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		pmcdev_set_hw(e, cls, enc.type, enc.config);
		e->config1 = enc.config1;
		e->config2 = enc.config2;
		break;
	case PERF_TYPE_SOFTWARE:
		/* libpfm4's "perf::" names of software events. */
		if (!any_class)
			return EINVAL;
		err = pmcdev_set_soft(m, e, enc.config);
		if (err)
			return err;
		break;
	default:
		return EOPNOTSUPP;	/* tracepoints, uncore PMUs */
	}
	e->caps = enc.caps;
	return 0;
}

static int pmcdev_find_hw(const struct pmcdev_mdesc *m, const char *name,
			  uint32_t cls, struct pmcdev_event *e)
{
	const char *g;
	uint64_t i;

	for (i = 0; (g = pmcdev_hw_name(i)) != NULL; i++) {
		if (pmcdev_name_eq(name, g)) {
			pmcdev_set_hw(e, cls, PERF_TYPE_HARDWARE, i);
			e->fixed = pmcdev_fixed_of(m, e->type, e->config);
			return 0;
		}
	}
	return EINVAL;
}

/*
 * The ARMV8 class's own names: PMUv3's common architectural and
 * microarchitectural events (Arm ARM D17.11), as FreeBSD's and Linux's
 * arm64 tables spell them, to the raw event number (PMEVTYPER's). The same
 * on every PMUv3 core; libpfm4 adds the core-specific ones it knows.
 */
static const struct {
	const char *name;
	uint16_t number;
} pmcdev_armv8[] = {
	{ "SW_INCR", 0x00 }, { "L1I_CACHE_REFILL", 0x01 },
	{ "L1I_TLB_REFILL", 0x02 }, { "L1D_CACHE_REFILL", 0x03 },
	{ "L1D_CACHE", 0x04 }, { "L1D_TLB_REFILL", 0x05 },
	{ "LD_RETIRED", 0x06 }, { "ST_RETIRED", 0x07 },
	{ "INST_RETIRED", 0x08 }, { "EXC_TAKEN", 0x09 },
	{ "EXC_RETURN", 0x0a }, { "CID_WRITE_RETIRED", 0x0b },
	{ "PC_WRITE_RETIRED", 0x0c }, { "BR_IMMED_RETIRED", 0x0d },
	{ "BR_RETURN_RETIRED", 0x0e }, { "UNALIGNED_LDST_RETIRED", 0x0f },
	{ "BR_MIS_PRED", 0x10 }, { "CPU_CYCLES", 0x11 }, { "BR_PRED", 0x12 },
	{ "MEM_ACCESS", 0x13 }, { "L1I_CACHE", 0x14 },
	{ "L1D_CACHE_WB", 0x15 }, { "L2D_CACHE", 0x16 },
	{ "L2D_CACHE_REFILL", 0x17 }, { "L2D_CACHE_WB", 0x18 },
	{ "BUS_ACCESS", 0x19 }, { "MEMORY_ERROR", 0x1a },
	{ "INST_SPEC", 0x1b }, { "TTBR_WRITE_RETIRED", 0x1c },
	{ "BUS_CYCLES", 0x1d }, { "CHAIN", 0x1e },
	{ "L1D_CACHE_ALLOCATE", 0x1f }, { "L2D_CACHE_ALLOCATE", 0x20 },
	{ "BR_RETIRED", 0x21 }, { "BR_MIS_PRED_RETIRED", 0x22 },
	{ "STALL_FRONTEND", 0x23 }, { "STALL_BACKEND", 0x24 },
	{ "L1D_TLB", 0x25 }, { "L1I_TLB", 0x26 },
	{ "L2I_CACHE", 0x27 }, { "L2I_CACHE_REFILL", 0x28 },
	{ "L3D_CACHE_ALLOCATE", 0x29 }, { "L3D_CACHE_REFILL", 0x2a },
	{ "L3D_CACHE", 0x2b }, { "L3D_CACHE_WB", 0x2c },
	{ "L2D_TLB_REFILL", 0x2d }, { "L2I_TLB_REFILL", 0x2e },
	{ "L2D_TLB", 0x2f }, { "L2I_TLB", 0x30 },
};

const char *pmcdev_armv8_name(size_t i, uint64_t *number)
{
	if (i >= PMCDEV_ARRAY_SIZE(pmcdev_armv8))
		return NULL;
	if (number)
		*number = pmcdev_armv8[i].number;
	return pmcdev_armv8[i].name;
}

static int pmcdev_find_armv8(const char *name, struct pmcdev_event *e)
{
	size_t i;

	for (i = 0; i < PMCDEV_ARRAY_SIZE(pmcdev_armv8); i++) {
		if (pmcdev_name_eq(name, pmcdev_armv8[i].name)) {
			pmcdev_set_hw(e, PMC_CLASS_ARMV8, PERF_TYPE_RAW,
				      pmcdev_armv8[i].number);
			return 0;
		}
	}
	return EINVAL;
}

static int pmcdev_find_iaf(const char *name, struct pmcdev_event *e)
{
	size_t i;

	for (i = 0; i < PMCDEV_ARRAY_SIZE(pmcdev_fixed); i++) {
		if (pmcdev_name_eq(name, pmcdev_fixed[i].name)) {
			pmcdev_set_hw(e, PMC_CLASS_IAF, PERF_TYPE_HARDWARE,
				      pmcdev_fixed[i].config);
			e->fixed = pmcdev_fixed[i].counter;
			return 0;
		}
	}
	return EINVAL;
}

/* A PAPI name (case-insensitive): on the vendors that implement it. */
static int pmcdev_find_papi(const struct pmcdev_mdesc *m, const char *name,
			    struct pmcdev_event *e)
{
	const struct pmcdev_generic *g;
	size_t i;

	for (i = 0; (g = pmcdev_generic(i)) != NULL; i++) {
		if (strcasecmp(name, g->name))
			continue;
		if (!m->hw_class || (g->vendors & m->vendor) != m->vendor)
			return EOPNOTSUPP;
		pmcdev_set_hw(e, m->hw_class, g->type, g->config);
		e->fixed = m->has_iaf ? g->fixed : -1;
		return 0;
	}
	return EINVAL;
}

int pmcdev_resolve_in_class(const struct pmcdev_mdesc *m, uint32_t cls,
			    const char *name, struct pmcdev_event *e)
{
	switch (cls) {
	case PMC_CLASS_TSC:
		return pmcdev_name_eq(name, "TSC") ? pmcdev_set_tsc(m, e) : EINVAL;
	case PMC_CLASS_SOFT:
		return pmcdev_find_soft(m, name, e);
	case PMC_CLASS_IAF:
		return m->has_iaf ? pmcdev_find_iaf(name, e) : EINVAL;
	case PMC_CLASS_IAP:
	case PMC_CLASS_K8:
	case PMC_CLASS_ARMV8:
		if (cls != m->hw_class)
			return EINVAL;
		if (pmcdev_find_hw(m, name, cls, e) == 0)
			return 0;
		if (cls == PMC_CLASS_ARMV8 && pmcdev_find_armv8(name, e) == 0)
			return 0;
		return pmcdev_set_pfm(m, cls, false, name, e);
	}
	return EINVAL;
}

/*
 * The generic aliases of pmc(3). On a CPU without a hardware class (the
 * GENERIC cputype), FreeBSD counts "instructions" with a clock of the SOFT
 * class; so do we, with task-clock in process modes and cpu-clock in system
 * modes (both count nanoseconds), and "unhalted-cycles" alike. The other
 * aliases need a hardware PMU: EOPNOTSUPP.
 */
enum pmcdev_alias_kind {
	PMCDEV_ALIAS_HW, PMCDEV_ALIAS_CACHE, PMCDEV_ALIAS_TSC, PMCDEV_ALIAS_PFM,
};

static const struct pmcdev_alias {
	const char *name;
	enum pmcdev_alias_kind kind;
	uint64_t config;
	bool soft_fallback;
} pmcdev_aliases[] = {
	{ "instructions", PMCDEV_ALIAS_HW, PERF_COUNT_HW_INSTRUCTIONS, true },
	{ "unhalted-cycles", PMCDEV_ALIAS_HW, PERF_COUNT_HW_CPU_CYCLES, true },
	{ "branches", PMCDEV_ALIAS_HW, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branch-mispredicts", PMCDEV_ALIAS_HW, PERF_COUNT_HW_BRANCH_MISSES,
	  false },
	{ "cycles", PMCDEV_ALIAS_TSC, PERF_COUNT_HW_CPU_CYCLES, false },
	{ "dc-misses", PMCDEV_ALIAS_CACHE, PMCDEV_L1_READ_MISS(L1D), false },
	{ "ic-misses", PMCDEV_ALIAS_CACHE, PMCDEV_L1_READ_MISS(L1I), false },
	{ "interrupts", PMCDEV_ALIAS_PFM, 0, false },
};

/* libpfm4 names of "hardware interrupts received": Intel, AMD Zen, AMD K8-15h. */
static const char *const pmcdev_interrupt_events[] = {
	"HW_INTERRUPTS:RECEIVED", "INTERRUPT_TAKEN", "INTERRUPTS_TAKEN",
	"LS_INT_TAKEN",
};

static int pmcdev_resolve_alias(const struct pmcdev_mdesc *m,
				const struct pmcdev_alias *a, bool virt,
				struct pmcdev_event *e)
{
	size_t i;

	if (a->kind == PMCDEV_ALIAS_TSC && m->has_tsc)
		return pmcdev_set_tsc(m, e);
	if (!m->hw_class) {
		if (!a->soft_fallback)
			return EOPNOTSUPP;
		return pmcdev_set_soft(m, e, virt ? PERF_COUNT_SW_TASK_CLOCK :
				       PERF_COUNT_SW_CPU_CLOCK);
	}
	switch (a->kind) {
	case PMCDEV_ALIAS_CACHE:
		pmcdev_set_hw(e, m->hw_class, PERF_TYPE_HW_CACHE, a->config);
		return 0;
	case PMCDEV_ALIAS_PFM:
		for (i = 0; i < PMCDEV_ARRAY_SIZE(pmcdev_interrupt_events); i++)
			if (pmcdev_set_pfm(m, m->hw_class, false,
					   pmcdev_interrupt_events[i], e) == 0 &&
			    e->type == PERF_TYPE_RAW)
				return 0;
		return EOPNOTSUPP;
	default:
		pmcdev_set_hw(e, m->hw_class, PERF_TYPE_HARDWARE, a->config);
		e->fixed = pmcdev_fixed_of(m, e->type, e->config);
		return 0;
	}
}

int pmcdev_resolve(const struct pmcdev_mdesc *m, const char *name, bool virt,
		   struct pmcdev_event *e)
{
	size_t i;
	int err;

	if (!*name)
		return EINVAL;
	for (i = 0; i < PMCDEV_ARRAY_SIZE(pmcdev_aliases); i++)
		if (pmcdev_name_eq(name, pmcdev_aliases[i].name))
			return pmcdev_resolve_alias(m, &pmcdev_aliases[i], virt,
						    e);
	if (pmcdev_find_soft(m, name, e) == 0)
		return 0;
	if (pmcdev_name_eq(name, "TSC") && pmcdev_set_tsc(m, e) == 0)
		return 0;
	err = pmcdev_find_papi(m, name, e);
	if (err != EINVAL)
		return err;
	if (!m->hw_class)
		return EINVAL;
	if (pmcdev_find_iaf(name, e) == 0) {
		/* A fixed counter's event: the hardware class counts it too. */
		e->cls = m->hw_class;
		if (!m->has_iaf)
			e->fixed = -1;
		return 0;
	}
	if (pmcdev_find_hw(m, name, m->hw_class, e) == 0)
		return 0;
	return pmcdev_set_pfm(m, m->hw_class, true, name, e);
}
