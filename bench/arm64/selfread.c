// SPDX-License-Identifier: GPL-2.0
/*
 * selfread.c - arm64: the cost of reading one running hardware counter of
 * the calling thread (instructions, user mode), four ways, in the same
 * guest (make arm64-bench, docs/performance.md "arm64"):
 *
 *   pmc self-read   pmc(3)'s pmc_selfread(): the self-read page's RDPMC
 *                   entry and an mrs of the counter, no system call
 *   perf mmap       perf's own self-read: the event's mmap page (index,
 *                   offset, pmc_width under its seqlock) and the same mrs,
 *                   as libperf's perf_mmap__read_self() does
 *   PMCRW           pmc(3)'s pmc_read(): the PMC_OP_PMCRW system call
 *   perf read(2)    read(2) of the perf event's fd
 *
 * Each way is timed over @n calls, @reps times, in turns; the median
 * nanoseconds per call are printed, with the ratio to perf mmap. Under
 * QEMU's -icount shift=0 the guest clock advances one ns per executed
 * instruction, so these are also instruction counts (kernel included).
 *
 * Usage: bench-arm64-selfread [n [reps]]. Needs pmc.ko, an armv8_pmuv3 PMU
 * and kernel.perf_user_access (set to 1 here, restored at exit).
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <pmc.h>
#include <pmc/ring.h>

#define USER_ACCESS	"/proc/sys/kernel/perf_user_access"
#define GROUP		7
#define NWAYS		4

static const char *const way_name[NWAYS] = {
	"pmc self-read (pmc_selfread)", "perf mmap self-read",
	"PMCRW (pmc_read)", "perf read(2)",
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-arm64-selfread: %s: %s\n", what, strerror(errno));
	exit(1);
}

#if defined(__aarch64__)
/* Counter @idx (perf's index - 1): PMEVCNTR<idx>_EL0, 31 = PMCCNTR_EL0. */
#define EVCNTR(n)							\
	case n:								\
		__asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break
