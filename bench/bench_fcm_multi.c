/*
 * bench/bench_fcm_multi.c - fuzzy c-means over several GPUs of one host
 * (haze_fcm_options.devices; docs/fcm.md, "Several GPUs"): time per
 * iteration on 1, 2, 4 ... GPUs, the speed-up and parallel efficiency
 * against one GPU, and the share of the iteration spent in the parts'
 * exchange, in one run.
 *
 *   bench_fcm_multi [--n N] [--counts 1,2,4] [--iters K]
 *   bench_fcm_multi --streamed [--n N] [--gpus G] [--iters K] [--ref-iters K1]
 *   bench_fcm_multi --write-npy FILE [--n N]
 *
 * Data: N x 32 float32 points (default N = 4e8, 51 GB; 1e9, 128 GB with
 * --streamed) in 16 Gaussian-like blobs (each feature of a blob's point:
 * its centre plus the sum of three uniforms, centred, variance 1), made in
 * host memory on every CPU thread, from a counter-based generator: the
 * same data for any thread count. The fit: 16 clusters, m = 2, Euclidean,
 * tolerance 0 (a fixed number of iterations), started from given centres
 * (each blob's centre moved by up to 0.5 per feature), so runs compare.
 *
 * Time per iteration: (stamp of iteration K - stamp of iteration 2) / (K - 2)
 * from the progress callback (upload, the data check and the first passes
 * left out). Exchange per iteration: the seconds spent inside the parts'
 * all-gather over the same iterations (dev/fcm_dev.h,
 * haze_dev_fcm_exchange_seconds): "most" is the largest over the parts,
 * which includes waiting at the exchange for the slowest part (load
 * imbalance, and the exchange's own cost); "least" is the smallest, about
 * the exchange alone (the slowest part hardly waits); "share" is most /
 * time per iteration. Each row also gives the largest relative difference
 * of its centres from the one-GPU run's (to rounding: docs/fcm.md).
 *
 * --counts: the GPU counts to run (default 1, 2, 4, 8, as many as there
 * are, and all of them), each on devices 0 .. count - 1.
 * --streamed: the data larger than one GPU: one GPU streams it from host
 * memory at every pass (docs/fcm.md, "streamed"), against G GPUs (default
 * 4, or all there are) holding a share each. The one-GPU run is limited to
 * --ref-iters iterations (default 3: about 4 passes over the data from host
 * memory), the G-GPU run has --iters (default 12) and a second G-GPU fit
 * of --ref-iters iterations gives the centres compared with the one-GPU's.
 * --cpu: the same on the CPU backend, a count being parts on the CPU (a
 * check of this program where there is no GPU; no exchange on a device).
 * --write-npy FILE: writes the data (N x 32 float32 .npy) and, next to it,
 * FILE.centres.csv (the start) and exits: the input of bench/mpi_gpus.sh.
 *
 * Memory: the data (N x 128 bytes) in host memory, plus what the library
 * takes per fit; run on a host with room for it (--n smaller otherwise).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "fcm_dev.h"
#include "haze/haze.h"

enum { D = 32, C = 16, MAXG = 64 };

/* ---- the data ----------------------------------------------------------- */

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Centre j's feature k, in [0, 20). */
static double blob_centre(size_t j, size_t k) {
    return 20.0 * (double)(mix(0x5eedULL + (j * D + k) * 0x9e3779b97f4a7c15ULL) >> 11) * 0x1.0p-53;
}

typedef struct gen {
    float *x;
    size_t n, i0, i1;
    const double *mu;
} gen;

/* Rows [i0, i1): point i in blob i mod C, each value its centre plus the sum
 * of three 21-bit uniforms of one hash of (i, k), centred (variance 1). */
static void *gen_rows(void *arg) {
    gen *g = arg;
    for (size_t i = g->i0; i < g->i1; i++) {
        const double *m = g->mu + (i % C) * D;
        for (size_t k = 0; k < D; k++) {
            const uint64_t h = mix((i * D + k + 1) * 0xd1b54a32d192ed03ULL);
            const double u = (double)(h & 0x1fffff) + (double)((h >> 21) & 0x1fffff) +
                             (double)((h >> 42) & 0x1fffff);
            g->x[i * D + k] = (float)(m[k] + 2.0 * (u * 0x1.0p-21 - 1.5));
        }
    }
    return NULL;
}

