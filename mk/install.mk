# SPDX-License-Identifier: GPL-2.0
# `make install`: headers, udev rule and what each component adds to
# INSTALL_TARGETS. The module itself is installed with DKMS (see README).

PREFIX ?= /usr/local
INSTALL_TARGETS += install-uapi install-udev

.PHONY: install install-uapi install-udev
install-uapi:
	install -d $(DESTDIR)$(PREFIX)/include/pmc
	install -m 0644 include/uapi/pmc/*.h $(DESTDIR)$(PREFIX)/include/pmc/

install-udev:
	install -d $(DESTDIR)/etc/udev/rules.d
	install -m 0644 dist/60-pmc.rules $(DESTDIR)/etc/udev/rules.d/60-pmc.rules
