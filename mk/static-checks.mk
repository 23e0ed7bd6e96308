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

# dkms.conf builds and installs in a scratch DKMS tree for KDIR's kernel.
DKMS_TREE := $(BUILD)/dkms
PMC_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
.PHONY: dkms-check
dkms-check:
	@mkdir -p $(BUILD)/check
	@rm -rf $(DKMS_TREE); mkdir -p $(DKMS_TREE)/src/pmc-$(PMC_VERSION) \
		$(DKMS_TREE)/tree $(DKMS_TREE)/install/$(KVER)
	@git ls-files -z | grep -z -v '^\(bench\|docs\|libpmc\|libcpc\|tools\|selftests\)/' | \
		xargs -0 cp --parents -t $(DKMS_TREE)/src/pmc-$(PMC_VERSION)
	@args="--dkmstree $(DKMS_TREE)/tree --sourcetree $(DKMS_TREE)/src --installtree $(DKMS_TREE)/install -m pmc -v $(PMC_VERSION) -k $(KVER)"; \
	if dkms add $$args > $(DKMS_TREE)/log 2>&1 && \
	   dkms build $$args >> $(DKMS_TREE)/log 2>&1 && \
	   dkms install --force $$args >> $(DKMS_TREE)/log 2>&1 && \
	   find $(DKMS_TREE)/install -name 'pmc.ko*' | grep -q .; then \
		echo "ok 1 dkms build and install for $(KVER)"; \
	else \
		echo "not ok 1 dkms build and install for $(KVER)"; \
		sed 's/^/# /' $(DKMS_TREE)/log; \
		cat $(DKMS_TREE)/tree/pmc/$(PMC_VERSION)/build/make.log 2>/dev/null | sed 's/^/# /'; \
	fi | tee $(BUILD)/check/dkms-check.tap
