/*
 * bench/bench_edge.c - FIRE edge detection: milliseconds per frame from
 * 640x480 to 3840x2160 for the GPU's two-kernel reference (seed paper 002's
 * design) and fast single-pass kernel (device time, CUDA events), the
 * host<->device transfers separately, the CPU fast version on all threads
 * and the CPU reference on one, beside the paper's 42 frames/s at 640x480
 * and the memory floor (one byte read and one written per pixel at the
 * device's peak bandwidth). Every output is checked byte for byte against
 * the CPU fast version. Without a GPU the GPU columns say "-".
 *
 * usage: bench_edge [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "core/rng.h"
#include "haze/haze.h"
#ifdef HAZE_HAVE_CUDA
#include <cuda_runtime.h>

#include "core/internal.h"
#include "edge/edge_internal.h"
#include "edge_dev.h"
#endif

/* A frame with edges, ramps and noise, like a photograph's mix. */
static void fill(haze_image *im, haze__rng *r) {
    for (int y = 0; y < im->height; y++)
        for (int x = 0; x < im->width; x++) {
            int v = ((x / 37 + y / 23) % 3) * 80 + (x * 40) / im->width;
            v += (int)haze__rng_below(r, 24) - 12;
            im->data[(size_t)y * (size_t)im->width + (size_t)x] =
                (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
        }
}

static void fmt(char *buf, size_t n, double ms) {
    if (ms < 0)
        snprintf(buf, n, "-");
    else if (ms < 1.0)
        snprintf(buf, n, "%.1f us", ms * 1000.0);
    else
        snprintf(buf, n, "%.2f ms", ms);
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    const int sizes[][2] = {{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}};
    haze_ctx *cpu = NULL, *gpu = NULL;
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    if (haze_ctx_new(&o, &cpu)) return 3;
    int have_gpu = haze_build_has_cuda() && haze_device_count() > 0;
    haze_device_info di = haze_device_info_init();
    if (have_gpu) {
        o.backend = HAZE_BACKEND_CUDA;
        if (haze_ctx_new(&o, &gpu)) have_gpu = 0;
        haze_device_query(NULL, haze_ctx_device(gpu), &di);
    }
    printf("FIRE edge detection, default parameters (T=64, W=128, C=2)\n");
    printf("GPU: %s; CPU: %d threads\n", have_gpu ? di.name : "none", haze_ctx_threads(cpu));
    printf("paper (GeForce 8800-class GPU, 2009): 42 frames/s at 640x480 = 23.8 ms/frame\n\n");
    printf("%-10s %11s %11s %11s %11s %11s %11s %11s %9s\n", "frame", "GPU ref", "GPU fast",
           "floor", "H2D+D2H", "CPU fast", "CPU ref", "paper", "identical");
    haze_edge *f = NULL;
    if (haze_edge_new(cpu, NULL, &f)) return 3;
    haze__rng r;
    haze__rng_seed(&r, 1);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        int w = sizes[si][0], h = sizes[si][1];
        if (quick && si > 1) break;
        size_t n = (size_t)w * (size_t)h;
        haze_image *in, *ref, *out;
        haze_image_new(cpu, w, h, &in);
        haze_image_new(cpu, w, h, &ref);
        haze_image_new(cpu, w, h, &out);
        fill(in, &r);
        int same = 1;
        /* CPU fast, all threads */
        haze_edge_run(cpu, f, HAZE_EDGE_FAST, in, ref);
        int reps = 5;
        double t0 = bench_now();
        for (int k = 0; k < reps; k++) haze_edge_run(cpu, f, HAZE_EDGE_FAST, in, out);
        double cpu_fast = (bench_now() - t0) / reps * 1e3;
        /* CPU reference, one thread, on the small frames only (it is slow) */
        double cpu_ref = -1;
        if (n <= 1280 * 720 && !quick) {
            t0 = bench_now();
            haze_edge_run(cpu, f, HAZE_EDGE_REFERENCE, in, out);
            cpu_ref = (bench_now() - t0) * 1e3;
            same &= memcmp(out->data, ref->data, n) == 0;
        }
        double g_ref = -1, g_fast = -1, xfer = -1, floor_ms = -1;
#ifdef HAZE_HAVE_CUDA
        if (have_gpu) {
            uint8_t *d_in, *d_out;
            int *d_s;
            cudaMalloc((void **)&d_in, n);
            cudaMalloc((void **)&d_out, n);
            cudaMalloc((void **)&d_s, n * sizeof(int));
            cudaEvent_t e0, e1;
            cudaEventCreate(&e0);
            cudaEventCreate(&e1);
            float ms;
            /* transfers: one frame up and one down, pageable memory as the API uses */
            cudaDeviceSynchronize();
            t0 = bench_now();
            cudaMemcpy(d_in, in->data, n, cudaMemcpyHostToDevice);
            cudaMemcpy(out->data, d_out, n, cudaMemcpyDeviceToHost);
            xfer = (bench_now() - t0) * 1e3;
            for (int kern = 0; kern < 2; kern++) {
                haze_edge_kernel kk = kern ? HAZE_EDGE_REFERENCE : HAZE_EDGE_FAST;
                /* warm-up (uploads the tables) */
                if (haze_dev_edge_fire_device(gpu, f, kk, d_in, d_out, d_s, w, h)) {
                    fprintf(stderr, "%s\n", haze_ctx_errmsg(gpu));
                    return 3;
                }
                cudaDeviceSynchronize();
                int gr = kern ? 3 : 200;
                cudaStream_t cs =
                    (cudaStream_t)haze_dev_edge_stream(gpu); /* the context's stream */
                cudaEventRecord(e0, cs);
                for (int k = 0; k < gr; k++)
                    haze_dev_edge_fire_device(gpu, f, kk, d_in, d_out, d_s, w, h);
                cudaEventRecord(e1, cs);
                cudaEventSynchronize(e1);
                cudaDeviceSynchronize();
                cudaEventElapsedTime(&ms, e0, e1);
                if (kern)
                    g_ref = ms / gr;
                else
                    g_fast = ms / gr;
                cudaMemcpy(out->data, d_out, n, cudaMemcpyDeviceToHost);
                same &= memcmp(out->data, ref->data, n) == 0;
            }
            if (di.peak_bandwidth > 0) floor_ms = 2.0 * (double)n / di.peak_bandwidth * 1e3;
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
            cudaFree(d_in);
            cudaFree(d_out);
            cudaFree(d_s);
        }
#endif
        char a[32], b[32], c[32], d[32], e[32], g[32], p[32], label[32];
        fmt(a, sizeof a, g_ref);
        fmt(b, sizeof b, g_fast);
        fmt(c, sizeof c, floor_ms);
        fmt(d, sizeof d, xfer);
        fmt(e, sizeof e, cpu_fast);
        fmt(g, sizeof g, cpu_ref);
        fmt(p, sizeof p, si == 0 ? 1000.0 / 42.0 : -1);
        snprintf(label, sizeof label, "%dx%d", w, h);
        printf("%-10s %11s %11s %11s %11s %11s %11s %11s %9s\n", label, a, b, c, d, e, g, p,
               same ? "yes" : "NO");
        if (g_fast > 0)
            printf("%-10s GPU fast: %.0f frames/s (%.0fx the paper's 42), %.1fx the memory floor; "
                   "ref/fast %.0fx\n",
                   "", 1000.0 / g_fast, 1000.0 / g_fast / 42.0,
                   floor_ms > 0 ? g_fast / floor_ms : 0.0, g_ref / g_fast);
        haze_image_free(in);
        haze_image_free(ref);
        haze_image_free(out);
        if (!same) return 1;
    }
    printf("\nGPU columns: device time per frame (CUDA events), transfers excluded;\n"
           "H2D+D2H: one frame each way from pageable memory; floor: 2 bytes/pixel at the\n"
           "device's peak bandwidth; CPU ref: one thread, frames up to 1280x720 only.\n"
           "Goal: 3840x2160 in <= 50 us with the GPU fast kernel.\n");
    haze_edge_free(f);
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
    return 0;
}
