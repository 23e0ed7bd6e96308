// SPDX-License-Identifier: GPL-2.0
/*
 * nmi_test.c - the overflow path in genuine NMI context, under load: the
 * test PMU (selftests/testpmu) delivers the overflows of system-scope
 * sampling PMCs with callchains on every CPU as NMIs while a thread reads
 * the mmap'd ring with poll(). One million samples later, every record
 * read is well formed, the sequence numbers run without a gap that a
 * DROPNOTIFY does not account for, and the samples read, the overflows the
 * test PMU delivered in NMI and the driver's statistics all agree.
 *
 * Also on the test PMU, whose NMIs interrupt the kernel too: an owner that
 * may not see kernel addresses (uid 65534, perf_event_paranoid > 1) gets
 * none, and PMC_F_USERCALLCHAIN appends the user frames to kernel ones.
 */
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"

#include "sampling.h"
#include "../testpmu/testpmu_util.h"

#define NMI_SAMPLES	1000000ull
#define NMI_PERIOD	20000ull	/* events (ns of the test PMU) */
#define NMI_TIME_LIMIT	240ull		/* seconds */
#define RAW_EVENT	0x3c
#define KERNEL_START	0xffff800000000000ull

/* What the reader found, checked record by record as it reads. */
struct nmi_reader {
	int fd;
	struct smp_ring *r;
	volatile bool stop;
	struct smp_buf b;
	uint64_t nrecs, nsamples, kernel_chains, user_samples;
	uint64_t seq_gaps, drop_records, drop_samples, polls;
	uint32_t last_seq;
	bool have_seq;
	char error[160];
};

/* Check the records of @len bytes at @p; false at the first bad one. */
static bool nmi_check(struct nmi_reader *rd, const uint8_t *p, size_t len)
{
	size_t off = 0;

	while (off < len) {
		const struct pmclog_header *h = (const void *)(p + off);
		uint32_t l = smp_rec_len(h);

		if (len - off < sizeof(*h) ||
		    !PMCLOG_HEADER_CHECK_MAGIC(h->pl_header) ||
		    !smp_known_type(smp_rec_type(h)) || l < sizeof(*h) ||
		    l % PMCLOG_ALIGN || l > len - off) {
			snprintf(rd->error, sizeof(rd->error),
				 "bad header 0x%08x after %llu records",
				 h->pl_header, (unsigned long long)rd->nrecs);
			return false;
		}
		if (rd->have_seq && h->pl_seq != rd->last_seq + 1) {
			if ((int32_t)(h->pl_seq - rd->last_seq) <= 0) {
				snprintf(rd->error, sizeof(rd->error),
					 "sequence %u after %u", h->pl_seq,
					 rd->last_seq);
				return false;
			}
			rd->seq_gaps += h->pl_seq - rd->last_seq - 1;
		}
		rd->have_seq = true;
		rd->last_seq = h->pl_seq;
		rd->nrecs++;
		if (smp_rec_type(h) == PMCLOG_TYPE_CALLCHAIN) {
			const struct pmclog_callchain *cc = (const void *)h;
			unsigned int npc = (l - sizeof(*cc)) / 8;

			rd->nsamples++;
			if (PMC_CALLCHAIN_CPUFLAGS_TO_USERMODE(cc->pl_cpuflags))
				rd->user_samples++;
			else if (npc > 1 && cc->pl_pc[0] >= KERNEL_START &&
				 cc->pl_pc[1] >= KERNEL_START)
				rd->kernel_chains++;
		} else if (smp_rec_type(h) == PMCLOG_TYPE_DROPNOTIFY) {
			const struct pmclog_dropnotify *d = (const void *)h;

			rd->drop_records += d->pl_records;
			rd->drop_samples += d->pl_samples;
		}
		off += l;
	}
	return true;
}

static void nmi_drain(struct nmi_reader *rd)
{
	rd->b.len = 0;
	smp_ring_drain(rd->r, &rd->b);
	if (!rd->error[0])
		nmi_check(rd, rd->b.data, rd->b.len);
}

