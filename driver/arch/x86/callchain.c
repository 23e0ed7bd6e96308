// SPDX-License-Identifier: GPL-2.0
/*
 * arch/x86/callchain.c - the stack walks of a sample, done inside the overflow
 * handler: NMI-safe (no lock, no allocation, no fault).
 *
 * Kernel frames: the kernel's unwinder (ORC on Debian) through its exported
 * API, as perf_callchain_kernel() does. User frames: a frame-pointer walk
 * with copy_from_user_nofault(), as perf_callchain_user() does; it stops at
 * the first frame that cannot be read or does not go up the stack, so code
 * without frame pointers gives a short chain, never a fault.
 */
#include "arch/pmc_arch.h"

#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/processor-flags.h>
#include <asm/unwind.h>

/*
 * @regs of the interrupted kernel code; stores regs->ip and the return
 * addresses above it. NMI, IRQ or any context with preemption off.
 */
unsigned int pmc_arch_callchain_kernel(struct pt_regs *regs, u64 *pc,
				       unsigned int max)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	pc[n++] = instruction_pointer(regs);
	/*
	 * Registers saved by an interrupt or NMI entry (X86_EFLAGS_FIXED is
	 * always set there) start the unwind at the interrupted frame;
	 * software events pass registers made up at the call site, whose
	 * stack pointer is where the unwind starts.
	 */
	if (regs->flags & X86_EFLAGS_FIXED)
		unwind_start(&state, current, regs, NULL);
	else
		unwind_start(&state, current, NULL, (unsigned long *)regs->sp);

	for (; n < max && !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (n == 1 && addr == pc[0])
			continue;
		pc[n++] = addr;
	}
	return n;
}

/* A user stack frame built by "push %rbp; mov %rsp,%rbp". */
struct pmc_user_frame {
	unsigned long next;
	unsigned long ret;
};

/*
 * @regs of user mode (the interrupted ones, or task_pt_regs(current) when
 * the sample hit the kernel); stores regs->ip and the return addresses of
 * the frame-pointer chain. NMI-safe.
 */
unsigned int pmc_arch_callchain_user(struct pt_regs *regs, u64 *pc,
				     unsigned int max)
{
	struct pmc_user_frame frame;
	unsigned long fp;
	unsigned int n = 0;

	pc[n++] = instruction_pointer(regs);
	/* 32-bit tasks: the IP only (their frames are 4-byte words). */
	if (!user_64bit_mode(regs))
		return n;

	fp = regs->bp;
	while (n < max) {
		if (!fp || (fp & (sizeof(long) - 1)))
			break;
		if (copy_from_user_nofault(&frame, (void __user *)fp,
					   sizeof(frame)))
			break;
		if (!frame.ret)
			break;
		pc[n++] = frame.ret;
		/* Frames go up the stack; anything else is not a chain. */
		if (frame.next <= fp)
			break;
		fp = frame.next;
	}
	return n;
}
