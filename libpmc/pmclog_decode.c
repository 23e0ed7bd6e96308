// SPDX-License-Identifier: BSD-2-Clause
/*
 * pmclog_decode.c - one pmclog record (<pmc/pmclog.h>) into a struct
 * pmclog_ev. Every length is checked against the record before a byte is
 * read: a record shorter than its type's fixed part, a string without its
 * NUL, a callchain deeper than PMC_CALLCHAIN_DEPTH_MAX, an OVERFLOW whose
 * entry count does not match its length or a SNAPSET whose entry count
 * exceeds it is an error, never an over-read.
 * Records longer than their fixed part are accepted (room to grow).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmclog_impl.h"

int pmclog__fail(struct pmclog_parser *ps, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->errmsg, sizeof(ps->errmsg), fmt, ap);
	va_end(ap);
	ps->failed = true;
	ps->failed_errno = err;
	errno = err;
	return -1;
}

int pmclog__check_header(struct pmclog_parser *ps, const void *hdr)
{
	uint32_t h, len;

	memcpy(&h, hdr, sizeof(h));
	if (!PMCLOG_HEADER_CHECK_MAGIC(h))
		return pmclog__fail(ps, EBADMSG,
				    "offset %llu: bad magic 0x%02x in header 0x%08x",
				    (unsigned long long)ps->offset,
				    PMCLOG_HEADER_TO_MAGIC(h), h);
	len = PMCLOG_HEADER_TO_LENGTH(h);
	if (len < sizeof(struct pmclog_header) || len % PMCLOG_ALIGN)
		return pmclog__fail(ps, EBADMSG,
				    "offset %llu: bad record length %u",
				    (unsigned long long)ps->offset, len);
	return (int)len;
}

/* The fixed part of each record type (0: not a type this reader knows). */
static size_t pmclog_fixed_size(uint32_t type)
{
	switch (type) {
	case PMCLOG_TYPE_CLOSELOG:
		return sizeof(struct pmclog_closelog);
	case PMCLOG_TYPE_DROPNOTIFY:
		return sizeof(struct pmclog_dropnotify);
	case PMCLOG_TYPE_INITIALIZE:
		return sizeof(struct pmclog_initialize);
	case PMCLOG_TYPE_PMCALLOCATE:
		return sizeof(struct pmclog_pmcallocate);
	case PMCLOG_TYPE_PMCATTACH:
		return sizeof(struct pmclog_pmcattach);
	case PMCLOG_TYPE_PMCDETACH:
		return sizeof(struct pmclog_pmcdetach);
	case PMCLOG_TYPE_PROCCSW:
		return sizeof(struct pmclog_proccsw);
	case PMCLOG_TYPE_PROCEXEC:
		return sizeof(struct pmclog_procexec);
	case PMCLOG_TYPE_PROCEXIT:
		return sizeof(struct pmclog_procexit);
	case PMCLOG_TYPE_PROCFORK:
		return sizeof(struct pmclog_procfork);
	case PMCLOG_TYPE_SYSEXIT:
		return sizeof(struct pmclog_sysexit);
	case PMCLOG_TYPE_USERDATA:
		return sizeof(struct pmclog_userdata);
	case PMCLOG_TYPE_MAP_IN:
		return sizeof(struct pmclog_map_in);
	case PMCLOG_TYPE_MAP_OUT:
		return sizeof(struct pmclog_map_out);
	case PMCLOG_TYPE_CALLCHAIN:
		return sizeof(struct pmclog_callchain);
	case PMCLOG_TYPE_PMCALLOCATEDYN:
		return sizeof(struct pmclog_pmcallocatedyn);
	case PMCLOG_TYPE_THR_CREATE:
		return sizeof(struct pmclog_threadcreate);
	case PMCLOG_TYPE_THR_EXIT:
		return sizeof(struct pmclog_threadexit);
	case PMCLOG_TYPE_PROC_CREATE:
		return sizeof(struct pmclog_proccreate);
	case PMCLOG_TYPE_SNAPSHOT:
		return sizeof(struct pmclog_snapshot);
	case PMCLOG_TYPE_OVERFLOW:
		return sizeof(struct pmclog_overflow);
	case PMCLOG_TYPE_SNAPSET:
		return sizeof(struct pmclog_snapset);
	}
	return 0;
}

