// SPDX-License-Identifier: BSD-2-Clause
/*
 * perfmon - FreeBSD's /usr/share/examples/perfmon program on Linux: count
 * one event with perfmon(4) counter 0 over a number of intervals and print
 * each interval's count, their total and mean, and the TSC ticks elapsed.
 *
 *   perfmon [-eiou] [-c command] [-l nloops] [-m mask] [-s sleeptime]
 *           [-U unit] event
 *
 * Written from the description of the original (same options and output);
 * see perfmon(4) in docs/perfmon.4.md.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <pmc/perfmon.h>

static void usage(const char *pname)
{
	fprintf(stderr,
		"usage: %s [-eiou] [-c command] [-l nloops] [-m mask] [-s sleeptime]\n"
		"       [-U unit] counter\n", pname);
	exit(1);
}

/* A whole decimal (or 0x hex) number in [lo, hi], else the usage message. */
static long number(const char *s, long lo, long hi, const char *pname)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi)
		usage(pname);
	return v;
}

int main(int argc, char **argv)
{
	struct pmc pmc = { 0 };
	struct pmc_data pmcdata = { 0 };
	struct pmc_tstamp then, now;
	const char *cmd = NULL;
	long long *buf;
	double total;
	int c, fd, i, num = 0, loops = 50, sleeptime = 0;

	while ((c = getopt(argc, argv, "s:l:uoeiU:m:c:")) != -1) {
		switch (c) {
		case 'u':
			pmc.pmc_flags |= PMCF_USR;
			break;
		case 'o':
			pmc.pmc_flags |= PMCF_OS;
			break;
		case 'e':
			pmc.pmc_flags |= PMCF_E;
			break;
		case 'i':
			pmc.pmc_flags |= PMCF_INV;
			break;
		case 'U':
			pmc.pmc_unit = number(optarg, 0, 255, argv[0]);
			break;
		case 'm':
			pmc.pmc_mask = number(optarg, 0, 255, argv[0]);
			break;
		case 'l':
			loops = number(optarg, 1, 1000000, argv[0]);
			break;
		case 's':
			sleeptime = number(optarg, 0, 86400, argv[0]);
			break;
		case 'c':
			cmd = optarg;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (argc - optind != 1)
		usage(argv[0]);
	pmc.pmc_event = number(argv[optind], 0, 255, argv[0]);
	pmc.pmc_num = 0;

	buf = calloc(loops + 1, sizeof(*buf));
	if (!buf)
		err(1, "malloc(%d)", loops + 1);

	fd = open(_PATH_PERFMON, O_RDWR);
	if (fd < 0)
		err(1, "open: " _PATH_PERFMON);

	if (ioctl(fd, PMIOSETUP, &pmc) < 0)
		err(1, "ioctl(PMIOSETUP)");
	if (ioctl(fd, PMIOTSTAMP, &then) < 0)
		err(1, "ioctl(PMIOTSTAMP)");
	if (ioctl(fd, PMIOSTART, &num) < 0)
		err(1, "ioctl(PMIOSTART)");

	pmcdata.pmcd_num = num;
	for (i = 0; i < loops; i++) {
		if (ioctl(fd, PMIOSTOP, &num) < 0)
			err(1, "ioctl(PMIOSTOP)");
		if (ioctl(fd, PMIOREAD, &pmcdata) < 0)
			err(1, "ioctl(PMIOREAD)");
		buf[i] = (long long)pmcdata.pmcd_value;
		if (ioctl(fd, PMIORESET, &num) < 0)
			err(1, "ioctl(PMIORESET)");
		if (ioctl(fd, PMIOSTART, &num) < 0)
			err(1, "ioctl(PMIOSTART)");
		if (sleeptime)
			sleep(sleeptime);
		if (cmd && system(cmd) == -1)
			err(1, "system(%s)", cmd);
	}

	if (ioctl(fd, PMIOSTOP, &num) < 0)
		err(1, "ioctl(PMIOSTOP)");
	if (ioctl(fd, PMIOREAD, &pmcdata) < 0)
		err(1, "ioctl(PMIOREAD)");
	buf[loops] = (long long)pmcdata.pmcd_value;
	if (ioctl(fd, PMIOTSTAMP, &now) < 0)
		err(1, "ioctl(PMIOTSTAMP)");

	/* buf[0], from PMIOSTART to the first PMIOSTOP, is not an interval. */
	total = 0;
	for (i = 1; i <= loops; i++) {
		printf("%d: %lld\n", i, buf[i]);
		total += buf[i];
	}
	printf("total: %f\nmean: %f\n", total, total / loops);
	printf("clocks (at %d-MHz): %lld\n", now.pmct_rate,
	       (long long)(now.pmct_value - then.pmct_value));
	free(buf);
	close(fd);
	return 0;
}
