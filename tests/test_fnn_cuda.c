/*
 * tests/test_fnn_cuda.c - SONFIN on the GPU against the CPU reference: the
 * same data and seed must give the same number of rules and parameters
 * within float tolerance, online and mini-batch, at several sizes (inputs up
 * to 2048, beyond the GPU-FNN limit of 1024), under the architecture-aware
 * mapping (online both by kernels launched per step and in one thread-block
 * cluster) and the GPU-FNN baseline; predictions must agree too. The
 * switches that force a path are the development library's, per context.
 */
#include <math.h>
#include <string.h>

#include "core/rng.h"
#include "fnn/fnn_internal.h"
#include "fnn_dev.h"
#include "test_util.h"

#ifdef HAZE_HAVE_CUDA
static int quick(void) {
    return getenv("HAZE_TEST_QUICK") != NULL;
}

/* HAZE_TEST_SMALL (scripts/gpu-check.sh sets it for racecheck, which runs
 * shared-memory kernels thousands of times slower): every case with at most
 * 16 samples and one epoch. The kernels and paths are the same; fewer rules
 * are made, so the growth of the rule arrays is left to the other tools. */
static int small(void) {
    return getenv("HAZE_TEST_SMALL") != NULL;
}

/* Clustered random data: samples around a few centres, so rules form. */
static void make_data(haze__rng *r, size_t n, size_t D, size_t L, double *x, int *lab) {
    size_t C = L;
    for (size_t i = 0; i < n; i++) {
        size_t c = (size_t)haze__rng_below(r, C);
        lab[i] = (int)c;
        for (size_t j = 0; j < D; j++) {
            double centre = (double)((c * 7 + j * 3) % 5);
            x[i * D + j] = centre + 0.6 * (haze__rng_uniform(r) - 0.5);
        }
    }
}

static void compare(const char *what, const double *a, const double *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) > 1e-6 * fmax(1.0, fabs(a[i])))
            fail_msg("%s[%zu]: cpu %.17g, gpu %.17g", what, i, a[i], b[i]);
}

/* The learning rate of the cases. */
static double g_rate = 0.02;

/* The CUDA device the cases train on (-1: the default). */
static int g_device = -1;

/* What the cases' GPU contexts force (dev/fnn_dev.h; 0: the library's choice). */
static int g_online = HAZE_DEV_FNN_ONLINE_AUTO;
static int g_reg_C = 0, g_reg_NW = 0;
static int g_threads = 0;

/* The online kernels' exchange: HAZE_TEST_FNN_EXCHANGE=barrier forces the
 * cluster barrier in every case (compute-sanitizer's synccheck cannot follow
 * the transaction barriers of the default form; scripts/gpu-check.sh). */
static int exchange(void) {
    const char *e = getenv("HAZE_TEST_FNN_EXCHANGE");
    if (e && strcmp(e, "barrier") == 0) return HAZE_DEV_FNN_XCHG_BARRIER;
    if (e && strcmp(e, "async") == 0) return HAZE_DEV_FNN_XCHG_ASYNC;
    return HAZE_DEV_FNN_XCHG_AUTO;
}

static haze_ctx *gpu_ctx(int mapping) {
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CUDA;
    o.device = g_device;
    haze_ctx *ctx = NULL;
    if (haze_ctx_new(&o, &ctx) != HAZE_OK) fail_msg("haze_ctx_new: %s", haze_ctx_errmsg(ctx));
    assert_int_equal(haze_dev_fnn_set_mapping(ctx, mapping), HAZE_OK);
    assert_int_equal(haze_dev_fnn_set_online(ctx, g_online), HAZE_OK);
    assert_int_equal(haze_dev_fnn_set_register_config(ctx, g_reg_C, g_reg_NW), HAZE_OK);
    assert_int_equal(haze_dev_fnn_set_cluster_threads(ctx, g_threads), HAZE_OK);
    assert_int_equal(haze_dev_fnn_set_exchange(ctx, exchange()), HAZE_OK);
    return ctx;
}

/* The cases run so far (HAZE_TEST_PART picks some of them). */
static size_t g_case;

