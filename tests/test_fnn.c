/*
 * tests/test_fnn.c - SONFIN (seed 001, section 2.2), CPU reference: the
 * derived gradients against central finite differences, structure learning,
 * learning on problems with a known answer, the log-domain firing at
 * thousands of inputs, model files (round trip, wrong version, truncation)
 * and the .fis export against Octave's evalfis (golden file).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "core/rng.h"
#include "test_util.h"

/* |a - b| <= tol, with both values in the message (old cmocka lacks a double assert). */
#define assert_near(a, b, tol)                                                                     \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (tol))) fail_msg("%s = %.17g, want %.17g", #a, a_, b_);             \
    } while (0)

static int quick(void) {
    return getenv("HAZE_TEST_QUICK") != NULL;
}

static void fill_uniform(haze__rng *r, double *v, size_t n, double lo, double hi) {
    for (size_t i = 0; i < n; i++) v[i] = lo + (hi - lo) * haze__rng_uniform(r);
}

/* E = 1/2 sum (y - d)^2 of the network on one sample, in standardised
 * target units (the loss training descends). */
static double loss_of(haze_ctx *ctx, const haze_fnn *net, const double *x, const double *d) {
    size_t L = haze_fnn_output_count(net);
    const double *ts = haze_fnn_target_scale(net);
    double y[8];
    assert_int_equal(haze_fnn_predict(ctx, net, x, 1, y), HAZE_OK);
    double e = 0;
    for (size_t l = 0; l < L; l++) e += 0.5 * (y[l] - d[l]) * (y[l] - d[l]) / (ts[l] * ts[l]);
    return e;
}

/* Checks one analytic derivative against a central difference of E. */
static void check_fd(haze_ctx *ctx, haze_fnn *net, double *param, double analytic, const double *x,
                     const double *d) {
    double h = 1e-6 * fmax(1.0, fabs(*param)), keep = *param;
    *param = keep + h;
    double ep = loss_of(ctx, net, x, d);
    *param = keep - h;
    double em = loss_of(ctx, net, x, d);
    *param = keep;
    double fd = (ep - em) / (2 * h);
    if (fabs(fd - analytic) > 1e-6 * fmax(1.0, fabs(fd)) + 1e-9)
        fail_msg("gradient %.12g, finite difference %.12g", analytic, fd);
}

static void test_gradient_finite_differences(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze__rng r;
    haze__rng_seed(&r, 42);
    const size_t shapes[][2] = {{1, 1}, {3, 2}, {5, 4}};
    for (size_t c = 0; c < 3; c++) {
        size_t D = shapes[c][0], L = shapes[c][1], n = 40;
        haze_fnn *net;
        assert_int_equal(haze_fnn_new(ctx, D, L, &net), HAZE_OK);
        double *x = malloc(n * D * sizeof *x), *d = malloc(n * L * sizeof *d);
        fill_uniform(&r, x, n * D, -2, 2);
        fill_uniform(&r, d, n * L, -1, 1);
        haze_fnn_options o = haze_fnn_options_default();
        o.epochs = 2;
        o.threshold = 0.6;
        assert_int_equal(haze_fnn_train(ctx, net, x, d, n, &o), HAZE_OK);
        size_t R = haze_fnn_rule_count(net);
        assert_true(R >= 2);
        double *gw = malloc(R * L * sizeof *gw), *gm = malloc(R * D * sizeof *gm),
               *gs = malloc(R * D * sizeof *gs);
        double xs[8], ds[8];
        for (int t = 0; t < 5; t++) {
            fill_uniform(&r, xs, D, -2, 2);
            fill_uniform(&r, ds, L, -1, 1);
            assert_int_equal(haze_fnn_gradient(ctx, net, xs, ds, gw, gm, gs), HAZE_OK);
            for (size_t k = 0; k < R; k++) {
                for (size_t l = 0; l < L; l++)
                    check_fd(ctx, net, haze_fnn_weights(net) + k * L + l, gw[k * L + l], xs, ds);
                for (size_t j = 0; j < D; j++) {
                    check_fd(ctx, net, haze_fnn_centres(net) + k * D + j, gm[k * D + j], xs, ds);
                    check_fd(ctx, net, haze_fnn_widths(net) + k * D + j, gs[k * D + j], xs, ds);
                }
            }
        }
        free(gw), free(gm), free(gs), free(x), free(d);
        haze_fnn_free(net);
    }
    haze_ctx_free(ctx);
}

