// SPDX-License-Identifier: GPL-2.0
/*
 * count.c - the user program of the package install test
 * (selftests/deb/install-test). It is built in the VM against the
 * installed libpmc-dev and libcpc-dev packages only:
 *
 *	cc count.c $(pkg-config --cflags --libs libpmc libcpc)
 *
 * and counts its own task-clock (a software event: a TCG guest has no
 * hardware PMU) over 50 ms of CPU time, once through pmc(3) and once
 * through libcpc(3LIB). Each count must be within a factor of two of the
 * CPU time the process spent meanwhile (it is the same clock: the slack
 * is for a busy emulated machine). Exit status 0 when both count.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libcpc.h>
#include <pmc.h>

#define SPIN_NS	(50 * 1000 * 1000ULL)

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void spin(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		;
}

/* A count of @cpu ns of CPU time: within a factor of two. */
static int plausible(const char *api, uint64_t count, uint64_t cpu)
{
	int ok = count >= cpu / 2 && count <= cpu * 2;

	printf("%s: task-clock %" PRIu64 " ns, CPU time %" PRIu64 " ns: %s\n",
	       api, count, cpu, ok ? "ok" : "implausible");
	return ok ? 0 : -1;
}

static int count_pmc(void)
{
	uint64_t c0, c1;
	pmc_value_t v;
	pmc_id_t id;

	if (pmc_init() < 0) {
		printf("pmc_init: %s\n", strerror(errno));
		return -1;
	}
	/* ",usr": user mode only, which needs no privilege (pmc(4)). */
	if (pmc_allocate("SOFT-task-clock,usr", PMC_MODE_TC, 0, PMC_CPU_ANY,
			 &id, 0) < 0) {
		printf("pmc_allocate(SOFT-task-clock,usr): %s\n", strerror(errno));
		return -1;
	}
	c0 = cpu_ns();
	if (pmc_start(id) < 0) {
		printf("pmc_start: %s\n", strerror(errno));
		pmc_release(id);
		return -1;
	}
	spin(SPIN_NS);
	if (pmc_stop(id) < 0 || pmc_read(id, &v) < 0) {
		printf("pmc_stop/pmc_read: %s\n", strerror(errno));
		pmc_release(id);
		return -1;
	}
	c1 = cpu_ns();
	pmc_release(id);
	return plausible("pmc(3)", v, c1 - c0);
}

static int count_cpc(void)
{
	cpc_buf_t *before, *after;
	uint64_t c0, c1, v0, v1;
	cpc_set_t *set;
	int ret = -1;
	cpc_t *cpc;
	int idx;

	cpc = cpc_open(CPC_VER_CURRENT);
	if (!cpc) {
		printf("cpc_open: %s\n", strerror(errno));
		return -1;
	}
	set = cpc_set_create(cpc);
	idx = set ? cpc_set_add_request(cpc, set, "task-clock", 0,
					CPC_COUNT_USER, 0, NULL) : -1;
	before = idx >= 0 ? cpc_buf_create(cpc, set) : NULL;
	after = before ? cpc_buf_create(cpc, set) : NULL;
	if (!after) {
		printf("cpc set and buffers for task-clock: %s\n", strerror(errno));
		goto out;
	}
	if (cpc_bind_curlwp(cpc, set, 0) < 0) {
		printf("cpc_bind_curlwp: %s\n", strerror(errno));
		goto out;
	}
	c0 = cpu_ns();
	if (cpc_set_sample(cpc, set, before) < 0)
		goto sample;
	spin(SPIN_NS);
	if (cpc_set_sample(cpc, set, after) < 0)
		goto sample;
	c1 = cpu_ns();
	cpc_buf_get(cpc, before, idx, &v0);
	cpc_buf_get(cpc, after, idx, &v1);
	ret = plausible("libcpc", v1 - v0, c1 - c0);
	cpc_unbind(cpc, set);
	goto out;
sample:
	printf("cpc_set_sample: %s\n", strerror(errno));
	cpc_unbind(cpc, set);
out:
	/* cpc_close() frees the sets and buffers too. */
	cpc_close(cpc);
	return ret;
}

int main(void)
{
	int ret = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (count_pmc() < 0)
		ret = 1;
	if (count_cpc() < 0)
		ret = 1;
	return ret;
}
