/*
 * tests/test_fcm.c - fuzzy c-means on the CPU: against scikit-fuzzy's cmeans
 * and Octave's gustafson_kessel (golden files in tests/data/fcm, made by
 * scripts/golden/fcm/), and the properties the algorithm must keep: the
 * objective never increases, memberships are a partition even on a centre,
 * float32 survives a large dynamic range, results do not depend on threads.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "fcm_dev.h"
#include "test_util.h"
#include "fcm/fcm_result.h"

static int quick(void) {
    return getenv("HAZE_TEST_QUICK") != NULL;
}

static haze_table *load(haze_ctx *ctx, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fcm/%s", HAZE_TEST_DATA, name);
    haze_table *t = NULL;
    int st = haze_table_read(ctx, path, NULL, &t);
    if (st) fail_msg("%s: %s", path, haze_ctx_errmsg(ctx));
    return t;
}

/* |a - b| <= tol * max(1, |b|) for every entry. */
static void assert_close(const double *a, const double *b, size_t n, double tol, const char *what) {
    for (size_t i = 0; i < n; i++) {
        double s = fabs(b[i]) > 1 ? fabs(b[i]) : 1;
        if (!(fabs(a[i] - b[i]) <= tol * s))
            fail_msg("%s[%zu]: got %.17g, want %.17g (tol %g)", what, i, a[i], b[i], tol);
    }
}

static void skfuzzy_case(const char *name) {
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    char f[256];
    snprintf(f, sizeof f, "%s_data.csv", name);
    haze_table *x = load(ctx, f);
    snprintf(f, sizeof f, "%s_u0.csv", name);
    haze_table *u0 = load(ctx, f);
    snprintf(f, sizeof f, "%s_centers.csv", name);
    haze_table *cv = load(ctx, f);
    snprintf(f, sizeof f, "%s_u.csv", name);
    haze_table *cu = load(ctx, f);
    snprintf(f, sizeof f, "%s_objective.csv", name);
    haze_table *cj = load(ctx, f);
    snprintf(f, sizeof f, "%s_meta.csv", name);
    haze_table *meta = load(ctx, f);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)haze_table_data(meta)[0];
    o.m = haze_table_data(meta)[1];
    o.tol = haze_table_data(meta)[2];
    o.max_iter = (int)haze_table_data(meta)[3];
    o.init = HAZE_FCM_INIT_MEMBERSHIPS;
    o.init_data = haze_table_data(u0);
    o.want_memberships = 1;
    haze_fcm_result *r = NULL;
    assert_int_equal(haze_fcm_fit(ctx, haze_table_data(x), HAZE_PRECISION_F64,
                                  haze_table_row_count(x), haze_table_column_count(x), &o, &r),
                     HAZE_OK);
    assert_int_equal(haze_fcm_result_iterations(r), (int)haze_table_data(meta)[4]);
    assert_int_equal((size_t)haze_fcm_result_iterations(r), haze_table_row_count(cj));
    assert_true(haze_fcm_result_converged(r));
    assert_close(haze_fcm_result_centres(r), haze_table_data(cv),
                 haze_table_row_count(cv) * haze_table_column_count(cv), 1e-8, "centres");
    assert_close(haze_fcm_result_memberships(r), haze_table_data(cu),
                 haze_table_row_count(cu) * haze_table_column_count(cu), 1e-8, "memberships");
    assert_close(haze_fcm_result_objective(r), haze_table_data(cj), haze_table_row_count(cj), 1e-8,
                 "objective");
    assert_close((double[]){haze_fcm_result_partition_coefficient(r)}, &haze_table_data(meta)[5], 1,
                 1e-8, "partition coefficient");
    assert_close((double[]){haze_fcm_result_partition_entropy(r)}, &haze_table_data(meta)[6], 1,
                 1e-8, "partition entropy");
    haze_fcm_result_free(r);
    haze_table_free(x), haze_table_free(u0), haze_table_free(cv), haze_table_free(cu);
    haze_table_free(cj), haze_table_free(meta);
    haze_ctx_free(ctx);
}

static void test_skfuzzy_iris(void **state) {
    (void)state;
    skfuzzy_case("iris");
}

static void test_skfuzzy_blobs(void **state) {
    (void)state;
    skfuzzy_case("blobs");
}

