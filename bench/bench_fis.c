/*
 * bench/bench_fis.c - batch Mamdani evaluation: evaluations per second of
 * haze on the GPU and on the CPU (all threads, and per core) beside
 * fuzzylite's own `benchmark` command (single thread) on the same models, in
 * one run. Models: MATLAB's tipper (2 inputs, 3 rules) and a larger one
 * (8 inputs, 50 rules, 5 output sets), both min/max/centroid; haze samples
 * 101 points (MATLAB), fuzzylite its default 100-cell midpoint rule, so the
 * work per evaluation is the same within 1%. fuzzylite reads the same .fis
 * (imported with its own `-if fis`). Without fuzzylite or a GPU those
 * columns say "-".
 *
 * The hardware limit column is the floating-point work actually needed
 * (points x fired rules x ~4 operations per evaluation) against the GPU's
 * peak FP64 rate estimated from its SM count (64 FP64 lanes x 2 flops x
 * 1.7 GHz per SM, H100-class).
 *
 * usage: bench_fis [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "core/rng.h"
#include "haze/haze.h"
#ifdef HAZE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

/* 8 inputs x 3 triangles, 50 random rules of 3-5 antecedents, 5 outputs sets. */
static char *big_model(void) {
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    haze__rng r;
    haze__rng_seed(&r, 8);
#define P(...) len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__)
    P("[System]\nName='big'\nType='mamdani'\nNumInputs=8\nNumOutputs=1\nNumRules=50\n"
      "AndMethod='min'\nOrMethod='max'\nImpMethod='min'\nAggMethod='max'\n"
      "DefuzzMethod='centroid'\n");
    for (int i = 0; i < 8; i++)
        P("[Input%d]\nName='x%d'\nRange=[0 1]\nNumMFs=3\nMF1='low':'trimf',[-0.5 0 0.5]\n"
          "MF2='mid':'trimf',[0 0.5 1]\nMF3='high':'trimf',[0.5 1 1.5]\n",
          i + 1, i + 1);
    P("[Output1]\nName='y'\nRange=[0 1]\nNumMFs=5\n");
    for (int k = 0; k < 5; k++)
        P("MF%d='s%d':'trimf',[%g %g %g]\n", k + 1, k + 1, k * 0.25 - 0.25, k * 0.25,
          k * 0.25 + 0.25);
    P("[Rules]\n");
    for (int q = 0; q < 50; q++) {
        int used = 0;
        for (int i = 0; i < 8; i++) {
            int c = 0;
            if (used < 5 && haze__rng_below(&r, 8) < 4) c = 1 + (int)haze__rng_below(&r, 3);
            used += c != 0;
            P("%d ", c);
        }
        P(", %d (1) : 1\n", 1 + (int)haze__rng_below(&r, 5));
    }
#undef P
    return s;
}

/* fuzzylite's benchmark on n rows: evaluations per second, or -1. */
static double fuzzylite_rate(const char *fis_text, int ni, const double *in, size_t n) {
    if (system("command -v fuzzylite >/dev/null 2>&1") != 0) return -1;
    char dir[] = "/tmp/haze-bench-XXXXXX";
    if (!mkdtemp(dir)) return -1;
    char fis[256], fll[256], fld[256], cmd[1024], res[256];
    snprintf(fis, sizeof fis, "%s/m.fis", dir);
    snprintf(fll, sizeof fll, "%s/m.fll", dir);
    snprintf(fld, sizeof fld, "%s/m.fld", dir);
    snprintf(res, sizeof res, "%s/r.tsv", dir);
    FILE *fp = fopen(fis, "w");
    fputs(fis_text, fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "fuzzylite -i %s -if fis -o %s -of fll >/dev/null 2>&1", fis, fll);
    double rate = -1;
    if (system(cmd) == 0) {
        fp = fopen(fld, "w");
        for (int j = 0; j < ni; j++) {
            if (ni == 2)
                fprintf(fp, "%s%s", j ? " " : "", j ? "food" : "service");
            else
                fprintf(fp, "%sx%d", j ? " " : "", j + 1);
        }
        fputc('\n', fp);
        for (size_t i = 0; i < n; i++) {
            for (int j = 0; j < ni; j++)
                fprintf(fp, "%s%.9g", j ? " " : "", in[i * (size_t)ni + (size_t)j]);
            fputc('\n', fp);
        }
        fclose(fp);
        snprintf(cmd, sizeof cmd, "fuzzylite benchmark %s %s 3 > %s 2>/dev/null", fll, fld, res);
        if (system(cmd) == 0 && (fp = fopen(res, "r"))) {
            /* the data line holds "nanoseconds sum mean sd t1 t2 t3" */
            char line[4096];
            while (fgets(line, sizeof line, fp)) {
                char *p = strstr(line, "nanoseconds");
                if (!p) continue;
                double sum, mean;
                if (sscanf(p + 11, "%lf %lf", &sum, &mean) == 2 && mean > 0)
                    rate = (double)n / (mean * 1e-9);
            }
            fclose(fp);
        }
    }
    remove(fis);
    remove(fll);
    remove(fld);
    remove(res);
    rmdir(dir);
    return rate;
}

