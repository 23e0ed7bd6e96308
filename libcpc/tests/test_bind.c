// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_bind.c - binding against the simulated driver: what PMCALLOCATE and
 * PMCATTACH are given, all-or-nothing failure, sampling with one
 * PMCREADSET, the tick, presets and restart, enable/disable, CPU and pctx
 * binding, and the errno of each misuse.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "unit.h"

struct ctx {
	struct fake_pmc fp;
	cpc_t *cpc;
	cpc_set_t *set;
};

static void setup(struct ctx *c, enum fake_machine m, int nreqs)
{
	static const char *const ev[] = { "task-clock", "page-faults",
					  "context-switches" };
	cpc_errhndlr_t *h;
	int i;

	c->cpc = fake_open(&c->fp, m);
	ck_assert_ptr_nonnull(c->cpc);
	record_errors(&h);
	errlog_reset();
	cpc_seterrhndlr(c->cpc, h);
	c->set = cpc_set_create(c->cpc);
	for (i = 0; i < nreqs; i++)
		ck_assert_int_eq(cpc_set_add_request(c->cpc, c->set, ev[i % 3],
						     100 * (uint64_t)i,
						     CPC_COUNT_USER, 0, NULL),
				 i);
}

/* Requests 0 .. @n - 1 of @buf hold @want. */
static void assert_values(cpc_t *cpc, cpc_buf_t *buf, const uint64_t *want,
			  int n)
{
	uint64_t v;
	int i;

	for (i = 0; i < n; i++) {
		ck_assert_int_eq(cpc_buf_get(cpc, buf, i, &v), 0);
		ck_assert_uint_eq(v, want[i]);
	}
}

START_TEST(curlwp_allocates_one_thread_pmc_per_request_and_a_tick)
{
	struct ctx c;
	struct fake_pmcobj *o;
	uint32_t group;
	int i;

	setup(&c, FAKE_SOFT, 3);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(fake_live(&c.fp), 4);
	group = fake_nth_live(&c.fp, 0)->alloc.pm_group;
	ck_assert_uint_ne(group, 0);
	for (i = 0; i < 4; i++) {
		o = fake_nth_live(&c.fp, i);
		ck_assert_uint_eq(o->alloc.pm_mode, PMC_MODE_TC);
		ck_assert_uint_eq(o->alloc.pm_cpu, PMC_CPU_ANY);
		ck_assert_uint_eq(o->alloc.pm_group, group);
		ck_assert(o->attached);
		ck_assert_int_eq(o->pid, 0);
		ck_assert_uint_eq(o->attach_flags, PMC_ATTACH_F_THREAD);
		ck_assert(o->running);
	}
	/* Presets are the initial counts. */
	ck_assert_uint_eq(fake_nth_live(&c.fp, 1)->alloc.pm_count, 100);
	o = fake_nth_live(&c.fp, 3);
	ck_assert_uint_eq(o->alloc.pm_class, PMC_CLASS_SOFT);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config, PERF_COUNT_SW_TASK_CLOCK);
	ck_assert_uint_eq(o->alloc.pm_caps, PMC_CAP_USER | PMC_CAP_SYSTEM);
	ck_assert_int_eq(cpc_set_tick_unit(c.cpc, c.set), CPC_TICK_NSEC);
	cpc_close(c.cpc);
	ck_assert_int_eq(fake_live(&c.fp), 0);
}
END_TEST

