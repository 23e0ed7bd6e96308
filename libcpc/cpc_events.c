// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_events.c - what the counters can count: the event catalogue (libpfm4
 * platform events of the core PMU, Intel fixed-counter events, the PAPI
 * generic events mapped to perf's generic hardware events, and the Linux
 * software events the driver names), the attributes, the walkers, the
 * assignment of requests to counters (pics) and the encoding of a request
 * into a PMCALLOCATE descriptor.
 *
 * Counters ("pics"): with a hardware PMU, pics 0 .. ngp-1 are the
 * general-purpose counters (IAP or K8 class) and the next nfixed pics the
 * Intel fixed counters (IAF); without one, npic = SOFT rows - 1 (one row is
 * kept for the tick). Software events can be counted on every pic: they use
 * a SOFT row, the pic only counts against the set's size.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "libcpc_impl.h"

#define CPC_VENDOR_INTEL	0x1
#define CPC_VENDOR_AMD		0x2
#define CPC_VENDOR_ALL		(CPC_VENDOR_INTEL | CPC_VENDOR_AMD)

#define CPC_HW_CACHE(cache, op, result) \
	((uint64_t)(cache) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))

/* Which fixed counter a generic event may also use (-1: none). */
struct cpc_generic {
	const char	*name;
	uint32_t	type;
	uint64_t	config;
	unsigned int	vendors;
	int		fixed;
};

/*
 * illumos' PAPI names (generic_events(3CPC)) mapped to perf's generic
 * events, on the vendors whose Linux PMU driver implements them.
 */
static const struct cpc_generic cpc_generics[] = {
	{ "PAPI_tot_cyc", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  CPC_VENDOR_ALL, 1 },
	{ "PAPI_tot_ins", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  CPC_VENDOR_ALL, 0 },
	{ "PAPI_br_ins", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  CPC_VENDOR_ALL, -1 },
	{ "PAPI_br_msp", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	  CPC_VENDOR_ALL, -1 },
	{ "PAPI_l1_dca", PERF_TYPE_HW_CACHE,
	  CPC_HW_CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
		       PERF_COUNT_HW_CACHE_RESULT_ACCESS), CPC_VENDOR_ALL, -1 },
	{ "PAPI_l1_dcm", PERF_TYPE_HW_CACHE,
	  CPC_HW_CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
		       PERF_COUNT_HW_CACHE_RESULT_MISS), CPC_VENDOR_ALL, -1 },
	{ "PAPI_l1_ldm", PERF_TYPE_HW_CACHE,
	  CPC_HW_CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
		       PERF_COUNT_HW_CACHE_RESULT_MISS), CPC_VENDOR_ALL, -1 },
	{ "PAPI_l1_ica", PERF_TYPE_HW_CACHE,
	  CPC_HW_CACHE(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
		       PERF_COUNT_HW_CACHE_RESULT_ACCESS), CPC_VENDOR_AMD, -1 },
	{ "PAPI_l1_icm", PERF_TYPE_HW_CACHE,
	  CPC_HW_CACHE(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
		       PERF_COUNT_HW_CACHE_RESULT_MISS), CPC_VENDOR_ALL, -1 },
	{ "PAPI_l2_tca", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
	  CPC_VENDOR_AMD, -1 },
	{ "PAPI_l2_tcm", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  CPC_VENDOR_AMD, -1 },
	{ "PAPI_l3_tca", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES,
	  CPC_VENDOR_INTEL, -1 },
	{ "PAPI_l3_tcm", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  CPC_VENDOR_INTEL, -1 },
	{ "PAPI_tlb_dm", PERF_TYPE_HW_CACHE,
	  CPC_HW_CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
		       PERF_COUNT_HW_CACHE_RESULT_MISS), CPC_VENDOR_ALL, -1 },
	{ "PAPI_tlb_im", PERF_TYPE_HW_CACHE,
	  CPC_HW_CACHE(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ,
		       PERF_COUNT_HW_CACHE_RESULT_MISS), CPC_VENDOR_ALL, -1 },
	{ "PAPI_stl_icy", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, CPC_VENDOR_AMD, -1 },
	{ "PAPI_res_stl", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, CPC_VENDOR_AMD, -1 },
};

