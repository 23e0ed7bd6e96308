// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_gate.c - one gate per CPU that ops acting on a CPU's counters go
 * through, so that the CPU never goes offline in the middle of one.
 *
 * perf takes a CPU's counters out of its context when the CPU goes
 * offline (perf_event_exit_cpu_context(), taking the context's mutex). An
 * op that starts, stops or reads a system PMC holds that mutex while it
 * calls the CPU; a thread doing such ops in a loop starved the teardown
 * on arm64 under TCG, where one host thread runs every vCPU in turn
 * (faults-hotplug churn_cycles). Our hotplug state is torn down before
 * perf's (CPUHP_AP_ONLINE_DYN comes after CPUHP_AP_PERF_ONLINE): it
 * closes the gate and waits for the ops inside; ops that come later wait
 * until the CPU is dead (the CPUHP_BP_PREPARE_DYN teardown) and then find
 * it offline.
 *
 * Not cpu_hotplug_lock, which the ops held before: perf takes that lock
 * under a context's mutex (the static key of a software counter freed at
 * a task's exit), so holding it around a perf call ordered it both ways,
 * a deadlock with a hotplug writer for a task's context, and one lockdep
 * class for every context's mutex. The gate is a count and a state:
 * nothing lockdep tracks, and no deadlock: an op inside the gate waits
 * only for the mutex of the CPU's own context, which nothing holds while
 * it waits for the hotplug in progress.
 *
 * Context: process context (the callers may sleep); the hotplug callbacks
 * run in the CPU hotplug thread.
 */
#include "pmc_base.h"

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/percpu.h>
#include <linux/wait_bit.h>

enum pmc_gate_state {
	PMC_GATE_OFFLINE,	/* 0: a possible CPU not yet seen online */
	PMC_GATE_OPEN,
	PMC_GATE_CLOSING,	/* going offline: from our teardown to its death */
};

struct pmc_cpu_gate {
	atomic_t inside;	/* ops between pmc_cpu_enter() and _leave() */
	int state;		/* enum pmc_gate_state, written by the callbacks */
};

static DEFINE_PER_CPU(struct pmc_cpu_gate, pmc_cpu_gates);
static int pmc_gate_online_state;
static int pmc_gate_dead_state;

static struct pmc_cpu_gate *pmc_gate(int cpu)
{
	return per_cpu_ptr(&pmc_cpu_gates, cpu);
}

void pmc_cpu_leave(int cpu)
{
	struct pmc_cpu_gate *g = pmc_gate(cpu);

	if (atomic_dec_and_test(&g->inside))
		wake_up_var(&g->inside);
}

bool pmc_cpu_enter(int cpu)
{
	struct pmc_cpu_gate *g = pmc_gate(cpu);

	for (;;) {
		atomic_inc(&g->inside);
		/* Pairs with the barrier in pmc_cpu_gate_close(). */
		smp_mb__after_atomic();
		if (READ_ONCE(g->state) == PMC_GATE_OPEN)
			return true;
		pmc_cpu_leave(cpu);
		if (READ_ONCE(g->state) != PMC_GATE_CLOSING)
			return false;
		wait_var_event(&g->state,
			       READ_ONCE(g->state) != PMC_GATE_CLOSING);
	}
}

static int pmc_cpu_gate_open(unsigned int cpu)
{
	WRITE_ONCE(pmc_gate(cpu)->state, PMC_GATE_OPEN);
	return 0;
}

/* Teardown, before perf's: no op is inside once this returns. */
static int pmc_cpu_gate_close(unsigned int cpu)
{
	struct pmc_cpu_gate *g = pmc_gate(cpu);

	WRITE_ONCE(g->state, PMC_GATE_CLOSING);
	/* Pairs with the barrier in pmc_cpu_enter(). */
	smp_mb();
	wait_var_event(&g->inside, !atomic_read(&g->inside));
	return 0;
}

/* The CPU is dead: the ops that waited find it offline. */
static int pmc_cpu_gate_dead(unsigned int cpu)
{
	struct pmc_cpu_gate *g = pmc_gate(cpu);

	WRITE_ONCE(g->state, PMC_GATE_OFFLINE);
	wake_up_var(&g->state);
	return 0;
}

int pmc_cpu_gate_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "pmc:dead",
					NULL, pmc_cpu_gate_dead);
	if (ret < 0)
		return ret;
	pmc_gate_dead_state = ret;
	/* Opens the gate of every CPU online now. */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pmc:online",
				pmc_cpu_gate_open, pmc_cpu_gate_close);
	if (ret < 0) {
		cpuhp_remove_state_nocalls(pmc_gate_dead_state);
		return ret;
	}
	pmc_gate_online_state = ret;
	return 0;
}

/* At unload: no op is left. */
void pmc_cpu_gate_exit(void)
{
	cpuhp_remove_state_nocalls(pmc_gate_online_state);
	cpuhp_remove_state_nocalls(pmc_gate_dead_state);
}