static double haze_rate(haze_ctx *ctx, haze_fis *f, const double *in, double *out, size_t n) {
    haze_fis_eval(ctx, f, in, n < 1000 ? n : 1000, out, NULL); /* warm-up */
    double best = 1e30;
    for (int k = 0; k < 3; k++) {
        double t0 = bench_now();
        if (haze_fis_eval(ctx, f, in, n, out, NULL)) {
            fprintf(stderr, "%s\n", haze_ctx_errmsg(ctx));
            exit(3);
        }
        double t = bench_now() - t0;
        best = t < best ? t : best;
    }
    return (double)n / best;
}

/* The GPU on inputs already in device memory (haze_fis_eval_device): the
 * kernel's rate without the PCIe transfers; -1 without CUDA. */
static double haze_rate_device(haze_ctx *ctx, haze_fis *f, const double *in, size_t n) {
#ifdef HAZE_HAVE_CUDA
    int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    double *din = NULL, *dout = NULL, best = 1e30;
    if (cudaMalloc((void **)&din, sizeof(double) * n * (size_t)ni) != cudaSuccess ||
        cudaMalloc((void **)&dout, sizeof(double) * n * (size_t)no) != cudaSuccess ||
        cudaMemcpy(din, in, sizeof(double) * n * (size_t)ni, cudaMemcpyHostToDevice) !=
            cudaSuccess) {
        cudaFree(din);
        return -1;
    }
    haze_fis_eval_device(ctx, f, din, n < 1000 ? n : 1000, dout, NULL); /* warm-up */
    for (int k = 0; k < 5; k++) {
        double t0 = bench_now();
        if (haze_fis_eval_device(ctx, f, din, n, dout, NULL)) {
            fprintf(stderr, "%s\n", haze_ctx_errmsg(ctx));
            exit(3);
        }
        double t = bench_now() - t0;
        best = t < best ? t : best;
    }
    cudaFree(din);
    cudaFree(dout);
    return (double)n / best;
#else
    (void)ctx;
    (void)f;
    (void)in;
    (void)n;
    return -1;
#endif
}

/* n rows (the n0 of `in` repeated) from page-locked host memory
 * (cudaHostAlloc, as a pinned PyTorch tensor is): the copy engines read and
 * write the caller's arrays directly; -1 without CUDA. */
/* A long batch of n rows (the n0 rows of `in` again and again) from host
 * memory, page-locked (cudaHostAlloc, as a pinned PyTorch tensor) or
 * pageable (malloc, as a NumPy array); -1 without CUDA. */