/* The Intel fixed counters' own events, as illumos' core PCBE names them. */
static const struct {
	const char	*name;
	uint64_t	config;
} cpc_fixed_events[] = {
	{ "instr_retired.any", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cpu_clk_unhalted.thread", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu_clk_unhalted.ref", PERF_COUNT_HW_REF_CPU_CYCLES },
};

/* Attributes of the hardware general-purpose counters (illumos order). */
static const char *const cpc_hw_attrs[] = { "edge", "inv", "umask", "cmask" };

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct cpc_catalogue {
	struct cpc_event *ev;
	size_t n, cap;
};

/*
 * Add @name (lower-cased if @lower), checking it against the first @dedup
 * entries (libpfm4's names are unique within a PMU, so platform events are
 * only checked against the fixed events before them). The first of two
 * equal names wins, except that a platform event of the same name as a
 * fixed-counter event extends it to the general-purpose counters.
 */
static int cat_add(struct cpc_catalogue *cat, const struct cpc_event *proto,
		   const char *name, bool lower, size_t dedup)
{
	struct cpc_event *e;
	char *copy, *p;
	size_t i;

	for (i = 0; i < dedup && i < cat->n; i++) {
		e = &cat->ev[i];
		if (strcasecmp(e->name, name))
			continue;
		if (e->kind == CPC_EV_FIXED && proto->kind == CPC_EV_PLATFORM) {
			e->picmask |= proto->picmask;
			e->pfm_event = proto->pfm_event;
			e->pfm_umask = proto->pfm_umask;
		}
		return 0;
	}
	if (cat->n == cat->cap) {
		size_t cap = cat->cap ? cat->cap * 2 : 64;

		e = realloc(cat->ev, cap * sizeof(*e));
		if (!e)
			return -1;
		cat->ev = e;
		cat->cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return -1;
	for (p = copy; lower && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	e = &cat->ev[cat->n++];
	*e = *proto;
	e->name = copy;
	return 0;
}

static uint64_t gp_mask(const cpc_t *cpc)
{
	return cpc->gp_class ? CPC_PICMASK(cpc->ngp) : 0;
}

static uint64_t fixed_bit(const cpc_t *cpc, int i)
{
	if (i < 0 || (uint_t)i >= cpc->nfixed)
		return 0;
	return 1ULL << (cpc->ngp + (uint_t)i);
}

/* The present core PMU of libpfm4 (the default one if it says so). */
static int pfm_core_pmu(pfm_pmu_info_t *out)
{
	pfm_pmu_info_t pi;
	pfm_pmu_t pmu;
	bool found = false;

	if (pfm_initialize() != PFM_SUCCESS)
		return -1;
	pfm_for_all_pmus(pmu) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(pmu, &pi) != PFM_SUCCESS ||
		    !pi.is_present || pi.type != PFM_PMU_TYPE_CORE)
			continue;
		if (!found || pi.is_dfl) {
			*out = pi;
			found = true;
		}
		if (pi.is_dfl)
			break;
	}
	return found ? 0 : -1;
}

/* Platform events: each event, and "event.umask" for each unit mask. */
static int add_platform_events(cpc_t *cpc, struct cpc_catalogue *cat)
{
	struct cpc_event proto = {
		.kind = CPC_EV_PLATFORM, .picmask = gp_mask(cpc),
	};
	pfm_event_attr_info_t ai;
	pfm_event_info_t info;
	pfm_pmu_info_t pi = { 0 };
	char name[CPC_MAX_EVENT_LEN];
	size_t nfixed = cat->n;	/* the fixed events come first */
	int idx, i;

	if (!cpc->gp_class || pfm_core_pmu(&pi) < 0)
		return 0;
	snprintf(cpc->pfm_pmu, sizeof(cpc->pfm_pmu), "%s", pi.name);
	for (idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		bool bare = true;
		int numasks = 0;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_event_info(idx, PFM_OS_NONE, &info) != PFM_SUCCESS)
			continue;
		proto.pfm_event = info.name;
		for (i = 0; i < info.nattrs; i++) {
			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE, &ai) !=
			    PFM_SUCCESS || ai.type != PFM_ATTR_UMASK)
				continue;
			if (!numasks++)
				bare = false;
			if (ai.is_dfl)
				bare = true;
		}
		/* The bare name only where it encodes (no unit mask needed). */
		if (bare) {
			proto.pfm_umask = NULL;
			if (cat_add(cat, &proto, info.name, true, nfixed) < 0)
				return -1;
		}
		for (i = 0; i < info.nattrs; i++) {
			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE, &ai) !=
			    PFM_SUCCESS || ai.type != PFM_ATTR_UMASK)
				continue;
			snprintf(name, sizeof(name), "%s.%s", info.name,
				 ai.name);
			proto.pfm_umask = ai.name;
			if (cat_add(cat, &proto, name, true, nfixed) < 0)
				return -1;
		}
	}
	return 0;
}

