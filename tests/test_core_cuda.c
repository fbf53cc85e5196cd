/*
 * tests/test_core_cuda.c - device probing and context creation on a GPU.
 * Skipped (exit 77) where no CUDA device can be used.
 */
#include <string.h>

#include "test_util.h"

static void test_probe(void **state) {
    (void)state;
    int n = haze_cuda_device_count();
    assert_true(n >= 1);
    for (int d = 0; d < n; d++) {
        haze_device_info di;
        assert_int_equal(haze_device_query(d, &di), HAZE_OK);
        assert_true(strlen(di.name) > 0);
        assert_true(di.sm_count > 0);
        assert_true(di.total_mem > ((size_t)1 << 28));
        assert_true(di.free_mem <= di.total_mem);
        assert_true(di.cc_major >= 5);
        assert_int_equal(di.warp_size, 32);
        assert_int_equal(di.id, d);
    }
    haze_device_info di;
    assert_int_equal(haze_device_query(n, &di), HAZE_ERR_NODEVICE);
}

static void test_ctx_cuda(void **state) {
    (void)state;
    unsetenv("HAZE_BACKEND");
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CUDA);
    assert_int_equal(haze_ctx_backend(ctx), HAZE_BACKEND_CUDA);
    assert_int_equal(haze_ctx_device(ctx), 0);
    haze_ctx_free(ctx);
    ctx = haze_test_ctx(HAZE_BACKEND_AUTO);
    assert_int_equal(haze_ctx_backend(ctx), HAZE_BACKEND_CUDA);
    haze_ctx_free(ctx);
}

int main(void) {
    haze_test_require_gpu();
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_probe),
                                       cmocka_unit_test(test_ctx_cuda)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
