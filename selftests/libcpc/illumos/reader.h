/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reader.h - what the illumos man-page examples leave to the reader, given
 * to each of them with `cc -include reader.h` so their text stays as
 * printed: error() (printf and exit, "user-supplied" on the pages) and
 * computation(), the code the placeholder comment "==> Computation to be
 * measured goes here <==" stands for (reader.c).
 */
#ifndef _ILLUMOS_READER_H
#define _ILLUMOS_READER_H

void error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void computation(void);

#endif /* _ILLUMOS_READER_H */
