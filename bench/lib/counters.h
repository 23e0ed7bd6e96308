/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - the two interfaces the benchmarks compare, reduced to what
 * they need: /dev/pmc through its raw ioctl ABI (<pmc/hwpmc.h>), and
 * perf_event_open(2) with the attributes the driver gives its own kernel
 * counters (software events, user and kernel counted, no inherit).
 *
 * Every helper either succeeds or ends the program with a message (a
 * benchmark that cannot set itself up has nothing to measure), except the
 * read calls, which are what is timed.
 */
#ifndef _BENCH_COUNTERS_H
#define _BENCH_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

#include <pmc/hwpmc.h>

/* A Linux software event by perf's name ("task-clock", "cpu-clock", ...). */
uint64_t bench_soft_event(const char *name);

/* /dev/pmc, opened read-write. */
int bench_pmc_open(void);

/*
 * Allocate a SOFT PMC of event @config in @mode (PMC_MODE_TC or TS) with
 * @flags (PMC_F_*) and @count (sampling period, or initial count). Its id.
 */
uint32_t bench_pmc_alloc(int fd, uint32_t mode, uint64_t config, uint32_t flags,
			 uint64_t count);
/* The same in system scope on CPU @cpu (@mode PMC_MODE_SC or SS). */
uint32_t bench_pmc_alloc_cpu(int fd, uint32_t mode, uint64_t config,
			     uint32_t flags, uint64_t count, uint32_t cpu);
void bench_pmc_attach(int fd, uint32_t id, pid_t pid);
void bench_pmc_start(int fd, uint32_t id);
void bench_pmc_stop(int fd, uint32_t id);
void bench_pmc_release(int fd, uint32_t id);
void bench_pmc_configurelog(int fd, int logfd);
void bench_pmc_closelog(int fd);
void bench_pmc_stats(int fd, struct pmc_op_getdriverstats *st);

/* PMC_OP_PMCRW read: 0, or -1 with errno. */
int bench_pmc_read(int fd, uint32_t id, uint64_t *value);

/*
 * perf_event_open(2) of software event @config for @pid (0: the caller) on
 * any CPU, counting user and kernel, enabled, in the group of @group_fd
 * (-1: none) with @read_format. The fd.
 */
int perf_open(uint64_t config, pid_t pid, int group_fd, uint64_t read_format);

/* The same for every task on CPU @cpu (system-wide), alone. The fd. */
int perf_open_cpu(uint64_t config, int cpu);

#endif /* _BENCH_COUNTERS_H */
