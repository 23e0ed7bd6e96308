/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spec.h - the illumos event specification (cpustat/cputrack -c), parsed
 * without libcpc: what the CPU offers comes in through struct cpu_caps.
 */
#ifndef CPCSTAT_SPEC_H
#define CPCSTAT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"

/* Request flags: the values of libcpc's CPC_COUNT_USER / CPC_COUNT_SYSTEM. */
#define SPEC_COUNT_USER		0x2
#define SPEC_COUNT_SYSTEM	0x4

#define SPEC_MAX_ATTRS		16
#define SPEC_ATTR_LEN		32	/* CPC_MAX_ATTR_LEN */
#define SPEC_ERR_LEN		256

struct spec_attr {
	char name[SPEC_ATTR_LEN];
	uint64_t value;
};

/* One counter the spec uses: one libcpc request. */
struct spec_request {
	unsigned int pic;
	char *event;
	unsigned int flags;	/* SPEC_COUNT_* */
	unsigned int nattrs;
	struct spec_attr attrs[SPEC_MAX_ATTRS];
};

/* One -c argument: requests in increasing counter order (request k = k-th used pic). */
struct spec_set {
	char *text;		/* the spec as the user wrote it */
	unsigned int nreqs;
	struct spec_request *reqs;
};

/*
 * Parse TEXT as cpc_strtoset() does. On error returns -1 and writes the
 * one-line message (naming the bad token, no tool prefix, no newline) to ERR.
 */
int spec_parse(const struct cpu_caps *caps, const char *text,
	       struct spec_set *set, char *err, size_t errlen);
void spec_free(struct spec_set *set);

/* True when no request counts user mode (cpustat -s soaks such sets). */
bool spec_system_only(const struct spec_set *set);

/* The column header of request I: "pic<n>" in cpustat's 10-column form. */
void spec_column(const struct spec_set *set, unsigned int i, char *buf, size_t len);

#endif /* CPCSTAT_SPEC_H */
