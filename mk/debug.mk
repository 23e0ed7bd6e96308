# SPDX-License-Identifier: GPL-2.0
# The debug kernel and the runs on it (docs/reliability.md).
#
#   make debug-kernel  build a KASAN/lockdep/kmemleak/UBSAN/fault-injection
#                      kernel from the installed linux-source tarball into
#                      $(BUILD)/debug-kernel (x86_64_defconfig merged with
#                      kconfig/debug.config), and pmc.ko + testpmu.ko for it
#                      in $(BUILD)/debug-module (apart from driver/*.o).
#                      Cached: nothing is done when nothing changed.
#   make check-debug   boot it (tools/pmc-vm --kernel debug), run the whole VM
#                      suite, the long fuzzer run and a kmemleak scan; fail on
#                      any kernel report.  Not part of `make check`.
#
# DEBUG_FLAVOUR=rt: the same for PREEMPT_RT (kconfig/debug-rt.config on top
# of kconfig/debug.config; lockdep's PROVE_RAW_LOCK_NESTING checks the RT
# lock rules) from /usr/src/linux-source-$(DEBUG_RT_SERIES).tar.xz, in
# $(BUILD)/debug-kernel-rt and $(BUILD)/debug-module-rt; check-debug then
# boots it (tools/pmc-vm --kernel debug-rt).
#
# Variables: DEBUG_KERNEL_JOBS (make -j, default: the number of CPUs),
# DEBUG_KERNEL_NICE (default 19: the build takes idle CPU only),
# DEBUG_FUZZ_OPS (default 1000000), DEBUG_FAULT_OPS (the run with 3 % of the
# allocations failed, default 100000), DEBUG_VM_TIMEOUT (seconds, default
# 14400), DEBUG_VM_ARGS (more pmc-vm options), DEBUG_FILTER (run-all filter:
# no fuzzer run then, unless DEBUG_FUZZ_OPS or DEBUG_FAULT_OPS is given).

DEBUG_FLAVOUR ?=
DEBUG_RT_SERIES ?= 6.12
DEBUG_SUFFIX := $(if $(DEBUG_FLAVOUR),-$(DEBUG_FLAVOUR))
DEBUG_KERNEL := $(BUILD)/debug-kernel$(DEBUG_SUFFIX)
DEBUG_MODULE := $(BUILD)/debug-module$(DEBUG_SUFFIX)
DEBUG_KCONFIG := $(TOP)/kconfig/debug.config $(if $(DEBUG_FLAVOUR),$(TOP)/kconfig/debug-$(DEBUG_FLAVOUR).config)
DEBUG_TARBALL := $(if $(filter rt,$(DEBUG_FLAVOUR)),$(wildcard /usr/src/linux-source-$(DEBUG_RT_SERIES).tar.xz),$(KSRC_TARBALL))
DEBUG_KERNEL_JOBS ?= $(shell nproc)
DEBUG_KERNEL_NICE ?= 19
DEBUG_FUZZ_OPS ?= 1000000
DEBUG_FAULT_OPS ?= 100000
DEBUG_VM_TIMEOUT ?= 14400
DEBUG_VM_ARGS ?=
DEBUG_FILTER ?=
DEBUG_KMAKE = nice -n $(DEBUG_KERNEL_NICE) $(MAKE) -C $(DEBUG_KERNEL) -j$(DEBUG_KERNEL_JOBS)

# Architectures other than x86 are not extracted (a third of the tarball).
# um stays: 6.12's fs/hostfs/Makefile, always visited, includes
# arch/um/scripts/Makefile.rules.
DEBUG_SKIP_ARCHES := alpha arc arm arm64 csky hexagon ia64 loongarch m68k microblaze \
	mips nios2 openrisc parisc powerpc riscv s390 sh sparc xtensa

.PHONY: debug-kernel debug-module check-debug

