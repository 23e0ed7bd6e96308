// SPDX-License-Identifier: GPL-2.0
/*
 * selfread.c - the self-read page (include/uapi/pmc/ring.h): mmap of
 * /dev/pmc at PMC_MMAP_SELFREAD_OFFSET(group) gives the mapping thread one
 * read-only page describing the PMCs of set @group attached to it in
 * thread scope, kept up to date with perf's seqcount protocol.
 *
 * Writers, serialised by the page's raw spinlock:
 *  - the ops (process context, owner's lock held) rebuild the page of a
 *    set after PMCSTART/STOP/RW/SETCOUNT/ATTACH/DETACH/RELEASE and an
 *    overflow stopping the set (pmc_selfread_update());
 *  - the sched_switch probe (IRQs off, rq lock held) at every switch-in
 *    and switch-out of the thread (pmc_selfread_switch_probe());
 *  - where the arch layer allows user reads (pmc_arch_user_read(): arm64),
 *    a kprobe on perf_event_update_userpage(), which perf's PMU driver
 *    calls each time it gives the thread's counter a hardware counter,
 *    reprograms it (at its start and at every overflow interrupt) or takes
 *    it away (process context with IRQs off, or hard IRQ).
 *
 * Kinds written (docs/selfread.md has the why):
 *  - STATIC: the PMC is stopped (exact: its value as PMCREADSET returns
 *    it), the thread is switched out (its value at the switch-out), or
 *    its counter is off the PMU (not counting);
 *  - RDPMC: the thread is running and perf has its counter on the PMU
 *    with user access: value = se_offset + the counter sign-extended from
 *    se_width bits, read by the thread itself (arm64: PMEVCNTR<n>_EL0 or
 *    PMCCNTR_EL0, n = se_index - 1), exactly as perf's own user page
 *    gives index, offset and pmc_width;
 *  - SYSCALL: otherwise while the thread runs and the PMC counts (user
 *    space reads it with PMCREADSET), or the PMC counts other threads too;
 *  - CLOCK is not written: task-clock is perf's local_clock(), not
 *    CLOCK_MONOTONIC.
 *
 * mmap() holds mmap_lock, so it never takes the owner's lock (pmc_core.h,
 * struct pmc_owner): it checks the caller has a PMC of the set under RCU,
 * maps the page empty and leaves the first build to a task_work that
 * runs before mmap() returns to user space.
 *
 * Lifetime: struct pmc_sr lives as long as a vma maps it (refs); it holds
 * the page (one reference, the mapping holds its own), the thread and the
 * owner. A PMC leaves every page (under the page's lock) before it is
 * released, so the probe never sees a PMC that is gone; counters are
 * looked up in the core's RCU thread hash at each use, never cached.
 */
#include "pmc_core_priv.h"
#include "compat/kprobes.h"
#include "compat/mm.h"

#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>
#include <pmc/ring.h>

/*
 * A PMC on a page; @whole: it counts the page's thread and nothing else;
 * @width: its class's counter width (RDPMC entries).
 */
struct pmc_sr_slot {
	struct pmc_obj *pm;
	bool whole;
	u32 width;
};

/*
 * struct pmc_sr - one self-read page.
 * @refs:	the vmas mapping it
 * @lock:	raw spinlock, IRQs off: the seqcount writer side; protects
 *		@oncpu, @n, @slots and the page. Taken by the ops (owner's
 *		lock held) and the sched_switch probe; innermost. Raw for the
 *		probe (rq lock held): a spinlock_t sleeps on PREEMPT_RT.
 * @po:		the owner (a reference)
 * @task:	the thread it describes (a reference)
 * @oncpu:	@task is running (between its switch-in and switch-out)
 * @rdpmc:	the page holds a user of the kprobe: it may have RDPMC
 *		entries (set once, before the first build)
 * @hnode:	in pmc_sr_hash, keyed by @task (RCU)
 */
