// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmclog.c - pmclog(3): open, feed, read and close a record stream (a log
 * file, a pipe, or bytes the caller feeds), FreeBSD's parser API.
 *
 * States, as FreeBSD's: -1 from pmclog_read() with PMCLOG_EOF (end of the
 * file at a record boundary; not sticky, a later read tries again, so a
 * growing file can be followed), PMCLOG_REQUIRE_DATA (feed mode, the ring,
 * or a non-blocking descriptor: no complete record yet), PMCLOG_ERROR (sticky: a corrupt record, a record
 * cut by the end of the file, a read error).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmclog_impl.h"

#define PMCLOG_READ_CHUNK	65536

static struct pmclog_parser *pmclog_new(enum pmclog_source src, int fd)
{
	struct pmclog_parser *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->src = src;
	ps->fd = fd;
	return ps;
}

void *pmclog_open(int fd)
{
	return pmclog_new(fd == PMCLOG_FD_NONE ? PMCLOG_SRC_FEED : PMCLOG_SRC_FD,
			  fd);
}

/* Room for @more bytes after buf[end]: drop consumed bytes, then grow. */
static int pmclog_reserve(struct pmclog_parser *ps, size_t more)
{
	size_t unread = ps->end - ps->start, cap;
	char *nb;

	if (ps->start) {
		memmove(ps->buf, ps->buf + ps->start, unread);
		ps->start = 0;
		ps->end = unread;
	}
	if (ps->cap - ps->end >= more)
		return 0;
	if (more > SIZE_MAX / 2 - unread) {
		errno = ENOMEM;
		return -1;
	}
	cap = ps->cap ? ps->cap : PMCLOG_READ_CHUNK;
	while (cap - unread < more)
		cap *= 2;
	nb = realloc(ps->buf, cap);
	if (!nb)
		return -1;
	ps->buf = nb;
	ps->cap = cap;
	return 0;
}

int pmclog_feed(void *cookie, char *data, int len)
{
	struct pmclog_parser *ps = cookie;

	if (!ps || ps->src != PMCLOG_SRC_FEED || len < 0 || (len && !data)) {
		errno = EINVAL;
		return -1;
	}
	/* The record returned last is consumed now: its bytes may move. */
	ps->start += ps->cur_len;
	ps->offset += ps->cur_len;
	ps->cur_len = 0;
	if (pmclog_reserve(ps, (size_t)len) < 0)
		return -1;
	if (len) {
		memcpy(ps->buf + ps->end, data, (size_t)len);
		ps->end += (size_t)len;
	}
	return 0;
}

/*
 * Have at least @need unread bytes: 1 yes, 0 not yet (feed mode, or end of
 * file with nothing unread: ev->pl_state says which), -1 failed.
 */
static int pmclog_fill(struct pmclog_parser *ps, size_t need,
		       struct pmclog_ev *ev)
{
	ssize_t n;

	while (ps->end - ps->start < need) {
		if (ps->src == PMCLOG_SRC_FEED) {
			ev->pl_state = PMCLOG_REQUIRE_DATA;
			return 0;
		}
		if (pmclog_reserve(ps, PMCLOG_READ_CHUNK) < 0)
			return pmclog__fail(ps, errno, "out of memory");
		n = read(ps->fd, ps->buf + ps->end, ps->cap - ps->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			/* A non-blocking pipe with nothing yet. */
			ev->pl_state = PMCLOG_REQUIRE_DATA;
			return 0;
		}
		if (n < 0)
			return pmclog__fail(ps, errno, "offset %llu: read: %s",
					    (unsigned long long)ps->offset,
					    strerror(errno));
		if (n == 0) {
			if (ps->end == ps->start) {
				ev->pl_state = PMCLOG_EOF;
				return 0;
			}
			return pmclog__fail(ps, EBADMSG,
					    "offset %llu: log ends inside a record (%zu of %zu bytes)",
					    (unsigned long long)ps->offset,
					    ps->end - ps->start, need);
		}
		ps->end += (size_t)n;
	}
	return 1;
}

static int pmclog_stream_read(struct pmclog_parser *ps, struct pmclog_ev *ev)
{
	int len, r;

	ps->start += ps->cur_len;
	ps->offset += ps->cur_len;
	ps->cur_len = 0;

	r = pmclog_fill(ps, sizeof(struct pmclog_header), ev);
	if (r <= 0)
		return -1;
	len = pmclog__check_header(ps, ps->buf + ps->start);
	if (len < 0)
		return -1;
	r = pmclog_fill(ps, (size_t)len, ev);
	if (r <= 0)
		return -1;
	if (pmclog__decode(ps, ps->buf + ps->start, (size_t)len, ev) < 0)
		return -1;
	ps->cur_len = (size_t)len;
	ev->pl_offset = (off_t)ps->offset;
	return 0;
}

int pmclog_read(void *cookie, struct pmclog_ev *ev)
{
	struct pmclog_parser *ps = cookie;
	int ret;

	if (!ps || !ev) {
		errno = EINVAL;
		return -1;
	}
	ev->pl_state = PMCLOG_OK;
	ev->pl_data = NULL;
	ev->pl_len = 0;
	if (!ps->failed) {
		ps->errmsg[0] = '\0';
		if (ps->src == PMCLOG_SRC_RING)
			ret = pmclog__ring_read(ps, ev);
		else
			ret = pmclog_stream_read(ps, ev);
		if (ret == 0) {
			ev->pl_count = ++ps->count;
			return 0;
		}
	}
	if (ps->failed) {
		ev->pl_state = PMCLOG_ERROR;
		errno = ps->failed_errno;
	}
	return -1;
}

const char *pmclog_error(void *cookie)
{
	struct pmclog_parser *ps = cookie;

	return ps ? ps->errmsg : "";
}

void pmclog_close(void *cookie)
{
	struct pmclog_parser *ps = cookie;

	if (!ps)
		return;
	if (ps->src == PMCLOG_SRC_RING)
		pmclog__ring_unmap(ps);
	free(ps->buf);
	free(ps);
}
