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
/* PMCATTACH or PMCDETACH (@request) of PMC @id and @pid, PMC_ATTACH_F_ @flags. */
int pmcdev_attach(int fd, unsigned long request, uint32_t id, pid_t pid,
		  uint32_t flags);
/* PMCSTART, PMCSTOP or PMCRELEASE (@request) of PMC @id. */
int pmcdev_op(int fd, unsigned long request, uint32_t id);
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
	uint64_t head;		/* pr_data_head as last loaded */
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
/*
 * The published bytes at the tail that lie in one piece (up to the end of
 * the data area), for a reader that walks a batch of records in place:
 * *@p points at them and their count is returned, 0 when none is published
 * or the position is broken. The head is loaded (load-acquire) only when
 * the records known to be published are all read. The reader takes each
 * record with pmcdev_ring_span_rec(), steps past what it read with
 * pmcdev_ring_advance(), and leaves a record the span does not hold whole
 * (it wraps, or the stream is broken) to pmcdev_ring_peek().
 */
static inline size_t pmcdev_ring_span(struct pmcdev_ring *r,
				      const unsigned char **p)
{
	uint64_t avail, at;

	/* Acquire: the records' bytes are read after the head that covers them. */
	if (r->head == r->tail)
		r->head = __atomic_load_n(&r->pg->pr_data_head, __ATOMIC_ACQUIRE);
	avail = r->head - r->tail;
	at = r->tail & (r->size - 1);
	if (avail > r->size || at % PMCLOG_ALIGN)
		return 0;
	*p = r->data + at;
	return (size_t)(avail < r->size - at ? avail : r->size - at);
}

/*
 * The length of the record at @p, @room bytes of a span from its end: 0
 * unless a whole record with a sane header (magic, aligned length) lies
 * there.
 */
static inline uint32_t pmcdev_ring_span_rec(const unsigned char *p, size_t room)
{
	uint32_t hdr, l;

	if (room < sizeof(struct pmclog_header))
		return 0;
	hdr = ((const struct pmclog_header *)p)->pl_header;
	l = PMCLOG_HEADER_TO_LENGTH(hdr);
	/* The magic and an aligned length in one test; then the bounds. */
	if ((hdr & (0xff000000U | (PMCLOG_ALIGN - 1))) !=
	    PMCLOG_HEADER_MAGIC << 24 ||
	    l - sizeof(struct pmclog_header) > room - sizeof(struct pmclog_header))
		return 0;
	return l;
}

/*
 * pmcdev_ring_next() without the copy, for a reader that takes several
 * records in a row: *@rec points at the record in the ring itself, or at
 * its copy in @buf where it wraps past the end of the data area (NULL when
 * it wraps and is longer than @cap: the caller skips it). The bytes stay
 * the reader's until pmcdev_ring_publish() gives them back. The head is
 * loaded (load-acquire) only when the records known to be published are
 * all read.
 */
int pmcdev_ring_peek_slow(struct pmcdev_ring *r, const void **rec, void *buf,
			  size_t cap, uint32_t *len,
			  struct pmcdev_ring_error *err);
static inline int pmcdev_ring_peek(struct pmcdev_ring *r, const void **rec,
				   void *buf, size_t cap, uint32_t *len,
				   struct pmcdev_ring_error *err)
{
	/* Inline: a published record that does not wrap, with a sane header. */
	const unsigned char *p;
	size_t span = pmcdev_ring_span(r, &p);
	uint32_t l = span ? pmcdev_ring_span_rec(p, span) : 0;

	if (l) {
		*rec = p;
		*len = l;
		return 1;
	}
	if (r->head == r->tail)
		return 0;	/* nothing published: the head was just loaded */
	return pmcdev_ring_peek_slow(r, rec, buf, cap, len, err);
}

/* Step past the record at the tail; the kernel sees it at the next publish. */
static inline void pmcdev_ring_advance(struct pmcdev_ring *r, uint32_t len)
{
	r->tail += len;
}

