/*
 * tests/test_fcm_cuda.c - the CUDA fuzzy c-means against the CPU reference
 * on random data at several sizes, in float64 (centres and objectives to
 * 1e-12 relative) and float32 (1e-5), with the data resident on the device
 * and streamed through in chunks (a device memory limit far below the data
 * size), and the same bits on every run (deterministic reduction). Sizes
 * with d <= 32 run the fast Euclidean kernel, the others the plain one.
 */
#include <math.h>
#include <string.h>

#include "fcm_dev.h"
#include "test_util.h"

/* HAZE_TEST_SMALL (scripts/gpu-check.sh sets it for racecheck, which runs
 * the shared-memory kernels thousands of times slower): a fortieth of the
 * points (at least 40, and 4 per cluster) and a tenth of a streamed run's
 * memory limit, so that the same kernels and paths run. */
static size_t small_n(size_t n, size_t c) {
    if (!getenv("HAZE_TEST_SMALL")) return n;
    size_t m = n / 40;
    if (m < 40) m = 40;
    if (m < 4 * c) m = 4 * c;
    return m < n ? m : n;
}
static size_t small_limit(size_t limit) {
    /* a tenth: with a fortieth of the data, still several chunks, but not
     * hundreds of tiny ones (the fixed buffers do not shrink with the data) */
    return getenv("HAZE_TEST_SMALL") ? limit / 10 : limit;
}

static void close_rel(const double *a, const double *b, size_t n, double tol, const char *what,
                      size_t N, size_t D, size_t C, int single) {
    double scale = 0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (size_t i = 0; i < n; i++)
        if (!(fabs(a[i] - b[i]) <= tol * fmax(scale, 1e-300)) && !(isinf(a[i]) && a[i] == b[i]))
            fail_msg("%s[%zu] (n %zu d %zu c %zu %s): gpu %.17g cpu %.17g", what, i, N, D, C,
                     single ? "f32" : "f64", a[i], b[i]);
}

/* Options for c clusters, seed and max_iter iterations, tolerance 0. */
static haze_fcm_options fit_options(size_t c, uint64_t seed, int max_iter) {
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.seed = seed;
    o.tol = 0;
    o.max_iter = max_iter;
    o.init = HAZE_FCM_INIT_RANDOM; /* the in-kernel random memberships (test_seeding: k-means++) */
    return o;
}

/* The GPU fit of x against the CPU's; init: c x d starting centres, or NULL
 * for random memberships; m: the fuzzifier; shape 0: the fast kernel where
 * the fixed-shape kernel would run. */
