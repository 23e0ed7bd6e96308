/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pmcdev.h - the one user-space layer over /dev/pmc, shared by libpmc and
 * libcpc: the ioctl calls, the consumer of the mmap'd record ring, the
 * self-read page, the fetch of a class's named events, and (pmcdev_event.c)
 * the one event-name resolver. Every call takes the /dev/pmc descriptor:
 * pmc(3) passes its process-wide one, libcpc its handle's.
 *
 * Built once as libpmcdev.a with hidden visibility and linked into both
 * libraries; nothing here is exported and nothing is installed. The names
 * carry the pmcdev_ prefix.
 *
 * Errors: -1 with errno, as the system calls. A negative @fd is a failed
 * open: the call returns -1 leaving errno as the open set it, so a caller
 * may pass what its open returned without testing it first.
 *
 * Async-signal safety: the ioctl calls, the ring reader and the self-read
 * reader take no lock and allocate nothing (libcpc calls them from its
 * overflow signal handler); pmcdev_events() and the resolver allocate.
 */
#ifndef _PMCDEV_H_
#define _PMCDEV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmc/hwpmc.h>
#include <pmc/pmclog.h>
#include <pmc/ring.h>

/* ------------------------------------------------------------ system calls */

/*
 * pmcdev_sys.c: the only file that makes the system calls on the device.
 * libcpc's host unit tests link their simulated /dev/pmc in its place
 * (libcpc/tests/fake_pmc.c); the libraries always link this one.
 */

/* open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC): the descriptor, or -1. */
int pmcdev_open(void);
void pmcdev_close(int fd);
/* ioctl(2), restarted after EINTR: 0, or -1 with errno. */
int pmcdev_ioctl(int fd, unsigned long request, void *arg);
/* mmap(2) of the device, MAP_SHARED: the address, or MAP_FAILED with errno. */
void *pmcdev_mmap(int fd, size_t len, int prot, off_t off);
void pmcdev_munmap(void *addr, size_t len);

/* ------------------------------------------------------------ the ioctls */

/* GETMODULEVERSION: the driver's version, EPROGMISMATCH for another major. */
int pmcdev_version(int fd, uint32_t *version);
/* GETCPUINFO into @ci (zeroed first). */
int pmcdev_cpuinfo(int fd, struct pmc_op_getcpuinfo *ci);
/*
 * GETDYNEVENTINFO of class @cl: *events malloc'd (NULL when *n is 0), each
 * name NUL-terminated. Asks again while the table grows between calls.
 */
int pmcdev_events(int fd, uint32_t cl, struct pmc_dyn_event_descr **events,
		  uint32_t *n);
/* PMCALLOCATE: req->pm_pmcid is PMC_ID_INVALID unless it succeeds. */
int pmcdev_allocate(int fd, struct pmc_op_pmcallocate *req);
int pmcdev_attach(int fd, uint32_t id, pid_t pid, uint32_t flags);
int pmcdev_detach(int fd, uint32_t id, pid_t pid, uint32_t flags);
int pmcdev_start(int fd, uint32_t id);
int pmcdev_stop(int fd, uint32_t id);
int pmcdev_release(int fd, uint32_t id);
/* PMCRW with PMC_F_NEWVALUE/PMC_F_OLDVALUE @flags; @old may be NULL. */
int pmcdev_rw(int fd, uint32_t id, uint32_t flags, uint64_t value,
	      uint64_t *old);
int pmcdev_setcount(int fd, uint32_t id, uint64_t count);
/* PMCREADSET of @n PMCs; @timestamp may be NULL. */
int pmcdev_readset(int fd, unsigned int n, const uint32_t *ids,
		   uint64_t *values, uint64_t *timestamp);
int pmcdev_caps(int fd, uint32_t id, uint32_t *caps);
int pmcdev_getmsr(int fd, uint32_t id, uint32_t *msr);
int pmcdev_configurelog(int fd, int logfd);
int pmcdev_flushlog(int fd);
int pmcdev_closelog(int fd);
int pmcdev_writelog(int fd, uint32_t udata);

