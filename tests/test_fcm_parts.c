/*
 * tests/test_fcm_parts.c - one fuzzy c-means fit over several parts
 * (haze_fcm_options.allgather), run in one process: R parts as R threads,
 * each with its own context, and an all-gather made of a barrier. Every
 * part must get the centres, objective, changes and indices of the plain
 * fit bit for bit, and its own rows' memberships; a part that disagrees or
 * fails makes every part fail with one message, without hanging.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "fcm/fcm_internal.h"
#include "test_util.h"

enum { RMAX = 4 };

/* The in-process all-gather: every part posts its bytes, waits for the
 * others, copies everyone's in part order, and waits again before the slots
 * are reused. */
typedef struct group {
    pthread_barrier_t bar;
    int parts;
    const void *mine[RMAX];
    size_t count[RMAX];
    int calls[RMAX];
} group;

typedef struct member {
    group *g;
    int rank;
} member;

static int allgather(void *arg, const void *mine, size_t count, void **all, size_t *total) {
    member *me = arg;
    group *g = me->g;
    g->mine[me->rank] = mine;
    g->count[me->rank] = count;
    g->calls[me->rank]++;
    pthread_barrier_wait(&g->bar);
    size_t t = 0;
    for (int k = 0; k < g->parts; k++) t += g->count[k];
    unsigned char *b = malloc(t ? t : 1);
    if (b) {
        size_t o = 0;
        for (int k = 0; k < g->parts; k++) {
            memcpy(b + o, g->mine[k], g->count[k]);
            o += g->count[k];
        }
    }
    pthread_barrier_wait(&g->bar);
    *all = b;
    *total = t;
    return b ? 0 : 1;
}

/* One part's job. */
typedef struct job {
    member who;
    int threads;
    const void *x; /* the whole data: the part reads its rows from it */
    haze_precision type;
    size_t n, d; /* the whole data's shape (d may differ per part in a test) */
    haze_fcm_options opt;
    const double *u0; /* INIT_MEMBERSHIPS: the whole n x c */
    int totals;       /* the part combines its sums as a part on a GPU does */
    int local;        /* device_count: local parts of this process (on the CPU) */
    size_t part_first, part_count;
    int fail_thread, fail_gather; /* the tuning switches of those names */
    size_t first, rows;
    int st;
    char msg[512];
    haze_fcm_result *r;
} job;

static void *run_part(void *arg) {
    job *j = arg;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_ctx_set_threads(ctx, j->threads);
    haze__fcm_tuning_of(ctx)->part_totals = j->totals;
    haze__fcm_tuning_of(ctx)->fail_thread = j->fail_thread;
    haze__fcm_tuning_of(ctx)->fail_gather = j->fail_gather;
    haze_fcm_options o = j->opt;
    o.total_rows = j->n;
    o.first_row = j->first;
    o.device_count = j->local;
    o.part_first = j->part_first;
    o.part_count = j->part_count;
    o.allgather = allgather;
    o.allgather_arg = &j->who;
    const size_t es = j->type == HAZE_PRECISION_F32 ? sizeof(float) : sizeof(double);
    if (o.init == HAZE_FCM_INIT_MEMBERSHIPS) o.init_data = j->u0 + j->first * (size_t)o.clusters;
    const void *x = j->rows ? (const char *)j->x + j->first * j->d * es : NULL;
    j->st = haze_fcm_fit(ctx, x, j->type, j->rows, j->d, &o, &j->r);
    snprintf(j->msg, sizeof j->msg, "%s", j->st ? haze_ctx_errmsg(ctx) : "");
    haze_ctx_free(ctx);
    return NULL;
}

/* R parts, rows from haze_fcm_part_rows unless rows/first are given. */
static void run_parts(int R, job *jobs, const void *x, haze_precision type, size_t n, size_t d,
                      const haze_fcm_options *o, const double *u0, int threads) {
    group g;
    memset(&g, 0, sizeof g);
    g.parts = R;
    pthread_barrier_init(&g.bar, NULL, (unsigned)R);
    pthread_t th[RMAX];
    for (int k = 0; k < R; k++) {
        job *j = &jobs[k];
        memset(j, 0, sizeof *j);
        j->who.g = &g;
        j->who.rank = k;
        j->threads = threads;
        j->x = x, j->type = type, j->n = n, j->d = d, j->opt = *o, j->u0 = u0;
        assert_int_equal(
            haze_fcm_part_rows(NULL, o, n, d, (size_t)k, (size_t)R, &j->first, &j->rows), HAZE_OK);
    }
    for (int k = 0; k < R; k++) pthread_create(&th[k], NULL, run_part, &jobs[k]);
    for (int k = 0; k < R; k++) pthread_join(th[k], NULL);
    for (int k = 1; k < R; k++) assert_int_equal(g.calls[k], g.calls[0]);
    pthread_barrier_destroy(&g.bar);
}

static double *points(size_t n, size_t d, uint64_t seed) {
    double *x = malloc(n * d * sizeof *x);
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < d; k++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            const double u = (double)(s >> 11) * 0x1.0p-53;
            x[i * d + k] = (double)(i % 3) * 4.0 + (double)k + u; /* three blobs */
        }
    return x;
}

