// SPDX-License-Identifier: GPL-2.0
/*
 * sample.c - the overflow handler of sampling PMCs and the per-CPU sample
 * rings (hwpmc's pc_sb rings).
 *
 * pmc_sample_overflow() runs in NMI on x86 hardware (and with the test
 * PMU), in hard IRQ for cpu-clock/task-clock (an hrtimer), and inline with
 * preemption off for the other software events; it is written as NMI code.
 * It fills the next entry of this CPU's ring (nsamples entries of
 * callchaindepth frames, allocated at load) and publishes it with a release
 * store of the producer index. The ring's drain (on the ring's CPU) turns
 * the entries into CALLCHAIN records staged in the owner's log buffers.
 *
 * The drain runs by age, with the owner's publication: a sample asks its
 * log for a publishing pass (pmc_log_sampled(): a bit test, and the log's
 * kick once a pass), and each pass first drains every CPU's ring
 * (pmc_sample_flush(), from the publisher's CPU: it stages the samples on
 * their CPU's log staging, under the ring's consumer lock), within the
 * log's publication delay (10 ms for a mapped ring's readers, 100 ms for a
 * file). A sample then costs one interrupt (the overflow) and shares a
 * drain with the pass's other samples; a drain at every tick (250 a second
 * on each CPU) cost about 1,500 instructions each (docs/performance.md),
 * and the pass no longer sends each CPU with entries an IPI to drain its
 * own ring and waits for them all. The drain runs at once (an immediate
 * irq_work, a self-IPI) for an OVERFLOW entry (a
 * signal is due), a MAP_IN or MAP_OUT (rare; the MAP_IN's task_work is due
 * before the mapping task returns to user space), and when the ring is a
 * quarter full or full. A consumer of the log drains every CPU's ring before
 * it reads: pmc_sample_flush() (FLUSHLOG, CLOSELOG, a log's
 * de-configuration) and pmc_sample_sync() (the owner's exit); the
 * publisher merges no record later than the oldest entry still in a ring
 * (pmc_sample_horizon()).
 *
 * Producers nest: a handler interrupted by another one on the same CPU (an
 * hrtimer sample over a map kprobe's entry, an NMI over an hrtimer sample)
 * reserves the next entry with a local cmpxchg, and the outermost one
 * publishes every entry reserved meanwhile (perf's ring does the same), so
 * that only a full ring loses a sample (intr_bufferfull, and
 * DROPNOTIFY.pl_samples in the owner's log). An inner entry may be stamped
 * earlier than the outer one before it: the drain stages it at the outer's
 * time, keeping each ring's records in time order.
 *
 * The counters of PMC_F_OVF_SIGNAL PMCs come here too: their overflow is an
 * OVERFLOW entry, which the drain hands to sample_ovf.c. So do the mapping
 * kprobes of map_hooks.c (pmc_sample_map()): where a kprobe is an int3
 * (no ftrace), its handler runs as NMI code too, and a MAP_IN or MAP_OUT
 * entry leaves the locking and allocating to the drain.
 */
#include "base/pmc_base.h"
#include "pmc_log_priv.h"
#include "debug/pmc_debug.h"
#include "map_hooks.h"

#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

/* What an entry of a sample ring holds. */
enum pmc_sample_kind {
	PMC_SAMPLE_CALLCHAIN,	/* a sample: a CALLCHAIN record */
	PMC_SAMPLE_OVERFLOW,	/* a PMC_F_OVF_SIGNAL counter overflowed */
	PMC_SAMPLE_MAP_IN,	/* @task mapped a file executable at @start */
	PMC_SAMPLE_MAP_OUT,	/* process @pid unmapped [@start, @end) */
};

/*
 * One entry. @log is the owner's log state: pmc_log_owner_exit() waits
 * (pmc_sample_sync()) until no ring holds a sample of it before freeing it.
 * An OVERFLOW entry holds references on the owner (@po) and the thread
 * (@task), handed over to sample_ovf.c by the drain; a MAP_IN entry one on
 * the mapping task (@task), dropped by the drain.
 */
