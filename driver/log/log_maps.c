// SPDX-License-Identifier: GPL-2.0
/*
 * log_maps.c - the records that let a reader symbolize samples after the
 * process is gone: MAP_IN for every executable file mapping of a sampled
 * process (at attach, from a task_work of the attaching thread) and
 * PROCEXEC with MAP_IN after an exec (from a task_work in the process as it
 * returns to user space), and MAP_IN/MAP_OUT for the executable file
 * mappings it makes and removes later (the kprobes of map_hooks.c).
 *
 * Both walk the mm with mmap_read_lock in process context, never under the
 * owner's lock (the owner's own mm may be the one walked). The task_works
 * hold a reference on the module, dropped as their last act.
 */
#include "base/pmc_base.h"
#include "pmc_log_priv.h"
#include "compat/fs.h"
#include "compat/task_work.h"
#include "map_hooks.h"

#include <linux/auxvec.h>
#include <linux/dcache.h>
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/path.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>

/* Stage a MAP_IN record. */
static void pmc_log_map_in(struct pmc_log_state *log, pid_t pid,
			   struct vm_area_struct *vma, const char *path)
{
	struct pmclog_map_in *m;
	struct pmc_log_rsv rsv;
	size_t slen = strlen(path);
	size_t max = pmc_log_max_record(log) - sizeof(*m) - 1;

	if (slen > max)
		slen = max;
	m = pmc_log_begin(log, PMCLOG_TYPE_MAP_IN, sizeof(*m) + slen + 1, 0,
			  &rsv);
	if (!m)
		return;
	m->pl_pid = pid;
	m->pl_start = vma->vm_start;
	m->pl_end = vma->vm_end;
	m->pl_pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	memcpy(m->pl_pathname, path, slen);
	pmc_log_end(&rsv);
}

/* MAP_IN for every executable file mapping of @mm. Process context. */
static void pmc_log_maps(struct pmc_log_state *log, struct mm_struct *mm,
			 pid_t pid)
{
	struct vm_area_struct *vma;
	char *buf, *path;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf) {
		atomic64_inc(&log->lost_records);
		return;
	}
	if (mmap_read_lock_killable(mm))
		goto out;
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file)
				continue;
			path = d_path(pmc_file_user_path(vma->vm_file), buf,
				      PATH_MAX);
			if (!IS_ERR(path))
				pmc_log_map_in(log, pid, vma, path);
		}
	}
	mmap_read_unlock(mm);
out:
	kfree(buf);
}

/*
 * Queue @cb on @task (TWA_RESUME) with a reference on @log and on the
 * module, both dropped by the work. The caller holds a reference on @log
 * (or is in a probe the owner's log outlives: pmc_log_owner_exit() waits
 * with synchronize_rcu()), so the puts on failure never free. Any context
 * but NMI. 0, or -ESRCH when the task is exiting (nothing queued).
 */
static int pmc_log_work_add(struct task_struct *task, struct callback_head *cb,
			    struct pmc_log_state *log)
{
	kref_get(&log->ref);
	__module_get(THIS_MODULE);
	if (!pmc_task_work_add_atomic(task, cb, TWA_RESUME))
		return 0;
	module_put(THIS_MODULE);
	refcount_dec(&log->ref.refcount);
	return -ESRCH;
}

/* ------------------------------------------------------------ at attach */

/*
 * The mappings of a process a sampling PMC was attached to, logged by the
 * attaching thread as its ioctl returns to user space (a task_work): no lock
 * of the driver is held there, and paths read as the owner sees them (its
 * root). The mm is taken at attach, so a target that exits meanwhile is
 * still described.
 */
struct pmc_map_dump {
	struct callback_head cb;
	struct pmc_log_state *log;	/* a reference */
	struct mm_struct *mm;		/* a reference (mmget) */
	pid_t pid;
};

static void pmc_map_dump_fn(struct callback_head *cb)
{
	struct pmc_map_dump *d = container_of(cb, struct pmc_map_dump, cb);

	/* Later mappings of the target: before the owner goes on. */
	pmc_map_hooks_want();
	if (pmc_log_accepting(d->log)) {
		pmc_log_maps(d->log, d->mm, d->pid);
		pmc_log_publish(d->log, false);
	}
	mmput(d->mm);
	pmc_log_state_put(d->log);
	kfree(d);
	/* The work ran in module text: the reference kept the module. */
	module_put(THIS_MODULE);
}

void pmc_log_queue_map_dump(struct pmc_log_state *log,
			    struct task_struct *task)
{
	struct pmc_map_dump *d;