struct pmc_sr {
	refcount_t refs;
	raw_spinlock_t lock;
	struct page *page;
	struct pmc_selfread_page *pg;
	struct pmc_owner *po;
	struct task_struct *task;
	u32 group;
	bool oncpu;
	bool rdpmc;
	unsigned int n;
	struct pmc_sr_slot slots[PMC_SELFREAD_MAX];
	struct hlist_node hnode;
	struct callback_head build_work;
	struct rcu_head rcu;
};

/*
 * Every page, by thread. pmc_sr_hash_lock serialises insertions and
 * removals (process context); the probe and pmc_selfread_update() walk it
 * under rcu_read_lock().
 */
static DEFINE_HASHTABLE(pmc_sr_hash, 6);
static DEFINE_SPINLOCK(pmc_sr_hash_lock);
static atomic_t pmc_sr_live;

/* ------------------------------------------------------------ values */

/* The live counter of @pm for @task, or NULL. Under rcu_read_lock(). */
static struct perf_event *pmc_sr_event(struct pmc_obj *pm,
				       struct task_struct *task)
{
	struct pmc_thr *thr;

	pmc_for_each_thr_rcu(thr, task)
		if (thr->task == task && thr->tgt->pm == pm &&
		    !READ_ONCE(thr->dead))
			return READ_ONCE(thr->event);
	return NULL;
}

/* What a counter not counting now holds (perf_event_read_value()'s sum). */
static u64 pmc_sr_count(struct perf_event *event)
{
	return local64_read(&event->count) +
	       atomic64_read(&event->child_count);
}

static void pmc_sr_write_begin(struct pmc_selfread_page *pg)
{
	WRITE_ONCE(pg->ps_seq, pg->ps_seq + 1);
	/* The odd count is visible before the entries change. */
	smp_wmb();
}

static void pmc_sr_write_end(struct pmc_selfread_page *pg)
{
	/* The entries are visible before the even count. */
	smp_wmb();
	WRITE_ONCE(pg->ps_seq, pg->ps_seq + 1);
}

static void pmc_sr_set(struct pmc_selfread_entry *e, u32 kind, u64 value)
{
	WRITE_ONCE(e->se_kind, kind);
	WRITE_ONCE(e->se_offset, (s64)value);
}

/*
 * The entry of running PMC @pm, whose counter @event follows @sr's
 * thread, while that thread is on this CPU: RDPMC while perf has the
 * counter on the PMU with user access (perf's user page rule: active,
 * started, a non-zero event_idx()), STATIC while the counter is not
 * counting, SYSCALL otherwise. sr->lock held, IRQs off: the counter can
 * be neither moved nor reprogrammed meanwhile.
 */
static void pmc_sr_running(struct pmc_sr *sr, struct pmc_selfread_entry *e,
			   struct pmc_obj *pm, struct perf_event *event, u32 width)
{
	u64 value = READ_ONCE(pm->accum) + pmc_sr_count(event);
	int idx = 0;

	if (!sr->rdpmc || READ_ONCE(event->oncpu) != smp_processor_id()) {
		WRITE_ONCE(e->se_kind, PMC_SELFREAD_SYSCALL);
		return;
	}
	if (READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE ||
	    (event->hw.state & PERF_HES_STOPPED)) {
		/* Off the PMU: the count is up to date and does not move. */
		pmc_sr_set(e, PMC_SELFREAD_STATIC, value);
		return;
	}
	if (width && width <= 64)
		idx = event->pmu->event_idx(event);
	if (idx <= 0) {
		WRITE_ONCE(e->se_kind, PMC_SELFREAD_SYSCALL);
		return;
	}
	/* perf's user page: offset = count - prev_count, index, pmc_width. */
	WRITE_ONCE(e->se_index, idx);
	WRITE_ONCE(e->se_width, width);
	pmc_sr_set(e, PMC_SELFREAD_RDPMC,
		   value - local64_read(&event->hw.prev_count));
}

/* ------------------------------------------------------------ rebuild */

/*
 * Is @pm attached in thread scope to @task? *@whole: and counting only
 * it, for good (no other target, no inherit, no descendants). Owner's
 * lock held.
 */
