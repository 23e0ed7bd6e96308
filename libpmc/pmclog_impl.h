/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmclog_impl.h - the pmclog(3) parser's internals: the parse state shared by
 * the stream reader (pmclog.c), the ring reader (pmclog_ring.c) and the
 * record decoder (pmclog_decode.c).
 */
#ifndef _PMCLOG_IMPL_H_
#define _PMCLOG_IMPL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmcdev.h"
#include "pmclog.h"

enum pmclog_source {
	PMCLOG_SRC_FD,		/* read(2) from a file or pipe */
	PMCLOG_SRC_FEED,	/* bytes given by pmclog_feed() */
	PMCLOG_SRC_RING,	/* the mmap'd ring of /dev/pmc */
};

#define PMCLOG_ERRMSG_LEN	160

/*
 * The parse state behind a pmclog cookie. One reader at a time: the cookie
 * is not locked (FreeBSD's is not either).
 *
 * Stream sources keep the unread bytes in buf[start, end); the record last
 * returned is buf[start, start + cur_len) and is consumed by the next read.
 * Records are multiples of 8 bytes and buf is malloc'd, so every record
 * starts 8-byte aligned. The ring source copies each record into buf.
 */
struct pmclog_parser {
	enum pmclog_source src;
	int fd;			/* FD: the stream; RING: /dev/pmc (for poll) */
	char *buf;
	size_t cap, start, end;
	size_t cur_len;		/* the record returned last, still in buf */
	uint64_t offset;	/* stream offset of buf[start] (RING: our tail) */
	size_t count;		/* records returned */
	bool failed;		/* sticky PMCLOG_ERROR */
	int failed_errno;
	char errmsg[PMCLOG_ERRMSG_LEN];

	/* RING: the device layer's reader; ring.tail == offset */
	struct pmcdev_ring ring;
};

/* Largest record: the 16-bit length field, rounded down to 8. */
#define PMCLOG_RECORD_MAX	PMCLOG_MAX_RECORD

/*
 * Fail for good: PMCLOG_ERROR from now on, errno @err, message @fmt.
 * Returns -1 for the caller to return.
 */
int pmclog__fail(struct pmclog_parser *ps, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Check a record header (magic, length multiple of 8, at least a header).
 * Returns the record length, or -1 after pmclog__fail().
 */
int pmclog__check_header(struct pmclog_parser *ps, const void *hdr);

/*
 * Decode one complete record @rec of @len bytes (8-byte aligned, header
 * already checked) into @ev. Returns 0, or -1 after pmclog__fail().
 */
int pmclog__decode(struct pmclog_parser *ps, const void *rec, size_t len,
		   struct pmclog_ev *ev);

/* The ring source's pmclog_read() and pmclog_close() parts. */
int pmclog__ring_read(struct pmclog_parser *ps, struct pmclog_ev *ev);
void pmclog__ring_unmap(struct pmclog_parser *ps);

/*
 * Set up the ring source's parse state once @ps->ring reads a ring (mapped
 * by pmcdev_ring_map(), or attached by pmcdev_ring_attach() in the tests):
 * the record buffer, the offset. 0, or -1 with errno.
 */
int pmclog__ring_init(struct pmclog_parser *ps);

#endif /* !_PMCLOG_IMPL_H_ */