	if (current->flags & PF_KTHREAD)
		return;
	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		goto lost;
	d->mm = get_task_mm(task);
	if (!d->mm) {
		kfree(d);
		return;			/* exited, or a kernel thread */
	}
	d->pid = pmc_log_pid(log, task, true);
	d->log = log;
	kref_get(&log->ref);
	__module_get(THIS_MODULE);
	init_task_work(&d->cb, pmc_map_dump_fn);
	if (!task_work_add(current, &d->cb, TWA_RESUME))
		return;
	module_put(THIS_MODULE);
	refcount_dec(&log->ref.refcount);	/* the caller holds one */
	mmput(d->mm);
	kfree(d);
lost:
	atomic64_inc(&log->lost_records);
}

/* ------------------------------------------------------------ at exec */

struct pmc_exec_work {
	struct callback_head cb;
	struct pmc_log_state *log;	/* a reference */
	u32 pmcid;			/* PMC_ID_INVALID: a system-sampling owner */
	bool maps;			/* sampled: log the mappings */
};
static_assert(sizeof(struct pmc_exec_work) <= PMC_PROBE_BLOCK_SIZE);

/* AT_BASE (the dynamic loader's load address) of @mm, 0 if none. */
static u64 pmc_auxv_base(struct mm_struct *mm)
{
	unsigned int i;

	for (i = 0; i + 1 < ARRAY_SIZE(mm->saved_auxv); i += 2) {
		if (mm->saved_auxv[i] == AT_NULL)
			break;
		if (mm->saved_auxv[i] == AT_BASE)
			return mm->saved_auxv[i + 1];
	}
	return 0;
}

/*
 * The load address of a PIE (ET_DYN) executable: where its first page is
 * mapped; 0 for a fixed-address (ET_EXEC) one. Process context, current's
 * mm, no lock held (reads the ELF header from user memory).
 */
static u64 pmc_pie_base(struct mm_struct *mm, struct file *exe)
{
	struct vm_area_struct *vma;
	unsigned long start = 0;
	Elf64_Ehdr eh;

	if (mmap_read_lock_killable(mm))
		return 0;
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, vma) {
			/*
			 * The same path (as the user opened it: overlayfs
			 * maps the underlying file in the overlay file's
			 * place), or the same inode.
			 */
			if (vma->vm_file && vma->vm_pgoff == 0 &&
			    (path_equal(pmc_file_user_path(vma->vm_file),
					&exe->f_path) ||
			     file_inode(vma->vm_file) == file_inode(exe))) {
				start = vma->vm_start;
				break;
			}
		}
	}
	mmap_read_unlock(mm);

	if (!start || copy_from_user(&eh, (void __user *)start, sizeof(eh)))
		return 0;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_type != ET_DYN)
		return 0;
	return start;
}

/* Stage PROCEXEC for the current task's new image. */
static void pmc_log_exec_record(struct pmc_log_state *log, u32 pmcid,
				struct mm_struct *mm)
{
	struct pmclog_procexec *x;
	struct pmc_log_rsv rsv;
	struct file *exe;
	char *buf, *path = NULL;
	u64 dynaddr = 0;
	size_t slen = 0, max;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	exe = pmc_get_mm_exe_file(mm);
	if (exe) {
		if (buf) {
			path = d_path(&exe->f_path, buf, PATH_MAX);
			if (IS_ERR(path))
				path = NULL;
		}
		dynaddr = pmc_pie_base(mm, exe);
		fput(exe);
	}
	if (path)
		slen = strlen(path);
	max = pmc_log_max_record(log) - sizeof(*x) - 1;
	if (slen > max)
		slen = max;

	x = pmc_log_begin(log, PMCLOG_TYPE_PROCEXEC, sizeof(*x) + slen + 1, 0,
			  &rsv);
	if (x) {
		x->pl_pid = pmc_log_pid(log, current, true);
		x->pl_pmcid = pmcid;
		x->pl_baseaddr = pmc_auxv_base(mm);
		x->pl_dynaddr = dynaddr;
		if (path)
			memcpy(x->pl_pathname, path, slen);
		pmc_log_end(&rsv);
	}
	kfree(buf);
}

/*
 * Context: task_work, the exec'ed task on its way back to user space
 * (process context, may sleep).
 */
