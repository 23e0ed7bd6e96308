// SPDX-License-Identifier: GPL-2.0
/*
 * caps_cpc.c - fill struct cpu_caps from libcpc's walkers, and the pieces of
 * cpustat and cputrack that speak libcpc: the error handler, sets from specs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpc_common.h"
#include "cpcstat.h"

static void add_event(void *arg, uint_t pic, const char *event)
{
	struct cpu_caps *caps = arg;

	if (pic < caps->npic)
		name_list_add(&caps->events[pic], event);
}

static void add_generic(void *arg, uint_t pic, const char *event)
{
	struct cpu_caps *caps = arg;

	if (pic < caps->npic)
		name_list_add(&caps->generic[pic], event);
}

static void add_attr(void *arg, const char *attr)
{
	struct cpu_caps *caps = arg;

	name_list_add(&caps->attrs, attr);
}

/* The tool's error handler (cpc_tool_errors()), NULL: libcpc's default. */
static cpc_errhndlr_t *tool_errfn;

static void quiet_errfn(const char *fn, int subcode, const char *fmt,
			va_list ap)
{
	(void)fn;
	(void)subcode;
	(void)fmt;
	(void)ap;
}

/*
 * Can pic @pic count @event? libcpc's answer for a request on that pic:
 * the same resolver, and so the same names, as pmc(3) and `cpcstat record`.
 */
static bool cpc_resolves(void *ctx, unsigned int pic, const char *event)
{
	cpc_attr_t attr = { .ca_name = "picnum", .ca_val = pic };
	cpc_t *cpc = ctx;
	cpc_set_t *set;
	bool ok;

	cpc_seterrhndlr(cpc, quiet_errfn);
	set = cpc_set_create(cpc);
	ok = set && cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER,
					1, &attr) >= 0;
	if (set)
		cpc_set_destroy(cpc, set);
	cpc_seterrhndlr(cpc, tool_errfn);
	return ok;
}

int caps_from_cpc(cpc_t *cpc, struct cpu_caps *caps)
{
	unsigned int npic = cpc_npic(cpc);
	const char *s;

	if (caps_init(caps, npic))
		return -1;
	for (unsigned int i = 0; i < npic; i++) {
		cpc_walk_events_pic(cpc, i, caps, add_event);
		cpc_walk_generic_events_pic(cpc, i, caps, add_generic);
	}
	cpc_walk_attrs(cpc, caps, add_attr);
	caps->resolves = cpc_resolves;
	caps->resolves_ctx = cpc;
	s = cpc_cciname(cpc);
	caps->cciname = strdup(s ? s : "");
	s = cpc_cpuref(cpc);
	caps->cpuref = strdup(s ? s : "");
	return 0;
}

/* The tool's error handler: "<tool>: <message>" ("<tool>: <fn>: ..." with -D). */
static const char *errprog = "cpcstat";
static bool errdebug;

static void cpc_errfn(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
	if (errdebug)
		fprintf(stderr, "%s: %s: ", errprog, fn);
	else
		fprintf(stderr, "%s: ", errprog);
	vfprintf(stderr, fmt, ap);
}

void cpc_tool_errors(cpc_t *cpc, const char *prog, bool debug)
{
	errprog = prog;
	errdebug = debug;
	tool_errfn = cpc_errfn;
	cpc_seterrhndlr(cpc, cpc_errfn);
}

cpc_set_t *set_from_spec(cpc_t *cpc, const struct spec_set *spec)
{
	cpc_set_t *set = cpc_set_create(cpc);

	if (!set)
		return NULL;
	for (unsigned int i = 0; i < spec->nreqs; i++) {
		const struct spec_request *r = &spec->reqs[i];
		cpc_attr_t attrs[SPEC_MAX_ATTRS + 1];
		char picnum[] = "picnum";
		unsigned int n = 0;

		/* Each request on the counter the spec chose, as strtoset.c does. */
		attrs[n].ca_name = picnum;
		attrs[n++].ca_val = r->pic;
		for (unsigned int k = 0; k < r->nattrs; k++) {
			attrs[n].ca_name = (char *)r->attrs[k].name;
			attrs[n++].ca_val = r->attrs[k].value;
		}
		if (cpc_set_add_request(cpc, set, r->event, 0, r->flags, n, attrs) < 0) {
			int err = errno;

			cpc_set_destroy(cpc, set);
			errno = err;
			return NULL;
		}
	}
	return set;
}

int cpc_opts_add_spec(struct cpc_opts *opts, const struct cpu_caps *caps, const char *arg)
{
	struct spec_set *specs = realloc(opts->specs, (opts->nspecs + 1) * sizeof(*specs));
	char err[SPEC_ERR_LEN];

	if (!specs) {
		fprintf(stderr, "%s: %s\n", opts->prog, strerror(ENOMEM));
		return -1;
	}
	opts->specs = specs;
	if (spec_parse(caps, arg, &specs[opts->nspecs], err, sizeof(err))) {
		if (opts->debug)
			fprintf(stderr, "%s: cpc_strtoset: %s\n", opts->prog, err);
		else
			fprintf(stderr, "%s: %s\n", opts->prog, err);
		return -1;
	}
	opts->nspecs++;
	return 0;
}

void cpc_opts_free(struct cpc_opts *opts)
{
	for (unsigned int i = 0; i < opts->nspecs; i++)
		spec_free(&opts->specs[i]);
	free(opts->specs);
	opts->specs = NULL;
	opts->nspecs = 0;
}

void cpc_tool_usage(FILE *fp, const char *fmt, const char *prog, const char *illumos_name)
{
	static const char extra[] =
		"\t-x sep\t  print comma-separated values, separated by sep\n"
		"\t--json\t  print one JSON object per line\n";

	fprintf(fp, fmt, prog, strcmp(prog, illumos_name) ? extra : "");
}

hrtime_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (hrtime_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

cpc_t *cpc_tool_open(const char *prog, const char *what, struct cpu_caps *caps)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);

	if (!cpc) {
		fprintf(stderr, "%s: cannot access performance counter%s - %s\n", prog, what,
			strerror(errno));
		return NULL;
	}
	cpc_tool_errors(cpc, prog, false);
	if (caps_from_cpc(cpc, caps)) {
		fprintf(stderr, "%s: %s\n", prog, strerror(errno));
		cpc_close(cpc);
		return NULL;
	}
	return cpc;
}

int cpc_tool_parsed(int r, const char *fmt, const char *prog, const char *illumos_name,
		    const struct cpu_caps *caps)
{
	if (r > 0) {
		cpc_tool_usage(stdout, fmt, prog, illumos_name);
		fputc('\n', stdout);
		caps_print(stdout, caps);
		return 0;
	}
	if (r < 0) {
		cpc_tool_usage(stderr, fmt, prog, illumos_name);
		return EXIT_USAGE;
	}
	return -1;
}
