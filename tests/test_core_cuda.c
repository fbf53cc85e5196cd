/*
 * tests/test_core_cuda.c - device probing and context creation on a GPU.
 * Skipped (exit 77) where no CUDA device can be used.
 */
#include <string.h>

#include "test_util.h"

#ifdef HAZE_HAVE_CUDA
#include "core/cuda.h"
#endif

static void test_probe(void **state) {
    (void)state;
    int n = haze_device_count();
    assert_true(n >= 1);
    for (int d = 0; d < n; d++) {
        haze_device_info di = haze_device_info_init();
        assert_int_equal(haze_device_query(NULL, d, &di), HAZE_OK);
        assert_true(strlen(di.name) > 0);
        assert_true(di.sm_count > 0);
        assert_true(di.total_mem > ((size_t)1 << 28));
        assert_true(di.free_mem <= di.total_mem);
        assert_true(di.cc_major >= 5);
        assert_int_equal(di.warp_size, 32);
        assert_int_equal(di.id, d);
    }
    haze_device_info di = haze_device_info_init();
    assert_int_equal(haze_device_query(NULL, n, &di), HAZE_ERR_NODEVICE);
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

#ifdef HAZE_HAVE_CUDA
#include <pthread.h>
#include <stdlib.h>

static void *backend_of(void *p) {
    return (void *)(size_t)haze_ctx_backend((const haze_ctx *)p);
}
#endif

/* An AUTO context returns at once and looks for its device on a thread of
 * its own: the backend is settled when first asked for, by whichever thread
 * asks, the same for all; a context freed before it is settled, and one
 * whose device is not there (settled on the CPU, the clean fallback),
 * are fine. */
static void test_ctx_auto_settle(void **state) {
    (void)state;
#ifdef HAZE_HAVE_CUDA
    unsetenv("HAZE_BACKEND");
    unsetenv("HAZE_DEVICE");
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_AUTO);
    /* not settled yet (the thread is still running or not yet joined) */
    assert_int_equal(__atomic_load_n(&ctx->backend, __ATOMIC_ACQUIRE), HAZE_BACKEND_AUTO);
    enum { T = 8 };
    pthread_t th[T];
    for (int i = 0; i < T; i++) assert_int_equal(pthread_create(&th[i], NULL, backend_of, ctx), 0);
    for (int i = 0; i < T; i++) {
        void *r = NULL;
        pthread_join(th[i], &r);
        assert_int_equal((int)(size_t)r, HAZE_BACKEND_CUDA);
    }
    assert_int_equal(haze_ctx_device_count(ctx), 1);
    assert_null(ctx->warm);
    haze_ctx_free(ctx);
    /* freed before it is settled */
    ctx = haze_test_ctx(HAZE_BACKEND_AUTO);
    haze_ctx_free(ctx);
    /* a device the machine does not have: the CPU, as before */
    setenv("HAZE_DEVICE", "1000", 1);
    ctx = haze_test_ctx(HAZE_BACKEND_AUTO);
    assert_int_equal(haze_ctx_backend(ctx), HAZE_BACKEND_CPU);
    assert_int_equal(haze_ctx_device_count(ctx), 0);
    haze_ctx_free(ctx);
    unsetenv("HAZE_DEVICE");
#endif
}

/* The device allocator keeps a context within its device_memory_limit,
 * counts what it holds, gives the bytes back on free, and says why it
 * refuses. */
static void test_dev_alloc_limit(void **state) {
    (void)state;
#ifdef HAZE_HAVE_CUDA
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CUDA);
    assert_int_equal(haze__cuda_begin(ctx), HAZE_OK);
    assert_int_equal(haze_ctx_set_device_memory_limit(ctx, 1 << 20), HAZE_OK);
    void *a = NULL, *b = (void *)1, *c = NULL;
    assert_int_equal(haze__dev_alloc(ctx, &a, 600 << 10, "test a"), HAZE_OK);
    assert_non_null(a);
    assert_int_equal(haze__dev_acct_bytes(ctx->dev_acct), 600 << 10);
    /* 600 KiB + 500 KiB pass 1 MiB: refused, nothing counted */
    assert_int_equal(haze__dev_alloc(ctx, &b, 500 << 10, "test b"), HAZE_ERR_NOMEM);
    assert_null(b);
    assert_non_null(
        strstr(haze_ctx_errmsg(ctx), "out of device memory: test b needs 512000 bytes"));
    assert_int_equal(haze__dev_acct_bytes(ctx->dev_acct), 600 << 10);
    /* the budget of streaming paths sees what is held */
    assert_true(haze__cuda_budget(ctx) <= (size_t)(424 << 10));
    assert_int_equal(haze__dev_alloc(ctx, &c, 424 << 10, "test c"), HAZE_OK); /* exactly 1 MiB */
    haze__dev_free(ctx, a, 600 << 10);
    assert_int_equal(haze__dev_acct_bytes(ctx->dev_acct), 424 << 10);
    assert_int_equal(haze__dev_alloc(ctx, &b, 500 << 10, "test b"), HAZE_OK);
    haze__dev_free(ctx, b, 500 << 10);
    /* an object that outlives its context returns its bytes to nobody's
     * count but still frees on its device */
    haze__dev_acct *acct = haze__dev_acct_hold(ctx);
    int device = ctx->device;
    haze_ctx_free(ctx);
    haze__dev_free_held(acct, device, c, 424 << 10);
    assert_int_equal(haze__dev_acct_bytes(acct), 0);
    haze__dev_acct_drop(acct);

    /* the device itself has no room: refused the same way */
    ctx = haze_test_ctx(HAZE_BACKEND_CUDA);
    assert_int_equal(haze__cuda_begin(ctx), HAZE_OK);
    haze_device_info di = haze_device_info_init();
    assert_int_equal(haze_device_query(NULL, 0, &di), HAZE_OK);
    void *huge = NULL;
    assert_int_equal(haze__dev_alloc(ctx, &huge, di.total_mem * 2, "huge"), HAZE_ERR_NOMEM);
    assert_null(huge);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "out of device memory: huge needs"));
    assert_int_equal(haze__dev_acct_bytes(ctx->dev_acct), 0);
    /* and the failure is not seen by the next launch check */
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    /* the properties are read once */
    const struct cudaDeviceProp *p = haze__cuda_props(0);
    assert_non_null(p);
    assert_ptr_equal(p, haze__cuda_props(0));
    assert_int_equal(p->multiProcessorCount, di.sm_count);
    assert_null(haze__cuda_props(-1));
    haze_ctx_free(ctx);
#endif
}

int main(void) {
    haze_test_require_gpu();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe), cmocka_unit_test(test_ctx_cuda),
        cmocka_unit_test(test_ctx_auto_settle), cmocka_unit_test(test_dev_alloc_limit)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
