// SPDX-License-Identifier: GPL-2.0
/*
 * proc_test.c - the per-process records of process-mode PMCs: PROCCSW
 * (PMC_F_LOG_PROCCSW) whose deltas add up to the PMC's value, PROCEXIT
 * (PMC_F_LOG_PROCEXIT) for every process of a 32-fork storm under
 * PMC_F_DESCENDANTS with PROCFORK for each fork, and PROCEXEC with the
 * MAP_IN records of the new image after an exec, checked against
 * /proc/PID/maps; PROCCSW and PROCEXIT per process of a DESCENDANTS PMC
 * whose two processes pass a token on one CPU; PROCEXIT of a thread that
 * runs through its PMC's start and stop.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "kselftest_harness.h"

#include "sampling.h"

#define NCHILD		32
#define PAGES_PER_STEP	64

SMP_RING_FIXTURE(proc, 256);

/*
 * Fault in @npages fresh anonymous pages: @npages minor faults. No
 * transparent huge page: Debian's kernels have THP "always", and without
 * MADV_NOHUGEPAGE a huge-page fault, or khugepaged collapsing a range
 * while it fills, maps pages that are then touched without a fault. (A
 * kernel without THP, as 6.12-rt, refuses the advice: EINVAL, ignored.)
 */
static void touch_pages(long ps, int npages)
{
	char *p = mmap(NULL, npages * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		_exit(3);
	madvise(p, npages * ps, MADV_NOHUGEPAGE);
	for (i = 0; i < npages; i++)
		p[i * ps] = 1;
	munmap(p, npages * ps);
}

static long faults_of(const struct rusage *ru)
{
	return ru->ru_minflt + ru->ru_majflt;
}

/*
 * A process-mode PMC of @event with @flags, attached to @pid and started;
 * then the byte on @go_fd that lets @pid go on. Returns the PMC's id.
 */
static int64_t count_then_go(struct __test_metadata *_metadata,
			     FIXTURE_DATA(proc) *self, uint64_t event,
			     uint32_t flags, pid_t pid, int go_fd)
{
	int64_t id = smp_alloc_tc(self->fd, event, 0, flags, 0, 0);

	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, id, pid));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	ASSERT_EQ(1, write(go_fd, "g", 1));
	return id;
}

/*
 * The end of a run: reap @leader (exit 0), read PMC @id into @value, flush
 * the log and take the ring's records into @b, checked as a stream with
 * no record missing.
 */
static void reap_and_collect(struct __test_metadata *_metadata,
			     FIXTURE_DATA(proc) *self, pid_t leader,
			     int64_t id, uint64_t *value, struct smp_buf *b)
{
	struct smp_stream_info si;
	int st;

	ASSERT_EQ(leader, waitpid(leader, &st, 0));
	ASSERT_EQ(0, WEXITSTATUS(st));
	ASSERT_EQ(0, smp_read(self->fd, id, value));
	ASSERT_EQ(0, smp_flushlog(self->fd));
	smp_ring_drain(&self->r, b);
	ASSERT_TRUE(smp_check_stream(b, &si)) TH_LOG("%s", si.error);
	EXPECT_EQ(0, si.seq_gaps);
}

/*
 * A page-faults PMC with PROCCSW on a child that faults pages in 20 steps
 * and blocks between them: the PROCCSW deltas of its switches add up to the
 * PMC's value, which is the child's own count of its faults (getrusage).
 */
