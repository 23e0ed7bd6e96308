# SPDX-License-Identifier: GPL-2.0
# selftests/testpmu: testpmu.ko, the test-only perf PMU the VM tests load
# before pmc.ko to get a hardware class (never installed), and its tests.

TESTPMU_KO := $(TOP)/selftests/testpmu/testpmu.ko
TESTPMU_SRCS := $(TOP)/selftests/testpmu/testpmu.c $(TOP)/selftests/testpmu/Kbuild \
	$(wildcard $(TOP)/driver/compat/*.h)

# The test PMU raises its overflow interrupt as an NMI through the local
# APIC: x86 only. On arm64 it is not built (the hardware classes run on the
# real PMUv3 there, selftests/arm64); the tests that load it skip, naming
# the reason (testpmu_util.h, tp_cannot_load()).
ifneq ($(filter arm64,$(ARCH)),)
$(TESTPMU_KO):
	@echo "testpmu.ko: not built for $(ARCH) (its overflow interrupt is an x86 APIC NMI)"
else
$(TESTPMU_KO): $(TESTPMU_SRCS)
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "error: no kernel build dir (KDIR='$(KDIR)'); run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP)/selftests/testpmu W=1 modules
endif

.PHONY: testpmu
testpmu: $(TESTPMU_KO)

selftests:: $(TESTPMU_KO)

# The suites whose tests load it.
SELFTEST_DEPS_testpmu := $(TESTPMU_KO)
SELFTEST_DEPS_perfmon := $(TESTPMU_KO)
SELFTEST_DEPS_hwclass := $(TESTPMU_KO)

CLEAN_FILES += $(addprefix $(TOP)/selftests/testpmu/,*.o *.ko *.mod *.mod.c \
	.*.cmd modules.order Module.symvers)

# Every test of these suites includes testpmu_util.h and loads the module.
# (Added here as well as in SELFTEST_DEPS_*: selftests/build.mk expands its
# rules before this fragment is read.)
TESTPMU_USERS := $(foreach s,$(wildcard $(TOP)/selftests/testpmu/*_test.c \
	$(TOP)/selftests/perfmon/*_test.c $(TOP)/selftests/hwclass/*_test.c),$(call selftest_bin,$(s)))
$(TESTPMU_USERS): $(TOP)/selftests/testpmu/testpmu_util.h $(TESTPMU_KO)
