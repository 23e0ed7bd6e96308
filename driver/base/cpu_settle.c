// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_settle.c - what an op does before it acts on a CPU's counters while
 * that CPU goes offline or comes up: it lets the hotplug go first.
 *
 * perf takes a CPU's counters out of its context when the CPU goes offline
 * (perf_event_exit_cpu_context(), taking the context's mutex). An op that
 * starts, stops or reads a counter of that CPU holds the same mutex while
 * it calls the CPU (an IPI). A thread doing such ops in a loop starved the
 * teardown on arm64 under QEMU TCG with -icount, where one host thread runs
 * every vCPU in turn: the teardown's optimistic spin on the mutex only ever
 * ran while an op held it (faults-hotplug churn_cycles hung the guest).
 * So an op on a CPU that is online but not active (cleared first thing on
 * the way down, before perf's teardown; set last on the way up) sleeps a
 * tick first, holding none of perf's locks, and the teardown takes the
 * mutex meanwhile.
 *
 * Nothing is held across the op: the CPU may go offline between the op's
 * cpu_online() test and its act. perf copes (a call to an offline CPU does
 * nothing, a read returns the count the counter kept) and PMCSTART gives
 * the PMC a new counter once the CPU is back (driver/core/core.c,
 * pmc_sys_revive()). cpu_hotplug_lock, held there before, cannot be: perf
 * takes it under a task context's mutex (an inherited software counter
 * freed at a task's exit drops its static key), so an op holding it while
 * it reads a process PMC is a deadlock with a hotplug writer waiting
 * between the two (lockdep on the PREEMPT_RT debug kernel,
 * docs/reliability.md); nor can anything the teardown waits for, for the
 * same reason.
 *
 * Context: process context; may sleep.
 */
#include "pmc_base.h"

#include <linux/cpumask.h>
#include <linux/sched.h>

void pmc_cpu_settle(unsigned int cpu)
{
	if (cpu_online(cpu) && !cpu_active(cpu))
		schedule_timeout_uninterruptible(1);
}