static void *nmi_reader_fn(void *arg)
{
	struct nmi_reader *rd = arg;
	struct pollfd pfd = { .fd = rd->fd, .events = POLLIN };

	while (!rd->stop) {
		if (poll(&pfd, 1, 100) > 0)
			rd->polls++;
		nmi_drain(rd);
	}
	return NULL;
}

struct spinner {
	volatile bool *stop;
};

static void *spin_fn(void *arg)
{
	struct spinner *s = arg;
	volatile uint64_t x = 0;

	while (!*s->stop)
		x++;
	return NULL;
}

FIXTURE(nmi) {
	int fd;
	struct smp_ring r;
	unsigned int hwclass;
};

FIXTURE_SETUP(nmi)
{
	const char *why = tp_cannot_load();
	struct pmc_classinfo ci;

	self->fd = -1;
	memset(&self->r, 0, sizeof(self->r));
	if (!why && smp_cannot_run())
		why = smp_cannot_run();
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, tp_load(4, 48)) TH_LOG("cannot load the test PMU");
	ASSERT_EQ(0, tp_pmc_hwclass(&ci, NULL));
	self->hwclass = ci.pm_class;
	self->fd = smp_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, smp_ring_map(self->fd, 512, &self->r));
}

FIXTURE_TEARDOWN(nmi)
{
	smp_ring_unmap(&self->r);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The harness's 30 s would cut the run short of its own limit (a slow guest:
 * the debug kernel on a loaded host); it stops at NMI_TIME_LIMIT instead.
 */
