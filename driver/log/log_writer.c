// SPDX-License-Identifier: GPL-2.0
/*
 * log_writer.c - the log file writer: one kernel thread per configured log
 * ("pmclog/<owner pid>", hwpmc's "hwpmc: proc(<pid>)") that kernel_write()s
 * the published buffers to the file, in order, with the credentials of the
 * process that configured the log.
 *
 * How a buffer is written depends on the file's methods (6.1's
 * kernel_write() refuses files that have a ->write method):
 *  - ->write_iter only (regular files, pipes, sockets): kernel_write();
 *  - ->write_iter and ->write (/dev/null): vfs_iter_write() of a kvec;
 *  - ->write only (/dev/full, some character devices): the thread borrows
 *    the configuring process's mm (kthread_use_mm()), copies the data to an
 *    anonymous mapping it made there, and calls ->write on it.
 *
 * The first write error is kept in log->error (FLUSHLOG returns it) and every
 * later buffer is discarded. The thread accepts SIGKILL, which de-configuring
 * sends when it must not wait for a reader that does not read (a blocked
 * pipe). Everything here runs in process context.
 */
#include "base/pmc_base.h"
#include "pmc_log_priv.h"
#include "debug/pmc_debug.h"

#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/uio.h>
#include <linux/uaccess.h>

static enum pmc_log_wmode pmc_log_write_mode(const struct file *file)
{
	if (file->f_op->write_iter && !file->f_op->write)
		return PMC_LOG_WRITE_KERNEL;
	if (file->f_op->write_iter)
		return PMC_LOG_WRITE_ITER;
	return PMC_LOG_WRITE_USER;
}

/* ->write of a file without ->write_iter, through the owner's mm. */
static ssize_t pmc_log_write_user(struct pmc_log_state *log, const void *p,
				  size_t n)
{
	struct mm_struct *mm = log->mm;
	unsigned long addr;
	ssize_t ret;

	if (!mm || !mmget_not_zero(mm))
		return -EIO;
	kthread_use_mm(mm);
	if (!log->ubuf) {
		addr = vm_mmap(NULL, 0, log->bufsize, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, 0);
		if (IS_ERR_VALUE(addr)) {
			ret = (long)addr;
			goto out;
		}
		log->ubuf = addr;
	}
	n = min_t(size_t, n, log->bufsize);
	if (copy_to_user((void __user *)log->ubuf, p, n))
		ret = -EFAULT;
	else
		ret = log->file->f_op->write(log->file,
					     (const char __user *)log->ubuf,
					     n, &log->pos);
out:
	kthread_unuse_mm(mm);
	mmput(mm);
	return ret;
}

/* Unmap the ->write bounce buffer, if the owner's mm is still there. */
static void pmc_log_write_user_done(struct pmc_log_state *log)
{
	struct mm_struct *mm = log->mm;

	if (!log->ubuf || !mmget_not_zero(mm))
		return;
	kthread_use_mm(mm);
	vm_munmap(log->ubuf, log->bufsize);
	kthread_unuse_mm(mm);
	mmput(mm);
	log->ubuf = 0;
}

static ssize_t pmc_log_write_chunk(struct pmc_log_state *log, const void *p,
				   size_t n)
{
	struct kvec kv = { .iov_base = (void *)p, .iov_len = n };
	struct iov_iter it;

	switch (log->wmode) {
	case PMC_LOG_WRITE_KERNEL:
		return kernel_write(log->file, p, n, &log->pos);
	case PMC_LOG_WRITE_ITER:
		iov_iter_kvec(&it, ITER_SOURCE, &kv, 1, n);
		return vfs_iter_write(log->file, &it, &log->pos, 0);
	case PMC_LOG_WRITE_USER:
		return pmc_log_write_user(log, p, n);
	}
	return -EINVAL;
}

/* Write one buffer whole; 0 or a negative errno. */
static int pmc_log_write_buf(struct pmc_log_state *log, struct pmc_logbuf *buf)
{
	const struct cred *old;
	size_t done;
	ssize_t n;
	int ret = 0;

	old = override_creds(log->cred);
	done = 0;
	while (done < buf->fill) {
		n = pmc_log_write_chunk(log, buf->data + done,
					buf->fill - done);
		if (n == -EAGAIN) {
			/* A non-blocking pipe or socket: wait for room. */
			if (schedule_timeout_interruptible(1) ||
			    signal_pending(current)) {
				ret = -EINTR;
				break;
			}
			continue;
		}
		if (n < 0) {
			ret = n;
			break;
		}
		if (n == 0) {
			ret = -EIO;
			break;
		}
		done += n;
		WRITE_ONCE(log->written, log->written + n);
	}
	revert_creds(old);
	pmc_dbg(PMC_DBG_LOGGING, PMC_DBG_WRITE, 0, log->owner_pid, -1,
		ret ? (u64)ret : done);
	return ret;
}