static void run_case_opt(size_t n, size_t D, size_t L, size_t batch, int mapping, double threshold,
                         size_t max_rules, double width) {
    if (!haze_test_part_mine(g_case++)) return;
    haze_ctx *cpu = haze_test_ctx(HAZE_BACKEND_CPU), *gpu = gpu_ctx(mapping);
    if (small() && n > 16) n = 16;
    const int regress = L == 0; /* the data's classes: 3; the network's outputs: 1 */
    const size_t classes = regress ? 3 : L;
    if (regress) L = 1;
    haze__rng r;
    haze__rng_seed(&r, 1000 + n + D + L + batch);
    double *x = malloc(n * D * sizeof *x);
    int *lab = malloc(n * sizeof *lab);
    make_data(&r, n, D, classes, x, lab);
    haze_fnn *a, *b;
    assert_int_equal(haze_fnn_new(cpu, D, L, &a), HAZE_OK);
    assert_int_equal(haze_fnn_new(gpu, D, L, &b), HAZE_OK);
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = small() ? 1 : 3;
    o.batch = batch;
    o.threshold = threshold;
    o.max_rules = max_rules;
    o.width = width;
    o.rate = g_rate;
    o.validation = 0; /* the kernels are compared, not the choice of epoch */
    /* regression with L == 0 asked: one output, a smooth function of the
     * sample (the class centre plus a ripple) */
    double *d = NULL;
    if (regress) {
        d = malloc(n * sizeof *d);
        for (size_t i = 0; i < n; i++) d[i] = 0.3 * lab[i] + 0.1 * sin(3.0 * x[i * D]);
    }
    int st = regress ? haze_fnn_train(cpu, a, x, d, n, &o)
                     : haze_fnn_train_classes(cpu, a, x, lab, n, &o);
    assert_int_equal(st, HAZE_OK);
    st = regress ? haze_fnn_train(gpu, b, x, d, n, &o)
                 : haze_fnn_train_classes(gpu, b, x, lab, n, &o);
    free(d);
    if (st) fail_msg("gpu train: %s", haze_ctx_errmsg(gpu));
    print_message("n %zu D %zu L %zu batch %zu mapping %d width %g: %zu rules\n", n, D, L, batch,
                  mapping, width, haze_fnn_rule_count(a));
    assert_int_equal(haze_fnn_rule_count(a), haze_fnn_rule_count(b));
    size_t R = haze_fnn_rule_count(a);
    compare("m", haze_fnn_centres(a), haze_fnn_centres(b), R * D);
    compare("s", haze_fnn_widths(a), haze_fnn_widths(b), R * D);
    compare("w", haze_fnn_weights(a), haze_fnn_weights(b), R * L);
    double *ya = malloc(n * L * sizeof *ya), *yb = malloc(n * L * sizeof *yb);
    assert_int_equal(haze_fnn_predict(cpu, a, x, n, ya), HAZE_OK);
    assert_int_equal(haze_fnn_predict(gpu, a, x, n, yb), HAZE_OK);
    compare("y", ya, yb, n * L);
    free(ya), free(yb), free(x), free(lab);
    haze_fnn_free(a);
    haze_fnn_free(b);
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
}

static void run_case(size_t n, size_t D, size_t L, size_t batch, int mapping) {
    run_case_opt(n, D, L, batch, mapping, 0.5, 0, 0.0);
}

/* Hundreds of rules: the device makes them while the host runs ahead and
 * reads the rule count back only now and then (capacity growth included);
 * and a rule cap. */
static void test_many_rules(void **state) {
    (void)state;
    run_case_opt(700, 6, 3, 1, HAZE_DEV_FNN_MAP_ATM, 0.97, 0, 0.0);
    run_case_opt(700, 6, 3, 16, HAZE_DEV_FNN_MAP_ATM, 0.97, 0, 0.0);
    run_case_opt(400, 40, 3, 1, HAZE_DEV_FNN_MAP_ATM, 0.97, 37, 0.0);
    run_case_opt(400, 40, 3, 8, HAZE_DEV_FNN_MAP_GPUFNN, 0.97, 37, 0.0);
}

/* A fixed width for every new rule (option `width`), online and mini-batch,
 * under both mappings. */
static void test_fixed_width(void **state) {
    (void)state;
    run_case_opt(300, 16, 5, 1, HAZE_DEV_FNN_MAP_ATM, 0.8, 0, 0.6);
    run_case_opt(300, 64, 10, 16, HAZE_DEV_FNN_MAP_ATM, 0.8, 0, 1.0);
    run_case_opt(300, 16, 5, 1, HAZE_DEV_FNN_MAP_GPUFNN, 0.8, 0, 0.6);
}