START_TEST(inherit_flag_becomes_attach_inherit)
{
	struct ctx c;

	setup(&c, FAKE_SOFT, 1);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, CPC_BIND_LWP_INHERIT),
			 0);
	ck_assert_uint_eq(fake_nth_live(&c.fp, 0)->attach_flags,
			  PMC_ATTACH_F_THREAD | PMC_ATTACH_F_INHERIT);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, CPC_BIND_EMT_OVF), -1);
	ck_assert_int_eq(errno, EINVAL);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(a_failed_allocation_releases_the_whole_set)
{
	struct ctx c;

	setup(&c, FAKE_SOFT, 3);
	c.fp.fail_alloc_at = 3;
	c.fp.fail_errno = EBUSY;
	errno = 0;
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(errlog.subcode, CPC_RESOURCE_UNAVAIL);
	ck_assert_str_eq(errlog.fn, "cpc_bind_curlwp");
	ck_assert_int_eq(fake_live(&c.fp), 0);
	ck_assert_int_eq(c.set->bind, CPC_BIND_NONE);
	ck_assert_int_eq(cpc_unbind(c.cpc, c.set), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* The same set binds once the counters are free. */
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(fake_live(&c.fp), 4);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(attach_and_start_failures_release_everything)
{
	struct ctx c;

	setup(&c, FAKE_SOFT, 2);
	c.fp.fail_attach_at = 2;
	c.fp.fail_errno = EPERM;
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), -1);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_int_eq(errlog.subcode, CPC_ATTR_REQUIRES_PRIVILEGE);
	ck_assert_int_eq(fake_live(&c.fp), 0);
	c.fp.fail_start_at = 3;
	c.fp.fail_errno = ENOENT;
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(errlog.subcode, CPC_PIC_NOT_CAPABLE);
	ck_assert_int_eq(fake_live(&c.fp), 0);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(a_driver_without_core_ops_gives_enotsup)
{
	struct ctx c;

	setup(&c, FAKE_SOFT, 1);
	c.fp.core_missing = true;
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(errlog.calls, 0);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(set_shape_errors_are_einval)
{
	struct ctx c;
	cpc_set_t *empty;
	int i;

	setup(&c, FAKE_SOFT, 0);
	empty = cpc_set_create(c.cpc);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, empty, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	for (i = 0; i < 16; i++)
		cpc_set_add_request(c.cpc, c.set, "page-faults", 0,
				    CPC_COUNT_USER, 0, NULL);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);	/* 16 requests, 15 pics */
	ck_assert_int_eq(errlog.calls, 0);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(request_flags_are_checked_at_bind)
{
	struct ctx c;
	cpc_set_t *hv;

	setup(&c, FAKE_SOFT, 0);
	cpc_set_add_request(c.cpc, c.set, "task-clock", 0, 0x10, 0, NULL);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(errlog.subcode, CPC_REQ_INVALID_FLAGS);
	hv = cpc_set_create(c.cpc);
	cpc_set_add_request(c.cpc, hv, "task-clock", 0,
			    CPC_COUNT_USER | CPC_COUNT_HV, 0, NULL);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, hv, 0), -1);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_int_eq(errlog.subcode, CPC_HV_NO_ACCESS);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(duplicate_picnum_is_einval)
{
	struct ctx c;
	cpc_attr_t pic = { "picnum", 1 };

	setup(&c, FAKE_SOFT, 0);
	cpc_set_add_request(c.cpc, c.set, "task-clock", 0, CPC_COUNT_USER, 1,
			    &pic);
	cpc_set_add_request(c.cpc, c.set, "page-faults", 0, CPC_COUNT_USER, 1,
			    &pic);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(errlog.calls, 0);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(sample_reads_the_set_once_with_one_timestamp)
{
	struct ctx c;
	cpc_buf_t *buf;

	setup(&c, FAKE_SOFT, 3);
	buf = cpc_buf_create(c.cpc, c.set);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert(c.set->sample_direct);	/* straight into @buf */
	fake_advance(&c.fp, 5);
	c.fp.timestamp = 987654321;
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, buf), 0);
	ck_assert_int_eq(c.fp.readsets, 1);
	ck_assert_uint_eq(c.fp.last_readset_count, 4);
	assert_values(c.cpc, buf, (const uint64_t[]){ 5, 105, 205 }, 3);
	ck_assert_uint_eq(cpc_buf_tick(c.cpc, buf), 5);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, buf), 987654321);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(sample_refuses_unbound_sets_and_foreign_buffers)
{
	struct ctx c;
	cpc_set_t *other;
	cpc_buf_t *buf, *theirs, *early;

	setup(&c, FAKE_SOFT, 1);
	buf = cpc_buf_create(c.cpc, c.set);
	errno = 0;
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, buf), -1);
	ck_assert_int_eq(errno, EINVAL);
	other = cpc_set_create(c.cpc);
	cpc_set_add_request(c.cpc, other, "page-faults", 0, CPC_COUNT_USER, 0,
			    NULL);
	theirs = cpc_buf_create(c.cpc, other);
	early = cpc_buf_create(c.cpc, c.set);
	cpc_set_add_request(c.cpc, c.set, "page-faults", 0, CPC_COUNT_USER, 0,
			    NULL);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	errno = 0;
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, theirs), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, early), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(c.fp.readsets, 0);
	cpc_close(c.cpc);
}
END_TEST