static double haze_rate_long(haze_ctx *ctx, haze_fis *f, const double *in, size_t n0, size_t n,
                             int pinned) {
#ifdef HAZE_HAVE_CUDA
    int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    double *hin = NULL, *hout = NULL;
    const size_t bi = sizeof(double) * n * (size_t)ni, bo = sizeof(double) * n * (size_t)no;
    if (pinned) {
        if (cudaHostAlloc((void **)&hin, bi, 0) != cudaSuccess ||
            cudaHostAlloc((void **)&hout, bo, 0) != cudaSuccess) {
            cudaFreeHost(hin);
            return -1;
        }
    } else if (!(hin = malloc(bi)) || !(hout = malloc(bo))) {
        free(hin);
        return -1;
    }
    for (size_t i = 0; i < n; i += n0) /* the n0 rows again and again */
        memcpy(hin + i * (size_t)ni, in, sizeof(double) * (n - i < n0 ? n - i : n0) * (size_t)ni);
    if (!pinned) memset(hout, 0, bo); /* the pages made before the timing, as the inputs' */
    double r = haze_rate(ctx, f, hin, hout, n);
    if (pinned) {
        cudaFreeHost(hin);
        cudaFreeHost(hout);
    } else {
        free(hin);
        free(hout);
    }
    return r;
#else
    (void)ctx, (void)f, (void)in, (void)n0, (void)n, (void)pinned;
    return -1;
#endif
}

/* The bus's rates (bytes/s) host to device and back, from page-locked
 * memory, 256 MiB each way; 0 without CUDA. */
static void bus_rates(double *h2d, double *d2h) {
    *h2d = *d2h = 0;
#ifdef HAZE_HAVE_CUDA
    const size_t bytes = (size_t)256 << 20;
    void *h = NULL, *d = NULL;
    if (cudaHostAlloc(&h, bytes, 0) != cudaSuccess || cudaMalloc(&d, bytes) != cudaSuccess) {
        cudaFreeHost(h);
        return;
    }
    memset(h, 1, bytes);
    for (int dir = 0; dir < 2; dir++) {
        double best = 1e30;
        for (int k = 0; k < 4; k++) {
            double t0 = bench_now();
            if (dir == 0)
                cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
            else
                cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
            double t = bench_now() - t0;
            if (k > 0 && t < best) best = t;
        }
        *(dir == 0 ? h2d : d2h) = (double)bytes / best;
    }
    cudaFree(d);
    cudaFreeHost(h);
#endif
}

