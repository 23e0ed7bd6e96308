/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpc_util.h - helpers of the libcpc VM tests: workloads with an
 * independent measure (thread CPU time, fresh pages), the probe that skips
 * a test when /dev/pmc is absent and fails it when a set cannot be bound,
 * and a quiet error handler.
 */
#ifndef _CPC_UTIL_H
#define _CPC_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Burn @ns of this thread's CPU time. */
static inline void spin_cpu_ns(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;
	volatile uint64_t x = 0;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
}

/*
 * Touch @n fresh anonymous pages once each (no huge pages): exactly @n user
 * page faults. Returns 0, or -1 if the mapping failed.
 */
static inline int touch_pages(size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *p;
	size_t i;

	p = mmap(NULL, n * (size_t)pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	madvise((void *)p, n * (size_t)pg, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * (size_t)pg] = 1;
	munmap((void *)p, n * (size_t)pg);
	return 0;
}

static inline void cpc_quiet(const char *fn, int subcode, const char *fmt,
			     va_list ap)
{
	(void)fn;
	(void)subcode;
	(void)fmt;
	(void)ap;
}

/*
 * Can a task-clock set be bound and sampled here? 0: yes. 1: skip, no
 * /dev/pmc (pmc.ko not loaded), with the reason in @why. -1: a failure
 * (ENOTSUP too: every op has landed), in @why.
 */
static inline int cpc_probe(char *why, size_t len)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set;
	cpc_buf_t *buf;
	int ret = 0;

	if (!cpc) {
		snprintf(why, len, "%scpc_open: %s",
			 errno == ENOENT || errno == ENODEV || errno == ENXIO ?
			 "no /dev/pmc (pmc.ko not loaded): " : "",
			 strerror(errno));
		return errno == ENOENT || errno == ENODEV || errno == ENXIO ?
		       1 : -1;
	}
	cpc_seterrhndlr(cpc, cpc_quiet);
	set = cpc_set_create(cpc);
	if (!set || cpc_set_add_request(cpc, set, "task-clock", 0,
					CPC_COUNT_USER, 0, NULL) != 0) {
		snprintf(why, len, "task-clock request: %s", strerror(errno));
		ret = -1;
	} else if (cpc_bind_curlwp(cpc, set, 0) != 0) {
		snprintf(why, len, "cpc_bind_curlwp: %s", strerror(errno));
		ret = -1;
	} else if (!(buf = cpc_buf_create(cpc, set)) ||
		   cpc_set_sample(cpc, set, buf) != 0) {
		snprintf(why, len, "cpc_set_sample: %s", strerror(errno));
		ret = -1;
	}
	cpc_close(cpc);
	return ret;
}

#define REQUIRE_CPC() do {						\
	char _why[256] = "";						\
	int _r = cpc_probe(_why, sizeof(_why));				\
	if (_r > 0)							\
		SKIP(return, "%s", _why);				\
	ASSERT_EQ(0, _r) TH_LOG("%s", _why);				\
} while (0)

static volatile int cpc_probe_signals;

static inline void cpc_probe_handler(int sig)
{
	(void)sig;
	cpc_probe_signals++;
}

/*
 * Does the driver deliver overflow signals? A page-faults counter preset
 * one event short of overflow, and a few faults. 0: yes. -1: no, or a
 * call failed, with the reason in @why (never a skip: the driver has
 * PMC_F_OVF_SIGNAL).
 */
static inline int cpc_ovf_probe(char *why, size_t len)
{
	struct sigaction act = { .sa_handler = cpc_probe_handler }, old;
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	cpc_set_t *set;
	int ret = 0, sig;

	if (!cpc) {
		snprintf(why, len, "cpc_open: %s", strerror(errno));
		return -1;
	}
	cpc_seterrhndlr(cpc, cpc_quiet);
	sig = cpc_ovf_signal(cpc);
	sigaction(sig, &act, &old);
	cpc_probe_signals = 0;
	set = cpc_set_create(cpc);
	if (cpc_set_add_request(cpc, set, "page-faults", UINT64_MAX,
				CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0,
				NULL) != 0) {
		snprintf(why, len, "request: %s", strerror(errno));
		ret = -1;
	} else if (cpc_bind_curlwp(cpc, set, 0) != 0) {
		snprintf(why, len, "bind with CPC_OVF_NOTIFY_EMT: %s",
			 strerror(errno));
		ret = -1;
	} else {
		touch_pages(4);
		cpc_unbind(cpc, set);
		if (!cpc_probe_signals) {
			snprintf(why, len, "no overflow signal after the "
				 "counter wrapped");
			ret = -1;
		}
	}
	cpc_close(cpc);
	sigaction(sig, &old, NULL);
	return ret;
}

#define REQUIRE_OVF_SIGNAL() do {					\
	char _why[256] = "";						\
	int _r = cpc_ovf_probe(_why, sizeof(_why));			\
	ASSERT_EQ(0, _r) TH_LOG("%s", _why);				\
} while (0)

/* |a - b| <= pct % of b */
static inline int within_pct(uint64_t a, uint64_t b, double pct)
{
	double d = (double)a - (double)b;

	if (d < 0)
		d = -d;
	return d <= (double)b * pct / 100.0;
}

#endif /* _CPC_UTIL_H */
