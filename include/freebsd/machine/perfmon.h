/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR BSD-2-Clause */
/*
 * <machine/perfmon.h> for FreeBSD perfmon(4) programs: pmc's <pmc/perfmon.h>
 * (the same names and values, _PATH_PERFMON "/dev/perfmon"). Found through
 * `pkg-config --cflags pmc-perfmon`, which puts this directory on the
 * include path; installed as <pmc/freebsd/machine/perfmon.h>.
 */
#ifndef _PMC_FREEBSD_MACHINE_PERFMON_H
#define _PMC_FREEBSD_MACHINE_PERFMON_H

#include <pmc/perfmon.h>

#endif /* _PMC_FREEBSD_MACHINE_PERFMON_H */
