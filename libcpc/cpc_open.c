// SPDX-License-Identifier: BSD-2-Clause
/*
 * cpc_open.c - the libcpc handle: cpc_open/cpc_close, what the counters are
 * (cpc_npic, cpc_caps, cpc_cciname, cpc_cpuref), error reporting
 * (cpc_seterrhndlr and the illumos messages), the handle lock, and the
 * overflow signal that stands in for SIGEMT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc_impl.h"

/* illumos' errstr[], indexed by subcode; each message ends in a newline. */
static const char *const cpc_errstrs[] = {
	"",
	"Unknown event\n",
	"Invalid counter number\n",
	"Unknown attribute\n",
	"Attribute out of range\n",
	"Hardware resource unavailable\n",
	"Counter cannot count requested event\n",
	"Invalid flags in a request\n",
	"Requests conflict with each other\n",
	"Attribute requires the cpc_cpu privilege\n",
	"Couldn't bind LWP to requested processor\n",
	"Hypervisor event access denied\n",
};

const char *cpc_errstr(int subcode)
{
	if (subcode <= 0 ||
	    subcode >= (int)(sizeof(cpc_errstrs) / sizeof(cpc_errstrs[0])))
		return NULL;
	return cpc_errstrs[subcode];
}

/* Calls the handler through a va_list, as illumos' cpc_err() does. */
static void cpc_call_errfn(cpc_errhndlr_t *fn, const char *name, int subcode,
			   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fn(name, subcode, fmt, ap);
	va_end(ap);
}

/*
 * Report @subcode of function @fn: to the handle's handler, or to stderr as
 * "libcpc: <fn>: <message>". Subcode -1 (no description) reports nothing.
 * errno is preserved.
 */
void cpc_err(cpc_t *cpc, const char *fn, int subcode)
{
	const char *msg = cpc_errstr(subcode);
	int saved = errno;

	if (!msg)
		return;
	if (cpc && cpc->errfn)
		cpc_call_errfn(cpc->errfn, fn, subcode, msg);
	else
		fprintf(stderr, "libcpc: %s: %s", fn, msg);
	errno = saved;
}

int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn)
{
	if (cpc_valid(cpc))
		cpc->errfn = fn;
	return 0;
}

/*
 * The handle lock. The overflow signal is blocked while it is held so that
 * a handler that calls back into libcpc on the same thread cannot deadlock.
 */
void cpc_lock(cpc_t *cpc, sigset_t *saved)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, cpc->ovf_signo);
	pthread_sigmask(SIG_BLOCK, &block, saved);
	pthread_mutex_lock(&cpc->lock);
}

