/*
 * bench/bench_fnn_train.c - seed 001, Table III again: SONFIN training speed
 * at the thesis's network sizes (synthetic benches 32/525, 256/512, 1024/276,
 * 2048/152 and the gisette size 5000/949 inputs/rules; Letter 16/642 on the
 * real data), GPU (ATM mapping, and the GPU-FNN baseline where it runs)
 * against the CPU backend with all threads and with one thread.
 *
 * Each row first grows the network to the thesis's rule count (structure
 * learning with threshold 1 and max_rules), then times online training
 * (threshold 0: parameter learning only) on S samples; speeds are samples
 * per second and the speedups their ratios. The same again with mini-batches
 * of 64 samples (one step with the mean gradient per batch), the extension
 * for throughput, on the GPU and on all CPU threads. The thesis reports total
 * times for runs whose sample counts and epochs it does not give, so only
 * its CPU/GPU speedup is quoted.
 *
 * usage: bench_fnn_train [LETTER.csv] [--quick]   (default data/letter-recognition.csv)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fnn/fnn_internal.h"
#include "fnn_dev.h"
#include "bench_util.h"
#include "haze/haze.h"

/* Samples per second of online training on ctx, after growing R rules. */
static double speed(haze_ctx *ctx, const double *x, const double *d, size_t n, size_t D, size_t L,
                    size_t R, size_t steps, size_t batch) {
    haze_fnn *net;
    if (haze_fnn_new(ctx, D, L, &net)) return NAN;
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 1;
    o.threshold = 1.0;
    o.max_rules = R;
    o.shuffle = 0;
    o.rate = 0.01;
    o.width = 0;      /* the distance rule and no hold-out, as when measured */
    o.validation = 0; /* (every sample of the structure pass makes a rule) */
    double r = NAN;
    if (haze_fnn_train(ctx, net, x, d, R < n ? R : n, &o) == HAZE_OK) {
        o.threshold = 0.0;
        o.shuffle = 1;
        o.batch = batch;
        double t0 = bench_now();
        if (haze_fnn_train(ctx, net, x, d, steps < n ? steps : n, &o) == HAZE_OK)
            r = (double)(steps < n ? steps : n) / (bench_now() - t0);
        else
            fprintf(stderr, "train: %s\n", haze_ctx_errmsg(ctx));
    }
    haze_fnn_free(net);
    return r;
}

int main(int argc, char **argv) {
    const char *letter = "data/letter-recognition.csv";
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else
            letter = argv[i];
    }
    haze_ctx_options co = haze_ctx_options_default();
    co.backend = HAZE_BACKEND_CPU;
    haze_ctx *cpu = NULL, *one = NULL, *gpu = NULL;
    if (haze_ctx_new(&co, &cpu)) return 3;
    co.threads = 1;
    if (haze_ctx_new(&co, &one)) return 3;
    int have_gpu = 0;
#ifdef HAZE_HAVE_CUDA
    co.backend = HAZE_BACKEND_CUDA;
    co.threads = 0;
    if (haze_device_count() > 0 && haze_ctx_new(&co, &gpu) == HAZE_OK) {
        have_gpu = 1;
        haze_device_info di = haze_device_info_init();
        if (haze_device_query(NULL, haze_ctx_device(gpu), &di) == HAZE_OK)
            printf("GPU: %s\n", di.name);
    }