/* One training step moves the parameters by -rate * gradient (online mode). */
static void test_online_step_is_gradient_step(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, 2, 1, &net), HAZE_OK);
    double x[] = {0, 0, 1, 1, 0, 1}, d[] = {0, 1, 0.5};
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 1;
    o.shuffle = 0;
    o.threshold = 0.9; /* three distinct points: three rules */
    assert_int_equal(haze_fnn_train(ctx, net, x, d, 3, &o), HAZE_OK);
    assert_int_equal(haze_fnn_rule_count(net), 3);
    /* A fourth sample close to rule 2 makes no rule at threshold 0 and
     * updates by exactly -rate * gradient. */
    double x4[] = {0.9, 0.95}, d4[] = {0.2};
    size_t R = 3, D = 2;
    double gw[3], gm[6], gs[6], w0[3], m0[6], s0[6];
    assert_int_equal(haze_fnn_gradient(ctx, net, x4, d4, gw, gm, gs), HAZE_OK);
    memcpy(w0, haze_fnn_weights(net), sizeof w0);
    memcpy(m0, haze_fnn_centres(net), sizeof m0);
    memcpy(s0, haze_fnn_widths(net), sizeof s0);
    o.threshold = 0.0;
    o.rate = 0.1;
    assert_int_equal(haze_fnn_train(ctx, net, x4, d4, 1, &o), HAZE_OK);
    assert_int_equal(haze_fnn_rule_count(net), 3);
    for (size_t k = 0; k < R; k++) {
        assert_near(haze_fnn_weights(net)[k], w0[k] - 0.1 * gw[k], 1e-15);
        for (size_t j = 0; j < D; j++) {
            assert_near(haze_fnn_centres(net)[k * D + j], m0[k * D + j] - 0.1 * gm[k * D + j],
                        1e-15);
            assert_near(haze_fnn_widths(net)[k * D + j], s0[k * D + j] - 0.1 * gs[k * D + j],
                        1e-15);
        }
    }
    haze_fnn_free(net);
    haze_ctx_free(ctx);
}

/* A mini-batch step moves the parameters by -rate * (mean gradient of the batch). */
static void test_batch_step_is_mean_gradient(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze__rng r;
    haze__rng_seed(&r, 11);
    size_t D = 3, L = 2, n = 30, B = 7;
    double x[90], d[60], xb[21], db[14];
    fill_uniform(&r, x, n * D, -1, 1);
    fill_uniform(&r, d, n * L, 0, 1);
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, D, L, &net), HAZE_OK);
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 1;
    o.threshold = 0.8;
    assert_int_equal(haze_fnn_train(ctx, net, x, d, n, &o), HAZE_OK);
    size_t R = haze_fnn_rule_count(net);
    fill_uniform(&r, xb, B * D, -1, 1);
    fill_uniform(&r, db, B * L, 0, 1);
    double *gw = calloc(R * L, sizeof *gw), *gm = calloc(R * D, sizeof *gm),
           *gs = calloc(R * D, sizeof *gs), *tw = malloc(R * L * sizeof *tw),
           *tm = malloc(R * D * sizeof *tm), *ts = malloc(R * D * sizeof *ts);
    for (size_t i = 0; i < B; i++) {
        assert_int_equal(haze_fnn_gradient(ctx, net, xb + i * D, db + i * L, tw, tm, ts), HAZE_OK);
        for (size_t k = 0; k < R * L; k++) gw[k] += tw[k] / (double)B;
        for (size_t k = 0; k < R * D; k++) gm[k] += tm[k] / (double)B, gs[k] += ts[k] / (double)B;
    }
    memcpy(tw, haze_fnn_weights(net), R * L * sizeof *tw);
    memcpy(tm, haze_fnn_centres(net), R * D * sizeof *tm);
    memcpy(ts, haze_fnn_widths(net), R * D * sizeof *ts);
    o.threshold = 0.0;
    o.batch = B;
    o.rate = 0.2;
    o.shuffle = 0;
    assert_int_equal(haze_fnn_train(ctx, net, xb, db, B, &o), HAZE_OK);
    assert_int_equal(haze_fnn_rule_count(net), R);
    for (size_t k = 0; k < R * L; k++)
        assert_near(haze_fnn_weights(net)[k], tw[k] - 0.2 * gw[k], 1e-13);
    for (size_t k = 0; k < R * D; k++) {
        assert_near(haze_fnn_centres(net)[k], tm[k] - 0.2 * gm[k], 1e-13);
        assert_near(haze_fnn_widths(net)[k], ts[k] - 0.2 * gs[k], 1e-13);
    }
    free(gw), free(gm), free(gs), free(tw), free(tm), free(ts);
    haze_fnn_free(net);
    haze_ctx_free(ctx);
}

/* Structure learning: the first sample makes a rule centred on it (standardised),
 * a far sample makes another with width beta * RMS distance. */