static void test_skfuzzy_predict(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_table *x = load(ctx, "predict_data.csv"), *cv = load(ctx, "predict_centers.csv");
    haze_table *cu = load(ctx, "predict_u.csv");
    haze_fcm_result model = {0};
    model.n = 0, model.d = haze_table_column_count(cv), model.c = haze_table_row_count(cv),
    model.m = 1.7;
    model.metric = HAZE_FCM_EUCLIDEAN, model.centers = haze_table_data(cv);
    double *u = malloc(haze_table_row_count(x) * haze_table_row_count(cv) * sizeof *u);
    assert_int_equal(haze_fcm_predict(ctx, &model, haze_table_data(x), haze_table_row_count(x),
                                      haze_table_column_count(x), HAZE_PRECISION_F64, u),
                     HAZE_OK);
    assert_close(u, haze_table_data(cu), haze_table_row_count(x) * haze_table_row_count(cv), 1e-12,
                 "predict");
    /* dimension mismatch */
    assert_int_equal(haze_fcm_predict(ctx, &model, haze_table_data(x),
                                      haze_table_row_count(x) * haze_table_column_count(x) / 1, 1,
                                      HAZE_PRECISION_F64, u),
                     HAZE_ERR_MISMATCH);
    free(u);
    haze_table_free(x), haze_table_free(cv), haze_table_free(cu);
    haze_ctx_free(ctx);
}

/* Gustafson-Kessel against Octave's fuzzy-logic-toolkit from the same centres. */
static void test_octave_gk(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_table *x = load(ctx, "gk_data.csv"), *v0 = load(ctx, "gk_v0.csv");
    haze_table *cv = load(ctx, "gk_centers.csv"), *cj = load(ctx, "gk_objective.csv");
    haze_table *cu = load(ctx, "gk_u_prev.csv");
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)haze_table_row_count(v0);
    o.metric = HAZE_FCM_GK;
    o.init = HAZE_FCM_INIT_CENTRES;
    o.init_data = haze_table_data(v0);
    o.tol = 0;
    o.max_iter = (int)haze_table_row_count(cj);
    haze_fcm_result *r = NULL;
    assert_int_equal(haze_fcm_fit(ctx, haze_table_data(x), HAZE_PRECISION_F64,
                                  haze_table_row_count(x), haze_table_column_count(x), &o, &r),
                     HAZE_OK);
    assert_int_equal(haze_fcm_result_iterations(r), (int)haze_table_row_count(cj));
    assert_close(haze_fcm_result_centres(r), haze_table_data(cv),
                 haze_table_row_count(cv) * haze_table_column_count(cv), 1e-8, "GK centres");
    assert_close(haze_fcm_result_objective(r), haze_table_data(cj), haze_table_row_count(cj), 1e-8,
                 "GK objective");
    for (int k = 1; k < haze_fcm_result_iterations(r); k++)
        if (!(haze_fcm_result_objective(r)[k] <= haze_fcm_result_objective(r)[k - 1] * (1 + 1e-12)))
            fail_msg("GK J[%d] = %.17g > J[%d] = %.17g", k, haze_fcm_result_objective(r)[k], k - 1,
                     haze_fcm_result_objective(r)[k - 1]);
    haze_fcm_result_free(r);
    /* The toolkit returns the memberships of the iteration before. */
    o.max_iter = (int)haze_table_row_count(cj) - 1;
    o.want_memberships = 1;
    assert_int_equal(haze_fcm_fit(ctx, haze_table_data(x), HAZE_PRECISION_F64,
                                  haze_table_row_count(x), haze_table_column_count(x), &o, &r),
                     HAZE_OK);
    assert_close(haze_fcm_result_memberships(r), haze_table_data(cu),
                 haze_table_row_count(cu) * haze_table_column_count(cu), 1e-8, "GK memberships");
    haze_fcm_result_free(r);
    haze_table_free(x), haze_table_free(v0), haze_table_free(cv), haze_table_free(cj);
    haze_table_free(cu);
    haze_ctx_free(ctx);
}

static void test_objective_never_increases(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const size_t sizes[][3] = {{50, 2, 3}, {400, 5, 4}, {1000, 3, 8}, {1500, 12, 5}};
    int ncase = quick() ? 2 : 4;
    for (int s = 0; s < ncase; s++)
        for (int metric = 0; metric < 2; metric++)
            for (int single = 0; single < 2; single++)
                for (int init = 0; init < 2; init++) {
                    size_t n = sizes[s][0], d = sizes[s][1], c = sizes[s][2];
                    double *x = haze_test_blobs_spread(n, d, c, 1.0, (unsigned)(s * 17 + 1));
                    haze_fcm_options o = haze_fcm_options_default();
                    o.clusters = (int)c;
                    o.metric = (haze_fcm_metric)metric;
                    o.precision = (single) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64;
                    o.init = init ? HAZE_FCM_INIT_KMEANSPP : HAZE_FCM_INIT_RANDOM;
                    o.seed = 42 + s;
                    o.m = s % 2 ? 1.5 : 2.0;
                    o.max_iter = 40;
                    o.tol = 0;
                    haze_fcm_result *r = NULL;
                    int st = haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r);
                    if (st) fail_msg("fit: %s", haze_ctx_errmsg(ctx));
                    double slack = single ? 1e-5 : 1e-11;
                    for (int k = 1; k < haze_fcm_result_iterations(r); k++)
                        if (!(haze_fcm_result_objective(r)[k] <=
                              haze_fcm_result_objective(r)[k - 1] * (1 + slack)))
                            fail_msg("case %d metric %d single %d init %d: J[%d] = %.17g > "
                                     "J[%d] = %.17g",
                                     s, metric, single, init, k, haze_fcm_result_objective(r)[k],
                                     k - 1, haze_fcm_result_objective(r)[k - 1]);
                    assert_true(haze_fcm_result_partition_coefficient(r) >= 1.0 / (double)c - 1e-6);
                    assert_true(haze_fcm_result_partition_coefficient(r) <= 1.0 + 1e-6);
                    assert_true(haze_fcm_result_xie_beni(r) > 0 &&
                                isfinite(haze_fcm_result_xie_beni(r)));
                    haze_fcm_result_free(r);
                    free(x);
                }
    haze_ctx_free(ctx);
}

