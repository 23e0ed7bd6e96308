// SPDX-License-Identifier: GPL-2.0
/*
 * debugflags.c - hwpmc's debugflags tunable over trace events: parses the
 * writable module parameter debugflags ("pmc=allocate,release csw=*"),
 * keeps the per-major selection that pmc_dbg() tests, and emits the
 * selected points as the trace events of trace.h.
 *
 * The parameter callbacks run in process context; pmc_dbg_emit() runs in
 * any context, NMI included.
 */
#include <pmc/hwpmc.h>

#include "pmc_debug.h"
#include "trace.h"

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/string.h>

static const char * const pmc_dbg_major_names[PMC_DBG_NMAJOR] = {
	[PMC_DBG_CPU] = "cpu",
	[PMC_DBG_CSW] = "csw",
	[PMC_DBG_LOGGING] = "logging",
	[PMC_DBG_MD] = "md",
	[PMC_DBG_MODULE] = "module",
	[PMC_DBG_OWNER] = "owner",
	[PMC_DBG_PMC] = "pmc",
	[PMC_DBG_PROCESS] = "process",
	[PMC_DBG_SAMPLING] = "sampling",
};

static const char * const pmc_dbg_minor_names[PMC_DBG_NMINOR] = {
	[PMC_DBG_ALLOCATEROW] = "allocaterow",
	[PMC_DBG_ALLOCATE] = "allocate",
	[PMC_DBG_ATTACH] = "attach",
	[PMC_DBG_BIND] = "bind",
	[PMC_DBG_CLOSE] = "close",
	[PMC_DBG_CONFIG] = "config",
	[PMC_DBG_DETACH] = "detach",
	[PMC_DBG_EXEC] = "exec",
	[PMC_DBG_EXIT] = "exit",
	[PMC_DBG_FIND] = "find",
	[PMC_DBG_FLUSH] = "flush",
	[PMC_DBG_FORK] = "fork",
	[PMC_DBG_GETBUF] = "getbuf",
	[PMC_DBG_HOOK] = "hook",
	[PMC_DBG_INIT] = "init",
	[PMC_DBG_INTR] = "intr",
	[PMC_DBG_LINKTARGET] = "linktarget",
	[PMC_DBG_MAYBEREMOVE] = "mayberemove",
	[PMC_DBG_OPS] = "ops",
	[PMC_DBG_READ] = "read",
	[PMC_DBG_REGISTER] = "register",
	[PMC_DBG_RELEASE] = "release",
	[PMC_DBG_REMOVE] = "remove",
	[PMC_DBG_SAMPLE] = "sample",
	[PMC_DBG_SCHEDULEIO] = "scheduleio",
	[PMC_DBG_SELECT] = "select",
	[PMC_DBG_SIGNAL] = "signal",
	[PMC_DBG_SWI] = "swi",
	[PMC_DBG_SWO] = "swo",
	[PMC_DBG_START] = "start",
	[PMC_DBG_STOP] = "stop",
	[PMC_DBG_SYSCALL] = "syscall",
	[PMC_DBG_UNLINKTARGET] = "unlinktarget",
	[PMC_DBG_WRITE] = "write",
};

DEFINE_STATIC_KEY_ARRAY_FALSE(pmc_dbg_keys, PMC_DBG_NMAJOR);

/*
 * The selected minors of each major (bit n = minor n). Written under
 * pmc_dbg_lock, read locklessly (READ_ONCE) by pmc_dbg_emit() from any
 * context: a reader racing a write sees the old or the new mask of a major.
 */
static u64 pmc_dbg_masks[PMC_DBG_NMAJOR];

/*
 * Serialises writers of debugflags (the sysfs store and the load-time
 * parameter): the masks and the static keys change together under it.
 * Process context only.
 */
static DEFINE_MUTEX(pmc_dbg_lock);

static bool pmc_dbg_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Index of the name @s[0..len) in @names, or -1. */
static int pmc_dbg_lookup(const char * const *names, int n, const char *s,
			  size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], s, len))
			return i;
	return -1;
}