struct pmc_sample {
	struct pmc_log_state *log;
	struct pmc_owner *po;
	struct task_struct *task;
	u64 tsc;
	u32 kind;
	u32 pmcid;
	u32 group;
	u32 signo;
	u32 pid;
	u32 tid;
	u32 cpuflags;
	u32 npc;
	unsigned long start;	/* MAP_IN, MAP_OUT */
	unsigned long end;	/* MAP_OUT */
	u64 pc[];		/* callchaindepth entries */
};

/*
 * struct pmc_sample_ring - one CPU's samples. Lock-free for the producers
 * (they run in NMI): nested producers on the ring's CPU (@nest), one
 * consumer at a time (the drain, @drain_lock), acquire/release on @prod and
 * @cons.
 * @head:	entries reserved; cmpxchg'd by the handlers (pmc_sample_reserve())
 * @prod:	entries published; written by the outermost handler only
 *		(pmc_sample_commit())
 * @cons:	entries consumed; written by the drain only
 * @nest:	handlers filling an entry on this CPU
 * @urgent:	an inner handler's entry wants the drain at once
 * @last_tsc:	the time of the last entry staged (the drain's)
 * @cpu:	the ring's CPU, whose log staging gets its records
 * @drain_lock:	the consumer's (not on PREEMPT_RT), taken with IRQs off
 * @entries:	nsamples entries of @stride bytes
 * @now:	the drain at once (a self-IPI, or an IPI's irq_work)
 * @wake:	on PREEMPT_RT, raises the irq_work interrupt for the CPU's
 *		other works (IRQ_WORK_INIT_HARD; pmc_irq_work_raise())
 *
 * The drain never runs beside itself. Without PREEMPT_RT it holds
 * @drain_lock with IRQs off: on the ring's CPU in hard IRQ (the irq_work
 * interrupt, a flush's IPI, the CPU's own dying step), and on any other
 * CPU in the publisher's pass (pmc_sample_flush(): samples only, an
 * OVERFLOW or MAP entry stops it and is left to the ring's CPU) and for
 * the ring of an offline CPU. On PREEMPT_RT (@now is not
 * IRQ_WORK_INIT_HARD) it runs in the ring CPU's irq_work kthread,
 * preemptible, where it may allocate (sample_ovf.c): no raw lock there,
 * a flush's IPI only queues @now (a direct call could interrupt the
 * kthread's), and the one call from another CPU is for the ring of an
 * offline CPU, held offline, where no drain nor producer can run.
 */
struct pmc_sample_ring {
	unsigned int head;
	unsigned int prod;
	unsigned int cons;
	int nest;
	bool urgent;
	u64 last_tsc;
	unsigned int cpu;
	raw_spinlock_t drain_lock;
	unsigned int stride;
	u8 *entries;
	struct irq_work now;
	struct irq_work wake;
};

static DEFINE_PER_CPU(struct pmc_sample_ring, pmc_sample_rings);

static inline struct pmc_sample *pmc_sample_at(struct pmc_sample_ring *ring,
					       unsigned int i)
{
	return (struct pmc_sample *)(ring->entries +
				     (size_t)(i & (pmc_nsamples - 1)) *
				     ring->stride);
}

static void pmc_sample_commit(struct pmc_sample_ring *ring, bool now);

/*
 * Queue @work on this CPU and have it run at once: the irq_work interrupt
 * (a self-IPI) runs it. NMI-safe; the urgent kicks of the sample drain
 * and of a log's publication.
 *
 * On PREEMPT_RT a work that is not IRQ_WORK_INIT_HARD joins the CPU's lazy
 * list, which the irq_work kthread runs, and irq_work_queue() raises the
 * interrupt only when it finds that list empty. Behind a work already
 * there (anyone's) it waited for the next tick: a full ring lost samples,
 * and a MAP_IN's task_work came after its task had gone back to user space
 * and unmapped the file. The interrupt of a hard work wakes the kthread
 * (irq_work_run()): the ring's @wake does nothing else.
 */
void pmc_irq_work_raise(struct irq_work *work)
{
	preempt_disable();
	irq_work_queue(work);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		irq_work_queue(this_cpu_ptr(&pmc_sample_rings.wake));
	preempt_enable();
}