static void cell(char *b, size_t n, double v) {
    if (v < 0)
        snprintf(b, n, "-");
    else if (v >= 1e9)
        snprintf(b, n, "%.2fG/s", v / 1e9);
    else if (v >= 1e6)
        snprintf(b, n, "%.2fM/s", v / 1e6);
    else
        snprintf(b, n, "%.0fk/s", v / 1e3);
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
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
    int threads = haze_ctx_threads(cpu);
    double fp64_peak = di.sm_count * 64.0 * 2.0 * 1.7e9;
    printf("Batch Mamdani evaluation (MATLAB mode, 101 points), evaluations per second\n");
    printf("GPU: %s; CPU: %d threads; fuzzylite: its 'benchmark' command, 1 thread\n\n",
           have_gpu ? di.name : "none", threads);
    double h2d = 0, d2h = 0;
    if (have_gpu) bus_rates(&h2d, &d2h);
    if (h2d > 0)
        printf("bus (page-locked, 256 MiB): %.1f GB/s to the device, %.1f GB/s back\n\n", h2d / 1e9,
               d2h / 1e9);
    char pinrows[2][200];
    printf("%-8s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %14s\n", "model", "haze GPU",
           "GPU pinned", "GPU dev", "haze CPU", "CPU/core", "fuzzylite", "GPU/fl", "dev/fl",
           "core/fl", "GFLOP/s", "FP64 peak");
    char *big = big_model();
    const char *texts[2] = {bench_tipper_fis, big};
    const char *names[2] = {"tipper", "8in-50r"};
    for (int m = 0; m < 2; m++) {
        haze_fis *f = NULL;
        if (haze_fis_parse(cpu, texts[m], names[m], &f)) {
            fprintf(stderr, "%s\n", haze_ctx_errmsg(cpu));
            return 3;
        }
        int ni = haze_fis_input_count(f);
        size_t ng = quick ? 100000 : 4000000, nc = quick ? 20000 : 400000, nf = 20000;
        double *in = malloc(sizeof(double) * ng * (size_t)ni), *out = malloc(sizeof(double) * ng);
        haze__rng r;
        haze__rng_seed(&r, 3);
        for (size_t i = 0; i < ng * (size_t)ni; i++) {
            double lo, hi;
            haze_fis_var_range(NULL, f, 0, (int)(i % (size_t)ni), &lo, &hi);
            in[i] = lo + (hi - lo) * haze__rng_uniform(&r);
        }
        double g = have_gpu ? haze_rate(gpu, f, in, out, ng) : -1;
        double gd = have_gpu ? haze_rate_device(gpu, f, in, ng) : -1;
        const size_t np = quick ? ng : 8 * ng; /* a long batch: the per-call set-up amortised */
        double gp = have_gpu ? haze_rate_long(gpu, f, in, ng, np, 1) : -1;
        double gl = have_gpu ? haze_rate_long(gpu, f, in, ng, np, 0) : -1;
        /* the bus floor: inputs one way, outputs the other, the two at once */
        const int no = haze_fis_output_count(f);
        double bus = -1;
        if (h2d > 0 && d2h > 0) {
            double ti = 8.0 * ni / h2d, to = 8.0 * no / d2h;
            bus = 1.0 / (ti > to ? ti : to);
        }
        {
            char pb[24], lb[24], bb[24];
            cell(pb, sizeof pb, gp);
            cell(lb, sizeof lb, gl);
            cell(bb, sizeof bb, bus);
            snprintf(pinrows[m], sizeof pinrows[m],
                     "%-8s long batch: pinned %s (%.0f%%), pageable %s (%.0f%%); bus floor %s "
                     "(%d + %d bytes a row)",
                     names[m], pb, gp > 0 && bus > 0 ? 100.0 * gp / bus : 0.0, lb,
                     gl > 0 && bus > 0 ? 100.0 * gl / bus : 0.0, bb, 8 * ni, 8 * no);
        }
        double c = haze_rate(cpu, f, in, out, nc);
        haze_ctx_set_threads(cpu, 1);
        double c1 = haze_rate(cpu, f, in, out, nc / 4);
        haze_ctx_set_threads(cpu, 0);
        double fl = fuzzylite_rate(texts[m], ni, in, nf);
        /* work: per point, per rule with a consequent: MF, min, max (~4 flops) */
        double flops = 101.0 * haze_fis_rule_count(f) * 4.0;
        char a[24], ap[24], ad[24], b[24], d[24], e[24], x[24], xd[24], y[24], z[24], pk[24];
        cell(a, sizeof a, g);
        cell(ap, sizeof ap, gp);
        cell(ad, sizeof ad, gd);
        snprintf(xd, sizeof xd, gd > 0 && fl > 0 ? "%.0fx" : "-", gd / fl);
        cell(b, sizeof b, c);
        cell(d, sizeof d, c1);
        cell(e, sizeof e, fl);
        snprintf(x, sizeof x, g > 0 && fl > 0 ? "%.0fx" : "-", g / fl);
        snprintf(y, sizeof y, fl > 0 ? "%.1fx" : "-", c1 / fl);
        snprintf(z, sizeof z, gd > 0 ? "%.0f" : "-", gd * flops / 1e9);
        snprintf(pk, sizeof pk, have_gpu ? "%.1f TFLOP/s" : "-", fp64_peak / 1e12);
        printf("%-8s %10s %10s %10s %10s %10s %10s %10s %10s %10s %10s %14s\n", names[m], a, ap, ad,
               b, d, e, x, xd, y, z, pk);
        free(in);
        free(out);
        haze_fis_free(f);
    }
    if (have_gpu)
        for (int m = 0; m < 2; m++) printf("%s\n", pinrows[m]);
    printf("\nhaze GPU: %s rows per call from pageable host memory, transfers included;\n"
           "GPU pinned: %s rows per call from page-locked host memory (cudaHostAlloc, as a\n"
           "pinned PyTorch tensor); long batch: the same, and as many rows per call from\n"
           "pageable memory (malloc, as a NumPy array); GPU dev: %s rows already\n"
           "in device memory (haze_fis_eval_device); haze CPU: all %d threads;\n"
           "CPU/core: one thread; GPU/fl, dev/fl and core/fl: ratios to fuzzylite's single\n"
           "thread (goals: >= 10,000x and >= 5x). GFLOP/s (GPU dev): ~4 flops per point and\n"
           "rule.\n",
           quick ? "100k" : "4M", quick ? "100k" : "32M", quick ? "100k" : "4M", threads);
    free(big);
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
    return 0;
}
