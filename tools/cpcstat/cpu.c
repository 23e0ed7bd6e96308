// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.c - cpcstat cpu, alias cpustat: per-CPU counts of the whole system
 * every interval, as illumos cpustat(8) prints them. The end (count reached
 * or a signal) prints one total line per set. Two ways to sample:
 *
 *  - through the ring (one -c set, no -p): the set is bound to every CPU
 *    with a snapshot period of one interval (cpc_set_sample_period), and
 *    this one thread reads the kernel-timestamped snapshots of all CPUs
 *    from the handle's ring (cpc_snapshot_next): no system call per CPU
 *    and interval;
 *  - with reads (several -c sets cycled one per interval, -p, or a driver
 *    without snapshots; CPCSTAT_NO_SNAPSHOT=1 forces it): one thread per
 *    CPU binds the set with cpc_bind_cpu() and samples it at absolute
 *    deadlines.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cpc_common.h"
#include "cpcstat.h"

struct cpu_opts {
	struct cpc_opts c;
	double interval;	/* seconds between samples */
	unsigned long count;	/* samples per CPU, 0 = unlimited */
	double period;		/* -p: seconds per cycle through the sets */
	char tstamp;		/* -T: 'u', 'd' or 0 */
	bool soak;		/* -s */
};

struct shared {
	cpc_t *cpc;
	struct cpu_opts *o;
	pthread_mutex_t out_lock;	/* one line at a time on the output */
	pthread_mutex_t lock;		/* stop and running, with cond */
	pthread_cond_t cond;		/* wakes the samplers when stop is set */
	bool stop;
	unsigned int running;
	hrtime_t origin;		/* CLOCK_MONOTONIC ns of time 0 */
	pthread_t main;
};

struct sampler {
	struct shared *sh;
	int cpu;
	pthread_t thr;
	bool started;
	cpc_set_t **sets;
	cpc_buf_t **base;		/* per set: counts at the last sample or bind */
	cpc_buf_t **now, **diff;	/* per set: a libcpc buffer fits one set */
	uint64_t **accum;		/* per set: totals over its intervals */
	uint64_t *accum_tick;
	hrtime_t last;			/* hrtime of the latest sample */
	int cur;			/* set bound now, -1 if none */
	bool bound;			/* bound at least once: its totals count */
	volatile bool soaking;		/* -s: the bound set is system-only */
	pthread_t soaker;
	bool has_soaker;
	int failed;
};

static const char cpustat_usage[] =
	"Usage:\n"
	"\t%s -c spec [-c spec]... [-p period] [-T u|d]\n"
	"\t\t[-sntD] [interval [count]]\n"
	"\n"
	"\t-c spec\t  specify processor events to be monitored\n"
	"\t-n\t  suppress titles\n"
	"\t-p period cycle through event list periodically\n"
	"\t-s\t  run user soaker thread for system-only events\n"
	"\t-t\t  include tsc register\n"
	"\t-T d|u\t  Display a timestamp in date (d) or unix time_t (u)\n"
	"\t-D\t  enable debug mode\n"
	"\t-h\t  print extended usage information\n"
	"%s"
	"\n"
	"\tUse cputrack(1) to monitor per-process statistics.\n";

static void print_tstamp(const struct cpu_opts *o)
{
	time_t t = time(NULL);
	char buf[256];
	struct tm tm;

	if (o->c.out.format != OUT_HUMAN || !o->tstamp)
		return;
	if (o->tstamp == 'u') {
		fprintf(o->c.out.fp, "%lld\n", (long long)t);
		return;
	}
	localtime_r(&t, &tm);
	if (strftime(buf, sizeof(buf), nl_langinfo(_DATE_FMT), &tm))
		fprintf(o->c.out.fp, "%s\n", buf);
}

/*
 * Print a line; FLUSH writes it out at once (a sampler thread's line), else
 * the caller flushes the lines of one wake-up together (the ring's).
 */