TEST_F_TIMEOUT(nmi, a_million_nmi_samples_read_while_written, NMI_TIME_LIMIT + 60)
{
	struct nmi_reader rd = { .fd = self->fd, .r = &self->r };
	struct pmc_op_getdriverstats ds0, ds1;
	long long nmi0, out0, nmi1, out1;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), i;
	volatile bool stop = false;
	struct spinner sp = { .stop = &stop };
	pthread_t reader, spinner;
	uint64_t t0, processed = 0;
	int64_t ids[64];

	RETURN_IF_SKIPPED();
	if (ncpu > 64)
		ncpu = 64;
	ASSERT_EQ(0, mlockall(MCL_CURRENT | MCL_FUTURE));
	for (i = 0; i < ncpu; i++) {
		ids[i] = smp_alloc_ext(self->fd, self->hwclass, PMC_MODE_SS, i,
				       PERF_TYPE_RAW, RAW_EVENT, NMI_PERIOD,
				       PMC_F_CALLCHAIN, NULL, NULL);
		ASSERT_LE(0, ids[i]) TH_LOG("CPU %d: %s", i, strerror(-ids[i]));
	}
	ASSERT_EQ(0, smp_stats(self->fd, &ds0));
	nmi0 = tp_stat("overflows_in_nmi");
	out0 = tp_stat("overflows_outside_nmi");
	ASSERT_LE(0, nmi0);
	ASSERT_EQ(0, pthread_create(&reader, NULL, nmi_reader_fn, &rd));
	ASSERT_EQ(0, pthread_create(&spinner, NULL, spin_fn, &sp));
	for (i = 0; i < ncpu; i++)
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTART, ids[i]));

	t0 = pmc_t_now_ns(CLOCK_MONOTONIC);
	while (processed < NMI_SAMPLES &&
	       pmc_t_now_ns(CLOCK_MONOTONIC) - t0 < NMI_TIME_LIMIT * 1000000000ull) {
		usleep(200000);
		ASSERT_EQ(0, smp_stats(self->fd, &ds1));
		processed = ds1.pm_intr_processed - ds0.pm_intr_processed;
	}
	for (i = 0; i < ncpu; i++)
		ASSERT_EQ(0, smp_simple(self->fd, PMC_IOC_PMCSTOP, ids[i]));
	stop = true;
	pthread_join(spinner, NULL);
	ASSERT_EQ(0, smp_flushlog(self->fd));
	rd.stop = true;
	pthread_join(reader, NULL);
	nmi_drain(&rd);
	/* A publication with room in the ring reports the last drops. */
	ASSERT_EQ(0, smp_writelog(self->fd, 1));
	nmi_drain(&rd);

	ASSERT_EQ(0, smp_stats(self->fd, &ds1));
	nmi1 = tp_stat("overflows_in_nmi");
	out1 = tp_stat("overflows_outside_nmi");
	processed = ds1.pm_intr_processed - ds0.pm_intr_processed;
	TH_LOG("%.1f s: %llu records, %llu samples (%llu user, %llu with kernel chains), %lld NMI overflows, %llu processed, %llu ring drops, %llu lost for want of a buffer, %llu sample drops, %llu polls",
	       (pmc_t_now_ns(CLOCK_MONOTONIC) - t0) / 1e9,
	       (unsigned long long)rd.nrecs, (unsigned long long)rd.nsamples,
	       (unsigned long long)rd.user_samples,
	       (unsigned long long)rd.kernel_chains, nmi1 - nmi0,
	       (unsigned long long)processed,
	       (unsigned long long)(ds1.pm_ring_dropped - ds0.pm_ring_dropped),
	       (unsigned long long)(ds1.pm_buffer_requests_failed -
				    ds0.pm_buffer_requests_failed),
	       (unsigned long long)(ds1.pm_intr_bufferfull - ds0.pm_intr_bufferfull),
	       (unsigned long long)rd.polls);

	EXPECT_STREQ("", rd.error);
	/*
	 * Every gap in the sequence is a record the ring had no room for;
	 * the DROPNOTIFYs report those and the records lost before they got
	 * a number (no free log buffer: the publisher fell behind).
	 */
	EXPECT_EQ(ds1.pm_ring_dropped - ds0.pm_ring_dropped, rd.seq_gaps);
	EXPECT_EQ(rd.seq_gaps + ds1.pm_buffer_requests_failed -
		  ds0.pm_buffer_requests_failed, rd.drop_records);
	EXPECT_EQ(ds1.pm_intr_bufferfull - ds0.pm_intr_bufferfull,
		  rd.drop_samples);
	/* Each NMI overflow was taken or dropped, and each taken one read. */
	EXPECT_EQ(0, out1 - out0);
	EXPECT_EQ((uint64_t)(nmi1 - nmi0),
		  processed + ds1.pm_intr_bufferfull - ds0.pm_intr_bufferfull +
		  ds1.pm_intr_ignored - ds0.pm_intr_ignored);
	EXPECT_LE(rd.nsamples, processed);
	EXPECT_LE(processed, rd.nsamples + rd.drop_records);
	EXPECT_LE(NMI_SAMPLES, processed)
		TH_LOG("the emulated machine delivered too few NMIs in %llu s",
		       NMI_TIME_LIMIT);
	EXPECT_LT(0, rd.kernel_chains);
	/*
	 * The spinner's samples carry its user registers. Checked when the
	 * reader got most of the samples taken (1,021,727 of 1,034,331 on
	 * 6.1, 41 % of them user): on the PREEMPT_RT debug kernel it got
	 * 22,055 of 1,010,755 (a loaded host) or 38,451 of 1,003,294 (alone
	 * on it), the rest dropped for want of ring room or buffers, and
	 * those that found room were mostly, once all, taken in the kernel
	 * work that freed it. hwclass-sampling checks the user share of a
	 * thread's NMI samples (a few hundred, all read) on every kernel.
	 */
	if (rd.nsamples * 2 >= processed) {
		EXPECT_LT(0, rd.user_samples);
	} else {
		TH_LOG("user registers not checked: %llu of %llu samples read",
		       (unsigned long long)rd.nsamples,
		       (unsigned long long)processed);
	}
	smp_buf_free(&rd.b);
}

