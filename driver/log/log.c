// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - hwpmc logging: the owner's log state, the publisher of its record
 * stream (pl_seq, ring, file), and the ops CONFIGURELOG, FLUSHLOG, WRITELOG
 * and CLOSELOG.
 *
 * The ops and the publisher run in process context; the kick (irq_work) in
 * hard IRQ. Lock order: owner->lock, cfg_lock, pub_lock, then the raw
 * staging locks (log_buf.c).
 */
#include "base/pmc_base.h"
#include "pmc_log_priv.h"
#include "map_hooks.h"
#include "debug/pmc_debug.h"

#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

/*
 * How long records may wait in the staging buffers before publication: a
 * mapped ring's readers (libcpc's snapshots, cpcstat cpu) expect a record
 * within about 10 ms of its time stamp; a log that only goes to a file is
 * read after the fact, and each pass wakes a worker (sampling overhead:
 * docs/performance.md), so it waits ten times longer; its writer gets whole
 * buffers (PMC_LOG_FILE_MAX_AGE). A buffer that fills is published at once
 * either way, and a flush or the owner's exit publishes everything.
 */
#define PMC_LOG_PUBLISH_DELAY_RING	msecs_to_jiffies(10)
#define PMC_LOG_PUBLISH_DELAY_FILE	msecs_to_jiffies(100)

/* Any context: the sinks are read once, without the lock. */
static unsigned long pmc_log_publish_delay(const struct pmc_log_state *log)
{
	return READ_ONCE(log->sinks) & PMC_LOG_SINK_RING ?
		PMC_LOG_PUBLISH_DELAY_RING : PMC_LOG_PUBLISH_DELAY_FILE;
}

struct workqueue_struct *pmc_log_wq;

/*
 * For testing only (pmc(4)): every publishing pass from the workqueue
 * begins this many ms late, at most PMC_LOG_TEST_DELAY_MAX, as a pass on a
 * starved CPU does (docs/performance.md, "A late pass"), so that a test
 * can make the pool run short while no pass gives buffers back.
 */
#define PMC_LOG_TEST_DELAY_MAX	1000U
static unsigned int pmc_log_test_delay_ms;
module_param_named(test_publish_delay_ms, pmc_log_test_delay_ms, uint, 0444);
MODULE_PARM_DESC(test_publish_delay_ms, "Testing only: each publishing pass begins this many ms late (at most 1000)");

/* ------------------------------------------------------------ publishing */

/*
 * A DROPNOTIFY the ring had no room for: the ring's reader would never
 * learn the counts it carries, so they go to the next one. (With a file
 * too, the file got them: the ring's reader then learns of the lost
 * DROPNOTIFY only, from its sequence gap.)
 */
static void pmc_log_carry_drops(struct pmc_log_state *log,
				const struct pmclog_header *h)
{
	const struct pmclog_dropnotify *d = (const void *)h;

	if (PMCLOG_HEADER_TO_TYPE(h->pl_header) != PMCLOG_TYPE_DROPNOTIFY ||
	    (log->sinks & PMC_LOG_SINK_FILE))
		return;
	log->drops_ring += d->pl_records;
	atomic64_add(d->pl_samples, &log->lost_samples);
}

/*
 * Give @h its pl_seq and copy it to the ring and the file's output.
 * Context: process, pub_lock held.
 */
static void pmc_log_publish_record(struct pmc_log_state *log,
				   struct pmclog_header *h, u32 len)
{
	h->pl_seq = log->seq++;
	if (log->ring && !pmc_ring_put_record(log->ring, h, len)) {
		log->drops_ring++;
		pmc_log_carry_drops(log, h);
	}
	if (log->sinks & PMC_LOG_SINK_FILE)
		pmc_log_file_append(log, h, len);
}

/*
 * Take what @lc staged so far into the pass: its filled buffers join
 * @pubq, and the records of the buffer being filled, up to its fill now,
 * may be published. Context: process, pub_lock held; the CPU's staging
 * lock (raw, IRQs off) is held for the few stores only.
 */
static void pmc_log_take_cpu(struct pmc_log_cpu *lc)
{
	raw_spin_lock_irq(&lc->lock);
	list_splice_tail_init(&lc->full, &lc->pubq);
	lc->snap = lc->cur;
	lc->snap_fill = lc->cur ? lc->cur->fill : 0;
	raw_spin_unlock_irq(&lc->lock);
}