TEST_F(proc, proccsw_deltas_add_up_to_the_total)
{
	int go[2], rep[2], i, st;
	struct smp_stream_info si;
	const struct pmclog_header *h;
	struct smp_buf b = {};
	uint64_t value, sum = 0;
	long child_faults = -1;
	size_t off, n = 0;
	int64_t id;
	pid_t pid;
	char c;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(rep));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rusage r0, r1;
		long d;

		/*
		 * Ready before the parent attaches: the faults a child takes
		 * when it first runs after fork (copy-on-write of its stack
		 * and data) fall outside its measured window, so they must
		 * fall outside the PMC's too.
		 */
		if (write(rep[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		getrusage(RUSAGE_SELF, &r0);
		for (i = 0; i < 20; i++) {
			touch_pages(sysconf(_SC_PAGESIZE), PAGES_PER_STEP);
			if (write(rep[1], "s", 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(2);
		}
		getrusage(RUSAGE_SELF, &r1);
		d = faults_of(&r1) - faults_of(&r0);
		if (write(rep[1], &d, sizeof(d)) != sizeof(d))
			_exit(2);
		pause();		/* counted no more: blocked */
		_exit(0);
	}
	ASSERT_EQ(1, read(rep[0], &c, 1));	/* the child is ready */
	id = count_then_go(_metadata, self, PERF_COUNT_SW_PAGE_FAULTS,
			   PMC_F_LOG_PROCCSW, pid, go[1]);
	for (i = 0; i < 20; i++) {
		ASSERT_EQ(1, read(rep[0], &c, 1));
		ASSERT_EQ(1, write(go[1], "g", 1));
	}
	ASSERT_EQ(sizeof(child_faults), read(rep[0], &child_faults,
					     sizeof(child_faults)));
	usleep(100000);			/* the child reaches pause() */
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, id));
	ASSERT_EQ(0, smp_read(self->fd, id, &value));
	ASSERT_EQ(0, smp_flushlog(self->fd));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);

	smp_ring_drain(&self->r, &b);
	ASSERT_TRUE(smp_check_stream(&b, &si)) TH_LOG("%s", si.error);
	EXPECT_EQ(0, si.seq_gaps);
	smp_for_each_rec(h, &b, off) {
		const struct pmclog_proccsw *c = (const void *)h;

		if (smp_rec_type(h) != PMCLOG_TYPE_PROCCSW)
			continue;
		EXPECT_EQ((uint32_t)id, c->pl_pmcid);
		EXPECT_EQ(pid, c->pl_pid);
		EXPECT_EQ(pid, c->pl_tid);
		sum += c->pl_value;
		n++;
	}
	TH_LOG("%zu PROCCSW records, sum %llu, PMC %llu, child's rusage %ld",
	       n, (unsigned long long)sum, (unsigned long long)value,
	       child_faults);
	/*
	 * The child blocks in pause() at the end; whether it blocks in each
	 * read() is a race with our write, so the number of records is the
	 * scheduler's: the exact check is the sum.
	 */
	EXPECT_LE(1, n);
	EXPECT_EQ(value, sum);
	EXPECT_LE(20 * PAGES_PER_STEP, value);
	/* The counting window holds the child's measured one. */
	EXPECT_LE(child_faults, (long)value);
	EXPECT_GE(child_faults + 8, (long)value);
	smp_buf_free(&b);
}

/*
 * PMC_F_DESCENDANTS and PROCEXIT: a leader forks 32 children that fault
 * 64 + i pages each, and exits after them. Every process gets a PROCEXIT
 * with its own count, every fork a PROCFORK, and the PROCEXIT values add
 * up to the PMC's value. The leader is blocked when the PMC starts (it says
 * so first): a fault it took between the start's read of the counters and
 * its book's is counted by one and not the other (pmc_book_enable(); the
 * start of a running thread is starts_and_stops_while_the_thread_runs').
 */
