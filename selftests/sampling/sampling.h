/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sampling.h - what the sampling suite's tests share: /dev/pmc ops, the
 * mmap'd ring reader, a checker of record streams (header magic, lengths,
 * sequence numbers), sampling PMCs, and the symbols of the test binary
 * (a tiny ELF reader, so that samples can be checked against functions).
 *
 * Every test runs as root in the test VM (tools/pmc-vm) with pmc.ko loaded;
 * without /dev/pmc the fixtures SKIP.
 */
#ifndef _SELFTESTS_SAMPLING_H
#define _SELFTESTS_SAMPLING_H

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <pmc/hwpmc.h>
#include <pmc/pmclog.h>
#include <pmc/ring.h>

#include "pmc_test.h"

/*
 * Failed ASSERTs longjmp to the teardown: -Wclobbered is noise here; so is
 * -Wsign-compare between the harness's int literals and sizes.
 */
#pragma GCC diagnostic ignored "-Wclobbered"
#pragma GCC diagnostic ignored "-Wsign-compare"

/* The 6.1 harness runs a test body even after its setup called SKIP(). */
#define RETURN_IF_SKIPPED()			\
	do {					\
		if (_metadata->skip)		\
			return;			\
	} while (0)

#define SMP_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- ops */

/* /dev/pmc opened read-write, or -errno. */
/* One line of /proc/PID/maps. */
struct smp_map_line {
	uint64_t start, end, off;
	char perms[8];
	char path[256];
};

/* Up to @max lines of /proc/@pid/maps; their number, or -1. */
static inline int smp_read_maps(pid_t pid, struct smp_map_line *m, int max)
{
	char path[64], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		m[n].path[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %255s",
			   &m[n].start, &m[n].end, m[n].perms, &m[n].off,
			   m[n].path) >= 4)
			n++;
	}
	fclose(f);
	return n;
}

