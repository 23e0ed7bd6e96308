// SPDX-License-Identifier: GPL-2.0
/*
 * kp_ref.c - a kprobe registered while it has users: the self-read page's
 * on perf_event_update_userpage() (selfread.c) and the books' on
 * perf_event_exit_task() (book.c). The first user registers it; a work
 * unregisters it after the last one goes, so that a user that goes where
 * text patching is better not done (under mmap_lock, a tracepoint) need
 * not do it. Process context.
 */
#include "pmc_core_priv.h"

void pmc_kp_ref_idle_fn(struct work_struct *work)
{
	struct pmc_kp_ref *r = container_of(work, struct pmc_kp_ref, idle);

	mutex_lock(&r->lock);
	if (!r->users && r->on) {
		unregister_kprobe(&r->kp);
		r->on = false;
	}
	mutex_unlock(&r->lock);
}

int pmc_kp_ref_get(struct pmc_kp_ref *r)
{
	int ret = 0;

	mutex_lock(&r->lock);
	if (!r->on) {
		/* A kprobe is registered again only from a clean struct. */
		memset(&r->kp, 0, sizeof(r->kp));
		r->kp.symbol_name = r->symbol;
		r->kp.pre_handler = r->pre;
		ret = register_kprobe(&r->kp);
		r->on = !ret;
		if (ret)
			pr_warn_ratelimited("%s: cannot probe %s (%d)\n",
					    r->what, r->symbol, ret);
	}
	if (!ret)
		r->users++;
	mutex_unlock(&r->lock);
	return ret;
}

void pmc_kp_ref_put(struct pmc_kp_ref *r)
{
	mutex_lock(&r->lock);
	if (!WARN_ON_ONCE(!r->users) && !--r->users)
		schedule_work(&r->idle);
	mutex_unlock(&r->lock);
}

void pmc_kp_ref_exit(struct pmc_kp_ref *r)
{
	WARN_ON_ONCE(r->users);
	cancel_work_sync(&r->idle);
	pmc_kp_ref_idle_fn(&r->idle);
}