static void print_counts(struct sampler *s, cpc_buf_t *buf, const struct spec_set *spec,
			 const char *label, int id, bool flush)
{
	struct shared *sh = s->sh;
	uint64_t vals[256];
	struct out_sample line = {
		.time = (double)(cpc_buf_hrtime(sh->cpc, buf) - sh->origin) / 1e9,
		.id = id,
		.label = label,
		.tsc = cpc_buf_tick(sh->cpc, buf),
		.values = vals,
		.set = spec,
	};

	for (unsigned int i = 0; i < spec->nreqs && i < 256; i++)
		cpc_buf_get(sh->cpc, buf, (int)i, &vals[i]);
	pthread_mutex_lock(&sh->out_lock);
	print_tstamp(sh->o);
	out_sample(&sh->o->c.out, &line);
	if (flush)
		fflush(sh->o->c.out.fp);
	pthread_mutex_unlock(&sh->out_lock);
}

/* Sleep until ABS_NS (CLOCK_MONOTONIC); false if told to stop. */
static bool wait_until(struct shared *sh, hrtime_t abs_ns)
{
	struct timespec ts = { abs_ns / 1000000000LL, abs_ns % 1000000000LL };
	bool stop;

	pthread_mutex_lock(&sh->lock);
	while (!sh->stop && pthread_cond_timedwait(&sh->cond, &sh->lock, &ts) != ETIMEDOUT)
		;
	stop = sh->stop;
	pthread_mutex_unlock(&sh->lock);
	return !stop;
}

static int bind_set(struct sampler *s, int k)
{
	struct shared *sh = s->sh;

	if (cpc_bind_cpu(sh->cpc, s->cpu, s->sets[k], 0) ||
	    cpc_set_sample(sh->cpc, s->sets[k], s->base[k])) {
		fprintf(stderr, "%s: cpu%d - %s\n", sh->o->c.prog, s->cpu, strerror(errno));
		s->cur = -1;
		return -1;
	}
	s->cur = k;
	s->bound = true;
	s->soaking = spec_system_only(&sh->o->c.specs[k]);
	return 0;
}

/* Sample the bound set: DIFF = counts since the last sample or bind, added to the totals. */
static int take_sample(struct sampler *s)
{
	struct shared *sh = s->sh;
	int k = s->cur;

	if (cpc_set_sample(sh->cpc, s->sets[k], s->now[k])) {
		fprintf(stderr, "%s: cpu%d - %s\n", sh->o->c.prog, s->cpu, strerror(errno));
		return -1;
	}
	cpc_buf_sub(sh->cpc, s->diff[k], s->now[k], s->base[k]);
	cpc_buf_copy(sh->cpc, s->base[k], s->now[k]);
	for (unsigned int i = 0; i < sh->o->c.specs[k].nreqs; i++) {
		uint64_t v;

		cpc_buf_get(sh->cpc, s->diff[k], (int)i, &v);
		s->accum[k][i] += v;
	}
	s->accum_tick[k] += cpc_buf_tick(sh->cpc, s->diff[k]);
	s->last = cpc_buf_hrtime(sh->cpc, s->now[k]);
	return 0;
}

