// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmc_selfread.c - pmc(3)'s self-read calls on the process-wide descriptor:
 * the device layer's reader (dev/pmcdev_selfread.c, its one-PMC path
 * inline from dev/pmcdev_selfread_inline.h), falling back to
 * PMC_OP_PMCREADSET for the PMCs the page cannot give.
 */
#include <errno.h>
#include <unistd.h>

#include "libpmc_impl.h"
#include "pmcdev.h"
#include "pmcdev_selfread_inline.h"

const struct pmc_selfread_page *pmc_selfread_map(uint32_t group)
{
	size_t len;

	return pmcdev_selfread_map(pmc__fd(), group, &len);
}

int pmc_selfread_unmap(const struct pmc_selfread_page *pg)
{
	return pmcdev_selfread_unmap(pg, (size_t)sysconf(_SC_PAGESIZE));
}

/* pmc_selfread() of any set: the page where it can, else PMCREADSET. */
static int __attribute__((noinline))
pmc_selfread_set(const struct pmc_selfread_page *pg, unsigned int n,
		 const pmc_id_t *ids, pmc_value_t *values)
{
	int ret;

	if (!pg || n == 0 || n > PMC_READSET_MAX || !ids || !values) {
		errno = EINVAL;
		return -1;
	}
	ret = pmcdev_selfread(pg, n, ids, values, NULL, NULL);
	if (ret == 0)
		return pmc_read_set(n, ids, values, NULL);
	return ret > 0 ? 0 : -1;
}

int pmc_selfread(const struct pmc_selfread_page *pg, unsigned int n,
		 const pmc_id_t *ids, pmc_value_t *values)
{
	/* One PMC, the common call: read inline from the page, no call made. */
	if (n == 1 && pg && ids && values && pmcdev_selfread1(pg, ids[0], values))
		return 0;
	return pmc_selfread_set(pg, n, ids, values);
}
