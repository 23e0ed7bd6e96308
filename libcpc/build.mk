# SPDX-License-Identifier: GPL-2.0
# libcpc: illumos' libcpc v2 on /dev/pmc, over libpmc's device layer
# (libpmc/dev/pmcdev.mk: ioctls, ring, self-read, event names). Builds
# build/libcpc/libcpc.so.1 (soname, versioned symbols: libcpc/libcpc.map),
# libcpc.a and libcpc.pc;
# check step libcpc-unit (libcheck host tests under ASan/UBSan; the man pages
# in libcpc/man/ are linted by mk/man.mk's man-lint); install-libcpc.

include $(TOP)/libpmc/dev/pmcdev.mk
LIBCPC_VERSION := 1.0.0
LIBCPC_SOMAJOR := 1
LIBCPC_DIR := $(BUILD)/libcpc
LIBCPC_NAMES := cpc_open cpc_set cpc_buf cpc_bind cpc_events cpc_ring cpc_snapshot pctx
LIBCPC_SRCS := $(addprefix $(TOP)/libcpc/,$(addsuffix .c,$(LIBCPC_NAMES)))
LIBCPC_HDRS := $(addprefix $(TOP)/libcpc/,libcpc.h libpctx.h libcpc_impl.h) \
	$(PMCDEV_HDRS)
LIBCPC_OBJS := $(addprefix $(LIBCPC_DIR)/obj/,$(addsuffix .o,$(LIBCPC_NAMES)))
LIBCPC_SAN_OBJS := $(addprefix $(LIBCPC_DIR)/san/,$(addsuffix .o,$(LIBCPC_NAMES)))
LIBCPC_CFLAGS := $(USER_CFLAGS) -I$(TOP)/libcpc $(PMCDEV_INC)
LIBCPC_LIBS := -lpfm -lpthread
LIBCPC_SO := $(LIBCPC_DIR)/libcpc.so.$(LIBCPC_VERSION)
LIBCPC_A := $(LIBCPC_DIR)/libcpc.a
LIBCPC_PC := $(LIBCPC_DIR)/libcpc.pc
LIBCPC_MANS := $(sort $(wildcard $(TOP)/libcpc/man/*.3 $(TOP)/libcpc/man/*.3cpc))

ALL_TARGETS += libcpc
CHECK_STEPS += libcpc-unit
INSTALL_TARGETS += install-libcpc

.PHONY: libcpc libcpc-unit install-libcpc
libcpc: $(LIBCPC_SO) $(LIBCPC_A) $(LIBCPC_PC)

# -fno-semantic-interposition: no program replaces libcpc's own functions
# for libcpc's calls (its map exports only the API), so the compiler may
# inline them: cpc_set_sample() makes no call of its own before the
# device layer's ioctl.
$(LIBCPC_DIR)/obj/%.o: $(TOP)/libcpc/%.c $(LIBCPC_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIBCPC_CFLAGS) $(CFLAGS) -fPIC -fno-semantic-interposition -c -o $@ $<

$(LIBCPC_SO): $(LIBCPC_OBJS) $(PMCDEV_A) $(TOP)/libcpc/libcpc.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,libcpc.so.$(LIBCPC_SOMAJOR) \
		-Wl,--version-script,$(TOP)/libcpc/libcpc.map -Wl,--no-undefined \
		-o $@ $(LIBCPC_OBJS) $(PMCDEV_A) $(LIBCPC_LIBS)
	ln -sf $(notdir $@) $(LIBCPC_DIR)/libcpc.so.$(LIBCPC_SOMAJOR)
	ln -sf libcpc.so.$(LIBCPC_SOMAJOR) $(LIBCPC_DIR)/libcpc.so

# The device layer's objects travel in the archive: it links alone.
$(LIBCPC_A): $(LIBCPC_OBJS) $(PMCDEV_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# libcpc.pc for the default PREFIX; install-libcpc writes it for its own.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
$(LIBCPC_PC): $(TOP)/libcpc/libcpc.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@VERSION@|$(LIBCPC_VERSION)|' $< > $@

# Host unit tests: the library's sources under ASan/UBSan, a simulated
# /dev/pmc (libcpc/tests/fake_pmc.c) linked in place of the device layer's
# system calls (pmcdev_sys.o), libcheck writing TAP.
$(LIBCPC_DIR)/san/%.o: $(TOP)/libcpc/%.c $(LIBCPC_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(LIBCPC_CFLAGS) -g -O1 $(SAN_CFLAGS) -c -o $@ $<

LIBCPC_TEST_SRCS := $(sort $(wildcard $(TOP)/libcpc/tests/*.c))
LIBCPC_TEST_HDRS := $(wildcard $(TOP)/libcpc/tests/*.h)
LIBCPC_UNIT := $(LIBCPC_DIR)/libcpc-unit
$(LIBCPC_UNIT): $(LIBCPC_TEST_SRCS) $(LIBCPC_TEST_HDRS) $(LIBCPC_SAN_OBJS) \
		$(PMCDEV_SAN_TEST_OBJS)
	$(CC) $(LIBCPC_CFLAGS) -g -O1 $(SAN_CFLAGS) $(shell pkg-config --cflags check) \
		-o $@ $(LIBCPC_TEST_SRCS) $(LIBCPC_SAN_OBJS) \
		$(PMCDEV_SAN_TEST_OBJS) $(LIBCPC_LIBS) \
		$(shell pkg-config --libs check)

libcpc-unit: $(LIBCPC_UNIT)
	@mkdir -p $(BUILD)/check
	CK_TAP_LOG_FILE_NAME=$(BUILD)/check/libcpc-unit.tap CK_VERBOSITY=silent \
		CK_FORK=yes $(LIBCPC_UNIT)

MANDIR ?= $(PREFIX)/share/man
install-libcpc: libcpc
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(PREFIX)/include $(DESTDIR)$(MANDIR)/man3
	install -m 0755 $(LIBCPC_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBCPC_SO)) $(DESTDIR)$(LIBDIR)/libcpc.so.$(LIBCPC_SOMAJOR)
	ln -sf libcpc.so.$(LIBCPC_SOMAJOR) $(DESTDIR)$(LIBDIR)/libcpc.so
	install -m 0644 $(LIBCPC_A) $(DESTDIR)$(LIBDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@VERSION@|$(LIBCPC_VERSION)|' libcpc/libcpc.pc.in \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/libcpc.pc
	install -m 0644 libcpc/libcpc.h libcpc/libpctx.h $(DESTDIR)$(PREFIX)/include/
	install -m 0644 $(LIBCPC_MANS) $(DESTDIR)$(MANDIR)/man3/
	@# One alias page per function of a page's NAME section.
	@for f in $(LIBCPC_MANS); do \
		page=$$(basename $$f); \
		for fn in $$(awk '/^\.SH NAME/ { f = 1; next } /^\.SH/ { f = 0 } f' $$f | \
				tr '\n' ' ' | sed 's/ \\- .*//; s/\\//g; s/,/ /g'); do \
			alias=$$fn.$${page##*.}; \
			[ "$$alias" = "$$page" ] && continue; \
			[ -e $(DESTDIR)$(MANDIR)/man3/$$alias ] && continue; \
			echo ".so man3/$$page" > $(DESTDIR)$(MANDIR)/man3/$$alias; \
		done; \
	done

CLEAN_FILES += $(LIBCPC_DIR)