static void test_structure_learning(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, 2, 1, &net), HAZE_OK);
    double x[] = {-1, -1, 1, 1}, d[] = {3, 5};
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 1;
    o.shuffle = 0;
    o.rate = 0;
    o.beta = 0.5;
    o.width = 0; /* the distance rule */
    assert_int_equal(haze_fnn_train(ctx, net, x, d, 2, &o), HAZE_OK);
    assert_int_equal(haze_fnn_rule_count(net), 2);
    /* mean 0, scale 1 per input: z = x */
    assert_near(haze_fnn_mean(net)[0], 0.0, 0);
    assert_near(haze_fnn_scale(net)[1], 1.0, 0);
    const double *m = haze_fnn_centres(net), *s = haze_fnn_widths(net), *w = haze_fnn_weights(net);
    assert_near(m[0], -1, 0);
    assert_near(m[3], 1, 0);
    assert_near(s[0], o.sigma0, 0);
    /* distance sqrt(8) over sqrt(2) inputs = 2; times beta */
    assert_near(s[2], 1.0, 1e-15);
    /* consequents in standardised target units: mean 4, deviation 1 */
    assert_near(haze_fnn_target_mean(net)[0], 4, 0);
    assert_near(haze_fnn_target_scale(net)[0], 1, 0);
    assert_near(w[0], -1, 0);
    assert_near(w[1], 1, 0);
    /* A second pass at threshold 0 adds nothing, and max_rules caps growth. */
    o.threshold = 0.0;
    assert_int_equal(haze_fnn_train(ctx, net, x, d, 2, &o), HAZE_OK);
    assert_int_equal(haze_fnn_rule_count(net), 2);
    haze_fnn_free(net);
    assert_int_equal(haze_fnn_new(ctx, 2, 1, &net), HAZE_OK);
    o.threshold = 1.0;
    o.max_rules = 1;
    assert_int_equal(haze_fnn_train(ctx, net, x, d, 2, &o), HAZE_OK);
    assert_int_equal(haze_fnn_rule_count(net), 1);
    haze_fnn_free(net);
    /* A fixed width: both rules, the first included, get it, whatever the
     * distance, beta and sigma0. */
    assert_int_equal(haze_fnn_new(ctx, 2, 1, &net), HAZE_OK);
    o.threshold = 0.35;
    o.max_rules = 0;
    o.width = 0.7;
    o.sigma0 = 3.0;
    assert_int_equal(haze_fnn_train(ctx, net, x, d, 2, &o), HAZE_OK);
    assert_int_equal(haze_fnn_rule_count(net), 2);
    for (size_t k = 0; k < 4; k++) assert_near(haze_fnn_widths(net)[k], 0.7, 0);
    assert_near(haze_fnn_centres(net)[3], 1, 0);
    haze_fnn_free(net);
    haze_ctx_free(ctx);
}

/* Regression: y = sin(2x) on [-2, 2], online and mini-batch. */
static void test_regression_sine(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t n = 400;
    double *x = malloc(n * sizeof *x), *d = malloc(n * sizeof *d), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++)
        x[i] = -2 + 4 * (double)i / (double)(n - 1), d[i] = sin(2 * x[i]);
    for (int batch = 1; batch <= 16; batch += 15) {
        haze_fnn *net;
        assert_int_equal(haze_fnn_new(ctx, 1, 1, &net), HAZE_OK);
        haze_fnn_options o = haze_fnn_options_default();
        o.epochs = batch == 1 ? 30 : 200;
        o.batch = (size_t)batch;
        o.rate = batch == 1 ? 0.05 : 0.5;
        o.threshold = 0.5;
        assert_int_equal(haze_fnn_train(ctx, net, x, d, n, &o), HAZE_OK);
        assert_int_equal(haze_fnn_predict(ctx, net, x, n, y), HAZE_OK);
        double se = 0;
        for (size_t i = 0; i < n; i++) se += (y[i] - d[i]) * (y[i] - d[i]);
        double rmse = sqrt(se / (double)n);
        print_message("sine, batch %d: %zu rules, RMSE %.4f\n", batch, haze_fnn_rule_count(net),
                      rmse);
        assert_true(rmse < 0.1);
        assert_true(haze_fnn_rule_count(net) < 60);
        haze_fnn_free(net);
    }
    free(x), free(d), free(y);
    haze_ctx_free(ctx);
}

/* Classification on a subset of Letter (UCI), first rows train, later rows test. */
static void test_letter_subset(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_table_options ro = haze_table_options_default();
    ro.text_column = "lettr";
    haze_table *t;
    assert_int_equal(haze_table_read(ctx, HAZE_SOURCE_DIR "/data/letter-recognition.csv", &ro, &t),
                     HAZE_OK);
    assert_int_equal(haze_table_column_count(t), 17);
    size_t ntr = quick() ? 1000 : 3000, nte = 1000, D = 16;
    double *x = malloc((ntr + nte) * D * sizeof *x);
    int *lab = malloc((ntr + nte) * sizeof *lab), *pred = malloc(nte * sizeof *pred);
    for (size_t i = 0; i < ntr + nte; i++) {
        size_t r = i < ntr ? i : 16000 + (i - ntr);
        memcpy(x + i * D, haze_table_data(t) + r * 17 + 1, D * sizeof *x);
        lab[i] = haze_table_text(t)[r][0] - 'A';
    }
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, D, 26, &net), HAZE_OK);
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 3;
    assert_int_equal(haze_fnn_train_classes(ctx, net, x, lab, ntr, &o), HAZE_OK);
    assert_int_equal(haze_fnn_classify(ctx, net, x + ntr * D, nte, pred), HAZE_OK);
    size_t hits = 0;
    for (size_t i = 0; i < nte; i++) hits += pred[i] == lab[ntr + i];
    print_message("letter subset: %zu train, %zu rules, test accuracy %.1f%%\n", ntr,
                  haze_fnn_rule_count(net), 100.0 * (double)hits / (double)nte);
    /* chance is 3.8%; a 1-NN on the same rows gets about 70% (1000) to 85% (3000) */
    assert_true((double)hits / (double)nte > (quick() ? 0.45 : 0.6));
    haze_fnn_free(net);
    free(x), free(lab), free(pred);
    haze_table_free(t);
    haze_ctx_free(ctx);
}

/* 5000 inputs: the product of memberships underflows in any float format,
 * the log-domain firing does not. */
