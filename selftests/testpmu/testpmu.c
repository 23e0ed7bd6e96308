// SPDX-License-Identifier: GPL-2.0
/*
 * testpmu.c - a test-only perf PMU for machines without a hardware one.
 *
 * It registers at PERF_TYPE_RAW, so raw, generic hardware and hardware-cache
 * events reach it, and behaves like a small x86 PMU whose every event counts
 * time: 1 event per nanosecond the event is active (a task event while its
 * task runs, a CPU event all the time, idle included), by local_clock(),
 * the clock of perf's task-clock and cpu-clock. The counters are
 * @width bits wide and fold into the 64-bit event count like x86's
 * x86_perf_event_update(); a periodic fold timer plays the part of the
 * counter-overflow PMI of counting events, so counts stay right across wraps.
 * There are @ncounters counters per CPU: pmu->add fails when all are taken,
 * so pinned events go to ERROR state.
 *
 * Sampling events overflow in genuine NMI context: an hrtimer armed for the
 * moment the first period elapses (and pmu->stop, for an overflow still due
 * when the event stops) sends this CPU an NMI and waits for it; the NMI
 * handler folds the counters and calls the event's overflow handler once for
 * each period that elapsed. perf_event_overflow() is not exported by 6.1, so
 * the handler calls event->overflow_handler itself: what perf_event_overflow()
 * calls, without perf's throttling, event_limit and sigtrap bookkeeping (see
 * testpmu_handle_overflows()).
 *
 * The PMU uses perf's software context, not perf_hw_context (see
 * testpmu_init()), and its struct pmu outlives the module
 * (see testpmu_exit()), so that it can be unloaded and loaded again safely.
 *
 * Never installed (DKMS and `make install` build driver/ only): tests load it
 * before pmc.ko, which finds it as it would any PMU, through perf (a raw
 * probe event), and sizes a hardware class from its sysfs caps
 * (caps/num_counters, caps/counter_width), as a real PMU driver shows them.
 * Statistics for the tests: /sys/kernel/debug/testpmu/stats.
 *
 * Contexts and locking: the per-CPU state (struct testpmu_cpu) is touched
 * only on its own CPU, by the pmu callbacks (IRQs disabled, perf's ctx lock
 * held) and by the two hrtimers (hard IRQ), which IRQ-disabling serialises,
 * and by the NMI handler, which touches it only while that CPU's overflow
 * timer spins waiting for it (so never concurrently with the others). The
 * statistics are per-CPU u64s written on their CPU and summed by debugfs.
 */
#define pr_fmt(fmt) "testpmu: " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/sched/clock.h>
#include <linux/kmemleak.h>
#include <linux/hardirq.h>
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/irq_regs.h>

#include "compat/hrtimer.h"	/* driver/compat/: pmc_hrtimer_setup() */

#define TESTPMU_MAX_COUNTERS	32
/* Overflow timers never fire closer than this: bounds the NMI rate. */
#define TESTPMU_MIN_DELAY_NS	(10 * NSEC_PER_USEC)
/* Longest wait of the overflow timer for its NMI. */
#define TESTPMU_NMI_WAIT_NS	(10 * NSEC_PER_MSEC)
/* Most overflows one NMI delivers per event (the rest are skipped). */
#define TESTPMU_MAX_BURST	256

static unsigned int testpmu_ncounters = 4;
module_param_named(ncounters, testpmu_ncounters, uint, 0444);
MODULE_PARM_DESC(ncounters, "Counters per CPU (default 4, 1..32)");

static unsigned int testpmu_width = 48;
module_param_named(width, testpmu_width, uint, 0444);
MODULE_PARM_DESC(width, "Counter width in bits (default 48, 32..64)");

/* Derived from @width at load, read-only afterwards. */
static u64 testpmu_mask;	/* the counter's bits */
static u64 testpmu_max_period;	/* longest period a counter can be loaded with */
static u64 testpmu_fold_ns;	/* fold period: well below the wrap time */

/*
 * One counter of one CPU. The "hardware" value at time t is
 * (base + (t - t0)) & mask while running and counting, base otherwise.
 */
struct testpmu_slot {
	struct perf_event *event;	/* NULL when free */
	u64 base;
	u64 t0;
	bool running;
	bool counts;	/* false when the event excludes both user and kernel */
	bool pending;	/* a period elapsed before the event was switched out */
};

