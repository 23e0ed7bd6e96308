// SPDX-License-Identifier: GPL-2.0
/*
 * logstat.c - count what a pmc log file holds (<pmc/pmclog.h>): samples
 * (CALLCHAIN records) and their frames, samples and records reported lost
 * by DROPNOTIFY records, PROCCSW records, and gaps in the sequence numbers.
 *
 *   bench-logstat LOG   prints "samples=N frames=N lost=N proccsw=N
 *                       records=N seq_gaps=N"
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmc/pmclog.h>

#include "lib/timing.h"

struct logstat {
	unsigned long long samples, frames, lost, proccsw, records, seq_gaps;
};

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, n;

	if (!f)
		bench_die(errno, "open %s", path);
	*len = 0;
	for (;;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf)
				bench_die(ENOMEM, "reading %s", path);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		if (!n)
			break;
		*len += n;
	}
	if (ferror(f))
		bench_die(errno, "read %s", path);
	fclose(f);
	return buf;
}

static void count(const unsigned char *p, size_t len, struct logstat *st)
{
	const struct pmclog_header *h;
	size_t off = 0, rl;
	uint32_t seq = 0;

	while (off + sizeof(*h) <= len) {
		h = (const void *)(p + off);
		rl = PMCLOG_HEADER_TO_LENGTH(h->pl_header);
		if (!PMCLOG_HEADER_CHECK_MAGIC(h->pl_header) || rl < sizeof(*h) ||
		    rl % PMCLOG_ALIGN || off + rl > len)
			bench_die(0, "bad record at offset %zu", off);
		if (st->records && h->pl_seq != seq + 1)
			st->seq_gaps++;
		seq = h->pl_seq;
		st->records++;
		switch (PMCLOG_HEADER_TO_TYPE(h->pl_header)) {
		case PMCLOG_TYPE_CALLCHAIN:
			st->samples++;
			st->frames += (rl - sizeof(struct pmclog_callchain)) /
				      sizeof(uint64_t);
			break;
		case PMCLOG_TYPE_DROPNOTIFY: {
			const struct pmclog_dropnotify *d = (const void *)h;

			st->lost += d->pl_records + d->pl_samples;
			break;
		}
		case PMCLOG_TYPE_PROCCSW:
			st->proccsw++;
			break;
		}
		off += rl;
	}
	if (off != len)
		bench_die(0, "%zu trailing bytes", len - off);
}

int main(int argc, char **argv)
{
	struct logstat st = { 0 };
	unsigned char *buf;
	size_t len;

	bench_init(argv[0]);
	if (argc != 2)
		bench_die(0, "usage: bench-logstat LOG");
	buf = slurp(argv[1], &len);
	count(buf, len, &st);
	free(buf);
	printf("samples=%llu frames=%llu lost=%llu proccsw=%llu records=%llu seq_gaps=%llu\n",
	       st.samples, st.frames, st.lost, st.proccsw, st.records,
	       st.seq_gaps);
	return 0;
}