static inline int smp_open(void)
{
	int fd = open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* ioctl(2) as 0 or -errno. */
static inline int smp_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static inline int smp_configurelog(int fd, int logfd)
{
	struct pmc_op_configurelog cl = { .pm_logfd = logfd };

	return smp_ioctl(fd, PMC_IOC_CONFIGURELOG, &cl);
}

static inline int smp_flushlog(int fd)
{
	return ioctl(fd, PMC_IOC_FLUSHLOG) ? -errno : 0;
}

static inline int smp_closelog(int fd)
{
	return ioctl(fd, PMC_IOC_CLOSELOG) ? -errno : 0;
}

static inline int smp_writelog(int fd, uint32_t v)
{
	struct pmc_op_writelog wl = { .pm_userdata = v };

	return smp_ioctl(fd, PMC_IOC_WRITELOG, &wl);
}

static inline int smp_simple(int fd, unsigned long req, uint32_t id)
{
	struct pmc_op_simple s = { .pm_pmcid = id };

	return smp_ioctl(fd, req, &s);
}

static inline int smp_stats(int fd, struct pmc_op_getdriverstats *ds)
{
	memset(ds, 0, sizeof(*ds));
	return smp_ioctl(fd, PMC_IOC_GETDRIVERSTATS, ds);
}

/*
 * Allocate a PMC of @class counting perf event @type/@config in user and
 * kernel mode: on @cpu in the system modes (PMC_CPU_ANY in the virtual
 * ones), with sampling period or initial count @count. Its id, or -errno.
 * smp_alloc_ext() lets the caller complete the request first (@pa is
 * zeroed and filled, then @ext is called on it).
 */
static inline int64_t smp_alloc_ext(int fd, uint32_t class, uint32_t mode,
				    uint32_t cpu, uint32_t type,
				    uint64_t config, uint64_t count,
				    uint32_t flags,
				    void (*ext)(struct pmc_op_pmcallocate *pa,
						const void *arg),
				    const void *arg)
{
	struct pmc_op_pmcallocate pa;
	int ret;

	memset(&pa, 0, sizeof(pa));
	pa.pm_caps = PMC_CAP_USER | PMC_CAP_SYSTEM;
	if (PMC_IS_SAMPLING_MODE(mode))
		pa.pm_caps |= PMC_CAP_INTERRUPT;
	pa.pm_cpu = PMC_IS_SYSTEM_MODE(mode) ? cpu : PMC_CPU_ANY;
	pa.pm_class = class;
	pa.pm_ev = type == PERF_TYPE_SOFTWARE ? PMC_EV_SOFT_FIRST + config :
		   PMC_EV_RAW;
	pa.pm_flags = flags;
	pa.pm_mode = mode;
	pa.pm_count = count;
	pa.pm_md.pm_type = type;
	pa.pm_md.pm_config = config;
	if (ext)
		ext(&pa, arg);
	ret = smp_ioctl(fd, PMC_IOC_PMCALLOCATE, &pa);
	return ret ? ret : (int64_t)pa.pm_pmcid;
}

/* A SOFT PMC of perf software event @config (sampling: @period). */
static inline int64_t smp_alloc_soft(int fd, uint32_t mode, uint32_t cpu,
				     uint64_t config, uint64_t period,
				     uint32_t flags)
{
	return smp_alloc_ext(fd, PMC_CLASS_SOFT, mode, cpu, PERF_TYPE_SOFTWARE,
			     config, period, flags, NULL, NULL);
}

/* What a PMC of a set adds to its request: smp_set_ext() puts it there. */
struct smp_set {
	uint32_t group;
	uint32_t signo;		/* PMC_F_OVF_SIGNAL */
	uint32_t snapshot_us;	/* PMC_F_SNAPSHOT */
};

static inline void smp_set_ext(struct pmc_op_pmcallocate *pa, const void *arg)
{
	const struct smp_set *set = arg;

	pa->pm_group = set->group;
	pa->pm_signo = set->signo;
	pa->pm_snapshot_us = set->snapshot_us;
}

/*
 * A counting (TC) SOFT PMC of event @config with initial value @count, in
 * set @group, signalling @signo on overflow if @flags has PMC_F_OVF_SIGNAL.
 */
static inline int64_t smp_alloc_tc(int fd, uint64_t config, uint64_t count,
				   uint32_t flags, uint32_t group,
				   uint32_t signo)
{
	struct smp_set set = { .group = group, .signo = signo };

	return smp_alloc_ext(fd, PMC_CLASS_SOFT, PMC_MODE_TC, PMC_CPU_ANY,
			     PERF_TYPE_SOFTWARE, config, count, flags,
			     smp_set_ext, &set);
}

static inline int smp_attach_flags(int fd, uint32_t id, pid_t pid,
				   uint32_t flags)
{
	struct pmc_op_pmcattach pa = {
		.pm_pmc = id, .pm_pid = pid, .pm_flags = flags,
	};

	return smp_ioctl(fd, PMC_IOC_PMCATTACH, &pa);
}

static inline int smp_attach(int fd, uint32_t id, pid_t pid)
{
	return smp_attach_flags(fd, id, pid, 0);
}

static inline int smp_read(int fd, uint32_t id, uint64_t *value)
{
	struct pmc_op_pmcrw rw = { .pm_pmcid = id };
	int ret = smp_ioctl(fd, PMC_IOC_PMCRW, &rw);

	*value = rw.pm_value;
	return ret;
}

/* ---------------------------------------------------------------- streams */

/* A growable byte buffer holding records. */
struct smp_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

static inline void smp_buf_append(struct smp_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;

		while (cap < b->len + n)
			cap *= 2;
		b->data = realloc(b->data, cap);
		if (!b->data)
			abort();
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void smp_buf_free(struct smp_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* Read @fd to its end into @b; bytes read or -errno. */
static inline ssize_t smp_buf_read_fd(struct smp_buf *b, int fd)
{
	uint8_t tmp[65536];
	ssize_t n, total = 0;

	while ((n = read(fd, tmp, sizeof(tmp))) > 0) {
		smp_buf_append(b, tmp, n);
		total += n;
	}
	return n < 0 ? -errno : total;
}

/* The record at @off of @b, or NULL past the end. */
static inline const struct pmclog_header *smp_rec_at(const struct smp_buf *b,
						     size_t off)
{
	if (off + sizeof(struct pmclog_header) > b->len)
		return NULL;
	return (const struct pmclog_header *)(b->data + off);
}

#define smp_rec_type(h)	PMCLOG_HEADER_TO_TYPE((h)->pl_header)
#define smp_rec_len(h)	PMCLOG_HEADER_TO_LENGTH((h)->pl_header)

/* Iterate the records of a stream checked by smp_check_stream(). */
#define smp_for_each_rec(h, b, off)					\
	for ((off) = 0; ((h) = smp_rec_at((b), (off))) != NULL;		\
	     (off) += smp_rec_len(h))

/* What smp_check_stream() found. */
struct smp_stream_info {
	size_t nrecs;
	size_t by_type[256];
	uint32_t first_seq;
	uint32_t last_seq;
	uint64_t seq_gaps;	/* records missing between consecutive ones */
	uint64_t drop_records;	/* sum of DROPNOTIFY.pl_records */
	uint64_t drop_samples;	/* sum of DROPNOTIFY.pl_samples */
	char error[160];	/* first problem, "" if none */
};

static inline bool smp_known_type(unsigned int t)
{
	return (t >= PMCLOG_TYPE_CLOSELOG && t <= PMCLOG_TYPE_PROC_CREATE &&
		t != 4) || t == PMCLOG_TYPE_SNAPSHOT ||
		t == PMCLOG_TYPE_OVERFLOW || t == PMCLOG_TYPE_SNAPSET;
}

/*
 * Check every record of @b: magic, known type, length (>= header, multiple
 * of 8, within the stream), and sequence numbers increasing by one (gaps
 * counted, never going back). Returns true when the stream is well formed.
 */
static inline bool smp_check_stream(const struct smp_buf *b,
				    struct smp_stream_info *si)
{
	const struct pmclog_header *h;
	size_t off = 0;
	uint32_t len;

	memset(si, 0, sizeof(*si));
	while (off < b->len) {
		if (b->len - off < sizeof(*h)) {
			snprintf(si->error, sizeof(si->error),
				 "%zu trailing bytes at %zu", b->len - off, off);
			return false;
		}
		h = (const struct pmclog_header *)(b->data + off);
		len = smp_rec_len(h);
		if (!PMCLOG_HEADER_CHECK_MAGIC(h->pl_header) ||
		    !smp_known_type(smp_rec_type(h)) || len < sizeof(*h) ||
		    len % PMCLOG_ALIGN || len > b->len - off) {
			snprintf(si->error, sizeof(si->error),
				 "bad header 0x%08x at offset %zu (record %zu)",
				 h->pl_header, off, si->nrecs);
			return false;
		}
		if (si->nrecs == 0) {
			si->first_seq = h->pl_seq;
		} else if (h->pl_seq != si->last_seq + 1) {
			if ((int32_t)(h->pl_seq - si->last_seq) <= 0) {
				snprintf(si->error, sizeof(si->error),
					 "sequence goes back: %u after %u (record %zu, type %u, offset %zu of %zu)",
					 h->pl_seq, si->last_seq, si->nrecs,
					 smp_rec_type(h), off, b->len);
				return false;
			}
			si->seq_gaps += h->pl_seq - si->last_seq - 1;
		}
		si->last_seq = h->pl_seq;
		if (smp_rec_type(h) == PMCLOG_TYPE_DROPNOTIFY) {
			const struct pmclog_dropnotify *d = (const void *)h;

			si->drop_records += d->pl_records;
			si->drop_samples += d->pl_samples;
		}
		si->by_type[smp_rec_type(h)]++;
		si->nrecs++;
		off += len;
	}
	return true;
}

/* Offset of the record with sequence number @seq in @b, or SIZE_MAX. */
static inline size_t smp_seq_offset(const struct smp_buf *b, uint32_t seq)
{
	const struct pmclog_header *h;
	size_t off;

	smp_for_each_rec(h, b, off)
		if (h->pl_seq == seq)
			return off;
	return SIZE_MAX;
}

/*
 * Two streams of one owner (its log file and its ring) that started at
 * different records: are they the same bytes from the later start to their
 * common end? The number of records compared, or -1 if they differ.
 */
static inline ssize_t smp_same_suffix(const struct smp_buf *a,
				      const struct smp_buf *b)
{
	const struct pmclog_header *ha = smp_rec_at(a, 0), *hb = smp_rec_at(b, 0);
	const struct pmclog_header *h;
	size_t oa, ob, off;
	ssize_t n = 0;
	uint32_t first;

	if (!ha || !hb)
		return -1;
	first = (int32_t)(ha->pl_seq - hb->pl_seq) > 0 ? ha->pl_seq : hb->pl_seq;
	oa = smp_seq_offset(a, first);
	ob = smp_seq_offset(b, first);
	if (oa == SIZE_MAX || ob == SIZE_MAX || a->len - oa != b->len - ob ||
	    memcmp(a->data + oa, b->data + ob, a->len - oa))
		return -1;
	for (off = oa; (h = smp_rec_at(a, off)) != NULL; off += smp_rec_len(h))
		n++;
	return n;
}

/* ---------------------------------------------------------------- ring */

struct smp_ring {
	struct pmc_ring_page *pg;
	uint8_t *data;
	size_t map_len;
	uint64_t size;
};

/* Map the ring with @npages data pages; 0 or -errno. */
static inline int smp_ring_map(int fd, unsigned int npages, struct smp_ring *r)
{
	long ps = sysconf(_SC_PAGESIZE);
	void *p;

	memset(r, 0, sizeof(*r));
	r->map_len = (size_t)(npages + 1) * ps;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->pg = p;
	r->data = (uint8_t *)p + r->pg->pr_data_offset;
	r->size = r->pg->pr_data_size;
	return 0;
}

static inline void smp_ring_unmap(struct smp_ring *r)
{
	if (r->pg)
		munmap(r->pg, r->map_len);
	r->pg = NULL;
}

/* Bytes readable now. */
static inline uint64_t smp_ring_avail(const struct smp_ring *r)
{
	return __atomic_load_n(&r->pg->pr_data_head, __ATOMIC_ACQUIRE) -
		r->pg->pr_data_tail;
}

/*
 * Move what the ring holds to @b (records are whole between tail and head)
 * and give the space back: perf's reader protocol. Bytes moved.
 */
static inline uint64_t smp_ring_drain(struct smp_ring *r, struct smp_buf *b)
{
	uint64_t head = __atomic_load_n(&r->pg->pr_data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pg->pr_data_tail;
	uint64_t n = head - tail, off, first;

	if (!n)
		return 0;
	off = tail & (r->size - 1);
	first = n < r->size - off ? n : r->size - off;
	smp_buf_append(b, r->data + off, first);
	smp_buf_append(b, r->data, n - first);
	__atomic_store_n(&r->pg->pr_data_tail, head, __ATOMIC_RELEASE);
	return n;
}

/* ---------------------------------------------------------------- symbols */

/*
 * [*start, *end) of the function @name of this executable, from its ELF
 * symbol table (at run time: the PIE bias is taken from @addr, the
 * function's address). 0 or -1.
 */
static inline int smp_func_range(const char *name, const void *addr,
				 uint64_t *start, uint64_t *end)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	struct stat st;
	uint8_t *img;
	int fd, ret = -1;
	unsigned int i;

	fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	img = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return -1;
	eh = (const Elf64_Ehdr *)img;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum && ret; i++) {
		const Elf64_Sym *sym;
		const char *strtab;
		size_t j, n;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
		strtab = (const char *)img + sh[sh[i].sh_link].sh_offset;
		n = sh[i].sh_size / sizeof(*sym);
		for (j = 0; j < n; j++) {
			if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC ||
			    strcmp(strtab + sym[j].st_name, name))
				continue;
			*start = (uint64_t)(uintptr_t)addr;
			*end = *start + sym[j].st_size;
			ret = sym[j].st_size ? 0 : -1;
			break;
		}
	}
	munmap(img, st.st_size);
	return ret;
}

/* ---------------------------------------------------------------- misc */

/*
 * A child that runs @fn(@arg) when told to, a byte on *@go (the write end
 * of its pipe: attach and start its PMC first), then exits 0. Its pid, or
 * -1.
 */
static inline pid_t smp_spawn_on_go(void (*fn)(uint64_t), uint64_t arg,
				    int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(2);
		fn(arg);
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/*
 * Sample a child that runs @fn(@arg), from its start to its exit, with a
 * cpu-clock PMC of @period ns and @flags (the log goes wherever @fd's
 * does), stopped when the child has exited 0. The PMC's id, or a negative
 * errno (-ECHILD: the child failed).
 */
static inline int64_t smp_sample_child(int fd, void (*fn)(uint64_t),
				       uint64_t arg, uint64_t period,
				       uint32_t flags)
{
	int go = -1, st, ret = 0;
	int64_t id;
	pid_t pid;

	pid = smp_spawn_on_go(fn, arg, &go);
	if (pid < 0)
		return -errno;
	id = smp_alloc_soft(fd, PMC_MODE_TS, PMC_CPU_ANY,
			    PERF_COUNT_SW_CPU_CLOCK, period, flags);
	if (id >= 0) {
		ret = smp_attach(fd, id, pid);
		if (!ret)
			ret = smp_simple(fd, PMC_IOC_PMCSTART, id);
	}
	/* Told to go either way, so that it exits. */
	if (write(go, "g", 1) != 1 && !ret)
		ret = -EIO;
	close(go);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		ret = ret ?: -ECHILD;
	if (id < 0)
		return id;
	if (!ret)
		ret = smp_simple(fd, PMC_IOC_PMCSTOP, id);
	return ret ? ret : id;
}

/* Why this test cannot run, or NULL. */
static inline const char *smp_cannot_run(void)
{
	if (geteuid())
		return "needs root (run in the test VM: tools/pmc-vm)";
	if (access(PMC_DEVICE_PATH, F_OK))
		return PMC_DEVICE_PATH " missing: pmc.ko not loaded";
	return NULL;
}

/*
 * The common part of a ring test's fixture, whose struct has `int fd` and
 * `struct smp_ring r`: SMP_SETUP_RING() SKIPs when the driver cannot run,
 * else opens /dev/pmc into self->fd and maps @pages of ring into self->r.
 * Macros, because SKIP() and ASSERT_*() return from the setup itself.
 */
#define SMP_SETUP_RING(pages) do {					\
	const char *why_ = smp_cannot_run();				\
									\
	self->fd = -1;							\
	memset(&self->r, 0, sizeof(self->r));				\
	if (why_)							\
		SKIP(return, "%s", why_);				\
	self->fd = smp_open();						\
	ASSERT_LE(0, self->fd);						\
	ASSERT_EQ(0, smp_ring_map(self->fd, (pages), &self->r));	\
} while (0)

#define SMP_TEARDOWN_RING() do {					\
	smp_ring_unmap(&self->r);					\
	if (self->fd >= 0)						\
		close(self->fd);					\
} while (0)