static void compare_xm(const double *x, size_t n, size_t d, size_t c, int single, int metric,
                       size_t limit, haze_fcm_stop stop, const double *init, double m, int shape) {
    haze_ctx *cpu = haze_test_ctx(HAZE_BACKEND_CPU), *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    if (limit) haze_ctx_set_device_memory_limit(gpu, limit);
    assert_int_equal(haze_dev_fcm_set_shape(gpu, shape), HAZE_OK);
    /* few iterations: differences grow along a chaotic path */
    haze_fcm_options o = fit_options(c, 77, 8);
    if (init) {
        o.init = HAZE_FCM_INIT_CENTRES;
        o.init_data = init;
    }
    o.m = m;
    o.precision = (single) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64;
    o.metric = (haze_fcm_metric)metric;
    o.stop = stop;
    o.want_memberships = 1;
    haze_fcm_result *rc = NULL, *rg = NULL, *rg2 = NULL;
    if (haze_fcm_fit(cpu, x, HAZE_PRECISION_F64, n, d, &o, &rc))
        fail_msg("cpu: %s", haze_ctx_errmsg(cpu));
    if (haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &rg))
        fail_msg("gpu: %s", haze_ctx_errmsg(gpu));
    if (haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &rg2))
        fail_msg("gpu: %s", haze_ctx_errmsg(gpu));
    double tol = single ? 1e-5 : 1e-12;
    assert_int_equal(haze_fcm_result_iterations(rc), haze_fcm_result_iterations(rg));
    close_rel(haze_fcm_result_centres(rg), haze_fcm_result_centres(rc), c * d, tol, "centres", n, d,
              c, single);
    close_rel(haze_fcm_result_objective(rg), haze_fcm_result_objective(rc),
              (size_t)haze_fcm_result_iterations(rc), tol, "objective", n, d, c, single);
    close_rel(haze_fcm_result_memberships(rg), haze_fcm_result_memberships(rc), n * c,
              single ? 1e-4 : 1e-11, "memberships", n, d, c, single);
    /* the change, where the stopping rule reads it (the GPU leaves it out otherwise) */
    if (stop == HAZE_FCM_STOP_MEMBERSHIP)
        close_rel(haze_fcm_result_change(rg), haze_fcm_result_change(rc),
                  (size_t)haze_fcm_result_iterations(rc), single ? 1e-4 : 1e-10, "change", n, d, c,
                  single);
    /* the GPU takes the indices from one extra pass after the iteration */
    close_rel((double[]){haze_fcm_result_partition_coefficient(rg)},
              (double[]){haze_fcm_result_partition_coefficient(rc)}, 1, single ? 1e-5 : 1e-11,
              "partition coefficient", n, d, c, single);
    close_rel((double[]){haze_fcm_result_partition_entropy(rg)},
              (double[]){haze_fcm_result_partition_entropy(rc)}, 1, single ? 1e-5 : 1e-11,
              "partition entropy", n, d, c, single);
    /* Xie-Beni divides by the smallest squared distance between two centres, so
     * its relative error is the centres' error amplified by about
     * 4 |dv| / sqrt(sep): two nearly coincident centres make it ill-conditioned. */
    double vmax = 0, sep = INFINITY;
    for (size_t i = 0; i < c * d; i++) vmax = fmax(vmax, fabs(haze_fcm_result_centres(rc)[i]));
    for (size_t i = 0; i < c; i++)
        for (size_t j = i + 1; j < c; j++) {
            double s2 = 0;
            for (size_t q = 0; q < d; q++) {
                double e =
                    haze_fcm_result_centres(rc)[i * d + q] - haze_fcm_result_centres(rc)[j * d + q];
                s2 += e * e;
            }
            sep = fmin(sep, s2);
        }
    double dv = tol * vmax * sqrt((double)d);
    double xb_tol = (single ? 1e-3 : 1e-9) + (sep > 0 ? 16 * dv / sqrt(sep) : 0);
    close_rel((double[]){haze_fcm_result_xie_beni(rg)}, (double[]){haze_fcm_result_xie_beni(rc)}, 1,
              xb_tol, "Xie-Beni", n, d, c, single);
    /* deterministic: the same bits twice */
    assert_memory_equal(haze_fcm_result_centres(rg), haze_fcm_result_centres(rg2),
                        c * d * sizeof(double));
    assert_memory_equal(haze_fcm_result_objective(rg), haze_fcm_result_objective(rg2),
                        (size_t)haze_fcm_result_iterations(rg) * sizeof(double));
    /* predict on the device matches the CPU */
    double *ug = malloc(n * c * sizeof *ug), *uc = malloc(n * c * sizeof *uc);
    assert_int_equal(
        haze_fcm_predict(gpu, rc, x, n, d, (single) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64, ug),
        HAZE_OK);
    assert_int_equal(
        haze_fcm_predict(cpu, rc, x, n, d, (single) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64, uc),
        HAZE_OK);
    close_rel(ug, uc, n * c, single ? 1e-5 : 1e-12, "predict", n, d, c, single);
    free(ug), free(uc);
    haze_fcm_result_free(rc), haze_fcm_result_free(rg), haze_fcm_result_free(rg2);
    haze_ctx_free(cpu), haze_ctx_free(gpu);
}

static void compare_x(const double *x, size_t n, size_t d, size_t c, int single, int metric,
                      size_t limit, haze_fcm_stop stop, const double *init) {
    compare_xm(x, n, d, c, single, metric, limit, stop, init, 2.0, 1);
}

static void compare_stop(size_t n, size_t d, size_t c, int single, int metric, size_t limit,
                         haze_fcm_stop stop) {
    double *x = haze_test_blobs(n, d, c, (unsigned)(n + d + c));
    compare_x(x, n, d, c, single, metric, limit, stop, NULL);
    free(x);
}

/* Both stopping rules: with the objective's, the fast GPU kernel takes
 * J(U(k-1), V(k)) from the previous pass (parallel axes) instead of U(k-1). */