static void same_fit(const haze_fcm_result *a, const haze_fcm_result *b, size_t first,
                     size_t rows) {
    const size_t c = haze_fcm_result_cluster_count(a), d = haze_fcm_result_feature_count(a);
    assert_int_equal(haze_fcm_result_iterations(a), haze_fcm_result_iterations(b));
    assert_int_equal(haze_fcm_result_converged(a), haze_fcm_result_converged(b));
    const int it = haze_fcm_result_iterations(a);
    assert_memory_equal(haze_fcm_result_centres(a), haze_fcm_result_centres(b),
                        c * d * sizeof(double));
    assert_memory_equal(haze_fcm_result_objective(a), haze_fcm_result_objective(b),
                        (size_t)it * sizeof(double));
    assert_memory_equal(haze_fcm_result_change(a), haze_fcm_result_change(b),
                        (size_t)it * sizeof(double));
    if (haze_fcm_result_norms(a))
        assert_memory_equal(haze_fcm_result_norms(a), haze_fcm_result_norms(b),
                            c * d * d * sizeof(double));
    const double ia[] = {haze_fcm_result_partition_coefficient(a),
                         haze_fcm_result_partition_entropy(a), haze_fcm_result_xie_beni(a)};
    const double ib[] = {haze_fcm_result_partition_coefficient(b),
                         haze_fcm_result_partition_entropy(b), haze_fcm_result_xie_beni(b)};
    assert_memory_equal(ia, ib, sizeof ia);
    assert_int_equal(haze_fcm_result_degenerate(a), haze_fcm_result_degenerate(b));
    assert_int_equal(haze_fcm_result_point_count(b), rows);
    if (rows && haze_fcm_result_memberships(b))
        assert_memory_equal(haze_fcm_result_memberships(a) + first * c,
                            haze_fcm_result_memberships(b), rows * c * sizeof(double));
}

/* Every R in 1..4 and 1 or 2 threads give the plain fit's bits. */
static void check_parts(const void *x, haze_precision type, size_t n, size_t d,
                        const haze_fcm_options *o, const double *u0) {
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_ctx_set_threads(ctx, 1);
    haze_fcm_result *ref = NULL;
    assert_int_equal(haze_fcm_fit(ctx, x, type, n, d, o, &ref), HAZE_OK);
    haze_ctx_free(ctx);
    job jobs[RMAX];
    for (int R = 1; R <= RMAX; R++)
        for (int threads = 1; threads <= 2; threads++) {
            run_parts(R, jobs, x, type, n, d, o, u0, threads);
            for (int k = 0; k < R; k++) {
                if (jobs[k].st) fail_msg("R=%d part %d: %s", R, k, jobs[k].msg);
                same_fit(ref, jobs[k].r, jobs[k].first, jobs[k].rows);
                haze_fcm_result_free(jobs[k].r);
            }
        }
    haze_fcm_result_free(ref);
}

/* Odd tile counts (3, 5 and 7 tiles of 1024 rows, the last one short), every
 * initialisation, both metrics, float data. */
static void test_parts_bit_identical(void **state) {
    (void)state;
    const size_t sizes[] = {2 * 1024 + 77, 4 * 1024 + 1, 6 * 1024 + 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        const size_t n = sizes[s], d = 3, c = 3;
        double *x = points(n, d, s + 1);
        double *u0 = malloc(n * c * sizeof *u0);
        for (size_t i = 0; i < n * c; i++) u0[i] = 0.1 + (double)((i * 7919) % 13);
        haze_fcm_options o = haze_fcm_options_default();
        o.clusters = (int)c;
        o.max_iter = 12;
        o.tol = 1e-9;
        o.seed = 7 + s;
        o.want_memberships = 1;
        for (int init = HAZE_FCM_INIT_RANDOM; init <= HAZE_FCM_INIT_MEMBERSHIPS; init++) {
            o.init = (haze_fcm_init)init;
            const double v0[] = {0, 0, 0, 4, 5, 6, 8, 9, 10};
            o.init_data = init == HAZE_FCM_INIT_CENTRES       ? v0
                          : init == HAZE_FCM_INIT_MEMBERSHIPS ? u0
                                                              : NULL;
            check_parts(x, HAZE_PRECISION_F64, n, d, &o, u0);
        }
        o.init = HAZE_FCM_INIT_KMEANSPP;
        o.init_data = NULL;
        o.metric = HAZE_FCM_GK;
        o.max_iter = 6;
        check_parts(x, HAZE_PRECISION_F64, n, d, &o, u0);
        o.metric = HAZE_FCM_EUCLIDEAN;
        o.precision = HAZE_PRECISION_F32;
        o.stop = HAZE_FCM_STOP_OBJECTIVE;
        check_parts(x, HAZE_PRECISION_F64, n, d, &o, u0);
        float *xf = malloc(n * d * sizeof *xf);
        for (size_t i = 0; i < n * d; i++) xf[i] = (float)x[i];
        o.precision = HAZE_PRECISION_F64;
        check_parts(xf, HAZE_PRECISION_F32, n, d, &o, u0);
        free(xf);
        free(u0);
        free(x);
    }
}

/* k-means++ where a segment of its sums straddles parts (more than 2^18
 * rows: segments of 3 blocks, parts of whole tiles of 4 blocks). */
static void test_parts_kmeanspp_segments(void **state) {
    (void)state;
    if (getenv("HAZE_TEST_QUICK")) skip();
    const size_t n = 600000 + 123, d = 2, c = 4;
    double *x = points(n, d, 11);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.max_iter = 2;
    o.tol = 0;
    o.seed = 5;
    check_parts(x, HAZE_PRECISION_F64, n, d, &o, NULL);
    /* Every point at 0 but a few hundred around row 300032, where the second
     * of 2 parts (and the third of 4) starts, inside segment 390 (blocks
     * 1170 to 1172): the candidates are walked to in a segment that
     * straddles two parts. */
    for (size_t i = 0; i < n * d; i++) x[i] = 0;
    for (size_t i = 299600; i < 300200; i++)
        for (size_t k = 0; k < d; k++) x[i * d + k] = 100.0 + (double)((i * 31 + k * 7) % 97);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        o.seed = seed;
        check_parts(x, HAZE_PRECISION_F64, n, d, &o, NULL);
    }
    free(x);
}

/* The tiles: powers of 2 times 1024, fewer than 2^22 / stride of them. */
static void test_parts_tiling(void **state) {
    (void)state;
    assert_int_equal(haze__fcm_tile(1, 10), 1024);
    assert_int_equal(haze__fcm_tile(5000, 10), 1024);
    assert_int_equal(haze__fcm_tile(1024 * 5000, 1000), 2048); /* 4194 tiles max */
    assert_int_equal(haze__fcm_part_align(100000, 8, 4, 0), 1024);
    size_t f, r, next = 0;
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 3;
    for (size_t k = 0; k < 5; k++) {
        assert_int_equal(haze_fcm_part_rows(NULL, &o, 3000, 2, k, 5, &f, &r), HAZE_OK);
        assert_int_equal(f, next); /* an empty part where the one before ends */
        assert_true(f % 1024 == 0 || r == 0);
        next = f + r;
    }
    assert_int_equal(next, 3000);
    assert_int_equal(haze_fcm_part_rows(NULL, &o, 3000, 2, 5, 5, &f, &r), HAZE_ERR_INVALID);
}

