// SPDX-License-Identifier: BSD-2-Clause
/*
 * test_ring.c - libcpc reading the simulated driver's mmap'd ring and
 * self-read page: snapshots from SNAPSET and SNAPSHOT records (order, tick,
 * timestamp, wrap-around, foreign and incomplete records), the overflow
 * record in cpc_set_sample and cpc_buf_overflowed, the self-read page with
 * its system-call fallback, and the ENOTSUP of a driver without them.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/perf_event.h>

#include "unit.h"

struct ctx {
	struct fake_pmc fp;
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
};

static void setup(struct ctx *c, int nreqs, uint_t flags1)
{
	static const char *const ev[] = { "task-clock", "page-faults",
					  "context-switches" };
	cpc_errhndlr_t *h;
	int i;

	c->cpc = fake_open(&c->fp, FAKE_SOFT);
	ck_assert_ptr_nonnull(c->cpc);
	record_errors(&h);
	cpc_seterrhndlr(c->cpc, h);
	c->set = cpc_set_create(c->cpc);
	for (i = 0; i < nreqs; i++)
		ck_assert_int_eq(cpc_set_add_request(c->cpc, c->set, ev[i % 3],
						     0, CPC_COUNT_USER |
						     (i == 1 ? flags1 : 0),
						     0, NULL), i);
	c->buf = cpc_buf_create(c->cpc, c->set);
	ck_assert_ptr_nonnull(c->buf);
}

/*
 * setup() with 2 requests, bound to the calling thread with a 1 ms
 * snapshot period: the set reads the ring.
 */
static void setup_snapshots(struct ctx *c, uint_t flags1)
{
	setup(c, 2, flags1);
	ck_assert_int_eq(cpc_set_sample_period(c->cpc, c->set, 1000), 0);
	ck_assert_int_eq(cpc_bind_curlwp(c->cpc, c->set, 0), 0);
}

/* The fake's PMC of request @i (allocated in request order, tick last). */
static struct fake_pmcobj *req_pmc(struct ctx *c, int i)
{
	return fake_nth_live(&c->fp, i);
}

START_TEST(a_period_allocates_snapshot_pmcs_and_maps_the_ring)
{
	struct ctx c;
	int i;

	setup(&c, 2, 0);
	ck_assert_int_eq(cpc_set_sample_period(c.cpc, c.set, 999), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_snapshot_fd(c.cpc), -1);
	ck_assert_int_eq(cpc_set_sample_period(c.cpc, c.set, 20000), 0);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	/* Every PMC of the set, the tick too. */
	ck_assert_int_eq(fake_live(&c.fp), 3);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(req_pmc(&c, i)->alloc.pm_flags & PMC_F_SNAPSHOT,
				  PMC_F_SNAPSHOT);
		ck_assert_uint_eq(req_pmc(&c, i)->alloc.pm_snapshot_us, 20000);
	}
	ck_assert_int_eq(c.fp.ring_maps, 1);
	ck_assert_int_eq(cpc_snapshot_fd(c.cpc), c.cpc->fd);
	ck_assert_int_ge(c.cpc->fd, 0);
	/* Bound: the period cannot change. */
	ck_assert_int_eq(cpc_set_sample_period(c.cpc, c.set, 5000), -1);
	cpc_close(c.cpc);
	ck_assert_ptr_null(c.fp.ring);
}
END_TEST

