/*
 * tests/table_ref.h - the reference table reader (table_ref.c), the reader
 * as it was before the fast readers; for test_table only.
 */
#ifndef HAZE_TESTS_TABLE_REF_H
#define HAZE_TESTS_TABLE_REF_H

#include "haze/io.h"

/* haze_table_read as it was (keep_float32 unknown: always doubles). */
int haze_ref_table_read(haze_ctx *ctx, const char *path, const haze_table_options *opt,
                        haze_table **out);

#endif
