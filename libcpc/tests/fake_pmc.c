// SPDX-License-Identifier: BSD-2-Clause
/*
 * fake_pmc.c - a simulated /dev/pmc for libcpc's host unit tests. It answers
 * the ioctls of include/uapi/pmc/hwpmc.h the way the driver documents them,
 * for three machines: no PMU (SOFT only), Intel (IAP + IAF) and AMD (K8).
 *
 * It takes the place of the device layer's system calls
 * (libpmc/dev/pmcdev_sys.c): the test binary links this file instead of
 * that one, and everything above the five calls is the libraries' code.
 * Each open gives a descriptor of its own, far above any real one, bound to
 * the simulated device fake_arm() named last.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "fake_pmc.h"

/* The driver's SOFT events: PERF_COUNT_SW_CPU_CLOCK .. EMULATION_FAULTS. */
#define NSOFT	(PERF_COUNT_SW_EMULATION_FAULTS + 1)

static void add_class(struct pmc_op_getcpuinfo *ci, uint32_t cls, uint32_t caps,
		      uint32_t width, uint32_t num)
{
	struct pmc_classinfo *c = &ci->pm_classes[ci->pm_nclass++];

	c->pm_class = cls;
	c->pm_caps = caps;
	c->pm_width = width;
	c->pm_num = num;
	ci->pm_npmc += num;
}

void fake_pmc_init(struct fake_pmc *fp, enum fake_machine m)
{
	struct pmc_op_getcpuinfo *ci = &fp->cpuinfo;
	uint32_t hw = PMC_CAP_INTERRUPT | PMC_CAP_USER | PMC_CAP_SYSTEM |
		      PMC_CAP_EDGE | PMC_CAP_THRESHOLD | PMC_CAP_READ |
		      PMC_CAP_WRITE | PMC_CAP_INVERT | PMC_CAP_QUALIFIER;

	memset(fp, 0, sizeof(*fp));
	fp->version = PMC_VERSION;
	fp->timestamp = 123456789;
	ci->pm_ncpu = 2;
	add_class(ci, PMC_CLASS_TSC, PMC_CAP_READ | PMC_CAP_SYSWIDE, 64, 1);
	switch (m) {
	case FAKE_SOFT:
		ci->pm_cputype = PMC_CPU_GENERIC;
		strcpy(ci->pm_cpuid, "AuthenticAMD-25-1-1");
		break;
	case FAKE_INTEL:
		ci->pm_cputype = PMC_CPU_INTEL_CORE;
		ci->pm_perfmon_version = 4;
		strcpy(ci->pm_cpuid, "GenuineIntel-6-85-7");
		add_class(ci, PMC_CLASS_IAP, hw, 48, 4);
		add_class(ci, PMC_CLASS_IAF, PMC_CAP_INTERRUPT | PMC_CAP_USER |
			  PMC_CAP_SYSTEM | PMC_CAP_READ | PMC_CAP_WRITE, 48, 3);
		break;
	case FAKE_AMD:
		ci->pm_cputype = PMC_CPU_AMD_K8;
		strcpy(ci->pm_cpuid, "AuthenticAMD-25-1-1");
		add_class(ci, PMC_CLASS_K8, hw, 48, 6);
		break;
	}
	add_class(ci, PMC_CLASS_SOFT, PMC_CAP_INTERRUPT | PMC_CAP_USER |
		  PMC_CAP_SYSTEM | PMC_CAP_READ | PMC_CAP_WRITE, 64, 16);
}

static bool has_class(const struct fake_pmc *fp, uint32_t cls)
{
	uint32_t i;

	for (i = 0; i < fp->cpuinfo.pm_nclass; i++)
		if (fp->cpuinfo.pm_classes[i].pm_class == cls)
			return true;
	return false;
}

int fake_live(const struct fake_pmc *fp)
{
	int i, n = 0;

	for (i = 0; i < FAKE_MAX_PMCS; i++)
		n += fp->pmcs[i].live;
	return n;
}

