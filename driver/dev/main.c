// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module load/unload, the tunables, and the /dev/pmc misc device
 * (also /dev/perfmon): open, release, ioctl dispatch, mmap and poll.
 *
 * Every function here runs in process context.
 */
#include "base/pmc_base.h"
#include "debug/pmc_debug.h"
#include "core/pmc_core.h"
#include "log/pmc_log.h"
#include "perfmon/pmc_perfmon.h"

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/poll.h>
#include <linux/compat.h>
#include <linux/log2.h>

/* Defaults of hwpmc(4), checked and reset by pmc_check_tunables(). */
#define PMC_CALLCHAINDEPTH_DEFAULT	8
#define PMC_HASHSIZE_DEFAULT		16
#define PMC_LOGBUFFERSIZE_DEFAULT	256
#define PMC_MINCOUNT_DEFAULT		1000
#define PMC_MTXPOOLSIZE_DEFAULT		32
#define PMC_NBUFFERS_PCPU_DEFAULT	32
#define PMC_NSAMPLES_DEFAULT		512
#define PMC_SOFTEVENTS_DEFAULT		16

int pmc_callchaindepth = PMC_CALLCHAINDEPTH_DEFAULT;
module_param_named(callchaindepth, pmc_callchaindepth, int, 0444);
MODULE_PARM_DESC(callchaindepth, "Maximum frames captured per sample (default 8, max 512)");

int pmc_hashsize = PMC_HASHSIZE_DEFAULT;
module_param_named(hashsize, pmc_hashsize, int, 0444);
MODULE_PARM_DESC(hashsize, "Rows of the owner and target hash tables (default 16)");

int pmc_logbuffersize = PMC_LOGBUFFERSIZE_DEFAULT;
module_param_named(logbuffersize, pmc_logbuffersize, int, 0444);
MODULE_PARM_DESC(logbuffersize, "Size of each log buffer in KiB (default 256, max 16384)");

/*
 * mincount is writable at run time; there it must stay >= 1. A bad value
 * given at load is taken as is and reset by pmc_check_tunables(), as hwpmc
 * resets its tunables.
 */
int pmc_mincount = PMC_MINCOUNT_DEFAULT;
static bool pmc_tunables_checked;
static int pmc_param_set_mincount(const char *val, const struct kernel_param *kp)
{
	int v, ret;

	ret = kstrtoint(val, 0, &v);
	if (ret)
		return ret;
	if (v < 1 && READ_ONCE(pmc_tunables_checked)) {
		pr_info("mincount=%d must be greater than zero\n", v);
		return -EINVAL;
	}
	WRITE_ONCE(pmc_mincount, v);
	return 0;
}

static const struct kernel_param_ops pmc_mincount_ops = {
	.set = pmc_param_set_mincount,
	.get = param_get_int,
};
module_param_cb(mincount, &pmc_mincount_ops, &pmc_mincount, 0644);
MODULE_PARM_DESC(mincount, "Minimum sampling period in events (default 1000, writable)");

/* hwpmc sizes a mutex pool with it; pmc has none: checked, else unused. */
static int pmc_mtxpoolsize = PMC_MTXPOOLSIZE_DEFAULT;
module_param_named(mtxpoolsize, pmc_mtxpoolsize, int, 0444);
MODULE_PARM_DESC(mtxpoolsize, "Accepted for hwpmc compatibility, unused (default 32)");

int pmc_nbuffers_pcpu = PMC_NBUFFERS_PCPU_DEFAULT;
module_param_named(nbuffers_pcpu, pmc_nbuffers_pcpu, int, 0444);
MODULE_PARM_DESC(nbuffers_pcpu, "Log buffers per CPU (default 32; nbuffers_pcpu * logbuffersize <= 32 MiB)");

int pmc_nsamples = PMC_NSAMPLES_DEFAULT;
module_param_named(nsamples, pmc_nsamples, int, 0444);
MODULE_PARM_DESC(nsamples, "Entries of the per-CPU sample ring, a power of two (default 512, max 65535)");

int pmc_softevents = PMC_SOFTEVENTS_DEFAULT;
module_param_named(softevents, pmc_softevents, int, 0444);
MODULE_PARM_DESC(softevents, "Rows of the SOFT class per CPU (default 16, max 64)");

