# SPDX-License-Identifier: GPL-2.0
# selftests/libcpc: libcpc's VM tests (kselftest harness), linked with the
# static libcpc and libpfm4; testpmu_test.c loads the test PMU module.

SELFTEST_LDLIBS_libcpc := -I$(TOP)/libcpc $(BUILD)/libcpc/libcpc.a -lpfm
SELFTEST_DEPS_libcpc := $(BUILD)/libcpc/libcpc.a $(TOP)/libcpc/libcpc.h \
	$(TOP)/libcpc/libpctx.h $(TOP)/selftests/libcpc/cpc_util.h \
	$(wildcard $(TOP)/selftests/testpmu/testpmu.c)
