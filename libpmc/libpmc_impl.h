/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpmc_impl.h - libpmc's internal interfaces: the process-wide /dev/pmc
 * handle, the machine description the event-specifier parser works on, and
 * the name lists. The device layer (dev/pmcdev.h) holds the ioctls, the
 * ring and self-read readers, libpfm4 and the event vocabulary. Nothing
 * here is exported (libpmc.map).
 */
#ifndef _LIBPMC_IMPL_H_
#define _LIBPMC_IMPL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmc.h"

#define PMC_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * What the event-specifier parser needs to know of the machine: the classes
 * (GETCPUINFO) and the named events of the SOFT class (GETDYNEVENTINFO).
 * pmc_init() builds the process-wide one; tests build their own.
 */
struct pmc_mdesc {
	const struct pmc_cpuinfo *cpu;
	const struct pmc_dyn_event_descr *soft;
	unsigned int nsoft;
};

/* pmc_lib.c: the handle. */

/*
 * The /dev/pmc descriptor, reopened in a child after fork() (the driver
 * binds PMCs to the opening process), or -1 with errno ENXIO before
 * pmc_init().
 */
int pmc__fd(void);
/* ioctl on the handle: 0, or -1 with errno. */
int pmc__ioctl(unsigned long request, void *arg);
/* The process-wide machine description; NULL with errno ENXIO before pmc_init(). */
const struct pmc_mdesc *pmc__mdesc(void);

/* pmc_spec.c: event specifiers. */

/*
 * Encode @spec for @mode on machine @m into @req (pm_caps, pm_class, pm_ev,
 * pm_md, pm_mode; the rest zeroed). Returns 0 or an errno value: EINVAL for
 * a bad mode, an unknown event or a bad qualifier, EOPNOTSUPP for an event
 * this machine has no class to count.
 */
int pmc__spec_encode(const struct pmc_mdesc *m, const char *spec,
		     enum pmc_mode mode, struct pmc_op_pmcallocate *req);

/* The machine's hardware class (IAP, else K8), or NULL. */
const struct pmc_classinfo *pmc__hw_class(const struct pmc_cpuinfo *cpu);
/* The class info of @cl on @cpu, or NULL. */
const struct pmc_classinfo *pmc__class_info(const struct pmc_cpuinfo *cpu,
					    uint32_t cl);

/*
 * pmc_info.c: pmc_event_names_of_class() on machine @m. Returns 0 or an
 * errno value.
 */
int pmc__event_names(const struct pmc_mdesc *m, uint32_t cl,
		     const char ***eventnames, int *nevents);

/* pmc_names.c: name lists. */

/*
 * A list of names built for pmc_event_names_of_class(): one malloc'd block
 * holding the pointer array followed by the strings, so that freeing the
 * array (what FreeBSD's callers do) frees everything.
 */
struct pmc_namelist {
	char **names;		/* building: each malloc'd */
	size_t n, cap;
	size_t bytes;		/* sum of strlen + 1 */
};
int pmc__namelist_add(struct pmc_namelist *nl, const char *name);
/* Pack into one block; frees the list's own storage. */
int pmc__namelist_pack(struct pmc_namelist *nl, const char ***out, int *n);
void pmc__namelist_free(struct pmc_namelist *nl);

#endif /* !_LIBPMC_IMPL_H_ */
