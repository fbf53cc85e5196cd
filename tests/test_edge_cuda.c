/*
 * tests/test_edge_cuda.c - FIRE on the GPU: the paper's two-kernel reference
 * and the fast single-pass kernel must give exactly the CPU reference's
 * image, on the photographs of tests/data/edge and on random, step, ramp and
 * noise images of many sizes (tile tails, one-pixel images), for several
 * parameter sets.
 */
#include <string.h>

#include "core/rng.h"
#include "test_util.h"

static haze_image *run(haze_ctx *ctx, haze_edge *f, haze_edge_kernel k, const haze_image *in) {
    haze_image *out = NULL;
    assert_int_equal(haze_image_new(ctx, in->width, in->height, &out), HAZE_OK);
    if (haze_edge_run(ctx, f, k, in, out)) fail_msg("%s", haze_ctx_errmsg(ctx));
    return out;
}

static void compare_all(haze_ctx *cpu, haze_ctx *gpu, haze_edge *f, const haze_image *in) {
    haze_image *ref = run(cpu, f, HAZE_EDGE_REFERENCE, in);
    haze_image *g1 = run(gpu, f, HAZE_EDGE_REFERENCE, in);
    haze_image *g2 = run(gpu, f, HAZE_EDGE_FAST, in);
    size_t n = (size_t)in->width * (size_t)in->height;
    if (memcmp(ref->data, g1->data, n))
        fail_msg("GPU reference differs (%d x %d)", in->width, in->height);
    if (memcmp(ref->data, g2->data, n))
        fail_msg("GPU fast differs (%d x %d)", in->width, in->height);
    haze_image_free(ref);
    haze_image_free(g1);
    haze_image_free(g2);
}

static void test_photographs(void **s) {
    (void)s;
    haze_ctx *cpu = haze_test_ctx(HAZE_BACKEND_CPU), *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    haze_edge *f = NULL;
    assert_int_equal(haze_edge_new(gpu, NULL, &f), HAZE_OK);
    const char *names[] = {"camera.png", "astronaut.png", "coins.ppm", "hubble.jpg"};
    for (int i = 0; i < 4; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/edge/%s", HAZE_TEST_DATA, names[i]);
        haze_image *in = NULL;
        if (haze_image_load(cpu, path, &in)) fail_msg("%s", haze_ctx_errmsg(cpu));
        compare_all(cpu, gpu, f, in);
        haze_image_free(in);
    }
    haze_edge_free(f);
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
}

static void test_synthetic(void **s) {
    (void)s;
    haze_ctx *cpu = haze_test_ctx(HAZE_BACKEND_CPU), *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    haze__rng r;
    haze__rng_seed(&r, 5);
    const int sizes[][2] = {{1, 1}, {1, 40}, {40, 1}, {15, 17}, {16, 16}, {100, 37}, {640, 480}};
    for (int pset = 0; pset < 3; pset++) {
        haze_edge_options p = haze_edge_options_default();
        if (pset == 1) p.spread = 1, p.black_width = 255, p.scale = 1;
        if (pset == 2) p.spread = 200, p.black_width = 3, p.scale = 4;
        haze_edge *f = NULL;
        assert_int_equal(haze_edge_new(gpu, &p, &f), HAZE_OK);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int kind = 0; kind < 3; kind++) {
                haze_image *in = NULL;
                int w = sizes[si][0], h = sizes[si][1];
                assert_int_equal(haze_image_new(cpu, w, h, &in), HAZE_OK);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        int v = kind == 0   ? (x + 2 * y > (w + h) / 2 ? 230 : 25)
                                : kind == 1 ? (x * 255) / (w > 1 ? w - 1 : 1)
                                            : (int)haze__rng_below(&r, 256);
                        in->data[(size_t)y * (size_t)w + (size_t)x] = (uint8_t)v;
                    }
                compare_all(cpu, gpu, f, in);
                haze_image_free(in);
            }
        haze_edge_free(f);
    }
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
}

int main(void) {
    haze_test_require_gpu();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_photographs),
        cmocka_unit_test(test_synthetic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
