// SPDX-License-Identifier: GPL-2.0
/*
 * ring.c - the owner's mmap'd record ring (include/uapi/pmc/ring.h): one
 * control page and 2^n data pages of vmalloc_user() memory, filled by the
 * publisher of log.c (the single producer, under pub_lock) with perf's
 * head/tail protocol, never overwriting: a record that does not fit is
 * dropped, counted (pr_lost, ring_dropped) and reported by a DROPNOTIFY
 * once there is room. poll() waits on the owner's own wait queue
 * (pmc_owner.ring_wait), woken by the publisher of that owner only, when
 * the readable bytes reach the reader's watermark.
 *
 * Everything here runs in process context: mmap (mmap_lock held), the vma
 * callbacks (mmap_lock held), poll, and the publisher.
 */
#include "base/pmc_base.h"
#include "pmc_log_priv.h"
#include "compat/mm.h"

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <pmc/ring.h>

/* Largest data area: 2^16 pages (256 MiB with 4 KiB pages). */
#define PMC_RING_MAX_PAGES	65536

/*
 * struct pmc_ring - a mapped ring.
 * @ref:	references: each vma mapping it, and the log state while
 *		linked (log->ring)
 * @nmaps:	vmas mapping it, under log->pub_lock
 * @log:	the owner's log state (a reference, dropped with the ring)
 * @head:	the producer's head, under log->pub_lock; published to
 *		pg->pr_data_head by pmc_ring_commit()
 * @lost:	records dropped, mirrored to pg->pr_lost
 */
struct pmc_ring {
	refcount_t ref;
	unsigned int nmaps;
	struct pmc_log_state *log;
	void *base;
	struct pmc_ring_page *pg;
	u8 *data;
	u64 size;
	unsigned long npages;
	u64 head;
	u64 lost;
};

static void pmc_ring_put(struct pmc_ring *ring)
{
	if (!refcount_dec_and_test(&ring->ref))
		return;
	vfree(ring->base);
	pmc_log_state_put(ring->log);
	kfree(ring);
}

static struct pmc_ring *pmc_ring_alloc(struct pmc_log_state *log,
				       unsigned long npages)
{
	struct pmc_ring *ring;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return NULL;
	ring->base = vmalloc_user((npages + 1) << PAGE_SHIFT);
	if (!ring->base) {
		kfree(ring);
		return NULL;
	}
	refcount_set(&ring->ref, 1);	/* the log state's */
	ring->npages = npages;
	ring->size = (u64)npages << PAGE_SHIFT;
	ring->pg = ring->base;
	ring->data = ring->base + PAGE_SIZE;
	ring->pg->pr_version = PMC_RING_VERSION;
	ring->pg->pr_page_size = PAGE_SIZE;
	ring->pg->pr_data_offset = PAGE_SIZE;
	ring->pg->pr_data_size = ring->size;
	kref_get(&log->ref);
	ring->log = log;
	return ring;
}

/* ------------------------------------------------------------ producer */

/* Bytes the reader has not consumed; more than the size if it lied. */
static u64 pmc_ring_used(struct pmc_ring *ring)
{
	/* Pairs with the reader's store-release of the tail (perf's A/D). */
	return ring->head - smp_load_acquire(&ring->pg->pr_data_tail);
}

bool pmc_ring_has_room(struct pmc_ring *ring, u32 len)
{
	u64 used = pmc_ring_used(ring);

	return used <= ring->size && ring->size - used >= len;
}

bool pmc_ring_put_record(struct pmc_ring *ring, const void *rec, u32 len)
{
	u64 off, first;

	if (!pmc_ring_has_room(ring, len)) {
		ring->lost++;
		WRITE_ONCE(ring->pg->pr_lost, ring->lost);
		atomic64_inc(&pmc_stats.ring_dropped);
		return false;
	}
	off = ring->head & (ring->size - 1);
	first = min_t(u64, len, ring->size - off);
	memcpy(ring->data + off, rec, first);
	memcpy(ring->data, rec + first, len - first);
	ring->head += len;
	return true;
}

/* Bytes that make the ring readable for poll(): the reader's watermark. */
static u64 pmc_ring_watermark(struct pmc_ring *ring)
{
	u64 wm = READ_ONCE(ring->pg->pr_watermark);

	return clamp_t(u64, wm, 1, ring->size);
}

static bool pmc_ring_readable(struct pmc_ring *ring)
{
	u64 used = pmc_ring_used(ring);

	return used <= ring->size && used >= pmc_ring_watermark(ring);
}

void pmc_ring_commit(struct pmc_ring *ring)
{
	if (ring->head == READ_ONCE(ring->pg->pr_data_head))
		return;
	/* The records are written before the head moves (perf's B/C). */
	smp_store_release(&ring->pg->pr_data_head, ring->head);
	if (pmc_ring_readable(ring))
		wake_up_interruptible_poll(&ring->log->po->ring_wait,
					   EPOLLIN | EPOLLRDNORM);
}

void pmc_ring_detach(struct pmc_log_state *log)
{
	struct pmc_ring *ring = log->ring;

	lockdep_assert_held(&log->pub_lock);
	if (!ring)
		return;
	log->ring = NULL;
	WRITE_ONCE(log->sinks, log->sinks & ~PMC_LOG_SINK_RING);
	pmc_ring_put(ring);
	/* Pollers of a ring that went away see EPOLLERR. */
	wake_up_interruptible_poll(&log->po->ring_wait, EPOLLERR);
}