static uint32_t fake_id(int slot)
{
	return PMC_ID_MAKE_ID(PMC_ID_CPU_ANY, PMC_MODE_TC, 0, slot);
}

struct fake_pmcobj *fake_pmc_by_id(struct fake_pmc *fp, uint32_t id)
{
	uint32_t slot = PMC_ID_TO_ROWINDEX(id);

	if (slot >= FAKE_MAX_PMCS || fake_id((int)slot) != id ||
	    !fp->pmcs[slot].live)
		return NULL;
	return &fp->pmcs[slot];
}

struct fake_pmcobj *fake_nth_live(struct fake_pmc *fp, int n)
{
	int i;

	for (i = 0; i < FAKE_MAX_PMCS; i++)
		if (fp->pmcs[i].live && n-- == 0)
			return &fp->pmcs[i];
	return NULL;
}

void fake_advance(struct fake_pmc *fp, uint64_t delta)
{
	int i;

	for (i = 0; i < FAKE_MAX_PMCS; i++)
		if (fp->pmcs[i].live && fp->pmcs[i].running)
			fp->pmcs[i].value += delta;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

static int do_allocate(struct fake_pmc *fp, struct pmc_op_pmcallocate *a)
{
	int i;

	if (fp->refuse_class && a->pm_class == fp->refuse_class)
		return fail(fp->class_errno);
	if (fp->fail_alloc_at && fp->nallocs + 1 == fp->fail_alloc_at) {
		fp->fail_alloc_at = 0;
		return fail(fp->fail_errno);
	}
	/* As the driver: a signal only with PMC_F_OVF_SIGNAL, in TC mode. */
	if ((a->pm_flags & PMC_F_SNAPSHOT) && fp->no_snapshot)
		return fail(EOPNOTSUPP);
	if ((a->pm_flags & PMC_F_SNAPSHOT) ?
	    a->pm_snapshot_us < PMC_SNAPSHOT_MIN_US : a->pm_snapshot_us != 0)
		return fail(EINVAL);
	if ((a->pm_flags & PMC_F_OVF_SIGNAL) ?
	    (!a->pm_signo || a->pm_mode != PMC_MODE_TC) : a->pm_signo != 0)
		return fail(EINVAL);
	if (!has_class(fp, a->pm_class) || a->pm_mode > PMC_MODE_TC ||
	    (a->pm_flags & ~PMC_F_ALLOCATE_MASK) || a->pm_reserved[0] ||
	    a->pm_md.pm_pad)
		return fail(EINVAL);
	if (a->pm_class == PMC_CLASS_SOFT &&
	    (a->pm_md.pm_type != PERF_TYPE_SOFTWARE ||
	     a->pm_ev != PMC_EV_SOFT_FIRST + a->pm_md.pm_config))
		return fail(EINVAL);
	for (i = 0; i < FAKE_MAX_PMCS; i++) {
		if (fp->pmcs[i].live)
			continue;
		memset(&fp->pmcs[i], 0, sizeof(fp->pmcs[i]));
		fp->pmcs[i].live = true;
		fp->pmcs[i].alloc = *a;
		fp->pmcs[i].value = a->pm_count;
		a->pm_pmcid = fake_id(i);
		fp->pmcs[i].alloc.pm_pmcid = a->pm_pmcid;
		fp->nallocs++;
		return 0;
	}
	return fail(ENOSPC);
}

/* Open descriptors: FAKE_FD_BASE + slot, and the device each one is. */
#define FAKE_FD_BASE	(1 << 20)
#define FAKE_FDS	16
static struct fake_pmc *fake_fds[FAKE_FDS];
static struct fake_pmc *fake_armed;

void fake_arm(struct fake_pmc *fp)
{
	fake_armed = fp;
}

static struct fake_pmc *fake_of(int fd)
{
	if (fd < FAKE_FD_BASE || fd >= FAKE_FD_BASE + FAKE_FDS ||
	    !fake_fds[fd - FAKE_FD_BASE]) {
		errno = EBADF;
		return NULL;
	}
	return fake_fds[fd - FAKE_FD_BASE];
}

static int do_ioctl(struct fake_pmc *fp, unsigned long req, void *arg)
{
	struct fake_pmcobj *o;

	if (req == PMC_IOC_GETMODULEVERSION) {
		((struct pmc_op_getmoduleversion *)arg)->pm_version = fp->version;
		return 0;
	}
	if (req == PMC_IOC_GETCPUINFO) {
		memcpy(arg, &fp->cpuinfo, sizeof(fp->cpuinfo));
		return 0;
	}
	if (req == PMC_IOC_GETDYNEVENTINFO) {
		struct pmc_op_getdyneventinfo *gi = arg;
		struct pmc_dyn_event_descr *ev =
			(void *)(uintptr_t)gi->pm_events;
		uint32_t i, n = gi->pm_class == PMC_CLASS_SOFT ? NSOFT : 0;

		for (i = 0; i < n && i < gi->pm_nevent; i++) {
			memset(&ev[i], 0, sizeof(ev[i]));
			strcpy(ev[i].pm_ev_name, pmcdev_soft_name(i));
			ev[i].pm_type = PERF_TYPE_SOFTWARE;
			ev[i].pm_config = i;
			ev[i].pm_ev_code = PMC_EV_SOFT_FIRST + i;
		}
		gi->pm_nevent = n;
		return 0;
	}
	if (fp->core_missing)
		return fail(EOPNOTSUPP);
	if (req == PMC_IOC_PMCALLOCATE)
		return do_allocate(fp, arg);
	if (req == PMC_IOC_FLUSHLOG)
		return fp->ring ? 0 : fail(EINVAL);
	if (req == PMC_IOC_PMCATTACH) {
		struct pmc_op_pmcattach *at = arg;

		if (fp->fail_attach_at && ++fp->nattach == fp->fail_attach_at)
			return fail(fp->fail_errno);
		o = fake_pmc_by_id(fp, at->pm_pmc);
		if (!o || o->alloc.pm_mode != PMC_MODE_TC)
			return fail(EINVAL);
		o->attached = true;
		o->pid = at->pm_pid;
		o->attach_flags = at->pm_flags;
		return 0;
	}
	if (req == PMC_IOC_PMCSTART || req == PMC_IOC_PMCSTOP ||
	    req == PMC_IOC_PMCRELEASE) {
		struct pmc_op_simple *s = arg;

		o = fake_pmc_by_id(fp, s->pm_pmcid);
		if (!o)
			return fail(EINVAL);
		if (req == PMC_IOC_PMCSTART) {
			if (fp->fail_start_at && ++fp->nstart == fp->fail_start_at)
				return fail(fp->fail_errno);
			if (o->alloc.pm_mode == PMC_MODE_TC && !o->attached)
				return fail(EINVAL);
			o->running = true;
		} else if (req == PMC_IOC_PMCSTOP) {
			o->running = false;
		} else {
			o->live = false;
		}
		return 0;
	}
	if (req == PMC_IOC_PMCRW) {
		struct pmc_op_pmcrw *rw = arg;
		uint64_t old;

		o = fake_pmc_by_id(fp, rw->pm_pmcid);
		if (!o)
			return fail(EINVAL);
		old = o->value;
		if (rw->pm_flags & PMC_F_NEWVALUE) {
			o->value = rw->pm_value;
			o->writes++;
		}
		if (rw->pm_flags & PMC_F_OLDVALUE)
			rw->pm_value = old;
		return 0;
	}
	if (req == PMC_IOC_PMCREADSET) {
		struct pmc_op_pmcreadset *rs = arg;
		const uint32_t *ids = (const void *)(uintptr_t)rs->pm_ids;
		uint64_t *vals = (void *)(uintptr_t)rs->pm_values;
		uint32_t i;

		if (rs->pm_count == 0 || rs->pm_count > PMC_READSET_MAX ||
		    rs->pm_flags)
			return fail(EINVAL);
		for (i = 0; i < rs->pm_count; i++) {
			o = fake_pmc_by_id(fp, ids[i]);
			if (!o)
				return fail(EINVAL);
			vals[i] = o->value;
		}
		rs->pm_timestamp = fp->timestamp;
		fp->readsets++;
		fp->last_readset_count = rs->pm_count;
		return 0;
	}
	return fail(ENOTTY);
}

int pmcdev_open(void)
{
	int i;

	if (!fake_armed)
		return fail(ENOENT);
	if (fake_armed->open_errno)
		return fail(fake_armed->open_errno);
	for (i = 0; i < FAKE_FDS; i++) {
		if (!fake_fds[i]) {
			fake_fds[i] = fake_armed;
			return FAKE_FD_BASE + i;
		}
	}
	return fail(EMFILE);
}

void pmcdev_close(int fd)
{
	if (fake_of(fd))
		fake_fds[fd - FAKE_FD_BASE] = NULL;
}

int pmcdev_ioctl(int fd, unsigned long request, void *arg)
{
	struct fake_pmc *fp;

	if (fd < 0)
		return -1;
	fp = fake_of(fd);
	return fp ? do_ioctl(fp, request, arg) : -1;
}

void *pmcdev_mmap(int fd, size_t len, int prot, off_t off)
{
	struct fake_pmc *fp = fd < 0 ? NULL : fake_of(fd);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t pgoff = (uint64_t)off / page;

	if (!fp)
		return MAP_FAILED;
	if (fp->no_mmap) {
		errno = ENODEV;
		return MAP_FAILED;
	}
	if (off == 0) {
		struct pmc_ring_page *rp;

		if (fp->ring || !(prot & PROT_WRITE) || len < 2 * page) {
			errno = fp->ring ? EBUSY : EINVAL;
			return MAP_FAILED;
		}
		rp = aligned_alloc(page, len);
		if (!rp)
			return MAP_FAILED;
		memset(rp, 0, len);
		rp->pr_version = PMC_RING_VERSION;
		rp->pr_page_size = (uint32_t)page;
		rp->pr_data_offset = page;
		rp->pr_data_size = len - page;
		fp->ring = rp;
		fp->ring_len = len;
		fp->ring_maps++;
		return rp;
	}
	if (pgoff >= PMC_MMAP_SELFREAD_PGOFF && len == page && !(prot & PROT_WRITE)) {
		if (fp->sr) {
			errno = EBUSY;
			return MAP_FAILED;
		}
		fp->sr = aligned_alloc(page, page);
		if (!fp->sr)
			return MAP_FAILED;
		fp->sr_group = (uint32_t)(pgoff - PMC_MMAP_SELFREAD_PGOFF);
		fp->sr_maps++;
		fake_selfread_update(fp);
		return fp->sr;
	}
	errno = EINVAL;
	return MAP_FAILED;
}

/* The device whose mapping @addr is. */
static struct fake_pmc *fake_of_map(const void *addr)
{
	int i;

	for (i = 0; i < FAKE_FDS; i++)
		if (fake_fds[i] && (addr == fake_fds[i]->ring ||
				    addr == (void *)fake_fds[i]->sr))
			return fake_fds[i];
	return fake_armed;
}

void pmcdev_munmap(void *addr, size_t len)
{
	struct fake_pmc *fp = fake_of_map(addr);

	(void)len;
	if (!fp || !addr || addr == MAP_FAILED)
		return;
	if (addr == fp->ring) {
		free(fp->ring);
		fp->ring = NULL;
	} else if (addr == (void *)fp->sr) {
		free(fp->sr);
		fp->sr = NULL;
		fp->sr_unmaps++;
	}
}

void fake_ring_put(struct fake_pmc *fp, const void *rec, uint32_t len)
{
	struct pmc_ring_page *rp = fp->ring;
	unsigned char *data = (unsigned char *)rp + rp->pr_data_offset;
	uint64_t head = rp->pr_data_head, size = rp->pr_data_size;
	size_t at = (size_t)(head & (size - 1)), first = len;

	if (size - (head - rp->pr_data_tail) < len) {
		rp->pr_lost++;
		return;
	}
	if (first > size - at)
		first = size - at;
	memcpy(data + at, rec, first);
	memcpy(data, (const char *)rec + first, len - first);
	__atomic_store_n(&rp->pr_data_head, head + len, __ATOMIC_RELEASE);
}

/*
 * What the driver's timer writes for a set at @tsc: one SNAPSET record of
 * the group's live SNAPSHOT PMCs (a SNAPSHOT record each for group 0).
 */
void fake_snapshot_group(struct fake_pmc *fp, uint32_t group, uint64_t tsc,
			 uint32_t cpu)
{
	struct {
		struct pmclog_snapset s;
		struct pmclog_snapset_entry e[FAKE_MAX_PMCS];
	} r;
	uint32_t n = 0;
	int i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < FAKE_MAX_PMCS; i++) {
		const struct fake_pmcobj *o = &fp->pmcs[i];

		if (!o->live || o->alloc.pm_group != group ||
		    !(o->alloc.pm_flags & PMC_F_SNAPSHOT))
			continue;
		if (!group) {
			fake_snapshot_one(fp, o->alloc.pm_pmcid, 0, tsc, cpu,
					  o->value);
			continue;
		}
		r.e[n].pl_pmcid = o->alloc.pm_pmcid;
		r.e[n].pl_value = o->value;
		n++;
	}
	if (!n)
		return;
	r.s.pl_hdr.pl_header = PMCLOG_HEADER(PMCLOG_TYPE_SNAPSET,
					     sizeof(r.s) + n * sizeof(r.e[0]));
	r.s.pl_hdr.pl_tsc = tsc;
	r.s.pl_group = group;
	r.s.pl_cpu = cpu;
	r.s.pl_nentries = n;
	fake_ring_put(fp, &r, (uint32_t)(sizeof(r.s) + n * sizeof(r.e[0])));
}

