// SPDX-License-Identifier: GPL-2.0
/*
 * symbols.c - per-process address spaces rebuilt from the log, resolved with
 * libdwfl. Each process gets a Dwfl holding one module per mapped ELF file,
 * reported at its load bias (computed from the mapping's file offset and the
 * ELF program headers), rebuilt lazily after its mappings change.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

#define PROC_BUCKETS	1024
#define KERNEL_START	0xffff800000000000ULL

struct mapping {
	uint64_t start, end, pgoff;
	uint64_t bias;
	bool has_bias;		/* from PROCEXEC's load base, not a mapping */
	bool reported;		/* given to libdwfl as a module at BIAS */
	bool fallback;		/* not from the log: survives exec, used last */
	const char *path;	/* pooled */
};

struct cache_entry {
	uint64_t addr;		/* lookup address + 1, 0 = empty slot */
	struct symbol sym;
};

struct proc {
	pid_t pid;
	const char *comm;
	struct mapping *maps;
	unsigned int nmaps, capmaps;
	Dwfl *dwfl;
	bool dirty;
	bool tried_proc_maps;
	struct cache_entry *cache;
	size_t ncache, capcache;
	struct proc *next;
};

struct ksym {
	uint64_t addr;
	const char *name;
};

struct symtab {
	struct strpool *pool;
	struct proc *buckets[PROC_BUCKETS];
	struct ksym *ksyms;
	size_t nksyms;
	bool ksyms_loaded;
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;
};

struct symtab *symtab_new(struct strpool *pool)
{
	struct symtab *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	/* libelf refuses to work before this (the bias computation reads ELF). */
	elf_version(EV_CURRENT);
	st->pool = pool;
	st->callbacks.find_elf = dwfl_linux_proc_find_elf;
	st->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	st->callbacks.section_address = dwfl_offline_section_address;
	st->callbacks.debuginfo_path = &st->debuginfo_path;
	return st;
}

static void proc_forget(struct proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	free(p->cache);
	p->cache = NULL;
	p->ncache = p->capcache = 0;
	p->dirty = true;
}

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	for (int i = 0; i < PROC_BUCKETS; i++) {
		struct proc *p = st->buckets[i], *next;

		for (; p; p = next) {
			next = p->next;
			proc_forget(p);
			free(p->maps);
			free(p);
		}
	}
	free(st->ksyms);
	free(st);
}

static struct proc *proc_get(struct symtab *st, pid_t pid, bool create)
{
	struct proc **b = &st->buckets[(unsigned int)pid % PROC_BUCKETS], *p;