/* Points exactly on the initial centres get crisp memberships, not NaN. */
static void test_zero_distance(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    double x[] = {0, 0, 0, 0, 1, 1, 1, 1, 5, 5}; /* 5 points in 2-D, duplicates */
    double v[] = {0, 0, 1, 1};
    for (int single = 0; single < 2; single++) {
        haze_fcm_result model = {0};
        model.d = 2, model.c = 2, model.m = 2, model.centers = v;
        double u[10];
        assert_int_equal(haze_fcm_predict(ctx, &model, x, 5, 2,
                                          (single) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64, u),
                         HAZE_OK);
        assert_true(u[0] == 1 && u[1] == 0 && u[4] == 0 && u[5] == 1);
        assert_true(fabs(u[8] + u[9] - 1) < 1e-6 && u[8] < u[9]);
        /* two identical centres share a point that sits on both */
        double vv[] = {1, 1, 1, 1};
        model.centers = vv;
        assert_int_equal(haze_fcm_predict(ctx, &model, x, 5, 2,
                                          (single) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64, u),
                         HAZE_OK);
        assert_true(u[4] == 0.5 && u[5] == 0.5);
    }
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 2;
    o.init = HAZE_FCM_INIT_CENTRES;
    o.init_data = v;
    o.want_memberships = 1;
    haze_fcm_result *r = NULL;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 5, 2, &o, &r), HAZE_OK);
    for (size_t i = 0; i < 10; i++) assert_true(isfinite(haze_fcm_result_memberships(r)[i]));
    for (int k = 0; k < haze_fcm_result_iterations(r); k++)
        assert_true(isfinite(haze_fcm_result_objective(r)[k]));
    haze_fcm_result_free(r);
    haze_ctx_free(ctx);
}

/* float32 with a steep fuzzifier (m = 1.2: memberships go with d^-5) on data
 * scaled by 1e15 and 1e-15 (squared distances near 1e30 and 1e-30): the
 * naive form of (1) over- or underflows there, the max-rescaled one gives
 * the memberships of the unscaled data. */
static void test_float32_dynamic_range(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t n = 300, d = 3, c = 3;
    double *x = haze_test_blobs_spread(n, d, c, 0.5, 5), *xs = malloc(n * d * sizeof *xs);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.seed = 9;
    o.max_iter = 30;
    o.tol = 0;
    o.want_memberships = 1;
    o.precision = HAZE_PRECISION_F32;
    o.m = 1.2;
    haze_fcm_result *ref = NULL, *r = NULL;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &ref), HAZE_OK);
    const double scales[] = {1e15, 1e-15};
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < n * d; i++) xs[i] = x[i] * scales[s];
        if (haze_fcm_fit(ctx, xs, HAZE_PRECISION_F64, n, d, &o, &r))
            fail_msg("%s", haze_ctx_errmsg(ctx));
        for (size_t i = 0; i < n * c; i++) {
            assert_true(isfinite(haze_fcm_result_memberships(r)[i]));
            if (fabs(haze_fcm_result_memberships(r)[i] - haze_fcm_result_memberships(ref)[i]) >
                1e-3)
                fail_msg("scale %g: u[%zu] = %g, want %g", scales[s], i,
                         haze_fcm_result_memberships(r)[i], haze_fcm_result_memberships(ref)[i]);
        }
        haze_fcm_result_free(r);
    }
    haze_fcm_result_free(ref);
    free(x), free(xs);
    haze_ctx_free(ctx);
}