/* A SNAPSHOT record: one PMC's value (group 0, or a last value at stop). */
void fake_snapshot_one(struct fake_pmc *fp, uint32_t pmcid, uint32_t group,
		       uint64_t tsc, uint32_t cpu, uint64_t value)
{
	struct pmclog_snapshot r;

	memset(&r, 0, sizeof(r));
	r.pl_hdr.pl_header = PMCLOG_HEADER(PMCLOG_TYPE_SNAPSHOT, sizeof(r));
	r.pl_hdr.pl_tsc = tsc;
	r.pl_pmcid = pmcid;
	r.pl_group = group;
	r.pl_cpu = cpu;
	r.pl_value = value;
	fake_ring_put(fp, &r, sizeof(r));
}

void fake_selfread_update(struct fake_pmc *fp)
{
	struct pmc_selfread_page *pg = fp->sr;
	uint32_t n = 0;
	int i;

	if (!pg)
		return;
	pg->ps_seq++;
	for (i = 0; i < FAKE_MAX_PMCS && n < PMC_SELFREAD_MAX; i++) {
		const struct fake_pmcobj *o = &fp->pmcs[i];
		struct pmc_selfread_entry *e = &pg->ps_entries[n];

		if (!o->live || o->alloc.pm_group != fp->sr_group ||
		    o->alloc.pm_mode != PMC_MODE_TC)
			continue;
		memset(e, 0, sizeof(*e));
		e->se_pmcid = o->alloc.pm_pmcid;
		e->se_kind = fp->sr_kind;
		e->se_offset = (int64_t)o->value;
		n++;
	}
	pg->ps_nentries = n;
	pg->ps_group = fp->sr_group;
	pg->ps_tid = (uint32_t)gettid();
	pg->ps_seq++;
}

cpc_t *fake_open(struct fake_pmc *fp, enum fake_machine m)
{
	fake_pmc_init(fp, m);
	fake_arm(fp);
	return cpc_open(CPC_VER_CURRENT);
}