static void compare(size_t n, size_t d, size_t c, int single, int metric, size_t limit) {
    compare_stop(n, d, c, single, metric, limit, HAZE_FCM_STOP_MEMBERSHIP);
    compare_stop(n, d, c, single, metric, limit, HAZE_FCM_STOP_OBJECTIVE);
}

static void test_sizes(void **state) {
    (void)state;
    const size_t sz[][3] = {{10, 2, 2},     {1000, 3, 4},   {5000, 32, 16},  {20000, 8, 8},
                            {3000, 130, 7}, {4000, 4, 64},  {2000, 1024, 3}, {1500, 5, 1024},
                            {7777, 12, 3},  {3001, 20, 11}, {2500, 16, 16},  {1001, 4, 2},
                            {4099, 28, 9}};
    for (size_t s = 0; s < sizeof sz / sizeof *sz; s++)
        for (int single = 0; single < 2; single++)
            compare(small_n(sz[s][0], sz[s][2]), sz[s][1], sz[s][2], single, HAZE_FCM_EUCLIDEAN, 0);
}

/* Blobs 1000 units from the origin, cluster 3 two units from cluster 2 in
 * every coordinate. */
static double *far_blobs(size_t n, size_t d, size_t c) {
    double *x = haze_test_blobs(n, d, c, 5);
    for (size_t i = 3; i < n; i += c)
        for (size_t q = 0; q < d; q++) x[i * d + q] = x[(i - 1) * d + q] + 2.0;
    for (size_t i = 0; i < n * d; i++) x[i] += 1000.0;
    return x;
}

/* Data that strains the fast kernel's float32 arithmetic: far from the
 * origin with two close clusters (many points near two centres), scaled by
 * 1e+-15, and points exactly on centres (given starting centres that are
 * data points, one of them twice: memberships 1/2 on the doubled one, and
 * Xie-Beni infinite on both backends). */
static void test_hard_data(void **state) {
    (void)state;
    const size_t n = 6000, d = 8, c = 4;
    double *x = far_blobs(n, d, c);
    for (int stop = 0; stop < 2; stop++)
        compare_x(x, n, d, c, 1, HAZE_FCM_EUCLIDEAN, 0, (haze_fcm_stop)stop, NULL);
    free(x);
    for (int e = -15; e <= 15; e += 30) {
        x = haze_test_blobs(4000, 16, 5, 9);
        for (size_t i = 0; i < 4000 * 16; i++) x[i] *= pow(10.0, e);
        compare_x(x, 4000, 16, 5, 1, HAZE_FCM_EUCLIDEAN, 0, HAZE_FCM_STOP_MEMBERSHIP, NULL);
        free(x);
    }
    /* 5 distinct points, each 300 times; centres on points 0, 1, 2, 3 and 0 again */
    const size_t np = 1500, dp = 12, cp = 5;
    double *pts = haze_test_blobs(cp, dp, cp, 11), *init = malloc(cp * dp * sizeof *init);
    x = malloc(np * dp * sizeof *x);
    for (size_t i = 0; i < np; i++) memcpy(x + i * dp, pts + (i % cp) * dp, dp * sizeof *x);
    for (size_t j = 0; j < cp; j++) memcpy(init + j * dp, pts + (j % 4) * dp, dp * sizeof *init);
    for (int stop = 0; stop < 2; stop++)
        compare_x(x, np, dp, cp, 1, HAZE_FCM_EUCLIDEAN, 0, (haze_fcm_stop)stop, init);
    free(x), free(pts), free(init);
}

/* Max |a - b| / max |b|. */
static double rel_err(const double *a, const double *b, size_t n) {
    double e = 0, s = 0;
    for (size_t i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i])), s = fmax(s, fabs(b[i]));
    return e / fmax(s, 1e-300);
}

/* Data whose float32 answer is itself uncertain well above rounding: far
 * from the origin, with close or tight clusters. There the GPU's float32 fit
 * (with 16 or 32 features: distances expanded about the centres' mean, sums
 * on the tensor cores) must be about as close to the float64 fit as the
 * CPU's float32 fit is: within 4 times its error, or 1e-6. */