static bool pmc_sr_attached(struct pmc_obj *pm, struct task_struct *task,
			    bool *whole)
{
	struct pmc_target *tgt, *found = NULL;
	struct pmc_thr *thr;

	list_for_each_entry(tgt, &pm->targets, pm_link)
		if (tgt->thread && tgt->pid == task_pid(task))
			found = tgt;
	if (!found)
		return false;
	*whole = list_is_singular(&pm->targets) && !found->inherit &&
		 !(pm->flags & PMC_F_DESCENDANTS) &&
		 list_is_singular(&found->threads);
	if (*whole) {
		thr = list_first_entry(&found->threads, struct pmc_thr,
				       tgt_link);
		*whole = thr->task == task;
	}
	return true;
}

/*
 * Rebuild @sr from its owner's PMCs: sr->lock and the owner's lock held.
 * Returns the number of entries.
 */
static unsigned int pmc_sr_rebuild(struct pmc_sr *sr)
{
	const struct pmc_classdesc *cd;
	struct pmc_selfread_page *pg = sr->pg;
	struct pmc_selfread_entry *e;
	struct perf_event *event;
	struct pmc_obj *pm;
	unsigned int n = 0, i;
	bool whole;
	u64 value;

	list_for_each_entry(pm, &sr->po->pmcs, owner_link) {
		if (n == PMC_SELFREAD_MAX)
			break;
		if (pm->group != sr->group || !PMC_IS_VIRTUAL_MODE(pm->mode) ||
		    pm->state == PMC_STATE_DELETED ||
		    !pmc_sr_attached(pm, sr->task, &whole))
			continue;
		cd = pmc_class_is_hw(pm->pmc_class) ?
		     pmc_class_find(pm->pmc_class) : NULL;
		sr->slots[n].pm = pm;
		sr->slots[n].whole = whole;
		sr->slots[n].width = cd ? cd->width : 0;
		n++;
	}
	sr->n = n;

	pmc_sr_write_begin(pg);
	WRITE_ONCE(pg->ps_nentries, n);
	for (i = 0; i < PMC_SELFREAD_MAX; i++) {
		e = &pg->ps_entries[i];
		if (i >= n) {
			memset(e, 0, sizeof(*e));
			continue;
		}
		pm = sr->slots[i].pm;
		WRITE_ONCE(e->se_pmcid, pm->id);
		e->se_index = 0;
		e->se_width = 0;
		e->se_stamp = 0;
		if (!sr->slots[i].whole) {
			WRITE_ONCE(e->se_kind, PMC_SELFREAD_SYSCALL);
			continue;
		}
		rcu_read_lock();
		event = pmc_sr_event(pm, sr->task);
		if (pm->state == PMC_STATE_RUNNING && sr->oncpu) {
			/* The thread itself can see where its counter is. */
			if (event && sr->task == current)
				pmc_sr_running(sr, e, pm, event,
				       sr->slots[i].width);
			else
				WRITE_ONCE(e->se_kind, PMC_SELFREAD_SYSCALL);
			rcu_read_unlock();
			continue;
		}
		/* Stopped, or running with its thread switched out. */
		value = pm->accum + (event ? pmc_sr_count(event) : 0);
		rcu_read_unlock();
		pmc_sr_set(e, PMC_SELFREAD_STATIC, value);
	}
	pmc_sr_write_end(pg);
	return n;
}

void pmc_selfread_update(struct pmc_owner *po, u32 group)
{
	struct pmc_sr *sr;
	unsigned long flags;
	int bkt;

	lockdep_assert_held(&po->lock);
	if (!group || !atomic_read(&pmc_sr_live))
		return;
	rcu_read_lock();
	hash_for_each_rcu(pmc_sr_hash, bkt, sr, hnode) {
		if (sr->po != po || sr->group != group)
			continue;
		raw_spin_lock_irqsave(&sr->lock, flags);
		pmc_sr_rebuild(sr);
		raw_spin_unlock_irqrestore(&sr->lock, flags);
	}
	rcu_read_unlock();
}

/* ------------------------------------------------------------ switch */

/*
 * @sr's thread switches in (@in) or out (then it is current). The
 * counting entries become SYSCALL at the switch-in (perf has not scheduled
 * the thread's counters in yet; the kprobe makes them RDPMC when it does)
 * and STATIC with the value at the switch-out. sched_switch context.
 */