$(DEBUG_KERNEL)/.source:
	@test -n "$(DEBUG_TARBALL)" || { echo "error: no linux-source tarball in /usr/src for the debug kernel$(DEBUG_SUFFIX); run 'make deps'" >&2; exit 1; }
	@mkdir -p $(DEBUG_KERNEL)
	@echo "  EXTRACT $(DEBUG_TARBALL) -> $(DEBUG_KERNEL)"
	@nice -n $(DEBUG_KERNEL_NICE) tar -xJf $(DEBUG_TARBALL) -C $(DEBUG_KERNEL) \
		--strip-components=1 $(foreach a,$(DEBUG_SKIP_ARCHES),--exclude='*/arch/$(a)')
	@# crypto/Kconfig sources every architecture's crypto/Kconfig (inside an
	@# "if ARM" ...): empty files stand in for the ones not extracted.
	@cd $(DEBUG_KERNEL) && grep -ho 'source "arch/[a-z0-9]*/crypto/Kconfig"' crypto/Kconfig | \
		cut -d'"' -f2 | while read -r f; do \
		[ -e "$$f" ] || { mkdir -p "$${f%/*}" && : > "$$f"; }; done
	@touch $@

# x86_64_defconfig + the fragments (a later fragment's line for an option
# replaces an earlier one's: .fragment is what is merged); every line of
# .fragment must survive olddefconfig (a misspelt or unmet option fails
# here, not at boot).
$(DEBUG_KERNEL)/.config.stamp: $(DEBUG_KERNEL)/.source $(DEBUG_KCONFIG)
	@echo "  CONFIG  $(DEBUG_KERNEL)/.config (x86_64_defconfig + $(notdir $(DEBUG_KCONFIG)))"
	@cat $(DEBUG_KCONFIG) | awk '{ o = $$0; if (o ~ /^# CONFIG_[A-Za-z0-9_]+ is not set/) o = $$2; \
		else if (o ~ /^CONFIG_/) sub(/=.*/, "", o); else next; \
		if (!(o in at)) order[n++] = o; at[o] = $$0 } \
		END { for (i = 0; i < n; i++) print at[order[i]] }' > $(DEBUG_KERNEL)/.fragment
	@$(DEBUG_KMAKE) -s x86_64_defconfig
	@cd $(DEBUG_KERNEL) && KCONFIG_CONFIG=.config \
		scripts/kconfig/merge_config.sh -m -O . .config .fragment > .merge.log 2>&1 || \
		{ cat .merge.log; exit 1; }
	@$(DEBUG_KMAKE) -s olddefconfig
	@bad=0; while read -r line; do \
		case $$line in \
		'# CONFIG_'*' is not set') opt=$${line#\# }; opt=$${opt%% *}; \
			grep -q "^$$opt=" $(DEBUG_KERNEL)/.config && { echo "$(notdir $(DEBUG_KCONFIG)): $$opt is set"; bad=1; } ;; \
		CONFIG_*=*) grep -qxF "$$line" $(DEBUG_KERNEL)/.config || \
			{ echo "$(notdir $(DEBUG_KCONFIG)): '$$line' not in .config: $$(grep "^$${line%%=*}=" $(DEBUG_KERNEL)/.config || echo unset)"; bad=1; } ;; \
		esac; \
	done < $(DEBUG_KERNEL)/.fragment; exit $$bad
	@touch $@

$(DEBUG_KERNEL)/.built: $(DEBUG_KERNEL)/.config.stamp
	@echo "  BUILD   $(DEBUG_KERNEL) (-j$(DEBUG_KERNEL_JOBS), nice $(DEBUG_KERNEL_NICE)); log in $(DEBUG_KERNEL)/build.log"
	@start=$$(date +%s); \
	if ! $(DEBUG_KMAKE) bzImage modules > $(DEBUG_KERNEL)/build.log 2>&1; then \
		tail -n 40 $(DEBUG_KERNEL)/build.log; exit 1; fi; \
	rm -rf $(DEBUG_KERNEL)/modules; \
	$(DEBUG_KMAKE) -s modules_install INSTALL_MOD_PATH=$(DEBUG_KERNEL)/modules \
		INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod >> $(DEBUG_KERNEL)/build.log 2>&1 || exit 1; \
	rel=$$($(MAKE) -s -C $(DEBUG_KERNEL) kernelrelease); \
	mkdir -p $(DEBUG_KERNEL)/modules/lib/modules/$$rel/kernel; \
	echo "  DONE    debug kernel $$rel in $$(( $$(date +%s) - start )) s"
	@touch $@

