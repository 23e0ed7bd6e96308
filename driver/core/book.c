// SPDX-License-Identifier: GPL-2.0
/*
 * book.c - the per-thread bookkeeping of inherited DESCENDANTS PMCs that
 * log PROCCSW or PROCEXIT ("book mode", pmc_book_wanted()).
 *
 * Such a PMC counts with perf's inherited counters, as a plain counting
 * DESCENDANTS PMC does (target.c, pm->inherit), with attr.inherit_stat
 * added. At a switch between related tasks perf then swaps the two tasks'
 * contexts instead of scheduling one counter out and the other in
 * (docs/performance.md, 4b and 4c), and swaps the counts of corresponding
 * counters with them: the counter in a task's context always holds that
 * task's own count (perf_event.count; child_count is what exited
 * children folded in).
 *
 * A book (struct pmc_book) per counted thread keeps what the records
 * need: the thread's count at its last switch-out (PROCCSW deltas) and
 * the sum of its deltas while the PMC ran (PROCEXIT, per process in a
 * struct pmc_bproc). Books are made for the attached threads at attach
 * (process context) and, by the fork probe, for each new thread or
 * process perf gave a counter of the PMC (probe pool blocks). The last
 * slice of a thread is read by a kprobe on perf_event_exit_task(): on the
 * kernels supported (6.1, 6.12) it folds and frees inherited counters
 * before any tracepoint of do_exit() (reference/linux.md 1.7), and a
 * privilege-raising exec ends a task's counters through it too.
 *
 * A thread's books are written on its CPU while it runs there only: by its
 * sched_switch probe (IRQs off), the exit kprobe (preemption off; IRQs off
 * around the reads), and at PMCSTART and PMCSTOP the IPI that brings the
 * books of the running threads to that instant (hard IRQ).
 * pmc_book_lock guards the hash, the lists and pm->books_closed.
 */
#include "pmc_core_priv.h"

#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "compat/kprobes.h"
#include "compat/perf_ctx.h"

/*
 * struct pmc_bproc - a counted process (PROCEXIT).
 * @nbooks:	its books, and one for the attach that made it; the exit
 *		that drops the last book logs PROCEXIT
 * @accum:	what its exited threads counted while the PMC ran
 */
struct pmc_bproc {
	atomic_t nbooks;
	atomic64_t accum;
	struct rcu_head rcu;
};

/*
 * struct pmc_book - a counted thread.
 * @task:	the thread; no reference (the book goes at its exit)
 * @last:	its count at its last switch-out (or the PMC's start)
 * @total:	the sum of its deltas while the PMC ran
 * @gtid:	the thread's tid in the initial namespace when @pid and @tid
 *		were taken (a non-leader's exec gives it the leader's)
 * @pid, @tid:	its tgid and tid as the owner sees them, for its PROCCSW
 *		records: looked up once, not at every switch
 */
struct pmc_book {
	struct hlist_node hnode;	/* pmc_book_hash, by task */
	struct list_head pm_link;	/* pm->books */
	struct task_struct *task;
	struct pmc_obj *pm;
	struct pmc_bproc *proc;
	u64 last;
	u64 total;
	pid_t gtid;
	pid_t pid, tid;
	struct rcu_head rcu;
};
static_assert(sizeof(struct pmc_book) <= PMC_PROBE_BLOCK_SIZE);
static_assert(sizeof(struct pmc_bproc) <= PMC_PROBE_BLOCK_SIZE);

/* Raw: taken by the fork probe and the exit kprobe. Innermost but the pool's. */
static DEFINE_RAW_SPINLOCK(pmc_book_lock);
static DEFINE_HASHTABLE(pmc_book_hash, 10);
/* Books in the hash: the probes return at once while there is none. */
static atomic_t pmc_book_live = ATOMIC_INIT(0);

bool pmc_book_wanted(const struct pmc_obj *pm)
{
	return pm->flags & (PMC_F_LOG_PROCCSW | PMC_F_LOG_PROCEXIT);
}

static bool pmc_book_mode(const struct pmc_obj *pm)
{
	return pm->inherit && pmc_book_wanted(pm);
}

/* ------------------------------------------------------------ objects */

static void pmc_bproc_free_rcu(struct rcu_head *rcu)
{
	pmc_probe_block_put(container_of(rcu, struct pmc_bproc, rcu));
}

static void pmc_book_free_rcu(struct rcu_head *rcu)
{
	pmc_probe_block_put(container_of(rcu, struct pmc_book, rcu));
}

/*
 * A new process record, with the creator's reference (dropped by
 * pmc_bproc_put()). Any context but NMI and sched_switch.
 */
