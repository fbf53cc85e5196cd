/*
 * tests/test_prec_cuda.c - GPU bisection of the rounding-error analyser: the
 * kernel runs the double-interval engine of src/prec/prec_box.h on every
 * sub-box; its enclosures must be bit-identical to the same code run on the
 * CPU (haze_dev_prec_boxes_host), at several numbers of sub-boxes, and the
 * joined GPU result must contain every sampled exact value and match the
 * CPU backend's interval engine within a small factor.
 */
#include <math.h>
#include <string.h>

#include "prec_dev.h"
#include "test_util.h"

#ifdef HAZE_HAVE_CUDA
static const char *scripts[] = {
    HAZE_SOURCE_DIR "/examples/prec/fixed_point.g",
    HAZE_TEST_DATA "/prec/bench/rigidBody1.g",
    HAZE_TEST_DATA "/prec/bench/doppler1.g",
    HAZE_TEST_DATA "/prec/bench/turbine1.g",
    HAZE_TEST_DATA "/prec/bench/jetEngine.g",
    /* longer than the kernel's thread-local arrays (haze_dev_prec_boxes_local_max) */
    HAZE_TEST_DATA "/prec/long/horner150.g",
};

static void test_bit_identical(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CUDA);
    static const long splits[] = {1, 7, 64, 1000};
    for (size_t f = 0; f < sizeof scripts / sizeof *scripts; f++) {
        haze_prec_script *s = NULL;
        assert_int_equal(haze_prec_load(ctx, scripts[f], NULL, &s), HAZE_OK);
        for (size_t k = 0; k < sizeof splits / sizeof *splits; k++) {
            for (size_t v = 0; v < haze_prec_var_count(s); v++)
                haze_prec_set_bisect(ctx, s, haze_prec_var_name(s, v), v == 0 ? splits[k] : 3);
            haze_dev_prec_boxes *p = NULL;
            assert_int_equal(haze_dev_prec_boxes_compile(ctx, s, &p), HAZE_OK);
            if (strstr(scripts[f], "horner"))
                assert_true(haze_dev_prec_boxes_length(p) > haze_dev_prec_boxes_local_max());
            long n = haze_dev_prec_boxes_count(p);
            size_t ng = (size_t)haze_dev_prec_boxes_goals(p);
            double *a = calloc((size_t)n * ng * 2, sizeof *a);
            double *b = calloc((size_t)n * ng * 2, sizeof *b);
            int *ea = calloc((size_t)n, sizeof *ea), *eb = calloc((size_t)n, sizeof *eb);
            assert_non_null(a);
            assert_non_null(b);
            assert_non_null(ea);
            assert_non_null(eb);
            assert_int_equal(haze_dev_prec_boxes_host(p, 0, n, a, ea), 0);
            int rc = haze_dev_prec_boxes_cuda(ctx, p, 0, n, b, eb);
            if (rc) fail_msg("%s", haze_ctx_errmsg(ctx));
            assert_memory_equal(ea, eb, (size_t)n * sizeof *ea);
            assert_memory_equal(a, b, (size_t)n * ng * 2 * sizeof *a);
            free(a);
            free(b);
            free(ea);
            free(eb);
            haze_dev_prec_boxes_free(p);
        }
        haze_prec_free(s);
    }
    haze_ctx_free(ctx);
}

static void test_enclosure(void **state) {
    (void)state;
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    haze_ctx *cpu = haze_test_ctx(HAZE_BACKEND_CPU);
    for (size_t f = 0; f < sizeof scripts / sizeof *scripts; f++) {
        haze_prec_script *s = NULL;
        assert_int_equal(haze_prec_load(cpu, scripts[f], NULL, &s), HAZE_OK);
        for (size_t v = 0; v < haze_prec_var_count(s); v++)
            haze_prec_set_bisect(cpu, s, haze_prec_var_name(s, v), 16);
        haze_prec_result *rg = NULL, *rc = NULL;
        assert_int_equal(haze_prec_analyse(gpu, s, HAZE_PREC_IA, &rg), HAZE_OK);
        assert_int_equal(haze_prec_analyse(cpu, s, HAZE_PREC_IA, &rc), HAZE_OK);
        for (size_t g = 0; g < haze_prec_result_goal_count(rg); g++) {
            double wg = fmax(fabs(haze_prec_result_goal(rg, g)->lo),
                             fabs(haze_prec_result_goal(rg, g)->hi));
            double wc = fmax(fabs(haze_prec_result_goal(rc, g)->lo),
                             fabs(haze_prec_result_goal(rc, g)->hi));
            /* double intervals without relative errors: somewhat wider, never absurd */
            if (!(wg <= 4 * wc)) fail_msg("%s: GPU %g vs CPU %g", scripts[f], wg, wc);
        }
        /* sampled exact values lie inside the GPU enclosure */
        size_t nv = haze_prec_var_count(s), ng = haze_prec_goal_count(s);
        double x[16], out[16], lo[16], hi[16];
        assert_true(nv <= 16 && ng <= 16);
        for (size_t v = 0; v < nv; v++) haze_prec_var_range(cpu, s, v, &lo[v], &hi[v]);
        for (int k = 0; k < 200; k++) {
            for (size_t v = 0; v < nv; v++)
                x[v] = lo[v] + (hi[v] - lo[v]) * (double)((k * 37 + (int)v * 11) % 101) / 100.0;
            assert_int_equal(haze_prec_eval(cpu, s, x, 512, out), HAZE_OK);
            for (size_t g = 0; g < ng; g++)
                assert_true(out[g] >= haze_prec_result_goal(rg, g)->lo &&
                            out[g] <= haze_prec_result_goal(rg, g)->hi);
        }
        haze_prec_result_free(rg);
        haze_prec_result_free(rc);
        haze_prec_free(s);
    }
    haze_ctx_free(gpu);
    haze_ctx_free(cpu);
}