# pmc.ko and testpmu.ko for the debug kernel, built from a copy of their
# sources (same layout: driver/, include/, selftests/testpmu/) so that the
# Debian-kernel objects in driver/ are never touched.
DEBUG_MODULE_SRCS = $(shell git -C $(TOP) ls-files -co --exclude-standard -- \
	'driver/*.[ch]' 'driver/Kbuild' 'include/uapi/*.h' 'selftests/testpmu/*.[ch]' \
	'selftests/testpmu/Kbuild' | grep -v '\.mod\.c$$')
DEBUG_PMC_KO := $(DEBUG_MODULE)/driver/pmc.ko
DEBUG_TESTPMU_KO := $(DEBUG_MODULE)/selftests/testpmu/testpmu.ko

$(DEBUG_PMC_KO): $(DEBUG_KERNEL)/.built $(addprefix $(TOP)/,$(DEBUG_MODULE_SRCS))
	@# The copy of mk/kernels.mk (no rsync): a source removed from the
	@# tree goes from the copy too (Kbuild takes every *.c).
	@$(call kmod_sync,$(DEBUG_MODULE))
	$(MAKE) -C $(DEBUG_KERNEL) M=$(DEBUG_MODULE)/driver W=1 modules
	$(MAKE) -C $(DEBUG_KERNEL) M=$(DEBUG_MODULE)/selftests/testpmu W=1 modules
	@touch $@

$(DEBUG_TESTPMU_KO): $(DEBUG_PMC_KO)

debug-module: $(DEBUG_PMC_KO)

debug-kernel: $(DEBUG_KERNEL)/.built debug-module

