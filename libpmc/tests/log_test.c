// SPDX-License-Identifier: BSD-2-Clause
/*
 * log_test.c - pmclog(3) on crafted logs: every record type round-trips
 * from a file, a pipe and fed bytes (split at every byte boundary); and
 * every kind of damage (bad magic, lengths too small, not a multiple of 8,
 * past the end, huge; unknown types; unterminated strings; truncation) gives
 * a sticky PMCLOG_ERROR with a message, never a crash or an over-read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unit.h"

#define TS(i)	(1000000000ull * 7 + 11 * (i))

const uint32_t lb_all_types_order[] = {
	PMCLOG_TYPE_INITIALIZE, PMCLOG_TYPE_PMCALLOCATE,
	PMCLOG_TYPE_PMCALLOCATEDYN, PMCLOG_TYPE_PMCATTACH,
	PMCLOG_TYPE_PROC_CREATE, PMCLOG_TYPE_THR_CREATE, PMCLOG_TYPE_MAP_IN,
	PMCLOG_TYPE_PROCEXEC, PMCLOG_TYPE_CALLCHAIN, PMCLOG_TYPE_CALLCHAIN,
	PMCLOG_TYPE_PROCCSW, PMCLOG_TYPE_USERDATA, PMCLOG_TYPE_SNAPSHOT,
	PMCLOG_TYPE_SNAPSET, PMCLOG_TYPE_OVERFLOW, PMCLOG_TYPE_DROPNOTIFY,
	PMCLOG_TYPE_PROCFORK, PMCLOG_TYPE_MAP_OUT, PMCLOG_TYPE_THR_EXIT,
	PMCLOG_TYPE_PROCEXIT, PMCLOG_TYPE_SYSEXIT, PMCLOG_TYPE_PMCDETACH,
	PMCLOG_TYPE_CLOSELOG,
};
const size_t lb_all_types_count = PMC_ARRAY_SIZE(lb_all_types_order);

static const char lb_path[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";
static const char lb_exe[] = "/usr/bin/true";	/* 14 bytes + NUL: pads to 16 */

