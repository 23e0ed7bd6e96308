// SPDX-License-Identifier: GPL-2.0
/*
 * track_count.c - track mode's counting: per thread (LWP) a libcpc set per
 * -c spec bound with cpc_bind_pctx(), sampled every interval; per process
 * the totals of its threads; and the cputrack lines that show them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "track.h"

/* illumos numbers LWPs from 1: the initial thread is lwp 1, others keep their tid. */
int lwp_id(const struct lwp *l)
{
	return l->tid == l->proc->pid ? 1 : (int)l->tid;
}

struct lwp *lwp_find(struct track *t, pid_t tid)
{
	for (struct lwp *l = t->lwps; l; l = l->next)
		if (l->tid == tid)
			return l;
	return NULL;
}

static uint64_t **totals_alloc(const struct track *t)
{
	uint64_t **tot = calloc(t->c.nspecs, sizeof(*tot));

	for (unsigned int k = 0; tot && k < t->c.nspecs; k++) {
		tot[k] = calloc(t->c.specs[k].nreqs ? t->c.specs[k].nreqs : 1, sizeof(uint64_t));
		if (!tot[k])
			return NULL;
	}
	return tot;
}

static void totals_free(const struct track *t, uint64_t **tot)
{
	for (unsigned int k = 0; tot && k < t->c.nspecs; k++)
		free(tot[k]);
	free(tot);
}

struct proc *track_proc_new(struct track *t, pid_t pid, hrtime_t origin)
{
	struct proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->origin = origin;
	p->tot = totals_alloc(t);
	p->tot_tick = calloc(t->c.nspecs, sizeof(uint64_t));
	p->pctx = pctx_capture(pid, NULL, 0, NULL);
	if (!p->tot || !p->tot_tick || !p->pctx) {
		totals_free(t, p->tot);
		free(p->tot_tick);
		if (p->pctx)
			pctx_release(p->pctx);
		free(p);
		return NULL;
	}
	p->next = t->procs;
	t->procs = p;
	return p;
}

