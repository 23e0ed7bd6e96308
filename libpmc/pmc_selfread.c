// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_selfread.c - pmc(3)'s self-read calls on the process-wide descriptor:
 * the device layer's reader (dev/pmcdev_selfread.c), falling back to
 * PMC_OP_PMCREADSET for the PMCs the page cannot give.
 */
#include <errno.h>
#include <unistd.h>

#include "libpmc_impl.h"
#include "pmcdev.h"

const struct pmc_selfread_page *pmc_selfread_map(uint32_t group)
{
	size_t len;

	return pmcdev_selfread_map(pmc__fd(), group, &len);
}

int pmc_selfread_unmap(const struct pmc_selfread_page *pg)
{
	return pmcdev_selfread_unmap(pg, (size_t)sysconf(_SC_PAGESIZE));
}

int pmc_selfread(const struct pmc_selfread_page *pg, unsigned int n,
		 const pmc_id_t *ids, pmc_value_t *values)
{
	int ret;

	if (!pg || n == 0 || n > PMC_READSET_MAX || !ids || !values) {
		errno = EINVAL;
		return -1;
	}
	ret = n == 1 ? pmcdev_selfread1(pg, ids[0], values) :
		       pmcdev_selfread(pg, n, ids, values, NULL, NULL);
	if (ret == 0)
		return pmc_read_set(n, ids, values, NULL);
	return ret > 0 ? 0 : -1;
}
