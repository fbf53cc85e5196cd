/*
 * tests/test_par_work.c - threads per job size (haze__threads_for): the
 * count it gives, and the same bits from one and from two threads in the
 * regions that use it, with jobs above the size at which a second thread
 * starts (so that two threads really run) and below it.
 */
#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "test_util.h"

static void test_threads_cap(void **state) {
    (void)state;
    assert_int_equal(haze__threads_cap(4, 0, 100), 1);
    assert_int_equal(haze__threads_cap(4, 199, 100), 1); /* a second thread needs 2x */
    assert_int_equal(haze__threads_cap(4, 200, 100), 2);
    assert_int_equal(haze__threads_cap(4, 399, 100), 3);
    assert_int_equal(haze__threads_cap(4, 1e12, 100), 4);
    assert_int_equal(haze__threads_cap(1, 1e12, 100), 1);
    assert_int_equal(haze__threads_cap(0, 1e12, 100), 1);
    assert_int_equal(haze__threads_cap(3, 1, 0), 3); /* no minimum: all */
    assert_int_equal(haze__threads_cap(3, 0.0 / 0.0, 100), 1);
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_ctx_set_threads(ctx, 2);
    assert_int_equal(haze__threads_for(ctx, 10, 100), 1);
    assert_int_equal(haze__threads_for(ctx, 1e9, 100), 2);
    assert_int_equal(haze__threads_for(NULL, 1e9, 100), 1);
    haze_ctx_free(ctx);
}

/* The exact bounds of every goal of the script's analysis on `threads`. */
static char *prec_bounds(haze_ctx *ctx, haze_prec_script *s, haze_prec_engine e, int threads) {
    haze_ctx_set_threads(ctx, threads);
    haze_prec_result *r = NULL;
    if (haze_prec_analyse(ctx, s, e, &r)) fail_msg("analyse: %s", haze_ctx_errmsg(ctx));
    size_t cap = 1, len = 0;
    for (size_t g = 0; g < haze_prec_result_goal_count(r); g++) {
        const haze_prec_goal *q = haze_prec_result_goal(r, g);
        cap += strlen(q->lo_exact) + strlen(q->hi_exact) + 2;
    }
    char *out = malloc(cap);
    assert_non_null(out);
    out[0] = '\0';
    for (size_t g = 0; g < haze_prec_result_goal_count(r); g++) {
        const haze_prec_goal *q = haze_prec_result_goal(r, g);
        len += (size_t)sprintf(out + len, "%s %s;", q->lo_exact, q->hi_exact);
    }
    haze_prec_result_free(r);
    return out;
}

/* prec: the grid over threads, then refinement (its candidates over threads),
 * for a grid too small for a second thread and one large enough. */
static void test_prec_same_bits(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *path = HAZE_TEST_DATA "/prec/bench/doppler1.g";
    haze_prec_script *s = NULL;
    if (haze_prec_load(ctx, path, NULL, &s)) fail_msg("%s: %s", path, haze_ctx_errmsg(ctx));
    static const int grid[] = {1, 2, 8};
    for (size_t k = 0; k < sizeof grid / sizeof *grid; k++) {
        for (size_t i = 0; i < haze_prec_var_count(s); i++)
            assert_int_equal(haze_prec_set_bisect(ctx, s, haze_prec_var_name(s, i), grid[k]), 0);
        assert_int_equal(haze_prec_set_refine(ctx, s, 24), 0);
        for (haze_prec_engine e = HAZE_PREC_IA; e <= HAZE_PREC_BOTH; e++) {
            char *a = prec_bounds(ctx, s, e, 1), *b = prec_bounds(ctx, s, e, 2);
            assert_string_equal(a, b);
            free(a);
            free(b);
        }
    }
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

/* n x d points around c centres, from a fixed 64-bit LCG. */
static double *points(size_t n, size_t d, size_t c) {
    double *x = malloc(n * d * sizeof *x);
    assert_non_null(x);
    uint64_t z = 12345;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < d; k++) {
            z = z * 6364136223846793005ULL + 1442695040888963407ULL;
            double r = (double)(z >> 11) / 9007199254740992.0;
            x[i * d + k] = (double)((i % c) * 7 + k % 3) + 2 * r;
        }
    return x;
}

/* FCM (Euclidean and Gustafson-Kessel, k-means++ start): 1 and 2 threads,
 * for a fit below the size of a second thread and one above it. */
static void test_fcm_same_bits(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    static const size_t sizes[] = {300, 40000};
    const size_t d = 4, c = 5;
    for (size_t k = 0; k < 2; k++)
        for (int metric = HAZE_FCM_EUCLIDEAN; metric <= HAZE_FCM_GK; metric++) {
            size_t n = sizes[k];
            double *x = points(n, d, c);
            haze_fcm_options o = haze_fcm_options_default();
            o.clusters = (int)c;
            o.metric = (haze_fcm_metric)metric;
            o.seed = 3;
            o.max_iter = 8;
            o.tol = 0;
            haze_fcm_result *r1 = NULL, *r2 = NULL;
            haze_ctx_set_threads(ctx, 1);
            assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r1), HAZE_OK);
            haze_ctx_set_threads(ctx, 2);
            assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r2), HAZE_OK);
            assert_memory_equal(haze_fcm_result_centres(r1), haze_fcm_result_centres(r2),
                                c * d * sizeof(double));
            assert_memory_equal(haze_fcm_result_objective(r1), haze_fcm_result_objective(r2),
                                8 * sizeof(double));
            haze_fcm_result_free(r1);
            haze_fcm_result_free(r2);
            free(x);
        }
    haze_ctx_free(ctx);
}

/* haze__copy_par copies every byte whatever the thread cap of the calling
 * thread (a split over devices sets one), and the cap is the caller's
 * thread's alone. */
static void test_copy_par_cap(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_ctx_set_threads(ctx, 4);
    const size_t n = ((size_t)9 << 20) + 77; /* several pieces, an odd tail */
    unsigned char *a = malloc(n), *b = malloc(n);
    assert_true(a && b);
    for (size_t i = 0; i < n; i++) a[i] = (unsigned char)(i * 131 + (i >> 9));
    const int caps[] = {1, 3, 0, 64};
    for (size_t k = 0; k < sizeof caps / sizeof *caps; k++) {
        memset(b, 0, n);
        haze__copy_par_cap(caps[k]);
        haze__copy_par(ctx, b, a, n);
        if (memcmp(a, b, n) != 0) fail_msg("cap %d: the copy differs", caps[k]);
    }
    haze__copy_par_cap(0);
    free(a), free(b);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_cap),
        cmocka_unit_test(test_copy_par_cap),
        cmocka_unit_test(test_prec_same_bits),
        cmocka_unit_test(test_fcm_same_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
