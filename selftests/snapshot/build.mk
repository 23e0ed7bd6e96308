# SPDX-License-Identifier: GPL-2.0
# selftests/snapshot: PMC_F_SNAPSHOT records, OVERFLOW record values and the
# self-read page (issue 12; run in the VM). The tests share the ring reader
# and stream checker of selftests/sampling/sampling.h and snapshot.h.

SNAPSHOT_TEST_BINS := $(patsubst $(TOP)/selftests/snapshot/%_test.c,$(SELFTEST_BIN)/snapshot-%,\
	$(wildcard $(TOP)/selftests/snapshot/*_test.c))
$(SNAPSHOT_TEST_BINS): $(wildcard $(TOP)/selftests/snapshot/*.h) \
	$(TOP)/selftests/sampling/sampling.h
