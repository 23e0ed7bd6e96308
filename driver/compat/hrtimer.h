/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/hrtimer.h - <linux/hrtimer.h>: initialising an hrtimer.
 *
 * History:
 *   up to 6.12	hrtimer_init(), then the caller sets timer->function.
 *   6.13 on	hrtimer_setup() takes the function; hrtimer_init() goes
 *		away in 6.15.
 */
#ifndef _PMC_COMPAT_HRTIMER_H
#define _PMC_COMPAT_HRTIMER_H

#include <linux/hrtimer.h>

#include "kernel-version.h"

/* Initialise @timer to run @fn on @clock in @mode. Any context. */
static inline void pmc_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#if PMC_KERNEL_GE(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else /* !PMC_KERNEL_GE(6, 13, 0) */
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif /* PMC_KERNEL_GE(6, 13, 0) */
}

#endif /* _PMC_COMPAT_HRTIMER_H */