/* Give what was read back to the kernel: store-release of the tail. */
void pmcdev_ring_publish(struct pmcdev_ring *r);
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
/* Its call-free path for one PMC, pmcdev_selfread1(): pmcdev_selfread_inline.h. */

/* ------------------------------------------------------------ event names */

/*
 * PERFEVTSEL fields (Intel IA32_PERFEVTSELx and AMD PERF_CTLx alike), what
 * pmc(3)'s qualifiers and libcpc's attributes edit in a raw encoding. AMD
 * keeps event-select bits 11:8 in bits 35:32.
 */
#define PMCDEV_EVSEL_EVENT		0xffULL
#define PMCDEV_EVSEL_UMASK_SHIFT	8
#define PMCDEV_EVSEL_UMASK		(0xffULL << PMCDEV_EVSEL_UMASK_SHIFT)
#define PMCDEV_EVSEL_EDGE		(1ULL << 18)
#define PMCDEV_EVSEL_INV		(1ULL << 23)
#define PMCDEV_EVSEL_CMASK_SHIFT	24
#define PMCDEV_EVSEL_CMASK		(0xffULL << PMCDEV_EVSEL_CMASK_SHIFT)
#define PMCDEV_EVSEL_AMD_EVENT_HI	(0xfULL << 32)
/* A raw event-select code (Intel 8 bits, AMD 12) in the PERFEVTSEL layout. */
#define PMCDEV_EVSEL_CODE(code) \
	(((code) & PMCDEV_EVSEL_EVENT) | (((code) & 0xf00ULL) << 24))

/*
 * FreeBSD's event-name comparison: case-insensitive, with ' ', '_', '-' and
 * '.' all equal. pmcdev_name_eqn() compares @a with the first @blen bytes
 * of @b.
 */
bool pmcdev_name_eq(const char *a, const char *b);
bool pmcdev_name_eqn(const char *a, const char *b, size_t blen);
/* perf's name of a generic hardware event (PERF_COUNT_HW_*), or NULL. */
const char *pmcdev_hw_name(uint64_t config);
/* Linux's name of a software event (PERF_COUNT_SW_*), or NULL. */
const char *pmcdev_soft_name(uint64_t config);

/* libpfm4 (pmcdev_pfm.c). */
struct pmcdev_pfm_encoding {
	uint32_t type;		/* PERF_TYPE_* */
	uint64_t config, config1, config2;
	uint32_t caps;		/* PMC_CAP_USER/SYSTEM its modifiers asked for, or 0 */
};
/*
 * Encode a libpfm4 event name ("INST_RETIRED:ANY_P:u", "inst_retired.any_p",
 * FreeBSD's "inst-retired.any-p") for perf, asking for user and kernel.
 * Returns 0, ENOENT if libpfm4 knows no such event on this CPU, EINVAL for
 * bad attributes or modifiers, ENOMEM.
 */
int pmcdev_pfm_encode(const char *name, struct pmcdev_pfm_encoding *enc);
/*
 * Called for each event of a core PMU: once with @umask NULL, then once per
 * unit mask; @nmask: how many it has, @dfl: one of them is the default (the
 * bare name encodes). A non-zero return stops the walk and is returned.
 */
typedef int pmcdev_pfm_walker_t(void *arg, const char *pmu, const char *event,
				const char *umask, int nmask, bool dfl);
/* Walk every present core PMU, or only the default one. */
int pmcdev_pfm_walk(bool default_only, pmcdev_pfm_walker_t *fn, void *arg);

/* The PAPI (illumos generic_events(3CPC)) and fixed-counter tables. */
#define PMCDEV_VENDOR_INTEL	0x1
#define PMCDEV_VENDOR_AMD	0x2
#define PMCDEV_VENDOR_ALL	(PMCDEV_VENDOR_INTEL | PMCDEV_VENDOR_AMD)