/* Online training cases, run under one online path: small networks,
 * hundreds of rules made during a run (the cluster path stops when its
 * arrays are full and goes on after they grow), a rule cap, a fixed width;
 * `wide`: 2048 inputs, where the cluster keeps a few rules per block in
 * shared memory and the rest in device memory. */
static void online_cases(int mode, int wide) {
    g_online = mode;
    run_case(200, 3, 2, 1, HAZE_DEV_FNN_MAP_ATM);
    run_case(300, 16, 5, 1, HAZE_DEV_FNN_MAP_ATM);
    run_case(200, 100, 3, 1, HAZE_DEV_FNN_MAP_ATM);
    run_case_opt(700, 6, 3, 1, HAZE_DEV_FNN_MAP_ATM, 0.97, 0, 0.0);
    run_case_opt(400, 40, 3, 1, HAZE_DEV_FNN_MAP_ATM, 0.97, 37, 0.0);
    run_case_opt(300, 16, 5, 1, HAZE_DEV_FNN_MAP_ATM, 0.8, 0, 0.6);
    if (wide) run_case_opt(300, 2048, 4, 1, HAZE_DEV_FNN_MAP_ATM, 0.9, 0, 0.0);
    /* regression (L 0: one output), which the register kernel runs in its
     * own variant: tens of rules on 16 inputs, a few on 40 */
    run_case_opt(300, 16, 0, 1, HAZE_DEV_FNN_MAP_ATM, 0.9, 0, 0.0);
    run_case_opt(200, 40, 0, 1, HAZE_DEV_FNN_MAP_ATM, 0.6, 0, 0.0);
    /* samples far from both rules (narrow fixed width, a cap of two): log
     * firings below -600; a small rate keeps the steps from amplifying the
     * last bits */
    g_rate = 1e-3;
    run_case_opt(200, 8, 3, 1, HAZE_DEV_FNN_MAP_ATM, 0.9, 2, 0.1);
    run_case_opt(200, 8, 0, 1, HAZE_DEV_FNN_MAP_ATM, 0.9, 2, 0.1);
    g_rate = 0.02;
    g_online = HAZE_DEV_FNN_ONLINE_AUTO;
}

/* Online training by kernels launched per step. */
static void test_atm_online(void **state) {
    (void)state;
    online_cases(HAZE_DEV_FNN_ONLINE_LAUNCH, !quick());
}

/* Online training in one thread-block cluster (where the device has
 * clusters; elsewhere this repeats the launch path). */
static void test_cluster_online(void **state) {
    (void)state;
    online_cases(HAZE_DEV_FNN_ONLINE_CLUSTER, 1);
}

/* Online training with every parameter in registers (where the device has
 * clusters and the network fits): the library's configuration, then forced
 * ones from one block of one warp to 16 blocks of 8 warps (networks that
 * outgrow a configuration go on in the shared-memory cluster kernel). The
 * cases' far samples take the sums again shifted by the strongest log
 * firing. */
static void test_register_online(void **state) {
    (void)state;
    online_cases(HAZE_DEV_FNN_ONLINE_REGISTER, 0);
    const int cfg[][2] = {{1, 1}, {16, 8}, {1, 8}, {2, 2}, {4, 4}, {16, 1}};
    /* under racecheck (HAZE_TEST_SMALL) the smallest and largest forced
     * configurations: every one takes as long as the library's own */
    const size_t ncfg = small() ? 2 : sizeof cfg / sizeof *cfg;
    for (size_t i = 0; i < ncfg; i++) {
        g_reg_C = cfg[i][0], g_reg_NW = cfg[i][1];
        online_cases(HAZE_DEV_FNN_ONLINE_REGISTER, 0);
    }
    g_reg_C = g_reg_NW = 0;
}

/* The cluster kernel with each block size forced, whatever the shape would
 * pick: 1024 threads on few rules and few inputs (lanes per rule reduced),
 * 512 where the library takes 1024; 4096 inputs give a rule two or four
 * warps (partials summed through shared memory). */