START_TEST(snapshots_come_whole_in_order_with_the_kernel_time)
{
	struct ctx c;
	struct pmclog_pmcdetach other = {
		.pl_hdr.pl_header = PMCLOG_HEADER(PMCLOG_TYPE_PMCDETACH,
						  sizeof(other)),
	};
	uint32_t group;
	uint64_t v, lost;
	int k;

	setup_snapshots(&c, 0);
	group = req_pmc(&c, 0)->alloc.pm_group;
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), -1);
	ck_assert_int_eq(errno, EAGAIN);
	/* Enough snapshots to wrap the 256 KiB ring several times. */
	for (k = 1; k <= 5000; k++) {
		req_pmc(&c, 0)->value = 10 * (uint64_t)k;
		req_pmc(&c, 1)->value = 20 * (uint64_t)k;
		req_pmc(&c, 2)->value = 30 * (uint64_t)k;
		fake_ring_put(&c.fp, &other, sizeof(other));
		fake_snapshot_group(&c.fp, group, 1000000 * (uint64_t)k, 1);
		ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
		ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 0, &v), 0);
		ck_assert_uint_eq(v, 10 * (uint64_t)k);
		ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 1, &v), 0);
		ck_assert_uint_eq(v, 20 * (uint64_t)k);
		ck_assert_uint_eq(cpc_buf_tick(c.cpc, c.buf), 30 * (uint64_t)k);
		ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf),
				 1000000 * (long long)k);
	}
	/* Queued: three at once come out oldest first. */
	for (k = 1; k <= 3; k++)
		fake_snapshot_group(&c.fp, group, (uint64_t)k, 0);
	for (k = 1; k <= 3; k++) {
		ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
		ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), k);
	}
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(cpc_snapshot_lost(c.cpc, c.set, &lost), 0);
	ck_assert_uint_eq(lost, 0);
	cpc_close(c.cpc);
}
END_TEST

/*
 * More snapshots published than the set's queue holds (CPC_SNAPQ_LEN): the
 * reader stops at a full queue and leaves the rest in the ring, so a
 * consumer taking them one by one gets every one, in order, none counted
 * lost; the ring's tail is handed back as they are read.
 */
START_TEST(a_backlog_longer_than_the_queue_comes_out_whole)
{
	const int n = 3 * CPC_SNAPQ_LEN + 5;
	struct pmc_ring_page *pg;
	struct ctx c;
	uint32_t group;
	uint64_t lost;
	int k;

	setup_snapshots(&c, 0);
	group = req_pmc(&c, 0)->alloc.pm_group;
	pg = c.fp.ring;
	for (k = 1; k <= n; k++)
		fake_snapshot_group(&c.fp, group, (uint64_t)k, 0);
	ck_assert_uint_ne(pg->pr_data_tail, pg->pr_data_head);
	for (k = 1; k <= n; k++) {
		ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
		ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), k);
	}
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_uint_eq(pg->pr_data_tail, pg->pr_data_head);
	ck_assert_int_eq(cpc_snapshot_lost(c.cpc, c.set, &lost), 0);
	ck_assert_uint_eq(lost, 0);
	cpc_close(c.cpc);
}
END_TEST

/*
 * The reader expects a set's records in the order of its ids and finds
 * the set by the last one it saw: records in another order, and runs of
 * another set's records between them, still make the same snapshots.
 */
START_TEST(records_in_any_order_make_the_same_snapshots)
{
	struct pmclog_snapshot r = {
		.pl_hdr.pl_header = PMCLOG_HEADER(PMCLOG_TYPE_SNAPSHOT,
						  sizeof(r)),
	};
	static const int order[][3] = { { 2, 1, 0 }, { 1, 0, 2 }, { 0, 2, 1 } };
	struct ctx c;
	uint64_t v, lost;
	int k, i;

	setup_snapshots(&c, 0);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 3; i++) {
			int slot = order[k][i];

			r.pl_hdr.pl_tsc = 10 + (uint64_t)k;
			r.pl_pmcid = req_pmc(&c, slot)->alloc.pm_pmcid;
			r.pl_group = req_pmc(&c, slot)->alloc.pm_group;
			r.pl_value = 1000 * (uint64_t)k + (uint64_t)slot;
			fake_ring_put(&c.fp, &r, sizeof(r));
			/* Another set's record between two of ours. */
			r.pl_group += 100;
			fake_ring_put(&c.fp, &r, sizeof(r));
		}
	}
	for (k = 0; k < 3; k++) {
		ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
		ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 10 + k);
		ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 0, &v), 0);
		ck_assert_uint_eq(v, 1000 * (uint64_t)k);
		ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 1, &v), 0);
		ck_assert_uint_eq(v, 1000 * (uint64_t)k + 1);
		ck_assert_uint_eq(cpc_buf_tick(c.cpc, c.buf),
				  1000 * (uint64_t)k + 2);
	}
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), -1);
	ck_assert_int_eq(cpc_snapshot_lost(c.cpc, c.set, &lost), 0);
	ck_assert_uint_eq(lost, 0);
	cpc_close(c.cpc);
}
END_TEST