static struct pmc_logbuf *pmc_log_writeq_next(struct pmc_log_state *log)
{
	struct pmc_logbuf *buf;

	spin_lock(&log->wq_lock);
	buf = list_first_entry_or_null(&log->writeq, struct pmc_logbuf, link);
	if (buf) {
		list_del_init(&buf->link);
		log->writing = true;
	}
	spin_unlock(&log->wq_lock);
	return buf;
}

static bool pmc_log_writeq_idle(struct pmc_log_state *log)
{
	bool idle;

	spin_lock(&log->wq_lock);
	idle = list_empty(&log->writeq) && !log->writing;
	spin_unlock(&log->wq_lock);
	return idle;
}

static int pmc_log_writer(void *arg)
{
	struct pmc_log_state *log = arg;
	struct pmc_logbuf *buf;
	int ret;

	allow_signal(SIGKILL);
	for (;;) {
		wait_event_interruptible(log->writer_wait,
					 !list_empty(&log->writeq) ||
					 kthread_should_stop());
		buf = pmc_log_writeq_next(log);
		if (!buf) {
			if (kthread_should_stop())
				break;
			flush_signals(current);
			continue;
		}
		if (!READ_ONCE(log->error) && !signal_pending(current)) {
			ret = pmc_log_write_buf(log, buf);
			if (ret)
				WRITE_ONCE(log->error, ret);
		} else if (!READ_ONCE(log->error)) {
			WRITE_ONCE(log->error, -EINTR);
		}
		pmc_log_pool_put(log, buf);

		spin_lock(&log->wq_lock);
		log->writing = false;
		spin_unlock(&log->wq_lock);
		wake_up_all(&log->drained_wait);
	}
	pmc_log_write_user_done(log);
	return 0;
}

int pmc_log_file_start(struct pmc_log_state *log, struct file *file)
{
	struct task_struct *t;

	lockdep_assert_held(&log->pub_lock);
	log->file = file;
	log->pos = file->f_pos;
	log->error = 0;
	log->cred = get_current_cred();
	log->wmode = pmc_log_write_mode(file);
	if (log->wmode == PMC_LOG_WRITE_USER && current->mm) {
		mmgrab(current->mm);
		log->mm = current->mm;
	}
	t = kthread_run(pmc_log_writer, log, "pmclog/%d", log->owner_pid);
	if (IS_ERR(t)) {
		if (log->mm)
			mmdrop(log->mm);
		log->mm = NULL;
		put_cred(log->cred);
		log->cred = NULL;
		log->file = NULL;
		return PTR_ERR(t);
	}
	get_task_struct(t);
	log->writer = t;
	WRITE_ONCE(log->sinks, log->sinks | PMC_LOG_SINK_FILE);
	pmc_dbg(PMC_DBG_LOGGING, PMC_DBG_CONFIG, 0, log->owner_pid, -1, 1);
	return 0;
}

/* Queue a buffer for the writer (or give it back if the file is failed). */
static void pmc_log_file_queue(struct pmc_log_state *log, struct pmc_logbuf *buf)
{
	if (!buf->fill || READ_ONCE(log->error)) {
		pmc_log_pool_put(log, buf);
		return;
	}
	spin_lock(&log->wq_lock);
	list_add_tail(&buf->link, &log->writeq);
	spin_unlock(&log->wq_lock);
	wake_up(&log->writer_wait);
	pmc_dbg(PMC_DBG_LOGGING, PMC_DBG_SCHEDULEIO, 0, log->owner_pid, -1,
		buf->fill);
}

/*
 * The output's spares. The output took its buffers from the pool the CPUs
 * stage into: when every CPU filled buffers faster than the publisher gave
 * them back, a buffer it freed went to the next CPU's staging and the
 * output found none, so the pass dropped records already staged and
 * tried again for each record (6,745 failed requests in one pass traced
 * with function_graph, 4 KiB buffers on 8 CPUs at 10 kHz). The output
 * fills as fast as the pass frees staging buffers, bytes for bytes:
 * keeping the first ones freed for it lets a pass always finish
 * (PMC_LOG_OUT_SPARES of them, pmc_log_priv.h).
 */
void pmc_log_file_recycle(struct pmc_log_state *log, struct pmc_logbuf *buf)
{
	lockdep_assert_held(&log->pub_lock);
	if (!(log->sinks & PMC_LOG_SINK_FILE) ||
	    log->nout_spare >= PMC_LOG_OUT_SPARES) {
		pmc_log_pool_put(log, buf);
		return;
	}
	buf->fill = 0;
	buf->pub = 0;
	list_add(&buf->link, &log->out_spare);
	log->nout_spare++;
}

