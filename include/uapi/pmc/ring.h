/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR BSD-2-Clause */
/*
 * ring.h - the layout of /dev/pmc mappings.
 *
 * Two kinds of mapping, told apart by the mmap offset:
 *
 * 1. The owner's record ring, at offset 0: one control page (struct
 *    pmc_ring_page) followed by 2^n data pages holding pmclog records
 *    (pmclog.h). Only the process that opened the file may map it; a second
 *    mapping with another size gives EBUSY while the first exists. The kernel
 *    is the single producer, the mapping process the consumer; perf's
 *    protocol:
 *
 *        kernel                               reader
 *        tail = load_acquire(&pr_data_tail)   head = load_acquire(&pr_data_head)
 *        if space: write records              read records in [tail, head)
 *        store_release(&pr_data_head, head)   store_release(&pr_data_tail, head)
 *
 *    pr_data_head and pr_data_tail are free-running byte counts; a record at
 *    offset o starts at data[o & (pr_data_size - 1)] and may wrap past the end
 *    of the data area (copy it in two pieces). The kernel never overwrites
 *    unread data: a record that does not fit is dropped, counted in pr_lost,
 *    and reported by a DROPNOTIFY record once there is room. poll() reports
 *    POLLIN when at least pr_watermark bytes are readable (a reader may change
 *    pr_watermark; 0 means any byte).
 *
 * 2. The self-read page of a set, at offset PMC_MMAP_SELFREAD_OFFSET(group):
 *    one read-only page (struct pmc_selfread_page) for the PMCs with pm_group
 *    == group that are attached in thread scope to the mapping thread. It lets
 *    the thread read its own counters without a system call, in perf's
 *    self-monitoring style (see the protocol at struct pmc_selfread_page).
 */
#ifndef _UAPI_PMC_RING_H
#define _UAPI_PMC_RING_H

#include <linux/types.h>

#define PMC_RING_VERSION		1
#define PMC_MMAP_SELFREAD_PGOFF		0x100000UL	/* in pages */
#define PMC_MMAP_SELFREAD_OFFSET(group, page_size) \
	((PMC_MMAP_SELFREAD_PGOFF + (__u64)(group)) * (__u64)(page_size))

struct pmc_ring_page {
	__u32	pr_version;	/* PMC_RING_VERSION */
	__u32	pr_page_size;
	__u64	pr_data_offset;	/* of the data area from the mapping start */
	__u64	pr_data_size;	/* bytes, a power of two */
	__u64	pr_data_head;	/* written by the kernel (store-release) */
	__u64	pr_data_tail;	/* written by the reader (store-release) */
	__u64	pr_lost;	/* records dropped because the ring was full */
	__u32	pr_watermark;	/* written by the reader */
	__u32	pr_pad;
	__u64	pr_reserved[58];
};

/* How a self-read entry's live part is obtained. */
enum pmc_selfread_kind {
	PMC_SELFREAD_SYSCALL = 0,	/* not readable here: use PMC_OP_PMCREADSET */
	PMC_SELFREAD_STATIC = 1,	/* value = se_offset (the PMC is not counting now) */
	PMC_SELFREAD_CLOCK = 2,		/* value = se_offset + (CLOCK_MONOTONIC ns - se_stamp) */
	PMC_SELFREAD_RDPMC = 3,		/* value = se_offset + sign-extended rdpmc(se_index - 1) */
};

struct pmc_selfread_entry {
	__u32	se_pmcid;
	__u32	se_kind;	/* enum pmc_selfread_kind */
	__u32	se_index;	/* RDPMC: hardware counter index + 1 */
	__u32	se_width;	/* RDPMC: counter width in bits */
	__s64	se_offset;	/* value up to the last switch-in (RDPMC: minus the raw count then) */
	__u64	se_stamp;	/* CLOCK: CLOCK_MONOTONIC ns at the last switch-in */
};

#define PMC_SELFREAD_MAX	32

/*
 * Protocol (perf's seqcount): the kernel makes ps_seq odd, updates the page,
 * then makes it even again. A reader:
 *
 *     do {
 *             seq = load_acquire(&pg->ps_seq);
 *             if (seq & 1) continue;
 *             for each entry: v[i] = se_offset + the live part of its kind;
 *             fence(acquire);
 *     } while (pg->ps_seq != seq);
 *
 * Entries from ps_nentries on are all zero (kind SYSCALL) in every
 * consistent snapshot, so entry 0 may be tested without ps_nentries.
 *
 * The page is valid only in the thread it describes (ps_tid): an entry of
 * kind RDPMC read by another thread gives a meaningless value.
 */
struct pmc_selfread_page {
	__u32	ps_seq;
	__u32	ps_nentries;
	__u32	ps_tid;
	__u32	ps_group;
	__u64	ps_reserved[6];
	struct pmc_selfread_entry ps_entries[PMC_SELFREAD_MAX];
};

#endif /* _UAPI_PMC_RING_H */