/*
 * Set @lc's head to its next record taken into the pass, oldest buffer
 * first; the buffers of @pubq it wholly published are recycled.
 * Returns the head, or NULL when the CPU has nothing more in the pass.
 * Context: process, pub_lock held.
 */
static struct pmclog_header *pmc_log_next(struct pmc_log_state *log,
					  struct pmc_log_cpu *lc)
{
	struct pmclog_header *h;
	struct pmc_logbuf *buf;
	u32 end, len;

	lc->head = NULL;
	for (;;) {
		buf = list_first_entry_or_null(&lc->pubq, struct pmc_logbuf,
					       link);
		/* A filled buffer's fill no longer moves; @snap's does. */
		end = buf ? buf->fill : lc->snap_fill;
		if (!buf)
			buf = lc->snap;
		if (!buf)
			return NULL;
		if (buf->pub < end) {
			h = (struct pmclog_header *)(buf->data + buf->pub);
			len = PMCLOG_HEADER_TO_LENGTH(h->pl_header);
			if (!WARN_ON_ONCE(len < sizeof(*h) ||
					  len > end - buf->pub)) {
				lc->headbuf = buf;
				lc->head = h;
				return h;
			}
			buf->pub = end;		/* corrupt: skip the rest */
		}
		if (buf == lc->snap)
			return NULL;		/* still staged into */
		list_del_init(&buf->link);
		pmc_log_file_recycle(log, buf);
	}
}

/*
 * Publish the records of the @n CPUs of log->merge (each with a head)
 * whose pl_tsc is at most @until, in pl_tsc order: a k-way merge of the
 * CPUs' queues, each CPU's records in its staging order (a record that
 * waited in the sample ring has an earlier pl_tsc than the one staged
 * before it: the order within a CPU is kept). A tie goes to the CPU first
 * in log->merge. O(@n) per record. @n is updated to the CPUs with records
 * left (later than @until). Context: process, pub_lock held.
 */
static void pmc_log_merge(struct pmc_log_state *log, unsigned int *n,
			  u64 until)
{
	struct pmc_log_merge_cpu *m = log->merge;
	struct pmc_log_cpu *lc;
	unsigned int i, best;
	u64 tsc;
	u32 len;

	while (*n) {
		best = 0;
		tsc = m[0].tsc;
		for (i = 1; i < *n; i++) {
			if (m[i].tsc < tsc) {
				tsc = m[i].tsc;
				best = i;
			}
		}
		if (tsc > until)
			return;
		lc = m[best].lc;
		len = PMCLOG_HEADER_TO_LENGTH(lc->head->pl_header);
		pmc_log_publish_record(log, lc->head, len);
		lc->headbuf->pub += len;
		if (pmc_log_next(log, lc)) {
			m[best].tsc = lc->head->pl_tsc;
		} else {
			(*n)--;
			memmove(&m[best], &m[best + 1],
				(*n - best) * sizeof(*m));
		}
	}
}

/*
 * One publishing pass: take each CPU's records, then publish them merged
 * in pl_tsc order up to the pass's start. CPUs are taken one after the
 * other, so a record staged meanwhile on a CPU already taken would be
 * missing from the pass while a later one of another CPU is not: the
 * records after the start wait for the next pass (queued here, unless
 * @all), and the order holds from pass to pass. The start is no later than
 * the oldest sample still in a sample ring (one taken since the pass
 * drained them), for the same reason. With @all (a flush, the
 * owner's exit) they are published too, after the others. Context:
 * process, pub_lock held.
 */
static void pmc_log_publish_pass(struct pmc_log_state *log, bool all)
{
	/* Not past a sample still waiting in a ring for its drain. */
	u64 start = min(ktime_get_ns(), pmc_sample_horizon());
	unsigned int n = 0, staging = 0;
	struct pmc_log_cpu *lc;
	int cpu;

	for_each_possible_cpu(cpu) {
		lc = per_cpu_ptr(log->cpu, cpu);
		pmc_log_take_cpu(lc);
		staging += !!lc->snap;
		if (pmc_log_next(log, lc)) {
			log->merge[n].lc = lc;
			log->merge[n++].tsc = lc->head->pl_tsc;
		}
	}
	/* The pool keeps a spare for each (read by its growth unlocked). */
	WRITE_ONCE(log->nstaging, staging);
	pmc_log_merge(log, &n, start);
	if (n && all)
		pmc_log_merge(log, &n, U64_MAX);
	if (n && !log->dead)
		queue_delayed_work(pmc_log_wq, &log->pub_work,
				   pmc_log_publish_delay(log));
}

