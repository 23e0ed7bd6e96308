// SPDX-License-Identifier: BSD-2-Clause
/*
 * selfread_test.c - pmc_selfread() on a self-read page built in memory as
 * pmc.ko lays it out: each kind of entry, ids not on the page, the system
 * call fallback, and the seqcount protocol against a writer thread that
 * rewrites the page all the time (the values read must always be one
 * consistent update).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmc/ring.h>

#include "unit.h"

static struct pmc_selfread_page *page_new(void)
{
	struct pmc_selfread_page *pg = calloc(1, sizeof(*pg));

	ck_assert_ptr_nonnull(pg);
	return pg;
}

static void set_entry(struct pmc_selfread_page *pg, unsigned int i,
		      pmc_id_t id, uint32_t kind, int64_t offset, uint64_t stamp)
{
	pg->ps_entries[i].se_pmcid = id;
	pg->ps_entries[i].se_kind = kind;
	pg->ps_entries[i].se_offset = offset;
	pg->ps_entries[i].se_stamp = stamp;
	if (pg->ps_nentries <= i)
		pg->ps_nentries = i + 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

START_TEST(static_and_clock_entries)
{
	struct pmc_selfread_page *pg = page_new();
	pmc_id_t ids[3] = { 0x10, 0x20, 0x10 };
	pmc_value_t v[3];
	uint64_t t0, t1, stamp = mono_ns() - 5000000;

	set_entry(pg, 0, 0x20, PMC_SELFREAD_CLOCK, 1000, stamp);
	set_entry(pg, 1, 0x10, PMC_SELFREAD_STATIC, 123456789, 0);
	t0 = mono_ns();
	ck_assert_int_eq(pmc_selfread(pg, 3, ids, v), 0);
	t1 = mono_ns();
	ck_assert_uint_eq(v[0], 123456789);
	ck_assert_uint_eq(v[2], 123456789);
	/* Clock: the offset plus the time since the stamp. */
	ck_assert_uint_ge(v[1], 1000 + (t0 - stamp));
	ck_assert_uint_le(v[1], 1000 + (t1 - stamp));
	free(pg);
}
END_TEST

