// SPDX-License-Identifier: BSD-2-Clause
/*
 * unit_main.c - libpmc's host unit tests (libcheck, each test forked), the
 * fake machines they parse specifiers for, and the pmclog record builder.
 * TAP goes where CK_TAP_LOG_FILE_NAME says.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "unit.h"

static const struct pmc_dyn_event_descr unit_soft[] = {
	{ "cpu-clock", PMC_EV_SOFT_FIRST + PERF_COUNT_SW_CPU_CLOCK,
	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PMC_EV_SOFT_FIRST + PERF_COUNT_SW_TASK_CLOCK,
	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PMC_EV_SOFT_FIRST + PERF_COUNT_SW_PAGE_FAULTS,
	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PMC_EV_SOFT_FIRST + PERF_COUNT_SW_CONTEXT_SWITCHES,
	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PMC_EV_SOFT_FIRST + PERF_COUNT_SW_CPU_MIGRATIONS,
	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PMC_EV_SOFT_FIRST + PERF_COUNT_SW_PAGE_FAULTS_MIN,
	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PMC_EV_SOFT_FIRST + PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PMC_EV_SOFT_FIRST + PERF_COUNT_SW_ALIGNMENT_FAULTS,
	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PMC_EV_SOFT_FIRST + PERF_COUNT_SW_EMULATION_FAULTS,
	  PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
};

#define HW_CAPS (PMC_CAP_INTERRUPT | PMC_CAP_USER | PMC_CAP_SYSTEM | \
		 PMC_CAP_EDGE | PMC_CAP_THRESHOLD | PMC_CAP_READ | \
		 PMC_CAP_WRITE | PMC_CAP_INVERT | PMC_CAP_QUALIFIER)
#define SOFT_CAPS (PMC_CAP_INTERRUPT | PMC_CAP_USER | PMC_CAP_SYSTEM | \
		   PMC_CAP_READ | PMC_CAP_WRITE)
#define TSC_CAPS (PMC_CAP_READ | PMC_CAP_SYSWIDE)

static const struct pmc_cpuinfo unit_cpus[] = {
	[UNIT_INTEL] = {
		.pm_cputype = PMC_CPU_INTEL_CORE, .pm_ncpu = 4, .pm_npmc = 24,
		.pm_nclass = 4,
		.pm_classes = {
			{ PMC_CLASS_TSC, TSC_CAPS, 64, 1 },
			{ PMC_CLASS_IAP, HW_CAPS, 48, 4 },
			{ PMC_CLASS_IAF, HW_CAPS & ~(PMC_CAP_EDGE | PMC_CAP_THRESHOLD |
				PMC_CAP_INVERT | PMC_CAP_QUALIFIER), 48, 3 },
			{ PMC_CLASS_SOFT, SOFT_CAPS, 64, 16 },
		},
		.pm_cpuid = "GenuineIntel-6-85-7",
	},
	[UNIT_AMD] = {
		.pm_cputype = PMC_CPU_AMD_K8, .pm_ncpu = 4, .pm_npmc = 23,
		.pm_nclass = 3,
		.pm_classes = {
			{ PMC_CLASS_TSC, TSC_CAPS, 64, 1 },
			{ PMC_CLASS_K8, HW_CAPS, 48, 6 },
			{ PMC_CLASS_SOFT, SOFT_CAPS, 64, 16 },
		},
		.pm_cpuid = "AuthenticAMD-25-1-1",
	},
	[UNIT_GENERIC] = {
		.pm_cputype = PMC_CPU_GENERIC, .pm_ncpu = 2, .pm_npmc = 17,
		.pm_nclass = 2,
		.pm_classes = {
			{ PMC_CLASS_TSC, TSC_CAPS, 64, 1 },
			{ PMC_CLASS_SOFT, SOFT_CAPS, 64, 16 },
		},
		.pm_cpuid = "AuthenticAMD-15-107-1",
	},
	[UNIT_SOFT_ONLY] = {
		.pm_cputype = PMC_CPU_GENERIC, .pm_ncpu = 1, .pm_npmc = 16,
		.pm_nclass = 1,
		.pm_classes = { { PMC_CLASS_SOFT, SOFT_CAPS, 64, 16 } },
	},
};

static struct pmc_mdesc unit_mdescs[PMC_ARRAY_SIZE(unit_cpus)];

const struct pmc_mdesc *unit_machine(enum unit_machine which)
{
	struct pmc_mdesc *m = &unit_mdescs[which];

	m->cpu = &unit_cpus[which];
	m->soft = unit_soft;
	m->nsoft = PMC_ARRAY_SIZE(unit_soft);
	return m;
}

void fake_ring_make(struct fake_ring *r, size_t size, uint64_t start)
{
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	r->size = size;
	r->map = aligned_alloc(r->page, r->page + r->size);
	ck_assert_ptr_nonnull(r->map);
	memset(r->map, 0, r->page + r->size);
	r->ctl = r->map;
	r->data = (unsigned char *)r->map + r->page;
	r->ctl->pr_version = PMC_RING_VERSION;
	r->ctl->pr_page_size = (uint32_t)r->page;
	r->ctl->pr_data_offset = r->page;
	r->ctl->pr_data_size = r->size;
	r->ctl->pr_data_head = start;
	r->ctl->pr_data_tail = start;
}

void fake_ring_produce(struct fake_ring *r, const void *p, size_t len)
{
	uint64_t head = r->ctl->pr_data_head;
	size_t i;

	ck_assert_uint_le(head + len - r->ctl->pr_data_tail, r->size);
	for (i = 0; i < len; i++)
		r->data[(head + i) & (r->size - 1)] = ((const unsigned char *)p)[i];
	__atomic_store_n(&r->ctl->pr_data_head, head + len, __ATOMIC_RELEASE);
}

struct pmclog_parser *fake_ring_open(struct fake_ring *r)
{
	struct pmclog_parser *ps = calloc(1, sizeof(*ps));

	ck_assert_ptr_nonnull(ps);
	ps->src = PMCLOG_SRC_RING;
	ps->fd = -1;
	ck_assert_int_eq(pmcdev_ring_attach(&ps->ring, r->map,
					    r->page + r->size, r->page), 0);
	ck_assert_int_eq(pmclog__ring_init(ps), 0);
	return ps;
}

void fake_ring_free(struct fake_ring *r)
{
	free(r->map);
	r->map = NULL;
}

void lb_raw(struct logbuf *b, const void *p, size_t len)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + len)
			cap *= 2;
		b->p = realloc(b->p, cap);
		ck_assert_ptr_nonnull(b->p);
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

void lb_add(struct logbuf *b, uint32_t type, void *fixed, size_t fixedlen,
	    const void *extra, size_t extralen, uint64_t tsc)
{
	static const unsigned char zeros[8];
	size_t pad = (8 - extralen % 8) % 8;
	struct pmclog_header *h = fixed;

	h->pl_header = PMCLOG_HEADER(type, fixedlen + extralen + pad);
	h->pl_seq = b->seq++;
	h->pl_tsc = tsc;
	lb_raw(b, fixed, fixedlen);
	if (extralen)
		lb_raw(b, extra, extralen);
	lb_raw(b, zeros, pad);
}

void lb_free(struct logbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int main(void)
{
	SRunner *sr = srunner_create(names_suite());
	int failed;

	srunner_add_suite(sr, spec_suite());
	srunner_add_suite(sr, log_suite());
	srunner_add_suite(sr, ring_suite());
	srunner_add_suite(sr, selfread_suite());
	srunner_add_suite(sr, fuzz_suite());
	/* Tests set LIBPFM_FORCE_PMU: each needs its own process. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
