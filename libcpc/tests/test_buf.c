// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_buf.c - buffers: sizing at creation, get/set index rules, and the
 * arithmetic (sub, add, copy, zero) with illumos' hrtime and tick rules and
 * its silent no-op on a size mismatch.
 */
#include <errno.h>
#include <stdint.h>

#include "unit.h"

struct bufs {
	struct fake_pmc fp;
	cpc_t *cpc;
	cpc_set_t *set;
};

static void make_set(struct bufs *b, int nreqs)
{
	int i;

	b->cpc = fake_open(&b->fp, FAKE_SOFT);
	ck_assert_ptr_nonnull(b->cpc);
	b->set = cpc_set_create(b->cpc);
	for (i = 0; i < nreqs; i++)
		ck_assert_int_eq(cpc_set_add_request(b->cpc, b->set,
						     "task-clock", 0,
						     CPC_COUNT_USER, 0, NULL),
				 i);
}

START_TEST(new_buffers_are_zero)
{
	struct bufs b;
	cpc_buf_t *buf;
	uint64_t v = 99;
	int i;

	make_set(&b, 3);
	buf = cpc_buf_create(b.cpc, b.set);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(cpc_buf_get(b.cpc, buf, i, &v), 0);
		ck_assert_uint_eq(v, 0);
	}
	ck_assert_int_eq(cpc_buf_hrtime(b.cpc, buf), 0);
	ck_assert_uint_eq(cpc_buf_tick(b.cpc, buf), 0);
	cpc_close(b.cpc);
}
END_TEST

