# SPDX-License-Identifier: GPL-2.0
# tools/pmc-demo: the program `make run` shows.
PMC_DEMO := $(BUILD)/tools/pmc-demo
ALL_TARGETS += $(PMC_DEMO)

$(PMC_DEMO): $(TOP)/tools/pmc-demo/pmc-demo.c $(wildcard $(TOP)/include/uapi/pmc/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) $(CFLAGS) -o $@ $<
