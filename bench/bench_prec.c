/*
 * bench/bench_prec.c - speed of the rounding-error analyser (haze prec)
 * next to Gappa 1.4.1 (run as a program when `gappa` is on the PATH),
 * in one run:
 *   1. analysis time per benchmark script (the FPTaylor set and the paper's
 *      fixed-point example), haze's bound next to Gappa's;
 *   2. the filter of Linderman et al., CGO 2010, Sec. 3.3 unrolled 10, 100,
 *      300 and 1000 steps, interval and affine engines;
 *   3. bisection throughput, sub-boxes per second, of the interval engine on
 *      the CPU threads and on the GPU (double intervals), with the bound
 *      each gives.
 * Without a GPU the GPU columns read "-". Usage: bench_prec [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "haze/haze.h"

#ifndef HAZE_SOURCE_DIR
#define HAZE_SOURCE_DIR "."
#endif

static double bound(const haze_prec_result *r) {
    double a = haze_prec_result_goal(r, 0)->lo < 0 ? -haze_prec_result_goal(r, 0)->lo
                                                   : haze_prec_result_goal(r, 0)->lo;
    double b = haze_prec_result_goal(r, 0)->hi < 0 ? -haze_prec_result_goal(r, 0)->hi
                                                   : haze_prec_result_goal(r, 0)->hi;
    return a > b ? a : b;
}

/* Gappa's time and bound (largest magnitude of its first result), or -1. */
static double gappa(const char *path, double *gbound) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "gappa '%s' 2>&1", path);
    double t0 = bench_now();
    FILE *fp = popen(cmd, "r");
    if (!fp) return -1;
    char line[4096];
    int found = 0;
    *gbound = -1;
    while (fgets(line, sizeof line, fp)) {
        char *b = strstr(line, " in [");
        if (!b || found) continue;
        /* "[-a {-x, ...}, b {y, ...}]": take the decimal values in braces */
        char *p1 = strchr(b, '{'), *p2 = p1 ? strchr(p1 + 1, '{') : NULL;
        if (!p1 || !p2) continue;
        double x = strtod(p1 + 1, NULL), y = strtod(p2 + 1, NULL);
        x = x < 0 ? -x : x;
        y = y < 0 ? -y : y;
        *gbound = x > y ? x : y;
        found = 1;
    }
    int st = pclose(fp);
    double t = bench_now() - t0;
    return st == 0 && found ? t : -1;
}

static int have_gappa(void) {
    return system("gappa --version >/dev/null 2>&1") == 0;
}

static haze_prec_result *run(haze_ctx *ctx, const char *path, haze_prec_engine e, const char *var,
                             long n, double *secs) {
    haze_prec_script *s = NULL;
    haze_prec_result *r = NULL;
    if (haze_prec_load(ctx, path, NULL, &s)) {
        fprintf(stderr, "bench_prec: %s\n", haze_ctx_errmsg(ctx));
        return NULL;
    }
    if (var) { /* throughput of the grid alone: no refinement */
        haze_prec_set_bisect(ctx, s, var, n);
        haze_prec_set_refine(ctx, s, 0);
    }
    double t0 = bench_now();
    if (haze_prec_analyse(ctx, s, e, &r)) fprintf(stderr, "bench_prec: %s\n", haze_ctx_errmsg(ctx));
    *secs = bench_now() - t0;
    haze_prec_free(s);
    return r;
}

