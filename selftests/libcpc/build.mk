# SPDX-License-Identifier: GPL-2.0
# selftests/libcpc: libcpc's VM tests (kselftest harness), linked with the
# static libcpc and libpfm4; testpmu_test.c loads the test PMU module.

SELFTEST_LDLIBS_libcpc := -I$(TOP)/libcpc $(BUILD)/libcpc/libcpc.a -lpfm
SELFTEST_DEPS_libcpc := $(BUILD)/libcpc/libcpc.a $(TOP)/libcpc/libcpc.h \
	$(TOP)/libcpc/libpctx.h $(TOP)/selftests/libcpc/cpc_util.h \
	$(wildcard $(TOP)/selftests/testpmu/testpmu.c)

# The illumos man-page examples (illumos/*.c: cpc_bind_curlwp(3CPC)
# examples 1 and 2, cpc_enable(3CPC), cpc_seterrhndlr(3CPC)), as printed
# with the Solaris libc differences touched, built as a porter would: the
# library and its header, glibc's -D_GNU_SOURCE (gettid(), REG_RIP), no
# warning flags, and what the pages leave to the reader (illumos/reader.h,
# given with -include). examples_test.c runs
# build/selftests/libcpc/illumos-<name>. Example 2 reads gregs[], which
# only x86 has.
LIBCPC_ILLUMOS := $(TOP)/selftests/libcpc/illumos
LIBCPC_EXAMPLES := $(addprefix $(BUILD)/selftests/libcpc/illumos-,bind_curlwp_1 \
	cpc_enable cpc_seterrhndlr \
	$(if $(filter x86_64-% i686-% i386-%,$(shell $(CC) -dumpmachine)),bind_curlwp_2))
$(BUILD)/selftests/libcpc/illumos-%: $(LIBCPC_ILLUMOS)/%.c $(LIBCPC_ILLUMOS)/reader.c \
		$(LIBCPC_ILLUMOS)/reader.h $(BUILD)/libcpc/libcpc.a $(TOP)/libcpc/libcpc.h
	@mkdir -p $(@D)
	$(CC) -D_GNU_SOURCE -g -O1 -include $(LIBCPC_ILLUMOS)/reader.h -I$(TOP)/libcpc -o $@ \
		$< $(LIBCPC_ILLUMOS)/reader.c $(BUILD)/libcpc/libcpc.a -lpfm -lpthread
SELFTEST_DEPS_libcpc += $(LIBCPC_EXAMPLES)
