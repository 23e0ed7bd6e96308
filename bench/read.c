// SPDX-License-Identifier: GPL-2.0
/*
 * read.c - benchmark 1, counter read: the cost of reading one self-attached
 * counting task-clock counter, with PMC_OP_PMCRW on /dev/pmc (pmc) or
 * read(2) on the equivalent perf_event_open(2) fd (perf).
 *
 *   bench-read pmc|perf COUNT     prints "ns_per_read=N value_delta=N"
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/counters.h"
#include "lib/timing.h"

struct reader {
	int fd;
	uint32_t id;
	uint64_t value;
};

static int read_pmc(void *arg)
{
	struct reader *r = arg;

	return bench_pmc_read(r->fd, r->id, &r->value);
}

static int read_perf(void *arg)
{
	struct reader *r = arg;
	ssize_t n = read(r->fd, &r->value, sizeof(r->value));

	if (n == (ssize_t)sizeof(r->value))
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

int main(int argc, char **argv)
{
	uint64_t task_clock = bench_soft_event("task-clock");
	struct reader r = { .fd = -1 };
	int (*op)(void *arg);
	unsigned long count;
	uint64_t first;
	double ns;

	bench_init(argv[0]);
	if (argc != 3)
		bench_die(0, "usage: bench-read pmc|perf COUNT");
	count = bench_count_arg(argv[2], "COUNT");
	if (!strcmp(argv[1], "pmc")) {
		r.fd = bench_pmc_open();
		r.id = bench_pmc_alloc(r.fd, PMC_MODE_TC, task_clock, 0, 0);
		/* PMCSTART of an unattached PMC attaches it to its owner. */
		bench_pmc_start(r.fd, r.id);
		op = read_pmc;
	} else if (!strcmp(argv[1], "perf")) {
		r.fd = perf_open(task_clock, 0, -1, 0);
		op = read_perf;
	} else {
		bench_die(0, "unknown side '%s' (pmc or perf)", argv[1]);
	}
	if (op(&r) < 0)
		bench_die(errno, "first read");
	first = r.value;
	ns = bench_per_op_ns("read", op, &r, count, count / 10);
	/* A counter that does not move is not being read. */
	if (r.value <= first)
		bench_die(0, "task-clock did not advance (%llu -> %llu)",
			  (unsigned long long)first,
			  (unsigned long long)r.value);
	printf("ns_per_read=%.1f value_delta=%llu\n", ns,
	       (unsigned long long)(r.value - first));
	return 0;
}
