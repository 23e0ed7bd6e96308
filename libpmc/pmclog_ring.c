// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmclog_ring.c - pmclog(3)'s ring source: records read from the mmap'd
 * ring of /dev/pmc through the device layer's ring consumer
 * (dev/pmcdev_ring.c), which keeps perf's head/tail protocol; here, the
 * errors said in pmclog's words and the records decoded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libpmc_impl.h"
#include "pmclog_impl.h"

int pmclog__ring_init(struct pmclog_parser *ps)
{
	ps->buf = malloc(PMCLOG_RECORD_MAX);
	if (!ps->buf)
		return -1;
	ps->cap = PMCLOG_RECORD_MAX;
	ps->offset = ps->ring.tail;
	return 0;
}

void *pmclog_open_ring(int fd, size_t data_pages)
{
	struct pmclog_parser *ps;
	int err;

	if (fd == PMCLOG_FD_NONE)
		fd = pmc__fd();
	if (fd < 0)
		return NULL;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->src = PMCLOG_SRC_RING;
	ps->fd = fd;
	if (pmcdev_ring_map(fd, data_pages, &ps->ring) < 0)
		goto fail;
	if (pmclog__ring_init(ps) < 0)
		goto fail_unmap;
	return ps;

fail_unmap:
	pmcdev_ring_unmap(&ps->ring);
fail:
	err = errno;
	free(ps);
	errno = err;
	return NULL;
}

void pmclog__ring_unmap(struct pmclog_parser *ps)
{
	pmcdev_ring_unmap(&ps->ring);
}

/* The device layer's fault, in pmclog's words; returns -1. */
static int pmclog_ring_fault(struct pmclog_parser *ps,
			     const struct pmcdev_ring_error *e)
{
	switch (e->fault) {
	case PMCDEV_RING_HEADER:
		return pmclog__check_header(ps, &e->hdr) < 0 ? -1 :
			pmclog__fail(ps, EBADMSG, "offset %llu: bad header",
				     (unsigned long long)e->tail);
	case PMCDEV_RING_SHORT:
		return pmclog__fail(ps, EBADMSG,
				    "ring offset %llu: record of %u bytes, %llu published",
				    (unsigned long long)e->tail, e->len,
				    (unsigned long long)(e->head - e->tail));
	default:
		return pmclog__fail(ps, EBADMSG,
				    "ring: head %llu and tail %llu inconsistent",
				    (unsigned long long)e->head,
				    (unsigned long long)e->tail);
	}
}

int pmclog__ring_read(struct pmclog_parser *ps, struct pmclog_ev *ev)
{
	struct pmcdev_ring_error e;
	uint64_t tail = ps->ring.tail;
	uint32_t len;
	int ret;

	ret = pmcdev_ring_next(&ps->ring, ps->buf, ps->cap, &len, &e);
	if (ret == 0) {
		ev->pl_state = PMCLOG_REQUIRE_DATA;
		return -1;
	}
	if (ret < 0)
		return pmclog_ring_fault(ps, &e);
	/* The record is ours now (len <= 16 bits < cap): give its space back. */
	pmcdev_ring_consume(&ps->ring, len);
	ps->offset = ps->ring.tail;
	if (pmclog__decode(ps, ps->buf, (size_t)len, ev) < 0)
		return -1;
	ev->pl_offset = (off_t)tail;
	return 0;
}

int pmclog_ring_wait(void *cookie, size_t min_bytes, int timeout_ms)
{
	struct pmclog_parser *ps = cookie;

	if (!ps || ps->src != PMCLOG_SRC_RING || !ps->ring.map_len) {
		errno = EINVAL;
		return -1;
	}
	return pmcdev_ring_wait(ps->fd, &ps->ring, min_bytes, timeout_ms);
}