void track_proc_del(struct track *t, struct proc *p)
{
	for (struct proc **pp = &t->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	totals_free(t, p->tot);
	free(p->tot_tick);
	pctx_release(p->pctx);
	free(p);
}

void track_print_line(struct track *t, struct proc *p, int lwp, const char *label,
		      const struct spec_set *spec, const uint64_t *vals, uint64_t tick,
		      hrtime_t when)
{
	struct out_sample s = {
		.time = (double)(when - p->origin) / 1e9,
		.pid = p->pid,
		.id = lwp,
		.label = label,
		.tsc = tick,
		.values = vals,
		.set = spec,
	};

	out_sample(&t->c.out, &s);
	fflush(t->c.out.fp);
}

/* Print BUF of set K of L. */
void track_print_buf(struct track *t, struct lwp *l, int k, const char *label, cpc_buf_t *buf)
{
	const struct spec_set *spec = &t->c.specs[k];
	uint64_t vals[256];

	for (unsigned int i = 0; i < spec->nreqs && i < 256; i++)
		cpc_buf_get(t->cpc, buf, (int)i, &vals[i]);
	track_print_line(t, l->proc, lwp_id(l), label, spec, vals, cpc_buf_tick(t->cpc, buf),
		   cpc_buf_hrtime(t->cpc, buf));
}

int lwp_bind(struct track *t, struct lwp *l, int k)
{
	if (cpc_bind_pctx(t->cpc, l->proc->pctx, (id_t)l->tid, l->sets[k], 0) ||
	    cpc_set_sample(t->cpc, l->sets[k], l->base[k])) {
		fprintf(stderr, "%6d: init_lwp: can't bind perf counters to lwp%d - %s\n",
			(int)l->proc->pid, lwp_id(l), strerror(errno));
		t->failed = 1;
		l->cur = -1;
		return -1;
	}
	l->cur = k;
	return 0;
}

/* Sample the bound set: DIFF = since the last sample, added to the LWP's totals. */
int lwp_sample(struct track *t, struct lwp *l)
{
	int k = l->cur;

	if (k < 0)
		return -1;
	if (cpc_set_sample(t->cpc, l->sets[k], l->now[k])) {
		if (errno == EAGAIN)
			fprintf(stderr, "%6d: tick: lwp%d: perf counter contents invalidated\n",
				(int)l->proc->pid, lwp_id(l));
		return -1;
	}
	cpc_buf_sub(t->cpc, l->diff[k], l->now[k], l->base[k]);
	cpc_buf_copy(t->cpc, l->base[k], l->now[k]);
	for (unsigned int i = 0; i < t->c.specs[k].nreqs; i++) {
		uint64_t v;

		cpc_buf_get(t->cpc, l->diff[k], (int)i, &v);
		l->tot[k][i] += v;
	}
	l->tot_tick[k] += cpc_buf_tick(t->cpc, l->diff[k]);
	return 0;
}

static struct lwp *lwp_new(struct track *t, struct proc *p, pid_t tid)
{
	struct lwp *l = calloc(1, sizeof(*l));
	unsigned int n = t->c.nspecs;

	if (!l)
		return NULL;
	l->tid = tid;
	l->proc = p;
	l->cur = -1;
	l->sets = calloc(n, sizeof(*l->sets));
	l->base = calloc(n, sizeof(*l->base));
	l->now = calloc(n, sizeof(*l->now));
	l->diff = calloc(n, sizeof(*l->diff));
	l->tot = totals_alloc(t);
	l->tot_tick = calloc(n, sizeof(uint64_t));
	if (!l->sets || !l->base || !l->now || !l->diff || !l->tot || !l->tot_tick)
		goto fail;
	for (unsigned int k = 0; k < n; k++) {
		l->sets[k] = set_from_spec(t->cpc, &t->c.specs[k]);
		if (!l->sets[k])
			goto fail;
		l->base[k] = cpc_buf_create(t->cpc, l->sets[k]);
		l->now[k] = cpc_buf_create(t->cpc, l->sets[k]);
		l->diff[k] = cpc_buf_create(t->cpc, l->sets[k]);
		if (!l->base[k] || !l->now[k] || !l->diff[k])
			goto fail;
	}
	l->next = t->lwps;
	t->lwps = l;
	return l;
fail:
	fprintf(stderr, "%6d: init_lwp: lwp%d - %s\n", (int)p->pid, (int)tid, strerror(errno));
	t->failed = 1;
	return NULL;
}

static void lwp_free(struct track *t, struct lwp *l)
{
	for (unsigned int k = 0; l->sets && k < t->c.nspecs; k++) {
		if (!l->sets[k])
			continue;
		cpc_buf_destroy(t->cpc, l->base[k]);
		cpc_buf_destroy(t->cpc, l->now[k]);
		cpc_buf_destroy(t->cpc, l->diff[k]);
		cpc_set_destroy(t->cpc, l->sets[k]);
	}
	free(l->sets);
	free(l->base);
	free(l->now);
	free(l->diff);
	totals_free(t, l->tot);
	free(l->tot_tick);
	free(l);
}

/* init_lwp: a thread to count from now on. */
struct lwp *init_lwp(struct track *t, struct proc *p, pid_t tid)
{
	struct lwp *l = lwp_new(t, p, tid);

	if (!l)
		return NULL;
	if (lwp_bind(t, l, 0) == 0 && t->verbose)
		track_print_buf(t, l, 0, "init_lwp", l->base[0]);
	return l;
}

/*
 * fini_lwp: the last sample of a thread, its totals added to the process's;
 * it stays in the list (unbound) until it is reaped.
 */
void fini_lwp(struct track *t, struct lwp *l)
{
	struct proc *p = l->proc;

	if (l->cur < 0)
		return;
	lwp_sample(t, l);
	if (t->verbose)
		track_print_buf(t, l, l->cur, "fini_lwp", l->diff[l->cur]);
	cpc_unbind(t->cpc, l->sets[l->cur]);
	l->cur = -1;
	for (unsigned int k = 0; k < t->c.nspecs; k++) {
		for (unsigned int i = 0; i < t->c.specs[k].nreqs; i++)
			p->tot[k][i] += l->tot[k][i];
		p->tot_tick[k] += l->tot_tick[k];
	}
}

void lwp_del(struct track *t, struct lwp *l)
{
	for (struct lwp **pl = &t->lwps; *pl; pl = &(*pl)->next) {
		if (*pl == l) {
			*pl = l->next;
			break;
		}
	}
	lwp_free(t, l);
}

unsigned int live_lwps(struct track *t, struct proc *p)
{
	unsigned int n = 0;

	for (struct lwp *l = t->lwps; l; l = l->next)
		n += l->proc == p && !l->exiting;
	return n;
}

/* One line per set with the process's totals (exit, exec, and total at the end). */
void track_print_totals(struct track *t, struct proc *p, int lwp, const char *label)
{
	hrtime_t when = mono_ns();

	for (unsigned int k = 0; k < t->c.nspecs; k++)
		track_print_line(t, p, lwp, label, &t->c.specs[k], p->tot[k], p->tot_tick[k], when);
}

void tick_lwp(struct track *t, struct lwp *l)
{
	int k = l->cur;

	if (k < 0 || lwp_sample(t, l))
		return;
	track_print_buf(t, l, k, "tick", l->diff[k]);
	if (t->c.nspecs > 1) {
		/* Several sets: the next one counts the next interval. */
		cpc_unbind(t->cpc, l->sets[k]);
		lwp_bind(t, l, (k + 1) % (int)t->c.nspecs);
	}
}

void track_drop_proc(struct track *t, struct proc *p)
{
	struct lwp *l, *next;

	for (l = t->lwps; l; l = next) {
		next = l->next;
		if (l->proc == p)
			lwp_del(t, l);
	}
	track_proc_del(t, p);
}