struct other_thread {
	struct ctx *c;
	cpc_buf_t *buf;
	int ret, err, preset_ret, restart_ret;
};

static void *sample_elsewhere(void *arg)
{
	struct other_thread *t = arg;

	errno = 0;
	t->ret = cpc_set_sample(t->c->cpc, t->c->set, t->buf);
	t->err = errno;
	t->preset_ret = cpc_request_preset(t->c->cpc, 0, 1);
	t->restart_ret = cpc_set_restart(t->c->cpc, t->c->set);
	return NULL;
}

START_TEST(only_the_binding_thread_samples_a_curlwp_set)
{
	struct ctx c;
	struct other_thread t = { .c = &c };
	pthread_t th;

	setup(&c, FAKE_SOFT, 1);
	t.buf = cpc_buf_create(c.cpc, c.set);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	pthread_create(&th, NULL, sample_elsewhere, &t);
	pthread_join(th, NULL);
	ck_assert_int_eq(t.ret, -1);
	ck_assert_int_eq(t.err, EINVAL);
	ck_assert_int_eq(t.preset_ret, -1);
	ck_assert_int_eq(t.restart_ret, -1);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, t.buf), 0);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(requests_counting_nothing_read_their_preset)
{
	struct ctx c;
	cpc_buf_t *buf;
	uint64_t v;

	setup(&c, FAKE_SOFT, 0);
	cpc_set_add_request(c.cpc, c.set, "task-clock", 42, 0, 0, NULL);
	buf = cpc_buf_create(c.cpc, c.set);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(fake_live(&c.fp), 1);	/* only the tick */
	fake_advance(&c.fp, 1000);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, buf), 0);
	cpc_buf_get(c.cpc, buf, 0, &v);
	ck_assert_uint_eq(v, 42);
	cpc_close(c.cpc);
}
END_TEST

/*
 * A request that counts nothing has no PMC: the others' values do not
 * move into its place, whichever way the sample reads them.
 */