/* The same bits for 1 and 2 threads, and for float32 close to float64. */
static void test_threads_and_precision(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t n = quick() ? 3000 : 20000, d = 6, c = 5;
    double *x = haze_test_blobs_spread(n, d, c, 1.0, 3);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.seed = 1;
    o.max_iter = 25;
    o.tol = 0;
    haze_fcm_result *r1 = NULL, *r2 = NULL, *rf = NULL;
    haze_ctx_set_threads(ctx, 1);
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r1), HAZE_OK);
    haze_ctx_set_threads(ctx, 2);
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r2), HAZE_OK);
    assert_memory_equal(haze_fcm_result_centres(r1), haze_fcm_result_centres(r2),
                        c * d * sizeof(double));
    assert_memory_equal(haze_fcm_result_objective(r1), haze_fcm_result_objective(r2),
                        25 * sizeof(double));
    o.precision = HAZE_PRECISION_F32;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &rf), HAZE_OK);
    assert_close(haze_fcm_result_centres(rf), haze_fcm_result_centres(r1), c * d, 1e-3,
                 "float32 centres");
    /* float data in: the same bits as double data rounded to float */
    float *x32 = malloc(n * d * sizeof *x32);
    for (size_t i = 0; i < n * d; i++) x32[i] = (float)x[i];
    for (size_t i = 0; i < n * d; i++) x[i] = x32[i];
    haze_fcm_result *ra = NULL, *rb = NULL;
    for (int init = HAZE_FCM_INIT_RANDOM; init <= HAZE_FCM_INIT_KMEANSPP; init++) {
        o.init = (haze_fcm_init)init;
        o.precision = HAZE_PRECISION_F32;
        assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &ra), HAZE_OK);
        o.precision = HAZE_PRECISION_F64; /* ignored by the float32 entry point */
        assert_int_equal(haze_fcm_fit(ctx, x32, HAZE_PRECISION_F32, n, d, &o, &rb), HAZE_OK);
        assert_memory_equal(haze_fcm_result_centres(ra), haze_fcm_result_centres(rb),
                            c * d * sizeof(double));
        assert_memory_equal(haze_fcm_result_objective(ra), haze_fcm_result_objective(rb),
                            25 * sizeof(double));
        haze_fcm_result_free(ra), haze_fcm_result_free(rb);
    }
    x32[7] = NAN;
    assert_int_equal(haze_fcm_fit(ctx, x32, HAZE_PRECISION_F32, n, d, &o, &rb), HAZE_ERR_DOMAIN);
    assert_null(rb);
    free(x32);
    haze_fcm_result_free(r1), haze_fcm_result_free(r2), haze_fcm_result_free(rf);
    free(x);
    haze_ctx_free(ctx);
}

static void test_stopping_rules(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t n = 500, d = 2, c = 3;
    double *x = haze_test_blobs_spread(n, d, c, 0.7, 8);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.stop = HAZE_FCM_STOP_OBJECTIVE;
    o.tol = 1e-3;
    haze_fcm_result *r = NULL;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
    int k = haze_fcm_result_iterations(r);
    assert_true(haze_fcm_result_converged(r) && k >= 2 && k < o.max_iter);
    assert_true(fabs(haze_fcm_result_objective(r)[k - 1] - haze_fcm_result_objective(r)[k - 2]) <
                1e-3);
    for (int i = 2; i < k; i++)
        assert_true(fabs(haze_fcm_result_objective(r)[i - 1] -
                         haze_fcm_result_objective(r)[i - 2]) >= 1e-3);
    haze_fcm_result_free(r);
    o.stop = HAZE_FCM_STOP_MEMBERSHIP;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
    k = haze_fcm_result_iterations(r);
    assert_true(haze_fcm_result_change(r)[k - 1] < 1e-3);
    for (int i = 0; i < k - 1; i++) assert_true(haze_fcm_result_change(r)[i] >= 1e-3);
    /* labels of the result */
    o.want_memberships = 1;
    haze_fcm_result_free(r);
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
    int *lab = malloc(n * sizeof *lab);
    haze_fcm_labels(NULL, haze_fcm_result_memberships(r), n, c, lab);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < c; j++)
            assert_true(haze_fcm_result_memberships(r)[i * c + j] <=
                        haze_fcm_result_memberships(r)[i * c + (size_t)lab[i]]);
    free(lab);
    haze_fcm_result_free(r);
    free(x);
    haze_ctx_free(ctx);
}

static int stop_at_3(void *arg, int iter, double j, double change) {
    int *calls = arg;
    (*calls)++;
    assert_true(isfinite(j) && change >= 0);
    return iter >= 3;
}

/* Seeds reproduce, the progress callback sees every iteration and can stop
 * the run, and a run cut by max_iter says it did not converge. */
