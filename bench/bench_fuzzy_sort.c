/*
 * bench/bench_fuzzy_sort.c - the memory-bound test of the paper's Fig. 4 /
 * Fig. 5: sort an array of fuzzy numbers by 32-bit keys. Prints elements per
 * second for the GPU (CUB radix sort of key/index pairs, then one gather of
 * the numbers) and the CPU backend, the midpoint-radius / lower-upper
 * speedup next to the paper's r_m(N) = 2N / (1 + N), and the bandwidth the
 * GPU achieved for the bytes the method moves on the device against the
 * device's peak.
 *
 * GPU columns are device-resident rates: the sort's kernels alone (iota,
 * CUB radix sort of key/index pairs, gather), timed with CUDA events; the
 * host-device copies of haze_fuzzy_sort_by_key are excluded ("GPU+copy"
 * shows the whole call for mr). Bytes the method moves per element, the
 * basis of "GB/s" and "%peak": CUB's onesweep sort of 32-bit keys with 32-bit
 * values makes one histogram pass (reads the keys, 4 B) and 4 digit passes of
 * 8 bits, each reading and writing key and index (16 B); iota writes the
 * index (4 B); the gather reads the index and the number and writes the
 * number (4 + 2 S B, S the number's size): 76 + 2 S bytes in all.
 *
 * usage: bench_fuzzy_sort [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "haze/haze.h"
#ifdef HAZE_HAVE_CUDA
#include "fuzzy/fuzzy_internal.h"
#endif

/* Elements per second; *kernel_rate: the same from the kernel time (GPU). */
static double run(haze_ctx *ctx, haze_fuzzy_encoding enc, int n, size_t count,
                  double *kernel_rate) {
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
    double t0 = bench_now(), tk = 0;
    int st;
#ifdef HAZE_HAVE_CUDA
    if (kernel_rate)
        st = haze__fuzzy_sort_cuda_ex(ctx, k, a, &tk);
    else
#endif
        st = haze_fuzzy_sort_by_key(ctx, k, a);
    if (st) {
        fprintf(stderr, "bench: %s\n", haze_ctx_errmsg(ctx));
        exit(3);
    }
    double t = bench_now() - t0;
    if (kernel_rate) *kernel_rate = tk > 0 ? (double)count / tk : 0;
    free(k);
    haze_fuzzy_array_free(a);
    return (double)count / t;
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    haze_ctx *cpu = NULL;
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    if (haze_ctx_new(&cpu, &o)) return 3;
    haze_ctx *gpu = bench_gpu_ctx(&o);
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
    printf("%3s | %10s %10s %10s | %10s %10s | %6s %6s | %8s %6s %8s %6s\n", "N", "GPU lu",
           "GPU mr", "GPU+copy", "CPU lu", "CPU mr", "mr/lu", "r_m(N)", "lu GB/s", "%peak",
           "mr GB/s", "%peak");
    for (int n = 1; n <= 16; n++) {
        double g[2] = {0, 0}, gc = 0, c[2];
        for (int e = 0; e < 2; e++) {
            if (gpu) {
                double w = run(gpu, (haze_fuzzy_encoding)e, n, gcount, &g[e]);
                if (e == 1) gc = w;
            }
            c[e] = run(cpu, (haze_fuzzy_encoding)e, n, ccount, NULL);
        }
        const double *r = gpu ? g : c;
        printf("%3d | ", n);
        if (gpu)
            printf("%10.3e %10.3e %10.3e | ", g[0], g[1], gc);
        else
            printf("%10s %10s %10s | ", "-", "-", "-");
        printf("%10.3e %10.3e | %6.2f %6.2f | ", c[0], c[1], r[1] / r[0], 2.0 * n / (1.0 + n));
        if (gpu) {
            /* bytes per element moved by the method, see the header comment */
            double blu = 76 + 2.0 * (2 * n) * 4, bmr = 76 + 2.0 * (n + 1) * 4;
            printf("%8.1f %6.1f %8.1f %6.1f\n", blu * g[0] * 1e-9,
                   peak > 0 ? 100 * blu * g[0] / peak : 0.0, bmr * g[1] * 1e-9,
                   peak > 0 ? 100 * bmr * g[1] / peak : 0.0);
        } else {
            printf("%8s %6s %8s %6s\n", "-", "-", "-", "-");
        }
        fflush(stdout);
    }
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
    return 0;
}