struct pmc_bproc *pmc_bproc_new(void)
{
	struct pmc_bproc *proc = pmc_probe_block_get(sizeof(*proc));

	if (!proc)
		return NULL;
	atomic_set(&proc->nbooks, 1);
	atomic64_set(&proc->accum, 0);
	return proc;
}

/*
 * Drop a reference: true if it was the last (the record is freed after a
 * grace period, so a caller under RCU may still read it). Any context but
 * NMI.
 */
static bool pmc_bproc_drop(struct pmc_bproc *proc)
{
	if (!atomic_dec_and_test(&proc->nbooks))
		return false;
	call_rcu(&proc->rcu, pmc_bproc_free_rcu);
	return true;
}

/* Drop a reference that logs nothing. Any context but NMI. */
void pmc_bproc_put(struct pmc_bproc *proc)
{
	if (proc)
		pmc_bproc_drop(proc);
}

/* @pm's book of @task, or NULL. Under RCU or pmc_book_lock. */
static struct pmc_book *pmc_book_find(const struct pmc_obj *pm,
				      const struct task_struct *task)
{
	struct pmc_book *b;

	hash_for_each_possible_rcu(pmc_book_hash, b, hnode,
				   (unsigned long)task)
		if (b->task == task && b->pm == pm)
			return b;
	return NULL;
}

/*
 * Take @task's tgid and tid as @b's owner sees them. Any context but NMI;
 * written by @task's own CPU once @b is in the hash (pmc_book_slice()).
 */
static void pmc_book_name(struct pmc_book *b, struct task_struct *task)
{
	struct pmc_owner *po = b->pm->owner;

	b->gtid = READ_ONCE(task->pid);
	b->pid = pmc_owner_pid_nr(po, task, true);
	b->tid = pmc_owner_pid_nr(po, task, false);
}

/*
 * Keep the books of @task for @pm, in @proc (a reference is taken). A
 * task that has one already keeps it; an exiting one gets none. Any
 * context but NMI and sched_switch; false if the probe pool is empty.
 */
bool pmc_book_add(struct pmc_obj *pm, struct task_struct *task,
		  struct pmc_bproc *proc)
{
	struct pmc_book *b = pmc_probe_block_get(sizeof(*b));
	unsigned long flags;
	bool added = false;

	if (!b)
		return false;
	b->task = task;
	b->pm = pm;
	b->proc = proc;
	b->last = 0;
	b->total = 0;
	pmc_book_name(b, task);
	raw_spin_lock_irqsave(&pmc_book_lock, flags);
	/*
	 * Not for a task past its exit probe, which removes books under
	 * this lock (a book holds no reference on its task).
	 */
	if (!pm->books_closed && !(READ_ONCE(task->flags) & PF_EXITING) &&
	    !pmc_book_find(pm, task)) {
		atomic_inc(&proc->nbooks);
		list_add_tail(&b->pm_link, &pm->books);
		hash_add_rcu(pmc_book_hash, &b->hnode, (unsigned long)task);
		atomic_inc(&pmc_book_live);
		added = true;
	}
	raw_spin_unlock_irqrestore(&pmc_book_lock, flags);
	if (!added)
		pmc_probe_block_put(b);
	return true;
}

/*
 * Remove @b: its process record loses a book; true if it was the last.
 * pmc_book_lock held.
 */
static bool pmc_book_del(struct pmc_book *b)
{
	hash_del_rcu(&b->hnode);
	list_del(&b->pm_link);
	atomic_dec(&pmc_book_live);
	call_rcu(&b->rcu, pmc_book_free_rcu);
	return pmc_bproc_drop(b->proc);
}

/*
 * @pm is released: no book of it is left, and none is made any more.
 * Process context.
 */
void pmc_book_release_pm(struct pmc_obj *pm)
{
	struct pmc_book *b, *tmp;

	raw_spin_lock_irq(&pmc_book_lock);
	pm->books_closed = true;
	list_for_each_entry_safe(b, tmp, &pm->books, pm_link)
		pmc_book_del(b);
	raw_spin_unlock_irq(&pmc_book_lock);
}

/* @task (detached) is counted by @pm no more. Process context. */
void pmc_book_forget(struct pmc_obj *pm, struct task_struct *task)
{
	struct pmc_book *b;

	raw_spin_lock_irq(&pmc_book_lock);
	b = pmc_book_find(pm, task);
	if (b)
		pmc_book_del(b);
	raw_spin_unlock_irq(&pmc_book_lock);
}

/* ------------------------------------------------------------ counts */

struct pmc_book_find_event {
	const struct pmc_obj *pm;
	struct perf_event *event;
};

