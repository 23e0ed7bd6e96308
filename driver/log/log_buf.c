// SPDX-License-Identifier: GPL-2.0
/*
 * log_buf.c - the owner's log buffers: the pool (at most nbuffers_pcpu
 * buffers of logbuffersize KiB per CPU) and the per-CPU staging of records.
 *
 * pmc_log_begin()/pmc_log_end() run in any context but NMI: process context,
 * tracepoint probes (sched_switch with IRQs off and the rq lock held) and
 * hard IRQ (the sample drain). They take only raw spinlocks with IRQs off
 * and never allocate; the pool grows in process context (the publisher and
 * grow_work) and gives back what no record took (trim_work).
 */
#include "base/pmc_base.h"
#include "pmc_log_priv.h"
#include "debug/pmc_debug.h"

#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

/* GETDRIVERSTATS' pm_log_buffer_bytes counts them. Process context. */
static struct pmc_logbuf *pmc_logbuf_alloc(u32 size)
{
	struct pmc_logbuf *buf;

	buf = kvmalloc(struct_size(buf, data, size), GFP_KERNEL);
	if (!buf)
		return NULL;
	INIT_LIST_HEAD(&buf->link);
	buf->fill = 0;
	buf->pub = 0;
	buf->size = size;
	atomic64_add(struct_size(buf, data, size), &pmc_stats.log_buffer_bytes);
	return buf;
}

static void pmc_logbuf_free(struct pmc_logbuf *buf)
{
	if (!buf)
		return;
	atomic64_sub(struct_size(buf, data, buf->size),
		     &pmc_stats.log_buffer_bytes);
	kvfree(buf);
}

void pmc_log_pool_put(struct pmc_log_state *log, struct pmc_logbuf *buf)
{
	unsigned long flags;

	buf->fill = 0;
	buf->pub = 0;
	raw_spin_lock_irqsave(&log->pool_lock, flags);
	list_add(&buf->link, &log->free);
	log->nfree++;
	raw_spin_unlock_irqrestore(&log->pool_lock, flags);
}

struct pmc_logbuf *pmc_log_pool_get(struct pmc_log_state *log,
				    unsigned int *left)
{
	struct pmc_logbuf *buf;
	unsigned long flags;

	raw_spin_lock_irqsave(&log->pool_lock, flags);
	buf = list_first_entry_or_null(&log->free, struct pmc_logbuf, link);
	if (buf) {
		list_del_init(&buf->link);
		log->nfree--;
	}
	log->low_free = min(log->low_free, log->nfree);
	if (left)
		*left = log->nfree;
	raw_spin_unlock_irqrestore(&log->pool_lock, flags);
	return buf;
}

/*
 * The free buffers to keep at first: one per online CPU (each CPU's first
 * record takes one), two more (the file's output and a spare), and a burst
 * for each CPU that stages records (counted by each pass, and expected
 * from the start of system-sampling PMCs: pmc_log_expect_cpus()). Under
 * a system-wide sampler every CPU's buffer fills at about the same moment,
 * so all CPUs want a buffer at once, and the filled ones come back only
 * from the pass that publishes them, which can come late: with one free a
 * CPU, the next fill before that pass found none (samples lost at 10 kHz
 * on 8 CPUs).
 * Process context (nstaging is the publisher's: read once).
 */
unsigned int pmc_log_pool_base(const struct pmc_log_state *log)
{
	return num_online_cpus() + 2 + READ_ONCE(log->nstaging) * log->burst_bufs;
}

/*
 * The buffers one CPU may fill at once: the drain of its whole sample ring
 * (nsamples records of callchaindepth frames), which stages them in one go
 * when it comes late (on PREEMPT_RT it runs in the irq_work thread) or from
 * a pass. One with the default 256 KiB buffers; with 4 KiB ones, 13: a
 * CPU that asked for more only when it left fewer free than CPUs took the
 * last ones in the same drain, long before the pool could grow.
 */
static unsigned int pmc_log_burst_bufs(const struct pmc_log_state *log)
{
	size_t rec = min_t(size_t, sizeof(struct pmclog_callchain) +
			   (size_t)pmc_callchaindepth * sizeof(u64),
			   pmc_log_max_record(log));

	return max_t(size_t, 1, DIV_ROUND_UP((size_t)pmc_nsamples * rec,
					     log->bufsize));
}

/*
 * Whether @nfree free buffers are short: fewer than one for each other
 * online CPU and a burst for the one that just took one. Then the pool
 * grows at once, not at the pass, which may be the late one. Any context.
 */