bool pmc_unprivileged_syspmcs;
module_param_named(unprivileged_syspmcs, pmc_unprivileged_syspmcs, bool, 0644);
MODULE_PARM_DESC(unprivileged_syspmcs, "Allow unprivileged users system-scope PMCs (default 0, writable)");

bool pmc_unprivileged_proc_debug = true;
module_param_named(unprivileged_proc_debug, pmc_unprivileged_proc_debug, bool, 0644);
MODULE_PARM_DESC(unprivileged_proc_debug, "Allow unprivileged users to attach to their other processes (default 1, writable)");

struct pmc_stats pmc_stats;

/*
 * Check the tunables as hwpmc(4) does at load, with its DIAGNOSTICS messages,
 * and reset out-of-range values to their defaults.
 */
static void pmc_check_tunables(void)
{
	if (pmc_callchaindepth <= 0 ||
	    pmc_callchaindepth > PMC_CALLCHAIN_DEPTH_MAX) {
		pr_warn("tunable callchaindepth=%d out of range, resetting to %d.\n",
			pmc_callchaindepth, PMC_CALLCHAINDEPTH_DEFAULT);
		pmc_callchaindepth = PMC_CALLCHAINDEPTH_DEFAULT;
	}
	if (pmc_hashsize <= 0) {
		pr_warn("tunable hashsize=%d must be greater than zero.\n",
			pmc_hashsize);
		pmc_hashsize = PMC_HASHSIZE_DEFAULT;
	}
	if (pmc_logbuffersize <= 0 ||
	    pmc_logbuffersize > PMC_LOGBUFFERSIZE_MAX) {
		pr_warn("logbuffersize=%d must be greater than zero and less than or equal to %d, resetting to %d.\n",
			pmc_logbuffersize, PMC_LOGBUFFERSIZE_MAX,
			PMC_LOGBUFFERSIZE_DEFAULT);
		pmc_logbuffersize = PMC_LOGBUFFERSIZE_DEFAULT;
	}
	if (pmc_nbuffers_pcpu <= 0) {
		pr_warn("nbuffers_pcpu=%d must be greater than zero, resetting to %d.\n",
			pmc_nbuffers_pcpu, PMC_NBUFFERS_PCPU_DEFAULT);
		pmc_nbuffers_pcpu = PMC_NBUFFERS_PCPU_DEFAULT;
	}
	if ((u64)pmc_nbuffers_pcpu * pmc_logbuffersize >
	    PMC_PCPU_LOG_LIMIT_MB * 1024) {
		pr_warn("nbuffers_pcpu=%d * logbuffersize=%d exceeds %dMB per CPU limit, resetting to defaults (%d * %d).\n",
			pmc_nbuffers_pcpu, pmc_logbuffersize,
			PMC_PCPU_LOG_LIMIT_MB, PMC_NBUFFERS_PCPU_DEFAULT,
			PMC_LOGBUFFERSIZE_DEFAULT);
		pmc_nbuffers_pcpu = PMC_NBUFFERS_PCPU_DEFAULT;
		pmc_logbuffersize = PMC_LOGBUFFERSIZE_DEFAULT;
	}
	/* The sample ring is indexed with a mask: a power of two is required. */
	if (pmc_nsamples <= 0 || pmc_nsamples > PMC_NSAMPLES_MAX ||
	    !is_power_of_2(pmc_nsamples)) {
		pr_warn("tunable nsamples=%d out of range.\n", pmc_nsamples);
		pmc_nsamples = PMC_NSAMPLES_DEFAULT;
	}
	if (pmc_mincount < 1) {
		pr_warn("tunable mincount=%d must be greater than zero.\n",
			pmc_mincount);
		pmc_mincount = PMC_MINCOUNT_DEFAULT;
	}
	if (pmc_mtxpoolsize <= 0) {
		pr_warn("tunable mtxpoolsize=%d must be greater than zero.\n",
			pmc_mtxpoolsize);
		pmc_mtxpoolsize = PMC_MTXPOOLSIZE_DEFAULT;
	}
	if (pmc_softevents <= 0 || pmc_softevents > PMC_SOFTEVENTS_MAX) {
		pr_warn("tunable softevents=%d out of range, resetting to %d.\n",
			pmc_softevents, PMC_SOFTEVENTS_DEFAULT);
		pmc_softevents = PMC_SOFTEVENTS_DEFAULT;
	}
	WRITE_ONCE(pmc_tunables_checked, true);
}