/* Every part fails with the same status and message, none hangs. */
static void all_fail(job *jobs, int R, int status, const char *needle) {
    for (int k = 0; k < R; k++) {
        if (jobs[k].st != status)
            fail_msg("part %d: status %d (%s), want %d", k, jobs[k].st, jobs[k].msg, status);
        assert_null(jobs[k].r);
        assert_string_equal(jobs[k].msg, jobs[0].msg);
    }
    if (!strstr(jobs[0].msg, needle)) fail_msg("message '%s' lacks '%s'", jobs[0].msg, needle);
}

static void start_parts(int R, job *jobs, group *g) {
    memset(g, 0, sizeof *g);
    g->parts = R;
    pthread_barrier_init(&g->bar, NULL, (unsigned)R);
    pthread_t th[RMAX];
    for (int k = 0; k < R; k++) {
        jobs[k].who.g = g;
        jobs[k].who.rank = k;
        jobs[k].threads = 1;
    }
    for (int k = 0; k < R; k++) pthread_create(&th[k], NULL, run_part, &jobs[k]);
    for (int k = 0; k < R; k++) pthread_join(th[k], NULL);
    pthread_barrier_destroy(&g->bar);
}

static void test_parts_fail_together(void **state) {
    (void)state;
    const size_t n = 3 * 1024 + 5, d = 2;
    double *x = points(n, d, 3);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 3;
    o.max_iter = 5;
    o.want_memberships = 1;
    job jobs[RMAX];
    group g;
    /* one part with another shape */
    run_parts(3, jobs, x, HAZE_PRECISION_F64, n, d, &o, NULL, 1);
    for (int k = 0; k < 3; k++) haze_fcm_result_free(jobs[k].r);
    jobs[2].d = 3;
    jobs[2].rows = 1; /* fewer rows of more columns: inside the buffer */
    jobs[2].r = NULL;
    for (int k = 0; k < 2; k++) jobs[k].r = NULL;
    start_parts(3, jobs, &g);
    all_fail(jobs, 3, HAZE_ERR_MISMATCH, "feature count: part 1 has 2, part 3 has 3");
    /* other options on one part */
    run_parts(2, jobs, x, HAZE_PRECISION_F64, n, d, &o, NULL, 1);
    for (int k = 0; k < 2; k++) haze_fcm_result_free(jobs[k].r), jobs[k].r = NULL;
    jobs[1].opt.m = 2.5;
    start_parts(2, jobs, &g);
    all_fail(jobs, 2, HAZE_ERR_MISMATCH, "fuzzifier m");
    /* a part that does not start on a tile */
    run_parts(2, jobs, x, HAZE_PRECISION_F64, n, d, &o, NULL, 1);
    for (int k = 0; k < 2; k++) haze_fcm_result_free(jobs[k].r), jobs[k].r = NULL;
    jobs[0].rows = 1000;
    jobs[1].first = 1000;
    jobs[1].rows = n - 1000;
    start_parts(2, jobs, &g);
    all_fail(jobs, 2, HAZE_ERR_INVALID, "not on a tile boundary");
    /* invalid options on one part only: its message everywhere */
    run_parts(3, jobs, x, HAZE_PRECISION_F64, n, d, &o, NULL, 1);
    for (int k = 0; k < 3; k++) haze_fcm_result_free(jobs[k].r), jobs[k].r = NULL;
    jobs[1].opt.max_iter = 0;
    start_parts(3, jobs, &g);
    all_fail(jobs, 3, HAZE_ERR_DOMAIN, "max_iter must be >= 1");
    /* a value that is not finite in the last part: the whole data's row */
    x[(n - 2) * d + 1] = NAN;
    run_parts(3, jobs, x, HAZE_PRECISION_F64, n, d, &o, NULL, 1);
    all_fail(jobs, 3, HAZE_ERR_DOMAIN, "data row 3076 column 2 is not a finite number");
    x[(n - 2) * d + 1] = 0.5;
    /* a failure after the first steps (bad initial memberships of one part) */
    double *u0 = malloc(n * 3 * sizeof *u0);
    for (size_t i = 0; i < n * 3; i++) u0[i] = 1;
    u0[2100 * 3 + 1] = -1;
    o.init = HAZE_FCM_INIT_MEMBERSHIPS;
    run_parts(3, jobs, x, HAZE_PRECISION_F64, n, d, &o, u0, 1);
    all_fail(jobs, 3, HAZE_ERR_DOMAIN, "row 2101 column 2");
    /* a failure in the middle of the iteration, the same on every part (a
     * cluster that loses its weight) */
    for (size_t i = 0; i < n * 3; i++) u0[i] = (i % 3) == 2 ? 0 : 1;
    o.m = 1e300; /* u^m underflows: no weight */
    run_parts(4, jobs, x, HAZE_PRECISION_F64, n, d, &o, u0, 1);
    for (int k = 0; k < 4; k++) assert_int_not_equal(jobs[k].st, HAZE_OK);
    for (int k = 0; k < 4; k++) haze_fcm_result_free(jobs[k].r);
    free(u0);
    free(x);
}

/* A progress callback that stops one part stops every part at the same
 * iteration, with the results of a fit of that many iterations (the stop
 * travels with the next pass's sums; that pass is dropped), and the parts
 * exchange once an iteration, callback or not. */
static int stop_at_3(void *arg, int iter, double objective, double change) {
    (void)arg, (void)objective, (void)change;
    return iter >= 3;
}

