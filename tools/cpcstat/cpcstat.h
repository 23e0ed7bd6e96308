/* SPDX-License-Identifier: GPL-2.0 */
/* cpcstat.h - the modes of cpcstat and what they share. */
#ifndef CPCSTAT_H
#define CPCSTAT_H

#include <signal.h>
#include <stdbool.h>

/* Exit codes of cpustat/cputrack, and 130 after Ctrl-C (128 + SIGINT). */
#define EXIT_USAGE	2
#define EXIT_INTR	130

/*
 * Each mode's entry point. PROG names the tool in messages and usage:
 * "cpustat", "cputrack", or "cpcstat cpu" etc. ARGV[0] is the mode's name.
 */
int cpu_main(int argc, char **argv, const char *prog);
int track_main(int argc, char **argv, const char *prog);
int record_main(int argc, char **argv, const char *prog);
int report_main(int argc, char **argv, const char *prog);

/* The signal that ended the run (SIGINT, SIGTERM ...), 0 while none came. */
extern volatile sig_atomic_t cpcstat_stop;
/*
 * Route SIGINT, SIGTERM, SIGHUP (and SIGQUIT) to a handler that sets
 * cpcstat_stop and then calls HOOK (may be NULL; must be async-signal-safe).
 */
void cpcstat_catch_signals(void (*hook)(int sig));
/* Add the signals that stop a run (SIGINT, SIGTERM, SIGHUP, SIGQUIT) to SET. */
void cpcstat_stop_signals(sigset_t *set);
/* 130 for SIGINT, 128 + sig for the others, or OK when no signal came. */
int cpcstat_exit_code(int ok);

#endif /* CPCSTAT_H */
