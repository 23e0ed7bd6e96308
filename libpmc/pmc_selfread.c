// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_selfread.c - the Linux self-read page (<pmc/ring.h>): a thread reads
 * the PMCs of one set attached to it without a system call, with perf's
 * seqcount protocol, falling back to PMC_OP_PMCREADSET for the PMCs the
 * page cannot give.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <pmc/ring.h>

#include "libpmc_impl.h"

const struct pmc_selfread_page *pmc_selfread_map(uint32_t group)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = pmc__fd();
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd,
		 (off_t)PMC_MMAP_SELFREAD_OFFSET(group, (uint64_t)page));
	return p == MAP_FAILED ? NULL : p;
}

int pmc_selfread_unmap(const struct pmc_selfread_page *pg)
{
	if (!pg) {
		errno = EINVAL;
		return -1;
	}
	return munmap((void *)(uintptr_t)pg, (size_t)sysconf(_SC_PAGESIZE));
}

static int pmc_rdpmc(uint32_t index, uint32_t width, uint64_t *raw)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	uint64_t v;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index));
	v = ((uint64_t)hi << 32) | lo;
	/* Sign-extend the counter's width, as perf's self-monitoring does. */
	if (width > 0 && width < 64)
		v = (uint64_t)((int64_t)(v << (64 - width)) >> (64 - width));
	*raw = v;
	return 0;
#else
	(void)index;
	(void)width;
	(void)raw;
	return -1;
#endif /* x86 */
}

static uint64_t pmc_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * One pass over the page: the values of @ids, or -1 with @*fallback set when
 * one of them must be read with a system call, or errno ENOENT when one is
 * not on the page.
 */
static int pmc_selfread_once(const struct pmc_selfread_page *pg, unsigned int n,
			     const pmc_id_t *ids, pmc_value_t *values,
			     bool *fallback)
{
	uint32_t nent = __atomic_load_n(&pg->ps_nentries, __ATOMIC_RELAXED);
	const struct pmc_selfread_entry *e;
	unsigned int i, j;
	uint64_t raw;

	if (nent > PMC_SELFREAD_MAX)
		nent = PMC_SELFREAD_MAX;
	for (i = 0; i < n; i++) {
		for (j = 0; j < nent; j++)
			if (pg->ps_entries[j].se_pmcid == ids[i])
				break;
		if (j == nent) {
			errno = ENOENT;
			return -1;
		}
		e = &pg->ps_entries[j];
		switch (e->se_kind) {
		case PMC_SELFREAD_STATIC:
			values[i] = (pmc_value_t)e->se_offset;
			break;
		case PMC_SELFREAD_CLOCK:
			values[i] = (pmc_value_t)e->se_offset +
				(pmc_mono_ns() - e->se_stamp);
			break;
		case PMC_SELFREAD_RDPMC:
			if (e->se_index == 0 ||
			    pmc_rdpmc(e->se_index - 1, e->se_width, &raw) < 0) {
				*fallback = true;
				return -1;
			}
			values[i] = (pmc_value_t)e->se_offset + raw;
			break;
		default:	/* PMC_SELFREAD_SYSCALL and kinds added later */
			*fallback = true;
			return -1;
		}
	}
	return 0;
}

int pmc_selfread(const struct pmc_selfread_page *pg, unsigned int n,
		 const pmc_id_t *ids, pmc_value_t *values)
{
	bool fallback = false;
	unsigned int spins = 0;
	uint32_t seq;
	int ret;

	if (!pg || n == 0 || n > PMC_READSET_MAX || !ids || !values) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		seq = __atomic_load_n(&pg->ps_seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			/* The kernel is updating it (a switch-in): wait. */
			if (++spins % 64 == 0)
				sched_yield();
			continue;
		}
		ret = pmc_selfread_once(pg, n, ids, values, &fallback);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pg->ps_seq, __ATOMIC_RELAXED) == seq)
			break;
		fallback = false;
	}
	if (fallback)
		return pmc_read_set(n, ids, values, NULL);
	return ret;
}
