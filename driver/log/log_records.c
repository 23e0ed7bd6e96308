// SPDX-License-Identifier: GPL-2.0
/*
 * log_records.c - the record emitters the core calls at hwpmc's logging
 * points (pmc_log.h): PMCALLOCATE(DYN), PMCATTACH, PMCDETACH, PROCCSW,
 * PROCEXIT, PROCFORK, SYSEXIT, and the Linux SNAPSHOT.
 *
 * Process-context emitters stage their record and publish at once, so the
 * record precedes the samples that may follow. Scheduler-hook emitters
 * (sched_switch with IRQs off and the rq lock held; fork and exit probes
 * with preemption off) only stage: raw spinlocks, no allocation; the
 * publisher runs later from the kick.
 */
#include "base/pmc_base.h"
#include "pmc_log_priv.h"
#include "compat/fs.h"

#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/perf_event.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

/* ------------------------------------------------------------ helpers */

/*
 * The executable path of @task into @buf, or NULL (kernel thread, exited).
 * Process context.
 */
char *pmc_task_exe_path(struct task_struct *task, char *buf, int len)
{
	struct mm_struct *mm;
	struct file *exe;
	char *p;

	mm = get_task_mm(task);
	if (!mm)
		return NULL;
	exe = pmc_get_mm_exe_file(mm);
	mmput(mm);
	if (!exe)
		return NULL;
	p = d_path(&exe->f_path, buf, len);
	fput(exe);
	return IS_ERR(p) ? NULL : p;
}

/* Size of a record with a NUL-terminated string of @slen bytes at @off. */
static size_t pmc_rec_len_str(const struct pmc_log_state *log, size_t off,
			      size_t *slen)
{
	size_t max = pmc_log_max_record(log) - off - 1;

	if (*slen > max)
		*slen = max;	/* truncated, still NUL-terminated */
	return off + *slen + 1;
}

/* ------------------------------------------------------------ process */

void pmc_log_pmcallocate(struct pmc_owner *po, struct pmc_obj *pm)
{
	struct pmc_log_state *log = pmc_log_of(po);
	const struct pmc_soft_event *se = NULL;
	struct pmc_log_rsv rsv;

	if (!log || !pmc_log_accepting(log))
		return;
	if (pm->pmc_class == PMC_CLASS_SOFT)
		se = pmc_soft_event_find(pm->attr.config);

	if (se) {
		struct pmclog_pmcallocatedyn *a;

		a = pmc_log_begin(log, PMCLOG_TYPE_PMCALLOCATEDYN, sizeof(*a),
				  0, &rsv);
		if (!a)
			goto publish;
		a->pl_pmcid = pm->id;
		a->pl_event = pm->event;
		a->pl_flags = pm->flags;
		a->pl_class = pm->pmc_class;
		a->pl_rate = pm->count;
		strscpy(a->pl_evname, se->name, sizeof(a->pl_evname));
	} else {
		struct pmclog_pmcallocate *a;

		a = pmc_log_begin(log, PMCLOG_TYPE_PMCALLOCATE, sizeof(*a), 0,
				  &rsv);
		if (!a)
			goto publish;
		a->pl_pmcid = pm->id;
		a->pl_event = pm->event;
		a->pl_flags = pm->flags;
		a->pl_class = pm->pmc_class;
		a->pl_rate = pm->count;
		a->pl_type = pm->attr.type;
		a->pl_config = pm->attr.config;
	}
	pmc_log_end(&rsv);
publish:
	pmc_log_publish(log, false);
}

void pmc_log_pmcattach(struct pmc_owner *po, struct pmc_obj *pm,
		       struct task_struct *target)
{
	struct pmc_log_state *log = pmc_log_of(po);
	struct pmclog_pmcattach *a;
	struct pmc_log_rsv rsv;
	char *buf, *path = NULL;
	size_t slen = 0;

	if (!log || !pmc_log_accepting(log))
		return;
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (buf)
		path = pmc_task_exe_path(target, buf, PATH_MAX);
	if (path)
		slen = strlen(path);

	a = pmc_log_begin(log, PMCLOG_TYPE_PMCATTACH,
			  pmc_rec_len_str(log, sizeof(*a), &slen), 0, &rsv);
	if (a) {
		a->pl_pmcid = pm->id;
		a->pl_pid = pmc_log_pid(log, target, true);
		if (path)
			memcpy(a->pl_pathname, path, slen);
		pmc_log_end(&rsv);
	}
	kfree(buf);

	/* Sampled processes: their executable mappings, for symbols. */
	if (PMC_IS_SAMPLING_MODE(pm->mode))
		pmc_log_queue_map_dump(log, target);
	pmc_log_publish(log, false);
}

