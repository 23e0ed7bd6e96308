/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faults.h - what the fault tests (selftests/faults/) share: files of
 * sysfs/procfs/debugfs, CPU hotplug, the mapped ring, the rows of the
 * driver, module reload, and kmemleak.
 *
 * The tests run as root in the test VM (tools/pmc-vm) and leave pmc.ko
 * loaded with its default parameters.
 */
#ifndef _SELFTESTS_FAULTS_H
#define _SELFTESTS_FAULTS_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
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

#include <pmc/hwpmc.h>
#include <pmc/pmclog.h>
#include <pmc/ring.h>

#include "pmc_test.h"

/* Failed ASSERTs longjmp to the teardown: -Wclobbered is noise here. */
#pragma GCC diagnostic ignored "-Wclobbered"
#pragma GCC diagnostic ignored "-Wsign-compare"

/* The 6.1 harness runs a test body even after its setup called SKIP(). */
#define FLT_RETURN_IF_SKIPPED()			\
	do {					\
		if (_metadata->skip)		\
			return;			\
	} while (0)

/* ---------------------------------------------------------------- files */

static inline int flt_write(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int flt_write(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	ssize_t n;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, (size_t)len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? (int)n : 0;
}

/* The first line of @path into @buf (newline removed); 0 or -errno. */
static inline int flt_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static inline long long flt_read_ll(const char *path)
{
	char buf[64];

	return flt_read(path, buf, sizeof(buf)) ? -1 : atoll(buf);
}

static inline uint64_t flt_now_ns(void)
{
	return pmc_t_now_ns(CLOCK_MONOTONIC);
}

/* ---------------------------------------------------------------- CPUs */

#define FLT_CPU_ONLINE	"/sys/devices/system/cpu/cpu%d/online"

static inline int flt_cpu_set_online(int cpu, bool on)
{
	char path[128];

	snprintf(path, sizeof(path), FLT_CPU_ONLINE, cpu);
	return flt_write(path, "%d", on ? 1 : 0);
}

static inline int flt_cpu_online(int cpu)
{
	char path[128];

	snprintf(path, sizeof(path), FLT_CPU_ONLINE, cpu);
	return (int)flt_read_ll(path);
}

/* ---------------------------------------------------------------- ring */

struct flt_ring {
	struct pmc_ring_page *pg;
	size_t len;
};

/* Map the owner's ring of @data_pages (a power of two): 0 or -errno. */
static inline int flt_ring_map(int fd, unsigned int data_pages, struct flt_ring *r)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *a;

	r->len = (1 + data_pages) * page;
	a = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return -errno;
	r->pg = a;
	return 0;
}

static inline void flt_ring_unmap(struct flt_ring *r)
{
	if (r->pg)
		munmap(r->pg, r->len);
	r->pg = NULL;
}

static inline uint64_t flt_ring_head(const struct flt_ring *r)
{
	return __atomic_load_n(&r->pg->pr_data_head, __ATOMIC_ACQUIRE);
}

/* Everything read: tail = head. */
static inline void flt_ring_drain(struct flt_ring *r)
{
	__atomic_store_n(&r->pg->pr_data_tail, flt_ring_head(r), __ATOMIC_RELEASE);
}

/* The header of the record at ring offset @pos. */
static inline struct pmclog_header flt_ring_header(const struct flt_ring *r, uint64_t pos)
{
	const char *data = (const char *)r->pg + r->pg->pr_data_offset;
	uint64_t size = r->pg->pr_data_size;
	struct pmclog_header h;
	size_t off = (size_t)(pos & (size - 1)), first = (size_t)size - off;

	if (first > sizeof(h))
		first = sizeof(h);
	memcpy(&h, data + off, first);
	memcpy((char *)&h + first, data, sizeof(h) - first);
	return h;
}

/*
 * Sample (CALLCHAIN) records in [@from, @to) of the ring taken after @after_ns
 * (CLOCK_MONOTONIC, the records' pl_tsc); -1 if a record is malformed.
 */
