# SPDX-License-Identifier: GPL-2.0
# selftests/faults: fault injection, CPU hotplug, killed owners and targets,
# memory pressure and the load/unload soak (docs/reliability.md). The tests
# are built by selftests/build.mk; faults-failslab also runs pmc-fuzz.
# (Recursive: FUZZ_BIN is defined by selftests/fuzz/build.mk, read later.)
SELFTEST_DEPS_faults = $(FUZZ_BIN)
