/*
 * bench/bench_fuzzy_sort.c - the memory-bound test of the paper's Fig. 4 /
 * Fig. 5: sort an array of fuzzy numbers by 32-bit keys. Prints elements per
 * second for the GPU and the CPU backend, the midpoint-radius / lower-upper
 * speedup next to the paper's r_m(N) = 2N / (1 + N), and the bandwidth the
 * GPU achieved for the bytes the method moves on the device, against the
 * device's theoretical peak and against a device-to-device cudaMemcpy
 * measured in the same run; then both methods, where both apply, for every
 * record of 8 to 28 bytes and a few larger ones, at 2^22, 2^24 and 2^26 numbers.
 *
 * GPU columns are device-resident rates: the sort's kernels alone (key-bits
 * pre-pass with its read-back, CUB radix sort, gather), timed with CUDA
 * events; the host-device copies of haze_fuzzy_sort_by_key are excluded
 * ("GPU+copy" shows the whole call for mr). Bytes the method moves per
 * element (S the number's size, p the radix passes, 4 for these random
 * keys), as the library reports them (docs/fuzzy.md): records method (S = 8)
 * 8 + 2p(4 + S); (key, index) + gather 16 + 16p + 2S. The gather's reads
 * are counted as S bytes, not as the 32-byte sectors they touch.
 *
 * usage: bench_fuzzy_sort [--quick]
 *        bench_fuzzy_sort --one ENC N LOG2COUNT METHOD   (one sort, for a profiler)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "haze/haze.h"
#ifdef HAZE_HAVE_CUDA
#include "fuzzy_dev.h"
#endif

/* --one: a single sort without warm-up, for a profiler's byte counts */
static int g_no_warmup;

/* Elements per second of the whole call; GPU (kernel_rate non-NULL): *kernel_rate
 * from the kernel time, *bytes the bytes per element moved, *method the method. */
static double run(haze_ctx *ctx, haze_fuzzy_encoding enc, int n, size_t count, int method,
                  double *kernel_rate, double *bytes, double *dram, int *method_used) {
    haze_fuzzy_array *a;
    if (haze_fuzzy_array_new(ctx, enc, HAZE_PRECISION_F32, n, count, NULL, &a)) exit(3);
    uint32_t *k = malloc(count * sizeof *k);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < count; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        k[i] = (uint32_t)s;
    }
    if (!g_no_warmup) haze_fuzzy_sort_by_key(ctx, k, a); /* warm-up */
    for (size_t i = 0; i < count; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        k[i] = (uint32_t)s;
    }
    double t0 = bench_now();
    int st;
#ifdef HAZE_HAVE_CUDA
    haze__sort_stats ss = {0};
    if (kernel_rate)
        st = haze_dev_fuzzy_sort(ctx, k, a, (haze__sort_method)method, &ss);
    else
#endif
        st = haze_fuzzy_sort_by_key(ctx, k, a);
    (void)method;
    if (st) {
        fprintf(stderr, "bench: %s\n", haze_ctx_errmsg(ctx));
        exit(3);
    }
    double t = bench_now() - t0;
#ifdef HAZE_HAVE_CUDA
    if (kernel_rate) {
        *kernel_rate = ss.kernel_s > 0 ? (double)count / ss.kernel_s : 0;
        *bytes = ss.bytes / (double)count;
        *dram = ss.dram_bytes / (double)count;
        *method_used = ss.method;
    }
#else
    (void)bytes, (void)dram, (void)method_used;
#endif
    free(k);
    haze_fuzzy_array_free(a);
    return (double)count / t;
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    haze_ctx *cpu = NULL;
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    if (haze_ctx_new(&o, &cpu)) return 3;
    haze_ctx *gpu = bench_gpu_ctx(&o);
#ifdef HAZE_HAVE_CUDA
    if (argc == 6 && strcmp(argv[1], "--one") == 0 && gpu) {
        /* --one ENC N LOG2COUNT METHOD: one device sort (ENC 0 lu, 1 mr; METHOD 1
         * gather, 2 records), no warm-up, so that a profiler sees only it */
        double rate = 0, b = 0, bd = 0;
        int mu = 0;
        g_no_warmup = 1;
        run(gpu, (haze_fuzzy_encoding)atoi(argv[2]), atoi(argv[3]), (size_t)1 << atoi(argv[4]),
            atoi(argv[5]), &rate, &b, &bd, &mu);
        printf("%.4e elements/s, %.1f bytes per element counted (%.1f as DRAM segments), method "
               "%d\n",
               rate, b, bd, mu);
        haze_ctx_free(gpu);
        haze_ctx_free(cpu);
        return 0;
    }