static inline int flt_ring_samples_after(const struct flt_ring *r, uint64_t from,
					 uint64_t to, uint64_t after_ns)
{
	uint64_t pos = from;
	int n = 0;

	while (pos < to) {
		struct pmclog_header h = flt_ring_header(r, pos);
		uint32_t len = PMCLOG_HEADER_TO_LENGTH(h.pl_header);

		if (!PMCLOG_HEADER_CHECK_MAGIC(h.pl_header) || len < sizeof(h) ||
		    len % 8 || len > to - pos)
			return -1;
		if (PMCLOG_HEADER_TO_TYPE(h.pl_header) == PMCLOG_TYPE_CALLCHAIN &&
		    h.pl_tsc > after_ns)
			n++;
		pos += len;
	}
	return n;
}

/* ---------------------------------------------------------------- rows */

/*
 * Rows of every online CPU still owned (allocated, stopped or running)
 * after @wait_ms: a killed owner's teardown may take a moment.
 */
static inline int flt_rows_owned(int fd, int wait_ms)
{
	struct pmc_op_getcpuinfo ci;
	struct pmc_info info[256];
	uint32_t n, row;
	int cpu, left;

	if (pmc_t_getcpuinfo(fd, &ci))
		return -1;
	for (;;) {
		left = 0;
		for (cpu = 0; cpu < (int)ci.pm_ncpu; cpu++) {
			n = 256;
			if (pmc_t_getpmcinfo(fd, cpu, info, &n))
				continue;
			for (row = 0; row < n && row < 256; row++)
				if (info[row].pm_ownerpid != -1 ||
				    info[row].pm_state == PMC_STATE_ALLOCATED ||
				    info[row].pm_state == PMC_STATE_RUNNING ||
				    info[row].pm_state == PMC_STATE_STOPPED)
					left++;
		}
		if (!left || wait_ms <= 0)
			return left;
		usleep(50000);
		wait_ms -= 50;
	}
}

/* ---------------------------------------------------------------- module */

/* The module the VM loaded: $PMC_KO, else driver/pmc.ko. */
static inline const char *flt_module_path(void)
{
	const char *env = getenv("PMC_KO");

	return env && *env ? env : PMC_TEST_MODULE;
}

static inline bool flt_module_loaded(void)
{
	return access("/sys/module/pmc", F_OK) == 0;
}

/* pmc.ko loaded with its default parameters (the VM's state): 0 or -1. */
static inline int flt_module_default(void)
{
	if (flt_module_loaded())
		return 0;
	return pmc_t_system("insmod %s", flt_module_path()) ? -1 : 0;
}

/* ---------------------------------------------------------------- kmemleak */

#define FLT_KMEMLEAK	"/sys/kernel/debug/kmemleak"

static inline bool flt_have_kmemleak(void)
{
	return access(FLT_KMEMLEAK, W_OK) == 0;
}

/*
 * Scan (twice, as kmemleak suggests: an object must be seen unreferenced
 * by two scans) and count the suspected leaks it lists; print the first
 * @show lines. -1 without kmemleak.
 */
static inline int flt_kmemleak_scan(int show)
{
	char line[512];
	int n = 0, shown = 0;
	FILE *f;

	if (!flt_have_kmemleak())
		return -1;
	flt_write(FLT_KMEMLEAK, "scan");
	sleep(1);
	flt_write(FLT_KMEMLEAK, "scan");
	f = fopen(FLT_KMEMLEAK, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "unreferenced object", 19))
			n++;
		if (n && shown < show) {
			fprintf(stderr, "# kmemleak: %s", line);
			shown++;
		}
	}
	fclose(f);
	return n;
}

/* Forget what kmemleak suspects now (boot-time objects, earlier tests). */
static inline void flt_kmemleak_clear(void)
{
	if (flt_have_kmemleak()) {
		flt_write(FLT_KMEMLEAK, "scan");
		flt_write(FLT_KMEMLEAK, "clear");
	}
}

#endif /* _SELFTESTS_FAULTS_H */
