// SPDX-License-Identifier: GPL-2.0
/*
 * map_hooks.c - kprobes that follow the executable file mappings of
 * sampled processes after attach and exec: MAP_IN when one maps a file
 * with PROT_EXEC (dlopen, mmap), MAP_OUT when it unmaps one (dlclose,
 * munmap, a MAP_FIXED mapping over it). Linux 6.1 has no tracepoint there;
 * the probe points are named in compat/kprobes.h.
 *
 * Who is sampled: the threads of the targets of process-sampling (TS)
 * PMCs, for their owners' logs, and every process for the logs of owners
 * with system-sampling PMCs (hwpmc's rule, as at exec).
 *
 * Handler context (6.1): kprobe pre-handler in the mapping task (current),
 * preemption disabled, with current's mmap_lock held for write by the
 * probed function; through ftrace where the kernel has it (Debian), else
 * an int3 handler, which runs as NMI code (in_nmi(); lockdep treats it so).
 * So the handlers take no lock, never sleep nor allocate, find owners and
 * targets under rcu_read_lock(), and queue each MAP_IN or MAP_OUT on this
 * CPU's sample ring (pmc_sample_map()), whose drain (hard IRQ) stages
 * MAP_OUT (the range is all it carries) and, for MAP_IN, which needs the
 * path, queues a task_work (log_maps.c) that reads the mapping again as
 * the task returns to user space. Mappings made inside execve() are not
 * logged here: the exec task_work logs the new image's.
 *
 * The probes are registered when a sampling PMC is attached or a
 * system-sampling owner sees an exec, and stay while any owner has a log
 * (checked every PMC_MAP_LINGER): an idle driver costs mmap nothing.
 */
#include "pmc_log_priv.h"
#include "compat/kprobes.h"
#include "compat/sched.h"
#include "map_hooks.h"

#include <linux/kprobes.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>

/* Distinct logs one mapping event is logged to; more are not served. */
#define PMC_MAP_LOGS_MAX	8

#define PMC_MAP_LINGER		(2 * HZ)

/*
 * pmc_map_lock serialises (un)registration and protects pmc_map_on.
 * Process context only (the want/idle works, task_works, module exit).
 */
static DEFINE_MUTEX(pmc_map_lock);
static bool pmc_map_on;

static struct kprobe pmc_kp_mmap;
static struct kprobe pmc_kp_munmap;

/*
 * map_tracking (read-only): 1 while the hooks can follow mappings, else
 * the negative errno with which pmc_map_hooks_init() refused them at load
 * (-ENOENT: a probed function is not in this kernel). Written once, at
 * load, before any want; read by the wants without a lock.
 */
static int pmc_map_tracking;
module_param_named(map_tracking, pmc_map_tracking, int, 0444);
MODULE_PARM_DESC(map_tracking, "1: MAP_IN/MAP_OUT tracking works; else the errno it was refused with at load");

/*
 * For testing only (pmc(4)): the MAP_OUT kprobe probes this function
 * instead of the kernel's munmap path, so that a test can load the driver
 * as a kernel that renamed the function would see it.
 */
static char *pmc_map_test_symbol;
module_param_named(test_munmap_symbol, pmc_map_test_symbol, charp, 0444);
MODULE_PARM_DESC(test_munmap_symbol, "Testing only: probe this function for MAP_OUT");

static void pmc_map_idle_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(pmc_map_idle, pmc_map_idle_fn);
static void pmc_map_want_fn(struct work_struct *work);
static DECLARE_WORK(pmc_map_want_work, pmc_map_want_fn);

/* The logs one mapping event goes to, filled by pmc_map_logs(). */
struct pmc_map_logs {
	struct pmc_log_state **logs;	/* PMC_MAP_LOGS_MAX of them */
	unsigned int n;
};

/*
 * Add @po's log unless it is there, the list is full or the log is not
 * logging. Under rcu_read_lock(); kprobe context.
 */