static void accuracy_case(const double *x, size_t n, size_t d, size_t c) {
    haze_ctx *cpu = haze_test_ctx(HAZE_BACKEND_CPU), *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    haze_fcm_options o = fit_options(c, 7, 8);
    o.want_memberships = 1;
    for (int stop = 0; stop < 2; stop++) {
        o.stop = (haze_fcm_stop)stop;
        haze_fcm_result *r64 = NULL, *r32 = NULL, *g32 = NULL;
        o.precision = HAZE_PRECISION_F64;
        assert_int_equal(haze_fcm_fit(cpu, x, HAZE_PRECISION_F64, n, d, &o, &r64), HAZE_OK);
        o.precision = HAZE_PRECISION_F32;
        assert_int_equal(haze_fcm_fit(cpu, x, HAZE_PRECISION_F64, n, d, &o, &r32), HAZE_OK);
        assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &g32), HAZE_OK);
        const double ec =
                         rel_err(haze_fcm_result_centres(r32), haze_fcm_result_centres(r64), c * d),
                     eg =
                         rel_err(haze_fcm_result_centres(g32), haze_fcm_result_centres(r64), c * d);
        const double jc =
                         rel_err(haze_fcm_result_objective(r32), haze_fcm_result_objective(r64), 8),
                     jg =
                         rel_err(haze_fcm_result_objective(g32), haze_fcm_result_objective(r64), 8);
        const double uc = rel_err(haze_fcm_result_memberships(r32),
                                  haze_fcm_result_memberships(r64), n * c),
                     ug = rel_err(haze_fcm_result_memberships(g32),
                                  haze_fcm_result_memberships(r64), n * c);
        if (!(eg <= 4 * ec + 1e-6) || !(jg <= 4 * jc + 1e-6) || !(ug <= 4 * uc + 1e-6))
            fail_msg("n %zu d %zu c %zu stop %d: error against float64: centres gpu %.3g cpu "
                     "%.3g, objective gpu %.3g cpu %.3g, memberships gpu %.3g cpu %.3g",
                     n, d, c, stop, eg, ec, jg, jc, ug, uc);
        haze_fcm_result_free(r64), haze_fcm_result_free(r32), haze_fcm_result_free(g32);
    }
    haze_ctx_free(cpu), haze_ctx_free(gpu);
}

static void test_accuracy(void **state) {
    (void)state;
    const size_t shapes[][2] = {{16, 4}, {32, 16}, {32, 5}};
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++) {
        const size_t d = shapes[sh][0], c = shapes[sh][1], n = small_n(6000, c);
        double *x = far_blobs(n, d, c);
        accuracy_case(x, n, d, c);
        free(x);
    }
    /* tight clusters far from the centres' mean: radius about 0.06 at 100
     * units, pairs of clusters about 0.2 apart */
    const size_t n = small_n(4096, 8), d = 32, c = 8;
    double *x = haze_test_blobs(n, d, c, 21);
    for (size_t i = 0; i < n * d; i++) {
        const size_t j = (i / d) % c, q = i % d;
        x[i] = 100.0 * (double)((j + q) % 3) + 1e-2 * x[i];
    }
    accuracy_case(x, n, d, c);
    free(x);
}

static void test_gk(void **state) {
    (void)state;
    for (int single = 0; single < 2; single++) {
        compare(2000, 3, 4, single, HAZE_FCM_GK, 0);
        compare(5000, 12, 5, single, HAZE_FCM_GK, 0);
    }
}

/* Data far larger than the memory the library may use: streamed in chunks. */
static void test_streaming(void **state) {
    (void)state;
    for (int single = 0; single < 2; single++) {
        compare(small_n(300000, 8), 8, 8, single, HAZE_FCM_EUCLIDEAN, small_limit((size_t)4 << 20));
        compare(small_n(100000, 4), 16, 4, single, HAZE_FCM_GK, small_limit((size_t)8 << 20));
    }
    /* the expanded form with U(k-1) recomputed from the previous centres */
    compare(small_n(200000, 16), 32, 16, 1, HAZE_FCM_EUCLIDEAN, small_limit((size_t)8 << 20));
    compare(small_n(100000, 7), 20, 7, 1, HAZE_FCM_EUCLIDEAN, small_limit((size_t)4 << 20));
}

/* The share of the groups that keep U between passes (set on the context,
 * haze_dev_fcm_set_keep_eighths; the others recompute U(k-1)) changes no
 * centre, and no objective or change after the second iteration: the kept
 * copy has the bits of the recomputation. Only the second iteration may
 * differ, where U(1) was kept by another kernel. */