static void *soaker_main(void *arg)
{
	struct sampler *s = arg;
	struct sched_param sp = { 0 };
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(s->cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	/* illumos runs it at the lowest fixed priority: SCHED_IDLE here. */
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	for (;;) {
		bool stop;

		pthread_mutex_lock(&s->sh->lock);
		stop = s->sh->stop;
		pthread_mutex_unlock(&s->sh->lock);
		if (stop)
			break;
		if (!s->soaking) {
			usleep(10000);
			continue;
		}
		for (volatile unsigned long i = 0; i < 1000000 && s->soaking; i++)
			;
	}
	return NULL;
}

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	struct shared *sh = s->sh;
	struct cpu_opts *o = sh->o;
	unsigned int nsets = o->c.nspecs;
	unsigned long limit = o->count ? o->count * (o->period > 0 ? nsets : 1) : 0;
	hrtime_t step = (hrtime_t)(o->interval * 1e9), deadline;
	bool interrupted = false;

	if (bind_set(s, 0))
		goto fail;
	deadline = mono_ns() + step;
	for (unsigned long n = 0; !limit || n < limit; n++) {
		if (!wait_until(sh, deadline)) {
			interrupted = true;
			break;
		}
		if (take_sample(s))
			goto fail;
		print_counts(s, s->diff[s->cur], &o->c.specs[s->cur], "tick", s->cpu, true);
		deadline += step;
		if (nsets > 1) {
			int next = (s->cur + 1) % (int)nsets;

			cpc_unbind(sh->cpc, s->sets[s->cur]);
			s->cur = -1;
			if (next == 0 && o->period > 0) {
				/* -p: the rest of the period passes unmeasured. */
				hrtime_t rest = (hrtime_t)(o->period * 1e9) - step * (hrtime_t)nsets;

				if (rest > 0) {
					deadline += rest;
					if (!wait_until(sh, deadline - step)) {
						interrupted = true;
						break;
					}
				}
			}
			if (bind_set(s, next))
				goto fail;
		}
		/* Late (a busy machine): skip the samples whose time has passed. */
		while (deadline < mono_ns())
			deadline += step;
	}
	/* Interrupted: what the set counted since the last line is in the totals too. */
	if (s->cur >= 0) {
		if (interrupted)
			take_sample(s);
		cpc_unbind(sh->cpc, s->sets[s->cur]);
		s->cur = -1;
	}
	goto done;
fail:
	s->failed = 1;
done:
	s->soaking = false;
	pthread_mutex_lock(&sh->lock);
	sh->running--;
	pthread_mutex_unlock(&sh->lock);
	pthread_kill(sh->main, SIGUSR1);
	return NULL;
}

static int sampler_init(struct sampler *s, struct shared *sh, int cpu)
{
	struct cpu_opts *o = sh->o;
	unsigned int n = o->c.nspecs;

	s->sh = sh;
	s->cpu = cpu;
	s->cur = -1;
	s->sets = calloc(n, sizeof(*s->sets));
	s->base = calloc(n, sizeof(*s->base));
	s->accum = calloc(n, sizeof(*s->accum));
	s->accum_tick = calloc(n, sizeof(*s->accum_tick));
	s->now = calloc(n, sizeof(*s->now));
	s->diff = calloc(n, sizeof(*s->diff));
	if (!s->sets || !s->base || !s->accum || !s->accum_tick || !s->now || !s->diff)
		return -1;
	for (unsigned int k = 0; k < n; k++) {
		s->sets[k] = set_from_spec(sh->cpc, &o->c.specs[k]);
		if (!s->sets[k])
			return -1;
		s->base[k] = cpc_buf_create(sh->cpc, s->sets[k]);
		s->now[k] = cpc_buf_create(sh->cpc, s->sets[k]);
		s->diff[k] = cpc_buf_create(sh->cpc, s->sets[k]);
		s->accum[k] = calloc(o->c.specs[k].nreqs, sizeof(uint64_t));
		if (!s->base[k] || !s->now[k] || !s->diff[k] || !s->accum[k])
			return -1;
	}
	return 0;
}

static void sampler_free(struct sampler *s, cpc_t *cpc, unsigned int nsets)
{
	for (unsigned int k = 0; s->sets && k < nsets; k++) {
		if (s->sets[k])
			cpc_set_destroy(cpc, s->sets[k]);
		if (s->accum)
			free(s->accum[k]);
	}
	free(s->sets);
	free(s->base);
	free(s->now);
	free(s->diff);
	free(s->accum);
	free(s->accum_tick);
}

/* ------------------------------------------------ sampling through the ring */

