/*
 * bench/bench_fcm.c - fuzzy c-means time per iteration: haze on the GPU,
 * haze on all CPU cores, and scikit-fuzzy's cmeans (or, where scikit-fuzzy
 * is not installed, a NumPy-vectorised reimplementation of the same
 * iteration, labelled "numpy*") on the same data in one run.
 *
 * Workloads: the profiles of Tables I-VI of Anderson, Luke and Keller,
 * "Speedup of fuzzy clustering through stream processing on graphics
 * processing units", IEEE TFS 16(4), 2008 (points x clusters x dimensions),
 * then 10^7 x 32 x 16 and 10^8 x 8 x 8 in float32, and the latter again
 * with the device memory limited to 1 GiB so that the data is streamed
 * from host memory at every iteration.
 *
 * Time per iteration = (time stamp of iteration K2 - that of iteration K1) /
 * (K2 - K1) within one fit, the stamps taken by the progress callback
 * (called after each iteration's results are back on the host): setup,
 * upload, kernel loading and the first centre update are left out. The
 * hardware limit is one read of the data per iteration at the device's
 * theoretical memory bandwidth ("floor"); "of floor" is floor / measured.
 *
 * Then the k-means++ seeding (the default start) at 10^7 x 16 x 32: GPU,
 * CPU and the plain one-thread seeding of earlier versions.
 *
 * Environment: BENCH_FCM_ONLY = run the rows whose label starts with it;
 * BENCH_FCM_SEEDING = the seeding table alone;
 * BENCH_FCM_GPU_ONLY = time the GPU alone (CPU and competitor: n/a);
 * BENCH_FCM_LIMIT_MIB = the device memory the library may use in the rows
 * that set no limit of their own (for the paths taken when less is free);
 * BENCH_FCM_NO_SHAPE=1 = the fast kernel instead of the fixed-shape one,
 * BENCH_FCM_KEEP_EIGHTHS=0..8 = the share of its groups that keep U,
 * BENCH_FCM_NO_PIPELINE=1 = no pass queued ahead (dev/fcm_dev.h, set on the
 * GPU context);
 * HAZE_SKFUZZY_PATH = a folder holding the skfuzzy package;
 * HAZE_PYTHON = the Python interpreter (default python3). Without Python
 * and NumPy the competitor column reads n/a. The competitor runs on at most
 * SUB points and is scaled linearly to N (marked "~").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "fcm_dev.h"
#include "haze/haze.h"

/* Spherical clusters of the same size around c random centres (the paper's
 * workload): noise = sum of three uniforms, centred (Irwin-Hall, close to a
 * Gaussian and cheap enough for 10^9 values). */
static double *make_data(size_t n, size_t d, size_t c, unsigned seed) {
    double *x = malloc(n * d * sizeof *x), *mu = malloc(c * d * sizeof *mu);
    if (!x || !mu) {
        fprintf(stderr, "bench_fcm: out of memory for %zu x %zu points\n", n, d);
        exit(3);
    }
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
#define NEXT() (s ^= s << 13, s ^= s >> 7, s ^= s << 17, (double)(s >> 11) * 0x1.0p-53)
    for (size_t i = 0; i < c * d; i++) mu[i] = 20.0 * NEXT();
    for (size_t i = 0; i < n; i++) {
        const double *m = mu + (i % c) * d;
        for (size_t k = 0; k < d; k++) x[i * d + k] = m[k] + 2.0 * (NEXT() + NEXT() + NEXT() - 1.5);
    }
#undef NEXT
    free(mu);
    return x;
}

#define MAXK 64
static int stamp(void *arg, int iter, double objective, double change) {
    (void)objective, (void)change;
    if (iter >= 0 && iter < MAXK) ((double *)arg)[iter] = bench_now();
    return 0;
}

/* Seconds per iteration of haze_fcm_fit (x) or haze_fcm_fit (xf) on ctx,
 * between iterations k1 and k2 of one fit; < 0 on failure. */
