// SPDX-License-Identifier: GPL-2.0
/*
 * maps_test.c - MAP_IN and MAP_OUT for the executable file mappings a
 * sampled process makes and removes after attach: dlopen()/dlclose() of a
 * shared object and mmap()/munmap() with PROT_EXEC give records with the
 * path and the exact ranges /proc/PID/maps shows; a process that is not
 * sampled (or only counted) gives none.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <sys/mount.h>

#include "kselftest_harness.h"

#include "sampling.h"

/* Shared objects the test binary does not map; the first found is used. */
static const char *const lib_names[] = {
	"libz.so.1", "libm.so.6", "libcrypt.so.1", "libgmp.so.10",
};

#define MAXMAPS		256

SMP_RING_FIXTURE(maps, 256);

/* A shared object this process has not loaded and can dlopen(), or NULL. */
static const char *pick_lib(void)
{
	size_t k;

	for (k = 0; k < SMP_ARRAY_SIZE(lib_names); k++) {
		void *h = dlopen(lib_names[k], RTLD_NOW | RTLD_NOLOAD);

		if (h) {
			dlclose(h);
			continue;
		}
		h = dlopen(lib_names[k], RTLD_LAZY | RTLD_LOCAL);
		if (!h)
			continue;
		dlclose(h);
		return lib_names[k];
	}
	return NULL;
}

/* Is @l an executable file mapping absent from @old[0..n)? */
static bool new_exec_map(const struct smp_map_line *l, const struct smp_map_line *old,
			 int n)
{
	int i;

	if (l->perms[2] != 'x' || l->path[0] != '/')
		return false;
	for (i = 0; i < n; i++)
		if (old[i].start == l->start && old[i].end == l->end &&
		    !strcmp(old[i].path, l->path))
			return false;
	return true;
}

/*
 * A child that obeys one-byte commands on @cmd and answers each on @rep
 * with its result (a uint64_t): 'd' dlopen(@lib), 'c' dlclose it, 'm' mmap
 * three pages of its executable PROT_READ|PROT_EXEC (the address), 'r' mmap
 * them PROT_READ only, 'u' munmap the middle page of the last mapping, 'U'
 * munmap it all, 'q' exit.
 */
static void child_loop(int cmd, int rep, const char *lib, long ps)
{
	void *h = NULL;
	char *p = NULL;
	uint64_t res;
	int fd = open("/proc/self/exe", O_RDONLY);
	char c;

	while (read(cmd, &c, 1) == 1) {
		res = 0;
		switch (c) {
		case 'd':
			h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
			res = !!h;
			break;
		case 'c':
			res = h && !dlclose(h);
			break;
		case 'm':
		case 'r':
			p = mmap(NULL, 3 * ps, PROT_READ |
				 (c == 'm' ? PROT_EXEC : 0), MAP_PRIVATE,
				 fd, 0);
			res = p == MAP_FAILED ? 0 : (uintptr_t)p;
			break;
		case 'u':
			res = !munmap(p + ps, ps);
			break;
		case 'U':
			res = !munmap(p, 3 * ps);
			break;
		case 'q':
			_exit(0);
		}
		if (write(rep, &res, sizeof(res)) != sizeof(res))
			_exit(2);
	}
	_exit(1);
}

struct kid {
	pid_t pid;
	int cmd, rep;
};

static int kid_start(struct kid *k, const char *lib, long ps)
{
	int a[2], b[2];

	if (pipe(a) || pipe(b))
		return -1;
	k->pid = fork();
	if (k->pid < 0)
		return -1;
	if (k->pid == 0) {
		close(a[1]);
		close(b[0]);
		child_loop(a[0], b[1], lib, ps);
	}
	close(a[0]);
	close(b[1]);
	k->cmd = a[1];
	k->rep = b[0];
	return 0;
}

/* Run command @c in the child: its result, or ~0 if it is gone. */
static uint64_t kid_do(struct kid *k, char c)
{
	uint64_t res = ~0ull;

	if (write(k->cmd, &c, 1) != 1 ||
	    read(k->rep, &res, sizeof(res)) != sizeof(res))
		return ~0ull;
	return res;
}