/* ---------------------------------------------------------------- kernel */

static volatile uint64_t sink;

/* Mostly in the kernel: getppid() in a loop. */
void __attribute__((noinline, noclone)) syscall_loop(uint64_t cpu_ns)
{
	uint64_t end = pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) + cpu_ns;
	int i;

	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
	while (pmc_t_now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (i = 0; i < 1000; i++)
			sink += syscall(SYS_getppid);
}

void __attribute__((noinline, noclone)) syscall_child(int go)
{
	char c;

	if (read(go, &c, 1) == 1)
		syscall_loop(300000000ull);
	_exit(0);
}

struct kstats {
	uint64_t samples, kernel_samples, kernel_addrs, user_after_kernel;
	uint64_t child_frames;
};

/*
 * Sample a child running syscall_loop() with a process-scope PMC of the
 * test PMU through @fd (callchains, @flags more, @caps), and sort the
 * samples out. 0 or -errno.
 */
static void set_caps(struct pmc_op_pmcallocate *pa, const void *arg)
{
	pa->pm_caps = *(const uint32_t *)arg;
}

static int sample_syscalls(int fd, unsigned int hwclass, uint32_t caps,
			   uint32_t flags, const uint64_t child_range[2],
			   struct kstats *ks)
{
	struct smp_stream_info si;
	const struct pmclog_header *h;
	struct smp_buf b = {};
	struct smp_ring r;
	int go[2], ret, st;
	int64_t id;
	size_t off;
	pid_t pid;

	memset(ks, 0, sizeof(*ks));
	ret = smp_ring_map(fd, 512, &r);
	if (ret) {
		fprintf(stderr, "# mmap: %s\n", strerror(-ret));
		return ret;
	}
	if (pipe(go))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(go[1]);
		syscall_child(go[0]);
	}
	close(go[0]);
	id = smp_alloc_ext(fd, hwclass, PMC_MODE_TS, PMC_CPU_ANY, PERF_TYPE_RAW,
			   RAW_EVENT, 100000, PMC_F_CALLCHAIN | flags,
			   set_caps, &caps);
	ret = id < 0 ? id : 0;
	if (ret)
		fprintf(stderr, "# PMCALLOCATE: %s\n", strerror(-ret));
	if (!ret) {
		ret = smp_attach(fd, id, pid);
		if (ret)
			fprintf(stderr, "# PMCATTACH: %s\n", strerror(-ret));
	}
	if (!ret) {
		ret = smp_simple(fd, PMC_IOC_PMCSTART, id);
		if (ret)
			fprintf(stderr, "# PMCSTART: %s\n", strerror(-ret));
	}
	if (write(go[1], "g", 1) != 1 && !ret)
		ret = -EIO;
	close(go[1]);
	waitpid(pid, &st, 0);
	if (ret)
		return ret;
	ret = smp_flushlog(fd);
	smp_ring_drain(&r, &b);
	smp_ring_unmap(&r);
	if (!smp_check_stream(&b, &si))
		return -EBADMSG;
	smp_for_each_rec(h, &b, off) {
		const struct pmclog_callchain *cc = (const void *)h;
		unsigned int i, npc = (smp_rec_len(h) - sizeof(*cc)) / 8;
		bool kernel = false;

		if (smp_rec_type(h) != PMCLOG_TYPE_CALLCHAIN)
			continue;
		ks->samples++;
		if (!PMC_CALLCHAIN_CPUFLAGS_TO_USERMODE(cc->pl_cpuflags))
			ks->kernel_samples++;
		for (i = 0; i < npc; i++) {
			if (cc->pl_pc[i] >= KERNEL_START) {
				ks->kernel_addrs++;
				kernel = true;
			} else if (kernel && cc->pl_pc[i]) {
				ks->user_after_kernel++;
				kernel = false;
			}
			if (cc->pl_pc[i] >= child_range[0] &&
			    cc->pl_pc[i] < child_range[1])
				ks->child_frames++;
		}
	}
	smp_buf_free(&b);
	return ret;
}