static double haze_iter(haze_ctx *ctx, const double *x, const float *xf, size_t n, size_t d,
                        size_t c, int k1, int k2, int obj) {
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.tol = 0;
    o.stop = obj ? HAZE_FCM_STOP_OBJECTIVE : HAZE_FCM_STOP_MEMBERSHIP;
    o.seed = 1;
    o.max_iter = k2;
    double t[MAXK];
    o.progress = stamp;
    o.progress_arg = t;
    haze_fcm_result *res = NULL;
    int st = xf ? haze_fcm_fit(ctx, xf, HAZE_PRECISION_F32, n, d, &o, &res)
                : haze_fcm_fit(ctx, x, HAZE_PRECISION_F64, n, d, &o, &res);
    if (st) {
        fprintf(stderr, "bench_fcm: %s\n", haze_ctx_errmsg(ctx));
        return -1;
    }
    haze_fcm_result_free(res);
    return (t[k2] - t[k1]) / (k2 - k1);
}

static const char *py_script =
    "import sys, time\n"
    "import numpy as np\n"
    "path, iters = sys.argv[1], int(sys.argv[2])\n"
    "c, m = int(sys.argv[3]), float(sys.argv[4])\n"
    "skf = sys.argv[5] if len(sys.argv) > 5 else ''\n"
    "x = np.load(path)\n"
    "rng = np.random.RandomState(1)\n"
    "u0 = rng.rand(c, x.shape[0]); u0 /= u0.sum(axis=0)\n"
    "def run(k):\n"
    "    if skf:\n"
    "        import skfuzzy\n"
    "        t = time.perf_counter()\n"
    "        skfuzzy.cmeans(x.T, c, m, 0.0, k + 1, init=u0.copy())\n"
    "        return time.perf_counter() - t\n"
    "    # stand-in: the same iteration as skfuzzy.cmeans, vectorised with NumPy\n"
    "    t = time.perf_counter(); u = u0.copy(); x2 = (x * x).sum(axis=1)\n"
    "    for _ in range(k):\n"
    "        up = u\n"
    "        um = np.fmax(u, np.finfo(np.float64).eps) ** m\n"
    "        v = um @ x / um.sum(axis=1, keepdims=True)\n"
    "        d2 = np.fmax(x2[None, :] - 2.0 * (v @ x.T) + (v * v).sum(axis=1)[:, None], 0.0)\n"
    "        d = np.fmax(np.sqrt(d2), np.finfo(np.float64).eps)\n"
    "        jm = (um * d2).sum()\n"
    "        w = d ** (-2.0 / (m - 1.0)); u = w / w.sum(axis=0, keepdims=True)\n"
    "        du = np.linalg.norm(u - up)\n"
    "    return time.perf_counter() - t\n"
    "if skf: sys.path.insert(0, skf)\n"
    "t1 = run(1); t2 = run(1 + iters)\n"
    "print((t2 - t1) / iters if t2 > t1 else t2 / (1 + iters))\n";

static char py_path[256], npy_path[256];
static int have_python = -1;
static const char *skf;

static void py_setup(void) {
    skf = getenv("HAZE_SKFUZZY_PATH");
    if (skf && !*skf) skf = NULL;
    snprintf(py_path, sizeof py_path, "/tmp/haze-bench-fcm-%d.py", (int)getpid());
    snprintf(npy_path, sizeof npy_path, "/tmp/haze-bench-fcm-%d.npy", (int)getpid());
    FILE *f = fopen(py_path, "w");
    if (!f) {
        have_python = 0;
        return;
    }
    fputs(py_script, f);
    fclose(f);
    const char *py = getenv("HAZE_PYTHON") ? getenv("HAZE_PYTHON") : "python3";
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", py);
    have_python = system(cmd) == 0;
    if (have_python && skf) {
        snprintf(cmd, sizeof cmd,
                 "%s -c 'import sys; sys.path.insert(0, \"%s\"); import skfuzzy'"
                 " >/dev/null 2>&1",
                 py, skf);
        if (system(cmd) != 0) {
            fprintf(stderr,
                    "bench_fcm: HAZE_SKFUZZY_PATH=%s: skfuzzy does not import; using "
                    "the NumPy stand-in\n",
                    skf);
            skf = NULL;
        }
    }
}