static void test_seeds_and_progress(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t n = 400, d = 3, c = 4;
    double *x = haze_test_blobs_spread(n, d, c, 1.0, 21);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    haze_fcm_result *a = NULL, *b = NULL;
    for (int init = HAZE_FCM_INIT_RANDOM; init <= HAZE_FCM_INIT_KMEANSPP; init++) {
        o.init = (haze_fcm_init)init;
        o.seed = 5;
        o.max_iter = 4;
        assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &a), HAZE_OK);
        assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &b), HAZE_OK);
        assert_memory_equal(haze_fcm_result_centres(a), haze_fcm_result_centres(b),
                            c * d * sizeof(double));
        haze_fcm_result_free(b);
        o.seed = 6;
        assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &b), HAZE_OK);
        assert_true(memcmp(haze_fcm_result_centres(a), haze_fcm_result_centres(b),
                           c * d * sizeof(double)) != 0);
        haze_fcm_result_free(a), haze_fcm_result_free(b);
    }
    o.init = HAZE_FCM_INIT_RANDOM;
    o.max_iter = 2;
    o.tol = 0;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &a), HAZE_OK);
    assert_int_equal(haze_fcm_result_iterations(a), 2);
    assert_false(haze_fcm_result_converged(a));
    haze_fcm_result_free(a);
    int calls = 0;
    o.max_iter = 100;
    o.progress = stop_at_3;
    o.progress_arg = &calls;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &a), HAZE_OK);
    assert_int_equal(haze_fcm_result_iterations(a), 3);
    assert_int_equal(calls, 3);
    haze_fcm_result_free(a);
    /* the fit's timings: each phase's seconds, together no more than the
     * call's; k-means++ has a seeding time, other starts none; a model made
     * from centres has none at all */
    o.progress = NULL;
    o.max_iter = 20;
    for (int init = HAZE_FCM_INIT_RANDOM; init <= HAZE_FCM_INIT_KMEANSPP; init++) {
        o.init = (haze_fcm_init)init;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &a), HAZE_OK);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double call =
            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        const double *t = haze_fcm_result_timings(a);
        double sum = 0;
        for (int i = 0; i < HAZE_FCM_TIME_COUNT; i++) {
            assert_true(t[i] >= 0 && isfinite(t[i]));
            sum += t[i];
        }
        assert_true(sum <= call);
        assert_true(t[HAZE_FCM_TIME_ITERATIONS] > 0);
        if (init == HAZE_FCM_INIT_KMEANSPP)
            assert_true(t[HAZE_FCM_TIME_SEEDING] > 0);
        else
            assert_true(t[HAZE_FCM_TIME_SEEDING] == 0);
        haze_fcm_result_free(a);
    }
    assert_int_equal(haze_fcm_result_new(ctx, c, d, x, 2.0, NULL, &a), HAZE_OK);
    for (int i = 0; i < HAZE_FCM_TIME_COUNT; i++) assert_true(haze_fcm_result_timings(a)[i] == 0);
    haze_fcm_result_free(a);
    assert_null(haze_fcm_result_timings(NULL));
    free(x);
    haze_ctx_free(ctx);
}

static void test_bad_input(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    double x[] = {0, 1, 2, 3, 4, 5};
    haze_fcm_options o = haze_fcm_options_default();
    haze_fcm_result *r = (haze_fcm_result *)&o;
    o.clusters = 1;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 6, 1, &o, &r), HAZE_ERR_INVALID);
    assert_null(r);
    o.clusters = 7;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 6, 1, &o, &r), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "7 clusters"));
    o.clusters = 2;
    o.m = 1.0;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 6, 1, &o, &r), HAZE_ERR_DOMAIN);
    o.m = 2.0;
    x[3] = NAN;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 3, 2, &o, &r), HAZE_ERR_DOMAIN);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "row 2 column 2"));
    x[3] = 3;
    { /* many blocks of rows on several threads: the first bad row is the one named */
        const size_t nb = 200000, db = 3;
        float *big = calloc(nb * db, sizeof *big);
        assert_non_null(big);
        for (size_t i = 0; i < nb * db; i++) big[i] = (float)(i % 97);
        big[(nb - 5) * db + 1] = INFINITY;
        big[123456 * db + 2] = NAN;
        big[70000 * db] = -INFINITY;
        haze_ctx *mt = NULL;
        assert_int_equal(haze_ctx_new(NULL, &mt), HAZE_OK);
        assert_int_equal(haze_ctx_set_threads(mt, 2), HAZE_OK);
        for (int rep = 0; rep < 3; rep++) {
            assert_int_equal(haze_fcm_fit(mt, big, HAZE_PRECISION_F32, nb, db, &o, &r),
                             HAZE_ERR_DOMAIN);
            assert_non_null(strstr(haze_ctx_errmsg(mt), "row 70001 column 1"));
        }
        haze_ctx_free(mt);
        free(big);
    }
    double u0[] = {1, 0, -1, 2, 0.5, 0.5};
    o.init = HAZE_FCM_INIT_MEMBERSHIPS;
    o.init_data = u0;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 3, 2, &o, &r), HAZE_ERR_DOMAIN);
    o.init_data = NULL;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 3, 2, &o, &r), HAZE_ERR_INVALID);
    /* a cluster that loses all weight: all points on one initial centre */
    double same[] = {1, 1, 1, 1};
    double v[] = {1, 5};
    o.init = HAZE_FCM_INIT_CENTRES;
    o.init_data = v;
    assert_int_equal(haze_fcm_fit(ctx, same, HAZE_PRECISION_F64, 4, 1, &o, &r), HAZE_ERR_RANGE);
    haze_fcm_result_free(NULL);
    haze_ctx_free(ctx);
}

/* The fraction of points whose hard label is the majority label of their
 * true cluster (i % k), and whether every cluster got its own label. */
