// SPDX-License-Identifier: GPL-2.0
/* mapsnap.c - FILE.maps: /proc/PID/maps and comm as pmclog records. */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmc/hwpmc.h>
#include <pmc/pmclog.h>

#include "mapsnap.h"

static uint32_t snap_seq;

static void put(FILE *fp, uint32_t type, void *rec, size_t len)
{
	struct pmclog_header *h = rec;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	h->pl_header = PMCLOG_HEADER(type, len);
	h->pl_seq = snap_seq++;
	h->pl_tsc = (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
	fwrite(rec, 1, len, fp);
}

char *mapsnap_path(const char *log)
{
	size_t len = strlen(log) + sizeof(".maps");
	char *p = malloc(len);

	if (p)
		snprintf(p, len, "%s.maps", log);
	return p;
}

FILE *mapsnap_create(const char *path)
{
	struct pmclog_initialize r;
	FILE *fp = fopen(path, "we");

	if (!fp)
		return NULL;
	memset(&r, 0, sizeof(r));
	r.pl_version = PMC_VERSION;
	r.pl_tsc_freq = 1000000000ULL;
	snprintf(r.pl_cpuid, sizeof(r.pl_cpuid), "cpcstat mapsnap");
	snap_seq = 0;
	put(fp, PMCLOG_TYPE_INITIALIZE, &r, sizeof(r));
	return fp;
}

static void add_one(FILE *fp, pid_t pid)
{
	union {
		struct pmclog_map_in m;
		char raw[PMCLOG_MAX_RECORD];
	} u;
	struct pmclog_proccreate pc;
	char path[64], line[4096], file[4096], perms[8];
	uint64_t start, end, off;
	FILE *in;

	memset(&pc, 0, sizeof(pc));
	pc.pl_pid = (uint32_t)pid;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	in = fopen(path, "re");
	if (!in)
		return;
	if (fgets(pc.pl_pcomm, sizeof(pc.pl_pcomm), in))
		pc.pl_pcomm[strcspn(pc.pl_pcomm, "\n")] = '\0';
	fclose(in);
	put(fp, PMCLOG_TYPE_PROC_CREATE, &pc, sizeof(pc));

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	in = fopen(path, "re");
	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		size_t len;

		file[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095[^\n]",
			   &start, &end, perms, &off, file) != 5 || perms[2] != 'x' || file[0] != '/')
			continue;
		len = (sizeof(u.m) + strlen(file) + 1 + 7) & ~(size_t)7;
		if (len > PMCLOG_MAX_RECORD)
			continue;
		memset(u.raw, 0, len);
		u.m.pl_pid = (uint32_t)pid;
		u.m.pl_start = start;
		u.m.pl_end = end;
		u.m.pl_pgoff = off;
		memcpy(u.m.pl_pathname, file, strlen(file));
		put(fp, PMCLOG_TYPE_MAP_IN, &u.m, len);
	}
	fclose(in);
}

void mapsnap_add(FILE *fp, pid_t pid)
{
	struct dirent *de;
	DIR *d;

	if (pid > 0) {
		add_one(fp, pid);
		return;
	}
	d = opendir("/proc");
	while (d && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			add_one(fp, (pid_t)atoi(de->d_name));
	if (d)
		closedir(d);
}

bool mapsnap_update(FILE *fp, pid_t pid, uint64_t *hash)
{
	char path[64], line[4096], exe[4096], self[4096];
	uint64_t h = 1469598103934665603ULL;
	ssize_t n, m;
	FILE *in;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	m = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || (n == m && memcmp(exe, self, (size_t)n) == 0))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	in = fopen(path, "re");
	if (!in)
		return false;
	while (fgets(line, sizeof(line), in)) {
		char perms[8];

		if (sscanf(line, "%*s %7s", perms) != 1 || perms[2] != 'x')
			continue;
		for (const char *c = line; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	}
	fclose(in);
	if (h == *hash)
		return false;
	*hash = h;
	add_one(fp, pid);
	return true;
}

int mapsnap_close(FILE *fp)
{
	struct pmclog_closelog r;

	memset(&r, 0, sizeof(r));
	put(fp, PMCLOG_TYPE_CLOSELOG, &r, sizeof(r));
	return fclose(fp);
}
