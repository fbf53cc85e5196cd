/*
 * tests/test_locale.c - the library reads and writes numbers with a decimal
 * point after the host program switched to a locale with a decimal comma
 * (setlocale(LC_ALL, ...) as Qt and GTK applications do): .fis and .fll
 * models, CSV tables, matrices, .fnn models and their .fis export,
 * precision scripts and error messages. Skipped (77) where no such locale is
 * installed (scripts/install-deps.sh generates de_DE.UTF-8).
 */
#include <locale.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

static char *read_text(const char *p) {
    char *text = NULL;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    assert_int_equal(haze_io_read_file(ctx, p, &text, NULL), HAZE_OK);
    haze_ctx_free(ctx);
    return text;
}

static void test_fis(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fis *f;
    if (haze_fis_load(ctx, HAZE_TEST_DATA "/fis/tipper.fis", &f))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    double in[2] = {2, 1}, out[1];
    assert_int_equal(haze_fis_eval(ctx, f, in, 1, out, NULL), HAZE_OK);
    assert_true(fabs(out[0] - 7.0169) < 1e-4);
    /* written back with points, and read again */
    const char *p = haze_test_path("tipper.fis");
    assert_int_equal(haze_fis_save(ctx, f, p), HAZE_OK);
    char *text = read_text(p);
    if (!strstr(text, "Range=[0 10]") || strstr(text, ",5")) fail_msg("%s", text);
    free(text);
    haze_fis_free(f);
    if (haze_fis_load(ctx, p, &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_fis_free(f);

    /* fuzzylite: numbers and Function terms (the expression parser) */
    if (haze_fis_load(ctx, HAZE_TEST_DATA "/fis/fuzzylite/hybrid_tipper.fll", &f))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_fis_free(f);
    const char *fll = "Engine: e\nInputVariable: x\n  range: 0.000 1.000\n"
                      "  term: low Function 0.5 * x + 0.25\n"
                      "OutputVariable: y\n  range: 0.000 1.000\n  aggregation: Maximum\n"
                      "  defuzzifier: Centroid 100\n  default: nan\n"
                      "  term: high Triangle 0.250 0.500 0.750\n"
                      "RuleBlock: r\n  conjunction: Minimum\n  activation: General\n"
                      "  implication: Minimum\n  rule: if x is low then y is high\n";
    if (haze_fis_parse_fll(ctx, fll, "e.fll", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    double lo, hi;
    haze_fis_var_range(ctx, f, 1, 0, &lo, &hi);
    assert_true(lo == 0.0 && hi == 1.0);
    haze_fis_free(f);

    /* a number in an error message is written with a point */
    const char *bad = "[System]\nName='b'\nType='mamdani'\nNumInputs=1\nNumOutputs=1\nNumRules=1\n"
                      "[Input1]\nName='x'\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 0.5 1]\n"
                      "[Output1]\nName='y'\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 0.5 1]\n"
                      "[Rules]\n1, 1 (1.5) : 1\n";
    assert_int_equal(haze_fis_parse(ctx, bad, "b.fis", &f), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "1.5")) fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_ctx_free(ctx);
}

static void test_tables(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_table *t;
    const char *p = haze_test_write("t.csv", "x,y\n5.1,2.5e-1\n-0.125,3\n");
    if (haze_table_read(ctx, p, NULL, &t)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(haze_table_row_count(t), 2);
    assert_true(haze_table_data(t)[0] == 5.1 && haze_table_data(t)[1] == 0.25 &&
                haze_table_data(t)[2] == -0.125);
    haze_table_free(t);
    /* the locale's own "5,1" is two fields, not 5.1 */
    p = haze_test_write("c.csv", "5,1\n");
    if (haze_table_read(ctx, p, NULL, &t)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(haze_table_column_count(t), 2);
    haze_table_free(t);

    const double m[4] = {0.5, 1.25, -3e-5, 7};
    const char *names[] = {"a", "b"};
    p = haze_test_path("m.csv");
    assert_int_equal(haze_table_write(ctx, p, m, HAZE_PRECISION_F64, 2, 2, names), HAZE_OK);
    char *text = read_text(p);
    assert_string_equal(text, "a,b\n0.5,1.25\n-3.0000000000000001e-05,7\n");
    free(text);
    const float mf[2] = {0.5f, 1.25f};
    assert_int_equal(haze_table_write(ctx, p, mf, HAZE_PRECISION_F32, 1, 2, NULL), HAZE_OK);
    text = read_text(p);
    assert_string_equal(text, "0.5,1.25\n");
    free(text);
    haze_ctx_free(ctx);
}

static void test_fnn(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fnn *net, *back;
    assert_int_equal(haze_fnn_new(ctx, 2, 1, &net), HAZE_OK);
    const double x[8] = {0.1, 0.2, 0.9, 0.8, 0.5, 0.4, 0.3, 0.7}, d[4] = {0.5, 1.5, 1.0, 0.25};
    haze_fnn_options o = haze_fnn_options_default();
    o.epochs = 3;
    assert_int_equal(haze_fnn_train(ctx, net, x, d, 4, &o), HAZE_OK);
    assert_true(haze_fnn_rule_count(net) > 0);
    const char *p = haze_test_path("m.fnn");
    assert_int_equal(haze_fnn_save(ctx, net, p), HAZE_OK);
    char *text = read_text(p);
    if (strstr(text, ",")) fail_msg("a comma in the model:\n%s", text);
    free(text);
    if (haze_fnn_load(ctx, p, &back)) fail_msg("%s", haze_ctx_errmsg(ctx));
    double y1[4], y2[4];
    assert_int_equal(haze_fnn_predict(ctx, net, x, 4, y1), HAZE_OK);
    assert_int_equal(haze_fnn_predict(ctx, back, x, 4, y2), HAZE_OK);
    assert_memory_equal(y1, y2, sizeof y1); /* 17 digits: the same network */
    haze_fnn_free(back);

    /* the .fis export reads back and computes the same outputs */
    p = haze_test_path("m.fis");
    assert_int_equal(haze_fnn_export_fis(ctx, net, p), HAZE_OK);
    haze_fis *f;
    if (haze_fis_load(ctx, p, &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_fis_free(f);
    haze_fnn_free(net);
    haze_ctx_free(ctx);
}

static void test_prec(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_prec_script *s;
    const char *g = "y = 0.5 * x;\n{ x in [0.25, 1.5] -> y in ? }\n";
    if (haze_prec_parse(ctx, g, "s.g", NULL, &s)) fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_prec_result *r;
    if (haze_prec_analyse(ctx, s, HAZE_PREC_IA, &r)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_true(haze_prec_result_goal(r, 0)->lo == 0.125 &&
                haze_prec_result_goal(r, 0)->hi == 0.75);
    assert_string_equal(haze_prec_result_goal(r, 0)->lo_decimal, "0.125");
    assert_string_equal(haze_prec_result_goal(r, 0)->hi_decimal, "0.75");
    haze_prec_result_free(r);
    haze_prec_free(s);

    const char *fpcore = "(FPCore (x) :pre (<= 0.25 x 1.5) (* 0.5 x))";
    if (haze_prec_parse(ctx, fpcore, "s.fpcore", NULL, &s)) fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

int main(void) {
    static const char *const locales[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE",
                                          "fr_FR.UTF-8", "fr_FR.utf8", "fr_FR",
                                          "nl_NL.UTF-8", "ru_RU.UTF-8"};
    const char *got = NULL;
    for (size_t i = 0; !got && i < sizeof locales / sizeof *locales; i++)
        if (setlocale(LC_ALL, locales[i]) && strcmp(localeconv()->decimal_point, ",") == 0)
            got = locales[i];
    if (!got) {
        fprintf(stderr, "no locale with a decimal comma is installed: skipping\n");
        return HAZE_TEST_SKIP;
    }
    char probe[16];
    snprintf(probe, sizeof probe, "%g", 0.5);
    if (strcmp(probe, "0,5") != 0) {
        fprintf(stderr, "%s: printf writes %s: skipping\n", got, probe);
        return HAZE_TEST_SKIP;
    }
    fprintf(stderr, "locale %s\n", got);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fis),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_fnn),
        cmocka_unit_test(test_prec),
    };
    return cmocka_run_group_tests(tests, haze_test_dir_setup, haze_test_dir_teardown);
}