static int add_fixed_events(cpc_t *cpc, struct cpc_catalogue *cat)
{
	struct cpc_event proto = {
		.kind = CPC_EV_FIXED, .type = PERF_TYPE_HARDWARE,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cpc_fixed_events) && i < cpc->nfixed; i++) {
		proto.config = cpc_fixed_events[i].config;
		proto.picmask = fixed_bit(cpc, (int)i);
		if (cat_add(cat, &proto, cpc_fixed_events[i].name, false,
			    cat->n) < 0)
			return -1;
	}
	return 0;
}

static int add_soft_events(cpc_t *cpc, struct cpc_catalogue *cat)
{
	struct cpc_event proto = {
		.kind = CPC_EV_SOFT, .type = PERF_TYPE_SOFTWARE,
		.picmask = CPC_PICMASK(cpc->npic),
	};
	struct pmc_dyn_event_descr *ev;
	uint32_t n, i;
	int ret = 0;

	if (!cpc->nsoft)
		return 0;
	if (pmcdev_events(cpc_fd(cpc), PMC_CLASS_SOFT, &ev, &n) < 0)
		return errno == ENOMEM ? -1 : 0;
	for (i = 0; i < n && !ret; i++) {
		if (ev[i].pm_type != PERF_TYPE_SOFTWARE || !ev[i].pm_ev_name[0])
			continue;
		proto.config = ev[i].pm_config;
		ret = cat_add(cat, &proto, ev[i].pm_ev_name, false, cat->n);
	}
	free(ev);
	return ret;
}

static int add_generic_events(cpc_t *cpc, struct cpc_catalogue *cat)
{
	struct cpc_event proto = { .kind = CPC_EV_GENERIC };
	unsigned int vendor;
	size_t i;

	if (!cpc->gp_class)
		return 0;
	if (cpc->cpuinfo.pm_cputype == PMC_CPU_INTEL_CORE)
		vendor = CPC_VENDOR_INTEL;
	else if (cpc->cpuinfo.pm_cputype == PMC_CPU_AMD_K8)
		vendor = CPC_VENDOR_AMD;
	else
		vendor = CPC_VENDOR_ALL;
	for (i = 0; i < ARRAY_SIZE(cpc_generics); i++) {
		const struct cpc_generic *g = &cpc_generics[i];

		if ((g->vendors & vendor) != vendor)
			continue;
		proto.type = g->type;
		proto.config = g->config;
		proto.picmask = gp_mask(cpc) | fixed_bit(cpc, g->fixed);
		if (cat_add(cat, &proto, g->name, false, cat->n) < 0)
			return -1;
	}
	return 0;
}

static int cmp_event_ptr(const void *a, const void *b)
{
	const struct cpc_event *const *x = a, *const *y = b;

	return strcasecmp((*x)->name, (*y)->name);
}

