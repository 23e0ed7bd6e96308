// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - cpcstat report: read a pmclog file with libpmc's pmclog(3),
 * rebuild each process's mappings from its PROCEXEC, MAP_IN, MAP_OUT and
 * PROCFORK records, symbolize every sample's callchain and print the top
 * functions, a call tree, folded stacks, a flame graph or JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmclog.h>

#include "cpcstat.h"
#include "mapsnap.h"
#include "report_out.h"
#include "symbols.h"

#define DEFAULT_INPUT		"cpcstat.log"
/* perf's callchain context markers (PERF_CONTEXT_*) are not addresses. */
#define CONTEXT_MARKER_MIN	((uint64_t)-4095)

struct report {
	const char *prog;
	const char *input;
	enum sort_key sort;
	bool callgraph;
	bool folded;
	const char *svg;
	enum out_format format;
	const char *sep;
	unsigned int limit;
	pid_t only_pid;
};

struct reader {
	struct strpool pool;
	struct symtab *st;
	struct profile prof;
	struct frame *frames;
	char events[512];
	uint64_t lost;
	uint64_t first_ns, last_ns;
	bool closed;
	unsigned long nprocs;
	pid_t *pids;
	size_t npids, cappids;
};

static int usage(const char *prog, int code)
{
	fprintf(code ? stderr : stdout,
		"Usage:\n"
		"\t%s [-i file] [--sort sym|dso|pid] [--callgraph] [--folded]\n"
		"\t\t[--svg file] [-n count] [--pid pid] [-x sep | --json]\n"
		"\n"
		"\t-i file\t      the log to read (default %s)\n"
		"\t--sort key    group samples by function (sym), object (dso) or process (pid)\n"
		"\t--callgraph   also print the call tree (callers above callees)\n"
		"\t--folded      print folded stacks for flame-graph tools instead\n"
		"\t--svg file    write a flame graph to file\n"
		"\t-n count      show only the first count entries\n"
		"\t--pid pid     only the samples of process pid\n"
		"\t-x sep\t      the table as CSV with separator sep\n"
		"\t--json\t      the report as JSON\n",
		prog, DEFAULT_INPUT);
	return code;
}

