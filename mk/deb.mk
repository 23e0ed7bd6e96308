# SPDX-License-Identifier: GPL-2.0
# Debian packages (debian/; README, "Install").
#
#   make deb        the source package and pmc-dkms, libpmc1, libpmc-dev,
#                   libcpc1, libcpc-dev and pmc-tools in $(BUILD)/deb, then
#                   lintian on them (the step fails on any error or warning
#                   tag; the log is $(BUILD)/deb/lintian.log)
#   make deb-check  a check step: `make deb`, then, in the test VM on every
#                   installed kernel, what a user does: apt install the
#                   packages (DKMS builds pmc.ko for the running kernel),
#                   modprobe pmc, the udev rule's /dev/pmc, a program built
#                   with pkg-config counting, apt purge leaving no file
#                   (selftests/deb/install-test).  TAP in
#                   $(BUILD)/check/deb-check.tap, each guest's console in
#                   $(BUILD)/vm/deb-<kernel>-console.log.
#
# The package version is dkms.conf's PACKAGE_VERSION (PMC_VERSION): debian/
# has no changelog of its own, `make deb` writes it into the copy of the
# tree it builds from, $(BUILD)/deb/pmc-<version> (dpkg-buildpackage puts
# its results in the parent directory, $(BUILD)/deb).
#
# Variables: DEB_JOBS (dpkg-buildpackage -j, default: the number of CPUs),
# DEB_BUILD_OPTIONS (e.g. nocheck: skip the host unit tests in the build;
# deb-check sets it, `make check` runs those tests itself), DEB_KERNELS
# (deb-check's kernels: the default one, or with CHECK_ALL=1 every
# /boot/vmlinuz-* whose headers are installed), DEB_VM_TIMEOUT (seconds per guest, default 2400: DKMS
# compiles pmc.ko under TCG), DEB_VM_ARGS (more pmc-vm options).

DEB_OUT := $(BUILD)/deb
# Recursive: PMC_VERSION comes from mk/static-checks.mk, read after this file.
DEB_SRC = $(DEB_OUT)/pmc-$(PMC_VERSION)
DEB_JOBS ?= $(shell nproc)
DEB_PACKAGES := pmc-dkms libpmc1 libpmc-dev libcpc1 libcpc-dev pmc-tools
# The default kernel only (a DKMS build under TCG takes minutes; .ci/run
# has an hour for everything), every installed kernel under make check-all
# (CHECK_ALL=1).
DEB_KERNELS_ALL := $(sort $(foreach k,$(patsubst /boot/vmlinuz-%,%,$(wildcard /boot/vmlinuz-*)),\
	$(if $(wildcard /lib/modules/$(k)/build/include),$(k))))
DEB_KERNELS ?= $(if $(filter 1,$(CHECK_ALL)),$(DEB_KERNELS_ALL),\
	$(shell $(TOP)/tools/kernels resolve default))
DEB_VM_TIMEOUT ?= 2400
DEB_VM_JOBS ?= $(shell nproc)
DEB_VM_ARGS ?=

CHECK_STEPS_LAST += deb-check

.PHONY: deb deb-build deb-lint deb-check

# The tree is copied with git's list of files (tracked, and new ones not
# ignored), so nothing built in the work tree gets into the packages.
# debian/changelog: one entry, the version of dkms.conf, the date of the
# last commit (SOURCE_DATE_EPOCH, hence reproducible builds, follows it).
deb-build:
	@command -v dpkg-buildpackage >/dev/null && command -v dh_dkms >/dev/null || \
		{ echo "deb: needs dpkg-dev, debhelper and dh-dkms: run 'make deps'" >&2; exit 1; }
	@test -n "$(PMC_VERSION)" || { echo "deb: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
	@rm -rf $(DEB_OUT); mkdir -p $(DEB_SRC)
	@cd $(TOP) && git ls-files -z -co --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] || [ -L "$$f" ] || continue; \
			printf "%s\0" "$$f"; done' sh | \
		xargs -0 cp -P --parents -t $(DEB_SRC)
	@maint=$$(sed -n 's/^Maintainer: *//p' $(TOP)/debian/control); \
	when=$$(git -C $(TOP) log -1 --format=%ct 2>/dev/null || date +%s); \
	rev=$$(git -C $(TOP) describe --always --dirty 2>/dev/null || echo unknown); \
	{ echo "pmc ($(PMC_VERSION)) unstable; urgency=medium"; echo; \
	  echo "  * pmc $(PMC_VERSION), built from git $$rev."; echo; \
	  echo " -- $$maint  $$(LC_ALL=C date -R -u -d @$$when)"; } > $(DEB_SRC)/debian/changelog
	@# Our make's variables (MAKEFLAGS, BUILD=... given to it) stay out of
	@# the package build: its `make clean` would remove $$(BUILD).
	@echo "  DEB     $(DEB_OUT) (dpkg-buildpackage -j$(DEB_JOBS); log in $(DEB_OUT)/build.log)"
	@start=$$(date +%s); \
	if ! (cd $(DEB_SRC) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
			-u BUILD -u KDIR -u KVER dpkg-buildpackage -us -uc -j$(DEB_JOBS)) \
			> $(DEB_OUT)/build.log 2>&1; then \
		tail -n 40 $(DEB_OUT)/build.log; echo "deb: dpkg-buildpackage failed" >&2; exit 1; fi; \
	echo "  DONE    $$(cd $(DEB_OUT) && ls *.deb | tr '\n' ' ')in $$(( $$(date +%s) - start )) s"