static double purity(const double *u, size_t n, size_t c, size_t k, int *distinct) {
    int *lab = malloc(n * sizeof *lab);
    size_t *cnt = calloc(k * c, sizeof *cnt);
    int *used = calloc(c, sizeof *used);
    assert_int_equal(haze_fcm_labels(NULL, u, n, c, lab), HAZE_OK);
    for (size_t i = 0; i < n; i++) cnt[(i % k) * c + (size_t)lab[i]]++;
    size_t good = 0;
    *distinct = 1;
    for (size_t t = 0; t < k; t++) {
        size_t best = 0;
        for (size_t j = 1; j < c; j++)
            if (cnt[t * c + j] > cnt[t * c + best]) best = j;
        good += cnt[t * c + best];
        if (used[best]++) *distinct = 0;
    }
    free(lab), free(cnt), free(used);
    return (double)good / (double)n;
}

/* Digits-like data (the shape of scikit-learn's digits): n 8 x 8 images of
 * k classes, pixel values 0..16 as integers; each class a random stroke
 * pattern (a third of the pixels on), each image its class's pattern with
 * noise, clipped and rounded. Point i is of class i % k. */
static double *digits_like(size_t n, size_t k, unsigned seed) {
    const size_t d = 64;
    double *x = malloc(n * d * sizeof *x), *proto = malloc(k * d * sizeof *proto);
    srand(seed);
    for (size_t i = 0; i < k * d; i++)
        proto[i] = rand() % 3 == 0 ? 10.0 + 6.0 * rand() / RAND_MAX : 2.0 * rand() / RAND_MAX;
    for (size_t i = 0; i < n; i++)
        for (size_t q = 0; q < d; q++) {
            double u1 = (rand() + 1.0) / (RAND_MAX + 2.0), u2 = (double)rand() / RAND_MAX;
            double t = proto[(i % k) * d + q] + 3.0 * sqrt(-2 * log(u1)) * cos(6.283185307 * u2);
            x[i * d + q] = t < 0 ? 0 : t > 16 ? 16 : floor(t + 0.5);
        }
    free(proto);
    return x;
}

/* On data of many features the default start (k-means++) recovers the
 * clusters where random memberships collapse (every centre on the data's
 * mean, partition coefficient 1/c, "converged"); the collapse is flagged
 * and a good fit is not. 32-feature blobs and digits-like 64-feature data. */
static void test_high_dimensional(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const struct { size_t n, d, c; } cases[] = {{4000, 32, 16}, {1797, 64, 10}};
    for (int t = 0; t < 2; t++) {
        const size_t n = cases[t].n, d = cases[t].d, c = cases[t].c;
        double *x = t == 0 ? haze_test_blobs_spread(n, d, c, 1.0, 31) : digits_like(n, c, 32);
        haze_fcm_options o = haze_fcm_options_default();
        assert_int_equal(o.init, HAZE_FCM_INIT_KMEANSPP);
        o.clusters = (int)c;
        o.want_memberships = 1;
        for (uint64_t seed = 0; seed < (quick() ? 2u : 8u); seed++) {
            o.seed = seed;
            haze_fcm_result *r = NULL;
            if (haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r))
                fail_msg("fit: %s", haze_ctx_errmsg(ctx));
            int distinct;
            double pur = purity(haze_fcm_result_memberships(r), n, c, c, &distinct);
            if (!(pur > 0.99) || !distinct || haze_fcm_result_degenerate(r) ||
                !haze_fcm_result_converged(r))
                fail_msg("%zu x %zu x %zu seed %d: purity %.3f, distinct %d, PC %.6f, "
                         "degenerate %d",
                         n, d, c, (int)seed, pur, distinct,
                         haze_fcm_result_partition_coefficient(r), haze_fcm_result_degenerate(r));
            haze_fcm_result_free(r);
        }
        /* random memberships: the collapse, flagged */
        o.init = HAZE_FCM_INIT_RANDOM;
        o.seed = 1;
        haze_fcm_result *r = NULL;
        assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
        if (!(haze_fcm_result_degenerate(r) & HAZE_FCM_DEGENERATE_UNIFORM) ||
            !(haze_fcm_result_degenerate(r) & HAZE_FCM_DEGENERATE_COINCIDENT))
            fail_msg("%zu x %zu x %zu random start: degenerate %d, PC %.17g", n, d, c,
                     haze_fcm_result_degenerate(r), haze_fcm_result_partition_coefficient(r));
        assert_true(fabs(haze_fcm_result_partition_coefficient(r) - 1.0 / (double)c) < 1e-6);
        haze_fcm_result_free(r);
        free(x);
    }
    haze_ctx_free(ctx);
}

/* The flag's third reason: a cluster left with almost no weight (a steep
 * fuzzifier, two groups of points, a third centre between them). */