int main(int argc, char **argv) {
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    haze_ctx *cpu = NULL, *gpu = NULL;
    if (haze_ctx_new(&o, &cpu)) return 1;
    if (haze_device_count() > 0) {
        gpu = bench_gpu_ctx(&o);
    }
    int g = have_gappa();
    printf("haze prec benchmark: %d CPU threads, GPU %s, gappa %s\n\n", haze_ctx_threads(cpu),
           gpu ? "yes" : "no", g ? "found" : "not found (its columns read -)");

    static const char *names[] = {"carbonGas", "doppler1",     "himmilbeau", "jetEngine",
                                  "kepler0",   "predatorPrey", "rigidBody1", "rigidBody2",
                                  "sine",      "sineOrder3",   "sqroot",     "turbine1",
                                  "turbine3",  "verhulst"};
    printf("1. analysis time per script (haze: both engines, default refinement)\n");
    printf("%-14s %12s %12s %12s %12s %9s\n", "script", "haze s", "haze bound", "gappa s",
           "gappa bound", "time g/h");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/data/prec/bench/%s.g", HAZE_SOURCE_DIR, names[i]);
        double t, gb = -1, gt = -1;
        haze_prec_result *r = run(cpu, path, HAZE_PREC_BOTH, NULL, 1, &t);
        if (!r) continue;
        if (g) gt = gappa(path, &gb);
        if (gt >= 0)
            printf("%-14s %12.4f %12.4g %12.4f %12.4g %9.1f\n", names[i], t, bound(r), gt, gb,
                   gt / t);
        else
            printf("%-14s %12.4f %12.4g %12s %12s %9s\n", names[i], t, bound(r), "-", "-", "-");
        haze_prec_result_free(r);
    }

    printf("\n2. the filter y_n = x_n + c1 y_(n-1) - 0.5 y_(n-2), 16 fractional bits, unrolled\n");
    printf("%-8s %12s %12s %12s %12s %12s\n", "steps", "ia s", "ia bound", "aa s", "aa bound",
           "gappa s");
    static const int steps[] = {10, 100, 300, 1000};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        if (quick && steps[i] > 300) break;
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/prec/iir_stable_%d.g", HAZE_SOURCE_DIR, steps[i]);
        double ti, ta, gb, gt = -1;
        haze_prec_result *ri = run(cpu, path, HAZE_PREC_IA, NULL, 1, &ti);
        haze_prec_result *ra = run(cpu, path, HAZE_PREC_AA, NULL, 1, &ta);
        if (!ri || !ra) return 1;
        if (g && steps[i] <= 10) gt = gappa(path, &gb); /* Gappa needs seconds at 30 already */
        char gs[32] = "-";
        if (gt >= 0) snprintf(gs, sizeof gs, "%.3f", gt);
        printf("%-8d %12.4f %12.4g %12.4f %12.4g %12s\n", steps[i], ti, bound(ri), ta, bound(ra),
               gs);
        haze_prec_result_free(ri);
        haze_prec_result_free(ra);
    }

    printf("\n3. bisection throughput, interval engine, doppler1 split along T\n");
    printf("%-10s %12s %14s %12s %12s %14s %12s %8s\n", "sub-boxes", "cpu s", "cpu boxes/s",
           "cpu bound", "gpu s", "gpu boxes/s", "gpu bound", "gpu/cpu");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/prec/bench/doppler1.g", HAZE_SOURCE_DIR);
    static const long ns[] = {1000, 10000, 100000, 1000000};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        double tc = -1, tg = -1;
        haze_prec_result *rc = NULL, *rg = NULL;
        int cpu_too = ns[i] <= (quick ? 1000 : gpu ? 100000 : 10000);
        if (cpu_too) rc = run(cpu, path, HAZE_PREC_IA, "T_m", ns[i], &tc);
        if (gpu) rg = run(gpu, path, HAZE_PREC_IA, "T_m", ns[i], &tg);
        if (!rc && !rg) continue;
        printf("%-10ld", ns[i]);
        if (rc)
            printf(" %12.4f %14.4g %12.4g", tc, ns[i] / tc, bound(rc));
        else
            printf(" %12s %14s %12s", "-", "-", "-");
        if (rg)
            printf(" %12.4f %14.4g %12.4g", tg, ns[i] / tg, bound(rg));
        else
            printf(" %12s %14s %12s", "-", "-", "-");
        if (rc && rg)
            printf(" %8.1f\n", tc / tg);
        else
            printf(" %8s\n", "-");
        haze_prec_result_free(rc);
        haze_prec_result_free(rg);
    }
    printf("\nLimit: each sub-box runs the script's ~%d interval operations (4-8 directed\n"
           "roundings each); the GPU rate is bounded by its FP64 rate divided by that count.\n"
           "CPU boxes use the MPFR engine (160-bit intervals), GPU boxes double intervals.\n",
           40);
    haze_ctx_free(gpu);
    haze_ctx_free(cpu);
    return 0;
}