/* A SNAPSET of @n entries (set's slots @slots, value 100*k + slot) at @tsc. */
static void put_snapset(struct ctx *c, const int *slots, uint32_t n,
			uint32_t claimed, uint64_t tsc, uint64_t k)
{
	struct {
		struct pmclog_snapset s;
		struct pmclog_snapset_entry e[4];
	} r;
	uint32_t i, len = (uint32_t)(sizeof(r.s) + n * sizeof(r.e[0]));

	memset(&r, 0, sizeof(r));
	r.s.pl_hdr.pl_header = PMCLOG_HEADER(PMCLOG_TYPE_SNAPSET, len);
	r.s.pl_hdr.pl_tsc = tsc;
	r.s.pl_group = req_pmc(c, 0)->alloc.pm_group;
	r.s.pl_nentries = claimed;
	for (i = 0; i < n; i++) {
		r.e[i].pl_pmcid = req_pmc(c, slots[i])->alloc.pm_pmcid;
		r.e[i].pl_value = 100 * k + (uint64_t)slots[i];
	}
	fake_ring_put(&c->fp, &r, len);
}

/*
 * A SNAPSET record is a snapshot whatever its entries' order; one that
 * does not carry each PMC of the set once (a PMC missing or twice, a count
 * past its length) is counted lost and read no further than its length.
 */
START_TEST(a_snapset_is_one_snapshot_and_a_wrong_one_is_lost)
{
	static const int reversed[] = { 2, 1, 0 }, missing[] = { 0, 1 },
			 twice[] = { 0, 1, 1 };
	struct ctx c;
	uint64_t v, lost;

	setup_snapshots(&c, 0);
	put_snapset(&c, reversed, 3, 3, 10, 1);
	put_snapset(&c, missing, 2, 2, 11, 2);
	put_snapset(&c, twice, 3, 3, 12, 3);
	put_snapset(&c, missing, 2, 3, 13, 4);
	put_snapset(&c, reversed, 3, 3, 14, 5);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 10);
	ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 0, &v), 0);
	ck_assert_uint_eq(v, 100);
	ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 1, &v), 0);
	ck_assert_uint_eq(v, 101);
	ck_assert_uint_eq(cpc_buf_tick(c.cpc, c.buf), 102);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 14);
	ck_assert_uint_eq(cpc_buf_tick(c.cpc, c.buf), 502);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), -1);
	ck_assert_int_eq(cpc_snapshot_lost(c.cpc, c.set, &lost), 0);
	ck_assert_uint_eq(lost, 3);
	cpc_close(c.cpc);
}
END_TEST

/*
 * A record with a bad header in the middle of what is published: the
 * records before it are read, the rest of the stream is skipped to the
 * head, and what is published after reads as before.
 */