static void test_kept_share(void **state) {
    (void)state;
    const size_t sz[][3] = {{40000, 32, 16}, {30000, 8, 8}, {20000, 16, 5}};
    const int shares[] = {8, 0, 3, 6};
    for (size_t s = 0; s < 3; s++) {
        const size_t n = sz[s][0], d = sz[s][1], c = sz[s][2];
        double *x = haze_test_blobs(n, d, c, 5);
        haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
        haze_fcm_options o = fit_options(c, 3, 10);
        o.precision = HAZE_PRECISION_F32;
        haze_fcm_result *ref = NULL;
        assert_int_equal(haze_dev_fcm_set_keep_eighths(gpu, 9), HAZE_ERR_INVALID);
        for (size_t q = 0; q < 4; q++) {
            assert_int_equal(haze_dev_fcm_set_keep_eighths(gpu, shares[q]), HAZE_OK);
            haze_fcm_result *r = NULL;
            if (haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &r))
                fail_msg("gpu: %s", haze_ctx_errmsg(gpu));
            if (!ref) {
                ref = r;
                continue;
            }
            assert_int_equal(haze_fcm_result_iterations(r), 10);
            assert_memory_equal(haze_fcm_result_centres(r), haze_fcm_result_centres(ref),
                                c * d * sizeof(double));
            assert_memory_equal(haze_fcm_result_objective(r) + 2,
                                haze_fcm_result_objective(ref) + 2, 8 * sizeof(double));
            assert_memory_equal(haze_fcm_result_change(r) + 2, haze_fcm_result_change(ref) + 2,
                                8 * sizeof(double));
            close_rel(haze_fcm_result_objective(r), haze_fcm_result_objective(ref), 2, 1e-6,
                      "objective", n, d, c, 1);
            close_rel(haze_fcm_result_change(r), haze_fcm_result_change(ref), 2, 1e-4, "change", n,
                      d, c, 1);
            haze_fcm_result_free(r);
        }
        haze_fcm_result_free(ref);
        haze_ctx_free(gpu);
        free(x);
    }
}

/* With more than 8 features the fixed-shape kernel's passes are queued one
 * ahead, the next centres formed on the device (haze_dev_fcm_set_pipeline
 * turns that off for one context): the same bits either way, with a fixed
 * iteration count and with a fit that stops on its tolerance while a pass
 * is queued; and every queued pass is used (iterations 3 to K), except the
 * one queued after a fit stops on its tolerance. The fits alternate between
 * a context with the pipeline and one without, each counting its own. */
static void test_pipeline(void **state) {
    (void)state;
    const size_t sz[][3] = {{40000, 32, 16}, {20000, 16, 5}, {30000, 20, 7}};
    for (size_t s = 0; s < 3; s++) {
        const size_t n = sz[s][0], d = sz[s][1], c = sz[s][2];
        double *x = haze_test_blobs(n, d, c, 9);
        haze_ctx *gpu[2] = {haze_test_ctx(HAZE_BACKEND_CUDA), haze_test_ctx(HAZE_BACKEND_CUDA)};
        assert_int_equal(haze_dev_fcm_set_pipeline(gpu[1], 0), HAZE_OK);
        for (int rule = 0; rule < 4; rule++) {
            haze_fcm_options o = fit_options(c, 4, rule & 2 ? 200 : 9);
            o.precision = HAZE_PRECISION_F32;
            o.stop = rule & 1 ? HAZE_FCM_STOP_OBJECTIVE : HAZE_FCM_STOP_MEMBERSHIP;
            o.tol = rule & 2 ? (rule & 1 ? 1.0 : 1e-3) : 0;
            o.want_memberships = 1;
            haze_fcm_result *r[2] = {NULL, NULL};
            unsigned long used[2][2], dropped[2][2];
            for (int q = 0; q < 2; q++) {
                haze_dev_fcm_queue_counts(gpu[q], &used[q][0], &dropped[q][0]);
                if (haze_fcm_fit(gpu[q], x, HAZE_PRECISION_F64, n, d, &o, &r[q]))
                    fail_msg("gpu: %s", haze_ctx_errmsg(gpu[q]));
                haze_dev_fcm_queue_counts(gpu[q], &used[q][1], &dropped[q][1]);
            }
            if (rule & 2 &&
                !(haze_fcm_result_converged(r[0]) && haze_fcm_result_iterations(r[0]) < o.max_iter))
                fail_msg("%zu x %zu x %zu: the fit did not stop on its tolerance", n, d, c);
            assert_int_equal(haze_fcm_result_iterations(r[0]), haze_fcm_result_iterations(r[1]));
            const size_t k = (size_t)haze_fcm_result_iterations(r[0]);
            assert_int_equal(used[0][1] - used[0][0], k - 2);
            assert_int_equal(dropped[0][1] - dropped[0][0], (int)k < o.max_iter ? 1 : 0);
            assert_int_equal(used[1][1] - used[1][0], 0);
            assert_int_equal(dropped[1][1] - dropped[1][0], 0);
            assert_memory_equal(haze_fcm_result_centres(r[0]), haze_fcm_result_centres(r[1]),
                                c * d * sizeof(double));
            assert_memory_equal(haze_fcm_result_objective(r[0]), haze_fcm_result_objective(r[1]),
                                k * sizeof(double));
            if (!(rule & 1))
                assert_memory_equal(haze_fcm_result_change(r[0]), haze_fcm_result_change(r[1]),
                                    k * sizeof(double));
            assert_memory_equal(haze_fcm_result_memberships(r[0]),
                                haze_fcm_result_memberships(r[1]), n * c * sizeof(double));
            assert_memory_equal((double[]){haze_fcm_result_xie_beni(r[0])},
                                (double[]){haze_fcm_result_xie_beni(r[1])}, sizeof(double));
            haze_fcm_result_free(r[0]);
            haze_fcm_result_free(r[1]);
        }
        haze_ctx_free(gpu[0]);
        haze_ctx_free(gpu[1]);
        free(x);
    }
}

