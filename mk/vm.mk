# SPDX-License-Identifier: GPL-2.0
# The test VM (tools/pmc-vm, docs/vm.md): the vm-check step and `make run`.
#
#   make vm-check   boot the VM with pmc.ko, run selftests/run-all in it;
#                   TAP in $(BUILD)/check/vm-check.tap, guest console and
#                   kernel log in $(BUILD)/vm/check-console.log
#   make vm-check-<release>  the same on another kernel (see below)
#   make check-all  make check with the whole suite on every kernel
#   make run        load pmc.ko here if this kernel can, else in the VM, and
#                   run tools/demo

PMC_VM := $(TOP)/tools/pmc-vm
export PMC_VM_DIR ?= $(BUILD)/vm
# Modules loaded before pmc.ko in the VM suite, in order: a fragment adds
# its own with `VM_INSMOD += path/to/x.ko` (and makes it a prerequisite of
# selftests).  VM_ARGS: more pmc-vm options, e.g. `make vm-check VM_ARGS="--smp 4"`.
# PMC_TEST_TIMEOUT (seconds per test binary, run-all's default 300) is
# passed on to the guest when set.
VM_INSMOD ?=
VM_ARGS ?=
# Hard limit for the whole VM suite (pmc-vm --timeout): well above its few
# minutes on a loaded 2-CPU machine, well below CI's hour.
VM_CHECK_TIMEOUT ?= 1200

# `make check` runs the suite on every kernel of CHECK_KVERS (mk/kernels.mk),
# one after another (each single-threaded TCG guest wants a host CPU of its
# own for the timing tests), each a step of its own:
#   vm-check-<release>  pmc.ko and testpmu.ko of $(BUILD)/kernels/<release>/,
#                       TAP in $(BUILD)/check/vm-check-<release>.tap, console
#                       in $(BUILD)/vm/check-<release>-console.log
# CHECK_ALL=1 (make check-all) runs the whole suite on each; otherwise a
# kernel whose flavour is rt-* runs only the suites CHECK_RT_FILTER names
# (run-all filters; empty: the whole suite), to keep .ci/run within its hour
# (README, "Supported kernels").
CHECK_STEPS += $(addprefix vm-check-,$(CHECK_KVERS))
CHECK_ALL ?= 0
CHECK_RT_FILTER ?= core-attach core-threads snapshot- sampling- cpcstat_ring libcpc-ring faults- fuzz-
vm_check_filter = $(if $(filter 1,$(CHECK_ALL)),,$(if $(call is_rt,$(1)),$(CHECK_RT_FILTER)))
is_rt = $(filter rt-%,$(shell $(TOP)/tools/kernels flavour $(1)))
# A PREEMPT_RT kernel runs the suite slower under TCG (threaded interrupts,
# sleeping spinlocks, slower grace periods: faults-soak's load/unload cycles
# took 2.5 times as long as on 6.12, 400 s for 200): per test
# VM_RT_TEST_TIMEOUT s (run-all's limit, default 600), per suite
# VM_RT_CHECK_TIMEOUT s (2400); make check (not check-all) runs faults-soak
# with CHECK_RT_SOAK_CYCLES cycles (50; 200 on the other kernels).
VM_RT_TEST_TIMEOUT ?= 600
VM_RT_CHECK_TIMEOUT ?= 2400
CHECK_RT_SOAK_CYCLES ?= 50
vm_check_rt_args = $(if $(call is_rt,$(1)),--timeout $(VM_RT_CHECK_TIMEOUT) \
	--env PMC_TEST_TIMEOUT=$(or $(PMC_TEST_TIMEOUT),$(VM_RT_TEST_TIMEOUT)) \
	$(if $(filter 1,$(CHECK_ALL)),,--env PMC_SOAK_CYCLES=$(CHECK_RT_SOAK_CYCLES)))

# The selftests: fragments add `selftests:: files...` rules that build them
# into $(BUILD)/selftests/bin/ (double-colon, so any number may).
.PHONY: selftests vm-check run check-all
selftests::