static void test_high_dimension(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t D = 5000, n = 12;
    haze__rng r;
    haze__rng_seed(&r, 7);
    double *x = malloc(n * D * sizeof *x), *d = malloc(n * 2 * sizeof *d),
           *y = malloc(n * 2 * sizeof *y);
    fill_uniform(&r, x, n * D, 0, 1);
    for (size_t i = 0; i < n; i++) d[2 * i] = (double)(i % 2), d[2 * i + 1] = (double)(1 - i % 2);
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, D, 2, &net), HAZE_OK);
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 2;
    o.rate = 0.01;
    o.validation = 0; /* every sample is trained on */
    assert_int_equal(haze_fnn_train(ctx, net, x, d, n, &o), HAZE_OK);
    assert_true(haze_fnn_rule_count(net) >= 2);
    assert_int_equal(haze_fnn_predict(ctx, net, x, n, y), HAZE_OK);
    for (size_t i = 0; i < n; i++) {
        assert_true(isfinite(y[2 * i]) && isfinite(y[2 * i + 1]));
        /* every training sample sits on its own rule: it is recalled */
        assert_true((y[2 * i] > y[2 * i + 1]) == (d[2 * i] > d[2 * i + 1]));
    }
    haze_fnn_free(net);
    free(x), free(d), free(y);
    haze_ctx_free(ctx);
}

static haze_fnn *small_classifier(haze_ctx *ctx, double *x, size_t n) {
    haze__rng r;
    haze__rng_seed(&r, 3);
    int *lab = malloc(n * sizeof *lab);
    for (size_t i = 0; i < n; i++) {
        lab[i] = (int)(i % 3);
        x[3 * i] = lab[i] + 0.3 * haze__rng_uniform(&r);
        x[3 * i + 1] = 10 * haze__rng_uniform(&r);
        x[3 * i + 2] = -5 + lab[i] * lab[i] + haze__rng_uniform(&r);
    }
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, 3, 3, &net), HAZE_OK);
    const char *names[] = {"setosa", "versi color", "virginica"};
    const char *in[] = {"a", "b", NULL};
    assert_int_equal(haze_fnn_set_classes(ctx, net, names, 3), HAZE_OK);
    assert_int_equal(haze_fnn_set_names(ctx, net, in, "species"), HAZE_OK);
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 5;
    assert_int_equal(haze_fnn_train_classes(ctx, net, x, lab, n, &o), HAZE_OK);
    free(lab);
    return net;
}

static void test_model_file(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t n = 90;
    double x[270], y1[270], y2[270];
    haze_fnn *net = small_classifier(ctx, x, n), *back = NULL;
    char path[] = "/tmp/haze-fnn-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(haze_fnn_save(ctx, net, path), HAZE_OK);
    assert_int_equal(haze_fnn_load(ctx, path, &back), HAZE_OK);
    assert_int_equal(haze_fnn_rule_count(back), haze_fnn_rule_count(net));
    assert_string_equal(haze_fnn_class_name(back, 1), "versi color");
    assert_string_equal(haze_fnn_target_name(back), "species");
    assert_string_equal(haze_fnn_input_name(back, 1), "b");
    assert_null(haze_fnn_input_name(back, 2));
    assert_int_equal(haze_fnn_predict(ctx, net, x, n, y1), HAZE_OK);
    assert_int_equal(haze_fnn_predict(ctx, back, x, n, y2), HAZE_OK);
    assert_memory_equal(y1, y2, sizeof y1); /* 17 digits: exact round trip */
    haze_fnn_free(back);
    back = NULL;

    /* another version */
    char *text;
    size_t len;
    assert_int_equal(haze_io_read_file(ctx, path, &text, &len), HAZE_OK);
    FILE *fp = fopen(path, "w");
    fprintf(fp, "haze-fnn 99\n%s", strchr(text, '\n') + 1);
    fclose(fp);
    assert_int_equal(haze_fnn_load(ctx, path, &back), HAZE_ERR_VERSION);
    assert_null(back);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "version 99"));
    /* truncated in the middle of the rules, and at the end */
    size_t cuts[] = {len / 2, len - 4};
    for (int c = 0; c < 2; c++) {
        fp = fopen(path, "w");
        fwrite(text, 1, cuts[c], fp);
        fclose(fp);
        assert_int_equal(haze_fnn_load(ctx, path, &back), HAZE_ERR_PARSE);
        assert_null(back);
        assert_non_null(strstr(haze_ctx_errmsg(ctx), path));
    }
    /* not a model at all */
    fp = fopen(path, "w");
    fputs("a,b,c\n1,2,3\n", fp);
    fclose(fp);
    assert_int_equal(haze_fnn_load(ctx, path, &back), HAZE_ERR_PARSE);
    free(text);
    remove(path);
    haze_fnn_free(net);
    haze_fnn_free(NULL);
    haze_ctx_free(ctx);
}

/* Global scaling: one mean and one standard deviation for all inputs. */
static void test_global_scaling(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, 2, 1, &net), HAZE_OK);
    double x[] = {0, 10, 2, 20}, d[] = {0, 1};
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 1;
    o.rate = 0; /* the centres stay where the rules were made */
    o.scaling = HAZE_FNN_SCALE_GLOBAL;
    assert_int_equal(haze_fnn_train(ctx, net, x, d, 2, &o), HAZE_OK);
    /* mean of {0, 10, 2, 20} = 8; variance (64 + 4 + 36 + 144) / 4 = 62 */
    for (int j = 0; j < 2; j++) {
        assert_near(haze_fnn_mean(net)[j], 8.0, 1e-15);
        assert_near(haze_fnn_scale(net)[j], sqrt(62.0), 1e-14);
    }
    assert_near(haze_fnn_centres(net)[1], (10.0 - 8.0) / sqrt(62.0), 1e-15);
    haze_fnn_free(net);
    assert_int_equal(haze_fnn_new(ctx, 2, 1, &net), HAZE_OK);
    o.scaling = 7;
    assert_int_equal(haze_fnn_train(ctx, net, x, d, 2, &o), HAZE_ERR_INVALID);
    haze_fnn_free(net);
    haze_ctx_free(ctx);
}