static void test_parts_progress_stop(void **state) {
    (void)state;
    const size_t n = 3 * 1024, d = 2;
    double *x = points(n, d, 4);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 3;
    o.tol = 0;
    o.want_memberships = 1;
    for (int totals = 0; totals <= 1; totals++) { /* the parts' sums as on the CPU, as on GPUs */
        job jobs[RMAX], want[RMAX];
        group g;
        /* what the stopped fit must give: a fit of 3 iterations */
        o.max_iter = 3;
        run_parts(3, want, x, HAZE_PRECISION_F64, n, d, &o, NULL, 1);
        for (int k = 0; k < 3; k++) want[k].totals = totals;
        for (int k = 0; k < 3; k++) haze_fcm_result_free(want[k].r), want[k].r = NULL;
        start_parts(3, want, &g);
        const int calls = g.calls[0];
        o.max_iter = 50;
        run_parts(3, jobs, x, HAZE_PRECISION_F64, n, d, &o, NULL, 1);
        for (int k = 0; k < 3; k++) haze_fcm_result_free(jobs[k].r), jobs[k].r = NULL;
        for (int k = 0; k < 3; k++) jobs[k].totals = totals;
        jobs[1].opt.progress = stop_at_3;
        start_parts(3, jobs, &g);
        /* one pass more than the 3 iterations' fit, and no exchange of its own a stop */
        assert_int_equal(g.calls[0], calls + 1);
        for (int k = 0; k < 3; k++) {
            if (jobs[k].st) fail_msg("part %d: %s", k, jobs[k].msg);
            if (want[k].st) fail_msg("part %d: %s", k, want[k].msg);
            const haze_fcm_result *a = jobs[k].r, *b = want[k].r;
            assert_int_equal(haze_fcm_result_iterations(a), 3);
            assert_int_equal(haze_fcm_result_converged(a), 0);
            assert_memory_equal(haze_fcm_result_centres(a), haze_fcm_result_centres(b),
                                3 * d * sizeof(double));
            assert_memory_equal(haze_fcm_result_objective(a), haze_fcm_result_objective(b),
                                3 * sizeof(double));
            const double pa = haze_fcm_result_partition_coefficient(a),
                         pb = haze_fcm_result_partition_coefficient(b);
            assert_memory_equal(&pa, &pb, sizeof pa);
            assert_int_equal(haze_fcm_result_degenerate(a), haze_fcm_result_degenerate(b));
            assert_int_equal(haze_fcm_result_point_count(a), haze_fcm_result_point_count(b));
            assert_memory_equal(haze_fcm_result_memberships(a), haze_fcm_result_memberships(b),
                                haze_fcm_result_point_count(a) * 3 * sizeof(double));
            haze_fcm_result_free(jobs[k].r);
            haze_fcm_result_free(want[k].r);
        }
    }
    free(x);
}

/* Without the hook, rows of a larger data set are refused. */
static void test_parts_need_hook(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    double x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 2;
    o.total_rows = 100;
    haze_fcm_result *r = NULL;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 4, 2, &o, &r), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "allgather"));
    o.total_rows = 4; /* the whole data: fine */
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, 4, 2, &o, &r), HAZE_OK);
    haze_fcm_result_free(r);
    haze_ctx_free(ctx);
}

/* A .npy file's row range, the reader the processes of a fit use
 * (haze_table_options.first_row, max_rows). */
static void test_parts_npy_rows(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    char path[256], csv[256];
    snprintf(path, sizeof path, "%s/rows.npy", haze_test_dir());
    snprintf(csv, sizeof csv, "%s/rows.csv", haze_test_dir());
    double v[30];
    for (int i = 0; i < 30; i++) v[i] = i + 0.25;
    assert_int_equal(haze_table_write(ctx, path, v, HAZE_PRECISION_F64, 10, 3, NULL), HAZE_OK);
    assert_int_equal(haze_table_write(ctx, csv, v, HAZE_PRECISION_F64, 10, 3, NULL), HAZE_OK);
    haze_table_options o = haze_table_options_default();
    haze_table *t = NULL;
    o.first_row = 3, o.max_rows = 4;
    assert_int_equal(haze_table_read(ctx, path, &o, &t), HAZE_OK);
    assert_int_equal(haze_table_row_count(t), 4);
    assert_int_equal(haze_table_file_row_count(t), 10);
    assert_memory_equal(haze_table_data(t), v + 9, 12 * sizeof(double));
    haze_table_free(t);
    o.first_row = 8, o.max_rows = 0; /* to the end */
    assert_int_equal(haze_table_read(ctx, path, &o, &t), HAZE_OK);
    assert_int_equal(haze_table_row_count(t), 2);
    assert_memory_equal(haze_table_data(t), v + 24, 6 * sizeof(double));
    haze_table_free(t);
    o.first_row = 9, o.max_rows = 5; /* more than there is: what there is */
    o.keep_float32 = 1;
    assert_int_equal(haze_table_read(ctx, path, &o, &t), HAZE_OK);
    assert_int_equal(haze_table_row_count(t), 1);
    haze_table_free(t);
    o.first_row = 10;
    assert_int_equal(haze_table_read(ctx, path, &o, &t), HAZE_ERR_INVALID);
    assert_null(t);
    o.first_row = 1;
    assert_int_equal(haze_table_read(ctx, csv, &o, &t), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), ".npy files only"));
    o.first_row = 0, o.max_rows = 0; /* the whole file */
    assert_int_equal(haze_table_read(ctx, path, &o, &t), HAZE_OK);
    assert_int_equal(haze_table_file_row_count(t), 10);
    haze_table_free(t);
    /* hostile ranges: the largest counts, no wrap-around */
    o.keep_float32 = 0;
    o.first_row = SIZE_MAX, o.max_rows = 1;
    assert_int_equal(haze_table_read(ctx, path, &o, &t), HAZE_ERR_INVALID);
    assert_null(t);
    o.first_row = 2, o.max_rows = SIZE_MAX;
    assert_int_equal(haze_table_read(ctx, path, &o, &t), HAZE_OK);
    assert_int_equal(haze_table_row_count(t), 8);
    assert_memory_equal(haze_table_data(t), v + 6, 24 * sizeof(double));
    haze_table_free(t);
    /* a value that is not finite: outside the range read, nothing; inside,
     * named by its row in the whole file */
    v[4] = NAN;
    assert_int_equal(haze_table_write(ctx, path, v, HAZE_PRECISION_F64, 10, 3, NULL), HAZE_OK);
    o.first_row = 2, o.max_rows = 3;
    assert_int_equal(haze_table_read(ctx, path, &o, &t), HAZE_OK); /* row 2 (from 1) unread */
    haze_table_free(t);
    o.first_row = 1, o.max_rows = 2;
    assert_int_equal(haze_table_read(ctx, path, &o, &t), HAZE_ERR_PARSE);
    assert_null(t);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "row 2, column 2"));
    haze_ctx_free(ctx);
}

