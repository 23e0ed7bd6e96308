// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - cpcstat: the program name (cpustat, cputrack) or the first
 * argument (cpu, track, record, report) selects the mode.
 */
#include <stdio.h>
#include <string.h>

#include "cpcstat.h"

static int usage(FILE *fp, int code)
{
	fprintf(fp,
		"Usage:\n"
		"\tcpcstat cpu -c spec [-c spec]... [-p period] [-T u|d] [-sntD]\n"
		"\t\t[-x sep | --json] [interval [count]]\n"
		"\tcpcstat track -c spec [-c spec]... [-efntvD] [-N count] [-o file]\n"
		"\t\t[-T secs] [-x sep | --json] (command [args] | -p pid)\n"
		"\tcpcstat record [-e event[,period=N|freq=N]]... [-g] [-o file]\n"
		"\t\t[-d secs] [-q] [-x sep | --json] (command [args] | -p pid | -a)\n"
		"\tcpcstat report [-i file] [--sort sym|dso|pid] [--callgraph]\n"
		"\t\t[--folded] [--svg file] [-n count] [-x sep | --json]\n"
		"\tcpcstat (cpu | track) -h\n"
		"\n"
		"\tcpu     count system-wide, per CPU (as cpustat(8))\n"
		"\ttrack   count a process (as cputrack(1))\n"
		"\trecord  sample a process or the system into a log\n"
		"\treport  top functions, call graph, flame graph of a log\n"
		"\n"
		"\tInstalled as cpustat and cputrack too. See cpcstat(1).\n");
	return code;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/');
	const char *mode;

	name = name ? name + 1 : argv[0];
	if (strcmp(name, "cpustat") == 0)
		return cpu_main(argc, argv, "cpustat");
	if (strcmp(name, "cputrack") == 0)
		return track_main(argc, argv, "cputrack");
	if (argc < 2)
		return usage(stderr, EXIT_USAGE);
	mode = argv[1];
	if (strcmp(mode, "cpu") == 0 || strcmp(mode, "stat") == 0)
		return cpu_main(argc - 1, argv + 1, "cpcstat cpu");
	if (strcmp(mode, "track") == 0)
		return track_main(argc - 1, argv + 1, "cpcstat track");
	if (strcmp(mode, "record") == 0)
		return record_main(argc - 1, argv + 1, "cpcstat record");
	if (strcmp(mode, "report") == 0)
		return report_main(argc - 1, argv + 1, "cpcstat report");
	if (strcmp(mode, "-h") == 0 || strcmp(mode, "--help") == 0 || strcmp(mode, "help") == 0)
		return usage(stdout, 0);
	fprintf(stderr, "cpcstat: unknown mode '%s'\n", mode);
	return usage(stderr, EXIT_USAGE);
}