static bool pmc_book_event_fn(struct perf_event *event, void *arg)
{
	struct pmc_book_find_event *f = arg;

	if (pmc_event_inherit_pmc(event) != f->pm)
		return false;
	f->event = event;
	return true;
}

/*
 * The own count of @task, current, in @pm's counter of its context: false
 * when it has none (a privilege-raising exec ended it). IRQs off, under
 * RCU: the counter is either active on this CPU or does not move.
 */
static bool pmc_book_count(const struct pmc_obj *pm, struct task_struct *task,
			   u64 *value)
{
	struct pmc_book_find_event f = { .pm = pm };
	struct perf_event *event;

	if (!pmc_task_events_rcu(task, pmc_book_event_fn, &f))
		return false;
	event = f.event;
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	    READ_ONCE(event->oncpu) == smp_processor_id())
		event->pmu->read(event);
	*value = local64_read(&event->count);
	return true;
}

/*
 * The slice of @b's thread (current) since its last switch-out: its
 * PROCCSW record while the PMC runs (@log; always, as hwpmc logs one at
 * every switch-out). IRQs off, under RCU.
 */
static void pmc_book_slice(struct pmc_book *b, bool log)
{
	struct pmc_obj *pm = b->pm;
	struct pmc_owner *po = pm->owner;
	u64 v, delta;

	if (!pmc_book_count(pm, current, &v))
		return;
	delta = v - b->last;
	b->last = v;
	if (READ_ONCE(pm->state) != PMC_STATE_RUNNING)
		return;
	b->total += delta;
	if (log && (pm->flags & PMC_F_LOG_PROCCSW)) {
		pmc_dbg(PMC_DBG_CSW, PMC_DBG_SWO, pm->id, task_pid_nr(current),
			smp_processor_id(), delta);
		/* The thread took its leader's pid at an exec: look again. */
		if (unlikely(READ_ONCE(current->pid) != b->gtid))
			pmc_book_name(b, current);
		pmc_log_proccsw(po, pm, b->pid, b->tid, delta);
	}
}

/* sched_switch probe (@prev is current, IRQs off, rq lock held). */
void pmc_book_switch_probe(struct task_struct *prev)
{
	struct pmc_book *b;

	if (!atomic_read(&pmc_book_live))
		return;
	rcu_read_lock();
	hash_for_each_possible_rcu(pmc_book_hash, b, hnode,
				   (unsigned long)prev)
		if (b->task == prev)
			pmc_book_slice(b, true);
	rcu_read_unlock();
}

struct pmc_book_sync {
	struct pmc_obj *pm;
	bool enable;
};

/*
 * On each CPU (IPI, hard IRQ; the caller's CPU with IRQs off): the book of
 * @pm of the thread running there, if any, brought to this instant: at a
 * stop, its slice up to now (the PMC still runs); at a start, counting from
 * now.
 */
static void pmc_book_sync_cpu(void *arg)
{
	const struct pmc_book_sync *s = arg;
	struct pmc_book *b;
	u64 v;

	if (!atomic_read(&pmc_book_live))
		return;
	rcu_read_lock();
	b = pmc_book_find(s->pm, current);
	if (b && s->enable && pmc_book_count(s->pm, current, &v))
		b->last = v;
	else if (b && !s->enable)
		pmc_book_slice(b, true);
	rcu_read_unlock();
}

/*
 * PMCSTART (@enable, after the counters' start, before the PMC runs) or
 * PMCSTOP (before the counters' stop, the PMC still running) of @pm. A
 * thread that is not running had its book brought to its count at its
 * last switch-out, and its count has not moved since; the threads that run
 * now, the caller's included, are brought to this instant on their CPUs,
 * as their own switch would (an inherited counter counts on through a
 * start and a stop, pmc_thr_adjust(): without this a running thread's
 * next switch would take the counts before the start into its slice, or
 * drop those before the stop). What the threads count between their CPU's
 * turn and the counters' read at the start or stop (microseconds) may
 * differ between the books and the PMC. The owner's lock held, process
 * context.
 */
void pmc_book_enable(struct pmc_obj *pm, bool enable)
{
	struct pmc_book_sync s = { .pm = pm, .enable = enable };

	if (!pmc_book_mode(pm))
		return;
	on_each_cpu(pmc_book_sync_cpu, &s, 1);
}

/* ------------------------------------------------------------ fork */

struct pmc_book_fork {
	struct task_struct *parent, *child;
	bool thread;
};