/* The fast kernel where the fixed-shape kernel would run (what a GPU before
 * compute capability 8.0 runs: haze_dev_fcm_set_shape(ctx, 0)) against the
 * CPU, on shapes the fixed-shape kernel covers, direct and expanded. */
static void test_no_shape(void **state) {
    (void)state;
    const size_t sz[][3] = {{20000, 8, 8}, {5000, 32, 16}, {3001, 20, 11}, {1001, 4, 2}};
    for (size_t s = 0; s < sizeof sz / sizeof *sz; s++) {
        const size_t n = sz[s][0], d = sz[s][1], c = sz[s][2];
        double *x = haze_test_blobs(n, d, c, (unsigned)(n + d + c));
        for (int stop = 0; stop < 2; stop++)
            compare_xm(x, n, d, c, 1, HAZE_FCM_EUCLIDEAN, 0, (haze_fcm_stop)stop, NULL, 2.0, 0);
        free(x);
    }
}

/* A fuzzifier other than 2 (the fixed-shape kernel takes only m = 2). */
static void test_fuzzifier(void **state) {
    (void)state;
    const size_t sz[][3] = {{5000, 32, 16}, {3000, 8, 3}};
    for (size_t s = 0; s < 2; s++) {
        double *x = haze_test_blobs(sz[s][0], sz[s][1], sz[s][2], 3);
        for (int stop = 0; stop < 2; stop++)
            compare_xm(x, sz[s][0], sz[s][1], sz[s][2], 1, HAZE_FCM_EUCLIDEAN, 0,
                       (haze_fcm_stop)stop, NULL, 1.6, 1);
        free(x);
    }
}

/* k-means++ on the device (with the data resident) picks the centres the CPU
 * picks for the same draws, bit for bit: float and double data, n across
 * block and segment boundaries (more blocks than segments), rows staged in
 * shared memory or read from global memory, up to 64 clusters (6
 * candidates a round), draws at the ends of [0, 1), and data all on one
 * spot (the fallback draws). Through the fit: the default start gives the
 * same centres on both backends, streamed data is seeded on the CPU with
 * the same result, and seeding on the CPU (haze_dev_fcm_set_cpu_seed)
 * changes nothing. The device seeds with every candidate's distances kept
 * (the default) and computed again each round (haze_dev_fcm_set_seed_lean). */