static void test_bad_arguments(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, 0, 1, &net), HAZE_ERR_INVALID);
    assert_int_equal(haze_fnn_new(ctx, 2, 2, &net), HAZE_OK);
    double x[4] = {0, 1, 2, NAN}, y[4];
    int lab[2] = {0, 2};
    assert_int_equal(haze_fnn_predict(ctx, net, x, 1, y), HAZE_ERR_INVALID); /* no rules */
    assert_int_equal(haze_fnn_train_classes(ctx, net, x, lab, 2, NULL), HAZE_ERR_INVALID);
    lab[1] = 1;
    assert_int_equal(haze_fnn_train_classes(ctx, net, x, lab, 2, NULL), HAZE_ERR_DOMAIN);
    haze_fnn_options o = haze_fnn_options_default();
    o.threshold = 2;
    x[3] = 1;
    assert_int_equal(haze_fnn_train_classes(ctx, net, x, lab, 2, &o), HAZE_ERR_INVALID);
    o = haze_fnn_options_default();
    o.width = -1;
    assert_int_equal(haze_fnn_train_classes(ctx, net, x, lab, 2, &o), HAZE_ERR_INVALID);
    o.width = INFINITY;
    assert_int_equal(haze_fnn_train_classes(ctx, net, x, lab, 2, &o), HAZE_ERR_INVALID);
    haze_fnn_free(net);
    haze_ctx_free(ctx);
}

/*
 * The .fis export against Octave's fuzzy-logic-toolkit: tests/data/fnn/
 * holds a model, its export and evalfis's outputs on inputs (made by
 * scripts/golden/fnn/make-golden.sh). haze must still predict the same from
 * the model, and export the same membership functions.
 */
static void test_fis_golden(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fnn *net;
    assert_int_equal(haze_fnn_load(ctx, HAZE_TEST_DATA "/fnn/golden.model", &net), HAZE_OK);
    haze_table *in, *out;
    assert_int_equal(haze_table_read(ctx, HAZE_TEST_DATA "/fnn/golden-inputs.csv", NULL, &in),
                     HAZE_OK);
    assert_int_equal(haze_table_read(ctx, HAZE_TEST_DATA "/fnn/golden-octave.csv", NULL, &out),
                     HAZE_OK);
    size_t n = haze_table_row_count(in), L = haze_fnn_output_count(net);
    assert_int_equal(haze_table_column_count(in), haze_fnn_input_count(net));
    assert_int_equal(haze_table_row_count(out), n);
    assert_int_equal(haze_table_column_count(out), L);
    double *y = malloc(n * L * sizeof *y);
    assert_int_equal(haze_fnn_predict(ctx, net, haze_table_data(in), n, y), HAZE_OK);
    for (size_t i = 0; i < n * L; i++)
        if (fabs(y[i] - haze_table_data(out)[i]) > 1e-9 * fmax(1.0, fabs(haze_table_data(out)[i])))
            fail_msg("sample %zu output %zu: haze %.17g, octave %.17g", i / L, i % L, y[i],
                     haze_table_data(out)[i]);
    /* The export is deterministic: the same text as the committed one. */
    char path[] = "/tmp/haze-fnn-fis-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    assert_int_equal(haze_fnn_export_fis(ctx, net, path), HAZE_OK);
    char *a, *b;
    assert_int_equal(haze_io_read_file(ctx, path, &a, NULL), HAZE_OK);
    assert_int_equal(haze_io_read_file(ctx, HAZE_TEST_DATA "/fnn/golden.fis", &b, NULL), HAZE_OK);
    assert_string_equal(a, b);
    free(a), free(b), free(y);
    remove(path);
    haze_table_free(in);
    haze_table_free(out);
    haze_fnn_free(net);
    haze_ctx_free(ctx);
}

/* Regression with targets far from 0 and 1 (diabetes-like: mean 150, spread
 * 60): the targets are standardised, so the defaults learn and do better
 * than predicting the training mean on unseen samples. */