static void unbind_all(struct sampler *ss, int n, const cpu_set_t *mine)
{
	for (int i = n - 1; i >= 0; i--) {
		if (ss[i].cur >= 0)
			cpc_unbind(ss[i].sh->cpc, ss[i].sets[ss[i].cur]);
		ss[i].cur = -1;
	}
	sched_setaffinity(0, sizeof(*mine), mine);
}

/*
 * Bind set 0 to every CPU with a snapshot period of one interval, from this
 * thread (which cpc_bind_cpu() pins in turn; its affinity is restored).
 * false, with nothing bound, where the driver or the options do not allow it.
 */
static bool ring_bind(struct shared *sh, struct sampler *ss, int n, cpu_set_t *mine)
{
	struct cpu_opts *o = sh->o;
	double us = o->interval * 1e6;
	const char *no = getenv("CPCSTAT_NO_SNAPSHOT");

	if (o->c.nspecs != 1 || o->period > 0 || (no && *no && strcmp(no, "0")) ||
	    us < CPC_SAMPLE_PERIOD_MIN || us > UINT32_MAX ||
	    sched_getaffinity(0, sizeof(*mine), mine))
		return false;
	for (int i = 0; i < n; i++) {
		if (cpc_set_sample_period(sh->cpc, ss[i].sets[0], (uint64_t)us) ||
		    cpc_bind_cpu(sh->cpc, ss[i].cpu, ss[i].sets[0], 0)) {
			if (o->c.debug)
				fprintf(stderr, "%s: cpu%d: no snapshots (%s): reading each CPU\n",
					o->c.prog, ss[i].cpu, strerror(errno));
			unbind_all(ss, n, mine);
			for (int j = 0; j < n; j++)
				cpc_set_sample_period(sh->cpc, ss[j].sets[0], 0);
			return false;
		}
		ss[i].cur = 0;
	}
	sched_setaffinity(0, sizeof(*mine), mine);
	for (int i = 0; i < n; i++) {
		ss[i].bound = true;
		ss[i].soaking = spec_system_only(&o->c.specs[0]);
	}
	if (o->c.debug)
		fprintf(stderr, "%s: %d CPUs sampled through the ring every %.0f us\n",
			o->c.prog, n, us);
	return true;
}

/* Account a new reading of sampler S (in s->now[0]) and print it if PRINT. */
static void ring_account(struct sampler *s, bool print)
{
	struct shared *sh = s->sh;
	const struct spec_set *spec = &sh->o->c.specs[0];

	cpc_buf_sub(sh->cpc, s->diff[0], s->now[0], s->base[0]);
	cpc_buf_copy(sh->cpc, s->base[0], s->now[0]);
	for (unsigned int i = 0; i < spec->nreqs; i++) {
		uint64_t v;

		cpc_buf_get(sh->cpc, s->diff[0], (int)i, &v);
		s->accum[0][i] += v;
	}
	s->accum_tick[0] += cpc_buf_tick(sh->cpc, s->diff[0]);
	s->last = cpc_buf_hrtime(sh->cpc, s->now[0]);
	if (print)
		print_counts(s, s->diff[0], spec, "tick", s->cpu, false);
}

/*
 * Interrupted: what each CPU counted since its last snapshot goes into the
 * totals, read on that CPU (one read per CPU, once).
 */
static void ring_final_reads(struct sampler *ss, int n, const cpu_set_t *mine)
{
	for (int i = 0; i < n; i++) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(ss[i].cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0 &&
		    cpc_set_sample(ss[i].sh->cpc, ss[i].sets[0], ss[i].now[0]) == 0)
			ring_account(&ss[i], false);
	}
	sched_setaffinity(0, sizeof(*mine), mine);
}

/*
 * The stop signal in WAIT that came, or 0. With SFD (a signalfd for WAIT)
 * only when poll() saw it readable, else a look with sigtimedwait().
 */