START_TEST(a_request_counting_nothing_between_two_leaves_them_in_place)
{
	struct ctx c;
	cpc_buf_t *buf;

	setup(&c, FAKE_SOFT, 0);
	cpc_set_add_request(c.cpc, c.set, "page-faults", 10, CPC_COUNT_USER,
			    0, NULL);
	cpc_set_add_request(c.cpc, c.set, "task-clock", 42, 0, 0, NULL);
	cpc_set_add_request(c.cpc, c.set, "context-switches", 20,
			    CPC_COUNT_USER, 0, NULL);
	buf = cpc_buf_create(c.cpc, c.set);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert(!c.set->sample_direct);
	fake_advance(&c.fp, 7);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, buf), 0);
	assert_values(c.cpc, buf, (const uint64_t[]){ 17, 42, 27 }, 3);
	ck_assert_uint_eq(cpc_buf_tick(c.cpc, buf), 7);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(overflow_requests_ask_for_the_signal)
{
	struct ctx c;
	struct fake_pmcobj *o;
	const uint64_t preset = UINT64_MAX - 999;

	setup(&c, FAKE_SOFT, 0);
	cpc_set_add_request(c.cpc, c.set, "page-faults", preset,
			    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	cpc_set_add_request(c.cpc, c.set, "task-clock", 0, CPC_COUNT_USER, 0,
			    NULL);
	ck_assert_int_eq(cpc_set_ovf_signal(c.cpc, SIGUSR2), 0);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	o = fake_nth_live(&c.fp, 0);
	ck_assert_uint_eq(o->alloc.pm_flags, PMC_F_OVF_SIGNAL);
	ck_assert_uint_eq(o->alloc.pm_signo, SIGUSR2);
	ck_assert_uint_eq(o->alloc.pm_count, preset);
	ck_assert_uint_eq(o->alloc.pm_caps, PMC_CAP_USER | PMC_CAP_INTERRUPT);
	o = fake_nth_live(&c.fp, 1);
	ck_assert_uint_eq(o->alloc.pm_flags, 0);
	ck_assert_uint_eq(o->alloc.pm_group,
			  fake_nth_live(&c.fp, 0)->alloc.pm_group);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(restart_resets_every_request_to_its_preset)
{
	struct ctx c;
	cpc_buf_t *buf;
	uint64_t v;
	int i;

	setup(&c, FAKE_SOFT, 2);
	buf = cpc_buf_create(c.cpc, c.set);
	ck_assert_int_eq(cpc_request_preset(c.cpc, 0, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_set_restart(c.cpc, c.set), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	fake_advance(&c.fp, 50);
	/* As after an overflow: the driver stopped the group. */
	for (i = 0; i < 3; i++)
		fake_nth_live(&c.fp, i)->running = false;
	ck_assert_int_eq(cpc_request_preset(c.cpc, 1, 7777), 0);
	ck_assert_int_eq(cpc_request_preset(c.cpc, 2, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_request_preset(c.cpc, -1, 1), -1);
	ck_assert_int_eq(cpc_set_restart(c.cpc, c.set), 0);
	for (i = 0; i < 3; i++)
		ck_assert(fake_nth_live(&c.fp, i)->running);
	ck_assert_int_eq(fake_nth_live(&c.fp, 2)->writes, 0); /* tick */
	fake_advance(&c.fp, 3);
	cpc_set_sample(c.cpc, c.set, buf);
	cpc_buf_get(c.cpc, buf, 0, &v);
	ck_assert_uint_eq(v, 3);	/* preset 0 */
	cpc_buf_get(c.cpc, buf, 1, &v);
	ck_assert_uint_eq(v, 7780);	/* the new preset */
	ck_assert_uint_eq(cpc_buf_tick(c.cpc, buf), 53);
	/* The request itself keeps the preset it was added with. */
	ck_assert_uint_eq(c.set->reqs[1].preset, 100);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(disable_freezes_and_enable_resumes)
{
	struct ctx c;
	int i;

	setup(&c, FAKE_SOFT, 1);
	ck_assert_int_eq(cpc_enable(c.cpc), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_disable(c.cpc), -1);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(cpc_enable(c.cpc), -1);	/* not frozen */
	ck_assert_int_eq(cpc_disable(c.cpc), 0);
	for (i = 0; i < 2; i++)
		ck_assert(!fake_nth_live(&c.fp, i)->running);
	ck_assert_int_eq(cpc_disable(c.cpc), -1);
	ck_assert_int_eq(cpc_enable(c.cpc), 0);
	for (i = 0; i < 2; i++)
		ck_assert(fake_nth_live(&c.fp, i)->running);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(binding_another_set_unbinds_the_first)
{
	struct ctx c;
	cpc_set_t *second;
	cpc_buf_t *buf;

	setup(&c, FAKE_SOFT, 2);
	buf = cpc_buf_create(c.cpc, c.set);
	second = cpc_set_create(c.cpc);
	cpc_set_add_request(c.cpc, second, "page-faults", 0, CPC_COUNT_USER, 0,
			    NULL);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(fake_live(&c.fp), 3);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, second, 0), 0);
	ck_assert_int_eq(fake_live(&c.fp), 2);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, buf), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* Rebinding a bound set replaces its PMCs. */
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, second, 0), 0);
	ck_assert_int_eq(fake_live(&c.fp), 2);
	ck_assert_int_eq(cpc_set_destroy(c.cpc, second), 0);
	ck_assert_int_eq(fake_live(&c.fp), 0);
	ck_assert_int_eq(cpc_request_preset(c.cpc, 0, 1), -1);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(intel_tick_is_the_fixed_cycle_counter_or_task_clock)
{
	struct ctx c;
	struct fake_pmcobj *o;

	setup(&c, FAKE_INTEL, 1);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	o = fake_nth_live(&c.fp, 1);
	ck_assert_uint_eq(o->alloc.pm_class, PMC_CLASS_IAF);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config, PERF_COUNT_HW_CPU_CYCLES);
	ck_assert_int_eq(cpc_set_tick_unit(c.cpc, c.set), CPC_TICK_CYCLES);
	cpc_unbind(c.cpc, c.set);
	ck_assert_int_eq(cpc_set_tick_unit(c.cpc, c.set), -1);
	/* Without the fixed counter, and then without kernel counting. */
	c.fp.refuse_class = PMC_CLASS_IAF;
	c.fp.class_errno = EBUSY;
	c.fp.fail_alloc_at = c.fp.nallocs + 2;
	c.fp.fail_errno = EACCES;
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	/*
	 * That tick is user task-clock from zero: what request 0 counts. It
	 * shares the request's PMC instead of a second one.
	 */
	ck_assert_int_eq(fake_live(&c.fp), 1);
	o = fake_nth_live(&c.fp, 0);
	ck_assert_uint_eq(o->alloc.pm_class, PMC_CLASS_SOFT);
	ck_assert_uint_eq(o->alloc.pm_md.pm_config, PERF_COUNT_SW_TASK_CLOCK);
	ck_assert_uint_eq(o->alloc.pm_caps, PMC_CAP_USER);
	ck_assert_int_eq(cpc_set_tick_unit(c.cpc, c.set), CPC_TICK_NSEC);
	{
		cpc_buf_t *buf = cpc_buf_create(c.cpc, c.set);
		uint64_t v;

		o->value = 1234;
		ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, buf), 0);
		ck_assert_int_eq(cpc_buf_get(c.cpc, buf, 0, &v), 0);
		ck_assert_uint_eq(v, 1234);
		ck_assert_uint_eq(cpc_buf_tick(c.cpc, buf), 1234);
		/* A restart resets the request; the tick goes on. */
		ck_assert_int_eq(cpc_set_restart(c.cpc, c.set), 0);
		ck_assert_uint_eq(o->value, 0);
		o->value = 10;
		ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, buf), 0);
		ck_assert_int_eq(cpc_buf_get(c.cpc, buf, 0, &v), 0);
		ck_assert_uint_eq(v, 10);
		ck_assert_uint_eq(cpc_buf_tick(c.cpc, buf), 1244);
	}
	cpc_close(c.cpc);
}
END_TEST

