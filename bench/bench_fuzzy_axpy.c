/*
 * bench/bench_fuzzy_axpy.c - the compute-bound test of the paper's Fig. 2 /
 * Fig. 3: every element j runs x <- a_j * x + b for `iters` iterations on
 * fuzzy numbers with N alpha-cuts, in the three encodings and two
 * precisions. Prints iterations per second for the GPU, the CPU backend (all
 * cores) and MPFI (the same per-cut interval arithmetic with MPFI at 53 or
 * 24 bits, one core), the midpoint-radius / lower-upper speedup next to the
 * paper's r_c(N) = 16N / (7 + 7N) (eq. 17), and the ratio GPU / CPU.
 *
 * GPU columns are device-resident rates: the kernels alone, timed with CUDA
 * events (host-device copies excluded), array of structures (the library's
 * layout) and, for comparison, structure of arrays ("SoA"). A second table
 * runs one iteration per element (memory-bound) to show the layouts'
 * bandwidth. Hardware limit: the FP32 instruction-issue ceiling (SMs x 128
 * lanes x peak clock, one instruction per lane per cycle) divided by the
 * achieved rate gives "budget": how many SASS instructions per iteration the
 * kernel could execute at that ceiling; the fraction of the ceiling reached is
 * (SASS instructions per iteration) / budget (count from cuobjdump -sass,
 * docs/fuzzy.md).
 *
 * usage: bench_fuzzy_axpy [--quick]
 * The GPU columns are "-" without a device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAZE_HAVE_MPFI
#include <mpfi.h>
#endif

#include "bench_util.h"
#include "haze/haze.h"
#ifdef HAZE_HAVE_CUDA
#include "fuzzy_dev.h"
#endif

/* Element-iterations per second of haze_fuzzy_axpy on ctx. */
static double run_haze(haze_ctx *ctx, int on_gpu, int soa, haze_fuzzy_encoding enc,
                       haze_precision prec, int n, size_t count, int iters) {
    haze_fuzzy_array *a, *b, *y;
    if (haze_fuzzy_array_new(ctx, enc, prec, n, count, NULL, &a) ||
        haze_fuzzy_array_new(ctx, enc, prec, n, 1, NULL, &b) ||
        haze_fuzzy_array_new(ctx, enc, prec, n, count, NULL, &y)) {
        fprintf(stderr, "bench: %s\n", haze_ctx_errmsg(ctx));
        exit(3);
    }
    /* 7 distinct numbers, repeated (building millions one by one is slow) */
    size_t per =
        haze_fuzzy_array_stride(a) * (prec == HAZE_PRECISION_F32 ? sizeof(float) : sizeof(double));
    for (size_t i = 0; i < count; i++)
        if (i < 7)
            haze_fuzzy_set_tri(ctx, a, i, 0.45, 0.5 + 1e-3 * (double)i, 0.55 + 2e-3 * (double)i);
        else
            memcpy((char *)haze_fuzzy_array_data(a) + i * per,
                   (const char *)haze_fuzzy_array_data(a) + (i % 7) * per, per);
    haze_fuzzy_set_tri(ctx, b, 0, 0.9, 1.0, 1.1);
    double t = 0;
    int st;
    (void)soa;
    if (on_gpu) {
#ifdef HAZE_HAVE_CUDA
        haze_dev_fuzzy_axpy(ctx, a, b, 1, y, soa, 1, &t); /* warm-up */
        st = haze_dev_fuzzy_axpy(ctx, a, b, iters, y, soa, 3, &t);
#else
        st = HAZE_ERR_NODEVICE;
#endif
    } else {
        haze_fuzzy_axpy(ctx, a, b, 1, y); /* warm-up: threads, caches */
        double t0 = bench_now();
        st = haze_fuzzy_axpy(ctx, a, b, iters, y);
        t = bench_now() - t0;
    }
    if (st) {
        fprintf(stderr, "bench: %s\n", haze_ctx_errmsg(ctx));
        exit(3);
    }
    haze_fuzzy_array_free(a);
    haze_fuzzy_array_free(b);
    haze_fuzzy_array_free(y);
    return (double)count * iters / t;
}