/* ------------------------------------------------------------ the ring */

/*
 * The owner's mmap'd record ring (<pmc/ring.h>), read with perf's protocol:
 * load-acquire pr_data_head, copy the record out, store-release
 * pr_data_tail, so the kernel never overwrites bytes still being read. One
 * consumer at a time (the caller keeps that rule).
 */
struct pmcdev_ring {
	struct pmc_ring_page *pg;
	const unsigned char *data;
	uint64_t size;		/* pr_data_size, a power of two */
	size_t map_len;		/* what pmcdev_ring_unmap() unmaps, or 0 */
	uint64_t tail;		/* the next record's free-running offset */
};

/* Why pmcdev_ring_next() found the stream broken (errno EBADMSG). */
enum pmcdev_ring_fault {
	PMCDEV_RING_POSITION,	/* head and tail inconsistent */
	PMCDEV_RING_HEADER,	/* bad magic or length: @hdr has it */
	PMCDEV_RING_SHORT,	/* a record longer than what is published */
};

struct pmcdev_ring_error {
	enum pmcdev_ring_fault fault;
	uint64_t head, tail;
	uint32_t hdr;		/* the record's header word */
	uint32_t len;		/* its length */
};

/*
 * Check the control page of a ring mapped at @map (@map_len bytes, control
 * page and data, pages of @page bytes) and set @r up to read it from its
 * current tail. 0, or -1 with errno EPROTO. @r->map_len is left 0.
 */
int pmcdev_ring_attach(struct pmcdev_ring *r, void *map, size_t map_len,
		       size_t page);
/* Map the ring of @fd with @data_pages data pages (a power of two), checked. */
int pmcdev_ring_map(int fd, size_t data_pages, struct pmcdev_ring *r);
void pmcdev_ring_unmap(struct pmcdev_ring *r);
/*
 * The record at the tail: 1 with its length in *@len and, when it fits in
 * @cap bytes, a copy in @buf (a longer one is left uncopied: the caller
 * skips it); 0 when none is published; -1 with errno EBADMSG and @err
 * filled when the stream is broken. The tail does not move.
 */
int pmcdev_ring_next(struct pmcdev_ring *r, void *buf, size_t cap,
		     uint32_t *len, struct pmcdev_ring_error *err);
/* Give @len bytes at the tail back to the kernel (store-release). */
void pmcdev_ring_consume(struct pmcdev_ring *r, uint32_t len);
/* Give everything published back: the way past a broken stream. */
void pmcdev_ring_skip_all(struct pmcdev_ring *r);
/*
 * Wait until @min_bytes (at least 1) are published beyond the tail, with
 * the ring's watermark and poll(2) on @fd: 1, 0 on timeout, or -1 with
 * errno (EIO: the ring is gone).
 */
int pmcdev_ring_wait(int fd, struct pmcdev_ring *r, size_t min_bytes,
		     int timeout_ms);

/* ------------------------------------------------------------ self-read */

/* Map the self-read page of @group: the page (*@len bytes), or NULL with errno. */
const struct pmc_selfread_page *pmcdev_selfread_map(int fd, uint32_t group,
						    size_t *len);
int pmcdev_selfread_unmap(const struct pmc_selfread_page *pg, size_t len);

/*
 * Read @n PMCs from the page with perf's seqcount protocol. 1: @values and
 * *@ts (CLOCK_MONOTONIC ns; @ts may be NULL) are the PMCs' values; 0: a
 * system call is needed (an entry says SYSCALL, a kind this reader does not
 * know, or RDPMC where there is none); -1 with errno ENOENT: a PMC is not
 * on the page. @hint (may be NULL) caches the entry of each PMC between
 * calls; start it with -1s.
 */
int pmcdev_selfread(const struct pmc_selfread_page *pg, unsigned int n,
		    const uint32_t *ids, uint64_t *values, uint64_t *ts,
		    int *hint);

#endif /* !_PMCDEV_H_ */