TEST_F(proc, procexit_for_every_process_of_a_fork_storm)
{
	pid_t kids[NCHILD], leader;
	const struct pmclog_header *h;
	struct smp_buf b = {};
	uint64_t value, sum = 0;
	int go[2], rep[2], ready[2], i;
	bool seen[NCHILD] = { false }, leader_seen = false;
	size_t off, nexit = 0, nfork = 0;
	int64_t id;
	char c;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(rep));
	ASSERT_EQ(0, pipe(ready));
	leader = fork();
	ASSERT_LE(0, leader);
	if (leader == 0) {
		pid_t k[NCHILD];

		/* Its stack and read()'s code, faulted in before the start. */
		k[0] = 0;
		if (read(go[0], &c, 0) != 0 || write(ready[1], "r", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(2);
		for (i = 0; i < NCHILD; i++) {
			k[i] = fork();
			if (k[i] == 0) {
				touch_pages(sysconf(_SC_PAGESIZE), 64 + i);
				_exit(0);
			}
		}
		for (i = 0; i < NCHILD; i++)
			waitpid(k[i], NULL, 0);
		if (write(rep[1], k, sizeof(k)) != sizeof(k))
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	id = count_then_go(_metadata, self, PERF_COUNT_SW_PAGE_FAULTS,
			   PMC_F_LOG_PROCEXIT | PMC_F_DESCENDANTS, leader,
			   go[1]);
	ASSERT_EQ(sizeof(kids), read(rep[0], kids, sizeof(kids)));
	reap_and_collect(_metadata, self, leader, id, &value, &b);
	smp_for_each_rec(h, &b, off) {
		if (smp_rec_type(h) == PMCLOG_TYPE_PROCFORK) {
			const struct pmclog_procfork *f = (const void *)h;

			EXPECT_EQ(leader, f->pl_oldpid);
			nfork++;
			continue;
		}
		if (smp_rec_type(h) != PMCLOG_TYPE_PROCEXIT)
			continue;
		{
			const struct pmclog_procexit *e = (const void *)h;

			EXPECT_EQ((uint32_t)id, e->pl_pmcid);
			nexit++;
			sum += e->pl_value;
			if ((pid_t)e->pl_pid == leader) {
				leader_seen = true;
				continue;
			}
			for (i = 0; i < NCHILD; i++) {
				if ((pid_t)e->pl_pid != kids[i])
					continue;
				EXPECT_FALSE(seen[i]);
				seen[i] = true;
				/* Its own pages at least, little more. */
				EXPECT_LE(64 + i, e->pl_value);
				EXPECT_GE(64 + i + 200, e->pl_value);
			}
		}
	}
	TH_LOG("%zu PROCEXIT, %zu PROCFORK; sum %llu, PMC %llu", nexit, nfork,
	       (unsigned long long)sum, (unsigned long long)value);
	EXPECT_EQ(NCHILD + 1, nexit);
	EXPECT_EQ(NCHILD, nfork);
	EXPECT_TRUE(leader_seen);
	/* Braces: the harness's handler (TH_LOG) follows the check. */
	for (i = 0; i < NCHILD; i++) {
		EXPECT_TRUE(seen[i]) TH_LOG("no PROCEXIT for child %d (pid %d)",
					    i, kids[i]);
	}
	EXPECT_EQ(value, sum);
	smp_buf_free(&b);
}

/* Phases of the child of starts_and_stops_while_the_thread_runs. */
struct run_phases {
	volatile int phase;	/* set by the parent */
	volatile int ack;	/* set by the child when its phase's work is done */
};

static void wait_ack(volatile int *ack, int want)
{
	while (*ack != want)
		usleep(1000);
}

/*
 * PMCSTART and PMCSTOP while a counted thread runs: it faults pages after
 * the attach and before the start, between the start and the stop, and
 * after the stop, and spins in user space (no system call, no switch)
 * while the owner starts and stops the PMC. Its PROCEXIT counts what the
 * PMC counts, the faults between the start and the stop: the books of a
 * thread running at a start or a stop are brought up to that instant, and
 * do not wait for its next switch (which would take the faults before
 * the start in, and drop those before the stop).
 */
TEST_F(proc, starts_and_stops_while_the_thread_runs)
{
	const int before = 48, during = 64, after = 32;
	struct run_phases *ph;
	const struct pmclog_header *h;
	struct smp_buf b = {};
	uint64_t value, sum = 0;
	size_t off, nexit = 0;
	pid_t kid, parent = getpid();
	int64_t id;

	RETURN_IF_SKIPPED();
	ph = mmap(NULL, sizeof(*ph), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ph);
	kid = fork();
	ASSERT_LE(0, kid);
	if (kid == 0) {
		long ps = sysconf(_SC_PAGESIZE);

		/* A failed check ends the test: do not spin on after it. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		while (ph->phase != 1)
			;
		touch_pages(ps, before);
		ph->ack = 1;
		while (ph->phase != 2)
			;
		touch_pages(ps, during);
		ph->ack = 2;
		while (ph->phase != 3)
			;
		touch_pages(ps, after);
		_exit(0);
	}
	id = smp_alloc_tc(self->fd, PERF_COUNT_SW_PAGE_FAULTS, 0,
			  PMC_F_LOG_PROCEXIT | PMC_F_DESCENDANTS, 0, 0);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, id, kid));
	ph->phase = 1;
	wait_ack(&ph->ack, 1);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	ph->phase = 2;
	wait_ack(&ph->ack, 2);
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, id));
	ph->phase = 3;
	reap_and_collect(_metadata, self, kid, id, &value, &b);
	smp_for_each_rec(h, &b, off) {
		const struct pmclog_procexit *e = (const void *)h;

		if (smp_rec_type(h) != PMCLOG_TYPE_PROCEXIT)
			continue;
		EXPECT_EQ((uint32_t)id, e->pl_pmcid);
		EXPECT_EQ(kid, (pid_t)e->pl_pid);
		sum += e->pl_value;
		nexit++;
	}
	TH_LOG("%zu PROCEXIT, sum %llu, PMC %llu (%d pages faulted in the run)",
	       nexit, (unsigned long long)sum, (unsigned long long)value,
	       during);
	EXPECT_EQ(1, nexit);
	EXPECT_LE(during, value);
	EXPECT_GE(during + 8, value);
	EXPECT_EQ(value, sum);
	smp_buf_free(&b);
	munmap(ph, sizeof(*ph));
}

/* The thread of thread_execs_then_proccsw_names_it_by_its_new_tid. */
static void *sleep_then_exec(void *arg)
{
	usleep(20000);
	execl("/bin/sleep", "sleep", "0.05", (char *)NULL);
	_exit(4);
}

/*
 * A thread that is not its process's leader execs: the kernel gives it the
 * leader's pid (de_thread()). The PROCCSW records of a DESCENDANTS PMC
 * (book mode) name it by its own tid before the exec, by the leader's
 * after: the books take a thread's ids once, and again when they change.
 */
TEST_F(proc, thread_execs_then_proccsw_names_it_by_its_new_tid)
{
	const struct pmclog_header *h;
	pid_t kid, last_tid = 0;
	struct smp_buf b = {};
	size_t off, nthread = 0;
	int go[2];
	uint64_t value;
	int64_t id;
	char c;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe(go));
	kid = fork();
	ASSERT_LE(0, kid);
	if (kid == 0) {
		pthread_t t;

		if (read(go[0], &c, 1) != 1 ||
		    pthread_create(&t, NULL, sleep_then_exec, NULL))
			_exit(2);
		pthread_join(t, NULL);	/* the exec ends this thread */
		_exit(3);
	}
	id = count_then_go(_metadata, self, PERF_COUNT_SW_TASK_CLOCK,
			   PMC_F_DESCENDANTS | PMC_F_LOG_PROCCSW, kid, go[1]);
	reap_and_collect(_metadata, self, kid, id, &value, &b);
	smp_for_each_rec(h, &b, off) {
		const struct pmclog_proccsw *r = (const void *)h;

		if (smp_rec_type(h) != PMCLOG_TYPE_PROCCSW ||
		    (pid_t)r->pl_pid != kid)
			continue;
		last_tid = (pid_t)r->pl_tid;
		nthread += last_tid != kid;
	}
	TH_LOG("%zu PROCCSW name the thread by its own tid; the last names %d "
	       "(the process is %d)", nthread, last_tid, kid);
	/* Its usleep() before the exec: a switch-out at least. */
	EXPECT_LE(1, nthread);
	/* The sleep(1) it became ends the process, under the leader's pid. */
	EXPECT_EQ(kid, last_tid);
	smp_buf_free(&b);
	close(go[0]);
	close(go[1]);
}

/*
 * A counting PMC_F_DESCENDANTS PMC without PROCEXIT or PROCCSW (the kind
 * perf's inheritance may count, docs/performance.md): PROCFORK for a fork
 * of the attached leader and for one of its child, PROCEXEC for the
 * grandchild's exec, each naming the right processes; the PMC counts the
 * pages both descendants touch.
 */
TEST_F(proc, grandchild_fork_and_exec_are_logged)
{
	const struct pmclog_header *h;
	struct smp_stream_info si;
	struct smp_buf b = {};
	pid_t leader, kid[2] = { 0, 0 };
	size_t off, nfork = 0, nexec = 0;
	int go[2], rep[2], st;
	bool leader_fork = false, kid_fork = false;
	uint64_t value;
	int64_t id;
	char c;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(rep));
	leader = fork();
	ASSERT_LE(0, leader);
	if (leader == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		kid[0] = fork();
		if (kid[0] == 0) {
			touch_pages(sysconf(_SC_PAGESIZE), 64);
			kid[1] = fork();
			if (kid[1] == 0) {
				touch_pages(sysconf(_SC_PAGESIZE), 64);
				execl("/bin/true", "true", (char *)NULL);
				_exit(3);
			}
			if (write(rep[1], &kid[1], sizeof(pid_t)) !=
			    sizeof(pid_t))
				_exit(2);
			waitpid(kid[1], NULL, 0);
			_exit(0);
		}
		waitpid(kid[0], NULL, 0);
		_exit(0);
	}
	id = count_then_go(_metadata, self, PERF_COUNT_SW_PAGE_FAULTS,
			   PMC_F_DESCENDANTS, leader, go[1]);
	ASSERT_EQ(sizeof(pid_t), read(rep[0], &kid[1], sizeof(pid_t)));
	ASSERT_EQ(leader, waitpid(leader, &st, 0));
	ASSERT_EQ(0, WEXITSTATUS(st));
	ASSERT_EQ(0, smp_read(self->fd, id, &value));
	ASSERT_EQ(0, smp_flushlog(self->fd));

	smp_ring_drain(&self->r, &b);
	ASSERT_TRUE(smp_check_stream(&b, &si)) TH_LOG("%s", si.error);
	smp_for_each_rec(h, &b, off) {
		if (smp_rec_type(h) == PMCLOG_TYPE_PROCFORK) {
			const struct pmclog_procfork *f = (const void *)h;

			nfork++;
			if ((pid_t)f->pl_oldpid == leader) {
				leader_fork = true;
				kid[0] = f->pl_newpid;
			} else if ((pid_t)f->pl_newpid == kid[1]) {
				kid_fork = true;
			}
		} else if (smp_rec_type(h) == PMCLOG_TYPE_PROCEXEC) {
			const struct pmclog_procexec *x = (const void *)h;

			if ((pid_t)x->pl_pid == kid[1])
				nexec++;
		}
	}
	TH_LOG("%zu PROCFORK, %zu PROCEXEC of the grandchild; PMC %llu",
	       nfork, nexec, (unsigned long long)value);
	EXPECT_TRUE(leader_fork);
	EXPECT_TRUE(kid_fork);
	EXPECT_EQ((size_t)2, nfork);
	EXPECT_EQ((size_t)1, nexec);
	EXPECT_LE((uint64_t)2 * 64, value);
	smp_buf_free(&b);
}

/* One pass of the ping-pong below: fault @npages, hand the token over. */
static int pingpong_pass(int in, int out, long ps, int npages)
{
	char c = 't';

	if (in >= 0 && read(in, &c, 1) != 1)
		return -1;
	touch_pages(ps, npages);
	return write(out, &c, 1) == 1 ? 0 : -1;
}

/*
 * PMC_F_DESCENDANTS with PROCCSW and PROCEXIT on a leader and the child it
 * forks, both on one CPU, passing a token 50 times and faulting 8 (leader)
 * and 24 (child) pages per pass: every switch is between the two related
 * processes (the case perf swaps whole contexts for, docs/performance.md
 * 4c). Each process's PROCCSW deltas add up to its PROCEXIT value, both
 * to the PMC's value, and each holds the faults the process itself took.
 */
TEST_F(proc, descendants_proccsw_and_procexit_per_process)
{
	const struct pmclog_header *h;
	struct smp_buf b = {};
	uint64_t value, csw[2] = { 0, 0 }, ex[2] = { 0, 0 };
	size_t off, ncsw[2] = { 0, 0 }, nex[2] = { 0, 0 };
	long own[2] = { -1, -1 };
	int go[2], rep[2], i;
	pid_t pid[2];
	int64_t id;
	char c;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(rep));
	pid[0] = fork();
	ASSERT_LE(0, pid[0]);
	if (pid[0] == 0) {
		long ps = sysconf(_SC_PAGESIZE), d;
		int ab[2], ba[2], k;
		struct rusage r0, r1;
		cpu_set_t one;
		pid_t kid;

		CPU_ZERO(&one);
		CPU_SET(0, &one);
		/*
		 * Ready before the parent starts the PMC: a thread running at
		 * PMCSTART keeps what it counted before it in its next delta
		 * (docs/performance.md, 4c).
		 */
		if (sched_setaffinity(0, sizeof(one), &one) || pipe(ab) ||
		    pipe(ba) || write(rep[1], "r", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(2);
		kid = fork();
		if (kid < 0)
			_exit(2);
		getrusage(RUSAGE_SELF, &r0);
		for (k = 0; k < 50; k++)
			if (kid ? pingpong_pass(k ? ba[0] : -1, ab[1], ps, 8) :
				  pingpong_pass(ab[0], ba[1], ps, 24))
				_exit(2);
		if (kid && read(ba[0], &c, 1) != 1)
			_exit(2);
		getrusage(RUSAGE_SELF, &r1);
		d = faults_of(&r1) - faults_of(&r0);
		if (!kid) {
			_exit(write(rep[1], &d, sizeof(d)) == sizeof(d) ? 0 : 2);
		}
		if (waitpid(kid, &k, 0) != kid || !WIFEXITED(k) ||
		    WEXITSTATUS(k) || write(rep[1], &d, sizeof(d)) != sizeof(d) ||
		    write(rep[1], &kid, sizeof(kid)) != sizeof(kid))
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(1, read(rep[0], &c, 1));	/* the leader is ready */
	usleep(100000);				/* and blocked in read() */
	id = count_then_go(_metadata, self, PERF_COUNT_SW_PAGE_FAULTS,
			   PMC_F_DESCENDANTS | PMC_F_LOG_PROCCSW |
			   PMC_F_LOG_PROCEXIT, pid[0], go[1]);
	ASSERT_EQ(sizeof(long), read(rep[0], &own[1], sizeof(long)));
	ASSERT_EQ(sizeof(long), read(rep[0], &own[0], sizeof(long)));
	ASSERT_EQ(sizeof(pid_t), read(rep[0], &pid[1], sizeof(pid_t)));
	reap_and_collect(_metadata, self, pid[0], id, &value, &b);
	smp_for_each_rec(h, &b, off) {
		if (smp_rec_type(h) == PMCLOG_TYPE_PROCCSW) {
			const struct pmclog_proccsw *r = (const void *)h;

			for (i = 0; i < 2; i++) {
				if ((pid_t)r->pl_pid != pid[i])
					continue;
				EXPECT_EQ(pid[i], (pid_t)r->pl_tid);
				csw[i] += r->pl_value;
				ncsw[i]++;
			}
		} else if (smp_rec_type(h) == PMCLOG_TYPE_PROCEXIT) {
			const struct pmclog_procexit *r = (const void *)h;

			for (i = 0; i < 2; i++) {
				if ((pid_t)r->pl_pid != pid[i])
					continue;
				ex[i] += r->pl_value;
				nex[i]++;
			}
		}
	}
	for (i = 0; i < 2; i++)
		TH_LOG("%s %d: %zu PROCCSW, sum %llu; PROCEXIT %llu; own faults %ld",
		       i ? "child" : "leader", pid[i], ncsw[i],
		       (unsigned long long)csw[i], (unsigned long long)ex[i],
		       own[i]);
	TH_LOG("PMC %llu", (unsigned long long)value);
	for (i = 0; i < 2; i++) {
		/* Each pass blocks in read(): a switch-out at least. */
		EXPECT_LE((size_t)50, ncsw[i]);
		EXPECT_EQ((size_t)1, nex[i]);
		EXPECT_EQ(csw[i], ex[i]);
		EXPECT_LE(own[i], (long)csw[i]);
		/* Its own faults, and those of its fork and exit. */
		EXPECT_GE(own[i] + 200, (long)csw[i]);
	}
	EXPECT_LE(50 * 24, own[1]);
	EXPECT_EQ(value, csw[0] + csw[1]);
	smp_buf_free(&b);
}

/*
 * After an exec of a sampled process: PROCEXEC with the new path, AT_BASE
 * (the dynamic loader) and the PIE load address, then a MAP_IN for each
 * executable file mapping of the new image, all as /proc/PID/maps shows.
 */
TEST_F(proc, exec_logs_procexec_and_mappings)
{
	struct smp_map_line maps[128];
	const struct pmclog_procexec *x = NULL;
	struct smp_stream_info si;
	const struct pmclog_header *h;
	struct smp_buf b = {};
	char target[PATH_MAX], c;
	int go[2], nmaps, i, st;
	size_t off, nmapin = 0, matched = 0;
	bool exe_seen = false, ld_seen = false;
	uint64_t t0;
	int64_t id;
	pid_t pid;

	RETURN_IF_SKIPPED();
	if (!realpath("/bin/sleep", target))
		SKIP(return, "no /bin/sleep");
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		execl(target, "sleep", "3", (char *)NULL);
		_exit(3);
	}
	id = smp_alloc_soft(self->fd, PMC_MODE_TS, PMC_CPU_ANY,
			    PERF_COUNT_SW_CPU_CLOCK, 1000000, 0);
	ASSERT_LE(0, id);
	ASSERT_EQ(0, smp_attach(self->fd, id, pid));
	ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, id));
	ASSERT_EQ(1, write(go[1], "g", 1));

	/* Wait for the PROCEXEC (written as the new image starts). */
	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	while (!x && pmc_t_now_ns(CLOCK_MONOTONIC) - t0 < 2000000000ull) {
		usleep(20000);
		ASSERT_EQ(0, smp_flushlog(self->fd));
		smp_ring_drain(&self->r, &b);
		smp_for_each_rec(h, &b, off)
			if (smp_rec_type(h) == PMCLOG_TYPE_PROCEXEC)
				x = (const void *)h;
	}
	ASSERT_NE(NULL, x);
	usleep(200000);			/* the loader has mapped the libraries */
	nmaps = smp_read_maps(pid, maps, 128);
	ASSERT_LT(0, nmaps);
	ASSERT_EQ(0, smp_flushlog(self->fd));
	smp_ring_drain(&self->r, &b);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);

	ASSERT_TRUE(smp_check_stream(&b, &si)) TH_LOG("%s", si.error);
	x = NULL;
	smp_for_each_rec(h, &b, off) {
		if (smp_rec_type(h) == PMCLOG_TYPE_PROCEXEC) {
			x = (const void *)h;
			EXPECT_EQ(pid, x->pl_pid);
			EXPECT_EQ((uint32_t)id, x->pl_pmcid);
			EXPECT_STREQ(target, x->pl_pathname);
			for (i = 0; i < nmaps; i++) {
				/* The executable's first page; ld.so's. */
				if (!strcmp(maps[i].path, target) &&
				    maps[i].off == 0 &&
				    maps[i].start == x->pl_dynaddr)
					exe_seen = true;
				if (strstr(maps[i].path, "/ld-linux") &&
				    maps[i].off == 0 &&
				    maps[i].start == x->pl_baseaddr)
					ld_seen = true;
			}
			continue;
		}
		if (smp_rec_type(h) != PMCLOG_TYPE_MAP_IN || !x)
			continue;
		{
			const struct pmclog_map_in *m = (const void *)h;

			EXPECT_EQ(pid, m->pl_pid);
			nmapin++;
			for (i = 0; i < nmaps; i++)
				/* Its end may be later: maps_test.c, find_rec(). */
				if (maps[i].start == m->pl_start &&
				    maps[i].end <= m->pl_end &&
				    maps[i].off == m->pl_pgoff &&
				    maps[i].perms[2] == 'x' &&
				    !strcmp(maps[i].path, m->pl_pathname))
					matched++;
		}
	}
	ASSERT_NE(NULL, x);
	TH_LOG("PROCEXEC %s base 0x%llx dyn 0x%llx; %zu MAP_IN after it, %zu in /proc/%d/maps",
	       x->pl_pathname, (unsigned long long)x->pl_baseaddr,
	       (unsigned long long)x->pl_dynaddr, nmapin, matched, pid);
	EXPECT_TRUE(exe_seen);
	EXPECT_TRUE(ld_seen);
	EXPECT_LE(2, nmapin);		/* the executable and ld.so */
	EXPECT_EQ(nmapin, matched);
	smp_buf_free(&b);
}

TEST_HARNESS_MAIN
