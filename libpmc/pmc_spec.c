// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_spec.c - event specifiers: "[CLASS-]name[,qualifier[,...]]" into a
 * PMCALLOCATE request, as FreeBSD's libpmc parses them (pmc(3) has the
 * grammar and the alias table).
 *
 * Resolution order: a class prefix (TSC-, K8-, IAF-, IAP-, SOFT-) restricts
 * the search to that class; otherwise the generic aliases, then the SOFT
 * events, the TSC, perf's generic hardware event names, and libpfm4's names
 * for this CPU. Names compare as FreeBSD's do (pmc__name_eq). Qualifiers are
 * FreeBSD's IAP/K8 ones, applied to the PERFEVTSEL layout both classes use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>

#include "libpmc_impl.h"

/* PERFEVTSEL fields (Intel IA32_PERFEVTSELx, AMD PERF_CTLx alike). */
#define PMC_EVSEL_UMASK_SHIFT	8
#define PMC_EVSEL_UMASK		(0xffULL << PMC_EVSEL_UMASK_SHIFT)
#define PMC_EVSEL_EDGE		(1ULL << 18)
#define PMC_EVSEL_INV		(1ULL << 23)
#define PMC_EVSEL_CMASK_SHIFT	24
#define PMC_EVSEL_CMASK		(0xffULL << PMC_EVSEL_CMASK_SHIFT)

#define PMC_HW_CACHE(cache, op, result) \
	((cache) | ((op) << 8) | ((result) << 16))

static void pmc_set_event(struct pmc_op_pmcallocate *req, uint32_t cl,
			  uint32_t ev, uint32_t type, uint64_t config)
{
	req->pm_class = cl;
	req->pm_ev = ev;
	req->pm_md.pm_type = type;
	req->pm_md.pm_config = config;
	req->pm_md.pm_config1 = 0;
	req->pm_md.pm_config2 = 0;
}

/* A perf generic hardware event (or cache event) on hardware class @cl. */
static void pmc_set_generic(struct pmc_op_pmcallocate *req, uint32_t cl,
			    uint32_t type, uint64_t config)
{
	uint32_t ev = type == PERF_TYPE_HARDWARE ?
		PMC_EV_GENERIC_FIRST + (uint32_t)config : PMC_EV_RAW;

	pmc_set_event(req, cl, ev, type, config);
}

static int pmc_set_soft(const struct pmc_mdesc *m,
			struct pmc_op_pmcallocate *req, uint64_t config)
{
	unsigned int i;

	for (i = 0; i < m->nsoft; i++) {
		if (m->soft[i].pm_type == PERF_TYPE_SOFTWARE &&
		    m->soft[i].pm_config == config) {
			pmc_set_event(req, PMC_CLASS_SOFT, m->soft[i].pm_ev_code,
				      PERF_TYPE_SOFTWARE, config);
			return 0;
		}
	}
	return EOPNOTSUPP;
}

static int pmc_set_tsc(const struct pmc_mdesc *m,
		       struct pmc_op_pmcallocate *req)
{
	if (!pmc__class_info(m->cpu, PMC_CLASS_TSC))
		return EOPNOTSUPP;
	pmc_set_event(req, PMC_CLASS_TSC, PMC_EV_TSC_TSC, 0, 0);
	return 0;
}

/*
 * libpfm4's encoding of @name on hardware class @cl; with @any_class, its
 * "perf::" software events go to the SOFT class.
 */
static int pmc_set_pfm(const struct pmc_mdesc *m, uint32_t cl, bool any_class,
		       const char *name, struct pmc_op_pmcallocate *req)
{
	struct pmc_pfm_encoding enc;
	int err;

	err = pmc__pfm_encode(name, &enc);
	if (err)
		return err == ENOENT ? EINVAL : err;

	switch (enc.type) {
	case PERF_TYPE_RAW:
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		pmc_set_generic(req, cl, enc.type, enc.config);
		req->pm_md.pm_config1 = enc.config1;
		req->pm_md.pm_config2 = enc.config2;
		break;
	case PERF_TYPE_SOFTWARE:
		/* libpfm4's "perf::" names of software events. */
		if (!any_class)
			return EINVAL;
		err = pmc_set_soft(m, req, enc.config);
		if (err)
			return err;
		break;
	default:
		return EOPNOTSUPP;	/* tracepoints, uncore PMUs */
	}
	if (enc.exclude_kernel && !enc.exclude_user)
		req->pm_caps |= PMC_CAP_USER;
	else if (enc.exclude_user && !enc.exclude_kernel)
		req->pm_caps |= PMC_CAP_SYSTEM;
	return 0;
}