static bool pmc_log_pool_short(const struct pmc_log_state *log,
			       unsigned int nfree)
{
	return nfree < num_online_cpus() - 1 + log->burst_bufs;
}

static unsigned int pmc_log_pool_nfree(struct pmc_log_state *log)
{
	unsigned int nfree;

	raw_spin_lock_irq(&log->pool_lock);
	nfree = log->nfree;
	raw_spin_unlock_irq(&log->pool_lock);
	return nfree;
}

/*
 * Keep pool_want buffers free, pmc_log_pool_base() at least, within the
 * limit of nbuffers_pcpu per possible CPU. Process context, fill_lock held
 * (or the log state not yet published).
 */
static void pmc_log_pool_fill_locked(struct pmc_log_state *log)
{
	unsigned int want = max(log->pool_want, pmc_log_pool_base(log));
	unsigned int nbufs = log->nbufs;
	struct pmc_logbuf *buf;

	while (log->nbufs < log->maxbufs && pmc_log_pool_nfree(log) < want) {
		buf = pmc_logbuf_alloc(log->bufsize);
		if (!buf)
			break;
		log->nbufs++;
		pmc_log_pool_put(log, buf);
	}
	/* What this fill added is given back when no record needs it. */
	if (log->nbufs > nbufs)
		queue_delayed_work(pmc_log_wq, &log->trim_work,
				   PMC_LOG_TRIM_PERIOD);
}

void pmc_log_pool_fill(struct pmc_log_state *log)
{
	mutex_lock(&log->fill_lock);
	pmc_log_pool_fill_locked(log);
	mutex_unlock(&log->fill_lock);
}

/*
 * Grow the pool: twice as many free buffers kept from now on (until
 * periods in which no record needs them: pmc_log_pool_trim()), allocated
 * at once. Called by the publisher when records were lost (@lost), and by
 * grow_work as soon as a CPU that took a buffer left the pool short
 * (pmc_log_pool_short(), pmc_log_kick()): the pass that gives the filled
 * buffers back may be late, and the CPUs fill theirs meanwhile. That work
 * runs wherever the workqueue puts it, so the pool grows while a late pass
 * is stuck on a busy CPU (docs/performance.md, "A late pass"). A request
 * the pass has already answered (enough free by now) grows nothing.
 * Process context; takes fill_lock (under pub_lock or not).
 */
void pmc_log_pool_grow(struct pmc_log_state *log, bool lost)
{
	mutex_lock(&log->fill_lock);
	if (lost || pmc_log_pool_short(log, pmc_log_pool_nfree(log)))
		log->pool_want = min(max(log->pool_want * 2,
					 pmc_log_pool_base(log)),
				     log->maxbufs);
	pmc_log_pool_fill_locked(log);
	mutex_unlock(&log->fill_lock);
}

/*
 * The buffers a log holds when nothing is in flight: the free ones the pool
 * keeps, each CPU's current one, the file's output and its spares.
 */
static unsigned int pmc_log_pool_rest(const struct pmc_log_state *log)
{
	return pmc_log_pool_base(log) + num_online_cpus() + 1 +
	       PMC_LOG_OUT_SPARES;
}

/* Free the buffers of @list. Process context. */
static void pmc_log_free_list(struct list_head *list)
{
	struct pmc_logbuf *buf, *tmp;

	list_for_each_entry_safe(buf, tmp, list, link) {
		list_del(&buf->link);
		pmc_logbuf_free(buf);
	}
}

/*
 * Give back half the free buffers that no record took since the last trim
 * (the fewest free meanwhile), down to the base the pool keeps: what a
 * burst (a late pass, a lost record) made it grow is not held for the
 * owner's life, as perf record's ring never outgrows its -m. Halving keeps
 * a pool that bursts now and then large enough for them (the low mark of
 * a period with a burst leaves little to give back), and takes an idle one
 * back to its base in a few seconds. The buffers freed are the pool's
 * least recently used (the tail: puts and gets are at the head), a few at
 * a time, so that the raw lock is held briefly.
 * Returns whether the log still holds more than at rest: trim_work comes
 * back then (a growth queues it again otherwise).
 * Process context; takes fill_lock.
 */