static uint64_t read_counter(uint32_t idx)
{
	uint64_t v = 0;

	switch (idx) {
	EVCNTR(0); EVCNTR(1); EVCNTR(2); EVCNTR(3); EVCNTR(4); EVCNTR(5);
	EVCNTR(6); EVCNTR(7); EVCNTR(8); EVCNTR(9); EVCNTR(10);
	EVCNTR(11); EVCNTR(12); EVCNTR(13); EVCNTR(14); EVCNTR(15);
	EVCNTR(16); EVCNTR(17); EVCNTR(18); EVCNTR(19); EVCNTR(20);
	EVCNTR(21); EVCNTR(22); EVCNTR(23); EVCNTR(24); EVCNTR(25);
	EVCNTR(26); EVCNTR(27); EVCNTR(28); EVCNTR(29); EVCNTR(30);
	case 31:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}
#else
static uint64_t read_counter(uint32_t idx)
{
	(void)idx;
	return 0;
}
#endif /* __aarch64__ */

/*
 * perf's mmap self-read as libperf's perf_mmap__read_self()
 * (tools/lib/perf/mmap.c) does it for a counter that runs all the time: a
 * library call (not inlined here either), the page's seqlock around
 * time_enabled, time_running, index, offset and pmc_width. 0, or -1 where
 * the page does not allow a user read.
 */
static int __attribute__((noinline))
perf_mmap_read(volatile struct perf_event_mmap_page *pc, uint64_t *value,
	       uint64_t *ena, uint64_t *run)
{
	uint32_t seq, idx;
	uint16_t width;
	int64_t cnt;

	if (!pc->cap_user_rdpmc)
		return -1;
	do {
		seq = pc->lock;
		__asm__ __volatile__("" ::: "memory");
		*ena = pc->time_enabled;
		*run = pc->time_running;
		idx = pc->index;
		cnt = pc->offset;
		if (!pc->cap_user_rdpmc || !idx)
			return -1;
		width = pc->pmc_width;
		{
			int64_t raw = (int64_t)read_counter(idx - 1);

			raw <<= 64 - width;
			raw >>= 64 - width;
			cnt += raw;
		}
		__asm__ __volatile__("" ::: "memory");
	} while (pc->lock != seq);
	*value = (uint64_t)cnt;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int reps = argc > 2 ? atoi(argv[2]) : 5;
	struct perf_event_attr attr;
	struct pmc_op_pmcallocate pa;
	const struct pmc_selfread_page *pg;
	struct perf_event_mmap_page *pc;
	uint64_t *ns[NWAYS], v, ena, run, sink = 0, t0, med[NWAYS];
	int pfd, old = -1, r, w;
	pmc_id_t id;
	FILE *f;
	long i;

	if (n <= 0 || reps <= 0)
		return 2;
	f = fopen(USER_ACCESS, "r+");
	if (!f)
		die(USER_ACCESS);
	if (fscanf(f, "%d", &old) != 1)
		old = -1;
	rewind(f);
	fprintf(f, "1\n");
	fclose(f);

	if (pmc_init() < 0)
		die("pmc_init");
	memset(&pa, 0, sizeof(pa));
	pa.pm_caps = PMC_CAP_USER;
	pa.pm_cpu = PMC_CPU_ANY;
	pa.pm_class = PMC_CLASS_ARMV8;
	pa.pm_ev = PMC_EV_GENERIC_FIRST + PERF_COUNT_HW_INSTRUCTIONS;
	pa.pm_mode = PMC_MODE_TC;
	pa.pm_group = GROUP;
	pa.pm_md.pm_type = PERF_TYPE_HARDWARE;
	pa.pm_md.pm_config = PERF_COUNT_HW_INSTRUCTIONS;
	if (pmc_allocate_request(&pa) || pmc_attach_thread(pa.pm_pmcid, 0, 0) ||
	    pmc_start(pa.pm_pmcid))
		die("PMC");
	id = pa.pm_pmcid;
	pg = pmc_selfread_map(GROUP);
	if (!pg || pmc_selfread(pg, 1, &id, &v))
		die("self-read page");

	/* The same event through perf, readable from EL0 (config1 rdpmc). */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.config1 = 0x2;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	pfd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (pfd < 0)
		die("perf_event_open");
	pc = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		  pfd, 0);
	if (pc == MAP_FAILED)
		die("perf mmap");
	if (perf_mmap_read(pc, &v, &ena, &run)) {
		errno = EOPNOTSUPP;
		die("perf mmap page without cap_user_rdpmc");
	}
	if (pg->ps_entries[0].se_kind != PMC_SELFREAD_RDPMC) {
		errno = EOPNOTSUPP;
		die("self-read entry not RDPMC");
	}

	for (w = 0; w < NWAYS; w++) {
		ns[w] = calloc((size_t)reps, sizeof(uint64_t));
		if (!ns[w])
			die("calloc");
	}
	for (r = 0; r < reps; r++) {
		for (w = 0; w < NWAYS; w++) {
			t0 = now_ns();
			for (i = 0; i < n; i++) {
				switch (w) {
				case 0:
					pmc_selfread(pg, 1, &id, &v);
					break;
				case 1:
					perf_mmap_read(pc, &v, &ena, &run);
					break;
				case 2:
					pmc_read(id, &v);
					break;
				case 3:
					if (read(pfd, &v, sizeof(v)) != sizeof(v))
						die("read");
					break;
				}
				sink += v;
			}
			ns[w][r] = now_ns() - t0;
		}
	}
	for (w = 0; w < NWAYS; w++) {
		qsort(ns[w], (size_t)reps, sizeof(uint64_t), cmp_u64);
		med[w] = ns[w][reps / 2];
	}
	printf("| read of one running counter (instructions:u) | ns per call | x perf mmap |\n");
	printf("|---|---:|---:|\n");
	for (w = 0; w < NWAYS; w++)
		printf("| %s | %.1f | %.2f |\n", way_name[w],
		       (double)med[w] / (double)n, (double)med[w] / (double)med[1]);
	printf("\n%ld calls per way, median of %d turns; pmc self-read is %.1fx faster than PMCRW and %.1fx faster than perf read(2) (checksum %" PRIu64 ")\n",
	       n, reps, (double)med[2] / (double)med[0],
	       (double)med[3] / (double)med[0], sink & 0xff);

	if (old >= 0) {
		f = fopen(USER_ACCESS, "w");
		if (f) {
			fprintf(f, "%d\n", old);
			fclose(f);
		}
	}
	return 0;
}