/* A privileged owner: kernel frames, then the user ones with USERCALLCHAIN. */
TEST_F(nmi, usercallchain_follows_the_kernel_frames)
{
	uint64_t child[2];
	struct kstats ks;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_func_range("syscall_child", (void *)syscall_child,
				    &child[0], &child[1]));
	ASSERT_EQ(0, sample_syscalls(self->fd, self->hwclass,
				     PMC_CAP_INTERRUPT | PMC_CAP_USER |
				     PMC_CAP_SYSTEM, PMC_F_USERCALLCHAIN,
				     child, &ks));
	TH_LOG("%llu samples, %llu in the kernel, %llu kernel addresses, %llu user parts, %llu frames in syscall_child",
	       (unsigned long long)ks.samples,
	       (unsigned long long)ks.kernel_samples,
	       (unsigned long long)ks.kernel_addrs,
	       (unsigned long long)ks.user_after_kernel,
	       (unsigned long long)ks.child_frames);
	EXPECT_LT(100, ks.samples);
	EXPECT_LT(ks.samples / 4, ks.kernel_samples);
	/* Every kernel chain goes on into user space (a quarter is kept). */
	EXPECT_EQ(ks.kernel_samples, ks.user_after_kernel);
	EXPECT_LE(ks.samples / 2, ks.child_frames);
}

/*
 * uid 65534 with perf_event_paranoid > 1 samples its own child: user mode
 * only (PMC_CAP_USER). The test PMU's NMIs also interrupt the child in the
 * kernel, and those samples are given as the user state the kernel was
 * entered from: no kernel address ever, callchains still complete.
 */
TEST_F(nmi, unprivileged_owner_sees_no_kernel_address)
{
	struct stat st0;
	uint64_t child[2];
	int res[2], st;
	struct kstats ks;
	pid_t pid;
	int ret;

	RETURN_IF_SKIPPED();
	ASSERT_EQ(0, smp_func_range("syscall_child", (void *)syscall_child,
				    &child[0], &child[1]));
	ASSERT_EQ(0, stat(PMC_DEVICE_PATH, &st0));
	ASSERT_EQ(0, chmod(PMC_DEVICE_PATH, 0666));
	ASSERT_EQ(0, pipe(res));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		/* Dumpable again after setuid: its child may be attached to. */
		if (setgid(65534) || setuid(65534) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
			_exit(2);
		fd = smp_open();
		ret = fd < 0 ? fd :
		      sample_syscalls(fd, self->hwclass,
				      PMC_CAP_INTERRUPT | PMC_CAP_USER, 0,
				      child, &ks);
		if (write(res[1], &ret, sizeof(ret)) != sizeof(ret) ||
		    write(res[1], &ks, sizeof(ks)) != sizeof(ks))
			_exit(3);
		_exit(0);
	}
	close(res[1]);
	ASSERT_EQ(sizeof(ret), read(res[0], &ret, sizeof(ret)));
	ASSERT_EQ(sizeof(ks), read(res[0], &ks, sizeof(ks)));
	waitpid(pid, &st, 0);
	chmod(PMC_DEVICE_PATH, st0.st_mode & 07777);
	ASSERT_EQ(0, ret) TH_LOG("uid 65534: %s", strerror(-ret));
	TH_LOG("%llu samples, %llu kernel-mode, %llu kernel addresses, %llu frames in syscall_child",
	       (unsigned long long)ks.samples,
	       (unsigned long long)ks.kernel_samples,
	       (unsigned long long)ks.kernel_addrs,
	       (unsigned long long)ks.child_frames);
	EXPECT_LT(100, ks.samples);
	EXPECT_EQ(0, ks.kernel_samples);
	EXPECT_EQ(0, ks.kernel_addrs);
	EXPECT_LE(ks.samples / 2, ks.child_frames);
}

TEST_HARNESS_MAIN
