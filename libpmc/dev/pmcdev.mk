# SPDX-License-Identifier: GPL-2.0
# libpmc/dev: the device layer both libpmc and libcpc link (libpmc/dev/pmcdev.h):
# build/libpmcdev/libpmcdev.a, position-independent, every symbol hidden.
# Never installed: libpmc.so/libcpc.so link it in, and libpmc.a/libcpc.a
# carry its objects. Included by libpmc/build.mk and libcpc/build.mk, which
# both need its variables before their rules.
#
# PMCDEV_SYS_OBJ is the one object that makes the system calls; host tests
# that simulate /dev/pmc (libcpc-unit) link $(PMCDEV_SAN_TEST_OBJS), the
# others without it, and their own device in its place.

ifndef PMCDEV_A
PMCDEV_DIR := $(TOP)/libpmc/dev
PMCDEV_OUT := $(BUILD)/libpmcdev
PMCDEV_A := $(PMCDEV_OUT)/libpmcdev.a
PMCDEV_SRCS := $(sort $(wildcard $(PMCDEV_DIR)/*.c))
PMCDEV_HDRS := $(wildcard $(PMCDEV_DIR)/*.h) $(wildcard $(TOP)/include/uapi/pmc/*.h)
PMCDEV_OBJS := $(patsubst $(PMCDEV_DIR)/%.c,$(PMCDEV_OUT)/obj/%.o,$(PMCDEV_SRCS))
PMCDEV_SAN_OBJS := $(patsubst $(PMCDEV_DIR)/%.c,$(PMCDEV_OUT)/san/%.o,$(PMCDEV_SRCS))
PMCDEV_SAN_TEST_OBJS := $(filter-out %/pmcdev_sys.o,$(PMCDEV_SAN_OBJS))
PMCDEV_INC := -I$(PMCDEV_DIR)

$(PMCDEV_OUT)/obj/%.o: $(PMCDEV_DIR)/%.c $(PMCDEV_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden $(PMCDEV_INC) -c -o $@ $<

$(PMCDEV_OUT)/san/%.o: $(PMCDEV_DIR)/%.c $(PMCDEV_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -O1 -g $(SAN_CFLAGS) -fvisibility=hidden $(PMCDEV_INC) -c -o $@ $<

$(PMCDEV_A): $(PMCDEV_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

CLEAN_FILES += $(PMCDEV_OUT)
endif
