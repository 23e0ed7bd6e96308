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
 *    (perf's perf_allow_kernel());
 *  - attaching to another process: what ptrace_may_access() checks for
 *    PTRACE_MODE_READ_REALCREDS, rebuilt from exported pieces (it is not
 *    exported), plus Yama's ptrace_scope; unprivileged_proc_debug=0 limits
 *    callers without CAP_SYS_PTRACE to themselves;
 *  - PMCADMIN: CAP_SYS_ADMIN;
 *  - exec: a target whose exec leaves it undumpable (setuid, setgid, file
 *    capabilities, an unreadable image) is detached unless its owner had
 *    CAP_SYS_PTRACE when it attached. The kernel itself ends every perf
 *    counter of such a task at that exec (fs/exec.c), so a privileged
 *    owner's counters are made anew for the new image.
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
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/string.h>

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

int pmc_sec_allocate(u32 mode, bool counts_kernel, bool *kernel_ok)
{
	bool priv = perfmon_capable();
	int paranoid = priv ? -1 : pmc_perf_event_paranoid();

	if (PMC_IS_SYSTEM_MODE(mode) && !priv &&
	    (!READ_ONCE(pmc_unprivileged_syspmcs) || paranoid > 0)) {
		pr_debug("system-mode PMC refused: no CAP_PERFMON\n");
		return -EPERM;
	}
	*kernel_ok = priv || paranoid <= 1;
	if (counts_kernel && !*kernel_ok) {
		pr_debug("kernel-mode counting refused: perf_event_paranoid > 1\n");
		return -EPERM;
	}
	return 0;
}

/* Is @task a descendant of the caller's process? Under rcu_read_lock(). */
static bool pmc_task_is_descendant(struct task_struct *task)
{
	struct task_struct *t = task;

	while (t->pid > 0) {
		if (same_thread_group(t, current))
			return true;
		t = rcu_dereference(t->real_parent);
	}
	return false;
}

/* Yama's ptrace_scope for a caller without CAP_SYS_PTRACE. */
static bool pmc_yama_allows(struct task_struct *task)
{
	int scope = pmc_read_sysctl("proc/sys/kernel/yama/ptrace_scope", 0);
	bool ok;

	if (scope <= 0)
		return true;
	if (scope >= 2)
		return false;
	rcu_read_lock();
	ok = pmc_task_is_descendant(task);
	rcu_read_unlock();
	return ok;
}

int pmc_sec_may_attach(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	if (same_thread_group(task, current))
		return 0;
	if (!READ_ONCE(pmc_unprivileged_proc_debug) && !capable(CAP_SYS_PTRACE))
		return -EPERM;

	/* __ptrace_may_access(), PTRACE_MODE_READ_REALCREDS. */
	rcu_read_lock();
	tcred = __task_cred(task);
	ok = uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	     uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	     gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
	if (!ok)
		ok = ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!ok)
		return -EPERM;

	task_lock(task);
	mm = task->mm;
	if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
	    !ns_capable(mm->user_ns, CAP_SYS_PTRACE))
		ok = false;
	task_unlock(task);
	if (!ok)
		return -EPERM;

	if (!capable(CAP_SYS_PTRACE) && !pmc_yama_allows(task))
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

	if (bprm->secureexec ||
	    (task->mm && get_dumpable(task->mm) != SUID_DUMP_USER))
		return true;
	rcu_read_lock();
	cred = __task_cred(task);
	changed = !uid_eq(cred->euid, cred->uid) ||
		  !gid_eq(cred->egid, cred->gid);
	rcu_read_unlock();
	return changed;
}