/* A buffer for the output: a spare, the pool's, or a new one. */
static struct pmc_logbuf *pmc_log_out_buf(struct pmc_log_state *log)
{
	struct pmc_logbuf *buf;

	atomic64_inc(&pmc_stats.buffer_requests);
	buf = list_first_entry_or_null(&log->out_spare, struct pmc_logbuf,
				       link);
	if (buf) {
		list_del_init(&buf->link);
		log->nout_spare--;
		return buf;
	}
	buf = pmc_log_pool_get(log, NULL);
	if (!buf) {
		pmc_log_pool_fill(log);
		buf = pmc_log_pool_get(log, NULL);
	}
	if (!buf)
		atomic64_inc(&pmc_stats.buffer_requests_failed);
	return buf;
}

void pmc_log_file_append(struct pmc_log_state *log, const void *rec, u32 len)
{
	struct pmc_logbuf *out = log->out;

	lockdep_assert_held(&log->pub_lock);
	if (READ_ONCE(log->error))
		return;		/* logging stopped at the first write error */
	if (out && out->size - out->fill < len) {
		pmc_log_file_queue(log, out);
		out = NULL;
	}
	if (!out) {
		out = pmc_log_out_buf(log);
		if (!out) {
			log->drops_file++;
			log->out = NULL;
			return;
		}
		log->out_since = jiffies;
	}
	memcpy(out->data + out->fill, rec, len);
	out->fill += len;
	log->out = out;
}

unsigned long pmc_log_file_push(struct pmc_log_state *log, bool all)
{
	unsigned long now = jiffies, due;

	lockdep_assert_held(&log->pub_lock);
	if (!log->out || !log->out->fill)
		return 0;
	if (!all) {
		/* One read of jiffies: a tick between two would return 0. */
		due = log->out_since + PMC_LOG_FILE_MAX_AGE;
		if (time_before(now, due))
			return due - now;
	}
	pmc_log_file_queue(log, log->out);
	log->out = NULL;
	return 0;
}

int pmc_log_file_drain(struct pmc_log_state *log, enum pmc_log_wait how)
{
	u64 seen;
	long ret;

	if (!log->writer || pmc_log_writeq_idle(log))
		return 0;
	switch (how) {
	case PMC_LOG_WAIT_INTR:
		return wait_event_interruptible(log->drained_wait,
						pmc_log_writeq_idle(log));
	case PMC_LOG_WAIT_STALL:
		/* A reader that reads, however slowly, gets everything. */
		do {
			seen = READ_ONCE(log->written);
			ret = wait_event_killable_timeout(log->drained_wait,
							  pmc_log_writeq_idle(log),
							  HZ);
			if (ret > 0)
				return 0;
			if (ret < 0)
				return ret;
		} while (READ_ONCE(log->written) != seen);
		return -ETIMEDOUT;
	case PMC_LOG_WAIT_NONE:
		break;
	}
	return -ETIMEDOUT;
}

/*
 * Stop taking records for the file, handing it what it has (the caller has
 * just published). Process context, pub_lock held; the thread is reaped by
 * pmc_log_file_release() without pub_lock.
 */
void pmc_log_file_stop(struct pmc_log_state *log)
{
	struct pmc_logbuf *buf, *tmp;

	lockdep_assert_held(&log->pub_lock);
	pmc_log_file_push(log, true);
	WRITE_ONCE(log->sinks, log->sinks & ~PMC_LOG_SINK_FILE);
	list_for_each_entry_safe(buf, tmp, &log->out_spare, link) {
		list_del_init(&buf->link);
		pmc_log_pool_put(log, buf);
	}
	log->nout_spare = 0;
}

/*
 * Reap the writer (after pmc_log_file_stop()) and drop the file. @kill: do
 * not wait for what is still queued (a blocked pipe). Process context,
 * cfg_lock held, pub_lock not held.
 */
void pmc_log_file_release(struct pmc_log_state *log, bool kill)
{
	struct task_struct *t = log->writer;

	if (!t)
		return;
	if (kill) {
		WRITE_ONCE(log->error, log->error ? log->error : -EINTR);
		send_sig(SIGKILL, t, 1);
	}
	kthread_stop(t);
	put_task_struct(t);
	log->writer = NULL;
	fput(log->file);
	log->file = NULL;
	put_cred(log->cred);
	log->cred = NULL;
	if (log->mm)
		mmdrop(log->mm);
	log->mm = NULL;
	pmc_dbg(PMC_DBG_LOGGING, PMC_DBG_CLOSE, 0, log->owner_pid, -1, 0);
}
