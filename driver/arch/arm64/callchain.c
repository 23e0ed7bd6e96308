// SPDX-License-Identifier: GPL-2.0
/*
 * arch/arm64/callchain.c - the stack walks of a sample on arm64, done inside
 * the overflow handler: hard IRQ context on Debian's arm64 kernels (no
 * pseudo-NMI), NMI-safe all the same (no lock, no allocation, no fault).
 *
 * Both walks follow AAPCS64 frame records ({x29, x30} pairs chained through
 * x29), as perf_callchain_kernel() and perf_callchain_user() do on arm64:
 * Debian's arm64 kernels are built with frame pointers, and the
 * kernel's own unwinder is not exported. Each record is read with a
 * nofault copy; the walk stops at the first record that cannot be read or
 * does not go up the stack, so code without frame pointers gives a short
 * chain, never a fault. Return addresses lose their pointer-authentication
 * code before they are stored.
 */
#include "arch/pmc_arch.h"

#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/pointer_auth.h>

/* An AAPCS64 frame record: the caller's x29 and the return address. */
struct pmc_frame_record {
	unsigned long fp;
	unsigned long lr;
};

/*
 * @regs of the interrupted kernel code; stores its PC and the return
 * addresses of the kernel frame records above it. Hard IRQ, NMI or any
 * context with preemption off.
 */
unsigned int pmc_arch_callchain_kernel(struct pt_regs *regs, u64 *pc,
				       unsigned int max)
{
	struct pmc_frame_record rec;
	unsigned long fp = regs->regs[29];
	unsigned int n = 0;

	pc[n++] = instruction_pointer(regs);
	while (n < max) {
		if (!fp || (fp & 0xf))
			break;
		if (copy_from_kernel_nofault(&rec, (void *)fp, sizeof(rec)))
			break;
		rec.lr = ptrauth_strip_insn_pac(rec.lr);
		if (!rec.lr)
			break;
		pc[n++] = rec.lr;
		/* Records go up the stack (or across to the task's stack). */
		if (rec.fp == fp)
			break;
		fp = rec.fp;
	}
	return n;
}

/*
 * @regs of user mode (the interrupted ones, or task_pt_regs(current) when
 * the sample hit the kernel); stores the PC and the return addresses of
 * the frame-record chain. Hard IRQ or NMI-safe.
 */
unsigned int pmc_arch_callchain_user(struct pt_regs *regs, u64 *pc,
				     unsigned int max)
{
	struct pmc_frame_record rec;
	unsigned long fp;
	unsigned int n = 0;

	pc[n++] = instruction_pointer(regs);
	/* 32-bit (AArch32) tasks: the PC only. */
	if (compat_user_mode(regs))
		return n;

	fp = regs->regs[29];
	while (n < max) {
		if (!fp || (fp & 0xf))
			break;
		if (copy_from_user_nofault(&rec, (void __user *)fp,
					   sizeof(rec)))
			break;
		rec.lr = ptrauth_strip_insn_pac(rec.lr);
		if (!rec.lr)
			break;
		pc[n++] = rec.lr;
		/* Frames go up the stack; anything else is not a chain. */
		if (rec.fp <= fp)
			break;
		fp = rec.fp;
	}
	return n;
}
