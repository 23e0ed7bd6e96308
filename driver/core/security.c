// SPDX-License-Identifier: GPL-2.0
/*
 * security.c - who may do what. Kernel counters bypass perf_event_open()'s
 * own checks, so these are the only guard: the driver lets nobody do more
 * than perf_event_open(2) and ptrace(2) would.
 *
 *  - system-scope PMCs: CAP_PERFMON or CAP_SYS_ADMIN, unless the
 *    unprivileged_syspmcs tunable is 1 and kernel.perf_event_paranoid <= 0
 *    (perf's own rule for CPU-wide events, perf_allow_cpu(), which perf
 *    also applies to kernel counters created for an unprivileged caller);
 *  - counting kernel mode: the same, unless kernel.perf_event_paranoid <= 1
 *    (perf's perf_allow_kernel()). A request that names no mode (neither
 *    PMC_CAP_USER nor PMC_CAP_SYSTEM: hwpmc's "no qualifier") counts both
 *    where kernel mode is permitted and user mode only where it is not, as
 *    perf(1) falls back; naming PMC_CAP_SYSTEM is refused there (EPERM);
 *  - attaching to another process: the kernel's own
 *    ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS), so the uid/gid
 *    and dumpable rules and every LSM's hook (Yama's ptrace_scope,
 *    AppArmor, SELinux, Landlock) decide as they do for ptrace(2). It is
 *    not exported: compat/ptrace.h finds it at load. If it cannot be
 *    found, every attach to another process fails closed (EPERM) and the
 *    load logs one line saying so. unprivileged_proc_debug=0 limits
 *    callers without CAP_SYS_PTRACE to themselves;
 *  - PMCADMIN: CAP_SYS_ADMIN;
 *  - exec: a target whose exec changed its credentials or left it
 *    undumpable (setuid, setgid, file capabilities, an LSM transition, an
 *    unreadable image) is detached unless its owner had CAP_SYS_PTRACE
 *    when it attached. A set-id exec the kernel ran with the old
 *    credentials because the task is ptraced changes nothing and keeps
 *    its PMCs. The kernel itself ends every perf counter of a task its
 *    exec makes undumpable (fs/exec.c), so a privileged owner's counters
 *    are made anew for the new image.
 *
 * sysctl_perf_event_paranoid is not exported, nor is any helper that reads
 * it, so the value is read from /proc/sys/kernel/perf_event_paranoid,
 * resolved from init's root (never the caller's, which an unprivileged user
 * can change with a mount namespace). If it cannot be read, the driver
 * assumes 2 (kernel counting needs privilege).
 *
 * Process context only.
 */
#include "pmc_core_priv.h"

#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/string.h>

#include "compat/ptrace.h"

#define PMC_PARANOID_UNREADABLE	2

/*
 * Read an integer sysctl through procfs as seen from init's root. Returns
 * @dflt if the file is absent or unreadable.
 */
static int pmc_read_sysctl(const char *name, int dflt)
{
	struct path root;
	struct file *file;
	char buf[24];
	loff_t pos = 0;
	ssize_t n;
	int val;

	get_fs_root(init_task.fs, &root);
	file = file_open_root(&root, name, O_RDONLY, 0);
	path_put(&root);
	if (IS_ERR(file))
		return dflt;
	n = kernel_read(file, buf, sizeof(buf) - 1, &pos);
	fput(file);
	if (n <= 0)
		return dflt;
	buf[n] = '\0';
	if (kstrtoint(strim(buf), 10, &val))
		return dflt;
	return val;
}

static int pmc_perf_event_paranoid(void)
{
	return pmc_read_sysctl("proc/sys/kernel/perf_event_paranoid",
			       PMC_PARANOID_UNREADABLE);
}

void pmc_sec_caller_get(struct pmc_sec_caller *sc)
{
	sc->priv = perfmon_capable();
	sc->paranoid = sc->priv ? -1 : pmc_perf_event_paranoid();
}

