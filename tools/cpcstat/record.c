// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - cpcstat record: sample a command, a process or every CPU into
 * a pmclog file through libpmc (pmc_configure_logfile, pmc_allocate in TS or
 * SS mode, PMC_F_CALLCHAIN under -g), showing progress and a summary
 * (samples, lost, duration) on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pmc.h>
#include <pmclog.h>

#include "cpcstat.h"
#include "mapsnap.h"
#include "out.h"
#include "recspec.h"

#define DEFAULT_OUTPUT	"cpcstat.log"
#define MAX_EVENTS	16

struct record {
	const char *prog;
	const char *output;
	struct rec_event events[MAX_EVENTS];
	unsigned int nevents;
	bool callchain;
	bool system;		/* -a */
	bool quiet;
	pid_t pid;		/* -p */
	double duration;	/* -d, 0 = until the command ends or Ctrl-C */
	enum out_format format;
	const char *sep;
	char **argv;		/* the command */
	pmc_id_t *ids;
	unsigned int nids;
	pid_t child;
	int child_status;
	bool child_done;
};

/* What a scan of the log found. */
struct log_counts {
	uint64_t samples;
	uint64_t lost;
	uint64_t first_ns, last_ns;
	bool closed;		/* a CLOSELOG record ends it */
	bool damaged;
	off_t bytes;
};

static int usage(const char *prog, int code)
{
	fprintf(code ? stderr : stdout,
		"Usage:\n"
		"\t%s [-e event[,period=N|freq=N]]... [-g] [-o file] [-d secs]\n"
		"\t\t[-q] [-x sep | --json] (command [args] | -p pid | -a)\n"
		"\n"
		"\t-e event  event to sample (default cycles, or cpu-clock without\n"
		"\t\t  a hardware PMU); period=N events or freq=N Hz (default %d)\n"
		"\t-g\t  record callchains\n"
		"\t-o file\t  write the log to file (default %s)\n"
		"\t-p pid\t  sample an existing process\n"
		"\t-a\t  sample every CPU (system-wide)\n"
		"\t-d secs\t  stop after secs seconds\n"
		"\t-q\t  no progress line\n"
		"\t-x sep\t  summary as CSV with separator sep\n"
		"\t--json\t  summary as JSON\n",
		prog, RECORD_DEFAULT_FREQ, DEFAULT_OUTPUT);
	return code;
}

static void count_event(struct log_counts *c, const struct pmclog_ev *ev)
{
	uint64_t ns = (uint64_t)ev->pl_ts.tv_sec * 1000000000ULL + (uint64_t)ev->pl_ts.tv_nsec;

	if (ns) {
		if (!c->first_ns)
			c->first_ns = ns;
		c->last_ns = ns;
	}
	switch (ev->pl_type) {
	case PMCLOG_TYPE_CALLCHAIN:
		c->samples++;
		break;
	case PMCLOG_TYPE_DROPNOTIFY:
		c->lost += ev->pl_u.pl_dn.pl_samples + ev->pl_u.pl_dn.pl_records;
		break;
	case PMCLOG_TYPE_CLOSELOG:
		c->closed = true;
		break;
	default:
		break;
	}
}

/* Scan a whole log file. */
static void scan_log(const char *path, struct log_counts *c)
{
	struct pmclog_ev ev;
	struct stat st;
	void *log;
	int fd;

	memset(c, 0, sizeof(*c));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0)
		c->bytes = st.st_size;
	log = pmclog_open(fd);
	if (log) {
		while (pmclog_read(log, &ev) == 0)
			count_event(c, &ev);
		c->damaged = ev.pl_state == PMCLOG_ERROR;
		pmclog_close(log);
	}
	close(fd);
}

/* Progress: feed what the driver has written so far to a parser. */
struct progress {
	int fd;
	void *log;
	struct log_counts counts;
	struct timespec start;
	bool tty;
};