#endif
    haze_device_info info = haze_device_info_init();
    double peak = 0, copy = 0;
    if (gpu && haze_device_query(NULL, haze_ctx_device(gpu), &info) == HAZE_OK) {
        peak = info.peak_bandwidth;
#ifdef HAZE_HAVE_CUDA
        if (haze_dev_fuzzy_copy_bw(gpu, (size_t)1 << 30, &copy)) copy = 0;
#endif
        printf("GPU: %s, peak %.0f GB/s, device-to-device cudaMemcpy of 1 GiB %.0f GB/s "
               "(read + write)\n",
               info.name, peak * 1e-9, copy * 1e-9);
    } else {
        printf("GPU: none (GPU columns '-')\n");
    }
    size_t gcount = quick ? (1u << 20) : (1u << 24), ccount = quick ? (1u << 16) : (1u << 20);
    printf(
        "sort-by-key of single-precision fuzzy numbers: elements per second (GPU %zu, CPU %zu)\n",
        gcount, ccount);
    printf("%3s | %10s %10s %10s | %10s %10s | %6s %6s | %4s %4s | %7s %5s %5s %5s | %7s %5s %5s "
           "%5s\n",
           "N", "GPU lu", "GPU mr", "GPU+copy", "CPU lu", "CPU mr", "mr/lu", "r_m(N)", "B lu",
           "B mr", "lu GB/s", "%peak", "%copy", "%cpyD", "mr GB/s", "%peak", "%copy", "%cpyD");
    for (int n = 1; n <= 16; n++) {
        double g[2] = {0, 0}, gc = 0, c[2], by[2] = {0, 0}, bd[2] = {0, 0};
        int mu[2] = {0, 0};
        for (int e = 0; e < 2; e++) {
            if (gpu) {
                double w =
                    run(gpu, (haze_fuzzy_encoding)e, n, gcount, 0, &g[e], &by[e], &bd[e], &mu[e]);
                if (e == 1) gc = w;
            }
            c[e] = run(cpu, (haze_fuzzy_encoding)e, n, ccount, 0, NULL, NULL, NULL, NULL);
        }
        const double *r = gpu ? g : c;
        printf("%3d | ", n);
        if (gpu)
            printf("%10.3e %10.3e %10.3e | ", g[0], g[1], gc);
        else
            printf("%10s %10s %10s | ", "-", "-", "-");
        printf("%10.3e %10.3e | %6.2f %6.2f | ", c[0], c[1], r[1] / r[0], 2.0 * n / (1.0 + n));
        if (gpu) {
            printf("%3.0f%c %3.0f%c", by[0], mu[0] == 2 ? 'r' : 'g', by[1], mu[1] == 2 ? 'r' : 'g');
            for (int e = 0; e < 2; e++) {
                double bw = by[e] * g[e];
                printf(" | %7.1f %5.1f %5.1f %5.1f", bw * 1e-9, peak > 0 ? 100 * bw / peak : 0.0,
                       copy > 0 ? 100 * bw / copy : 0.0,
                       copy > 0 ? 100 * bd[e] * g[e] / copy : 0.0);
            }
            printf("\n");
        } else {
            printf("%4s %4s | %7s %5s %5s %5s | %7s %5s %5s %5s\n", "-", "-", "-", "-", "-", "-",
                   "-", "-", "-", "-");
        }
        fflush(stdout);
    }
    if (gpu && !quick) {
        /* both methods where both apply, and the size of the array */
        printf("\nGPU only, by method and size: elements per second, bytes per element, GB/s, "
               "%%peak, %%copy, %%cpyD\n");
        const int lgs[] = {22, 24, 26};
        printf("%-13s |", "number");
        for (size_t j = 0; j < sizeof lgs / sizeof *lgs; j++) printf(" 2^%-34d |", lgs[j]);
        printf("\n");
        /* every record of 8 to 28 bytes with each method that takes it, then larger ones */
        const struct {
            int enc, n, method;
        } rows[] = {{0, 1, 2}, {0, 1, 1}, {1, 2, 2}, {1, 2, 1}, {0, 2, 2},
                    {0, 2, 1}, {1, 3, 2}, {1, 3, 1}, {1, 4, 1}, {0, 3, 1},
                    {1, 5, 1}, {1, 6, 1}, {0, 4, 1}, {0, 8, 1}, {0, 16, 1}};
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            int n = rows[i].n, e = rows[i].enc, per = e == 0 ? 8 * n : 4 * (n + 1);
            printf("%s N=%-2d %2dB %c |", e ? "mr" : "lu", n, per, rows[i].method == 2 ? 'r' : 'g');
            for (size_t j = 0; j < sizeof lgs / sizeof *lgs; j++) {
                const int lg = lgs[j];
                double rate = 0, b = 0, bd = 0;
                int mu = 0;
                run(gpu, (haze_fuzzy_encoding)e, n, (size_t)1 << lg, rows[i].method, &rate, &b, &bd,
                    &mu);
                printf(" %9.3e %3.0f %6.1f %4.1f %4.1f %4.1f |", rate, b, b * rate * 1e-9,
                       peak > 0 ? 100 * b * rate / peak : 0.0,
                       copy > 0 ? 100 * b * rate / copy : 0.0,
                       copy > 0 ? 100 * bd * rate / copy : 0.0);
            }
            printf("\n");
            fflush(stdout);
        }
        printf("method: r = records sorted as CUB values, g = (key, index) sort + gather\n");
        printf("%%cpyD: against the copy, with the gather's random reads counted as the 64-byte "
               "DRAM segments they touch\n");
    }
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
    return 0;
}