/*
 * Parse one "major=minor,minor" group @s[0..len) into @masks. '*' selects
 * every minor, an empty list none; a major given twice keeps its last list,
 * as in hwpmc. Returns 0 or -EINVAL after a warning naming the bad token.
 */
static int pmc_dbg_parse_group(const char *s, size_t len, u64 *masks)
{
	const char *eq = memchr(s, '=', len);
	const char *p, *comma, *end = s + len;
	u64 mask = 0;
	int major;

	if (!eq) {
		pr_warn("debugflags: \"%.*s\" is not major=minor[,minor...]\n",
			(int)len, s);
		return -EINVAL;
	}
	major = pmc_dbg_lookup(pmc_dbg_major_names, PMC_DBG_NMAJOR, s, eq - s);
	if (major < 0) {
		pr_warn("debugflags: unknown major \"%.*s\"\n",
			(int)(eq - s), s);
		return -EINVAL;
	}

	/* An empty list selects nothing; an empty name in a list is refused. */
	for (p = eq + 1; p < end; p = comma + 1) {
		size_t n;
		int minor;

		comma = memchr(p, ',', end - p);
		n = (comma ? comma : end) - p;

		if (!n || (comma && comma + 1 == end)) {
			pr_warn("debugflags: empty minor in \"%.*s\"\n",
				(int)len, s);
			return -EINVAL;
		}
		if (n == 1 && *p == '*') {
			mask = PMC_DBG_ALL_MINORS;
		} else {
			minor = pmc_dbg_lookup(pmc_dbg_minor_names,
					       PMC_DBG_NMINOR, p, n);
			if (minor < 0) {
				pr_warn("debugflags: unknown minor \"%.*s\" in %s\n",
					(int)n, p, pmc_dbg_major_names[major]);
				return -EINVAL;
			}
			mask |= BIT_ULL(minor);
		}
		if (!comma)
			break;
	}
	masks[major] = mask;
	return 0;
}

/* Parse a whole debugflags string: groups separated by blanks. */
static int pmc_dbg_parse(const char *val, u64 *masks)
{
	const char *p = val;
	int ret;

	while (*p) {
		const char *start;

		while (pmc_dbg_is_blank(*p))
			p++;
		if (!*p)
			break;
		start = p;
		while (*p && !pmc_dbg_is_blank(*p))
			p++;
		ret = pmc_dbg_parse_group(start, p - start, masks);
		if (ret)
			return ret;
	}
	return 0;
}

/* Bit n set when major n has a minor selected: the value of module=config. */
static u64 pmc_dbg_majors_on(void)
{
	u64 on = 0;
	int i;

	for (i = 0; i < PMC_DBG_NMAJOR; i++)
		if (pmc_dbg_masks[i])
			on |= BIT_ULL(i);
	return on;
}

static int pmc_debugflags_set(const char *val, const struct kernel_param *kp)
{
	u64 masks[PMC_DBG_NMAJOR] = { 0 };
	int i, ret;

	ret = pmc_dbg_parse(val, masks);
	if (ret)
		return ret;

	mutex_lock(&pmc_dbg_lock);
	for (i = 0; i < PMC_DBG_NMAJOR; i++) {
		/* Mask before key on enable, key before mask on disable. */
		if (masks[i]) {
			WRITE_ONCE(pmc_dbg_masks[i], masks[i]);
			static_branch_enable(&pmc_dbg_keys[i]);
		} else {
			static_branch_disable(&pmc_dbg_keys[i]);
			WRITE_ONCE(pmc_dbg_masks[i], 0);
		}
	}
	pmc_dbg(PMC_DBG_MODULE, PMC_DBG_CONFIG, 0, task_tgid_nr(current), -1,
		pmc_dbg_majors_on());
	mutex_unlock(&pmc_dbg_lock);
	return 0;
}