static void progress_update(struct progress *p)
{
	char buf[65536];
	struct pmclog_ev ev;
	ssize_t n;

	if (p->fd < 0 || !p->log)
		return;
	while ((n = read(p->fd, buf, sizeof(buf))) > 0) {
		if (pmclog_feed(p->log, buf, (int)n))
			return;
		while (pmclog_read(p->log, &ev) == 0)
			count_event(&p->counts, &ev);
	}
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static double cpu_hz(void)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[256];
	double mhz = 0;

	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	if (fp)
		fclose(fp);
	return mhz > 0 ? mhz * 1e6 : 1e9;
}

/* A hardware class (IAP, IAF, K8) exists: "cycles" can be sampled. */
static bool have_hardware(void)
{
	const struct pmc_cpuinfo *ci;

	if (pmc_cpuinfo(&ci))
		return false;
	for (unsigned int i = 0; i < ci->pm_nclass && i < PMC_CLASS_MAX; i++) {
		uint32_t cl = ci->pm_classes[i].pm_class;

		if ((cl == PMC_CLASS_IAP || cl == PMC_CLASS_K8) && ci->pm_classes[i].pm_num)
			return true;
	}
	return false;
}

/*
 * hwpmc's "cycles" alias is the TSC, which cannot sample; in record it
 * means what perf means: the CPU's cycles.
 */
static const char *sampling_spec(const struct rec_event *ev, char *buf, size_t len)
{
	if (strcasecmp(ev->name, "cycles") == 0) {
		snprintf(buf, len, "cpu-cycles%s", ev->spec + strlen(ev->name));
		return buf;
	}
	return ev->spec;
}

/*
 * Refuse a bad event before anything starts, naming the bad token: the
 * event name alone, then one qualifier more at a time, through libpmc's
 * parser (pmc_parse_spec, what pmc_allocate uses).
 */
static int check_event(const struct record *r, const struct rec_event *ev)
{
	enum pmc_mode mode = r->system ? PMC_MODE_SS : PMC_MODE_TS;
	struct pmc_op_pmcallocate req;
	char buf[512], spec[512];
	const char *full = sampling_spec(ev, buf, sizeof(buf));
	size_t len = strcspn(full, ",");

	snprintf(spec, sizeof(spec), "%.*s", (int)len, full);
	memset(&req, 0, sizeof(req));
	if (pmc_parse_spec(spec, mode, &req)) {
		fprintf(stderr, "%s: bad event '%s': %s\n", r->prog, ev->name, strerror(errno));
		return -1;
	}
	while (full[len]) {
		size_t next = len + 1 + strcspn(full + len + 1, ",");

		snprintf(spec, sizeof(spec), "%.*s", (int)next, full);
		memset(&req, 0, sizeof(req));
		if (pmc_parse_spec(spec, mode, &req)) {
			fprintf(stderr, "%s: bad token '%.*s' in '%s'\n", r->prog,
				(int)(next - len - 1), full + len + 1, ev->spec);
			return -1;
		}
		len = next;
	}
	return 0;
}

static int add_id(struct record *r, pmc_id_t id)
{
	pmc_id_t *ids = realloc(r->ids, (r->nids + 1) * sizeof(*ids));

	if (!ids)
		return -1;
	r->ids = ids;
	r->ids[r->nids++] = id;
	return 0;
}

/* Does SPEC choose the modes itself ("usr" or "os" qualifier)? */
static bool names_modes(const char *spec)
{
	for (const char *q = strchr(spec, ','); q; q = strchr(q + 1, ',')) {
		size_t n = strcspn(q + 1, ",");

		if ((n == 3 && strncasecmp(q + 1, "usr", 3) == 0) ||
		    (n == 2 && strncasecmp(q + 1, "os", 2) == 0))
			return true;
	}
	return false;
}

/*
 * Sampling the kernel too needs privilege (perf's paranoid rules): where the
 * user did not choose the modes, the driver samples user mode only, as perf
 * record does (pmc(4)); say so once, from the modes the PMC got.
 */
static void user_only_note(const struct record *r, const char *spec, pmc_id_t id)
{
	static bool told;
	uint32_t caps;

	if (told || names_modes(spec) || pmc_capabilities(id, &caps) ||
	    (caps & PMC_CAP_SYSTEM))
		return;
	fprintf(stderr, "%s: sampling user mode only (the kernel needs privilege)\n", r->prog);
	told = true;
}