#ifdef HAZE_HAVE_MPFI
/* The same series with MPFI intervals per cut (lower-upper), one core. */
static double run_mpfi(int n, int prec_bits, size_t count, int iters) {
    mpfi_t *a = malloc((size_t)n * sizeof *a), *x = malloc((size_t)n * sizeof *x),
           *b = malloc((size_t)n * sizeof *b), t;
    mpfi_init2(t, prec_bits);
    for (int k = 0; k < n; k++) {
        mpfi_init2(a[k], prec_bits), mpfi_init2(x[k], prec_bits), mpfi_init2(b[k], prec_bits);
        double al = (double)(n - k) / n;
        mpfi_interv_d(a[k], 0.45 + 0.05 * al, 0.55 - 0.05 * al);
        mpfi_interv_d(b[k], 0.9 + 0.1 * al, 1.1 - 0.1 * al);
    }
    double t0 = bench_now();
    for (size_t j = 0; j < count; j++) {
        for (int k = 0; k < n; k++) mpfi_set_d(x[k], 0);
        for (int it = 0; it < iters; it++)
            for (int k = 0; k < n; k++) {
                mpfi_mul(t, a[k], x[k]);
                mpfi_add(x[k], t, b[k]);
            }
    }
    double el = bench_now() - t0;
    for (int k = 0; k < n; k++) mpfi_clear(a[k]), mpfi_clear(x[k]), mpfi_clear(b[k]);
    mpfi_clear(t);
    free(a), free(x), free(b);
    return (double)count * iters / el;
}
#endif

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    haze_ctx *cpu = NULL;
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    if (haze_ctx_new(&o, &cpu)) return 3;
    haze_ctx *gpu = bench_gpu_ctx(&o);
    haze_device_info info = haze_device_info_init();
    double ceiling = 0; /* FP32 lane-instructions per second */
    if (gpu && haze_device_query(NULL, haze_ctx_device(gpu), &info) == HAZE_OK) {
#ifdef HAZE_HAVE_CUDA
        ceiling = 128.0 * info.sm_count * 1e3 * haze_dev_fuzzy_clock_khz(haze_ctx_device(gpu));
#endif
        printf("GPU: %s, %d SMs, FP32 issue ceiling %.1f T lane-instr/s (%.1f TFLOP/s FMA), peak "
               "%.0f GB/s; CPU backend: %d threads\n",
               info.name, info.sm_count, ceiling * 1e-12, 2 * ceiling * 1e-12,
               info.peak_bandwidth * 1e-9, haze_ctx_threads(cpu));
    } else
        printf("GPU: none (GPU columns '-'); CPU backend: %d threads\n", haze_ctx_threads(cpu));
    const int ns[] = {1, 2, 3, 4, 6, 8, 12, 16, 20, 24};
    size_t gcount = quick ? (1u << 16) : (1u << 20), ccount = quick ? 256 : 2048;
    int giters = quick ? 100 : 1000, citers = quick ? 20 : 100;
    printf("AXPY x <- a x + b: element-iterations per second (GPU: %zu elements x %d iterations, "
           "kernel time; CPU: %zu x %d; MPFI: 64 x %d)\n",
           gcount, giters, ccount, citers, citers);
    printf("%-6s %3s | %9s %9s %9s | %9s %9s %9s | %9s %9s %9s | %9s | %6s %6s %6s %6s | %7s | "
           "%7s\n",
           "prec", "N", "GPU lu", "GPU mr", "GPU mi", "SoA lu", "SoA mr", "SoA mi", "CPU lu",
           "CPU mr", "CPU mi", "MPFI lu", "mr/lu", "r_c(N)", "mi/lu", "SoA/AoS", "GPU/CPU",
           "budget");
    for (int p = 0; p < 2; p++) {
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
            int n = ns[ni];
            double g[3] = {0, 0, 0}, gs[3] = {0, 0, 0}, c[3], m = 0;
            for (int e = 0; e < 3; e++) {
                if (gpu) {
                    g[e] = run_haze(gpu, 1, 0, (haze_fuzzy_encoding)e, (haze_precision)p, n, gcount,
                                    giters);
                    gs[e] = run_haze(gpu, 1, 1, (haze_fuzzy_encoding)e, (haze_precision)p, n,
                                     gcount, giters);
                }
                c[e] = run_haze(cpu, 0, 0, (haze_fuzzy_encoding)e, (haze_precision)p, n, ccount,
                                citers);
            }
#ifdef HAZE_HAVE_MPFI
            m = run_mpfi(n, p ? 24 : 53, 64, citers);
#endif
            const double *r = gpu ? g : c;
            printf("%-6s %3d | ", p ? "single" : "double", n);
            for (int e = 0; e < 6; e++)
                if (gpu)
                    printf("%9.3e %s", e < 3 ? g[e] : gs[e - 3], e == 2 ? "| " : "");
                else
                    printf("%9s %s", "-", e == 2 ? "| " : "");
            printf("| %9.3e %9.3e %9.3e | ", c[0], c[1], c[2]);
            if (m > 0)
                printf("%9.3e | ", m);
            else
                printf("%9s | ", "-");
            printf("%6.2f %6.2f %6.2f ", r[1] / r[0], 16.0 * n / (7.0 + 7.0 * n), r[2] / r[0]);
            if (gpu)
                printf("%6.2f | %7.1f | %7.0f\n", gs[1] / g[1], g[1] / c[1],
                       ceiling > 0 ? ceiling / g[1] : 0.0);
            else
                printf("%6s | %7s | %7s\n", "-", "-", "-");
            fflush(stdout);
        }
    }
    printf("mr/lu and mi/lu: speedup over lower-upper on the GPU (CPU without one); r_c(N): the "
           "paper's operation-count ratio (eq. 17); SoA/AoS: midpoint-radius; budget: SASS "
           "instructions per mr iteration that the FP32 issue ceiling allows at the measured "
           "rate.\n");
    if (gpu) {
        /* Memory-bound: one iteration, so the layout's load/store pattern shows. */
        size_t mcount = quick ? (1u << 20) : (1u << 22);
        printf("\nOne iteration per element (memory-bound), single mr, %zu elements: GB/s of a, y "
               "traffic (kernel time)\n",
               mcount);
        printf("%3s | %9s %9s | %7s\n", "N", "AoS GB/s", "SoA GB/s", "SoA/AoS");
        for (int n = 1; n <= 16; n *= 2) {
            double bytes = 2.0 * (n + 1) * sizeof(float) * (double)mcount;
            double ra = run_haze(gpu, 1, 0, HAZE_FUZZY_MR, HAZE_PRECISION_F32, n, mcount, 1);
            double rs = run_haze(gpu, 1, 1, HAZE_FUZZY_MR, HAZE_PRECISION_F32, n, mcount, 1);
            printf("%3d | %9.1f %9.1f | %7.2f\n", n, bytes / mcount * ra * 1e-9,
                   bytes / mcount * rs * 1e-9, rs / ra);
            fflush(stdout);
        }
    }
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
    return 0;
}
