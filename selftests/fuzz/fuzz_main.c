// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_main.c - pmc-fuzz: options, the master and its workers, and the
 * checks after the run (no kernel report, no row left owned, the driver
 * still counts).
 *
 *   pmc-fuzz [--seed N] [--ops N] [--procs N] [--threads N] [--unpriv N]
 *            [--timeout S] [--faults PCT] [--profile S] [--verbose] [--no-kmsg]
 *
 * --profile S: every S seconds (default 300, 0: never), the ops that took
 * the most time since the last profile and each worker's ops, on stderr.
 *
 * --faults PCT (debug kernel): failslab and fail_page_alloc fail PCT % of
 * the workers' allocations (task filter, make-it-fail); ENOMEM anywhere is
 * then fine, a crash, a leak or an undocumented errno is not.
 *
 * Prints "# pmc-fuzz: seed N ..." first (replay with --seed N) and ends with
 * "pmc-fuzz: PASS ..." or "pmc-fuzz: FAIL ..."; exit status 0, 1 (failed),
 * 2 (usage) or 4 (skipped: no /dev/pmc).
 */
#include "fuzz.h"
#include "pmc_test.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

struct fz_shared *fz_sh;

struct fz_opts {
	uint64_t seed;
	uint64_t ops;
	int procs;
	int threads;
	int unpriv;
	int timeout;
	int faults;	/* % of the workers' allocations failed (0: none) */
	int profile;	/* seconds between profiles (0: none) */
	bool kmsg;
};

void fz_fail(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (atomic_fetch_add(&fz_sh->failures, 1) >= 50)
		return;		/* enough said */
	fprintf(stderr, "# pmc-fuzz: FAIL (seed %" PRIu64 ", pid %d): %s\n",
		fz_sh->seed, getpid(), line);
	pthread_mutex_lock(&fz_sh->msg_lock);
	n = strlen(line);
	if (fz_sh->msg_len + n + 2 < FZ_MSG) {
		memcpy(fz_sh->msg + fz_sh->msg_len, line, n);
		fz_sh->msg_len += n;
		fz_sh->msg[fz_sh->msg_len++] = '\n';
	}
	pthread_mutex_unlock(&fz_sh->msg_lock);
}

/* ---------------------------------------------------------------- fault injection */

static int flt_set(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -EIO;
}

static long long flt_get(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoll(buf);
}

#define FZ_FAULT_TIMES	"100000000"
static const char *const fz_fault_attrs[] = {
	"/sys/kernel/debug/failslab", "/sys/kernel/debug/fail_page_alloc",
};

/*
 * --faults PCT: failslab and fail_page_alloc fail PCT % of the allocations
 * of the tasks that have make-it-fail (the workers), sleeping ones included,
 * silently (verbose 0: a stack dump would read as a kernel bug). Returns 0,
 * or -ENOENT where debugfs fault injection is absent.
 */
static int fz_faults_arm(int pct)
{
	char v[16];
	unsigned int i;
	char path[128];

	if (access(fz_fault_attrs[0], F_OK))
		return -ENOENT;
	snprintf(v, sizeof(v), "%d", pct);
	for (i = 0; i < 2; i++) {
#define FZ_ATTR(name, val) \
		(snprintf(path, sizeof(path), "%s/%s", fz_fault_attrs[i], name), flt_set(path, val))
		if (FZ_ATTR("verbose", "0") || FZ_ATTR("task-filter", "Y") ||
		    FZ_ATTR("ignore-gfp-wait", "N") || FZ_ATTR("interval", "1") ||
		    FZ_ATTR("times", FZ_FAULT_TIMES) || FZ_ATTR("space", "0") ||
		    FZ_ATTR("probability", v))
			return -EIO;
		if (i == 1 && (FZ_ATTR("ignore-gfp-highmem", "N") || FZ_ATTR("min-order", "0")))
			return -EIO;
#undef FZ_ATTR
	}
	return 0;
}