static void test_regression_target_scale(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t ntr = 600, nte = 200, D = 3;
    haze__rng r;
    haze__rng_seed(&r, 5);
    double *x = malloc((ntr + nte) * D * sizeof *x), *d = malloc((ntr + nte) * sizeof *d);
    double *y = malloc(nte * sizeof *y);
    fill_uniform(&r, x, (ntr + nte) * D, -1, 1);
    for (size_t i = 0; i < ntr + nte; i++) {
        const double *xi = x + i * D;
        d[i] = 150 + 60 * xi[0] - 40 * xi[1] * xi[1] + 10 * (haze__rng_uniform(&r) - 0.5);
    }
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, D, 1, &net), HAZE_OK);
    assert_int_equal(haze_fnn_train(ctx, net, x, d, ntr, NULL), HAZE_OK);
    assert_true(haze_fnn_target_scale(net)[0] > 30.0); /* fixed from the targets */
    assert_int_equal(haze_fnn_predict(ctx, net, x + ntr * D, nte, y), HAZE_OK);
    double mean = 0, se = 0, se_mean = 0;
    for (size_t i = 0; i < ntr; i++) mean += d[i] / (double)ntr;
    for (size_t i = 0; i < nte; i++) {
        se += (y[i] - d[ntr + i]) * (y[i] - d[ntr + i]);
        se_mean += (mean - d[ntr + i]) * (mean - d[ntr + i]);
    }
    double rmse = sqrt(se / (double)nte), rmse_mean = sqrt(se_mean / (double)nte);
    print_message("targets around 150: %zu rules, RMSE %.2f, mean predictor %.2f\n",
                  haze_fnn_rule_count(net), rmse, rmse_mean);
    assert_true(rmse < 0.5 * rmse_mean);
    haze_fnn_free(net);
    free(x), free(d), free(y);
    haze_ctx_free(ctx);
}

/* What the progress callback saw, and the network at the best epoch. */
typedef struct {
    haze_fnn *net;
    int epochs;
    double rate[64], loss[64], val_loss[64];
    int best[64];
    size_t val_samples;
    size_t R;
    double *m, *s, *w;
} watch;

static int watch_epoch(void *arg, const haze_fnn_epoch *e) {
    watch *wt = arg;
    size_t D = haze_fnn_input_count(wt->net), L = haze_fnn_output_count(wt->net),
           R = haze_fnn_rule_count(wt->net);
    assert_true(e->epoch < 64);
    wt->rate[e->epoch] = e->rate;
    wt->loss[e->epoch] = e->loss;
    wt->val_loss[e->epoch] = e->val_loss;
    wt->best[e->epoch] = e->best_epoch;
    wt->val_samples = e->val_samples;
    wt->epochs = e->epoch + 1;
    if (e->best_epoch == e->epoch) {
        free(wt->m), free(wt->s), free(wt->w);
        wt->R = R;
        wt->m = malloc(R * D * sizeof *wt->m);
        wt->s = malloc(R * D * sizeof *wt->s);
        wt->w = malloc(R * L * sizeof *wt->w);
        memcpy(wt->m, haze_fnn_centres(wt->net), R * D * sizeof *wt->m);
        memcpy(wt->s, haze_fnn_widths(wt->net), R * D * sizeof *wt->s);
        memcpy(wt->w, haze_fnn_weights(wt->net), R * L * sizeof *wt->w);
    }
    return 0;
}

/* The rate halves after each epoch whose training loss rose, and training
 * ends with the parameters of the best epoch on the held-out samples, not
 * the last. A rate far too large for the data makes both happen. */
static void test_best_epoch_and_rate_guard(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t n = 300, D = 2;
    haze__rng r;
    haze__rng_seed(&r, 9);
    double *x = malloc(n * D * sizeof *x), *d = malloc(n * sizeof *d);
    fill_uniform(&r, x, n * D, -2, 2);
    for (size_t i = 0; i < n; i++) d[i] = sin(2 * x[2 * i]) * cos(x[2 * i + 1]);
    haze_fnn *net;
    assert_int_equal(haze_fnn_new(ctx, D, 1, &net), HAZE_OK);
    watch wt;
    memset(&wt, 0, sizeof wt);
    wt.net = net;
    haze_fnn_options o = haze_fnn_options_default();
    o.rate = 1.0;
    o.epochs = 12;
    o.progress = watch_epoch;
    o.progress_arg = &wt;
    assert_int_equal(haze_fnn_train(ctx, net, x, d, n, &o), HAZE_OK);
    assert_int_equal(wt.epochs, 12);
    assert_int_equal(wt.val_samples, 30);
    int rises = 0;
    for (int e = 0; e < wt.epochs; e++) {
        /* epoch e runs at the rate of e - 1, halved if e - 1's training loss rose */
        double want = e == 0 ? 1.0 : wt.rate[e - 1];
        if (e >= 2 && wt.loss[e - 1] > wt.loss[e - 2]) want *= 0.5;
        assert_near(wt.rate[e], want, 0);
        rises += e >= 1 && wt.loss[e] > wt.loss[e - 1];
    }
    int best = wt.best[wt.epochs - 1];
    print_message("rate guard: %d rises, best epoch %d of %d, final rate %g\n", rises, best + 1,
                  wt.epochs, wt.rate[wt.epochs - 1]);
    assert_true(rises >= 1);
    assert_true(best < wt.epochs - 1); /* so that keeping the best is seen */
    for (int e = 0; e < wt.epochs; e++) assert_true(wt.val_loss[best] <= wt.val_loss[e]);
    assert_int_equal(haze_fnn_rule_count(net), wt.R);
    assert_memory_equal(haze_fnn_centres(net), wt.m, wt.R * D * sizeof *wt.m);
    assert_memory_equal(haze_fnn_widths(net), wt.s, wt.R * D * sizeof *wt.s);
    assert_memory_equal(haze_fnn_weights(net), wt.w, wt.R * sizeof *wt.w);
    free(wt.m), free(wt.s), free(wt.w);
    haze_fnn_free(net);
    free(x), free(d);
    haze_ctx_free(ctx);
}

