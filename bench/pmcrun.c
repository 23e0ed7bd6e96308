// SPDX-License-Identifier: GPL-2.0
/*
 * pmcrun.c - run a command under one process-scope PMC, as pmcstat(8) -p/-P
 * would (and as `perf stat` / `perf record` do on the Linux side): the
 * command is forked, waits until the PMC is attached to it and started,
 * then execs. Used by benchmarks 3 (sampling into a log file) and 4
 * (counting a ping-pong with DESCENDANTS, with or without PROCCSW records).
 * With -a, system-wide instead, as pmcstat -s/-S (perf stat -a, perf record
 * -a): one system-scope PMC on each online CPU, started before the command
 * runs (benchmark 6).
 *
 *   bench-pmcrun [-a] [-e EVENT] [-m tc|ts] [-c COUNT] [-g] [-d] [-P]
 *                [-o LOG] -- CMD [ARGS...]
 *	-a  system scope, every CPU (modes sc and ss)
 *	-e  software event (default task-clock)
 *	-m  counting (tc, default) or sampling (ts) mode
 *	-c  sampling period / initial count
 *	-g  PMC_F_CALLCHAIN    -d  PMC_F_DESCENDANTS    -P  PMC_F_LOG_PROCCSW
 *	-o  log file (PMC_OP_CONFIGURELOG), needed by ts and -P
 *
 * The command's stdout and stderr are ours. At the end one line on stderr:
 * "pmcrun: value=N intr_processed=N bufferfull=N bufreq_failed=N
 * ring_dropped=N" (the PMC's value, the sum of the CPUs' with -a, and the
 * driver statistics' change over the run). Exits with the command's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/counters.h"
#include "lib/timing.h"

/* The CPUs a -a run counts on (one PMC each). */
#define PMCRUN_MAX_CPUS 256

struct pmcrun_opts {
	uint64_t config;
	uint32_t mode;
	uint32_t flags;
	uint64_t count;
	const char *log;
	int system;
};

static void parse(int argc, char **argv, struct pmcrun_opts *o)
{
	int c;

	o->config = bench_soft_event("task-clock");
	o->mode = PMC_MODE_TC;
	while ((c = getopt(argc, argv, "+ae:m:c:gdPo:")) != -1) {
		switch (c) {
		case 'a':
			o->system = 1;
			break;
		case 'e':
			o->config = bench_soft_event(optarg);
			break;
		case 'm':
			if (!strcmp(optarg, "tc"))
				o->mode = PMC_MODE_TC;
			else if (!strcmp(optarg, "ts"))
				o->mode = PMC_MODE_TS;
			else
				bench_die(0, "-m takes tc or ts, not '%s'", optarg);
			break;
		case 'c':
			o->count = bench_count_arg(optarg, "-c");
			break;
		case 'g':
			o->flags |= PMC_F_CALLCHAIN;
			break;
		case 'd':
			o->flags |= PMC_F_DESCENDANTS;
			break;
		case 'P':
			o->flags |= PMC_F_LOG_PROCCSW;
			break;
		case 'o':
			o->log = optarg;
			break;
		default:
			exit(2);
		}
	}
	if (optind >= argc)
		bench_die(0, "no command (usage: bench-pmcrun [options] -- CMD...)");
	if (o->system && (o->flags & (PMC_F_DESCENDANTS | PMC_F_LOG_PROCCSW)))
		bench_die(0, "-a counts CPUs: -d and -P are for a process");
	if (o->system)
		o->mode = o->mode == PMC_MODE_TS ? PMC_MODE_SS : PMC_MODE_SC;
}

/* Fork @argv; the child execs it after reading one byte from *@go_w's pipe. */
static pid_t spawn_waiting(char **argv, int *go_w)
{
	int go[2];
	pid_t pid;
	char b;

	if (pipe2(go, O_CLOEXEC) < 0)
		bench_die(errno, "pipe");
	pid = fork();
	if (pid < 0)
		bench_die(errno, "fork");
	if (!pid) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "bench-pmcrun: exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(go[0]);
	*go_w = go[1];
	return pid;
}

int main(int argc, char **argv)
{
	struct pmc_op_getdriverstats s0, s1;
	struct pmcrun_opts o = { 0 };
	int fd, logfd = -1, go, status;
	uint32_t ids[PMCRUN_MAX_CPUS];
	uint64_t value = 0, v;
	long ncpu = 1, i;
	pid_t pid;

	bench_init(argv[0]);
	parse(argc, argv, &o);
	fd = bench_pmc_open();
	if (o.log) {
		logfd = open(o.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (logfd < 0)
			bench_die(errno, "open %s", o.log);
		bench_pmc_configurelog(fd, logfd);
	}
	if (o.system) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		if (ncpu < 1 || ncpu > PMCRUN_MAX_CPUS)
			bench_die(0, "%ld CPUs online: -a takes 1 to %d", ncpu,
				  PMCRUN_MAX_CPUS);
		for (i = 0; i < ncpu; i++)
			ids[i] = bench_pmc_alloc_cpu(fd, o.mode, o.config,
						     o.flags, o.count,
						     (uint32_t)i);
	} else {
		ids[0] = bench_pmc_alloc(fd, o.mode, o.config, o.flags,
					 o.count);
	}
	pid = spawn_waiting(argv + optind, &go);
	bench_pmc_stats(fd, &s0);
	if (!o.system)
		bench_pmc_attach(fd, ids[0], pid);
	for (i = 0; i < ncpu; i++)
		bench_pmc_start(fd, ids[i]);
	if (write(go, "g", 1) != 1)
		bench_die(errno, "starting the command");
	close(go);
	if (waitpid(pid, &status, 0) < 0)
		bench_die(errno, "waitpid");
	for (i = 0; i < ncpu; i++)
		bench_pmc_stop(fd, ids[i]);
	for (i = 0; i < ncpu && !PMC_IS_SAMPLING_MODE(o.mode); i++) {
		if (bench_pmc_read(fd, ids[i], &v) < 0)
			bench_die(errno, "PMCRW");
		value += v;
	}
	bench_pmc_stats(fd, &s1);
	if (o.log) {
		/* CLOSELOG writes what is buffered, then CLOSELOG, then stops. */
		bench_pmc_closelog(fd);
		close(logfd);
	}
	for (i = 0; i < ncpu; i++)
		bench_pmc_release(fd, ids[i]);
	close(fd);
	fprintf(stderr,
		"pmcrun: value=%llu intr_processed=%llu bufferfull=%llu bufreq_failed=%llu ring_dropped=%llu\n",
		(unsigned long long)value,
		(unsigned long long)(s1.pm_intr_processed - s0.pm_intr_processed),
		(unsigned long long)(s1.pm_intr_bufferfull - s0.pm_intr_bufferfull),
		(unsigned long long)(s1.pm_buffer_requests_failed -
				     s0.pm_buffer_requests_failed),
		(unsigned long long)(s1.pm_ring_dropped - s0.pm_ring_dropped));
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
