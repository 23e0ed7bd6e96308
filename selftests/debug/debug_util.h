/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debug_util.h - helpers of the debug suite: module parameters in sysfs,
 * the pmc trace events in tracefs, the kernel log through /dev/kmsg, the
 * call sites of pmc_dbg() in the driver sources, and a few /dev/pmc ops.
 */
#ifndef _DEBUG_UTIL_H
#define _DEBUG_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <pmc/hwpmc.h>

#define PMC_PARAMS	"/sys/module/pmc/parameters/"
#define TRACEFS		"/sys/kernel/tracing/"
#define PMC_EVENTS	TRACEFS "events/pmc/"

/*
 * The 6.1 harness runs a test body even after its FIXTURE_SETUP called
 * SKIP(): every body of this suite starts with this.
 */
#define RETURN_IF_SKIPPED()			\
	do {					\
		if (_metadata->skip)		\
			return;			\
	} while (0)

static const char * const dbg_majors[] = {
	"cpu", "csw", "logging", "md", "module", "owner", "pmc", "process",
	"sampling",
};
#define DBG_NMAJOR	(sizeof(dbg_majors) / sizeof(dbg_majors[0]))

/* pmc(4) DEBUGGING order. */
static const char * const dbg_minors[] = {
	"allocaterow", "allocate", "attach", "bind", "close", "config",
	"detach", "exec", "exit", "find", "flush", "fork", "getbuf", "hook",
	"init", "intr", "linktarget", "mayberemove", "ops", "read", "register",
	"release", "remove", "sample", "scheduleio", "select", "signal", "swi",
	"swo", "start", "stop", "syscall", "unlinktarget", "write",
};
#define DBG_NMINOR	(sizeof(dbg_minors) / sizeof(dbg_minors[0]))

static inline int dbg_major_index(const char *name)
{
	for (size_t i = 0; i < DBG_NMAJOR; i++)
		if (!strcmp(dbg_majors[i], name))
			return (int)i;
	return -1;
}

/* Write @s to @path in one write(2); 0 or -errno. */
static inline int file_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;
	int ret = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Read @path into @buf (NUL-terminated); length or -errno. */
static inline ssize_t file_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(fd);
	return len;
}

static inline bool path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Set a module parameter as echo(1) would (value and a newline). */
static inline int param_set(const char *name, const char *value)
{
	char path[256], buf[8192];

	snprintf(path, sizeof(path), PMC_PARAMS "%s", name);
	snprintf(buf, sizeof(buf), "%s\n", value);
	return file_write(path, buf);
}

/* A module parameter's value without its trailing newline; NULL on error. */
static inline char *param_get(const char *name, char *buf, size_t size)
{
	char path[256];
	ssize_t n;

	snprintf(path, sizeof(path), PMC_PARAMS "%s", name);
	n = file_read(path, buf, size);
	if (n < 0)
		return NULL;
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

static inline long param_get_long(const char *name)
{
	char buf[64];

	if (!param_get(name, buf, sizeof(buf)))
		return -99999;
	if (buf[0] == 'Y')
		return 1;
	if (buf[0] == 'N')
		return 0;
	return strtol(buf, NULL, 0);
}

/* ---------------------------------------------------------------- tracefs */

struct trace_ev {
	char event[32];		/* "pmc_module" */
	char minor[16];
	unsigned int id;
	int pid;
	int cpu;
	unsigned long long value;
};

static inline int trace_clear(void)
{
	return file_write(TRACEFS "trace", "");
}

/* Enable or disable one event (e.g. "pmc_csw"), or all of them (NULL). */
static inline int trace_enable(const char *event, bool on)
{
	char path[256];

	if (event)
		snprintf(path, sizeof(path), PMC_EVENTS "%s/enable", event);
	else
		snprintf(path, sizeof(path), PMC_EVENTS "enable");
	return file_write(path, on ? "1" : "0");
}

/* Parse one line of the trace file; true if it is a pmc event. */
static inline bool trace_parse_line(const char *line, struct trace_ev *ev)
{
	const char *p = strstr(line, ": pmc_");

	if (!p)
		return false;
	memset(ev, 0, sizeof(*ev));
	return sscanf(p + 2, "%31[^:]: minor=%15s id=%x pid=%d cpu=%d value=%llu",
		      ev->event, ev->minor, &ev->id, &ev->pid, &ev->cpu,
		      &ev->value) == 6;
}

/*
 * The pmc events now in the trace buffer, at most @max; the count of all of
 * them (may exceed @max), or -errno.
 */
static inline int trace_collect(struct trace_ev *evs, int max)
{
	FILE *f = fopen(TRACEFS "trace", "r");
	char *line = NULL;
	size_t cap = 0;
	struct trace_ev ev;
	int n = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (line[0] == '#' || !trace_parse_line(line, &ev))
			continue;
		if (n < max)
			evs[n] = ev;
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

/* Events of @evs[0..n) with the given event name and (if not NULL) minor. */
static inline int trace_count(const struct trace_ev *evs, int n,
			      const char *event, const char *minor)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		if (!strcmp(evs[i].event, event) &&
		    (!minor || !strcmp(evs[i].minor, minor)))
			c++;
	return c;
}

/* ---------------------------------------------------------------- kmsg */

/* Write a unique marker line to the kernel log; it is copied to @mark. */
static inline int kmsg_mark(char *mark, size_t size)
{
	static unsigned int seq;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(mark, size, "pmc-selftest-mark-%d-%u-%ld.%09ld", getpid(),
		 ++seq, (long)ts.tv_sec, ts.tv_nsec);
	return file_write("/dev/kmsg", mark);
}

/*
 * The kernel log messages after the marker line, one per line, in @out
 * (NUL-terminated); the number of messages or -errno.
 */
static inline int kmsg_after(const char *mark, char *out, size_t size)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	char rec[8192];
	bool seen = false;
	size_t len = 0;
	int n = 0;

	if (fd < 0)
		return -errno;
	out[0] = '\0';
	for (;;) {
		ssize_t r = read(fd, rec, sizeof(rec) - 1);
		char *msg, *nl;

		if (r < 0) {
			if (errno == EPIPE)	/* overwritten record: go on */
				continue;
			break;
		}
		rec[r] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		if (!seen) {
			seen = !strcmp(msg, mark);
			continue;
		}
		if (len + strlen(msg) + 2 < size) {
			len += snprintf(out + len, size - len, "%s\n", msg);
			n++;
		}
	}
	close(fd);
	return seen ? n : -ENOENT;
}