static void pmc_sr_switch(struct pmc_sr *sr, bool in)
{
	struct pmc_selfread_page *pg = sr->pg;
	struct perf_event *event;
	struct pmc_obj *pm;
	unsigned int i;

	raw_spin_lock(&sr->lock);
	sr->oncpu = in;
	pmc_sr_write_begin(pg);
	for (i = 0; i < sr->n; i++) {
		pm = sr->slots[i].pm;
		if (!sr->slots[i].whole ||
		    READ_ONCE(pm->state) != PMC_STATE_RUNNING)
			continue;
		if (in) {
			WRITE_ONCE(pg->ps_entries[i].se_kind,
				   PMC_SELFREAD_SYSCALL);
			continue;
		}
		event = pmc_sr_event(pm, sr->task);
		if (!event)
			continue;
		if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
		    READ_ONCE(event->oncpu) == smp_processor_id())
			event->pmu->read(event);
		pmc_sr_set(&pg->ps_entries[i], PMC_SELFREAD_STATIC,
			   READ_ONCE(pm->accum) + pmc_sr_count(event));
	}
	pmc_sr_write_end(pg);
	raw_spin_unlock(&sr->lock);
}

/*
 * sched_switch probe (@prev still current, IRQs off, rq lock held): the
 * pages of @prev (switch-out) and @next (switch-in). Takes only the
 * pages' raw spinlocks.
 */
void pmc_selfread_switch_probe(struct task_struct *prev,
			       struct task_struct *next)
{
	struct pmc_sr *sr;

	if (!atomic_read(&pmc_sr_live))
		return;
	rcu_read_lock();
	hash_for_each_possible_rcu(pmc_sr_hash, sr, hnode, (unsigned long)prev)
		if (sr->task == prev)
			pmc_sr_switch(sr, false);
	if (next != prev)
		hash_for_each_possible_rcu(pmc_sr_hash, sr, hnode,
					   (unsigned long)next)
			if (sr->task == next)
				pmc_sr_switch(sr, true);
	rcu_read_unlock();
}

/* ------------------------------------------------------------ RDPMC */

/*
 * perf moved, reprogrammed or read back @event, a counter of @sr's
 * thread: rewrite the entry of the PMC it counts for. While the thread
 * runs (this is its CPU) the entry follows the counter; switched out, it
 * is STATIC with the count perf has just brought up to date. kprobe
 * context: hard IRQ (the overflow interrupt) or IRQs off.
 */
static void pmc_sr_moved(struct pmc_sr *sr, struct perf_event *event)
{
	struct pmc_selfread_entry *e;
	unsigned long flags;
	struct pmc_obj *pm;
	unsigned int i;

	raw_spin_lock_irqsave(&sr->lock, flags);
	for (i = 0; i < sr->n; i++) {
		pm = sr->slots[i].pm;
		if (!sr->slots[i].whole ||
		    READ_ONCE(pm->state) != PMC_STATE_RUNNING ||
		    pmc_sr_event(pm, sr->task) != event)
			continue;
		e = &sr->pg->ps_entries[i];
		pmc_sr_write_begin(sr->pg);
		if (sr->oncpu)
			pmc_sr_running(sr, e, pm, event, sr->slots[i].width);
		else
			pmc_sr_set(e, PMC_SELFREAD_STATIC,
				   READ_ONCE(pm->accum) + pmc_sr_count(event));
		pmc_sr_write_end(sr->pg);
	}
	raw_spin_unlock_irqrestore(&sr->lock, flags);
}

/*
 * kprobe pre-handler of perf_event_update_userpage(event): every event of
 * every PMU comes here; only a counter that follows a thread with a page
 * goes on. Process context with IRQs off, or hard IRQ (never NMI: the arch
 * layer said so).
 */
