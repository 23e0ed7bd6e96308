// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot.c - benchmark 2, set snapshot: the cost of reading 4 counting
 * software counters of the calling process at once:
 *   readset    4 self-attached PMCs read with PMC_OP_PMCREADSET;
 *   libcpc     a libcpc set of the 4 events bound with cpc_bind_curlwp,
 *              read with cpc_set_sample (what an illumos program does);
 *   perfgroup  a perf_event_open(2) group of the 4 events read with one
 *              read(2) of PERF_FORMAT_GROUP (the Linux baseline).
 *
 *   bench-snapshot readset|libcpc|perfgroup COUNT
 *	prints "ns_per_snapshot=N task_clock_delta=N"
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <libcpc.h>

#include "lib/counters.h"
#include "lib/timing.h"

#define NEVENTS 4

/* task-clock first: it is the perf group's leader and moves every read. */
static const char *const events[NEVENTS] = {
	"task-clock", "context-switches", "page-faults", "cpu-migrations",
};

struct snap {
	/* readset */
	int fd;
	uint32_t ids[NEVENTS];
	/* libcpc */
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *buf;
	/* perfgroup: nr, then one value per event */
	uint64_t group[1 + NEVENTS];
	/* all: the values of the last snapshot */
	uint64_t values[NEVENTS];
};

static int snap_readset(void *arg)
{
	struct snap *s = arg;
	struct pmc_op_pmcreadset rs = {
		.pm_count = NEVENTS,
		.pm_ids = (uint64_t)(uintptr_t)s->ids,
		.pm_values = (uint64_t)(uintptr_t)s->values,
	};

	return ioctl(s->fd, PMC_IOC_PMCREADSET, &rs) < 0 ? -1 : 0;
}

static int snap_libcpc(void *arg)
{
	struct snap *s = arg;

	if (cpc_set_sample(s->cpc, s->set, s->buf) < 0)
		return -1;
	return cpc_buf_get(s->cpc, s->buf, 0, &s->values[0]);
}

static int snap_perfgroup(void *arg)
{
	struct snap *s = arg;
	ssize_t n = read(s->fd, s->group, sizeof(s->group));

	if (n != (ssize_t)sizeof(s->group)) {
		if (n >= 0)
			errno = EIO;
		return -1;
	}
	memcpy(s->values, &s->group[1], sizeof(s->values));
	return 0;
}

static void setup_readset(struct snap *s)
{
	int i;

	s->fd = pmcdev_open();
	for (i = 0; i < NEVENTS; i++) {
		s->ids[i] = pmcdev_alloc(s->fd, PMC_MODE_TC,
					 bench_soft_event(events[i]), 0, 0);
		pmcdev_start(s->fd, s->ids[i]);
	}
}

static void setup_libcpc(struct snap *s)
{
	int i;

	s->cpc = cpc_open(CPC_VER_CURRENT);
	if (!s->cpc)
		bench_die(errno, "cpc_open");
	s->set = cpc_set_create(s->cpc);
	if (!s->set)
		bench_die(errno, "cpc_set_create");
	for (i = 0; i < NEVENTS; i++)
		if (cpc_set_add_request(s->cpc, s->set, events[i], 0,
					CPC_COUNT_USER | CPC_COUNT_SYSTEM,
					0, NULL) < 0)
			bench_die(errno, "cpc_set_add_request(%s)", events[i]);
	if (cpc_bind_curlwp(s->cpc, s->set, 0) < 0)
		bench_die(errno, "cpc_bind_curlwp");
	s->buf = cpc_buf_create(s->cpc, s->set);
	if (!s->buf)
		bench_die(errno, "cpc_buf_create");
}

static void setup_perfgroup(struct snap *s)
{
	uint64_t fmt = PERF_FORMAT_GROUP;
	int i;

	s->fd = perf_open(bench_soft_event(events[0]), 0, -1, fmt);
	for (i = 1; i < NEVENTS; i++)
		perf_open(bench_soft_event(events[i]), 0, s->fd, fmt);
}

int main(int argc, char **argv)
{
	struct snap s = { .fd = -1 };
	int (*op)(void *arg);
	unsigned long count;
	uint64_t first;
	double ns;

	bench_init(argv[0]);
	if (argc != 3)
		bench_die(0, "usage: bench-snapshot readset|libcpc|perfgroup COUNT");
	count = bench_count_arg(argv[2], "COUNT");
	if (!strcmp(argv[1], "readset")) {
		setup_readset(&s);
		op = snap_readset;
	} else if (!strcmp(argv[1], "libcpc")) {
		setup_libcpc(&s);
		op = snap_libcpc;
	} else if (!strcmp(argv[1], "perfgroup")) {
		setup_perfgroup(&s);
		op = snap_perfgroup;
	} else {
		bench_die(0, "unknown way '%s' (readset, libcpc or perfgroup)",
			  argv[1]);
	}
	if (op(&s) < 0)
		bench_die(errno, "first snapshot");
	first = s.values[0];
	ns = bench_per_op_ns("snapshot", op, &s, count, count / 10);
	if (s.values[0] <= first)
		bench_die(0, "task-clock did not advance (%llu -> %llu)",
			  (unsigned long long)first,
			  (unsigned long long)s.values[0]);
	printf("ns_per_snapshot=%.1f task_clock_delta=%llu\n", ns,
	       (unsigned long long)(s.values[0] - first));
	return 0;
}
