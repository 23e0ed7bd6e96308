/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmem.h - the kernel memory a piece of code leaves allocated, counted from
 * the kmem tracepoints (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free)
 * of the calling process: the bytes of every object allocated between
 * kmem_trace_start() and kmem_trace_stop() and not freed by then. Unlike
 * slab totals, this sees single objects (SLUB hands them out of slabs it
 * already has) and nothing other processes do. Root and tracefs needed.
 */
#ifndef _BENCH_KMEM_H
#define _BENCH_KMEM_H

/* 0, or -1 with errno (no tracefs, not root). */
int kmem_trace_start(void);

/* The bytes left allocated, or -1 (not started, or events were lost). */
long long kmem_trace_stop(void);

#endif /* _BENCH_KMEM_H */
