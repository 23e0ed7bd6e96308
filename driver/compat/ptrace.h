/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat/ptrace.h - <linux/ptrace.h>: the kernel's own ptrace_may_access(),
 * which decides who may attach a PMC to another process (core/security.c).
 *
 * History:
 *   2.6.27 on	bool ptrace_may_access(struct task_struct *task,
 *		unsigned int mode), never exported to modules (6.1 and 6.12:
 *		absent from Module.symvers). It runs the uid/gid and dumpable
 *		rules and every LSM's ptrace_access_check hook (Yama, AppArmor,
 *		SELinux, Landlock, ...), under task_lock(): it never sleeps.
 *   4.5 on	PTRACE_MODE_REALCREDS / FSCREDS select the caller's creds.
 *   6.2 on	x86 kernel IBT seals (poisons) the ENDBR of functions the
 *		kernel never calls indirectly; ptrace_may_access() is one.
 *
 * How a module reaches it, the lttng-modules way (wrapper/kallsyms.h,
 * wrapper/ibt.h):
 *  - the address: a kprobe registered on the symbol name at load resolves
 *    it (kallsyms is not exported since 5.7), then is unregistered; the
 *    kprobe may sit past the function's ENDBR, so the exact start is the
 *    probe address less the offset sprint_symbol() reports;
 *  - the prototype: pmc_ptrace_check_prototype(), never called, assigns
 *    &ptrace_may_access to a pointer of the type the driver calls it
 *    through, so a prototype change breaks the build, not the machine;
 *  - the call: through that pointer. On a kernel with IBT enforced and the
 *    function's ENDBR sealed, the indirect call would fault (#CP), so
 *    ENDBR tracking is switched off on this CPU for the call, preemption
 *    off, as lttng's wrapper/ibt.h does (ibt_save() is not exported). On
 *    PREEMPT_RT task_lock() sleeps, so there the call cannot be made with
 *    preemption off: pmc_ptrace_callable() says no and attach fails
 *    closed.
 */
#ifndef _PMC_COMPAT_PTRACE_H
#define _PMC_COMPAT_PTRACE_H

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/cpufeature.h>
#include <asm/ibt.h>
#include <asm/msr.h>
#endif /* CONFIG_X86_KERNEL_IBT */

#define PMC_PTRACE_SYMBOL	"ptrace_may_access"

/* The type the driver calls ptrace_may_access() through. */
typedef bool (*pmc_ptrace_may_access_t)(struct task_struct *task,
					unsigned int mode);

/*
 * Never called: ptrace_may_access assigned to the driver's pointer type
 * (-Werror=incompatible-pointer-types).
 */
static inline void __maybe_unused pmc_ptrace_check_prototype(void)
{
	pmc_ptrace_may_access_t fn = ptrace_may_access;

	(void)fn;
}

static inline int pmc_ptrace_kp_pre(struct kprobe *kp, struct pt_regs *regs)
{
	return 0;
}

/*
 * The address of the kernel function @name, or 0 when it cannot be found
 * (no such symbol, kprobes refused). Process context, at load.
 */
static inline unsigned long pmc_ksym_lookup(const char *name)
{
	struct kprobe kp = {
		.symbol_name = name,
		.pre_handler = pmc_ptrace_kp_pre,
	};
	char buf[KSYM_SYMBOL_LEN];
	unsigned long addr, off;
	size_t len = strlen(name);

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	/* "name+0xOFF/0xSIZE": the probe may be past an ENDBR. */
	sprint_symbol(buf, addr);
	if (strncmp(buf, name, len) || buf[len] != '+' ||
	    sscanf(buf + len, "+%lx/", &off) != 1 || off > addr)
		return 0;
	return addr - off;
}

#ifdef CONFIG_X86_KERNEL_IBT
/* Does @addr start with a real (unsealed) ENDBR64/ENDBR32? */
static inline bool pmc_ptrace_has_endbr(unsigned long addr)
{
	u32 insn;

	if (get_kernel_nofault(insn, (u32 *)addr))
		return false;
	return (insn & ~0x01000000U) == gen_endbr();
}

/*
 * May the function at @addr be called through a pointer? Yes unless IBT
 * is enforced, its ENDBR is sealed and the kernel is PREEMPT_RT (see the
 * top of this file).
 */
static inline bool pmc_ptrace_callable(unsigned long addr)
{
	return !cpu_feature_enabled(X86_FEATURE_IBT) ||
	       pmc_ptrace_has_endbr(addr) || !IS_ENABLED(CONFIG_PREEMPT_RT);
}

/* ptrace_may_access(@task, @mode) through @fn. Process context. */
static inline bool pmc_ptrace_call(pmc_ptrace_may_access_t fn,
				   struct task_struct *task, unsigned int mode)
{
	u64 cet = 0;
	bool ibt, ok;

	ibt = cpu_feature_enabled(X86_FEATURE_IBT) &&
	      !pmc_ptrace_has_endbr((unsigned long)fn);
	if (!ibt)
		return fn(task, mode);
	/* The MSR is per CPU: stay on this one until it is restored. */
	preempt_disable();
	rdmsrl(MSR_IA32_S_CET, cet);
	wrmsrl(MSR_IA32_S_CET, cet & ~CET_ENDBR_EN);
	ok = fn(task, mode);
	wrmsrl(MSR_IA32_S_CET, cet);
	preempt_enable();
	return ok;
}
#else /* !CONFIG_X86_KERNEL_IBT */
static inline bool pmc_ptrace_callable(unsigned long addr)
{
	return true;
}

static inline bool pmc_ptrace_call(pmc_ptrace_may_access_t fn,
				   struct task_struct *task, unsigned int mode)
{
	return fn(task, mode);
}
#endif /* CONFIG_X86_KERNEL_IBT */

#endif /* _PMC_COMPAT_PTRACE_H */