static void test_cluster_threads(void **state) {
    (void)state;
    const int threads[2] = {1024, 512};
    for (int t = 0; t < 2; t++) {
        g_threads = threads[t];
        g_online = HAZE_DEV_FNN_ONLINE_CLUSTER;
        run_case(200, 3, 2, 1, HAZE_DEV_FNN_MAP_ATM);
        run_case_opt(400, 40, 3, 1, HAZE_DEV_FNN_MAP_ATM, 0.97, 0, 0.0);
        run_case_opt(300, 1024, 4, 1, HAZE_DEV_FNN_MAP_ATM, 0.9, 0, 0.0);
        if (!quick()) run_case_opt(120, 4096, 3, 1, HAZE_DEV_FNN_MAP_ATM, 0.9, 0, 0.0);
        g_online = HAZE_DEV_FNN_ONLINE_AUTO;
        g_threads = 0;
    }
}

/* The two exchanges of the cluster and register kernels (st.async on
 * transaction barriers, plain stores and the cluster's barrier) give the
 * same bits: the same values are summed in the same order. Clusters of one
 * and of several blocks, one and several outputs, rules made during the
 * run; networks that outgrow the register kernel go on in the cluster
 * kernel. */
static void test_exchange_forms(void **state) {
    (void)state;
    if (exchange() != HAZE_DEV_FNN_XCHG_AUTO) { /* one form forced (synccheck: the barrier) */
        print_message("the exchange is forced by HAZE_TEST_FNN_EXCHANGE: forms not compared\n");
        return;
    }
    const struct {
        size_t n, D, L;
        int online, C, NW;
        double threshold;
    } cs[] = {
        {300, 16, 5, HAZE_DEV_FNN_ONLINE_REGISTER, 0, 0, 0.8},
        {300, 16, 5, HAZE_DEV_FNN_ONLINE_REGISTER, 4, 4, 0.8},
        {300, 16, 1, HAZE_DEV_FNN_ONLINE_REGISTER, 16, 8, 0.9},
        {300, 6, 3, HAZE_DEV_FNN_ONLINE_REGISTER, 1, 8, 0.97},
        {200, 100, 3, HAZE_DEV_FNN_ONLINE_CLUSTER, 0, 0, 0.5},
        {400, 40, 3, HAZE_DEV_FNN_ONLINE_CLUSTER, 0, 0, 0.97},
    };
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        if (!haze_test_part_mine(k)) continue;
        /* under racecheck (HAZE_TEST_SMALL) 16 samples and one epoch */
        const size_t n = small() ? 16 : cs[k].n, D = cs[k].D, L = cs[k].L;
        haze__rng r;
        haze__rng_seed(&r, 77 + k);
        double *x = malloc(n * D * sizeof *x);
        int *lab = malloc(n * sizeof *lab);
        make_data(&r, n, D, L < 2 ? 3 : L, x, lab);
        double *d = malloc(n * sizeof *d);
        for (size_t i = 0; i < n; i++) d[i] = 0.3 * lab[i] + 0.1 * sin(3.0 * x[i * D]);
        haze_fnn *net[2];
        haze_ctx *gs[2];
        for (int f = 0; f < 2; f++) {
            haze_ctx *g = gs[f] = gpu_ctx(HAZE_DEV_FNN_MAP_ATM);
            assert_int_equal(haze_dev_fnn_set_online(g, cs[k].online), HAZE_OK);
            assert_int_equal(haze_dev_fnn_set_register_config(g, cs[k].C, cs[k].NW), HAZE_OK);
            assert_int_equal(haze_dev_fnn_set_exchange(g, f ? HAZE_DEV_FNN_XCHG_BARRIER
                                                            : HAZE_DEV_FNN_XCHG_ASYNC),
                             HAZE_OK);
            assert_int_equal(haze_fnn_new(g, D, L, &net[f]), HAZE_OK);
            haze_fnn_options o = haze_fnn_options_default();
            o.epochs = small() ? 1 : 2, o.batch = 1, o.threshold = cs[k].threshold;
            o.validation = 0;
            int st = L == 1 ? haze_fnn_train(g, net[f], x, d, n, &o)
                            : haze_fnn_train_classes(g, net[f], x, lab, n, &o);
            if (st) fail_msg("train: %s", haze_ctx_errmsg(g));
        }
        const size_t R = haze_fnn_rule_count(net[0]);
        print_message("exchange forms, case %zu: %zu rules\n", k, R);
        assert_int_equal(R, haze_fnn_rule_count(net[1]));
        assert_memory_equal(haze_fnn_centres(net[0]), haze_fnn_centres(net[1]), R * D * 8);
        assert_memory_equal(haze_fnn_widths(net[0]), haze_fnn_widths(net[1]), R * D * 8);
        assert_memory_equal(haze_fnn_weights(net[0]), haze_fnn_weights(net[1]), R * L * 8);
        haze_fnn_free(net[0]), haze_fnn_free(net[1]);
        haze_ctx_free(gs[0]), haze_ctx_free(gs[1]);
        free(x), free(lab), free(d);
    }
}

