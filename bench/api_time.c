/*
 * bench/api_time.c - times one haze C API call on data from a .npy file, for
 * bench/python_overhead.py, which times the same call through the Python
 * package on the same file and machine and prints the two side by side.
 * (Not a bench_ program: gpu-check does not run it alone.)
 *
 *   api_time fis MODEL ROWS.npy REPS           haze_fis_eval, host arrays
 *   api_time fcm POINTS.npy C ITERS REPS SEED  haze_fcm_fit, k-means++ start,
 *                                              tolerance 0, ITERS iterations
 *
 * Prints "seconds BEST" (the best of REPS calls) on stdout, on the default
 * backend (HAZE_BACKEND chooses, as everywhere).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

static int fail(haze_ctx *ctx, const char *what) {
    fprintf(stderr, "api_time: %s: %s\n", what, ctx ? haze_ctx_errmsg(ctx) : "no context");
    return 3;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "fis") == 0 && argc != 5) ||
        (strcmp(argv[1], "fcm") == 0 && argc != 7) ||
        (strcmp(argv[1], "fis") != 0 && strcmp(argv[1], "fcm") != 0)) {
        fprintf(stderr, "usage: api_time fis MODEL ROWS.npy REPS\n"
                        "       api_time fcm POINTS.npy C ITERS REPS SEED\n");
        return 1;
    }
    haze_ctx *ctx = NULL;
    if (haze_ctx_new(NULL, &ctx) != HAZE_OK) return fail(ctx, "context");
    haze_table_options to = haze_table_options_default();
    to.keep_float32 = 1;
    haze_table *t = NULL;
    const char *data = strcmp(argv[1], "fis") == 0 ? argv[3] : argv[2];
    if (haze_table_read(ctx, data, &to, &t) != HAZE_OK) return fail(ctx, data);
    const size_t n = haze_table_row_count(t), d = haze_table_column_count(t);
    double best = 1e300;
    int rc = 0;
    if (strcmp(argv[1], "fis") == 0) {
        haze_fis *fis = NULL;
        if (haze_fis_load(ctx, argv[2], &fis) != HAZE_OK) return fail(ctx, argv[2]);
        const int reps = atoi(argv[4]);
        double *out = malloc(n * (size_t)haze_fis_output_count(fis) * sizeof *out);
        for (int r = 0; r < reps && !rc; r++) {
            double t0 = bench_now();
            if (haze_fis_eval(ctx, fis, haze_table_data(t), n, out, NULL) != HAZE_OK)
                rc = fail(ctx, "haze_fis_eval");
            double dt = bench_now() - t0;
            if (dt < best) best = dt;
        }
        free(out);
        haze_fis_free(fis);
    } else {
        const int reps = atoi(argv[5]);
        haze_fcm_options o = haze_fcm_options_default();
        o.clusters = atoi(argv[3]);
        o.max_iter = atoi(argv[4]);
        o.tol = 0;
        o.seed = strtoull(argv[6], NULL, 10);
        o.precision = haze_table_precision(t);
        o.want_memberships = 1; /* as haze.FCM.fit, which gives u_ */
        for (int r = 0; r < reps && !rc; r++) {
            haze_fcm_result *res = NULL;
            double t0 = bench_now();
            if (haze_fcm_fit(ctx, haze_table_values(t), haze_table_precision(t), n, d, &o, &res) !=
                HAZE_OK)
                rc = fail(ctx, "haze_fcm_fit");
            double dt = bench_now() - t0;
            if (dt < best) best = dt;
            haze_fcm_result_free(res);
        }
    }
    haze_table_free(t);
    haze_ctx_free(ctx);
    if (!rc) printf("seconds %.9f\n", best);
    return rc;
}