/*
 * The next free entry of this CPU's @ring, or NULL when the ring is full.
 * A non-NULL entry must be published with pmc_sample_commit(). NMI-safe,
 * on the ring's CPU; a handler that interrupts another one gets the entry
 * after it.
 */
static struct pmc_sample *pmc_sample_reserve(struct pmc_sample_ring *ring)
{
	unsigned int head;

	this_cpu_inc(pmc_sample_rings.nest);
	do {
		head = READ_ONCE(ring->head);
		/* Pairs with the drain's release of cons: the slot is free. */
		if (head - smp_load_acquire(&ring->cons) >= pmc_nsamples) {
			/* Full: the drain at once (by the outermost handler). */
			pmc_sample_commit(ring, true);
			return NULL;
		}
	} while (cmpxchg_local(&ring->head, head, head + 1) != head);
	return pmc_sample_at(ring, head);
}

/*
 * Done with the entry pmc_sample_reserve() gave (or with a reservation
 * that found the ring full). The outermost handler publishes every entry
 * reserved up to then and, if it or an inner one asked (@now) or the ring
 * is a quarter full, runs the drain at once; else the entries wait for the
 * next publishing pass (pmc_log_sampled()). An inner one only leaves its
 * request. NMI-safe, on the ring's CPU.
 */
static void pmc_sample_commit(struct pmc_sample_ring *ring, bool now)
{
	unsigned int head;

	if (now)
		WRITE_ONCE(ring->urgent, true);
again:
	head = READ_ONCE(ring->head);
	if (this_cpu_dec_return(pmc_sample_rings.nest))
		return;
	/* The entries are complete before the drain can see them. */
	smp_store_release(&ring->prod, head);
	/* A handler that came in after the read of head: publish it too. */
	if (unlikely(head != READ_ONCE(ring->head))) {
		this_cpu_inc(pmc_sample_rings.nest);
		goto again;
	}
	if (!READ_ONCE(ring->urgent) &&
	    head - READ_ONCE(ring->cons) < (pmc_nsamples >> 2))
		return;
	WRITE_ONCE(ring->urgent, false);
	pmc_irq_work_raise(&ring->now);
}

/* ------------------------------------------------------------ capture */

/*
 * Fill @s from the interrupted state. Kernel addresses go only to owners
 * allowed to see them (pm->kernel_ok): a kernel-mode sample of a user task
 * is given as its user state (where it entered the kernel), one of a
 * kernel thread as the single address 0. NMI-safe.
 */
static void pmc_sample_capture(struct pmc_sample *s, struct pmc_obj *pm,
			       struct pt_regs *regs)
{
	unsigned int depth = 1, n;
	struct pt_regs *uregs = NULL;
	bool user = user_mode(regs);

	if ((pm->flags & PMC_F_CALLCHAIN) && s->kind == PMC_SAMPLE_CALLCHAIN)
		depth = pmc_callchaindepth;
	if (user)
		uregs = regs;
	else if (current->mm && !(current->flags & PF_KTHREAD))
		uregs = task_pt_regs(current);

	if (!user && !pm->kernel_ok) {
		if (uregs) {
			user = true;
		} else {
			s->pc[0] = 0;
			n = 1;
			goto out;
		}
	}

	if (user) {
		n = pmc_arch_callchain_user(uregs, s->pc, depth);
	} else if ((pm->flags & PMC_F_USERCALLCHAIN) && uregs && depth > 1) {
		/* A quarter of the frames (one at least) kept for user space. */
		n = pmc_arch_callchain_kernel(regs, s->pc,
					      depth - max(depth / 4, 1U));
		n += pmc_arch_callchain_user(uregs, s->pc + n, depth - n);
	} else {
		n = pmc_arch_callchain_kernel(regs, s->pc, depth);
	}
out:
	s->npc = n;
	s->cpuflags = PMC_CALLCHAIN_TO_CPUFLAGS(smp_processor_id(),
						user ? PMC_CC_F_USERSPACE : 0);
}

/*
 * The owner's view of @task's tgid or tid (its pid namespace), from the log
 * state when there is one. NMI-safe.
 */
static pid_t pmc_sample_pid(struct pmc_log_state *log, struct pmc_obj *pm,
			    bool tgid)
{
	if (log)
		return pmc_log_pid(log, current, tgid);
	return __task_pid_nr_ns(current, tgid ? PIDTYPE_TGID : PIDTYPE_PID,
				ns_of_pid(pm->owner->tgid));
}