static void pmc_map_logs_add_owner(struct pmc_owner *po, void *arg)
{
	struct pmc_map_logs *ml = arg;
	struct pmc_log_state *log = pmc_log_of(po);
	unsigned int i;

	if (!log || !pmc_log_accepting(log) || ml->n == PMC_MAP_LOGS_MAX)
		return;
	for (i = 0; i < ml->n; i++)
		if (ml->logs[i] == log)
			return;
	ml->logs[ml->n++] = log;
}

/*
 * The logs that want current's mappings: of the sampling PMCs whose target
 * it is, and of the system-sampling owners. Under rcu_read_lock(); kprobe
 * context.
 */
static unsigned int pmc_map_logs(struct pmc_log_state **logs)
{
	struct pmc_map_logs ml = { .logs = logs };
	struct pmc_owner *po;

	pmc_task_sampling_owners(current, pmc_map_logs_add_owner, &ml);
	pmc_for_each_owner_rcu(po)
		if (READ_ONCE(po->nss))
			pmc_map_logs_add_owner(po, &ml);
	return ml.n;
}

/* A task of user space, not inside execve(). Kprobe context. */
static bool pmc_map_task_ok(struct mm_struct *mm)
{
	return !(current->flags & PF_KTHREAD) && mm && mm == current->mm &&
	       !pmc_task_in_execve(current);
}

/* Pre-handler of the mmap point: a new mapping @vma of current. */
static int pmc_kp_mmap_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = pmc_kp_mmap_vma(regs);
	struct pmc_log_state *logs[PMC_MAP_LOGS_MAX];
	unsigned int i, n;

	if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file ||
	    !pmc_map_task_ok(vma->vm_mm))
		return 0;
	rcu_read_lock();
	n = pmc_map_logs(logs);
	for (i = 0; i < n; i++)
		pmc_sample_map(logs[i], true, 0, vma->vm_start, 0);
	rcu_read_unlock();
	return 0;
}

/*
 * Pre-handler of the munmap point: MAP_OUT for the part of each executable
 * file mapping in [start, start + len), before the unmap. The vmas are
 * walked under the caller's mmap_lock (held for write).
 */
static int pmc_kp_munmap_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct pmc_log_state *logs[PMC_MAP_LOGS_MAX];
	struct vm_area_struct *vma;
	unsigned long start, end;
	struct mm_struct *mm;
	unsigned int i, n;
	size_t len;

	pmc_kp_munmap_args(regs, &mm, &start, &len);
	/* The probed function's own checks: it does nothing otherwise. */
	if (offset_in_page(start) || start > TASK_SIZE ||
	    len > TASK_SIZE - start || !PAGE_ALIGN(len))
		return 0;
	if (!pmc_map_task_ok(mm))
		return 0;
	end = start + PAGE_ALIGN(len);
	rcu_read_lock();
	n = pmc_map_logs(logs);
	if (n) {
		VMA_ITERATOR(vmi, mm, start);

		for_each_vma_range(vmi, vma, end) {
			if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file)
				continue;
			for (i = 0; i < n; i++)
				pmc_sample_map(logs[i], false,
					       pmc_log_pid(logs[i], current,
							   true),
					       max(vma->vm_start, start),
					       min(vma->vm_end, end));
		}
	}
	rcu_read_unlock();
	return 0;
}

/*
 * Fill the two kprobes for registration: a kprobe is registered again only
 * from a clean struct. @flags: KPROBE_FLAG_DISABLED for the check at load.
 */
static void pmc_map_kprobes_setup(u32 flags)
{
	memset(&pmc_kp_mmap, 0, sizeof(pmc_kp_mmap));
	pmc_kp_mmap.symbol_name = PMC_KP_MMAP_SYMBOL;
	pmc_kp_mmap.pre_handler = pmc_kp_mmap_pre;
	pmc_kp_mmap.flags = flags;
	memset(&pmc_kp_munmap, 0, sizeof(pmc_kp_munmap));
	pmc_kp_munmap.symbol_name = pmc_map_test_symbol ?: PMC_KP_MUNMAP_SYMBOL;
	pmc_kp_munmap.pre_handler = pmc_kp_munmap_pre;
	pmc_kp_munmap.flags = flags;
}

