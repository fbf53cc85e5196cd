/*
 * bench/bench_multi.c - batch work over several GPUs of one host, on 1, 2,
 * 4, ... and all the devices present, in one run: the speed-up over one GPU
 * of
 *   - MATLAB's tipper over a batch of rows, rows per second: (a) the rows
 *     resident on the GPUs, each device's slice on that device, evaluated
 *     by haze_fis_eval_device on each device's part of a context over the
 *     set (haze_ctx_part), one thread per device, as a program with its
 *     data already on the GPUs does; (b) from host arrays, one
 *     haze_fis_eval on the context over the set (the library cuts the rows
 *     into a slice per device);
 *   - FIRE on 3840x2160 frames, frames per second: (a) a set of frames
 *     resident on each device, the fast kernel on each (weak scaling: the
 *     same frames per device); (b) host frames through haze_edge_run, a
 *     detector per device taking the next frame, as `haze --gpus all edge`
 *     does.
 * The fixed cost of a resident call (4096 rows a device, every device at
 * once) is printed under the rows' table. Each time is the best of a few
 * runs after a warm-up. The host columns
 * check that every set of GPUs gives the bits of one GPU ("same"). Without
 * a GPU it says so and exits 0.
 *
 * usage: bench_multi [--quick] [--rows N]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "core/rng.h"
#include "haze/haze.h"
#ifdef HAZE_HAVE_CUDA
#include <cuda_runtime.h>

#include "edge_dev.h"
#endif

#ifdef HAZE_HAVE_CUDA

#define MAXD 64

enum { WIDTH = 3840, HEIGHT = 2160, REPS = 3, DFRAMES = 4 };

/* One device's share of a timed step. */
typedef struct job {
    haze_ctx *ctx; /* the device's part of the context over the set */
    int device;
    haze_fis *fis;
    double *din; /* resident rows */
    double *dout;
    size_t n;
    haze_edge *fire;
    uint8_t *fin[DFRAMES], *fout[DFRAMES]; /* resident frames */
    int frames;
    haze_image **hin, **hout; /* host frames, shared */
    atomic_int *next;
    int nhost;
    int st;
    char msg[512];
} job;

static void fail_job(job *j) {
    snprintf(j->msg, sizeof j->msg, "device %d: %s", j->device, haze_ctx_errmsg(j->ctx));
}

static void *fis_resident(void *arg) {
    job *j = arg;
    j->st = haze_fis_eval_device(j->ctx, j->fis, j->din, j->n, j->dout, NULL);
    if (j->st) fail_job(j);
    return NULL;
}

static void *fire_resident(void *arg) {
    job *j = arg;
    for (int k = 0; k < j->frames && !j->st; k++)
        j->st = haze_dev_edge_fire_device(j->ctx, j->fire, HAZE_EDGE_FAST, j->fin[k % DFRAMES],
                                          j->fout[k % DFRAMES], NULL, WIDTH, HEIGHT);
    if (!j->st && cudaStreamSynchronize((cudaStream_t)haze_dev_edge_stream(j->ctx)) != cudaSuccess)
        j->st = HAZE_ERR_CUDA;
    if (j->st) fail_job(j);
    return NULL;
}

static void *fire_host(void *arg) {
    job *j = arg;
    for (;;) {
        int i = atomic_fetch_add(j->next, 1);
        if (i >= j->nhost) break;
        if ((j->st = haze_edge_run(j->ctx, j->fire, HAZE_EDGE_FAST, j->hin[i], j->hout[i]))) {
            fail_job(j);
            break;
        }
    }
    return NULL;
}

/* Runs fn on every job at once (a thread per device; this one runs the
 * first); seconds, or -1 when one failed (its message printed). */
