# SPDX-License-Identifier: GPL-2.0
# selftests/porting: what FreeBSD programs meet when ported (issue 22): attach
# rights as ptrace's (Yama, AppArmor), the unqualified-mode default,
# NEEDS_LOGFILE, SIGIO, the set-id exec rule, GETMSR, and attach failing
# closed without ptrace_may_access() (ptrace_refused_test reloads pmc.ko
# with test_ptrace_unfound=1). getmsr_test needs
# the test PMU, as the hwclass suite does.
PORTING_GETMSR_BIN := $(call selftest_bin,$(TOP)/selftests/porting/getmsr_test.c)
$(PORTING_GETMSR_BIN): $(TOP)/selftests/testpmu/testpmu.ko $(TOP)/selftests/hwclass/hwclass.h

# Yama's ptrace_scope 3 is final until reboot: its check runs in a guest of
# its own, never in the shared VM suite (not in build/selftests/bin/).
PORTING_YAMA3_BIN := $(BUILD)/selftests/porting/yama3
$(PORTING_YAMA3_BIN): $(TOP)/selftests/porting/yama3.c $(SELFTEST_LIB_SRCS) $(SELFTEST_LIB_HDRS) $(KSRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< $(SELFTEST_LIB_SRCS) -lpthread

# Under `make check` the step writes $(BUILD)/check/vm-yama3.tap and exits 0
# (check-summary counts); run directly it exits 1 on a failure, as vm-check.
.PHONY: vm-yama3
vm-yama3: module $(PORTING_YAMA3_BIN)
	@mkdir -p $(BUILD)/check $(BUILD)/vm
	@tap=$(BUILD)/check/vm-yama3.tap; res=$(BUILD)/vm/yama3-result; \
	rm -f $$tap $$res; \
	$(PMC_VM) --log $(BUILD)/vm/yama3-console.log --result $$res \
		-- $(PORTING_YAMA3_BIN) | tee $$tap; \
	st=$${PIPESTATUS[0]}; \
	if [ -s $$res ]; then \
		echo "not ok - vm-yama3: $$(head -n 1 $$res)"; \
	elif [ $$st -ne 0 ] && ! grep -q '^not ok ' $$tap; then \
		echo "not ok - vm-yama3: exited $$st"; \
	else \
		echo "ok - vm-yama3: guest kernel log clean"; \
	fi | tee -a $$tap; \
	if [ $(MAKELEVEL) -eq 0 ] && grep -q '^not ok ' $$tap; then exit 1; fi
selftests:: $(PORTING_YAMA3_BIN)
CHECK_STEPS += vm-yama3