static int pmc_sr_kp_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct perf_event *event = pmc_kp_userpage_event(regs);
	struct task_struct *task;
	struct pmc_sr *sr;

	if (!atomic_read(&pmc_sr_live) ||
	    !(event->attach_state & PERF_ATTACH_TASK))
		return 0;
	task = READ_ONCE(event->hw.target);
	if (!task)
		return 0;
	rcu_read_lock();
	hash_for_each_possible_rcu(pmc_sr_hash, sr, hnode, (unsigned long)task)
		if (sr->task == task && sr->rdpmc)
			pmc_sr_moved(sr, event);
	rcu_read_unlock();
	return 0;
}

/*
 * The kprobe is registered while a page may have RDPMC entries (users),
 * by the first page's build and unregistered by a work after the last
 * page goes: pages go at munmap, under mmap_lock, where registering and
 * unregistering (text patching, CPU hotplug lock) are better not done.
 */
static PMC_KP_REF(pmc_sr_kp, PMC_KP_USERPAGE_SYMBOL, pmc_sr_kp_pre,
		  "self-read: no RDPMC entries");

/* A page that may have RDPMC entries: true if the kprobe is on. Process context. */
static bool pmc_sr_kp_get(void)
{
	return pmc_arch_user_read(NULL) && !pmc_kp_ref_get(&pmc_sr_kp);
}

/* ------------------------------------------------------------ mapping */

static void pmc_sr_free_rcu(struct rcu_head *rcu)
{
	struct pmc_sr *sr = container_of(rcu, struct pmc_sr, rcu);

	put_page(sr->page);
	put_task_struct(sr->task);
	pmc_owner_put(sr->po);
	kfree(sr);
}

/* Drop a vma's reference. Process context. */
static void pmc_sr_put(struct pmc_sr *sr)
{
	if (!refcount_dec_and_test(&sr->refs))
		return;
	spin_lock(&pmc_sr_hash_lock);
	hash_del_rcu(&sr->hnode);
	spin_unlock(&pmc_sr_hash_lock);
	atomic_dec(&pmc_sr_live);
	pmc_switch_hook_put();
	if (sr->rdpmc)
		pmc_kp_ref_put(&pmc_sr_kp);
	/* The probe and the ops may still walk it under RCU. */
	call_rcu(&sr->rcu, pmc_sr_free_rcu);
}

static void pmc_sr_vm_open(struct vm_area_struct *vma)
{
	struct pmc_sr *sr = vma->vm_private_data;

	refcount_inc(&sr->refs);
}

static void pmc_sr_vm_close(struct vm_area_struct *vma)
{
	pmc_sr_put(vma->vm_private_data);
}

static const struct vm_operations_struct pmc_sr_vm_ops = {
	.open	= pmc_sr_vm_open,
	.close	= pmc_sr_vm_close,
};

/*
 * Does @po have a PMC of set @group attached to current in thread scope?
 * What mmap() checks without the owner's lock: the thread hash, under RCU.
 */
