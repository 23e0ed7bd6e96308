# SPDX-License-Identifier: GPL-2.0
# The arm64 cross build and its guest (docs/arm64.md).
#
#   make arm64-root   Debian's arm64 kernel, headers and user space, unpacked
#                     through a private apt state into $(ARM64)/root (the
#                     sysroot and the guest's root); the host's dpkg
#                     architectures are never changed
#   make arm64        pmc.ko for Debian's arm64 kernel (W=1), the libraries,
#                     tools, selftests and benchmarks for arm64, all under
#                     $(ARM64)/src (see below)
#   make arm64-vm-smoke  boot the arm64 guest (tools/pmc-vm --arch arm64),
#                     load pmc.ko, run the arm64 selftests' smoke set
#
# The x86 module is built in the tree (driver/*.o) and the 6.1 kbuild has no
# separate output directory for external modules (MO= came with 6.13), so
# the arm64 build runs in a mirror of the working tree, $(ARM64)/src: the
# files git tracks or would track (not the ignored build outputs), copied
# with their times, files gone from the tree deleted.  The mirror's own
# build/ holds the arm64 user space, at the paths the tests expect relative
# to the repository root (driver/pmc.ko, build/selftests/bin/...), which is
# why the arm64 guest runs its commands in the mirror.

ARM64 := $(BUILD)/arm64
ARM64_ROOT := $(ARM64)/root
ARM64_SRC := $(ARM64)/src
ARM64_CROSS ?= aarch64-linux-gnu-
# The kernel release the root holds (tools/vm/arm64-root writes it).
ARM64_KVER = $(shell cat $(ARM64)/kver 2>/dev/null)
ARM64_KDIR = $(ARM64_ROOT)/usr/src/linux-headers-$(ARM64_KVER)
# Every compile and link of the mirror's user space goes through CC, so the
# sysroot rides on it: headers and libraries of the arm64 packages.
# -Wno-clobbered: the kselftest harness's setjmp-free fork wrapper
# (__TEST_F_IMPL's "child") draws aarch64 gcc 12's -Wclobbered false
# positive at -O1, which x86's gcc does not report; -Wextra enables it.
ARM64_CC = $(ARM64_CROSS)gcc --sysroot=$(ARM64_ROOT) -Wno-clobbered
ARM64_PKG_CONFIG = PKG_CONFIG_SYSROOT_DIR=$(ARM64_ROOT) \
	PKG_CONFIG_LIBDIR=$(ARM64_ROOT)/usr/lib/aarch64-linux-gnu/pkgconfig:$(ARM64_ROOT)/usr/share/pkgconfig

# `make deps`: the cross compiler and QEMU's arm64 system emulator.  A
# target-specific append, because mk/deps.mk, read after this file, sets
# DEPS_PACKAGES with :=.
deps: DEPS_PACKAGES += gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm

.PHONY: arm64-root arm64 arm64-module arm64-src arm64-vm-smoke
arm64-root:
	@$(TOP)/tools/vm/arm64-root $(ARM64)

# The mirror: git's view of the working tree (tracked and untracked files
# that are not ignored), so no x86 object reaches it.
arm64-src:
	@mkdir -p $(ARM64_SRC)
	@cd $(TOP) && git ls-files -co --exclude-standard -z | sort -z > $(ARM64)/src.list.new && \
	xargs -0 -a $(ARM64)/src.list.new cp -a --parents -t $(ARM64_SRC) && \
	if [ -f $(ARM64)/src.list ]; then \
		comm -z -23 $(ARM64)/src.list $(ARM64)/src.list.new | \
			(cd $(ARM64_SRC) && xargs -0 -r rm -f --); \
	fi && mv -f $(ARM64)/src.list.new $(ARM64)/src.list

# The mirror's make: kbuild cross-compiles the module (ARCH, CROSS_COMPILE
# and KDIR reach it from this command line), the rest uses ARM64_CC.  The
# kselftest harness comes from the linux-source of the guest kernel's
# series (6.1), extracted in the mirror's build/ksrc.  No 32-bit layout
# test (CC32=false: an i686 binary cannot run in the guest).
ARM64_SERIES = $(shell echo $(ARM64_KVER) | cut -d. -f1,2)
ARM64_KSRC_TARBALL = $(firstword $(wildcard /usr/src/linux-source-$(ARM64_SERIES).tar.xz) $(KSRC_TARBALL))
ARM64_MAKE = $(ARM64_PKG_CONFIG) $(MAKE) --no-print-directory -C $(ARM64_SRC) \
	ARCH=arm64 CROSS_COMPILE=$(ARM64_CROSS) KDIR=$(ARM64_KDIR) KVER=$(ARM64_KVER) \
	CC="$(ARM64_CC)" AR=$(ARM64_CROSS)ar CC32=false KSRC_TARBALL=$(ARM64_KSRC_TARBALL)