static void note_event(struct reader *rd, const char *name)
{
	size_t len = strlen(rd->events);
	char *p;

	if (!name || !*name)
		return;
	/* Each name once. */
	for (p = strstr(rd->events, name); p; p = strstr(p + 1, name)) {
		size_t n = strlen(name);

		if ((p == rd->events || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return;
	}
	snprintf(rd->events + len, sizeof(rd->events) - len, "%s%s", len ? "," : "", name);
}

static void note_pid(struct reader *rd, pid_t pid)
{
	for (size_t i = 0; i < rd->npids; i++)
		if (rd->pids[i] == pid)
			return;
	if (rd->npids == rd->cappids) {
		size_t cap = rd->cappids ? rd->cappids * 2 : 64;
		pid_t *p = realloc(rd->pids, cap * sizeof(*p));

		if (!p)
			return;
		rd->pids = p;
		rd->cappids = cap;
	}
	rd->pids[rd->npids++] = pid;
}

/* A process is named after its last exec (or /proc while it lives). */
static const char *proc_name(void *ctx, pid_t pid)
{
	return symtab_comm(ctx, pid);
}

static int sample(struct reader *rd, const struct report *r,
		  const struct pmclog_ev_callchain *cc)
{
	pid_t pid = (pid_t)cc->pl_pid;
	unsigned int n = 0;

	if (r->only_pid && pid != r->only_pid)
		return 0;
	note_pid(rd, pid);
	for (uint32_t i = 0; i < cc->pl_npc && i < PMC_CALLCHAIN_DEPTH_MAX; i++) {
		struct symbol s;

		if (cc->pl_pc[i] >= CONTEXT_MARKER_MIN || cc->pl_pc[i] == 0)
			continue;
		symtab_resolve(rd->st, pid, cc->pl_pc[i], n > 0, &s);
		rd->frames[n].sym = s.sym;
		rd->frames[n].dso = s.dso;
		n++;
	}
	if (n == 0)
		return 0;
	return profile_add(&rd->prof, pid, rd->frames, n);
}

static void handle(struct reader *rd, const struct report *r, const struct pmclog_ev *ev)
{
	const char *name;

	switch (ev->pl_type) {
	case PMCLOG_TYPE_CALLCHAIN:
		if (sample(rd, r, &ev->pl_u.pl_cc))
			fprintf(stderr, "%s: %s\n", r->prog, strerror(ENOMEM));
		break;
	case PMCLOG_TYPE_PROCEXEC:
		symtab_exec(rd->st, ev->pl_u.pl_x.pl_pid, ev->pl_u.pl_x.pl_pathname,
			    ev->pl_u.pl_x.pl_dynaddr);
		break;
	case PMCLOG_TYPE_MAP_IN:
		symtab_map_in(rd->st, ev->pl_u.pl_mi.pl_pid, ev->pl_u.pl_mi.pl_start,
			      ev->pl_u.pl_mi.pl_end, ev->pl_u.pl_mi.pl_pgoff,
			      ev->pl_u.pl_mi.pl_pathname);
		break;
	case PMCLOG_TYPE_MAP_OUT:
		symtab_map_out(rd->st, ev->pl_u.pl_mo.pl_pid, ev->pl_u.pl_mo.pl_start,
			       ev->pl_u.pl_mo.pl_end);
		break;
	case PMCLOG_TYPE_PROCFORK:
		symtab_fork(rd->st, ev->pl_u.pl_f.pl_oldpid, ev->pl_u.pl_f.pl_newpid);
		break;
	case PMCLOG_TYPE_PROC_CREATE:
		symtab_set_comm(rd->st, ev->pl_u.pl_pc.pl_pid, ev->pl_u.pl_pc.pl_pcomm);
		break;
	case PMCLOG_TYPE_PMCALLOCATE:
		name = ev->pl_u.pl_a.pl_evname;
		note_event(rd, name);
		break;
	case PMCLOG_TYPE_PMCALLOCATEDYN:
		note_event(rd, ev->pl_u.pl_ad.pl_evname);
		break;
	case PMCLOG_TYPE_DROPNOTIFY:
		rd->lost += ev->pl_u.pl_dn.pl_samples + ev->pl_u.pl_dn.pl_records;
		break;
	case PMCLOG_TYPE_CLOSELOG:
		rd->closed = true;
		break;
	default:
		break;
	}
}

/* FILE.maps, written by record: mappings the log may lack (see mapsnap.h). */
static void read_sidecar(struct reader *rd, const struct report *r)
{
	char *path = mapsnap_path(r->input);
	struct pmclog_ev ev;
	void *log;
	int fd;

	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	free(path);
	if (fd < 0)
		return;
	log = pmclog_open(fd);
	while (log && pmclog_read(log, &ev) == 0) {
		if (ev.pl_type == PMCLOG_TYPE_MAP_IN)
			symtab_map_in_fallback(rd->st, ev.pl_u.pl_mi.pl_pid, ev.pl_u.pl_mi.pl_start,
					       ev.pl_u.pl_mi.pl_end, ev.pl_u.pl_mi.pl_pgoff,
					       ev.pl_u.pl_mi.pl_pathname);
		else if (ev.pl_type == PMCLOG_TYPE_PROC_CREATE)
			handle(rd, r, &ev);
	}
	if (log)
		pmclog_close(log);
	close(fd);
}

static int read_log(struct reader *rd, const struct report *r)
{
	struct pmclog_ev ev;
	size_t nrecords = 0;
	int ret = 0;
	void *log;
	int fd = open(r->input, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "%s: cannot open '%s': %s\n", r->prog, r->input, strerror(errno));
		return -1;
	}
	log = pmclog_open(fd);
	if (!log) {
		fprintf(stderr, "%s: cannot read '%s': %s\n", r->prog, r->input, strerror(errno));
		close(fd);
		return -1;
	}
	while (pmclog_read(log, &ev) == 0) {
		uint64_t ns = (uint64_t)ev.pl_ts.tv_sec * 1000000000ULL + (uint64_t)ev.pl_ts.tv_nsec;

		nrecords++;
		if (ns) {
			if (!rd->first_ns)
				rd->first_ns = ns;
			rd->last_ns = ns;
		}
		handle(rd, r, &ev);
	}
	if (nrecords == 0) {
		/* Not a log at all (or an empty file): nothing to report. */
		fprintf(stderr, "%s: '%s' is not a pmc log%s%s\n", r->prog, r->input,
			ev.pl_state == PMCLOG_ERROR ? ": " : " (no records)",
			ev.pl_state == PMCLOG_ERROR ? pmclog_error(log) : "");
		ret = -1;
	} else if (ev.pl_state == PMCLOG_ERROR) {
		fprintf(stderr, "%s: '%s' is damaged after %zu records (offset %lld): %s; "
			"reporting what precedes\n", r->prog, r->input, nrecords,
			(long long)ev.pl_offset, pmclog_error(log));
	} else if (!rd->closed) {
		fprintf(stderr, "%s: '%s' has no closing record (recording was cut short?)\n",
			r->prog, r->input);
	}
	pmclog_close(log);
	close(fd);
	return ret;
}

static int write_svg(const struct report *r, const struct reader *rd)
{
	FILE *fp = fopen(r->svg, "w");
	char title[600];

	if (!fp) {
		fprintf(stderr, "%s: cannot open '%s' for writing: %s\n", r->prog, r->svg,
			strerror(errno));
		return -1;
	}
	snprintf(title, sizeof(title), "%s: %s", r->input, rd->events[0] ? rd->events : "samples");
	report_svg(fp, &rd->prof, title);
	if (fclose(fp)) {
		fprintf(stderr, "%s: writing '%s' failed: %s\n", r->prog, r->svg, strerror(errno));
		return -1;
	}
	return 0;
}

static int parse_args(struct report *r, int argc, char **argv)
{
	enum { OPT_SORT = 256, OPT_CALLGRAPH, OPT_FOLDED, OPT_SVG, OPT_JSON, OPT_PID };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "callgraph", no_argument, NULL, OPT_CALLGRAPH },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "i:n:x:gh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			r->input = optarg;
			break;
		case OPT_SORT:
			if (strcmp(optarg, "sym") == 0) {
				r->sort = SORT_SYM;
			} else if (strcmp(optarg, "dso") == 0) {
				r->sort = SORT_DSO;
			} else if (strcmp(optarg, "pid") == 0) {
				r->sort = SORT_PID;
			} else {
				fprintf(stderr, "%s: bad sort key '%s'\n", r->prog, optarg);
				return usage(r->prog, EXIT_USAGE);
			}
			break;
		case 'g':
		case OPT_CALLGRAPH:
			r->callgraph = true;
			break;
		case OPT_FOLDED:
			r->folded = true;
			break;
		case OPT_SVG:
			r->svg = optarg;
			break;
		case OPT_JSON:
			r->format = OUT_JSON;
			break;
		case 'x':
			r->format = OUT_CSV;
			r->sep = optarg;
			break;
		case 'n':
			r->limit = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !*optarg) {
				fprintf(stderr, "%s: bad count '%s'\n", r->prog, optarg);
				return usage(r->prog, EXIT_USAGE);
			}
			break;
		case OPT_PID:
			r->only_pid = (pid_t)strtol(optarg, &end, 10);
			if (*end || r->only_pid <= 0) {
				fprintf(stderr, "%s: bad pid '%s'\n", r->prog, optarg);
				return usage(r->prog, EXIT_USAGE);
			}
			break;
		case 'h':
			usage(r->prog, 0);
			return -1;
		default:
			return usage(r->prog, EXIT_USAGE);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", r->prog, argv[optind]);
		return usage(r->prog, EXIT_USAGE);
	}
	return 0;
}

