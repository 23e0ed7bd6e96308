// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot.c - benchmark 2, set snapshot: the cost of reading 4 counting
 * software counters of the calling process at once:
 *   readset    4 self-attached PMCs read with PMC_OP_PMCREADSET;
 *   libcpc     a libcpc set of the 4 events bound with cpc_bind_curlwp,
 *              read with cpc_set_sample (what an illumos program does);
 *   perfgroup  a perf_event_open(2) group of the 4 events read with one
 *              read(2) of PERF_FORMAT_GROUP (the Linux baseline);
 *   selfread   the libcpc set, cpc_set_sample through the set's self-read
 *              page (issue 12): no system call for the entries the page
 *              can give, one PMCREADSET for the set otherwise (this driver
 *              gives SYSCALL entries while the thread runs);
 *   selfread-stopped  the same with the set stopped (cpc_disable): STATIC
 *              entries, no system call;
 *   perfmmap   perf's self-monitoring baseline: the group with each event's
 *              perf_event_mmap_page read under its seqlock, and one group
 *              read(2) where an event cannot be read in user space (index
 *              0: every software event);
 *   ring       the 4 events bound to CPU 0 with cpc_bind_cpu and a 1 ms
 *              snapshot period, COUNT/20 snapshots consumed in batches
 *              every 20 ms (cpc_snapshot_next until EAGAIN, then sleep;
 *              poll(2) on the ring only when a batch found nothing): the
 *              consumer's CPU time per snapshot reading the batch from the
 *              mapped ring (ns_per_snapshot), and the same with its sleep
 *              and wake-up (wake_ns_per_snapshot), each the median of the
 *              batches' CPU time per snapshot (as bench_per_op_ns() takes
 *              the median of batch means); the kernel's hrtimer work runs
 *              in IRQ context and is in neither; the drain's clock starts
 *              at the second clock read after the sleep (run_ring()).
 *              Compare the first with perfgroup (a read per snapshot),
 *              the second with perfsleep;
 *   perfsleep  the perf group read once per millisecond, as a program
 *              wanting the ring's 1 ms series from perf must: usleep(1000),
 *              read(2); the median thread CPU time per read, the sleep and
 *              wake-up included (COUNT/20 reads).
 *
 *   bench-snapshot readset|libcpc|perfgroup|selfread|selfread-stopped|perfmmap COUNT
 *	prints "ns_per_snapshot=N task_clock_delta=N"
 *   bench-snapshot ring COUNT
 *	prints "ns_per_snapshot=N wake_ns_per_snapshot=N mean_ns=N
 *	snapshots=N batches=N" (mean_ns: the whole run's CPU time per snapshot)
 *   bench-snapshot perfsleep COUNT
 *	prints "ns_per_snapshot=N reads=N"
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
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
	/* perfmmap: each event's fd and mmap'd page */
	int fds[NEVENTS];
	struct perf_event_mmap_page *pages[NEVENTS];
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

/*
 * perf's self-monitoring read (perf_event_open(2), "rdpmc"): each event's
 * page under its seqlock; an event with index 0 (not on a counter this
 * thread can rdpmc) needs the system call, and one group read gives all.
 */
static int snap_perfmmap(void *arg)
{
	struct snap *s = arg;
	bool syscall_needed = false;
	int i;

	for (i = 0; i < NEVENTS; i++) {
		struct perf_event_mmap_page *pc = s->pages[i];
		uint32_t seq, idx;
		int64_t count;

		do {
			seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
			idx = pc->index;
			count = pc->offset;
			if (pc->cap_user_rdpmc && idx) {
#if defined(__x86_64__) || defined(__i386__)
				uint32_t lo, hi;

				__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi)
						     : "c"(idx - 1));
				count += (int64_t)(((uint64_t)hi << 32) | lo);
#endif /* x86 */
			}
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
		} while (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) != seq);
		if (!pc->cap_user_rdpmc || !idx) {
			syscall_needed = true;
			break;
		}
		s->values[i] = (uint64_t)count;
	}
	return syscall_needed ? snap_perfgroup(s) : 0;
}