static void kid_stop(struct kid *k)
{
	int st;

	kid_do(k, 'q');
	close(k->cmd);
	close(k->rep);
	waitpid(k->pid, &st, 0);
}

/* A process-sampling cpu-clock PMC (the period is never reached). */
static int64_t alloc_ts(int fd)
{
	return smp_alloc_soft(fd, PMC_MODE_TS, PMC_CPU_ANY,
			      PERF_COUNT_SW_CPU_CLOCK, 1000000000ull, 0);
}

/* The owner's records so far, checked; 0 or -1. */
static int collect(int fd, struct smp_ring *r, struct smp_buf *b,
		   struct smp_stream_info *si)
{
	if (smp_flushlog(fd))
		return -1;
	smp_ring_drain(r, b);
	return smp_check_stream(b, si) ? 0 : -1;
}

/* Records of @type for @pid in [@from, end of @b). */
static size_t count_recs(const struct smp_buf *b, size_t from, unsigned int type,
			 pid_t pid)
{
	const struct pmclog_header *h;
	size_t off, n = 0;

	smp_for_each_rec(h, b, off) {
		const struct pmclog_map_out *m = (const void *)h;

		if (off >= from && smp_rec_type(h) == type && m->pl_pid == pid)
			n++;
	}
	return n;
}

/*
 * Offset of the MAP_IN or MAP_OUT of @pid for the range [start, end), or
 * -1: a MAP_OUT has exactly that range; a MAP_IN starts there and may end
 * later. A MAP_IN gives the mapping as mmap(2) made it, and the dynamic
 * loader may then narrow its executable part: where the object's first
 * segment is its text (arm64's layout; x86's has a read-only one first),
 * ld.so maps the whole object with the text's protection, maps the data
 * over its end (a MAP_OUT) and makes the hole between them PROT_NONE
 * (mprotect(2), which no record follows; docs/log-format.md).
 */
static ssize_t find_rec(const struct smp_buf *b, size_t from, unsigned int type,
			pid_t pid, uint64_t start, uint64_t end)
{
	const struct pmclog_header *h;
	size_t off;

	smp_for_each_rec(h, b, off) {
		const struct pmclog_map_out *m = (const void *)h;

		if (off >= from && smp_rec_type(h) == type &&
		    m->pl_pid == pid && m->pl_start == start &&
		    (type == PMCLOG_TYPE_MAP_IN ? m->pl_end >= end :
						  m->pl_end == end))
			return off;
	}
	return -1;
}

/*
 * dlopen() in a sampled process: one MAP_IN for each executable mapping of
 * the object, with its path, range and offset as /proc/PID/maps shows;
 * dlclose(): one MAP_OUT with each of those ranges, after the MAP_IN. A
 * second child, only counted by a TC PMC of the same owner, doing the same
 * gives none.
 */
