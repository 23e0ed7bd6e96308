/* SPDX-License-Identifier: GPL-2.0 */
/* fake_cpu.h - a made-up 4-counter CPU for the host unit tests. */
#ifndef CPCSTAT_FAKE_CPU_H
#define CPCSTAT_FAKE_CPU_H

#include "../caps.h"

/*
 * Counters 0-1 count everything; counter 2 only cycles and inst_retired;
 * counter 3 only cycles. Attributes: umask, cmask, edge, inv, picnum.
 */
static inline void fake_cpu(struct cpu_caps *c)
{
	static const char *const all[] = { "cycles", "inst_retired", "l2_miss",
					   "task-clock", "br_misp" };
	static const char *const attrs[] = { "edge", "inv", "umask", "cmask", "picnum" };

	caps_init(c, 4);
	for (unsigned int p = 0; p < 2; p++)
		for (unsigned int i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			name_list_add(&c->events[p], all[i]);
	name_list_add(&c->events[2], "cycles");
	name_list_add(&c->events[2], "inst_retired");
	name_list_add(&c->events[3], "cycles");
	for (unsigned int p = 0; p < 4; p++) {
		name_list_add(&c->generic[p], "PAPI_tot_cyc");
		if (p < 3)
			name_list_add(&c->generic[p], "PAPI_tot_ins");
	}
	for (unsigned int i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		name_list_add(&c->attrs, attrs[i]);
}

#endif /* CPCSTAT_FAKE_CPU_H */
