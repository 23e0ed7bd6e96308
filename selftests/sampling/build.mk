# SPDX-License-Identifier: GPL-2.0
# selftests/sampling: sampling, logs and the mmap'd ring (run in the VM).
#
# The tests compare sample addresses with functions of the test binaries, so
# these keep frame pointers (user callchains are frame-pointer walks); the
# flags ride on SELFTEST_LDLIBS_sampling, which reaches the compiler line.
# The headers are prerequisites through a rule of their own: the generic
# rules of selftests/build.mk are read before this fragment.

SELFTEST_LDLIBS_sampling := -fno-omit-frame-pointer -fno-optimize-sibling-calls
SAMPLING_TEST_BINS := $(patsubst $(TOP)/selftests/sampling/%_test.c,$(SELFTEST_BIN)/sampling-%,\
	$(wildcard $(TOP)/selftests/sampling/*_test.c))
$(SAMPLING_TEST_BINS): $(wildcard $(TOP)/selftests/sampling/*.h) \
	$(wildcard $(TOP)/selftests/testpmu/testpmu_util.h)
