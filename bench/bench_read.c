/*
 * bench/bench_read.c - the table readers at the speed of the medium.
 *
 * For each workload (a CSV file of float64 numbers as haze and NumPy write
 * them, "%.17g"; the same with "%.9g"; a float32 and a float64 .npy file):
 * haze_table_read on one thread and on all, the reader it replaced
 * (tests/table_ref.c: one thread, strtod, a growing copy of the file), and
 * the limit: one plain read(2) of the file from the page cache into a buffer
 * in huge pages already touched (every reader must at least copy the bytes
 * once; page faults are left out, which on a virtual machine cost more than
 * the copy).
 * Wall time and CPU time (all threads): on a machine shared with other jobs
 * CPU time per byte is the steadier measure of a reader's own work. Each time is the best of a few
 * runs with the file cached. It prints a checksum of the values (the sum and the xor of their bit
 * patterns) that bench/read_numpy.py prints for NumPy's reading of the same file.
 *
 *   bench_read [--rows N] [--cols D] [--dir DIR] [--reps R] [FILE...]
 *
 * Without FILEs it writes the four workloads into DIR (default /tmp).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "haze/haze.h"
#include "table_ref.h"

static int reps = 3;

/* CPU seconds of the process (all threads): on a machine shared with other
 * jobs the wall clock says more about them than about the reader. */