void pmc_sample_overflow(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs)
{
	struct pmc_obj *pm = event->overflow_handler_context;
	struct pmc_log_state *log = pmc_log_of(pm->owner);
	bool ovf = pm->flags & PMC_F_OVF_SIGNAL;
	struct pmc_sample_ring *ring;
	struct pmc_sample *s;

	/* An OVF_SIGNAL set stops and signals even without a log. */
	if (!regs || (!ovf && (!log || !pmc_log_accepting(log)))) {
		atomic64_inc(&pmc_stats.intr_ignored);
		return;
	}
	ring = this_cpu_ptr(&pmc_sample_rings);
	if (unlikely(!ring->entries)) {
		atomic64_inc(&pmc_stats.intr_ignored);
		return;
	}

	s = pmc_sample_reserve(ring);
	if (!s)
		goto drop;	/* full: the drain is behind */

	s->kind = ovf ? PMC_SAMPLE_OVERFLOW : PMC_SAMPLE_CALLCHAIN;
	s->log = log;
	s->tsc = ktime_get_mono_fast_ns();
	s->pmcid = pm->id;
	s->pid = pmc_sample_pid(log, pm, true);
	s->tid = pmc_sample_pid(log, pm, false);
	pmc_sample_capture(s, pm, regs);
	if (ovf) {
		/* Atomic increments: NMI-safe; dropped by sample_ovf.c. */
		pmc_owner_get(pm->owner);
		s->po = pm->owner;
		get_task_struct(current);
		s->task = current;
		s->group = pm->group;
		s->signo = pm->signo;
	}
	/* An OVERFLOW entry at once: its signal is due. */
	pmc_sample_commit(ring, ovf);
	/* A sample: drained by the log's next pass, which this asks for. */
	if (!ovf)
		pmc_log_sampled(log);

	atomic64_inc(&pmc_stats.intr_processed);
	pmc_dbg(PMC_DBG_SAMPLING, PMC_DBG_INTR, pm->id, s->tid,
		smp_processor_id(), s->npc);
	return;

drop:
	atomic64_inc(&pmc_stats.intr_bufferfull);
	if (log)
		atomic64_inc(&log->lost_samples);
}

void pmc_sample_map(struct pmc_log_state *log, bool in, pid_t pid,
		    unsigned long start, unsigned long end)
{
	struct pmc_sample_ring *ring = this_cpu_ptr(&pmc_sample_rings);
	struct pmc_sample *s;

	/* No ring yet, or full: lost. */
	s = likely(ring->entries) ? pmc_sample_reserve(ring) : NULL;
	if (!s) {
		atomic64_inc(&log->lost_records);
		return;
	}
	s->kind = in ? PMC_SAMPLE_MAP_IN : PMC_SAMPLE_MAP_OUT;
	s->log = log;
	s->tsc = ktime_get_mono_fast_ns();
	s->pid = pid;
	s->start = start;
	s->end = end;
	s->task = NULL;
	if (in) {
		get_task_struct(current);	/* an atomic increment */
		s->task = current;
	}
	/*
	 * At once: the drain adds the MAP_IN's task_work to the mapping task,
	 * which must be there before that task returns to user space (the
	 * record is then written before the mapping is used or reported).
	 */
	pmc_sample_commit(ring, true);
}

/* ------------------------------------------------------------ drain */

/*
 * Stage the CALLCHAIN record of @s on @cpu's log staging (the ring's).
 * IRQs off (hard IRQ, or the publisher under the ring's drain_lock), or the
 * irq_work kthread on PREEMPT_RT.
 */
