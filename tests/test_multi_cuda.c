/*
 * tests/test_multi_cuda.c - a context over a set of GPUs (haze/core.h,
 * "Several devices"): its checks (a device twice, one the host does not
 * have, the CPU backend), its devices and parts; a batch of the tipper from
 * host memory over 2 and over every device, the same bits as one device
 * (a long batch, odd row counts, fewer rows than a device's share, the set
 * in another order), the counts added; haze_fis_eval_device staying on the
 * first device, and rows resident on each device evaluated on its part;
 * FIRE on each device's part the same bytes, and edge rules over the set;
 * a fuzzy c-means fit over the context's set the same bits as over the
 * options' set, the options winning. With one GPU the checks and a set of
 * one run and the rest is skipped, saying so. Exit 77 without a GPU.
 */
#include <math.h>
#include <string.h>

#ifdef HAZE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "test_util.h"

static int have; /* devices on this host */

static haze_ctx *set_ctx(const int *dev, int count) {
    haze_ctx_options o = haze_ctx_options_default();
    o.devices = dev;
    o.device_count = count;
    haze_ctx *ctx = NULL;
    if (haze_ctx_new(&o, &ctx) != HAZE_OK)
        fail_msg("a context over %d devices: %s", count, haze_ctx_errmsg(ctx));
    return ctx;
}

static haze_ctx *one_ctx(int device) {
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CUDA;
    o.device = device;
    haze_ctx *ctx = NULL;
    if (haze_ctx_new(&o, &ctx) != HAZE_OK)
        fail_msg("a context on device %d: %s", device, haze_ctx_errmsg(ctx));
    return ctx;
}

static int skip_below(int need, const char *what) {
    if (have >= need) return 0;
    fprintf(stderr, "%s: needs %d GPUs, this host has %d: skipped\n", what, need, have);
    return 1;
}

static void refused(const haze_ctx_options *o, int want, const char *says) {
    haze_ctx *ctx = NULL;
    assert_int_equal(haze_ctx_new(o, &ctx), want);
    if (!strstr(haze_ctx_errmsg(ctx), says))
        fail_msg("message '%s' does not say '%s'", haze_ctx_errmsg(ctx), says);
    haze_ctx_free(ctx);
}

/* The checks, and a set of one (any host with a GPU). */
static void test_set_checks(void **state) {
    (void)state;
    haze_ctx_options o = haze_ctx_options_default();
    const int twice[] = {0, 0}, missing[] = {0, have}, one[] = {have - 1};
    o.devices = twice;
    o.device_count = 2;
    refused(&o, HAZE_ERR_INVALID, "CUDA device 0 is listed twice");
    o.devices = missing;
    char says[128];
    snprintf(says, sizeof says, "CUDA device %d is not present (this host has %d: 0 to %d)", have,
             have, have - 1);
    refused(&o, HAZE_ERR_NODEVICE, says);
    o.devices = NULL;
    o.device_count = have + 1;
    snprintf(says, sizeof says, "CUDA device %d is not present", have);
    refused(&o, HAZE_ERR_NODEVICE, says);
    o.backend = HAZE_BACKEND_CPU;
    o.device_count = 2;
    refused(&o, HAZE_ERR_INVALID, "needs the CUDA backend");
    /* a list of one: the context on that device, no parts */
    haze_ctx *ctx = set_ctx(one, 1);
    int ids[2] = {-1, -1};
    assert_int_equal(haze_ctx_backend(ctx), HAZE_BACKEND_CUDA);
    assert_int_equal(haze_ctx_device(ctx), have - 1);
    assert_int_equal(haze_ctx_device_count(ctx), 1);
    assert_int_equal(haze_ctx_devices(ctx, ids, 2), 1);
    assert_int_equal(ids[0], have - 1);
    assert_ptr_equal(haze_ctx_part(ctx, 0), ctx);
    assert_null(haze_ctx_part(ctx, 1));
    haze_ctx_free(ctx);
}

