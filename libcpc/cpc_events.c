// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_events.c - what the counters can count: the event catalogue the
 * walkers list (libpfm4 platform events of the core PMU, Intel
 * fixed-counter events, the PAPI generic events mapped to perf's generic
 * hardware events, and the Linux software events the driver names; the
 * tables and libpfm4 are the device layer's, libpmc/dev/pmcdev.h), the
 * attributes, the assignment of requests to counters (pics) and the
 * encoding of a request into a PMCALLOCATE descriptor.
 *
 * A name the catalogue does not list (a pmc(3) alias such as
 * "instructions", a libpfm4 name with modifiers, FreeBSD's spelling) goes
 * to the device layer's resolver, the one pmc(3) uses, so both libraries
 * and every tool accept the same names (docs/events.md).
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

#include "libcpc_impl.h"

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

struct platform_walk {
	cpc_t *cpc;
	struct cpc_catalogue *cat;
	size_t nfixed;		/* the fixed events come first */
};

/* Platform events: each event, and "event.umask" for each unit mask. */
static int add_platform_event(void *arg, const char *pmu, const char *event,
			      const char *umask, int nmask, bool dfl)
{
	struct platform_walk *w = arg;
	struct cpc_event proto = {
		.kind = CPC_EV_PLATFORM, .picmask = gp_mask(w->cpc),
		.pfm_event = event, .pfm_umask = umask,
	};
	char name[CPC_MAX_EVENT_LEN];

	snprintf(w->cpc->pfm_pmu, sizeof(w->cpc->pfm_pmu), "%s", pmu);
	/* The bare name only where it encodes (no unit mask needed). */
	if (!umask)
		return nmask && !dfl ? 0 :
			cat_add(w->cat, &proto, event, true, w->nfixed);
	snprintf(name, sizeof(name), "%s.%s", event, umask);
	return cat_add(w->cat, &proto, name, true, w->nfixed);
}

static int add_platform_events(cpc_t *cpc, struct cpc_catalogue *cat)
{
	struct platform_walk w = { .cpc = cpc, .cat = cat, .nfixed = cat->n };

	if (!cpc->gp_class)
		return 0;
	return pmcdev_pfm_walk(true, add_platform_event, &w);
}

static int add_fixed_events(cpc_t *cpc, struct cpc_catalogue *cat)
{
	struct cpc_event proto = {
		.kind = CPC_EV_FIXED, .type = PERF_TYPE_HARDWARE,
	};
	const char *name;
	size_t i;
	int ctr;

	for (i = 0; i < PMCDEV_NFIXED && i < cpc->nfixed; i++) {
		name = pmcdev_fixed_name(PMCDEV_FIXED_ILLUMOS + i, &ctr,
					 &proto.config);
		proto.picmask = fixed_bit(cpc, ctr);
		if (cat_add(cat, &proto, name, false, cat->n) < 0)
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
	const struct pmc_dyn_event_descr *ev;
	uint32_t i;
	int ret = 0;

	if (!cpc->nsoft)
		return 0;
	/* Kept for the resolver (cpc->md) until cpc_events_fini(). */
	if (pmcdev_events(cpc_fd(cpc), PMC_CLASS_SOFT, &cpc->soft,
			  &cpc->md.nsoft) < 0)
		return errno == ENOMEM ? -1 : 0;
	cpc->md.soft = ev = cpc->soft;
	for (i = 0; i < cpc->md.nsoft && !ret; i++) {
		if (ev[i].pm_type != PERF_TYPE_SOFTWARE || !ev[i].pm_ev_name[0])
			continue;
		proto.config = ev[i].pm_config;
		ret = cat_add(cat, &proto, ev[i].pm_ev_name, false, cat->n);
	}
	return ret;
}

static int add_generic_events(cpc_t *cpc, struct cpc_catalogue *cat)
{
	struct cpc_event proto = { .kind = CPC_EV_GENERIC };
	unsigned int vendor = pmcdev_vendor(cpc->cpuinfo.pm_cputype);
	const struct pmcdev_generic *g;
	size_t i;

	if (!cpc->gp_class)
		return 0;
	for (i = 0; (g = pmcdev_generic(i)) != NULL; i++) {
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

	/*
	 * The resolver's view: libcpc's pics are the hardware and SOFT
	 * classes (no TSC: "cycles" is the core's), fixed counters only
	 * beside general-purpose ones.
	 */
	cpc->md.hw_class = cpc->gp_class;
	cpc->md.has_iaf = cpc->fixed_class != 0;
	cpc->md.has_tsc = false;
	cpc->md.vendor = pmcdev_vendor(cpc->cpuinfo.pm_cputype);
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
	free(cpc->soft);
	cpc->soft = NULL;
	cpc->md.soft = NULL;
	cpc->md.nsoft = 0;
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

/*
 * A name the catalogue does not list, by the device layer's resolver (in
 * thread scope; cpc_req_encode() asks again for the bind's scope). 0, or
 * CPC_INVALID_EVENT for a name it does not know or libcpc cannot count.
 */
int cpc_event_resolve(const cpc_t *cpc, const char *name, bool system,
		      struct pmcdev_event *e)
{
	if (pmcdev_resolve(&cpc->md, name, !system, e))
		return CPC_INVALID_EVENT;
	if (e->cls != PMC_CLASS_SOFT && e->cls != cpc->gp_class)
		return CPC_INVALID_EVENT;
	if (e->fixed >= 0 && !fixed_bit(cpc, e->fixed))
		e->fixed = -1;
	return 0;
}

uint64_t cpc_req_picmask(const cpc_t *cpc, const struct cpc_req *req)
{
	if (req->ev)
		return req->ev->picmask;
	if (req->named)
		return req->dev.cls == PMC_CLASS_SOFT ? CPC_PICMASK(cpc->npic) :
			gp_mask(cpc) | fixed_bit(cpc, req->dev.fixed);
	return gp_mask(cpc);
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
	struct pmcdev_pfm_encoding pe;

	snprintf(spec, sizeof(spec), "%s::%s%s%s", cpc->pfm_pmu, ev->pfm_event,
		 ev->pfm_umask ? ":" : "", ev->pfm_umask ? ev->pfm_umask : "");
	if (pmcdev_pfm_encode(spec, &pe))
		return CPC_INVALID_EVENT;
	enc->type = pe.type;
	enc->config = pe.config;
	enc->config1 = pe.config1;
	enc->config2 = pe.config2;
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
			enc->config = (enc->config & ~PMCDEV_EVSEL_UMASK) |
				      (a->ca_val << PMCDEV_EVSEL_UMASK_SHIFT);
		} else if (!strcmp(a->ca_name, "cmask")) {
			if (a->ca_val > 0xff)
				return CPC_ATTRIBUTE_OUT_OF_RANGE;
			enc->config = (enc->config & ~PMCDEV_EVSEL_CMASK) |
				      (a->ca_val << PMCDEV_EVSEL_CMASK_SHIFT);
		} else if (!strcmp(a->ca_name, "edge")) {
			enc->config = a->ca_val ? enc->config | PMCDEV_EVSEL_EDGE :
						  enc->config & ~PMCDEV_EVSEL_EDGE;
		} else if (!strcmp(a->ca_name, "inv")) {
			enc->config = a->ca_val ? enc->config | PMCDEV_EVSEL_INV :
						  enc->config & ~PMCDEV_EVSEL_INV;
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

/* A request the resolver named, counted on @pic in @system scope. */
static int encode_named(const cpc_t *cpc, const struct cpc_req *req, int pic,
			bool system, struct cpc_enc *enc)
{
	bool fixed = cpc_pic_is_fixed(cpc, pic);
	struct pmcdev_event e;
	int ret;

	ret = cpc_event_resolve(cpc, req->event, system, &e);
	if (ret)
		return ret;
	enc->named = e.caps;
	if (e.cls != PMC_CLASS_SOFT &&
	    (pic < 0 || !(cpc_req_picmask(cpc, req) & (1ULL << pic))))
		return CPC_PIC_NOT_CAPABLE;
	enc->pmc_class = e.cls == PMC_CLASS_SOFT ? PMC_CLASS_SOFT :
			 fixed ? cpc->fixed_class : cpc->gp_class;
	enc->ev = e.ev;
	enc->type = e.type;
	enc->config = e.config;
	enc->config1 = e.config1;
	enc->config2 = e.config2;
	if (e.type != PERF_TYPE_RAW && has_attrs(req))
		return CPC_INVALID_ATTRIBUTE;
	return apply_hw_attrs(req, enc);
}

/*
 * The PMCALLOCATE descriptor of @req counted on @pic in @system scope (a
 * CPU, else a thread). Returns 0 or the illumos subcode of the refusal (the
 * caller fails with EINVAL).
 */
int cpc_req_encode(const cpc_t *cpc, const struct cpc_req *req, int pic,
		   bool system, struct cpc_enc *enc)
{
	const struct cpc_event *ev = req->ev;
	bool fixed = cpc_pic_is_fixed(cpc, pic);
	uint32_t asked = 0;
	int ret;

	memset(enc, 0, sizeof(*enc));
	if (req->flags & CPC_COUNT_USER)
		asked |= PMC_CAP_USER;
	if (req->flags & CPC_COUNT_SYSTEM)
		asked |= PMC_CAP_SYSTEM;
	if (req->named) {
		ret = encode_named(cpc, req, pic, system, enc);
		if (ret)
			return ret;
		/* The privilege rule of every entry point (pmcdev_levels()). */
		if (pmcdev_levels(asked, enc->named, &enc->caps) < 0)
			return CPC_REQ_INVALID_FLAGS;
		return 0;
	}
	enc->caps = asked;
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
		enc->config = PMCDEV_EVSEL_CODE(req->raw);
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
