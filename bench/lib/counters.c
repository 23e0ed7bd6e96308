// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - /dev/pmc ops and perf_event_open(2) for the benchmarks (see
 * counters.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "counters.h"
#include "timing.h"

static const struct {
	const char *name;
	uint64_t config;
} soft_events[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
};

uint64_t bench_soft_event(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(soft_events) / sizeof(soft_events[0]); i++)
		if (!strcmp(soft_events[i].name, name))
			return soft_events[i].config;
	bench_die(0, "unknown software event '%s'", name);
}

int bench_pmc_open(void)
{
	int fd = open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		bench_die(errno, "open %s", PMC_DEVICE_PATH);
	return fd;
}

static void bench_pmc_ioctl(int fd, unsigned long req, void *arg, const char *what)
{
	if (ioctl(fd, req, arg) < 0)
		bench_die(errno, "%s", what);
}

uint32_t bench_pmc_alloc(int fd, uint32_t mode, uint64_t config, uint32_t flags,
			 uint64_t count)
{
	return bench_pmc_alloc_cpu(fd, mode, config, flags, count, PMC_CPU_ANY);
}

uint32_t bench_pmc_alloc_cpu(int fd, uint32_t mode, uint64_t config,
			     uint32_t flags, uint64_t count, uint32_t cpu)
{
	struct pmc_op_pmcallocate pa;

	memset(&pa, 0, sizeof(pa));
	pa.pm_caps = PMC_CAP_USER | PMC_CAP_SYSTEM;
	if (PMC_IS_SAMPLING_MODE(mode))
		pa.pm_caps |= PMC_CAP_INTERRUPT;
	pa.pm_cpu = cpu;
	pa.pm_class = PMC_CLASS_SOFT;
	pa.pm_ev = PMC_EV_SOFT_FIRST + (uint32_t)config;
	pa.pm_flags = flags;
	pa.pm_mode = mode;
	pa.pm_count = count;
	pa.pm_md.pm_type = PERF_TYPE_SOFTWARE;
	pa.pm_md.pm_config = config;
	bench_pmc_ioctl(fd, PMC_IOC_PMCALLOCATE, &pa, "PMCALLOCATE");
	return pa.pm_pmcid;
}

void bench_pmc_attach(int fd, uint32_t id, pid_t pid)
{
	struct pmc_op_pmcattach a = { .pm_pmc = id, .pm_pid = pid };

	bench_pmc_ioctl(fd, PMC_IOC_PMCATTACH, &a, "PMCATTACH");
}

static void bench_pmc_simple(int fd, unsigned long req, uint32_t id,
			     const char *what)
{
	struct pmc_op_simple s = { .pm_pmcid = id };

	bench_pmc_ioctl(fd, req, &s, what);
}

void bench_pmc_start(int fd, uint32_t id)
{
	bench_pmc_simple(fd, PMC_IOC_PMCSTART, id, "PMCSTART");
}

void bench_pmc_stop(int fd, uint32_t id)
{
	bench_pmc_simple(fd, PMC_IOC_PMCSTOP, id, "PMCSTOP");
}

void bench_pmc_release(int fd, uint32_t id)
{
	bench_pmc_simple(fd, PMC_IOC_PMCRELEASE, id, "PMCRELEASE");
}

void bench_pmc_configurelog(int fd, int logfd)
{
	struct pmc_op_configurelog cl = { .pm_logfd = logfd };

	bench_pmc_ioctl(fd, PMC_IOC_CONFIGURELOG, &cl, "CONFIGURELOG");
}

void bench_pmc_closelog(int fd)
{
	bench_pmc_ioctl(fd, PMC_IOC_CLOSELOG, NULL, "CLOSELOG");
}

void bench_pmc_stats(int fd, struct pmc_op_getdriverstats *st)
{
	memset(st, 0, sizeof(*st));
	bench_pmc_ioctl(fd, PMC_IOC_GETDRIVERSTATS, st, "GETDRIVERSTATS");
}

int bench_pmc_read(int fd, uint32_t id, uint64_t *value)
{
	struct pmc_op_pmcrw rw = { .pm_pmcid = id };

	if (ioctl(fd, PMC_IOC_PMCRW, &rw) < 0)
		return -1;
	*value = rw.pm_value;
	return 0;
}

/* perf_event_open(2) of software event @config for @pid on @cpu. */
static int perf_open_on(uint64_t config, pid_t pid, int cpu, int group_fd,
			uint64_t read_format)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.read_format = read_format;
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, group_fd,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		bench_die(errno, "perf_event_open(config %llu, pid %d, cpu %d)",
			  (unsigned long long)config, (int)pid, cpu);
	return (int)fd;
}

int perf_open(uint64_t config, pid_t pid, int group_fd, uint64_t read_format)
{
	return perf_open_on(config, pid, -1, group_fd, read_format);
}

int perf_open_cpu(uint64_t config, int cpu)
{
	return perf_open_on(config, -1, cpu, -1, 0);
}
