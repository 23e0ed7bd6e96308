// SPDX-License-Identifier: GPL-2.0
/*
 * probe_pool.c - preallocated blocks for the work the fork and exec probes
 * queue (the fork probe's counting of a new thread or process, target.c;
 * the exec probe's PROCEXEC and MAP_IN, log/log_maps.c).
 *
 * A tracepoint probe runs with preemption disabled (6.1 and 6.12). On
 * PREEMPT_RT the slab allocator takes spinlock_t locks, which sleep there,
 * even for GFP_ATOMIC, and so may kfree(): Debian's RT kernel reported
 * "BUG: scheduling while atomic" for the exec probe's kmalloc. So the
 * probes allocate and free nothing: they take a block from their CPU's
 * pool and the work that used it gives it back.
 *
 * Each CPU keeps @want blocks free, PMC_POOL_MIN at first. The refill (a
 * work, process context) allocates what is missing; a probe that takes one
 * of the last quarter of them queues it. A probe that finds its pool empty
 * doubles @want (up to PMC_POOL_MAX), so that the pool follows the fork and
 * exec rate of the machine, and then, where the kernel allows it
 * (!PREEMPT_RT), allocates the block GFP_ATOMIC; it joins the pool when
 * given back. Only on PREEMPT_RT, or when that allocation fails, is what
 * the probe would have queued lost (the caller says so in the kernel log):
 * a fork storm of 32 children under a loaded host emptied the 16 blocks
 * this pool had at first on the RT kernel, and a DESCENDANTS PMC missed a
 * child. Blocks are freed at module unload only.
 */
#include "pmc_core_priv.h"

#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define PMC_POOL_MIN	128	/* blocks of 128 bytes, per CPU */
#define PMC_POOL_MAX	4096

/*
 * struct pmc_pool_block - one block.
 * @link:	in its pool's free list while free
 * @cpu:	the pool it belongs to (a block goes back where it came from,
 *		so that a CPU whose children run elsewhere keeps its blocks)
 * @data:	what the caller gets
 */
struct pmc_pool_block {
	struct list_head link;
	unsigned int cpu;
	u8 data[PMC_PROBE_BLOCK_SIZE] __aligned(8);
};

/*
 * struct pmc_pool - one CPU's pool.
 * @lock:	protects the rest. A raw spinlock taken with IRQs off, from
 *		the fork and exec probes (preemption off), the works that
 *		give blocks back and the refill (process context); innermost.
 *		Raw for the probes: a spinlock_t sleeps on PREEMPT_RT.
 * @free:	the free blocks
 * @nfree:	how many
 * @want:	how many to keep free
 */
struct pmc_pool {
	raw_spinlock_t lock;
	struct list_head free;
	unsigned int nfree;
	unsigned int want;
};

static DEFINE_PER_CPU(struct pmc_pool, pmc_pools);

static void pmc_pool_refill_fn(struct work_struct *work);
static DECLARE_WORK(pmc_pool_refill, pmc_pool_refill_fn);

/*
 * Context: any but NMI and the sched_switch probe (the rq lock held: the
 * refill's queue_work() may wake a worker). Takes this CPU's pool lock with
 * IRQs off; never sleeps, and allocates (GFP_ATOMIC) only when the pool is
 * empty on a kernel without PREEMPT_RT.
 */
void *pmc_probe_block_get(size_t size)
{
	struct pmc_pool_block *b;
	struct pmc_pool *pool;
	unsigned long flags;
	bool low;

	if (WARN_ON_ONCE(size > PMC_PROBE_BLOCK_SIZE))
		return NULL;
	local_irq_save(flags);
	pool = this_cpu_ptr(&pmc_pools);
	raw_spin_lock(&pool->lock);
	b = list_first_entry_or_null(&pool->free, struct pmc_pool_block, link);
	if (b) {
		list_del(&b->link);
		pool->nfree--;
	} else {
		pool->want = min(pool->want * 2, PMC_POOL_MAX);
	}
	low = pool->nfree < pool->want / 4;
	raw_spin_unlock(&pool->lock);
	if (!b && !IS_ENABLED(CONFIG_PREEMPT_RT)) {
		b = kmalloc(sizeof(*b), GFP_ATOMIC | __GFP_NOWARN);
		if (b)
			b->cpu = smp_processor_id();
	}
	local_irq_restore(flags);
	if (low)
		queue_work(system_unbound_wq, &pmc_pool_refill);
	return b ? b->data : NULL;
}

/* Context: any but NMI. Takes the block's pool lock with IRQs off. */
void pmc_probe_block_put(void *block)
{
	struct pmc_pool_block *b = (void *)((u8 *)block -
					    offsetof(struct pmc_pool_block,
						     data));
	struct pmc_pool *pool = per_cpu_ptr(&pmc_pools, b->cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->lock, flags);
	list_add(&b->link, &pool->free);
	pool->nfree++;
	raw_spin_unlock_irqrestore(&pool->lock, flags);
}

/*
 * Bring @cpu's pool up to its @want. Context: process (allocates with
 * GFP_KERNEL outside the lock). Returns -ENOMEM if an allocation failed.
 */
static int pmc_pool_fill(unsigned int cpu)
{
	struct pmc_pool *pool = per_cpu_ptr(&pmc_pools, cpu);
	struct pmc_pool_block *b;
	bool short_of;

	for (;;) {
		raw_spin_lock_irq(&pool->lock);
		short_of = pool->nfree < pool->want;
		raw_spin_unlock_irq(&pool->lock);
		if (!short_of)
			return 0;
		b = kmalloc_node(sizeof(*b), GFP_KERNEL, cpu_to_node(cpu));
		if (!b)
			return -ENOMEM;
		b->cpu = cpu;
		pmc_probe_block_put(b->data);
	}
}

/* Context: process (system_unbound_wq). */
static void pmc_pool_refill_fn(struct work_struct *work)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		pmc_pool_fill(cpu);
}

/*
 * Context: process, at module unload, once no probe is registered and no
 * work holds a block (each holds the module).
 */
void pmc_probe_pool_exit(void)
{
	struct pmc_pool_block *b, *tmp;
	unsigned int cpu;

	cancel_work_sync(&pmc_pool_refill);
	for_each_possible_cpu(cpu) {
		struct pmc_pool *pool = per_cpu_ptr(&pmc_pools, cpu);

		list_for_each_entry_safe(b, tmp, &pool->free, link) {
			list_del(&b->link);
			kfree(b);
		}
		pool->nfree = 0;
	}
}

/* Context: process, at module load. */
int pmc_probe_pool_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct pmc_pool *pool = per_cpu_ptr(&pmc_pools, cpu);

		raw_spin_lock_init(&pool->lock);
		INIT_LIST_HEAD(&pool->free);
		pool->nfree = 0;
		pool->want = PMC_POOL_MIN;
	}
	for_each_possible_cpu(cpu) {
		if (pmc_pool_fill(cpu)) {
			pmc_probe_pool_exit();
			return -ENOMEM;
		}
	}
	return 0;
}