static void test_seeding(void **state) {
    (void)state;
    const size_t sz[][3] = {{1000, 2, 5},   {257, 3, 4},    {300000, 32, 16}, {70000, 64, 10},
                            {5000, 20, 64}, {20000, 16, 3}, {1, 5, 1},        {262401, 7, 9},
                            {4096, 1, 2},   {33333, 130, 7}};
    haze_ctx *cpu = haze_test_ctx(HAZE_BACKEND_CPU), *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    /* cases 0-9: the sizes; 10: one spot; 11: through the fit (HAZE_TEST_PART) */
    const size_t nsz = sizeof sz / sizeof *sz;
    for (size_t s = 0; s < nsz; s++) {
        if (!haze_test_part_mine(s)) continue;
        srand((unsigned)(17 + s));
        const size_t n = small_n(sz[s][0], sz[s][2]), d = sz[s][1], c = sz[s][2];
        double *x = haze_test_blobs(n, d, c, (unsigned)(s + 3));
        float *xf = malloc(n * d * sizeof *xf);
        for (size_t i = 0; i < n * d; i++) xf[i] = (float)x[i];
        const size_t trials = haze_dev_fcm_pp_trials(c);
        size_t *idx = malloc(c * sizeof *idx);
        double *u = malloc(c * trials * sizeof *u), *vg = malloc(c * d * sizeof *vg),
               *vc = malloc(c * d * sizeof *vc);
        for (int single = 0; single < 2; single++)
            for (int rep = 0; rep < 2; rep++) {
                for (size_t j = 0; j < c; j++) idx[j] = (size_t)rand() % n;
                for (size_t k = 0; k < c * trials; k++)
                    u[k] = rep == 0 ? (double)rand() / ((double)RAND_MAX + 1)
                                    : (k % 2 ? 0.0 : 1.0 - 0x1p-53);
                const void *xp = single ? (const void *)xf : (const void *)x;
                assert_int_equal(
                    haze_dev_fcm_seed_cpu(cpu, xp, single, n, d, c, trials, idx, u, vc), HAZE_OK);
                /* the candidates' distances kept (the default), then computed again */
                for (int lean = 0; lean < 2; lean++) {
                    assert_int_equal(haze_dev_fcm_set_seed_lean(gpu, lean), HAZE_OK);
                    int st = haze_dev_fcm_seed_device(gpu, xp, single, n, d, c, trials, idx, u, vg);
                    if (st)
                        fail_msg("n %zu d %zu c %zu: the device did not seed (%d: %s)", n, d, c, st,
                                 st < 0 ? haze_ctx_errmsg(gpu) : "declined");
                    if (memcmp(vg, vc, c * d * sizeof *vg))
                        fail_msg("n %zu d %zu c %zu %s rep %d lean %d: device and CPU seeds differ",
                                 n, d, c, single ? "f32" : "f64", rep, lean);
                }
                assert_int_equal(haze_dev_fcm_set_seed_lean(gpu, 0), HAZE_OK);
            }
        free(x), free(xf), free(idx), free(u), free(vg), free(vc);
    }
    /* every point on one spot */
    if (haze_test_part_mine(nsz)) {
        const size_t n = 600, d = 3, c = 4, trials = haze_dev_fcm_pp_trials(c);
        double *x = malloc(n * d * sizeof *x), u[4 * 8], vg[12], vc[12];
        size_t idx[4] = {5, 17, 599, 0};
        for (size_t i = 0; i < n * d; i++) x[i] = -2.5;
        for (size_t k = 0; k < c * trials; k++) u[k] = 0.5;
        assert_int_equal(haze_dev_fcm_seed_cpu(cpu, x, 0, n, d, c, trials, idx, u, vc), HAZE_OK);
        for (int lean = 0; lean < 2; lean++) {
            assert_int_equal(haze_dev_fcm_set_seed_lean(gpu, lean), HAZE_OK);
            assert_int_equal(haze_dev_fcm_seed_device(gpu, x, 0, n, d, c, trials, idx, u, vg),
                             HAZE_OK);
            assert_memory_equal(vg, vc, sizeof vg);
        }
        assert_int_equal(haze_dev_fcm_set_seed_lean(gpu, 0), HAZE_OK);
        free(x);
    }
    /* through the fit: the default start, resident and streamed, CPU seeding forced */
    if (!haze_test_part_mine(nsz + 1)) {
        haze_ctx_free(cpu), haze_ctx_free(gpu);
        return;
    }
    const size_t n = small_n(200000, 16), d = 32, c = 16;
    double *x = haze_test_blobs(n, d, c, 23);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.max_iter = 1;
    o.tol = 0;
    o.seed = 5;
    haze_fcm_result *rc = NULL, *rg = NULL;
    float *xf = malloc(n * d * sizeof *xf);
    double *v0 = malloc(c * d * sizeof *v0);
    for (size_t i = 0; i < n * d; i++) xf[i] = (float)x[i];
    for (int single = 0; single < 2; single++) {
        o.precision = (single) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64;
        o.init = HAZE_FCM_INIT_KMEANSPP;
        o.init_data = NULL;
        assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &rg), HAZE_OK);
        /* from the CPU's seeds (of the data rounded to float in single
         * precision) the device's fit has the same bits */
        assert_int_equal(haze_dev_fcm_kmeanspp(cpu, single ? (const void *)xf : (const void *)x,
                                               single, n, d, c, 5, v0),
                         HAZE_OK);
        o.init = HAZE_FCM_INIT_CENTRES;
        o.init_data = v0;
        assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &rc), HAZE_OK);
        assert_memory_equal(haze_fcm_result_centres(rg), haze_fcm_result_centres(rc),
                            c * d * sizeof(double));
        haze_fcm_result_free(rc);
        o.init = HAZE_FCM_INIT_KMEANSPP;
        o.init_data = NULL;
        assert_int_equal(haze_dev_fcm_set_cpu_seed(gpu, 1), HAZE_OK);
        assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &rc), HAZE_OK);
        assert_int_equal(haze_dev_fcm_set_cpu_seed(gpu, 0), HAZE_OK);
        assert_memory_equal(haze_fcm_result_centres(rg), haze_fcm_result_centres(rc),
                            c * d * sizeof(double));
        haze_fcm_result_free(rc);
        haze_fcm_result_free(rg);
    }
    free(xf), free(v0);
    /* streamed: the device declines, the CPU seeds; the CPU fit from the same start agrees */
    o.precision = HAZE_PRECISION_F64;
    o.max_iter = 3;
    haze_ctx_set_device_memory_limit(gpu, small_limit((size_t)8 << 20));
    assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &rg), HAZE_OK);
    haze_ctx_set_device_memory_limit(gpu, 0);
    assert_int_equal(haze_fcm_fit(cpu, x, HAZE_PRECISION_F64, n, d, &o, &rc), HAZE_OK);
    close_rel(haze_fcm_result_centres(rg), haze_fcm_result_centres(rc), c * d, 1e-12,
              "streamed k-means++ fit", n, d, c, 0);
    haze_fcm_result_free(rc), haze_fcm_result_free(rg);
    free(x);
    haze_ctx_free(cpu), haze_ctx_free(gpu);
}

