# SPDX-License-Identifier: GPL-2.0
# Building the kernel module(s) against $(KDIR), with W=1.

.PHONY: module
ifeq ($(filter-out 0 1,$(words $(KVER_LIST))),)
module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "error: no kernel build dir (KDIR='$(KDIR)'); run 'make deps'" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules
else
# KVER=all or a list: one build per kernel, in $(BUILD)/kernels/ (mk/kernels.mk).
module: $(addprefix modules-,$(KVER_LIST))
endif

CLEAN_FILES += driver/*/*.o driver/*/.*.cmd driver/arch/*/*.o driver/arch/*/.*.cmd driver/pmc.ko
