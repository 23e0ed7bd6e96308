// SPDX-License-Identifier: GPL-2.0
/*
 * pmc-demo - what `make run` shows a newcomer: real counts of a real
 * workload through /dev/pmc, set beside what the kernel's rusage says.
 *
 * It speaks the raw ioctl ABI (include/uapi/pmc/hwpmc.h) so that every step
 * of the hwpmc programming model is visible: version, CPU info, allocate,
 * attach, start, read, release.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <pmc/hwpmc.h>

static const char *class_name(uint32_t c)
{
	switch (c) {
	case PMC_CLASS_TSC: return "TSC";
	case PMC_CLASS_K8: return "K8";
	case PMC_CLASS_IAF: return "IAF";
	case PMC_CLASS_IAP: return "IAP";
	case PMC_CLASS_SOFT: return "SOFT";
	}
	return "?";
}

static int die(const char *what)
{
	fprintf(stderr, "pmc-demo: %s: %s\n", what, strerror(errno));
	return 1;
}

/* The workload: burn about 200 ms of CPU and touch 8 MiB of fresh memory. */
static void workload(void)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;
	size_t len = 8 << 20;
	char *p = malloc(len);

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 200000000L);
	for (size_t i = 0; p && i < len; i += 4096)
		p[i] = 1;
	free(p);
}

struct counter {
	const char *name;
	uint64_t config;
	uint32_t id;
	uint64_t value;
};

int main(void)
{
	struct counter ctr[] = {
		{ .name = "task-clock (ns)", .config = PERF_COUNT_SW_TASK_CLOCK },
		{ .name = "page-faults", .config = PERF_COUNT_SW_PAGE_FAULTS },
		{ .name = "context-switches", .config = PERF_COUNT_SW_CONTEXT_SWITCHES },
	};
	struct pmc_op_getmoduleversion ver = { .pm_version = PMC_VERSION };
	struct pmc_op_getcpuinfo ci;
	struct rusage ru;
	int fd, go[2], status;
	pid_t child;
	unsigned int i;

	fd = open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return die("open " PMC_DEVICE_PATH);
	if (ioctl(fd, PMC_IOC_GETMODULEVERSION, &ver) < 0)
		return die("GETMODULEVERSION");
	if (ioctl(fd, PMC_IOC_GETCPUINFO, &ci) < 0)
		return die("GETCPUINFO");

	printf("pmc module version 0x%08x, cpu %s, %u CPUs, %u rows per CPU\n",
	       ver.pm_version, ci.pm_cpuid, ci.pm_ncpu, ci.pm_npmc);
	for (i = 0; i < ci.pm_nclass; i++)
		printf("  class %-4s %3u rows, %2u bits, caps 0x%04x\n",
		       class_name(ci.pm_classes[i].pm_class), ci.pm_classes[i].pm_num,
		       ci.pm_classes[i].pm_width, ci.pm_classes[i].pm_caps);

	/* The child waits on a pipe until its counters are attached and started. */
	if (pipe(go) < 0)
		return die("pipe");
	child = fork();
	if (child < 0)
		return die("fork");
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		workload();
		_exit(0);
	}
	close(go[0]);

	for (i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++) {
		struct pmc_op_pmcallocate a = {
			.pm_caps = PMC_CAP_USER | PMC_CAP_SYSTEM,
			.pm_cpu = PMC_CPU_ANY,
			.pm_class = PMC_CLASS_SOFT,
			.pm_ev = PMC_EV_SOFT_FIRST + ctr[i].config,
			.pm_mode = PMC_MODE_TC,
			.pm_md = { .pm_type = PERF_TYPE_SOFTWARE, .pm_config = ctr[i].config },
		};
		struct pmc_op_pmcattach at;
		struct pmc_op_simple st;

		if (ioctl(fd, PMC_IOC_PMCALLOCATE, &a) < 0)
			return die("PMCALLOCATE");
		ctr[i].id = a.pm_pmcid;
		at = (struct pmc_op_pmcattach){ .pm_pmc = a.pm_pmcid, .pm_pid = child };
		if (ioctl(fd, PMC_IOC_PMCATTACH, &at) < 0)
			return die("PMCATTACH");
		st = (struct pmc_op_simple){ .pm_pmcid = a.pm_pmcid };
		if (ioctl(fd, PMC_IOC_PMCSTART, &st) < 0)
			return die("PMCSTART");
	}
	printf("\ncounting child %d (200 ms of CPU, 8 MiB of new memory) ...\n", child);
	if (write(go[1], "g", 1) != 1)
		return die("write");
	if (wait4(child, &status, 0, &ru) < 0)
		return die("wait4");

	for (i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++) {
		struct pmc_op_pmcrw rw = { .pm_flags = PMC_F_OLDVALUE, .pm_pmcid = ctr[i].id };
		struct pmc_op_simple rel = { .pm_pmcid = ctr[i].id };

		if (ioctl(fd, PMC_IOC_PMCRW, &rw) < 0)
			return die("PMCRW");
		ctr[i].value = rw.pm_value;
		ioctl(fd, PMC_IOC_PMCRELEASE, &rel);
	}

	printf("\n%-18s %16s   %s\n", "event", "via /dev/pmc", "kernel rusage of the child");
	printf("%-18s %16llu   %.0f ns of user+system time\n", ctr[0].name,
	       (unsigned long long)ctr[0].value,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3);
	printf("%-18s %16llu   %ld minor + %ld major faults\n", ctr[1].name,
	       (unsigned long long)ctr[1].value, ru.ru_minflt, ru.ru_majflt);
	printf("%-18s %16llu   %ld voluntary + %ld involuntary\n", ctr[2].name,
	       (unsigned long long)ctr[2].value, ru.ru_nvcsw, ru.ru_nivcsw);
	close(fd);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