# The VM run's own verdict is one more TAP line: "ok - vm: ..." when the guest
# booted, loaded and unloaded the modules and logged no kernel error, else
# "not ok - vm: <reason>" (pmc-vm --result).  Under `make check` the step
# exits 0 once its TAP file is written (check-summary counts the failures);
# run directly, it exits 1 on any failure.
# The selftests are built with make -k in the recipe rather than as a
# prerequisite: a test that does not build is one "not ok", and the VM
# still runs every test that did build.
# vm_check NAME,PMC-VM ARGS,FILTER: the recipe of vm-check and vm-check-<release>.
define vm_check
	@mkdir -p $(BUILD)/check $(BUILD)/vm
	@tap=$(BUILD)/check/$(1).tap; res=$(BUILD)/vm/$(1)-result; start=$$(date +%s); \
	rm -f $$tap $$res; \
	$(MAKE) --no-print-directory -k selftests || \
		echo "not ok - vm: some selftests did not build (make -k selftests failed)" | tee $$tap; \
	$(PMC_VM) --log $(BUILD)/vm/$(patsubst vm-%,%,$(1))-console.log --result $$res --timeout $(VM_CHECK_TIMEOUT) \
		$(addprefix --insmod ,$(VM_INSMOD)) \
		$(if $(PMC_TEST_TIMEOUT),--env PMC_TEST_TIMEOUT=$(PMC_TEST_TIMEOUT)) \
		$(2) $(VM_ARGS) -- selftests/run-all $(3) | tee -a $$tap; \
	st=$${PIPESTATUS[0]}; \
	if [ -s $$res ]; then \
		echo "not ok - vm: $$(head -n 1 $$res)"; \
	else \
		echo "ok - vm: boot, insmod/rmmod $(notdir $(VM_INSMOD) driver/pmc.ko), guest kernel log clean"; \
		if [ $$st -ne 0 ] && ! grep -q '^not ok ' $$tap; then \
			echo "not ok - vm: selftests/run-all exited $$st"; \
		fi; \
	fi | tee -a $$tap; \
	echo "# $(1): $(if $(3),suites '$(strip $(3))',whole suite), $$(( $$(date +%s) - start )) s" | tee -a $$tap; \
	if [ $(MAKELEVEL) -eq 0 ] && grep -q '^not ok ' $$tap; then exit 1; fi
endef

# vm-check: the suite on one kernel with driver/pmc.ko (make KVER=... vm-check
# for another installed one).
vm-check: module
	$(call vm_check,vm-check,$(if $(KVER),--kver $(KVER)),)

define vm_check_rules
.PHONY: vm-check-$(1)
vm-check-$(1): modules-$(1)
	$$(call vm_check,vm-check-$(1),--kver $(1) --modules-tree $(KERNELS_DIR)/$(1) $$(call vm_check_rt_args,$(1)),$$(call vm_check_filter,$(1)))
endef
$(foreach k,$(KMOD_KVERS),$(eval $(call vm_check_rules,$(k))))

# check-all: make check with the whole suite on every kernel.
check-all:
	@$(MAKE) --no-print-directory check CHECK_ALL=1

# `make run`: a host that can load modules (root, /proc/modules, and KDIR
# is the running kernel's build dir) loads pmc.ko itself; elsewhere the
# demonstration runs in the VM.  tools/demo, or a short fallback.
RUN_CMD = $(if $(wildcard $(TOP)/tools/demo),tools/demo,\
	sh -c 'grep pmc /proc/modules; ls -l /dev/pmc')
run: all
	@kd=/lib/modules/$$(uname -r)/build; \
	if [ "$$(id -u)" = 0 ] && [ -e /proc/modules ] && [ -d "$$kd" ] && \
	   [ "$$(readlink -f $$kd)" = "$$(readlink -f $(KDIR))" ]; then \
		echo "run: loading driver/pmc.ko into the running kernel"; \
		loaded=0; \
		if [ ! -d /sys/module/pmc ]; then insmod $(TOP)/driver/pmc.ko || exit 1; loaded=1; fi; \
		$(RUN_CMD); st=$$?; \
		if [ $$loaded = 1 ]; then rmmod pmc || st=1; fi; \
		exit $$st; \
	else \
		echo "run: this kernel cannot load pmc.ko here; running in the test VM (tools/pmc-vm)"; \
		$(PMC_VM) -- $(RUN_CMD); \
	fi