/* Two devices in one process, one after the other and back: each keeps its
 * own search results, cluster size and kernel attributes. One device: skipped. */
static void test_two_devices(void **state) {
    (void)state;
    if (haze_device_count() < 2) {
        print_message("one CUDA device: nothing to test\n");
        skip();
    }
    for (int k = 0; k < 3; k++) {
        g_device = k == 1 ? 1 : 0;
        online_cases(HAZE_DEV_FNN_ONLINE_CLUSTER, 0);
        run_case(256, 517, 3, 64, HAZE_DEV_FNN_MAP_ATM);
    }
    g_device = -1;
}

static void test_atm_batch(void **state) {
    (void)state;
    run_case(300, 16, 5, 32, HAZE_DEV_FNN_MAP_ATM);
    run_case(256, 517, 3, 64, HAZE_DEV_FNN_MAP_ATM);
}

static void test_gpufnn_baseline(void **state) {
    (void)state;
    run_case(300, 16, 5, 1, HAZE_DEV_FNN_MAP_GPUFNN);
    run_case(200, 700, 3, 8, HAZE_DEV_FNN_MAP_GPUFNN);
    /* beyond one block of threads the baseline refuses, ATM runs */
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    assert_int_equal(haze_dev_fnn_set_exchange(gpu, exchange()), HAZE_OK);
    haze_fnn *net;
    size_t D = 1500;
    double *x = calloc(2 * D, sizeof *x);
    int lab[2] = {0, 1};
    x[D] = 1;
    assert_int_equal(haze_fnn_new(gpu, D, 2, &net), HAZE_OK);
    assert_int_equal(haze_dev_fnn_set_mapping(gpu, HAZE_DEV_FNN_MAP_GPUFNN), HAZE_OK);
    assert_int_equal(haze_fnn_train_classes(gpu, net, x, lab, 2, NULL), HAZE_ERR_UNSUPPORTED);
    assert_int_equal(haze_dev_fnn_set_mapping(gpu, HAZE_DEV_FNN_MAP_ATM), HAZE_OK);
    haze_fnn_options o = haze_fnn_options_default();
    if (small()) o.epochs = 1;
    assert_int_equal(haze_fnn_train_classes(gpu, net, x, lab, 2, &o), HAZE_OK);
    haze_fnn_free(net);
    free(x);
    haze_ctx_free(gpu);
}

/* The switches are per context: the GPU-FNN mapping forced on one context
 * refuses 1500 inputs there, while another context, made before and used
 * after, keeps the library's mapping and trains. Out-of-range values are
 * refused. */
static void test_switches_per_context(void **state) {
    (void)state;
    haze_ctx *a = gpu_ctx(HAZE_DEV_FNN_MAP_ATM), *b = gpu_ctx(HAZE_DEV_FNN_MAP_ATM);
    size_t D = 1500;
    double *x = calloc(2 * D, sizeof *x);
    int lab[2] = {0, 1};
    x[D] = 1;
    haze_fnn *na, *nb;
    assert_int_equal(haze_fnn_new(a, D, 2, &na), HAZE_OK);
    assert_int_equal(haze_fnn_new(b, D, 2, &nb), HAZE_OK);
    assert_int_equal(haze_dev_fnn_set_mapping(a, HAZE_DEV_FNN_MAP_GPUFNN), HAZE_OK);
    assert_int_equal(haze_fnn_train_classes(a, na, x, lab, 2, NULL), HAZE_ERR_UNSUPPORTED);
    haze_fnn_options o = haze_fnn_options_default();
    if (small()) o.epochs = 1;
    assert_int_equal(haze_fnn_train_classes(b, nb, x, lab, 2, &o), HAZE_OK);
    assert_int_equal(haze_dev_fnn_set_mapping(a, 7), HAZE_ERR_INVALID);
    assert_int_equal(haze_dev_fnn_set_online(a, -1), HAZE_ERR_INVALID);
    assert_int_equal(haze_dev_fnn_set_register_config(a, 2, 0), HAZE_ERR_INVALID);
    assert_int_equal(haze_dev_fnn_set_cluster_threads(a, 256), HAZE_ERR_INVALID);
    assert_int_equal(haze_dev_fnn_set_exchange(a, 3), HAZE_ERR_INVALID);
    haze_fnn_free(na);
    haze_fnn_free(nb);
    free(x);
    haze_ctx_free(a);
    haze_ctx_free(b);
}