static void pmc_sample_stage(struct pmc_sample *s, unsigned int cpu)
{
	struct pmc_log_state *log = s->log;
	struct pmclog_callchain *cc;
	struct pmc_log_rsv rsv;
	unsigned int npc = s->npc;
	unsigned int max;

	max = (pmc_log_max_record(log) - sizeof(*cc)) / sizeof(cc->pl_pc[0]);
	if (npc > max)
		npc = max;
	cc = pmc_log_begin_cpu(log, cpu, PMCLOG_TYPE_CALLCHAIN,
			       struct_size(cc, pl_pc, npc), s->tsc, &rsv);
	if (!cc)
		return;
	cc->pl_pid = s->pid;
	cc->pl_tid = s->tid;
	cc->pl_pmcid = s->pmcid;
	cc->pl_cpuflags = s->cpuflags;
	memcpy(cc->pl_pc, s->pc, npc * sizeof(cc->pl_pc[0]));
	pmc_log_end(&rsv);
	pmc_dbg(PMC_DBG_SAMPLING, PMC_DBG_SAMPLE, s->pmcid, s->tid,
		PMC_CALLCHAIN_CPUFLAGS_TO_CPU(s->cpuflags), npc);
}

/*
 * The drain of a ring: stage its entries published up to now, in order.
 * With @samples_only it stops before an entry that is not a sample (an
 * OVERFLOW's signal and a MAP entry's record are left to the ring's CPU,
 * whose task they are about) and returns false; true when it emptied the
 * ring. Without PREEMPT_RT the caller holds the ring's drain_lock with
 * IRQs off, on the ring's CPU (hard IRQ) or another one; producers on the
 * ring's CPU run beside it, which
 * the ring's acquire/release protocol allows. On PREEMPT_RT the ring CPU's
 * irq_work kthread runs it, preemptible (a producer may interrupt it at
 * any point), or a flush for an offline CPU. It stages under the log's raw
 * locks. Each entry's @cons is released after the entry is staged: a ring
 * whose @cons has reached an entry holds nothing of it.
 */
static bool pmc_sample_drain(struct pmc_sample_ring *ring, bool samples_only)
{
	unsigned int cons = ring->cons;
	/* Pairs with the handler's release of prod: entries are complete. */
	unsigned int prod = smp_load_acquire(&ring->prod);

	for (; cons != prod; cons++) {
		struct pmc_sample *s = pmc_sample_at(ring, cons);

		if (samples_only && s->kind != PMC_SAMPLE_CALLCHAIN)
			break;

		/* An inner handler's entry, stamped before the outer's. */
		if (s->tsc < ring->last_tsc)
			WRITE_ONCE(s->tsc, ring->last_tsc);
		ring->last_tsc = s->tsc;

		switch (s->kind) {
		case PMC_SAMPLE_OVERFLOW:
			pmc_ovf_queue(s->po, s->task, s->pmcid, s->group,
				      s->signo, s->pc[0], s->tsc);
			break;
		case PMC_SAMPLE_MAP_IN:
			pmc_log_queue_map_in(s->log, s->task, s->start);
			put_task_struct(s->task);
			break;
		case PMC_SAMPLE_MAP_OUT:
			pmc_log_map_out(s->log, s->pid, s->start, s->end);
			break;
		default:
			pmc_sample_stage(s, ring->cpu);
		}
		/* The entry is read before the handler may reuse it. */
		smp_store_release(&ring->cons, cons + 1);
	}
	atomic64_inc(&pmc_stats.log_sweeps);
	return cons == prod;
}

/*
 * pmc_sample_drain() under the ring's drain_lock, IRQs off: any context
 * where a raw spinlock may be taken, any CPU. Not on PREEMPT_RT.
 */
static bool pmc_sample_drain_locked(struct pmc_sample_ring *ring,
				    bool samples_only)
{
	unsigned long flags;
	bool empty;

	raw_spin_lock_irqsave(&ring->drain_lock, flags);
	empty = pmc_sample_drain(ring, samples_only);
	raw_spin_unlock_irqrestore(&ring->drain_lock, flags);
	return empty;
}

/* The immediate irq_work: hard IRQ, or the CPU's irq_work kthread. */
static void pmc_sample_drain_now(struct irq_work *work)
{
	struct pmc_sample_ring *ring = container_of(work,
						    struct pmc_sample_ring,
						    now);

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		pmc_sample_drain(ring, false);
	else
		pmc_sample_drain_locked(ring, false);
}

/*
 * @wake's work: hard IRQ on the ring's CPU, also on PREEMPT_RT. Its
 * interrupt's irq_work_run() wakes the irq_work kthread when the CPU's
 * lazy list holds a work.
 */
