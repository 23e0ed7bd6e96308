// SPDX-License-Identifier: GPL-2.0
/* signals.c - Ctrl-C and friends: stop cleanly, print what was gathered, exit 130. */
#include <string.h>

#include "cpcstat.h"

volatile sig_atomic_t cpcstat_stop;
static void (*stop_hook)(int sig);

static void on_signal(int sig)
{
	if (!cpcstat_stop)
		cpcstat_stop = sig;
	if (stop_hook)
		stop_hook(sig);
}

void cpcstat_catch_signals(void (*hook)(int sig))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	struct sigaction sa;

	stop_hook = hook;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (unsigned int i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* As cputrack: leave alone what the caller chose to ignore. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int cpcstat_exit_code(int ok)
{
	if (!cpcstat_stop)
		return ok;
	return 128 + cpcstat_stop;
}

void cpcstat_stop_signals(sigset_t *set)
{
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}
