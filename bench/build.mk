# SPDX-License-Identifier: GPL-2.0
# bench/: benchmarks of pmc side by side with Linux's own interfaces
# (docs/performance.md).
#
#   make bench            build, boot the VM once, run every benchmark
#                         (bench/run-all), print the table; raw results,
#                         table, JSON and the scale plot under build/bench/
#   make bench QUICK=1    the same with tiny counts (seconds, no figure
#                         means anything)
#   make bench-compare BASE=REV
#                         this tree's module, libcpc and programs against
#                         those of git revision REV (built in a worktree,
#                         $(BUILD)/compare/base) in one VM boot: pmc's side
#                         of every row run with each build in turns, the
#                         module swapped between them; the ratio is this
#                         tree / REV (build/bench/compare/)
#   make bench-icount     the whole table in a one-CPU x86 guest whose clock
#                         counts instructions (QEMU -icount shift=0, as the
#                         arm64 guest's): exact and repeatable, free of the
#                         emulator's own costs; full counts as make bench,
#                         QUICK as there (build/bench/icount/)
#   bench-smoke           check step: QUICK=1 in its own short VM boot, one
#                         TAP line per benchmark ("ok N bench NAME runs")
#
# Every bench/<name>.c is one program, build/bench/bin/bench-<name>, linked
# with bench/lib/*.c (the shared timing helper and counter ops).

