# SPDX-License-Identifier: GPL-2.0
# Driver selftests (kselftest harness, run in the VM by `make check`).
#
# Every selftests/<suite>/*_test.c becomes build/selftests/bin/<suite>-<name>,
# linked with every selftests/lib/*.c. A suite that needs more (a library,
# -lpthread) sets SELFTEST_LDLIBS_<suite> in its own selftests/<suite>/build.mk.
# tools/pmc-vm + selftests/run-all run every binary in build/selftests/bin/.

SELFTEST_BIN := $(BUILD)/selftests/bin
SELFTEST_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -O1 \
	-Wno-unused-parameter -I$(TOP)/include/uapi -I$(TOP)/selftests/lib \
	-I$(KSELFTEST_INC)
SELFTEST_LIB_SRCS := $(sort $(wildcard $(TOP)/selftests/lib/*.c))
SELFTEST_LIB_HDRS := $(sort $(wildcard $(TOP)/selftests/lib/*.h $(TOP)/include/uapi/pmc/*.h))
SELFTEST_SRCS := $(sort $(wildcard $(TOP)/selftests/*/*_test.c))

# selftests/core/alloc_test.c -> build/selftests/bin/core-alloc
selftest_bin = $(SELFTEST_BIN)/$(notdir $(patsubst %/,%,$(dir $(1))))-$(patsubst %_test.c,%,$(notdir $(1)))
selftest_suite = $(notdir $(patsubst %/,%,$(dir $(1))))

# Suite fragments (selftests/<suite>/build.mk) are read after this file, so
# their SELFTEST_DEPS_<suite> is expanded in the second expansion.
.SECONDEXPANSION:
define selftest_rule
$(call selftest_bin,$(1)): $(1) $(SELFTEST_LIB_SRCS) $(SELFTEST_LIB_HDRS) $(KSRC)/.stamp $$$$(SELFTEST_DEPS_$(call selftest_suite,$(1)))
	@mkdir -p $(SELFTEST_BIN)
	$(CC) $(SELFTEST_CFLAGS) -o $$@ $(1) $(SELFTEST_LIB_SRCS) $$(SELFTEST_LDLIBS_$(call selftest_suite,$(1))) -lpthread
endef
$(foreach s,$(SELFTEST_SRCS),$(eval $(call selftest_rule,$(s))))

.PHONY: selftests
selftests:: $(foreach s,$(SELFTEST_SRCS),$(call selftest_bin,$(s)))
ALL_TARGETS += selftests