/* A set of every device: its devices, parts, threads and memory limit. */
static void test_set_parts(void **state) {
    (void)state;
    if (skip_below(2, "the parts of a set")) return;
    int rev[64], ids[64];
    const int n = have < 64 ? have : 64;
    for (int k = 0; k < n; k++) rev[k] = n - 1 - k;
    haze_ctx_options o = haze_ctx_options_default();
    o.devices = rev;
    o.device_count = n;
    o.threads = 2 * n;
    o.device_memory_limit = (size_t)1 << 30;
    haze_ctx *ctx = NULL;
    assert_int_equal(haze_ctx_new(&o, &ctx), HAZE_OK);
    assert_int_equal(haze_ctx_device(ctx), n - 1);
    assert_int_equal(haze_ctx_device_count(ctx), n);
    assert_int_equal(haze_ctx_devices(ctx, ids, 1), n); /* only the first written */
    assert_int_equal(haze_ctx_devices(ctx, ids, 64), n);
    assert_memory_equal(ids, rev, (size_t)n * sizeof *ids);
    assert_int_equal(haze_ctx_threads(ctx), 2 * n);
    for (int k = 1; k < n; k++) {
        haze_ctx *p = haze_ctx_part(ctx, k);
        assert_non_null(p);
        assert_int_equal(haze_ctx_backend(p), HAZE_BACKEND_CUDA);
        assert_int_equal(haze_ctx_device(p), rev[k]);
        assert_int_equal(haze_ctx_device_count(p), 1);
        assert_int_equal(haze_ctx_threads(p), 2);
        assert_int_equal(haze_ctx_device_memory_limit(p), (size_t)1 << 30);
        haze_ctx_free(p); /* a part: ignored */
    }
    assert_null(haze_ctx_part(ctx, n));
    assert_int_equal(haze_ctx_set_threads(ctx, n), HAZE_OK);
    assert_int_equal(haze_ctx_set_device_memory_limit(ctx, 0), HAZE_OK);
    assert_int_equal(haze_ctx_threads(haze_ctx_part(ctx, 1)), 1);
    assert_int_equal(haze_ctx_device_memory_limit(haze_ctx_part(ctx, 1)), 0);
    haze_ctx_free(ctx);
}

/* Tipper inputs: service and food in [0, 10], some outside (clamped). */
static double *tipper_rows(size_t n) {
    double *x = malloc(2 * n * sizeof *x);
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < 2 * n; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        x[i] = -0.5 + 11.0 * (double)(s >> 11) / 9007199254740992.0;
    }
    return x;
}

static haze_fis *tipper(haze_ctx *ctx) {
    haze_fis *f = NULL;
    if (haze_fis_load(ctx, HAZE_TEST_DATA "/fis/tipper.fis", &f))
        fail_msg("tipper: %s", haze_ctx_errmsg(ctx));
    return f;
}

/* n rows on ctx against one device's outputs and counts (ref). */
static void same_rows(haze_ctx *ctx, haze_fis *f, const double *x, size_t n, const double *ref,
                      const haze_fis_stats *rs, const char *how) {
    double *y = malloc((n ? n : 1) * sizeof *y);
    for (size_t i = 0; i < n; i++) y[i] = -1.0;
    haze_fis_stats s = haze_fis_stats_init();
    if (haze_fis_eval(ctx, f, x, n, y, &s) != HAZE_OK)
        fail_msg("%s, %zu rows: %s", how, n, haze_ctx_errmsg(ctx));
    for (size_t i = 0; i < n; i++)
        if (memcmp(&y[i], &ref[i], sizeof *y))
            fail_msg("%s, %zu rows: row %zu is %.17g, one device %.17g", how, n, i, y[i], ref[i]);
    assert_int_equal(s.clamped, rs->clamped);
    assert_int_equal(s.no_rule, rs->no_rule);
    free(y);
}

