// SPDX-License-Identifier: GPL-2.0
/*
 * perfdata.c - count what a perf.data file written by `perf record` holds:
 * samples (PERF_RECORD_SAMPLE) and the samples perf says it lost
 * (PERF_RECORD_LOST: ring buffer full; PERF_RECORD_LOST_SAMPLES: dropped in
 * the kernel), without running `perf report` (slow under TCG).
 *
 *   bench-perfdata FILE   prints "samples=N lost=N"
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/timing.h"

/* tools/perf/util/header.h */
struct perf_file_section {
	uint64_t offset;
	uint64_t size;
};

struct perf_file_header {
	uint64_t magic;		/* "PERFILE2" */
	uint64_t size;
	uint64_t attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;
	uint64_t adds_features[4];
};

#define PERF_MAGIC2 0x32454c4946524550ULL

static void must_read(FILE *f, void *buf, size_t len, const char *what)
{
	if (fread(buf, 1, len, f) != len)
		bench_die(ferror(f) ? errno : 0, "short read of %s", what);
}

int main(int argc, char **argv)
{
	unsigned long long samples = 0, lost = 0;
	struct perf_file_header fh;
	struct perf_event_header eh;
	unsigned char body[65536];
	uint64_t off, end, v[2];
	FILE *f;

	bench_init(argv[0]);
	if (argc != 2)
		bench_die(0, "usage: bench-perfdata FILE");
	f = fopen(argv[1], "rb");
	if (!f)
		bench_die(errno, "open %s", argv[1]);
	must_read(f, &fh, sizeof(fh), "the file header");
	if (fh.magic != PERF_MAGIC2)
		bench_die(0, "%s is not a perf.data file (or a pipe-mode one)",
			  argv[1]);
	off = fh.data.offset;
	end = off + fh.data.size;
	while (off + sizeof(eh) <= end) {
		if (fseek(f, (long)off, SEEK_SET) < 0)
			bench_die(errno, "seek");
		must_read(f, &eh, sizeof(eh), "a record header");
		if (eh.size < sizeof(eh) || off + eh.size > end)
			bench_die(0, "bad record at offset %llu",
				  (unsigned long long)off);
		must_read(f, body, eh.size - sizeof(eh), "a record");
		switch (eh.type) {
		case PERF_RECORD_SAMPLE:
			samples++;
			break;
		case PERF_RECORD_LOST:		/* u64 id, u64 lost */
			memcpy(v, body, sizeof(v));
			lost += v[1];
			break;
		case PERF_RECORD_LOST_SAMPLES:	/* u64 lost */
			memcpy(v, body, sizeof(v[0]));
			lost += v[0];
			break;
		}
		off += eh.size;
	}
	fclose(f);
	printf("samples=%llu lost=%llu\n", samples, lost);
	return 0;
}
