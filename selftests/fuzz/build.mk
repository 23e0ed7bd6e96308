# SPDX-License-Identifier: GPL-2.0
# selftests/fuzz: pmc-fuzz (the seeded /dev/pmc fuzzer, docs/reliability.md),
# its short run as a VM selftest (fuzz-short) and the regression tests of
# what it found (fuzz-regress).
#
# pmc-fuzz is not a test binary itself (it lives beside bin/, not in it):
# fuzz-short runs it with 50,000 ops, make check-debug with a million.

FUZZ_BIN := $(BUILD)/selftests/fuzz/pmc-fuzz
FUZZ_SRCS := $(sort $(wildcard $(TOP)/selftests/fuzz/fuzz_*.c))

$(FUZZ_BIN): $(FUZZ_SRCS) $(TOP)/selftests/fuzz/fuzz.h $(SELFTEST_LIB_SRCS) \
		$(SELFTEST_LIB_HDRS) $(KSRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $(FUZZ_SRCS) $(SELFTEST_LIB_SRCS) -lpthread

.PHONY: fuzz
fuzz: $(FUZZ_BIN)

selftests:: $(FUZZ_BIN)
SELFTEST_DEPS_fuzz := $(FUZZ_BIN)