static void pmc_sample_wake_fn(struct irq_work *work)
{
}

/*
 * Does @ring hold entries not yet staged? Any context, any CPU: the acquire
 * of @cons pairs with the drain's release, so what the drain staged for the
 * entries before @cons is visible to a caller that finds none.
 */
static bool pmc_sample_pending(struct pmc_sample_ring *ring)
{
	/* Pairs with the drain's release of cons. */
	return smp_load_acquire(&ring->cons) != READ_ONCE(ring->prod);
}

u64 pmc_sample_horizon(void)
{
	u64 oldest = U64_MAX;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmc_sample_ring *ring = per_cpu_ptr(&pmc_sample_rings,
							   cpu);
		unsigned int cons;
		u64 tsc;

		if (!ring->entries)
			continue;
		for (;;) {
			/* Pairs with the drain's release: cons is consumed. */
			cons = smp_load_acquire(&ring->cons);
			/* Pairs with the handler's release: tsc is written. */
			if (cons == smp_load_acquire(&ring->prod))
				break;
			tsc = READ_ONCE(pmc_sample_at(ring, cons)->tsc);
			/*
			 * The entry was still there (not reused) while read
			 * if cons has not moved; if it has, the entry is
			 * staged and the next one is looked at.
			 */
			smp_rmb();
			if (READ_ONCE(ring->cons) == cons) {
				oldest = min(oldest, tsc);
				break;
			}
		}
	}
	return oldest;
}

/* ------------------------------------------------------------ lifecycle */

/*
 * Serialises the waits of pmc_sample_flush() (process context; taken under
 * no spinlock, with at most a log's cfg_lock held, nothing is taken inside
 * it). The drains are not marked IRQ_WORK_INIT_HARD: on PREEMPT_RT they run
 * in the per-CPU irq_work kthread, and irq_work_sync() then sleeps on the
 * work's rcuwait, which has room for one waiter only: a second thread
 * syncing the same work at once replaced the first, which was never woken
 * (two pmc-fuzz threads hung at file release). One waiter at a time here.
 */
static DEFINE_MUTEX(pmc_sample_sync_lock);

/*
 * IPI (hard IRQ, IRQs off) on a CPU whose ring has entries: drain this
 * CPU's ring. On PREEMPT_RT queue the immediate drain instead, which the
 * irq_work kthread runs after any drain of this ring already running
 * there, never beside it.
 */
static void pmc_sample_kick(void *info)
{
	struct pmc_sample_ring *ring = this_cpu_ptr(&pmc_sample_rings);

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		pmc_irq_work_raise(&ring->now);
	else
		pmc_sample_drain_locked(ring, false);
}

/*
 * The ring of an offline CPU with entries: a CPU goes offline with the
 * entries that wait for the next publishing pass (and faults-hotplug once
 * found one with entries and its drain still queued, a wait for the work
 * never ended). Drained here instead, every kind of entry, the CPU held
 * offline (the caller holds cpu_hotplug_lock for read): no producer can
 * run meanwhile, and its drain finds the ring empty when the CPU comes
 * back. With IRQs off under the drain_lock as in the irq_work interrupt;
 * on PREEMPT_RT, where the drain may allocate with the slab's sleeping
 * locks, preemptible on one CPU as in the irq_work kthread. Process
 * context, under pmc_sample_sync_lock.
 */
static void pmc_sample_drain_offline(struct pmc_sample_ring *ring)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		migrate_disable();	/* a kthread bound to a CPU */
		pmc_sample_drain(ring, false);
		migrate_enable();
	} else {
		pmc_sample_drain_locked(ring, false);
	}
}

/* on_each_cpu_cond_mask()'s test: does @cpu's ring hold entries? */
static bool pmc_sample_cpu_pending(int cpu, void *info)
{
	return pmc_sample_pending(per_cpu_ptr(&pmc_sample_rings, cpu));
}

/*
 * PREEMPT_RT's flush, after one IPI to each online CPU with entries at once
 * (pmc_sample_kick() queues the drain for the CPU's irq_work kthread): one
 * wait for all the drains, not a call and a wait per CPU in turn. A kicked
 * drain reads prod after the kick, on the CPU that committed the entries:
 * it stages all of them before the work is idle again (and so does a drain
 * already queued at once). The works are static, never freed here. Process
 * context, under pmc_sample_sync_lock.
 */
