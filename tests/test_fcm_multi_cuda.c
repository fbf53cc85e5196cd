/*
 * tests/test_fcm_multi_cuda.c - fuzzy c-means over several GPUs: one fit
 * over 1, 2, ... and all the devices of the host in one call
 * (haze_fcm_options.devices), and fits over several parts on the GPU backend
 * (haze_fcm_options.allgather; here parts as threads sharing device 0, so a
 * one-GPU host runs them too), against the plain fit on one GPU within the
 * tolerance of test_fcm_cuda.c (1e-12 relative in float64, 1e-5 in
 * float32): the parts' sums are added in part order, not in the one GPU's
 * reduction tree (docs/fcm.md, "Several GPUs"). Every part gets the same
 * bits; the NCCL and the host-memory exchange give the same bits; the same
 * bits on every run. A list naming a missing device, or one twice, is
 * refused. Two processes (threads) that each drive half the GPUs give the
 * bits of one process over all of them. Parts that need more GPUs than the
 * host has are skipped. Exit 77 without a GPU.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "fcm/fcm_internal.h"
#include "test_util.h"

static void close_rel(const double *a, const double *b, size_t n, double tol, const char *what,
                      const char *how) {
    double scale = 0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (size_t i = 0; i < n; i++)
        if (!(fabs(a[i] - b[i]) <= tol * fmax(scale, 1e-300)))
            fail_msg("%s %s[%zu]: %.17g, one GPU %.17g", how, what, i, a[i], b[i]);
}

/* r against the one-GPU fit ref: the same iterations, centres, objective,
 * memberships (rows first.. of ref) and indices within tol. */
static void near(const haze_fcm_result *r, const haze_fcm_result *ref, size_t first, int single,
                 const char *how) {
    const size_t c = haze_fcm_result_cluster_count(ref), d = haze_fcm_result_feature_count(ref);
    const double tol = single ? 1e-5 : 1e-12;
    assert_int_equal(haze_fcm_result_iterations(r), haze_fcm_result_iterations(ref));
    close_rel(haze_fcm_result_centres(r), haze_fcm_result_centres(ref), c * d, tol, "centres", how);
    close_rel(haze_fcm_result_objective(r), haze_fcm_result_objective(ref),
              (size_t)haze_fcm_result_iterations(ref), tol, "objective", how);
    if (haze_fcm_result_memberships(r))
        close_rel(haze_fcm_result_memberships(r), haze_fcm_result_memberships(ref) + first * c,
                  haze_fcm_result_point_count(r) * c, single ? 1e-4 : 1e-11, "memberships", how);
    const double pc[] = {haze_fcm_result_partition_coefficient(r)},
                 pr[] = {haze_fcm_result_partition_coefficient(ref)};
    close_rel(pc, pr, 1, single ? 1e-5 : 1e-11, "partition coefficient", how);
}

static void same_bits(const haze_fcm_result *a, const haze_fcm_result *b) {
    const size_t c = haze_fcm_result_cluster_count(a), d = haze_fcm_result_feature_count(a);
    assert_int_equal(haze_fcm_result_iterations(a), haze_fcm_result_iterations(b));
    assert_memory_equal(haze_fcm_result_centres(a), haze_fcm_result_centres(b),
                        c * d * sizeof(double));
    assert_memory_equal(haze_fcm_result_objective(a), haze_fcm_result_objective(b),
                        (size_t)haze_fcm_result_iterations(a) * sizeof(double));
}

typedef struct shape {
    size_t n, d, c;
    int single, gk, init;
} shape;

/* resident float32 m = 2 (the fixed-shape kernel), float64 (the fast
 * kernel), d = 40 (the plain kernel), Gustafson-Kessel, random starts */
