# SPDX-License-Identifier: GPL-2.0
# selftests/arm64: the driver on arm64's PMUv3 (docs/arm64.md), run in
# tools/pmc-vm --arch arm64 (make arm64-vm-smoke). pmu_test.c builds
# everywhere (it skips off arm64); the loop program it compares with
# perf stat, build/selftests/arm64/loop, only where CC makes arm64 code. It
# lives beside bin/, not in it: run-all runs everything in bin/.

ARM64_LOOP := $(BUILD)/selftests/arm64/loop
ifneq ($(findstring aarch64,$(shell $(CC) -dumpmachine 2>/dev/null)),)
$(ARM64_LOOP): $(TOP)/selftests/arm64/loop.S $(TOP)/selftests/arm64/build.mk
	@mkdir -p $(dir $@)
	$(CC) -static -nostdlib -DLOOP_N=1000000 -o $@ $<

selftests:: $(ARM64_LOOP)
endif

# selfread_test.c reads through pmc(3) and libcpc, linked statically (no
# library path to set up in the guest).
SELFTEST_LDLIBS_arm64 := -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-I$(TOP)/libpmc -I$(TOP)/libcpc $(LIBPMC_A) \
	$(BUILD)/libcpc/libcpc.a -lpfm
SELFTEST_DEPS_arm64 := $(LIBPMC_A) $(BUILD)/libcpc/libcpc.a \
	$(wildcard $(TOP)/libpmc/*.h) $(TOP)/libcpc/libcpc.h \
	$(TOP)/selftests/arm64/a64_test.h
$(foreach s,$(wildcard $(TOP)/selftests/arm64/*_test.c),\
	$(eval $(call selftest_bin,$(s)): $(SELFTEST_DEPS_arm64)))