/* Disarm; the number of faults injected. */
static long long fz_faults_disarm(void)
{
	char path[128];
	long long n = 0, left;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/probability", fz_fault_attrs[i]);
		flt_set(path, "0");
		snprintf(path, sizeof(path), "%s/times", fz_fault_attrs[i]);
		left = flt_get(path);
		if (left >= 0)
			n += atoll(FZ_FAULT_TIMES) - left;
		flt_set(path, "1");
	}
	return n;
}

/* ---------------------------------------------------------------- workers */

static void fz_signal_noop(int sig)
{
	(void)sig;
}

/* The interrupted program counter of a signal's context. */
static void *fz_signal_pc(const ucontext_t *uc)
{
#if defined(__x86_64__)
	return (void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__i386__)
	return (void *)uc->uc_mcontext.gregs[REG_EIP];
#elif defined(__aarch64__)
	return (void *)uc->uc_mcontext.pc;
#else
	(void)uc;
	return NULL;
#endif
}

/* A worker's own crash: where (a fuzzer bug, or the kernel wrote our memory). */
static void fz_crash(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	void *bt[32];
	char line[160];
	int n;

	/*
	 * With --faults, the kernel's SIGSEGV (SI_KERNEL, no address) when
	 * an injected fault failed the page of a signal frame it was writing
	 * (force_sigsegv()): no crash of ours; go on where we were.
	 */
	if (fz_sh->faults && sig == SIGSEGV && si->si_code == SI_KERNEL && !si->si_addr)
		return;
	n = snprintf(line, sizeof(line),
		     "# pmc-fuzz: pid %d: signal %d at address %p, ip %p (seed %" PRIu64 ")\n",
		     getpid(), sig, si->si_addr, fz_signal_pc(uc),
		     fz_sh->seed);
	if (write(2, line, (size_t)n) < 0)
		_exit(128 + sig);
	n = backtrace(bt, 32);
	backtrace_symbols_fd(bt, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

#define FZ_ALTSTACK_SIZE	(64 * 1024)

/*
 * With --faults: no rseq area (pmc_t_rseq_off(): why), and a signal stack.
 * The kernel writes each signal frame on the thread's stack; the page
 * it needs (a fresh one, or a copy of one that fork() made shared) may
 * fail, and the kernel then raises SIGSEGV, fatal when the frame was for
 * SIGSEGV itself: a worker "killed by signal 11" with no report. So each
 * thread takes its frames on a stack whose pages are present now and that
 * fork() leaves alone (MADV_WIPEONFORK: the parent's pages stay writable).
 */
void *fz_fault_guard_on(void)
{
	stack_t ss = { .ss_size = FZ_ALTSTACK_SIZE };
	char *m;

	if (!fz_sh->faults)
		return NULL;
	pmc_t_rseq_off();
	m = mmap(NULL, FZ_ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	if (madvise(m, FZ_ALTSTACK_SIZE, MADV_WIPEONFORK)) {
		munmap(m, FZ_ALTSTACK_SIZE);
		return NULL;
	}
	for (size_t off = 0; off < FZ_ALTSTACK_SIZE; off += 4096)
		m[off] = 0;
	ss.ss_sp = m;
	if (sigaltstack(&ss, NULL)) {
		munmap(m, FZ_ALTSTACK_SIZE);
		return NULL;
	}
	return m;
}

void fz_fault_guard_off(void *stack)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	if (!stack)
		return;
	sigaltstack(&ss, NULL);
	munmap(stack, FZ_ALTSTACK_SIZE);
}

/*
 * The signals an OVF_SIGNAL PMC may send (fuzz_ops.c): caught, harmless.
 * SA_ONSTACK: on the thread's fz_fault_guard_on() stack where it has one.
 */
static void fz_worker_signals(void)
{
	struct sigaction sa = { .sa_handler = fz_signal_noop,
				.sa_flags = SA_RESTART | SA_ONSTACK };
	struct sigaction crash = { .sa_sigaction = fz_crash,
				   .sa_flags = SA_SIGINFO | SA_ONSTACK };
	int s;

	sigemptyset(&crash.sa_mask);
	sigaction(SIGSEGV, &crash, NULL);
	sigaction(SIGBUS, &crash, NULL);
	sigaction(SIGILL, &crash, NULL);
	sigaction(SIGABRT, &crash, NULL);

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaction(s, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

struct fz_sinker {
	struct fz_proc *p;
	pthread_t th;
};

static void *fz_sink_main(void *arg)
{
	struct fz_proc *p = arg;
	void *stack = fz_fault_guard_on();

	while (!atomic_load(&p->done)) {
		fz_sinks_service(p);
		usleep(1000);
	}
	fz_fault_guard_off(stack);
	return NULL;
}

static void *fz_thread_main(void *arg)
{
	struct fz_thread *t = arg;
	void *stack = fz_fault_guard_on();
	uint64_t i;
	int k, ret;

	/* Its buffers: retried while injected faults fail them (--faults). */
	ret = fz_thread_init(t);
	for (k = 0; ret && fz_sh->faults && k < 100; k++)
		ret = fz_thread_init(t);
	if (ret) {
		if (!fz_sh->faults)	/* an injected fault is no failure */
			fz_fail("thread setup failed: %s", strerror(errno));
		fz_fault_guard_off(stack);
		return NULL;
	}
	atomic_store(&t->p->tids[t->index & 15], t->tid);
	for (i = 0; i < t->budget && !atomic_load(&fz_sh->stop); i++) {
		fz_op(t);
		if (t->index == 0 && !(i & 63))
			fz_children_reap(t->p, false);
	}
	atomic_store(&t->p->tids[t->index & 15], 0);
	fz_fault_guard_off(stack);
	return NULL;
}

static int fz_worker(const struct fz_opts *o, int index, bool unpriv, uint64_t budget)
{
	struct fz_proc *p = calloc(1, sizeof(*p));
	struct fz_thread *th = calloc((size_t)o->threads, sizeof(*th));
	pthread_t *tid = calloc((size_t)o->threads, sizeof(*tid));
	pthread_t sink;
	int i, k, ret;

	if (!p || !th || !tid)
		return 1;
	p->index = index;
	p->unpriv = unpriv;
	p->pid = getpid();
	fz_worker_signals();
	fz_fault_guard_on();	/* the main thread's, until the worker exits */
	/*
	 * Fault injection (--faults) for this process and the threads it
	 * makes: armed while still root (uid 65534 may not write it), so the
	 * setup retries what an injected fault failed.
	 */
	if (fz_sh->faults && flt_set("/proc/self/make-it-fail", "1"))
		fz_fail("worker %d: cannot write /proc/self/make-it-fail", index);
	ret = unpriv ? pmc_t_drop_privileges() : 0;
	for (k = 0; ret && fz_sh->faults && k < 100; k++)
		ret = pmc_t_drop_privileges();
	if (ret) {
		if (fz_sh->faults)
			return 0;
		fz_fail("worker %d: cannot become uid %d: %s", index, PMC_TEST_NOBODY,
			strerror(errno));
		return 1;
	}
	ret = fz_proc_init(p);
	for (k = 0; ret && fz_sh->faults && k < 100; k++)
		ret = fz_proc_init(p);
	if (ret) {
		if (fz_sh->faults)
			return 0;
		fz_fail("worker %d (%s): setup failed: %s", index, unpriv ? "uid 65534" : "root",
			strerror(-ret));
		return 1;
	}
	ret = pthread_create(&sink, NULL, fz_sink_main, p);
	for (k = 0; ret == EAGAIN && fz_sh->faults && k < 100; k++)
		ret = pthread_create(&sink, NULL, fz_sink_main, p);
	if (ret)
		return fz_sh->faults ? 0 : 1;
	for (i = 0; i < o->threads; i++) {
		th[i].p = p;
		th[i].index = i;
		th[i].rng.s = fz_derive(o->seed, (uint64_t)index + 1, (uint64_t)i + 1);
		th[i].budget = budget / (uint64_t)o->threads +
			((uint64_t)i < budget % (uint64_t)o->threads);
		ret = pthread_create(&tid[i], NULL, fz_thread_main, &th[i]);
		for (k = 0; ret == EAGAIN && fz_sh->faults && k < 100; k++)
			ret = pthread_create(&tid[i], NULL, fz_thread_main, &th[i]);
		if (ret)
			th[i].budget = 0, tid[i] = 0;
	}
	for (i = 0; i < o->threads; i++)
		if (tid[i])
			pthread_join(tid[i], NULL);
	atomic_store(&p->done, true);
	pthread_join(sink, NULL);
	fz_proc_fini(p);
	return 0;
}

/* ---------------------------------------------------------------- checks */

static int fz_open_pmc(void)
{
	return open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
}

/* Put back every row a root worker disabled with PMCADMIN. */
static void fz_restore_rows(int fd)
{
	struct pmc_info info[256];
	uint32_t n, row;
	int cpu;

	for (cpu = 0; cpu < fz_sh->ncpu; cpu++) {
		n = 256;
		if (pmc_t_getpmcinfo(fd, cpu, info, &n))
			continue;
		for (row = 0; row < n && row < 256; row++)
			if (!info[row].pm_enabled &&
			    pmc_t_admin(fd, cpu, (int)row, PMC_STATE_FREE))
				fz_fail("cannot re-enable row %u of cpu %d", row, cpu);
	}
}

/*
 * Every row free once every owner is gone (the kernel frees an owner's
 * PMCs when its last descriptor closes; a killed owner's exit may take a
 * moment). Returns the rows still owned after @wait_ms.
 */
static int fz_rows_left(int fd, int wait_ms, bool report)
{
	struct pmc_info info[256];
	uint32_t n, row;
	int cpu, left;

	for (;;) {
		left = 0;
		for (cpu = 0; cpu < fz_sh->ncpu; cpu++) {
			n = 256;
			if (pmc_t_getpmcinfo(fd, cpu, info, &n))
				continue;
			for (row = 0; row < n && row < 256; row++) {
				if (info[row].pm_ownerpid == -1 &&
				    info[row].pm_state != PMC_STATE_ALLOCATED &&
				    info[row].pm_state != PMC_STATE_RUNNING &&
				    info[row].pm_state != PMC_STATE_STOPPED)
					continue;
				left++;
				if (report && wait_ms <= 0)
					fz_fail("after the run: cpu %d row %u (%s) still owned by pid %d, state %u",
						cpu, row, info[row].pm_name,
						info[row].pm_ownerpid, info[row].pm_state);
			}
		}
		if (!left || wait_ms <= 0)
			return left;
		usleep(100000);
		wait_ms -= 100;
	}
}

/*
 * The driver still counts: a task-clock PMC on ourselves agrees with the
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID) within 20 %.
 */
static void fz_sanity(int fd)
{
	struct timespec a, b;
	uint64_t v = 0, cpu_ns;
	uint32_t id;
	int ret;

	ret = pmc_t_alloc_soft(fd, PMC_MODE_TC, PMC_CPU_ANY, PMC_T_SW_TASK_CLOCK,
			       PMC_CAP_USER | PMC_CAP_SYSTEM, 0, &id);
	if (!ret)
		ret = pmc_t_attach(fd, id, 0, 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	if (!ret)
		ret = pmc_t_start(fd, id);
	pmc_t_spin_ns(50000000);
	if (!ret)
		ret = pmc_t_stop(fd, id);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	if (!ret)
		ret = pmc_t_read(fd, id, &v);
	if (!ret)
		ret = pmc_t_release(fd, id);
	if (ret) {
		fz_fail("sanity: allocate/attach/start/stop/read/release of task-clock: %s",
			strerror(-ret));
		return;
	}
	cpu_ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ULL +
		(uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
	if (v < cpu_ns * 8 / 10 || v > cpu_ns * 12 / 10 + 1000000)
		fz_fail("sanity: task-clock counted %" PRIu64 " ns, the thread ran %" PRIu64 " ns",
			v, cpu_ns);
}

/* Kernel log lines that mean a kernel bug (tools/pmc-vm's list). */
static bool fz_kmsg_bad(const char *line)
{
	static const char *const bad[] = {
		"Oops", "BUG:", "kernel BUG", "WARNING:", "possible circular locking",
		"INFO: possible", "inconsistent lock state", "possible recursive locking",
		"lock held when returning", "soft lockup", "hard LOCKUP",
		"detected stalls on CPU", "blocked for more than",
		"general protection fault", "KASAN", "UBSAN", "Call Trace:",
		"Kernel panic", "unable to handle", "list_add corruption",
		"list_del corruption", "ODEBUG:", "sleeping function called",
	};
	unsigned int i;

	if (strstr(line, "traps: "))
		return false;	/* a user process's fault */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (strstr(line, bad[i]))
			return true;
	return false;
}

/*
 * The kernel messages since @fd was opened at the end of the log. With
 * @faults (allocations failed on purpose), two kernel messages that only
 * an injected failure causes are no report; see the comments below.
 */
static void fz_kmsg_check(int fd, bool faults)
{
	char rec[2048];
	bool alloc_stack = false;
	ssize_t n;
	int shown = 0;

	if (fd < 0)
		return;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = '\0';
		/*
		 * A failed allocation prints its stack (warn_alloc()): with
		 * --faults every vmalloc() the fuzzer fails does. That stack
		 * is no report (a real one has a header of its own).
		 */
		if (strstr(rec, "page allocation failure") || strstr(rec, "vmalloc error:"))
			alloc_stack = true;
		/*
		 * mm/vmalloc.c's WARN_ON_ONCE in __alloc_vmap_area() fires
		 * when both the per-CPU preload and its GFP_NOWAIT fallback
		 * slab allocation fail: two injected faults in a row (seen in
		 * clone()'s thread-stack vmalloc). Its stack is skipped too.
		 */
		if (faults && strstr(rec, "WARNING:") &&
		    strstr(rec, "at mm/vmalloc.c:") && strstr(rec, "alloc_vmap_area")) {
			alloc_stack = true;
			continue;
		}
		if (alloc_stack && strstr(rec, "Call Trace:")) {
			alloc_stack = false;
			continue;
		}
		if (!fz_kmsg_bad(rec) && !shown)
			continue;
		if (shown++ < 40) {
			char *msg = strchr(rec, ';');

			fprintf(stderr, "# kernel: %s", msg ? msg + 1 : rec);
		}
		if (shown == 1)
			fz_fail("the kernel logged a report (above)");
	}
}

/*
 * Every --profile seconds of a long run: where the fuzzer's time went
 * since the last profile (the ops by time, with their calls and mean, and
 * each worker's ops), so that a rate that falls over an hour names the op
 * and the worker that got slower.
 */
struct fz_profile {
	uint64_t ops, calls[FZ_NOPS], ns[FZ_NOPS], proc_ops[FZ_MAX_PROCS];
};

static void fz_profile(const struct fz_opts *o, struct fz_profile *prev, uint64_t secs)
{
	struct fz_profile now;
	unsigned int i, k, best[6], nbest = 0;
	uint64_t d;

	now.ops = atomic_load(&fz_sh->ops);
	for (i = 0; i < fz_nops(); i++) {
		now.calls[i] = atomic_load(&fz_sh->op_calls[i]);
		now.ns[i] = atomic_load(&fz_sh->op_ns[i]);
	}
	for (i = 0; i < (unsigned int)o->procs; i++)
		now.proc_ops[i] = atomic_load(&fz_sh->proc_ops[i]);
	/* The six ops that took the most time since the last profile. */
	for (i = 0; i < fz_nops(); i++) {
		d = now.ns[i] - prev->ns[i];
		for (k = nbest; k > 0 && d > now.ns[best[k - 1]] - prev->ns[best[k - 1]]; k--)
			if (k < 6)
				best[k] = best[k - 1];
		if (k < 6) {
			best[k] = i;
			if (nbest < 6)
				nbest++;
		}
	}
	fprintf(stderr, "# pmc-fuzz: profile at %" PRIu64 " s: %" PRIu64 " ops (%" PRIu64
		"/s); workers", secs, now.ops - prev->ops,
		(now.ops - prev->ops) / (uint64_t)o->profile);
	for (i = 0; i < (unsigned int)o->procs; i++)
		fprintf(stderr, " %" PRIu64, now.proc_ops[i] - prev->proc_ops[i]);
	fprintf(stderr, "; ms (calls, us each):");
	for (k = 0; k < nbest; k++) {
		uint64_t c = now.calls[best[k]] - prev->calls[best[k]];

		d = now.ns[best[k]] - prev->ns[best[k]];
		fprintf(stderr, " %s %" PRIu64 " (%" PRIu64 ", %" PRIu64 ")", fz_op_name(best[k]),
			d / 1000000, c, c ? d / c / 1000 : 0);
	}
	fprintf(stderr, "\n");
	*prev = now;
}

static void fz_summary(const struct fz_opts *o, double secs)
{
	unsigned int i;
	int e;

	printf("# pmc-fuzz: %" PRIu64 " ops in %.1f s (%.0f/s), %d procs x %d threads, %d unprivileged\n",
	       atomic_load(&fz_sh->ops), secs, atomic_load(&fz_sh->ops) / (secs > 0 ? secs : 1),
	       o->procs, o->threads, o->unpriv);
	printf("# pmc-fuzz: %" PRIu64 " bad-pointer calls, %" PRIu64 " forks, %" PRIu64
	       " execs, %" PRIu64 " kills, %" PRIu64 " thread exits, %" PRIu64 " mmaps, %"
	       PRIu64 " log configs, %" PRIu64 " ring records\n",
	       atomic_load(&fz_sh->bad_pointers), atomic_load(&fz_sh->forks),
	       atomic_load(&fz_sh->execs), atomic_load(&fz_sh->kills),
	       atomic_load(&fz_sh->thread_exits), atomic_load(&fz_sh->maps),
	       atomic_load(&fz_sh->logs), atomic_load(&fz_sh->records));
	printf("# pmc-fuzz: op calls/ok/ms:");
	for (i = 0; i < fz_nops(); i++)
		printf("%s %s %" PRIu64 "/%" PRIu64 "/%" PRIu64, i % 5 ? "," : "\n#  ",
		       fz_op_name(i), atomic_load(&fz_sh->op_calls[i]),
		       atomic_load(&fz_sh->op_ok[i]), atomic_load(&fz_sh->op_ns[i]) / 1000000);
	printf("\n# pmc-fuzz: errnos:");
	for (e = 1; e < FZ_NERRNO; e++)
		if (atomic_load(&fz_sh->errnos[e]))
			printf(" %s %" PRIu64, strerrorname_np(e) ? strerrorname_np(e) : "?",
			       atomic_load(&fz_sh->errnos[e]));
	printf("\n");
}

/* ---------------------------------------------------------------- master */

static mode_t fz_old_mode;
static bool fz_chmodded;

static void fz_restore_mode(void)
{
	if (fz_chmodded)
		chmod(PMC_DEVICE_PATH, fz_old_mode);
	fz_chmodded = false;
}

static void fz_on_signal(int sig)
{
	if (fz_chmodded)
		chmod(PMC_DEVICE_PATH, fz_old_mode);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void fz_usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [--seed N] [--ops N] [--procs N] [--threads N] [--unpriv N]\n"
		"          [--timeout SECONDS] [--faults PCT] [--profile SECONDS] [--verbose]\n"
		"          [--no-kmsg]\n", argv0);
	exit(2);
}

static uint64_t fz_default_seed(void)
{
	uint64_t s = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, &s, sizeof(s)) != sizeof(s))
		s = fz_now_ns() ^ (uint64_t)getpid() << 32;
	if (fd >= 0)
		close(fd);
	return s;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'n' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 't' },
		{ "unpriv", required_argument, NULL, 'u' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-kmsg", no_argument, NULL, 'K' },
		{ "faults", required_argument, NULL, 'F' },
		{ "profile", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct fz_opts o = { .ops = 50000, .procs = 4, .threads = 3, .unpriv = -1,
			     .timeout = 1800, .profile = 300, .kmsg = true };
	pthread_mutexattr_t ma;
	struct pmc_op_getcpuinfo ci;
	pid_t pids[FZ_MAX_PROCS];
	uint64_t start, deadline, last = 0, last_profile = 0;
	struct fz_profile profile = { 0 };
	int c, i, fd, kfd = -1, alive;
	bool have_seed = false, hung = false;
	long long injected = 0;
	char buf[64];

	while ((c = getopt_long(argc, argv, "s:n:p:t:u:T:vKF:P:", lo, NULL)) != -1) {
		switch (c) {
		case 's': o.seed = strtoull(optarg, NULL, 0); have_seed = true; break;
		case 'n': o.ops = strtoull(optarg, NULL, 0); break;
		case 'p': o.procs = atoi(optarg); break;
		case 't': o.threads = atoi(optarg); break;
		case 'u': o.unpriv = atoi(optarg); break;
		case 'T': o.timeout = atoi(optarg); break;
		case 'v': break;
		case 'K': o.kmsg = false; break;
		case 'F': o.faults = atoi(optarg); break;
		case 'P': o.profile = atoi(optarg); break;
		default: fz_usage(argv[0]);
		}
	}
	if (optind != argc || o.procs < 1 || o.procs > FZ_MAX_PROCS || o.threads < 1 ||
	    o.threads > 16 || o.timeout < 1 || o.faults < 0 || o.faults > 100 ||
	    o.profile < 0)
		fz_usage(argv[0]);
	if (!have_seed)
		o.seed = fz_default_seed();
	if (o.unpriv < 0)
		o.unpriv = geteuid() ? 0 : o.procs / 2;
	if (geteuid() && o.unpriv) {
		fprintf(stderr, "pmc-fuzz: --unpriv needs root\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# pmc-fuzz: seed %" PRIu64 " ops %" PRIu64 " procs %d threads %d unpriv %d faults %d"
	       " (replay: pmc-fuzz --seed %" PRIu64 " --ops %" PRIu64 " --procs %d --threads %d --unpriv %d --faults %d)\n",
	       o.seed, o.ops, o.procs, o.threads, o.unpriv, o.faults, o.seed, o.ops, o.procs,
	       o.threads, o.unpriv, o.faults);

	fz_sh = mmap(NULL, sizeof(*fz_sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz_sh == MAP_FAILED)
		return 1;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&fz_sh->msg_lock, &ma);
	fz_sh->seed = o.seed;
	/*
	 * A root worker may attach an OVF_SIGNAL PMC to its parent, this
	 * process: its signals (fuzz_ops.c) must not kill it. Ignored here;
	 * the workers catch them (fz_worker_signals()).
	 */
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	/* glibc's fatal messages (before an abort) to stderr, not /dev/tty. */
	setenv("LIBC_FATAL_STDERR_", "1", 1);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		signal(s, SIG_IGN);

	fd = fz_open_pmc();
	if (fd < 0) {
		printf("pmc-fuzz: SKIP: cannot open %s: %s\n", PMC_DEVICE_PATH, strerror(errno));
		return 4;
	}
	if (pmc_t_getcpuinfo(fd, &ci)) {
		printf("pmc-fuzz: FAIL: GETCPUINFO: %s\n", strerror(errno));
		return 1;
	}
	fz_sh->ncpu = (int)ci.pm_ncpu;
	fz_sh->nrows = ci.pm_npmc;
	fz_sh->mincount = 1000;
	if (!pmc_t_param_read("mincount", buf, sizeof(buf)))
		fz_sh->mincount = (uint32_t)atoi(buf);
	if (!pmc_t_param_read("unprivileged_syspmcs", buf, sizeof(buf)))
		fz_sh->unpriv_sys = buf[0] == 'Y' || buf[0] == '1';

	if (o.unpriv) {
		struct stat st;

		if (stat(PMC_DEVICE_PATH, &st) == 0) {
			fz_old_mode = st.st_mode & 07777;
			if (chmod(PMC_DEVICE_PATH, 0666) == 0)
				fz_chmodded = true;
		}
		atexit(fz_restore_mode);
		signal(SIGINT, fz_on_signal);
		signal(SIGTERM, fz_on_signal);
		signal(SIGHUP, fz_on_signal);
	}
	if (o.kmsg) {
		kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (kfd >= 0)
			lseek(kfd, 0, SEEK_END);
	}

	if (o.faults) {
		int r = fz_faults_arm(o.faults);

		if (r == -ENOENT) {
			printf("pmc-fuzz: SKIP: no debugfs fault injection (/sys/kernel/debug/failslab)\n");
			return 4;
		}
		if (r) {
			printf("pmc-fuzz: FAIL: cannot arm failslab/fail_page_alloc\n");
			return 1;
		}
		fz_sh->faults = o.faults;
	}
	start = fz_now_ns();
	deadline = start + (uint64_t)o.timeout * 1000000000ULL;
	fflush(NULL);
	for (i = 0; i < o.procs; i++) {
		uint64_t budget = o.ops / (uint64_t)o.procs + ((uint64_t)i < o.ops % (uint64_t)o.procs);

		pids[i] = fork();
		if (pids[i] == 0) {
			/* Only the master puts the mode back (not a SIGTERMed target). */
			fz_chmodded = false;
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			close(fd);
			if (kfd >= 0)
				close(kfd);
			_exit(fz_worker(&o, i, i >= o.procs - o.unpriv, budget));
		}
		if (pids[i] < 0) {
			fz_fail("fork: %s", strerror(errno));
			pids[i] = 0;
		} else {
			atomic_store(&fz_sh->pids[i], pids[i]);
		}
	}

	for (;;) {
		int st;
		pid_t pid;

		alive = 0;
		for (i = 0; i < o.procs; i++) {
			if (!pids[i])
				continue;
			pid = waitpid(pids[i], &st, WNOHANG);
			if (pid == 0) {
				alive++;
				continue;
			}
			if (pid == pids[i] && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
				fz_fail("worker %d (pid %d) %s %d", i, pids[i],
					WIFSIGNALED(st) ? "killed by signal" : "exited with",
					WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			pids[i] = 0;
		}
		if (!alive)
			break;
		if (fz_now_ns() > deadline && !hung) {
			hung = true;
			fz_fail("the run did not end within %d s: a hang (kernel stacks below)",
				o.timeout);
			for (i = 0; i < o.procs; i++)
				if (pids[i])
					pmc_t_dump_stacks(pids[i]);
			atomic_store(&fz_sh->stop, 1);
			deadline = fz_now_ns() + 10000000000ULL;
		} else if (hung && fz_now_ns() > deadline) {
			for (i = 0; i < o.procs; i++)
				if (pids[i])
					kill(pids[i], SIGKILL);
		}
		if (fz_now_ns() - start > last + 10000000000ULL) {
			last = fz_now_ns() - start;
			fprintf(stderr, "# pmc-fuzz: %" PRIu64 " ops after %" PRIu64 " s\n",
				atomic_load(&fz_sh->ops), (uint64_t)(last / 1000000000ULL));
		}
		if (o.profile > 0 &&
		    fz_now_ns() - start > last_profile + (uint64_t)o.profile * 1000000000ULL) {
			last_profile = fz_now_ns() - start;
			fz_profile(&o, &profile, last_profile / 1000000000ULL);
		}
		usleep(20000);
	}

	fz_restore_mode();
	if (o.faults)
		injected = fz_faults_disarm();
	if (!geteuid())
		fz_restore_rows(fd);
	fz_rows_left(fd, 20000, true);
	fz_sanity(fd);
	close(fd);
	fz_kmsg_check(kfd, o.faults > 0);
	fz_summary(&o, (double)(fz_now_ns() - start) / 1e9);
	if (o.faults)
		printf("# pmc-fuzz: %lld allocation faults injected (failslab + fail_page_alloc, %d %%)\n",
		       injected, o.faults);

	if (atomic_load(&fz_sh->failures)) {
		printf("pmc-fuzz: FAIL seed %" PRIu64 ": %d failures; first:\n%s",
		       o.seed, atomic_load(&fz_sh->failures), fz_sh->msg);
		return 1;
	}
	printf("pmc-fuzz: PASS seed %" PRIu64 ": %" PRIu64 " ops, no failure\n",
	       o.seed, atomic_load(&fz_sh->ops));
	return 0;
}