static float *make_data(size_t n) {
    float *x = malloc(n * D * sizeof *x);
    double mu[C * D];
    if (!x) {
        fprintf(stderr, "bench_fcm_multi: out of memory for %zu x %d float32 points (%.1f GB)\n", n,
                D, (double)n * D * 4 / 1e9);
        exit(3);
    }
    for (size_t j = 0; j < C; j++)
        for (size_t k = 0; k < D; k++) mu[j * D + k] = blob_centre(j, k);
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1) nt = 1;
    if (nt > 256) nt = 256;
    pthread_t th[256];
    gen g[256];
    for (long t = 0; t < nt; t++) {
        g[t].x = x, g[t].n = n, g[t].mu = mu;
        g[t].i0 = (size_t)((unsigned long long)t * n / (unsigned long long)nt);
        g[t].i1 = (size_t)((unsigned long long)(t + 1) * n / (unsigned long long)nt);
        if (pthread_create(&th[t], NULL, gen_rows, &g[t])) {
            gen_rows(&g[t]);
            g[t].n = 0; /* not joined */
        }
    }
    for (long t = 0; t < nt; t++)
        if (g[t].n) pthread_join(th[t], NULL);
    return x;
}

/* The start: each blob's centre moved by up to 0.5 per feature. */
static void start_centres(double *v) {
    for (size_t j = 0; j < C; j++)
        for (size_t k = 0; k < D; k++)
            v[j * D + k] =
                blob_centre(j, k) + ((double)(mix(0x57a7ULL + j * D + k) >> 11) * 0x1.0p-53 - 0.5);
}

/* ---- one fit ------------------------------------------------------------ */

typedef struct stamps {
    haze_ctx *ctx;
    int max;
    double *t, *most, *least; /* after iteration k: [k] */
    unsigned long *calls;
} stamps;

static int stamp(void *arg, int iter, double objective, double change) {
    stamps *s = arg;
    (void)objective, (void)change;
    if (iter >= 0 && iter <= s->max) {
        s->t[iter] = bench_now();
        haze_dev_fcm_exchange_seconds(s->ctx, &s->calls[iter], &s->most[iter], &s->least[iter]);
    }
    return 0;
}

typedef struct run {
    int ok;
    double iter_s, most_s, least_s, total_s; /* per iteration; the whole fit */
    double calls;                            /* exchanges per iteration */
    double v[C * D];
} run;

/* A fit of `iters` iterations on devices 0 .. gpus - 1 (one: the plain fit
 * on device 0), timed from iteration k1 on. */
static run fit(haze_ctx *ctx, const float *x, size_t n, int gpus, int iters, int k1) {
    run out;
    memset(&out, 0, sizeof out);
    int dev[MAXG];
    for (int k = 0; k < gpus && k < MAXG; k++) dev[k] = k;
    double v0[C * D];
    start_centres(v0);
    stamps s = {ctx,
                iters,
                calloc((size_t)iters + 1, sizeof(double)),
                calloc((size_t)iters + 1, sizeof(double)),
                calloc((size_t)iters + 1, sizeof(double)),
                calloc((size_t)iters + 1, sizeof(unsigned long))};
    if (!s.t || !s.most || !s.least || !s.calls) {
        fprintf(stderr, "bench_fcm_multi: out of memory\n");
        exit(3);
    }
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = C;
    o.tol = 0;
    o.max_iter = iters;
    o.init = HAZE_FCM_INIT_CENTRES;
    o.init_data = v0;
    o.progress = stamp;
    o.progress_arg = &s;
    if (gpus > 1) {
        o.devices = haze_ctx_backend(ctx) == HAZE_BACKEND_CUDA ? dev : NULL;
        o.device_count = gpus;
    }
    haze_fcm_result *r = NULL;
    const double t0 = bench_now();
    const int st = haze_fcm_fit(ctx, x, HAZE_PRECISION_F32, n, D, &o, &r);
    out.total_s = bench_now() - t0;
    if (st) {
        fprintf(stderr, "bench_fcm_multi: %d GPU(s): %s\n", gpus, haze_ctx_errmsg(ctx));
    } else if (haze_fcm_result_iterations(r) == iters && iters > k1) {
        out.ok = 1;
        out.iter_s = (s.t[iters] - s.t[k1]) / (iters - k1);
        out.most_s = (s.most[iters] - s.most[k1]) / (iters - k1);
        out.least_s = (s.least[iters] - s.least[k1]) / (iters - k1);
        out.calls = (double)(s.calls[iters] - s.calls[k1]) / (iters - k1);
        memcpy(out.v, haze_fcm_result_centres(r), sizeof out.v);
    }
    haze_fcm_result_free(r);
    free(s.t), free(s.most), free(s.least), free(s.calls);
    return out;
}