static void setup_perfmmap(struct snap *s)
{
	uint64_t fmt = PERF_FORMAT_GROUP;
	long page = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < NEVENTS; i++) {
		s->fds[i] = perf_open(bench_soft_event(events[i]), 0,
				      i ? s->fds[0] : -1, fmt);
		s->pages[i] = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED,
				   s->fds[i], 0);
		if (s->pages[i] == MAP_FAILED)
			bench_die(errno, "mmap of perf event %s", events[i]);
	}
	s->fd = s->fds[0];
}

static void setup_readset(struct snap *s)
{
	int i;

	s->fd = bench_pmc_open();
	for (i = 0; i < NEVENTS; i++) {
		s->ids[i] = bench_pmc_alloc(s->fd, PMC_MODE_TC,
					    bench_soft_event(events[i]), 0, 0);
		bench_pmc_start(s->fd, s->ids[i]);
	}
}

static void setup_libcpc(struct snap *s, bool selfread)
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
	/* libcpc maps the page where the driver has one: say which path. */
	if (cpc_set_selfread(s->cpc, s->set, selfread) < 0)
		bench_die(errno, "cpc_set_selfread(%d)", selfread);
	s->buf = cpc_buf_create(s->cpc, s->set);
	if (!s->buf)
		bench_die(errno, "cpc_buf_create");
}

static void setup_perfgroup(struct snap *s);

/* The calling thread's CPU time (the scheduler's exact runtime), in ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * ring: the consumer's CPU time per snapshot of a CPU-bound set written
 * every millisecond; prints the figures and exits. A batch is a sleep (or
 * a wait for the ring when the last batch found nothing) and the drain
 * after it: the drain's thread CPU time, and the whole batch's, over the
 * snapshots it read.
 */
static void run_ring(unsigned long count)
{
	unsigned long want = count / 20 < 20 ? 20 : count / 20, got = 0, n;
	uint64_t cpu0, cpu1, t0, t1, tw, first = 0, last = 0, v;
	struct pollfd pfd = { .events = POLLIN };
	struct bench_stats st, stw;
	size_t nb = 0, maxb;
	double *per, *wper;
	cpc_set_t *set;
	cpc_buf_t *buf;
	cpc_t *cpc;
	int i;

	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc)
		bench_die(errno, "cpc_open");
	set = cpc_set_create(cpc);
	for (i = 0; i < NEVENTS; i++)
		if (cpc_set_add_request(cpc, set, events[i], 0,
					CPC_COUNT_USER | CPC_COUNT_SYSTEM,
					0, NULL) < 0)
			bench_die(errno, "cpc_set_add_request(%s)", events[i]);
	buf = cpc_buf_create(cpc, set);
	if (!buf || cpc_set_sample_period(cpc, set, CPC_SAMPLE_PERIOD_MIN) < 0)
		bench_die(errno, "cpc_set_sample_period");
	if (cpc_bind_cpu(cpc, 0, set, 0) < 0)
		bench_die(errno, "cpc_bind_cpu with a snapshot period");
	pfd.fd = cpc_snapshot_fd(cpc);
	/* Batches of at least one snapshot: at most one per snapshot. */
	maxb = want;
	per = calloc(maxb, sizeof(*per));
	wper = calloc(maxb, sizeof(*wper));
	if (!per || !wper)
		bench_die(errno, "calloc");
	n = 0;
	cpu0 = t0 = tw = thread_cpu_ns();
	while (got < want) {
		if (cpc_snapshot_next(cpc, set, buf) == 0) {
			cpc_buf_get(cpc, buf, 0, &v);
			if (!got)
				first = v;
			last = v;
			got++;
			n++;
			continue;
		}
		if (errno != EAGAIN)
			bench_die(errno, "cpc_snapshot_next");
		t1 = thread_cpu_ns();
		if (n && nb < maxb) {
			per[nb] = (double)(t1 - t0) / (double)n;
			wper[nb++] = (double)(t1 - tw) / (double)n;
		}
		/*
		 * Nothing in the last batch: wait for the ring. Then let a
		 * batch gather.
		 */
		if (!n && poll(&pfd, 1, 1000) < 0)
			bench_die(errno, "poll");
		n = 0;
		tw = t1;
		usleep(20000);
		/*
		 * The clock is a system call, and the first one after the
		 * sleep is slow (21..30 us under x86 TCG against 1.5..2,
		 * about half of it after the clock's own sample: inside the
		 * drain's figure). That is the instrument's cost, not the
		 * reader's, which makes no system call: read it twice.
		 */
		(void)thread_cpu_ns();
		t0 = thread_cpu_ns();
	}
	cpu1 = thread_cpu_ns();
	if (last <= first)
		bench_die(0, "task-clock did not advance (%llu -> %llu)",
			  (unsigned long long)first, (unsigned long long)last);
	if (!nb)
		bench_die(0, "no batch of snapshots");
	bench_stats(per, nb, &st);
	bench_stats(wper, nb, &stw);
	printf("ns_per_snapshot=%.1f wake_ns_per_snapshot=%.1f mean_ns=%.1f "
	       "snapshots=%lu batches=%zu\n", st.median, stw.median,
	       (double)(cpu1 - cpu0) / (double)got, got, nb);
	free(per);
	free(wper);
	cpc_close(cpc);
}

