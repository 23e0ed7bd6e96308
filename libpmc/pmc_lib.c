// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_lib.c - pmc_init() and the process-wide /dev/pmc handle.
 *
 * FreeBSD's API has no handle argument, so the library keeps, per process:
 * the descriptor, the cached GETCPUINFO and the SOFT event table. That is all
 * of libpmc's global state. It is written only under pmc_lock, by pmc_init()
 * and by the reopen after fork(); once pmc_initialized is set the tables are
 * read-only, so readers take no lock.
 *
 * fork(): the driver binds PMCs to the process that opened /dev/pmc and
 * refuses every other. FreeBSD's children may use the API without calling
 * pmc_init() again (the syscall is per process), so a child closes the
 * inherited descriptor (pthread_atfork) and opens its own on first use.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libpmc_impl.h"
#include "pmcdev.h"

static pthread_mutex_t pmc_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool pmc_initialized;
static atomic_int pmc_fd = -1;		/* -1: closed (before init, or in a child) */
static bool pmc_atfork_done;
static struct pmc_cpuinfo pmc_cpu;
static struct pmc_dyn_event_descr *pmc_soft;
static uint32_t pmc_nsoft;
static struct pmc_mdesc pmc_md;

static int pmc_open_device(void)
{
	int fd = pmcdev_open();

	/* FreeBSD's pmc_init() fails with ENXIO when hwpmc is not loaded. */
	if (fd < 0 && (errno == ENOENT || errno == ENODEV))
		errno = ENXIO;
	return fd;
}

/* Async-signal-safe: runs in the child of fork(). */
static void pmc_atfork_child(void)
{
	int fd = atomic_exchange(&pmc_fd, -1);

	if (fd >= 0)
		pmcdev_close(fd);
}

int pmc__fd(void)
{
	int fd;

	if (!atomic_load(&pmc_initialized)) {
		errno = ENXIO;
		return -1;
	}
	fd = atomic_load(&pmc_fd);
	if (fd >= 0)
		return fd;

	/* A child of fork(): open our own. */
	pthread_mutex_lock(&pmc_lock);
	fd = atomic_load(&pmc_fd);
	if (fd < 0) {
		fd = pmc_open_device();
		if (fd >= 0)
			atomic_store(&pmc_fd, fd);
	}
	pthread_mutex_unlock(&pmc_lock);
	return fd;
}

int pmc__ioctl(unsigned long request, void *arg)
{
	return pmcdev_ioctl(pmc__fd(), request, arg);
}

const struct pmc_mdesc *pmc__mdesc(void)
{
	if (!atomic_load(&pmc_initialized)) {
		errno = ENXIO;
		return NULL;
	}
	return &pmc_md;
}

static int pmc_load(int fd)
{
	struct pmc_op_getcpuinfo ci;
	uint32_t version;
	unsigned int i;

	if (pmcdev_version(fd, &version) < 0 || pmcdev_cpuinfo(fd, &ci) < 0)
		return -1;
	memset(&pmc_cpu, 0, sizeof(pmc_cpu));
	pmc_cpu.pm_cputype = (enum pmc_cputype)ci.pm_cputype;
	pmc_cpu.pm_ncpu = ci.pm_ncpu;
	pmc_cpu.pm_npmc = ci.pm_npmc;
	pmc_cpu.pm_nclass = ci.pm_nclass;
	for (i = 0; i < ci.pm_nclass; i++)
		pmc_cpu.pm_classes[i] = ci.pm_classes[i];
	memcpy(pmc_cpu.pm_cpuid, ci.pm_cpuid, sizeof(pmc_cpu.pm_cpuid));
	pmc_cpu.pm_cpuid[sizeof(pmc_cpu.pm_cpuid) - 1] = '\0';
	pmc_cpu.pm_perfmon_version = ci.pm_perfmon_version;

	pmc_nsoft = 0;
	if (pmc__class_info(&pmc_cpu, PMC_CLASS_SOFT) &&
	    pmcdev_events(fd, PMC_CLASS_SOFT, &pmc_soft, &pmc_nsoft) < 0)
		return -1;
	pmc_md.cpu = &pmc_cpu;
	pmc_md.soft = pmc_soft;
	pmc_md.nsoft = pmc_nsoft;
	return 0;
}

int pmc_init(void)
{
	int fd, ret = -1, err = 0;

	if (atomic_load(&pmc_initialized))
		return 0;

	pthread_mutex_lock(&pmc_lock);
	if (atomic_load(&pmc_initialized)) {
		ret = 0;
		goto out;
	}
	if (!pmc_atfork_done) {
		err = pthread_atfork(NULL, NULL, pmc_atfork_child);
		if (err)
			goto out;
		pmc_atfork_done = true;
	}
	fd = pmc_open_device();
	if (fd < 0) {
		err = errno;
		goto out;
	}
	if (pmc_load(fd) < 0) {
		err = errno;
		free(pmc_soft);
		pmc_soft = NULL;
		pmcdev_close(fd);
		goto out;
	}
	atomic_store(&pmc_fd, fd);
	atomic_store(&pmc_initialized, true);
	ret = 0;
out:
	pthread_mutex_unlock(&pmc_lock);
	if (err)
		errno = err;
	return ret;
}
