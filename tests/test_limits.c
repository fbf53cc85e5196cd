/*
 * tests/test_limits.c - hostile sizes: a limit is named in its message, a
 * precision MPFR cannot take is refused instead of aborting, a long unrolled
 * loop neither takes quadratic time (checked through what made it
 * quadratic, not with a clock) nor loses soundness, and a short image file
 * cannot make the reader allocate gigabytes.
 */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "prec/prec_internal.h"
#include "test_util.h"

static const char *fis_text(int num_rules) {
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "[System]\nName='t'\nType='mamdani'\nNumInputs=1\nNumOutputs=1\nNumRules=%d\n"
             "AndMethod='min'\nOrMethod='max'\nImpMethod='min'\nAggMethod='max'\n"
             "DefuzzMethod='centroid'\n\n[Input1]\nName='x'\nRange=[0 1]\nNumMFs=1\n"
             "MF1='a':'trimf',[0 0.5 1]\n\n[Output1]\nName='y'\nRange=[0 1]\nNumMFs=1\n"
             "MF1='b':'trimf',[0 0.5 1]\n\n[Rules]\n1, 1 (1) : 1\n",
             num_rules);
    return buf;
}

/* NumRules=200000 named the number as not a whole number. (Any count of
 * rules is read now: it must be the count the [Rules] section holds.) */
static void test_fis_rule_limit(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fis *f = NULL;
    assert_int_equal(haze_fis_parse(ctx, fis_text(1), "t.fis", &f), HAZE_OK);
    haze_fis_free(f);
    f = NULL;
    assert_int_equal(haze_fis_parse(ctx, fis_text(200000), "t.fis", &f), HAZE_ERR_PARSE);
    assert_null(f);
    const char *m = haze_ctx_errmsg(ctx);
    assert_non_null(strstr(m, "t.fis:6"));
    assert_non_null(strstr(m, "NumRules=200000 but the [Rules] section holds 1 rules"));
    assert_null(strstr(m, "whole number"));
    haze_ctx_free(ctx);
}

/* A precision above MPFR's maximum aborted inside mpfr_init2. */
static void test_prec_eval_precision(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_prec_script *s = NULL;
    assert_int_equal(haze_prec_parse(ctx, "x = 1 + 2;\n{ x in [2,4] }", "p.g", NULL, &s), HAZE_OK);
    double out[1];
    assert_int_equal(haze_prec_eval(ctx, s, NULL, 128, out), HAZE_OK);
    assert_true(out[0] == 3.0);
    assert_int_equal(haze_prec_eval(ctx, s, NULL, LONG_MAX, out), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "bits of precision"));
    assert_int_equal(haze_prec_eval(ctx, s, NULL, HAZE_PREC_EVAL_MAX_BITS + 1, out),
                     HAZE_ERR_INVALID);
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

/* An unrolled loop's counters 0, 1, 2, ... are constants whose doubles differ
 * in their high bits only: the node table's hash put them all in one chain
 * (parse time n^2). No run of occupied slots may be long. */
static void test_prec_loop_hash(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_prec_parse_options o = haze_prec_parse_options_default();
    o.unroll = 5000;
    haze_prec_script *s = NULL;
    const char *loop = "(FPCore (x) :pre (<= 1 x 2)\n"
                       " (while (< i 4000) ([i 0 (+ i 1)] [s 0 (+ s (* x 0.1))]) s))";
    assert_int_equal(haze_prec_parse(ctx, loop, "loop.fpcore", &o, &s), HAZE_OK);
    int run = 0, longest = 0;
    for (int j = 0; j < 2 * s->hash_cap; j++) {
        run = s->hash[j % s->hash_cap] >= 0 ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    assert_true(s->n_nodes > 8000);
    assert_true(longest < 64);
    /* the affine engine's bound (its forms are condensed past 256 terms)
     * encloses the error at sampled inputs */
    haze_prec_result *r = NULL;
    assert_int_equal(haze_prec_analyse(ctx, s, HAZE_PREC_AA, &r), HAZE_OK);
    for (int k = 0; k <= 8; k++) {
        double x = 1 + k / 8.0, e;
        assert_int_equal(haze_prec_eval(ctx, s, &x, 256, &e), HAZE_OK);
        assert_true(haze_prec_result_goal(r, 0)->lo <= e && e <= haze_prec_result_goal(r, 0)->hi);
    }
    assert_true(haze_prec_result_goal(r, 0)->hi > 0 && haze_prec_result_goal(r, 0)->hi < 1e-8);
    haze_prec_result_free(r);
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

/* A 27-byte ASCII PGM whose header asks for 1000000 x 2010 pixels made the
 * reader allocate 2 GB before it found the data missing. */
static void test_pgm_header_size(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    char path[] = "/tmp/haze-limits-XXXXXX.pgm";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    const char pgm[] = "P2 1000000 02010 055\n1 2 3\n";
    assert_int_equal(write(fd, pgm, sizeof pgm - 1), (long)(sizeof pgm - 1));
    close(fd);
    haze_image *im = NULL;
    assert_int_equal(haze_image_load(ctx, path, &im), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "truncated Netpbm data"));
    /* a small one still reads */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    const char ok[] = "P2 2 1 255 1 2";
    assert_int_equal(write(fd, ok, sizeof ok - 1), (long)(sizeof ok - 1));
    close(fd);
    assert_int_equal(haze_image_load(ctx, path, &im), HAZE_OK);
    haze_image_free(im);
    unlink(path);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fis_rule_limit),
        cmocka_unit_test(test_prec_eval_precision),
        cmocka_unit_test(test_prec_loop_hash),
        cmocka_unit_test(test_pgm_header_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
