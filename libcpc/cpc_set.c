// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_set.c - sets and their requests: cpc_set_create, cpc_set_destroy,
 * cpc_set_add_request (with illumos' checks and messages), and
 * cpc_walk_requests.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc_impl.h"

static void req_free(struct cpc_req *r)
{
	uint_t i;

	for (i = 0; i < r->nattrs; i++)
		free(r->attrs[i].ca_name);
	free(r->attrs);
	free(r->event);
}

/* Frees the set's memory; the caller unlinked and unbound it. */
void cpc_set_free(cpc_set_t *set)
{
	int i;

	for (i = 0; i < set->nreqs; i++)
		req_free(&set->reqs[i]);
	free(set->reqs);
	free(set->saved_affinity);
	set->magic = 0;
	free(set);
}

cpc_set_t *cpc_set_create(cpc_t *cpc)
{
	cpc_set_t *set;
	sigset_t saved;

	if (!cpc_valid(cpc)) {
		errno = EINVAL;
		return NULL;
	}
	set = calloc(1, sizeof(*set));
	if (!set)
		return NULL;
	set->magic = CPC_SET_MAGIC;
	set->cpc = cpc;
	set->tick_slot = -1;
	cpc_lock(cpc, &saved);
	set->next = cpc->sets;
	cpc->sets = set;
	cpc_unlock(cpc, &saved);
	return set;
}

int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set)
{
	cpc_set_t **pp;
	sigset_t saved;

	if (!cpc_set_valid(cpc, set)) {
		errno = EINVAL;
		return -1;
	}
	cpc_lock(cpc, &saved);
	for (pp = &cpc->sets; *pp && *pp != set; pp = &(*pp)->next)
		;
	if (!*pp) {
		cpc_unlock(cpc, &saved);
		errno = EINVAL;
		return -1;
	}
	*pp = set->next;
	cpc_unlock(cpc, &saved);
	if (set->bind != CPC_BIND_NONE)
		cpc_unbind_set(cpc, set);
	cpc_set_free(set);
	return 0;
}

/* strndup bounded by @max including the NUL, as illumos' strncpy does. */
static char *copy_truncated(const char *s, size_t max)
{
	return strndup(s, max - 1);
}

int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
			uint64_t preset, uint_t flags, uint_t nattrs,
			const cpc_attr_t *attrs)
{
	static const char fn[] = "cpc_set_add_request";
	struct cpc_req req = { .preset = preset, .flags = flags, .picnum = -1 };
	struct cpc_req *reqs;
	uint_t i;

	if (!cpc_set_valid(cpc, set) || set->bind != CPC_BIND_NONE) {
		errno = EINVAL;
		return -1;
	}
	if (!event || (!attrs && nattrs)) {
		errno = EINVAL;
		return -1;
	}
	if (set->nreqs >= CPC_SET_MAX_REQS) {
		/* More than one sample can read: never bindable. */
		cpc_err(cpc, fn, CPC_RESOURCE_UNAVAIL);
		errno = EINVAL;
		return -1;
	}

	req.event = copy_truncated(event, CPC_MAX_EVENT_LEN);
	if (!req.event)
		return -1;
	/* The catalogue, a raw code, then the vocabulary pmc(3) shares. */
	req.ev = cpc_event_find(cpc, req.event);
	if (!req.ev && !cpc_event_parse_raw(cpc, req.event, &req.raw)) {
		if (cpc_event_resolve(cpc, req.event, false, &req.dev)) {
			cpc_err(cpc, fn, CPC_INVALID_EVENT);
			goto inval;
		}
		req.named = true;
	}

	for (i = 0; i < nattrs; i++) {
		const char *name = attrs[i].ca_name;

		if (!name || !*name || !cpc_attr_known(cpc, name)) {
			cpc_err(cpc, fn, CPC_INVALID_ATTRIBUTE);
			goto inval;
		}
		if (!strcmp(name, "picnum")) {
			if (attrs[i].ca_val >= cpc->npic) {
				cpc_err(cpc, fn, CPC_INVALID_PICNUM);
				goto inval;
			}
			if (!(cpc_req_picmask(cpc, &req) &
			      (1ULL << attrs[i].ca_val))) {
				cpc_err(cpc, fn, CPC_PIC_NOT_CAPABLE);
				goto inval;
			}
			req.picnum = (int)attrs[i].ca_val;
		}
	}

	if (nattrs) {
		req.attrs = calloc(nattrs, sizeof(*req.attrs));
		if (!req.attrs)
			goto nomem;
		for (i = 0; i < nattrs; i++) {
			req.attrs[i].ca_name = copy_truncated(attrs[i].ca_name,
							      CPC_MAX_ATTR_LEN);
			if (!req.attrs[i].ca_name)
				goto nomem;
			req.attrs[i].ca_val = attrs[i].ca_val;
			req.nattrs = i + 1;
		}
	}
	reqs = realloc(set->reqs, (size_t)(set->nreqs + 1) * sizeof(*reqs));
	if (!reqs)
		goto nomem;
	req.pmcid = PMC_ID_INVALID;
	req.slot = -1;
	set->reqs = reqs;
	set->reqs[set->nreqs] = req;
	return set->nreqs++;

nomem:
	req_free(&req);
	errno = ENOMEM;
	return -1;
inval:
	req_free(&req);
	errno = EINVAL;
	return -1;
}

/* illumos keeps requests newest first: the walk reports them so. */
void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
		       void (*action)(void *arg, int index, const char *event,
				      uint64_t preset, uint_t flags,
				      int nattrs, const cpc_attr_t *attrs))
{
	int i;

	if (!cpc_set_valid(cpc, set) || !action)
		return;
	for (i = set->nreqs - 1; i >= 0; i--) {
		const struct cpc_req *r = &set->reqs[i];

		action(arg, i, r->event, r->preset, r->flags, (int)r->nattrs,
		       r->attrs);
	}
}
