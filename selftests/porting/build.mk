# SPDX-License-Identifier: GPL-2.0
# selftests/porting: what FreeBSD programs meet when ported (issue 22): attach
# rights as ptrace's (Yama, AppArmor), the unqualified-mode default,
# NEEDS_LOGFILE, SIGIO, the set-id exec rule and GETMSR. getmsr_test needs
# the test PMU, as the hwclass suite does.
PORTING_GETMSR_BIN := $(call selftest_bin,$(TOP)/selftests/porting/getmsr_test.c)
$(PORTING_GETMSR_BIN): $(TOP)/selftests/testpmu/testpmu.ko $(TOP)/selftests/hwclass/hwclass.h

# Yama's ptrace_scope 3 is final until reboot: its check runs in a guest of
# its own, never in the shared VM suite (not in build/selftests/bin/).
PORTING_YAMA3_BIN := $(BUILD)/selftests/porting/yama3
$(PORTING_YAMA3_BIN): $(TOP)/selftests/porting/yama3.c $(SELFTEST_LIB_SRCS) $(SELFTEST_LIB_HDRS) $(KSRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< $(SELFTEST_LIB_SRCS) -lpthread

.PHONY: vm-yama3
vm-yama3: module $(PORTING_YAMA3_BIN)
	$(TOP)/tools/pmc-vm -- $(PORTING_YAMA3_BIN)
selftests:: $(PORTING_YAMA3_BIN)
CHECK_STEPS += vm-yama3
