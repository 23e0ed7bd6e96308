/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmc_test.h - helpers shared by the driver selftests: /dev/pmc and a
 * wrapper per hwpmc op (each returns 0 or -errno, never touches errno's
 * meaning), workloads with an independent measure (CPU time, page faults),
 * children that start on command, and the unprivileged-user fixture
 * (uid/gid 65534, /dev/pmc made 0666 and restored).
 *
 * Link: every .c file of selftests/lib is linked into every selftest binary.
 */
#ifndef _PMC_TEST_H
#define _PMC_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/resource.h>
#include <time.h>

#include <pmc/hwpmc.h>

#define PMC_TEST_NOBODY		65534
#define PMC_TEST_MODULE		"driver/pmc.ko"

/* Linux software events (PERF_COUNT_SW_*), without <linux/perf_event.h>. */
#define PMC_T_SW_CPU_CLOCK	0
#define PMC_T_SW_TASK_CLOCK	1
#define PMC_T_SW_PAGE_FAULTS	2
#define PMC_T_SW_CONTEXT_SWITCHES 3
#define PMC_T_PERF_TYPE_SOFTWARE 1

/* ---------------------------------------------------------------- device */

/* open(/dev/pmc, O_RDWR): the descriptor or -errno. */
int pmc_t_open(void);
/* Is /dev/pmc there (the module loaded)? */
bool pmc_t_have_device(void);

/* ---------------------------------------------------------------- ops */

/* ioctl(fd, cmd, arg): 0 or -errno. */
int pmc_t_ioctl(int fd, unsigned long cmd, void *arg);

/*
 * A PMCALLOCATE request for a SOFT event (PERF_COUNT_SW_* @config) in
 * @mode; @cpu is used for system modes (PMC_CPU_ANY otherwise). Caps,
 * flags and count are left 0 for the caller to set.
 */
void pmc_t_soft_request(struct pmc_op_pmcallocate *pa, uint32_t mode,
			uint32_t cpu, uint64_t config);
int pmc_t_allocate(int fd, struct pmc_op_pmcallocate *pa, uint32_t *id);
/* Allocate a SOFT PMC: mode, cpu (system modes), config, caps, flags. */
int pmc_t_alloc_soft(int fd, uint32_t mode, uint32_t cpu, uint64_t config,
		     uint32_t caps, uint32_t flags, uint32_t *id);
int pmc_t_attach(int fd, uint32_t id, pid_t pid, uint32_t flags);
int pmc_t_detach(int fd, uint32_t id, pid_t pid, uint32_t flags);
int pmc_t_release(int fd, uint32_t id);
int pmc_t_start(int fd, uint32_t id);
int pmc_t_stop(int fd, uint32_t id);
/* PMCRW with PMC_F_OLDVALUE: the current value. */
int pmc_t_read(int fd, uint32_t id, uint64_t *value);
/* PMCRW with PMC_F_NEWVALUE. */
int pmc_t_write(int fd, uint32_t id, uint64_t value);
/* PMCRW with @flags; *@value in and out. */
int pmc_t_rw(int fd, uint32_t id, uint32_t flags, uint64_t *value);
int pmc_t_setcount(int fd, uint32_t id, uint64_t count);
int pmc_t_getcaps(int fd, uint32_t id, uint32_t *caps);
int pmc_t_getmsr(int fd, uint32_t id, uint32_t *msr);
/* PMCREADSET of @n ids: values and the timestamp (may be NULL). */
int pmc_t_readset(int fd, const uint32_t *ids, uint32_t n, uint64_t *values,
		  uint64_t *timestamp);
int pmc_t_admin(int fd, int cpu, int row, uint32_t state);
/* GETPMCINFO of @cpu into @info[*n]; *n becomes the rows of the CPU. */
int pmc_t_getpmcinfo(int fd, int cpu, struct pmc_info *info, uint32_t *n);
int pmc_t_getcpuinfo(int fd, struct pmc_op_getcpuinfo *ci);
/* The class descriptor of @pmc_class in GETCPUINFO, or -ENOENT. */
int pmc_t_class_info(int fd, uint32_t pmc_class, struct pmc_classinfo *out);
/* The global row index of row @index of @pmc_class, or -errno. */
int pmc_t_class_row(int fd, uint32_t pmc_class, uint32_t index);

/* ---------------------------------------------------------------- work */

uint64_t pmc_t_now_ns(clockid_t clk);
/* Burn @ns of the calling thread's CPU time. */
void pmc_t_spin_ns(uint64_t ns);
/* Touch @n fresh anonymous pages: @n minor page faults in user mode. */
int pmc_t_touch_pages(size_t n);

/*
 * A child process that waits for go() before running @fn(@arg), then exits
 * with its return value. Lets a test attach to the child before it works:
 * pmc_t_child_start() returns once the child sleeps on its go pipe.
 */
struct pmc_t_child {
	pid_t pid;
	int go_fd;		/* write end: one byte starts the child */
};
int pmc_t_child_start(struct pmc_t_child *c, int (*fn)(void *), void *arg);
int pmc_t_child_go(struct pmc_t_child *c);
/* Wait for the child: its wait status, and its rusage if @ru. */
int pmc_t_child_wait(struct pmc_t_child *c, int *status, struct rusage *ru);
/* Kill the child (if still there) and reap it. */
void pmc_t_child_kill(struct pmc_t_child *c);
/* A child workload: spin for *(uint64_t *)arg ns of CPU. */
int pmc_t_spin_fn(void *arg);

/* CPU time (user + system) in @ru, in ns. */
uint64_t pmc_t_rusage_ns(const struct rusage *ru);

/*
 * Wait (up to 10 s) until task @pid (a process or a thread id) is neither
 * running nor runnable, e.g. blocked on the pipe it waits on next.
 */
