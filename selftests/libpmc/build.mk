# SPDX-License-Identifier: GPL-2.0
# selftests/libpmc: pmc(3)/pmclog(3) end to end in the VM, linked statically
# with libpmc.a (no library path to set up in the guest). The -I rides on
# the LDLIBS, which reach the one compile-and-link command line.

SELFTEST_LDLIBS_libpmc := -I$(TOP)/libpmc $(LIBPMC_A) -lpfm
SELFTEST_DEPS_libpmc := $(LIBPMC_A) $(wildcard $(TOP)/libpmc/*.h) \
	$(wildcard $(TOP)/selftests/libpmc/*.h)

# selftests/build.mk expands SELFTEST_DEPS_<suite> when it is read, before
# this file: name the prerequisites of our binaries here too.
$(foreach s,$(wildcard $(TOP)/selftests/libpmc/*_test.c),\
	$(eval $(call selftest_bin,$(s)): $(SELFTEST_DEPS_libpmc)))

# hwclass_test loads the test PMU (selftests/testpmu, built by its fragment).
$(call selftest_bin,$(TOP)/selftests/libpmc/hwclass_test.c): \
	$(TOP)/selftests/testpmu/testpmu.ko $(TOP)/selftests/testpmu/testpmu_util.h