static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double plain_read(const char *path, size_t *bytes, double *cpu) {
    double best = 1e300;
    *cpu = 1e300;
    for (int r = 0; r < reps; r++) {
        int fd = open(path, O_RDONLY);
        if (fd < 0) return NAN;
        struct stat sb;
        fstat(fd, &sb);
        /* the copy rate, not the page faults or TLB misses: a buffer in huge
         * pages (as NumPy and haze ask for), touched before the clock starts */
        size_t cap = ((size_t)sb.st_size + 1 + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
        char *buf = aligned_alloc(2u << 20, cap);
#ifdef MADV_HUGEPAGE
        madvise(buf, cap, MADV_HUGEPAGE);
#endif
        memset(buf, 0, cap);
        double t0 = bench_now(), c0 = cpu_now();
        size_t k = 0;
        while (k < (size_t)sb.st_size) {
            ssize_t n = read(fd, buf + k, (size_t)sb.st_size - k);
            if (n <= 0) break;
            k += (size_t)n;
        }
        double t = bench_now() - t0, c = cpu_now() - c0;
        if (c < *cpu) *cpu = c;
        close(fd);
        free(buf);
        *bytes = k;
        if (t < best) best = t;
    }
    return best;
}

typedef int (*reader)(haze_ctx *, const char *, const haze_table_options *, haze_table **);

static double timed(reader rd, haze_ctx *ctx, const char *path, int f32, uint64_t *sum,
                    uint64_t *xr, double *cpu) {
    double best = 1e300;
    *cpu = 1e300;
    haze_table_options o = haze_table_options_default();
    o.keep_float32 = f32;
    for (int r = 0; r < reps; r++) {
        haze_table *t = NULL;
        double t0 = bench_now(), c0 = cpu_now();
        int st = rd(ctx, path, &o, &t);
        double dt = bench_now() - t0, dc = cpu_now() - c0;
        if (dc < *cpu) *cpu = dc;
        if (st) {
            fprintf(stderr, "bench_read: %s\n", haze_ctx_errmsg(ctx));
            return NAN;
        }
        if (dt < best) best = dt;
        uint64_t s = 0, x = 0;
        size_t n = haze_table_row_count(t) * haze_table_column_count(t);
        if ((haze_table_precision(t) == HAZE_PRECISION_F32 ? (float *)haze_table_values(t)
                                                           : NULL)) {
            for (size_t i = 0; i < n; i++) {
                uint32_t b;
                memcpy(&b,
                       (haze_table_precision(t) == HAZE_PRECISION_F32
                            ? (float *)haze_table_values(t)
                            : NULL) +
                           i,
                       4);
                s += b;
                x ^= b;
            }
        } else {
            for (size_t i = 0; i < n; i++) {
                uint64_t b;
                memcpy(&b, haze_table_data(t) + i, 8);
                s += b;
                x ^= b;
            }
        }
        *sum = s;
        *xr = x;
        haze_table_free(t);
    }
    return best;
}

static void row(const char *what, double mb, double t, double c, double lim) {
    printf("  %-36s %8.4f %9.1f %8.4f %9.1f %7.2fx\n", what, t, mb / t, c, mb / c, t / lim);
}

static void bench_file(const char *path, haze_ctx *one, haze_ctx *all, int nthr) {
    size_t bytes = 0;
    double cl, c1, cn, cr, cf;
    double lim = plain_read(path, &bytes, &cl);
    double mb = (double)bytes / 1e6;
    size_t n = strlen(path);
    int npy = n > 4 && strcmp(path + n - 4, ".npy") == 0;
    uint64_t s1 = 0, x1 = 0, s2 = 0, x2 = 0, s3 = 0, x3 = 0, s4 = 0, x4 = 0;
    double tref = timed(haze_ref_table_read, one, path, 0, &s3, &x3, &cr);
    double t1 = timed(haze_table_read, one, path, 0, &s1, &x1, &c1);
    double tn = timed(haze_table_read, all, path, 0, &s2, &x2, &cn);
    printf("%s (%.1f MB)\n", path, mb);
    printf("  %-36s %8s %9s %8s %9s %8s\n", "reader", "wall s", "MB/s", "CPU s", "MB/CPU-s",
           "/limit");
    row("plain read(2) (the limit)", mb, lim, cl, lim);
    row("haze, 1 thread", mb, t1, c1, lim);
    char label[64];
    snprintf(label, sizeof label, "haze, %d threads", nthr);
    row(label, mb, tn, cn, lim);
    row("previous reader (1 thread, strtod)", mb, tref, cr, lim);
    if (npy) {
        double tf = timed(haze_table_read, all, path, 1, &s4, &x4, &cf);
        row("haze, keep_float32", mb, tf, cf, lim);
        printf("  values (keep_float32): sum %016" PRIx64 " xor %016" PRIx64 "\n", s4, x4);
    }
    printf("  values: sum %016" PRIx64 " xor %016" PRIx64 " %s\n", s1, x1,
           s1 == s2 && x1 == x2 && s1 == s3 && x1 == x3 ? "(all readers agree)"
                                                        : "(READERS DISAGREE)");
}

static void write_workloads(const char *dir, size_t rows, size_t cols, char paths[4][512]) {
    const char *names[4] = {"haze_bench_17g.csv", "haze_bench_9g.csv", "haze_bench_f32.npy",
                            "haze_bench_f64.npy"};
    uint64_t s = 0x2545F4914F6CDD1Du;
    double *v = malloc(rows * cols * sizeof *v);
    float *f = malloc(rows * cols * sizeof *f);
    for (size_t i = 0; i < rows * cols; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        /* clustered data: a centre per row group plus noise, any magnitude of a real feature */
        f[i] = (float)((double)(i % 7) * 3.0 + ((double)(s >> 11) / 9007199254740992.0 - 0.5));
        v[i] = f[i];
    }
    for (int k = 0; k < 4; k++) {
        snprintf(paths[k], 512, "%s/%s", dir, names[k]);
        struct stat sb;
        if (stat(paths[k], &sb) == 0) continue; /* written by an earlier run */
        if (k < 2) {
            FILE *fp = fopen(paths[k], "w");
            for (size_t i = 0; i < rows; i++)
                for (size_t j = 0; j < cols; j++)
                    fprintf(fp, k == 0 ? "%.17g%c" : "%.9g%c",
                            k == 0 ? v[i * cols + j] : (double)f[i * cols + j],
                            j + 1 < cols ? ',' : '\n');
            fclose(fp);
        } else {
            haze_ctx *ctx = NULL;
            haze_ctx_new(NULL, &ctx);
            if (k == 2)
                haze_table_write(ctx, paths[k], f, HAZE_PRECISION_F32, rows, cols, NULL);
            else
                haze_table_write(ctx, paths[k], v, HAZE_PRECISION_F64, rows, cols, NULL);
            haze_ctx_free(ctx);
        }
    }
    free(v);
    free(f);
}

int main(int argc, char **argv) {
    size_t rows = 200000, cols = 32;
    const char *dir = "/tmp";
    int first = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc)
            rows = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--cols") == 0 && i + 1 < argc)
            cols = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            first = i;
            break;
        }
    }
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    o.threads = 1;
    haze_ctx *one = NULL, *all = NULL;
    if (haze_ctx_new(&o, &one)) return 1;
    o.threads = 0;
    if (haze_ctx_new(&o, &all)) return 1;
    int nthr = haze_ctx_threads(all);
    printf("bench_read: best of %d runs, files in the page cache, %d threads available\n", reps,
           nthr);
    if (first < argc) {
        for (int i = first; i < argc; i++) bench_file(argv[i], one, all, nthr);
    } else {
        char paths[4][512];
        printf("workloads: %zu x %zu values (CSV \"%%.17g\" and \"%%.9g\", .npy float32 and "
               "float64) in %s\n",
               rows, cols, dir);
        write_workloads(dir, rows, cols, paths);
        for (int k = 0; k < 4; k++) bench_file(paths[k], one, all, nthr);
    }
    haze_ctx_free(one);
    haze_ctx_free(all);
    return 0;
}
