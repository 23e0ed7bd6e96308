# SPDX-License-Identifier: GPL-2.0
# selftests/hwclass: the hwpmc core on a hardware class, with the test PMU
# (selftests/testpmu/build.mk adds testpmu.ko and testpmu_util.h as
# prerequisites of these tests).
HWCLASS_TEST_BINS := $(foreach s,$(wildcard $(TOP)/selftests/hwclass/*_test.c),$(call selftest_bin,$(s)))
SELFTEST_DEPS_hwclass := $(TOP)/selftests/testpmu/testpmu.ko $(TOP)/selftests/hwclass/hwclass.h
$(HWCLASS_TEST_BINS): $(SELFTEST_DEPS_hwclass)