bool pmc_log_pool_trim(struct pmc_log_state *log)
{
	unsigned int base, unused, batch, nfree;
	struct pmc_logbuf *buf;
	LIST_HEAD(freed);
	bool more;

	mutex_lock(&log->fill_lock);
	base = pmc_log_pool_base(log);
	raw_spin_lock_irq(&log->pool_lock);
	unused = log->nfree > base ? min(log->low_free, log->nfree - base) : 0;
	unused = DIV_ROUND_UP(unused, 2);
	for (;;) {
		for (batch = 0; batch < 16 && unused && log->nfree > base;
		     batch++, unused--) {
			buf = list_last_entry(&log->free, struct pmc_logbuf,
					      link);
			list_move(&buf->link, &freed);
			log->nfree--;
			log->nbufs--;
		}
		if (!batch || !unused || log->nfree <= base)
			break;
		raw_spin_unlock_irq(&log->pool_lock);
		cond_resched();
		raw_spin_lock_irq(&log->pool_lock);
	}
	nfree = log->nfree;
	log->low_free = nfree;
	raw_spin_unlock_irq(&log->pool_lock);
	/* A fill does not take back what was given. */
	log->pool_want = min(log->pool_want, nfree);
	more = log->nbufs > pmc_log_pool_rest(log);
	mutex_unlock(&log->fill_lock);
	pmc_log_free_list(&freed);
	return more;
}

int pmc_log_pool_init(struct pmc_log_state *log)
{
	int cpu;

	raw_spin_lock_init(&log->pool_lock);
	mutex_init(&log->fill_lock);
	INIT_LIST_HEAD(&log->free);
	INIT_LIST_HEAD(&log->out_spare);
	/*
	 * A buffer is logbuffersize KiB with its header, as hwpmc's: 256 KiB
	 * of data and a header were a 512 KiB allocation (kmalloc's next
	 * power of two), an order-7 page block where order 6 does.
	 */
	log->bufsize = pmc_logbuffersize * 1024 -
		       offsetof(struct pmc_logbuf, data);
	log->maxbufs = pmc_nbuffers_pcpu * num_possible_cpus();
	log->burst_bufs = pmc_log_burst_bufs(log);
	for_each_possible_cpu(cpu) {
		struct pmc_log_cpu *lc = per_cpu_ptr(log->cpu, cpu);

		raw_spin_lock_init(&lc->lock);
		lc->cur = NULL;
		INIT_LIST_HEAD(&lc->full);
		INIT_LIST_HEAD(&lc->pubq);
		lc->snap = NULL;
		lc->head = NULL;
	}
	pmc_log_pool_fill_locked(log);
	log->low_free = log->nfree;
	return log->nbufs ? 0 : -ENOMEM;
}

/*
 * Free every buffer. Process context, once nothing can stage, publish or
 * write any more.
 */
void pmc_log_pool_destroy(struct pmc_log_state *log)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmc_log_cpu *lc = per_cpu_ptr(log->cpu, cpu);

		pmc_log_free_list(&lc->full);
		pmc_log_free_list(&lc->pubq);
		pmc_logbuf_free(lc->cur);
		lc->cur = NULL;
	}
	pmc_log_free_list(&log->writeq);
	pmc_log_free_list(&log->free);
	pmc_log_free_list(&log->out_spare);
	log->nout_spare = 0;
	pmc_logbuf_free(log->out);
	log->out = NULL;
	log->nfree = 0;
	log->nbufs = 0;
}

/*
 * Ask for a publishing pass: soon, or at once when a buffer filled up (on
 * PREEMPT_RT too, see pmc_irq_work_raise()). Through irq_work, since the
 * callers may hold the rq lock (sched_switch), where queueing work could
 * wake a worker. Any context, NMI included: bit operations and
 * irq_work_queue() (the overflow handler asks through pmc_log_sampled()).
 *
 * A dying CPU (already out of cpu_online_mask) runs its irq_works one
 * last time, its sample ring's drain among them, and a kick that drain
 * queued here would never run: irq_work_sync() at the owner's exit spun
 * on it (faults-hotplug, release_while_offline). There the kick is left
 * out (irq_work_queue_on() is not exported to modules on 6.1): the
 * records wait in the staging for the next pass, which the next kick on
 * any CPU, a flush or the owner's exit makes (an urgent request stays in
 * kick_flags for it).
 *
 * One urgent kick a pass: while the pool is short every record staged is
 * urgent, and each kick's mod_delayed_work() took the workqueue's pool
 * lock on every sampling CPU again and again for a pass already queued.
 * Likewise one request to grow the pool (@grow: a CPU found it short) until
 * grow_work begins.
 */