/* The configuration search keeps every shape it has timed: 300 shapes (the
 * process-wide table of 256 once stopped caching silently, and searched
 * again at every step after it was full). */
/* Every candidate of the firing search gives the same bits (the search
 * picks by timing, so a model would otherwise predict differently from one
 * process to the next), and the sum is the squares' sum to rounding. */
static void test_fire_variants_agree(void **state) {
    (void)state;
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    const size_t Ds[] = {1, 2, 5, 16, 31, 32, 33, 64, 100, 256, 257, 600, 1000, 2049, 5000};
    const size_t Rs[] = {1, 3, 17, 64};
    const size_t Bs[] = {1, 7};
    const int V = haze_dev_fnn_variants();
    assert_true(V >= 2);
    haze__rng r;
    haze__rng_seed(&r, 11);
    for (size_t a = 0; a < sizeof Ds / sizeof *Ds; a++)
        for (size_t b = 0; b < sizeof Rs / sizeof *Rs; b++)
            for (size_t c = 0; c < sizeof Bs / sizeof *Bs; c++) {
                const size_t D = Ds[a], R = Rs[b], B = Bs[c];
                double *z = test_malloc(B * D * sizeof *z), *m = test_malloc(R * D * sizeof *m),
                       *s = test_malloc(R * D * sizeof *s), *ref = test_malloc(B * R * sizeof *ref),
                       *lm = test_malloc(B * R * sizeof *lm);
                for (size_t i = 0; i < B * D; i++) z[i] = 6 * haze__rng_uniform(&r) - 3;
                for (size_t i = 0; i < R * D; i++) {
                    m[i] = 4 * haze__rng_uniform(&r) - 2;
                    s[i] = 0.3 + 3 * haze__rng_uniform(&r);
                }
                int v0 = 0, st0;
                while ((st0 = haze_dev_fnn_fire_variant(gpu, v0, z, B, m, s, R, D, ref)) ==
                       HAZE_ERR_UNSUPPORTED)
                    v0++;
                assert_int_equal(st0, HAZE_OK);
                for (size_t i = 0; i < B; i++)
                    for (size_t k = 0; k < R; k++) {
                        double want = 0;
                        for (size_t j = 0; j < D; j++) {
                            const double t = (z[i * D + j] - m[k * D + j]) / s[k * D + j];
                            want -= t * t;
                        }
                        if (!(fabs(ref[i * R + k] - want) <= 1e-12 * fabs(want)))
                            fail_msg("D %zu R %zu B %zu: lm[%zu][%zu] %.17g, sum %.17g", D, R, B, i,
                                     k, ref[i * R + k], want);
                    }
                /* the shape's candidates (the others refuse it); the last,
                 * GPU-FNN, has an order of its own */
                int compared = 0;
                for (int v = v0 + 1; v < V - 1; v++) {
                    memset(lm, 0, B * R * sizeof *lm);
                    const int st = haze_dev_fnn_fire_variant(gpu, v, z, B, m, s, R, D, lm);
                    if (st == HAZE_ERR_UNSUPPORTED) continue;
                    assert_int_equal(st, HAZE_OK);
                    compared++;
                    if (memcmp(lm, ref, B * R * sizeof *lm) != 0)
                        for (size_t i = 0; i < B * R; i++)
                            if (memcmp(&lm[i], &ref[i], sizeof *lm) != 0)
                                fail_msg("D %zu R %zu B %zu: variant %d, lm[%zu] %.17g, first "
                                         "%.17g",
                                         D, R, B, v, i, lm[i], ref[i]);
                }
                if (compared < 1) fail_msg("D %zu: one candidate only", D);
                test_free(z), test_free(m), test_free(s), test_free(ref), test_free(lm);
            }
    double x = 0;
    assert_int_equal(haze_dev_fnn_fire_variant(gpu, V, &x, 1, &x, &x, 1, 1, &x), HAZE_ERR_INVALID);
    haze_ctx_free(gpu);
}