int cpc_events_init(cpc_t *cpc)
{
	struct cpc_catalogue cat = { 0 };
	size_t i, na = 0;

	if (add_fixed_events(cpc, &cat) < 0 ||
	    add_platform_events(cpc, &cat) < 0 ||
	    add_soft_events(cpc, &cat) < 0 ||
	    add_generic_events(cpc, &cat) < 0)
		goto nomem;
	cpc->events = cat.ev;
	cpc->nevents = cat.n;
	cat.ev = NULL;
	cpc->sorted = calloc(cpc->nevents ? cpc->nevents : 1,
			     sizeof(*cpc->sorted));
	cpc->attrs = calloc(ARRAY_SIZE(cpc_hw_attrs) + 1, sizeof(*cpc->attrs));
	if (!cpc->sorted || !cpc->attrs)
		goto nomem;
	for (i = 0; i < cpc->nevents; i++)
		cpc->sorted[i] = &cpc->events[i];
	qsort(cpc->sorted, cpc->nevents, sizeof(*cpc->sorted), cmp_event_ptr);
	if (cpc->gp_class)
		for (i = 0; i < ARRAY_SIZE(cpc_hw_attrs); i++)
			cpc->attrs[na++] = cpc_hw_attrs[i];
	cpc->attrs[na++] = "picnum";
	cpc->nattrs = na;
	return 0;

nomem:
	for (i = 0; i < cat.n; i++)
		free(cat.ev[i].name);
	free(cat.ev);
	errno = ENOMEM;
	return -1;
}

void cpc_events_fini(cpc_t *cpc)
{
	size_t i;

	for (i = 0; i < cpc->nevents; i++)
		free(cpc->events[i].name);
	free(cpc->events);
	free(cpc->sorted);
	free(cpc->attrs);
	cpc->events = NULL;
	cpc->sorted = NULL;
	cpc->attrs = NULL;
	cpc->nevents = 0;
	cpc->nattrs = 0;
}

const struct cpc_event *cpc_event_find(const cpc_t *cpc, const char *name)
{
	struct cpc_event key = { .name = (char *)name }, *kp = &key, **hit;

	if (!cpc->nevents)
		return NULL;
	hit = bsearch(&kp, cpc->sorted, cpc->nevents, sizeof(*cpc->sorted),
		      cmp_event_ptr);
	return hit ? *hit : NULL;
}

/* A raw event-select code ("0xc0", "192"): only with a hardware PMU. */
bool cpc_event_parse_raw(const cpc_t *cpc, const char *name, uint64_t *code)
{
	char *end;

	if (!cpc->gp_class || !*name || *name == '-' || isspace((unsigned char)*name))
		return false;
	errno = 0;
	*code = strtoull(name, &end, 0);
	return !errno && !*end;
}

bool cpc_attr_known(const cpc_t *cpc, const char *name)
{
	size_t i;

	for (i = 0; i < cpc->nattrs; i++)
		if (!strcmp(cpc->attrs[i], name))
			return true;
	return false;
}

uint64_t cpc_req_picmask(const cpc_t *cpc, const struct cpc_req *req)
{
	return req->ev ? req->ev->picmask : gp_mask(cpc);
}

bool cpc_pic_is_fixed(const cpc_t *cpc, int pic)
{
	return cpc->gp_class && pic >= (int)cpc->ngp &&
	       pic < (int)(cpc->ngp + cpc->nfixed);
}

/* Encode a libpfm4 platform event; 0 or CPC_INVALID_EVENT. */
static int encode_platform(const cpc_t *cpc, const struct cpc_event *ev,
			   struct cpc_enc *enc)
{
	char spec[CPC_MAX_EVENT_LEN + 128];
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;

	snprintf(spec, sizeof(spec), "%s::%s%s%s", cpc->pfm_pmu, ev->pfm_event,
		 ev->pfm_umask ? ":" : "", ev->pfm_umask ? ev->pfm_umask : "");
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(spec, PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
				      &arg) != PFM_SUCCESS)
		return CPC_INVALID_EVENT;
	enc->type = attr.type;
	enc->config = attr.config;
	enc->config1 = attr.config1;
	enc->config2 = attr.config2;
	return 0;
}

