# SPDX-License-Identifier: GPL-2.0
# selftests/core: the hwpmc core's VM tests (docs/core.md). Threads need
# libpthread, which every selftest links already.