int report_main(int argc, char **argv, const char *prog)
{
	struct report r = { .prog = prog, .input = DEFAULT_INPUT, .sep = "," };
	struct reader rd = { 0 };
	struct report_info info;
	int ret, err;

	err = parse_args(&r, argc, argv);
	if (err)
		return err < 0 ? 0 : err;
	rd.st = symtab_new(&rd.pool);
	rd.frames = calloc(PMC_CALLCHAIN_DEPTH_MAX, sizeof(*rd.frames));
	if (!rd.st || !rd.frames) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		ret = 1;
		goto out;
	}
	profile_init(&rd.prof, r.sort);
	read_sidecar(&rd, &r);
	ret = read_log(&rd, &r) ? 1 : 0;
	if (ret)
		goto out;
	profile_finish(&rd.prof, proc_name, rd.st);
	info = (struct report_info){
		.events = rd.events,
		.dropped = rd.lost,
		.duration = rd.last_ns > rd.first_ns ? (double)(rd.last_ns - rd.first_ns) / 1e9 : 0,
		.nprocs = (unsigned long)rd.npids,
	};
	if (r.svg && write_svg(&r, &rd))
		ret = 1;
	if (r.folded) {
		report_folded(stdout, &rd.prof);
	} else if (r.format == OUT_JSON) {
		report_json(stdout, &rd.prof, &info, r.callgraph, r.limit);
	} else {
		report_top(stdout, &rd.prof, &info, r.format, r.sep, r.limit);
		if (r.callgraph && r.format == OUT_HUMAN)
			report_callgraph(stdout, &rd.prof);
	}
	if (fflush(stdout))
		ret = 1;
out:
	profile_free(&rd.prof);
	symtab_free(rd.st);
	strpool_free(&rd.pool);
	free(rd.frames);
	free(rd.pids);
	return ret;
}