static int ring_stop_signal(int sfd, bool readable, const sigset_t *wait)
{
	struct timespec zero = { 0, 0 };
	struct signalfd_siginfo si;
	int sig;

	if (sfd < 0) {
		sig = sigtimedwait(wait, NULL, &zero);
	} else {
		if (!readable || read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			return 0;
		sig = (int)si.ssi_signo;
	}
	return sig > 0 && sig != SIGUSR1 ? sig : 0;
}

/*
 * Read the snapshots of every CPU as the ring brings them until each CPU
 * printed COUNT lines or a stop signal (in WAIT) comes. 0, or 1 when a
 * snapshot could not be read. A wake-up costs poll() and one write of
 * the lines of every CPU: the stop signals come through a signalfd
 * watched by the same poll().
 */
static int ring_loop(struct shared *sh, struct sampler *ss, int n, const sigset_t *wait,
		     const cpu_set_t *mine)
{
	unsigned long count = sh->o->count, *got = calloc((size_t)n, sizeof(*got));
	struct pollfd pfd[2] = {
		{ .fd = cpc_snapshot_fd(sh->cpc), .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	bool interrupted = false;
	int ret = 0;

	if (!got)
		return 1;
	pfd[1].fd = signalfd(-1, wait, SFD_NONBLOCK | SFD_CLOEXEC);
	for (;;) {
		bool done = count > 0;
		int sig;

		/* A negative fd is ignored: without a signalfd, one to watch. */
		poll(pfd, 2, 100);
		for (int i = 0; i < n; i++) {
			while (!count || got[i] < count) {
				if (cpc_snapshot_next(sh->cpc, ss[i].sets[0], ss[i].now[0])) {
					if (errno != EAGAIN) {
						fprintf(stderr, "%s: cpu%d - %s\n", sh->o->c.prog,
							ss[i].cpu, strerror(errno));
						ret = 1;
					}
					break;
				}
				ring_account(&ss[i], true);
				got[i]++;
			}
			if (count && got[i] < count)
				done = false;
		}
		fflush(sh->o->c.out.fp);
		if (done || ret)
			break;
		sig = ring_stop_signal(pfd[1].fd, pfd[1].revents & POLLIN, wait);
		if (sig) {
			cpcstat_stop = sig;
			interrupted = true;
			break;
		}
	}
	if (interrupted)
		ring_final_reads(ss, n, mine);
	if (pfd[1].fd >= 0)
		close(pfd[1].fd);
	free(got);
	return ret;
}

static void print_totals(struct shared *sh, struct sampler *ss, unsigned int nthr);

/* The ring way from bind to totals (soakers for -s too). The exit status. */
static int ring_run(struct shared *sh, struct sampler *ss, int n, bool soak,
		    const sigset_t *wait, cpu_set_t *mine)
{
	int ret;

	for (int i = 0; soak && i < n; i++)
		if (pthread_create(&ss[i].soaker, NULL, soaker_main, &ss[i]) == 0)
			ss[i].has_soaker = true;
	ret = ring_loop(sh, ss, n, wait, mine);
	pthread_mutex_lock(&sh->lock);
	sh->stop = true;
	pthread_mutex_unlock(&sh->lock);
	for (int i = 0; i < n; i++) {
		ss[i].soaking = false;
		if (ss[i].has_soaker)
			pthread_join(ss[i].soaker, NULL);
		ss[i].has_soaker = false;
	}
	print_totals(sh, ss, (unsigned int)n);
	unbind_all(ss, n, mine);
	return ret;
}

/* The total line of each set: the sum over CPUs, time of the last sample, ncpus. */
static void print_totals(struct shared *sh, struct sampler *ss, unsigned int nthr)
{
	struct cpu_opts *o = sh->o;
	hrtime_t last = sh->origin;
	uint64_t *vals;

	for (unsigned int t = 0; t < nthr; t++)
		if (ss[t].last > last)
			last = ss[t].last;
	for (unsigned int k = 0; k < o->c.nspecs; k++) {
		struct out_sample line = {
			.time = (double)(last - sh->origin) / 1e9,
			.id = (int)nthr,
			.label = "total",
			.set = &o->c.specs[k],
		};

		vals = calloc(o->c.specs[k].nreqs, sizeof(*vals));
		if (!vals)
			return;
		for (unsigned int t = 0; t < nthr; t++) {
			for (unsigned int i = 0; i < o->c.specs[k].nreqs; i++)
				vals[i] += ss[t].accum[k][i];
			line.tsc += ss[t].accum_tick[k];
		}
		line.values = vals;
		out_sample(&o->c.out, &line);
		free(vals);
	}
	fflush(o->c.out.fp);
}

/* The CPUs to measure: online and in our affinity mask. */
static int cpu_list(int **cpus)
{
	cpu_set_t mask;
	int n = 0;

	if (sched_getaffinity(0, sizeof(mask), &mask))
		return -1;
	*cpus = calloc(CPU_SETSIZE, sizeof(int));
	if (!*cpus)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &mask))
			(*cpus)[n++] = c;
	return n;
}

static int parse_num(const char *s, double *d)
{
	char *end;

	*d = strtod(s, &end);
	return *end || end == s ? -1 : 0;
}

static int parse_args(struct cpu_opts *o, const struct cpu_caps *caps, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ NULL, 0, NULL, 0 },
	};
	int c, errs = 0;
	double d;

	while ((c = getopt_long(argc, argv, "+Dc:hntT:sp:x:", longopts, NULL)) != -1) {
		switch (c) {
		case 'D':
			o->c.debug = true;
			break;
		case 'c':
			if (cpc_opts_add_spec(&o->c, caps, optarg))
				errs++;
			break;
		case 'h':
			return 1;
		case 'n':
			o->c.notitle = true;
			break;
		case 't':
			o->c.out.tsc = true;
			break;
		case 'T':
			if (strcmp(optarg, "u") && strcmp(optarg, "d"))
				errs++;
			o->tstamp = optarg[0];
			break;
		case 's':
			o->soak = true;
			break;
		case 'p':
			if (parse_num(optarg, &o->period) || o->period <= 0)
				errs++;
			break;
		case 'x':
			o->c.out.format = OUT_CSV;
			o->c.out.sep = optarg;
			break;
		case 'J':
			o->c.out.format = OUT_JSON;
			break;
		default:
			errs++;
			break;
		}
	}
	if (errs || o->c.nspecs == 0)
		return -1;
	if (optind < argc) {
		if (parse_num(argv[optind], &d) || d <= 0)
			return -1;
		o->interval = d;
		optind++;
	}
	if (optind < argc) {
		char *end;
		long n = strtol(argv[optind], &end, 10);

		if (*end || n <= 0)
			return -1;
		o->count = (unsigned long)n;
		optind++;
	}
	return optind < argc ? -1 : 0;
}

