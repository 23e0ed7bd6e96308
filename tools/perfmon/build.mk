# SPDX-License-Identifier: GPL-2.0
# tools/perfmon: FreeBSD's perfmon(4) example program (build/tools/perfmon),
# and what a FreeBSD perfmon program builds with: `pkg-config --cflags
# pmc-perfmon` puts <machine/perfmon.h> (include/freebsd/) on the include
# path. build/pkgconfig/pmc-perfmon.pc names this tree's headers; `make
# install-perfmon` installs the header as <pmc/freebsd/machine/perfmon.h>
# and a .pc naming PREFIX. The example is written as FreeBSD's is and
# built with nothing but the .pc's flags (and CFLAGS): no warning flags,
# as a porter would first build it.
PERFMON_EXAMPLE := $(BUILD)/tools/perfmon
PERFMON_PC := $(BUILD)/pkgconfig/pmc-perfmon.pc
ALL_TARGETS += $(PERFMON_EXAMPLE) $(PERFMON_PC)
INSTALL_TARGETS += install-perfmon
LIBDIR ?= $(PREFIX)/lib

$(PERFMON_EXAMPLE): $(TOP)/tools/perfmon/perfmon.c $(PERFMON_PC) \
		$(TOP)/include/freebsd/machine/perfmon.h $(TOP)/include/uapi/pmc/perfmon.h
	@mkdir -p $(dir $@)
	@# The build tree's .pc names this tree's paths: no sysroot before them
	@# (the arm64 cross build sets PKG_CONFIG_SYSROOT_DIR for its libraries).
	$(CC) $$(PKG_CONFIG_SYSROOT_DIR= PKG_CONFIG_PATH=$(BUILD)/pkgconfig pkg-config --cflags --libs pmc-perfmon) \
		$(CFLAGS) -o $@ $<

# perfmon_pc INCLUDEDIR: the .pc whose Cflags find <machine/perfmon.h>
# in INCLUDEDIR/pmc/freebsd and <pmc/perfmon.h> in INCLUDEDIR.
perfmon_pc = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(1)|' \
	-e 's|@VERSION@|$(LIBPMC_VERSION)|' $(TOP)/tools/perfmon/pmc-perfmon.pc.in
# The build tree's: its include/freebsd and include/uapi stand for the two.
$(PERFMON_PC): $(TOP)/tools/perfmon/pmc-perfmon.pc.in
	@mkdir -p $(@D)
	$(call perfmon_pc,$(TOP)/include) | \
		sed -e 's|^Cflags:.*|Cflags: -I$(TOP)/include/freebsd -I$(TOP)/include/uapi|' > $@

.PHONY: perfmon-example install-perfmon
perfmon-example: $(PERFMON_EXAMPLE)

install-perfmon:
	install -d $(DESTDIR)$(PREFIX)/include/pmc/freebsd/machine $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 0644 $(TOP)/include/freebsd/machine/perfmon.h \
		$(DESTDIR)$(PREFIX)/include/pmc/freebsd/machine/
	$(call perfmon_pc,$(PREFIX)/include) > $(DESTDIR)$(LIBDIR)/pkgconfig/pmc-perfmon.pc
