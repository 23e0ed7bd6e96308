# SPDX-License-Identifier: GPL-2.0
# tools/cpcstat: cpcstat (cpu, track, record, report), also installed as
# cpustat and cputrack; its host unit tests (check step cpcstat-unit); the
# test programs of its VM tests (selftests/cpcstat, selftests/scripts/cpcstat_*).
#
# cpcstat links libcpc and libpmc statically (their build.mk files define
# LIBCPC_A and LIBPMC_A), elfutils' libdw/libelf for symbols, and libpfm4.

CPCSTAT_DIR := $(TOP)/tools/cpcstat
CPCSTAT_OBJDIR := $(BUILD)/tools/cpcstat.d
CPCSTAT := $(BUILD)/tools/cpcstat
CPCSTAT_LINKS := $(BUILD)/tools/cpustat $(BUILD)/tools/cputrack
CPCSTAT_HDRS := $(wildcard $(CPCSTAT_DIR)/*.h) $(wildcard $(TOP)/include/uapi/pmc/*.h)

# Parsing, formatting and the report: no /dev/pmc needed, unit-tested on the host.
CPCSTAT_PURE := spec caps out strpool symbols profile report_out flame recspec
# The modes, on top of libcpc and libpmc.
CPCSTAT_MODES := main signals caps_cpc cpu track track_count track_trace record report mapsnap
CPCSTAT_OBJS := $(addprefix $(CPCSTAT_OBJDIR)/obj/,$(addsuffix .o,$(CPCSTAT_PURE) $(CPCSTAT_MODES)))
CPCSTAT_CFLAGS := $(USER_CFLAGS) -I$(TOP)/libcpc -I$(TOP)/libpmc
CPCSTAT_LIBS := -ldw -lelf -lpfm -lpthread

ifneq ($(and $(LIBCPC_A),$(LIBPMC_A)),)
ALL_TARGETS += cpcstat
INSTALL_TARGETS += install-cpcstat
endif

.PHONY: cpcstat install-cpcstat
cpcstat: $(CPCSTAT) $(CPCSTAT_LINKS)

$(CPCSTAT_OBJDIR)/obj/%.o: $(CPCSTAT_DIR)/%.c $(CPCSTAT_HDRS) \
		$(TOP)/libcpc/libcpc.h $(TOP)/libpmc/pmc.h $(TOP)/libpmc/pmclog.h
	@mkdir -p $(dir $@)
	$(CC) $(CPCSTAT_CFLAGS) $(CFLAGS) -c -o $@ $<

$(CPCSTAT): $(CPCSTAT_OBJS) $(LIBCPC_A) $(LIBPMC_A)
	$(CC) $(CFLAGS) -o $@ $(CPCSTAT_OBJS) $(LIBCPC_A) $(LIBPMC_A) $(CPCSTAT_LIBS)

# argv[0] selects the mode: cpustat and cputrack are links to cpcstat.
$(CPCSTAT_LINKS): $(CPCSTAT)
	ln -sf cpcstat $@

PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
install-cpcstat: $(CPCSTAT)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(CPCSTAT) $(DESTDIR)$(PREFIX)/bin/cpcstat
	ln -sf cpcstat $(DESTDIR)$(PREFIX)/bin/cpustat
	ln -sf cpcstat $(DESTDIR)$(PREFIX)/bin/cputrack
	install -m 0644 $(CPCSTAT_DIR)/cpcstat.1 $(DESTDIR)$(MANDIR)/man1/cpcstat.1
	echo ".so man1/cpcstat.1" > $(DESTDIR)$(MANDIR)/man1/cpustat.1
	echo ".so man1/cpcstat.1" > $(DESTDIR)$(MANDIR)/man1/cputrack.1

# ------------------------------------------------- test programs of the VM tests
# hot3to1: two hot functions in a 3:1 ratio, frame pointers, not inlined.
CPCSTAT_TEST_DIR := $(BUILD)/selftests/cpcstat
CPCSTAT_TEST_PROGS := $(CPCSTAT_TEST_DIR)/hot3to1 $(CPCSTAT_TEST_DIR)/spin
$(CPCSTAT_TEST_DIR)/%: $(TOP)/selftests/cpcstat/%.c $(CPCSTAT_DIR)/build.mk
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-inline -fno-optimize-sibling-calls -o $@ $< -lpthread
cpcstat: $(CPCSTAT_TEST_PROGS)

# ---------------------------------------------------------------- unit tests
CPCSTAT_UNIT := $(CPCSTAT_OBJDIR)/unit-tests
CPCSTAT_UNIT_SRCS := $(filter-out %/mklog.c,$(wildcard $(CPCSTAT_DIR)/tests/*.c)) \
	$(addprefix $(CPCSTAT_DIR)/,$(addsuffix .c,$(CPCSTAT_PURE)))

$(CPCSTAT_UNIT): $(CPCSTAT_UNIT_SRCS) $(CPCSTAT_HDRS) $(wildcard $(CPCSTAT_DIR)/tests/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -g -O1 $(SAN_CFLAGS) -o $@ $(CPCSTAT_UNIT_SRCS) \
		$$(pkg-config --cflags --libs check) -ldw -lelf

CHECK_STEPS += cpcstat-unit
.PHONY: cpcstat-unit
cpcstat-unit: $(CPCSTAT_UNIT)
	@mkdir -p $(BUILD)/check
	@rm -f $(BUILD)/check/cpcstat-unit.tap
	CK_TAP_LOG_FILE_NAME=$(BUILD)/check/cpcstat-unit.tap CK_VERBOSITY=silent \
		CK_FORK=yes $(CPCSTAT_UNIT)

CLEAN_FILES += $(CPCSTAT) $(CPCSTAT_LINKS) $(CPCSTAT_OBJDIR) $(CPCSTAT_TEST_DIR)

# ------------------------------------- report end to end on the host (crafted logs)
CPCSTAT_MKLOG := $(CPCSTAT_OBJDIR)/mklog
$(CPCSTAT_MKLOG): $(CPCSTAT_DIR)/tests/mklog.c $(wildcard $(TOP)/include/uapi/pmc/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -g -O1 -o $@ $< -lelf

ifneq ($(and $(LIBCPC_A),$(LIBPMC_A)),)
CHECK_STEPS += cpcstat-host
endif
.PHONY: cpcstat-host
cpcstat-host: $(CPCSTAT) $(CPCSTAT_MKLOG) $(CPCSTAT_TEST_DIR)/hot3to1
	@mkdir -p $(BUILD)/check
	@$(CPCSTAT_DIR)/tests/report_host.sh $(CPCSTAT) $(CPCSTAT_MKLOG) \
		$(CPCSTAT_TEST_DIR)/hot3to1 $(CPCSTAT_OBJDIR)/host | tee $(BUILD)/check/cpcstat-host.tap

# The VM suite (make vm-check) runs selftests/scripts/cpcstat_*.sh: build
# what they run first.
ifneq ($(and $(LIBCPC_A),$(LIBPMC_A)),)
selftests:: cpcstat
endif