# Everything `make all selftests` builds on x86, with -k: a part that does
# not build for arm64 is reported and fails the target, the rest is built.
arm64: arm64-root arm64-src
	+$(ARM64_MAKE) -k all selftests

# The module alone.
arm64-module: arm64-root arm64-src
	+$(ARM64_MAKE) module

# A short proof that the arm64 guest runs: boot, pmc.ko, the arm64 tests,
# in a one-CPU guest (QEMU's PMU counts exactly only there: docs/arm64.md).
ARM64_SMOKE ?= arm64-
ARM64_SMOKE_SMP ?= 1
ARM64_CHECK_TIMEOUT ?= $(if $(filter 1,$(CHECK_ALL)),3600,900)
arm64-smoke-build: arm64-module
	+$(ARM64_MAKE) $(ARM64_SRC)/build/selftests/bin/arm64-pmu \
		$(ARM64_SRC)/build/selftests/bin/arm64-selfread \
		$(ARM64_SRC)/build/selftests/bin/arm64-hw \
		$(ARM64_SRC)/build/selftests/arm64/loop

arm64-vm-smoke: arm64-smoke-build
	PMC_VM_ARM64=$(ARM64) $(PMC_VM) --arch arm64 --smp $(ARM64_SMOKE_SMP) -- \
		selftests/run-all $(ARM64_SMOKE)

# The check step (make check, after the x86 kernels): two guests, the
# one-CPU smoke set (exact counts) and then, in a two-CPU guest, the tests
# that move a thread between CPUs, the sampling, perfmon, snapshot and
# libcpc suites on the real PMU, and CPU hotplug with PMCs (faults-hotplug)
# (ARM64_SMP2; the whole suite under make check-all: more than CI's hour
# leaves),
# each guest's TAP followed by its own verdict as one more line, as
# vm-check-<release> does. A build failure is one "not ok" line; the step
# itself exits 0 once its TAP file is written (tools/check-summary counts).
# make check-all (CHECK_ALL=1): the whole arm64 build, and the whole VM
# suite in the two-CPU guest.
# A guest that tools/vm/stall-watch ended as frozen (a CPU's heartbeat
# silent while QEMU idled or that vCPU sat idle: its clock stood still, the
# emulator's, docs/arm64.md) runs once more; its first TAP is left out of
# the count, the reason is printed.
ARM64_SMP2 ?= $(if $(filter 1,$(CHECK_ALL)),,arm64-selfread arm64-hw sampling- perfmon- snapshot- libcpc- faults-hotplug)
ARM64_CHECK_BUILD = arm64 arm64-smoke-build
CHECK_STEPS_LAST += arm64-check
.PHONY: arm64-smoke-build arm64-check
arm64-check:
	@mkdir -p $(BUILD)/check $(BUILD)/vm $(ARM64); \
	tap=$(BUILD)/check/arm64-check.tap; rm -f $$tap; \
	if ! $(MAKE) --no-print-directory $(ARM64_CHECK_BUILD) > $(ARM64)/check-build.log 2>&1; then \
		tail -n 20 $(ARM64)/check-build.log; \
		echo "not ok - arm64: the cross build failed (build/arm64/check-build.log)" | tee $$tap; \
		exit 0; fi; \
	for run in "$(ARM64_SMOKE_SMP) $(ARM64_SMOKE)" "2 $(ARM64_SMP2)"; do \
		set -- $$run; smp=$$1; shift; \
		res=$(ARM64)/check-result-smp$$smp; out=$(ARM64)/check-out-smp$$smp; \
		for try in 1 2; do \
			rm -f $$res; \
			PMC_VM_ARM64=$(ARM64) $(PMC_VM) --arch arm64 --smp $$smp \
				--log $(BUILD)/vm/arm64-check-console-smp$$smp.log --result $$res \
				--timeout $(ARM64_CHECK_TIMEOUT) -- selftests/run-all "$$@" | tee $$out; \
			st=$${PIPESTATUS[0]}; \
			if [ $$try = 1 ] && grep -q '^frozen:' $$res 2>/dev/null; then \
				echo "# arm64 vm, $$smp CPU: $$(head -n 1 $$res); the guest runs again (docs/arm64.md)" | tee -a $$tap; \
				cp $(BUILD)/vm/arm64-check-console-smp$$smp.log $(BUILD)/vm/arm64-check-console-smp$$smp-frozen.log; \
				continue; fi; \
			cat $$out >> $$tap; break; \
		done; \
		if [ -s $$res ]; then echo "not ok - arm64 vm, $$smp CPU: $$(head -n 1 $$res)"; \
		else echo "ok - arm64 vm, $$smp CPU: boot, insmod/rmmod pmc.ko, guest kernel log clean"; \
			if [ $$st -ne 0 ] && ! grep -q '^not ok ' $$tap; then \
				echo "not ok - arm64 vm, $$smp CPU: selftests/run-all exited $$st"; fi; \
		fi | tee -a $$tap; \
	done

