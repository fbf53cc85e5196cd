/*
 * bench/bench_fnn_kernels.c - seed 001, Tables I and II again: kernel time of
 * one SONFIN online training step (firing strengths + parameter update) for
 * dim in {32, 512, 1024} x rules 32..1024 and rules in {256, 512, 768, 1024}
 * x dim 32..1024, under the architecture-aware mapping (ATM) and the GPU-FNN
 * baseline, side by side with one CPU step (all threads) and the memory
 * bound of the step on this GPU.
 *
 * usage: bench_fnn_kernels [--quick]
 * Without a GPU only the CPU column is measured (on fewer sizes).
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

/* Microseconds per online step on the CPU: a network with R rules, no new
 * rules (threshold 0), `steps` samples. */
static double cpu_step_us(haze_ctx *ctx, size_t D, size_t R, size_t L, size_t steps) {
    haze_fnn *net;
    if (haze_fnn_new(ctx, D, L, &net)) return NAN;
    size_t n = R > steps ? R : steps;
    double *x = malloc(n * D * sizeof *x), *d = calloc(n * L, sizeof *d);
    unsigned long long s = 88172645463325252ULL;
    for (size_t i = 0; i < n * D; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x[i] = (double)(s >> 11) * 0x1.0p-53;
    }
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 1;
    o.threshold = 1.0; /* every sample a rule, up to R */
    o.max_rules = R;
    o.shuffle = 0;
    o.rate = 1e-9;
    o.width = 0;                           /* the distance rule and no hold-out, as when measured */
    o.validation = 0;                      /* (every sample of the structure pass makes a rule) */
    haze_fnn_train(ctx, net, x, d, R, &o); /* structure: R rules */
    o.threshold = 0.0;
    double t0 = bench_now();
    haze_fnn_train(ctx, net, x, d, steps, &o);
    double us = 1e6 * (bench_now() - t0) / (double)steps;
    free(x), free(d);
    haze_fnn_free(net);
    return us;
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    haze_ctx_options co = haze_ctx_options_default();
    co.backend = HAZE_BACKEND_CPU;
    haze_ctx *cpu = NULL, *gpu = NULL;
    if (haze_ctx_new(&co, &cpu)) return 3;
    int have_gpu = 0;
    double bw = 0;
#ifdef HAZE_HAVE_CUDA
    co.backend = HAZE_BACKEND_CUDA;
    if (haze_device_count() > 0 && haze_ctx_new(&co, &gpu) == HAZE_OK) {
        have_gpu = 1;
        haze_device_info di = haze_device_info_init();
        if (haze_device_query(NULL, haze_ctx_device(gpu), &di) == HAZE_OK) {
            bw = di.peak_bandwidth;
            printf("GPU: %s, %d SMs, peak bandwidth %.0f GB/s\n", di.name, di.sm_count, bw / 1e9);
        }
    }
#endif
    printf("CPU: %d threads\n", haze_ctx_threads(cpu));
    printf(
        "One online training step of SONFIN (1 sample, L = 1 output), microseconds.\n"
        "ATM = architecture-aware thread mapping (seed 001 ch. 3), GPU-FNN = one block per\n"
        "rule and one thread per input (the thesis's baseline). fire = layers 2-3,\n"
        "update = structure test + output layer + gradient step; launches = fire + update,\n"
        "kernels launched per step; cluster = one thread-block cluster running 2000 steps per\n"
        "launch; ATM step = the one of the two that training takes for the shape. bound = 4 R D\n"
        "doubles (read m, s; write m, s) at the peak bandwidth. thesis = the 'our' column of\n"
        "Table I (Tesla C2050) where given.\n");
    if (!have_gpu) printf("(no GPU: GPU columns skipped)\n");
#ifdef HAZE_HAVE_CUDA
    if (argc > 1 && strcmp(argv[1], "--sweep") == 0 && have_gpu) {
        /* every register-kernel configuration that fits, against the library's choice */
        const int sd[] = {16, 32, 64}, sr[] = {32, 128, 256, 512, 768, 1024};
        for (size_t a = 0; a < sizeof sd / sizeof *sd; a++)
            for (size_t b = 0; b < sizeof sr / sizeof *sr; b++) {
                int D = sd[a], R = sr[b], rC = 0, rW = 0, rG = 0;
                double us = NAN;
                haze_dev_fnn_register_config(gpu, (size_t)D, 1, (size_t)R, &rC, &rW, &rG);
                haze_dev_fnn_cluster_step_time(gpu, (size_t)D, (size_t)R, 1, 0, 2000, &us);
                printf("%5d %5d auto %2dx%d G=%2d %7.2f us |", D, R, rC, rW, rG, us);
                for (int C = 1; C <= 16; C *= 2)
                    for (int W = 1; W <= 8; W *= 2) {
                        haze_dev_fnn_set_register_config(gpu, C, W);
                        if (!haze_dev_fnn_register_config(gpu, (size_t)D, 1, (size_t)R, &rC, &rW,
                                                          &rG))
                            continue;
                        us = NAN;
                        haze_dev_fnn_cluster_step_time(gpu, (size_t)D, (size_t)R, 1, 0, 2000, &us);
                        printf(" %dx%d:%.2f", C, W, us);
                    }
                haze_dev_fnn_set_register_config(gpu, 0, 0);
                printf("\n");
                fflush(stdout);
            }
        haze_ctx_free(gpu);
        haze_ctx_free(cpu);
        return 0;
    }
#endif
#ifdef HAZE_HAVE_CUDA
    if (argc > 1 && strcmp(argv[1], "--exchange") == 0 && have_gpu) {
        /* the cluster and register kernels' two exchanges side by side, each
         * timed three times, alternately (the same bits; fnn_cuda_cluster.cu) */
        printf("\nOne online step with the exchange between the cluster's blocks by st.async on\n"
               "transaction barriers (the library's) and by the cluster's barrier (synccheck's\n"
               "form), microseconds, best of 3 runs of 2000 steps each, alternately.\n");
        printf("%6s %6s | %9s %9s %9s | %s\n", "dim", "rules", "st.async", "barrier", "saved",
               "path");
        const int sd[] = {32, 512, 1024}, sr[] = {32, 128, 256, 512, 1024};
        for (size_t a = 0; a < sizeof sd / sizeof *sd; a++)
            for (size_t b = 0; b < sizeof sr / sizeof *sr; b++) {
                const int D = sd[a], R = sr[b];
                double best[2] = {INFINITY, INFINITY};
                for (int rep = 0; rep < 3; rep++)
                    for (int f = 0; f < 2; f++) {
                        double us = NAN;
                        haze_dev_fnn_set_exchange(gpu, f ? HAZE_DEV_FNN_XCHG_BARRIER
                                                         : HAZE_DEV_FNN_XCHG_ASYNC);
                        if (haze_dev_fnn_cluster_step_time(gpu, (size_t)D, (size_t)R, 1, 0, 2000,
                                                           &us) == HAZE_OK &&
                            us < best[f])
                            best[f] = us;
                    }
                haze_dev_fnn_set_exchange(gpu, HAZE_DEV_FNN_XCHG_AUTO);
                int rC = 0, rW = 0, rG = 0,
                    uc = haze_dev_fnn_uses_cluster(gpu, (size_t)D, 1, (size_t)R);
                char path[48];
                if (haze_dev_fnn_register_config(gpu, (size_t)D, 1, (size_t)R, &rC, &rW, &rG))
                    snprintf(path, sizeof path, "registers %dx%d", rC, rW);
                else
                    snprintf(path, sizeof path, "cluster%s", uc ? "" : " (training launches)");
                printf("%6d %6d | %9.2f %9.2f %8.0f%% | %s\n", D, R, best[0], best[1],
                       100.0 * (best[1] - best[0]) / best[1], path);
                fflush(stdout);
            }
        haze_ctx_free(gpu);
        haze_ctx_free(cpu);
        return 0;
    }
#endif
    /* The thesis's reference values (microseconds, 'our' column) where given. */
    struct {
        int D, R;
        double thesis;
    } ref[] = {{32, 1024, 23.648},   {512, 1024, 203.104}, {1024, 1024, 394.08},
               {1024, 256, 112.288}, {512, 256, 62.816},   {32, 256, 15.264},
               {512, 512, 108.128},  {1024, 512, 203.136}, {32, 512, 18.112}};
    const int dims1[] = {32, 512, 1024}, rules1[] = {32, 64, 128, 256, 512, 768, 1024};
    const int rules2[] = {256, 512, 768, 1024}, dims2[] = {32, 64, 128, 256, 512, 768, 1024};
    for (int table = 1; table <= 2; table++) {
        printf("\nTable %s: %s\n", table == 1 ? "I" : "II",
               table == 1 ? "fixed dim, scaled rules" : "fixed rules, scaled dim");
        printf("%6s %6s | %9s %9s %9s | %9s | %9s | %9s %9s %9s | %8s %8s | %9s %8s | %8s %9s | "
               "%s\n",
               "dim", "rules", "ATM fire", "ATM upd", "launches", "cluster", "ATM step", "FNN fire",
               "FNN upd", "FNN step", "FNN/ATM", "bound", "CPU step", "CPU/ATM", "thesis",
               "thesis/ATM", "ATM path (firing kernel of the launches)");
        int na = table == 1 ? 3 : 4, nb = 7;
        for (int a = 0; a < na; a++)
            for (int b = 0; b < nb; b++) {
                int D = table == 1 ? dims1[a] : dims2[b], R = table == 1 ? rules1[b] : rules2[a];
                if (quick && (b % 2)) continue;
                double af = NAN, au = NAN, ff = NAN, fu = NAN, cl = NAN;
                int use_cluster = 0;
                const char *choice = "-";
#ifdef HAZE_HAVE_CUDA
                if (have_gpu) {
                    int reps = quick ? 20 : 200;
                    if (haze_dev_fnn_step_time(gpu, (size_t)D, (size_t)R, 1, HAZE_DEV_FNN_MAP_ATM,
                                               reps, &af, &au))
                        fprintf(stderr, "ATM: %s\n", haze_ctx_errmsg(gpu));
                    choice = haze_dev_fnn_choice(gpu, (size_t)D, (size_t)R, 1);
                    if (!choice) choice = "?";
                    int cst = haze_dev_fnn_cluster_step_time(gpu, (size_t)D, (size_t)R, 1, 0,
                                                             quick ? 200 : 2000, &cl);
                    if (cst && cst != HAZE_ERR_UNSUPPORTED)
                        fprintf(stderr, "cluster: %s\n", haze_ctx_errmsg(gpu));
                    use_cluster = haze_dev_fnn_uses_cluster(gpu, (size_t)D, 1, (size_t)R);
                    if (haze_dev_fnn_step_time(gpu, (size_t)D, (size_t)R, 1,
                                               HAZE_DEV_FNN_MAP_GPUFNN, reps, &ff, &fu))
                        fprintf(stderr, "GPU-FNN: %s\n", haze_ctx_errmsg(gpu));
                }
#endif
                double cs =
                    cpu_step_us(cpu, (size_t)D, (size_t)R, 1, quick || !have_gpu ? 50 : 300);
                double bound = bw > 0 ? 1e6 * 4.0 * R * D * 8.0 / bw : NAN;
                double th = NAN;
                for (size_t r = 0; r < sizeof ref / sizeof *ref; r++)
                    if (ref[r].D == D && ref[r].R == R) th = ref[r].thesis;
                /* ATM step: the path training takes for this shape */
                double atm = use_cluster ? cl : af + au;
                char path[48];
#ifdef HAZE_HAVE_CUDA
                int rC = 0, rW = 0, rG = 0;
                if (have_gpu &&
                    haze_dev_fnn_register_config(gpu, (size_t)D, 1, (size_t)R, &rC, &rW, &rG))
                    snprintf(path, sizeof path, "registers %dx%d G=%d; ", rC, rW, rG);
                else
#endif
                    if (use_cluster)
                    snprintf(path, sizeof path, "cluster of %d; ", use_cluster);
                else
                    snprintf(path, sizeof path, "launches; ");
                printf("%6d %6d | %9.2f %9.2f %9.2f | %9.2f | %9.2f | %9.2f %9.2f %9.2f | %8.2f "
                       "%8.2f | %9.1f %8.1f | %8.1f %9.1f | %s%s\n",
                       D, R, af, au, af + au, cl, atm, ff, fu, ff + fu, (ff + fu) / atm, bound, cs,
                       cs / atm, th, th / atm, path, choice);
                fflush(stdout);
            }
    }
    haze_ctx_free(gpu);
    haze_ctx_free(cpu);
    return 0;
}