static int allocate(struct record *r)
{
	/* -g: whole stacks, the user part of kernel samples too. */
	uint32_t flags = r->callchain ? PMC_F_CALLCHAIN | PMC_F_USERCALLCHAIN : 0;
	double hz = cpu_hz();
	char buf[512];

	if (!r->system && !r->pid)
		flags |= PMC_F_DESCENDANTS;
	for (unsigned int e = 0; e < r->nevents; e++) {
		const struct rec_event *ev = &r->events[e];
		const char *spec = sampling_spec(ev, buf, sizeof(buf));
		uint64_t period = rec_event_period(ev, hz);
		int ncpu = r->system ? pmc_ncpu() : 1;
		pmc_id_t id;

		for (int cpu = 0; cpu < ncpu; cpu++) {
			if (r->system) {
				char path[64];

				snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
				if (cpu && access(path, F_OK) == 0) {
					FILE *fp = fopen(path, "r");
					int online = 1;

					if (fp) {
						if (fscanf(fp, "%d", &online) != 1)
							online = 1;
						fclose(fp);
					}
					if (!online)
						continue;
				}
				if (pmc_allocate(spec, PMC_MODE_SS, flags, cpu, &id, period)) {
					if (errno == ENXIO || errno == EINVAL)
						continue;	/* no such CPU */
					goto fail;
				}
			} else if (pmc_allocate(spec, PMC_MODE_TS, flags, (int)PMC_CPU_ANY, &id, period)) {
				goto fail;
			}
			user_only_note(r, spec, id);
			if (add_id(r, id))
				goto fail;
		}
		continue;
fail:
		fprintf(stderr, "%s: cannot sample '%s': %s\n", r->prog, ev->spec, strerror(errno));
		return -1;
	}
	if (r->nids == 0) {
		fprintf(stderr, "%s: no CPU to sample\n", r->prog);
		return -1;
	}
	return 0;
}

