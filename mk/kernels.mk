# SPDX-License-Identifier: GPL-2.0
# The kernels pmc is built and tested against (README, "Supported kernels").
#
#   make KVER=R            build driver/pmc.ko for the installed kernel R
#                          (KDIR=/lib/modules/R/build); KDIR=DIR also works
#   make modules-R         pmc.ko and testpmu.ko for kernel R in
#                          $(BUILD)/kernels/R/ (a copy of driver/, include/uapi/
#                          and selftests/testpmu/: the objects of one kernel
#                          never overwrite another's); pmc-vm --kver R uses
#                          them when driver/pmc.ko is built for another kernel
#   make KVER=all          (or KVER="R1 R2 ...") builds modules-R for each
#   make kernels           print the kernels `make check` covers
#
# CHECK_KVERS, the kernels `make check` builds for and runs the VM suite on:
# the newest installed release of each series and flavour (tools/kernels
# check: 6.1 amd64, 6.12 amd64, 6.12 rt-amd64), the default kernel first.

CHECK_KVERS ?= $(shell $(TOP)/tools/kernels check)
KERNELS_DIR := $(BUILD)/kernels

# Sources a module build needs, with the layout the Kbuild files expect
# (driver/ keeps its sub-folders).  Ignored files (objects, *.mod.c) are not
# sources.
KMOD_SRCS = $(shell git -C $(TOP) ls-files -co --exclude-standard -- driver include/uapi \
	selftests/testpmu | grep -E '(\.[ch]|/Kbuild|/Makefile)$$')

# kmod_sync DIR: copy KMOD_SRCS into DIR with their mtimes (kbuild then
# rebuilds only what changed) and remove the sources the tree no longer has.
define kmod_sync
	mkdir -p $(1) && cd $(TOP) && printf '%s\n' $(KMOD_SRCS) > $(1)/.srcs && \
	tar -cf - -T $(1)/.srcs | tar -C $(1) -xpf - && \
	cd $(1) && find driver include selftests -type f \( -name '*.[ch]' -o -name Kbuild \
		-o -name Makefile \) ! -name '*.mod.c' | grep -vxF -f .srcs | xargs -r rm -f --
endef

# kmod_rules R: $(KERNELS_DIR)/R/{driver/pmc.ko,selftests/testpmu/testpmu.ko}.
# The copy is refreshed on every call (see kmod_sync).
define kmod_rules
.PHONY: modules-$(1)
modules-$(1):
	@test -d /lib/modules/$(1)/build || \
		{ echo "error: no /lib/modules/$(1)/build: headers of $(1) not installed (make deps)" >&2; exit 1; }
	@$(call kmod_sync,$(KERNELS_DIR)/$(1))
	@echo "  KMOD    $(1) -> $(KERNELS_DIR)/$(1)"
	+@$(MAKE) --no-print-directory -C /lib/modules/$(1)/build \
		M=$(KERNELS_DIR)/$(1)/driver W=1 modules > $(KERNELS_DIR)/$(1)/build.log 2>&1 && \
	$(MAKE) --no-print-directory -C /lib/modules/$(1)/build \
		M=$(KERNELS_DIR)/$(1)/selftests/testpmu W=1 modules >> $(KERNELS_DIR)/$(1)/build.log 2>&1 || \
		{ cat $(KERNELS_DIR)/$(1)/build.log; exit 1; }
	@# W=1 clean: any compiler warning fails the build here.
	@if grep -E 'warning:' $(KERNELS_DIR)/$(1)/build.log | grep -vE '^make(\[[0-9]+\])?: '; then \
		echo "error: warnings building for $(1) (log: $(KERNELS_DIR)/$(1)/build.log)" >&2; exit 1; fi
endef
KMOD_KVERS := $(sort $(CHECK_KVERS) $(shell $(TOP)/tools/kernels installed) \
	$(filter-out all default,$(KVER_LIST)))
$(foreach k,$(KMOD_KVERS),$(eval $(call kmod_rules,$(k))))

.PHONY: kernels
kernels:
	@for k in $(CHECK_KVERS); do echo "$$k"; done