static const shape shapes[] = {
    {200000, 4, 5, 1, 0, HAZE_FCM_INIT_KMEANSPP}, {120000, 8, 6, 0, 0, HAZE_FCM_INIT_KMEANSPP},
    {40000, 40, 4, 0, 0, HAZE_FCM_INIT_KMEANSPP}, {30000, 3, 3, 0, 1, HAZE_FCM_INIT_KMEANSPP},
    {50000, 5, 4, 1, 0, HAZE_FCM_INIT_RANDOM},    {50000, 5, 4, 0, 0, HAZE_FCM_INIT_RANDOM},
};

static haze_fcm_options options(const shape *s) {
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)s->c;
    o.seed = 5;
    o.tol = 0;
    o.max_iter = 8; /* few: differences grow along a chaotic path */
    o.init = (haze_fcm_init)s->init;
    o.metric = s->gk ? HAZE_FCM_GK : HAZE_FCM_EUCLIDEAN;
    o.precision = s->single ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64;
    o.want_memberships = 1;
    return o;
}

/* 1, 2, ... and all the devices in one call. */
static void test_devices(void **state) {
    (void)state;
    const int ndev = haze_device_count();
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    assert_int_equal(haze_ctx_device(gpu), 0);
    int list[64];
    for (int k = 0; k < 64; k++) list[k] = k;
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
        const shape *s = &shapes[si];
        double *x = haze_test_blobs(s->n, s->d, s->c, 17 + (unsigned)si);
        haze_fcm_options o = options(s);
        haze_fcm_result *ref = NULL, *r = NULL, *r2 = NULL;
        if (haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, s->n, s->d, &o, &ref))
            fail_msg("one GPU: %s", haze_ctx_errmsg(gpu));
        /* a list of one device, the context's: the plain fit */
        o.devices = list;
        o.device_count = 1;
        assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, s->n, s->d, &o, &r), HAZE_OK);
        same_bits(ref, r);
        assert_memory_equal(haze_fcm_result_memberships(ref), haze_fcm_result_memberships(r),
                            s->n * s->c * sizeof(double));
        haze_fcm_result_free(r);
        for (int R = 2; R <= ndev && R <= 64; R = R < 4 ? R + 1 : R * 2 <= ndev ? R * 2 : ndev) {
            char how[64];
            snprintf(how, sizeof how, "%zu x %zu x %zu on %d GPUs", s->n, s->d, s->c, R);
            o.device_count = R;
            if (haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, s->n, s->d, &o, &r))
                fail_msg("%s: %s", how, haze_ctx_errmsg(gpu));
            assert_int_equal(haze_fcm_result_point_count(r), s->n);
            near(r, ref, 0, s->single, how);
            /* the same bits again, and through host memory (where NCCL is built) */
            haze__fcm_tuning_of(gpu)->host_exchange = 1;
            if (haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, s->n, s->d, &o, &r2))
                fail_msg("%s, host exchange: %s", how, haze_ctx_errmsg(gpu));
            haze__fcm_tuning_of(gpu)->host_exchange = 0;
            same_bits(r, r2);
            assert_memory_equal(haze_fcm_result_memberships(r), haze_fcm_result_memberships(r2),
                                s->n * s->c * sizeof(double));
            haze_fcm_result_free(r);
            haze_fcm_result_free(r2);
            if (R == ndev) break;
        }
        haze_fcm_result_free(ref);
        free(x);
    }
    haze_ctx_free(gpu);
}

/* A list naming a device that is not there, or one twice. */
static void test_bad_devices(void **state) {
    (void)state;
    const int ndev = haze_device_count();
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    double x[40];
    for (int i = 0; i < 40; i++) x[i] = i % 7;
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 2;
    haze_fcm_result *r = NULL;
    int list[2] = {0, ndev};
    o.devices = list;
    o.device_count = 2;
    assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, 20, 2, &o, &r), HAZE_ERR_NODEVICE);
    assert_non_null(strstr(haze_ctx_errmsg(gpu), "is not present"));
    assert_null(r);
    list[1] = 0;
    assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, 20, 2, &o, &r), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(gpu), "listed twice"));
    list[0] = -1;
    assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, 20, 2, &o, &r), HAZE_ERR_NODEVICE);
    haze_ctx_free(gpu);
}