/*
 * Stage a DROPNOTIFY for the losses not yet reported. Losses of the ring
 * alone wait until the ring has room for the record (perf's LOST record
 * rule), so that the reader gets the count.
 */
static bool pmc_log_report_drops(struct pmc_log_state *log)
{
	struct pmclog_dropnotify *d;
	struct pmc_log_rsv rsv;
	bool early;

	early = atomic64_read(&log->lost_records) ||
		atomic64_read(&log->lost_samples) || log->drops_file;
	if (!early && !log->drops_ring)
		return true;
	if (!early && log->ring && !pmc_ring_has_room(log->ring, sizeof(*d)))
		return true;	/* the ring's reader makes room first */

	d = pmc_log_begin(log, PMCLOG_TYPE_DROPNOTIFY, sizeof(*d), 0, &rsv);
	if (!d)
		return false;
	d->pl_records = atomic64_xchg(&log->lost_records, 0) +
		log->drops_ring + log->drops_file;
	d->pl_samples = atomic64_xchg(&log->lost_samples, 0);
	log->drops_ring = 0;
	log->drops_file = 0;
	pmc_log_end(&rsv);
	return true;
}

void pmc_log_publish_locked(struct pmc_log_state *log, bool flush)
{
	unsigned long due;
	bool reported;

	lockdep_assert_held(&log->pub_lock);
	/* Records lost for want of a buffer: keep more of them free. */
	if (atomic64_read(&log->lost_records) && !log->dead)
		pmc_log_pool_grow(log, true);
	/*
	 * Replace the buffers the CPUs took since the last pass before this
	 * one, which takes a while with many CPUs' records to merge.
	 */
	if (!log->dead)
		pmc_log_pool_fill(log);
	reported = log->dead || pmc_log_report_drops(log);
	pmc_log_publish_pass(log, flush);
	/*
	 * No buffer was free for the DROPNOTIFY (the losses being reported
	 * are for want of one): the pass gave the filled ones back, so stage
	 * it now and publish it in this call, which may be the last one.
	 */
	if (!reported) {
		pmc_log_pool_fill(log);
		if (pmc_log_report_drops(log))
			pmc_log_publish_pass(log, flush);
	}
	if (log->ring)
		pmc_ring_commit(log->ring);
	due = pmc_log_file_push(log, flush);
	if (log->dead)
		return;
	/*
	 * Come back for the file's buffer when it is due; no later than the
	 * usual delay, since a pending pass holds back the samples' kicks.
	 */
	if (due)
		queue_delayed_work(pmc_log_wq, &log->pub_work,
				   min(due, pmc_log_publish_delay(log)));
	pmc_log_pool_fill(log);
}

void pmc_log_publish(struct pmc_log_state *log, bool flush)
{
	mutex_lock(&log->pub_lock);
	pmc_log_publish_locked(log, flush);
	mutex_unlock(&log->pub_lock);
}

static void pmc_log_pub_work(struct work_struct *work)
{
	struct pmc_log_state *log = container_of(to_delayed_work(work),
						 struct pmc_log_state,
						 pub_work);

	if (pmc_log_test_delay_ms)
		msleep(min(pmc_log_test_delay_ms, PMC_LOG_TEST_DELAY_MAX));
	clear_bit(PMC_LOG_KICK_URGENT, &log->kick_flags);
	/* Urgent kicks from now on queue another pass (pmc_log_kick()). */
	clear_bit(PMC_LOG_KICK_QUEUED, &log->kick_flags);
	/*
	 * A kick that found the bit still set staged its record before the
	 * clear: the pass's take of that CPU's staging comes after it.
	 */
	smp_mb__after_atomic();
	/* The samples wait in the rings for this pass (pmc_log_sampled()). */
	pmc_sample_flush();
	pmc_log_publish(log, false);
}