static void pmc_log_kick(struct pmc_log_state *log, bool urgent, bool grow)
{
	bool raise;

	if (urgent)
		set_bit(PMC_LOG_KICK_URGENT, &log->kick_flags);
	else if (delayed_work_pending(&log->pub_work))
		return;		/* the pending pass will see the record */
	preempt_disable();
	if (likely(cpu_online(smp_processor_id()))) {
		if (!urgent) {
			irq_work_queue(&log->kick);
		} else {
			raise = !test_and_set_bit(PMC_LOG_KICK_QUEUED,
						  &log->kick_flags);
			if (grow && !test_and_set_bit(PMC_LOG_KICK_GROW,
						      &log->kick_flags))
				raise = true;
			if (raise)
				pmc_irq_work_raise(&log->kick);
		}
	}
	preempt_enable();
}

void pmc_log_sampled(struct pmc_log_state *log)
{
	/* The pending pass drains the rings: most samples stop at its test. */
	pmc_log_kick(log, false, false);
}

/*
 * pmc_log_begin() on the staging of @cpu, or of this CPU when @cpu is
 * negative (read with IRQs off, so that the CPU cannot change under it).
 */
static void *pmc_log_begin_on(struct pmc_log_state *log, int cpu, u32 type,
			      size_t len, u64 tsc, struct pmc_log_rsv *rsv)
{
	struct pmclog_header *h;
	struct pmc_log_cpu *lc;
	struct pmc_logbuf *buf;
	bool urgent = false, grow = false;
	unsigned int left;

	len = ALIGN(len, PMCLOG_ALIGN);
	if (len > pmc_log_max_record(log) || !pmc_log_accepting(log))
		return NULL;

	local_irq_save(rsv->flags);
	lc = cpu < 0 ? this_cpu_ptr(log->cpu) : per_cpu_ptr(log->cpu, cpu);
	raw_spin_lock(&lc->lock);
	/* Re-checked under the lock: pmc_log_owner_exit() syncs on it. */
	if (READ_ONCE(log->dead))
		goto fail;
	buf = lc->cur;
	if (!buf || buf->size - buf->fill < len) {
		if (buf) {
			list_add_tail(&buf->link, &lc->full);
			lc->cur = NULL;
			urgent = true;
		}
		atomic64_inc(&pmc_stats.buffer_requests);
		buf = pmc_log_pool_get(log, &left);
		/*
		 * Short (the CPUs' first records took them, they all filled
		 * one at once, or a drain is filling many): refill now, not
		 * at the next pass, before the CPUs want more.
		 */
		if (pmc_log_pool_short(log, left))
			urgent = grow = true;
		if (!buf) {
			/*
			 * A DROPNOTIFY not staged is retried, not lost: only
			 * lost records count (hwpmc.h, the DROPNOTIFYs add
			 * up to the stat).
			 */
			if (type != PMCLOG_TYPE_DROPNOTIFY) {
				atomic64_inc(&pmc_stats.buffer_requests_failed);
				atomic64_inc(&log->lost_records);
			}
			urgent = grow = true;
			goto fail;
		}
		lc->cur = buf;
	}

	h = (struct pmclog_header *)(buf->data + buf->fill);
	memset(h, 0, len);
	h->pl_header = PMCLOG_HEADER(type, len);
	h->pl_tsc = tsc ? tsc : ktime_get_mono_fast_ns();
	rsv->log = log;
	rsv->lc = lc;
	rsv->len = len;
	rsv->urgent = urgent;
	rsv->grow = grow;
	return h;

fail:
	raw_spin_unlock(&lc->lock);
	local_irq_restore(rsv->flags);
	if (urgent)
		pmc_log_kick(log, true, grow);
	return NULL;
}

void *pmc_log_begin(struct pmc_log_state *log, u32 type, size_t len, u64 tsc,
		    struct pmc_log_rsv *rsv)
{
	return pmc_log_begin_on(log, -1, type, len, tsc, rsv);
}

void *pmc_log_begin_cpu(struct pmc_log_state *log, unsigned int cpu, u32 type,
			size_t len, u64 tsc, struct pmc_log_rsv *rsv)
{
	return pmc_log_begin_on(log, cpu, type, len, tsc, rsv);
}

void pmc_log_end(struct pmc_log_rsv *rsv)
{
	struct pmc_log_cpu *lc = rsv->lc;

	lc->cur->fill += rsv->len;
	raw_spin_unlock(&lc->lock);
	local_irq_restore(rsv->flags);
	pmc_log_kick(rsv->log, rsv->urgent, rsv->grow);
}
