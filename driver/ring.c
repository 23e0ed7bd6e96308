// SPDX-License-Identifier: GPL-2.0
/*
 * ring.c - the owner's mmap'd record ring (being written: the sampling and
 * logging issue).
 */
#include "pmc_main.h"

#include <linux/poll.h>

int pmc_ring_mmap(struct pmc_file *pf, struct vm_area_struct *vma)
{
	return -ENODEV;
}

__poll_t pmc_ring_poll(struct pmc_file *pf, struct file *file,
		       struct poll_table_struct *wait)
{
	return EPOLLERR;
}