/* The pool ran short on a CPU (pmc_log_kick()). Process context. */
static void pmc_log_grow_work(struct work_struct *work)
{
	struct pmc_log_state *log = container_of(work, struct pmc_log_state,
						 grow_work);

	/* A CPU short from now on asks again. */
	clear_bit(PMC_LOG_KICK_GROW, &log->kick_flags);
	/*
	 * The clear before the count of free buffers: a CPU that set the bit
	 * again took its buffer before, and is counted here or asks again.
	 */
	smp_mb__after_atomic();
	if (!READ_ONCE(log->dead))
		pmc_log_pool_grow(log, false);
}

/*
 * Give back the buffers no record needed, once a period while the log holds
 * more than at rest (queued by each fill that allocated). Process context.
 */
static void pmc_log_trim_work(struct work_struct *work)
{
	struct pmc_log_state *log = container_of(to_delayed_work(work),
						 struct pmc_log_state,
						 trim_work);

	if (!READ_ONCE(log->dead) && pmc_log_pool_trim(log))
		queue_delayed_work(pmc_log_wq, &log->trim_work,
				   PMC_LOG_TRIM_PERIOD);
}

/*
 * Hard IRQ: grow the pool if a CPU found it short, and queue the
 * publisher, now or after the batching delay.
 */
static void pmc_log_kick_fn(struct irq_work *work)
{
	struct pmc_log_state *log = container_of(work, struct pmc_log_state,
						 kick);

	if (test_bit(PMC_LOG_KICK_GROW, &log->kick_flags))
		queue_work(pmc_log_wq, &log->grow_work);
	if (test_bit(PMC_LOG_KICK_URGENT, &log->kick_flags))
		mod_delayed_work(pmc_log_wq, &log->pub_work, 0);
	else
		queue_delayed_work(pmc_log_wq, &log->pub_work,
				   pmc_log_publish_delay(log));
}

void pmc_log_initialize(struct pmc_log_state *log)
{
	struct pmclog_initialize *ini;
	struct pmc_log_rsv rsv;
	struct timespec64 ts;
	u64 mono;

	mono = ktime_get_mono_fast_ns();
	ktime_get_real_ts64(&ts);
	ini = pmc_log_begin(log, PMCLOG_TYPE_INITIALIZE, sizeof(*ini), mono,
			    &rsv);
	if (!ini)
		return;
	ini->pl_version = PMC_VERSION;
	ini->pl_cpu = pmc_machine.arch.cputype;
	ini->pl_tsc_freq = NSEC_PER_SEC;
	ini->pl_ts_sec = ts.tv_sec;
	ini->pl_ts_nsec = ts.tv_nsec;
	ini->pl_ts_mono = mono;
	strscpy(ini->pl_cpuid, pmc_machine.arch.cpuid, sizeof(ini->pl_cpuid));
	pmc_log_end(&rsv);
}

/* ------------------------------------------------------------ lifecycle */

static void pmc_log_state_release(struct kref *ref)
{
	struct pmc_log_state *log = container_of(ref, struct pmc_log_state,
						 ref);

	/* A stager holding a reference may have kicked after the owner left. */
	irq_work_sync(&log->kick);
	cancel_delayed_work_sync(&log->pub_work);
	cancel_work_sync(&log->grow_work);
	cancel_delayed_work_sync(&log->trim_work);
	pmc_log_pool_destroy(log);
	free_percpu(log->cpu);
	kfree(log->merge);
	put_pid(log->owner_tgid);
	pmc_owner_put(log->po);
	mutex_destroy(&log->fill_lock);
	mutex_destroy(&log->pub_lock);
	mutex_destroy(&log->cfg_lock);
	kfree(log);
}

/* Drop a reference. Process context (the last one frees buffers). */
void pmc_log_state_put(struct pmc_log_state *log)
{
	kref_put(&log->ref, pmc_log_state_release);
}

static struct pmc_log_state *pmc_log_state_create(struct pmc_owner *po);

struct pmc_log_state *pmc_log_state_get(struct pmc_owner *po)
{
	struct pmc_log_state *log;

