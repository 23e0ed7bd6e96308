/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recspec.h - record's -e EVENT[,period=N|freq=N][,qualifier...]: the
 * sampling rate taken out, the rest left for libpmc's pmc_allocate().
 */
#ifndef CPCSTAT_RECSPEC_H
#define CPCSTAT_RECSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECORD_DEFAULT_FREQ	1000	/* Hz, when neither period nor freq is given */

struct rec_event {
	char *spec;		/* for pmc_allocate(): the event and its other qualifiers */
	char *name;		/* the event name alone */
	uint64_t period;	/* events between samples, 0 if FREQ was given */
	uint64_t freq;		/* samples per second wanted, 0 if PERIOD was given */
};

/* Returns 0, or -1 with a one-line message naming the bad token in ERR. */
int rec_event_parse(const char *arg, struct rec_event *ev, char *err, size_t errlen);
void rec_event_free(struct rec_event *ev);

/* Does EVENT count nanoseconds (cpu-clock, task-clock, with or without SOFT-)? */
bool rec_event_is_clock(const char *name);
/*
 * The sampling period for EV: PERIOD as given; for a frequency, 1e9/freq
 * for clock events (they count ns) or CPU_HZ/freq for the others.
 */
uint64_t rec_event_period(const struct rec_event *ev, double cpu_hz);

#endif /* CPCSTAT_RECSPEC_H */