static double max_rel_diff(const double *a, const double *b) {
    double worst = 0;
    for (size_t k = 0; k < C * D; k++) {
        const double e = fabs(a[k] - b[k]) / (fabs(a[k]) > 1e-300 ? fabs(a[k]) : 1);
        if (e > worst) worst = e;
    }
    return worst;
}

static void print_row(int gpus, const run *r, const run *one) {
    if (!r->ok) {
        printf("%5d | failed\n", gpus);
        return;
    }
    char sp[16] = "-", ef[16] = "-", df[16] = "-", ex[64] = "-";
    if (one && one->ok) {
        snprintf(sp, sizeof sp, "%.2fx", one->iter_s / r->iter_s);
        snprintf(ef, sizeof ef, "%.0f%%", 100 * one->iter_s / r->iter_s / gpus);
        snprintf(df, sizeof df, "%.1e", max_rel_diff(one->v, r->v));
    }
    if (gpus > 1)
        snprintf(ex, sizeof ex, "%8.3f %8.3f %5.1f%% %4.1f", r->most_s * 1e3, r->least_s * 1e3,
                 100 * r->most_s / r->iter_s, r->calls);
    printf("%5d | %10.3f %8s %6s | %-29s | %8s | %8.1f\n", gpus, r->iter_s * 1e3, sp, ef, ex, df,
           r->total_s);
    fflush(stdout);
}

static void header(void) {
    printf("%5s | %10s %8s %6s | %-29s | %8s | %8s\n", "GPUs", "ms/iter", "speed-up", "eff.",
           "exchange per iteration", "centres", "fit s");
    printf("%5s | %10s %8s %6s | %8s %8s %6s %4s | %8s | %8s\n", "", "", "vs 1", "", "most ms",
           "least ms", "share", "n", "rel.diff", "(all)");
}

static int parse_counts(const char *s, int *counts, int max) {
    int k = 0;
    while (*s && k < max) {
        char *e;
        long v = strtol(s, &e, 10);
        if (e == s || v < 1 || v > MAXG) return -1;
        counts[k++] = (int)v;
        s = *e == ',' ? e + 1 : e;
        if (*e && *e != ',') return -1;
    }
    return k;
}

static int usage(void) {
    fprintf(stderr, "usage: bench_fcm_multi [--n N] [--counts 1,2,4] [--iters K]\n"
                    "       bench_fcm_multi --streamed [--n N] [--gpus G] [--iters K] "
                    "[--ref-iters K1]\n"
                    "       bench_fcm_multi --write-npy FILE [--n N]\n");
    return 1;
}