static double run_jobs(job *jobs, int D, void *(*fn)(void *)) {
    pthread_t th[MAXD];
    int started[MAXD] = {0};
    double t0 = bench_now();
    for (int k = 1; k < D; k++) started[k] = pthread_create(&th[k], NULL, fn, &jobs[k]) == 0;
    fn(&jobs[0]);
    for (int k = 1; k < D; k++) {
        if (started[k])
            pthread_join(th[k], NULL);
        else
            fn(&jobs[k]);
    }
    double t = bench_now() - t0;
    for (int k = 0; k < D; k++)
        if (jobs[k].st) {
            fprintf(stderr, "bench_multi: %s\n", jobs[k].msg);
            return -1;
        }
    return t;
}

/* The best of REPS runs after a warm-up. */
static double best_jobs(job *jobs, int D, void *(*fn)(void *)) {
    if (run_jobs(jobs, D, fn) < 0) return -1;
    double best = 1e300;
    for (int r = 0; r < REPS; r++) {
        double t = run_jobs(jobs, D, fn);
        if (t < 0) return -1;
        if (t < best) best = t;
    }
    return best;
}

/* A context over devices 0 .. D - 1 (one device: a plain context). */
static haze_ctx *set_ctx(int D) {
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CUDA;
    if (D > 1)
        o.device_count = D;
    else
        o.device = 0;
    haze_ctx *ctx = NULL;
    if (haze_ctx_new(&o, &ctx)) {
        fprintf(stderr, "bench_multi: %d GPUs: %s\n", D, haze_ctx_errmsg(ctx));
        haze_ctx_free(ctx);
        return NULL;
    }
    return ctx;
}

static void fill_frame(uint8_t *p, haze__rng *r) {
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) {
            int v = ((x / 37 + y / 23) % 3) * 80 + (x * 40) / WIDTH;
            v += (int)haze__rng_below(r, 24) - 12;
            p[(size_t)y * WIDTH + (size_t)x] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
        }
}

static void speedup(char *buf, size_t cap, double rate, double base) {
    if (rate > 0 && base > 0)
        snprintf(buf, cap, "%.2fx", rate / base);
    else
        snprintf(buf, cap, "-");
}

