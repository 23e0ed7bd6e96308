// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmclog_ring.c - reading pmclog records from the mmap'd ring of /dev/pmc
 * (<pmc/ring.h>): perf's head/tail protocol, records wrapping past the end
 * of the data area copied in two pieces, and poll(2) with a watermark.
 *
 * The reader is the ring's only consumer. It loads pr_data_head with acquire
 * semantics before reading data, copies each record out of the ring, and
 * only then publishes the new pr_data_tail with a release store, so the
 * kernel never overwrites bytes still being read.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libpmc_impl.h"
#include "pmclog_impl.h"

int pmclog__ring_attach(struct pmclog_parser *ps, void *map, size_t map_len,
			size_t page_size)
{
	struct pmc_ring_page *rp = map;
	uint64_t size = rp->pr_data_size;

	if (rp->pr_version != PMC_RING_VERSION || rp->pr_page_size != page_size ||
	    rp->pr_data_offset != page_size || size == 0 || (size & (size - 1)) ||
	    size > map_len - page_size) {
		errno = EPROTO;
		return -1;
	}
	ps->buf = malloc(PMCLOG_RECORD_MAX);
	if (!ps->buf)
		return -1;
	ps->cap = PMCLOG_RECORD_MAX;
	ps->ring = rp;
	ps->ring_data = (const unsigned char *)map + page_size;
	ps->ring_size = size;
	ps->offset = __atomic_load_n(&rp->pr_data_tail, __ATOMIC_RELAXED);
	return 0;
}

void *pmclog_open_ring(int fd, size_t data_pages)
{
	long page = sysconf(_SC_PAGESIZE);
	struct pmclog_parser *ps;
	size_t len;
	void *map;
	int err;

	if (fd == PMCLOG_FD_NONE)
		fd = pmc__fd();
	if (fd < 0)
		return NULL;
	if (page <= 0 || data_pages == 0 || (data_pages & (data_pages - 1)) ||
	    data_pages >= SIZE_MAX / (size_t)page) {
		errno = EINVAL;
		return NULL;
	}
	len = (data_pages + 1) * (size_t)page;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->src = PMCLOG_SRC_RING;
	ps->fd = fd;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		err = errno;
		free(ps);
		errno = err;
		return NULL;
	}
	ps->map_len = len;
	if (pmclog__ring_attach(ps, map, len, (size_t)page) < 0) {
		err = errno;
		munmap(map, len);
		free(ps);
		errno = err;
		return NULL;
	}
	return ps;
}

void pmclog__ring_unmap(struct pmclog_parser *ps)
{
	if (ps->map_len)
		munmap(ps->ring, ps->map_len);
	ps->ring = NULL;
}

/* Copy @len bytes at free-running offset @pos out of the ring. */
static void pmclog_ring_copy(const struct pmclog_parser *ps, void *dst,
			     uint64_t pos, size_t len)
{
	size_t at = (size_t)(pos & (ps->ring_size - 1));
	size_t first = len;

	if (first > ps->ring_size - at)
		first = ps->ring_size - at;
	memcpy(dst, ps->ring_data + at, first);
	memcpy((char *)dst + first, ps->ring_data, len - first);
}

int pmclog__ring_read(struct pmclog_parser *ps, struct pmclog_ev *ev)
{
	uint64_t head, tail = ps->offset, avail;
	int len;

	head = __atomic_load_n(&ps->ring->pr_data_head, __ATOMIC_ACQUIRE);
	avail = head - tail;
	if (avail == 0) {
		ev->pl_state = PMCLOG_REQUIRE_DATA;
		return -1;
	}
	if (avail > ps->ring_size || avail < sizeof(struct pmclog_header))
		return pmclog__fail(ps, EBADMSG,
				    "ring: head %llu and tail %llu inconsistent",
				    (unsigned long long)head,
				    (unsigned long long)tail);

	pmclog_ring_copy(ps, ps->buf, tail, sizeof(struct pmclog_header));
	len = pmclog__check_header(ps, ps->buf);
	if (len < 0)
		return -1;
	if ((uint64_t)len > avail)
		return pmclog__fail(ps, EBADMSG,
				    "ring offset %llu: record of %d bytes, %llu published",
				    (unsigned long long)tail, len,
				    (unsigned long long)avail);
	pmclog_ring_copy(ps, ps->buf, tail, (size_t)len);

	/* The record is ours now: give its space back to the kernel. */
	__atomic_store_n(&ps->ring->pr_data_tail, tail + (uint64_t)len,
			 __ATOMIC_RELEASE);
	ps->offset = tail + (uint64_t)len;

	if (pmclog__decode(ps, ps->buf, (size_t)len, ev) < 0)
		return -1;
	ev->pl_offset = (off_t)tail;
	return 0;
}

int pmclog_ring_wait(void *cookie, size_t min_bytes, int timeout_ms)
{
	struct pmclog_parser *ps = cookie;
	struct pollfd pfd;
	uint64_t head;
	int r;

	if (!ps || ps->src != PMCLOG_SRC_RING || !ps->map_len) {
		errno = EINVAL;
		return -1;
	}
	if (min_bytes > ps->ring_size)
		min_bytes = ps->ring_size;
	head = __atomic_load_n(&ps->ring->pr_data_head, __ATOMIC_ACQUIRE);
	if (head - ps->offset >= (min_bytes ? min_bytes : 1))
		return 1;

	__atomic_store_n(&ps->ring->pr_watermark, (uint32_t)min_bytes,
			 __ATOMIC_RELAXED);
	pfd.fd = ps->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	r = poll(&pfd, 1, timeout_ms);
	if (r <= 0)
		return r;
	if (pfd.revents & POLLIN)
		return 1;
	errno = EIO;	/* POLLERR: the ring is gone */
	return -1;
}