# check-debug: the VM suite, the long fuzzer run and kmemleak on the debug
# kernel.  It boots the bzImage (PMC_VM_PVH=0), not the PVH entry of its
# vmlinux: the PVH entry runs C code (arch/x86/platform/pvh/enlighten.c,
# KASAN-instrumented) before KASAN's shadow is mapped, and the guest
# triple-faults before its first console line.  selftests/faults/debug-run does the guest's part (it puts the
# debug modules where the tests look for them, in the guest's overlay only).
# Besides pmc-vm's own verdict, the kernel log is searched for every report
# the debug options produce.  TAP in $(BUILD)/check/check-debug.tap, the
# console and kernel log in $(BUILD)/vm/debug-console.log.
DEBUG_REPORTS := BUG: KASAN|UBSAN:|WARNING: possible|possible circular locking|inconsistent lock state|possible recursive locking|lock held when returning|ODEBUG:|sleeping function called from invalid context|suspected memory leak|list_(add|del) corruption|Oops|BUG:|WARNING:|general protection fault
# Not reports: kmemleak's start-up line and its scan summaries (debug-run
# judges the leaks from /sys/kernel/debug/kmemleak after clearing the boot's);
# the stack that warn_alloc() prints when an injected fault fails a vmalloc
# (every real report has a header of its own: BUG:, WARNING:, KASAN, ...);
# kmemleak's own allocation failed by an injected fault (it then scans the
# whole object: no report, and no leak is missed); mm/vmalloc.c's
# WARN_ON_ONCE in __alloc_vmap_area(), reached only when the per-CPU
# preload and its GFP_NOWAIT fallback both fail, i.e. two injected faults
# in a row (every run here injects faults; the driver is not on its stack).
DEBUG_VM_IGNORE := kmemleak: Kernel memory leak detector initialized|kmemleak: [0-9]+ new suspected memory leaks \(see|kmemleak: Cannot allocate a scan area|Call Trace:|vmalloc error: size|page allocation failure: order|WARNING: CPU: [0-9]+ PID: [0-9]+ at mm/vmalloc\.c:[0-9]+ (__)?alloc_vmap_area\+

# One guest (part "all") when DEBUG_FILTER picks tests or DEBUG_PARALLEL=0;
# otherwise one for the suite ("suite") and DEBUG_FUZZ_GUESTS for the
# fuzzer ("fuzz1" ... , each a share of DEBUG_FUZZ_OPS and DEBUG_FAULT_OPS;
# selftests/faults/debug-run), all at once. TCG runs a guest on one host
# thread, so one CPU is left to the suite (its timing tests want it) and
# the others run fuzzer guests: one on 2 CPUs, three on 4.
# DEBUG_PARTS="fuzz1 fuzz2" (with DEBUG_FUZZ_GUESTS=2) runs only the
# fuzzer, in two guests.
DEBUG_PARALLEL ?= 1
DEBUG_FUZZ_GUESTS ?= $(shell n=$$(nproc); echo $$(( n > 2 ? n - 1 : 1 )))
DEBUG_PARTS := $(if $(DEBUG_FILTER),all,$(if $(filter 1,$(DEBUG_PARALLEL)),suite \
	$(foreach k,$(shell seq $(DEBUG_FUZZ_GUESTS)),fuzz$(k)),all))

# debug_guest PART: boot the debug kernel and run debug-run's PART, TAP in
# $(BUILD)/check/check-debug-PART.tap, console in $(BUILD)/vm/debug-PART-console.log.
define debug_guest
	tap=$(BUILD)/check/check-debug-$(1).tap; res=$(BUILD)/vm/debug-$(1)-result; \
	log=$(BUILD)/vm/debug-$(1)-console.log; rm -f $$tap $$res; start=$$(date +%s); \
	PMC_VM_PVH=0 PMC_VM_IGNORE='$(DEBUG_VM_IGNORE)' $(PMC_VM) --kernel debug$(DEBUG_SUFFIX) --module $(DEBUG_PMC_KO) \
		--smp 2 --mem 2G --timeout $(DEBUG_VM_TIMEOUT) --log $$log --result $$res \
		--env PMC_DEBUG_PART=$(1) --env PMC_DEBUG_FUZZ_GUESTS=$(DEBUG_FUZZ_GUESTS) \
		--env PMC_DEBUG_MODULES=$(DEBUG_MODULE) \
		--env PMC_DEBUG_FUZZ_OPS=$(DEBUG_FUZZ_OPS) --env PMC_DEBUG_FAULT_OPS=$(DEBUG_FAULT_OPS) \
		$(if $(filter command line environment,$(origin DEBUG_FUZZ_OPS) $(origin DEBUG_FAULT_OPS)),--env PMC_DEBUG_FUZZ_FORCE=1) \
		$(if $(PMC_TEST_TIMEOUT),--env PMC_TEST_TIMEOUT=$(PMC_TEST_TIMEOUT)) \
		$(DEBUG_VM_ARGS) -- selftests/faults/debug-run $(DEBUG_FILTER) > $$tap 2>&1; \
	st=$$?; \
	{ if [ -s $$res ]; then echo "not ok - debug vm ($(1)): $$(head -n 1 $$res)"; \
	  elif [ $$st -ne 0 ]; then echo "not ok - debug vm ($(1)): debug-run exited $$st"; \
	  else echo "ok - debug vm ($(1)): guest kernel log clean ($$(( $$(date +%s) - start )) s)"; fi; \
	  reports=$$(sed -n '/^==== guest kernel log after the command/,$$p' $$log | \
		grep -E '$(DEBUG_REPORTS)' | grep -vE '$(DEBUG_VM_IGNORE)' | head -n 20); \
	  if [ -n "$$reports" ]; then echo "not ok - debug kernel reports ($(1)):"; \
		echo "$$reports" | sed 's/^/# /'; \
	  else echo "ok - debug kernel ($(1)): no KASAN, lockdep, UBSAN, ODEBUG, might_sleep or kmemleak report"; fi; \
	} >> $$tap
endef

check-debug: debug-kernel
	@mkdir -p $(BUILD)/check $(BUILD)/vm
	@$(MAKE) --no-print-directory -k selftests fuzz || true
	@tap=$(BUILD)/check/check-debug.tap; rm -f $$tap; \
	echo "  VM      debug kernel, part(s) $(DEBUG_PARTS): progress in $(BUILD)/check/check-debug-PART.tap"; \
	$(foreach part,$(DEBUG_PARTS),( $(call debug_guest,$(part)) ) & ) wait; \
	for part in $(DEBUG_PARTS); do cat $(BUILD)/check/check-debug-$$part.tap; done > $$tap; \
	grep -vE '^    ' $$tap | grep -E '^(not )?ok|^# debug-run|^# pmc-fuzz: [0-9]+ ops in|allocation faults injected|PASS|FAIL'; \
	pass=$$(grep -cE '^ok ' $$tap); fail=$$(grep -cE '^not ok ' $$tap); \
	echo "check-debug: $$pass passed, $$fail failed"; \
	[ $$fail -eq 0 ]

CLEAN_FILES += $(DEBUG_MODULE)