void cpc_unlock(cpc_t *cpc, const sigset_t *saved)
{
	pthread_mutex_unlock(&cpc->lock);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/*
 * The default overflow signal: SIGEMT, which the header defines as SIGIO
 * where the system has none (x86, arm64), a constant, as on illumos.
 */
int cpc_sigemt(void)
{
	return SIGEMT;
}

int cpc_set_ovf_signal(cpc_t *cpc, int signo)
{
	if (!cpc_valid(cpc) || signo < 1 || signo > SIGRTMAX ||
	    signo == SIGKILL || signo == SIGSTOP) {
		errno = EINVAL;
		return -1;
	}
	cpc->ovf_signo = signo;
	return 0;
}

int cpc_ovf_signal(cpc_t *cpc)
{
	if (!cpc_valid(cpc)) {
		errno = EINVAL;
		return -1;
	}
	return cpc->ovf_signo;
}

/* "GenuineIntel-6-85-7" -> vendor, family, model. */
static void cpc_parse_cpuid(const char *cpuid, char *vendor, size_t vlen,
			    unsigned int *family, unsigned int *model)
{
	const char *dash = strchr(cpuid, '-');
	size_t n = dash ? (size_t)(dash - cpuid) : strlen(cpuid);

	if (n >= vlen)
		n = vlen - 1;
	memcpy(vendor, cpuid, n);
	vendor[n] = '\0';
	*family = 0;
	*model = 0;
	if (dash)
		sscanf(dash + 1, "%u-%u", family, model);
}

static void cpc_describe(cpc_t *cpc)
{
	const struct pmc_op_getcpuinfo *ci = &cpc->cpuinfo;
	unsigned int family, model;
	char vendor[PMC_CPUID_LEN];
	const char *events;

	cpc_parse_cpuid(ci->pm_cpuid, vendor, sizeof(vendor), &family, &model);
	events = cpc->pfm_pmu[0] ? cpc->pfm_pmu : "none known to libpfm4";
	if (cpc->gp_class == PMC_CLASS_IAP) {
		snprintf(cpc->cciname, sizeof(cpc->cciname),
			 "Intel Arch PerfMon v%u on Family %u Model %u",
			 ci->pm_perfmon_version, family, model);
		snprintf(cpc->cpuref, sizeof(cpc->cpuref),
			 "See Chapter 20, \"Performance Monitoring\", of the "
			 "Intel 64 and IA-32 Architectures Software Developer's "
			 "Manual, Volume 3B, and Intel's event tables for Family "
			 "%u Model %u. Platform events are libpfm4's (PMU %s), "
			 "in lower case with '.' before the unit mask; generic "
			 "events are perf's (see generic_events(3CPC)); Linux "
			 "software events are those of perf_event_open(2).",
			 family, model, events);
	} else if (cpc->gp_class == PMC_CLASS_K8) {
		snprintf(cpc->cciname, sizeof(cpc->cciname), "%s Family %02xh",
			 strcmp(vendor, "HygonGenuine") ? "AMD" : "Hygon",
			 family);
		snprintf(cpc->cpuref, sizeof(cpc->cpuref),
			 "See the Processor Programming Reference (PPR) or BIOS "
			 "and Kernel Developer's Guide (BKDG) for AMD Family "
			 "%02xh processors. Platform events are libpfm4's (PMU "
			 "%s), in lower case with '.' before the unit mask; "
			 "generic events are perf's (see generic_events(3CPC)); "
			 "Linux software events are those of perf_event_open(2).",
			 family, events);
	} else if (cpc->gp_class == PMC_CLASS_ARMV8) {
		snprintf(cpc->cciname, sizeof(cpc->cciname),
			 "Arm PMUv3 (ID_AA64DFR0_EL1.PMUVer %u), MIDR_EL1 %s",
			 ci->pm_perfmon_version, ci->pm_cpuid);
		snprintf(cpc->cpuref, sizeof(cpc->cpuref),
			 "See the Arm Architecture Reference Manual for A-profile, "
			 "chapter D17 \"The Performance Monitors Extension\" (the "
			 "common events), and the core's Technical Reference "
			 "Manual. Platform events are libpfm4's (PMU %s); "
			 "generic events are perf's (see generic_events(3CPC)); "
			 "Linux software events are those of perf_event_open(2).",
			 events);
	} else {
		snprintf(cpc->cciname, sizeof(cpc->cciname),
			 "Linux Software Events");
		snprintf(cpc->cpuref, sizeof(cpc->cpuref),
			 "No hardware performance counters are available (%s): "
			 "the counters are Linux software events, see "
			 "perf_event_open(2), PERF_TYPE_SOFTWARE. task-clock and "
			 "cpu-clock count nanoseconds.", ci->pm_cpuid);
	}
}

/* Size the counters from GETCPUINFO (see "Counters" in libcpc(3)). */
static void cpc_size_counters(cpc_t *cpc)
{
	const struct pmc_op_getcpuinfo *ci = &cpc->cpuinfo;
	bool interrupt = false;
	uint32_t i;

	for (i = 0; i < ci->pm_nclass && i < PMC_CLASS_MAX; i++) {
		const struct pmc_classinfo *c = &ci->pm_classes[i];

		switch (c->pm_class) {
		case PMC_CLASS_IAP:
		case PMC_CLASS_K8:
		case PMC_CLASS_ARMV8:
			if (!cpc->gp_class && c->pm_num) {
				cpc->gp_class = c->pm_class;
				cpc->ngp = c->pm_num;
			}
			break;
		case PMC_CLASS_IAF:
			cpc->fixed_class = c->pm_num ? PMC_CLASS_IAF : 0;
			cpc->nfixed = c->pm_num > 3 ? 3 : c->pm_num;
			break;
		case PMC_CLASS_SOFT:
			cpc->nsoft = c->pm_num;
			break;
		default:
			continue;
		}
		if (c->pm_num && (c->pm_caps & PMC_CAP_INTERRUPT))
			interrupt = true;
	}
	if (!cpc->gp_class) {
		/* Fixed counters alone are not modelled: no hardware pics. */
		cpc->fixed_class = 0;
		cpc->nfixed = 0;
	}
	if (cpc->gp_class)
		cpc->npic = cpc->ngp + cpc->nfixed;
	else
		cpc->npic = cpc->nsoft > 1 ? cpc->nsoft - 1 : cpc->nsoft;
	if (cpc->npic > CPC_MAX_PICS)
		cpc->npic = CPC_MAX_PICS;
	if (interrupt)
		cpc->caps = CPC_CAP_OVERFLOW_INTERRUPT |
			    CPC_CAP_OVERFLOW_PRECISE;
}

/* LIBCPC_STATS: what the handle's sample paths cost, on stderr. */
static void cpc_print_stats(cpc_t *cpc)
{
	if (!cpc->stats)
		return;
	fprintf(stderr, "libcpc: stats: ioctls=%lu selfreads=%lu "
		"snapshots=%lu ring_records=%llu ring_lost=%llu\n",
		atomic_load(&cpc->n_ioctls), atomic_load(&cpc->n_selfreads),
		atomic_load(&cpc->n_snapshots),
		(unsigned long long)(cpc->ring ? cpc->ring->records : 0),
		(unsigned long long)(cpc->ring ? cpc->ring->lost : 0));
}

static bool env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && !strcmp(v, value);
}