/* pmc_map_lock held. */
static int pmc_map_register(void)
{
	int ret;

	pmc_map_kprobes_setup(0);
	ret = register_kprobe(&pmc_kp_mmap);
	if (ret)
		goto err;
	ret = register_kprobe(&pmc_kp_munmap);
	if (ret)
		goto err_mmap;
	WRITE_ONCE(pmc_map_on, true);
	return 0;

err_mmap:
	unregister_kprobe(&pmc_kp_mmap);
err:
	pr_warn_ratelimited("no MAP_IN/MAP_OUT after attach: kprobe %d\n",
			    ret);
	return ret;
}

/*
 * At load: can both functions be probed on this kernel? Registered
 * disabled (nothing is patched) and unregistered at once. If one cannot
 * (a kernel that renamed it), MAP_IN/MAP_OUT tracking is refused for the
 * module's life with one line naming the function, and map_tracking holds
 * the errno; counting, sampling and the exec-time mappings still work.
 * Process context.
 */
void pmc_map_hooks_init(void)
{
	struct kprobe *kps[] = { &pmc_kp_mmap, &pmc_kp_munmap };
	unsigned int i;
	int ret = 0;

	pmc_map_kprobes_setup(KPROBE_FLAG_DISABLED);
	for (i = 0; i < ARRAY_SIZE(kps); i++) {
		ret = register_kprobe(kps[i]);
		if (ret)
			break;
	}
	if (i)
		unregister_kprobes(kps, i);
	if (ret) {
		pr_warn("MAP_IN/MAP_OUT tracking off: cannot probe %s (%d)\n",
			kps[i]->symbol_name, ret);
		pmc_map_tracking = ret;
		return;
	}
	pmc_map_tracking = 1;
}

/* pmc_map_lock held. */
static void pmc_map_unregister(void)
{
	if (!pmc_map_on)
		return;
	unregister_kprobe(&pmc_kp_munmap);
	unregister_kprobe(&pmc_kp_mmap);
	WRITE_ONCE(pmc_map_on, false);
}

void pmc_map_hooks_want(void)
{
	if (pmc_map_tracking < 0)
		return;		/* refused at load */
	mutex_lock(&pmc_map_lock);
	if (!pmc_map_on && !pmc_map_register())
		schedule_delayed_work(&pmc_map_idle, PMC_MAP_LINGER);
	mutex_unlock(&pmc_map_lock);
}

static void pmc_map_want_fn(struct work_struct *work)
{
	pmc_map_hooks_want();
}

void pmc_map_hooks_want_async(void)
{
	if (!READ_ONCE(pmc_map_on) && pmc_map_tracking >= 0)
		schedule_work(&pmc_map_want_work);
}

/* Does any owner have a log? rcu_read_lock() taken; any context. */
static bool pmc_map_needed(void)
{
	struct pmc_owner *po;
	bool need = false;

	rcu_read_lock();
	pmc_for_each_owner_rcu(po) {
		if (pmc_log_of(po)) {
			need = true;
			break;
		}
	}
	rcu_read_unlock();
	return need;
}

/* Every PMC_MAP_LINGER while registered. Process context (system_wq). */
static void pmc_map_idle_fn(struct work_struct *work)
{
	mutex_lock(&pmc_map_lock);
	if (pmc_map_needed())
		schedule_delayed_work(&pmc_map_idle, PMC_MAP_LINGER);
	else
		pmc_map_unregister();
	mutex_unlock(&pmc_map_lock);
}

void pmc_map_hooks_exit(void)
{
	cancel_work_sync(&pmc_map_want_work);
	cancel_delayed_work_sync(&pmc_map_idle);
	mutex_lock(&pmc_map_lock);
	pmc_map_unregister();
	mutex_unlock(&pmc_map_lock);
}