/* Close to the plain fit (the sums in another order): centres, objective
 * and indices to 1e-12 of their scale, memberships to 1e-11. */
static void near_fit(const haze_fcm_result *a, const haze_fcm_result *b, size_t first,
                     size_t rows) {
    const size_t c = haze_fcm_result_cluster_count(a), d = haze_fcm_result_feature_count(a);
    assert_int_equal(haze_fcm_result_iterations(a), haze_fcm_result_iterations(b));
    const double *va = haze_fcm_result_centres(a), *vb = haze_fcm_result_centres(b);
    for (size_t k = 0; k < c * d; k++)
        if (!(fabs(va[k] - vb[k]) <= 1e-12 * (1 + fabs(va[k]))))
            fail_msg("centre %zu: %.17g and %.17g", k, va[k], vb[k]);
    for (int k = 0; k < haze_fcm_result_iterations(a); k++) {
        const double ja = haze_fcm_result_objective(a)[k], jb = haze_fcm_result_objective(b)[k];
        if (!(fabs(ja - jb) <= 1e-12 * fabs(ja))) fail_msg("objective %d: %.17g %.17g", k, ja, jb);
    }
    const double pa = haze_fcm_result_partition_coefficient(a),
                 pb = haze_fcm_result_partition_coefficient(b);
    assert_true(fabs(pa - pb) <= 1e-12 * pa);
    if (rows && haze_fcm_result_memberships(b))
        for (size_t i = 0; i < rows * c; i++) {
            const double ua = haze_fcm_result_memberships(a)[first * c + i],
                         ub = haze_fcm_result_memberships(b)[i];
            if (!(fabs(ua - ub) <= 1e-11)) fail_msg("membership %zu: %.17g %.17g", i, ua, ub);
        }
}

/* R parts that combine their sums as parts on GPUs do (each part's total,
 * added in part order): one part gives the plain fit's bits; more give the
 * same bits on every part, near the plain fit's; one part so combining
 * makes every part do it (a part on a GPU among parts on CPUs). */
static void check_totals(const void *x, haze_precision type, size_t n, size_t d,
                         const haze_fcm_options *o, const double *u0) {
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fcm_result *ref = NULL;
    assert_int_equal(haze_fcm_fit(ctx, x, type, n, d, o, &ref), HAZE_OK);
    haze_ctx_free(ctx);
    job jobs[RMAX], mixed[RMAX];
    for (int R = 1; R <= RMAX; R++) {
        group g;
        run_parts(R, jobs, x, type, n, d, o, u0, 1);
        for (int k = 0; k < R; k++) haze_fcm_result_free(jobs[k].r), jobs[k].r = NULL;
        for (int k = 0; k < R; k++) jobs[k].totals = 1;
        start_parts(R, jobs, &g);
        run_parts(R, mixed, x, type, n, d, o, u0, 2);
        for (int k = 0; k < R; k++) haze_fcm_result_free(mixed[k].r), mixed[k].r = NULL;
        mixed[R - 1].totals = 1;
        start_parts(R, mixed, &g);
        for (int k = 0; k < R; k++) {
            if (jobs[k].st) fail_msg("R=%d part %d: %s", R, k, jobs[k].msg);
            if (mixed[k].st) fail_msg("R=%d part %d: %s", R, k, mixed[k].msg);
            if (R == 1)
                same_fit(ref, jobs[k].r, jobs[k].first, jobs[k].rows);
            else
                near_fit(ref, jobs[k].r, jobs[k].first, jobs[k].rows);
            /* every part the same bits (its own rows' memberships aside) */
            haze_fcm_result *full = jobs[0].r;
            const size_t c = (size_t)o->clusters;
            assert_memory_equal(haze_fcm_result_centres(full), haze_fcm_result_centres(jobs[k].r),
                                c * d * sizeof(double));
            assert_memory_equal(haze_fcm_result_objective(full),
                                haze_fcm_result_objective(jobs[k].r),
                                (size_t)haze_fcm_result_iterations(full) * sizeof(double));
            assert_memory_equal(haze_fcm_result_centres(mixed[k].r),
                                haze_fcm_result_centres(jobs[k].r), c * d * sizeof(double));
        }
        for (int k = 0; k < R; k++) {
            haze_fcm_result_free(jobs[k].r);
            haze_fcm_result_free(mixed[k].r);
        }
    }
    haze_fcm_result_free(ref);
}

static void test_parts_totals(void **state) {
    (void)state;
    const size_t n = 4 * 1024 + 333, d = 3, c = 3;
    double *x = points(n, d, 21);
    double *u0 = malloc(n * c * sizeof *u0);
    for (size_t i = 0; i < n * c; i++) u0[i] = 0.1 + (double)((i * 7919) % 13);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.max_iter = 10;
    o.tol = 0;
    o.seed = 3;
    o.want_memberships = 1;
    for (int init = HAZE_FCM_INIT_RANDOM; init <= HAZE_FCM_INIT_MEMBERSHIPS; init++) {
        o.init = (haze_fcm_init)init;
        const double v0[] = {0, 0, 0, 4, 5, 6, 8, 9, 10};
        o.init_data = init == HAZE_FCM_INIT_CENTRES       ? v0
                      : init == HAZE_FCM_INIT_MEMBERSHIPS ? u0
                                                          : NULL;
        check_totals(x, HAZE_PRECISION_F64, n, d, &o, u0);
    }
    o.init = HAZE_FCM_INIT_KMEANSPP;
    o.init_data = NULL;
    o.metric = HAZE_FCM_GK;
    o.max_iter = 5;
    check_totals(x, HAZE_PRECISION_F64, n, d, &o, u0);
    o.metric = HAZE_FCM_EUCLIDEAN;
    o.stop = HAZE_FCM_STOP_OBJECTIVE;
    check_totals(x, HAZE_PRECISION_F64, n, d, &o, u0);
    free(u0);
    free(x);
}