#endif
    printf("CPU: %d threads\n", haze_ctx_threads(cpu));
    printf("SONFIN training speed, samples/s (seed 001 Table III sizes).\n"
           "Online (the thesis's mode): ATM = GPU with the architecture-aware mapping, FNN =\n"
           "GPU-FNN baseline mapping, CPU = all threads, 1T = one thread. Mini-batch of 64\n"
           "(mean gradient): ATMb, CPUb. thesis = CPU/Our speedup of Table III.\n");
    if (!have_gpu) printf("(no GPU: GPU columns skipped)\n");
    struct {
        const char *name;
        size_t D, R;
        double thesis;
    } rows[] = {{"synthetic", 32, 525, 85.01},    {"synthetic", 256, 512, 356.6},
                {"synthetic", 1024, 276, 463.28}, {"synthetic", 2048, 152, 442.5},
                {"gisette-size", 5000, 949, 102}, {"Letter", 16, 642, 45}};
    printf("\n%-13s %5s %5s | %9s %9s %9s %9s | %8s %8s %8s | %9s %9s %9s | %8s\n", "bench", "dim",
           "rules", "ATM", "FNN", "CPU", "1T", "ATM/CPU", "ATM/1T", "ATM/FNN", "ATMb", "CPUb",
           "ATMb/CPUb", "thesis");
    for (size_t w = 0; w < sizeof rows / sizeof *rows; w++) {
        size_t D = rows[w].D, R = rows[w].R, L = 2, n;
        double *x = NULL, *d = NULL;
        if (strcmp(rows[w].name, "Letter") == 0) {
            haze_table_options ro = haze_table_options_default();
            ro.text_column = "lettr";
            haze_table *t;
            if (haze_table_read(cpu, letter, &ro, &t)) {
                printf("%-13s (skipped: %s)\n", "Letter", haze_ctx_errmsg(cpu));
                continue;
            }
            n = 16000 < haze_table_row_count(t) ? 16000 : haze_table_row_count(t);
            L = 26;
            x = malloc(n * D * sizeof *x), d = calloc(n * L, sizeof *d);
            for (size_t i = 0; i < n; i++) {
                memcpy(x + i * D, haze_table_data(t) + i * haze_table_column_count(t) + 1,
                       D * sizeof *x);
                d[i * L + (size_t)(haze_table_text(t)[i][0] - 'A') % L] = 1;
            }
            haze_table_free(t);
        } else {
            n = R + 2000;
            x = malloc(n * D * sizeof *x), d = calloc(n * L, sizeof *d);
            double *normal = malloc(D * sizeof *normal);
            unsigned long long s = 0x2545F4914F6CDD1DULL + D;
            for (size_t j = 0; j < D; j++) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                normal[j] = (double)(s >> 11) * 0x1.0p-53 - 0.5;
            }
            for (size_t i = 0; i < n; i++) {
                double dot = 0;
                for (size_t j = 0; j < D; j++) {
                    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                    x[i * D + j] = (double)(s >> 11) * 0x1.0p-53;
                    dot += (x[i * D + j] - 0.5) * normal[j];
                }
                d[i * L + (dot > 0)] = 1;
            }
            free(normal);
        }
        /* Samples to time: about 2e9 multiply-adds on one thread at most. */
        double per = (double)R * (double)D * 6.0 + (double)R * (double)L * 4.0;
        size_t s1 = (size_t)fmax(20.0, fmin(2000.0, (quick ? 2e8 : 2e9) / per));
        double atm = NAN, fnn = NAN, atmb = NAN;
#ifdef HAZE_HAVE_CUDA
        size_t sg = quick ? 500 : 2000;
        if (have_gpu) {
            haze_dev_fnn_set_mapping(gpu, HAZE_DEV_FNN_MAP_ATM);
            atm = speed(gpu, x, d, n, D, L, R, sg, 1);
            atmb = speed(gpu, x, d, n, D, L, R, n, 64);
            if (D <= 1024) {
                haze_dev_fnn_set_mapping(gpu, HAZE_DEV_FNN_MAP_GPUFNN);
                fnn = speed(gpu, x, d, n, D, L, R, sg, 1);
                haze_dev_fnn_set_mapping(gpu, HAZE_DEV_FNN_MAP_ATM);
            }
        }
#endif
        double c = speed(cpu, x, d, n, D, L, R, s1 * (size_t)haze_ctx_threads(cpu), 1);
        double c1 = speed(one, x, d, n, D, L, R, s1, 1);
        double cb = speed(cpu, x, d, n, D, L, R, 4 * s1 * (size_t)haze_ctx_threads(cpu), 64);
        printf(
            "%-13s %5zu %5zu | %9.0f %9.0f %9.0f %9.0f | %8.1f %8.1f %8.2f | %9.0f %9.0f %9.1f | "
            "%8.1f\n",
            rows[w].name, D, R, atm, fnn, c, c1, atm / c, atm / c1, atm / fnn, atmb, cb, atmb / cb,
            rows[w].thesis);
        fflush(stdout);
        free(x), free(d);
    }
    haze_ctx_free(gpu);
    haze_ctx_free(one);
    haze_ctx_free(cpu);
    return 0;
}
