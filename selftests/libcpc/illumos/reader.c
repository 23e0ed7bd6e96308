// SPDX-License-Identifier: GPL-2.0
/*
 * reader.c - error() and computation() for the illumos man-page examples
 * (reader.h). computation() takes COMPUTATION_PAGES (environment; default
 * 100) fresh pages: as many page faults, in user mode.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reader.h"

void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void computation(void)
{
	const char *env = getenv("COMPUTATION_PAGES");
	long pg = sysconf(_SC_PAGESIZE), n = env ? atol(env) : 100, i;
	volatile char *p;

	p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		error("computation: mmap");
	madvise((void *)p, (size_t)(n * pg), MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * pg] = 1;
	munmap((void *)p, (size_t)(n * pg));
}