int main(int argc, char **argv) {
    const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    const int N = haze_device_count() < MAXD ? haze_device_count() : MAXD;
    if (N < 1) {
        printf("bench_multi: no GPU here: nothing to time\n");
        return 0;
    }
    int sets[MAXD], ns = 0;
    for (int D = 1; D < N; D *= 2) sets[ns++] = D;
    sets[ns++] = N;
    haze_device_info di = haze_device_info_init();
    haze_device_query(NULL, 0, &di);
    size_t n = quick ? ((size_t)4 << 20) : ((size_t)32 << 20);
    for (int a = 1; a + 1 < argc; a++) /* --rows N: a longer batch */
        if (strcmp(argv[a], "--rows") == 0) n = (size_t)strtod(argv[a + 1], NULL);
    if (n < 1) n = 1;
    const int dframes = quick ? 100 : 1000, nhost = quick ? 16 : 64;
    printf("Work over several GPUs of one host: %d x %s\n\n", N, di.name);

    /* the rows, the one-GPU outputs kept to compare */
    haze_ctx *host = set_ctx(1);
    if (!host) return 3;
    haze_fis *f = NULL;
    if (haze_fis_parse(host, bench_tipper_fis, "tipper", &f)) {
        fprintf(stderr, "bench_multi: %s\n", haze_ctx_errmsg(host));
        return 3;
    }
    double *in = malloc(sizeof(double) * 2 * n), *out = malloc(sizeof(double) * n),
           *ref = malloc(sizeof(double) * n);
    haze_image **hin = calloc((size_t)nhost, sizeof *hin),
               **hout = calloc((size_t)nhost, sizeof *hout),
               **href = calloc((size_t)nhost, sizeof *href);
    if (!in || !out || !ref || !hin || !hout || !href) {
        fprintf(stderr, "bench_multi: out of memory\n");
        return 3;
    }
    haze__rng r;
    haze__rng_seed(&r, 3);
    for (size_t i = 0; i < 2 * n; i++) in[i] = 10.0 * haze__rng_uniform(&r);
    for (int i = 0; i < nhost; i++) {
        if (haze_image_new(host, WIDTH, HEIGHT, &hin[i]) ||
            haze_image_new(host, WIDTH, HEIGHT, &hout[i]) ||
            haze_image_new(host, WIDTH, HEIGHT, &href[i])) {
            fprintf(stderr, "bench_multi: out of memory for frames\n");
            return 3;
        }
        fill_frame(hin[i]->data, &r);
    }
    uint8_t *frame0 = malloc((size_t)WIDTH * HEIGHT);
    fill_frame(frame0, &r);

    double rate[4][MAXD], fixed[MAXD];
    int same_rows[MAXD], same_frames[MAXD];
    for (int s = 0; s < ns; s++) {
        const int D = sets[s];
        haze_ctx *ctx = set_ctx(D);
        if (!ctx) return 3;
        job jobs[MAXD];
        memset(jobs, 0, sizeof jobs);
        atomic_int next;
        for (int k = 0; k < D; k++) {
            job *j = &jobs[k];
            j->ctx = haze_ctx_part(ctx, k);
            j->device = haze_ctx_device(j->ctx);
            j->fis = f;
            /* device k's slice of the rows, resident there */
            const size_t a = n / (size_t)D * (size_t)k, e = k == D - 1 ? n : a + n / (size_t)D;
            j->n = e - a;
            cudaSetDevice(j->device);
            if (cudaMalloc((void **)&j->din, sizeof(double) * 2 * j->n) != cudaSuccess ||
                cudaMalloc((void **)&j->dout, sizeof(double) * j->n) != cudaSuccess ||
                cudaMemcpy((void *)j->din, in + 2 * a, sizeof(double) * 2 * j->n,
                           cudaMemcpyHostToDevice) != cudaSuccess) {
                fprintf(stderr, "bench_multi: device %d: no room for %zu rows\n", j->device, j->n);
                return 3;
            }
            for (int q = 0; q < DFRAMES; q++) {
                if (cudaMalloc((void **)&j->fin[q], (size_t)WIDTH * HEIGHT) != cudaSuccess ||
                    cudaMalloc((void **)&j->fout[q], (size_t)WIDTH * HEIGHT) != cudaSuccess ||
                    cudaMemcpy(j->fin[q], frame0, (size_t)WIDTH * HEIGHT, cudaMemcpyHostToDevice) !=
                        cudaSuccess) {
                    fprintf(stderr, "bench_multi: device %d: no room for frames\n", j->device);
                    return 3;
                }
            }
            if (haze_edge_new(j->ctx, NULL, &j->fire)) {
                fprintf(stderr, "bench_multi: %s\n", haze_ctx_errmsg(j->ctx));
                return 3;
            }
            j->frames = dframes;
            j->hin = hin;
            j->hout = D == 1 && s == 0 ? href : hout;
            j->next = &next;
            j->nhost = nhost;
        }
        /* rows resident on the devices */
        double t = best_jobs(jobs, D, fis_resident);
        rate[0][s] = t > 0 ? (double)n / t : -1;
        /* the fixed cost of a call: 4096 rows a device, the best of 20 */
        size_t keep[MAXD];
        for (int k = 0; k < D; k++)
            keep[k] = jobs[k].n, jobs[k].n = jobs[k].n < 4096 ? jobs[k].n : 4096;
        fixed[s] = 1e300;
        for (int q = 0; q < 21; q++) {
            double tq = run_jobs(jobs, D, fis_resident);
            if (tq < 0) return 3;
            if (q > 0 && tq < fixed[s]) fixed[s] = tq;
        }
        for (int k = 0; k < D; k++) jobs[k].n = keep[k];
        /* rows from host arrays through the context over the set */
        if (haze_fis_eval(ctx, f, in, n, out, NULL)) { /* warm-up */
            fprintf(stderr, "bench_multi: %s\n", haze_ctx_errmsg(ctx));
            return 3;
        }
        double best = 1e300;
        for (int q = 0; q < REPS; q++) {
            double t0 = bench_now();
            if (haze_fis_eval(ctx, f, in, n, out, NULL)) return 3;
            double tq = bench_now() - t0;
            if (tq < best) best = tq;
        }
        rate[1][s] = (double)n / best;
        if (s == 0) memcpy(ref, out, sizeof(double) * n);
        same_rows[s] = memcmp(ref, out, sizeof(double) * n) == 0;
        /* frames resident on each device */
        t = best_jobs(jobs, D, fire_resident);
        rate[2][s] = t > 0 ? (double)dframes * D / t : -1;
        /* host frames, a detector per device taking the next */
        atomic_init(&next, 0);
        if (run_jobs(jobs, D, fire_host) < 0) return 3; /* warm-up (and the reference) */
        best = 1e300;
        for (int q = 0; q < REPS; q++) {
            atomic_store(&next, 0);
            double tq = run_jobs(jobs, D, fire_host);
            if (tq < 0) return 3;
            if (tq < best) best = tq;
        }
        rate[3][s] = (double)nhost / best;
        same_frames[s] = 1;
        for (int i = 0; i < nhost; i++)
            if (memcmp(href[i]->data, jobs[0].hout[i]->data, (size_t)WIDTH * HEIGHT))
                same_frames[s] = 0;
        for (int k = 0; k < D; k++) {
            job *j = &jobs[k];
            cudaSetDevice(j->device);
            cudaFree(j->din);
            cudaFree(j->dout);
            for (int q = 0; q < DFRAMES; q++) cudaFree(j->fin[q]), cudaFree(j->fout[q]);
            haze_edge_free(j->fire);
        }
        haze_ctx_free(ctx);
    }

    char a[32], b[32];
    printf("MATLAB's tipper, %zu rows (MATLAB mode, 101 points), rows per second\n", n);
    printf("%-5s %16s %9s %16s %9s %6s\n", "GPUs", "resident", "speed-up", "host arrays",
           "speed-up", "bits");
    for (int s = 0; s < ns; s++) {
        speedup(a, sizeof a, rate[0][s], rate[0][0]);
        speedup(b, sizeof b, rate[1][s], rate[1][0]);
        printf("%-5d %16.4g %9s %16.4g %9s %6s\n", sets[s], rate[0][s], a, rate[1][s], b,
               same_rows[s] ? "same" : "DIFF");
    }
    printf("fixed cost of a call (4096 rows a device, the devices at once, thread start "
           "included):");
    for (int s = 0; s < ns; s++)
        printf(" %d GPU%s %.3f ms%s", sets[s], sets[s] > 1 ? "s" : "", fixed[s] * 1e3,
               s + 1 < ns ? ";" : "\n");
    printf("\nFIRE on %dx%d frames (fast kernel), frames per second\n", WIDTH, HEIGHT);
    printf("%-5s %16s %9s %16s %9s %6s\n", "GPUs", "resident", "speed-up", "host frames",
           "speed-up", "bytes");
    for (int s = 0; s < ns; s++) {
        speedup(a, sizeof a, rate[2][s], rate[2][0]);
        speedup(b, sizeof b, rate[3][s], rate[3][0]);
        printf("%-5d %16.4g %9s %16.4g %9s %6s\n", sets[s], rate[2][s], a, rate[3][s], b,
               same_frames[s] ? "same" : "DIFF");
    }
    printf("\nresident: %d frames per device (weak scaling), rows split over the devices; host "
           "frames: %d in all\n",
           dframes, nhost);
    int bad = 0;
    for (int s = 0; s < ns; s++) bad |= !same_rows[s] || !same_frames[s];
    for (int i = 0; i < nhost; i++)
        haze_image_free(hin[i]), haze_image_free(hout[i]), haze_image_free(href[i]);
    free(hin), free(hout), free(href), free(in), free(out), free(ref), free(frame0);
    haze_fis_free(f);
    haze_ctx_free(host);
    return bad ? 1 : 0;
}

#else

int main(void) {
    printf("bench_multi: this build has no CUDA: nothing to time\n");
    return 0;
}

#endif