/* ---- several devices in one call (haze_fcm_options.device_count) -------- */

typedef struct calls {
    pthread_t thread;
    int count, other_thread, stop_at;
} calls;

static int count_calls(void *arg, int iter, double objective, double change) {
    calls *k = arg;
    (void)objective, (void)change;
    k->count++;
    if (!pthread_equal(pthread_self(), k->thread)) k->other_thread = 1;
    return k->stop_at && iter >= k->stop_at;
}

/* On a CPU context, R parts in one call: the plain fit's bits, every row's
 * memberships, the progress callback once per iteration on the calling
 * thread; more parts than tiles (empty parts) too. */
static void test_devices_cpu(void **state) {
    (void)state;
    const size_t n = 3 * 1024 + 500, d = 2, c = 3;
    double *x = points(n, d, 9);
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_ctx_set_threads(ctx, 2);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.max_iter = 15;
    o.tol = 1e-7;
    o.seed = 11;
    o.want_memberships = 1;
    for (int init = HAZE_FCM_INIT_RANDOM; init <= HAZE_FCM_INIT_KMEANSPP; init++) {
        o.init = (haze_fcm_init)init;
        haze_fcm_result *ref = NULL;
        o.device_count = 0;
        assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &ref), HAZE_OK);
        for (int R = 1; R <= 6; R++) {
            calls k = {pthread_self(), 0, 0, 0};
            o.device_count = R;
            o.progress = count_calls;
            o.progress_arg = &k;
            haze_fcm_result *r = NULL;
            if (haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r))
                fail_msg("R=%d: %s", R, haze_ctx_errmsg(ctx));
            same_fit(ref, r, 0, n);
            assert_int_equal(k.count, haze_fcm_result_iterations(r));
            assert_false(k.other_thread);
            /* the exchange's time (dev/fcm_dev.h): an exchange per
             * iteration at least, when there are several parts */
            const haze__fcm_tuning *t = haze__fcm_tuning_of(ctx);
            if (R > 1) {
                assert_true(t->exchange_calls >= (unsigned long)k.count);
                assert_true(t->exchange_least >= 0 && t->exchange_most >= t->exchange_least);
            }
            haze_fcm_result_free(r);
            o.progress = NULL;
        }
        haze_fcm_result_free(ref);
    }
    /* float data, single precision, GK */
    float *xf = malloc(n * d * sizeof *xf);
    for (size_t i = 0; i < n * d; i++) xf[i] = (float)x[i];
    o.metric = HAZE_FCM_GK;
    o.max_iter = 4;
    haze_fcm_result *ref = NULL, *r = NULL;
    o.device_count = 0;
    assert_int_equal(haze_fcm_fit(ctx, xf, HAZE_PRECISION_F32, n, d, &o, &ref), HAZE_OK);
    o.device_count = 3;
    assert_int_equal(haze_fcm_fit(ctx, xf, HAZE_PRECISION_F32, n, d, &o, &r), HAZE_OK);
    same_fit(ref, r, 0, n);
    haze_fcm_result_free(r);
    haze_fcm_result_free(ref);
    /* a callback that stops the fit stops every part */
    calls k = {pthread_self(), 0, 0, 2};
    o.metric = HAZE_FCM_EUCLIDEAN;
    o.max_iter = 50;
    o.tol = 0;
    o.progress = count_calls;
    o.progress_arg = &k;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
    assert_int_equal(haze_fcm_result_iterations(r), 2);
    assert_int_equal(k.count, 2);
    haze_fcm_result_free(r);
    /* the switch that makes CPU parts combine as GPU parts reaches them */
    o.progress = NULL;
    o.max_iter = 8;
    o.device_count = 0;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &ref), HAZE_OK);
    haze__fcm_tuning_of(ctx)->part_totals = 1;
    o.device_count = 3;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
    near_fit(ref, r, 0, n);
    haze__fcm_tuning_of(ctx)->part_totals = 0;
    haze_fcm_result_free(r);
    haze_fcm_result_free(ref);
    free(xf);
    haze_ctx_free(ctx);
    free(x);
}

/* Refusals and failures of a fit over several devices: one status and
 * message in the caller's context, nothing returned. */
static void test_devices_refused(void **state) {
    (void)state;
    const size_t n = 3 * 1024, d = 2;
    double *x = points(n, d, 5);
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 3;
    o.max_iter = 5;
    haze_fcm_result *r = NULL;
    const int list[] = {0, 1};
    o.devices = list;
    o.device_count = 2;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "needs a context on the CUDA backend"));
    assert_null(r);
    o.devices = NULL;
    o.device_count = -1;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_ERR_INVALID);
    o.device_count = 2;
    /* the options, checked once before the parts start */
    o.m = 0.5;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_ERR_DOMAIN);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "fuzzifier"));
    o.m = 2;
    /* a bad value in the third part: the whole data's row, from every part */
    x[(n - 3) * d] = NAN;
    o.device_count = 3;
    assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_ERR_DOMAIN);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "data row 3070 column 1"));
    assert_null(r);
    x[(n - 3) * d] = 1;
    /* a part's thread that cannot start: the parts started give up, none
     * waits for it */
    for (int k = 2; k <= 3; k++) {
        haze__fcm_tuning_of(ctx)->fail_thread = k;
        assert_int_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_ERR_NOMEM);
        assert_non_null(strstr(haze_ctx_errmsg(ctx), "cannot start a thread"));
        assert_null(r);
    }
    haze__fcm_tuning_of(ctx)->fail_thread = 0;
    /* a failure in the middle (a cluster loses its weight) */
    double *u0 = malloc(n * 3 * sizeof *u0);
    for (size_t i = 0; i < n * 3; i++) u0[i] = (i % 3) == 2 ? 0 : 1;
    o.init = HAZE_FCM_INIT_MEMBERSHIPS;
    o.init_data = u0;
    o.m = 1e300;
    assert_int_not_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
    assert_null(r);
    free(u0);
    haze_ctx_free(ctx);
    free(x);
}