	for (p = *b; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->dirty = true;
	p->next = *b;
	*b = p;
	return p;
}

static void add_mapping(struct proc *p, const struct mapping *m)
{
	if (p->nmaps == p->capmaps) {
		unsigned int cap = p->capmaps ? p->capmaps * 2 : 16;
		struct mapping *maps = realloc(p->maps, cap * sizeof(*maps));

		if (!maps)
			return;
		p->maps = maps;
		p->capmaps = cap;
	}
	p->maps[p->nmaps++] = *m;
	proc_forget(p);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

void symtab_exec(struct symtab *st, pid_t pid, const char *path, uint64_t dynaddr)
{
	struct proc *p = proc_get(st, pid, true);
	struct mapping m = { .bias = dynaddr, .has_bias = true };

	unsigned int j = 0;

	if (!p)
		return;
	/* The old image is gone; what FILE.maps says stays as a fallback. */
	for (unsigned int i = 0; i < p->nmaps; i++)
		if (p->maps[i].fallback)
			p->maps[j++] = p->maps[i];
	p->nmaps = j;
	p->comm = strpool_get(st->pool, base_name(path));
	m.path = strpool_get(st->pool, path);
	if (m.path)
		add_mapping(p, &m);
	proc_forget(p);
}

void symtab_map_in(struct symtab *st, pid_t pid, uint64_t start, uint64_t end,
		   uint64_t pgoff, const char *path)
{
	struct proc *p = proc_get(st, pid, true);
	struct mapping m = { .start = start, .end = end, .pgoff = pgoff };

	if (!p || !path || path[0] != '/')
		return;		/* anonymous and special mappings have no symbols here */
	m.path = strpool_get(st->pool, path);
	if (m.path)
		add_mapping(p, &m);
}

void symtab_map_in_fallback(struct symtab *st, pid_t pid, uint64_t start, uint64_t end,
			    uint64_t pgoff, const char *path)
{
	struct proc *p = proc_get(st, pid, true);
	struct mapping m = { .start = start, .end = end, .pgoff = pgoff, .fallback = true };

	if (!p || !path || path[0] != '/')
		return;
	m.path = strpool_get(st->pool, path);
	if (m.path)
		add_mapping(p, &m);
}

void symtab_map_out(struct symtab *st, pid_t pid, uint64_t start, uint64_t end)
{
	struct proc *p = proc_get(st, pid, false);
	unsigned int j = 0;

	if (!p)
		return;
	for (unsigned int i = 0; i < p->nmaps; i++) {
		struct mapping *m = &p->maps[i];

		if (!m->has_bias && m->start >= start && m->end <= end)
			continue;
		p->maps[j++] = *m;
	}
	p->nmaps = j;
	proc_forget(p);
}

void symtab_fork(struct symtab *st, pid_t parent, pid_t child)
{
	struct proc *pp = proc_get(st, parent, false);
	struct proc *cp = proc_get(st, child, true);

	if (!pp || !cp || pp == cp)
		return;
	cp->nmaps = 0;
	for (unsigned int i = 0; i < pp->nmaps; i++)
		add_mapping(cp, &pp->maps[i]);
	cp->comm = pp->comm;
	proc_forget(cp);
}

void symtab_set_comm(struct symtab *st, pid_t pid, const char *comm)
{
	struct proc *p = proc_get(st, pid, true);

	if (p && comm && *comm)
		p->comm = strpool_get(st->pool, comm);
}

const char *symtab_comm(struct symtab *st, pid_t pid)
{
	struct proc *p = proc_get(st, pid, false);
	char path[64], buf[256];
	FILE *fp;

	if (p && p->comm)
		return p->comm;
	if (pid == 0)
		return strpool_get(st->pool, "swapper");	/* the idle task, as perf names it */
	/* A process the log never named: ask /proc while it lives. */
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fp = fopen(path, "r");
	if (fp && fgets(buf, sizeof(buf), fp)) {
		buf[strcspn(buf, "\n")] = '\0';
		fclose(fp);
		symtab_set_comm(st, pid, buf);
		p = proc_get(st, pid, false);
		if (p && p->comm)
			return p->comm;
	} else if (fp) {
		fclose(fp);
	}
	snprintf(buf, sizeof(buf), "pid:%d", (int)pid);
	return strpool_get(st->pool, buf);
}

/* The load bias of PATH given that file offset PGOFF is mapped at START. */
static bool mapping_bias(const struct mapping *m, uint64_t *bias)
{
	GElf_Ehdr ehdr;
	size_t phnum;
	bool found = false;
	Elf *elf;
	int fd;

	if (m->has_bias) {
		*bias = m->bias;
		return true;
	}
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && gelf_getehdr(elf, &ehdr) && elf_getphdrnum(elf, &phnum) == 0) {
		if (ehdr.e_type == ET_EXEC) {
			*bias = 0;
			found = true;
		}
		for (size_t i = 0; !found && i < phnum; i++) {
			GElf_Phdr ph;
			uint64_t page_off;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			page_off = ph.p_offset & ~(uint64_t)0xfff;
			if (m->pgoff < page_off || m->pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = m->start - (ph.p_vaddr - ph.p_offset + m->pgoff);
			found = true;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* Mappings of a live process, for processes the log has no records of. */
static void read_proc_maps(struct symtab *st, struct proc *p)
{
	char path[64], line[4096], file[4096], perms[8];
	uint64_t start, end, off;
	FILE *fp;

	p->tried_proc_maps = true;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	fp = fopen(path, "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		file[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095[^\n]",
			   &start, &end, perms, &off, file) < 4)
			continue;
		if (perms[2] == 'x' && file[0] == '/')
			symtab_map_in(st, p->pid, start, end, off, file);
	}
	fclose(fp);
}

/* Does a mapping of the log (not the exec record, not a fallback) name PATH? */
static bool path_mapped(const struct proc *p, const char *path)
{
	for (unsigned int i = 0; i < p->nmaps; i++)
		if (!p->maps[i].has_bias && !p->maps[i].fallback && p->maps[i].path == path)
			return true;
	return false;
}

static void report_mapping(struct proc *p, unsigned int i)
{
	struct mapping *m = &p->maps[i];
	uint64_t bias;

	m->reported = false;
	if (m->has_bias && path_mapped(p, m->path))
		return;		/* the log's mappings say more than the exec record */
	if (!mapping_bias(m, &bias))
		return;
	m->bias = bias;
	/* One module per file and bias: a file may be mapped in pieces. */
	for (unsigned int j = 0; j < p->nmaps; j++)
		if (j != i && p->maps[j].reported && p->maps[j].path == m->path &&
		    (p->maps[j].bias == bias || m->fallback))
			return;
	/* libdwfl refuses a module overlapping another: a fallback just loses. */
	m->reported = dwfl_report_elf(p->dwfl, base_name(m->path), m->path, -1, bias, true) != NULL;
}

static void proc_build(struct symtab *st, struct proc *p)
{
	if (p->nmaps == 0 && !p->tried_proc_maps)
		read_proc_maps(st, p);
	p->dwfl = dwfl_begin(&st->callbacks);
	if (!p->dwfl)
		return;
	dwfl_report_begin(p->dwfl);
	for (unsigned int i = 0; i < p->nmaps; i++)
		p->maps[i].reported = false;
	/* The log's own records first, the fallbacks where they leave room. */
	for (unsigned int i = 0; i < p->nmaps; i++)
		if (!p->maps[i].fallback)
			report_mapping(p, i);
	for (unsigned int i = 0; i < p->nmaps; i++)
		if (p->maps[i].fallback)
			report_mapping(p, i);
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->dirty = false;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_kallsyms(struct symtab *st)
{
	char line[512], name[256], type;
	size_t cap = 0;
	uint64_t addr;
	FILE *fp;

	st->ksyms_loaded = true;
	fp = fopen("/proc/kallsyms", "r");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (st->nksyms == cap) {
			struct ksym *k;

			cap = cap ? cap * 2 : 65536;
			k = realloc(st->ksyms, cap * sizeof(*k));
			if (!k)
				break;
			st->ksyms = k;
		}
		st->ksyms[st->nksyms].addr = addr;
		st->ksyms[st->nksyms].name = strpool_get(st->pool, name);
		st->nksyms++;
	}
	fclose(fp);
	qsort(st->ksyms, st->nksyms, sizeof(*st->ksyms), ksym_cmp);
}

static void resolve_kernel(struct symtab *st, uint64_t addr, struct symbol *out)
{
	size_t lo = 0, hi;
	char buf[32];

	if (!st->ksyms_loaded)
		load_kallsyms(st);
	out->dso = strpool_get(st->pool, "[kernel.kallsyms]");
	hi = st->nksyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (st->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		out->sym = st->ksyms[lo - 1].name;
		return;
	}
	snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	out->sym = strpool_get(st->pool, buf);
}

static struct cache_entry *cache_slot(struct proc *p, uint64_t addr)
{
	size_t i;

	if ((p->ncache + 1) * 2 > p->capcache) {
		size_t cap = p->capcache ? p->capcache * 2 : 1024;
		struct cache_entry *c = calloc(cap, sizeof(*c));

		if (!c)
			return NULL;
		for (size_t k = 0; k < p->capcache; k++) {
			if (!p->cache[k].addr)
				continue;
			for (i = (p->cache[k].addr * 0x9e3779b97f4a7c15ULL) >> 40 & (cap - 1);
			     c[i].addr; i = (i + 1) & (cap - 1))
				;
			c[i] = p->cache[k];
		}
		free(p->cache);
		p->cache = c;
		p->capcache = cap;
	}
	for (i = ((addr + 1) * 0x9e3779b97f4a7c15ULL) >> 40 & (p->capcache - 1);
	     p->cache[i].addr && p->cache[i].addr != addr + 1; i = (i + 1) & (p->capcache - 1))
		;
	return &p->cache[i];
}

void symtab_resolve(struct symtab *st, pid_t pid, uint64_t addr, bool retaddr,
		    struct symbol *out)
{
	uint64_t look = retaddr && addr ? addr - 1 : addr;
	struct proc *p;
	struct cache_entry *slot;
	Dwfl_Module *mod;
	char buf[32];

	if (look >= KERNEL_START) {
		resolve_kernel(st, look, out);
		return;
	}
	out->dso = strpool_get(st->pool, "[unknown]");
	snprintf(buf, sizeof(buf), "0x%" PRIx64, addr);
	out->sym = strpool_get(st->pool, buf);
	p = proc_get(st, pid, true);
	if (!p)
		return;
	if (p->dirty)
		proc_build(st, p);
	slot = cache_slot(p, look);
	if (slot && slot->addr) {
		*out = slot->sym;
		return;
	}
	mod = p->dwfl ? dwfl_addrmodule(p->dwfl, look) : NULL;
	if (mod) {
		const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		GElf_Off off;
		GElf_Sym sym;
		const char *name = dwfl_module_addrinfo(mod, look, &off, &sym, NULL, NULL, NULL);

		if (mname)
			out->dso = strpool_get(st->pool, mname);
		if (name)
			out->sym = strpool_get(st->pool, name);
	}
	if (slot) {
		slot->addr = look + 1;
		slot->sym = *out;
		p->ncache++;
	}
}