/* ---- parts on the GPU backend through the caller's hook ----------------- */

enum { RMAX = 4 };

typedef struct group {
    pthread_barrier_t bar;
    int parts;
    const void *mine[RMAX];
    size_t count[RMAX];
} group;

typedef struct job {
    group *g;
    int rank, cpu;
    const double *x;
    size_t n, d, first, rows;
    haze_fcm_options opt;
    int st;
    char msg[512];
    haze_fcm_result *r;
} job;

static int allgather(void *arg, const void *mine, size_t count, void **all, size_t *total) {
    job *me = arg;
    group *g = me->g;
    g->mine[me->rank] = mine;
    g->count[me->rank] = count;
    pthread_barrier_wait(&g->bar);
    size_t t = 0;
    for (int k = 0; k < g->parts; k++) t += g->count[k];
    unsigned char *b = malloc(t ? t : 1);
    for (int k = 0, o = 0; k < g->parts; o += (int)g->count[k], k++)
        memcpy(b + o, g->mine[k], g->count[k]);
    pthread_barrier_wait(&g->bar);
    *all = b;
    *total = t;
    return 0;
}

static void *run_part(void *arg) {
    job *j = arg;
    haze_ctx *ctx = haze_test_ctx(j->cpu ? HAZE_BACKEND_CPU : HAZE_BACKEND_CUDA);
    haze_fcm_options o = j->opt;
    o.total_rows = j->n;
    o.first_row = j->first;
    o.allgather = allgather;
    o.allgather_arg = j;
    j->st = haze_fcm_fit(ctx, j->rows ? j->x + j->first * j->d : NULL, HAZE_PRECISION_F64, j->rows,
                         j->d, &o, &j->r);
    snprintf(j->msg, sizeof j->msg, "%s", j->st ? haze_ctx_errmsg(ctx) : "");
    haze_ctx_free(ctx);
    return NULL;
}

/* R parts as threads, each with a context on device 0 (cpu_part: that one
 * on the CPU), against the one-GPU fit. */
static void parts_on_device0(const shape *s, int R, int cpu_part) {
    double *x = haze_test_blobs(s->n, s->d, s->c, 3);
    haze_fcm_options o = options(s);
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    haze_fcm_result *ref = NULL;
    assert_int_equal(haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, s->n, s->d, &o, &ref), HAZE_OK);
    haze_ctx_free(gpu);
    group g;
    memset(&g, 0, sizeof g);
    g.parts = R;
    pthread_barrier_init(&g.bar, NULL, (unsigned)R);
    job jobs[RMAX];
    pthread_t th[RMAX];
    for (int k = 0; k < R; k++) {
        memset(&jobs[k], 0, sizeof jobs[k]);
        jobs[k].g = &g, jobs[k].rank = k, jobs[k].cpu = k == cpu_part;
        jobs[k].x = x, jobs[k].n = s->n, jobs[k].d = s->d, jobs[k].opt = o;
        assert_int_equal(haze_fcm_part_rows(NULL, &o, s->n, s->d, (size_t)k, (size_t)R,
                                            &jobs[k].first, &jobs[k].rows),
                         HAZE_OK);
    }
    for (int k = 0; k < R; k++) pthread_create(&th[k], NULL, run_part, &jobs[k]);
    for (int k = 0; k < R; k++) pthread_join(th[k], NULL);
    pthread_barrier_destroy(&g.bar);
    char how[80];
    snprintf(how, sizeof how, "%zu x %zu x %zu in %d parts on device 0 (CPU part %d)", s->n, s->d,
             s->c, R, cpu_part);
    for (int k = 0; k < R; k++) {
        if (jobs[k].st) fail_msg("%s: part %d: %s", how, k, jobs[k].msg);
        near(jobs[k].r, ref, jobs[k].first, s->single, how);
        same_bits(jobs[0].r, jobs[k].r);
    }
    for (int k = 0; k < R; k++) haze_fcm_result_free(jobs[k].r);
    haze_fcm_result_free(ref);
    free(x);
}