/* Seconds per iteration of the Python competitor on the first `sub` points. */
static double py_iter(haze_ctx *ctx, const double *x, size_t sub, size_t d, size_t c, int iters) {
    if (!have_python) return -1;
    if (haze_table_write(ctx, npy_path, x, HAZE_PRECISION_F64, sub, d, NULL)) return -1;
    const char *py = getenv("HAZE_PYTHON") ? getenv("HAZE_PYTHON") : "python3";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s %s %d %zu 2.0 %s 2>/dev/null", py, py_path, npy_path, iters, c,
             skf ? skf : "");
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    double t = -1;
    if (fscanf(p, "%lf", &t) != 1) t = -1;
    pclose(p);
    remove(npy_path);
    return t;
}

static void fmt_time(char *buf, size_t len, double s, int approx) {
    if (s < 0)
        snprintf(buf, len, "n/a");
    else if (s < 1e-3)
        snprintf(buf, len, "%s%.1f us", approx ? "~" : "", s * 1e6);
    else if (s < 1)
        snprintf(buf, len, "%s%.2f ms", approx ? "~" : "", s * 1e3);
    else
        snprintf(buf, len, "%s%.2f s", approx ? "~" : "", s);
}

static void fmt_ratio(char *buf, size_t len, double a, double b) {
    if (a < 0 || b <= 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1fx", a / b);
}

typedef struct {
    const char *label;
    size_t n, c, d;
    int single;
    size_t limit; /* device memory limit (streaming), 0: none */
    int big;      /* large workload: GPU only, fewer CPU iterations */
    int obj;      /* MATLAB's stopping rule on the objective: no membership change computed */
} workload;

/* The seeding that haze used before greedy k-means++ on the device: plain
 * k-means++ on one thread, one pass over the data per centre (kept here
 * only as the "previous" column). */
static double old_kmeanspp(const float *x, size_t n, size_t d, size_t c, double *v) {
    double t0 = bench_now();
    double *dmin = malloc(n * sizeof *dmin);
    uint64_t s = 12345;
#define NEXT() (s ^= s << 13, s ^= s >> 7, s ^= s << 17, (double)(s >> 11) * 0x1.0p-53)
    size_t first = (size_t)(NEXT() * (double)n);
    for (size_t q = 0; q < d; q++) v[q] = x[first * d + q];
    for (size_t i = 0; i < n; i++) dmin[i] = INFINITY;
    for (size_t j = 1; j < c; j++) {
        const double *vl = v + (j - 1) * d;
        double tot = 0;
        for (size_t i = 0; i < n; i++) {
            double a = 0;
            for (size_t k = 0; k < d; k++) {
                double e = x[i * d + k] - vl[k];
                a += e * e;
            }
            if (a < dmin[i]) dmin[i] = a;
            tot += dmin[i];
        }
        double target = NEXT() * tot, acc = 0;
        size_t pick = n - 1;
        for (size_t i = 0; i < n; i++) {
            acc += dmin[i];
            if (acc > target && dmin[i] > 0) {
                pick = i;
                break;
            }
        }
        for (size_t q = 0; q < d; q++) v[j * d + q] = x[pick * d + q];
    }
#undef NEXT
    free(dmin);
    return bench_now() - t0;
}

/* Seconds of a one-iteration fit of xf on ctx from init (k-means++, or
 * the centres v0); the centres it ends with go to vout. */
static double fit1(haze_ctx *ctx, const float *xf, size_t n, size_t d, size_t c, const double *v0,
                   double *vout) {
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = (int)c;
    o.tol = 0;
    o.max_iter = 1;
    o.seed = 1;
    if (v0) {
        o.init = HAZE_FCM_INIT_CENTRES;
        o.init_data = v0;
    }
    haze_fcm_result *r = NULL;
    double t0 = bench_now();
    int st = haze_fcm_fit(ctx, xf, HAZE_PRECISION_F32, n, d, &o, &r);
    double t = bench_now() - t0;
    if (st) {
        fprintf(stderr, "bench_fcm: %s\n", haze_ctx_errmsg(ctx));
        return -1;
    }
    memcpy(vout, haze_fcm_result_centres(r), c * d * sizeof *vout);
    haze_fcm_result_free(r);
    return t;
}

/* The k-means++ seeding (the default start) at n x c x d in float32: on the
 * device, on the CPU (haze_dev_fcm_set_cpu_seed: the same centres), and the plain
 * one-thread seeding haze had before. Each seeding time is a fit of one
 * iteration from k-means++ less the same fit from given centres (best of 3). */
static void seeding_table(haze_ctx *gpu, haze_ctx *cpu, size_t n, size_t c, size_t d) {
    printf("\nk-means++ seeding (the default start), %zu x %zu clusters x %zu features, f32\n", n,
           c, d);
    double *x = make_data(n, d, c, 99);
    float *xf = malloc(n * d * sizeof *xf);
    double *va = malloc(c * d * sizeof *va), *vb = malloc(c * d * sizeof *vb);
    double *vc = malloc(c * d * sizeof *vc);
    if (!xf || !va || !vb || !vc) {
        fprintf(stderr, "bench_fcm: out of memory\n");
        exit(3);
    }
    for (size_t i = 0; i < n * d; i++) xf[i] = (float)x[i];
    free(x);
    double ta = 1e30, t0 = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        const double a = fit1(gpu, xf, n, d, c, NULL, va);
        const double z = fit1(gpu, xf, n, d, c, va, vc); /* the fit's own cost */
        if (a < 0 || z < 0) return;
        ta = a < ta ? a : ta;
        t0 = z < t0 ? z : t0;
    }
    haze_dev_fcm_set_cpu_seed(gpu, 1);
    const double b = fit1(gpu, xf, n, d, c, NULL, vb);
    haze_dev_fcm_set_cpu_seed(gpu, 0);
    if (b < 0) return;
    const double tg = ta - t0, tc = b - t0;
    (void)old_kmeanspp(xf, n, d, c, vc); /* warm the pages */
    double told = old_kmeanspp(xf, n, d, c, vc);
    printf("  haze GPU (greedy k-means++, %s)      %10.2f ms\n",
           memcmp(va, vb, c * d * sizeof *va) == 0 ? "the CPU's centres" : "CENTRES DIFFER",
           tg * 1e3);
    printf("  haze CPU, %2d threads (the same centres)          %10.2f ms\n", haze_ctx_threads(cpu),
           tc * 1e3);
    printf("  previous haze CPU seeding (plain, 1 thread)      %10.2f ms   (%.0fx the GPU)\n",
           told * 1e3, tg > 0 ? told / tg : 0);
    printf("  (a fit of one iteration from given centres: %.2f ms, left out)\n", t0 * 1e3);
    free(xf), free(va), free(vb), free(vc);
}