bool pmc_file_is_opener(const struct pmc_file *pf)
{
	return task_tgid(current) == pf->tgid;
}

/* The hwpmc ops, indexed by op number (= ioctl number). */
static const struct {
	unsigned int cmd;
	pmc_op_fn fn;
} pmc_op_table[] = {
	[PMC_OP_CONFIGURELOG]	 = { PMC_IOC_CONFIGURELOG, pmc_op_configurelog },
	[PMC_OP_FLUSHLOG]	 = { PMC_IOC_FLUSHLOG, pmc_op_flushlog },
	[PMC_OP_GETCPUINFO]	 = { PMC_IOC_GETCPUINFO, pmc_op_getcpuinfo },
	[PMC_OP_GETDRIVERSTATS]	 = { PMC_IOC_GETDRIVERSTATS, pmc_op_getdriverstats },
	[PMC_OP_GETMODULEVERSION] = { PMC_IOC_GETMODULEVERSION, pmc_op_getmoduleversion },
	[PMC_OP_GETPMCINFO]	 = { PMC_IOC_GETPMCINFO, pmc_op_getpmcinfo },
	[PMC_OP_PMCADMIN]	 = { PMC_IOC_PMCADMIN, pmc_op_pmcadmin },
	[PMC_OP_PMCALLOCATE]	 = { PMC_IOC_PMCALLOCATE, pmc_op_pmcallocate },
	[PMC_OP_PMCATTACH]	 = { PMC_IOC_PMCATTACH, pmc_op_pmcattach },
	[PMC_OP_PMCDETACH]	 = { PMC_IOC_PMCDETACH, pmc_op_pmcdetach },
	[PMC_OP_PMCGETMSR]	 = { PMC_IOC_PMCGETMSR, pmc_op_pmcgetmsr },
	[PMC_OP_PMCRELEASE]	 = { PMC_IOC_PMCRELEASE, pmc_op_pmcrelease },
	[PMC_OP_PMCRW]		 = { PMC_IOC_PMCRW, pmc_op_pmcrw },
	[PMC_OP_PMCSETCOUNT]	 = { PMC_IOC_PMCSETCOUNT, pmc_op_pmcsetcount },
	[PMC_OP_PMCSTART]	 = { PMC_IOC_PMCSTART, pmc_op_pmcstart },
	[PMC_OP_PMCSTOP]	 = { PMC_IOC_PMCSTOP, pmc_op_pmcstop },
	[PMC_OP_WRITELOG]	 = { PMC_IOC_WRITELOG, pmc_op_writelog },
	[PMC_OP_CLOSELOG]	 = { PMC_IOC_CLOSELOG, pmc_op_closelog },
	[PMC_OP_GETDYNEVENTINFO] = { PMC_IOC_GETDYNEVENTINFO, pmc_op_getdyneventinfo },
	[PMC_OP_GETCAPS]	 = { PMC_IOC_GETCAPS, pmc_op_getcaps },
	[PMC_OP_PMCREADSET]	 = { PMC_IOC_PMCREADSET, pmc_op_pmcreadset },
};

static long pmc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pmc_file *pf = file->private_data;
	void __user *uarg = (void __user *)arg;
	unsigned int nr = _IOC_NR(cmd);
	long ret;

	atomic64_inc(&pmc_stats.syscalls);
	pmc_dbg(PMC_DBG_MODULE, PMC_DBG_SYSCALL, 0, task_tgid_nr(current), -1,
		nr);

	if (pmc_perfmon_is_cmd(cmd))
		ret = pmc_perfmon_ioctl(pf, cmd, uarg);
	else if (_IOC_TYPE(cmd) == PMC_IOC_MAGIC &&
		 nr < ARRAY_SIZE(pmc_op_table) && pmc_op_table[nr].fn &&
		 pmc_op_table[nr].cmd == cmd)
		ret = pmc_op_table[nr].fn(pf, uarg);
	else
		ret = -ENOTTY;

	if (ret < 0)
		atomic64_inc(&pmc_stats.syscall_errors);
	return ret;
}

#ifdef CONFIG_COMPAT
/* Every argument is a pointer to a layout identical for 32- and 64-bit callers. */
static long pmc_compat_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	return pmc_ioctl(file, cmd, (unsigned long)compat_ptr(arg));
}
#endif /* CONFIG_COMPAT */

