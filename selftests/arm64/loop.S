/* SPDX-License-Identifier: GPL-2.0 */
/*
 * loop.S - a program of known length for the arm64 tests: LOOP_N
 * iterations of a two-instruction loop, then exit(0), with no C library:
 * 2 * LOOP_N + 5 user instructions from its first to its last (the svc).
 * Built -static -nostdlib, so its run is the same under perf stat and
 * under the driver (selftests/arm64/pmu_test.c).
 */
	.text
	.globl	_start
_start:
	movz	x0, #(LOOP_N & 0xffff)
	movk	x0, #((LOOP_N >> 16) & 0xffff), lsl #16
1:	subs	x0, x0, #1
	b.ne	1b
	mov	x0, #0
	mov	x8, #93			/* __NR_exit */
	svc	#0