BENCH_OUT := $(BUILD)/bench
BENCH_BIN := $(BENCH_OUT)/bin
BENCH_CFLAGS := $(USER_CFLAGS) -O2 -g -fno-omit-frame-pointer -I$(TOP)/bench
BENCH_LIB_SRCS := $(sort $(wildcard $(TOP)/bench/lib/*.c))
BENCH_LIB_HDRS := $(sort $(wildcard $(TOP)/bench/lib/*.h $(TOP)/include/uapi/pmc/*.h))
BENCH_SRCS := $(sort $(wildcard $(TOP)/bench/*.c))
BENCH_PROGS := $(patsubst $(TOP)/bench/%.c,$(BENCH_BIN)/bench-%,$(BENCH_SRCS))
# Per-program libraries.
BENCH_LDLIBS_snapshot := -I$(TOP)/libcpc $(BUILD)/libcpc/libcpc.a -lpfm -lpthread
BENCH_DEPS_snapshot := $(BUILD)/libcpc/libcpc.a
BENCH_LDLIBS_scale := -lpthread
BENCH_LDLIBS_spin := -lpthread
BENCH_LDLIBS_plot := -lm
# The whole run: a loaded host makes TCG slower still.
BENCH_TIMEOUT ?= 5400
BENCH_SMOKE_TIMEOUT ?= 600
# Enough CPUs for benchmark 6 (many CPUs) to run in the smoke test too.
BENCH_SMOKE_SMP ?= 4
QUICK ?= 0

.PHONY: bench bench-progs bench-smoke bench-compare bench-smp bench-icount
ALL_TARGETS += bench-progs
CHECK_STEPS += bench-smoke
CLEAN_FILES += $(BENCH_OUT)

bench-progs: $(BENCH_PROGS)

.SECONDEXPANSION:
$(BENCH_BIN)/bench-%: $(TOP)/bench/%.c $(BENCH_LIB_SRCS) $(BENCH_LIB_HDRS) $$(BENCH_DEPS_$$*)
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -o $@ $< $(BENCH_LIB_SRCS) $(BENCH_LDLIBS_$*)

# bench_vm OUT-DIR, QUICK, TIMEOUT[, MORE-ARGS[, BIN]]: run bench/run-all in
# the VM (booting KVER, the kernel the module was built for; MORE-ARGS to
# tools/pmc-vm, --arch arm64 among them) with the benchmark programs of BIN
# (default BENCH_BIN); raw results in OUT-DIR/raw.txt, the VM's verdict
# (empty: clean) in OUT-DIR/vm-result.
define bench_vm
	mkdir -p $(1); rm -f $(1)/raw.txt $(1)/vm-result; \
	$(PMC_VM) --timeout $(3) --log $(1)/console.log --result $(1)/vm-result \
		$(if $(filter 1,$(words $(KVER))),--kver $(KVER)) \
		--env QUICK=$(2) --env BENCH_BIN=$(or $(5),$(BENCH_BIN)) \
		$(if $(BENCH_ONLY),--env BENCH_ONLY='$(BENCH_ONLY)') $(4) \
		-- bench/run-all > $(1)/raw.txt
endef

# bench_tables OUT-DIR NAME: after bench_vm (its status in $$st), the
# table (text, markdown, JSON) and the scale plot of OUT-DIR/raw.txt.
define bench_tables
	$(BENCH_BIN)/bench-report $(1)/raw.txt \
		--json $(1)/results.json | tee $(1)/results.txt; \
	$(BENCH_BIN)/bench-report $(1)/raw.txt --markdown > $(1)/results.md; \
	$(BENCH_BIN)/bench-plot $(1)/raw.txt > $(1)/perf-scale.svg; \
	echo "$(2): raw results, table (results.txt, .md), JSON and plot in $(1)/"; \
	if [ -s $(1)/vm-result ]; then \
		echo "$(2): the VM failed: $$(cat $(1)/vm-result)"; exit 1; fi; \
	exit $$st
endef

bench: module libcpc bench-progs
	@$(call bench_vm,$(BENCH_OUT),$(QUICK),$(BENCH_TIMEOUT)); st=$$?; \
	$(call bench_tables,$(BENCH_OUT),bench)

# bench-icount: under -icount the x86 guest's second CPU never comes up
# (the boot stops at "Booting SMP configuration"), so one CPU: rows that
# need two run with one, and the sampling rows' readers (perf record's,
# pmc's log writer) share the program's CPU on both sides.
BENCH_ICOUNT_OUT := $(BENCH_OUT)/icount
bench-icount: module libcpc bench-progs
	@export PMC_VM_QEMU_ARGS="-icount shift=0 $(PMC_VM_QEMU_ARGS)"; \
	$(call bench_vm,$(BENCH_ICOUNT_OUT),$(QUICK),$(BENCH_TIMEOUT),--smp 1); st=$$?; \
	$(call bench_tables,$(BENCH_ICOUNT_OUT),bench-icount)

# bench-smp: the many-CPU rows (system scope on every CPU, cpcstat cpu on
# one ring) and the scale rows up to 10,000 threads, in a guest of
# BENCH_SMP CPUs and BENCH_SMP_MEM of memory (10,000 threads need more than
# 1 GiB); its own folder, so that make bench's table stays whole.
BENCH_SMP ?= 8
BENCH_SMP_MEM ?= 3G
BENCH_SMP_OUT := $(BENCH_OUT)/smp

bench-smp: BENCH_ONLY ?= ^(smp|scale)$$
bench-smp: module libcpc tools bench-progs
	@$(call bench_vm,$(BENCH_SMP_OUT),$(QUICK),$(BENCH_TIMEOUT),\
		--smp $(BENCH_SMP) --mem $(BENCH_SMP_MEM) \
		$(if $(filter 1,$(QUICK)),,--env BENCH_THREADS='1 10 100 1000 10000')); st=$$?; \
	$(call bench_tables,$(BENCH_SMP_OUT),bench-smp)

# The smoke test keeps its files apart from the last real run's.
bench-smoke: module libcpc tools bench-progs
	@mkdir -p $(BUILD)/check
	@d=$(BENCH_OUT)/smoke; tap=$(BUILD)/check/bench-smoke.tap; \
	$(call bench_vm,$$d,1,$(BENCH_SMOKE_TIMEOUT),--smp $(BENCH_SMOKE_SMP)); \
	$(BENCH_BIN)/bench-report $$d/raw.txt --tap $$tap > $$d/results.txt; \
	n=$$(grep -c '^\(not \)\?ok ' $$tap); \
	if [ -s $$d/vm-result ]; then \
		echo "not ok $$((n + 1)) bench: VM: $$(head -n 1 $$d/vm-result)" >> $$tap; \
	else \
		echo "ok $$((n + 1)) bench: VM ran the benchmarks, guest kernel log clean" >> $$tap; \
	fi; \
	cat $$tap; \
	if [ $(MAKELEVEL) -eq 0 ] && grep -q '^not ok ' $$tap; then exit 1; fi

# bench-compare: REV's tree checked out (detached) in a worktree under
# $(BUILD)/compare/base, its module, libcpc and programs built there for
# the same kernel; run-all in compare mode (bench/run-all) with both.
BENCH_CMP_OUT := $(BENCH_OUT)/compare
BENCH_CMP_TREE := $(BUILD)/compare/base

bench-compare: module libcpc bench-progs
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<git revision>" >&2; exit 2; }
	@rev=$$(git -C $(TOP) rev-parse --verify '$(BASE)^{commit}') || exit 2; \
	if [ -e $(BENCH_CMP_TREE)/.git ]; then \
		git -C $(BENCH_CMP_TREE) checkout -q --detach $$rev || exit 1; \
	else \
		git -C $(TOP) worktree add -q --detach $(BENCH_CMP_TREE) $$rev || exit 1; \
	fi; \
	echo "  BUILD   $(BASE) ($$rev) in $(BENCH_CMP_TREE)"; \
	$(MAKE) --no-print-directory -C $(BENCH_CMP_TREE) module libcpc bench-progs \
		> $(BUILD)/compare/base-build.log 2>&1 || \
		{ tail -n 30 $(BUILD)/compare/base-build.log; exit 1; }
	@$(call bench_vm,$(BENCH_CMP_OUT),$(QUICK),$(BENCH_TIMEOUT),\
		--env BENCH_BASE_BIN=$(BENCH_CMP_TREE)/build/bench/bin \
		--env BENCH_BASE_MODULE=$(BENCH_CMP_TREE)/driver/pmc.ko); st=$$?; \
	echo "bench-compare: pmc = this tree ($$(git -C $(TOP) describe --always --dirty)), baseline = $(BASE) ($$(git -C $(BENCH_CMP_TREE) describe --always))"; \
	$(BENCH_BIN)/bench-report $(BENCH_CMP_OUT)/raw.txt \
		--json $(BENCH_CMP_OUT)/results.json | tee $(BENCH_CMP_OUT)/results.txt; \
	$(BENCH_BIN)/bench-report $(BENCH_CMP_OUT)/raw.txt --markdown > $(BENCH_CMP_OUT)/results.md; \
	echo "bench-compare: raw results and table in $(BENCH_CMP_OUT)/"; \
	if [ -s $(BENCH_CMP_OUT)/vm-result ]; then \
		echo "bench-compare: the VM failed: $$(cat $(BENCH_CMP_OUT)/vm-result)"; exit 1; fi; \
	exit $$st