static void check_counts(haze_ctx *set, haze_ctx *one, haze_fis *f, const double *x,
                         const size_t *counts, size_t nc, const char *how) {
    for (size_t c = 0; c < nc; c++) {
        const size_t n = counts[c];
        double *ref = malloc((n ? n : 1) * sizeof *ref);
        haze_fis_stats rs = haze_fis_stats_init();
        if (haze_fis_eval(one, f, x, n, ref, &rs) != HAZE_OK)
            fail_msg("one device, %zu rows: %s", n, haze_ctx_errmsg(one));
        same_rows(set, f, x, n, ref, &rs, how);
        free(ref);
    }
}

/* The tipper from host memory over 2 devices, over every device, and over
 * 2 in the other order: one device's bits. */
static void test_fis_eval(void **state) {
    (void)state;
    haze_ctx *one = one_ctx(0);
    haze_fis *f = tipper(one);
    /* long (the staged path on each device), odd, a device's least share
     * and around it, fewer rows than devices */
    const size_t counts[] = {1000000, 1000003, 262147, 8193, 8192, 4097, 4095, 3, 1, 0};
    const size_t nc = sizeof counts / sizeof *counts;
    double *x = tipper_rows(counts[1]);
    const int first[] = {0};
    haze_ctx *set1 = set_ctx(first, 1);
    check_counts(set1, one, f, x, counts, nc, "a set of one");
    haze_ctx_free(set1);
    if (!skip_below(2, "fis eval over several devices")) {
        const int two[] = {0, 1}, back[] = {1, 0};
        haze_ctx *set = set_ctx(two, 2);
        check_counts(set, one, f, x, counts, nc, "2 devices");
        haze_ctx_free(set);
        set = set_ctx(back, 2);
        check_counts(set, one, f, x, counts, nc, "devices 1, 0");
        haze_ctx_free(set);
        if (have > 2) {
            set = set_ctx(NULL, have);
            check_counts(set, one, f, x, counts, nc, "every device");
            haze_ctx_free(set);
        }
    }
    free(x);
    haze_fis_free(f);
    haze_ctx_free(one);
}

#ifdef HAZE_HAVE_CUDA
/* n rows resident on `device`, evaluated there through ctx; the outputs
 * brought back. */
static void eval_resident(haze_ctx *ctx, int device, haze_fis *f, const double *x, size_t n,
                          double *y) {
    double *din = NULL, *dout = NULL;
    assert_int_equal(cudaSetDevice(device), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&din, 2 * n * sizeof *din), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&dout, n * sizeof *dout), cudaSuccess);
    assert_int_equal(cudaMemcpy(din, x, 2 * n * sizeof *din, cudaMemcpyHostToDevice), cudaSuccess);
    if (haze_fis_eval_device(ctx, f, din, n, dout, NULL) != HAZE_OK)
        fail_msg("resident rows on device %d: %s", device, haze_ctx_errmsg(ctx));
    assert_int_equal(cudaSetDevice(device), cudaSuccess);
    assert_int_equal(cudaMemcpy(y, dout, n * sizeof *y, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(din);
    cudaFree(dout);
}
#endif

/* haze_fis_eval_device on a set: the first device's pointers; on a part:
 * that device's. */
static void test_fis_eval_device(void **state) {
    (void)state;
#ifdef HAZE_HAVE_CUDA
    if (skip_below(2, "device-resident rows over several devices")) return;
    const size_t n = 300001;
    double *x = tipper_rows(n), *ref = malloc(n * sizeof *ref), *y = malloc(n * sizeof *y);
    haze_ctx *one = one_ctx(0);
    haze_fis *f = tipper(one);
    assert_int_equal(haze_fis_eval(one, f, x, n, ref, NULL), HAZE_OK);
    const int back[] = {1, 0};
    haze_ctx *set = set_ctx(back, 2);
    eval_resident(set, 1, f, x, n, y); /* the set's first device is 1 */
    assert_memory_equal(y, ref, n * sizeof *y);
    eval_resident(haze_ctx_part(set, 1), 0, f, x, n, y);
    assert_memory_equal(y, ref, n * sizeof *y);
    haze_ctx_free(set);
    haze_fis_free(f);
    haze_ctx_free(one);
    free(x), free(ref), free(y);
#else
    (void)skip_below;
#endif
}

/* A 4K frame of smooth gradients and noise. */
static haze_image *frame(haze_ctx *ctx, unsigned seed) {
    haze_image *img = NULL;
    assert_int_equal(haze_image_new(ctx, 3840, 2160, &img), HAZE_OK);
    uint32_t s = seed;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            s = s * 1664525u + 1013904223u;
            int v = ((x / 7 + y / 5) & 255) ^ (int)(s >> 29);
            img->data[(size_t)y * (size_t)img->width + (size_t)x] = (uint8_t)v;
        }
    return img;
}

