// SPDX-License-Identifier: GPL-2.0
/*
 * events_test.c - the trace events of pmc(4) DEBUGGING: one event per major
 * under tracefs events/pmc/, recorded only when both the tracefs event and
 * the debugflags minor are on; and, per major, that the driver's operations
 * fire that major's events and, with only that major selected, no others.
 *
 * Majors whose pmc_dbg() call sites are not in the driver sources yet are
 * skipped with that reason, as are scenarios whose ops the driver does not
 * implement yet.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#include "debug_util.h"

#define MAX_EVENTS	4096

static struct trace_ev evs[MAX_EVENTS];

static int setup_tracing(struct __test_metadata *_metadata)
{
	if (geteuid()) {
		SKIP(return -1, "needs root");
	}
	if (!path_exists(PMC_PARAMS "debugflags"))
		SKIP(return -1, "pmc.ko is not loaded or has no debugflags parameter");
	if (!path_exists(PMC_EVENTS "enable"))
		SKIP(return -1, "no %s: tracefs not mounted or no pmc events",
		     PMC_EVENTS);
	file_write(TRACEFS "tracing_on", "1");
	trace_enable(NULL, false);
	param_set("debugflags", "");
	trace_clear();
	return 0;
}

static void teardown_tracing(void)
{
	if (geteuid() || !path_exists(PMC_EVENTS "enable"))
		return;
	param_set("debugflags", "");
	trace_enable(NULL, false);
	file_write(PMC_EVENTS "pmc_module/filter", "0");
	trace_clear();
}

FIXTURE(events) {
	int unused;
};

FIXTURE_SETUP(events)
{
	if (setup_tracing(_metadata))
		return;
}

FIXTURE_TEARDOWN(events)
{
	teardown_tracing();
}

TEST_F(events, one_event_per_major_with_its_fields)
{
	static const char * const fields[] = {
		"field:char minor[16];", "field:u32 id;", "field:s32 pid;",
		"field:s32 cpu;", "field:u64 value;",
	};
	char path[256], fmt[4096];
	glob_t g;

	RETURN_IF_SKIPPED();

	for (size_t i = 0; i < DBG_NMAJOR; i++) {
		snprintf(path, sizeof(path), PMC_EVENTS "pmc_%s/format",
			 dbg_majors[i]);
		ASSERT_LT(0, file_read(path, fmt, sizeof(fmt))) TH_LOG("%s", path);
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			EXPECT_NE(NULL, strstr(fmt, fields[f]))
				TH_LOG("%s lacks %s", path, fields[f]);
		}
	}
	/* Nothing else in events/pmc/ but the group's enable and filter. */
	ASSERT_EQ(0, glob(PMC_EVENTS "*", 0, NULL, &g));
	EXPECT_EQ(DBG_NMAJOR + 2, g.gl_pathc);
	globfree(&g);
}

/* module=config fires in debugflags.c whenever the selection changes. */
TEST_F(events, selected_and_enabled_is_recorded_once_with_its_fields)
{
	int n;

	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, trace_enable("pmc_module", true));
	ASSERT_EQ(0, param_set("debugflags", "module=config"));
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, param_set("debugflags", "module=config"));

	n = trace_collect(evs, MAX_EVENTS);
	ASSERT_EQ(1, n);
	EXPECT_STREQ("pmc_module", evs[0].event);
	EXPECT_STREQ("config", evs[0].minor);
	EXPECT_EQ(0U, evs[0].id);
	EXPECT_EQ(getpid(), evs[0].pid);
	EXPECT_EQ(-1, evs[0].cpu);
	EXPECT_EQ(1ULL << dbg_major_index("module"), evs[0].value);
}

TEST_F(events, not_recorded_while_the_tracefs_event_is_disabled)
{
	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, trace_enable("pmc_module", false));
	ASSERT_EQ(0, param_set("debugflags", "module=*"));
	ASSERT_EQ(0, param_set("debugflags", "module=config"));
	EXPECT_EQ(0, trace_collect(evs, MAX_EVENTS));
}