static void test_parts_one_device(void **state) {
    (void)state;
    for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
        for (int R = 1; R <= 3; R++) parts_on_device0(&shapes[si], R, -1);
    /* a part on the CPU among parts on the GPU: every part adds in part order */
    parts_on_device0(&shapes[1], 3, 1);
    parts_on_device0(&shapes[3], 2, 0);
}

/* Two processes (threads) that each drive half the GPUs, told their parts
 * of the whole fit (haze_fcm_options.part_first, part_count): the bits of
 * one process over all of them, centres, objective and memberships
 * (docs/fcm.md, "Processes with several GPUs"). Needs 2 GPUs. */
static void test_ranks_of_devices(void **state) {
    (void)state;
    const int ndev = haze_device_count();
    if (ndev < 2) return;
    const int G = ndev / 2 < 8 ? ndev / 2 : 8, P = 2 * G;
    int list[16];
    for (int k = 0; k < 16; k++) list[k] = k;
    static const size_t which[] = {0, 1, 3, 4};
    for (size_t w = 0; w < sizeof which / sizeof *which; w++) {
        const shape *s = &shapes[which[w]];
        double *x = haze_test_blobs(s->n, s->d, s->c, 29 + (unsigned)w);
        haze_fcm_options o = options(s);
        haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
        haze_fcm_result *ref = NULL;
        o.devices = list;
        o.device_count = P;
        if (haze_fcm_fit(gpu, x, HAZE_PRECISION_F64, s->n, s->d, &o, &ref))
            fail_msg("one process, %d GPUs: %s", P, haze_ctx_errmsg(gpu));
        haze_ctx_free(gpu);
        group g;
        memset(&g, 0, sizeof g);
        g.parts = 2;
        pthread_barrier_init(&g.bar, NULL, 2);
        job jobs[2];
        pthread_t th[2];
        for (int r = 0; r < 2; r++) {
            job *j = &jobs[r];
            memset(j, 0, sizeof *j);
            j->g = &g, j->rank = r, j->x = x, j->n = s->n, j->d = s->d, j->opt = o;
            j->opt.devices = list + r * G;
            j->opt.device_count = G;
            j->opt.part_first = (size_t)(r * G);
            j->opt.part_count = (size_t)P;
            size_t f, c, fl, cl;
            assert_int_equal(
                haze_fcm_part_rows(NULL, &o, s->n, s->d, (size_t)(r * G), (size_t)P, &f, &c),
                HAZE_OK);
            assert_int_equal(haze_fcm_part_rows(NULL, &o, s->n, s->d, (size_t)(r * G + G - 1),
                                                (size_t)P, &fl, &cl),
                             HAZE_OK);
            j->first = f, j->rows = fl + cl - f;
        }
        for (int r = 0; r < 2; r++) pthread_create(&th[r], NULL, run_part, &jobs[r]);
        for (int r = 0; r < 2; r++) pthread_join(th[r], NULL);
        pthread_barrier_destroy(&g.bar);
        for (int r = 0; r < 2; r++) {
            if (jobs[r].st) fail_msg("2 processes of %d GPUs: rank %d: %s", G, r, jobs[r].msg);
            same_bits(ref, jobs[r].r);
            assert_int_equal(haze_fcm_result_point_count(jobs[r].r), jobs[r].rows);
            assert_memory_equal(haze_fcm_result_memberships(ref) + jobs[r].first * s->c,
                                haze_fcm_result_memberships(jobs[r].r),
                                jobs[r].rows * s->c * sizeof(double));
            haze_fcm_result_free(jobs[r].r);
        }
        haze_fcm_result_free(ref);
        free(x);
    }
}

int main(void) {
    haze_test_require_gpu();
    if (getenv("HAZE_CMOCKA_FILTER")) cmocka_set_test_filter(getenv("HAZE_CMOCKA_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_bad_devices),
        cmocka_unit_test(test_parts_one_device),
        cmocka_unit_test(test_ranks_of_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