void pmc_t_wait_sleeping(pid_t pid);
/* Unregister the calling thread's rseq area (see pmc_testlib.c: why). */
void pmc_t_rseq_off(void);

/*
 * Where each thread of @pid waits, to stderr as TAP comments: its name,
 * its system call and its kernel stack (the stack needs root). For a test
 * or a fuzzer run that hung, before it kills @pid.
 */
void pmc_t_dump_stacks(pid_t pid);

/*
 * perf(1) itself as the reference: `perf stat -x, -e task-clock [@opt]
 * @target @pid -o @out` (@target "-p" or "-t"), started with its counter
 * disabled and enabled through its control descriptor. Returns perf's pid
 * once perf acknowledged the enable, so that it counts everything the
 * target does from then on; -1 when perf could not start. perf ends with
 * its target (it checks once a second) or at SIGINT.
 */
pid_t pmc_t_perf_stat(const char *target, pid_t pid, const char *opt,
		      const char *out);
/* The task-clock in ns that perf stat -x, wrote to @path, or 0. */
uint64_t pmc_t_perf_stat_task_clock(const char *path);

/*
 * A perf_event_open(2) counter of the Linux software event @config on
 * @pid (0: the calling thread), created disabled: the independent measure
 * a PMC's count is checked against. The descriptor, or -errno.
 */
int pmc_t_perf_open(pid_t pid, uint64_t config);
/*
 * The same with perf's options: @inherit counts the children and threads
 * @pid creates afterwards; @user_only excludes kernel mode.
 */
int pmc_t_perf_open_ex(pid_t pid, uint64_t config, bool inherit,
		       bool user_only);
int pmc_t_perf_enable(int fd);
int pmc_t_perf_disable(int fd);
/* The counter's value (time-scaled never: software events do not mux). */
int pmc_t_perf_read(int fd, uint64_t *value);
/* Run on @cpu only: 0 or -errno. */
int pmc_t_pin_cpu(int cpu);

/* ---------------------------------------------------------------- privileges */

/*
 * Drop to uid/gid 65534 with no supplementary groups, dumpable as a user's
 * process is: 0 or -errno.
 */
int pmc_t_drop_privileges(void);
/*
 * Run @fn(@arg) in a child as uid 65534 and return what it returned (an
 * int 0..255), or -1 if it died. The child inherits open descriptors.
 */
int pmc_t_run_as_nobody(int (*fn)(void *), void *arg);
/* chmod /dev/pmc to @mode, saving the old mode in *@old. */
int pmc_t_dev_chmod(mode_t mode, mode_t *old);

/* ---------------------------------------------------------------- module */

/* Read a module parameter of pmc.ko into @buf; 0 or -errno. */
int pmc_t_param_read(const char *name, char *buf, size_t len);
/* The same as a number, or LLONG_MIN when it cannot be read as one. */
long long pmc_t_param_num(const char *name);
/* Write a module parameter; 0 or -errno. */
int pmc_t_param_write(const char *name, const char *value);
/* Write a sysctl (/proc/sys/<path>); the old value in @old if not NULL. */
int pmc_t_sysctl_write(const char *path, const char *value, char *old,
		       size_t oldlen);
/*
 * Settle the slab caches (sync, drop_caches, half a second for kfree_rcu()
 * and the dead tasks' RCU frees, then each cache's shrink) and put the
 * active objects of each of the @n caches @names in @v (-1: no such cache).
 * The counts are then close to exact: what leak tests compare.
 */
void pmc_t_slab_objects(const char *const *names, unsigned int n, long *v);
/*
 * How many of the @n caches @names grew from @before to @after (counts of
 * pmc_t_slab_objects()) by more than their @slack[i] objects; caches
 * missing either time do not count. With @report, one line per cache on
 * stdout ("#   name  before -> after objects"), and one more for each that
 * grew too much.
 */
unsigned int pmc_t_slabs_over(const char *const *names, unsigned int n,
			      const long *before, const long *after,
			      const long *slack, bool report);

/*
 * Owner processes for the load/unload tests: pmc_t_owners_start() forks @n
 * children, each the leader of a process group of its own, that run
 * @fn(@ready, @i, @arg) (which must not return: it writes one byte to
 * @ready once set up, then works until killed), and waits for every byte.
 * 0, or -EIO when an owner failed its setup, or -errno. The caller, a
 * child subreaper (PR_SET_CHILD_SUBREAPER), then calls pmc_t_owners_kill()
 * in any case: SIGKILL to each group, and every descendant reaped.
 */
int pmc_t_owners_start(pid_t *pgid, int n,
		       void (*fn)(int ready, int i, void *arg), void *arg);
void pmc_t_owners_kill(const pid_t *pgid, int n);
/*
 * Why a test that unloads pmc.ko and loads it again from @ko cannot run
 * here (not root; no such file), or NULL. The text stays valid until the
 * next call.
 */
const char *pmc_t_cannot_reload(const char *ko);

/*
 * The pmc.ko a test reloads: $PMC_KO, or driver/pmc.ko (the tests run from
 * the repository root). pmc_t_load() loads it with @params ("" for the
 * defaults): 0 or -errno. pmc_t_unload() removes pmc, retrying for 5 s
 * while the exit work of earlier owners ends: 0 (also when it was not
 * loaded) or -errno.
 */
const char *pmc_t_ko(void);
/*
 * The kernel log records (/dev/kmsg) containing @what, with the text of
 * the last in @last: a count, or -errno.
 */
int pmc_t_kmsg_count(const char *what, char *last, size_t len);
int pmc_t_load(const char *params);
int pmc_t_unload(void);
/* Run a shell command: its exit status, or -1. */
int pmc_t_system(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* _PMC_TEST_H */
