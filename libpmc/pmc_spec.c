// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_spec.c - event specifiers: "[CLASS-]name[,qualifier[,...]]" into a
 * PMCALLOCATE request, as FreeBSD's libpmc parses them (pmc(3) has the
 * grammar and the alias table).
 *
 * A class prefix (TSC-, K8-, IAF-, IAP-, SOFT-) restricts the search to
 * that class; any other name goes to the device layer's one resolver
 * (pmcdev_resolve(), the vocabulary libcpc shares; docs/events.md).
 * Qualifiers are FreeBSD's IAP/K8 ones, applied to the PERFEVTSEL layout
 * both classes use (PMCDEV_EVSEL_*); "usr" and "os" combine with the
 * name's own modifiers by the one privilege rule (pmcdev_levels()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>

#include "libpmc_impl.h"
#include "pmcdev.h"

/* What the device layer's resolver needs of machine @m. */
static void pmc_dev_mdesc(const struct pmc_mdesc *m, struct pmcdev_mdesc *d)
{
	const struct pmc_classinfo *hw = pmc__hw_class(m->cpu);

	memset(d, 0, sizeof(*d));
	d->hw_class = hw ? hw->pm_class : 0;
	d->has_iaf = pmc__class_info(m->cpu, PMC_CLASS_IAF) != NULL;
	d->has_tsc = pmc__class_info(m->cpu, PMC_CLASS_TSC) != NULL;
	d->vendor = pmcdev_vendor(m->cpu->pm_cputype);
	d->soft = m->soft;
	d->nsoft = m->nsoft;
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
	{ "ARMV8-", PMC_CLASS_ARMV8 },
};

/*
 * "CLASS-name" resolves in that class only, which the machine must have;
 * any other name goes to the one resolver of the device layer.
 */
static int pmc_resolve(const struct pmc_mdesc *m, const char *name,
		       enum pmc_mode mode, struct pmc_op_pmcallocate *req,
		       uint32_t *named)
{
	struct pmcdev_mdesc d;
	struct pmcdev_event e;
	size_t i, len;
	int err = -1;

	pmc_dev_mdesc(m, &d);
	for (i = 0; i < PMC_ARRAY_SIZE(pmc_prefixes) && err < 0; i++) {
		len = strlen(pmc_prefixes[i].prefix);
		if (strncasecmp(name, pmc_prefixes[i].prefix, len) == 0)
			err = pmc__class_info(m->cpu, pmc_prefixes[i].cl) ?
				pmcdev_resolve_in_class(&d, pmc_prefixes[i].cl,
							name + len, &e) : EINVAL;
	}
	if (err < 0)
		err = pmcdev_resolve(&d, name, PMC_IS_VIRTUAL_MODE(mode), &e);
	if (err)
		return err;
	req->pm_class = e.cls;
	req->pm_ev = e.ev;
	req->pm_md.pm_type = e.type;
	req->pm_md.pm_config = e.config;
	req->pm_md.pm_config1 = e.config1;
	req->pm_md.pm_config2 = e.config2;
	*named = e.caps;
	return 0;
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

/*
 * One qualifier: "usr", "os" (into @asked), "edge", "inv", "cmask=N",
 * "umask=N", ...
 */
static int pmc_apply_qualifier(char *q, struct pmc_op_pmcallocate *req,
			       uint32_t *asked)
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
		*asked |= PMC_CAP_USER;
		return 0;
	}
	if (!val && strcasecmp(q, "os") == 0) {
		*asked |= PMC_CAP_SYSTEM;
		return 0;
	}
	if (!raw)
		return EINVAL;		/* the rest edit a PERFEVTSEL encoding */
	if (!val && strcasecmp(q, "edge") == 0) {
		*cfg |= PMCDEV_EVSEL_EDGE;
		req->pm_caps |= PMC_CAP_EDGE;
		return 0;
	}
	if (!val && strcasecmp(q, "inv") == 0) {
		*cfg |= PMCDEV_EVSEL_INV;
		req->pm_caps |= PMC_CAP_INVERT;
		return 0;
	}
	if (val && (strcasecmp(q, "cmask") == 0 || strcasecmp(q, "count") == 0)) {
		if (pmc_qual_value(val, 0xff, &v))
			return EINVAL;
		*cfg = (*cfg & ~PMCDEV_EVSEL_CMASK) | (v << PMCDEV_EVSEL_CMASK_SHIFT);
		req->pm_caps |= PMC_CAP_THRESHOLD;
		return 0;
	}
	if (val && (strcasecmp(q, "umask") == 0 || strcasecmp(q, "mask") == 0)) {
		if (pmc_qual_value(val, 0xff, &v))
			return EINVAL;
		*cfg = (*cfg & ~PMCDEV_EVSEL_UMASK) | (v << PMCDEV_EVSEL_UMASK_SHIFT);
		req->pm_caps |= PMC_CAP_QUALIFIER;
		return 0;
	}
	return EINVAL;
}

int pmc__spec_encode(const struct pmc_mdesc *m, const char *spec,
		     enum pmc_mode mode, struct pmc_op_pmcallocate *req)
{
	uint32_t asked = 0, named = 0, levels;
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

	err = *name ? pmc_resolve(m, name, mode, req, &named) : EINVAL;
	while (!err && q) {
		next = strchr(q, ',');
		if (next)
			*next++ = '\0';
		err = *q ? pmc_apply_qualifier(q, req, &asked) : EINVAL;
		q = next;
	}
	/* The privilege rule of every entry point (pmcdev_levels()). */
	if (!err && pmcdev_levels(asked, named, &levels) < 0)
		err = EINVAL;
	if (!err)
		req->pm_caps |= levels;
	free(buf);
	if (err) {
		memset(req, 0, sizeof(*req));
		return err;
	}
	return 0;
}