# lintian on the .changes: the source package and every .deb, info tags
# shown; an error or a warning fails.
deb-lint:
	@command -v lintian >/dev/null || { echo "deb: needs lintian: run 'make deps'" >&2; exit 1; }
	@echo "  LINT    lintian $(DEB_OUT)/pmc_$(PMC_VERSION)_*.changes (log in $(DEB_OUT)/lintian.log)"
	@cd $(DEB_OUT) && lintian --display-info --fail-on error,warning \
		pmc_$(PMC_VERSION)_*.changes > lintian.log 2>&1; st=$$?; \
	grep -E '^[EWIPXO]: ' lintian.log | sed 's/^/    /'; \
	[ $$st -eq 0 ] || { echo "deb: lintian reports errors or warnings" >&2; exit 1; }

deb:
	@$(MAKE) --no-print-directory deb-build
	@$(MAKE) --no-print-directory deb-lint

# deb-check: make deb (its two halves, one TAP line each), then the VM
# test on every kernel (selftests/deb/vm-check, its lines numbered here).
# Under `make check` the step exits 0 once its TAP file is written; run
# alone, it exits 1 on any failure.
deb-check:
	@mkdir -p $(BUILD)/check $(BUILD)/vm
	@tap=$(BUILD)/check/deb-check.tap; rm -f $$tap; \
	{ start=$$(date +%s); \
	  if DEB_BUILD_OPTIONS="nocheck $(DEB_BUILD_OPTIONS)" $(MAKE) --no-print-directory deb-build \
			> $(BUILD)/check/deb-build.log 2>&1; then \
		echo "ok - deb: make deb builds $(DEB_PACKAGES) ($$(( $$(date +%s) - start )) s)"; built=1; \
	  else \
		echo "not ok - deb: make deb failed"; tail -n 30 $(BUILD)/check/deb-build.log | sed 's/^/# /'; built=0; \
	  fi; \
	  if [ $$built = 1 ]; then \
		if $(MAKE) --no-print-directory deb-lint > $(BUILD)/check/deb-lint.log 2>&1; then \
			echo "ok - deb: lintian: no error or warning tag"; \
		else echo "not ok - deb: lintian"; sed 's/^/# /' $(BUILD)/check/deb-lint.log; fi; \
		kernels="$(strip $(DEB_KERNELS))"; \
		if [ -z "$$kernels" ]; then \
			echo "ok - deb: install test # SKIP no kernel with its headers (/boot/vmlinuz-*, /lib/modules/*/build)"; \
		else \
			echo "# install test in the VM on: $$kernels ($(DEB_VM_JOBS) at a time)"; \
			DEB_VM_TIMEOUT=$(DEB_VM_TIMEOUT) DEB_VM_ARGS="$(DEB_VM_ARGS)" \
			$(TOP)/selftests/deb/vm-check $(DEB_OUT) $(PMC_VERSION) $(DEB_VM_JOBS) $$kernels; \
		fi; \
	  fi; \
	} 2>&1 | { n=0; while IFS= read -r l; do case $$l in \
		"ok "*) n=$$((n + 1)); l="ok $$n $${l#ok }" ;; \
		"not ok "*) n=$$((n + 1)); l="not ok $$n $${l#not ok }" ;; esac; \
		printf '%s\n' "$$l"; done; } | tee $$tap; \
	if [ $(MAKELEVEL) -eq 0 ] && grep -q '^not ok' $$tap; then exit 1; fi