static int pmc_open(struct inode *inode, struct file *file)
{
	struct pmc_file *pf;
	int ret;

	pf = kzalloc(sizeof(*pf), GFP_KERNEL);
	if (!pf)
		return -ENOMEM;
	pf->file = file;
	pf->tgid = get_pid(task_tgid(current));
	mutex_init(&pf->lock);

	ret = pmc_core_open_file(pf);
	if (ret)
		goto err_free;
	ret = pmc_perfmon_open(pf);
	if (ret)
		goto err_core;

	file->private_data = pf;
	/*
	 * No .llseek: nonseekable_open() clears FMODE_LSEEK, so lseek() gets
	 * ESPIPE on every kernel (no_llseek is gone since 6.12).
	 */
	return nonseekable_open(inode, file);

err_core:
	pmc_core_release_file(pf);
err_free:
	put_pid(pf->tgid);
	kfree(pf);
	return ret;
}

static int pmc_release(struct inode *inode, struct file *file)
{
	struct pmc_file *pf = file->private_data;

	pmc_core_release_file(pf);
	pmc_perfmon_release(pf);
	put_pid(pf->tgid);
	mutex_destroy(&pf->lock);
	kfree(pf);
	return 0;
}

static int pmc_mmap(struct file *file, struct vm_area_struct *vma)
{
	return pmc_ring_mmap(file->private_data, vma);
}

static __poll_t pmc_poll(struct file *file, struct poll_table_struct *wait)
{
	return pmc_ring_poll(file->private_data, file, wait);
}

static const struct file_operations pmc_fops = {
	.owner		= THIS_MODULE,
	.open		= pmc_open,
	.release	= pmc_release,
	.unlocked_ioctl	= pmc_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= pmc_compat_ioctl,
#endif /* CONFIG_COMPAT */
	.mmap		= pmc_mmap,
	.poll		= pmc_poll,
};

/*
 * /dev/pmc is root:root 0660 when created by devtmpfs; the udev rule in
 * dist/60-pmc.rules hands the group to "pmc". The driver's own checks
 * (pmc(4), SECURITY CONSIDERATIONS) apply within that.
 */
static struct miscdevice pmc_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "pmc",
	.fops	= &pmc_fops,
	.mode	= 0660,
};

/*
 * /dev/perfmon: the same device under perfmon(4)'s name (_PATH_PERFMON),
 * so a FreeBSD perfmon program opens it unchanged. A file opened through
 * either node takes every op; the udev rule sets the same group and mode.
 */
static struct miscdevice pmc_perfmon_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "perfmon",
	.fops	= &pmc_fops,
	.mode	= 0660,
};

static int __init pmc_init(void)
{
	int ret;

	ret = pmc_preflight();
	if (ret)
		return ret;

	pmc_check_tunables();
	pmc_arch_init(&pmc_machine.arch);
	ret = pmc_machine_init();
	if (ret)
		goto err_arch;

	ret = pmc_core_init();
	if (ret)
		goto err_arch;
	ret = pmc_sampling_init();
	if (ret)
		goto err_core;

	ret = misc_register(&pmc_miscdev);
	if (ret) {
		pr_err("cannot register /dev/pmc: %d\n", ret);
		goto err_sampling;
	}
	ret = misc_register(&pmc_perfmon_miscdev);
	if (ret) {
		pr_err("cannot register /dev/perfmon: %d\n", ret);
		goto err_miscdev;
	}
	pmc_debug_init();
	pr_info("version 0x%08x loaded\n", PMC_VERSION);
	return 0;

err_miscdev:
	misc_deregister(&pmc_miscdev);
err_sampling:
	pmc_sampling_exit();
err_core:
	pmc_core_exit();
err_arch:
	pmc_arch_exit();
	return ret;
}

static void __exit pmc_exit(void)
{
	pmc_map_hooks_exit();
	pmc_debug_exit();
	misc_deregister(&pmc_perfmon_miscdev);
	misc_deregister(&pmc_miscdev);
	pmc_sampling_exit();
	pmc_core_exit();
	pmc_arch_exit();
	pr_info("unloaded\n");
}

module_init(pmc_init);
module_exit(pmc_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The pmc authors");
MODULE_DESCRIPTION("hwpmc(4), perfmon(4) and libcpc counters on perf_event");
MODULE_VERSION("1.0.0");
