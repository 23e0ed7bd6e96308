// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_selfread.c - cpc_set_sample() without a system call for a set bound
 * to the calling thread: the set's self-read page (<pmc/ring.h>, mmap
 * offset PMC_MMAP_SELFREAD_OFFSET(group)), read with perf's seqcount
 * protocol. STATIC, CLOCK and RDPMC entries are computed in user space; if
 * any entry of the set says SYSCALL, the whole set is read with one
 * PMC_OP_PMCREADSET instead (one timestamp for all, never a call per
 * counter). Without the page (an older driver), every sample is a
 * PMCREADSET. cpc_set_selfread() turns the page off and on.
 *
 * Async-signal-safe: no lock, no allocation (the overflow handler samples).
 */
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "libcpc_impl.h"

void cpc_selfread_map(cpc_t *cpc, cpc_set_t *set)
{
	long page = sysconf(_SC_PAGESIZE);
	const struct pmc_selfread_page *pg;
	int i;

	if (set->sr.pg || page <= 0)
		return;
	pg = cpc_dev_mmap(cpc, (size_t)page, PROT_READ,
			  (off_t)PMC_MMAP_SELFREAD_OFFSET(set->group,
							  (uint64_t)page));
	if (pg == MAP_FAILED)
		return;		/* an older driver: PMCREADSET it is */
	for (i = 0; i < PMC_READSET_MAX; i++)
		set->sr.ent[i] = i;
	set->sr.len = (size_t)page;
	set->sr.pg = pg;
}

void cpc_selfread_unmap(cpc_t *cpc, cpc_set_t *set)
{
	if (!set->sr.pg)
		return;
	cpc_dev_munmap(cpc, (void *)(uintptr_t)set->sr.pg, set->sr.len);
	set->sr.pg = NULL;
}

int cpc_set_selfread(cpc_t *cpc, cpc_set_t *set, int on)
{
	bool was;

	if (!cpc_set_valid(cpc, set) || set->bind != CPC_BIND_LWP ||
	    set->tid != cpc_gettid()) {
		errno = EINVAL;
		return -1;
	}
	was = set->sr.pg != NULL;
	if (on > 0) {
		cpc_selfread_map(cpc, set);
		if (!set->sr.pg) {
			errno = ENOTSUP;
			return -1;
		}
	} else if (on == 0) {
		cpc_selfread_unmap(cpc, set);
	}
	return was;
}

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t rdpmc_raw(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return ((uint64_t)hi << 32) | lo;
}
#define CPC_HAVE_RDPMC	1
#else
#define CPC_HAVE_RDPMC	0
#endif /* __x86_64__ || __i386__ */

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The page's entry for slot @slot (PMC @id), or NULL. */
static const struct pmc_selfread_entry *
entry_of(struct cpc_selfread *sr, uint32_t nent, int slot, uint32_t id)
{
	const struct pmc_selfread_entry *e = sr->pg->ps_entries;
	uint32_t j;

	if ((uint32_t)sr->ent[slot] < nent && e[sr->ent[slot]].se_pmcid == id)
		return &e[sr->ent[slot]];
	for (j = 0; j < nent; j++) {
		if (e[j].se_pmcid == id) {
			sr->ent[slot] = (int)j;
			return &e[j];
		}
	}
	return NULL;
}

/*
 * One pass over the page. 1: @vals and @ts are the set's values; 0: the
 * set needs a system call (an entry is SYSCALL, unknown or absent).
 */
static int read_once(struct cpc_selfread *sr, const cpc_set_t *set,
		     uint64_t *vals, uint64_t *ts)
{
	uint32_t nent = __atomic_load_n(&sr->pg->ps_nentries, __ATOMIC_RELAXED);
	const struct pmc_selfread_entry *e;
	uint64_t now = 0, raw;
	int i;

	if (nent > PMC_SELFREAD_MAX)
		nent = PMC_SELFREAD_MAX;
	for (i = 0; i < set->nids; i++) {
		e = entry_of(sr, nent, i, set->ids[i]);
		if (!e)
			return 0;
		switch (__atomic_load_n(&e->se_kind, __ATOMIC_RELAXED)) {
		case PMC_SELFREAD_STATIC:
			vals[i] = (uint64_t)e->se_offset;
			break;
		case PMC_SELFREAD_CLOCK:
			if (!now)
				now = mono_ns();
			vals[i] = (uint64_t)e->se_offset + (now - e->se_stamp);
			break;
		case PMC_SELFREAD_RDPMC:
			if (!CPC_HAVE_RDPMC || !e->se_index)
				return 0;
			raw = rdpmc_raw(e->se_index - 1);
			if (e->se_width > 0 && e->se_width < 64)
				raw = (uint64_t)((int64_t)(raw << (64 - e->se_width)) >>
						 (64 - e->se_width));
			vals[i] = (uint64_t)e->se_offset + raw;
			break;
		default:	/* SYSCALL, and kinds added later */
			return 0;
		}
	}
	*ts = now ? now : mono_ns();
	return 1;
}

/*
 * Sample @set from its page: 0 with @vals (by slot) and @ts filled, or -1
 * when the caller must use PMCREADSET (no page, or an entry needs it).
 */
int cpc_selfread_sample(cpc_t *cpc, cpc_set_t *set, uint64_t *vals,
			uint64_t *ts)
{
	struct cpc_selfread *sr = &set->sr;
	unsigned int spins = 0;
	uint32_t seq;
	int ok;

	if (!sr->pg)
		return -1;
	for (;;) {
		seq = __atomic_load_n(&sr->pg->ps_seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			/* The kernel is rewriting it (a switch-in). */
			if (++spins % 64 == 0)
				sched_yield();
			continue;
		}
		ok = read_once(sr, set, vals, ts);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&sr->pg->ps_seq, __ATOMIC_RELAXED) == seq)
			break;
	}
	if (!ok)
		return -1;
	if (cpc->stats)
		atomic_fetch_add_explicit(&cpc->n_selfreads, 1,
					  memory_order_relaxed);
	return 0;
}