/* Saves and loads back a network; HAZE_OK or the save's status. */
static int round_trip(haze_ctx *ctx, const haze_fnn *net, haze_fnn **back) {
    char path[] = "/tmp/haze-fnn-rt-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    remove(path);
    int st = haze_fnn_save(ctx, net, path);
    if (st) {
        assert_int_equal(access(path, F_OK), -1); /* nothing written */
        return st;
    }
    st = haze_fnn_load(ctx, path, back);
    remove(path);
    return st;
}

/* Training that diverges is an error, and what haze writes it reads: a rate
 * of 1e308 stops with HAZE_ERR_DOMAIN and a network that saves and loads;
 * data holding 1e308 trains to finite parameters; a network with a NaN is
 * not saved. */
static void test_divergence(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t n = 60, D = 2;
    haze__rng r;
    haze__rng_seed(&r, 13);
    double x[120], d[60], y[60];
    fill_uniform(&r, x, n * D, -1, 1);
    for (size_t i = 0; i < n; i++) d[i] = x[2 * i] + x[2 * i + 1];
    haze_fnn *net, *back = NULL;
    for (int regression = 0; regression < 2; regression++) {
        assert_int_equal(haze_fnn_new(ctx, D, regression ? 1 : 2, &net), HAZE_OK);
        haze_fnn_options o = haze_fnn_options_default();
        o.rate = 1e308;
        int lab[60];
        for (size_t i = 0; i < n; i++) lab[i] = d[i] > 0;
        int st = regression ? haze_fnn_train(ctx, net, x, d, n, &o)
                            : haze_fnn_train_classes(ctx, net, x, lab, n, &o);
        assert_int_equal(st, HAZE_ERR_DOMAIN);
        assert_non_null(strstr(haze_ctx_errmsg(ctx), "diverged"));
        if (haze_fnn_rule_count(net) > 0) {
            assert_int_equal(round_trip(ctx, net, &back), HAZE_OK);
            haze_fnn_free(back);
            back = NULL;
        }
        haze_fnn_free(net);
    }
    /* inputs and targets near DBL_MAX */
    x[0] = 1e308, x[3] = -1e308, d[5] = 1e308, d[7] = -1e308;
    assert_int_equal(haze_fnn_new(ctx, D, 1, &net), HAZE_OK);
    assert_int_equal(haze_fnn_train(ctx, net, x, d, n, NULL), HAZE_OK);
    assert_true(isfinite(haze_fnn_scale(net)[0]) && isfinite(haze_fnn_target_scale(net)[0]));
    assert_int_equal(round_trip(ctx, net, &back), HAZE_OK);
    assert_int_equal(haze_fnn_predict(ctx, back, x + 2, n - 1, y), HAZE_OK);
    haze_fnn_free(back);
    back = NULL;
    /* a NaN parameter: save refuses, writes nothing */
    haze_fnn_weights(net)[0] = NAN;
    assert_int_equal(round_trip(ctx, net, &back), HAZE_ERR_DOMAIN);
    assert_null(back);
    haze_fnn_free(net);
    haze_ctx_free(ctx);
}

/* Class labels and names come back from a model file exactly: spaces,
 * commas, quotes, a lone "-", an empty label and UTF-8; a line break is
 * refused. A version 1 file (bare names) still loads. */
static void test_names_exact(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *classes[] = {"grey soil", "x, y", "say \"hi\"",
                             "-",         "",     "na\xc3\xafve \xe2\x9c\x93"};
    const char *in[] = {"sepal length", "\"q\"", "-"};
    size_t L = 6, D = 3, n = 60;
    double x[180];
    int lab[60];
    haze__rng r;
    haze__rng_seed(&r, 17);
    fill_uniform(&r, x, n * D, 0, 1);
    for (size_t i = 0; i < n; i++) lab[i] = (int)(i % L);
    haze_fnn *net, *back = NULL;
    assert_int_equal(haze_fnn_new(ctx, D, L, &net), HAZE_OK);
    assert_int_equal(haze_fnn_set_classes(ctx, net, classes, L), HAZE_OK);
    assert_int_equal(haze_fnn_set_names(ctx, net, in, "soil type, \"grade\""), HAZE_OK);
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 2;
    assert_int_equal(haze_fnn_train_classes(ctx, net, x, lab, n, &o), HAZE_OK);
    assert_int_equal(round_trip(ctx, net, &back), HAZE_OK);
    for (size_t k = 0; k < L; k++) assert_string_equal(haze_fnn_class_name(back, k), classes[k]);
    for (size_t j = 0; j < D; j++) assert_string_equal(haze_fnn_input_name(back, j), in[j]);
    assert_string_equal(haze_fnn_target_name(back), "soil type, \"grade\"");
    haze_fnn_free(back);
    const char *broken[] = {"a", "b\nc", "d", "e", "f", "g"};
    assert_int_equal(haze_fnn_set_classes(ctx, net, broken, L), HAZE_ERR_INVALID);
    assert_string_equal(haze_fnn_class_name(net, 1), "x, y"); /* unchanged */
    haze_fnn_free(net);

    /* version 1: names were single tokens, "-" for none; no target scaling */
    char path[] = "/tmp/haze-fnn-v1-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs("haze-fnn 1\nkind classification\ninputs 2\noutputs 2\nrules 1\ntarget soil_type\n"
          "names a -\nclasses grey_soil red\nmean 0 0\nscale 1 1\nm 0 0\ns 1 1\nw 0.25 0.75\n"
          "end\n",
          fp);
    fclose(fp);
    assert_int_equal(haze_fnn_load(ctx, path, &back), HAZE_OK);
    assert_string_equal(haze_fnn_class_name(back, 0), "grey_soil");
    assert_string_equal(haze_fnn_target_name(back), "soil_type");
    assert_null(haze_fnn_input_name(back, 1));
    double y[2], x0[2] = {3, 4};
    assert_int_equal(haze_fnn_predict(ctx, back, x0, 1, y), HAZE_OK);
    assert_near(y[0], 0.25, 0);
    assert_near(y[1], 0.75, 0);
    haze_fnn_free(back);
    remove(path);
    haze_ctx_free(ctx);
}