struct testpmu_stats {
	u64 nmis;		/* our NMIs taken */
	u64 nmi_late;		/* ... after the overflow timer stopped waiting */
	u64 nmi_timeouts;	/* the overflow timer gave up waiting */
	u64 overflows_in_nmi;	/* overflow handlers called with in_nmi() */
	u64 overflows_outside_nmi;	/* ... without: must stay 0 */
	u64 overflows_skipped;	/* more than TESTPMU_MAX_BURST due at once */
	u64 bursts;		/* NMIs that found several periods elapsed */
	u64 wraps;		/* folds that saw a counter pass through 0 */
	u64 folds;		/* fold timer runs */
	u64 add_failures;	/* pmu->add found every counter taken */
};

struct testpmu_cpu {
	struct testpmu_slot slots[TESTPMU_MAX_COUNTERS];
	unsigned int used;
	struct hrtimer fold_timer;
	struct hrtimer ovf_timer;
	/* The overflow timer waits for its NMI: the NMI may touch the slots. */
	bool waiting;
	/* Registers the overflow timer interrupted: what a PMI would see. */
	struct pt_regs *irq_regs;
	atomic_t nmi_pending;	/* NMIs sent and not yet taken */
	struct testpmu_stats stats;
};

static DEFINE_PER_CPU(struct testpmu_cpu, testpmu_cpus);

/*
 * The clock of the counters: perf's own (perf_clock(), the clock of
 * task-clock and cpu-clock) and the scheduler's, so that a task event
 * counts what task-clock does. NMI-safe; per CPU, which is where every
 * counter is read.
 */
static inline u64 testpmu_now(void)
{
	return local_clock();
}

/*
 * The hrtimer (CLOCK_MONOTONIC) time at which testpmu_now() reaches @at, at
 * least TESTPMU_MIN_DELAY_NS away. The clocks run at the same rate; a timer
 * that fires a little early finds nothing due and is armed again. IRQs off.
 */
static ktime_t testpmu_timer_at(u64 at)
{
	u64 now = testpmu_now();
	u64 delay = at > now ? at - now : 0;

	return ktime_add_ns(ktime_get(), max_t(u64, delay, TESTPMU_MIN_DELAY_NS));
}

/* The counter's current value. Any context on the slot's CPU. */
static u64 testpmu_raw(const struct testpmu_slot *s, u64 now)
{
	u64 v = s->base;

	if (s->running && s->counts && now > s->t0)
		v += now - s->t0;
	return v & testpmu_mask;
}

/*
 * Fold the counter into event->count, x86_perf_event_update() style.
 * Returns the new raw value. IRQs off or NMI, on the event's CPU.
 */
static u64 testpmu_update(struct perf_event *event, struct testpmu_cpu *tc,
			  u64 now)
{
	struct hw_perf_event *hwc = &event->hw;
	int shift = 64 - testpmu_width;
	u64 prev, raw, delta;

	/* The cmpxchg orders us against a fold from NMI, as on x86. */
	do {
		prev = local64_read(&hwc->prev_count);
		raw = testpmu_raw(&tc->slots[hwc->idx], now);
	} while (local64_cmpxchg(&hwc->prev_count, prev, raw) != prev);

	delta = (raw << shift) - (prev << shift);
	delta >>= shift;
	if (raw < (prev & testpmu_mask))
		tc->stats.wraps++;
	local64_add(delta, &event->count);
	local64_sub(delta, &hwc->period_left);
	return raw;
}

/*
 * Load a sampling counter with the rest of its period, x86 style: the
 * counter starts at -left and overflows when it passes through 0. A period
 * that already elapsed (the event was switched out before its NMI) is not
 * lost: the counter is loaded "just wrapped" and the overflow timer fires at
 * once (@left < 0). IRQs off or NMI.
 */
static void testpmu_set_period(struct perf_event *event,
			       struct testpmu_slot *s, u64 now)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);

	s->t0 = now;
	/* 0 is perf resetting the period (PERF_EVENT_IOC_PERIOD, freq). */
	if (!left) {
		left = hwc->sample_period;
		local64_set(&hwc->period_left, left);
	}
	if (left < 0) {
		s->pending = true;
		local64_set(&hwc->prev_count, 0);
		s->base = 0;
		return;
	}
	if (left > testpmu_max_period)
		left = testpmu_max_period;
	local64_set(&hwc->prev_count, (u64)-left);
	s->base = (u64)-left & testpmu_mask;
	perf_event_update_userpage(event);
}

