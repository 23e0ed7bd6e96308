# SPDX-License-Identifier: GPL-2.0
# `make deps`: install the Debian packages the build and the tests need.
#
# Idempotent and quick when nothing is missing: dpkg-query decides, and
# apt-get (update, then install) runs only for the missing packages.  Runs
# as root (CI) or through sudo.  A fragment that needs another package adds
# it with `DEPS_PACKAGES += name`.

DEPS_PACKAGES := \
	make gcc libc6-dev gcc-i686-linux-gnu libc6-dev-i386-cross pkg-config git perl python3 bc flex bison \
	libssl-dev xz-utils zstd file procps \
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 kmod dkms \
	qemu-system-x86 busybox-static cpio \
	check libatf-dev libpfm4-dev libelf-dev libdw-dev linux-perf \
	groff-base man-db libxml2-utils \
	dpkg-dev debhelper dh-dkms lintian adduser udev

.PHONY: deps
deps:
	@missing=; for p in $(DEPS_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | \
			grep -qx 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then \
		echo "deps: all $(words $(DEPS_PACKAGES)) packages are installed"; exit 0; \
	fi; \
	echo "deps: installing$$missing"; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null; then sudo=sudo; \
	else echo "deps: not root and no sudo: install$$missing" >&2; exit 1; fi; \
	apt="$$sudo env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
		-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"; \
	$$apt update && $$apt install --no-install-recommends $$missing </dev/null || exit 1; \
	still=; for p in $$missing; do \
		dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | \
			grep -qx 'install ok installed' || still="$$still $$p"; \
	done; \
	[ -z "$$still" ] || { echo "deps: still missing:$$still" >&2; exit 1; }
