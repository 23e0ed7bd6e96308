# SPDX-License-Identifier: GPL-2.0
# Check steps that need no VM: the driver layout, checkpatch on the driver
# and a DKMS build.

CHECK_STEPS += layout-check checkpatch dkms-check

DRIVER_SOURCES = $(shell git ls-files -co --exclude-standard -- "driver/*.[ch]" "selftests/testpmu/*.[ch]")

# The driver's folder rules (docs/architecture.md, "Parts"): interface
# headers only across parts, the arch layer apart, no cycle between parts.
.PHONY: layout-check
layout-check:
	@mkdir -p $(BUILD)/check
	@python3 $(TOP)/mk/check-layout.py $(TOP) | tee $(BUILD)/check/layout-check.tap; \
		exit $${PIPESTATUS[0]}

# checkpatch.pl --no-tree -f on every driver file: one TAP line per file.
# driver/compat/ is the one place version tests belong (see kernel-version.h), so
# checkpatch's warnings against LINUX_VERSION_CODE are off for it alone.
.PHONY: checkpatch
checkpatch: $(KSRC)/.stamp
	@mkdir -p $(BUILD)/check
	@n=0; for f in $(DRIVER_SOURCES); do \
		n=$$((n + 1)); \
		ignore=FILE_PATH_CHANGES,SPDX_LICENSE_TAG; \
		case $$f in driver/compat/*) \
			ignore=$$ignore,LINUX_VERSION_CODE,CONSTANT_COMPARISON;; esac; \
		if out=$$($(CHECKPATCH) --no-tree --quiet --show-types \
			--ignore $$ignore -f $$f 2>&1); then \
			echo "ok $$n checkpatch $$f"; \
		else \
			echo "not ok $$n checkpatch $$f"; echo "$$out" | sed 's/^/# /'; \
		fi; \
	done | tee $(BUILD)/check/checkpatch.tap

# dkms.conf builds and installs in a scratch DKMS tree, for every kernel of
# CHECK_KVERS (mk/kernels.mk; KDIR's kernel too when it is not one of them):
# one TAP line per kernel.
DKMS_TREE := $(BUILD)/dkms
DKMS_KVERS = $(CHECK_KVERS) $(filter-out $(CHECK_KVERS),$(KVER))
PMC_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
.PHONY: dkms-check
dkms-check:
	@mkdir -p $(BUILD)/check
	@rm -rf $(DKMS_TREE); mkdir -p $(DKMS_TREE)/src/pmc-$(PMC_VERSION) $(DKMS_TREE)/tree
	@git ls-files -z | grep -z -v '^\(bench\|docs\|libpmc\|libcpc\|tools\|selftests\)/' | \
		xargs -0 cp --parents -t $(DKMS_TREE)/src/pmc-$(PMC_VERSION)
	@n=0; common="--dkmstree $(DKMS_TREE)/tree --sourcetree $(DKMS_TREE)/src -m pmc -v $(PMC_VERSION)"; \
	dkms add $$common > $(DKMS_TREE)/log 2>&1; \
	for k in $(DKMS_KVERS); do \
		n=$$((n + 1)); log=$(DKMS_TREE)/log-$$k; cp $(DKMS_TREE)/log $$log; \
		mkdir -p $(DKMS_TREE)/install/$$k; \
		args="$$common --installtree $(DKMS_TREE)/install -k $$k"; \
		if dkms build $$args >> $$log 2>&1 && \
		   dkms install --force $$args >> $$log 2>&1 && \
		   find $(DKMS_TREE)/install/$$k -name 'pmc.ko*' | grep -q .; then \
			echo "ok $$n dkms build and install for $$k"; \
		else \
			echo "not ok $$n dkms build and install for $$k"; \
			sed 's/^/# /' $$log; \
			cat $(DKMS_TREE)/tree/pmc/$(PMC_VERSION)/build/make.log 2>/dev/null | sed 's/^/# /'; \
		fi; \
	done | tee $(BUILD)/check/dkms-check.tap