/* Apply umask/cmask/edge/inv to a raw event-select encoding. */
static int apply_hw_attrs(const struct cpc_req *req, struct cpc_enc *enc)
{
	uint_t i;

	for (i = 0; i < req->nattrs; i++) {
		const cpc_attr_t *a = &req->attrs[i];

		if (!strcmp(a->ca_name, "picnum"))
			continue;
		if (enc->type != PERF_TYPE_RAW)
			return CPC_ATTRIBUTE_OUT_OF_RANGE;
		if (!strcmp(a->ca_name, "umask")) {
			if (a->ca_val > 0xff)
				return CPC_ATTRIBUTE_OUT_OF_RANGE;
			enc->config = (enc->config & ~0xff00ULL) |
				      (a->ca_val << 8);
		} else if (!strcmp(a->ca_name, "cmask")) {
			if (a->ca_val > 0xff)
				return CPC_ATTRIBUTE_OUT_OF_RANGE;
			enc->config = (enc->config & ~0xff000000ULL) |
				      (a->ca_val << 24);
		} else if (!strcmp(a->ca_name, "edge")) {
			enc->config = a->ca_val ? enc->config | (1ULL << 18) :
						  enc->config & ~(1ULL << 18);
		} else if (!strcmp(a->ca_name, "inv")) {
			enc->config = a->ca_val ? enc->config | (1ULL << 23) :
						  enc->config & ~(1ULL << 23);
		} else {
			return CPC_INVALID_ATTRIBUTE;
		}
	}
	return 0;
}

/* Does the request carry an attribute other than picnum? */
static bool has_attrs(const struct cpc_req *req)
{
	uint_t i;

	for (i = 0; i < req->nattrs; i++)
		if (strcmp(req->attrs[i].ca_name, "picnum"))
			return true;
	return false;
}

/*
 * The PMCALLOCATE descriptor of @req counted on @pic. Returns 0 or the
 * illumos subcode of the refusal (the caller fails with EINVAL).
 */
int cpc_req_encode(const cpc_t *cpc, const struct cpc_req *req, int pic,
		   struct cpc_enc *enc)
{
	const struct cpc_event *ev = req->ev;
	bool fixed = cpc_pic_is_fixed(cpc, pic);
	int ret;

	memset(enc, 0, sizeof(*enc));
	if (ev && ev->kind == CPC_EV_SOFT) {
		if (has_attrs(req))
			return CPC_INVALID_ATTRIBUTE;
		enc->pmc_class = PMC_CLASS_SOFT;
		enc->ev = PMC_EV_SOFT_FIRST + (uint32_t)ev->config;
		enc->type = PERF_TYPE_SOFTWARE;
		enc->config = ev->config;
		return 0;
	}
	if (!cpc->gp_class || pic < 0 || !(cpc_req_picmask(cpc, req) &
					   (1ULL << pic)))
		return CPC_PIC_NOT_CAPABLE;
	enc->pmc_class = fixed ? cpc->fixed_class : cpc->gp_class;
	if (ev && (ev->kind == CPC_EV_GENERIC ||
		   (ev->kind == CPC_EV_FIXED && (fixed || !ev->pfm_event)))) {
		if (has_attrs(req))
			return ev->kind == CPC_EV_GENERIC ?
			       CPC_ATTRIBUTE_OUT_OF_RANGE :
			       CPC_INVALID_ATTRIBUTE;
		enc->type = ev->type;
		enc->config = ev->config;
		enc->ev = ev->type == PERF_TYPE_HARDWARE ?
			  PMC_EV_GENERIC_FIRST + (uint32_t)ev->config :
			  PMC_EV_RAW;
		return 0;
	}
	enc->ev = PMC_EV_RAW;
	if (ev) {
		ret = encode_platform(cpc, ev, enc);
		if (ret)
			return ret;
	} else {
		uint64_t max = cpc->gp_class == PMC_CLASS_K8 ? 0xfff : 0xff;

		if (req->raw > max)
			return CPC_INVALID_EVENT;
		enc->type = PERF_TYPE_RAW;
		/* AMD keeps event-select bits 11:8 in bits 35:32. */
		enc->config = (req->raw & 0xff) | ((req->raw & 0xf00) << 24);
	}
	return apply_hw_attrs(req, enc);
}

struct cpc_assign {
	const cpc_t *cpc;
	const cpc_set_t *set;
	uint64_t *masks;
	int *pics;
	long budget;		/* search steps left: no pathological blow-up */
};

