// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmcdev_sys.c - the system calls on /dev/pmc, and nothing else: every other
 * part of the device layer reaches the device through these five. libcpc's
 * host unit tests link a simulated device in place of this file; the
 * libraries always link this one.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmcdev.h"

int pmcdev_open(void)
{
	return open(PMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
}

void pmcdev_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

int pmcdev_ioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	if (fd < 0)
		return -1;	/* the failed open's errno stands */
	do {
		ret = ioctl(fd, request, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -1 : 0;
}

void *pmcdev_mmap(int fd, size_t len, int prot, off_t off)
{
	if (fd < 0)
		return MAP_FAILED;
	return mmap(NULL, len, prot, MAP_SHARED, fd, off);
}

void pmcdev_munmap(void *addr, size_t len)
{
	if (addr && addr != MAP_FAILED)
		munmap(addr, len);
}
