/*
 * bench/bench_fuzzy_sort.c - the memory-bound test of the paper's Fig. 4 /
 * Fig. 5: sort an array of fuzzy numbers by 32-bit keys. Prints elements per
 * second for the GPU (CUB radix sort of key/index pairs, then one gather of
 * the numbers) and the CPU backend, the midpoint-radius / lower-upper
 * speedup next to the paper's r_m(N) = 2N / (1 + N), and the bandwidth the
 * GPU achieved for the bytes the method moves on the device against the
 * device's peak.
 *
 * Note: haze_fuzzy_sort_by_key works on host arrays, so the GPU time
 * includes the host-device copies; the "device GB/s" column counts only the
 * device-side bytes (8 radix passes over 8-byte pairs, plus reading and
 * writing each number once) over that total time, a lower bound of the
 * device rate.
 *
 * usage: bench_fuzzy_sort [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "haze/haze.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double run(haze_ctx *ctx, haze_fuzzy_encoding enc, int n, size_t count) {
    haze_fuzzy_array *a;
    if (haze_fuzzy_array_new(ctx, &a, enc, HAZE_FUZZY_FLOAT, n, count, NULL)) exit(3);
    uint32_t *k = malloc(count * sizeof *k);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < count; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        k[i] = (uint32_t)s;
    }
    haze_fuzzy_sort_by_key(ctx, k, a); /* warm-up */
    for (size_t i = 0; i < count; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        k[i] = (uint32_t)s;
    }
    double t0 = now();
    if (haze_fuzzy_sort_by_key(ctx, k, a)) {
        fprintf(stderr, "bench: %s\n", haze_ctx_errmsg(ctx));
        exit(3);
    }
    double t = now() - t0;
    free(k);
    haze_fuzzy_array_free(a);
    return (double)count / t;
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    haze_ctx *cpu = NULL, *gpu = NULL;
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    if (haze_ctx_new(&cpu, &o)) return 3;
    o.backend = HAZE_BACKEND_CUDA;
    if (haze_ctx_new(&gpu, &o)) {
        haze_ctx_free(gpu);
        gpu = NULL;
    }
    haze_device_info info;
    double peak = 0;
    if (gpu && haze_device_query(haze_ctx_device(gpu), &info) == HAZE_OK) {
        peak = info.peak_bandwidth;
        printf("GPU: %s, peak %.0f GB/s\n", info.name, peak * 1e-9);
    } else {
        printf("GPU: none (GPU columns '-')\n");
    }
    size_t gcount = quick ? (1u << 20) : (1u << 24), ccount = quick ? (1u << 16) : (1u << 20);
    printf(
        "sort-by-key of single-precision fuzzy numbers: elements per second (GPU %zu, CPU %zu)\n",
        gcount, ccount);
    printf("%3s | %10s %10s | %10s %10s | %6s %6s | %12s %6s\n", "N", "GPU lu", "GPU mr", "CPU lu",
           "CPU mr", "mr/lu", "r_m(N)", "device GB/s", "%peak");
    for (int n = 1; n <= 16; n++) {
        double g[2] = {0, 0}, c[2];
        for (int e = 0; e < 2; e++) {
            if (gpu) g[e] = run(gpu, (haze_fuzzy_encoding)e, n, gcount);
            c[e] = run(cpu, (haze_fuzzy_encoding)e, n, ccount);
        }
        const double *r = gpu ? g : c;
        printf("%3d | ", n);
        if (gpu)
            printf("%10.3e %10.3e | ", g[0], g[1]);
        else
            printf("%10s %10s | ", "-", "-");
        printf("%10.3e %10.3e | %6.2f %6.2f | ", c[0], c[1], r[1] / r[0], 2.0 * n / (1.0 + n));
        if (gpu) {
            double bytes = 8 * 16.0 + 2.0 * (n + 1) * 4; /* per element, mr */
            double bw = bytes * g[1];
            printf("%12.1f %6.1f\n", bw * 1e-9, peak > 0 ? 100 * bw / peak : 0.0);
        } else {
            printf("%12s %6s\n", "-", "-");
        }
        fflush(stdout);
    }
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
    return 0;
}
