// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_test.c - random mutations of a log of every record type, parsed in
 * feed mode (random chunks), from a file and from a ring, under ASan and
 * UBSan: the parser must never crash, over-read or loop, whatever it is
 * given. Seeded (PMCLOG_FUZZ_SEED overrides) and bounded in time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

#define FUZZ_SECONDS	3.0
#define FUZZ_MAX_ITER	200000

static uint64_t rng_state;

static uint32_t rnd(void)
{
	/* xorshift64*: reproducible from the seed. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Damage @p (@*len bytes, capacity @cap) in one of several ways. */
static void mutate(unsigned char *p, size_t *len, size_t cap)
{
	size_t n = *len, i, a, l;
	uint16_t v16;

	if (!n)
		return;
	switch (rnd() % 8) {
	case 0:		/* flip bits */
		for (i = 0, l = 1 + rnd() % 8; i < l; i++)
			p[rnd() % n] ^= (unsigned char)(1u << (rnd() % 8));
		break;
	case 1:		/* random bytes */
		for (i = 0, l = 1 + rnd() % 8; i < l; i++)
			p[rnd() % n] = (unsigned char)rnd();
		break;
	case 2:		/* truncate */
		*len = rnd() % n;
		break;
	case 3:		/* a random length in a header-aligned word */
		a = (rnd() % n) & ~(size_t)7;
		v16 = (uint16_t)rnd();
		if (a + 2 <= n)
			memcpy(p + a, &v16, 2);
		break;
	case 4:		/* an interesting length */
		a = (rnd() % n) & ~(size_t)7;
		{
			static const uint16_t lens[] = { 0, 8, 16, 17, 24, 32, 0xfff8, 0xffff };

			v16 = lens[rnd() % 8];
		}
		if (a + 2 <= n)
			memcpy(p + a, &v16, 2);
		break;
	case 5:		/* a random type */
		a = (rnd() % n) & ~(size_t)7;
		if (a + 3 <= n)
			p[a + 2] = (unsigned char)rnd();
		break;
	case 6:		/* duplicate a chunk */
		a = rnd() % n;
		l = rnd() % (n - a + 1);
		if (n + l <= cap) {
			memmove(p + a + l, p + a, n - a);
			*len = n + l;
		}
		break;
	default:	/* cut a chunk out */
		a = rnd() % n;
		l = rnd() % (n - a + 1);
		memmove(p + a, p + a + l, n - a - l);
		*len = n - l;
		break;
	}
}

/* Everything an event says must lie inside what the parser was given. */
static void check_event(const struct pmclog_ev *ev, size_t total)
{
	ck_assert_int_ge(ev->pl_len, (int)sizeof(struct pmclog_header));
	ck_assert_int_eq(ev->pl_len % 8, 0);
	ck_assert_uint_le((size_t)ev->pl_offset + (size_t)ev->pl_len, total);
	if (ev->pl_type == PMCLOG_TYPE_CALLCHAIN)
		ck_assert_uint_le(ev->pl_u.pl_cc.pl_npc, PMC_CALLCHAIN_DEPTH_MAX);
	if (ev->pl_type == PMCLOG_TYPE_OVERFLOW)
		ck_assert_uint_eq(sizeof(struct pmclog_overflow) +
				  ev->pl_u.pl_o.pl_nentries *
				  sizeof(struct pmclog_overflow_entry),
				  (size_t)ev->pl_len);
	if (ev->pl_type == PMCLOG_TYPE_SNAPSET)
		ck_assert_uint_le(sizeof(struct pmclog_snapset) +
				  (size_t)ev->pl_u.pl_ss.pl_nentries *
				  sizeof(struct pmclog_snapset_entry),
				  (size_t)ev->pl_len);
}

static size_t parse_fed(const unsigned char *p, size_t len)
{
	void *ps = pmclog_open(PMCLOG_FD_NONE);
	struct pmclog_ev ev;
	size_t off = 0, chunk, n = 0;

	while (off < len) {
		chunk = 1 + rnd() % 97;
		if (chunk > len - off)
			chunk = len - off;
		ck_assert_int_eq(pmclog_feed(ps, (char *)p + off, (int)chunk), 0);
		off += chunk;
		while (pmclog_read(ps, &ev) == 0) {
			check_event(&ev, off);
			n++;
		}
		if (ev.pl_state == PMCLOG_ERROR)
			break;
		ck_assert_int_eq(ev.pl_state, PMCLOG_REQUIRE_DATA);
	}
	pmclog_close(ps);
	return n;
}

static size_t parse_file(int fd, const unsigned char *p, size_t len)
{
	struct pmclog_ev ev;
	size_t n = 0;
	void *ps;

	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(pwrite(fd, p, len, 0), (ssize_t)len);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ps = pmclog_open(fd);
	while (pmclog_read(ps, &ev) == 0) {
		check_event(&ev, len);
		n++;
	}
	ck_assert(ev.pl_state == PMCLOG_EOF || ev.pl_state == PMCLOG_ERROR);
	pmclog_close(ps);
	return n;
}

/* The ring: the data area is as large as the mutated log, rounded up. */
static size_t parse_ring(const unsigned char *p, size_t len)
{
	size_t size = (size_t)sysconf(_SC_PAGESIZE), n = 0;
	struct pmclog_parser *ps;
	struct fake_ring r;
	struct pmclog_ev ev;
	uint64_t start = rnd();

	while (size < len)
		size *= 2;
	fake_ring_make(&r, size, start);
	fake_ring_produce(&r, p, len);
	ps = fake_ring_open(&r);
	while (pmclog_read(ps, &ev) == 0)
		n++;
	ck_assert(ev.pl_state == PMCLOG_REQUIRE_DATA || ev.pl_state == PMCLOG_ERROR);
	ck_assert_uint_le(r.ctl->pr_data_tail - start, len);
	pmclog_close(ps);
	fake_ring_free(&r);
	return n;
}

START_TEST(random_mutations_never_crash_the_parser)
{
	const char *env = getenv("PMCLOG_FUZZ_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x5eed1e55ull;
	struct logbuf b = { 0 };
	size_t cap, len, iter, records = 0;
	unsigned char *buf;
	double t0 = now();
	int fd, m;

	rng_state = seed | 1;
	lb_all_types(&b);
	cap = b.len * 3;
	buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	fd = memfd_create("pmclog-fuzz", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);

	for (iter = 0; iter < FUZZ_MAX_ITER && now() - t0 < FUZZ_SECONDS; iter++) {
		len = b.len;
		memcpy(buf, b.p, len);
		for (m = 1 + (int)(rnd() % 4); m > 0; m--)
			mutate(buf, &len, cap);
		switch (iter % 3) {
		case 0:
			records += parse_fed(buf, len);
			break;
		case 1:
			records += parse_file(fd, buf, len);
			break;
		default:
			records += parse_ring(buf, len);
			break;
		}
	}
	fprintf(stderr, "fuzz: seed 0x%llx, %zu mutated logs, %zu records parsed\n",
		(unsigned long long)seed, iter, records);
	ck_assert_uint_gt(iter, 100);
	close(fd);
	free(buf);
	lb_free(&b);
}
END_TEST

Suite *fuzz_suite(void)
{
	Suite *s = suite_create("fuzz");
	TCase *tc = tcase_create("fuzz");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, random_mutations_never_crash_the_parser);
	suite_add_tcase(s, tc);
	return s;
}