/* FIRE with a detector on each device's part: the bytes of one device;
 * edge rules over the set: the bytes of one device. */
static void test_edge(void **state) {
    (void)state;
    if (skip_below(2, "edge over several devices")) return;
    haze_ctx *one = one_ctx(0), *set = set_ctx(NULL, have);
    haze_image *in = frame(one, 7), *ref = NULL, *out = NULL;
    assert_int_equal(haze_image_new(one, in->width, in->height, &ref), HAZE_OK);
    assert_int_equal(haze_image_new(one, in->width, in->height, &out), HAZE_OK);
    haze_edge *e0 = NULL;
    assert_int_equal(haze_edge_new(one, NULL, &e0), HAZE_OK);
    for (int kern = 0; kern < 2; kern++) {
        assert_int_equal(haze_edge_run(one, e0, (haze_edge_kernel)kern, in, ref), HAZE_OK);
        for (int k = 0; k < have; k++) {
            haze_ctx *p = haze_ctx_part(set, k);
            haze_edge *e = NULL;
            assert_int_equal(haze_edge_new(p, NULL, &e), HAZE_OK);
            memset(out->data, 0, (size_t)out->width * (size_t)out->height);
            if (haze_edge_run(p, e, (haze_edge_kernel)kern, in, out) != HAZE_OK)
                fail_msg("FIRE on device %d: %s", haze_ctx_device(p), haze_ctx_errmsg(p));
            assert_memory_equal(out->data, ref->data, (size_t)out->width * (size_t)out->height);
            haze_edge_free(e);
        }
    }
    haze_edge_free(e0);
    /* the user's rules (a Mamdani model of the FIRE idea on the N and S
     * differences): haze_fis_eval over the set, band after band */
    char text[4096];
    size_t len = (size_t)snprintf(
        text, sizeof text, "[System]\nName='hedge'\nNumInputs=8\nNumOutputs=1\nNumRules=2\n");
    const char *nm[8] = {"NW", "N", "NE", "W", "E", "SW", "S", "SE"};
    for (int i = 0; i < 8; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "[Input%d]\nName='%s'\nRange=[-255 255]\nNumMFs=1\n"
                                "MF1='big':'trapmf',[-300 -255 -128 -32]\n",
                                i + 1, nm[i]);
    snprintf(text + len, sizeof text - len,
             "[Output1]\nName='grey'\nRange=[0 255]\nNumMFs=2\nMF1='black':'trimf',[-1 0 128]\n"
             "MF2='white':'trimf',[127 255 256]\n[Rules]\n0 1 0 0 0 0 0 0, 1 (1) : 1\n"
             "0 -1 0 0 0 0 0 0, 2 (1) : 1\n");
    haze_fis *rules = NULL;
    if (haze_fis_parse(one, text, "hedge.fis", &rules)) fail_msg("%s", haze_ctx_errmsg(one));
    haze_image *small = NULL, *a = NULL, *b = NULL;
    assert_int_equal(haze_image_new(one, 640, 480, &small), HAZE_OK);
    for (size_t i = 0; i < (size_t)640 * 480; i++) small->data[i] = in->data[i * 3];
    assert_int_equal(haze_image_new(one, 640, 480, &a), HAZE_OK);
    assert_int_equal(haze_image_new(one, 640, 480, &b), HAZE_OK);
    assert_int_equal(haze_edge_run_fis(one, rules, small, a), HAZE_OK);
    if (haze_edge_run_fis(set, rules, small, b) != HAZE_OK)
        fail_msg("edge rules over the set: %s", haze_ctx_errmsg(set));
    assert_memory_equal(a->data, b->data, (size_t)640 * 480);
    haze_image_free(small), haze_image_free(a), haze_image_free(b);
    haze_fis_free(rules);
    haze_image_free(in), haze_image_free(ref), haze_image_free(out);
    haze_ctx_free(set);
    haze_ctx_free(one);
}

