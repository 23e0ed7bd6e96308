// SPDX-License-Identifier: GPL-2.0
/*
 * spec.c - the eventspec parser of cpustat/cputrack (illumos strtoset.c):
 *
 *   [picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]
 *
 * Tokens are separated by commas. picN=EV puts EV on counter N; a bare EV
 * goes to the first counter after the highest one already used that can
 * count it; nouser[N] and sys[N] change the counted modes (default: user
 * only); attr[N][=val] sets an attribute (value 1 when none is given) on
 * counter N or on all counters. Each used counter becomes one request, in
 * increasing counter order.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

#define SPEC_MAX_PICS	256

struct parse {
	const struct cpu_caps *caps;
	char *err;
	size_t errlen;
	char *event[SPEC_MAX_PICS];	/* borrowed from the token copy */
	unsigned int flags[SPEC_MAX_PICS];
	struct spec_attr attrs[SPEC_MAX_PICS][SPEC_MAX_ATTRS];
	unsigned int nattrs[SPEC_MAX_PICS];
	int highest;			/* highest counter used so far, -1 if none */
};

static int fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* "<prefix><n>" with n a decimal counter number below npic: returns n, else -1. */
static int counter_suffix(const struct parse *p, const char *key, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *d = key + len;
	char *end;
	unsigned long n;

	if (strncmp(key, prefix, len) != 0 || !isdigit((unsigned char)*d))
		return -1;
	if (d[0] == '0' && d[1] != '\0')
		return -1;
	n = strtoul(d, &end, 10);
	if (*end != '\0' || n >= p->caps->npic)
		return -1;
	return (int)n;
}

static int set_attr(struct parse *p, unsigned int pic, const char *name,
		    const char *token, const char *val)
{
	uint64_t v = 1;
	unsigned int i;

	if (val) {
		char *end;

		errno = 0;
		v = (uint64_t)strtoll(val, &end, 0);
		if (end == val || *end != '\0' || errno)
			return fail(p, "invalid value '%s' for attribute '%s'", val, token);
	}
	for (i = 0; i < p->nattrs[pic]; i++)
		if (strcmp(p->attrs[pic][i].name, name) == 0)
			break;
	if (i == p->nattrs[pic]) {
		if (i == SPEC_MAX_ATTRS)
			return fail(p, "too many attributes for pic%u at '%s'", pic, token);
		snprintf(p->attrs[pic][i].name, SPEC_ATTR_LEN, "%s", name);
		p->nattrs[pic]++;
	}
	p->attrs[pic][i].value = v;
	return 0;
}

/* attr or attrN: returns 1 if KEY was an attribute, 0 if not, -1 on error. */
static int try_attr(struct parse *p, char *key, const char *val)
{
	const struct cpu_caps *caps = p->caps;
	size_t len = strlen(key);
	char name[SPEC_ATTR_LEN];

	if (caps_has_attr(caps, key)) {
		for (unsigned int pic = 0; pic < caps->npic; pic++)
			if (set_attr(p, pic, key, key, val))
				return -1;
		return 1;
	}
	/* Strip the counter number and look again. */
	while (len > 0 && isdigit((unsigned char)key[len - 1]))
		len--;
	if (len == 0 || len == strlen(key) || len >= sizeof(name))
		return 0;
	memcpy(name, key, len);
	name[len] = '\0';
	if (!caps_has_attr(caps, name))
		return 0;
	{
		int pic = counter_suffix(p, key, name);

		if (pic < 0)
			return 0;
		return set_attr(p, (unsigned int)pic, name, key, val) ? -1 : 1;
	}
}

