# SPDX-License-Identifier: GPL-2.0
# tools/perfmon: FreeBSD's perfmon(4) example program (build/tools/perfmon).
PERFMON_EXAMPLE := $(BUILD)/tools/perfmon
ALL_TARGETS += $(PERFMON_EXAMPLE)

$(PERFMON_EXAMPLE): $(TOP)/tools/perfmon/perfmon.c $(TOP)/include/uapi/pmc/perfmon.h
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(CFLAGS) -o $@ $<

.PHONY: perfmon-example
perfmon-example: $(PERFMON_EXAMPLE)