int main(int argc, char **argv) {
    size_t n = 0;
    int iters = 12, ref_iters = 3, streamed = 0, gpus_big = 0, ncounts = 0, cpu = 0;
    int counts[16];
    const char *npy = NULL;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(argv[a], "--n") == 0 && v) {
            n = (size_t)strtod(v, NULL), a++;
        } else if (strcmp(argv[a], "--counts") == 0 && v) {
            if ((ncounts = parse_counts(v, counts, 16)) <= 0) return usage();
            a++;
        } else if (strcmp(argv[a], "--iters") == 0 && v) {
            iters = atoi(v), a++;
        } else if (strcmp(argv[a], "--ref-iters") == 0 && v) {
            ref_iters = atoi(v), a++;
        } else if (strcmp(argv[a], "--gpus") == 0 && v) {
            gpus_big = atoi(v), a++;
        } else if (strcmp(argv[a], "--cpu") == 0) {
            cpu = 1;
        } else if (strcmp(argv[a], "--streamed") == 0) {
            streamed = 1;
        } else if (strcmp(argv[a], "--write-npy") == 0 && v) {
            npy = v, a++;
        } else {
            return usage();
        }
    }
    if (!n) n = streamed ? 1000000000 : 400000000;
    if (iters < 3 || ref_iters < 2 || n < C) return usage();
    double t0 = bench_now();
    if (npy) { /* the data and the start, for bench/mpi_gpus.sh */
        float *x = make_data(n);
        haze_ctx *ctx = NULL;
        haze_ctx_options co = haze_ctx_options_default();
        co.backend = HAZE_BACKEND_CPU;
        char path[4096];
        double v0[C * D];
        start_centres(v0);
        snprintf(path, sizeof path, "%s.centres.csv", npy);
        int st = haze_ctx_new(&co, &ctx);
        if (!st) st = haze_table_write(ctx, npy, x, HAZE_PRECISION_F32, n, D, NULL);
        if (!st) st = haze_table_write(ctx, path, v0, HAZE_PRECISION_F64, C, D, NULL);
        if (st) fprintf(stderr, "bench_fcm_multi: %s\n", haze_ctx_errmsg(ctx));
        haze_ctx_free(ctx);
        free(x);
        return st ? 3 : 0;
    }
    int have = haze_build_has_cuda() ? haze_device_count() : 0;
    if (have < 1 && !cpu) {
        printf("bench_fcm_multi: no CUDA device (a build with CUDA on a GPU host is needed)\n");
        return 0;
    }
    haze_ctx_options co = haze_ctx_options_default();
    co.device = 0;
    haze_ctx *ctx = NULL;
    haze_device_info info = haze_device_info_init();
    if (cpu) {
        co.backend = HAZE_BACKEND_CPU;
        if (haze_ctx_new(&co, &ctx)) haze_ctx_free(ctx), ctx = NULL;
        have = 4;
    } else {
        ctx = bench_gpu_ctx(&co);
        haze_device_query(NULL, 0, &info);
    }
    if (!ctx) {
        fprintf(stderr, "bench_fcm_multi: no context on device 0\n");
        return 3;
    }
    printf("fuzzy c-means over several GPUs: %zu x %d float32 (%.1f GB), %d clusters, m = 2, "
           "Euclidean, tolerance 0, from given centres\n",
           n, D, (double)n * D * 4 / 1e9, C);
    if (cpu)
        printf("host: no GPU used: each count is that many parts on the CPU (--cpu)\n");
    else
        printf("host: %d CUDA device(s), device 0: %s (%.1f GB)\n", have, info.name,
               (double)info.total_mem / 1e9);
    float *x = make_data(n);
    printf("data made in %.1f s\n\n", bench_now() - t0);
    if (!streamed) {
        if (!ncounts) { /* 1, 2, 4, 8 ... and all */
            for (int g = 1; g <= have && ncounts < 15; g *= 2) counts[ncounts++] = g;
            if (counts[ncounts - 1] != have) counts[ncounts++] = have;
        }
        printf("time per iteration over iterations 2 to %d\n", iters);
        header();
        run one;
        memset(&one, 0, sizeof one);
        for (int k = 0; k < ncounts; k++) {
            if (counts[k] > have) {
                printf("%5d | skipped: %d device(s) here\n", counts[k], have);
                continue;
            }
            const run r = fit(ctx, x, n, counts[k], iters, 2);
            if (counts[k] == 1) one = r;
            print_row(counts[k], &r, counts[k] == 1 ? NULL : &one);
        }
    } else {
        const int g = gpus_big ? gpus_big : have < 4 ? have : 4;
        if (g > have || g < 2) {
            printf("--streamed: %d GPUs asked for, %d here\n", g, have);
            free(x);
            haze_ctx_free(ctx);
            return g > have ? 3 : 0;
        }
        printf("data larger than one GPU: one GPU streaming it from host memory (%d "
               "iterations, timed from 1) against %d GPUs (%d iterations, timed from 2)\n",
               ref_iters, g, iters);
        header();
        const run one = fit(ctx, x, n, 1, ref_iters, 1);
        print_row(1, &one, NULL);
        run many = fit(ctx, x, n, g, iters, 2);
        if (ref_iters != iters) { /* the centres after as many iterations as the one GPU's */
            const run check = fit(ctx, x, n, g, ref_iters, 1);
            memcpy(many.v, check.v, sizeof many.v);
            if (!check.ok) many.ok = 0;
        }
        print_row(g, &many, &one);
    }
    printf("\nmost: the largest time inside the exchange over the parts (waiting for the slowest "
           "part included); least: the smallest (about the exchange alone);\nshare: most / time "
           "per iteration; n: all-gathers per iteration; centres: largest relative difference from "
           "the one-GPU run's "
           "centres after the same iterations;\nfit s: the whole fit (upload, data check, every "
           "iteration).\n");
    free(x);
    haze_ctx_free(ctx);
    return 0;
}
