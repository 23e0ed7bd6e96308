# SPDX-License-Identifier: GPL-2.0
# `make deps`: install the Debian packages the build and the tests need.
#
# Idempotent and quick when nothing is missing: dpkg-query decides, and
# apt-get (update, then install) runs only for the missing packages.  Runs
# as root (CI) or through sudo.  A fragment that needs another package adds
# it with `DEPS_PACKAGES += name`.
#
# The kernels (README, "Supported kernels"): Debian's default one (6.1 on
# Debian 12: linux-image-amd64 and linux-headers-amd64), and the newest ABI
# of each series in DEPS_KERNEL_SERIES, in each flavour of
# DEPS_KERNEL_FLAVOURS: its -unsigned image (a vmlinuz and modules for the
# VM; the host keeps booting its own kernel) and its headers.  The ABI
# (6.12.117+deb12, ...) moves with Debian's security updates: it is found
# with apt (tools/kernels newest-abi) when make deps runs, after an apt-get
# update if apt knows no package of the series yet (or DEPS_UPDATE=1).
# dwarves: pahole, for the module's BTF (6.12's kbuild wants it);
# linux-source-6.12: the RT debug kernel (mk/debug.mk).

DEPS_PACKAGES := \
	make gcc libc6-dev gcc-i686-linux-gnu libc6-dev-i386-cross pkg-config git perl python3 bc flex bison \
	libssl-dev xz-utils zstd file procps \
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 kmod dkms dwarves \
	linux-source-6.12 \
	qemu-system-x86 busybox-static cpio \
	check libatf-dev libpfm4-dev libelf-dev libdw-dev linux-perf \
	groff-base man-db libxml2-utils \
	dpkg-dev debhelper dh-dkms lintian adduser udev

DEPS_KERNEL_SERIES ?= 6.12
DEPS_KERNEL_FLAVOURS ?= amd64 rt-amd64
DEPS_UPDATE ?= 0

.PHONY: deps
deps:
	@if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null; then sudo=sudo; \
	else sudo=false; fi; \
	apt="$$sudo env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"; \
	updated=0; \
	kpkgs=; for s in $(DEPS_KERNEL_SERIES); do for fl in $(DEPS_KERNEL_FLAVOURS); do \
		abi=$$($(TOP)/tools/kernels newest-abi $$s $$fl); \
		if [ -z "$$abi" ] || [ "$(DEPS_UPDATE)" = 1 -a $$updated = 0 ]; then \
			if [ $$updated = 0 ]; then echo "deps: apt-get update (finding the newest $$s kernel)"; \
				$$apt update >/dev/null </dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }; \
				updated=1; fi; \
			abi=$$($(TOP)/tools/kernels newest-abi $$s $$fl); \
		fi; \
		[ -n "$$abi" ] || { echo "deps: apt knows no linux-headers-$$s.*-$$fl" >&2; exit 1; }; \
		kpkgs="$$kpkgs linux-image-$$abi-$$fl-unsigned linux-headers-$$abi-$$fl"; \
	done; done; \
	missing=; for p in $(DEPS_PACKAGES) $$kpkgs; do \
		dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | \
			grep -qx 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then \
		echo "deps: all $$(echo $(DEPS_PACKAGES) $$kpkgs | wc -w) packages are installed (kernels:$$kpkgs)"; exit 0; \
	fi; \
	echo "deps: installing$$missing"; \
	[ "$$sudo" != false ] || { echo "deps: not root and no sudo: install$$missing" >&2; exit 1; }; \
	{ [ $$updated = 1 ] || $$apt update; } && $$apt install --no-install-recommends $$missing </dev/null || exit 1; \
	still=; for p in $$missing; do \
		dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | \
			grep -qx 'install ok installed' || still="$$still $$p"; \
	done; \
	[ -z "$$still" ] || { echo "deps: still missing:$$still" >&2; exit 1; }