/*
 * perfsleep: a perf group read every millisecond; the median thread CPU
 * time of one sleep and read. Prints the figure and exits.
 */
static void run_perfsleep(unsigned long count)
{
	unsigned long want = count / 20 < 20 ? 20 : count / 20, i;
	struct snap s = { .fd = -1 };
	struct bench_stats st;
	uint64_t t0, t1;
	double *per;

	setup_perfgroup(&s);
	per = calloc(want, sizeof(*per));
	if (!per)
		bench_die(errno, "calloc");
	t0 = thread_cpu_ns();
	for (i = 0; i < want; i++) {
		usleep(1000);
		if (snap_perfgroup(&s) < 0)
			bench_die(errno, "perf group read");
		t1 = thread_cpu_ns();
		per[i] = (double)(t1 - t0);
		t0 = t1;
	}
	bench_stats(per, want, &st);
	printf("ns_per_snapshot=%.1f reads=%lu\n", st.median, want);
	free(per);
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
		bench_die(0, "usage: bench-snapshot readset|libcpc|perfgroup|"
			  "selfread|selfread-stopped|perfmmap|ring|perfsleep COUNT");
	count = bench_count_arg(argv[2], "COUNT");
	if (!strcmp(argv[1], "readset")) {
		setup_readset(&s);
		op = snap_readset;
	} else if (!strcmp(argv[1], "libcpc")) {
		setup_libcpc(&s, false);
		op = snap_libcpc;
	} else if (!strcmp(argv[1], "selfread") ||
		   !strcmp(argv[1], "selfread-stopped")) {
		setup_libcpc(&s, true);
		op = snap_libcpc;
	} else if (!strcmp(argv[1], "perfgroup")) {
		setup_perfgroup(&s);
		op = snap_perfgroup;
	} else if (!strcmp(argv[1], "perfmmap")) {
		setup_perfmmap(&s);
		op = snap_perfmmap;
	} else if (!strcmp(argv[1], "ring")) {
		run_ring(count);
		return 0;
	} else if (!strcmp(argv[1], "perfsleep")) {
		run_perfsleep(count);
		return 0;
	} else {
		bench_die(0, "unknown way '%s' (readset, libcpc, perfgroup, "
			  "selfread, selfread-stopped, perfmmap, ring or "
			  "perfsleep)",
			  argv[1]);
	}
	if (op(&s) < 0)
		bench_die(errno, "first snapshot");
	first = s.values[0];
	if (!strcmp(argv[1], "selfread-stopped")) {
		if (cpc_disable(s.cpc) < 0)
			bench_die(errno, "cpc_disable");
		ns = bench_per_op_ns("snapshot", op, &s, count, count / 10);
		printf("ns_per_snapshot=%.1f task_clock_delta=0\n", ns);
		return 0;
	}
	ns = bench_per_op_ns("snapshot", op, &s, count, count / 10);
	if (s.values[0] <= first)
		bench_die(0, "task-clock did not advance (%llu -> %llu)",
			  (unsigned long long)first,
			  (unsigned long long)s.values[0]);
	printf("ns_per_snapshot=%.1f task_clock_delta=%llu\n", ns,
	       (unsigned long long)(s.values[0] - first));
	return 0;
}