# The arm64 self-read bench (bench/arm64/selfread.c, docs/performance.md
# "arm64"): pmc's self-read against perf's mmap self-read of the same event,
# PMCRW and perf read(2), in a one-CPU guest. ARM64_BENCH_ARGS: calls per
# way and turns (default 100000 5).
ARM64_BENCH_ARGS ?=
.PHONY: arm64-bench
$(BUILD)/bench/bin/bench-arm64-selfread: $(TOP)/bench/arm64/selfread.c \
		$(BUILD)/libpmc/libpmc.a
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -O2 -g -I$(TOP)/libpmc -o $@ $< \
		$(BUILD)/libpmc/libpmc.a -lpfm

arm64-bench: arm64-module
	+$(ARM64_MAKE) $(ARM64_SRC)/build/bench/bin/bench-arm64-selfread
	PMC_VM_ARM64=$(ARM64) $(PMC_VM) --arch arm64 --smp 1 -- \
		build/bench/bin/bench-arm64-selfread $(ARM64_BENCH_ARGS)

# The whole table of `make bench` in a two-CPU arm64 guest (bench_vm,
# bench/build.mk), with the benchmark programs of the mirror and perf of the
# arm64 root. Under -icount the guest's clock counts instructions, so the
# figures do not follow the host's load (docs/arm64.md), and vary little:
# QUICK=short (bench/run-all) by default, fewer and shorter runs, as that
# guest runs about 20 times slower. Results, table and plot in
# build/bench/arm64/; BENCH_ONLY as for make bench.
ARM64_BENCH_OUT = $(BENCH_OUT)/arm64
ARM64_BENCH_QUICK ?= short
ARM64_BENCH_BIN = $(ARM64_SRC)/build/bench/bin
.PHONY: arm64-bench-table arm64-bench-smp
arm64-bench-table: arm64 bench-progs
	@export PMC_VM_ARM64=$(ARM64); \
	$(call bench_vm,$(ARM64_BENCH_OUT),$(ARM64_BENCH_QUICK),$(BENCH_TIMEOUT),\
		--arch arm64 --smp 2,$(ARM64_BENCH_BIN)); st=$$?; \
	$(call bench_tables,$(ARM64_BENCH_OUT),arm64-bench-table)

# Benchmark 6 (many CPUs) in an arm64 guest of ARM64_BENCH_SMP (8) CPUs.
# Under -icount QEMU runs the vCPUs in turns on one host thread, and the
# guest's clock counts the instructions of all of them: a run's elapsed
# time is the whole machine's work, so each overhead row gives the
# instructions a tool adds on every CPU together, where make bench-smp's
# timed rows follow how the host shares 2 cores among 8 vCPUs
# (docs/performance.md, "Many CPUs"). ARM64_BENCH_SMP_MS: each thread's
# work, in ms of one CPU. Results in build/bench/arm64-smp/.
ARM64_BENCH_SMP ?= 8
ARM64_BENCH_SMP_MS ?= 500
ARM64_BENCH_SMP_OUT = $(BENCH_OUT)/arm64-smp
arm64-bench-smp: BENCH_ONLY ?= ^smp$$
arm64-bench-smp: arm64 bench-progs
	@export PMC_VM_ARM64=$(ARM64); \
	$(call bench_vm,$(ARM64_BENCH_SMP_OUT),$(ARM64_BENCH_QUICK),$(BENCH_TIMEOUT),\
		--arch arm64 --smp $(ARM64_BENCH_SMP) --mem 2G \
		--env BENCH_SPIN_MS=$(ARM64_BENCH_SMP_MS) \
		--env BENCH_SMP_TIME=elapsed_ns,$(ARM64_BENCH_BIN)); st=$$?; \
	$(call bench_tables,$(ARM64_BENCH_SMP_OUT),arm64-bench-smp)
