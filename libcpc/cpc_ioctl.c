// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_ioctl.c - libcpc's own small layer over the /dev/pmc ioctls
 * (include/uapi/pmc/hwpmc.h). Every function returns 0, or -1 with errno as
 * the driver set it. Async-signal-safe: no locks, no allocation, except
 * cpc_dev_events() which runs only in cpc_open().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libcpc_impl.h"

static int dev_open(void *ctx)
{
	(void)ctx;
	return open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
}

static int dev_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	int ret;

	(void)ctx;
	do {
		ret = ioctl(fd, request, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -1 : 0;
}

static void dev_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

static void *dev_mmap(void *ctx, int fd, size_t len, int prot, off_t off)
{
	(void)ctx;
	return mmap(NULL, len, prot, MAP_SHARED, fd, off);
}

static void dev_munmap(void *ctx, void *addr, size_t len)
{
	(void)ctx;
	munmap(addr, len);
}

const struct cpc_backend cpc_dev_backend = {
	.open = dev_open,
	.ioctl = dev_ioctl,
	.close = dev_close,
	.mmap = dev_mmap,
	.munmap = dev_munmap,
};

static int dev_call(cpc_t *cpc, unsigned long request, void *arg)
{
	if (cpc->stats)
		atomic_fetch_add_explicit(&cpc->n_ioctls, 1,
					  memory_order_relaxed);
	return cpc->be->ioctl(cpc->be_ctx, cpc->fd, request, arg);
}

void *cpc_dev_mmap(cpc_t *cpc, size_t len, int prot, off_t off)
{
	if (!cpc->be->mmap) {
		errno = ENODEV;
		return MAP_FAILED;
	}
	return cpc->be->mmap(cpc->be_ctx, cpc->fd, len, prot, off);
}

void cpc_dev_munmap(cpc_t *cpc, void *addr, size_t len)
{
	if (cpc->be->munmap && addr)
		cpc->be->munmap(cpc->be_ctx, addr, len);
}

/*
 * The calling thread's id without a system call after the first: glibc
 * 2.36's gettid() enters the kernel every time, and the sample path checks
 * the thread on every call. The cache is per thread; a fork() child's
 * thread drops it (cpc_open() registers the atfork handler once).
 */
static _Thread_local pid_t cpc_tid_cache;
static pthread_once_t cpc_atfork_once = PTHREAD_ONCE_INIT;

static void cpc_tid_forget(void)
{
	cpc_tid_cache = 0;
}

static void cpc_atfork_register(void)
{
	pthread_atfork(NULL, NULL, cpc_tid_forget);
}

pid_t cpc_gettid(void)
{
	if (!cpc_tid_cache) {
		pthread_once(&cpc_atfork_once, cpc_atfork_register);
		cpc_tid_cache = gettid();
	}
	return cpc_tid_cache;
}

int cpc_dev_open(cpc_t *cpc)
{
	cpc->fd = cpc->be->open(cpc->be_ctx);
	return cpc->fd < 0 ? -1 : 0;
}

void cpc_dev_close(cpc_t *cpc)
{
	if (cpc->fd >= 0)
		cpc->be->close(cpc->be_ctx, cpc->fd);
	cpc->fd = -1;
}

int cpc_dev_version(cpc_t *cpc, uint32_t *version)
{
	struct pmc_op_getmoduleversion v = { .pm_version = PMC_VERSION };

	if (dev_call(cpc, PMC_IOC_GETMODULEVERSION, &v) < 0)
		return -1;
	*version = v.pm_version;
	return 0;
}

int cpc_dev_cpuinfo(cpc_t *cpc, struct pmc_op_getcpuinfo *ci)
{
	memset(ci, 0, sizeof(*ci));
	return dev_call(cpc, PMC_IOC_GETCPUINFO, ci);
}

/* The named events of a class; *events is malloc'd (NULL when n is 0). */
int cpc_dev_events(cpc_t *cpc, uint32_t pmc_class,
		   struct pmc_dyn_event_descr **events, uint32_t *n)
{
	struct pmc_op_getdyneventinfo gi = { .pm_class = pmc_class };
	struct pmc_dyn_event_descr *ev = NULL;
	uint32_t cap;

	*events = NULL;
	*n = 0;
	if (dev_call(cpc, PMC_IOC_GETDYNEVENTINFO, &gi) < 0)
		return -1;
	/* The count may grow between the calls: ask until it fits. */
	while (gi.pm_nevent > 0) {
		cap = gi.pm_nevent;
		free(ev);
		ev = calloc(cap, sizeof(*ev));
		if (!ev)
			return -1;
		gi.pm_class = pmc_class;
		gi.pm_events = (uint64_t)(uintptr_t)ev;
		if (dev_call(cpc, PMC_IOC_GETDYNEVENTINFO, &gi) < 0) {
			free(ev);
			return -1;
		}
		if (gi.pm_nevent <= cap)
			break;
	}
	if (!gi.pm_nevent) {
		free(ev);
		ev = NULL;
	}
	*events = ev;
	*n = gi.pm_nevent;
	return 0;
}

int cpc_dev_allocate(cpc_t *cpc, struct pmc_op_pmcallocate *a)
{
	a->pm_pmcid = PMC_ID_INVALID;
	return dev_call(cpc, PMC_IOC_PMCALLOCATE, a);
}

int cpc_dev_attach(cpc_t *cpc, uint32_t id, pid_t pid, uint32_t flags)
{
	struct pmc_op_pmcattach a = {
		.pm_pmc = id, .pm_pid = pid, .pm_flags = flags,
	};

	return dev_call(cpc, PMC_IOC_PMCATTACH, &a);
}

static int dev_simple(cpc_t *cpc, unsigned long request, uint32_t id)
{
	struct pmc_op_simple s = { .pm_pmcid = id };

	return dev_call(cpc, request, &s);
}

int cpc_dev_start(cpc_t *cpc, uint32_t id)
{
	return dev_simple(cpc, PMC_IOC_PMCSTART, id);
}

int cpc_dev_stop(cpc_t *cpc, uint32_t id)
{
	return dev_simple(cpc, PMC_IOC_PMCSTOP, id);
}

int cpc_dev_release(cpc_t *cpc, uint32_t id)
{
	return dev_simple(cpc, PMC_IOC_PMCRELEASE, id);
}

int cpc_dev_write(cpc_t *cpc, uint32_t id, uint64_t value)
{
	struct pmc_op_pmcrw rw = {
		.pm_flags = PMC_F_NEWVALUE, .pm_pmcid = id, .pm_value = value,
	};

	return dev_call(cpc, PMC_IOC_PMCRW, &rw);
}

int cpc_dev_setcount(cpc_t *cpc, uint32_t id, uint64_t count)
{
	struct pmc_op_pmcsetcount sc = { .pm_count = count, .pm_pmcid = id };

	return dev_call(cpc, PMC_IOC_PMCSETCOUNT, &sc);
}

int cpc_dev_flushlog(cpc_t *cpc)
{
	return dev_call(cpc, PMC_IOC_FLUSHLOG, NULL);
}

int cpc_dev_readset(cpc_t *cpc, const uint32_t *ids, int n, uint64_t *vals,
		    uint64_t *timestamp)
{
	struct pmc_op_pmcreadset rs = {
		.pm_count = (uint32_t)n,
		.pm_ids = (uint64_t)(uintptr_t)ids,
		.pm_values = (uint64_t)(uintptr_t)vals,
	};

	if (dev_call(cpc, PMC_IOC_PMCREADSET, &rs) < 0)
		return -1;
	*timestamp = rs.pm_timestamp;
	return 0;
}