/* A counter of a book-mode PMC in the new task's context: its book. */
static bool pmc_book_fork_fn(struct perf_event *event, void *arg)
{
	struct pmc_book_fork *bf = arg;
	struct pmc_obj *pm = pmc_event_inherit_pmc(event);
	struct pmc_bproc *proc = NULL;
	struct pmc_book *pb;

	if (!pm || !pmc_book_mode(pm) ||
	    READ_ONCE(event->state) < PERF_EVENT_STATE_INACTIVE)
		return false;
	if (bf->thread) {
		pb = pmc_book_find(pm, bf->parent);
		if (pb && atomic_inc_not_zero(&pb->proc->nbooks))
			proc = pb->proc;
	}
	if (!proc)
		proc = pmc_bproc_new();
	if (!proc || !pmc_book_add(pm, bf->child, proc))
		pr_warn_ratelimited("pid %d: no PROCCSW or PROCEXIT for it\n",
				    task_pid_nr(bf->child));
	pmc_bproc_put(proc);
	return false;
}

/*
 * sched_process_fork probe (in the parent, @child not yet running):
 * books for the book-mode PMCs perf gave @child a counter of.
 */
void pmc_book_fork_probe(struct task_struct *parent, struct task_struct *child)
{
	struct pmc_book_fork bf = {
		.parent = parent, .child = child,
		.thread = same_thread_group(parent, child),
	};

	if (!atomic_read(&pmc_book_live))
		return;
	rcu_read_lock();
	pmc_task_events_rcu(child, pmc_book_fork_fn, &bf);
	rcu_read_unlock();
}

/* ------------------------------------------------------------ exit */

/*
 * kprobe pre-handler of perf_event_exit_task(current), called by do_exit()
 * and by an exec that raised the task's privileges: the thread's counters
 * are still in its context, active here, for its last slice. After such
 * an exec its books stay, to count from zero with the counter the exec
 * work makes for a privileged owner. Preemption off; where the kprobe is
 * an int3 or BRK handler it runs as NMI code, but always at the entry of
 * that function, where nothing this takes is held.
 */
static int pmc_book_kp_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct task_struct *task = current;
	bool exiting = task->flags & PF_EXITING;
	struct pmc_book *b;
	unsigned long flags;

	if (!atomic_read(&pmc_book_live))
		return 0;
	rcu_read_lock();
	local_irq_save(flags);
	hash_for_each_possible_rcu(pmc_book_hash, b, hnode,
				   (unsigned long)task) {
		if (b->task != task)
			continue;
		pmc_book_slice(b, true);
		if (!exiting)
			b->last = 0;
	}
	local_irq_restore(flags);
	rcu_read_unlock();
	return 0;
}

/*
 * sched_process_exit probe (@task is current; its last slice was read by
 * the kprobe): its books go, and the exit that drops a process's last
 * book logs its PROCEXIT.
 */
void pmc_book_exit_probe(struct task_struct *task)
{
	struct pmc_bproc *proc;
	struct hlist_node *tmp;
	struct pmc_book *b;
	unsigned long flags;
	struct pmc_obj *pm;

	if (!atomic_read(&pmc_book_live))
		return;
	rcu_read_lock();
	raw_spin_lock_irqsave(&pmc_book_lock, flags);
	hash_for_each_possible_safe(pmc_book_hash, b, tmp, hnode,
				    (unsigned long)task) {
		if (b->task != task)
			continue;
		pm = b->pm;
		proc = b->proc;
		atomic64_add(b->total, &proc->accum);
		/* The last book: @proc is freed after this RCU section. */
		if (pmc_book_del(b) && (pm->flags & PMC_F_LOG_PROCEXIT))
			pmc_log_procexit(pm->owner, pm,
					 pmc_owner_pid_nr(pm->owner, task,
							  true),
					 atomic64_read(&proc->accum));
	}
	raw_spin_unlock_irqrestore(&pmc_book_lock, flags);
	rcu_read_unlock();
}

/*
 * The kprobe is on while a PMC may use books: from its first attach in
 * book mode to its release (pm->book_kp).
 */
static PMC_KP_REF(pmc_book_kp, PMC_KP_TASKEXIT_SYMBOL, pmc_book_kp_pre,
		  "PROCCSW/PROCEXIT of descendants on per-process counters");

/* 0, or the errno that keeps @pm on per-process counters. Process context. */
int pmc_book_kp_get(void)
{
	return pmc_kp_ref_get(&pmc_book_kp);
}

/* Process context. */
void pmc_book_kp_put(void)
{
	pmc_kp_ref_put(&pmc_book_kp);
}

/* Module unload: every PMC is gone. Process context. */
void pmc_book_exit(void)
{
	WARN_ON_ONCE(atomic_read(&pmc_book_live));
	pmc_kp_ref_exit(&pmc_book_kp);
}