/* The normalised selection: majors and minors in canonical order. */
static int pmc_debugflags_get(char *buf, const struct kernel_param *kp)
{
	int len = 0, i, j;

	mutex_lock(&pmc_dbg_lock);
	for (i = 0; i < PMC_DBG_NMAJOR; i++) {
		u64 mask = pmc_dbg_masks[i];
		const char *sep = "=";

		if (!mask)
			continue;
		len += scnprintf(buf + len, PAGE_SIZE - len, "%s%s",
				 len ? " " : "", pmc_dbg_major_names[i]);
		if (mask == PMC_DBG_ALL_MINORS) {
			len += scnprintf(buf + len, PAGE_SIZE - len, "=*");
			continue;
		}
		for (j = 0; j < PMC_DBG_NMINOR; j++) {
			if (!(mask & BIT_ULL(j)))
				continue;
			len += scnprintf(buf + len, PAGE_SIZE - len, "%s%s",
					 sep, pmc_dbg_minor_names[j]);
			sep = ",";
		}
	}
	mutex_unlock(&pmc_dbg_lock);
	len += scnprintf(buf + len, PAGE_SIZE - len, "\n");
	return len;
}

static const struct kernel_param_ops pmc_debugflags_ops = {
	.set = pmc_debugflags_set,
	.get = pmc_debugflags_get,
};
module_param_cb(debugflags, &pmc_debugflags_ops, NULL, 0644);
MODULE_PARM_DESC(debugflags,
		 "Trace points to record, hwpmc syntax: \"pmc=allocate,release csw=*\" (default \"\", writable; see pmc(4) DEBUGGING)");

bool pmc_dbg_selected(enum pmc_dbg_major major, enum pmc_dbg_minor minor)
{
	if (major >= PMC_DBG_NMAJOR || minor >= PMC_DBG_NMINOR)
		return false;
	return READ_ONCE(pmc_dbg_masks[major]) & BIT_ULL(minor);
}

/*
 * Any context, NMI included: reads one mask and calls a trace event, which
 * records only while it is enabled in tracefs.
 */
void pmc_dbg_emit(enum pmc_dbg_major major, enum pmc_dbg_minor minor,
		  u32 id, s32 pid, s32 cpu, u64 value)
{
	const char *name;

	if (!pmc_dbg_selected(major, minor))
		return;
	name = pmc_dbg_minor_names[minor];

	switch (major) {
	case PMC_DBG_CPU:
		trace_pmc_cpu(name, id, pid, cpu, value);
		break;
	case PMC_DBG_CSW:
		trace_pmc_csw(name, id, pid, cpu, value);
		break;
	case PMC_DBG_LOGGING:
		trace_pmc_logging(name, id, pid, cpu, value);
		break;
	case PMC_DBG_MD:
		trace_pmc_md(name, id, pid, cpu, value);
		break;
	case PMC_DBG_MODULE:
		trace_pmc_module(name, id, pid, cpu, value);
		break;
	case PMC_DBG_OWNER:
		trace_pmc_owner(name, id, pid, cpu, value);
		break;
	case PMC_DBG_PMC:
		trace_pmc_pmc(name, id, pid, cpu, value);
		break;
	case PMC_DBG_PROCESS:
		trace_pmc_process(name, id, pid, cpu, value);
		break;
	case PMC_DBG_SAMPLING:
		trace_pmc_sampling(name, id, pid, cpu, value);
		break;
	case PMC_DBG_NMAJOR:
		break;
	}
}

/* Process context, at the end of pmc_init(): module=init, value = ABI version. */
int pmc_debug_init(void)
{
	pmc_dbg(PMC_DBG_MODULE, PMC_DBG_INIT, 0, task_tgid_nr(current), -1,
		PMC_VERSION);
	return 0;
}

/* Process context, first thing in pmc_exit(): module=release. */
void pmc_debug_exit(void)
{
	pmc_dbg(PMC_DBG_MODULE, PMC_DBG_RELEASE, 0, task_tgid_nr(current), -1,
		PMC_VERSION);
}
