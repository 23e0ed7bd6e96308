/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/kernel-version.h - the version tests of the compat headers, and
 * only of them: no .c file tests a kernel version (mk/check-layout.py).
 *
 * PMC_KERNEL_VERSION(a, b, c) orders versions like KERNEL_VERSION() but
 * keeps a 16-bit sublevel: LINUX_VERSION_CODE saturates at .255, which
 * long-term series pass (4.14.256 did), so a range that names a stable
 * backport would misfire there. Kbuild feeds the kernel Makefile's
 * VERSION, PATCHLEVEL and SUBLEVEL as PMC_KVER_*; without them (a build
 * outside Kbuild) LINUX_VERSION_CODE stands in.
 *
 * PMC_KERNEL_GE(a, b, c): the kernel is a.b.c or later.
 * PMC_KERNEL_RANGE(a, b, c, d, e, f): from a.b.c (included) to d.e.f
 * (excluded): a backport to one stable series.
 */
#ifndef _PMC_COMPAT_KERNEL_VERSION_H
#define _PMC_COMPAT_KERNEL_VERSION_H

#include <linux/version.h>

#define PMC_KERNEL_VERSION(a, b, c)	(((a) << 24) + ((b) << 16) + (c))

#if defined(PMC_KVER_MAJOR) && defined(PMC_KVER_MINOR) && defined(PMC_KVER_SUB)
#define PMC_LINUX_VERSION_CODE \
	PMC_KERNEL_VERSION(PMC_KVER_MAJOR, PMC_KVER_MINOR, PMC_KVER_SUB)
#else /* !(PMC_KVER_MAJOR && PMC_KVER_MINOR && PMC_KVER_SUB) */
#define PMC_LINUX_VERSION_CODE \
	PMC_KERNEL_VERSION((LINUX_VERSION_CODE >> 16) & 0xff,	\
			   (LINUX_VERSION_CODE >> 8) & 0xff,	\
			   LINUX_VERSION_CODE & 0xff)
#endif /* PMC_KVER_MAJOR && PMC_KVER_MINOR && PMC_KVER_SUB */

#define PMC_KERNEL_GE(a, b, c) \
	(PMC_LINUX_VERSION_CODE >= PMC_KERNEL_VERSION(a, b, c))
#define PMC_KERNEL_RANGE(a, b, c, d, e, f) \
	(PMC_KERNEL_GE(a, b, c) && !PMC_KERNEL_GE(d, e, f))

/* The floor: Debian 12's 6.1. */
#if !PMC_KERNEL_GE(6, 1, 0)
#error "pmc needs Linux 6.1 or later"
#endif /* !PMC_KERNEL_GE(6, 1, 0) */

#endif /* _PMC_COMPAT_KERNEL_VERSION_H */