TEST_F(events, not_recorded_while_the_minor_is_not_selected)
{
	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, trace_enable(NULL, true));
	ASSERT_EQ(0, param_set("debugflags", "module=init,release pmc=*"));
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, param_set("debugflags", "module=init,release pmc=*"));
	EXPECT_EQ(0, trace_collect(evs, MAX_EVENTS));
}

TEST_F(events, not_recorded_after_debugflags_is_emptied)
{
	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, trace_enable(NULL, true));
	ASSERT_EQ(0, param_set("debugflags", "module=*"));
	ASSERT_EQ(0, param_set("debugflags", ""));
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, param_set("debugflags", ""));
	EXPECT_EQ(0, trace_collect(evs, MAX_EVENTS));
}

TEST_F(events, config_value_has_one_bit_per_selected_major)
{
	unsigned long long want = (1ULL << dbg_major_index("csw")) |
				  (1ULL << dbg_major_index("module")) |
				  (1ULL << dbg_major_index("pmc"));

	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, trace_enable("pmc_module", true));
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, param_set("debugflags", "csw=swi pmc=* module=config"));
	ASSERT_EQ(1, trace_collect(evs, MAX_EVENTS));
	EXPECT_EQ(want, evs[0].value);
}

/* The minor is a string field, so tracefs filters can name it. */
TEST_F(events, tracefs_filter_selects_by_minor_name)
{
	RETURN_IF_SKIPPED();

	ASSERT_EQ(0, trace_enable("pmc_module", true));
	ASSERT_EQ(0, file_write(PMC_EVENTS "pmc_module/filter",
				"minor != \"config\""));
	ASSERT_EQ(0, trace_clear());
	ASSERT_EQ(0, param_set("debugflags", "module=*"));
	EXPECT_EQ(0, trace_collect(evs, MAX_EVENTS));

	ASSERT_EQ(0, file_write(PMC_EVENTS "pmc_module/filter",
				"minor == \"config\""));
	ASSERT_EQ(0, param_set("debugflags", "module=*"));
	EXPECT_EQ(1, trace_collect(evs, MAX_EVENTS));
}

/* ------------------------------------------------------ per-major scenarios */

/*
 * What a scenario did, for the checks: the ids and pids its events should
 * carry. A scenario returns NULL, or why it cannot run (it is skipped).
 */
struct scenario {
	unsigned int pmcid;
	pid_t pid;		/* the caller */
	pid_t target;		/* a target process or thread, if any */
	pid_t grandchild;
	int cpu;
	unsigned long long intr_delta;	/* overflows the driver processed */
	char why[160];
};

#define NEEDS(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			snprintf(sc->why, sizeof(sc->why), __VA_ARGS__); \
			goto out;					\
		}							\
	} while (0)

static const char *errname(int err)
{
	return strerror(-err);
}