static void pmc_exec_work_fn(struct callback_head *cb)
{
	struct pmc_exec_work *w = container_of(cb, struct pmc_exec_work, cb);
	struct pmc_log_state *log = w->log;
	struct mm_struct *mm = current->mm;
	pid_t tgid = pmc_log_pid(log, current, true);
	u64 exec_id = current->self_exec_id;
	bool maps = false;

	if (w->maps)
		pmc_map_hooks_want();
	if (mm && pmc_log_accepting(log)) {
		pmc_log_exec_record(log, w->pmcid, mm);
		/* One MAP_IN set per exec, whatever the number of PMCs. */
		if (w->maps) {
			mutex_lock(&log->pub_lock);
			if (log->maps_tgid != tgid ||
			    log->maps_exec_id != exec_id) {
				log->maps_tgid = tgid;
				log->maps_exec_id = exec_id;
				maps = true;
			}
			mutex_unlock(&log->pub_lock);
		}
		if (maps)
			pmc_log_maps(log, mm, tgid);
	}
	pmc_log_state_put(log);
	pmc_probe_block_put(w);
	/* The work ran in module text: the reference kept the module. */
	module_put(THIS_MODULE);
}

/*
 * Context: the exec probe (preemption off, under rcu_read_lock()). No
 * allocation (the work is a block of the probe pool, core/probe_pool.c)
 * and no free: on PREEMPT_RT both may take the slab's sleeping locks.
 */
void pmc_log_procexec(struct pmc_owner *po, struct pmc_obj *pm,
		      struct task_struct *task)
{
	struct pmc_log_state *log = pmc_log_of(po);
	struct pmc_exec_work *w;

	if (!log || !pmc_log_accepting(log))
		return;
	w = pmc_probe_block_get(sizeof(*w));
	if (!w) {
		atomic64_inc(&log->lost_records);
		return;
	}
	init_task_work(&w->cb, pmc_exec_work_fn);
	w->log = log;
	/* No PMC: an owner that samples the whole system (hwpmc's rule). */
	w->pmcid = pm ? pm->id : PMC_ID_INVALID;
	w->maps = !pm || PMC_IS_SAMPLING_MODE(pm->mode);
	if (w->maps)
		pmc_map_hooks_want_async();
	if (pmc_log_work_add(task, &w->cb, log))
		pmc_probe_block_put(w);
}

/* ------------------------------------------------------------ later maps */

/* A mapping made after attach or exec: MAP_IN from the mapping task. */
struct pmc_map_in_work {
	struct callback_head cb;
	struct pmc_log_state *log;	/* a reference */
	unsigned long start;
};

/*
 * task_work: the task that made the mapping, on its way back to user
 * space. Process context, may sleep. The mapping is read again under
 * mmap_read_lock: what is logged is what user space will see.
 */
static void pmc_map_in_fn(struct callback_head *cb)
{
	struct pmc_map_in_work *w = container_of(cb, struct pmc_map_in_work,
						 cb);
	struct pmc_log_state *log = w->log;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	char *buf, *path;

	if (!mm || !pmc_log_accepting(log))
		goto out;
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf || mmap_read_lock_killable(mm)) {
		atomic64_inc(&log->lost_records);
		kfree(buf);
		goto out;
	}
	vma = vma_lookup(mm, w->start);
	if (vma && (vma->vm_flags & VM_EXEC) && vma->vm_file) {
		path = d_path(pmc_file_user_path(vma->vm_file), buf,
			      PATH_MAX);
		if (!IS_ERR(path))
			pmc_log_map_in(log, pmc_log_pid(log, current, true),
				       vma, path);
	}
	mmap_read_unlock(mm);
	kfree(buf);
	pmc_log_publish(log, false);
out:
	pmc_log_state_put(log);
	kfree(w);
	/* The work ran in module text: the reference kept the module. */
	module_put(THIS_MODULE);
}

/*
 * Context: the sample drain (sample.c): hard IRQ, where GFP_ATOMIC may
 * allocate; on PREEMPT_RT the drain (not IRQ_WORK_INIT_HARD) runs in the
 * CPU's irq_work kthread, preemptible, where the slab's sleeping locks may
 * be taken. Never a probe: the map kprobes queue an entry on the sample
 * ring instead.
 */
void pmc_log_queue_map_in(struct pmc_log_state *log, struct task_struct *task,
			  unsigned long start)
{
	struct pmc_map_in_work *w;

	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (!w) {
		atomic64_inc(&log->lost_records);
		return;
	}
	init_task_work(&w->cb, pmc_map_in_fn);
	w->log = log;
	w->start = start;
	/* Before pmc_sample_sync() returns: see pmc_log_work_add(). */
	if (pmc_log_work_add(task, &w->cb, log))
		kfree(w);
}

void pmc_log_map_out(struct pmc_log_state *log, pid_t pid,
		     unsigned long start, unsigned long end)
{
	struct pmclog_map_out *m;
	struct pmc_log_rsv rsv;

	m = pmc_log_begin(log, PMCLOG_TYPE_MAP_OUT, sizeof(*m), 0, &rsv);
	if (!m)
		return;
	m->pl_pid = pid;
	m->pl_start = start;
	m->pl_end = end;
	pmc_log_end(&rsv);
}