/* When the next sampling counter overflows, or 0. IRQs off, this CPU. */
static u64 testpmu_next_overflow(const struct testpmu_cpu *tc)
{
	u64 next = 0, at, left;
	unsigned int i;

	for (i = 0; i < testpmu_ncounters; i++) {
		const struct testpmu_slot *s = &tc->slots[i];

		if (!s->event || !s->running || !s->counts ||
		    !is_sampling_event(s->event))
			continue;
		left = -s->base & testpmu_mask;
		at = s->t0 + (left ? left : testpmu_mask);
		if (s->pending)
			at = s->t0;
		if (!next || at < next)
			next = at;
	}
	return next;
}

/* Arm the overflow timer for the earliest overflow. IRQs off, this CPU. */
static void testpmu_arm_overflow(struct testpmu_cpu *tc)
{
	ktime_t at;
	u64 next;

	/* The timer re-arms itself once its NMI is handled. */
	if (tc->waiting)
		return;
	next = testpmu_next_overflow(tc);
	if (!next)
		return;
	at = testpmu_timer_at(next);
	if (hrtimer_is_queued(&tc->ovf_timer) &&
	    ktime_compare(hrtimer_get_expires(&tc->ovf_timer), at) <= 0)
		return;
	hrtimer_start(&tc->ovf_timer, at, HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * The PMI's work: fold every running sampling counter and, for each that
 * wrapped, call the overflow handler once per elapsed period, as
 * perf_event_overflow() would (it is not exported to modules in 6.1), then
 * reload the counter. Unlike x86, which skips periods when the PMI comes
 * more than a period late, every elapsed period is delivered (up to
 * TESTPMU_MAX_BURST), so the number of overflows does not depend on how late
 * the timer fired: a virtual CPU's timers can be milliseconds late.
 * Skipped from perf_event_overflow(): interrupt throttling (the overflow
 * timer is the throttle: one NMI per TESTPMU_MIN_DELAY_NS at most),
 * event_limit (perf_event_refresh) and sigtrap. NMI context, on the CPU the
 * slots belong to.
 */
static void testpmu_handle_overflows(struct testpmu_cpu *tc,
				     struct pt_regs *regs)
{
	struct perf_sample_data data;
	u64 now = testpmu_now();
	unsigned int i, n;

	for (i = 0; i < testpmu_ncounters; i++) {
		struct testpmu_slot *s = &tc->slots[i];
		struct perf_event *event = s->event;
		struct hw_perf_event *hwc;
		u64 raw;

		if (!event || !s->running || !is_sampling_event(event))
			continue;
		hwc = &event->hw;
		raw = testpmu_update(event, tc, now);
		/* Still "negative": this counter did not wrap yet. */
		if (raw & BIT_ULL(testpmu_width - 1))
			continue;

		for (n = 0; local64_read(&hwc->period_left) <= 0; n++) {
			local64_add(hwc->sample_period, &hwc->period_left);
			hwc->last_period = hwc->sample_period;
			if (n >= TESTPMU_MAX_BURST) {
				tc->stats.overflows_skipped++;
				continue;
			}
			if (in_nmi())
				tc->stats.overflows_in_nmi++;
			else
				tc->stats.overflows_outside_nmi++;
			perf_sample_data_init(&data, 0, hwc->last_period);
			READ_ONCE(event->overflow_handler)(event, &data, regs);
		}
		if (n > 1)
			tc->stats.bursts++;
		s->pending = false;
		testpmu_set_period(event, s, now);
	}
}

/* NMI_LOCAL handler. NMI context. */
static int testpmu_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct testpmu_cpu *tc = this_cpu_ptr(&testpmu_cpus);
	int n = atomic_xchg(&tc->nmi_pending, 0);

	if (!n)
		return NMI_DONE;
	tc->stats.nmis++;
	if (READ_ONCE(tc->waiting))
		testpmu_handle_overflows(tc, tc->irq_regs ?: regs);
	else
		tc->stats.nmi_late++;
	/* More than one: NMIs merged; let x86 swallow a back-to-back one. */
	return n;
}

/*
 * Send this CPU an NMI and wait until it is taken, so that the NMI handler
 * may work on the slots (nothing else on this CPU touches them meanwhile)
 * and hand the overflow handler the registers of the interrupt we run in,
 * if any: the interrupted task's, as a PMI would see them. IRQs off.
 */
static void testpmu_raise_nmi(struct testpmu_cpu *tc)
{
	u64 deadline;

	tc->irq_regs = get_irq_regs();
	WRITE_ONCE(tc->waiting, true);
	atomic_inc(&tc->nmi_pending);
	/*
	 * Not apic->send_IPI_self(): the "self" shorthand allows only fixed
	 * delivery (SDM vol. 3, "Interrupt Command Register"), and x2APIC's
	 * SELF_IPI register takes a vector, not NMI delivery. An IPI to this
	 * CPU's own APIC id is how the kernel sends itself NMIs too.
	 */
	apic->send_IPI(smp_processor_id(), NMI_VECTOR);
	deadline = testpmu_now() + TESTPMU_NMI_WAIT_NS;
	while (atomic_read(&tc->nmi_pending)) {
		if (testpmu_now() > deadline) {
			tc->stats.nmi_timeouts++;
			break;
		}
		cpu_relax();
	}
	/* The NMI ran on this CPU: no reordering to fear but the compiler's. */
	WRITE_ONCE(tc->waiting, false);
	barrier();
	tc->irq_regs = NULL;
}

/* Overflow timer: the PMI of sampling counters. Hard IRQ, pinned. */
static enum hrtimer_restart testpmu_ovf_timer_fn(struct hrtimer *timer)
{
	struct testpmu_cpu *tc = container_of(timer, struct testpmu_cpu,
					      ovf_timer);
	u64 next;

	if (!testpmu_next_overflow(tc))
		return HRTIMER_NORESTART;
	testpmu_raise_nmi(tc);

	next = testpmu_next_overflow(tc);
	if (!next)
		return HRTIMER_NORESTART;
	hrtimer_set_expires(timer, testpmu_timer_at(next));
	return HRTIMER_RESTART;
}

/* Fold timer: what a counting event's overflow PMI does. Hard IRQ, pinned. */
static enum hrtimer_restart testpmu_fold_timer_fn(struct hrtimer *timer)
{
	struct testpmu_cpu *tc = container_of(timer, struct testpmu_cpu,
					      fold_timer);
	u64 now = testpmu_now();
	unsigned int i;

	if (!tc->used)
		return HRTIMER_NORESTART;
	for (i = 0; i < testpmu_ncounters; i++)
		if (tc->slots[i].event)
			testpmu_update(tc->slots[i].event, tc, now);
	tc->stats.folds++;
	hrtimer_forward_now(timer, ns_to_ktime(testpmu_fold_ns));
	return HRTIMER_RESTART;
}

/* pmu->start. IRQs off, on the event's CPU. */
static void testpmu_start(struct perf_event *event, int flags)
{
	struct testpmu_cpu *tc = this_cpu_ptr(&testpmu_cpus);
	struct hw_perf_event *hwc = &event->hw;
	struct testpmu_slot *s = &tc->slots[hwc->idx];
	u64 now = testpmu_now();

	if (WARN_ON_ONCE(!(hwc->state & PERF_HES_STOPPED)))
		return;
	if (flags & PERF_EF_RELOAD) {
		WARN_ON_ONCE(!(hwc->state & PERF_HES_UPTODATE));
		if (is_sampling_event(event))
			testpmu_set_period(event, s, now);
		else
			s->base = local64_read(&hwc->prev_count) & testpmu_mask;
	}
	s->t0 = now;
	s->running = true;
	hwc->state = 0;
	if (is_sampling_event(event))
		testpmu_arm_overflow(tc);
}

/* pmu->stop: freeze the counter, fold it on PERF_EF_UPDATE. IRQs off. */
static void testpmu_stop(struct perf_event *event, int flags)
{
	struct testpmu_cpu *tc = this_cpu_ptr(&testpmu_cpus);
	struct hw_perf_event *hwc = &event->hw;
	struct testpmu_slot *s = &tc->slots[hwc->idx];
	u64 now = testpmu_now();

	/*
	 * A sampling counter that wrapped since its overflow timer last ran
	 * (a late timer: a virtual CPU may not run for milliseconds) takes
	 * its PMI before it stops, as hardware would have taken it already.
	 */
	if (!(hwc->state & PERF_HES_STOPPED) && is_sampling_event(event) &&
	    s->counts &&
	    (s->pending || !(testpmu_raw(s, now) & BIT_ULL(testpmu_width - 1)))) {
		testpmu_raise_nmi(tc);
		now = testpmu_now();
	}
	if (!(hwc->state & PERF_HES_STOPPED)) {
		s->base = testpmu_raw(s, now);
		s->running = false;
		hwc->state |= PERF_HES_STOPPED;
	}
	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		testpmu_update(event, tc, now);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

/* pmu->add: take a free counter or fail like a full PMU. IRQs off. */
static int testpmu_add(struct perf_event *event, int flags)
{
	struct testpmu_cpu *tc = this_cpu_ptr(&testpmu_cpus);
	struct hw_perf_event *hwc = &event->hw;
	struct testpmu_slot *s;
	unsigned int i;

	for (i = 0; i < testpmu_ncounters; i++)
		if (!tc->slots[i].event)
			break;
	if (i == testpmu_ncounters) {
		tc->stats.add_failures++;
		return -EAGAIN;
	}

	s = &tc->slots[i];
	s->event = event;
	s->running = false;
	s->counts = !(event->attr.exclude_user && event->attr.exclude_kernel);
	s->pending = false;
	s->base = local64_read(&hwc->prev_count) & testpmu_mask;
	hwc->idx = i;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (!tc->used++ && !hrtimer_active(&tc->fold_timer))
		hrtimer_start(&tc->fold_timer, ns_to_ktime(testpmu_fold_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);

	if (flags & PERF_EF_START)
		testpmu_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

/* pmu->del. IRQs off. The timers stop by themselves once idle. */
static void testpmu_del(struct perf_event *event, int flags)
{
	struct testpmu_cpu *tc = this_cpu_ptr(&testpmu_cpus);
	struct hw_perf_event *hwc = &event->hw;

	testpmu_stop(event, PERF_EF_UPDATE);
	tc->slots[hwc->idx].event = NULL;
	tc->used--;
	hwc->idx = -1;
	perf_event_update_userpage(event);
}

/* pmu->read. IRQs off, on the CPU where the event is active. */
static void testpmu_read(struct perf_event *event)
{
	testpmu_update(event, this_cpu_ptr(&testpmu_cpus), testpmu_now());
}

/* The generic cache events x86 would accept: type, op, result bytes. */
static int testpmu_check_cache_event(u64 config)
{
	if ((config & 0xff) >= PERF_COUNT_HW_CACHE_MAX ||
	    ((config >> 8) & 0xff) >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    ((config >> 16) & 0xff) >= PERF_COUNT_HW_CACHE_RESULT_MAX ||
	    (config >> 24))
		return -EINVAL;
	return 0;
}

/* pmu->event_init. Process context. */
static int testpmu_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	int ret = 0;

	switch (attr->type) {
	case PERF_TYPE_RAW:
		break;
	case PERF_TYPE_HARDWARE:
		if ((attr->config & PERF_HW_EVENT_MASK) >= PERF_COUNT_HW_MAX)
			ret = -EINVAL;
		break;
	case PERF_TYPE_HW_CACHE:
		ret = testpmu_check_cache_event(attr->config &
						PERF_HW_EVENT_MASK);
		break;
	default:
		return -ENOENT;
	}
	if (ret)
		return ret;
	/* No PEBS, no LBR. */
	if (attr->precise_ip || has_branch_stack(event))
		return -EOPNOTSUPP;
	event->hw.idx = -1;
	return 0;
}

PMU_FORMAT_ATTR(event, "config:0-7");
PMU_FORMAT_ATTR(umask, "config:8-15");
PMU_FORMAT_ATTR(edge, "config:18");
PMU_FORMAT_ATTR(inv, "config:23");
PMU_FORMAT_ATTR(cmask, "config:24-31");

static struct attribute *testpmu_format_attrs[] = {
	&format_attr_event.attr,
	&format_attr_umask.attr,
	&format_attr_edge.attr,
	&format_attr_inv.attr,
	&format_attr_cmask.attr,
	NULL,
};

static const struct attribute_group testpmu_format_group = {
	.name = "format",
	.attrs = testpmu_format_attrs,
};

/* caps/: what a consumer needs to size a class of counters. */
#define TESTPMU_CAP_ATTR(_name, _var)					\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "%u\n", _var);				\
}									\
static DEVICE_ATTR_RO(_name)

TESTPMU_CAP_ATTR(num_counters, testpmu_ncounters);
TESTPMU_CAP_ATTR(counter_width, testpmu_width);

static const struct attribute_group testpmu_caps_group = {
	.name = "caps",
	.attrs = (struct attribute *[]) {
		&dev_attr_num_counters.attr, &dev_attr_counter_width.attr, NULL
	},
};

static const struct attribute_group *testpmu_attr_groups[] = {
	&testpmu_format_group,
	&testpmu_caps_group,
	NULL,
};

/*
 * The struct pmu and its name outlive the module on purpose (see
 * testpmu_exit()), so they are allocated, not static.
 */
struct testpmu_pmu {
	struct pmu pmu;
	char name[8];
};

static struct testpmu_pmu *testpmu_pmu;
/* Handed to the leaked struct pmu at unload (testpmu_exit()). */
static int __percpu *testpmu_spare_disable_count;
static struct dentry *testpmu_debugfs;

static int testpmu_stats_show(struct seq_file *m, void *v)
{
	struct testpmu_stats sum = { 0 };
	unsigned int used = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct testpmu_cpu *tc = per_cpu_ptr(&testpmu_cpus, cpu);

		sum.nmis += READ_ONCE(tc->stats.nmis);
		sum.nmi_late += READ_ONCE(tc->stats.nmi_late);
		sum.nmi_timeouts += READ_ONCE(tc->stats.nmi_timeouts);
		sum.overflows_in_nmi += READ_ONCE(tc->stats.overflows_in_nmi);
		sum.overflows_outside_nmi +=
			READ_ONCE(tc->stats.overflows_outside_nmi);
		sum.overflows_skipped += READ_ONCE(tc->stats.overflows_skipped);
		sum.bursts += READ_ONCE(tc->stats.bursts);
		sum.wraps += READ_ONCE(tc->stats.wraps);
		sum.folds += READ_ONCE(tc->stats.folds);
		sum.add_failures += READ_ONCE(tc->stats.add_failures);
		used += READ_ONCE(tc->used);
	}
	seq_printf(m, "ncounters %u\nwidth %u\n", testpmu_ncounters,
		   testpmu_width);
	seq_printf(m, "nmis %llu\nnmi_late %llu\nnmi_timeouts %llu\n",
		   sum.nmis, sum.nmi_late, sum.nmi_timeouts);
	seq_printf(m, "overflows_in_nmi %llu\noverflows_outside_nmi %llu\n",
		   sum.overflows_in_nmi, sum.overflows_outside_nmi);
	seq_printf(m, "overflows_skipped %llu\nbursts %llu\n",
		   sum.overflows_skipped, sum.bursts);
	seq_printf(m, "wraps %llu\nfolds %llu\nadd_failures %llu\n",
		   sum.wraps, sum.folds, sum.add_failures);
	seq_printf(m, "counters_in_use %u\n", used);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(testpmu_stats);

/*
 * Registering over a real PMU would WARN in perf_pmu_register() and shadow
 * it: refuse unless creating a raw event fails with ENOENT (no PMU serves
 * PERF_TYPE_RAW). Process context.
 */
static int testpmu_check_raw_slot_free(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW,
		.size = sizeof(attr),
		.disabled = 1,
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr,
						 cpumask_first(cpu_online_mask),
						 NULL, NULL, NULL);
	if (IS_ERR(event) && PTR_ERR(event) == -ENOENT)
		return 0;
	if (!IS_ERR(event))
		perf_event_release_kernel(event);
	pr_err("a PMU already serves PERF_TYPE_RAW (raw event: %ld): refusing to load over it\n",
	       IS_ERR(event) ? PTR_ERR(event) : 0L);
	return -EBUSY;
}

static int __init testpmu_init(void)
{
	struct pmu *pmu;
	int cpu, ret;

	if (testpmu_ncounters < 1 ||
	    testpmu_ncounters > TESTPMU_MAX_COUNTERS) {
		pr_err("ncounters=%u out of range 1..%u\n", testpmu_ncounters,
		       TESTPMU_MAX_COUNTERS);
		return -EINVAL;
	}
	if (testpmu_width < 32 || testpmu_width > 64) {
		pr_err("width=%u out of range 32..64\n", testpmu_width);
		return -EINVAL;
	}
	testpmu_mask = GENMASK_ULL(testpmu_width - 1, 0);
	testpmu_max_period = testpmu_mask >> 1;
	/* A quarter of the wrap time, at most a second. */
	testpmu_fold_ns = min_t(u64, BIT_ULL(testpmu_width - 2), NSEC_PER_SEC);

	ret = testpmu_check_raw_slot_free();
	if (ret)
		return ret;

	for_each_possible_cpu(cpu) {
		struct testpmu_cpu *tc = per_cpu_ptr(&testpmu_cpus, cpu);

		pmc_hrtimer_setup(&tc->fold_timer, testpmu_fold_timer_fn,
				  CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		pmc_hrtimer_setup(&tc->ovf_timer, testpmu_ovf_timer_fn,
				  CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	}

	ret = -ENOMEM;
	testpmu_spare_disable_count = alloc_percpu(int);
	if (!testpmu_spare_disable_count)
		goto err;
	testpmu_pmu = kzalloc(sizeof(*testpmu_pmu), GFP_KERNEL);
	if (!testpmu_pmu)
		goto err_spare;

	ret = register_nmi_handler(NMI_LOCAL, testpmu_nmi_handler, 0,
				   "testpmu");
	if (ret)
		goto err_pmu;

	strscpy(testpmu_pmu->name, "testpmu", sizeof(testpmu_pmu->name));
	pmu = &testpmu_pmu->pmu;
	pmu->module = THIS_MODULE;
	/*
	 * The software context, not perf_hw_context: see testpmu_exit().
	 * Before 6.2 it also meant no multiplexing (a flexible event that
	 * found no free counter waited); from 6.2 perf rotates the flexible
	 * events of every PMU (selftests/testpmu/exhaust_test.c). A pinned
	 * event that finds none errors on both.
	 */
	pmu->task_ctx_nr = perf_sw_context;
	pmu->attr_groups = testpmu_attr_groups;
	pmu->event_init = testpmu_event_init;
	pmu->add = testpmu_add;
	pmu->del = testpmu_del;
	pmu->start = testpmu_start;
	pmu->stop = testpmu_stop;
	pmu->read = testpmu_read;
	ret = perf_pmu_register(pmu, testpmu_pmu->name, PERF_TYPE_RAW);
	if (ret)
		goto err_nmi;

	testpmu_debugfs = debugfs_create_dir("testpmu", NULL);
	debugfs_create_file("stats", 0444, testpmu_debugfs, NULL,
			    &testpmu_stats_fops);

	pr_info("%u counters of %u bits per CPU at PERF_TYPE_RAW (test only)\n",
		testpmu_ncounters, testpmu_width);
	return 0;

err_nmi:
	unregister_nmi_handler(NMI_LOCAL, "testpmu");
err_pmu:
	kfree(testpmu_pmu);
err_spare:
	free_percpu(testpmu_spare_disable_count);
err:
	return ret;
}

static void __exit testpmu_exit(void)
{
	struct pmu *pmu = &testpmu_pmu->pmu;
	int cpu;

	debugfs_remove_recursive(testpmu_debugfs);
	/* No event is left: each held a reference on this module. */
	perf_pmu_unregister(pmu);
	/*
	 * A task that ever had one of our events keeps a perf context whose
	 * ->pmu points at us until the task exits or next schedules in (6.1
	 * then resets it to the software PMU, whose per-CPU context we share
	 * and perf never frees). Such a context may still reach
	 * perf_pmu_disable(ctx->pmu) on a context switch, so the struct pmu
	 * must stay valid: it is leaked on purpose (one small allocation per
	 * load), with a live pmu_disable_count in place of the one
	 * perf_pmu_unregister() freed. Its pmu_enable/pmu_disable are perf's
	 * own no-op functions (set by perf_pmu_register()), not ours.
	 */
	pmu->pmu_disable_count = testpmu_spare_disable_count;
	kmemleak_not_leak(testpmu_pmu);

	for_each_possible_cpu(cpu) {
		struct testpmu_cpu *tc = per_cpu_ptr(&testpmu_cpus, cpu);

		hrtimer_cancel(&tc->ovf_timer);
		hrtimer_cancel(&tc->fold_timer);
	}
	unregister_nmi_handler(NMI_LOCAL, "testpmu");
	pr_info("unloaded\n");
}

module_init(testpmu_init);
module_exit(testpmu_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The pmc authors");
MODULE_DESCRIPTION("Test-only perf PMU: time-based counters, NMI overflows");