static int run(struct cpu_opts *o, cpc_t *cpc)
{
	struct shared sh = { .cpc = cpc, .o = o, .main = pthread_self() };
	struct sampler *ss = NULL;
	int *cpus = NULL, n, ret = 1, sig;
	sigset_t wait, old;
	cpu_set_t mine;
	bool soak = false;

	pthread_mutex_init(&sh.out_lock, NULL);
	pthread_mutex_init(&sh.lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&sh.cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	n = cpu_list(&cpus);
	if (n <= 0) {
		fprintf(stderr, "%s: no CPU to measure\n", o->c.prog);
		goto out;
	}
	ss = calloc((size_t)n, sizeof(*ss));
	if (!ss)
		goto out;
	for (int i = 0; i < n; i++) {
		if (sampler_init(&ss[i], &sh, cpus[i])) {
			fprintf(stderr, "%s: cpu%d - %s\n", o->c.prog, cpus[i], strerror(errno));
			goto out;
		}
	}
	for (unsigned int k = 0; k < o->c.nspecs; k++)
		soak |= o->soak && spec_system_only(&o->c.specs[k]);

	/* Signals come to this thread only, through sigtimedwait. */
	sigemptyset(&wait);
	sigaddset(&wait, SIGUSR1);
	cpcstat_stop_signals(&wait);
	pthread_sigmask(SIG_BLOCK, &wait, &old);

	if (!o->c.notitle)
		out_title(&o->c.out, &o->c.specs[0]);
	fflush(o->c.out.fp);
	sh.origin = mono_ns();
	if (ring_bind(&sh, ss, n, &mine)) {
		ret = ring_run(&sh, ss, n, soak, &wait, &mine);
		goto drain;
	}
	sh.running = (unsigned int)n;
	for (int i = 0; i < n; i++) {
		if (pthread_create(&ss[i].thr, NULL, sampler_main, &ss[i])) {
			pthread_mutex_lock(&sh.lock);
			sh.running--;
			pthread_mutex_unlock(&sh.lock);
			ss[i].failed = 1;
			continue;
		}
		ss[i].started = true;
		if (soak && pthread_create(&ss[i].soaker, NULL, soaker_main, &ss[i]) == 0)
			ss[i].has_soaker = true;
	}
	for (;;) {
		struct timespec tmo = { 0, 200000000 };
		unsigned int running;

		sig = sigtimedwait(&wait, NULL, &tmo);
		if (sig > 0 && sig != SIGUSR1) {
			cpcstat_stop = sig;
			break;
		}
		pthread_mutex_lock(&sh.lock);
		running = sh.running;
		pthread_mutex_unlock(&sh.lock);
		if (!running)
			break;
	}
	pthread_mutex_lock(&sh.lock);
	sh.stop = true;
	pthread_cond_broadcast(&sh.cond);
	pthread_mutex_unlock(&sh.lock);
	ret = 0;
	for (int i = 0; i < n; i++) {
		if (ss[i].started)
			pthread_join(ss[i].thr, NULL);
		if (ss[i].has_soaker)
			pthread_join(ss[i].soaker, NULL);
		if (ss[i].failed)
			ret = 1;
	}
	/* No total line when no CPU could count at all (an error said why). */
	for (int i = 0; i < n; i++) {
		if (ss[i].bound) {
			print_totals(&sh, ss, (unsigned int)n);
			break;
		}
	}
drain:
	{
		/* The samplers' wake-ups must not reach the default action. */
		struct timespec zero = { 0, 0 };
		sigset_t usr1;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		while (sigtimedwait(&usr1, NULL, &zero) == SIGUSR1)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
out:
	for (int i = 0; ss && i < n; i++)
		sampler_free(&ss[i], cpc, o->c.nspecs);
	free(ss);
	free(cpus);
	return cpcstat_exit_code(ret);
}

int cpu_main(int argc, char **argv, const char *prog)
{
	struct cpu_opts o = { .interval = 5.0 };
	struct cpu_caps caps = { 0 };
	cpc_t *cpc;
	int ret;

	o.c.prog = prog;
	o.c.out = (struct out){ .fp = stdout, .format = OUT_HUMAN, .tool = OUT_CPUSTAT, .sep = "," };
	cpc = cpc_tool_open(prog, "s", &caps);
	if (!cpc)
		return 1;
	ret = parse_args(&o, &caps, argc, argv);
	cpc_tool_errors(cpc, prog, o.c.debug);
	ret = cpc_tool_parsed(ret, cpustat_usage, prog, "cpustat", &caps);
	if (ret < 0) {
		o.c.out.several_sets = o.c.nspecs > 1;
		/*
		 * Every line is flushed when printed, but the ring's lines of
		 * one wake-up go out in one write (ring_loop()).
		 */
		setvbuf(stdout, NULL, _IOFBF, 0);
		ret = run(&o, cpc);
	}
	cpc_opts_free(&o.c);
	caps_free(&caps);
	cpc_close(cpc);
	return ret;
}
