/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * unit.h - shared helpers of libcpc's host unit tests (libcheck): the
 * suites, and an error handler that records what libcpc reported.
 */
#ifndef _LIBCPC_UNIT_H
#define _LIBCPC_UNIT_H

#include <check.h>

#include "fake_pmc.h"

Suite *open_suite(void);
Suite *set_suite(void);
Suite *buf_suite(void);
Suite *events_suite(void);
Suite *bind_suite(void);
Suite *ring_suite(void);

/* What the recording handler saw last. */
struct errlog {
	int calls;
	char fn[64];
	int subcode;
	char msg[256];
};
extern struct errlog errlog;
void record_errors(cpc_errhndlr_t **out);
void errlog_reset(void);

#endif /* _LIBCPC_UNIT_H */