static void busy_ms(int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/*
 * Open /dev/pmc with a log on an unlinked temporary file: 0, or -1 with the
 * reason in @sc->why. *@fd and *@logfd are -1 or open.
 */
static int open_with_log(struct scenario *sc, int *fd, int *logfd)
{
	struct pmc_op_configurelog cl = { 0 };
	char path[] = "/tmp/pmc-debug-log-XXXXXX";
	int ret;

	*logfd = -1;
	*fd = open(PMC_DEVICE_PATH, O_RDWR);
	NEEDS(*fd >= 0, "cannot open %s: %s", PMC_DEVICE_PATH, strerror(errno));
	*logfd = mkstemp(path);
	NEEDS(*logfd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	cl.pm_logfd = *logfd;
	ret = pmc_op(*fd, PMC_IOC_CONFIGURELOG, &cl);
	NEEDS(!ret, "PMC_OP_CONFIGURELOG: %s", errname(ret));
	return 0;
out:
	return -1;
}

static void close_both(int fd, int logfd)
{
	if (logfd >= 0)
		close(logfd);
	if (fd >= 0)
		close(fd);
}

/* module: a debugflags write (config) and an ioctl (syscall). */
static void scenario_module(struct scenario *sc, const char *flags)
{
	struct pmc_op_getmoduleversion v = { .pm_version = PMC_VERSION };
	int fd;

	param_set("debugflags", flags);
	fd = open(PMC_DEVICE_PATH, O_RDWR);
	NEEDS(fd >= 0, "cannot open %s: %s", PMC_DEVICE_PATH, strerror(errno));
	pmc_op(fd, PMC_IOC_GETMODULEVERSION, &v);
	close(fd);
out:
	return;
}

/* owner, pmc, md: a process-mode counting PMC through its whole life. */
static void scenario_pmc_life(struct scenario *sc, const char *flags)
{
	unsigned long long v = 0;
	long id;
	int fd, ret;

	fd = open(PMC_DEVICE_PATH, O_RDWR);
	NEEDS(fd >= 0, "cannot open %s: %s", PMC_DEVICE_PATH, strerror(errno));
	id = pmc_alloc_soft(fd, PMC_MODE_TC, PMC_CPU_ANY,
			    PERF_COUNT_SW_TASK_CLOCK, 0, 0);
	NEEDS(id >= 0, "PMC_OP_PMCALLOCATE: %s", errname((int)id));
	sc->pmcid = (unsigned int)id;
	ret = pmc_attach(fd, sc->pmcid, 0);
	NEEDS(!ret, "PMC_OP_PMCATTACH: %s", errname(ret));
	ret = pmc_simple(fd, PMC_IOC_PMCSTART, sc->pmcid);
	NEEDS(!ret, "PMC_OP_PMCSTART: %s", errname(ret));
	busy_ms(2);
	ret = pmc_rw(fd, sc->pmcid, PMC_F_OLDVALUE, &v);
	NEEDS(!ret, "PMC_OP_PMCRW read: %s", errname(ret));
	ret = pmc_simple(fd, PMC_IOC_PMCSTOP, sc->pmcid);
	NEEDS(!ret, "PMC_OP_PMCSTOP: %s", errname(ret));
	v = 0;
	ret = pmc_rw(fd, sc->pmcid, PMC_F_NEWVALUE, &v);
	NEEDS(!ret, "PMC_OP_PMCRW write: %s", errname(ret));
	ret = pmc_detach(fd, sc->pmcid, 0);
	NEEDS(!ret, "PMC_OP_PMCDETACH: %s", errname(ret));
	ret = pmc_simple(fd, PMC_IOC_PMCRELEASE, sc->pmcid);
	NEEDS(!ret, "PMC_OP_PMCRELEASE: %s", errname(ret));
out:
	if (fd >= 0)
		close(fd);
}

/*
 * csw: a PMC_F_LOG_PROCCSW PMC (the driver hooks sched_switch only for
 * those) attached to this process, which then sleeps and wakes.
 */
static void scenario_csw(struct scenario *sc, const char *flags)
{
	int fd, logfd, ret;
	long id;

	if (open_with_log(sc, &fd, &logfd))
		goto out;
	id = pmc_alloc_soft(fd, PMC_MODE_TC, PMC_CPU_ANY,
			    PERF_COUNT_SW_TASK_CLOCK, PMC_F_LOG_PROCCSW, 0);
	NEEDS(id >= 0, "PMC_OP_PMCALLOCATE: %s", errname((int)id));
	sc->pmcid = (unsigned int)id;
	sc->target = getpid();
	ret = pmc_attach(fd, sc->pmcid, 0);
	NEEDS(!ret, "PMC_OP_PMCATTACH: %s", errname(ret));
	ret = pmc_simple(fd, PMC_IOC_PMCSTART, sc->pmcid);
	NEEDS(!ret, "PMC_OP_PMCSTART: %s", errname(ret));
	for (int i = 0; i < 10; i++)
		usleep(1000);
	pmc_simple(fd, PMC_IOC_PMCSTOP, sc->pmcid);
	pmc_simple(fd, PMC_IOC_PMCRELEASE, sc->pmcid);
out:
	close_both(fd, logfd);
}

/*
 * process: a child, attached with PMC_F_DESCENDANTS while it waits on a
 * pipe, forks a grandchild that exits, then execs /bin/true.
 */
static void scenario_process(struct scenario *sc, const char *flags)
{
	int go[2] = { -1, -1 }, gc[2] = { -1, -1 };
	pid_t child = -1;
	long id;
	int fd, ret, status;

	fd = open(PMC_DEVICE_PATH, O_RDWR);
	NEEDS(fd >= 0, "cannot open %s: %s", PMC_DEVICE_PATH, strerror(errno));
	id = pmc_alloc_soft(fd, PMC_MODE_TC, PMC_CPU_ANY,
			    PERF_COUNT_SW_TASK_CLOCK, PMC_F_DESCENDANTS, 0);
	NEEDS(id >= 0, "PMC_OP_PMCALLOCATE: %s", errname((int)id));
	sc->pmcid = (unsigned int)id;
	NEEDS(!pipe(go) && !pipe(gc), "pipe: %s", strerror(errno));

	child = fork();
	NEEDS(child >= 0, "fork: %s", strerror(errno));
	if (!child) {
		char c;
		pid_t g;

		close(go[1]);
		close(gc[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		g = fork();
		if (!g)
			_exit(0);
		if (write(gc[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		waitpid(g, NULL, 0);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	go[0] = -1;
	close(gc[1]);
	gc[1] = -1;
	sc->target = child;

	ret = pmc_attach(fd, sc->pmcid, child);
	NEEDS(!ret, "PMC_OP_PMCATTACH: %s", errname(ret));
	ret = pmc_simple(fd, PMC_IOC_PMCSTART, sc->pmcid);
	NEEDS(!ret, "PMC_OP_PMCSTART: %s", errname(ret));
	NEEDS(write(go[1], "g", 1) == 1, "write: %s", strerror(errno));
	NEEDS(read(gc[0], &sc->grandchild, sizeof(sc->grandchild)) ==
	      sizeof(sc->grandchild), "no grandchild pid");
	waitpid(child, &status, 0);
	child = -1;
	pmc_simple(fd, PMC_IOC_PMCSTOP, sc->pmcid);
	pmc_simple(fd, PMC_IOC_PMCRELEASE, sc->pmcid);
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (gc[i] >= 0)
			close(gc[i]);
	}
	if (fd >= 0)
		close(fd);
}

/* cpu: a system-mode PMC on CPU 0. */
static void scenario_cpu(struct scenario *sc, const char *flags)
{
	unsigned long long v = 0;
	long id;
	int fd, ret;

	fd = open(PMC_DEVICE_PATH, O_RDWR);
	NEEDS(fd >= 0, "cannot open %s: %s", PMC_DEVICE_PATH, strerror(errno));
	sc->cpu = 0;
	id = pmc_alloc_soft(fd, PMC_MODE_SC, 0, PERF_COUNT_SW_CPU_CLOCK, 0, 0);
	NEEDS(id >= 0, "PMC_OP_PMCALLOCATE: %s", errname((int)id));
	sc->pmcid = (unsigned int)id;
	ret = pmc_simple(fd, PMC_IOC_PMCSTART, sc->pmcid);
	NEEDS(!ret, "PMC_OP_PMCSTART: %s", errname(ret));
	pmc_rw(fd, sc->pmcid, PMC_F_OLDVALUE, &v);
	pmc_simple(fd, PMC_IOC_PMCSTOP, sc->pmcid);
	pmc_simple(fd, PMC_IOC_PMCRELEASE, sc->pmcid);
out:
	if (fd >= 0)
		close(fd);
}

/* logging: a log on a regular file, a user record, a flush, a close. */
static void scenario_logging(struct scenario *sc, const char *flags)
{
	struct pmc_op_writelog wl = { .pm_userdata = 0x5eed };
	int fd, logfd, ret;

	if (open_with_log(sc, &fd, &logfd))
		goto out;
	ret = pmc_op(fd, PMC_IOC_WRITELOG, &wl);
	NEEDS(!ret, "PMC_OP_WRITELOG: %s", errname(ret));
	ret = pmc_op(fd, PMC_IOC_FLUSHLOG, NULL);
	NEEDS(!ret, "PMC_OP_FLUSHLOG: %s", errname(ret));
	ret = pmc_op(fd, PMC_IOC_CLOSELOG, NULL);
	NEEDS(!ret, "PMC_OP_CLOSELOG: %s", errname(ret));
out:
	close_both(fd, logfd);
}

static int driver_intr_processed(int fd, unsigned long long *v)
{
	struct pmc_op_getdriverstats ds;
	int ret = pmc_op(fd, PMC_IOC_GETDRIVERSTATS, &ds);

	*v = ds.pm_intr_processed;
	return ret;
}

/* sampling: cpu-clock every 1 ms on this process for about 50 ms of CPU. */
static void scenario_sampling(struct scenario *sc, const char *flags)
{
	unsigned long long before = 0, after = 0;
	int fd, logfd, ret;
	long id;

	if (open_with_log(sc, &fd, &logfd))
		goto out;
	id = pmc_alloc_soft(fd, PMC_MODE_TS, PMC_CPU_ANY,
			    PERF_COUNT_SW_CPU_CLOCK, 0, 1000000);
	NEEDS(id >= 0, "PMC_OP_PMCALLOCATE: %s", errname((int)id));
	sc->pmcid = (unsigned int)id;
	ret = pmc_attach(fd, sc->pmcid, 0);
	NEEDS(!ret, "PMC_OP_PMCATTACH: %s", errname(ret));
	NEEDS(!driver_intr_processed(fd, &before), "PMC_OP_GETDRIVERSTATS");
	ret = pmc_simple(fd, PMC_IOC_PMCSTART, sc->pmcid);
	NEEDS(!ret, "PMC_OP_PMCSTART: %s", errname(ret));
	busy_ms(50);
	pmc_simple(fd, PMC_IOC_PMCSTOP, sc->pmcid);
	NEEDS(!driver_intr_processed(fd, &after), "PMC_OP_GETDRIVERSTATS");
	sc->intr_delta = after - before;
	pmc_op(fd, PMC_IOC_FLUSHLOG, NULL);
	pmc_simple(fd, PMC_IOC_PMCRELEASE, sc->pmcid);
out:
	close_both(fd, logfd);
}

/*
 * A major, its scenario, the minors the scenario must fire (each checked
 * only once its call site is in the driver), and a check of one event's
 * fields.
 */
FIXTURE(major) {
	struct scenario sc;
};

FIXTURE_VARIANT(major) {
	const char *major;
	void (*run)(struct scenario *sc, const char *flags);
	const char *minors[10];
	/* Is @ev consistent with what the scenario did? */
	bool (*fields_ok)(const struct scenario *sc, const struct trace_ev *ev);
};

static bool module_fields(const struct scenario *sc, const struct trace_ev *ev)
{
	if (!strcmp(ev->minor, "syscall") || !strcmp(ev->minor, "config"))
		return ev->pid == sc->pid;
	return true;
}

static bool pmc_fields(const struct scenario *sc, const struct trace_ev *ev)
{
	return ev->id == sc->pmcid;
}

static bool owner_fields(const struct scenario *sc, const struct trace_ev *ev)
{
	return ev->pid == sc->pid;
}

static bool csw_fields(const struct scenario *sc, const struct trace_ev *ev)
{
	return ev->pid == sc->target;
}

static bool process_fields(const struct scenario *sc, const struct trace_ev *ev)
{
	if (!strcmp(ev->minor, "fork"))
		return ev->pid == sc->target && ev->value == (unsigned long long)sc->grandchild;
	if (!strcmp(ev->minor, "exec"))
		return ev->pid == sc->target;
	if (!strcmp(ev->minor, "exit"))
		return ev->pid == sc->target || ev->pid == sc->grandchild;
	return true;
}

static bool cpu_fields(const struct scenario *sc, const struct trace_ev *ev)
{
	return ev->cpu == sc->cpu;
}

static bool any_fields(const struct scenario *sc, const struct trace_ev *ev)
{
	return true;
}

static bool sampling_fields(const struct scenario *sc, const struct trace_ev *ev)
{
	return ev->id == sc->pmcid;
}

FIXTURE_VARIANT_ADD(major, module) {
	.major = "module",
	.run = scenario_module,
	.minors = { "config", "syscall" },
	.fields_ok = module_fields,
};

FIXTURE_VARIANT_ADD(major, owner) {
	.major = "owner",
	.run = scenario_pmc_life,
	.minors = { "allocate", "release" },
	.fields_ok = owner_fields,
};

FIXTURE_VARIANT_ADD(major, pmc) {
	.major = "pmc",
	.run = scenario_pmc_life,
	.minors = { "allocate", "attach", "start", "read", "stop", "write",
		    "detach", "release" },
	.fields_ok = pmc_fields,
};

FIXTURE_VARIANT_ADD(major, md) {
	.major = "md",
	.run = scenario_pmc_life,
	.minors = { "allocate", "start", "read", "stop", "release" },
	.fields_ok = pmc_fields,
};

FIXTURE_VARIANT_ADD(major, csw) {
	.major = "csw",
	.run = scenario_csw,
	.minors = { "swi", "swo" },
	.fields_ok = csw_fields,
};

FIXTURE_VARIANT_ADD(major, process) {
	.major = "process",
	.run = scenario_process,
	.minors = { "fork", "exec", "exit", "linktarget", "unlinktarget" },
	.fields_ok = process_fields,
};

FIXTURE_VARIANT_ADD(major, cpu) {
	.major = "cpu",
	.run = scenario_cpu,
	.minors = { "bind" },
	.fields_ok = cpu_fields,
};

FIXTURE_VARIANT_ADD(major, logging) {
	.major = "logging",
	.run = scenario_logging,
	.minors = { "config", "write", "flush", "close" },
	.fields_ok = any_fields,
};

FIXTURE_VARIANT_ADD(major, sampling) {
	.major = "sampling",
	.run = scenario_sampling,
	.minors = { "intr", "sample" },
	.fields_ok = sampling_fields,
};

FIXTURE_SETUP(major)
{
	memset(&self->sc, 0, sizeof(self->sc));
	self->sc.pid = getpid();
	if (setup_tracing(_metadata))
		return;
	if (!dbg_site_present(variant->major, NULL) &&
	    strcmp(variant->major, "module"))
		SKIP(return, "no pmc_dbg() call site for the major %s in driver/ yet",
		     variant->major);
}

FIXTURE_TEARDOWN(major)
{
	teardown_tracing();
}

/*
 * Run the scenario with @flags selected and every pmc event enabled; only
 * events of this major may appear, only minors of @only (if not NULL).
 * Returns the number of events, or -1 if the scenario could not run.
 */
static int run_selected(struct __test_metadata *_metadata,
			const FIXTURE_VARIANT(major) *variant,
			struct scenario *sc, const char *flags, const char *only)
{
	char event[40];
	int n;

	snprintf(event, sizeof(event), "pmc_%s", variant->major);
	ASSERT_EQ(0, param_set("debugflags", flags));
	ASSERT_EQ(0, trace_enable(NULL, true));
	ASSERT_EQ(0, trace_clear());
	memset(sc->why, 0, sizeof(sc->why));
	variant->run(sc, flags);
	trace_enable(NULL, false);
	if (sc->why[0])
		return -1;

	n = trace_collect(evs, MAX_EVENTS);
	ASSERT_LE(0, n);
	for (int i = 0; i < n && i < MAX_EVENTS; i++) {
		EXPECT_STREQ(event, evs[i].event)
			TH_LOG("debugflags \"%s\" recorded %s minor=%s", flags,
			       evs[i].event, evs[i].minor);
		if (only) {
			EXPECT_STREQ(only, evs[i].minor)
				TH_LOG("debugflags \"%s\"", flags);
		}
		EXPECT_TRUE(variant->fields_ok(sc, &evs[i]))
			TH_LOG("%s minor=%s id=0x%x pid=%d cpu=%d value=%llu does not match the scenario (pmc 0x%x, pid %d, target %d)",
			       evs[i].event, evs[i].minor, evs[i].id, evs[i].pid,
			       evs[i].cpu, evs[i].value, sc->pmcid, sc->pid,
			       sc->target);
	}
	return n;
}

TEST_F(major, fires_its_events_and_no_others)
{
	char flags[64], event[40], missing[256] = "";
	const char *first = NULL;
	int n, checked = 0;

	RETURN_IF_SKIPPED();

	snprintf(event, sizeof(event), "pmc_%s", variant->major);
	snprintf(flags, sizeof(flags), "%s=*", variant->major);
	n = run_selected(_metadata, variant, &self->sc, flags, NULL);
	if (n < 0)
		SKIP(return, "%s", self->sc.why);

	for (int m = 0; m < 10 && variant->minors[m]; m++) {
		const char *minor = variant->minors[m];

		if (!dbg_site_present(variant->major, minor) &&
		    !(!strcmp(variant->major, "module") && !strcmp(minor, "config"))) {
			snprintf(missing + strlen(missing),
				 sizeof(missing) - strlen(missing), " %s", minor);
			continue;
		}
		checked++;
		if (!first)
			first = minor;
		EXPECT_LE(1, trace_count(evs, n, event, minor))
			TH_LOG("%s=%s: no event for the scenario", variant->major, minor);
	}
	if (missing[0])
		TH_LOG("%s: no call site yet for:%s", variant->major, missing);
	if (!strcmp(variant->major, "sampling") &&
	    dbg_site_present("sampling", "intr")) {
		EXPECT_EQ(self->sc.intr_delta,
			  (unsigned long long)trace_count(evs, n, event, "intr"))
			TH_LOG("one sampling=intr event per overflow the driver counted");
	}
	if (!checked)
		SKIP(return, "%s: none of the scenario's minors has a call site yet",
		     variant->major);

	/* One minor only: only it. */
	snprintf(flags, sizeof(flags), "%s=%s", variant->major, first);
	n = run_selected(_metadata, variant, &self->sc, flags, first);
	ASSERT_LE(0, n) TH_LOG("%s", self->sc.why);
	EXPECT_LE(1, n);

	/* Another major only: none of these. */
	snprintf(flags, sizeof(flags), "%s=*",
		 strcmp(variant->major, "sampling") ? "sampling" : "module");
	ASSERT_EQ(0, param_set("debugflags", flags));
	ASSERT_EQ(0, trace_enable(NULL, true));
	ASSERT_EQ(0, trace_clear());
	variant->run(&self->sc, flags);
	trace_enable(NULL, false);
	n = trace_collect(evs, MAX_EVENTS);
	EXPECT_EQ(0, trace_count(evs, n < MAX_EVENTS ? n : MAX_EVENTS, event, NULL))
		TH_LOG("debugflags \"%s\" recorded %s events", flags, event);
}

TEST_HARNESS_MAIN
