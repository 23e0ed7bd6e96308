# SPDX-License-Identifier: GPL-2.0
#
# pmc: hwpmc(4)/perfmon(4)/libcpc for Linux.
#
#   make deps     install the Debian packages the build and tests need
#   make          build driver/pmc.ko, the libraries and the tools
#                 (KVER=<release> for another installed kernel, KVER=all)
#   make check    host unit tests, checkpatch, DKMS build check, VM suite
#   make run      load the module (here or in the test VM) and demonstrate it
#
# Each component adds its targets through a fragment (mk/*.mk, */build.mk),
# so adding a library or tool never edits this file.

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD ?= $(TOP)/build

# The kernel to build for: KVER=<release> (an installed one:
# /lib/modules/<release>/build), or KDIR=<kernel build dir>.  Neither given:
# the running kernel's build dir if it exists, else that of Debian's default
# kernel (the one linux-headers-amd64 depends on), else the newest installed
# one (tools/kdir-default, for pmc-vm too).  KVER=all, or a list of
# releases, builds the module for each into $(BUILD)/kernels/<release>/
# (mk/kernels.mk); `make kernels` lists the ones `make check` covers.
ifneq ($(strip $(KVER)),)
KVER_LIST := $(shell $(TOP)/tools/kernels resolve $(KVER))
ifeq ($(words $(KVER_LIST)),1)
override KVER := $(KVER_LIST)
KDIR ?= /lib/modules/$(KVER)/build
endif
endif
KDIR ?= $(shell $(TOP)/tools/kdir-default)
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)

# User space: C11, warnings are errors.
CC ?= cc
CFLAGS ?= -O2 -g
USER_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I$(TOP)/include/uapi
# Host unit tests run under ASan and UBSan.
SAN_CFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Targets the fragments extend.
ALL_TARGETS :=
CLEAN_FILES :=
# Each check step is a target that writes $(BUILD)/check/<name>.tap.
CHECK_STEPS :=
# Steps that run after all the others, side by side (the package install
# test, arm64).
CHECK_STEPS_LAST :=

.PHONY: all module clean check deps run install
all: module

include $(sort $(wildcard $(TOP)/mk/*.mk))
include $(sort $(wildcard $(TOP)/*/build.mk $(TOP)/tools/*/build.mk $(TOP)/selftests/*/build.mk))

all: $(ALL_TARGETS)

# Fragments add to INSTALL_TARGETS (mk/install.mk).
install: all $(INSTALL_TARGETS)

clean:
	$(MAKE) -C $(KDIR) M=$(TOP) clean >/dev/null 2>&1 || true
	rm -rf $(BUILD) $(CLEAN_FILES)

# `make check` runs every step even after a failure, then prints the closing
# "N passed, N failed" line from the TAP files the steps wrote.  The steps of
# CHECK_STEPS run one after another (the x86 VM suites' timing tests want a
# host CPU per guest); those of CHECK_STEPS_LAST side by side: neither is
# timed, and each is mostly one TCG thread, so on CI's two CPUs the pair
# takes as long as the longer one (about 12 min) instead of the sum (23).
# Their output is printed when both have ended, with each one's seconds.
check:
	@rm -rf $(BUILD)/check; mkdir -p $(BUILD)/check/out
	@for s in $(CHECK_STEPS); do \
		echo "=== $$s"; \
		$(MAKE) --no-print-directory $$s || \
			echo "not ok - $$s: step exited non-zero" >> $(BUILD)/check/$$s.tap; \
	done
	@echo "=== $(CHECK_STEPS_LAST): side by side, the output of each when all have ended"; \
	for s in $(CHECK_STEPS_LAST); do \
		{ start=$$(date +%s); \
		  $(MAKE) --no-print-directory $$s > $(BUILD)/check/out/$$s.log 2>&1 || \
			echo "not ok - $$s: step exited non-zero" >> $(BUILD)/check/$$s.tap; \
		  echo "# $$s: $$(( $$(date +%s) - start )) s" >> $(BUILD)/check/out/$$s.log; } & \
	done; wait; \
	for s in $(CHECK_STEPS_LAST); do echo "=== $$s"; cat $(BUILD)/check/out/$$s.log; done
	@$(TOP)/tools/check-summary $(BUILD)/check $(CHECK_STEPS) $(CHECK_STEPS_LAST)