/*
 * The same for a test that reloads pmc.ko with @params first (its fixture
 * struct has `bool reloaded` too; pmc_test.h's loader): the setup SKIPs
 * when the module cannot be reloaded, the teardown loads it back with its
 * defaults.
 */
#define SMP_SETUP_RELOADED(params, pages) do {				\
	const char *why_ = smp_cannot_run() ?:				\
			   pmc_t_cannot_reload(pmc_t_ko());		\
									\
	self->fd = -1;							\
	self->reloaded = false;						\
	memset(&self->r, 0, sizeof(self->r));				\
	if (why_)							\
		SKIP(return, "%s", why_);				\
	ASSERT_EQ(0, pmc_t_unload());					\
	self->reloaded = true;						\
	ASSERT_EQ(0, pmc_t_load(params));				\
	self->fd = smp_open();						\
	ASSERT_LE(0, self->fd);						\
	ASSERT_EQ(0, smp_ring_map(self->fd, (pages), &self->r));	\
} while (0)

#define SMP_TEARDOWN_RELOADED() do {					\
	SMP_TEARDOWN_RING();						\
	if (self->reloaded) {						\
		EXPECT_EQ(0, pmc_t_unload());				\
		EXPECT_EQ(0, pmc_t_load(""));				\
	}								\
} while (0)

/*
 * SMP_RING_FIXTURE(name, pages) - the fixture @name of tests that need only
 * /dev/pmc (self->fd), the page size (self->ps) and @pages of ring mapped
 * (self->r).
 */
#define SMP_RING_FIXTURE(name, pages)					\
	FIXTURE(name) {							\
		int fd;							\
		long ps;						\
		struct smp_ring r;					\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		self->ps = sysconf(_SC_PAGESIZE);			\
		SMP_SETUP_RING(pages);					\
	}								\
	FIXTURE_TEARDOWN(name)						\
	{								\
		SMP_TEARDOWN_RING();					\
	}

#endif /* _SELFTESTS_SAMPLING_H */