static void test_degenerate_empty(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    double x[] = {0, 0.01, 0.02, 0.03, 10, 10.01, 10.02, 10.03};
    double v[] = {0.015, 10.015, 5};
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 3;
    o.m = 1.05;
    o.init = HAZE_FCM_INIT_CENTRES;
    o.init_data = v;
    haze_fcm_result *r = NULL;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 8, 1, &o, &r), HAZE_OK);
    assert_int_equal(haze_fcm_result_degenerate(r), HAZE_FCM_DEGENERATE_EMPTY);
    haze_fcm_result_free(r);
    /* two centres: a good fit, no flag */
    o.clusters = 2;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 8, 1, &o, &r), HAZE_OK);
    assert_int_equal(haze_fcm_result_degenerate(r), 0);
    haze_fcm_result_free(r);
    haze_ctx_free(ctx);
}

/* k-means++ picks data points, distinct ones while there are distinct
 * points off the centres, the same for any thread count; float32 seeds
 * from the data rounded to float, as the float32 entry point does. */
static void test_kmeanspp_seeding(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const size_t n = 300000, d = 3, c = 12; /* more blocks than segments */
    double *x = haze_test_blobs_spread(n, d, c, 1.0, 41), *v1 = malloc(c * d * sizeof *v1),
           *v2 = malloc(c * d * sizeof *v2);
    haze_ctx_set_threads(ctx, 1);
    assert_int_equal(haze_dev_fcm_kmeanspp(ctx, x, 0, n, d, c, 9, v1), HAZE_OK);
    haze_ctx_set_threads(ctx, 2);
    assert_int_equal(haze_dev_fcm_kmeanspp(ctx, x, 0, n, d, c, 9, v2), HAZE_OK);
    assert_memory_equal(v1, v2, c * d * sizeof *v1);
    for (size_t j = 0; j < c; j++) {
        size_t i = 0;
        while (i < n && memcmp(x + i * d, v1 + j * d, d * sizeof *x)) i++;
        assert_true(i < n);
        for (size_t l = 0; l < j; l++) assert_true(memcmp(v1 + l * d, v1 + j * d, d * sizeof *x));
    }
    /* every point on one spot: the fallback draws, no failure */
    double same[40];
    for (size_t i = 0; i < 40; i++) same[i] = 2.5;
    assert_int_equal(haze_dev_fcm_kmeanspp(ctx, same, 0, 20, 2, 5, 3, v1), HAZE_OK);
    for (size_t i = 0; i < 10; i++) assert_true(v1[i] == 2.5);
    free(x), free(v1), free(v2);
    haze_ctx_free(ctx);
}

/* The development switches (dev/fcm_dev.h) belong to the context they are
 * set on and are checked; on the CPU they change no result, the count of
 * passes queued ahead stays 0, and the device seeding is refused without
 * CUDA or a device context. */
static void test_dev_switches(void **state) {
    (void)state;
    haze_ctx *a = haze_test_ctx(HAZE_BACKEND_CPU), *b = haze_test_ctx(HAZE_BACKEND_CPU);
    const size_t n = 2000, d = 4, c = 3;
    double *x = haze_test_blobs_spread(n, d, c, 1.0, 7);
    assert_int_equal(haze_dev_fcm_set_keep_eighths(a, 9), HAZE_ERR_INVALID);
    assert_int_equal(haze_dev_fcm_set_keep_eighths(a, -2), HAZE_ERR_INVALID);
    assert_int_equal(haze_dev_fcm_set_keep_eighths(a, 3), HAZE_OK);
    assert_int_equal(haze_dev_fcm_set_keep_eighths(a, -1), HAZE_OK);
    assert_int_equal(haze_dev_fcm_set_shape(a, 0), HAZE_OK);
    assert_int_equal(haze_dev_fcm_set_pipeline(a, 0), HAZE_OK);
    assert_int_equal(haze_dev_fcm_set_cpu_seed(a, 1), HAZE_OK);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.max_iter = 5;
    o.tol = 0;
    haze_fcm_result *ra = NULL, *rb = NULL;
    assert_int_equal(haze_fcm_fit(a, x, HAZE_PRECISION_F64, n, d, &o, &ra), HAZE_OK);
    assert_int_equal(haze_fcm_fit(b, x, HAZE_PRECISION_F64, n, d, &o, &rb), HAZE_OK);
    assert_memory_equal(haze_fcm_result_centres(ra), haze_fcm_result_centres(rb),
                        c * d * sizeof(double));
    unsigned long used = 1, dropped = 1;
    haze_dev_fcm_queue_counts(a, &used, &dropped);
    assert_true(used == 0 && dropped == 0);
    /* k-means++: the probe's centres are the fit's start (one iteration from them) */
    double *v = malloc(c * d * sizeof *v);
    assert_int_equal(haze_dev_fcm_kmeanspp(b, x, 0, n, d, c, o.seed, v), HAZE_OK);
    haze_fcm_result *rv = NULL;
    o.max_iter = 1;
    haze_fcm_result_free(rb);
    assert_int_equal(haze_fcm_fit(b, x, HAZE_PRECISION_F64, n, d, &o, &rb), HAZE_OK);
    o.init = HAZE_FCM_INIT_CENTRES;
    o.init_data = v;
    assert_int_equal(haze_fcm_fit(b, x, HAZE_PRECISION_F64, n, d, &o, &rv), HAZE_OK);
    assert_memory_equal(haze_fcm_result_centres(rb), haze_fcm_result_centres(rv),
                        c * d * sizeof(double));
    size_t idx[3] = {0, 1, 2};
    double u[3 * 8] = {0};
    if (!haze_build_has_cuda())
        assert_int_equal(haze_dev_fcm_seed_device(b, x, 0, n, d, c, 2, idx, u, v),
                         HAZE_ERR_UNSUPPORTED);
    haze_fcm_result_free(ra), haze_fcm_result_free(rb), haze_fcm_result_free(rv);
    free(x), free(v);
    haze_ctx_free(a), haze_ctx_free(b);
}