/* ------------------------------------------------------------ mapping */

static void pmc_ring_vm_open(struct vm_area_struct *vma)
{
	struct pmc_ring *ring = vma->vm_private_data;

	refcount_inc(&ring->ref);
	mutex_lock(&ring->log->pub_lock);
	ring->nmaps++;
	mutex_unlock(&ring->log->pub_lock);
}

/* The last unmap unlinks the ring: records stop going to it. */
static void pmc_ring_vm_close(struct vm_area_struct *vma)
{
	struct pmc_ring *ring = vma->vm_private_data;
	struct pmc_log_state *log = ring->log;

	mutex_lock(&log->pub_lock);
	if (!--ring->nmaps && log->ring == ring)
		pmc_ring_detach(log);
	mutex_unlock(&log->pub_lock);
	pmc_ring_put(ring);
}

static const struct vm_operations_struct pmc_ring_vm_ops = {
	.open	= pmc_ring_vm_open,
	.close	= pmc_ring_vm_close,
};

/*
 * Map the ring, creating it if none is mapped (offsets from
 * PMC_MMAP_SELFREAD_PGOFF pages are self-read pages: selfread.c). The
 * mapping must be shared
 * and readable/writable (the reader stores pr_data_tail), at offset 0, of
 * 1 + 2^n pages; mapping it again with another size while it is mapped is
 * EBUSY. Called with mmap_lock held.
 */
int pmc_ring_mmap(struct pmc_file *pf, struct vm_area_struct *vma)
{
	unsigned long npages = vma_pages(vma) - 1;
	struct pmc_log_state *log;
	struct pmc_ring *ring;
	struct pmc_owner *po;
	bool created = false;
	int ret;

	if (vma->vm_pgoff >= PMC_MMAP_SELFREAD_PGOFF)
		return pmc_selfread_mmap(pf, vma);
	if (!pmc_file_is_opener(pf))
		return -EPERM;
	/* Offset 0: the ring; from PMC_MMAP_SELFREAD_PGOFF, self-read pages. */
	if (vma->vm_pgoff != 0) {
		pr_debug_ratelimited("mmap: offset %lu pages is no mapping\n",
				     vma->vm_pgoff);
		return -EINVAL;
	}
	if (!(vma->vm_flags & VM_SHARED) ||
	    (vma->vm_flags & (VM_READ | VM_WRITE)) != (VM_READ | VM_WRITE) ||
	    !npages || !is_power_of_2(npages) ||
	    npages > PMC_RING_MAX_PAGES) {
		pr_debug_ratelimited("mmap: %lu data pages, flags 0x%lx refused\n",
				     npages, (unsigned long)vma->vm_flags);
		return -EINVAL;
	}
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;

	/* mmap_lock is held: not the owner's lock (pmc_core.h, @log_lock). */
	po = pmc_owner_find(pf, true);
	if (IS_ERR(po))
		return PTR_ERR(po);
	log = pmc_log_state_get(po);
	if (IS_ERR(log))
		return PTR_ERR(log);

	mutex_lock(&log->pub_lock);
	ret = -ESRCH;
	if (log->dead)
		goto out;
	ring = log->ring;
	ret = -EBUSY;
	if (ring && ring->npages != npages)
		goto out;
	if (!ring) {
		ret = -ENOMEM;
		ring = pmc_ring_alloc(log, npages);
		if (!ring)
			goto out;
		created = true;
	}
	ret = remap_vmalloc_range(vma, ring->base, 0);
	if (ret) {
		if (created)
			pmc_ring_put(ring);
		goto out;
	}
	pmc_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	pmc_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_ops = &pmc_ring_vm_ops;
	vma->vm_private_data = ring;
	refcount_inc(&ring->ref);
	ring->nmaps++;
	if (created) {
		log->ring = ring;
		WRITE_ONCE(log->sinks, log->sinks | PMC_LOG_SINK_RING);
		/* A reader of a new ring starts with INITIALIZE. */
		pmc_log_initialize(log);
		pmc_log_publish_locked(log, false);
	}
	ret = 0;
out:
	mutex_unlock(&log->pub_lock);
	pmc_log_state_put(log);
	return ret;
}

__poll_t pmc_ring_poll(struct pmc_file *pf, struct file *file,
		       struct poll_table_struct *wait)
{
	struct pmc_log_state *log = NULL;
	struct pmc_owner *po;
	__poll_t mask = EPOLLERR;

	if (!pmc_file_is_opener(pf))
		return EPOLLERR;
	po = pmc_owner_lock(pf, false);
	if (IS_ERR_OR_NULL(po))
		return EPOLLERR;
	/* A dead owner's log goes without the owner's lock. */
	log = po->dead ? NULL : po->log;
	if (log)
		kref_get(&log->ref);
	pmc_owner_unlock(po);
	if (!log)
		return EPOLLERR;

	poll_wait(file, &po->ring_wait, wait);
	mutex_lock(&log->pub_lock);
	if (log->ring)
		mask = pmc_ring_readable(log->ring) ? EPOLLIN | EPOLLRDNORM : 0;
	mutex_unlock(&log->pub_lock);
	pmc_log_state_put(log);
	return mask;
}
