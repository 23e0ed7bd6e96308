// SPDX-License-Identifier: BSD-2-Clause
/*
 * ring_test.c - the ring reader on a ring built in memory as pmc.ko lays it
 * out (<pmc/ring.h>): records read in order, records that wrap past the end
 * of the data area, the tail handed back, an empty ring, a corrupt one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

#define RING_PAGES	2
#define RING_SIZE	(RING_PAGES * (size_t)sysconf(_SC_PAGESIZE))

/* Every record type, the log starting at each 8-byte offset of the ring. */
START_TEST(ring_yields_every_record_including_wrapped_ones)
{
	struct logbuf b = { 0 };
	struct pmclog_ev ev;
	uint64_t start;
	size_t done, n, chunk;

	lb_all_types(&b);
	for (start = 0; start < 2 * RING_PAGES * 4096; start += 8 * 37) {
		struct fake_ring r;
		struct pmclog_parser *ps;

		fake_ring_make(&r, RING_SIZE, start + 3ull * RING_SIZE);	/* free-running */
		ps = fake_ring_open(&r);
		n = 0;
		for (done = 0; done < b.len; done += chunk) {
			/* Produce whole records, up to half the ring at a time. */
			chunk = 0;
			while (done + chunk < b.len) {
				struct pmclog_header h;
				size_t l;

				memcpy(&h, b.p + done + chunk, sizeof(h));
				l = PMCLOG_HEADER_TO_LENGTH(h.pl_header);
				if (chunk + l > r.size / 2 && chunk)
					break;
				chunk += l;
			}
			fake_ring_produce(&r, b.p + done, chunk);
			while (pmclog_read(ps, &ev) == 0) {
				lb_check_event(n, &ev);
				n++;
			}
			ck_assert_int_eq(ev.pl_state, PMCLOG_REQUIRE_DATA);
			/* Everything read was handed back. */
			ck_assert_uint_eq(r.ctl->pr_data_tail, r.ctl->pr_data_head);
		}
		ck_assert_uint_eq(n, lb_all_types_count);
		pmclog_close(ps);
		fake_ring_free(&r);
	}
	lb_free(&b);
}
END_TEST

START_TEST(ring_records_report_their_ring_offset)
{
	struct pmclog_userdata u = { .pl_userdata = 9 };
	struct logbuf b = { 0 };
	struct pmclog_ev ev;
	struct fake_ring r;
	struct pmclog_parser *ps;

	fake_ring_make(&r, RING_SIZE, 1000);
	ps = fake_ring_open(&r);
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_REQUIRE_DATA);
	lb_add(&b, PMCLOG_TYPE_USERDATA, &u, sizeof(u), NULL, 0, 5);
	lb_add(&b, PMCLOG_TYPE_USERDATA, &u, sizeof(u), NULL, 0, 6);
	fake_ring_produce(&r, b.p, b.len);
	ck_assert_int_eq(pmclog_read(ps, &ev), 0);
	ck_assert_int_eq(ev.pl_offset, 1000);
	ck_assert_uint_eq(ev.pl_count, 1);
	ck_assert_int_eq(pmclog_read(ps, &ev), 0);
	ck_assert_int_eq(ev.pl_offset, 1024);
	ck_assert_uint_eq(ev.pl_seq, 1);
	ck_assert_uint_eq(r.ctl->pr_data_tail, 1048);
	pmclog_close(ps);
	fake_ring_free(&r);
	lb_free(&b);
}
END_TEST

START_TEST(corrupt_rings_are_errors)
{
	struct pmclog_userdata u = { .pl_userdata = 9 };
	struct logbuf b = { 0 };
	struct pmclog_ev ev;
	struct fake_ring r;
	struct pmclog_parser *ps;

	lb_add(&b, PMCLOG_TYPE_USERDATA, &u, sizeof(u), NULL, 0, 5);

	/* Head further than the ring holds. */
	fake_ring_make(&r, RING_SIZE, 0);
	ps = fake_ring_open(&r);
	r.ctl->pr_data_head = r.size + 8;
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_ERROR);
	ck_assert_ptr_nonnull(strstr(pmclog_error(ps), "inconsistent"));
	pmclog_close(ps);
	fake_ring_free(&r);

	/* A record longer than what was published. */
	fake_ring_make(&r, RING_SIZE, 0);
	ps = fake_ring_open(&r);
	fake_ring_produce(&r, b.p, 16);
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_ERROR);
	ck_assert_ptr_nonnull(strstr(pmclog_error(ps), "published"));
	/* Sticky. */
	fake_ring_produce(&r, b.p + 16, 8);
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_ERROR);
	pmclog_close(ps);
	fake_ring_free(&r);

	/* Bad magic. */
	fake_ring_make(&r, RING_SIZE, 0);
	ps = fake_ring_open(&r);
	b.p[3] = 0;
	fake_ring_produce(&r, b.p, b.len);
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_ERROR);
	ck_assert_ptr_nonnull(strstr(pmclog_error(ps), "magic"));
	pmclog_close(ps);
	fake_ring_free(&r);
	lb_free(&b);
}
END_TEST

START_TEST(control_pages_of_another_layout_are_refused)
{
	struct pmclog_parser ps;
	struct fake_ring r;

	fake_ring_make(&r, RING_SIZE, 0);
	memset(&ps, 0, sizeof(ps));
	r.ctl->pr_version = PMC_RING_VERSION + 1;
	errno = 0;
	ck_assert_int_eq(pmcdev_ring_attach(&ps.ring, r.map, r.page + r.size, r.page), -1);
	ck_assert_int_eq(errno, EPROTO);
	r.ctl->pr_version = PMC_RING_VERSION;
	r.ctl->pr_data_size = r.size * 2;	/* more than mapped */
	ck_assert_int_eq(pmcdev_ring_attach(&ps.ring, r.map, r.page + r.size, r.page), -1);
	r.ctl->pr_data_size = r.size - 8;	/* not a power of two */
	ck_assert_int_eq(pmcdev_ring_attach(&ps.ring, r.map, r.page + r.size, r.page), -1);
	r.ctl->pr_data_size = r.size;
	r.ctl->pr_data_offset = 0;
	ck_assert_int_eq(pmcdev_ring_attach(&ps.ring, r.map, r.page + r.size, r.page), -1);
	fake_ring_free(&r);

	/* And the API checks its arguments before mapping anything. */
	errno = 0;
	ck_assert_ptr_null(pmclog_open_ring(0, 3));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(pmclog_open_ring(0, 0));
	ck_assert_int_eq(pmclog_ring_wait(NULL, 0, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *tc = tcase_create("ring");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, ring_yields_every_record_including_wrapped_ones);
	tcase_add_test(tc, ring_records_report_their_ring_offset);
	tcase_add_test(tc, corrupt_rings_are_errors);
	tcase_add_test(tc, control_pages_of_another_layout_are_refused);
	suite_add_tcase(s, tc);
	return s;
}