static int pmc_find_soft(const struct pmc_mdesc *m, const char *name,
			 struct pmc_op_pmcallocate *req)
{
	unsigned int i;

	for (i = 0; i < m->nsoft; i++) {
		if (pmc__name_eq(name, m->soft[i].pm_ev_name)) {
			pmc_set_event(req, PMC_CLASS_SOFT, m->soft[i].pm_ev_code,
				      m->soft[i].pm_type, m->soft[i].pm_config);
			return 0;
		}
	}
	return EINVAL;
}

static int pmc_find_generic(const char *name, uint32_t cl,
			    struct pmc_op_pmcallocate *req)
{
	const char *g;
	uint64_t i;

	for (i = 0; (g = pmc__generic_name(i)) != NULL; i++) {
		if (pmc__name_eq(name, g)) {
			pmc_set_generic(req, cl, PERF_TYPE_HARDWARE, i);
			return 0;
		}
	}
	return EINVAL;
}

/* IAF: the fixed counters, by FreeBSD's names or perf's. */
static const struct {
	const char *name;
	uint64_t config;
} pmc_iaf_events[] = {
	{ "instr-retired.any", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cpu-clk-unhalted.core", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-clk-unhalted.ref", PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static int pmc_find_iaf(const char *name, struct pmc_op_pmcallocate *req)
{
	size_t i;

	for (i = 0; i < PMC_ARRAY_SIZE(pmc_iaf_events); i++) {
		if (pmc__name_eq(name, pmc_iaf_events[i].name)) {
			pmc_set_generic(req, PMC_CLASS_IAF, PERF_TYPE_HARDWARE,
					pmc_iaf_events[i].config);
			return 0;
		}
	}
	return EINVAL;
}

/* "CLASS-name": only that class, which the machine must have. */
static int pmc_resolve_in_class(const struct pmc_mdesc *m, uint32_t cl,
				const char *name,
				struct pmc_op_pmcallocate *req)
{
	if (!pmc__class_info(m->cpu, cl))
		return EINVAL;
	switch (cl) {
	case PMC_CLASS_TSC:
		return pmc__name_eq(name, "TSC") ? pmc_set_tsc(m, req) : EINVAL;
	case PMC_CLASS_SOFT:
		return pmc_find_soft(m, name, req);
	case PMC_CLASS_IAF:
		return pmc_find_iaf(name, req);
	default:
		if (pmc_find_generic(name, cl, req) == 0)
			return 0;
		return pmc_set_pfm(m, cl, false, name, req);
	}
}

/*
 * The generic aliases of pmc(3). On a CPU without a hardware class (the
 * GENERIC cputype), FreeBSD counts "instructions" with a clock of the SOFT
 * class; so do we, with task-clock in process modes and cpu-clock in system
 * modes (both count nanoseconds), and "unhalted-cycles" alike. The other
 * aliases need a hardware PMU: EOPNOTSUPP.
 */
enum pmc_alias_kind { PMC_ALIAS_HW, PMC_ALIAS_CACHE, PMC_ALIAS_TSC, PMC_ALIAS_PFM };

static const struct pmc_alias {
	const char *name;
	enum pmc_alias_kind kind;
	uint64_t config;
	bool soft_fallback;
} pmc_aliases[] = {
	{ "instructions", PMC_ALIAS_HW, PERF_COUNT_HW_INSTRUCTIONS, true },
	{ "unhalted-cycles", PMC_ALIAS_HW, PERF_COUNT_HW_CPU_CYCLES, true },
	{ "branches", PMC_ALIAS_HW, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branch-mispredicts", PMC_ALIAS_HW, PERF_COUNT_HW_BRANCH_MISSES, false },
	{ "cycles", PMC_ALIAS_TSC, PERF_COUNT_HW_CPU_CYCLES, false },
	{ "dc-misses", PMC_ALIAS_CACHE,
	  PMC_HW_CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
		       PERF_COUNT_HW_CACHE_RESULT_MISS), false },
	{ "ic-misses", PMC_ALIAS_CACHE,
	  PMC_HW_CACHE(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
		       PERF_COUNT_HW_CACHE_RESULT_MISS), false },
	{ "interrupts", PMC_ALIAS_PFM, 0, false },
};

/* libpfm4 names of "hardware interrupts received": Intel, AMD Zen, AMD K8-15h. */
static const char *const pmc_interrupt_events[] = {
	"HW_INTERRUPTS:RECEIVED", "INTERRUPT_TAKEN", "INTERRUPTS_TAKEN",
	"LS_INT_TAKEN",
};

static int pmc_resolve_alias(const struct pmc_mdesc *m,
			     const struct pmc_alias *a, enum pmc_mode mode,
			     struct pmc_op_pmcallocate *req)
{
	const struct pmc_classinfo *hw = pmc__hw_class(m->cpu);
	size_t i;

	if (a->kind == PMC_ALIAS_TSC && pmc__class_info(m->cpu, PMC_CLASS_TSC))
		return pmc_set_tsc(m, req);
	if (!hw) {
		if (!a->soft_fallback)
			return EOPNOTSUPP;
		return pmc_set_soft(m, req, PMC_IS_VIRTUAL_MODE(mode) ?
				    PERF_COUNT_SW_TASK_CLOCK :
				    PERF_COUNT_SW_CPU_CLOCK);
	}
	switch (a->kind) {
	case PMC_ALIAS_CACHE:
		pmc_set_generic(req, hw->pm_class, PERF_TYPE_HW_CACHE, a->config);
		return 0;
	case PMC_ALIAS_PFM:
		for (i = 0; i < PMC_ARRAY_SIZE(pmc_interrupt_events); i++)
			if (pmc_set_pfm(m, hw->pm_class, false,
					pmc_interrupt_events[i], req) == 0 &&
			    req->pm_md.pm_type == PERF_TYPE_RAW)
				return 0;
		return EOPNOTSUPP;
	default:
		pmc_set_generic(req, hw->pm_class, PERF_TYPE_HARDWARE, a->config);
		return 0;
	}
}

static const struct {
	const char *prefix;	/* with its '-' */
	uint32_t cl;
} pmc_prefixes[] = {
	{ "TSC-", PMC_CLASS_TSC },
	{ "K8-", PMC_CLASS_K8 },
	{ "IAF-", PMC_CLASS_IAF },
	{ "IAP-", PMC_CLASS_IAP },
	{ "SOFT-", PMC_CLASS_SOFT },
};

static int pmc_resolve(const struct pmc_mdesc *m, const char *name,
		       enum pmc_mode mode, struct pmc_op_pmcallocate *req)
{
	const struct pmc_classinfo *hw;
	size_t i, len;

	for (i = 0; i < PMC_ARRAY_SIZE(pmc_prefixes); i++) {
		len = strlen(pmc_prefixes[i].prefix);
		if (strncasecmp(name, pmc_prefixes[i].prefix, len) == 0)
			return pmc_resolve_in_class(m, pmc_prefixes[i].cl,
						    name + len, req);
	}
	for (i = 0; i < PMC_ARRAY_SIZE(pmc_aliases); i++)
		if (pmc__name_eq(name, pmc_aliases[i].name))
			return pmc_resolve_alias(m, &pmc_aliases[i], mode, req);

	if (pmc_find_soft(m, name, req) == 0)
		return 0;
	if (pmc__name_eq(name, "TSC") && pmc_set_tsc(m, req) == 0)
		return 0;
	hw = pmc__hw_class(m->cpu);
	if (!hw)
		return EINVAL;
	if (pmc_find_generic(name, hw->pm_class, req) == 0)
		return 0;
	return pmc_set_pfm(m, hw->pm_class, true, name, req);
}

/* "N" in 0..max, decimal, octal or hex; 0 or EINVAL. */
static int pmc_qual_value(const char *s, unsigned long max, uint64_t *v)
{
	unsigned long n;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return EINVAL;
	errno = 0;
	n = strtoul(s, &end, 0);
	if (errno || *end || n > max)
		return EINVAL;
	*v = n;
	return 0;
}

/* One qualifier: "usr", "os", "edge", "inv", "cmask=N", "umask=N", ... */
static int pmc_apply_qualifier(char *q, struct pmc_op_pmcallocate *req)
{
	char *val = strchr(q, '=');
	bool raw = req->pm_md.pm_type == PERF_TYPE_RAW &&
		   (req->pm_class == PMC_CLASS_IAP || req->pm_class == PMC_CLASS_K8);
	__u64 *cfg = &req->pm_md.pm_config;
	uint64_t v;

	if (val)
		*val++ = '\0';
	if (req->pm_class == PMC_CLASS_TSC)
		return EINVAL;		/* TSC events take no qualifier */

	if (!val && strcasecmp(q, "usr") == 0) {
		req->pm_caps |= PMC_CAP_USER;
		return 0;
	}
	if (!val && strcasecmp(q, "os") == 0) {
		req->pm_caps |= PMC_CAP_SYSTEM;
		return 0;
	}
	if (!raw)
		return EINVAL;		/* the rest edit a PERFEVTSEL encoding */
	if (!val && strcasecmp(q, "edge") == 0) {
		*cfg |= PMC_EVSEL_EDGE;
		req->pm_caps |= PMC_CAP_EDGE;
		return 0;
	}
	if (!val && strcasecmp(q, "inv") == 0) {
		*cfg |= PMC_EVSEL_INV;
		req->pm_caps |= PMC_CAP_INVERT;
		return 0;
	}
	if (val && (strcasecmp(q, "cmask") == 0 || strcasecmp(q, "count") == 0)) {
		if (pmc_qual_value(val, 0xff, &v))
			return EINVAL;
		*cfg = (*cfg & ~PMC_EVSEL_CMASK) | (v << PMC_EVSEL_CMASK_SHIFT);
		req->pm_caps |= PMC_CAP_THRESHOLD;
		return 0;
	}
	if (val && (strcasecmp(q, "umask") == 0 || strcasecmp(q, "mask") == 0)) {
		if (pmc_qual_value(val, 0xff, &v))
			return EINVAL;
		*cfg = (*cfg & ~PMC_EVSEL_UMASK) | (v << PMC_EVSEL_UMASK_SHIFT);
		req->pm_caps |= PMC_CAP_QUALIFIER;
		return 0;
	}
	return EINVAL;
}

int pmc__spec_encode(const struct pmc_mdesc *m, const char *spec,
		     enum pmc_mode mode, struct pmc_op_pmcallocate *req)
{
	char *buf, *name, *q, *next;
	int err;

	memset(req, 0, sizeof(*req));
	if ((unsigned int)mode > PMC_MODE_LAST || !spec)
		return EINVAL;
	req->pm_mode = mode;
	if (PMC_IS_SAMPLING_MODE(mode))
		req->pm_caps |= PMC_CAP_INTERRUPT;

	buf = strdup(spec);
	if (!buf)
		return ENOMEM;
	name = buf;
	q = strchr(buf, ',');
	if (q)
		*q++ = '\0';

	err = *name ? pmc_resolve(m, name, mode, req) : EINVAL;
	while (!err && q) {
		next = strchr(q, ',');
		if (next)
			*next++ = '\0';
		err = *q ? pmc_apply_qualifier(q, req) : EINVAL;
		q = next;
	}
	free(buf);
	if (err) {
		memset(req, 0, sizeof(*req));
		return err;
	}
	return 0;
}
