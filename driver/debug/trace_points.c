// SPDX-License-Identifier: GPL-2.0
/*
 * trace_points.c - instantiates the trace events declared in trace.h (the
 * only file that defines CREATE_TRACE_POINTS).
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
