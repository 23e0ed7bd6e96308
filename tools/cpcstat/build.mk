# SPDX-License-Identifier: GPL-2.0
# tools/cpcstat: cpcstat (cpu, track, record, report), installed also as
# cpustat and cputrack; its host unit tests (check step cpcstat-unit).

CPCSTAT_DIR := $(TOP)/tools/cpcstat
CPCSTAT_BUILD := $(BUILD)/tools/cpcstat.d
CPCSTAT := $(BUILD)/tools/cpcstat

# Parsing and formatting: no library needed, unit-tested on the host.
CPCSTAT_PURE := spec.c caps.c out.c strpool.c symbols.c profile.c report_out.c flame.c
CPCSTAT_HDRS := $(wildcard $(CPCSTAT_DIR)/*.h)

# ---------------------------------------------------------------- unit tests
CPCSTAT_UNIT := $(CPCSTAT_BUILD)/unit-tests
CPCSTAT_UNIT_SRCS := $(wildcard $(CPCSTAT_DIR)/tests/*.c) $(addprefix $(CPCSTAT_DIR)/,$(CPCSTAT_PURE))

$(CPCSTAT_UNIT): $(CPCSTAT_UNIT_SRCS) $(CPCSTAT_HDRS) $(wildcard $(CPCSTAT_DIR)/tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -g -O1 $(SAN_CFLAGS) -o $@ $(CPCSTAT_UNIT_SRCS) \
		$$(pkg-config --cflags --libs check) -ldw -lelf

CHECK_STEPS += cpcstat-unit
.PHONY: cpcstat-unit
cpcstat-unit: $(CPCSTAT_UNIT)
	@mkdir -p $(BUILD)/check
	@rm -f $(BUILD)/check/cpcstat-unit.tap
	CK_TAP_LOG_FILE_NAME=$(BUILD)/check/cpcstat-unit.tap CK_FORK=yes $(CPCSTAT_UNIT)