START_TEST(a_broken_record_skips_to_the_head_and_reading_goes_on)
{
	const struct pmclog_header bad = {
		.pl_header = 0x12000000U | sizeof(bad),
	};
	struct pmc_ring_page *pg;
	struct ctx c;
	uint32_t group;

	setup_snapshots(&c, 0);
	group = req_pmc(&c, 0)->alloc.pm_group;
	pg = c.fp.ring;
	fake_snapshot_group(&c.fp, group, 1, 0);
	fake_ring_put(&c.fp, &bad, sizeof(bad));
	fake_snapshot_group(&c.fp, group, 2, 0);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 1);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_uint_eq(pg->pr_data_tail, pg->pr_data_head);
	fake_snapshot_group(&c.fp, group, 3, 0);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 3);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(incomplete_snapshots_are_dropped_and_last_records_make_one)
{
	struct ctx c;
	struct pmclog_snapshot r = {
		.pl_hdr.pl_header = PMCLOG_HEADER(PMCLOG_TYPE_SNAPSHOT,
						  sizeof(r)),
		.pl_hdr.pl_tsc = 5,
	};
	uint64_t lost;

	setup_snapshots(&c, 0);
	/* One PMC's record at t=5, then the whole set at t=6. */
	r.pl_pmcid = req_pmc(&c, 0)->alloc.pm_pmcid;
	r.pl_group = req_pmc(&c, 0)->alloc.pm_group;
	fake_ring_put(&c.fp, &r, sizeof(r));
	fake_snapshot_group(&c.fp, r.pl_group, 6, 0);
	/* Another set's records are not ours. */
	r.pl_group += 100;
	fake_ring_put(&c.fp, &r, sizeof(r));
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 6);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), -1);
	ck_assert_int_eq(cpc_snapshot_lost(c.cpc, c.set, &lost), 0);
	ck_assert_uint_eq(lost, 1);
	/* PMCSTOP's last records, one instant each: one snapshot, the latest. */
	r.pl_group -= 100;
	for (int i = 0; i < 3; i++) {
		r.pl_pmcid = req_pmc(&c, i)->alloc.pm_pmcid;
		r.pl_hdr.pl_tsc = 7 + (uint64_t)i;
		r.pl_value = 100 + (uint64_t)i;
		fake_ring_put(&c.fp, &r, sizeof(r));
	}
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 9);
	ck_assert_uint_eq(cpc_buf_tick(c.cpc, c.buf), 102);
	/* A DROPNOTIFY: what was being rebuilt is lost. */
	r.pl_hdr.pl_tsc = 10;
	fake_ring_put(&c.fp, &r, sizeof(r));
	{
		struct pmclog_dropnotify d = {
			.pl_hdr.pl_header = PMCLOG_HEADER(PMCLOG_TYPE_DROPNOTIFY,
							  sizeof(d)),
			.pl_records = 2,
		};

		fake_ring_put(&c.fp, &d, sizeof(d));
	}
	fake_snapshot_group(&c.fp, r.pl_group, 11, 0);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 11);
	ck_assert_int_eq(cpc_snapshot_lost(c.cpc, c.set, &lost), 0);
	ck_assert_uint_eq(lost, 2);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(a_driver_without_snapshots_fails_the_bind_enotsup)
{
	struct ctx c;

	setup(&c, 2, 0);
	c.fp.no_snapshot = true;
	ck_assert_int_eq(cpc_set_sample_period(c.cpc, c.set, 1000), 0);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(fake_live(&c.fp), 0);
	/* Without the period it binds, and has no snapshots. */
	ck_assert_int_eq(cpc_set_sample_period(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	cpc_close(c.cpc);

	/* No ring at all: ENOTSUP too. */
	setup(&c, 1, 0);
	c.fp.no_mmap = true;
	ck_assert_int_eq(cpc_set_sample_period(c.cpc, c.set, 1000), 0);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(fake_live(&c.fp), 0);
	cpc_close(c.cpc);
}
END_TEST

/* An OVERFLOW record of the set: request @ovf overflowed. */
static void put_overflow(struct ctx *c, int nids, int ovf, uint64_t tsc)
{
	struct {
		struct pmclog_overflow o;
		struct pmclog_overflow_entry e[4];
	} r;
	int i;

	memset(&r, 0, sizeof(r));
	r.o.pl_hdr.pl_header = PMCLOG_HEADER(PMCLOG_TYPE_OVERFLOW,
					     sizeof(r.o) + (size_t)nids *
					     sizeof(r.e[0]));
	r.o.pl_hdr.pl_tsc = tsc;
	r.o.pl_group = req_pmc(c, 0)->alloc.pm_group;
	r.o.pl_tid = (uint32_t)gettid();
	r.o.pl_nentries = (uint32_t)nids;
	r.o.pl_ip = 0x401000;
	for (i = 0; i < nids; i++) {
		r.e[i].pl_pmcid = req_pmc(c, i)->alloc.pm_pmcid;
		r.e[i].pl_overflowed = i == ovf;
		r.e[i].pl_value = 1000 + (uint64_t)i;
	}
	fake_ring_put(&c->fp, &r, PMCLOG_HEADER_TO_LENGTH(r.o.pl_hdr.pl_header));
}

START_TEST(the_overflow_record_gives_values_and_the_overflowed_index)
{
	struct ctx c;
	uint64_t v, mask;
	int rs;

	setup(&c, 2, CPC_OVF_NOTIFY_EMT);
	c.fp.no_mmap = false;
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(c.fp.ring_maps, 1);
	/* Before any overflow: none. */
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_overflowed(c.cpc, c.buf, &mask), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_uint_eq(mask, 0);
	put_overflow(&c, 3, 1, 777);
	rs = c.fp.readsets;
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	/* From the record: no system call, its values and time. */
	ck_assert_int_eq(c.fp.readsets, rs);
	ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 0, &v), 0);
	ck_assert_uint_eq(v, 1000);
	ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 1, &v), 0);
	ck_assert_uint_eq(v, 1001);
	ck_assert_uint_eq(cpc_buf_tick(c.cpc, c.buf), 1002);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 777);
	ck_assert_int_eq(cpc_buf_overflowed(c.cpc, c.buf, &mask), 1);
	ck_assert_uint_eq(mask, 2);
	/* Restart: the record is history, and a stale copy is ignored. */
	ck_assert_int_eq(cpc_set_restart(c.cpc, c.set), 0);
	put_overflow(&c, 3, 1, 778);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(c.fp.readsets, rs + 1);
	ck_assert_int_eq(cpc_buf_overflowed(c.cpc, c.buf, NULL), -1);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(snapshots_and_overflow_records_share_the_set_state)
{
	struct ctx c;
	uint64_t mask;

	setup_snapshots(&c, CPC_OVF_NOTIFY_EMT);
	fake_snapshot_group(&c.fp, req_pmc(&c, 0)->alloc.pm_group, 5, 0);
	put_overflow(&c, 3, 1, 6);
	ck_assert_int_eq(cpc_snapshot_next(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_hrtime(c.cpc, c.buf), 5);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_overflowed(c.cpc, c.buf, &mask), 1);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(without_a_ring_a_wrapped_notify_counter_is_the_overflowed_one)
{
	struct ctx c;
	uint64_t mask;

	c.cpc = fake_open(&c.fp, FAKE_SOFT);
	c.fp.no_mmap = true;
	c.set = cpc_set_create(c.cpc);
	ck_assert_int_eq(cpc_set_add_request(c.cpc, c.set, "page-faults",
					     UINT64_MAX - 9, CPC_COUNT_USER |
					     CPC_OVF_NOTIFY_EMT, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(c.cpc, c.set, "task-clock",
					     UINT64_MAX - 9, CPC_COUNT_USER |
					     CPC_OVF_NOTIFY_EMT, 0, NULL), 1);
	c.buf = cpc_buf_create(c.cpc, c.set);
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(c.fp.ring_maps, 0);
	fake_nth_live(&c.fp, 0)->value = 3;	/* wrapped */
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(cpc_buf_overflowed(c.cpc, c.buf, &mask), 0);
	ck_assert_uint_eq(mask, 1);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(the_selfread_page_samples_without_a_system_call)
{
	struct ctx c;
	uint64_t v;
	int rs;

	setup(&c, 2, 0);
	c.fp.sr_kind = PMC_SELFREAD_STATIC;
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(c.fp.sr_maps, 1);
	ck_assert_uint_eq(c.fp.sr_group, req_pmc(&c, 0)->alloc.pm_group);
	req_pmc(&c, 0)->value = 11;
	req_pmc(&c, 1)->value = 22;
	req_pmc(&c, 2)->value = 33;
	fake_selfread_update(&c.fp);
	rs = c.fp.readsets;
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(c.fp.readsets, rs);
	ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 0, &v), 0);
	ck_assert_uint_eq(v, 11);
	ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 1, &v), 0);
	ck_assert_uint_eq(v, 22);
	ck_assert_uint_eq(cpc_buf_tick(c.cpc, c.buf), 33);
	ck_assert_int_gt(cpc_buf_hrtime(c.cpc, c.buf), 0);

	/* One SYSCALL entry: the whole set with one PMCREADSET. */
	c.fp.sr->ps_entries[1].se_kind = PMC_SELFREAD_SYSCALL;
	req_pmc(&c, 0)->value = 12;
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(c.fp.readsets, rs + 1);
	ck_assert_uint_eq(c.fp.last_readset_count, 3);
	ck_assert_int_eq(cpc_buf_get(c.cpc, c.buf, 0, &v), 0);
	ck_assert_uint_eq(v, 12);

	/* Turned off: PMCREADSET; on again: the page. */
	fake_selfread_update(&c.fp);
	ck_assert_int_eq(cpc_set_selfread(c.cpc, c.set, -1), 1);
	ck_assert_int_eq(cpc_set_selfread(c.cpc, c.set, 0), 1);
	ck_assert_int_eq(c.fp.sr_unmaps, 1);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(c.fp.readsets, rs + 2);
	ck_assert_int_eq(cpc_set_selfread(c.cpc, c.set, 1), 0);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(c.fp.readsets, rs + 2);
	cpc_unbind(c.cpc, c.set);
	ck_assert_ptr_null(c.fp.sr);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(a_clock_entry_adds_the_time_since_its_stamp)
{
	struct ctx c;
	uint64_t v0, v1;
	int rs;

	setup(&c, 1, 0);
	c.fp.sr_kind = PMC_SELFREAD_CLOCK;
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	/* Stamped "now" with 1000 ns counted: values grow with the clock. */
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		c.fp.sr->ps_entries[0].se_stamp =
			(uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		c.fp.sr->ps_entries[0].se_offset = 1000;
		c.fp.sr->ps_entries[1].se_stamp = c.fp.sr->ps_entries[0].se_stamp;
	}
	rs = c.fp.readsets;
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	cpc_buf_get(c.cpc, c.buf, 0, &v0);
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	cpc_buf_get(c.cpc, c.buf, 0, &v1);
	ck_assert_int_eq(c.fp.readsets, rs);
	ck_assert_uint_ge(v0, 1000);
	ck_assert_uint_ge(v1, v0);
	cpc_close(c.cpc);
}
END_TEST