/* The kernel configuration forced on the GPU context (dev/fcm_dev.h) by
 * BENCH_FCM_NO_SHAPE=1, BENCH_FCM_KEEP_EIGHTHS=0..8, BENCH_FCM_NO_PIPELINE=1. */
static void gpu_switches(haze_ctx *gpu) {
    const char *e = getenv("BENCH_FCM_NO_SHAPE"), *k = getenv("BENCH_FCM_KEEP_EIGHTHS");
    if (e && *e == '1') haze_dev_fcm_set_shape(gpu, 0);
    if (k && *k >= '0' && *k <= '8' && !k[1]) haze_dev_fcm_set_keep_eighths(gpu, *k - '0');
    if ((e = getenv("BENCH_FCM_NO_PIPELINE")) && *e == '1') haze_dev_fcm_set_pipeline(gpu, 0);
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    haze_ctx_options co = haze_ctx_options_default();
    co.backend = HAZE_BACKEND_CPU;
    haze_ctx *cpu = NULL, *gpu = NULL;
    if (haze_ctx_new(&co, &cpu)) {
        fprintf(stderr, "bench_fcm: %s\n", haze_ctx_errmsg(cpu));
        return 3;
    }
    haze_device_info info = haze_device_info_init();
    if (haze_build_has_cuda() && haze_device_count() > 0) {
        gpu = bench_gpu_ctx(&co);
        if (gpu) haze_device_query(NULL, haze_ctx_device(gpu), &info);
        if (gpu) gpu_switches(gpu);
    }
    py_setup();
    const char *comp = !have_python ? "competitor" : skf ? "skfuzzy" : "numpy*";
    printf("fuzzy c-means, time per iteration (m = 2, Euclidean, tolerance 0)\n");
    printf("GPU: %s", gpu ? info.name : "none (GPU columns skipped)");
    if (gpu) printf(", %.0f GB/s theoretical", info.peak_bandwidth / 1e9);
    printf("\nCPU: haze CPU backend, %d threads\n", haze_ctx_threads(cpu));
    printf("competitor: %s\n\n",
           !have_python ? "n/a (no python3 with numpy)"
           : skf        ? "scikit-fuzzy cmeans (float64)"
                        : "numpy* = NumPy-vectorised reimplementation of skfuzzy's cmeans "
                          "iteration (float64), scikit-fuzzy not installed");
    const workload all[] = {
        {"Table I", 4096, 64, 4, 1, 0, 0, 0},
        {"Table II", 4096, 64, 32, 1, 0, 0, 0},
        {"Table III", 4096, 16, 128, 1, 0, 0, 0},
        {"Table IV", 64, 4, 4, 1, 0, 0, 0},
        {"Table IV", 1024, 16, 4, 1, 0, 0, 0},
        {"Table IV", 8192, 64, 4, 1, 0, 0, 0},
        {"Table V", 64, 4, 32, 1, 0, 0, 0},
        {"Table V", 1024, 16, 32, 1, 0, 0, 0},
        {"Table V", 8192, 64, 32, 1, 0, 0, 0},
        {"Table VI", 4096, 4, 128, 1, 0, 0, 0},
        {"Table VI", 40960, 16, 32, 1, 0, 0, 0},
        {"Table VI", 409600, 4, 8, 1, 0, 0, 0},
        {"Table VI f64", 409600, 4, 8, 0, 0, 0, 0},
        {"large", 10000000, 16, 32, 1, 0, 1, 0},
        {"large obj", 10000000, 16, 32, 1, 0, 1, 1},
        {"large", 100000000, 8, 8, 1, 0, 1, 0},
        {"large obj", 100000000, 8, 8, 1, 0, 1, 1},
        {"streamed", 100000000, 8, 8, 1, 1ull << 30, 1, 0},
    };
    printf("%-13s %10s %4s %4s %4s | %10s %10s %10s | %8s %9s | %10s %8s\n", "workload", "points",
           "C", "D", "type", "haze GPU", "haze CPU", comp, "CPU/GPU", "comp/GPU", "floor",
           "of floor");
    double *x = NULL;
    float *xf = NULL;
    size_t xn = 0, xd = 0, xc = 0;
    if (getenv("BENCH_FCM_SEEDING")) { /* the seeding table alone */
        if (gpu) seeding_table(gpu, cpu, 10000000, 16, 32);
        haze_ctx_free(gpu);
        haze_ctx_free(cpu);
        return 0;
    }
    const char *only = getenv("BENCH_FCM_ONLY"); /* rows whose label starts with it */
    const int gpu_only = getenv("BENCH_FCM_GPU_ONLY") != NULL;
    for (size_t w = 0; w < sizeof all / sizeof *all; w++) {
        const workload *L = &all[w];
        if (only && strncmp(L->label, only, strlen(only)) != 0) continue;
        if (L->big && (!gpu || quick)) {
            printf("%-13s %10zu %4zu %4zu %4s | skipped: %s\n", L->label, L->n, L->c, L->d,
                   L->single ? "f32" : "f64", quick ? "--quick" : "no GPU");
            continue;
        }
        /* The same data for consecutive workloads of the same shape. */
        if (!x || xn != L->n || xd != L->d || xc != L->c) {
            free(x);
            free(xf);
            x = make_data(L->n, L->d, L->c, (unsigned)w + 1);
            xf = malloc(L->n * L->d * sizeof *xf);
            if (!xf) {
                fprintf(stderr, "bench_fcm: out of memory\n");
                return 3;
            }
            for (size_t i = 0; i < L->n * L->d; i++) xf[i] = (float)x[i];
            xn = L->n, xd = L->d, xc = L->c;
        }
        const float *xs = L->single ? xf : NULL;
        int k1 = L->big ? 2 : 3, k2 = L->big ? 6 : 23;
        static double tc_prev = -1, tp_prev = -1;
        double tg = -1, tc, tp;
        int same = w > 0 && all[w - 1].n == L->n && all[w - 1].c == L->c && all[w - 1].d == L->d &&
                   all[w - 1].single == L->single;
        if (gpu) {
            const char *lim = getenv("BENCH_FCM_LIMIT_MIB");
            haze_ctx_set_device_memory_limit(gpu, L->limit ? L->limit
                                                  : lim    ? (size_t)strtoull(lim, NULL, 10) << 20
                                                           : 0);
            tg = haze_iter(gpu, x, xs, L->n, L->d, L->c, k1, k2, L->obj);
            haze_ctx_set_device_memory_limit(gpu, 0);
        }
        size_t sub = L->n < 100000 ? L->n : 100000;
        int approx = sub < L->n;
        if (gpu_only) { /* BENCH_FCM_GPU_ONLY: the GPU column alone, for kernel work */
            tc = tp = -1;
        } else if (same && L->big) { /* the CPU and the competitor do not stream: same times */
            tc = tc_prev;
            tp = tp_prev;
        } else {
            tc = haze_iter(cpu, x, xs, L->n, L->d, L->c, L->big ? 1 : k1, L->big ? 2 : k2, L->obj);
            tp = py_iter(cpu, x, sub, L->d, L->c, L->n < 10000 ? 20 : 5);
            if (tp > 0) tp *= (double)L->n / (double)sub;
        }
        tc_prev = tc;
        tp_prev = tp;
        char sg[32], sc[32], sp[32], r1[32], r2[32], fl[32], of[32];
        fmt_time(sg, sizeof sg, tg, 0);
        fmt_time(sc, sizeof sc, tc, 0);
        fmt_time(sp, sizeof sp, tp, approx);
        fmt_ratio(r1, sizeof r1, tc, tg);
        fmt_ratio(r2, sizeof r2, tp, tg);
        double bytes = (double)L->n * (double)L->d * (L->single ? 4.0 : 8.0);
        double floor_s = info.peak_bandwidth > 0 ? bytes / info.peak_bandwidth : -1;
        fmt_time(fl, sizeof fl, floor_s, 0);
        if (floor_s > 0 && tg > 0)
            snprintf(of, sizeof of, "%.0f%%", 100 * floor_s / tg);
        else
            snprintf(of, sizeof of, "-");
        printf("%-13s %10zu %4zu %4zu %4s | %10s %10s %10s | %8s %9s | %10s %8s\n", L->label, L->n,
               L->c, L->d, L->single ? "f32" : "f64", sg, sc, sp, r1, r2, fl, of);
        if (L->limit && tg > 0)
            printf("%-13s   (device memory limited to %zu MiB: %.1f GB of data streamed per "
                   "iteration at %.1f GB/s)\n",
                   "", L->limit >> 20, bytes / 1e9, bytes / tg / 1e9);
        fflush(stdout);
    }
    free(x);
    free(xf);
    if (gpu && !quick && !only) seeding_table(gpu, cpu, 10000000, 16, 32);
    printf("\nfloor: one read of the data at the theoretical memory bandwidth; ~: the "
           "competitor timed on %d points and scaled linearly;\nobj: stopping rule on the "
           "objective (MATLAB's), the others on the membership change (scikit-fuzzy's, the "
           "default),\nfor which the GPU keeps U(k-1) on the device in a share of the groups (2 c "
           "values of traffic per point) and recomputes it in the others.\n",
           100000);
    remove(py_path);
    haze_ctx_free(gpu);
    haze_ctx_free(cpu);
    return 0;
}