/* ---- processes that each run several parts (allgather and device_count) -- */

/* R processes (threads) of G[r] local parts each, parts of P = sum G in
 * all: with `given`, each told its parts (part_first, part_count) and
 * holding their union; else each holding haze_fcm_part_rows(r, R) and
 * cutting it itself. totals: the parts combine their sums as GPU parts. */
static void run_ranks(int R, const int *G, int given, int totals, job *jobs, const void *x,
                      haze_precision type, size_t n, size_t d, const haze_fcm_options *o) {
    group g;
    size_t P = 0, k0 = 0;
    for (int r = 0; r < R; r++) P += (size_t)G[r];
    for (int r = 0; r < R; r++) {
        job *j = &jobs[r];
        memset(j, 0, sizeof *j);
        j->x = x, j->type = type, j->n = n, j->d = d, j->opt = *o;
        j->local = G[r], j->totals = totals;
        j->u0 = o->init == HAZE_FCM_INIT_MEMBERSHIPS ? o->init_data : NULL;
        if (given) {
            size_t f, c, fl, cl;
            assert_int_equal(haze_fcm_part_rows(NULL, o, n, d, k0, P, &f, &c), HAZE_OK);
            assert_int_equal(haze_fcm_part_rows(NULL, o, n, d, k0 + (size_t)G[r] - 1, P, &fl, &cl),
                             HAZE_OK);
            j->first = f, j->rows = fl + cl - f;
            j->part_first = k0, j->part_count = P;
        } else {
            assert_int_equal(
                haze_fcm_part_rows(NULL, o, n, d, (size_t)r, (size_t)R, &j->first, &j->rows),
                HAZE_OK);
        }
        k0 += (size_t)G[r];
    }
    start_parts(R, jobs, &g);
    for (int r = 0; r < R; r++) assert_int_equal(g.calls[r], g.calls[0]);
}

/* One process's fit over P local parts on the CPU (device_count = P). */
static haze_fcm_result *one_process(const void *x, haze_precision type, size_t n, size_t d,
                                    const haze_fcm_options *o, int P, int totals) {
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze__fcm_tuning_of(ctx)->part_totals = totals;
    haze_fcm_options oo = *o;
    oo.device_count = P;
    haze_fcm_result *r = NULL;
    if (haze_fcm_fit(ctx, x, type, n, d, &oo, &r)) fail_msg("P=%d: %s", P, haze_ctx_errmsg(ctx));
    haze_ctx_free(ctx);
    return r;
}

/* Processes of several local parts: the plain fit's bits on the CPU; as GPU
 * parts (their totals added in part order), the bits of one process that
 * runs all the parts, when the parts are the same (two processes of two
 * parts cut by themselves, or any split told its parts). */
static void test_ranks_of_parts(void **state) {
    (void)state;
    const size_t n = 6 * 1024 + 1000, d = 3, c = 3;
    double *x = points(n, d, 17);
    double *u0 = malloc(n * c * sizeof *u0);
    for (size_t i = 0; i < n * c; i++) u0[i] = 0.1 + (double)((i * 7919) % 13);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.max_iter = 10;
    o.tol = 0;
    o.seed = 5;
    o.want_memberships = 1;
    static const int two[] = {2, 2}, three[] = {2, 2, 2}, mixed[] = {3, 1, 2};
    static const struct {
        int R;
        const int *G;
        int given;
    } splits[] = {{2, two, 0}, {2, two, 1}, {3, three, 1}, {3, mixed, 1}, {3, three, 0}};
    job jobs[RMAX];
    for (int init = HAZE_FCM_INIT_RANDOM; init <= HAZE_FCM_INIT_MEMBERSHIPS; init++) {
        o.init = (haze_fcm_init)init;
        const double v0[] = {0, 0, 0, 4, 5, 6, 8, 9, 10};
        o.init_data = init == HAZE_FCM_INIT_CENTRES       ? v0
                      : init == HAZE_FCM_INIT_MEMBERSHIPS ? u0
                                                          : NULL;
        haze_fcm_result *ref = one_process(x, HAZE_PRECISION_F64, n, d, &o, 0, 0);
        for (size_t s = 0; s < sizeof splits / sizeof *splits; s++) {
            const int R = splits[s].R;
            int P = 0;
            for (int r = 0; r < R; r++) P += splits[s].G[r];
            haze_fcm_result *flat = one_process(x, HAZE_PRECISION_F64, n, d, &o, P, 1);
            for (int totals = 0; totals <= 1; totals++) {
                run_ranks(R, splits[s].G, splits[s].given, totals, jobs, x, HAZE_PRECISION_F64, n,
                          d, &o);
                for (int r = 0; r < R; r++) {
                    if (jobs[r].st)
                        fail_msg("split %zu totals %d rank %d: %s", s, totals, r, jobs[r].msg);
                    if (!totals) {
                        same_fit(ref, jobs[r].r, jobs[r].first, jobs[r].rows);
                    } else if (splits[s].given || R == 2) {
                        same_fit(flat, jobs[r].r, jobs[r].first, jobs[r].rows);
                    } else { /* cut otherwise than one process's: near, the same on every rank */
                        const double *va = haze_fcm_result_centres(ref),
                                     *vb = haze_fcm_result_centres(jobs[r].r);
                        for (size_t k = 0; k < c * d; k++)
                            if (!(fabs(va[k] - vb[k]) <= 1e-9 * (1 + fabs(va[k]))))
                                fail_msg("centre %zu: %.17g and %.17g", k, va[k], vb[k]);
                        assert_memory_equal(haze_fcm_result_centres(jobs[0].r),
                                            haze_fcm_result_centres(jobs[r].r),
                                            c * d * sizeof(double));
                    }
                }
                for (int r = 0; r < R; r++) haze_fcm_result_free(jobs[r].r);
            }
            haze_fcm_result_free(flat);
        }
        haze_fcm_result_free(ref);
    }
    /* GK and float data: two processes of two parts */
    float *xf = malloc(n * d * sizeof *xf);
    for (size_t i = 0; i < n * d; i++) xf[i] = (float)x[i];
    o.init = HAZE_FCM_INIT_KMEANSPP;
    o.init_data = NULL;
    o.metric = HAZE_FCM_GK;
    o.max_iter = 4;
    haze_fcm_result *ref = one_process(xf, HAZE_PRECISION_F32, n, d, &o, 0, 0);
    run_ranks(2, two, 0, 0, jobs, xf, HAZE_PRECISION_F32, n, d, &o);
    for (int r = 0; r < 2; r++) {
        if (jobs[r].st) fail_msg("gk rank %d: %s", r, jobs[r].msg);
        same_fit(ref, jobs[r].r, jobs[r].first, jobs[r].rows);
        haze_fcm_result_free(jobs[r].r);
    }
    haze_fcm_result_free(ref);
    free(xf);
    free(u0);
    free(x);
}