START_TEST(an_old_driver_without_the_page_reads_with_readset)
{
	struct ctx c;
	int rs;

	setup(&c, 2, 0);
	c.fp.no_mmap = true;
	ck_assert_int_eq(cpc_bind_curlwp(c.cpc, c.set, 0), 0);
	ck_assert_int_eq(cpc_set_selfread(c.cpc, c.set, -1), 0);
	ck_assert_int_eq(cpc_set_selfread(c.cpc, c.set, 1), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	rs = c.fp.readsets;
	ck_assert_int_eq(cpc_set_sample(c.cpc, c.set, c.buf), 0);
	ck_assert_int_eq(c.fp.readsets, rs + 1);
	cpc_close(c.cpc);
}
END_TEST

Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("ring");

	tcase_add_test(tc, a_period_allocates_snapshot_pmcs_and_maps_the_ring);
	tcase_add_test(tc, snapshots_come_whole_in_order_with_the_kernel_time);
	tcase_add_test(tc, a_backlog_longer_than_the_queue_comes_out_whole);
	tcase_add_test(tc, records_in_any_order_make_the_same_snapshots);
	tcase_add_test(tc, a_snapset_is_one_snapshot_and_a_wrong_one_is_lost);
	tcase_add_test(tc, a_broken_record_skips_to_the_head_and_reading_goes_on);
	tcase_add_test(tc, incomplete_snapshots_are_dropped_and_last_records_make_one);
	tcase_add_test(tc, a_driver_without_snapshots_fails_the_bind_enotsup);
	tcase_add_test(tc, the_overflow_record_gives_values_and_the_overflowed_index);
	tcase_add_test(tc, snapshots_and_overflow_records_share_the_set_state);
	tcase_add_test(tc, without_a_ring_a_wrapped_notify_counter_is_the_overflowed_one);
	tcase_add_test(tc, the_selfread_page_samples_without_a_system_call);
	tcase_add_test(tc, a_clock_entry_adds_the_time_since_its_stamp);
	tcase_add_test(tc, an_old_driver_without_the_page_reads_with_readset);
	suite_add_tcase(s, tc);
	return s;
}