	mutex_lock(&po->log_lock);
	if (po->log_closed)
		log = ERR_PTR(-ESRCH);
	else if (po->log)
		log = po->log;
	else
		log = pmc_log_state_create(po);
	if (!IS_ERR(log))
		kref_get(&log->ref);
	mutex_unlock(&po->log_lock);
	return log;
}

/* A new log state for @po, published in po->log. Under po->log_lock. */
static struct pmc_log_state *pmc_log_state_create(struct pmc_owner *po)
{
	struct pmc_log_state *log;
	int ret;

	lockdep_assert_held(&po->log_lock);
	if (!pmc_log_wq)
		return ERR_PTR(-ENODEV);	/* pmc_sampling_init() not run */

	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!log)
		return ERR_PTR(-ENOMEM);
	log->cpu = alloc_percpu(struct pmc_log_cpu);
	log->merge = kcalloc(nr_cpu_ids, sizeof(*log->merge), GFP_KERNEL);
	if (!log->cpu || !log->merge) {
		ret = -ENOMEM;
		goto err_free;
	}
	kref_init(&log->ref);
	log->po = po;
	log->owner_pid = pid_nr(po->tgid);
	log->owner_tgid = get_pid(po->tgid);
	mutex_init(&log->cfg_lock);
	mutex_init(&log->pub_lock);
	spin_lock_init(&log->wq_lock);
	INIT_LIST_HEAD(&log->writeq);
	init_waitqueue_head(&log->writer_wait);
	init_waitqueue_head(&log->drained_wait);
	atomic64_set(&log->lost_records, 0);
	atomic64_set(&log->lost_samples, 0);
	init_irq_work(&log->kick, pmc_log_kick_fn);
	INIT_DELAYED_WORK(&log->pub_work, pmc_log_pub_work);
	INIT_WORK(&log->grow_work, pmc_log_grow_work);
	INIT_DELAYED_WORK(&log->trim_work, pmc_log_trim_work);
	ret = pmc_log_pool_init(log);
	if (ret)
		goto err_pool;

	/* A reference: the ring's wakeups reach po->ring_wait (ring.c). */
	pmc_owner_get(po);
	/* Initialised before an overflow handler can see it (pmc_log_of()). */
	smp_store_release(&po->log, log);
	return log;

err_pool:
	cancel_delayed_work_sync(&log->trim_work);
	pmc_log_pool_destroy(log);
	put_pid(log->owner_tgid);
	mutex_destroy(&log->fill_lock);
	mutex_destroy(&log->pub_lock);
	mutex_destroy(&log->cfg_lock);
err_free:
	free_percpu(log->cpu);
	kfree(log->merge);
	kfree(log);
	return ERR_PTR(ret);
}

/*
 * Publish everything, stop taking buffers for the file, wait for the writer
 * to write them (as @how says) and release it; what is left unwritten is
 * given up. Process context, cfg_lock held, a file configured.
 */
static int pmc_log_close_file(struct pmc_log_state *log, enum pmc_log_wait how)
{
	int ret;

	/* The samples still in the rings go to the file too. */
	pmc_sample_flush();
	mutex_lock(&log->pub_lock);
	pmc_log_publish_locked(log, true);
	pmc_log_file_stop(log);
	mutex_unlock(&log->pub_lock);

	ret = pmc_log_file_drain(log, how);
	pmc_log_file_release(log, ret != 0);
	return ret;
}

/*
 * How long the owner's exit waits for its log file. A process killed by a
 * signal does not wait: its SIGKILL is already taken, and in do_exit() a
 * new one is ignored, so nothing could end the wait for a reader that does
 * not read. Otherwise (exit(), a close) the writer has as long as it makes
 * progress.
 */
static enum pmc_log_wait pmc_log_exit_wait(void)
{
	if ((current->flags & PF_EXITING) && (current->exit_code & 0x7f))
		return PMC_LOG_WAIT_NONE;
	return PMC_LOG_WAIT_STALL;
}

bool pmc_log_configured(struct pmc_owner *po)
{
	struct pmc_log_state *log = pmc_log_of(po);

	return log && pmc_log_accepting(log);
}