START_TEST(ids_not_on_the_page_and_bad_arguments)
{
	struct pmc_selfread_page *pg = page_new();
	pmc_id_t ids[2] = { 0x10, 0x30 };
	pmc_value_t v[2];

	set_entry(pg, 0, 0x10, PMC_SELFREAD_STATIC, 1, 0);
	errno = 0;
	ck_assert_int_eq(pmc_selfread(pg, 2, ids, v), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(pmc_selfread(pg, 0, ids, v), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pmc_selfread(pg, PMC_READSET_MAX + 1, ids, v), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pmc_selfread(NULL, 1, ids, v), -1);
	ck_assert_int_eq(pmc_selfread(pg, 1, NULL, v), -1);
	ck_assert_int_eq(pmc_selfread_unmap(NULL), -1);
	/* An entry count beyond the page is clamped, not followed. */
	pg->ps_nentries = 1000;
	ck_assert_int_eq(pmc_selfread(pg, 2, ids, v), -1);
	ck_assert_int_eq(errno, ENOENT);
	free(pg);
}
END_TEST

/* SYSCALL entries go through PMCREADSET: here, before pmc_init(), ENXIO. */
START_TEST(syscall_entries_fall_back_to_readset)
{
	struct pmc_selfread_page *pg = page_new();
	pmc_id_t ids[2] = { 0x10, 0x20 };
	pmc_value_t v[2];

	set_entry(pg, 0, 0x10, PMC_SELFREAD_STATIC, 1, 0);
	set_entry(pg, 1, 0x20, PMC_SELFREAD_SYSCALL, 0, 0);
	errno = 0;
	ck_assert_int_eq(pmc_selfread(pg, 2, ids, v), -1);
	ck_assert_int_eq(errno, ENXIO);
	/* An RDPMC entry without a counter index, too. */
	set_entry(pg, 1, 0x20, PMC_SELFREAD_RDPMC, 0, 0);
	ck_assert_int_eq(pmc_selfread(pg, 2, ids, v), -1);
	ck_assert_int_eq(errno, ENXIO);
	free(pg);
}
END_TEST

/*
 * One PMC (the inline path): entry 0 found by one compare of its id and
 * kind, any other entry or kind by the general lookup, and what neither
 * can read handed to the set reader with its error.
 */
START_TEST(one_pmc_reads)
{
	struct pmc_selfread_page *pg = page_new();
	pmc_id_t id;
	pmc_value_t v;

	set_entry(pg, 0, 0x10, PMC_SELFREAD_STATIC, 11, 0);
	set_entry(pg, 1, 0x20, PMC_SELFREAD_STATIC, 22, 0);
	id = 0x10;
	ck_assert_int_eq(pmc_selfread(pg, 1, &id, &v), 0);
	ck_assert_uint_eq(v, 11);
	id = 0x20;
	ck_assert_int_eq(pmc_selfread(pg, 1, &id, &v), 0);
	ck_assert_uint_eq(v, 22);
	id = 0x30;
	errno = 0;
	ck_assert_int_eq(pmc_selfread(pg, 1, &id, &v), -1);
	ck_assert_int_eq(errno, ENOENT);
	/* Entry 0 RDPMC with no counter index: the set reader, ENXIO here. */
	set_entry(pg, 0, 0x10, PMC_SELFREAD_RDPMC, 0, 0);
	id = 0x10;
	errno = 0;
	ck_assert_int_eq(pmc_selfread(pg, 1, &id, &v), -1);
	ck_assert_int_eq(errno, ENXIO);
	ck_assert_int_eq(pmc_selfread(pg, 1, &id, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	free(pg);
}
END_TEST

struct writer {
	struct pmc_selfread_page *pg;
	atomic_bool stop;
	uint64_t updates;
};

/* The kernel's side: odd, update both entries (k and 2k), even. */
static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	struct pmc_selfread_page *pg = w->pg;
	int64_t k;

	for (k = 1; !atomic_load(&w->stop); k++) {
		__atomic_store_n(&pg->ps_seq, pg->ps_seq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&pg->ps_entries[0].se_offset, k, __ATOMIC_RELAXED);
		__atomic_store_n(&pg->ps_entries[1].se_offset, 2 * k, __ATOMIC_RELAXED);
		__atomic_store_n(&pg->ps_seq, pg->ps_seq + 1, __ATOMIC_RELEASE);
		w->updates++;
	}
	return NULL;
}

START_TEST(reads_are_consistent_while_the_page_changes)
{
	struct writer w = { .pg = page_new() };
	pmc_id_t ids[2] = { 0x10, 0x20 };
	pmc_value_t v[2], last = 0;
	pthread_t t;
	int i, changed = 0;

	set_entry(w.pg, 0, 0x10, PMC_SELFREAD_STATIC, 0, 0);
	set_entry(w.pg, 1, 0x20, PMC_SELFREAD_STATIC, 0, 0);
	ck_assert_int_eq(pthread_create(&t, NULL, writer_thread, &w), 0);
	for (i = 0; i < 200000; i++) {
		ck_assert_int_eq(pmc_selfread(w.pg, 2, ids, v), 0);
		ck_assert_uint_eq(v[1], 2 * v[0]);
		ck_assert_uint_ge(v[0], last);
		changed += v[0] != last;
		last = v[0];
	}
	atomic_store(&w.stop, true);
	pthread_join(t, NULL);
	ck_assert_int_gt(changed, 0);
	free(w.pg);
}
END_TEST

Suite *selfread_suite(void)
{
	Suite *s = suite_create("selfread");
	TCase *tc = tcase_create("selfread");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, static_and_clock_entries);
	tcase_add_test(tc, ids_not_on_the_page_and_bad_arguments);
	tcase_add_test(tc, syscall_entries_fall_back_to_readset);
	tcase_add_test(tc, one_pmc_reads);
	tcase_add_test(tc, reads_are_consistent_while_the_page_changes);
	suite_add_tcase(s, tc);
	return s;
}