/* The hardening of predict and labels: the model is validated as the fit
 * validates its options, NULL pointers are errors, and data whose squared
 * distances overflow is refused by both, not given NaN memberships. */
static void test_predict_validation(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    double x[] = {1, 2, 3, 4, 5, 6}, v[] = {1, 2, 5, 6}, u[6], a[8] = {1, 0, 0, 1, 1, 0, 0, 1};
    haze_fcm_result model = {0};
    model.d = 2, model.c = 2, model.m = 2, model.centers = v;
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u), HAZE_OK);
    const double bad_m[] = {0.5, -3, 1, NAN, INFINITY};
    for (size_t k = 0; k < 5; k++) {
        model.m = bad_m[k];
        assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u),
                         HAZE_ERR_DOMAIN);
        assert_non_null(strstr(haze_ctx_errmsg(ctx), "fuzzifier"));
    }
    model.m = 2;
    model.metric = HAZE_FCM_GK; /* without norms */
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u),
                     HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "norm"));
    model.norms = a;
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u), HAZE_OK);
    model.metric = (haze_fcm_metric)7;
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u),
                     HAZE_ERR_INVALID);
    model.metric = HAZE_FCM_EUCLIDEAN;
    model.centers = NULL;
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u),
                     HAZE_ERR_INVALID);
    assert_int_equal(haze_fcm_predict(ctx, NULL, x, 3, 2, HAZE_PRECISION_F64, u), HAZE_ERR_INVALID);
    model.centers = v;
    assert_int_equal(haze_fcm_predict(ctx, &model, NULL, 3, 2, HAZE_PRECISION_F64, u),
                     HAZE_ERR_INVALID);
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, NULL),
                     HAZE_ERR_INVALID);
    model.c = 1;
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u),
                     HAZE_ERR_INVALID);
    model.c = 2;
    v[3] = NAN;
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u),
                     HAZE_ERR_DOMAIN);
    v[3] = 6;
    /* 1e308: the fit refuses it, and so does predict (no NaN, no exit 0) */
    x[2] = 1e308;
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 2;
    haze_fcm_result *r = NULL;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 3, 2, &o, &r), HAZE_ERR_DOMAIN);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "overflow"));
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u),
                     HAZE_ERR_DOMAIN);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "overflow"));
    /* float32 overflows far sooner: 1e20 */
    x[2] = 1e20;
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F64, u), HAZE_OK);
    assert_int_equal(haze_fcm_predict(ctx, &model, x, 3, 2, HAZE_PRECISION_F32, u),
                     HAZE_ERR_DOMAIN);
    o.precision = HAZE_PRECISION_F32;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 3, 2, &o, &r), HAZE_ERR_DOMAIN);
    /* labels */
    int lab[3];
    assert_int_equal(haze_fcm_labels(NULL, NULL, 3, 2, lab), HAZE_ERR_INVALID);
    assert_int_equal(haze_fcm_labels(NULL, u, 3, 2, NULL), HAZE_ERR_INVALID);
    assert_int_equal(haze_fcm_labels(NULL, u, 3, 0, lab), HAZE_ERR_INVALID);
    assert_int_equal(haze_fcm_labels(NULL, NULL, 0, 2, NULL), HAZE_OK);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skfuzzy_iris),
        cmocka_unit_test(test_skfuzzy_blobs),
        cmocka_unit_test(test_skfuzzy_predict),
        cmocka_unit_test(test_octave_gk),
        cmocka_unit_test(test_objective_never_increases),
        cmocka_unit_test(test_zero_distance),
        cmocka_unit_test(test_float32_dynamic_range),
        cmocka_unit_test(test_threads_and_precision),
        cmocka_unit_test(test_stopping_rules),
        cmocka_unit_test(test_seeds_and_progress),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_high_dimensional),
        cmocka_unit_test(test_degenerate_empty),
        cmocka_unit_test(test_kmeanspp_seeding),
        cmocka_unit_test(test_predict_validation),
        cmocka_unit_test(test_dev_switches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
