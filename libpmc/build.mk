# SPDX-License-Identifier: GPL-2.0
# libpmc: FreeBSD's pmc(3)/pmclog(3) on Linux.
#
#   build/libpmc/libpmc.so.1.0.0 (+ libpmc.so.1, libpmc.so links), libpmc.a,
#   libpmc.pc, over the device layer libpmc/dev (libpmc/dev/pmcdev.mk, also
#   linked by libcpc); `make libpmc-unit` runs the host unit tests (libcheck, ASan and
#   UBSan), `make install-libpmc`. mk/man.mk lints the man pages.

PREFIX ?= /usr/local
include $(TOP)/libpmc/dev/pmcdev.mk
LIBPMC_DIR := $(TOP)/libpmc
LIBPMC_OUT := $(BUILD)/libpmc
LIBPMC_VERSION := 1.0.0
LIBPMC_SONAME := libpmc.so.1
LIBPMC_SO := $(LIBPMC_OUT)/libpmc.so.$(LIBPMC_VERSION)
LIBPMC_A := $(LIBPMC_OUT)/libpmc.a
LIBPMC_PC := $(LIBPMC_OUT)/libpmc.pc
LIBPMC_MAP := $(LIBPMC_DIR)/libpmc.map
LIBPMC_MANS := $(LIBPMC_DIR)/pmc.3 $(LIBPMC_DIR)/pmclog.3

LIBPMC_SRCS := $(sort $(wildcard $(LIBPMC_DIR)/*.c))
LIBPMC_HDRS := $(wildcard $(LIBPMC_DIR)/*.h) $(PMCDEV_HDRS)
LIBPMC_OBJS := $(patsubst $(LIBPMC_DIR)/%.c,$(LIBPMC_OUT)/obj/%.o,$(LIBPMC_SRCS))
LIBPMC_CFLAGS := $(USER_CFLAGS) $(CFLAGS) -fPIC -I$(LIBPMC_DIR) $(PMCDEV_INC)
LIBPMC_LIBS := -lpfm -lpthread

.PHONY: libpmc libpmc-unit install-libpmc
libpmc: $(LIBPMC_SO) $(LIBPMC_A) $(LIBPMC_PC)
ALL_TARGETS += libpmc
CHECK_STEPS += libpmc-unit
INSTALL_TARGETS += install-libpmc

$(LIBPMC_OUT)/obj/%.o: $(LIBPMC_DIR)/%.c $(LIBPMC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIBPMC_CFLAGS) -c -o $@ $<

$(LIBPMC_SO): $(LIBPMC_OBJS) $(PMCDEV_A) $(LIBPMC_MAP)
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(LIBPMC_SONAME) \
		-Wl,--version-script=$(LIBPMC_MAP) -Wl,-z,defs -o $@ \
		$(LIBPMC_OBJS) $(PMCDEV_A) $(LIBPMC_LIBS)
	ln -sf $(notdir $@) $(LIBPMC_OUT)/$(LIBPMC_SONAME)
	ln -sf $(LIBPMC_SONAME) $(LIBPMC_OUT)/libpmc.so

# The device layer's objects travel in the archive: it links alone.
$(LIBPMC_A): $(LIBPMC_OBJS) $(PMCDEV_OBJS)
	@rm -f $@
	ar rcs $@ $^

# The .pc of the build tree names PREFIX; install-libpmc writes its own.
libpmc_pc = sed -e 's|@PREFIX@|$(1)|' -e 's|@LIBDIR@|$(2)|' \
	-e 's|@VERSION@|$(LIBPMC_VERSION)|' $(LIBPMC_DIR)/libpmc.pc.in
$(LIBPMC_PC): $(LIBPMC_DIR)/libpmc.pc.in
	@mkdir -p $(@D)
	$(call libpmc_pc,$(PREFIX),$(PREFIX)/lib) > $@

# Host unit tests: the library's sources and the tests, all under ASan/UBSan.
LIBPMC_TEST_SRCS := $(sort $(wildcard $(LIBPMC_DIR)/tests/*.c))
LIBPMC_TEST_HDRS := $(wildcard $(LIBPMC_DIR)/tests/*.h)
LIBPMC_SAN_OBJS := $(patsubst $(LIBPMC_DIR)/%.c,$(LIBPMC_OUT)/san/%.o,$(LIBPMC_SRCS))
LIBPMC_UNIT := $(LIBPMC_OUT)/tests/libpmc-unit
LIBPMC_CHECK_CFLAGS = $(shell pkg-config --cflags check)
LIBPMC_CHECK_LIBS = $(shell pkg-config --libs check)

$(LIBPMC_OUT)/san/%.o: $(LIBPMC_DIR)/%.c $(LIBPMC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -O1 -g $(SAN_CFLAGS) -I$(LIBPMC_DIR) $(PMCDEV_INC) -c -o $@ $<

$(LIBPMC_UNIT): $(LIBPMC_TEST_SRCS) $(LIBPMC_TEST_HDRS) $(LIBPMC_SAN_OBJS) $(PMCDEV_SAN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -O1 -g $(SAN_CFLAGS) -I$(LIBPMC_DIR) $(PMCDEV_INC) \
		$(LIBPMC_CHECK_CFLAGS) -o $@ $(LIBPMC_TEST_SRCS) \
		$(LIBPMC_SAN_OBJS) $(PMCDEV_SAN_OBJS) $(LIBPMC_CHECK_LIBS) $(LIBPMC_LIBS)

# libcheck writes the TAP file; a crash that leaves no failure in it fails
# the step.
libpmc-unit: $(LIBPMC_UNIT)
	@mkdir -p $(BUILD)/check
	@rm -f $(BUILD)/check/libpmc-unit.tap
	@CK_TAP_LOG_FILE_NAME=$(BUILD)/check/libpmc-unit.tap $(LIBPMC_UNIT); rc=$$?; \
	if [ $$rc -ne 0 ] && ! grep -q '^not ok' $(BUILD)/check/libpmc-unit.tap 2>/dev/null; then \
		echo "libpmc-unit: exit status $$rc" >&2; exit 1; fi

install-libpmc: $(LIBPMC_SO) $(LIBPMC_A)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 0755 $(LIBPMC_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(LIBPMC_SO)) $(DESTDIR)$(PREFIX)/lib/$(LIBPMC_SONAME)
	ln -sf $(LIBPMC_SONAME) $(DESTDIR)$(PREFIX)/lib/libpmc.so
	install -m 0644 $(LIBPMC_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 $(LIBPMC_DIR)/pmc.h $(LIBPMC_DIR)/pmclog.h $(DESTDIR)$(PREFIX)/include/
	$(call libpmc_pc,$(PREFIX),$(PREFIX)/lib) > $(DESTDIR)$(PREFIX)/lib/pkgconfig/libpmc.pc
	install -m 0644 $(LIBPMC_MANS) $(DESTDIR)$(PREFIX)/share/man/man3/
