# SPDX-License-Identifier: GPL-2.0
# Files taken from the installed linux-source tarball at build time (never
# copied into the repository): checkpatch.pl and the kselftest harness.

# The tarball of the default kernel's series (linux-source-6.1 on Debian 12),
# else the newest: the kselftest harness changes between series (6.12's trips
# -Wclobbered in our tests), so the one used is chosen, not whatever is newest.
KSRC_SERIES := $(shell $(TOP)/tools/kernels series $$($(TOP)/tools/kernels resolve default) 2>/dev/null)
KSRC_TARBALL ?= $(or $(wildcard /usr/src/linux-source-$(KSRC_SERIES).tar.xz),\
	$(shell ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1))
KSRC := $(BUILD)/ksrc
KSRC_FILES := scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch \
	tools/testing/selftests/kselftest_harness.h tools/testing/selftests/kselftest.h
KSELFTEST_INC := $(KSRC)/tools/testing/selftests
CHECKPATCH := $(KSRC)/scripts/checkpatch.pl

$(KSRC)/.stamp:
	@test -n "$(KSRC_TARBALL)" || { echo "error: no /usr/src/linux-source-*.tar.xz; run 'make deps'" >&2; exit 1; }
	@mkdir -p $(KSRC)
	@top=$$(tar -tJf $(KSRC_TARBALL) | head -n 1 | cut -d/ -f1); \
	tar -xJf $(KSRC_TARBALL) -C $(KSRC) --strip-components=1 \
		$(addprefix $$top/,$(KSRC_FILES))
	@touch $@

.PHONY: ksrc
ksrc: $(KSRC)/.stamp