/* What the step callback saw. */
typedef struct {
    int calls, epochs_seen, backwards, over, ends;
    int last_epoch;
    size_t last, total;
} step_seen;

static void on_step(void *arg, int epoch, size_t done, size_t total) {
    step_seen *p = arg;
    if (epoch != p->last_epoch) {
        p->backwards += epoch < p->last_epoch;
        p->epochs_seen++;
        p->last_epoch = epoch;
        p->last = 0;
    }
    p->backwards += done < p->last;
    p->over += done > total;
    p->ends += done == total;
    p->last = done;
    p->total = total;
    p->calls++;
}

/* Inside an epoch: about every step_every samples and at the epoch's end,
 * counts that never go back; training is the same as without the callback
 * (and a caller of an older, smaller haze_fnn_options gets none). */
static void test_step_progress(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    size_t n = 1000, D = 2;
    haze__rng r;
    haze__rng_seed(&r, 5);
    double *x = malloc(n * D * sizeof *x), *d = malloc(n * sizeof *d);
    fill_uniform(&r, x, n * D, -2, 2);
    for (size_t i = 0; i < n; i++) d[i] = sin(x[2 * i]) + x[2 * i + 1];
    haze_fnn *a, *b;
    assert_int_equal(haze_fnn_new(ctx, D, 1, &a), HAZE_OK);
    assert_int_equal(haze_fnn_new(ctx, D, 1, &b), HAZE_OK);
    haze_fnn_options o = haze_fnn_options_default();
    assert_null(o.step);
    assert_int_equal(o.step_every, 4096);
    o.epochs = 3;
    assert_int_equal(haze_fnn_train(ctx, a, x, d, n, &o), HAZE_OK);
    step_seen seen;
    memset(&seen, 0, sizeof seen);
    seen.last_epoch = -1;
    o.step = on_step;
    o.step_every = 100;
    o.progress_arg = &seen;
    assert_int_equal(haze_fnn_train(ctx, b, x, d, n, &o), HAZE_OK);
    /* 900 training samples (a tenth held out): 9 reports an epoch */
    assert_int_equal(seen.epochs_seen, 3);
    assert_int_equal(seen.calls, 27);
    assert_int_equal(seen.ends, 3);
    assert_int_equal(seen.total, 900);
    assert_int_equal(seen.backwards, 0);
    assert_int_equal(seen.over, 0);
    assert_int_equal(haze_fnn_rule_count(a), haze_fnn_rule_count(b));
    assert_memory_equal(haze_fnn_weights(a), haze_fnn_weights(b),
                        haze_fnn_rule_count(a) * sizeof(double));
    /* mini-batches of 64: a report when a batch passes a multiple of 100 */
    memset(&seen, 0, sizeof seen);
    seen.last_epoch = -1;
    o.batch = 64;
    o.epochs = 1;
    assert_int_equal(haze_fnn_train(ctx, b, x, d, n, &o), HAZE_OK);
    assert_int_equal(seen.calls, 9);
    assert_int_equal(seen.last, 900);
    /* an options struct of before the field: no step */
    memset(&seen, 0, sizeof seen);
    haze_fnn_options old;
    assert_int_equal(haze_fnn_options_init(&old, offsetof(haze_fnn_options, step)), HAZE_OK);
    memcpy(&old, &o, offsetof(haze_fnn_options, step));
    old.size = offsetof(haze_fnn_options, step);
    assert_int_equal(haze_fnn_train(ctx, b, x, d, n, &old), HAZE_OK);
    assert_int_equal(seen.calls, 0);
    haze_fnn_free(a);
    haze_fnn_free(b);
    free(x);
    free(d);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradient_finite_differences),
        cmocka_unit_test(test_online_step_is_gradient_step),
        cmocka_unit_test(test_batch_step_is_mean_gradient),
        cmocka_unit_test(test_structure_learning),
        cmocka_unit_test(test_regression_sine),
        cmocka_unit_test(test_letter_subset),
        cmocka_unit_test(test_high_dimension),
        cmocka_unit_test(test_model_file),
        cmocka_unit_test(test_global_scaling),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_fis_golden),
        cmocka_unit_test(test_regression_target_scale),
        cmocka_unit_test(test_best_epoch_and_rate_guard),
        cmocka_unit_test(test_divergence),
        cmocka_unit_test(test_names_exact),
        cmocka_unit_test(test_step_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