void pmc_log_expect_cpus(struct pmc_owner *po, unsigned int ncpus)
{
	struct pmc_log_state *log = pmc_log_of(po);

	if (!log)
		return;
	ncpus = min(ncpus, num_online_cpus());
	mutex_lock(&log->pub_lock);
	if (ncpus > log->nstaging && !log->dead) {
		WRITE_ONCE(log->nstaging, ncpus);
		pmc_log_pool_fill(log);
	}
	mutex_unlock(&log->pub_lock);
}

void pmc_log_owner_exit(struct pmc_owner *po)
{
	struct pmc_log_state *log;

	/* No log state is made for the owner from now on. */
	mutex_lock(&po->log_lock);
	po->log_closed = true;
	log = po->log;
	mutex_unlock(&po->log_lock);
	if (!log)
		return;

	/* The PMCs are released: stage the samples still in flight. */
	pmc_sample_sync();

	mutex_lock(&log->cfg_lock);
	if (log->file)
		pmc_log_close_file(log, pmc_log_exit_wait());
	mutex_lock(&log->pub_lock);
	pmc_log_publish_locked(log, true);
	WRITE_ONCE(log->dead, true);
	WRITE_ONCE(log->sinks, 0);
	pmc_ring_detach(log);
	mutex_unlock(&log->pub_lock);
	mutex_unlock(&log->cfg_lock);

	/*
	 * Wait for every stager that may still see the log state: probes and
	 * IRQ-off sections (RCU), and the per-CPU sample drains; then for the
	 * kick and the publisher.
	 */
	WRITE_ONCE(po->log, NULL);
	synchronize_rcu();
	pmc_sample_sync();
	irq_work_sync(&log->kick);
	cancel_delayed_work_sync(&log->pub_work);
	cancel_work_sync(&log->grow_work);
	cancel_delayed_work_sync(&log->trim_work);
	pmc_dbg(PMC_DBG_LOGGING, PMC_DBG_RELEASE, 0, log->owner_pid, -1, 0);
	pmc_log_state_put(log);
}

/* ------------------------------------------------------------ the ops */

/*
 * The locked owner of @pf (created if @create) and its log state, with a
 * reference. Returns 0, -EPERM (not the opener), or -EINVAL (no owner or no
 * log state and !@create). The owner is unlocked on return.
 */
static int pmc_log_lookup(struct pmc_file *pf, bool create,
			  struct pmc_log_state **logp)
{
	struct pmc_log_state *log;
	struct pmc_owner *po;

	po = pmc_owner_lock(pf, create);
	if (IS_ERR(po))
		return PTR_ERR(po) == -EPERM ? -EPERM : -EINVAL;
	if (!po)
		return -EINVAL;
	if (po->dead) {
		/* Its log goes without the owner's lock (pmc_owner_finish()). */
		log = NULL;
	} else if (create) {
		log = pmc_log_state_get(po);
	} else {
		log = po->log;
		if (log)
			kref_get(&log->ref);
	}
	pmc_owner_unlock(po);
	if (IS_ERR_OR_NULL(log))
		return log ? PTR_ERR(log) : -EINVAL;
	*logp = log;
	return 0;
}

long pmc_op_configurelog(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_configurelog cl;
	struct pmc_log_state *log;
	struct file *file = NULL;
	long ret;

	if (copy_from_user(&cl, arg, sizeof(cl)))
		return -EFAULT;
	if (cl.pm_flags) {
		pr_debug_ratelimited("CONFIGURELOG: flags 0x%x must be zero\n",
				     cl.pm_flags);
		return -EINVAL;
	}
	if (cl.pm_logfd < -1)
		return -EBADF;
	if (cl.pm_logfd >= 0) {
		/*
		 * hwpmc takes the fd with write rights: a read-only fd, a
		 * directory (never open for writing) or a file without a
		 * write method is EBADF.
		 */
		file = fget(cl.pm_logfd);
		if (!file)
			return -EBADF;
		if (!(file->f_mode & FMODE_WRITE) ||
		    !(file->f_mode & FMODE_CAN_WRITE) ||
		    S_ISDIR(file_inode(file)->i_mode)) {
			ret = -EBADF;
			goto out_fput;
		}
	}

	ret = pmc_log_lookup(pf, file != NULL, &log);
	if (ret)
		goto out_fput;

	mutex_lock(&log->cfg_lock);
	if (!file) {
		/* De-configure: write what is pending, drop the file. */
		if (!log->file)
			ret = -EINVAL;
		else
			ret = pmc_log_close_file(log, PMC_LOG_WAIT_INTR) ?
			      -EINTR : 0;
	} else if (log->file) {
		ret = -EBUSY;
	} else {
		mutex_lock(&log->pub_lock);
		ret = log->dead ? -ESRCH : pmc_log_file_start(log, file);
		if (!ret) {
			file = NULL;	/* the log holds it now */
			pmc_log_initialize(log);
			pmc_log_publish_locked(log, false);
		}
		mutex_unlock(&log->pub_lock);
	}
	mutex_unlock(&log->cfg_lock);
	pmc_log_state_put(log);
out_fput:
	if (file)
		fput(file);
	return ret;
}