/* Is @line one of the lines of @lines (as kmsg_after() returns them)? */
static inline bool lines_have(const char *lines, const char *line)
{
	size_t l = strlen(line);

	for (const char *p = lines; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n == l && !strncmp(p, line, l))
			return true;
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

/* ------------------------------------------------- pmc_dbg() call sites */

/*
 * Does a driver source (a part's folder driver/<part>/ or the arch layer
 * driver/arch/<arch>/, run from the repository root) call pmc_dbg(PMC_DBG_<major>, PMC_DBG_<minor>, ...)? @minor NULL:
 * any minor. Whitespace is ignored.
 */
static inline bool dbg_site_present(const char *major, const char *minor)
{
	static const char * const globs[] = { "driver/*/*.c", "driver/arch/*/*.c" };
	char want[96], up[64];
	bool found = false;
	size_t i, k;

	snprintf(want, sizeof(want), "pmc_dbg(PMC_DBG_");
	for (k = 0; major[k] && k < sizeof(up) - 1; k++)
		up[k] = (char)(major[k] >= 'a' && major[k] <= 'z' ? major[k] - 32 : major[k]);
	up[k] = '\0';
	strncat(want, up, sizeof(want) - strlen(want) - 1);
	strncat(want, ",", sizeof(want) - strlen(want) - 1);
	if (minor) {
		for (k = 0; minor[k] && k < sizeof(up) - 1; k++)
			up[k] = (char)(minor[k] >= 'a' && minor[k] <= 'z' ? minor[k] - 32 : minor[k]);
		up[k] = '\0';
		strncat(want, "PMC_DBG_", sizeof(want) - strlen(want) - 1);
		strncat(want, up, sizeof(want) - strlen(want) - 1);
		strncat(want, ",", sizeof(want) - strlen(want) - 1);
	}

	for (i = 0; i < sizeof(globs) / sizeof(globs[0]) && !found; i++) {
		glob_t g;

		if (glob(globs[i], 0, NULL, &g))
			continue;
		for (size_t j = 0; j < g.gl_pathc && !found; j++) {
			FILE *f = fopen(g.gl_pathv[j], "r");
			char *text;
			size_t len = 0;
			int c;

			if (!f)
				continue;
			text = malloc(1 << 20);
			while (text && (c = fgetc(f)) != EOF && len < (1 << 20) - 1)
				if (c != ' ' && c != '\t' && c != '\n')
					text[len++] = (char)c;
			if (text) {
				text[len] = '\0';
				found = strstr(text, want) != NULL;
			}
			free(text);
			fclose(f);
		}
		globfree(&g);
	}
	return found;
}

/* ---------------------------------------------------------------- /dev/pmc */

static inline int pmc_op(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

/* Allocate a PMC of the SOFT class; its id, or -errno. */
static inline long pmc_alloc_soft(int fd, unsigned int mode, unsigned int cpu,
				  unsigned long long config,
				  unsigned int flags, unsigned long long count)
{
	struct pmc_op_pmcallocate a = {
		.pm_caps = PMC_CAP_USER | PMC_CAP_SYSTEM | PMC_CAP_READ,
		.pm_cpu = cpu,
		.pm_class = PMC_CLASS_SOFT,
		.pm_ev = PMC_EV_SOFT_FIRST + (unsigned int)config,
		.pm_flags = flags,
		.pm_mode = mode,
		.pm_count = count,
		.pm_md = { .pm_type = PERF_TYPE_SOFTWARE,
			   .pm_config = config },
	};
	int ret;

	if (PMC_IS_SAMPLING_MODE(mode))
		a.pm_caps |= PMC_CAP_INTERRUPT;
	ret = pmc_op(fd, PMC_IOC_PMCALLOCATE, &a);
	return ret ? ret : (long)a.pm_pmcid;
}

static inline int pmc_simple(int fd, unsigned long req, unsigned int id)
{
	struct pmc_op_simple s = { .pm_pmcid = id };

	return pmc_op(fd, req, &s);
}

static inline int pmc_attach(int fd, unsigned int id, int pid)
{
	struct pmc_op_pmcattach a = { .pm_pmc = id, .pm_pid = pid };

	return pmc_op(fd, PMC_IOC_PMCATTACH, &a);
}

static inline int pmc_detach(int fd, unsigned int id, int pid)
{
	struct pmc_op_pmcattach a = { .pm_pmc = id, .pm_pid = pid };

	return pmc_op(fd, PMC_IOC_PMCDETACH, &a);
}

static inline int pmc_rw(int fd, unsigned int id, unsigned int flags,
			 unsigned long long *value)
{
	struct pmc_op_pmcrw rw = { .pm_flags = flags, .pm_pmcid = id,
				   .pm_value = *value };
	int ret = pmc_op(fd, PMC_IOC_PMCRW, &rw);

	*value = rw.pm_value;
	return ret;
}

#endif /* _DEBUG_UTIL_H */