/* The degeneracy flag on the device: the collapse of random memberships on
 * 32 features is flagged, the default start's fit is not. */
static void test_degenerate(void **state) {
    (void)state;
    const size_t n = small_n(40000, 16), d = 32, c = 16;
    double *x = haze_test_blobs(n, d, c, 29);
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.precision = HAZE_PRECISION_F32;
    haze_fcm_result *r = NULL;
    assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
    if (haze_fcm_result_degenerate(r))
        fail_msg("k-means++ start: degenerate %d", haze_fcm_result_degenerate(r));
    haze_fcm_result_free(r);
    o.init = HAZE_FCM_INIT_RANDOM;
    assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
    assert_true(haze_fcm_result_degenerate(r) & HAZE_FCM_DEGENERATE_UNIFORM);
    haze_fcm_result_free(r);
    haze_ctx_free(gpu);
    free(x);
}

int main(void) {
    haze_test_require_gpu();
    /* HAZE_CMOCKA_FILTER=PATTERN runs the tests whose names match (cmocka's *
     * and ?); not HAZE_TEST_FILTER, which is gpu-check's choice of CTest tests */
    if (getenv("HAZE_CMOCKA_FILTER")) cmocka_set_test_filter(getenv("HAZE_CMOCKA_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),     cmocka_unit_test(test_hard_data),
        cmocka_unit_test(test_accuracy),  cmocka_unit_test(test_gk),
        cmocka_unit_test(test_streaming), cmocka_unit_test(test_kept_share),
        cmocka_unit_test(test_pipeline),  cmocka_unit_test(test_fuzzifier),
        cmocka_unit_test(test_seeding),   cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_no_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