TEST_F(maps, dlopen_map_in_dlclose_map_out)
{
	static struct smp_map_line m[MAXMAPS], m0[MAXMAPS];
	const char *lib = pick_lib();
	struct smp_stream_info si;
	struct smp_buf b = {};
	struct kid k, other, free_kid;
	size_t nx = 0, mark, closing;
	int64_t ts, tc;
	int n, n0, i;

	RETURN_IF_SKIPPED();
	if (!lib)
		SKIP(return, "no shared object left to dlopen");
	ASSERT_EQ(0, kid_start(&k, lib, self->ps));
	ASSERT_EQ(0, kid_start(&other, lib, self->ps));
	ASSERT_EQ(0, kid_start(&free_kid, lib, self->ps));
	ts = alloc_ts(self->fd);
	ASSERT_LE(0, ts);
	tc = smp_alloc_tc(self->fd, PERF_COUNT_SW_PAGE_FAULTS, 0, 0, 0, 0);
	ASSERT_LE(0, tc);
	ASSERT_EQ(0, smp_attach(self->fd, ts, k.pid));
	ASSERT_EQ(0, smp_attach(self->fd, tc, other.pid));
	ASSERT_EQ(0, collect(self->fd, &self->r, &b, &si));
	mark = b.len;			/* after the MAP_IN of the attach */

	n0 = smp_read_maps(k.pid, m0, MAXMAPS);
	ASSERT_LT(0, n0);
	ASSERT_EQ(1, kid_do(&k, 'd'));
	ASSERT_EQ(1, kid_do(&other, 'd'));
	ASSERT_EQ(1, kid_do(&free_kid, 'd'));
	n = smp_read_maps(k.pid, m, MAXMAPS);
	ASSERT_LT(0, n);
	ASSERT_EQ(0, collect(self->fd, &self->r, &b, &si))
		TH_LOG("%s", si.error);
	EXPECT_EQ(0, si.seq_gaps);
	for (i = 0; i < n; i++) {
		const struct pmclog_map_in *mi;
		ssize_t off;

		if (!new_exec_map(&m[i], m0, n0))
			continue;
		nx++;
		off = find_rec(&b, mark, PMCLOG_TYPE_MAP_IN, k.pid,
			       m[i].start, m[i].end);
		ASSERT_LE(0, off) TH_LOG("no MAP_IN %" PRIx64 "-%" PRIx64 " %s",
					 m[i].start, m[i].end, m[i].path);
		mi = (const void *)(b.data + off);
		EXPECT_EQ(m[i].off, mi->pl_pgoff);
		EXPECT_STREQ(m[i].path, mi->pl_pathname);
	}
	ASSERT_LT(0, nx);
	EXPECT_EQ(nx, count_recs(&b, mark, PMCLOG_TYPE_MAP_IN, k.pid));
	EXPECT_EQ(0, count_recs(&b, mark, PMCLOG_TYPE_MAP_IN, other.pid));

	closing = b.len;		/* the dlopen's own MAP_OUTs are before */
	ASSERT_EQ(1, kid_do(&k, 'c'));
	ASSERT_EQ(1, kid_do(&other, 'c'));
	ASSERT_EQ(1, kid_do(&free_kid, 'c'));
	ASSERT_EQ(0, collect(self->fd, &self->r, &b, &si))
		TH_LOG("%s", si.error);
	for (i = 0; i < n; i++) {
		ssize_t in, out;

		if (!new_exec_map(&m[i], m0, n0))
			continue;
		in = find_rec(&b, mark, PMCLOG_TYPE_MAP_IN, k.pid,
			      m[i].start, m[i].end);
		out = find_rec(&b, closing, PMCLOG_TYPE_MAP_OUT, k.pid,
			       m[i].start, m[i].end);
		ASSERT_LE(0, out) TH_LOG("no MAP_OUT %" PRIx64 "-%" PRIx64,
					 m[i].start, m[i].end);
		EXPECT_LT(in, out);
	}
	EXPECT_EQ(nx, count_recs(&b, closing, PMCLOG_TYPE_MAP_OUT, k.pid));
	EXPECT_EQ(0, count_recs(&b, mark, PMCLOG_TYPE_MAP_OUT, other.pid));
	EXPECT_EQ(0, count_recs(&b, 0, PMCLOG_TYPE_MAP_IN, free_kid.pid));
	EXPECT_EQ(0, count_recs(&b, 0, PMCLOG_TYPE_MAP_OUT, free_kid.pid));
	TH_LOG("%s: %zu executable mapping(s), MAP_IN and MAP_OUT each", lib,
	       nx);

	kid_stop(&k);
	kid_stop(&other);
	kid_stop(&free_kid);
	smp_buf_free(&b);
}

/*
 * mmap() of a file with PROT_EXEC: MAP_IN of the whole range at offset 0;
 * without PROT_EXEC: nothing. munmap() of the middle page: MAP_OUT of that
 * page; of the rest: MAP_OUT of each remaining page.
 */