struct pmcdev_generic {
	const char *name;	/* "PAPI_tot_ins" */
	uint32_t type;		/* PERF_TYPE_HARDWARE or PERF_TYPE_HW_CACHE */
	uint64_t config;
	unsigned int vendors;	/* whose Linux PMU driver implements it */
	int fixed;		/* the fixed counter that counts it too, or -1 */
};
/* The @i-th PAPI event, or NULL past the last. */
const struct pmcdev_generic *pmcdev_generic(size_t i);
/*
 * The @i-th name of an Intel fixed counter's event, or NULL past the last:
 * PMCDEV_NFIXED names (one per counter, in counter order) in illumos'
 * spelling from PMCDEV_FIXED_ILLUMOS, FreeBSD's from PMCDEV_FIXED_FREEBSD,
 * then perf's. *@counter: the counter, *@config: the perf generic event.
 */
const char *pmcdev_fixed_name(size_t i, int *counter, uint64_t *config);
/* The ARMV8 class's PMUv3 common event @i and its number, or NULL past the end. */
const char *pmcdev_armv8_name(size_t i, uint64_t *number);
#define PMCDEV_NFIXED		3	/* fixed counters with a name */
#define PMCDEV_FIXED_ILLUMOS	0
#define PMCDEV_FIXED_FREEBSD	3

/* What the resolver knows of the machine; each library fills one. */
struct pmcdev_mdesc {
	uint32_t hw_class;	/* IAP or K8, 0: no hardware PMU */
	bool has_iaf;		/* fixed counters (IAF) */
	bool has_tsc;		/* the TSC class */
	unsigned int vendor;	/* PMCDEV_VENDOR_*, from the CPU type */
	const struct pmc_dyn_event_descr *soft;	/* the SOFT class's events */
	uint32_t nsoft;
};
/* The PMCDEV_VENDOR_ of a GETCPUINFO cputype (ALL when unknown). */
unsigned int pmcdev_vendor(uint32_t cputype);

/* A resolved event: what PMCALLOCATE needs, less the mode and flags. */
struct pmcdev_event {
	uint32_t cls;		/* PMC_CLASS_SOFT, TSC, IAF, or hw_class */
	uint32_t ev;		/* pm_ev */
	uint32_t type;		/* pm_md: PERF_TYPE_*, configs */
	uint64_t config, config1, config2;
	uint32_t caps;		/* levels the name's modifiers asked for, or 0 */
	int fixed;		/* a fixed counter that counts it too, or -1 */
};

/*
 * The one event-name resolver of pmc(3), libcpc and the tools. @name, in
 * this order: a pmc(3) alias ("instructions", "cycles", "branches", ...),
 * a SOFT event the driver names ("task-clock"), "TSC", a PAPI name
 * ("PAPI_tot_ins"), a fixed-counter event name ("instr_retired.any"),
 * perf's generic hardware names ("cpu-cycles"), then libpfm4's names for
 * this CPU with their modifiers. Names compare as FreeBSD's do. @virt: the
 * event counts in a process (thread) mode, which picks task-clock over
 * cpu-clock where an alias falls back on a clock. Returns 0, EINVAL for an
 * unknown name or bad modifiers, EOPNOTSUPP for a name this machine has no
 * class to count, ENOMEM.
 */
int pmcdev_resolve(const struct pmcdev_mdesc *m, const char *name, bool virt,
		   struct pmcdev_event *e);
/* Within one class (pmc(3)'s "CLASS-name"): SOFT, TSC, IAF, IAP or K8. */
int pmcdev_resolve_in_class(const struct pmcdev_mdesc *m, uint32_t cls,
			    const char *name, struct pmcdev_event *e);

/*
 * The privilege rule, the same for every entry point. @asked: the levels
 * the caller's qualifiers name (pmc(3) "usr"/"os", libcpc's
 * CPC_COUNT_USER/SYSTEM, cpustat's "sys"/"nouser"), as PMC_CAP_USER and
 * PMC_CAP_SYSTEM; @named: those the event name's libpfm4 modifiers name
 * (":u", ":k"). Neither: 0, which the driver counts as user and kernel.
 * One of them: that one. Both: what they have in common; -1 when that is
 * nothing (the request contradicts itself: EINVAL).
 */
int pmcdev_levels(uint32_t asked, uint32_t named, uint32_t *caps);

#endif /* !_PMCDEV_H_ */
