/*
 * tests/test_fis_explain.c - what the CLI's plots read from a model:
 * haze_fis_mf_eval (the sets of `fis plot`), haze_fis_rule_term and
 * haze_fis_explain (the rules, implied sets and aggregate of `fis rules`).
 * The aggregate must be the set the evaluation defuzzifies: its centroid over
 * the evaluation's points is haze_fis_eval's value.
 */
#include <math.h>
#include <string.h>

#include "test_util.h"

static haze_fis *load(haze_ctx *ctx, const char *rel) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fis/%s", HAZE_TEST_DATA, rel);
    haze_fis *f = NULL;
    int st = haze_fis_load(ctx, path, &f);
    if (st) fail_msg("load %s: %s", path, haze_ctx_errmsg(ctx));
    return f;
}

static void test_mf_eval(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fis *f = load(ctx, "tipper.fis");
    /* food: rancid trapmf [0 0 1 3], delicious trapmf [7 9 10 10] */
    const double x[4] = {0, 2, 8, 10};
    double mu[4];
    assert_int_equal(haze_fis_mf_eval(ctx, f, 0, 1, 0, x, 4, mu), HAZE_OK);
    assert_true(mu[0] == 1 && mu[1] == 0.5 && mu[2] == 0 && mu[3] == 0);
    assert_int_equal(haze_fis_mf_eval(ctx, f, 0, 1, 1, x, 4, mu), HAZE_OK);
    assert_true(mu[0] == 0 && mu[1] == 0 && mu[2] == 0.5 && mu[3] == 1);
    assert_int_equal(haze_fis_mf_eval(ctx, f, 0, 1, 2, x, 4, mu), HAZE_ERR_INVALID);
    assert_int_equal(haze_fis_mf_eval(ctx, f, 1, 1, 0, x, 4, mu), HAZE_ERR_INVALID);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

static void test_rule_term(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fis *f = load(ctx, "tipper.fis");
    /* rule 2: if service is good then tip is average; food not named */
    assert_int_equal(haze_fis_rule_term(f, 1, 0, 0), 2);
    assert_int_equal(haze_fis_rule_term(f, 1, 0, 1), 0);
    assert_int_equal(haze_fis_rule_term(f, 1, 1, 0), 2);
    assert_int_equal(haze_fis_rule_term(f, 3, 0, 0), 0); /* no rule 4 */
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

static void test_explain_tipper(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fis *f = load(ctx, "tipper.fis");
    const int n = haze_fis_get_points(f);
    const double in[2] = {2, 1};
    double w[3], ys[1001], imp[3 * 1001], agg[1001], out;
    assert_true(n <= 1001);
    assert_int_equal(haze_fis_explain(ctx, f, in, 0, n, w, ys, imp, agg), HAZE_OK);
    /* MATLAB's ruleview at [2 1]: 1, exp(-2) (gaussmf sigma 1.5 at 3 from
     * the centre), and the tail of excellent */
    assert_true(w[0] == 1);
    assert_true(fabs(w[1] - exp(-2.0)) < 1e-12);
    assert_true(w[2] > 0 && w[2] < 1e-6);
    /* the aggregate is the max of the implied sets and defuzzifies to the value */
    double num = 0, den = 0;
    for (int k = 0; k < n; k++) {
        double m = fmax(imp[k], fmax(imp[n + k], imp[2 * n + k]));
        assert_true(agg[k] == m);
        num += ys[k] * agg[k];
        den += agg[k];
    }
    assert_int_equal(haze_fis_eval(ctx, f, in, 1, &out, NULL), HAZE_OK);
    assert_true(fabs(num / den - out) < 1e-12 * fabs(out));
    assert_int_equal(haze_fis_explain(ctx, f, in, 1, n, w, ys, imp, agg), HAZE_ERR_INVALID);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mf_eval),
        cmocka_unit_test(test_rule_term),
        cmocka_unit_test(test_explain_tipper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