static void pmc_sample_wait_kicked(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct irq_work *work = &per_cpu(pmc_sample_rings, cpu).now;

		if (irq_work_is_busy(work))
			irq_work_sync(work);
	}
}

/*
 * The CPUs whose ring a flush left to its CPU (an OVERFLOW or MAP entry):
 * under pmc_sample_sync_lock.
 */
static struct cpumask pmc_sample_left;

/*
 * The flush without PREEMPT_RT: this CPU drains the online CPUs' samples
 * itself, each ring under its drain_lock, which waits for a drain running
 * on the ring's CPU: no IPI interrupts a sampled CPU for a pass, and the
 * pass waits for none (it sent one to each CPU with entries and waited for
 * all of them: half the function-call IPIs of a run of 8 arm64 CPUs at
 * 1 kHz, docs/performance.md). A ring whose next entry is not a sample
 * still gets the IPI. The drain reads prod after the call's barrier: every
 * entry committed before the call is staged when it returns. Under
 * pmc_sample_sync_lock and cpus_read_lock().
 */
static void pmc_sample_flush_here(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct pmc_sample_ring *ring = per_cpu_ptr(&pmc_sample_rings,
							   cpu);

		if (pmc_sample_pending(ring) &&
		    !pmc_sample_drain_locked(ring, true))
			cpumask_set_cpu(cpu, &pmc_sample_left);
	}
	if (unlikely(!cpumask_empty(&pmc_sample_left))) {
		on_each_cpu_mask(&pmc_sample_left, pmc_sample_kick, NULL, true);
		cpumask_clear(&pmc_sample_left);
	}
}

void pmc_sample_flush(void)
{
	int cpu;

	/* The caller's view of the rings is at least as new as its call. */
	smp_mb();
	mutex_lock(&pmc_sample_sync_lock);
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct pmc_sample_ring *ring = per_cpu_ptr(&pmc_sample_rings,
							   cpu);

		if (!cpu_online(cpu) && pmc_sample_pending(ring))
			pmc_sample_drain_offline(ring);
	}
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		on_each_cpu_cond_mask(pmc_sample_cpu_pending, pmc_sample_kick,
				      NULL, true, cpu_online_mask);
	else
		pmc_sample_flush_here();
	cpus_read_unlock();
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		pmc_sample_wait_kicked();
	mutex_unlock(&pmc_sample_sync_lock);
}

void pmc_sample_sync(void)
{
	/* Overflow handlers run with preemption off: RCU readers. */
	synchronize_rcu();
	/* Then every entry they committed is staged by the flush. */
	pmc_sample_flush();
}

int pmc_sample_init(void)
{
	unsigned int stride;
	int cpu;

	stride = ALIGN(struct_size((struct pmc_sample *)NULL, pc,
				   pmc_callchaindepth), 8);
	for_each_possible_cpu(cpu) {
		struct pmc_sample_ring *ring = per_cpu_ptr(&pmc_sample_rings, cpu);

		ring->head = 0;
		ring->prod = 0;
		ring->cons = 0;
		ring->nest = 0;
		ring->urgent = false;
		ring->last_tsc = 0;
		ring->cpu = cpu;
		raw_spin_lock_init(&ring->drain_lock);
		ring->stride = stride;
		init_irq_work(&ring->now, pmc_sample_drain_now);
		ring->wake = IRQ_WORK_INIT_HARD(pmc_sample_wake_fn);
		ring->entries = kvzalloc_node((size_t)stride * pmc_nsamples,
					      GFP_KERNEL, cpu_to_node(cpu));
		if (!ring->entries)
			goto err;
	}
	return 0;

err:
	pmc_sample_exit();
	return -ENOMEM;
}

void pmc_sample_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pmc_sample_ring *ring = per_cpu_ptr(&pmc_sample_rings, cpu);

		irq_work_sync(&ring->wake);
		irq_work_sync(&ring->now);
		kvfree(ring->entries);
		ring->entries = NULL;
	}
}
