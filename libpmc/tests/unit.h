/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unit.h - shared helpers of libpmc's host unit tests: the suites, fake
 * machine descriptions, and a builder of pmclog records.
 */
#ifndef _LIBPMC_UNIT_H_
#define _LIBPMC_UNIT_H_

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "libpmc_impl.h"
#include "pmclog_impl.h"

Suite *names_suite(void);
Suite *spec_suite(void);
Suite *log_suite(void);
Suite *ring_suite(void);
Suite *fuzz_suite(void);
Suite *selfread_suite(void);

/* Fake machines, as GETCPUINFO/GETDYNEVENTINFO would describe them. */
enum unit_machine {
	UNIT_INTEL,	/* TSC, IAP, IAF, SOFT */
	UNIT_AMD,	/* TSC, K8, SOFT */
	UNIT_GENERIC,	/* TSC, SOFT: no hardware PMU (the test VM) */
	UNIT_SOFT_ONLY,	/* SOFT alone */
};
const struct pmc_mdesc *unit_machine(enum unit_machine which);

/* A record ring laid out as pmc.ko maps it (<pmc/ring.h>), in memory. */
struct fake_ring {
	void *map;
	size_t page, size;
	struct pmc_ring_page *ctl;
	unsigned char *data;
};
/* @size bytes of data (a power of two), head and tail at @start. */
void fake_ring_make(struct fake_ring *r, size_t size, uint64_t start);
/* What the kernel does: copy @len bytes in (wrapping), publish the head. */
void fake_ring_produce(struct fake_ring *r, const void *p, size_t len);
/* A pmclog parser reading the ring. */
struct pmclog_parser *fake_ring_open(struct fake_ring *r);
void fake_ring_free(struct fake_ring *r);

/* A growing byte buffer of pmclog records. */
struct logbuf {
	unsigned char *p;
	size_t len, cap;
	uint32_t seq;
};

/*
 * Append a record of @type: @fixed (@fixedlen bytes, its header is filled
 * here: magic, type, length, the next sequence number, timestamp @tsc) and
 * @extra bytes, zero-padded to a multiple of 8.
 */
void lb_add(struct logbuf *b, uint32_t type, void *fixed, size_t fixedlen,
	    const void *extra, size_t extralen, uint64_t tsc);
/* Append raw bytes. */
void lb_raw(struct logbuf *b, const void *p, size_t len);
void lb_free(struct logbuf *b);

/* One record of every type pmc.ko writes, with known values (log_test.c). */
void lb_all_types(struct logbuf *b);
/* Their types in order, and how many. */
extern const uint32_t lb_all_types_order[];
extern const size_t lb_all_types_count;
/* Check an event against the record lb_all_types() wrote at index @i. */
void lb_check_event(size_t i, const struct pmclog_ev *ev);

#endif /* !_LIBPMC_UNIT_H_ */