static bool assign_from(struct cpc_assign *as, int i, uint64_t used)
{
	uint64_t free_pics;
	int pic;

	while (i < as->set->nreqs && as->pics[i] >= 0)
		i++;
	if (i == as->set->nreqs)
		return true;
	free_pics = as->masks[i] & ~used;
	for (pic = 0; free_pics; pic++) {
		if (!(free_pics & (1ULL << pic)))
			continue;
		free_pics &= ~(1ULL << pic);
		if (--as->budget < 0)
			return false;
		as->pics[i] = pic;
		if (assign_from(as, i + 1, used | (1ULL << pic)))
			return true;
		as->pics[i] = -1;
	}
	return false;
}

/*
 * Place every request of @set on a distinct pic: explicit picnum first,
 * then the lowest free capable pic, with backtracking. Returns 0, or -1
 * with errno EINVAL and *subcode the illumos reason (-1: none).
 */
int cpc_assign_pics(const cpc_t *cpc, const cpc_set_t *set, int *pics,
		    int *subcode)
{
	uint64_t masks[CPC_SET_MAX_REQS], used = 0;
	struct cpc_assign as = {
		.cpc = cpc, .set = set, .masks = masks, .pics = pics,
		.budget = 100000,
	};
	int i;

	*subcode = -1;
	if (set->nreqs > (int)cpc->npic || set->nreqs > CPC_SET_MAX_REQS)
		goto inval;
	for (i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->reqs[i];

		masks[i] = cpc_req_picmask(cpc, r) & CPC_PICMASK(cpc->npic);
		pics[i] = -1;
		if (r->picnum < 0)
			continue;
		if (r->picnum >= (int)cpc->npic) {
			*subcode = CPC_INVALID_PICNUM;
			goto inval;
		}
		if (!(masks[i] & (1ULL << r->picnum))) {
			*subcode = CPC_PIC_NOT_CAPABLE;
			goto inval;
		}
		if (used & (1ULL << r->picnum))
			goto inval;	/* two requests name one pic */
		used |= 1ULL << r->picnum;
		pics[i] = r->picnum;
	}
	if (assign_from(&as, 0, used))
		return 0;
	*subcode = CPC_RESOURCE_UNAVAIL;
inval:
	errno = EINVAL;
	return -1;
}

/* Walkers. */

static bool is_generic(const struct cpc_event *e)
{
	return !strncmp(e->name, "PAPI", 4);
}

void cpc_walk_events_all(cpc_t *cpc, void *arg,
			 void (*action)(void *arg, const char *event))
{
	size_t i;

	if (!cpc_valid(cpc) || !action)
		return;
	for (i = 0; i < cpc->nevents; i++)
		if (!is_generic(&cpc->events[i]) &&
		    (cpc->events[i].picmask & CPC_PICMASK(cpc->npic)))
			action(arg, cpc->events[i].name);
}

void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
				 void (*action)(void *arg, const char *event))
{
	size_t i;

	if (!cpc_valid(cpc) || !action)
		return;
	for (i = 0; i < cpc->nevents; i++)
		if (is_generic(&cpc->events[i]) &&
		    (cpc->events[i].picmask & CPC_PICMASK(cpc->npic)))
			action(arg, cpc->events[i].name);
}

static void walk_pic(cpc_t *cpc, uint_t picno, void *arg, bool generic,
		     void (*action)(void *arg, uint_t picno, const char *event))
{
	size_t i;

	if (!cpc_valid(cpc) || picno >= cpc->npic) {
		errno = EINVAL;
		return;
	}
	if (!action)
		return;
	for (i = 0; i < cpc->nevents; i++) {
		const struct cpc_event *e = &cpc->events[i];

		if (is_generic(e) == generic && (e->picmask & (1ULL << picno)))
			action(arg, picno, e->name);
	}
}

void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
			 void (*action)(void *arg, uint_t picno,
					const char *event))
{
	walk_pic(cpc, picno, arg, false, action);
}

void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
				 void (*action)(void *arg, uint_t picno,
						const char *event))
{
	walk_pic(cpc, picno, arg, true, action);
}

void cpc_walk_attrs(cpc_t *cpc, void *arg,
		    void (*action)(void *arg, const char *attr))
{
	size_t i;

	if (!cpc_valid(cpc) || !action)
		return;
	for (i = 0; i < cpc->nattrs; i++)
		action(arg, cpc->attrs[i]);
}