static void cpc_free_handle(cpc_t *cpc)
{
	cpc_print_stats(cpc);
	cpc_ring_fini(cpc);
	cpc_events_fini(cpc);
	pmcdev_close(cpc->fd);
	pthread_mutex_destroy(&cpc->lock);
	cpc->magic = 0;
	free(cpc);
}

cpc_t *cpc_open(int ver)
{
	uint32_t version;
	cpc_t *cpc;
	int err;

	if (ver != CPC_VER_CURRENT) {
		errno = EINVAL;
		return NULL;
	}
	cpc = calloc(1, sizeof(*cpc));
	if (!cpc)
		return NULL;
	cpc->magic = CPC_HANDLE_MAGIC;
	cpc->fd = -1;
	atomic_init(&cpc->next_group, 1);
	pthread_mutex_init(&cpc->lock, NULL);
	cpc->ovf_signo = cpc_sigemt();
	cpc->stats = env_is("LIBCPC_STATS", "1");
	cpc->no_selfread = env_is("LIBCPC_SELFREAD", "0");

	cpc->fd = pmcdev_open();
	if (cpc->fd < 0)
		goto fail;
	if (pmcdev_version(cpc_fd(cpc), &version) < 0 ||
	    pmcdev_cpuinfo(cpc_fd(cpc), &cpc->cpuinfo) < 0)
		goto fail;
	cpc_size_counters(cpc);
	if (cpc_events_init(cpc) < 0)
		goto fail;
	cpc_describe(cpc);
	return cpc;

fail:
	err = errno;
	cpc_free_handle(cpc);
	errno = err;
	return NULL;
}

int cpc_close(cpc_t *cpc)
{
	cpc_set_t *set, *nset;
	cpc_buf_t *buf, *nbuf;
	sigset_t saved;

	if (!cpc_valid(cpc))
		return 0;
	cpc_lock(cpc, &saved);
	for (set = cpc->sets; set; set = set->next)
		if (set->bind != CPC_BIND_NONE)
			cpc_unbind_set(cpc, set);
	for (buf = cpc->bufs; buf; buf = nbuf) {
		nbuf = buf->next;
		cpc_buf_free(buf);
	}
	for (set = cpc->sets; set; set = nset) {
		nset = set->next;
		cpc_set_free(set);
	}
	cpc->bufs = NULL;
	cpc->sets = NULL;
	cpc_unlock(cpc, &saved);
	cpc_free_handle(cpc);
	return 0;
}

uint_t cpc_npic(cpc_t *cpc)
{
	return cpc_valid(cpc) ? cpc->npic : 0;
}

uint_t cpc_caps(cpc_t *cpc)
{
	return cpc_valid(cpc) ? cpc->caps : 0;
}

const char *cpc_cciname(cpc_t *cpc)
{
	return cpc_valid(cpc) ? cpc->cciname : "";
}

const char *cpc_cpuref(cpc_t *cpc)
{
	return cpc_valid(cpc) ? cpc->cpuref : "";
}

void cpc_terminate(cpc_t *cpc)
{
	if (cpc_valid(cpc))
		cpc_pctx_terminate_all(cpc);
}
