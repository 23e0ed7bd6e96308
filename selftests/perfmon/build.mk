# SPDX-License-Identifier: GPL-2.0
# selftests/perfmon: perfmon(4) tests. They load the test PMU
# (selftests/testpmu/build.mk adds testpmu.ko and testpmu_util.h as
# prerequisites) and run the example program build/tools/perfmon.
PERFMON_TEST_BINS := $(foreach s,$(wildcard $(TOP)/selftests/perfmon/*_test.c),$(call selftest_bin,$(s)))
SELFTEST_DEPS_perfmon := $(TOP)/selftests/testpmu/testpmu.ko $(BUILD)/tools/perfmon \
	$(TOP)/selftests/perfmon/perfmon_util.h
$(PERFMON_TEST_BINS): $(SELFTEST_DEPS_perfmon)

# layout_test.c again as a 32-bit program (the i686 cross compiler, which,
# unlike gcc-multilib, co-installs with the arm64 one): the ioctls through
# compat_ioctl. Static, so the guest needs no 32-bit libraries. Skipped
# where the compiler cannot build one; the layout is static_assert'ed anyway.
CC32 ?= i686-linux-gnu-gcc
PERFMON_M32 := $(shell printf 'int main(void){return 0;}' | \
	$(CC32) -static -x c -o /dev/null - 2>/dev/null && echo yes)
ifeq ($(PERFMON_M32),yes)
PERFMON_LAYOUT32 := $(SELFTEST_BIN)/perfmon-layout32
$(PERFMON_LAYOUT32): $(TOP)/selftests/perfmon/layout_test.c $(SELFTEST_DEPS_perfmon) \
		$(TOP)/selftests/testpmu/testpmu_util.h $(KSRC)/.stamp
	@mkdir -p $(SELFTEST_BIN)
	$(CC32) -static $(SELFTEST_CFLAGS) -o $@ $< -lpthread
selftests:: $(PERFMON_LAYOUT32)
endif