static bool only_cpu(int cpu)
{
	cpu_set_t m;

	CPU_ZERO(&m);
	return sched_getaffinity(0, sizeof(m), &m) == 0 && CPU_COUNT(&m) == 1 &&
	       CPU_ISSET(cpu, &m);
}

START_TEST(cpu_binding_pins_the_caller_and_counts_system_wide)
{
	struct ctx c;
	cpu_set_t before, after, other;
	struct fake_pmcobj *o;
	cpc_buf_t *buf;
	int cpu, i;

	CPU_ZERO(&before);
	sched_getaffinity(0, sizeof(before), &before);
	for (cpu = 0; !CPU_ISSET(cpu, &before); cpu++)
		;
	setup(&c, FAKE_SOFT, 2);
	buf = cpc_buf_create(c.cpc, c.set);
	ck_assert_int_eq(cpc_bind_cpu(c.cpc, cpu, c.set, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_bind_cpu(c.cpc, cpu, c.set, 0), 0);
	ck_assert(only_cpu(cpu));
	for (i = 0; i < 3; i++) {
		o = fake_nth_live(&c.fp, i);
		ck_assert_uint_eq(o->alloc.pm_mode, PMC_MODE_SC);
		ck_assert_uint_eq(o->alloc.pm_cpu, (uint32_t)cpu);
		ck_assert(!o->attached);
		ck_assert(o->running);
	}
	ck_assert_uint_eq(fake_nth_live(&c.fp, 2)->alloc.pm_md.pm_config,
			  PERF_COUNT_SW_CPU_CLOCK);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, buf), 0);
	/* A second set for the same CPU: EAGAIN, as illumos. */
	{
		cpc_set_t *s2 = cpc_set_create(c.cpc);

		cpc_set_add_request(c.cpc, s2, "task-clock", 0, CPC_COUNT_USER,
				    0, NULL);
		ck_assert_int_eq(cpc_bind_cpu(c.cpc, cpu, s2, 0), -1);
		ck_assert_int_eq(errno, EAGAIN);
	}
	/* The caller moved off the CPU: samples fail with EAGAIN. */
	if (CPU_COUNT(&before) > 1) {
		sched_setaffinity(0, sizeof(before), &before);
		ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, buf), -1);
		ck_assert_int_eq(errno, EAGAIN);
		CPU_ZERO(&other);
		CPU_SET(cpu, &other);
		sched_setaffinity(0, sizeof(other), &other);
	}
	ck_assert_int_eq(cpc_unbind(c.cpc, c.set), 0);
	CPU_ZERO(&after);
	sched_getaffinity(0, sizeof(after), &after);
	ck_assert(CPU_EQUAL(&before, &after));
	ck_assert_int_eq(fake_live(&c.fp), 0);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(cpu_binding_to_a_missing_cpu_fails_pbind)
{
	struct ctx c;

	setup(&c, FAKE_SOFT, 1);
	ck_assert_int_eq(cpc_bind_cpu(c.cpc, 4000, c.set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(errlog.subcode, CPC_PBIND_FAILED);
	ck_assert_str_eq(errlog.fn, "cpc_bind_cpu");
	ck_assert_int_eq(cpc_bind_cpu(c.cpc, -1, c.set, 0), -1);
	ck_assert_int_eq(errlog.subcode, CPC_PBIND_FAILED);
	ck_assert_int_eq(fake_live(&c.fp), 0);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(pctx_binding_attaches_to_the_target_thread)
{
	struct ctx c;
	char *argv[] = { "true", NULL };
	struct fake_pmcobj *o;
	pctx_t *pctx;
	pid_t pid;

	setup(&c, FAKE_SOFT, 1);
	pctx = pctx_create("true", argv, NULL, 0, NULL);
	ck_assert_ptr_nonnull(pctx);
	pid = cpc_pctx_pid(pctx);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(cpc_bind_pctx(c.cpc, pctx, 1, c.set, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_bind_pctx(c.cpc, pctx, 999999999, c.set, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(cpc_bind_pctx(c.cpc, pctx, 1, c.set, 0), 0);
	o = fake_nth_live(&c.fp, 0);
	ck_assert_int_eq(o->pid, pid);
	ck_assert_uint_eq(o->attach_flags, PMC_ATTACH_F_THREAD);
	ck_assert_uint_eq(o->alloc.pm_mode, PMC_MODE_TC);
	cpc_unbind(c.cpc, c.set);
	pctx_release(pctx);
	cpc_close(c.cpc);
}
END_TEST

struct pctx_seen {
	int init, fini, exits, ticks;
	pid_t pid;
	int status;
};

static int on_init(pctx_t *p, pid_t pid, id_t lwp, void *arg)
{
	struct pctx_seen *s = arg;

	(void)p;
	ck_assert_int_eq(pid, s->pid);
	ck_assert_int_eq((pid_t)lwp, pid);
	s->init++;
	return 0;
}

static int on_fini(pctx_t *p, pid_t pid, id_t lwp, void *arg)
{
	struct pctx_seen *s = arg;

	(void)p;
	(void)pid;
	(void)lwp;
	s->fini++;
	return 0;
}

static void on_exit_ev(pctx_t *p, pid_t pid, id_t lwp, int status, void *arg)
{
	struct pctx_seen *s = arg;

	(void)p;
	(void)pid;
	(void)lwp;
	s->exits++;
	s->status = status;
}

START_TEST(pctx_run_reports_the_life_of_a_created_process)
{
	char *argv[] = { "sh", "-c", "exit 3", NULL };
	struct pctx_seen seen = { 0 };
	pctx_t *pctx;

	pctx = pctx_create("sh", argv, &seen, 0, NULL);
	ck_assert_ptr_nonnull(pctx);
	seen.pid = cpc_pctx_pid(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, on_init,
					 PCTX_FINI_LWP_EVENT, on_fini,
					 PCTX_SYSC_EXIT_EVENT, on_exit_ev,
					 PCTX_NULL_EVENT), 0);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_SYSC_EXEC_EVENT, on_init,
					 PCTX_NULL_EVENT), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	ck_assert_int_eq(seen.init, 1);
	ck_assert_int_eq(seen.fini, 1);
	ck_assert_int_eq(seen.exits, 1);
	ck_assert(WIFEXITED(seen.status) && WEXITSTATUS(seen.status) == 3);
	pctx_release(pctx);
}
END_TEST

START_TEST(pctx_capture_needs_a_live_process)
{
	pctx_t *p = pctx_capture(getpid(), NULL, 0, NULL);

	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(cpc_pctx_pid(p), getpid());
	pctx_release(p);
	ck_assert_ptr_null(pctx_capture(0, NULL, 0, NULL));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

Suite *bind_suite(void)
{
	Suite *s = suite_create("bind");
	TCase *tc = tcase_create("binding");

	tcase_add_test(tc, curlwp_allocates_one_thread_pmc_per_request_and_a_tick);
	tcase_add_test(tc, inherit_flag_becomes_attach_inherit);
	tcase_add_test(tc, a_failed_allocation_releases_the_whole_set);
	tcase_add_test(tc, attach_and_start_failures_release_everything);
	tcase_add_test(tc, a_driver_without_core_ops_gives_enotsup);
	tcase_add_test(tc, set_shape_errors_are_einval);
	tcase_add_test(tc, request_flags_are_checked_at_bind);
	tcase_add_test(tc, duplicate_picnum_is_einval);
	tcase_add_test(tc, sample_reads_the_set_once_with_one_timestamp);
	tcase_add_test(tc, sample_refuses_unbound_sets_and_foreign_buffers);
	tcase_add_test(tc, only_the_binding_thread_samples_a_curlwp_set);
	tcase_add_test(tc, requests_counting_nothing_read_their_preset);
	tcase_add_test(tc, a_request_counting_nothing_between_two_leaves_them_in_place);
	tcase_add_test(tc, overflow_requests_ask_for_the_signal);
	tcase_add_test(tc, restart_resets_every_request_to_its_preset);
	tcase_add_test(tc, disable_freezes_and_enable_resumes);
	tcase_add_test(tc, binding_another_set_unbinds_the_first);
	tcase_add_test(tc, intel_tick_is_the_fixed_cycle_counter_or_task_clock);
	tcase_add_test(tc, cpu_binding_pins_the_caller_and_counts_system_wide);
	tcase_add_test(tc, cpu_binding_to_a_missing_cpu_fails_pbind);
	tcase_add_test(tc, pctx_binding_attaches_to_the_target_thread);
	tcase_add_test(tc, pctx_run_reports_the_life_of_a_created_process);
	tcase_add_test(tc, pctx_capture_needs_a_live_process);
	tcase_set_timeout(tc, 20);
	suite_add_tcase(s, tc);
	return s;
}