START_TEST(get_and_set_check_the_index)
{
	struct bufs b;
	cpc_buf_t *buf;
	uint64_t v;

	make_set(&b, 2);
	buf = cpc_buf_create(b.cpc, b.set);
	ck_assert_int_eq(cpc_buf_set(b.cpc, buf, 1, UINT64_MAX), 0);
	ck_assert_int_eq(cpc_buf_get(b.cpc, buf, 1, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	errno = 0;
	ck_assert_int_eq(cpc_buf_get(b.cpc, buf, 2, &v), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_buf_get(b.cpc, buf, -1, &v), -1);
	ck_assert_int_eq(cpc_buf_set(b.cpc, buf, 2, 1), -1);
	ck_assert_int_eq(cpc_buf_set(b.cpc, buf, -1, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	cpc_close(b.cpc);
}
END_TEST

START_TEST(buffers_take_the_size_of_their_set_at_creation)
{
	struct bufs b;
	cpc_buf_t *early, *late;
	uint64_t v;

	make_set(&b, 1);
	early = cpc_buf_create(b.cpc, b.set);
	cpc_set_add_request(b.cpc, b.set, "page-faults", 0, CPC_COUNT_USER, 0,
			    NULL);
	late = cpc_buf_create(b.cpc, b.set);
	ck_assert_int_eq(cpc_buf_get(b.cpc, early, 1, &v), -1);
	ck_assert_int_eq(cpc_buf_get(b.cpc, late, 1, &v), 0);
	cpc_close(b.cpc);
}
END_TEST

static cpc_buf_t *filled(struct bufs *b, uint64_t v0, uint64_t v1,
			 hrtime_t t, uint64_t tick)
{
	cpc_buf_t *buf = cpc_buf_create(b->cpc, b->set);

	cpc_buf_set(b->cpc, buf, 0, v0);
	cpc_buf_set(b->cpc, buf, 1, v1);
	buf->hrtime = t;
	buf->tick = tick;
	return buf;
}

START_TEST(sub_takes_differences_the_later_time_and_tick_delta)
{
	struct bufs b;
	cpc_buf_t *a, *c, *ds;
	uint64_t v;

	make_set(&b, 2);
	a = filled(&b, 100, 5, 2000, 70);
	c = filled(&b, 40, 7, 1000, 20);
	ds = cpc_buf_create(b.cpc, b.set);
	cpc_buf_sub(b.cpc, ds, a, c);
	cpc_buf_get(b.cpc, ds, 0, &v);
	ck_assert_uint_eq(v, 60);
	cpc_buf_get(b.cpc, ds, 1, &v);
	ck_assert_uint_eq(v, (uint64_t)5 - 7);	/* wraps like illumos */
	ck_assert_int_eq(cpc_buf_hrtime(b.cpc, ds), 2000);
	ck_assert_uint_eq(cpc_buf_tick(b.cpc, ds), 50);
	/* The later time even when it is b's. */
	cpc_buf_sub(b.cpc, ds, c, a);
	ck_assert_int_eq(cpc_buf_hrtime(b.cpc, ds), 2000);
	cpc_close(b.cpc);
}
END_TEST

START_TEST(add_sums_and_may_alias)
{
	struct bufs b;
	cpc_buf_t *a, *c;
	uint64_t v;

	make_set(&b, 2);
	a = filled(&b, 1, 2, 10, 3);
	c = filled(&b, 10, 20, 30, 4);
	cpc_buf_add(b.cpc, a, a, c);
	cpc_buf_get(b.cpc, a, 0, &v);
	ck_assert_uint_eq(v, 11);
	cpc_buf_get(b.cpc, a, 1, &v);
	ck_assert_uint_eq(v, 22);
	ck_assert_int_eq(cpc_buf_hrtime(b.cpc, a), 30);
	ck_assert_uint_eq(cpc_buf_tick(b.cpc, a), 7);
	cpc_close(b.cpc);
}
END_TEST

START_TEST(copy_and_zero_cover_values_time_and_tick)
{
	struct bufs b;
	cpc_buf_t *src, *ds;
	uint64_t v;

	make_set(&b, 2);
	src = filled(&b, 5, 6, 77, 88);
	ds = cpc_buf_create(b.cpc, b.set);
	cpc_buf_copy(b.cpc, ds, src);
	cpc_buf_get(b.cpc, ds, 1, &v);
	ck_assert_uint_eq(v, 6);
	ck_assert_int_eq(cpc_buf_hrtime(b.cpc, ds), 77);
	ck_assert_uint_eq(cpc_buf_tick(b.cpc, ds), 88);
	cpc_buf_zero(b.cpc, ds);
	cpc_buf_get(b.cpc, ds, 1, &v);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(cpc_buf_hrtime(b.cpc, ds), 0);
	ck_assert_uint_eq(cpc_buf_tick(b.cpc, ds), 0);
	cpc_buf_get(b.cpc, src, 0, &v);
	ck_assert_uint_eq(v, 5);
	cpc_close(b.cpc);
}
END_TEST

START_TEST(size_mismatch_leaves_the_destination_alone)
{
	struct bufs b;
	cpc_set_t *small;
	cpc_buf_t *a, *c, *odd;
	uint64_t v;

	make_set(&b, 2);
	a = filled(&b, 1, 2, 10, 3);
	c = filled(&b, 10, 20, 30, 4);
	small = cpc_set_create(b.cpc);
	cpc_set_add_request(b.cpc, small, "task-clock", 0, CPC_COUNT_USER, 0,
			    NULL);
	odd = cpc_buf_create(b.cpc, small);
	cpc_buf_set(b.cpc, odd, 0, 1234);
	cpc_buf_sub(b.cpc, odd, a, c);
	cpc_buf_add(b.cpc, odd, a, c);
	cpc_buf_copy(b.cpc, odd, a);
	cpc_buf_get(b.cpc, odd, 0, &v);
	ck_assert_uint_eq(v, 1234);
	cpc_buf_sub(b.cpc, a, odd, c);
	cpc_buf_get(b.cpc, a, 0, &v);
	ck_assert_uint_eq(v, 1);
	cpc_close(b.cpc);
}
END_TEST

START_TEST(destroy_checks_the_handle)
{
	struct bufs b, other;
	cpc_buf_t *buf;

	make_set(&b, 1);
	make_set(&other, 1);
	buf = cpc_buf_create(b.cpc, b.set);
	ck_assert_int_eq(cpc_buf_destroy(other.cpc, buf), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_buf_destroy(b.cpc, buf), 0);
	ck_assert_ptr_null(b.cpc->bufs);
	ck_assert_int_eq(cpc_buf_destroy(b.cpc, NULL), -1);
	cpc_close(other.cpc);
	cpc_close(b.cpc);
}
END_TEST

Suite *buf_suite(void)
{
	Suite *s = suite_create("buf");
	TCase *tc = tcase_create("buffers");

	tcase_add_test(tc, new_buffers_are_zero);
	tcase_add_test(tc, get_and_set_check_the_index);
	tcase_add_test(tc, buffers_take_the_size_of_their_set_at_creation);
	tcase_add_test(tc, sub_takes_differences_the_later_time_and_tick_delta);
	tcase_add_test(tc, add_sums_and_may_alias);
	tcase_add_test(tc, copy_and_zero_cover_values_time_and_tick);
	tcase_add_test(tc, size_mismatch_leaves_the_destination_alone);
	tcase_add_test(tc, destroy_checks_the_handle);
	suite_add_tcase(s, tc);
	return s;
}