/* Fork the command stopped on a pipe; it execs once its PMCs are attached. */
static int start_child(struct record *r, int *go)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		return -1;
	r->child = fork();
	if (r->child < 0)
		return -1;
	if (r->child == 0) {
		char c;

		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		execvp(r->argv[0], r->argv);
		fprintf(stderr, "%s: cannot run '%s': %s\n", r->prog, r->argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*go = fds[1];
	return 0;
}

static int attach_and_start(struct record *r)
{
	pid_t target = r->pid ? r->pid : r->child;

	for (unsigned int i = 0; i < r->nids; i++) {
		if (!r->system && pmc_attach(r->ids[i], target)) {
			fprintf(stderr, "%s: cannot attach to pid %d: %s\n", r->prog,
				(int)target, strerror(errno));
			return -1;
		}
		if (pmc_start(r->ids[i])) {
			fprintf(stderr, "%s: cannot start sampling: %s\n", r->prog, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static bool target_gone(struct record *r)
{
	if (r->child > 0 && !r->child_done) {
		if (waitpid(r->child, &r->child_status, WNOHANG) == r->child)
			r->child_done = true;
		return r->child_done;
	}
	if (r->pid)
		return kill(r->pid, 0) && errno == ESRCH;
	return false;
}

static void wait_run(struct record *r, struct progress *p, FILE *snap)
{
	uint64_t maps_hash = 0;
	double next = 1.0;

	while (!cpcstat_stop && !target_gone(r)) {
		double t;

		poll(NULL, 0, 100);
		/* The libraries the command maps after its exec, for report's sake. */
		if (snap && r->child > 0)
			mapsnap_update(snap, r->child, &maps_hash);
		t = since(&p->start);
		if (r->duration > 0 && t >= r->duration)
			break;
		if (t >= next && p->tty && !r->quiet) {
			progress_update(p);
			fprintf(stderr, "\r%s: %" PRIu64 " samples, %" PRIu64 " lost, %.0f s ",
				r->prog, p->counts.samples, p->counts.lost, t);
			next += 1.0;
		}
	}
	if (p->tty && !r->quiet && next > 1.0)
		fputc('\n', stderr);
}

static void stop_child(struct record *r)
{
	if (r->child <= 0 || r->child_done)
		return;
	/* Interrupted or out of time: the command stops with us. */
	kill(r->child, cpcstat_stop ? cpcstat_stop : SIGTERM);
	for (int i = 0; i < 20 && !target_gone(r); i++)
		poll(NULL, 0, 50);
	if (!r->child_done) {
		kill(r->child, SIGKILL);
		if (waitpid(r->child, &r->child_status, 0) == r->child)
			r->child_done = true;
	}
}

static void summary(const struct record *r, const struct log_counts *c)
{
	double secs = c->last_ns > c->first_ns ? (double)(c->last_ns - c->first_ns) / 1e9 : 0;

	switch (r->format) {
	case OUT_JSON:
		fputs("{\"output\":", stderr);
		json_string(stderr, r->output);
		fprintf(stderr, ",\"samples\":%" PRIu64 ",\"lost\":%" PRIu64
			",\"duration\":%.3f,\"bytes\":%lld,\"complete\":%s}\n",
			c->samples, c->lost, secs, (long long)c->bytes,
			c->closed && !c->damaged ? "true" : "false");
		break;
	case OUT_CSV:
		fprintf(stderr, "output%ssamples%slost%sduration%sbytes\n", r->sep, r->sep,
			r->sep, r->sep);
		csv_field(stderr, r->sep, r->output);
		fprintf(stderr, "%s%" PRIu64 "%s%" PRIu64 "%s%.3f%s%lld\n", r->sep, c->samples,
			r->sep, c->lost, r->sep, secs, r->sep, (long long)c->bytes);
		break;
	default:
		fprintf(stderr, "%s: %" PRIu64 " samples, %" PRIu64 " lost, %.3f s, "
			"%lld bytes written to %s%s\n", r->prog, c->samples, c->lost, secs,
			(long long)c->bytes, r->output,
			c->damaged ? " (damaged)" : !c->closed ? " (not closed)" : "");
		break;
	}
}

static int parse_args(struct record *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int c;

	r->format = OUT_HUMAN;
	r->sep = ",";
	r->output = DEFAULT_OUTPUT;
	while ((c = getopt_long(argc, argv, "+e:go:p:ad:qx:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (r->nevents == MAX_EVENTS) {
				fprintf(stderr, "%s: at most %d events\n", r->prog, MAX_EVENTS);
				return usage(r->prog, EXIT_USAGE);
			}
			if (rec_event_parse(optarg, &r->events[r->nevents], err, sizeof(err))) {
				fprintf(stderr, "%s: %s\n", r->prog, err);
				return usage(r->prog, EXIT_USAGE);
			}
			r->nevents++;
			break;
		case 'g':
			r->callchain = true;
			break;
		case 'o':
			r->output = optarg;
			break;
		case 'p': {
			char *end;
			long pid = strtol(optarg, &end, 10);

			if (*end || pid <= 0) {
				fprintf(stderr, "%s: bad pid '%s'\n", r->prog, optarg);
				return usage(r->prog, EXIT_USAGE);
			}
			r->pid = (pid_t)pid;
			break;
		}
		case 'a':
			r->system = true;
			break;
		case 'd': {
			char *end;

			r->duration = strtod(optarg, &end);
			if (*end || r->duration <= 0) {
				fprintf(stderr, "%s: bad duration '%s'\n", r->prog, optarg);
				return usage(r->prog, EXIT_USAGE);
			}
			break;
		}
		case 'q':
			r->quiet = true;
			break;
		case 'x':
			r->format = OUT_CSV;
			r->sep = optarg;
			break;
		case 'J':
			r->format = OUT_JSON;
			break;
		case 'h':
			return usage(r->prog, 0) ? -1 : -2;
		default:
			return usage(r->prog, EXIT_USAGE);
		}
	}
	r->argv = argv + optind;
	if ((argc > optind) + !!r->pid + r->system != 1) {
		fprintf(stderr, "%s: give exactly one of a command, -p pid or -a\n", r->prog);
		return usage(r->prog, EXIT_USAGE);
	}
	return 0;
}

int record_main(int argc, char **argv, const char *prog)
{
	struct record r = { .prog = prog };
	struct progress p = { .fd = -1 };
	struct log_counts counts;
	char *snap_path = NULL;
	FILE *snap = NULL;
	int fd = -1, go = -1, ret = 1, err;

	err = parse_args(&r, argc, argv);
	if (err)
		return err == -2 ? 0 : err;
	if (pmc_init()) {
		fprintf(stderr, "%s: cannot access performance counters - %s\n", prog, strerror(errno));
		goto out;
	}
	if (r.nevents == 0) {
		char msg[64];

		if (rec_event_parse(have_hardware() ? "cycles" : "cpu-clock",
				    &r.events[0], msg, sizeof(msg))) {
			fprintf(stderr, "%s: %s\n", prog, msg);
			goto out;
		}
		r.nevents = 1;
	}
	for (unsigned int i = 0; i < r.nevents; i++) {
		if (check_event(&r, &r.events[i])) {
			usage(prog, EXIT_USAGE);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	fd = open(r.output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open '%s' for writing: %s\n", prog, r.output, strerror(errno));
		goto out;
	}
	if (pmc_configure_logfile(fd)) {
		fprintf(stderr, "%s: cannot log to '%s': %s\n", prog, r.output, strerror(errno));
		goto out;
	}
	if (allocate(&r))
		goto out_log;
	if (r.argv[0] && start_child(&r, &go)) {
		fprintf(stderr, "%s: cannot start '%s': %s\n", prog, r.argv[0], strerror(errno));
		goto out_release;
	}
	cpcstat_catch_signals(NULL);
	if (attach_and_start(&r))
		goto out_release;
	/*
	 * Mappings beside the log (FILE.maps): of the processes that ran
	 * before (-p, -a), and of the command as it maps its libraries.
	 */
	snap_path = mapsnap_path(r.output);
	snap = snap_path ? mapsnap_create(snap_path) : NULL;
	if (snap && (r.pid || r.system))
		mapsnap_add(snap, r.pid);
	clock_gettime(CLOCK_MONOTONIC, &p.start);
	if (go >= 0) {
		if (write(go, "g", 1) != 1)
			goto out_release;
		close(go);
		go = -1;
	}
	p.tty = isatty(STDERR_FILENO);
	if (p.tty && !r.quiet) {
		p.fd = open(r.output, O_RDONLY | O_CLOEXEC);
		p.log = pmclog_open(PMCLOG_FD_NONE);
	}
	wait_run(&r, &p, snap);
	if (snap && r.system)
		mapsnap_add(snap, 0);	/* and those that started meanwhile */
	ret = 0;
out_release:
	if (go >= 0)
		close(go);
	for (unsigned int i = 0; i < r.nids; i++)
		pmc_stop(r.ids[i]);
	stop_child(&r);
	if (pmc_flush_logfile() && errno != EINVAL) {
		fprintf(stderr, "%s: writing '%s' failed: %s\n", prog, r.output, strerror(errno));
		ret = 1;
	}
	for (unsigned int i = 0; i < r.nids; i++)
		pmc_release(r.ids[i]);
out_log:
	if (pmc_close_logfile() && ret == 0) {
		fprintf(stderr, "%s: closing '%s' failed: %s\n", prog, r.output, strerror(errno));
		ret = 1;
	}
	if (ret == 0) {
		scan_log(r.output, &counts);
		summary(&r, &counts);
		if (counts.samples == 0 && r.child_done && WIFEXITED(r.child_status) &&
		    WEXITSTATUS(r.child_status) == 127)
			ret = 1;	/* the command could not run: said so already */
	}
out:
	if (snap && mapsnap_close(snap))
		fprintf(stderr, "%s: writing '%s' failed\n", prog, snap_path);
	free(snap_path);
	if (p.log)
		pmclog_close(p.log);
	if (p.fd >= 0)
		close(p.fd);
	if (fd >= 0)
		close(fd);
	for (unsigned int i = 0; i < r.nevents; i++)
		rec_event_free(&r.events[i]);
	free(r.ids);
	return cpcstat_exit_code(ret);
}