void pmc_log_pmcdetach(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid)
{
	struct pmc_log_state *log = pmc_log_of(po);
	struct pmclog_pmcdetach *d;
	struct pmc_log_rsv rsv;

	if (!log || !pmc_log_accepting(log))
		return;
	d = pmc_log_begin(log, PMCLOG_TYPE_PMCDETACH, sizeof(*d), 0, &rsv);
	if (d) {
		d->pl_pmcid = pm->id;
		d->pl_pid = pid;
		pmc_log_end(&rsv);
	}
	pmc_log_publish(log, false);
}

/* ------------------------------------------------------------ sched hooks */

void pmc_log_proccsw(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid,
		     pid_t tid, u64 delta)
{
	struct pmc_log_state *log = pmc_log_of(po);
	struct pmclog_proccsw *c;
	struct pmc_log_rsv rsv;

	if (!log)
		return;
	c = pmc_log_begin(log, PMCLOG_TYPE_PROCCSW, sizeof(*c), 0, &rsv);
	if (!c)
		return;
	c->pl_value = delta;
	c->pl_pmcid = pm->id;
	c->pl_pid = pid;
	c->pl_tid = tid;
	pmc_log_end(&rsv);
}

void pmc_log_procexit(struct pmc_owner *po, struct pmc_obj *pm, pid_t pid,
		      u64 value)
{
	struct pmc_log_state *log = pmc_log_of(po);
	struct pmclog_procexit *e;
	struct pmc_log_rsv rsv;

	if (!log)
		return;
	e = pmc_log_begin(log, PMCLOG_TYPE_PROCEXIT, sizeof(*e), 0, &rsv);
	if (!e)
		return;
	e->pl_pmcid = pm->id;
	e->pl_pid = pid;
	e->pl_value = value;
	pmc_log_end(&rsv);
}

void pmc_log_procfork(struct pmc_owner *po, pid_t oldpid, pid_t newpid)
{
	struct pmc_log_state *log = pmc_log_of(po);
	struct pmclog_procfork *f;
	struct pmc_log_rsv rsv;

	if (!log)
		return;
	f = pmc_log_begin(log, PMCLOG_TYPE_PROCFORK, sizeof(*f), 0, &rsv);
	if (!f)
		return;
	f->pl_oldpid = oldpid;
	f->pl_newpid = newpid;
	pmc_log_end(&rsv);
}

void pmc_log_sysexit(struct pmc_owner *po, pid_t pid)
{
	struct pmc_log_state *log = pmc_log_of(po);
	struct pmclog_sysexit *s;
	struct pmc_log_rsv rsv;

	if (!log)
		return;
	s = pmc_log_begin(log, PMCLOG_TYPE_SYSEXIT, sizeof(*s), 0, &rsv);
	if (!s)
		return;
	s->pl_pid = pid;
	pmc_log_end(&rsv);
}

void pmc_log_snapshot(struct pmc_owner *po, struct pmc_obj *pm, u32 cpu,
		      pid_t tid, u64 value, u64 tsc)
{
	struct pmc_log_state *log = pmc_log_of(po);
	struct pmclog_snapshot *r;
	struct pmc_log_rsv rsv;

	if (!log)
		return;
	r = pmc_log_begin(log, PMCLOG_TYPE_SNAPSHOT, sizeof(*r), tsc, &rsv);
	if (!r)
		return;
	r->pl_pmcid = pm->id;
	r->pl_group = pm->group;
	r->pl_cpu = cpu;
	r->pl_tid = tid;
	r->pl_value = value;
	pmc_log_end(&rsv);
}

void pmc_log_snapset(struct pmc_owner *po, u32 group, u32 cpu, pid_t tid,
		     u64 tsc, unsigned int n, pmc_snapset_fill_t fill,
		     void *arg)
{
	struct pmc_log_state *log = pmc_log_of(po);
	struct pmclog_snapset *r;
	struct pmc_log_rsv rsv;
	unsigned int max;

	if (!log || !n)
		return;
	max = (pmc_log_max_record(log) - sizeof(*r)) / sizeof(r->pl_entries[0]);
	n = min(n, max);
	r = pmc_log_begin(log, PMCLOG_TYPE_SNAPSET,
			  struct_size(r, pl_entries, n), tsc, &rsv);
	if (!r)
		return;
	r->pl_group = group;
	r->pl_cpu = cpu;
	r->pl_tid = tid;
	/* The record is zeroed: entries @fill leaves are zero. */
	r->pl_nentries = fill(arg, r->pl_entries, n);
	pmc_log_end(&rsv);
}
