// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcdev_ring.c - the consumer of the owner's mmap'd record ring
 * (<pmc/ring.h>, records of <pmc/pmclog.h>): mapping and checking it,
 * records read in place or, wrapping past the end of the data area, copied
 * in two pieces, the tail handed back with a release store, and poll(2)
 * with a watermark.
 * pmclog(3)'s ring source and libcpc's snapshot reader both read through it.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmcdev.h"

int pmcdev_ring_attach(struct pmcdev_ring *r, void *map, size_t map_len,
		       size_t page)
{
	struct pmc_ring_page *pg = map;
	uint64_t size = pg->pr_data_size;

	if (pg->pr_version != PMC_RING_VERSION || pg->pr_page_size != page ||
	    pg->pr_data_offset != page || size == 0 || (size & (size - 1)) ||
	    map_len < page || size > map_len - page) {
		errno = EPROTO;
		return -1;
	}
	r->pg = pg;
	r->data = (const unsigned char *)map + page;
	r->size = size;
	r->map_len = 0;
	r->tail = __atomic_load_n(&pg->pr_data_tail, __ATOMIC_RELAXED);
	r->head = r->tail;
	return 0;
}

int pmcdev_ring_map(int fd, size_t data_pages, struct pmcdev_ring *r)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	void *map;

	if (fd < 0)
		return -1;
	if (page <= 0 || data_pages == 0 || (data_pages & (data_pages - 1)) ||
	    data_pages >= SIZE_MAX / (size_t)page) {
		errno = EINVAL;
		return -1;
	}
	len = (data_pages + 1) * (size_t)page;
	map = pmcdev_mmap(fd, len, PROT_READ | PROT_WRITE, 0);
	if (map == MAP_FAILED)
		return -1;
	if (pmcdev_ring_attach(r, map, len, (size_t)page) < 0) {
		pmcdev_munmap(map, len);
		errno = EPROTO;
		return -1;
	}
	r->map_len = len;
	return 0;
}

void pmcdev_ring_unmap(struct pmcdev_ring *r)
{
	if (r->pg && r->map_len)
		pmcdev_munmap(r->pg, r->map_len);
	r->pg = NULL;
	r->data = NULL;
	r->map_len = 0;
}

/* Copy @len bytes at free-running offset @pos out of the ring. */
static void pmcdev_ring_copy(const struct pmcdev_ring *r, void *dst,
			     uint64_t pos, size_t len)
{
	size_t at = (size_t)(pos & (r->size - 1));
	size_t first = len;

	if (first > r->size - at)
		first = r->size - at;
	memcpy(dst, r->data + at, first);
	memcpy((char *)dst + first, r->data, len - first);
}

static int pmcdev_ring_fault(struct pmcdev_ring_error *err,
			     enum pmcdev_ring_fault fault, uint64_t head,
			     uint64_t tail, uint32_t hdr)
{
	err->fault = fault;
	err->head = head;
	err->tail = tail;
	err->hdr = hdr;
	err->len = PMCLOG_HEADER_TO_LENGTH(hdr);
	errno = EBADMSG;
	return -1;
}

/*
 * pmcdev_ring_peek() past its inline case, which loaded the head and found
 * bytes published: a header or record that wraps, a broken stream.
 */
int pmcdev_ring_peek_slow(struct pmcdev_ring *r, const void **rec, void *buf,
			  size_t cap, uint32_t *len,
			  struct pmcdev_ring_error *err)
{
	uint64_t tail = r->tail, avail;
	const struct pmclog_header *hp;
	struct pmclog_header h;
	bool inplace;
	size_t at;
	uint32_t l;

	avail = r->head - tail;
	/* The kernel publishes whole records only. */
	if (avail > r->size || avail < sizeof(h))
		return pmcdev_ring_fault(err, PMCDEV_RING_POSITION, r->head,
					 tail, 0);
	at = (size_t)(tail & (r->size - 1));
	/* In place; through a copy at a tail off PMCLOG_ALIGN (a bad stream). */
	inplace = !(at % PMCLOG_ALIGN);
	if (inplace && r->size - at >= sizeof(h)) {
		hp = (const struct pmclog_header *)(r->data + at);
	} else {
		pmcdev_ring_copy(r, &h, tail, sizeof(h));
		hp = &h;
	}
	l = PMCLOG_HEADER_TO_LENGTH(hp->pl_header);
	if (!PMCLOG_HEADER_CHECK_MAGIC(hp->pl_header) || l < sizeof(h) ||
	    l % PMCLOG_ALIGN)
		return pmcdev_ring_fault(err, PMCDEV_RING_HEADER, r->head, tail,
					 hp->pl_header);
	if (l > avail)
		return pmcdev_ring_fault(err, PMCDEV_RING_SHORT, r->head, tail,
					 hp->pl_header);
	if (inplace && r->size - at >= l) {
		*rec = r->data + at;
	} else if (l <= cap) {
		pmcdev_ring_copy(r, buf, tail, l);
		*rec = buf;
	} else {
		*rec = NULL;
	}
	*len = l;
	return 1;
}

int pmcdev_ring_next(struct pmcdev_ring *r, void *buf, size_t cap,
		     uint32_t *len, struct pmcdev_ring_error *err)
{
	const void *rec;
	int ret;

	/* A fresh head each time, as the callers of this one expect. */
	r->head = r->tail;
	ret = pmcdev_ring_peek(r, &rec, buf, cap, len, err);
	if (ret > 0 && rec && rec != buf && *len <= cap)
		memcpy(buf, rec, *len);
	return ret;
}

void pmcdev_ring_publish(struct pmcdev_ring *r)
{
	/* Release: the kernel reuses the space only after we read it. */
	__atomic_store_n(&r->pg->pr_data_tail, r->tail, __ATOMIC_RELEASE);
}

void pmcdev_ring_consume(struct pmcdev_ring *r, uint32_t len)
{
	pmcdev_ring_advance(r, len);
	pmcdev_ring_publish(r);
}

void pmcdev_ring_skip_all(struct pmcdev_ring *r)
{
	r->tail = __atomic_load_n(&r->pg->pr_data_head, __ATOMIC_ACQUIRE);
	r->head = r->tail;
	__atomic_store_n(&r->pg->pr_data_tail, r->tail, __ATOMIC_RELEASE);
}

int pmcdev_ring_wait(int fd, struct pmcdev_ring *r, size_t min_bytes,
		     int timeout_ms)
{
	struct pollfd pfd;
	uint64_t head;
	int ret;

	if (min_bytes > r->size)
		min_bytes = r->size;
	head = __atomic_load_n(&r->pg->pr_data_head, __ATOMIC_ACQUIRE);
	if (head - r->tail >= (min_bytes ? min_bytes : 1))
		return 1;

	__atomic_store_n(&r->pg->pr_watermark, (uint32_t)min_bytes,
			 __ATOMIC_RELAXED);
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret <= 0)
		return ret;
	if (pfd.revents & POLLIN)
		return 1;
	errno = EIO;	/* POLLERR: the ring is gone */
	return -1;
}