TEST_F(maps, mmap_exec_and_partial_munmap)
{
	struct smp_stream_info si;
	const struct pmclog_map_in *mi;
	struct smp_buf b = {};
	uint64_t p, ps = self->ps;
	char exe[PATH_MAX];
	ssize_t off, len;
	size_t mark;
	struct kid k;
	int64_t ts;

	RETURN_IF_SKIPPED();
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, len);
	exe[len] = '\0';
	ASSERT_EQ(0, kid_start(&k, NULL, self->ps));
	ts = alloc_ts(self->fd);
	ASSERT_LE(0, ts);
	ASSERT_EQ(0, smp_attach(self->fd, ts, k.pid));
	ASSERT_EQ(0, collect(self->fd, &self->r, &b, &si));
	mark = b.len;

	/* Not executable: no record, and its unmapping none either. */
	p = kid_do(&k, 'r');
	ASSERT_NE(0, p);
	ASSERT_EQ(1, kid_do(&k, 'U'));
	ASSERT_EQ(0, collect(self->fd, &self->r, &b, &si));
	EXPECT_EQ(0, count_recs(&b, mark, PMCLOG_TYPE_MAP_IN, k.pid));
	EXPECT_EQ(0, count_recs(&b, mark, PMCLOG_TYPE_MAP_OUT, k.pid));

	p = kid_do(&k, 'm');
	ASSERT_NE(0, p);
	ASSERT_EQ(0, collect(self->fd, &self->r, &b, &si));
	EXPECT_EQ(1, count_recs(&b, mark, PMCLOG_TYPE_MAP_IN, k.pid));
	off = find_rec(&b, mark, PMCLOG_TYPE_MAP_IN, k.pid, p, p + 3 * ps);
	ASSERT_LE(0, off);
	mi = (const void *)(b.data + off);
	EXPECT_EQ(0, mi->pl_pgoff);
	EXPECT_STREQ(exe, mi->pl_pathname);

	ASSERT_EQ(1, kid_do(&k, 'u'));
	ASSERT_EQ(0, collect(self->fd, &self->r, &b, &si));
	EXPECT_EQ(1, count_recs(&b, mark, PMCLOG_TYPE_MAP_OUT, k.pid));
	EXPECT_LE(0, find_rec(&b, mark, PMCLOG_TYPE_MAP_OUT, k.pid, p + ps,
			      p + 2 * ps));

	ASSERT_EQ(1, kid_do(&k, 'U'));
	ASSERT_EQ(0, collect(self->fd, &self->r, &b, &si));
	EXPECT_EQ(3, count_recs(&b, mark, PMCLOG_TYPE_MAP_OUT, k.pid));
	EXPECT_LE(0, find_rec(&b, mark, PMCLOG_TYPE_MAP_OUT, k.pid, p, p + ps));
	EXPECT_LE(0, find_rec(&b, mark, PMCLOG_TYPE_MAP_OUT, k.pid, p + 2 * ps,
			      p + 3 * ps));
	EXPECT_EQ(1, count_recs(&b, mark, PMCLOG_TYPE_MAP_IN, k.pid));
	EXPECT_EQ(0, si.seq_gaps);

	kid_stop(&k);
	smp_buf_free(&b);
}

#define KPROBE_LIST	"/sys/kernel/debug/kprobes/list"

/* Lines of the kprobe list naming the driver's probe points, or -1. */
static int probe_lines(void)
{
	char line[512];
	FILE *f = fopen(KPROBE_LIST, "r");
	int n = 0;

	if (!f && !mount("none", "/sys/kernel/debug", "debugfs", 0, NULL))
		f = fopen(KPROBE_LIST, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " perf_event_mmap+") ||
		    strstr(line, " do_mas_munmap+") ||
		    strstr(line, " do_vmi_munmap+"))
			n++;
	fclose(f);
	return n;
}

/*
 * The probes exist while an owner samples a process and are gone a few
 * seconds (the linger time) after the owner closes /dev/pmc.
 */
TEST_F(maps, probes_only_while_needed)
{
	int i, n = -1;
	struct kid k;
	int64_t ts;

	RETURN_IF_SKIPPED();
	if (probe_lines() < 0)
		SKIP(return, KPROBE_LIST " not readable (debugfs)");
	ASSERT_EQ(0, kid_start(&k, NULL, self->ps));
	ts = alloc_ts(self->fd);
	ASSERT_LE(0, ts);
	ASSERT_EQ(0, smp_attach(self->fd, ts, k.pid));
	EXPECT_EQ(2, probe_lines());
	kid_stop(&k);
	smp_ring_unmap(&self->r);
	close(self->fd);
	self->fd = -1;
	for (i = 0; i < 80 && n; i++) {
		usleep(100000);
		n = probe_lines();
	}
	EXPECT_EQ(0, n);
	TH_LOG("probes gone %.1f s after the owner closed", i / 10.0);
}

TEST_HARNESS_MAIN