long pmc_op_flushlog(struct pmc_file *pf, void __user *arg)
{
	struct pmc_log_state *log;
	long ret;

	ret = pmc_log_lookup(pf, false, &log);
	if (ret)
		return ret;

	mutex_lock(&log->cfg_lock);
	if (!pmc_log_accepting(log)) {
		ret = -EINVAL;
		goto out;
	}
	/* Every sample taken so far, those waiting for a tick included. */
	pmc_sample_flush();
	pmc_log_publish(log, true);
	if (log->file) {
		ret = pmc_log_file_drain(log, PMC_LOG_WAIT_INTR);
		if (!ret)
			ret = READ_ONCE(log->error);
	}
	pmc_dbg(PMC_DBG_LOGGING, PMC_DBG_FLUSH, 0, log->owner_pid, -1, -ret);
out:
	mutex_unlock(&log->cfg_lock);
	pmc_log_state_put(log);
	return ret;
}

long pmc_op_writelog(struct pmc_file *pf, void __user *arg)
{
	struct pmc_op_writelog wl;
	struct pmclog_userdata *u;
	struct pmc_log_state *log;
	struct pmc_log_rsv rsv;
	long ret;

	if (copy_from_user(&wl, arg, sizeof(wl)))
		return -EFAULT;
	if (wl.pm_pad)
		return -EINVAL;
	ret = pmc_log_lookup(pf, false, &log);
	if (ret)
		return ret;

	if (!pmc_log_accepting(log)) {
		ret = -EINVAL;
		goto out;
	}
	u = pmc_log_begin(log, PMCLOG_TYPE_USERDATA, sizeof(*u), 0, &rsv);
	if (u) {
		u->pl_userdata = wl.pm_userdata;
		pmc_log_end(&rsv);
	}
	pmc_log_publish(log, false);
out:
	pmc_log_state_put(log);
	return ret;
}

long pmc_op_closelog(struct pmc_file *pf, void __user *arg)
{
	struct pmclog_closelog *c;
	struct pmc_log_state *log;
	struct pmc_log_rsv rsv;
	long ret;

	ret = pmc_log_lookup(pf, false, &log);
	if (ret)
		return ret;

	mutex_lock(&log->cfg_lock);
	if (!pmc_log_accepting(log)) {
		ret = -EINVAL;
		goto out;
	}
	/* The samples taken so far come before the CLOSELOG. */
	pmc_sample_flush();
	c = pmc_log_begin(log, PMCLOG_TYPE_CLOSELOG, sizeof(*c), 0, &rsv);
	if (c)
		pmc_log_end(&rsv);
	if (log->file)
		pmc_log_close_file(log, PMC_LOG_WAIT_INTR);
	else
		pmc_log_publish(log, false);
out:
	mutex_unlock(&log->cfg_lock);
	pmc_log_state_put(log);
	return ret;
}

/* ------------------------------------------------------------ module */

int pmc_sampling_init(void)
{
	int ret;

	pmc_log_wq = alloc_workqueue("pmc_log", WQ_UNBOUND, 0);
	if (!pmc_log_wq)
		return -ENOMEM;
	ret = pmc_sample_init();
	if (ret)
		goto err_wq;
	pmc_map_hooks_init();
	return 0;

err_wq:
	destroy_workqueue(pmc_log_wq);
	pmc_log_wq = NULL;
	return ret;
}

void pmc_sampling_exit(void)
{
	pmc_sample_exit();
	if (pmc_log_wq) {
		destroy_workqueue(pmc_log_wq);
		pmc_log_wq = NULL;
	}
}