/* A failure on one local part, or of one process's parts, is every
 * process's: one status and message on every rank, none hangs. */
static void test_ranks_of_parts_fail(void **state) {
    (void)state;
    const size_t n = 6 * 1024 + 1000, d = 2;
    double *x = points(n, d, 4);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 3;
    o.max_iter = 6;
    o.want_memberships = 1;
    static const int two[] = {2, 2}, three[] = {2, 2, 2};
    job jobs[RMAX];
    /* a bad value in rank 1's second local part (rows 5121 on) */
    x[(n - 10) * d + 1] = NAN;
    for (int totals = 0; totals <= 1; totals++) {
        run_ranks(2, two, 0, totals, jobs, x, HAZE_PRECISION_F64, n, d, &o);
        all_fail(jobs, 2, HAZE_ERR_DOMAIN, "data row 7135 column 2");
        run_ranks(3, three, 1, totals, jobs, x, HAZE_PRECISION_F64, n, d, &o);
        all_fail(jobs, 3, HAZE_ERR_DOMAIN, "data row 7135 column 2");
    }
    x[(n - 10) * d + 1] = 1;
    /* one process whose rows are not the union of its parts */
    group g;
    for (int r = 0; r < 3; r++) {
        run_ranks(3, three, 1, 0, jobs, x, HAZE_PRECISION_F64, n, d, &o);
        for (int k = 0; k < 3; k++) haze_fcm_result_free(jobs[k].r), jobs[k].r = NULL;
        jobs[r].part_first = r == 2 ? 3 : 2 * (size_t)r + 1;
        start_parts(3, jobs, &g);
        all_fail(jobs, 3, HAZE_ERR_INVALID, "but its parts");
    }
    /* parts beyond the count */
    run_ranks(2, two, 1, 0, jobs, x, HAZE_PRECISION_F64, n, d, &o);
    for (int k = 0; k < 2; k++) haze_fcm_result_free(jobs[k].r), jobs[k].r = NULL;
    jobs[1].part_count = 3;
    start_parts(2, jobs, &g);
    all_fail(jobs, 2, HAZE_ERR_INVALID, "parts 3 to 4 of 3");
    /* a local part's thread that cannot start, on one process */
    run_ranks(2, two, 0, 0, jobs, x, HAZE_PRECISION_F64, n, d, &o);
    for (int k = 0; k < 2; k++) haze_fcm_result_free(jobs[k].r), jobs[k].r = NULL;
    jobs[1].fail_thread = 2;
    start_parts(2, jobs, &g);
    all_fail(jobs, 2, HAZE_ERR_NOMEM, "cannot start a thread");
    /* options that one process refuses before its parts start */
    run_ranks(2, two, 0, 0, jobs, x, HAZE_PRECISION_F64, n, d, &o);
    for (int k = 0; k < 2; k++) haze_fcm_result_free(jobs[k].r), jobs[k].r = NULL;
    jobs[0].opt.m = 0.5;
    start_parts(2, jobs, &g);
    all_fail(jobs, 2, HAZE_ERR_DOMAIN, "fuzzifier");
    /* a process's local gather short of memory (at its first, third and
     * tenth step): each of its local parts fails in that step, and so every
     * part of every process, with the first of them */
    for (int k = 1; k <= 10; k += k == 1 ? 2 : 7) {
        run_ranks(2, two, 0, 0, jobs, x, HAZE_PRECISION_F64, n, d, &o);
        for (int j = 0; j < 2; j++) haze_fcm_result_free(jobs[j].r), jobs[j].r = NULL;
        jobs[1].fail_gather = k;
        start_parts(2, jobs, &g);
        all_fail(jobs, 2, HAZE_ERR_NOMEM, "part 3 of 4 failed");
    }
    /* in one process: every part fails */
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fcm_result *r = NULL;
    haze__fcm_tuning_of(ctx)->fail_gather = 4;
    o.device_count = 3;
    assert_int_not_equal(haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r), HAZE_OK);
    assert_null(r);
    haze_ctx_free(ctx);
    free(x);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_tiling),
        cmocka_unit_test(test_parts_bit_identical),
        cmocka_unit_test(test_parts_kmeanspp_segments),
        cmocka_unit_test(test_parts_fail_together),
        cmocka_unit_test(test_parts_progress_stop),
        cmocka_unit_test(test_parts_need_hook),
        cmocka_unit_test(test_parts_npy_rows),
        cmocka_unit_test(test_parts_totals),
        cmocka_unit_test(test_devices_cpu),
        cmocka_unit_test(test_devices_refused),
        cmocka_unit_test(test_ranks_of_parts),
        cmocka_unit_test(test_ranks_of_parts_fail),
    };
    return cmocka_run_group_tests(tests, haze_test_dir_setup, haze_test_dir_teardown);
}