/* A fixed-size char array of a record: copy it NUL-terminated. */
static void pmclog_copy_fixed(char *dst, size_t dstlen, const char *src,
			      size_t srclen)
{
	size_t n = strnlen(src, srclen);

	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * The variable string after a record's fixed part: it must end with a NUL
 * inside the record and fit @dstlen.
 */
static int pmclog_copy_tail(struct pmclog_parser *ps, const char *rec,
			    size_t fixed, size_t len, char *dst, size_t dstlen)
{
	size_t n;

	n = strnlen(rec + fixed, len - fixed);
	if (n == len - fixed)
		return pmclog__fail(ps, EBADMSG,
				    "offset %llu: string not terminated in its record",
				    (unsigned long long)ps->offset);
	if (n >= dstlen)
		return pmclog__fail(ps, EBADMSG,
				    "offset %llu: path of %zu bytes too long",
				    (unsigned long long)ps->offset, n);
	memcpy(dst, rec + fixed, n + 1);
	return 0;
}

static const char *pmclog_event_name(uint32_t event)
{
	int saved = errno;
	const char *name = pmc_name_of_event((enum pmc_event)event);

	errno = saved;
	return name ? name : "UNKNOWN";
}

static int pmclog_decode_callchain(struct pmclog_parser *ps, const char *rec,
				   size_t len, struct pmclog_ev *ev)
{
	struct pmclog_ev_callchain *cc = &ev->pl_u.pl_cc;
	struct pmclog_callchain r;
	size_t npc;

	memcpy(&r, rec, sizeof(r));
	npc = (len - sizeof(r)) / sizeof(uint64_t);
	if (npc == 0 || npc > PMC_CALLCHAIN_DEPTH_MAX)
		return pmclog__fail(ps, EBADMSG,
				    "offset %llu: callchain of %zu frames",
				    (unsigned long long)ps->offset, npc);
	cc->pl_pid = r.pl_pid;
	cc->pl_tid = r.pl_tid;
	cc->pl_pmcid = r.pl_pmcid;
	cc->pl_cpuflags = r.pl_cpuflags;
	cc->pl_cpuflags2 = 0;
	cc->pl_npc = (uint32_t)npc;
	memcpy(cc->pl_pc, rec + sizeof(r), npc * sizeof(uint64_t));
	return 0;
}

static int pmclog_decode_initialize(struct pmclog_parser *ps, const char *rec,
				    struct pmclog_ev *ev)
{
	struct pmclog_ev_initialize *in = &ev->pl_u.pl_i;
	struct pmclog_initialize r;

	memcpy(&r, rec, sizeof(r));
	if (PMC_VERSION_TO_MAJOR(r.pl_version) != PMC_VERSION_MAJOR)
		return pmclog__fail(ps, EPROGMISMATCH,
				    "offset %llu: log version 0x%08x, this reader reads major %u",
				    (unsigned long long)ps->offset, r.pl_version,
				    PMC_VERSION_MAJOR);
	in->pl_version = r.pl_version;
	in->pl_arch = r.pl_cpu;
	in->pl_tsc_freq = r.pl_tsc_freq;
	in->pl_ts.tv_sec = (time_t)r.pl_ts_sec;
	in->pl_ts.tv_nsec = (long)r.pl_ts_nsec;
	in->pl_ts_mono = r.pl_ts_mono;
	pmclog_copy_fixed(in->pl_cpuid, sizeof(in->pl_cpuid), r.pl_cpuid,
			  sizeof(r.pl_cpuid));
	return 0;
}

static int pmclog_decode_overflow(struct pmclog_parser *ps, const char *rec,
				  size_t len, struct pmclog_ev *ev)
{
	struct pmclog_ev_overflow *o = &ev->pl_u.pl_o;
	struct pmclog_overflow r;

	memcpy(&r, rec, sizeof(r));
	if ((len - sizeof(r)) / sizeof(struct pmclog_overflow_entry) != r.pl_nentries ||
	    (len - sizeof(r)) % sizeof(struct pmclog_overflow_entry))
		return pmclog__fail(ps, EBADMSG,
				    "offset %llu: overflow record of %zu bytes with %u entries",
				    (unsigned long long)ps->offset, len,
				    r.pl_nentries);
	o->pl_group = r.pl_group;
	o->pl_tid = (pid_t)r.pl_tid;
	o->pl_pid = (pid_t)r.pl_pid;
	o->pl_nentries = r.pl_nentries;
	o->pl_ip = r.pl_ip;
	/* rec is 8-byte aligned (pmclog_impl.h), as the entries need. */
	o->pl_entries = r.pl_nentries ?
		(const struct pmclog_overflow_entry *)(const void *)(rec + sizeof(r)) :
		NULL;
	return 0;
}

/*
 * Unlike OVERFLOW, a SNAPSET may be longer than its entries: the driver sizes
 * it for the whole set and writes the running PMCs only (the rest is zero).
 */
static int pmclog_decode_snapset(struct pmclog_parser *ps, const char *rec,
				 size_t len, struct pmclog_ev *ev)
{
	struct pmclog_ev_snapset *ss = &ev->pl_u.pl_ss;
	struct pmclog_snapset r;

	memcpy(&r, rec, sizeof(r));
	if (r.pl_nentries > (len - sizeof(r)) / sizeof(struct pmclog_snapset_entry))
		return pmclog__fail(ps, EBADMSG,
				    "offset %llu: snapset record of %zu bytes with %u entries",
				    (unsigned long long)ps->offset, len,
				    r.pl_nentries);
	ss->pl_group = r.pl_group;
	ss->pl_cpu = r.pl_cpu;
	ss->pl_tid = (pid_t)r.pl_tid;
	ss->pl_nentries = r.pl_nentries;
	/* rec is 8-byte aligned (pmclog_impl.h), as the entries need. */
	ss->pl_entries = r.pl_nentries ?
		(const struct pmclog_snapset_entry *)(const void *)(rec + sizeof(r)) :
		NULL;
	return 0;
}

/* The records with only fixed fields. */
static void pmclog_decode_simple(uint32_t type, const char *rec,
				 struct pmclog_ev *ev)
{
	union {
		struct pmclog_dropnotify dn;
		struct pmclog_pmcallocate a;
		struct pmclog_pmcallocatedyn ad;
		struct pmclog_pmcdetach d;
		struct pmclog_proccsw c;
		struct pmclog_procexit e;
		struct pmclog_procfork f;
		struct pmclog_sysexit se;
		struct pmclog_userdata u;
		struct pmclog_map_out mo;
		struct pmclog_threadcreate tc;
		struct pmclog_threadexit te;
		struct pmclog_proccreate pc;
		struct pmclog_snapshot s;
	} r;

	memcpy(&r, rec, pmclog_fixed_size(type));
	switch (type) {
	case PMCLOG_TYPE_DROPNOTIFY:
		ev->pl_u.pl_dn.pl_records = r.dn.pl_records;
		ev->pl_u.pl_dn.pl_samples = r.dn.pl_samples;
		break;
	case PMCLOG_TYPE_PMCALLOCATE:
		ev->pl_u.pl_a.pl_event = r.a.pl_event;
		ev->pl_u.pl_a.pl_evname = pmclog_event_name(r.a.pl_event);
		ev->pl_u.pl_a.pl_flags = r.a.pl_flags;
		ev->pl_u.pl_a.pl_pmcid = r.a.pl_pmcid;
		ev->pl_u.pl_a.pl_rate = r.a.pl_rate;
		ev->pl_u.pl_a.pl_class = r.a.pl_class;
		ev->pl_u.pl_a.pl_type = r.a.pl_type;
		ev->pl_u.pl_a.pl_config = r.a.pl_config;
		break;
	case PMCLOG_TYPE_PMCALLOCATEDYN:
		ev->pl_u.pl_ad.pl_event = r.ad.pl_event;
		pmclog_copy_fixed(ev->pl_u.pl_ad.pl_evname,
				  sizeof(ev->pl_u.pl_ad.pl_evname),
				  r.ad.pl_evname, sizeof(r.ad.pl_evname));
		ev->pl_u.pl_ad.pl_flags = r.ad.pl_flags;
		ev->pl_u.pl_ad.pl_pmcid = r.ad.pl_pmcid;
		ev->pl_u.pl_ad.pl_rate = r.ad.pl_rate;
		ev->pl_u.pl_ad.pl_class = r.ad.pl_class;
		break;
	case PMCLOG_TYPE_PMCDETACH:
		ev->pl_u.pl_d.pl_pmcid = r.d.pl_pmcid;
		ev->pl_u.pl_d.pl_pid = (pid_t)r.d.pl_pid;
		break;
	case PMCLOG_TYPE_PROCCSW:
		ev->pl_u.pl_c.pl_pid = (pid_t)r.c.pl_pid;
		ev->pl_u.pl_c.pl_pmcid = r.c.pl_pmcid;
		ev->pl_u.pl_c.pl_value = r.c.pl_value;
		ev->pl_u.pl_c.pl_tid = (pid_t)r.c.pl_tid;
		break;
	case PMCLOG_TYPE_PROCEXIT:
		ev->pl_u.pl_e.pl_pid = r.e.pl_pid;
		ev->pl_u.pl_e.pl_pmcid = r.e.pl_pmcid;
		ev->pl_u.pl_e.pl_value = r.e.pl_value;
		break;
	case PMCLOG_TYPE_PROCFORK:
		ev->pl_u.pl_f.pl_oldpid = (pid_t)r.f.pl_oldpid;
		ev->pl_u.pl_f.pl_newpid = (pid_t)r.f.pl_newpid;
		break;
	case PMCLOG_TYPE_SYSEXIT:
		ev->pl_u.pl_se.pl_pid = (pid_t)r.se.pl_pid;
		break;
	case PMCLOG_TYPE_USERDATA:
		ev->pl_u.pl_u.pl_userdata = r.u.pl_userdata;
		break;
	case PMCLOG_TYPE_MAP_OUT:
		ev->pl_u.pl_mo.pl_pid = (pid_t)r.mo.pl_pid;
		ev->pl_u.pl_mo.pl_start = r.mo.pl_start;
		ev->pl_u.pl_mo.pl_end = r.mo.pl_end;
		break;
	case PMCLOG_TYPE_THR_CREATE:
		ev->pl_u.pl_tc.pl_tid = (pid_t)r.tc.pl_tid;
		ev->pl_u.pl_tc.pl_pid = (pid_t)r.tc.pl_pid;
		ev->pl_u.pl_tc.pl_flags = (int)r.tc.pl_flags;
		pmclog_copy_fixed(ev->pl_u.pl_tc.pl_tdname,
				  sizeof(ev->pl_u.pl_tc.pl_tdname),
				  r.tc.pl_tdname, sizeof(r.tc.pl_tdname));
		break;
	case PMCLOG_TYPE_THR_EXIT:
		ev->pl_u.pl_te.pl_tid = (pid_t)r.te.pl_tid;
		break;
	case PMCLOG_TYPE_PROC_CREATE:
		ev->pl_u.pl_pc.pl_pid = (pid_t)r.pc.pl_pid;
		ev->pl_u.pl_pc.pl_flags = r.pc.pl_flags;
		pmclog_copy_fixed(ev->pl_u.pl_pc.pl_pcomm,
				  sizeof(ev->pl_u.pl_pc.pl_pcomm),
				  r.pc.pl_pcomm, sizeof(r.pc.pl_pcomm));
		break;
	case PMCLOG_TYPE_SNAPSHOT:
		ev->pl_u.pl_s.pl_pmcid = r.s.pl_pmcid;
		ev->pl_u.pl_s.pl_group = r.s.pl_group;
		ev->pl_u.pl_s.pl_cpu = r.s.pl_cpu;
		ev->pl_u.pl_s.pl_tid = (pid_t)r.s.pl_tid;
		ev->pl_u.pl_s.pl_value = r.s.pl_value;
		break;
	}
}

int pmclog__decode(struct pmclog_parser *ps, const void *record, size_t len,
		   struct pmclog_ev *ev)
{
	const char *rec = record;
	struct pmclog_header h;
	size_t fixed;
	uint32_t type;

	memcpy(&h, rec, sizeof(h));
	type = PMCLOG_HEADER_TO_TYPE(h.pl_header);
	fixed = pmclog_fixed_size(type);
	if (!fixed)
		return pmclog__fail(ps, EBADMSG,
				    "offset %llu: unknown record type %u",
				    (unsigned long long)ps->offset, type);
	if (len < fixed)
		return pmclog__fail(ps, EBADMSG,
				    "offset %llu: record of type %u is %zu bytes, needs %zu",
				    (unsigned long long)ps->offset, type, len,
				    fixed);

	memset(&ev->pl_u, 0, sizeof(ev->pl_u));
	ev->pl_type = (enum pmclog_type)type;
	ev->pl_data = (void *)(uintptr_t)rec;
	ev->pl_len = (int)len;
	ev->pl_seq = h.pl_seq;
	ev->pl_tsc = h.pl_tsc;
	ev->pl_ts.tv_sec = (time_t)(h.pl_tsc / 1000000000u);
	ev->pl_ts.tv_nsec = (long)(h.pl_tsc % 1000000000u);

	switch (type) {
	case PMCLOG_TYPE_CLOSELOG:
		return 0;
	case PMCLOG_TYPE_CALLCHAIN:
		return pmclog_decode_callchain(ps, rec, len, ev);
	case PMCLOG_TYPE_INITIALIZE:
		return pmclog_decode_initialize(ps, rec, ev);
	case PMCLOG_TYPE_OVERFLOW:
		return pmclog_decode_overflow(ps, rec, len, ev);
	case PMCLOG_TYPE_SNAPSET:
		return pmclog_decode_snapset(ps, rec, len, ev);
	case PMCLOG_TYPE_MAP_IN: {
		struct pmclog_map_in r;

		memcpy(&r, rec, sizeof(r));
		ev->pl_u.pl_mi.pl_pid = (pid_t)r.pl_pid;
		ev->pl_u.pl_mi.pl_start = r.pl_start;
		ev->pl_u.pl_mi.pl_end = r.pl_end;
		ev->pl_u.pl_mi.pl_pgoff = r.pl_pgoff;
		return pmclog_copy_tail(ps, rec, sizeof(r), len,
					ev->pl_u.pl_mi.pl_pathname, PATH_MAX);
	}
	case PMCLOG_TYPE_PMCATTACH: {
		struct pmclog_pmcattach r;

		memcpy(&r, rec, sizeof(r));
		ev->pl_u.pl_t.pl_pmcid = r.pl_pmcid;
		ev->pl_u.pl_t.pl_pid = (pid_t)r.pl_pid;
		return pmclog_copy_tail(ps, rec, sizeof(r), len,
					ev->pl_u.pl_t.pl_pathname, PATH_MAX);
	}
	case PMCLOG_TYPE_PROCEXEC: {
		struct pmclog_procexec r;

		memcpy(&r, rec, sizeof(r));
		ev->pl_u.pl_x.pl_pid = (pid_t)r.pl_pid;
		ev->pl_u.pl_x.pl_pmcid = r.pl_pmcid;
		ev->pl_u.pl_x.pl_baseaddr = r.pl_baseaddr;
		ev->pl_u.pl_x.pl_dynaddr = r.pl_dynaddr;
		return pmclog_copy_tail(ps, rec, sizeof(r), len,
					ev->pl_u.pl_x.pl_pathname, PATH_MAX);
	}
	default:
		pmclog_decode_simple(type, rec, ev);
		return 0;
	}
}