static void test_search_cache_grows(void **state) {
    (void)state;
    haze_ctx *gpu = gpu_ctx(HAZE_DEV_FNN_MAP_ATM);
    const size_t shapes = 300;
    for (size_t D = 1; D <= shapes; D++) {
        double f = 0, u = 0;
        assert_int_equal(haze_dev_fnn_step_time(gpu, D, 4, 1, HAZE_DEV_FNN_MAP_ATM, 1, &f, &u),
                         HAZE_OK);
    }
    for (size_t D = 1; D <= shapes; D++)
        if (!haze_dev_fnn_choice(gpu, D, 4, 1)) fail_msg("shape %zu x 4 not kept", D);
    assert_true(haze_dev_fnn_cached(gpu) >= shapes);
    /* a new context starts with nothing kept */
    haze_ctx *other = gpu_ctx(HAZE_DEV_FNN_MAP_ATM);
    assert_null(haze_dev_fnn_choice(other, 1, 4, 1));
    assert_int_equal(haze_dev_fnn_cached(other), 0);
    haze_ctx_free(other);
    haze_ctx_free(gpu);
}

static void test_step_time(void **state) {
    (void)state;
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    assert_int_equal(haze_dev_fnn_set_exchange(gpu, exchange()), HAZE_OK);
    double f = 0, u = 0;
    assert_int_equal(haze_dev_fnn_step_time(gpu, 512, 256, 4, HAZE_DEV_FNN_MAP_ATM, 3, &f, &u),
                     HAZE_OK);
    assert_true(f > 0 && u >= 0);
    assert_non_null(haze_dev_fnn_choice(gpu, 512, 256, 1));
    assert_int_equal(haze_dev_fnn_step_time(gpu, 2048, 64, 4, HAZE_DEV_FNN_MAP_GPUFNN, 3, &f, &u),
                     HAZE_ERR_UNSUPPORTED);
    double c = 0;
    int cs = haze_dev_fnn_cluster_step_time(gpu, 32, 256, 4, 0, 50, &c);
    assert_true(cs == HAZE_OK || cs == HAZE_ERR_UNSUPPORTED);
    if (cs == HAZE_OK) assert_true(c > 0);
    haze_ctx_free(gpu);
}

/* The kernels' short-latency exp and reciprocal (docs/fnn.md: at most 3
 * and 2 ulps measured on an H100; one more of margin here). */
static void test_math(void **state) {
    (void)state;
    haze_ctx *gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    assert_int_equal(haze_dev_fnn_set_exchange(gpu, exchange()), HAZE_OK);
    double ue = -1, ur = -1;
    assert_int_equal(haze_dev_fnn_math_ulps(gpu, (size_t)1 << (quick() ? 20 : 24), &ue, &ur),
                     HAZE_OK);
    print_message("exp: %.2f ulps, reciprocal: %.2f ulps at worst\n", ue, ur);
    assert_true(ue >= 0 && ue <= 4.0);
    assert_true(ur >= 0 && ur <= 3.0);
    haze_ctx_free(gpu);
}

#endif

int main(void) {
    haze_test_require_gpu();
#ifndef HAZE_HAVE_CUDA
    return HAZE_TEST_SKIP; /* not reached: require_gpu exits without CUDA */
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atm_online),          cmocka_unit_test(test_atm_batch),
        cmocka_unit_test(test_gpufnn_baseline),     cmocka_unit_test(test_step_time),
        cmocka_unit_test(test_many_rules),          cmocka_unit_test(test_fixed_width),
        cmocka_unit_test(test_cluster_online),      cmocka_unit_test(test_cluster_threads),
        cmocka_unit_test(test_register_online),     cmocka_unit_test(test_math),
        cmocka_unit_test(test_two_devices),         cmocka_unit_test(test_switches_per_context),
        cmocka_unit_test(test_search_cache_grows),  cmocka_unit_test(test_exchange_forms),
        cmocka_unit_test(test_fire_variants_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