/* The GPU fills the per-box results as the CPU does: the same grid, each
 * input's sub-ranges within an ulp of the CPU's, the join of the boxes the
 * goal's enclosure bit for bit, each box's enclosure holding the exact
 * values of points inside it and no more than a few times the CPU's. */
static void test_boxes(void **state) {
    (void)state;
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    haze_ctx *cpu = haze_test_ctx(HAZE_BACKEND_CPU);
    for (size_t f = 0; f < 3; f++) {
        haze_prec_script *s = NULL;
        assert_int_equal(haze_prec_load(cpu, scripts[f], NULL, &s), HAZE_OK);
        size_t nv = haze_prec_var_count(s), ng = haze_prec_goal_count(s);
        assert_true(nv <= 16 && ng <= 16);
        for (size_t v = 0; v < nv; v++)
            haze_prec_set_bisect(cpu, s, haze_prec_var_name(s, v), v == 0 ? 9 : v == 1 ? 4 : 1);
        assert_int_equal(haze_prec_set_refine(cpu, s, 0), 0); /* the GPU does not refine */
        haze_prec_result *rg = NULL, *rc = NULL;
        assert_int_equal(haze_prec_analyse(gpu, s, HAZE_PREC_IA, &rg), HAZE_OK);
        assert_int_equal(haze_prec_analyse(cpu, s, HAZE_PREC_IA, &rc), HAZE_OK);
        size_t nb = haze_prec_result_box_count(rg);
        assert_int_equal(nb, haze_prec_result_box_count(rc));
        assert_int_equal(nb, nv > 1 ? 36 : 9);
        double glo[16], ghi[16], clo[16], chi[16], rlo[16], rhi[16], x[16], out[16];
        double jl[16], jh[16];
        for (size_t g = 0; g < ng; g++) jl[g] = HUGE_VAL, jh[g] = -HUGE_VAL;
        for (size_t v = 0; v < nv; v++) haze_prec_var_range(cpu, s, v, &rlo[v], &rhi[v]);
        for (size_t b = 0; b < nb; b++)
            for (size_t g = 0; g < ng; g++) {
                double a, c, a2, c2;
                assert_int_equal(haze_prec_result_box(gpu, rg, b, g, glo, ghi, &a, &c), 0);
                assert_int_equal(haze_prec_result_box(cpu, rc, b, g, clo, chi, &a2, &c2), 0);
                for (size_t v = 0; v < nv; v++) {
                    assert_true(fabs(glo[v] - clo[v]) <= 1e-12 * fmax(1, fabs(clo[v])));
                    assert_true(fabs(ghi[v] - chi[v]) <= 1e-12 * fmax(1, fabs(chi[v])));
                }
                /* a few times the CPU's (or a thousandth of the whole bound,
                 * where the CPU proves a box nearly exact) */
                double mc = fmax(fabs(haze_prec_result_goal(rc, g)->lo),
                                 fabs(haze_prec_result_goal(rc, g)->hi));
                if (!(fmax(fabs(a), fabs(c)) <= 4 * fmax(fmax(fabs(a2), fabs(c2)), 1e-3 * mc)))
                    fail_msg("%s box %zu: GPU [%g, %g] vs CPU [%g, %g]", scripts[f], b, a, c, a2,
                             c2);
                jl[g] = fmin(jl[g], a);
                jh[g] = fmax(jh[g], c);
                for (int k = 0; k < 5; k++) {
                    for (size_t v = 0; v < nv; v++) {
                        double p = fmax(glo[v], rlo[v]), q = fmin(ghi[v], rhi[v]);
                        x[v] = p + (q - p) * (double)((k * 29 + (int)v * 13) % 17) / 16.0;
                    }
                    assert_int_equal(haze_prec_eval(cpu, s, x, 512, out), HAZE_OK);
                    if (!(out[g] >= a && out[g] <= c))
                        fail_msg("%s box %zu: %.17g outside [%.17g, %.17g]", scripts[f], b, out[g],
                                 a, c);
                }
            }
        for (size_t g = 0; g < ng; g++) {
            assert_memory_equal(&jl[g], &haze_prec_result_goal(rg, g)->lo, sizeof(double));
            assert_memory_equal(&jh[g], &haze_prec_result_goal(rg, g)->hi, sizeof(double));
        }
        haze_prec_result_free(rg);
        haze_prec_result_free(rc);
        haze_prec_free(s);
    }
    haze_ctx_free(gpu);
    haze_ctx_free(cpu);
}

#endif

int main(void) {
    haze_test_require_gpu();
#ifdef HAZE_HAVE_CUDA
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bit_identical),
                                       cmocka_unit_test(test_enclosure),
                                       cmocka_unit_test(test_boxes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
#else
    return HAZE_TEST_SKIP;
#endif
}
