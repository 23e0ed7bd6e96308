// SPDX-License-Identifier: GPL-2.0
/* recspec.c - record's event arguments: period= and freq= out, the rest for libpmc. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "recspec.h"

static int parse_count(const char *val, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!val || !*val || *val == '-')
		return -1;
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno || *end || v == 0)
		return -1;
	*out = v;
	return 0;
}

int rec_event_parse(const char *arg, struct rec_event *ev, char *err, size_t errlen)
{
	char *copy = strdup(arg), *tok, *next;
	size_t len = strlen(arg) + 1;
	int ret = -1;

	memset(ev, 0, sizeof(*ev));
	ev->spec = calloc(1, len);
	if (!copy || !ev->spec) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		goto out;
	}
	for (tok = copy; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (tok == copy) {
			if (!*tok) {
				snprintf(err, errlen, "missing event name in '%s'", arg);
				goto out;
			}
			ev->name = strdup(tok);
			if (!ev->name)
				goto out;
			strcat(ev->spec, tok);
		} else if (strncmp(tok, "period=", 7) == 0) {
			if (ev->freq || parse_count(tok + 7, &ev->period)) {
				snprintf(err, errlen, "bad token '%s'", tok);
				goto out;
			}
		} else if (strncmp(tok, "freq=", 5) == 0) {
			if (ev->period || parse_count(tok + 5, &ev->freq)) {
				snprintf(err, errlen, "bad token '%s'", tok);
				goto out;
			}
		} else if (!*tok) {
			snprintf(err, errlen, "bad token '' in '%s'", arg);
			goto out;
		} else {
			strcat(ev->spec, ",");
			strcat(ev->spec, tok);
		}
	}
	if (!ev->period && !ev->freq)
		ev->freq = RECORD_DEFAULT_FREQ;
	ret = 0;
out:
	free(copy);
	if (ret)
		rec_event_free(ev);
	return ret;
}

void rec_event_free(struct rec_event *ev)
{
	free(ev->spec);
	free(ev->name);
	memset(ev, 0, sizeof(*ev));
}

bool rec_event_is_clock(const char *name)
{
	if (strncasecmp(name, "SOFT-", 5) == 0)
		name += 5;
	return strcasecmp(name, "cpu-clock") == 0 || strcasecmp(name, "task-clock") == 0;
}

uint64_t rec_event_period(const struct rec_event *ev, double cpu_hz)
{
	double units = rec_event_is_clock(ev->name) ? 1e9 : cpu_hz;
	uint64_t p;

	if (ev->period)
		return ev->period;
	p = (uint64_t)(units / (double)ev->freq);
	return p ? p : 1;
}