static haze_fcm_result *fit(haze_ctx *ctx, const double *x, size_t n, size_t d, const int *dev,
                            int count) {
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 5;
    o.seed = 5;
    o.tol = 1e-9;
    o.want_memberships = 1;
    o.devices = dev;
    o.device_count = count;
    haze_fcm_result *r = NULL;
    if (haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &r) != HAZE_OK)
        fail_msg("fcm over %d devices: %s", count, haze_ctx_errmsg(ctx));
    return r;
}

static void same_fit(const haze_fcm_result *a, const haze_fcm_result *b) {
    const size_t c = haze_fcm_result_cluster_count(a), d = haze_fcm_result_feature_count(a),
                 n = haze_fcm_result_point_count(a);
    assert_int_equal(n, haze_fcm_result_point_count(b));
    assert_int_equal(haze_fcm_result_iterations(a), haze_fcm_result_iterations(b));
    assert_memory_equal(haze_fcm_result_centres(a), haze_fcm_result_centres(b),
                        c * d * sizeof(double));
    assert_memory_equal(haze_fcm_result_objective(a), haze_fcm_result_objective(b),
                        (size_t)haze_fcm_result_iterations(a) * sizeof(double));
    assert_memory_equal(haze_fcm_result_memberships(a), haze_fcm_result_memberships(b),
                        n * c * sizeof(double));
}

/* A fit on a context over a set with no devices in the options: the fit
 * over the options' set on a context of one device; the options' devices
 * win over the context's. */
static void test_fcm(void **state) {
    (void)state;
    const size_t n = 100003, d = 4;
    double *x = haze_test_blobs(n, d, 5, 3);
    haze_ctx *one = one_ctx(0);
    const int first[] = {0};
    haze_fcm_result *plain = fit(one, x, n, d, NULL, 0);
    if (!skip_below(2, "fcm over the context's devices")) {
        const int two[] = {0, 1};
        haze_ctx *set = set_ctx(two, 2);
        haze_fcm_result *by_opt = fit(one, x, n, d, two, 2), *by_ctx = fit(set, x, n, d, NULL, 0);
        same_fit(by_ctx, by_opt);
        haze_fcm_result *listed = fit(set, x, n, d, first, 1); /* the options win */
        same_fit(listed, plain);
        haze_fcm_result_free(by_opt), haze_fcm_result_free(by_ctx), haze_fcm_result_free(listed);
        haze_ctx_free(set);
    }
    haze_ctx *set1 = set_ctx(first, 1);
    haze_fcm_result *r1 = fit(set1, x, n, d, NULL, 0); /* a set of one: the plain fit */
    same_fit(r1, plain);
    haze_fcm_result_free(r1), haze_fcm_result_free(plain);
    haze_ctx_free(set1);
    haze_ctx_free(one);
    free(x);
}

int main(void) {
    haze_test_require_gpu();
    have = haze_device_count();
    if (have < 2)
        fprintf(stderr, "this host has 1 GPU: the checks and a set of one run; the tests over "
                        "several devices are skipped\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_checks), cmocka_unit_test(test_set_parts),
        cmocka_unit_test(test_fis_eval),   cmocka_unit_test(test_fis_eval_device),
        cmocka_unit_test(test_edge),       cmocka_unit_test(test_fcm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
