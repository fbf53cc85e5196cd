/*
 * tests/test_util.h - what the C tests share: cmocka, the GPU skip rule and
 * a context helper.
 */
#ifndef HAZE_TEST_UTIL_H
#define HAZE_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "haze/haze.h"

/* Exit code that CTest reads as "skipped". */
#define HAZE_TEST_SKIP 77

/* Call first in a GPU test's main(): exits 77 when no GPU can be used. */
static inline void haze_test_require_gpu(void) {
    if (!haze_has_cuda() || haze_cuda_device_count() == 0) {
        fprintf(stderr, "no CUDA device: skipping\n");
        exit(HAZE_TEST_SKIP);
    }
}

/* A context on the given backend; fails the test if it cannot be made. */
static inline haze_ctx *haze_test_ctx(haze_backend b) {
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = b;
    haze_ctx *ctx = NULL;
    int st = haze_ctx_new(&ctx, &o);
    if (st != HAZE_OK) fail_msg("haze_ctx_new(%s): %s", haze_backend_name(b), haze_ctx_errmsg(ctx));
    return ctx;
}

#endif