static bool pmc_sr_has_pmc(struct pmc_owner *po, u32 group)
{
	struct pmc_thr *thr;
	struct pmc_obj *pm;
	bool found = false;

	rcu_read_lock();
	pmc_for_each_thr_rcu(thr, current) {
		pm = thr->tgt->pm;
		if (thr->task == current && !READ_ONCE(thr->dead) &&
		    thr->tgt->thread && pm->owner == po && pm->group == group &&
		    PMC_IS_VIRTUAL_MODE(pm->mode)) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * task_work of the mapping thread, on its way back from mmap() to user
 * space (mmap_lock released): the page's first build, under the owner's
 * lock, which mmap() must not take (pmc_core.h, struct pmc_owner). Process
 * context.
 */
static void pmc_sr_build_work(struct callback_head *cb)
{
	struct pmc_sr *sr = container_of(cb, struct pmc_sr, build_work);
	struct pmc_owner *po = sr->po;
	bool rdpmc = pmc_sr_kp_get();

	mutex_lock(&po->lock);
	raw_spin_lock_irq(&sr->lock);
	sr->rdpmc = rdpmc;
	raw_spin_unlock_irq(&sr->lock);
	if (!po->dead) {
		raw_spin_lock_irq(&sr->lock);
		pmc_sr_rebuild(sr);
		raw_spin_unlock_irq(&sr->lock);
	}
	mutex_unlock(&po->lock);
	pmc_sr_put(sr);
	/* Last: the work held the module since mmap() queued it. */
	module_put(THIS_MODULE);
}

/*
 * Map the page of set (vm_pgoff - PMC_MMAP_SELFREAD_PGOFF) for the calling
 * thread: one page, shared, read-only (EINVAL for another size or a
 * private mapping, EPERM for a writable or executable one or a caller
 * that is not the opener), of a set with at least one PMC attached to the
 * caller in thread scope (EINVAL otherwise, group 0 included). The page
 * is mapped empty and built by a task_work before mmap() returns to user
 * space. Process context, mmap_lock held.
 */
int pmc_selfread_mmap(struct pmc_file *pf, struct vm_area_struct *vma)
{
	unsigned long group = vma->vm_pgoff - PMC_MMAP_SELFREAD_PGOFF;
	struct pmc_owner *po;
	struct pmc_sr *sr;
	int ret;

	if (!pmc_file_is_opener(pf))
		return -EPERM;
	if (vma_pages(vma) != 1 || !(vma->vm_flags & VM_SHARED) ||
	    !group || group > U32_MAX) {
		pr_debug_ratelimited("self-read mmap: %lu pages, group %lu, flags 0x%lx refused\n",
				     vma_pages(vma), group,
				     (unsigned long)vma->vm_flags);
		return -EINVAL;
	}
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;

	/* mmap_lock is held: not the owner's lock. */
	po = pmc_owner_find(pf, false);
	if (IS_ERR_OR_NULL(po))
		return po ? PTR_ERR(po) : -EINVAL;
	if (!pmc_sr_has_pmc(po, group)) {
		pr_debug_ratelimited("self-read mmap: no PMC of set %lu on tid %d\n",
				     group, task_pid_nr(current));
		return -EINVAL;
	}

	sr = kzalloc(sizeof(*sr), GFP_KERNEL);
	if (!sr)
		return -ENOMEM;
	sr->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!sr->page) {
		ret = -ENOMEM;
		goto err_free;
	}
	sr->pg = page_address(sr->page);
	refcount_set(&sr->refs, 1);
	raw_spin_lock_init(&sr->lock);
	sr->task = current;
	sr->group = group;
	sr->oncpu = true;	/* it is mapping the page */
	sr->pg->ps_tid = task_pid_vnr(current);
	sr->pg->ps_group = group;

	/* Updates at every switch of the thread, from now on. */
	ret = pmc_switch_hook_get();
	if (ret)
		goto err_page;
	ret = vm_insert_page(vma, vma->vm_start, sr->page);
	if (ret)
		goto err_hook;
	sr->po = po;
	/* The vma's reference and the build's. */
	refcount_set(&sr->refs, 2);
	init_task_work(&sr->build_work, pmc_sr_build_work);
	__module_get(THIS_MODULE);
	ret = task_work_add(current, &sr->build_work, TWA_RESUME);
	if (ret) {
		module_put(THIS_MODULE);
		goto err_hook;
	}

	/*
	 * In the hash, empty: from here the ops rebuild it too (under the
	 * owner's lock, as the build does).
	 */
	pmc_owner_get(po);
	get_task_struct(current);
	atomic_inc(&pmc_sr_live);
	spin_lock(&pmc_sr_hash_lock);
	hash_add_rcu(pmc_sr_hash, &sr->hnode, (unsigned long)current);
	spin_unlock(&pmc_sr_hash_lock);

	pmc_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	pmc_vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	vma->vm_ops = &pmc_sr_vm_ops;
	vma->vm_private_data = sr;
	return 0;

err_hook:
	/* A partial mapping is undone by mmap itself. */
	pmc_switch_hook_put();
err_page:
	put_page(sr->page);
err_free:
	kfree(sr);
	return ret;
}

/*
 * Module unload: the pages freed by RCU callbacks are gone, and so is the
 * kprobe.
 */
void pmc_selfread_exit(void)
{
	rcu_barrier();
	pmc_kp_ref_exit(&pmc_sr_kp);
}
