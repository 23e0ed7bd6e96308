// SPDX-License-Identifier: GPL-2.0
/*
 * mklog.c - write a pmclog file (include/uapi/pmc/pmclog.h records) that
 * describes samples of a real ELF file mapped at a made-up address, for the
 * host tests of `cpcstat report`.
 *
 *   mklog [-t] OUT EXE PID BASE SYM:COUNT...
 *
 * EXE is "exec'ed" by PID and its executable segment mapped at load bias
 * BASE; each SYM:COUNT writes COUNT two-frame samples (SYM+8, called from
 * main). -t leaves out the closing record and cuts the last record short,
 * as a log whose writer was interrupted.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmc/hwpmc.h>
#include <pmc/pmclog.h>

static FILE *out;
static unsigned int seq;
static uint64_t ts = 1000000000ULL;

static void record(uint32_t type, void *rec, size_t len)
{
	struct pmclog_header *h = rec;

	h->pl_header = PMCLOG_HEADER(type, len);
	h->pl_seq = seq++;
	h->pl_tsc = ts;
	ts += 1000000;	/* 1 ms per record */
	fwrite(rec, 1, len, out);
}

static size_t rounded(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static uint64_t symbol(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;

			if (gelf_getsym(data, (int)i, &sym) &&
			    strcmp(elf_strptr(elf, sh.sh_link, sym.st_name), name) == 0)
				return sym.st_value;
		}
	}
	fprintf(stderr, "mklog: no symbol %s\n", name);
	exit(1);
}

int main(int argc, char **argv)
{
	bool truncate = argc > 1 && strcmp(argv[1], "-t") == 0;
	char buf[8192];
	uint64_t base, main_addr;
	uint32_t pid;
	GElf_Phdr text = { 0 };
	size_t phnum;
	Elf *elf;
	int fd;

	if (truncate) {
		argv++;
		argc--;
	}
	if (argc < 6) {
		fprintf(stderr, "usage: mklog [-t] OUT EXE PID BASE SYM:COUNT...\n");
		return 2;
	}
	pid = (uint32_t)strtoul(argv[3], NULL, 0);
	base = strtoull(argv[4], NULL, 0);
	elf_version(EV_CURRENT);
	fd = open(argv[2], O_RDONLY);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (!elf || elf_getphdrnum(elf, &phnum)) {
		fprintf(stderr, "mklog: cannot read %s\n", argv[2]);
		return 1;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			text = ph;
	}
	main_addr = base + symbol(elf, "main");
	out = fopen(argv[1], "w");
	if (!out)
		return 1;

	{
		struct pmclog_initialize r = { .pl_version = PMC_VERSION, .pl_cpu = PMC_CPU_GENERIC,
					       .pl_tsc_freq = 1000000000ULL };

		strcpy(r.pl_cpuid, "mklog");
		record(PMCLOG_TYPE_INITIALIZE, &r, sizeof(r));
	}
	{
		struct pmclog_pmcallocatedyn r = { .pl_pmcid = 0x2f00, .pl_class = PMC_CLASS_SOFT,
						   .pl_rate = 1000000 };

		strcpy(r.pl_evname, "cpu-clock");
		record(PMCLOG_TYPE_PMCALLOCATEDYN, &r, sizeof(r));
	}
	{
		struct pmclog_procexec *r = (void *)buf;
		size_t len = rounded(sizeof(*r) + strlen(argv[2]) + 1);

		memset(buf, 0, len);
		r->pl_pid = pid;
		r->pl_dynaddr = base;
		strcpy(r->pl_pathname, argv[2]);
		record(PMCLOG_TYPE_PROCEXEC, r, len);
	}
	{
		struct pmclog_map_in *r = (void *)buf;
		size_t len = rounded(sizeof(*r) + strlen(argv[2]) + 1);

		memset(buf, 0, len);
		r->pl_pid = pid;
		r->pl_start = base + (text.p_vaddr & ~0xfffULL);
		r->pl_end = base + text.p_vaddr + text.p_memsz;
		r->pl_pgoff = text.p_offset & ~0xfffULL;
		strcpy(r->pl_pathname, argv[2]);
		record(PMCLOG_TYPE_MAP_IN, r, len);
	}
	for (int a = 5; a < argc; a++) {
		char name[256];
		unsigned int count;
		struct pmclog_callchain *r = (void *)buf;
		size_t len = sizeof(*r) + 2 * sizeof(uint64_t);

		if (sscanf(argv[a], "%255[^:]:%u", name, &count) != 2)
			return 2;
		for (unsigned int i = 0; i < count; i++) {
			memset(buf, 0, len);
			r->pl_pid = pid;
			r->pl_tid = pid;
			r->pl_pmcid = 0x2f00;
			r->pl_cpuflags = PMC_CALLCHAIN_TO_CPUFLAGS(i % 2, PMC_CC_F_USERSPACE);
			r->pl_pc[0] = base + symbol(elf, name) + 8;
			r->pl_pc[1] = main_addr + 16;
			record(PMCLOG_TYPE_CALLCHAIN, r, len);
		}
	}
	{
		struct pmclog_dropnotify r = { .pl_records = 1, .pl_samples = 2 };

		record(PMCLOG_TYPE_DROPNOTIFY, &r, sizeof(r));
	}
	if (truncate) {
		struct pmclog_callchain *r = (void *)buf;

		memset(buf, 0, sizeof(*r) + 16);
		r->pl_hdr.pl_header = PMCLOG_HEADER(PMCLOG_TYPE_CALLCHAIN, sizeof(*r) + 16);
		fwrite(r, 1, sizeof(*r) / 2, out);	/* cut short mid-record */
	} else {
		struct pmclog_closelog r;

		memset(&r, 0, sizeof(r));
		record(PMCLOG_TYPE_CLOSELOG, &r, sizeof(r));
	}
	elf_end(elf);
	close(fd);
	return fclose(out) ? 1 : 0;
}
