// SPDX-License-Identifier: GPL-2.0
/*
 * kmem.c - kernel memory left allocated by the calling process over a
 * window, from the kmem tracepoints in tracefs (see kmem.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmem.h"

static const char *const kmem_events[] = {
	"kmalloc", "kmalloc_node", "kmem_cache_alloc", "kmem_cache_alloc_node",
	"kfree", "kmem_cache_free",
};
#define NEVENTS (sizeof(kmem_events) / sizeof(kmem_events[0]))

static char tracefs[64];
/* tracing_on, kept open: opening a file in the window would allocate. */
static int on_fd = -1;

static int put(const char *file, const char *text)
{
	char path[160];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -1;
	close(fd);
	return ret;
}

static void events_enable(const char *on)
{
	char file[96];
	size_t i;

	for (i = 0; i < NEVENTS; i++) {
		snprintf(file, sizeof(file), "events/kmem/%s/enable",
			 kmem_events[i]);
		put(file, on);
	}
}

int kmem_trace_start(void)
{
	char filter[64], file[96];
	size_t i;

	if (!access("/sys/kernel/tracing/trace", W_OK))
		snprintf(tracefs, sizeof(tracefs), "/sys/kernel/tracing");
	else if (!access("/sys/kernel/debug/tracing/trace", W_OK))
		snprintf(tracefs, sizeof(tracefs), "/sys/kernel/debug/tracing");
	else
		return -1;
	/* Raw pointers: hashed ones may all read "(____ptrval____)". */
	if (put("tracing_on", "0") || put("buffer_size_kb", "16384") ||
	    put("trace", "") || put("trace_options", "nohash-ptr"))
		return -1;
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)getpid());
	for (i = 0; i < NEVENTS; i++) {
		snprintf(file, sizeof(file), "events/kmem/%s/filter",
			 kmem_events[i]);
		put(file, filter);	/* events this kernel lacks: ignored */
	}
	events_enable("1");
	snprintf(file, sizeof(file), "%s/tracing_on", tracefs);
	on_fd = open(file, O_WRONLY | O_CLOEXEC);
	if (on_fd < 0 || write(on_fd, "1", 1) != 1)
		return -1;
	return 0;
}

/* Live allocations: an open-addressing table of pointer -> bytes. */
struct live {
	char **ptr;
	long *bytes;
	size_t cap, n;
};

static size_t live_slot(const struct live *l, const char *ptr)
{
	size_t h = 5381;
	const char *p;

	for (p = ptr; *p; p++)
		h = h * 33 + (unsigned char)*p;
	for (h &= l->cap - 1; l->ptr[h] && strcmp(l->ptr[h], ptr);
	     h = (h + 1) & (l->cap - 1))
		;
	return h;
}

static void live_grow(struct live *l)
{
	struct live n = { .cap = l->cap ? l->cap * 2 : 4096 };
	size_t i, s;

	n.ptr = calloc(n.cap, sizeof(*n.ptr));
	n.bytes = calloc(n.cap, sizeof(*n.bytes));
	if (!n.ptr || !n.bytes)
		abort();
	for (i = 0; i < l->cap; i++)
		if (l->ptr[i]) {
			s = live_slot(&n, l->ptr[i]);
			n.ptr[s] = l->ptr[i];
			n.bytes[s] = l->bytes[i];
			n.n++;
		}
	free(l->ptr);
	free(l->bytes);
	*l = n;
}

/* The word after "@key=" in @line, copied into @buf. */
static int word(const char *line, const char *key, char *buf, size_t size)
{
	const char *p = strstr(line, key);
	size_t n;

	if (!p)
		return -1;
	p += strlen(key);
	n = strcspn(p, " \n");
	if (n >= size)
		return -1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return 0;
}

/*
 * BENCH_KMEM_SITES=1: the bytes allocated in the window by each call site
 * (frees not subtracted), on stderr, to see what a target costs.
 */
static void print_sites(const char *path)
{
	static char site[256][96];
	static long long bytes[256];
	char line[1024], cs[96], num[24];
	size_t n = 0, i;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || word(line, " call_site=", cs, sizeof(cs)) ||
		    word(line, " bytes_alloc=", num, sizeof(num)))
			continue;
		for (i = 0; i < n && strcmp(site[i], cs); i++)
			;
		if (i == n && n < 256)
			snprintf(site[n++], sizeof(site[0]), "%s", cs);
		if (i < n)
			bytes[i] += atoll(num);
	}
	fclose(f);
	for (i = 0; i < n; i++)
		fprintf(stderr, "kmem: %8lld %s\n", bytes[i], site[i]);
}

long long kmem_trace_stop(void)
{
	struct live l = { 0 };
	char path[160], line[1024], ptr[40], num[24];
	long long sum = 0;
	unsigned long in_buf = 0, written = 0;
	size_t i, s;
	FILE *f;

	if (!tracefs[0] || on_fd < 0)
		return -1;
	if (write(on_fd, "0", 1) != 1)
		return -1;
	close(on_fd);
	on_fd = -1;
	events_enable("0");
	snprintf(path, sizeof(path), "%s/trace", tracefs);
	f = fopen(path, "r");
	if (!f)
		return -1;
	live_grow(&l);
	while (fgets(line, sizeof(line), f)) {
		int alloc;

		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &in_buf, &written) == 2)
			continue;
		if (line[0] == '#' || word(line, " ptr=", ptr, sizeof(ptr)))
			continue;
		alloc = !strstr(line, " kfree:") && !strstr(line, " kmem_cache_free:");
		if (alloc && word(line, " bytes_alloc=", num, sizeof(num)))
			continue;
		if (l.n * 2 >= l.cap)
			live_grow(&l);
		s = live_slot(&l, ptr);
		if (alloc) {
			if (!l.ptr[s]) {
				l.ptr[s] = strdup(ptr);
				l.n++;
			}
			l.bytes[s] = atol(num);
		} else if (l.ptr[s]) {
			l.bytes[s] = 0;	/* freed within the window */
		}
	}
	fclose(f);
	for (i = 0; i < l.cap; i++) {
		sum += l.bytes[i];
		free(l.ptr[i]);
	}
	free(l.ptr);
	free(l.bytes);
	if (getenv("BENCH_KMEM_SITES"))
		print_sites(path);
	put("trace", "");
	put("buffer_size_kb", "1408");
	put("trace_options", "hash-ptr");
	tracefs[0] = 0;
	return in_buf == written ? sum : -1;
}