bool pmc_sec_kernel_ok(const struct pmc_sec_caller *sc)
{
	return sc->priv || sc->paranoid <= 1;
}

int pmc_sec_allocate(const struct pmc_sec_caller *sc, u32 mode,
		     bool counts_kernel)
{
	if (PMC_IS_SYSTEM_MODE(mode) && !sc->priv &&
	    (!READ_ONCE(pmc_unprivileged_syspmcs) || sc->paranoid > 0)) {
		pr_debug("system-mode PMC refused: no CAP_PERFMON\n");
		return -EPERM;
	}
	if (counts_kernel && !pmc_sec_kernel_ok(sc)) {
		pr_debug("kernel-mode counting refused: perf_event_paranoid > 1\n");
		return -EPERM;
	}
	return 0;
}

/* ptrace_may_access(), or NULL: attaching to others fails closed. */
static pmc_ptrace_may_access_t pmc_ptrace_may_access;

/*
 * Testing only: 1 loads the module as on a kernel where the lookup of
 * ptrace_may_access() fails, to test the refusal (porting/ptrace_refused).
 * A flag, not a symbol name: the driver calls what it finds.
 */
static bool pmc_ptrace_test_unfound;
module_param_named(test_ptrace_unfound, pmc_ptrace_test_unfound, bool, 0444);
MODULE_PARM_DESC(test_ptrace_unfound,
		 "Testing only: 1 = act as if ptrace_may_access() were not found");

void pmc_sec_init(void)
{
	unsigned long addr = pmc_ptrace_test_unfound ? 0 :
			     pmc_ksym_lookup(PMC_PTRACE_SYMBOL);

	if (!addr || !pmc_ptrace_callable(addr)) {
		pr_warn("%s() %s: attaching PMCs to other processes is refused (EPERM)\n",
			PMC_PTRACE_SYMBOL,
			addr ? "cannot be called on this kernel (IBT, PREEMPT_RT)" :
			       "not found");
		return;
	}
	pmc_ptrace_may_access = (pmc_ptrace_may_access_t)addr;
}

int pmc_sec_may_attach(struct task_struct *task)
{
	if (same_thread_group(task, current))
		return 0;
	if (!READ_ONCE(pmc_unprivileged_proc_debug) && !capable(CAP_SYS_PTRACE))
		return -EPERM;
	if (!pmc_ptrace_may_access)
		return -EPERM;
	if (!pmc_ptrace_call(pmc_ptrace_may_access, task,
			     PTRACE_MODE_READ_REALCREDS))
		return -EPERM;
	return 0;
}

/* May the caller's PMCs follow a target through a setuid/setgid exec? */
bool pmc_sec_owner_privileged(void)
{
	return ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE);
}

int pmc_sec_admin(void)
{
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

/*
 * Did the exec @task just did (sched_process_exec probe: the new creds are
 * committed, the new mm installed) raise its privileges or make it
 * undumpable: setuid, setgid, file capabilities, an unreadable image?
 * Any context.
 */
bool pmc_sec_exec_changes_creds(struct task_struct *task,
				struct linux_binprm *bprm)
{
	const struct cred *cred;
	bool changed;

	/*
	 * commit_creds() leaves the task undumpable when the exec raised its
	 * euid, egid, fsuid, fsgid or permitted capabilities, and exec does
	 * when the image is unreadable.
	 */
	if (task->mm && get_dumpable(task->mm) != SUID_DUMP_USER)
		return true;
	/*
	 * secureexec also flags a set-id exec the kernel ran with the old
	 * credentials because the task is ptraced (commoncap computes it
	 * before the downgrade): nothing changed then. Any other secureexec
	 * (an LSM's domain transition) changed the credentials.
	 */
	if (bprm->secureexec && !(bprm->unsafe & LSM_UNSAFE_PTRACE))
		return true;
	rcu_read_lock();
	cred = __task_cred(task);
	changed = !uid_eq(cred->euid, cred->uid) ||
		  !gid_eq(cred->egid, cred->gid);
	rcu_read_unlock();
	return changed;
}