static int parse_token(struct parse *p, char *token)
{
	const struct cpu_caps *caps = p->caps;
	char *val = strchr(token, '=');
	char *key = token;
	char shown[512];
	int pic, r;

	/* The token as written, for messages. */
	snprintf(shown, sizeof(shown), "%s", token);
	if (val)
		*val++ = '\0';

	pic = counter_suffix(p, key, "pic");
	if (pic >= 0) {
		if (p->event[pic])
			return fail(p, "repeated 'pic%d' token", pic);
		if (!val || !*val)
			return fail(p, "missing 'pic%d' value", pic);
		if (!caps_can_count(caps, (unsigned int)pic, val))
			return fail(p, "pic%d cannot measure event '%s' on this cpu", pic, val);
		p->event[pic] = val;
		if (pic > p->highest)
			p->highest = pic;
		return 0;
	}
	if (strcmp(key, "nouser") == 0 || strcmp(key, "sys") == 0) {
		for (unsigned int i = 0; i < caps->npic; i++) {
			if (key[0] == 'n')
				p->flags[i] &= ~SPEC_COUNT_USER;
			else
				p->flags[i] |= SPEC_COUNT_SYSTEM;
		}
		return 0;
	}
	pic = counter_suffix(p, key, "nouser");
	if (pic >= 0) {
		p->flags[pic] &= ~SPEC_COUNT_USER;
		return 0;
	}
	pic = counter_suffix(p, key, "sys");
	if (pic >= 0) {
		p->flags[pic] |= SPEC_COUNT_SYSTEM;
		return 0;
	}
	r = try_attr(p, key, val);
	if (r)
		return r < 0 ? -1 : 0;
	if (val || !*key)
		return fail(p, "bad token '%s'", shown);

	/* A bare event: the first counter after the highest used that can count it. */
	for (unsigned int i = (unsigned int)(p->highest + 1); i < caps->npic; i++) {
		if (!p->event[i] && caps_can_count(caps, i, key)) {
			p->event[i] = key;
			p->highest = (int)i;
			return 0;
		}
	}
	return fail(p, "bad token '%s'", shown);
}

static int build_set(struct parse *p, struct spec_set *set)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < p->caps->npic; i++)
		n += p->event[i] != NULL;
	if (n == 0)
		return fail(p, "no event in '%s'", set->text);
	set->reqs = calloc(n, sizeof(*set->reqs));
	if (!set->reqs)
		return fail(p, "%s", strerror(ENOMEM));
	for (unsigned int i = 0; i < p->caps->npic; i++) {
		struct spec_request *r;

		if (!p->event[i])
			continue;
		r = &set->reqs[set->nreqs++];
		r->pic = i;
		r->event = strdup(p->event[i]);
		if (!r->event)
			return fail(p, "%s", strerror(ENOMEM));
		r->flags = p->flags[i];
		r->nattrs = p->nattrs[i];
		memcpy(r->attrs, p->attrs[i], sizeof(r->attrs[0]) * r->nattrs);
	}
	return 0;
}

int spec_parse(const struct cpu_caps *caps, const char *text,
	       struct spec_set *set, char *err, size_t errlen)
{
	struct parse *p;
	char *copy = NULL, *tok, *next;
	int ret = -1;

	memset(set, 0, sizeof(*set));
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	p->caps = caps;
	p->err = err;
	p->errlen = errlen;
	p->highest = -1;
	if (caps->npic > SPEC_MAX_PICS) {
		fail(p, "too many counters (%u)", caps->npic);
		goto out;
	}
	for (unsigned int i = 0; i < caps->npic; i++)
		p->flags[i] = SPEC_COUNT_USER;

	set->text = strdup(text);
	copy = strdup(text);
	if (!set->text || !copy) {
		fail(p, "%s", strerror(ENOMEM));
		goto out;
	}
	for (tok = copy; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (parse_token(p, tok))
			goto out;
	}
	if (build_set(p, set))
		goto out;
	ret = 0;
out:
	if (ret)
		spec_free(set);
	free(copy);
	free(p);
	return ret;
}

void spec_free(struct spec_set *set)
{
	for (unsigned int i = 0; set->reqs && i < set->nreqs; i++)
		free(set->reqs[i].event);
	free(set->reqs);
	free(set->text);
	memset(set, 0, sizeof(*set));
}

bool spec_system_only(const struct spec_set *set)
{
	for (unsigned int i = 0; i < set->nreqs; i++)
		if (set->reqs[i].flags & SPEC_COUNT_USER)
			return false;
	return set->nreqs > 0;
}

void spec_column(const struct spec_set *set, unsigned int i, char *buf, size_t len)
{
	char tmp[32];

	/* setgrp.c: "%8s%-2d " of "pic", n, cut to 10 characters. */
	snprintf(tmp, sizeof(tmp), "%8s%-2u ", "pic", set->reqs[i].pic);
	tmp[10] = '\0';
	snprintf(buf, len, "%s", tmp);
}