void lb_all_types(struct logbuf *b)
{
	size_t i = 0;

	{
		struct pmclog_initialize r = {
			.pl_version = PMC_VERSION, .pl_cpu = PMC_CPU_INTEL_CORE,
			.pl_tsc_freq = 1000000000, .pl_ts_sec = 1700000000,
			.pl_ts_nsec = 123456789, .pl_ts_mono = 42,
			.pl_cpuid = "GenuineIntel-6-85-7",
		};
		lb_add(b, PMCLOG_TYPE_INITIALIZE, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_pmcallocate r = {
			.pl_pmcid = 0x12340701, .pl_event = PMC_EV_GENERIC_INSTRUCTIONS,
			.pl_flags = PMC_F_CALLCHAIN, .pl_class = PMC_CLASS_IAP,
			.pl_rate = 65536, .pl_type = 0, .pl_config = 1,
		};
		lb_add(b, PMCLOG_TYPE_PMCALLOCATE, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_pmcallocatedyn r = {
			.pl_pmcid = 0xfff20f03, .pl_event = PMC_EV_SOFT_TASK_CLOCK,
			.pl_flags = PMC_F_LOG_PROCEXIT, .pl_class = PMC_CLASS_SOFT,
			.pl_rate = 1000000, .pl_evname = "task-clock",
		};
		lb_add(b, PMCLOG_TYPE_PMCALLOCATEDYN, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_pmcattach r = { .pl_pmcid = 0xfff20f03, .pl_pid = 4242 };

		lb_add(b, PMCLOG_TYPE_PMCATTACH, &r, sizeof(r), lb_exe,
		       sizeof(lb_exe), TS(i++));
	}
	{
		struct pmclog_proccreate r = {
			.pl_pid = 4242, .pl_flags = 0x10, .pl_pcomm = "true",
		};
		lb_add(b, PMCLOG_TYPE_PROC_CREATE, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_threadcreate r = {
			.pl_tid = 4243, .pl_pid = 4242, .pl_flags = 1,
			.pl_tdname = "worker-1",
		};
		lb_add(b, PMCLOG_TYPE_THR_CREATE, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_map_in r = {
			.pl_pid = 4242, .pl_start = 0x7f0000001000,
			.pl_end = 0x7f0000200000, .pl_pgoff = 0x28000,
		};
		lb_add(b, PMCLOG_TYPE_MAP_IN, &r, sizeof(r), lb_path,
		       sizeof(lb_path), TS(i++));
	}
	{
		struct pmclog_procexec r = {
			.pl_pid = 4242, .pl_pmcid = 0xfff20f03,
			.pl_baseaddr = 0x7f0000400000, .pl_dynaddr = 0x555555554000,
		};
		lb_add(b, PMCLOG_TYPE_PROCEXEC, &r, sizeof(r), lb_exe,
		       sizeof(lb_exe), TS(i++));
	}
	{
		struct pmclog_callchain r = {
			.pl_pid = 4242, .pl_tid = 4243, .pl_pmcid = 0x12340701,
			.pl_cpuflags = PMC_CALLCHAIN_TO_CPUFLAGS(3, PMC_CC_F_USERSPACE),
		};
		uint64_t pc[3] = { 0x555555555123, 0x555555555456, 0x7f0000001789 };

		lb_add(b, PMCLOG_TYPE_CALLCHAIN, &r, sizeof(r), pc, sizeof(pc), TS(i++));
	}
	{
		/* The deepest callchain a record may hold. */
		struct pmclog_callchain r = {
			.pl_pid = 1, .pl_tid = 1, .pl_pmcid = 0x12340701,
			.pl_cpuflags = PMC_CALLCHAIN_TO_CPUFLAGS(1, 0),
		};
		uint64_t pc[PMC_CALLCHAIN_DEPTH_MAX];
		size_t k;

		for (k = 0; k < PMC_CALLCHAIN_DEPTH_MAX; k++)
			pc[k] = 0xffffffff81000000ull + k;
		lb_add(b, PMCLOG_TYPE_CALLCHAIN, &r, sizeof(r), pc, sizeof(pc), TS(i++));
	}
	{
		struct pmclog_proccsw r = {
			.pl_value = 987654321, .pl_pmcid = 0xfff20f03,
			.pl_pid = 4242, .pl_tid = 4243,
		};
		lb_add(b, PMCLOG_TYPE_PROCCSW, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_userdata r = { .pl_userdata = 0xdeadbeef };

		lb_add(b, PMCLOG_TYPE_USERDATA, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_snapshot r = {
			.pl_pmcid = 0xfff30f01, .pl_group = 7, .pl_cpu = 1,
			.pl_tid = 4243, .pl_value = 1234567,
		};
		lb_add(b, PMCLOG_TYPE_SNAPSHOT, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_snapset r = {
			.pl_group = 7, .pl_cpu = 2, .pl_tid = 4243, .pl_nentries = 3,
		};
		struct pmclog_snapset_entry e[3] = {
			{ .pl_pmcid = 0xfff30f01, .pl_value = 1234567 },
			{ .pl_pmcid = 0xfff30f02, .pl_value = 0 },
			{ .pl_pmcid = 0xfff30f03, .pl_value = 0xfedcba9876543210ull },
		};
		lb_add(b, PMCLOG_TYPE_SNAPSET, &r, sizeof(r), e, sizeof(e), TS(i++));
	}
	{
		struct pmclog_overflow r = {
			.pl_group = 7, .pl_tid = 4243, .pl_pid = 4242,
			.pl_nentries = 2, .pl_ip = 0x555555555abc,
		};
		struct pmclog_overflow_entry e[2] = {
			{ .pl_pmcid = 0xfff30f01, .pl_overflowed = 1, .pl_value = 0 },
			{ .pl_pmcid = 0xfff30f02, .pl_overflowed = 0, .pl_value = 99 },
		};
		lb_add(b, PMCLOG_TYPE_OVERFLOW, &r, sizeof(r), e, sizeof(e), TS(i++));
	}
	{
		struct pmclog_dropnotify r = { .pl_records = 5, .pl_samples = 17 };

		lb_add(b, PMCLOG_TYPE_DROPNOTIFY, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_procfork r = { .pl_oldpid = 4242, .pl_newpid = 4244 };

		lb_add(b, PMCLOG_TYPE_PROCFORK, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_map_out r = {
			.pl_pid = 4242, .pl_start = 0x7f0000001000,
			.pl_end = 0x7f0000200000,
		};
		lb_add(b, PMCLOG_TYPE_MAP_OUT, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_threadexit r = { .pl_tid = 4243 };

		lb_add(b, PMCLOG_TYPE_THR_EXIT, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_procexit r = {
			.pl_pmcid = 0xfff20f03, .pl_pid = 4242, .pl_value = 55555,
		};
		lb_add(b, PMCLOG_TYPE_PROCEXIT, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_sysexit r = { .pl_pid = 4244 };

		lb_add(b, PMCLOG_TYPE_SYSEXIT, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_pmcdetach r = { .pl_pmcid = 0xfff20f03, .pl_pid = 4242 };

		lb_add(b, PMCLOG_TYPE_PMCDETACH, &r, sizeof(r), NULL, 0, TS(i++));
	}
	{
		struct pmclog_closelog r;

		memset(&r, 0, sizeof(r));
		lb_add(b, PMCLOG_TYPE_CLOSELOG, &r, sizeof(r), NULL, 0, TS(i++));
	}
	ck_assert_uint_eq(i, lb_all_types_count);
}

void lb_check_event(size_t i, const struct pmclog_ev *ev)
{
	const struct pmclog_header *h = ev->pl_data;

	ck_assert_int_eq(ev->pl_state, PMCLOG_OK);
	ck_assert_uint_eq(ev->pl_type, lb_all_types_order[i]);
	ck_assert_uint_eq(ev->pl_seq, i);
	ck_assert_uint_eq(ev->pl_tsc, TS(i));
	ck_assert_int_eq(ev->pl_ts.tv_sec, 7);
	ck_assert_int_eq(ev->pl_ts.tv_nsec, (long)(11 * i));
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(ev->pl_len, PMCLOG_HEADER_TO_LENGTH(h->pl_header));
	ck_assert_int_eq(ev->pl_len % 8, 0);

	switch (ev->pl_type) {
	case PMCLOG_TYPE_INITIALIZE:
		ck_assert_uint_eq(ev->pl_u.pl_i.pl_version, PMC_VERSION);
		ck_assert_uint_eq(ev->pl_u.pl_i.pl_arch, PMC_CPU_INTEL_CORE);
		ck_assert_uint_eq(ev->pl_u.pl_i.pl_tsc_freq, 1000000000);
		ck_assert_int_eq(ev->pl_u.pl_i.pl_ts.tv_sec, 1700000000);
		ck_assert_int_eq(ev->pl_u.pl_i.pl_ts.tv_nsec, 123456789);
		ck_assert_uint_eq(ev->pl_u.pl_i.pl_ts_mono, 42);
		ck_assert_str_eq(ev->pl_u.pl_i.pl_cpuid, "GenuineIntel-6-85-7");
		break;
	case PMCLOG_TYPE_PMCALLOCATE:
		ck_assert_uint_eq(ev->pl_u.pl_a.pl_pmcid, 0x12340701);
		ck_assert_uint_eq(ev->pl_u.pl_a.pl_event, PMC_EV_GENERIC_INSTRUCTIONS);
		ck_assert_str_eq(ev->pl_u.pl_a.pl_evname, "instructions");
		ck_assert_uint_eq(ev->pl_u.pl_a.pl_flags, PMC_F_CALLCHAIN);
		ck_assert_uint_eq(ev->pl_u.pl_a.pl_rate, 65536);
		ck_assert_uint_eq(ev->pl_u.pl_a.pl_class, PMC_CLASS_IAP);
		ck_assert_uint_eq(ev->pl_u.pl_a.pl_type, 0);
		ck_assert_uint_eq(ev->pl_u.pl_a.pl_config, 1);
		break;
	case PMCLOG_TYPE_PMCALLOCATEDYN:
		ck_assert_uint_eq(ev->pl_u.pl_ad.pl_pmcid, 0xfff20f03);
		ck_assert_uint_eq(ev->pl_u.pl_ad.pl_event, PMC_EV_SOFT_TASK_CLOCK);
		ck_assert_str_eq(ev->pl_u.pl_ad.pl_evname, "task-clock");
		ck_assert_uint_eq(ev->pl_u.pl_ad.pl_flags, PMC_F_LOG_PROCEXIT);
		ck_assert_uint_eq(ev->pl_u.pl_ad.pl_rate, 1000000);
		ck_assert_uint_eq(ev->pl_u.pl_ad.pl_class, PMC_CLASS_SOFT);
		break;
	case PMCLOG_TYPE_PMCATTACH:
		ck_assert_uint_eq(ev->pl_u.pl_t.pl_pmcid, 0xfff20f03);
		ck_assert_int_eq(ev->pl_u.pl_t.pl_pid, 4242);
		ck_assert_str_eq(ev->pl_u.pl_t.pl_pathname, lb_exe);
		break;
	case PMCLOG_TYPE_PROC_CREATE:
		ck_assert_int_eq(ev->pl_u.pl_pc.pl_pid, 4242);
		ck_assert_uint_eq(ev->pl_u.pl_pc.pl_flags, 0x10);
		ck_assert_str_eq(ev->pl_u.pl_pc.pl_pcomm, "true");
		break;
	case PMCLOG_TYPE_THR_CREATE:
		ck_assert_int_eq(ev->pl_u.pl_tc.pl_tid, 4243);
		ck_assert_int_eq(ev->pl_u.pl_tc.pl_pid, 4242);
		ck_assert_int_eq(ev->pl_u.pl_tc.pl_flags, 1);
		ck_assert_str_eq(ev->pl_u.pl_tc.pl_tdname, "worker-1");
		break;
	case PMCLOG_TYPE_MAP_IN:
		ck_assert_int_eq(ev->pl_u.pl_mi.pl_pid, 4242);
		ck_assert_uint_eq(ev->pl_u.pl_mi.pl_start, 0x7f0000001000);
		ck_assert_uint_eq(ev->pl_u.pl_mi.pl_end, 0x7f0000200000);
		ck_assert_uint_eq(ev->pl_u.pl_mi.pl_pgoff, 0x28000);
		ck_assert_str_eq(ev->pl_u.pl_mi.pl_pathname, lb_path);
		break;
	case PMCLOG_TYPE_PROCEXEC:
		ck_assert_int_eq(ev->pl_u.pl_x.pl_pid, 4242);
		ck_assert_uint_eq(ev->pl_u.pl_x.pl_pmcid, 0xfff20f03);
		ck_assert_uint_eq(ev->pl_u.pl_x.pl_baseaddr, 0x7f0000400000);
		ck_assert_uint_eq(ev->pl_u.pl_x.pl_dynaddr, 0x555555554000);
		ck_assert_str_eq(ev->pl_u.pl_x.pl_pathname, lb_exe);
		break;
	case PMCLOG_TYPE_CALLCHAIN:
		if (ev->pl_u.pl_cc.pl_npc == 3) {
			ck_assert_uint_eq(ev->pl_u.pl_cc.pl_pid, 4242);
			ck_assert_uint_eq(ev->pl_u.pl_cc.pl_tid, 4243);
			ck_assert_uint_eq(ev->pl_u.pl_cc.pl_pmcid, 0x12340701);
			ck_assert_uint_eq(PMC_CALLCHAIN_CPUFLAGS_TO_CPU(ev->pl_u.pl_cc.pl_cpuflags), 3);
			ck_assert_uint_eq(PMC_CALLCHAIN_CPUFLAGS_TO_USERMODE(ev->pl_u.pl_cc.pl_cpuflags), 1);
			ck_assert_uint_eq(ev->pl_u.pl_cc.pl_pc[0], 0x555555555123);
			ck_assert_uint_eq(ev->pl_u.pl_cc.pl_pc[2], 0x7f0000001789);
		} else {
			ck_assert_uint_eq(ev->pl_u.pl_cc.pl_npc, PMC_CALLCHAIN_DEPTH_MAX);
			ck_assert_uint_eq(PMC_CALLCHAIN_CPUFLAGS_TO_USERMODE(ev->pl_u.pl_cc.pl_cpuflags), 0);
			ck_assert_uint_eq(ev->pl_u.pl_cc.pl_pc[PMC_CALLCHAIN_DEPTH_MAX - 1],
					  0xffffffff81000000ull + PMC_CALLCHAIN_DEPTH_MAX - 1);
		}
		break;
	case PMCLOG_TYPE_PROCCSW:
		ck_assert_uint_eq(ev->pl_u.pl_c.pl_value, 987654321);
		ck_assert_uint_eq(ev->pl_u.pl_c.pl_pmcid, 0xfff20f03);
		ck_assert_int_eq(ev->pl_u.pl_c.pl_pid, 4242);
		ck_assert_int_eq(ev->pl_u.pl_c.pl_tid, 4243);
		break;
	case PMCLOG_TYPE_USERDATA:
		ck_assert_uint_eq(ev->pl_u.pl_u.pl_userdata, 0xdeadbeef);
		break;
	case PMCLOG_TYPE_SNAPSHOT:
		ck_assert_uint_eq(ev->pl_u.pl_s.pl_pmcid, 0xfff30f01);
		ck_assert_uint_eq(ev->pl_u.pl_s.pl_group, 7);
		ck_assert_uint_eq(ev->pl_u.pl_s.pl_cpu, 1);
		ck_assert_int_eq(ev->pl_u.pl_s.pl_tid, 4243);
		ck_assert_uint_eq(ev->pl_u.pl_s.pl_value, 1234567);
		break;
	case PMCLOG_TYPE_SNAPSET:
		ck_assert_int_eq(ev->pl_len, 80);
		ck_assert_uint_eq(ev->pl_u.pl_ss.pl_group, 7);
		ck_assert_uint_eq(ev->pl_u.pl_ss.pl_cpu, 2);
		ck_assert_int_eq(ev->pl_u.pl_ss.pl_tid, 4243);
		ck_assert_uint_eq(ev->pl_u.pl_ss.pl_nentries, 3);
		/* The entries are the record's own, not a copy. */
		ck_assert_ptr_eq(ev->pl_u.pl_ss.pl_entries,
				 (const char *)ev->pl_data + sizeof(struct pmclog_snapset));
		ck_assert_uint_eq(ev->pl_u.pl_ss.pl_entries[0].pl_pmcid, 0xfff30f01);
		ck_assert_uint_eq(ev->pl_u.pl_ss.pl_entries[0].pl_value, 1234567);
		ck_assert_uint_eq(ev->pl_u.pl_ss.pl_entries[1].pl_pmcid, 0xfff30f02);
		ck_assert_uint_eq(ev->pl_u.pl_ss.pl_entries[1].pl_value, 0);
		ck_assert_uint_eq(ev->pl_u.pl_ss.pl_entries[2].pl_pmcid, 0xfff30f03);
		ck_assert_uint_eq(ev->pl_u.pl_ss.pl_entries[2].pl_value,
				  0xfedcba9876543210ull);
		break;
	case PMCLOG_TYPE_OVERFLOW:
		ck_assert_uint_eq(ev->pl_u.pl_o.pl_group, 7);
		ck_assert_int_eq(ev->pl_u.pl_o.pl_tid, 4243);
		ck_assert_int_eq(ev->pl_u.pl_o.pl_pid, 4242);
		ck_assert_uint_eq(ev->pl_u.pl_o.pl_ip, 0x555555555abc);
		ck_assert_uint_eq(ev->pl_u.pl_o.pl_nentries, 2);
		ck_assert_uint_eq(ev->pl_u.pl_o.pl_entries[0].pl_pmcid, 0xfff30f01);
		ck_assert_uint_eq(ev->pl_u.pl_o.pl_entries[0].pl_overflowed, 1);
		ck_assert_uint_eq(ev->pl_u.pl_o.pl_entries[1].pl_pmcid, 0xfff30f02);
		ck_assert_uint_eq(ev->pl_u.pl_o.pl_entries[1].pl_value, 99);
		break;
	case PMCLOG_TYPE_DROPNOTIFY:
		ck_assert_uint_eq(ev->pl_u.pl_dn.pl_records, 5);
		ck_assert_uint_eq(ev->pl_u.pl_dn.pl_samples, 17);
		break;
	case PMCLOG_TYPE_PROCFORK:
		ck_assert_int_eq(ev->pl_u.pl_f.pl_oldpid, 4242);
		ck_assert_int_eq(ev->pl_u.pl_f.pl_newpid, 4244);
		break;
	case PMCLOG_TYPE_MAP_OUT:
		ck_assert_int_eq(ev->pl_u.pl_mo.pl_pid, 4242);
		ck_assert_uint_eq(ev->pl_u.pl_mo.pl_start, 0x7f0000001000);
		ck_assert_uint_eq(ev->pl_u.pl_mo.pl_end, 0x7f0000200000);
		break;
	case PMCLOG_TYPE_THR_EXIT:
		ck_assert_int_eq(ev->pl_u.pl_te.pl_tid, 4243);
		break;
	case PMCLOG_TYPE_PROCEXIT:
		ck_assert_uint_eq(ev->pl_u.pl_e.pl_pmcid, 0xfff20f03);
		ck_assert_uint_eq(ev->pl_u.pl_e.pl_pid, 4242);
		ck_assert_uint_eq(ev->pl_u.pl_e.pl_value, 55555);
		break;
	case PMCLOG_TYPE_SYSEXIT:
		ck_assert_int_eq(ev->pl_u.pl_se.pl_pid, 4244);
		break;
	case PMCLOG_TYPE_PMCDETACH:
		ck_assert_uint_eq(ev->pl_u.pl_d.pl_pmcid, 0xfff20f03);
		ck_assert_int_eq(ev->pl_u.pl_d.pl_pid, 4242);
		break;
	case PMCLOG_TYPE_CLOSELOG:
		ck_assert_int_eq(ev->pl_len, 16);
		break;
	}
}

/* A file holding @len bytes of @p, positioned at its start. */
static int memfile(const void *p, size_t len)
{
	int fd = memfd_create("pmclog-test", MFD_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, p, len), (ssize_t)len);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/*
 * Read every record of @ps, checking each against lb_all_types() (@n records
 * and @off bytes were read before); returns the final state.
 */
static enum pmclog_state read_all_from(void *ps, size_t *n, off_t *off)
{
	struct pmclog_ev ev;

	while (pmclog_read(ps, &ev) == 0) {
		lb_check_event(*n, &ev);
		ck_assert_int_eq(ev.pl_offset, *off);
		ck_assert_uint_eq(ev.pl_count, *n + 1);
		*off += ev.pl_len;
		(*n)++;
	}
	return ev.pl_state;
}

static enum pmclog_state read_all(void *ps, size_t *n)
{
	off_t off = 0;

	return read_all_from(ps, n, &off);
}

START_TEST(every_record_type_round_trips_from_a_file)
{
	struct logbuf b = { 0 };
	struct pmclog_ev ev;
	size_t n = 0;
	void *ps;
	int fd;

	lb_all_types(&b);
	fd = memfile(b.p, b.len);
	ps = pmclog_open(fd);
	ck_assert_ptr_nonnull(ps);
	ck_assert_int_eq(read_all(ps, &n), PMCLOG_EOF);
	ck_assert_uint_eq(n, lb_all_types_count);
	/* EOF is not sticky: a record appended later is read. */
	{
		struct pmclog_userdata r = { .pl_userdata = 7 };
		struct logbuf more = { .seq = (uint32_t)n };

		lb_add(&more, PMCLOG_TYPE_USERDATA, &r, sizeof(r), NULL, 0, 1);
		ck_assert_int_eq(write(fd, more.p, more.len), (ssize_t)more.len);
		lseek(fd, (off_t)b.len, SEEK_SET);
		ck_assert_int_eq(pmclog_read(ps, &ev), 0);
		ck_assert_uint_eq(ev.pl_u.pl_u.pl_userdata, 7);
		ck_assert_uint_eq(ev.pl_seq, n);
		ck_assert_int_eq(ev.pl_offset, (off_t)b.len);
		lb_free(&more);
	}
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_EOF);
	pmclog_close(ps);
	close(fd);
	lb_free(&b);
}
END_TEST

START_TEST(every_record_type_round_trips_through_a_pipe)
{
	struct logbuf b = { 0 };
	size_t n = 0;
	int p[2];
	pid_t pid;
	void *ps;

	lb_all_types(&b);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		size_t off;

		/* Dribble the log out in 5-byte writes. */
		close(p[0]);
		for (off = 0; off < b.len; off += 5)
			if (write(p[1], b.p + off, b.len - off < 5 ? b.len - off : 5) < 0)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	ps = pmclog_open(p[0]);
	ck_assert_int_eq(read_all(ps, &n), PMCLOG_EOF);
	ck_assert_uint_eq(n, lb_all_types_count);
	pmclog_close(ps);
	close(p[0]);
	lb_free(&b);
}
END_TEST

/* Feed mode, the log split in two at every byte offset. */
START_TEST(feed_mode_split_at_every_byte)
{
	struct logbuf b = { 0 };
	struct pmclog_ev ev;
	size_t k, n;
	off_t off;
	void *ps;

	lb_all_types(&b);
	for (k = 0; k <= b.len; k++) {
		ps = pmclog_open(PMCLOG_FD_NONE);
		ck_assert_ptr_nonnull(ps);
		n = 0;
		off = 0;
		ck_assert_int_eq(pmclog_feed(ps, (char *)b.p, (int)k), 0);
		ck_assert_int_eq(read_all_from(ps, &n, &off), PMCLOG_REQUIRE_DATA);
		ck_assert_int_eq(pmclog_feed(ps, (char *)b.p + k, (int)(b.len - k)), 0);
		ck_assert_int_eq(read_all_from(ps, &n, &off), PMCLOG_REQUIRE_DATA);
		ck_assert_uint_eq(n, lb_all_types_count);
		pmclog_close(ps);
	}

	/* And one byte at a time. */
	ps = pmclog_open(PMCLOG_FD_NONE);
	n = 0;
	for (k = 0; k < b.len; k++) {
		ck_assert_int_eq(pmclog_feed(ps, (char *)b.p + k, 1), 0);
		while (pmclog_read(ps, &ev) == 0)
			lb_check_event(n++, &ev);
		ck_assert_int_eq(ev.pl_state, PMCLOG_REQUIRE_DATA);
	}
	ck_assert_uint_eq(n, lb_all_types_count);
	pmclog_close(ps);
	lb_free(&b);
}
END_TEST

START_TEST(feed_checks_its_arguments)
{
	void *ps = pmclog_open(PMCLOG_FD_NONE);
	int fd = memfile("", 0);
	void *fps = pmclog_open(fd);
	char c = 0;

	errno = 0;
	ck_assert_int_eq(pmclog_feed(ps, NULL, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pmclog_feed(ps, &c, -1), -1);
	ck_assert_int_eq(pmclog_feed(ps, NULL, 0), 0);
	ck_assert_int_eq(pmclog_feed(NULL, &c, 1), -1);
	/* Feeding is for PMCLOG_FD_NONE parsers only. */
	ck_assert_int_eq(pmclog_feed(fps, &c, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pmclog_read(NULL, NULL), -1);
	pmclog_close(ps);
	pmclog_close(fps);
	pmclog_close(NULL);
	close(fd);
}
END_TEST

/* Parse @len bytes of @p from a file: the state after the good records. */
static enum pmclog_state parse_bytes(const void *p, size_t len, size_t *ngood,
				     char *msg, size_t msglen)
{
	struct pmclog_ev ev;
	int fd = memfile(p, len);
	void *ps = pmclog_open(fd);
	enum pmclog_state st;

	*ngood = 0;
	while (pmclog_read(ps, &ev) == 0)
		(*ngood)++;
	st = ev.pl_state;
	if (msg)
		snprintf(msg, msglen, "%s", pmclog_error(ps));
	if (st == PMCLOG_ERROR) {
		/* Sticky, with a reason. */
		ck_assert_int_eq(pmclog_read(ps, &ev), -1);
		ck_assert_int_eq(ev.pl_state, PMCLOG_ERROR);
		ck_assert_int_eq(errno == 0, 0);
		ck_assert_int_ne(strlen(pmclog_error(ps)), 0);
	}
	pmclog_close(ps);
	close(fd);
	return st;
}

/* A good USERDATA, then @bad (@badlen bytes), then another good USERDATA. */
static void expect_error_after_one(const void *bad, size_t badlen,
				   const char *why)
{
	struct pmclog_userdata u = { .pl_userdata = 1 };
	struct logbuf b = { 0 };
	char msg[PMCLOG_ERRMSG_LEN];
	size_t n;

	lb_add(&b, PMCLOG_TYPE_USERDATA, &u, sizeof(u), NULL, 0, 1);
	lb_raw(&b, bad, badlen);
	lb_add(&b, PMCLOG_TYPE_USERDATA, &u, sizeof(u), NULL, 0, 2);
	ck_assert_msg(parse_bytes(b.p, b.len, &n, msg, sizeof(msg)) == PMCLOG_ERROR,
		      "%s: not an error", why);
	ck_assert_msg(n == 1, "%s: %zu good records", why, n);
	ck_assert_msg(strstr(msg, "offset 24") != NULL, "%s: message \"%s\"", why, msg);
	lb_free(&b);
}

static void put_header(void *p, uint32_t word)
{
	struct pmclog_header h = { .pl_header = word };

	memcpy(p, &h, sizeof(h));
}

START_TEST(damaged_headers_are_errors)
{
	unsigned char r[64];

	memset(r, 0, sizeof(r));
	put_header(r, PMCLOG_HEADER(PMCLOG_TYPE_USERDATA, 24) & 0x00ffffff);
	expect_error_after_one(r, 24, "no magic");
	put_header(r, (0xEFu << 24) | (PMCLOG_TYPE_USERDATA << 16) | 24);
	expect_error_after_one(r, 24, "wrong magic");
	put_header(r, PMCLOG_HEADER(PMCLOG_TYPE_USERDATA, 0));
	expect_error_after_one(r, 24, "length 0");
	put_header(r, PMCLOG_HEADER(PMCLOG_TYPE_USERDATA, 8));
	expect_error_after_one(r, 24, "length below the header");
	put_header(r, PMCLOG_HEADER(PMCLOG_TYPE_USERDATA, 20));
	expect_error_after_one(r, 24, "length not a multiple of 8");
	put_header(r, PMCLOG_HEADER(PMCLOG_TYPE_USERDATA, 27));
	expect_error_after_one(r, 32, "odd length");
	put_header(r, PMCLOG_HEADER(PMCLOG_TYPE_USERDATA, 0xfff8));
	expect_error_after_one(r, 64, "huge length past the end");
	put_header(r, PMCLOG_HEADER(0, 24));
	expect_error_after_one(r, 24, "type 0");
	put_header(r, PMCLOG_HEADER(4, 24));
	expect_error_after_one(r, 24, "type 4 (MAPPINGCHANGE)");
	put_header(r, PMCLOG_HEADER(99, 24));
	expect_error_after_one(r, 24, "unknown type");
	put_header(r, PMCLOG_HEADER(PMCLOG_TYPE_INITIALIZE, 24));
	expect_error_after_one(r, 24, "shorter than its type");
	put_header(r, PMCLOG_HEADER(PMCLOG_TYPE_CALLCHAIN, 32));
	expect_error_after_one(r, 32, "callchain without frames");
	put_header(r, PMCLOG_HEADER(PMCLOG_TYPE_PMCATTACH, 24));
	expect_error_after_one(r, 24, "attach without a path");
}
END_TEST

START_TEST(damaged_bodies_are_errors)
{
	struct logbuf b = { 0 };
	struct pmclog_pmcattach a = { .pl_pmcid = 1, .pl_pid = 2 };
	struct pmclog_overflow o = { .pl_nentries = 3 };
	struct pmclog_overflow_entry e[2];
	struct pmclog_snapset ss = { .pl_group = 1, .pl_nentries = 3 };
	struct pmclog_snapset_entry se[2];
	struct pmclog_initialize in = { .pl_version = PMC_VERSION + (1u << 24) };
	struct pmclog_callchain cc = { .pl_pid = 1 };
	char msg[PMCLOG_ERRMSG_LEN];
	static uint64_t pc[PMC_CALLCHAIN_DEPTH_MAX + 1];
	size_t n;

	/* A path that fills its record without a NUL. */
	lb_add(&b, PMCLOG_TYPE_PMCATTACH, &a, sizeof(a), "01234567", 8, 1);
	ck_assert_int_eq(parse_bytes(b.p, b.len, &n, msg, sizeof(msg)), PMCLOG_ERROR);
	ck_assert_ptr_nonnull(strstr(msg, "not terminated"));
	lb_free(&b);

	/* An OVERFLOW whose entry count does not match its length. */
	memset(e, 0, sizeof(e));
	lb_add(&b, PMCLOG_TYPE_OVERFLOW, &o, sizeof(o), e, sizeof(e), 1);
	ck_assert_int_eq(parse_bytes(b.p, b.len, &n, msg, sizeof(msg)), PMCLOG_ERROR);
	ck_assert_ptr_nonnull(strstr(msg, "3 entries"));
	lb_free(&b);

	/* A SNAPSET counting more entries than its length holds. */
	memset(se, 0, sizeof(se));
	lb_add(&b, PMCLOG_TYPE_SNAPSET, &ss, sizeof(ss), se, sizeof(se), 1);
	ck_assert_int_eq(parse_bytes(b.p, b.len, &n, msg, sizeof(msg)), PMCLOG_ERROR);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(msg, "offset 0: snapset record of 64 bytes with 3 entries"));
	lb_free(&b);

	/* The same with a count so large that entries * size would overflow. */
	ss.pl_nentries = 0xffffffffu;
	lb_add(&b, PMCLOG_TYPE_SNAPSET, &ss, sizeof(ss), se, sizeof(se), 1);
	ck_assert_int_eq(parse_bytes(b.p, b.len, &n, msg, sizeof(msg)), PMCLOG_ERROR);
	ck_assert_ptr_nonnull(strstr(msg, "4294967295 entries"));
	lb_free(&b);

	/* A log of another ABI major. */
	lb_add(&b, PMCLOG_TYPE_INITIALIZE, &in, sizeof(in), NULL, 0, 1);
	ck_assert_int_eq(parse_bytes(b.p, b.len, &n, msg, sizeof(msg)), PMCLOG_ERROR);
	ck_assert_ptr_nonnull(strstr(msg, "version"));
	lb_free(&b);

	/* One frame deeper than a callchain may be. */
	lb_add(&b, PMCLOG_TYPE_CALLCHAIN, &cc, sizeof(cc), pc, sizeof(pc), 1);
	ck_assert_int_eq(parse_bytes(b.p, b.len, &n, msg, sizeof(msg)), PMCLOG_ERROR);
	ck_assert_ptr_nonnull(strstr(msg, "513 frames"));
	lb_free(&b);
}
END_TEST

/* A record longer than its type's fixed part is read (room to grow). */
START_TEST(longer_records_are_accepted)
{
	struct pmclog_userdata u = { .pl_userdata = 3 };
	unsigned char pad[40];
	struct logbuf b = { 0 };
	struct pmclog_ev ev;
	void *ps = pmclog_open(PMCLOG_FD_NONE);

	memset(pad, 0xa5, sizeof(pad));
	lb_add(&b, PMCLOG_TYPE_USERDATA, &u, sizeof(u), pad, sizeof(pad), 1);
	lb_add(&b, PMCLOG_TYPE_USERDATA, &u, sizeof(u), NULL, 0, 2);
	pmclog_feed(ps, (char *)b.p, (int)b.len);
	ck_assert_int_eq(pmclog_read(ps, &ev), 0);
	ck_assert_int_eq(ev.pl_len, 64);
	ck_assert_uint_eq(ev.pl_u.pl_u.pl_userdata, 3);
	ck_assert_int_eq(pmclog_read(ps, &ev), 0);
	ck_assert_int_eq(ev.pl_offset, 64);
	pmclog_close(ps);
	lb_free(&b);
}
END_TEST

/*
 * A SNAPSET is sized for its whole set, the PMCs not running left zero: a
 * count below what the length holds is read, and none gives no entries.
 */
START_TEST(snapsets_longer_than_their_entries_are_accepted)
{
	struct pmclog_snapset r = { .pl_group = 3, .pl_tid = 0, .pl_nentries = 1 };
	struct pmclog_snapset_entry e[3];
	struct logbuf b = { 0 };
	struct pmclog_ev ev;
	void *ps = pmclog_open(PMCLOG_FD_NONE);

	memset(e, 0, sizeof(e));
	e[0].pl_pmcid = 0xfff30f01;
	e[0].pl_value = 42;
	lb_add(&b, PMCLOG_TYPE_SNAPSET, &r, sizeof(r), e, sizeof(e), 1);
	r.pl_nentries = 0;
	lb_add(&b, PMCLOG_TYPE_SNAPSET, &r, sizeof(r), e, sizeof(e), 2);
	pmclog_feed(ps, (char *)b.p, (int)b.len);
	ck_assert_int_eq(pmclog_read(ps, &ev), 0);
	ck_assert_int_eq(ev.pl_len, 80);
	ck_assert_uint_eq(ev.pl_u.pl_ss.pl_group, 3);
	ck_assert_int_eq(ev.pl_u.pl_ss.pl_tid, 0);
	ck_assert_uint_eq(ev.pl_u.pl_ss.pl_nentries, 1);
	ck_assert_uint_eq(ev.pl_u.pl_ss.pl_entries[0].pl_pmcid, 0xfff30f01);
	ck_assert_uint_eq(ev.pl_u.pl_ss.pl_entries[0].pl_value, 42);
	ck_assert_int_eq(pmclog_read(ps, &ev), 0);
	ck_assert_uint_eq(ev.pl_u.pl_ss.pl_nentries, 0);
	ck_assert_ptr_null(ev.pl_u.pl_ss.pl_entries);
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_REQUIRE_DATA);
	pmclog_close(ps);
	lb_free(&b);
}
END_TEST

/* A log cut anywhere inside a record is an error; at a boundary, EOF. */
START_TEST(truncated_logs)
{
	struct logbuf b = { 0 };
	size_t cut, n, boundary = 0, rec = 0;
	enum pmclog_state st;

	lb_all_types(&b);
	for (cut = 0; cut <= b.len; cut++) {
		st = parse_bytes(b.p, cut, &n, NULL, 0);
		if (cut == boundary) {
			ck_assert_msg(st == PMCLOG_EOF, "cut at %zu", cut);
			ck_assert_uint_eq(n, rec);
			if (cut < b.len) {
				struct pmclog_header h;

				memcpy(&h, b.p + cut, sizeof(h));
				boundary += PMCLOG_HEADER_TO_LENGTH(h.pl_header);
				rec++;
			}
		} else {
			ck_assert_msg(st == PMCLOG_ERROR, "cut at %zu", cut);
			ck_assert_uint_eq(n, rec - 1);
		}
	}
	lb_free(&b);
}
END_TEST

/* In feed mode the same damage waits for more data, then fails. */
START_TEST(feed_mode_huge_length_waits_then_fails_on_bad_data)
{
	struct logbuf b = { 0 };
	struct pmclog_ev ev;
	unsigned char junk[0x10000];
	void *ps = pmclog_open(PMCLOG_FD_NONE);
	struct pmclog_callchain cc = { .pl_pid = 1 };

	/* A callchain header claiming 0xfff8 bytes: 8187 frames. */
	lb_add(&b, PMCLOG_TYPE_CALLCHAIN, &cc, sizeof(cc), NULL, 0, 1);
	put_header(b.p, PMCLOG_HEADER(PMCLOG_TYPE_CALLCHAIN, 0xfff8));
	pmclog_feed(ps, (char *)b.p, (int)b.len);
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_REQUIRE_DATA);
	memset(junk, 0, sizeof(junk));
	pmclog_feed(ps, (char *)junk, (int)sizeof(junk));
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_ERROR);
	ck_assert_ptr_nonnull(strstr(pmclog_error(ps), "8187 frames"));
	/* Sticky, even with good data after. */
	lb_free(&b);
	lb_all_types(&b);
	pmclog_feed(ps, (char *)b.p, (int)b.len);
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_ERROR);
	pmclog_close(ps);
	lb_free(&b);
}
END_TEST

/* A non-blocking pipe with no complete record: wait, do not fail. */
START_TEST(non_blocking_descriptors_require_data)
{
	struct logbuf b = { 0 };
	struct pmclog_ev ev;
	size_t n = 0;
	void *ps;
	int p[2];

	lb_all_types(&b);
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ps = pmclog_open(p[0]);
	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_REQUIRE_DATA);
	/* Half of the log: the records in it, then a wait for the rest. */
	ck_assert_int_eq(write(p[1], b.p, b.len / 2), (ssize_t)(b.len / 2));
	while (pmclog_read(ps, &ev) == 0)
		lb_check_event(n++, &ev);
	ck_assert_int_eq(ev.pl_state, PMCLOG_REQUIRE_DATA);
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(write(p[1], b.p + b.len / 2, b.len - b.len / 2),
			 (ssize_t)(b.len - b.len / 2));
	close(p[1]);
	while (pmclog_read(ps, &ev) == 0)
		lb_check_event(n++, &ev);
	ck_assert_int_eq(ev.pl_state, PMCLOG_EOF);
	ck_assert_uint_eq(n, lb_all_types_count);
	pmclog_close(ps);
	close(p[0]);
	lb_free(&b);
}
END_TEST

START_TEST(read_errors_are_errors)
{
	struct pmclog_ev ev;
	void *ps = pmclog_open(-5);

	ck_assert_int_eq(pmclog_read(ps, &ev), -1);
	ck_assert_int_eq(ev.pl_state, PMCLOG_ERROR);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_ptr_nonnull(strstr(pmclog_error(ps), "read"));
	pmclog_close(ps);
}
END_TEST

Suite *log_suite(void)
{
	Suite *s = suite_create("pmclog");
	TCase *tc = tcase_create("pmclog");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_record_type_round_trips_from_a_file);
	tcase_add_test(tc, every_record_type_round_trips_through_a_pipe);
	tcase_add_test(tc, feed_mode_split_at_every_byte);
	tcase_add_test(tc, feed_checks_its_arguments);
	tcase_add_test(tc, damaged_headers_are_errors);
	tcase_add_test(tc, damaged_bodies_are_errors);
	tcase_add_test(tc, longer_records_are_accepted);
	tcase_add_test(tc, snapsets_longer_than_their_entries_are_accepted);
	tcase_add_test(tc, truncated_logs);
	tcase_add_test(tc, feed_mode_huge_length_waits_then_fails_on_bad_data);
	tcase_add_test(tc, non_blocking_descriptors_require_data);
	tcase_add_test(tc, read_errors_are_errors);
	suite_add_tcase(s, tc);
	return s;
}
