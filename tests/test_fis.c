/*
 * tests/test_fis.c - the fuzzy inference engine on the CPU: MATLAB's
 * documented tipper results, Octave's evalfis on its six example systems
 * (golden files from scripts/golden/fis/), membership-function edge cases,
 * .fis round trips and bad input.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "core/rng.h"
#include "fis_dev.h"
#include "test_util.h"

static haze_ctx *cpu_ctx(void) {
    return haze_test_ctx(HAZE_BACKEND_CPU);
}

static haze_fis *load(haze_ctx *ctx, const char *rel) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fis/%s", HAZE_TEST_DATA, rel);
    haze_fis *f = NULL;
    int st = haze_fis_load(ctx, path, &f);
    if (st) fail_msg("load %s: %s", path, haze_ctx_errmsg(ctx));
    return f;
}

static void test_tipper_matlab(void **state) {
    (void)state;
    haze_ctx *ctx = cpu_ctx();
    haze_fis *f = load(ctx, "tipper.fis");
    assert_int_equal(haze_fis_input_count(f), 2);
    assert_int_equal(haze_fis_output_count(f), 1);
    const double in[8] = {2, 1, 4, 5, 7, 8, 1, 2};
    const double want[4] = {7.0169, 14.4585, 20.3414, 5.5586};
    double out[4];
    assert_int_equal(haze_fis_eval(ctx, f, in, 4, out, NULL), HAZE_OK);
    for (int i = 0; i < 4; i++) assert_true(fabs(out[i] - want[i]) < 0.5e-4);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* Every row of an Octave golden file, in OCTAVE mode, within 1e-6. */
static void check_octave(const char *base) {
    haze_ctx *ctx = cpu_ctx();
    char rel[256], path[1024];
    snprintf(rel, sizeof rel, "octave/%s.fis", base);
    haze_fis *f = load(ctx, rel);
    assert_int_equal(haze_fis_set_mode(ctx, f, HAZE_FIS_MODE_OCTAVE), HAZE_OK);
    snprintf(path, sizeof path, "%s/fis/octave/%s.csv", HAZE_TEST_DATA, base);
    haze_table_options ro = haze_table_options_default();
    ro.header = 0;
    haze_table *t = NULL;
    if (haze_table_read(ctx, path, &ro, &t)) fail_msg("%s", haze_ctx_errmsg(ctx));
    int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    assert_int_equal((int)haze_table_column_count(t), ni + no);
    double *in = malloc(sizeof(double) * haze_table_row_count(t) * (size_t)ni);
    double *out = malloc(sizeof(double) * haze_table_row_count(t) * (size_t)no);
    for (size_t r = 0; r < haze_table_row_count(t); r++)
        for (int j = 0; j < ni; j++)
            in[r * (size_t)ni + (size_t)j] =
                haze_table_data(t)[r * haze_table_column_count(t) + (size_t)j];
    assert_int_equal(haze_fis_eval(ctx, f, in, haze_table_row_count(t), out, NULL), HAZE_OK);
    for (size_t r = 0; r < haze_table_row_count(t); r++)
        for (int o = 0; o < no; o++) {
            double want = haze_table_data(t)[r * haze_table_column_count(t) + (size_t)(ni + o)];
            double got = out[r * (size_t)no + (size_t)o];
            if (!(fabs(got - want) <= 1e-6))
                fail_msg("%s row %zu output %d: %.10g, Octave %.10g", base, r + 1, o + 1, got,
                         want);
        }
    free(in);
    free(out);
    haze_table_free(t);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

static void test_octave_mamdani_tip(void **s) {
    (void)s;
    check_octave("mamdani_tip_calculator");
}
static void test_octave_investment(void **s) {
    (void)s;
    check_octave("investment_portfolio");
}
static void test_octave_heart(void **s) {
    (void)s;
    check_octave("heart_disease_risk");
}
static void test_octave_linear_tip(void **s) {
    (void)s;
    check_octave("linear_tip_calculator");
}
static void test_octave_sugeno_tip(void **s) {
    (void)s;
    check_octave("sugeno_tip_calculator");
}
static void test_octave_cubic(void **s) {
    (void)s;
    check_octave("cubic_approximator");
}

/* A one-input system whose only input MF is `mf`, for evaluating MFs
 * through the public API: a Sugeno output z = x picks up nothing, so use a
 * Mamdani output over [0 1] with a singleton-free triangle and read the
 * firing from the weighted average of a two-rule Sugeno system instead. */
static double mf_value(haze_ctx *ctx, const char *mf, double x) {
    char text[1024];
    snprintf(text, sizeof text,
             "[System]\nType='sugeno'\nNumInputs=1\nNumOutputs=1\nNumRules=2\n"
             "DefuzzMethod='wtsum'\n[Input1]\nRange=[-100 100]\nNumMFs=1\nMF1='a':%s\n"
             "[Output1]\nRange=[0 1]\nNumMFs=1\nMF1='one':'constant',[1]\n"
             "[Rules]\n1, 1 (1) : 1\n0, 0 (1) : 1\n",
             mf);
    haze_fis *f = NULL;
    if (haze_fis_parse(ctx, text, "mf", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_fis_set_nan_if_no_rule(f, 1);
    double y = -1;
    assert_int_equal(haze_fis_eval(ctx, f, &x, 1, &y, NULL), HAZE_OK);
    haze_fis_free(f);
    return isnan(y) ? 0.0 : y;
}

static void test_membership_functions(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    /* MATLAB's definitions, including degenerate parameters */
    assert_true(fabs(mf_value(ctx, "'trimf',[0 5 10]", 2.5) - 0.5) < 1e-15);
    assert_true(mf_value(ctx, "'trimf',[0 0 10]", 0) == 1.0);   /* a == b */
    assert_true(mf_value(ctx, "'trimf',[0 10 10]", 10) == 1.0); /* b == c */
    assert_true(mf_value(ctx, "'trimf',[5 5 5]", 5) == 1.0);
    assert_true(mf_value(ctx, "'trimf',[5 5 5]", 5.1) == 0.0);
    assert_true(mf_value(ctx, "'trapmf',[0 0 1 3]", 0) == 1.0);
    assert_true(fabs(mf_value(ctx, "'trapmf',[0 0 1 3]", 2) - 0.5) < 1e-15);
    assert_true(mf_value(ctx, "'trapmf',[1 1 1 1]", 1) == 1.0);
    assert_true(fabs(mf_value(ctx, "'gaussmf',[2 1]", 3) - exp(-0.5)) < 1e-15);
    assert_true(mf_value(ctx, "'gaussmf',[0 1]", 1) == 1.0);
    assert_true(mf_value(ctx, "'gaussmf',[0 1]", 2) == 0.0);
    assert_true(fabs(mf_value(ctx, "'gbellmf',[2 4 6]", 8) - 0.5) < 1e-15);
    assert_true(fabs(mf_value(ctx, "'sigmf',[2 4]", 4) - 0.5) < 1e-15);
    assert_true(fabs(mf_value(ctx, "'smf',[1 8]", 4.5) - 0.5) < 1e-15);
    assert_true(fabs(mf_value(ctx, "'zmf',[1 8]", 4.5) - 0.5) < 1e-15);
    assert_true(mf_value(ctx, "'smf',[3 3]", 3) == 1.0);
    assert_true(mf_value(ctx, "'zmf',[3 3]", 3.5) == 0.0);
    assert_true(fabs(mf_value(ctx, "'pimf',[1 4 5 10]", 4.5) - 1.0) < 1e-15);
    assert_true(fabs(mf_value(ctx, "'gauss2mf',[1 3 1 5]", 4) - 1.0) < 1e-15);
    assert_true(fabs(mf_value(ctx, "'dsigmf',[5 2 5 7]", 4.5) -
                     fabs(1 / (1 + exp(-12.5)) - 1 / (1 + exp(12.5)))) < 1e-15);
    assert_true(fabs(mf_value(ctx, "'psigmf',[2 3 -5 8]", 3) - 0.5 / (1 + exp(-25))) < 1e-15);
    assert_true(fabs(mf_value(ctx, "'linsmf',[2 4]", 3) - 0.5) < 1e-15);
    assert_true(mf_value(ctx, "'linsmf',[2 2]", 2) == 1.0);
    assert_true(fabs(mf_value(ctx, "'linzmf',[2 4]", 3) - 0.5) < 1e-15);
    assert_true(mf_value(ctx, "'linzmf',[2 2]", 2) == 1.0);
    /* old files pad with zeros: the first n parameters are used */
    assert_true(fabs(mf_value(ctx, "'trimf',[0 5 10 0]", 2.5) - 0.5) < 1e-15);
    haze_ctx_free(ctx);
}

static void test_no_rule_and_clamp(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *text = "[System]\nName='x'\nNumInputs=1\nNumOutputs=1\nNumRules=1\n"
                       "[Input1]\nRange=[0 10]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n"
                       "[Output1]\nRange=[0 20]\nNumMFs=1\nMF1='b':'trimf',[0 5 10]\n"
                       "[Rules]\n1, 1 (1) : 1\n";
    haze_fis *f = NULL;
    assert_int_equal(haze_fis_parse(ctx, text, "t", &f), HAZE_OK);
    double in[3] = {5, -3, 1}, out[3];
    haze_fis_stats st = haze_fis_stats_init();
    assert_int_equal(haze_fis_eval(ctx, f, in, 3, out, &st), HAZE_OK);
    assert_true(out[0] == 10.0); /* MATLAB: mid-range */
    assert_true(out[1] == 10.0); /* -3 clamped to 0: no rule fires */
    assert_true(fabs(out[2] - 5.0) < 1e-12);
    assert_int_equal((int)st.no_rule, 2);
    assert_int_equal((int)st.clamped, 1);
    haze_fis_set_nan_if_no_rule(f, 1);
    assert_int_equal(haze_fis_eval(ctx, f, in, 1, out, NULL), HAZE_OK);
    assert_true(isnan(out[0]));
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

static void test_defuzz_methods(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    /* a symmetric triangle on [0 30]: every method gives 15 (MATLAB mode) */
    const char *meth[] = {"centroid", "bisector", "mom", "som", "lom"};
    for (int i = 0; i < 5; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "[System]\nDefuzzMethod='%s'\n[Input1]\nRange=[0 1]\nNumMFs=1\n"
                 "MF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 30]\nNumMFs=1\n"
                 "MF1='b':'trimf',[10 15 20]\n[Rules]\n1, 1 (1) : 1\n",
                 meth[i]);
        haze_fis *f = NULL;
        if (haze_fis_parse(ctx, text, "t", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
        double x = 1.0, y = 0;
        assert_int_equal(haze_fis_eval(ctx, f, &x, 1, &y, NULL), HAZE_OK);
        if (fabs(y - 15.0) > 1e-9) fail_msg("%s: %g", meth[i], y);
        haze_fis_free(f);
    }
    haze_ctx_free(ctx);
}

/* EXACT mode against closed forms worked out by hand: one output trimf
 * [2 4 12] on [0 20], fired at w = 0.5 (input trimf [0 1 2] at x = 0.5).
 * min: the trapezoid (2,0) (3,.5) (8,.5) (12,0); prod: the triangle at .5. */
static double exact_one(haze_ctx *ctx, const char *imp, const char *meth) {
    char text[1024];
    snprintf(text, sizeof text,
             "[System]\nImpMethod='%s'\nDefuzzMethod='%s'\n[Input1]\nRange=[0 1]\nNumMFs=1\n"
             "MF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 20]\nNumMFs=1\n"
             "MF1='b':'trimf',[2 4 12]\n[Rules]\n1, 1 (1) : 1\n",
             imp, meth);
    haze_fis *f = NULL;
    if (haze_fis_parse(ctx, text, "t", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(haze_fis_set_mode(ctx, f, HAZE_FIS_MODE_EXACT), HAZE_OK);
    double x = 0.5, y = 0;
    if (haze_fis_eval(ctx, f, &x, 1, &y, NULL)) fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_fis_free(f);
    return y;
}

static void test_exact_closed_forms(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    /* centroid of the trapezoid by the shoelace formula over its corners */
    const double px[4] = {2, 3, 8, 12}, py[4] = {0, .5, .5, 0};
    double a2 = 0, cx = 0;
    for (int i = 0; i < 4; i++) {
        int j = (i + 1) % 4;
        double c = px[i] * py[j] - px[j] * py[i];
        a2 += c;
        cx += (px[i] + px[j]) * c;
    }
    const double cen = cx / (3.0 * a2);
    /* bisector: left triangle has area .25, the plateau adds .5 per unit,
     * half of 3.75 is reached at 3 + (1.875 - .25) / .5 = 6.25 */
    assert_true(fabs(exact_one(ctx, "min", "centroid") - cen) < 1e-12);
    assert_true(fabs(exact_one(ctx, "min", "bisector") - 6.25) < 1e-12);
    assert_true(fabs(exact_one(ctx, "min", "mom") - 5.5) < 1e-12);
    assert_true(fabs(exact_one(ctx, "min", "som") - 3.0) < 1e-12);
    assert_true(fabs(exact_one(ctx, "min", "lom") - 8.0) < 1e-12);
    /* prod: centroid of a triangle is the mean of its corners; the bisector
     * leaves area 2.5 = (12 - x)^2 / 16 right of x; the peak is at 4 */
    assert_true(fabs(exact_one(ctx, "prod", "centroid") - 6.0) < 1e-12);
    assert_true(fabs(exact_one(ctx, "prod", "bisector") - (12.0 - sqrt(40.0))) < 1e-12);
    assert_true(fabs(exact_one(ctx, "prod", "mom") - 4.0) < 1e-12);
    assert_true(fabs(exact_one(ctx, "prod", "lom") - 4.0) < 1e-12);

    /* two clipped triangles under max: trimf [0 4 8] at .5 and [4 8 12] at
     * 1; the rising edge of the second meets the plateau .5 of the first at
     * x = 6, so the aggregate is the polygon (0,0) (2,.5) (6,.5) (8,1) (12,0) */
    const char *two = "[System]\nDefuzzMethod='centroid'\n[Input1]\nRange=[0 1]\nNumMFs=1\n"
                      "MF1='a':'trimf',[0 1 2]\n[Input2]\nRange=[0 1]\nNumMFs=1\n"
                      "MF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 12]\nNumMFs=2\n"
                      "MF1='b':'trimf',[0 4 8]\nMF2='c':'trimf',[4 8 12]\n"
                      "[Rules]\n1 0, 1 (1) : 1\n0 1, 2 (1) : 1\n";
    haze_fis *f = NULL;
    if (haze_fis_parse(ctx, two, "two", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(haze_fis_set_mode(ctx, f, HAZE_FIS_MODE_EXACT), HAZE_OK);
    const double qx[6] = {0, 2, 6, 8, 12, 0}, qy[6] = {0, .5, .5, 1, 0, 0};
    a2 = cx = 0;
    for (int i = 0; i < 5; i++) {
        double c = qx[i] * qy[i + 1] - qx[i + 1] * qy[i];
        a2 += c;
        cx += (qx[i] + qx[i + 1]) * c;
    }
    double in[2] = {0.5, 1.0}, y = 0;
    assert_int_equal(haze_fis_eval(ctx, f, in, 1, &y, NULL), HAZE_OK);
    assert_true(fabs(y - cx / (3.0 * a2)) < 1e-12);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* A random system with piecewise-linear outputs (widths >= 1 on [0 10]) and
 * three rules whose degrees are the inputs (in [0.1, 1]). */
static void random_pl_fis(haze__rng *g, char *text, size_t cap, const char *imp, const char *agg,
                          const char *meth) {
    int n = snprintf(text, cap,
                     "[System]\nImpMethod='%s'\nAggMethod='%s'\nDefuzzMethod='%s'\n"
                     "[Input1]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n"
                     "[Input2]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n"
                     "[Input3]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n"
                     "[Output1]\nRange=[0 10]\nNumMFs=3\n",
                     imp, agg, meth);
    for (int k = 0; k < 3; k++) {
        double p[4];
        p[0] = haze__rng_uniform(g) * 5.0;
        for (int j = 1; j < 4; j++) p[j] = p[j - 1] + 1.0 + haze__rng_uniform(g) * 1.5;
        int t = (int)(haze__rng_uniform(g) * 4.0);
        static const char *const types[4] = {"trimf", "trapmf", "linsmf", "linzmf"};
        static const int np[4] = {3, 4, 2, 2};
        n += snprintf(text + n, cap - (size_t)n, "MF%d='m%d':'%s',[", k + 1, k, types[t]);
        for (int j = 0; j < np[t]; j++)
            n += snprintf(text + n, cap - (size_t)n, "%s%.17g", j ? " " : "", p[j]);
        n += snprintf(text + n, cap - (size_t)n, "]\n");
    }
    snprintf(text + n, cap - (size_t)n,
             "[Rules]\n1 0 0, 1 (1) : 1\n0 1 0, 2 (1) : 1\n0 0 1, 3 (1) : 1\n");
}

/* EXACT mode is the limit of the sampling modes. With N = 10^6 points
 * (h = 1e-5) on [0 10]: trapz (OCTAVE mode) integrates each linear piece
 * exactly, so its error comes from the cells holding one of the K <= 40
 * kinks, at most S h^2 / 4 each for a slope jump S <= 2 (widths >= 1,
 * two overlapping edges); numerator and denominator then err by at most
 * K S h^2 / 4 * 10 = 2e-8, over an area >= 0.1: a centroid within 1e-6.
 * MATLAB's first-point bisector and sampled maximisers are off by at most
 * a cell plus the area error over the height there: 1e-3 holds. */
static void test_exact_limit(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    haze__rng g;
    haze__rng_seed(&g, 4004);
    const int reps = getenv("HAZE_TEST_QUICK") ? 1 : 3, rows = 4;
    const char *imps[2] = {"min", "prod"}, *aggs[2] = {"max", "sum"};
    const char *meths[5] = {"centroid", "bisector", "mom", "som", "lom"};
    char text[4096];
    for (int rep = 0; rep < reps; rep++)
        for (int c = 0; c < 4; c++)
            for (int m = 0; m < 5; m++) {
                /* sum aggregation: only the centroid; mom etc. of a sum of
                 * slopes have no plateau to sample exactly */
                if (c >= 2 && m > 1) continue;
                random_pl_fis(&g, text, sizeof text, imps[c & 1], aggs[c >> 1], meths[m]);
                haze_fis *f = NULL;
                if (haze_fis_parse(ctx, text, "rnd", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
                double in[3 * 4], ye[4], ys[4];
                for (int i = 0; i < 3 * rows; i++) in[i] = 0.1 + 0.9 * haze__rng_uniform(&g);
                assert_int_equal(haze_fis_set_mode(ctx, f, HAZE_FIS_MODE_EXACT), HAZE_OK);
                if (haze_fis_eval(ctx, f, in, rows, ye, NULL)) fail_msg("%s", haze_ctx_errmsg(ctx));
                haze_fis_set_mode(ctx, f, m == 0 ? HAZE_FIS_MODE_OCTAVE : HAZE_FIS_MODE_MATLAB);
                assert_int_equal(haze_fis_set_points(ctx, f, 1000000), HAZE_OK);
                assert_int_equal(haze_fis_eval(ctx, f, in, rows, ys, NULL), HAZE_OK);
                const double tol = m == 0 ? 1e-6 : 1e-3;
                for (int r = 0; r < rows; r++)
                    if (!(fabs(ye[r] - ys[r]) <= tol))
                        fail_msg("%s %s %s row %d: exact %.12g sampled %.12g\n%s", imps[c & 1],
                                 aggs[c >> 1], meths[m], r, ye[r], ys[r], text);
                haze_fis_free(f);
            }
    /* MATLAB's tipper: its output set vanishes at both ends of [0 30], so
     * MATLAB's sums are trapz there and the same bound applies (1e-5) */
    haze_fis *t = load(ctx, "tipper.fis");
    double in[8] = {2, 1, 4, 5, 7, 8, 1, 2}, ye[4], ys[4];
    assert_int_equal(haze_fis_set_mode(ctx, t, HAZE_FIS_MODE_EXACT), HAZE_OK);
    assert_int_equal(haze_fis_eval(ctx, t, in, 4, ye, NULL), HAZE_OK);
    haze_fis_set_mode(ctx, t, HAZE_FIS_MODE_MATLAB);
    assert_int_equal(haze_fis_set_points(ctx, t, 1000000), HAZE_OK);
    assert_int_equal(haze_fis_eval(ctx, t, in, 4, ys, NULL), HAZE_OK);
    for (int r = 0; r < 4; r++) assert_true(fabs(ye[r] - ys[r]) < 1e-5);
    haze_fis_free(t);
    haze_ctx_free(ctx);
}

/* EXACT mode refuses what is not piecewise linear, naming it. */
static void test_exact_refused(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    haze_fis *t = load(ctx, "tipper.fis");
    haze_fis_mode md;
    assert_int_equal(haze_fis_mode_parse(NULL, "exact", &md), HAZE_OK);
    assert_int_equal(haze_fis_set_mode(ctx, t, md), HAZE_OK);
    double x[2] = {1, 1}, y;
    /* tipper has gaussmf inputs only: its outputs are trimf, so it is fine */
    assert_int_equal(haze_fis_eval(ctx, t, x, 1, &y, NULL), HAZE_OK);
    haze_fis_free(t);
    const char *g = "[System]\n[Input1]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n"
                    "[Output1]\nName='out'\nRange=[0 10]\nNumMFs=1\nMF1='bump':'gaussmf',[1 5]\n"
                    "[Rules]\n1, 1 (1) : 1\n";
    assert_int_equal(haze_fis_parse(ctx, g, "g", &t), HAZE_OK);
    haze_fis_set_mode(ctx, t, HAZE_FIS_MODE_EXACT);
    assert_int_equal(haze_fis_eval(ctx, t, x, 1, &y, NULL), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "'bump'"));
    haze_fis_free(t);
    const char *p = "[System]\nAggMethod='probor'\n[Input1]\nRange=[0 1]\nNumMFs=1\n"
                    "MF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 10]\nNumMFs=1\n"
                    "MF1='b':'trimf',[1 5 9]\n[Rules]\n1, 1 (1) : 1\n";
    assert_int_equal(haze_fis_parse(ctx, p, "p", &t), HAZE_OK);
    haze_fis_set_mode(ctx, t, HAZE_FIS_MODE_EXACT);
    assert_int_equal(haze_fis_eval(ctx, t, x, 1, &y, NULL), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "probor"));
    haze_fis_free(t);
    haze_ctx_free(ctx);
}

static void test_roundtrip(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *files[] = {"tipper.fis", "octave/investment_portfolio.fis",
                           "octave/linear_tip_calculator.fis", "octave/heart_disease_risk.fis"};
    for (int i = 0; i < 4; i++) {
        haze_fis *a = load(ctx, files[i]);
        char tmp[] = "/tmp/haze-fis-XXXXXX";
        int fd = mkstemp(tmp);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(haze_fis_save(ctx, a, tmp), HAZE_OK);
        haze_fis *b = NULL;
        if (haze_fis_load(ctx, tmp, &b)) fail_msg("%s", haze_ctx_errmsg(ctx));
        remove(tmp);
        int ni = haze_fis_input_count(a), no = haze_fis_output_count(a);
        assert_int_equal(ni, haze_fis_input_count(b));
        assert_int_equal(no, haze_fis_output_count(b));
        assert_int_equal(haze_fis_rule_count(a), haze_fis_rule_count(b));
        /* identical results on random inputs */
        double in[200 * 8], oa[200 * 4], ob[200 * 4];
        srand(7);
        for (int k = 0; k < 200 * ni; k++) {
            double lo, hi;
            haze_fis_var_range(NULL, a, 0, k % ni, &lo, &hi);
            in[k] = lo + (hi - lo) * rand() / (double)RAND_MAX;
        }
        assert_int_equal(haze_fis_eval(ctx, a, in, 200, oa, NULL), HAZE_OK);
        assert_int_equal(haze_fis_eval(ctx, b, in, 200, ob, NULL), HAZE_OK);
        assert_memory_equal(oa, ob, sizeof(double) * 200 * (size_t)no);
        haze_fis_free(a);
        haze_fis_free(b);
    }
    haze_ctx_free(ctx);
}

/* Malformed files: a parse error whose message names the line. */
static void expect_parse_error(haze_ctx *ctx, const char *text, const char *want) {
    haze_fis *f = (haze_fis *)1;
    int st = haze_fis_parse(ctx, text, "bad.fis", &f);
    if (st != HAZE_ERR_PARSE) fail_msg("expected a parse error for:\n%s", text);
    assert_null(f);
    if (!strstr(haze_ctx_errmsg(ctx), want))
        fail_msg("message '%s' lacks '%s'", haze_ctx_errmsg(ctx), want);
}

static void test_bad_input(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *head = "[System]\nName='x'\nNumInputs=1\nNumOutputs=1\n";
    const char *out1 = "[Output1]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n";
    char t[2048];
    expect_parse_error(ctx, "", "bad.fis:1:");
    expect_parse_error(ctx, "[System]\nColour='red'\n", "bad.fis:2: unknown key 'Colour'");
    expect_parse_error(ctx, "[Sistem]\n", "bad.fis:1: unknown section");
    snprintf(t, sizeof t, "%s[Input1]\nRange=[0 1]\nNumMFs=1\nMF1='a':'wibblemf',[0 1 2]\n", head);
    expect_parse_error(ctx, t, "bad.fis:8: unknown MF type 'wibblemf'");
    snprintf(t, sizeof t, "%s[Input1]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 x 2]\n", head);
    expect_parse_error(ctx, t, "bad.fis:8: expected a list of numbers");
    snprintf(t, sizeof t, "%s[Input1]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 1]\n%s", head,
             out1);
    expect_parse_error(ctx, t, "bad.fis:8: MF 'a' of type trimf needs 3 parameters, got 2");
    snprintf(t, sizeof t,
             "%s[Input1]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 "
             "1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n[Rules]\n2, 1 (1) : 1\n",
             head);
    expect_parse_error(ctx, t, "bad.fis:14: rule 1 names MF 2 of input 1");
    snprintf(t, sizeof t,
             "%s[Input1]\nRange=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 "
             "1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n[Rules]\n1 1, 1 (1) : 1\n",
             head);
    expect_parse_error(ctx, t, "bad.fis:14: rule has 2 antecedent");
    snprintf(t, sizeof t, "%s[Input1]\nRange=[0 1]\nNumMFs=2\nMF1='a':'trimf',[0 1 2]\n%s", head,
             out1);
    expect_parse_error(ctx, t, "MF2 is missing");
    expect_parse_error(ctx, "[System]\nNumInputs=two\n",
                       "bad.fis:2: NumInputs: expected a whole number");
    snprintf(t, sizeof t, "%s[Input1]\nRange=[1 0]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n%s", head,
             out1);
    expect_parse_error(ctx, t, "bad.fis:6: Range");
    /* a Mamdani output of range [0 0] (a Sugeno one is loaded) */
    snprintf(t, sizeof t,
             "%s[Input1]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 0]\nNumMFs=1\n"
             "MF1='a':'trimf',[0 1 2]\n",
             head);
    expect_parse_error(ctx, t, "bad.fis:9: Range [0 0]: expected min < max");
    /* an expression that is not one of numbers says what was read */
    snprintf(t, sizeof t, "%s[Input1]\nRange=[0 foo]\n", head);
    expect_parse_error(ctx, t, "bad.fis:6: Range: expected [min max], two numbers (or MATLAB");
    /* truncated file: sections missing */
    expect_parse_error(ctx, head, "section [Input1] is missing");
    /* a missing file is an I/O error */
    haze_fis *f = NULL;
    assert_int_equal(haze_fis_load(ctx, "/nonexistent/x.fis", &f), HAZE_ERR_IO);
    haze_ctx_free(ctx);
}

/* Every prefix of a real file, and single-byte corruptions of it: parsed
 * or refused with a message, never a crash (run under the sanitizers). */
static void test_truncations(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    char *buf = NULL;
    size_t len = 0;
    assert_int_equal(
        haze_io_read_file(ctx, HAZE_TEST_DATA "/fis/octave/investment_portfolio.fis", &buf, &len),
        HAZE_OK);
    char *t = malloc(len + 1);
    size_t step = getenv("HAZE_TEST_QUICK") ? 7 : 1;
    for (size_t cut = 0; cut < len; cut += step) {
        memcpy(t, buf, cut);
        t[cut] = '\0';
        haze_fis *f = NULL;
        int st = haze_fis_parse(ctx, t, "cut.fis", &f);
        if (st == HAZE_OK) {
            double in[2] = {50, 50}, out[1];
            assert_int_equal(haze_fis_eval(ctx, f, in, 1, out, NULL), HAZE_OK);
            haze_fis_free(f);
        } else {
            assert_int_equal(st, HAZE_ERR_PARSE);
            assert_non_null(strstr(haze_ctx_errmsg(ctx), "cut.fis:"));
        }
    }
    const char junk[] = {'[', ']', ',', ':', '\'', '(', ')', '=', '-', '9', 'x', '\n', ' '};
    for (size_t i = 0; i < len; i += step) {
        memcpy(t, buf, len + 1);
        t[i] = junk[i % sizeof junk];
        haze_fis *f = NULL;
        if (haze_fis_parse(ctx, t, "junk.fis", &f) == HAZE_OK) {
            double in[2] = {50, 50}, out[1];
            assert_int_equal(haze_fis_eval(ctx, f, in, 1, out, NULL), HAZE_OK);
            haze_fis_free(f);
        }
    }
    free(t);
    free(buf);
    haze_ctx_free(ctx);
}

/* Batches (output MFs tabulated, fast centroid path) and single rows (MFs
 * computed at each point, general path) must agree to the bit. */
static void test_fast_path_identical(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *files[] = {"tipper.fis", "octave/mamdani_tip_calculator.fis",
                           "octave/investment_portfolio.fis"};
    for (int m = 0; m < 3; m++)
        for (int mode = 0; mode < 3; mode++) {
            haze_fis *f = load(ctx, files[m]);
            haze_fis_set_mode(ctx, f,
                              mode == 2 ? HAZE_FIS_MODE_FUZZYLITE
                              : mode    ? HAZE_FIS_MODE_OCTAVE
                                        : HAZE_FIS_MODE_MATLAB);
            int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
            double in[300 * 2], a[300 * 2], b[2];
            for (int k = 0; k < 300 * ni; k++) {
                double lo, hi;
                haze_fis_var_range(NULL, f, 0, k % ni, &lo, &hi);
                in[k] = lo + (hi - lo) * rand() / (double)RAND_MAX;
            }
            assert_int_equal(haze_fis_eval(ctx, f, in, 300, a, NULL), HAZE_OK);
            for (int r = 0; r < 300; r++) {
                assert_int_equal(haze_fis_eval(ctx, f, in + r * ni, 1, b, NULL), HAZE_OK);
                assert_memory_equal(a + r * no, b, sizeof(double) * (size_t)no);
            }
            haze_fis_free(f);
        }
    haze_ctx_free(ctx);
}

/* A random Mamdani system in the class of haze__fis_eval_row_plain: 1-4
 * inputs with 1-4 MFs of MATLAB's types, 1-2 outputs with 1-6 MFs, 1-12
 * rules with NOT, "none" antecedents, AND or OR and weights. */
static void random_plain_fis(haze__rng *g, char *text, size_t cap, int prod) {
    static const char *const types[] = {"trimf",   "trapmf", "gaussmf", "gauss2mf",
                                        "gbellmf", "sigmf",  "dsigmf",  "psigmf",
                                        "pimf",    "smf",    "zmf"};
    static const int np[] = {3, 4, 2, 4, 3, 2, 4, 4, 4, 2, 2};
    const int ni = 1 + (int)haze__rng_below(g, 4), no = 1 + (int)haze__rng_below(g, 2),
              nr = 1 + (int)haze__rng_below(g, 12);
    int nmf[6], n = 0;
    n += snprintf(text + n, cap - (size_t)n,
                  "[System]\nType='mamdani'\nNumInputs=%d\nNumOutputs=%d\nNumRules=%d\n"
                  "AndMethod='%s'\nOrMethod='max'\nImpMethod='%s'\nAggMethod='max'\n"
                  "DefuzzMethod='centroid'\n",
                  ni, no, nr, haze__rng_below(g, 2) ? "min" : "prod", prod ? "prod" : "min");
    for (int v = 0; v < ni + no; v++) {
        const int out = v >= ni;
        nmf[v] = 1 + (int)haze__rng_below(g, out ? 6 : 4);
        n += snprintf(text + n, cap - (size_t)n, "[%s%d]\nRange=[0 10]\nNumMFs=%d\n",
                      out ? "Output" : "Input", out ? v - ni + 1 : v + 1, nmf[v]);
        for (int k = 0; k < nmf[v]; k++) {
            int t = (int)haze__rng_below(g, out ? 2 : 11);
            double p[4];
            p[0] = haze__rng_uniform(g) * 6.0 - 1.0;
            for (int j = 1; j < 4; j++) p[j] = p[j - 1] + 0.5 + haze__rng_uniform(g) * 3.0;
            if (t == 2 || t == 3 || t == 4 || t == 5 || t == 6 || t == 7) { /* width, centre */
                p[0] = 0.3 + haze__rng_uniform(g) * 2.0;
                p[1] = haze__rng_uniform(g) * 10.0;
                if (t == 4) p[2] = p[1], p[1] = 1.0 + haze__rng_uniform(g) * 2.0;
                if (t >= 5) p[0] = (haze__rng_uniform(g) - 0.5) * 6.0;
                if (t == 3 || t >= 6)
                    p[2] = 0.3 + haze__rng_uniform(g) * 2.0,
                    p[3] = p[1] + haze__rng_uniform(g) * 4.0;
            }
            n += snprintf(text + n, cap - (size_t)n, "MF%d='m%d':'%s',[", k + 1, k, types[t]);
            for (int j = 0; j < np[t]; j++)
                n += snprintf(text + n, cap - (size_t)n, "%s%.17g", j ? " " : "", p[j]);
            n += snprintf(text + n, cap - (size_t)n, "]\n");
        }
    }
    n += snprintf(text + n, cap - (size_t)n, "[Rules]\n");
    for (int r = 0; r < nr; r++) {
        for (int v = 0; v < ni + no; v++) {
            int c = (int)haze__rng_below(g, (unsigned)nmf[v] + 1);
            if (v < ni && c && haze__rng_below(g, 5) == 0) c = -c;
            if (v == ni && c == 0) c = 1; /* every rule concludes something */
            n += snprintf(text + n, cap - (size_t)n, v == ni ? ", %d" : " %d", c);
        }
        n += snprintf(text + n, cap - (size_t)n, " (%.3g) : %d\n",
                      0.25 + 0.75 * haze__rng_uniform(g), 1 + (int)haze__rng_below(g, 2));
    }
}

/* The common-class row (haze__fis_eval_row_plain, batches with the output
 * MFs tabulated) and the general row (single rows, MFs computed at each
 * point) agree to the bit on random models, inputs partly out of range. */
static void test_plain_row_identical(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    haze__rng g;
    haze__rng_seed(&g, 7007);
    char text[8192];
    const int models = getenv("HAZE_TEST_QUICK") ? 40 : 200, rows = 64;
    for (int m = 0; m < models; m++) {
        random_plain_fis(&g, text, sizeof text, m & 1);
        haze_fis *f = NULL;
        if (haze_fis_parse(ctx, text, "rnd", &f)) fail_msg("%s\n%s", haze_ctx_errmsg(ctx), text);
        haze_fis_set_mode(ctx, f, (m >> 1) & 1 ? HAZE_FIS_MODE_OCTAVE : HAZE_FIS_MODE_MATLAB);
        assert_int_equal(haze_dev_fis_plain(f), 1);
        const int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
        double in[64 * 4], a[64 * 2], b[2];
        for (int k = 0; k < rows * ni; k++) in[k] = haze__rng_uniform(&g) * 12.0 - 1.0;
        assert_int_equal(haze_fis_eval(ctx, f, in, (size_t)rows, a, NULL), HAZE_OK);
        for (int r = 0; r < rows; r++) {
            assert_int_equal(haze_fis_eval(ctx, f, in + r * ni, 1, b, NULL), HAZE_OK);
            if (memcmp(a + r * no, b, sizeof(double) * (size_t)no) != 0)
                fail_msg("model %d row %d: %.17g vs %.17g\n%s", m, r, a[r * no], b[0], text);
        }
        haze_fis_free(f);
    }
    /* outside the class: a NOT in a consequent, sum aggregation, a Sugeno system */
    static const char *const outside[] = {"1, -1 (1) : 1", "1, 1 (1) : 1"};
    for (int k = 0; k < 3; k++) {
        snprintf(text, sizeof text,
                 "[System]\nType='%s'\nAggMethod='%s'\nDefuzzMethod='%s'\n[Input1]\nRange=[0 "
                 "1]\nNumMFs=1\n"
                 "MF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 1]\nNumMFs=1\nMF1='b':%s\n"
                 "[Rules]\n%s\n",
                 k == 2 ? "sugeno" : "mamdani", k == 1 ? "sum" : "max",
                 k == 2 ? "wtaver" : "centroid", k == 2 ? "'constant',[0.5]" : "'trimf',[0 1 2]",
                 outside[k != 0]);
        haze_fis *f = NULL;
        if (haze_fis_parse(ctx, text, "out", &f)) fail_msg("%s\n%s", haze_ctx_errmsg(ctx), text);
        assert_int_equal(haze_dev_fis_plain(f), 0);
        haze_fis_free(f);
    }
    haze_ctx_free(ctx);
}

/* Every norm stays in [0, 1] and is stable where its textbook form cancels:
 * hamacher_sum(1, b) is exactly 1 for any b (the old form gave 0.91 or 1.2
 * for b one ulp apart, which made CPU and GPU disagree), and near a = 1 the
 * result matches the formula evaluated in long double. */
static void test_norms_stable(void **s) {
    (void)s;
    const char *op;
    for (int k = 0; (op = haze_dev_fis_norm_name(k)) != NULL; k++)
        for (int i = 0; i <= 40; i++)
            for (int j = 0; j <= 40; j++) {
                double a = i / 40.0, b = j / 40.0, v = haze_dev_fis_norm(op, a, b);
                assert_true(v >= 0.0 && v <= 1.0);
                assert_true(v == haze_dev_fis_norm(op, b, a) ||
                            fabs(v - haze_dev_fis_norm(op, b, a)) < 1e-15);
            }
    assert_non_null(haze_dev_fis_norm_name(13)); /* min .. nilpotent_maximum */
    double b = 0.90800530770396803;
    for (int k = 0; k < 64; k++, b = nextafter(b, 1.0)) {
        assert_true(haze_dev_fis_norm("hamacher_sum", 1.0, b) == 1.0);
        double a = 1.0 - 1e-9 * (k + 1);
        long double la = a, lb = b, ref = (la + lb - 2 * la * lb) / (1 - la * lb);
        assert_true(fabsl((long double)haze_dev_fis_norm("hamacher_sum", a, b) - ref) < 1e-15L);
    }
    assert_true(haze_dev_fis_norm("hamacher_sum", 1.0, 1.0) == 1.0);
}

/* fuzzylite's 18 example engines with its own reference outputs (.fld, the
 * rows evaluated in order by fuzzylite): every value within 1e-6 of the
 * output range in FUZZYLITE mode, all rows in one batch (lock-previous
 * outputs carry values from row to row). An engine haze could not express
 * would be listed with the word its HAZE_ERR_UNSUPPORTED message names. */
static const struct {
    const char *name, *unsupported;
} fl_examples[] = {
    {"hybrid_ObstacleAvoidance", NULL},
    {"hybrid_tipper", NULL},
    {"mamdani_AllTerms", NULL},
    {"mamdani_Laundry", NULL},
    {"mamdani_ObstacleAvoidance", NULL},
    {"mamdani_SimpleDimmer", NULL},
    {"mamdani_SimpleDimmerChained", NULL},
    {"mamdani_SimpleDimmerInverse", NULL},
    {"mamdani_octave_investment_portfolio", NULL},
    {"mamdani_octave_mamdani_tip_calculator", NULL},
    {"takagi-sugeno_ObstacleAvoidance", NULL},
    {"takagi-sugeno_SimpleDimmer", NULL},
    {"takagi-sugeno_approximation", NULL},
    {"takagi-sugeno_octave_cubic_approximator", NULL},
    {"takagi-sugeno_octave_heart_disease_risk", NULL},
    {"takagi-sugeno_octave_linear_tip_calculator", NULL},
    {"takagi-sugeno_octave_sugeno_tip_calculator", NULL},
    {"tsukamoto_tsukamoto", NULL},
};

/* Evaluates dir/name.fll on the inputs of dir/name.fld in one batch and
 * checks every output against the .fld's within tol (a fraction of the
 * output's range when rel, else absolute). Returns the rows checked. */
static int check_fld(haze_ctx *ctx, const char *dir, const char *name, double tol, int rel) {
    char path[1024];
    snprintf(path, sizeof path, "%s/fis/%s/%s.fll", HAZE_TEST_DATA, dir, name);
    haze_fis *f = NULL;
    if (haze_fis_load(ctx, path, &f)) fail_msg("%s: %s", path, haze_ctx_errmsg(ctx));
    assert_int_equal(haze_fis_get_mode(f), HAZE_FIS_MODE_FUZZYLITE);
    snprintf(path, sizeof path, "%s/fis/%s/%s.fld", HAZE_TEST_DATA, dir, name);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[4096];
    assert_non_null(fgets(line, sizeof line, fp)); /* header */
    const int ni = haze_fis_input_count(f), no = haze_fis_output_count(f), maxrows = 1000;
    double *in = malloc(sizeof(double) * (size_t)(maxrows * ni)),
           *want = malloc(sizeof(double) * (size_t)(maxrows * no)),
           *out = malloc(sizeof(double) * (size_t)(maxrows * no));
    int rows = 0;
    while (fgets(line, sizeof line, fp)) {
        double v[32];
        int n = 0;
        char *p = line, *end;
        while (n < 32) {
            double d = strtod(p, &end);
            if (end == p) break;
            v[n++] = d;
            p = end;
        }
        assert_int_equal(n, ni + no);
        assert_true(rows < maxrows);
        memcpy(in + rows * ni, v, sizeof(double) * (size_t)ni);
        memcpy(want + rows * no, v + ni, sizeof(double) * (size_t)no);
        rows++;
    }
    fclose(fp);
    assert_int_equal(haze_fis_eval(ctx, f, in, (size_t)rows, out, NULL), HAZE_OK);
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < no; o++) {
            double lo, hi, w = want[r * no + o], h = out[r * no + o];
            haze_fis_var_range(NULL, f, 1, o, &lo, &hi);
            if (isnan(w) && isnan(h)) continue;
            if (!(fabs(h - w) <= (rel ? tol * (hi - lo) : tol)))
                fail_msg("%s row %d output %d: fuzzylite %.9f haze %.9f", name, r + 1, o, w, h);
        }
    free(in);
    free(want);
    free(out);
    haze_fis_free(f);
    return rows;
}

static void test_fuzzylite_examples(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    int checked = 0;
    for (size_t e = 0; e < sizeof fl_examples / sizeof *fl_examples; e++) {
        if (fl_examples[e].unsupported) {
            char path[1024];
            snprintf(path, sizeof path, "%s/fis/fuzzylite/%s.fll", HAZE_TEST_DATA,
                     fl_examples[e].name);
            haze_fis *f = NULL;
            assert_int_equal(haze_fis_load(ctx, path, &f), HAZE_ERR_UNSUPPORTED);
            assert_non_null(strstr(haze_ctx_errmsg(ctx), fl_examples[e].unsupported));
            assert_non_null(strstr(haze_ctx_errmsg(ctx), ".fll:"));
            continue;
        }
        assert_true(check_fld(ctx, "fuzzylite", fl_examples[e].name, 1e-6, 1) >= 100);
        checked++;
    }
    assert_int_equal(checked, 18);
    /* device pointers need the CUDA backend */
    haze_fis *f = NULL;
    double x = 0, y = 0;
    if (haze_fis_load(ctx, HAZE_TEST_DATA "/fis/tipper.fis", &f)) fail_msg("tipper");
    assert_int_equal(haze_fis_eval_device(ctx, f, &x, 1, &y, NULL), HAZE_ERR_UNSUPPORTED);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* Engines written for these tests (scripts/golden/fis/fuzzylite_engines.sh)
 * against the fuzzylite binary's outputs, printed with 9 decimals: every
 * activation method, Function terms, lock-previous. */
static const char *const own_engines[] = {"activation_general",
                                          "activation_first",
                                          "activation_first_2",
                                          "activation_last",
                                          "activation_last_3",
                                          "activation_highest_1",
                                          "activation_highest_3",
                                          "activation_lowest_1",
                                          "activation_lowest_2",
                                          "activation_proportional",
                                          "activation_threshold",
                                          "activation_threshold_gt",
                                          "activation_threshold_le",
                                          "activation_threshold_eq",
                                          "activation_threshold_ne",
                                          "activation_threshold_lt",
                                          "functions",
                                          "lockprev",
                                          "connectives"};

static void test_fuzzylite_own_engines(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    for (size_t e = 0; e < sizeof own_engines / sizeof *own_engines; e++)
        assert_true(check_fld(ctx, "fuzzylite-haze", own_engines[e], 2e-9, 0) >= 100);
    haze_ctx_free(ctx);
}

/* Malformed and unsupported .fll text: the status and the line. */
static void test_fll_bad_input(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    static const struct {
        const char *text, *want;
        int status;
    } bad[] = {
        {"Engine: e\nInputVariable: a\n  range: 0 1\n  term: t Triangle 0 1\n",
         ":4:", HAZE_ERR_PARSE},
        {"Engine: e\nInputVariable: a\n  term: t Wiggle 0 1\n", "unknown term type",
         HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Triangle 0 x 1\n", "'x' is not a number", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Triangle 0 .5 1\nOutputVariable: b\n  term: u Triangle 0 "
         ".5 1\n  aggregation: Maximum\nRuleBlock: r\n  rule: if a is q then b is u\n",
         ":7: 'a' has no term 'q'", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Triangle 0 .5 1\nOutputVariable: b\n  term: u Triangle 0 "
         ".5 1\n  aggregation: Maximum\nRuleBlock: r\n  rule: if (a is t and a is t or a is t then "
         "b is u\n",
         ":7: '(' without ')'", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Triangle 0 .5 1\nOutputVariable: b\n  term: u Triangle 0 "
         ".5 1\n  aggregation: Maximum\nRuleBlock: r\n  rule: if a is t) or a is t then b is u\n",
         ":7: ')' without '('", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Triangle 0 .5 1\nOutputVariable: b\n  term: u Triangle 0 "
         ".5 1\n  aggregation: Maximum\nRuleBlock: r\n  rule: if a is t or () then b is u\n",
         ":7: expected a proposition before ')'", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Function x*(x+\nOutputVariable: y\n  term: u Constant 1\n"
         "  defuzzifier: WeightedAverage\n",
         "bad.fll:2:25: Function term 't': expected a number, a name or '(' at the end",
         HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Function 1 + foo(x)\nOutputVariable: y\n  term: u Constant "
         "1\n"
         "  defuzzifier: WeightedAverage\n",
         "bad.fll:2:24: Function term 't': unknown function 'foo'", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Function max(x) + b\nOutputVariable: y\n  term: u Constant "
         "1\n"
         "  defuzzifier: WeightedAverage\n",
         ":2:20: Function term 't': function 'max' takes 2 arguments, got 1", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Function x + bb\nOutputVariable: y\n  term: u Constant 1\n"
         "  defuzzifier: WeightedAverage\n",
         ":2:24: Function term 't': unknown variable 'bb'", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Function (x + 1)) * 2\nOutputVariable: y\n  term: u Constant "
         "1\n"
         "  defuzzifier: WeightedAverage\n",
         ":2:27: Function term 't': unexpected ')'", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Function sin x\nOutputVariable: y\n  term: u Constant 1\n"
         "  defuzzifier: WeightedAverage\n",
         ":2:20: Function term 't': expected '(' after the function 'sin'", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Function x * y\nOutputVariable: y\n  term: u Constant 1\n"
         "  defuzzifier: WeightedAverage\n",
         ":2: Function term 't' of input 'a' names output 'y'", HAZE_ERR_UNSUPPORTED},
        {"InputVariable: a\nOutputVariable: y\n  term: u Function x * a\n  aggregation: Maximum\n"
         "  defuzzifier: Centroid\n",
         ":3: Function term 'u' of Mamdani output 'y' names 'a'", HAZE_ERR_UNSUPPORTED},
        {"InputVariable: a\nOutputVariable: y\n  term: u Function z + 1\n  defuzzifier: "
         "WeightedAverage\nOutputVariable: z\n  term: v Constant 1\n  defuzzifier: WeightedSum\n",
         ":3: Function term 'u' of output 'y' names output 'z', which is not computed before it",
         HAZE_ERR_UNSUPPORTED},

        {"RuleBlock: r\n  activation: Highest 2 3\n", ":2: activation Highest takes",
         HAZE_ERR_PARSE},
        {"RuleBlock: r\n  activation: Loudest 2\n", ":2: unknown activation", HAZE_ERR_PARSE},
        {"RuleBlock: r\n  activation: Threshold ~ 2\n", ":2: unknown comparison", HAZE_ERR_PARSE},
        {"InputVariable: a\n  bogus: 1\n", ":2: unexpected key", HAZE_ERR_PARSE},
        {"InputVariable: a\n  term: t Triangle 0 .5 1\nOutputVariable: b\n  term: u Triangle 0 "
         ".5 1\n  aggregation: Maximum\nRuleBlock: r\n  rule: if a is t\n",
         ":7: expected 'then'", HAZE_ERR_PARSE},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        haze_fis *f = NULL;
        int st = haze_fis_parse_fll(ctx, bad[i].text, "bad.fll", &f);
        if (st != bad[i].status || !strstr(haze_ctx_errmsg(ctx), bad[i].want))
            fail_msg("case %zu: status %d message '%s'", i, st, haze_ctx_errmsg(ctx));
        assert_null(f);
    }
    haze_ctx_free(ctx);
}

/* Hedges: fuzzylite's definitions, applied last-written first, and the
 * conclusions' hedges carried from one conclusion to the next. */
static void test_fll_hedges(void **s) {
    (void)s;
    assert_true(haze_dev_fis_hedges("very", 0.5) == 0.25);
    assert_true(haze_dev_fis_hedges("somewhat", 0.25) == 0.5);
    assert_true(haze_dev_fis_hedges("extremely", 0.25) == 0.125);
    assert_true(haze_dev_fis_hedges("extremely", 0.75) == 0.875);
    assert_true(haze_dev_fis_hedges("seldom", 0.5) == 0.5);
    assert_true(haze_dev_fis_hedges("any", 0.1) == 1.0);
    /* "not very": very first, then not */
    assert_true(haze_dev_fis_hedges("not very", 0.5) == 0.75);
    haze_ctx *ctx = cpu_ctx();
    const char *text = "InputVariable: a\n  range: 0 1\n  term: t Ramp 0 1\n"
                       "OutputVariable: b\n  range: 0 1\n  defuzzifier: WeightedAverage\n"
                       "  term: one Constant 1\n"
                       "OutputVariable: c\n  range: 0 1\n  defuzzifier: WeightedSum\n"
                       "  term: one Constant 1\n"
                       "RuleBlock: r\n  rule: if a is not t then b is very one and c is one\n";
    haze_fis *f = NULL;
    if (haze_fis_parse_fll(ctx, text, "h.fll", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    double x = 0.25, y[2];
    assert_int_equal(haze_fis_eval(ctx, f, &x, 1, y, NULL), HAZE_OK);
    assert_true(y[0] == 1.0);                 /* weighted average of one rule */
    assert_true(fabs(y[1] - 0.5625) < 1e-15); /* c inherits "very": 0.75^2 */
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* The Function compiler and interpreter beyond fuzzylite's examples: "-"
 * reads as "~", the stack and nesting limits, an input term naming another
 * input (fuzzylite 6.0 leaves input terms without the engine's variables). */
static void test_fll_function(void **s) {
    (void)s;
    static const char *const names[] = {"a", "b"};
    const double vars[] = {3.0, -2.0};
    double p[HAZE_DEV_FIS_FN_MAXP], q[HAZE_DEV_FIS_FN_MAXP];
    char err[256];
    int maxvar;
    assert_int_equal(haze_dev_fis_fn_compile("-a^2 - -b*x", names, 2, p, HAZE_DEV_FIS_FN_MAXP,
                                             &maxvar, err, sizeof err),
                     0);
    assert_int_equal(maxvar, 1);
    assert_int_equal(haze_dev_fis_fn_compile("~a^2 - ~b*x", names, 2, q, HAZE_DEV_FIS_FN_MAXP,
                                             &maxvar, err, sizeof err),
                     0);
    assert_memory_equal(p, q, sizeof(double) * (size_t)(p[0] + 2));
    assert_true(haze_dev_fis_fn_eval(p, 0.5, vars) == 9.0 - 1.0); /* (-3)^2 - 2 * 0.5 */
    assert_true(haze_dev_fis_fn_eval(p, 0.5, NULL) != haze_dev_fis_fn_eval(p, 0.5, NULL)); /* NaN */
    /* 40 nested additions need 41 stack slots; 20 fit */
    char text[512] = "", *t = text;
    for (int k = 0; k < 40; k++) t += sprintf(t, "1+(");
    t += sprintf(t, "x");
    for (int k = 0; k < 40; k++) *t++ = ')';
    *t = '\0';
    assert_true(haze_dev_fis_fn_compile(text, names, 2, p, HAZE_DEV_FIS_FN_MAXP, &maxvar, err,
                                        sizeof err) > 0);
    assert_non_null(strstr(err, "nested too deeply"));
    char deep[128] = "", *d = deep;
    for (int k = 0; k < 20; k++) d += sprintf(d, "1+(");
    d += sprintf(d, "x");
    for (int k = 0; k < 20; k++) *d++ = ')';
    *d = '\0';
    assert_int_equal(
        haze_dev_fis_fn_compile(deep, names, 2, p, HAZE_DEV_FIS_FN_MAXP, &maxvar, err, sizeof err),
        0);
    assert_true(haze_dev_fis_fn_eval(p, 0.25, vars) == 20.25);
    assert_int_equal(maxvar, -1);
    /* a program longer than the parameters is refused */
    t = text;
    for (int k = 0; k < 120; k++) t += sprintf(t, "x+");
    sprintf(t, "1");
    assert_true(haze_dev_fis_fn_compile(text, names, 2, p, 64, &maxvar, err, sizeof err) > 0);
    assert_non_null(strstr(err, "too long"));
    /* an input term that names another input */
    haze_ctx *ctx = cpu_ctx();
    const char *fll = "InputVariable: a\n  range: 0 10\n  term: near Function exp(~((x - b)^2))\n"
                      "InputVariable: b\n  range: 0 10\n"
                      "OutputVariable: y\n  range: 0 1\n  defuzzifier: WeightedSum\n"
                      "  term: one Constant 1\n"
                      "RuleBlock: r\n  rule: if a is near then y is one\n";
    haze_fis *f = NULL;
    if (haze_fis_parse_fll(ctx, fll, "n.fll", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    double in[4] = {3.0, 2.5, 1.0, 1.0}, out[2];
    assert_int_equal(haze_fis_eval(ctx, f, in, 2, out, NULL), HAZE_OK);
    assert_true(out[0] == exp(-0.25));
    assert_true(out[1] == 1.0);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* Threads must not change results. */
static void test_threads_identical(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    haze_fis *f = load(ctx, "octave/investment_portfolio.fis");
    size_t n = getenv("HAZE_TEST_QUICK") ? 500 : 5000;
    double *in = malloc(sizeof(double) * n * 2), *a = malloc(sizeof(double) * n),
           *b = malloc(sizeof(double) * n);
    for (size_t i = 0; i < 2 * n; i++) in[i] = 100.0 * rand() / RAND_MAX;
    haze_ctx_set_threads(ctx, 1);
    assert_int_equal(haze_fis_eval(ctx, f, in, n, a, NULL), HAZE_OK);
    haze_ctx_set_threads(ctx, 3);
    assert_int_equal(haze_fis_eval(ctx, f, in, n, b, NULL), HAZE_OK);
    assert_memory_equal(a, b, sizeof(double) * n);
    free(in);
    free(a);
    free(b);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* The evaluation plan is built once per model, mode and points and kept in
 * the model: a second evaluation uses the same plan, and changing the mode
 * or the points drops it, so that the results are those of a model loaded
 * with the new settings. */
static void test_plan_cache(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    haze_fis *f = load(ctx, "tipper.fis");
    const double in[16] = {2, 1, 4, 5, 7, 8, 1, 2, 0, 0, 10, 10, 3.3, 6.1, 9, 0.5};
    double a[8], b[8];
    assert_null(haze_dev_fis_plan_cached(f));
    assert_int_equal(haze_fis_eval(ctx, f, in, 8, a, NULL), HAZE_OK);
    const void *plan = haze_dev_fis_plan_cached(f);
    assert_non_null(plan);
    assert_int_equal(haze_fis_eval(ctx, f, in, 8, b, NULL), HAZE_OK);
    assert_ptr_equal(haze_dev_fis_plan_cached(f), plan);
    assert_memory_equal(a, b, sizeof a);
    /* the same mode again keeps the plan */
    assert_int_equal(haze_fis_set_mode(ctx, f, HAZE_FIS_MODE_MATLAB), HAZE_OK);
    assert_ptr_equal(haze_dev_fis_plan_cached(f), plan);
    for (int step = 0; step < 3; step++) {
        haze_fis *g = load(ctx, "tipper.fis");
        if (step == 0) {
            assert_int_equal(haze_fis_set_points(ctx, f, 37), HAZE_OK);
            assert_int_equal(haze_fis_set_points(ctx, g, 37), HAZE_OK);
        } else {
            haze_fis_mode m = step == 1 ? HAZE_FIS_MODE_OCTAVE : HAZE_FIS_MODE_FUZZYLITE;
            assert_int_equal(haze_fis_set_mode(ctx, f, m), HAZE_OK);
            assert_int_equal(haze_fis_set_points(ctx, g, 37), HAZE_OK);
            assert_int_equal(haze_fis_set_mode(ctx, g, m), HAZE_OK);
        }
        assert_null(haze_dev_fis_plan_cached(f));
        assert_int_equal(haze_fis_eval(ctx, f, in, 8, a, NULL), HAZE_OK);
        assert_int_equal(haze_fis_eval(ctx, g, in, 8, b, NULL), HAZE_OK);
        assert_memory_equal(a, b, sizeof a);
        haze_fis_free(g);
    }
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* Threads that share a model whose plan is not built yet all build it at
 * once; one plan is kept and every thread gets the results of a model
 * evaluated alone (run under ThreadSanitizer by scripts/test.sh --tsan). */
typedef struct plan_job {
    const haze_fis *f;
    const double *in;
    double out[64];
    int st;
} plan_job;

static void *plan_worker(void *arg) {
    plan_job *j = arg;
    haze_ctx *ctx = cpu_ctx();
    haze_ctx_set_threads(ctx, 1);
    j->st = haze_fis_eval(ctx, j->f, j->in, 64, j->out, NULL);
    haze_ctx_free(ctx);
    return NULL;
}

static void test_plan_threads(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    haze_fis *f = load(ctx, "octave/investment_portfolio.fis");
    double in[128], want[64];
    for (int i = 0; i < 128; i++) in[i] = 100.0 * (i * 37 % 101) / 101.0;
    haze_fis *ref = load(ctx, "octave/investment_portfolio.fis");
    assert_int_equal(haze_fis_eval(ctx, ref, in, 64, want, NULL), HAZE_OK);
    haze_fis_free(ref);
    enum { NT = 6 };
    plan_job jobs[NT];
    pthread_t th[NT];
    for (int t = 0; t < NT; t++) {
        jobs[t].f = f;
        jobs[t].in = in;
        assert_int_equal(pthread_create(&th[t], NULL, plan_worker, &jobs[t]), 0);
    }
    for (int t = 0; t < NT; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(jobs[t].st, HAZE_OK);
        assert_memory_equal(jobs[t].out, want, sizeof want);
    }
    assert_non_null(haze_dev_fis_plan_cached(f));
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* The reader's warnings hold `want`. */
static int has_warning(const haze_fis *f, const char *want) {
    for (int i = 0; i < haze_fis_warning_count(f); i++)
        if (strstr(haze_fis_warning(f, i), want)) return 1;
    return 0;
}

static haze_fis *parse_ok(haze_ctx *ctx, const char *text, const char *name) {
    haze_fis *f = NULL;
    if (haze_fis_parse(ctx, text, name, &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    return f;
}

/* MF lines, and input sections, are taken by their position in the file as
 * MATLAB's readfis takes them, with a warning (they were matched by number,
 * and duplicates refused). */
static void test_fis_by_position(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *sys = "[System]\nName='p'\nNumInputs=1\nNumOutputs=1\n";
    const char *rest = "[Output1]\nRange=[0 10]\nNumMFs=2\nMF1='lo':'trimf',[0 2 5]\n"
                       "MF2='hi':'trimf',[5 8 10]\n[Rules]\n1, 1 (1) : 1\n2, 2 (1) : 1\n";
    char a[2048], b[2048];
    /* MF2 written before MF1: the first line is MF 1 */
    snprintf(a, sizeof a,
             "%s[Input1]\nRange=[0 1]\nNumMFs=2\nMF2='up':'trimf',[0 1 2]\n"
             "MF1='down':'trimf',[-1 0 1]\n%s",
             sys, rest);
    snprintf(b, sizeof b,
             "%s[Input1]\nRange=[0 1]\nNumMFs=2\nMF1='up':'trimf',[0 1 2]\n"
             "MF2='down':'trimf',[-1 0 1]\n%s",
             sys, rest);
    haze_fis *fa = parse_ok(ctx, a, "a.fis"), *fb = parse_ok(ctx, b, "b.fis");
    assert_true(has_warning(fa, "a.fis:8: MF2 is the MF line number 1"));
    assert_true(has_warning(fa, "a.fis:9: MF1 is the MF line number 2"));
    assert_int_equal(haze_fis_warning_count(fb), 0);
    double x[3] = {0.1, 0.5, 0.9}, ya[3], yb[3];
    assert_int_equal(haze_fis_eval(ctx, fa, x, 3, ya, NULL), HAZE_OK);
    assert_int_equal(haze_fis_eval(ctx, fb, x, 3, yb, NULL), HAZE_OK);
    assert_memory_equal(ya, yb, sizeof ya);
    assert_true(ya[0] > 5.0); /* 'up' (MF 1) is high at 0.1: the rule to 'lo'... */
    haze_fis_free(fa);
    haze_fis_free(fb);
    /* a duplicate MF2 line is MF 3 */
    snprintf(
        a, sizeof a,
        "%s[Input1]\nRange=[0 1]\nNumMFs=3\nMF1='a':'trimf',[0 1 2]\nMF2='b':'trimf',[-1 0 1]\n"
        "MF2='c':'trimf',[0 0.5 1]\n%s",
        sys, rest);
    fa = parse_ok(ctx, a, "d.fis");
    assert_true(
        has_warning(fa, "d.fis:10: MF2 is the MF line number 3 of its section; taken as MF3"));
    assert_int_equal(haze_fis_mf_count(fa, 0, 0), 3);
    const char *name;
    assert_int_equal(haze_fis_mf(ctx, fa, 0, 0, 2, &name, NULL, NULL, NULL), HAZE_OK);
    assert_string_equal(name, "c");
    haze_fis_free(fa);
    /* a repeated [Input2] section is input 3 */
    snprintf(a, sizeof a,
             "[System]\nNumInputs=3\nNumOutputs=1\n[Input1]\nName='x'\nNumMFs=1\n"
             "MF1='a':'trimf',[0 1 2]\n[Input2]\nName='y'\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n"
             "[Input2]\nName='z'\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n[Output1]\nNumMFs=1\n"
             "MF1='a':'trimf',[0 1 2]\n[Rules]\n1 1 1, 1 (1) : 1\n");
    fa = parse_ok(ctx, a, "s.fis");
    assert_int_equal(haze_fis_input_count(fa), 3);
    assert_string_equal(haze_fis_var_name(fa, 0, 2), "z");
    assert_true(has_warning(fa, "s.fis:12: section [Input2] is the input section number 3"));
    haze_fis_free(fa);
    haze_ctx_free(ctx);
}

/* Sugeno outputs of range [0 0], ranges and parameters written as MATLAB
 * expressions, and the warning for a negated Sugeno consequent. */
static void test_fis_ranges(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *t = "[System]\nType='sugeno'\nDefuzzMethod='wtaver'\nNumInputs=2\nNumOutputs=1\n"
                    "[Input1]\nRange = [-pi/4 pi/4]\nNumMFs=1\nMF1='a':'trimf',[-pi/4 0 pi/4]\n"
                    "[Input2]\nRange=[1 -2+5]\nNumMFs=1\nMF1='b':'trimf',[1 - 2, 2^-1 2*(1+0.5)]\n"
                    "[Output1]\nRange=[0 0]\nNumMFs=2\nMF1='c':'constant',[3]\n"
                    "MF2='d':'constant',[1e1]\n[Rules]\n1 1, 1 (1) : 1\n1 0, -2 (1) : 1\n";
    haze_fis *f = parse_ok(ctx, t, "r.fis");
    double lo, hi;
    haze_fis_var_range(NULL, f, 0, 0, &lo, &hi);
    assert_true(lo == -3.141592653589793 / 4 && hi == 3.141592653589793 / 4);
    haze_fis_var_range(NULL, f, 0, 1, &lo, &hi);
    assert_true(lo == 1.0 && hi == 3.0);
    haze_fis_var_range(NULL, f, 1, 0, &lo, &hi);
    assert_true(lo == 0.0 && hi == 0.0);
    const double *p;
    int np;
    assert_int_equal(haze_fis_mf(ctx, f, 0, 1, 0, NULL, NULL, &p, &np), HAZE_OK);
    assert_int_equal(np, 3);
    assert_true(p[0] == -1.0 && p[1] == 0.5 && p[2] == 3.0);
    assert_true(has_warning(f, "r.fis:21: rule 2: the negated Sugeno consequent -2"));
    /* x = (0, 1): rule 1 fires 0 (b(1) = ... 0.8), rule 2 weight 1 - 1 */
    double x[2] = {0.0, 2.0}, y;
    assert_int_equal(haze_fis_eval(ctx, f, x, 1, &y, NULL), HAZE_OK);
    assert_true(fabs(y - 3.0) < 1e-12);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* Expressions in brackets that end early or nest too deep are refused with
 * the line's message: an unclosed parenthesis (once read past the end of
 * the line) and 5000 nested parentheses (once a stack overflow). 200000
 * signs in a row (once a stack overflow too), 900 parentheses and 1000
 * signs are read. */
static void test_fis_range_expr_limits(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *head = "[System]\nType='sugeno'\nDefuzzMethod='wtaver'\nNumInputs=1\nNumOutputs="
                       "1\n[Input1]\nRange=[0 ";
    const char *tail = "]\nNumMFs=1\nMF1='a':'trimf',[0 1 2]\n[Output1]\nRange=[0 1]\nNumMFs=1\n"
                       "MF1='c':'constant',[3]\n[Rules]\n1, 1 (1) : 1\n";
    const size_t cases[][3] = {
        {1, 0, 0}, {5000, 5000, 0}, {0, 0, 200000}, {900, 900, 0}, {0, 0, 1000}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        size_t open = cases[k][0], close = cases[k][1], signs = cases[k][2];
        size_t len = strlen(head) + open + close + signs * 2 + 8 + strlen(tail);
        char *t = malloc(len), *p = t;
        p += sprintf(p, "%s", head);
        for (size_t i = 0; i < signs; i++) *p++ = i % 2 ? '+' : '-';
        memset(p, '(', open), p += open;
        p += sprintf(p, "10");
        memset(p, ')', close), p += close;
        sprintf(p, "%s", tail);
        haze_fis *f = NULL;
        const int ok = k >= 2;
        int st = haze_fis_parse(ctx, t, "e.fis", &f);
        if (ok) {
            if (st) fail_msg("case %zu: %s", k, haze_ctx_errmsg(ctx));
            double lo, hi;
            haze_fis_var_range(NULL, f, 0, 0, &lo, &hi);
            assert_true(lo == 0.0 && hi == 10.0);
        } else {
            assert_int_equal(st, HAZE_ERR_PARSE);
            if (!strstr(haze_ctx_errmsg(ctx), "e.fis:7: Range"))
                fail_msg("case %zu: %s", k, haze_ctx_errmsg(ctx));
        }
        haze_fis_free(f);
        free(t);
    }
    haze_ctx_free(ctx);
}

/* fuzzylite mode drops rules whose degree is below its threshold 1e-6 on a
 * .fis too, as the same model read from .fll does. */
static void test_fuzzylite_mode_threshold(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *t = "[System]\nType='sugeno'\nDefuzzMethod='wtaver'\nNumInputs=1\nNumOutputs=1\n"
                    "[Input1]\nName='x'\nRange=[0 1]\nNumMFs=2\nMF1='up':'trimf',[0 1 2]\n"
                    "MF2='down':'trimf',[-1 0 1]\n"
                    "[Output1]\nName='y'\nRange=[0 100]\nNumMFs=2\nMF1='big':'constant',[100]\n"
                    "MF2='zero':'constant',[0]\n[Rules]\n1, 1 (1) : 1\n2, 2 (1) : 1\n";
    const char *fll = "Engine: t\nInputVariable: x\n  range: 0 1\n  term: up Triangle 0 1 2\n"
                      "  term: down Triangle -1 0 1\nOutputVariable: y\n  range: 0 100\n"
                      "  defuzzifier: WeightedAverage TakagiSugeno\n  default: nan\n"
                      "  term: big Constant 100\n  term: zero Constant 0\nRuleBlock: \n"
                      "  conjunction: Minimum\n  activation: General\n"
                      "  rule: if x is up then y is big\n  rule: if x is down then y is zero\n";
    haze_fis *f = parse_ok(ctx, t, "t.fis"), *g = NULL;
    assert_int_equal(haze_fis_parse_fll(ctx, fll, "t.fll", &g), HAZE_OK);
    double x[2] = {1e-8, 0.5}, ym[2], yf[2], yl[2];
    assert_int_equal(haze_fis_eval(ctx, f, x, 2, ym, NULL), HAZE_OK);
    assert_true(ym[0] > 0.0); /* MATLAB keeps the rule of degree 1e-8 */
    haze_fis_set_mode(ctx, f, HAZE_FIS_MODE_FUZZYLITE);
    assert_int_equal(haze_fis_eval(ctx, f, x, 2, yf, NULL), HAZE_OK);
    assert_int_equal(haze_fis_eval(ctx, g, x, 2, yl, NULL), HAZE_OK);
    assert_true(yf[0] == 0.0);
    assert_memory_equal(yf, yl, sizeof yf);
    haze_fis_free(f);
    haze_fis_free(g);
    haze_ctx_free(ctx);
}

/* A .fll variable with two terms of one name: fuzzylite takes the first. */
static void test_fll_duplicate_terms(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *fll = "Engine: d\nInputVariable: x\n  range: 0 1\n  term: t Triangle 0 1 2\n"
                      "  term: t Triangle -1 0 1\nOutputVariable: y\n  range: 0 10\n"
                      "  defuzzifier: WeightedAverage TakagiSugeno\n  default: nan\n"
                      "  term: a Constant 4\n  term: a Constant 7\nRuleBlock: \n"
                      "  conjunction: Minimum\n  activation: General\n"
                      "  rule: if x is t then y is a\n";
    haze_fis *f = NULL;
    if (haze_fis_parse_fll(ctx, fll, "d.fll", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_true(has_warning(f, "d.fll:5: term 't' of 'x' defined twice"));
    assert_true(has_warning(f, "d.fll:11: term 'a' of 'y' defined twice"));
    /* x = 0.9: the first 't' has degree 0.9 (the second 0.1), the first 'a' is 4 */
    double x = 0.9, y;
    assert_int_equal(haze_fis_eval(ctx, f, &x, 1, &y, NULL), HAZE_OK);
    assert_true(y == 4.0);
    char buf[256];
    assert_true(haze_fis_rule_text(ctx, f, 0, buf, sizeof buf) > 0);
    assert_string_equal(buf, "If (x is t) then (y is a) (1)");
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* Engines written for fuzzylite 5 read as fuzzylite 6.0 reads them:
 * `accumulation` is the aggregation, `lock-valid` is `lock-previous`, and a
 * rule block's `activation` that names a t-norm is its implication. The
 * engine in fuzzylite 6's words gives the same bits. */
static void test_fll_version5_names(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *v6 = "Engine: e\nInputVariable: x\n  range: 0 1\n  term: lo Triangle 0 0 0.6\n"
                     "  term: hi Triangle 0.4 1 1\nOutputVariable: y\n  range: 0 1\n"
                     "  aggregation: AlgebraicSum\n  defuzzifier: Centroid 200\n"
                     "  default: nan\n  lock-previous: true\n  term: s Triangle 0 0.2 0.5\n"
                     "  term: b Triangle 0.5 0.8 1\nRuleBlock: r\n  conjunction: Minimum\n"
                     "  implication: AlgebraicProduct\n  activation: General\n"
                     "  rule: if x is lo then y is s\n  rule: if x is hi then y is b\n";
    const char *v5 = "Engine: e\nInputVariable: x\n  range: 0 1\n  term: lo Triangle 0 0 0.6\n"
                     "  term: hi Triangle 0.4 1 1\nOutputVariable: y\n  range: 0 1\n"
                     "  accumulation: AlgebraicSum\n  defuzzifier: Centroid 200\n"
                     "  default: nan\n  lock-valid: true\n  term: s Triangle 0 0.2 0.5\n"
                     "  term: b Triangle 0.5 0.8 1\nRuleBlock: r\n  conjunction: Minimum\n"
                     "  activation: AlgebraicProduct\n"
                     "  rule: if x is lo then y is s\n  rule: if x is hi then y is b\n";
    haze_fis *a = NULL, *b = NULL;
    if (haze_fis_parse_fll(ctx, v6, "v6.fll", &a)) fail_msg("%s", haze_ctx_errmsg(ctx));
    if (haze_fis_parse_fll(ctx, v5, "v5.fll", &b)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_string_equal(haze_fis_method(b, "imp", 0), "prod");
    assert_string_equal(haze_fis_method(b, "agg", 0), "probor");
    /* x = 2 and -1 fire no rule: the output keeps the row before's */
    double x[6] = {0.1, 0.5, 2.0, 0.9, -1.0, 0.45}, ya[6], yb[6];
    assert_int_equal(haze_fis_eval(ctx, a, x, 6, ya, NULL), HAZE_OK);
    assert_int_equal(haze_fis_eval(ctx, b, x, 6, yb, NULL), HAZE_OK);
    assert_memory_equal(ya, yb, sizeof ya);
    assert_true(ya[2] == ya[1] && ya[4] == ya[3] && !isnan(ya[2]));
    /* an activation that is neither a method nor a t-norm says what it expected */
    const char *bad = "Engine: e\nInputVariable: x\n  range: 0 1\n  term: lo Triangle 0 0 1\n"
                      "OutputVariable: y\n  range: 0 1\n  term: s Triangle 0 0.2 0.5\n"
                      "RuleBlock: r\n  activation: Maximum\n  rule: if x is lo then y is s\n";
    haze_fis *c = NULL;
    assert_int_equal(haze_fis_parse_fll(ctx, bad, "bad.fll", &c), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "bad.fll:9: unknown activation 'Maximum'"));
    haze_fis_free(a);
    haze_fis_free(b);
    haze_ctx_free(ctx);
}

/* Names are UTF-8: a file that is not is read as Windows-1252 (with a
 * warning naming the first such line), a byte-order mark is skipped, and
 * either way the model is the UTF-8 file's. */
static void test_fis_encodings(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
#define ENC_FIS(NAME, SYS)                                                                         \
    "[System]\nName='" SYS "'\nType='mamdani'\nNumInputs=1\nNumOutputs=1\nNumRules=2\n"            \
    "[Input1]\nName='" NAME "'\nRange=[0 1]\nNumMFs=2\nMF1='baixa':'trimf',[0 0 1]\n"              \
    "MF2='alta':'trimf',[0 1 1]\n[Output1]\nName='y'\nRange=[0 10]\nNumMFs=2\n"                    \
    "MF1='a':'trimf',[0 2 5]\nMF2='b':'trimf',[5 8 10]\n[Rules]\n1, 1 (1) : 1\n2, 2 (1) : 1\n"
    haze_fis *u = parse_ok(ctx, ENC_FIS("Posi\xc3\xa7\xc3\xa3o", "custo \xe2\x82\xac"), "u.fis");
    haze_fis *w = parse_ok(ctx, ENC_FIS("Posi\xe7\xe3o", "custo \x80"), "w.fis");
    haze_fis *m = parse_ok(
        ctx, "\xef\xbb\xbf" ENC_FIS("Posi\xc3\xa7\xc3\xa3o", "custo \xe2\x82\xac"), "m.fis");
    /* UTF-8 with one stray byte: only that byte is read as Windows-1252 */
    haze_fis *sx = parse_ok(ctx, ENC_FIS("Posi\xc3\xa7\xc3\xa3o", "custo \x80"), "x.fis");
    assert_true(has_warning(sx, "x.fis:2: not UTF-8 text: read as Windows-1252"));
    assert_string_equal(haze_fis_name(sx), "custo \xe2\x82\xac");
    assert_string_equal(haze_fis_var_name(sx, 0, 0), "Posi\xc3\xa7\xc3\xa3o");
    haze_fis_free(sx);
#undef ENC_FIS
    assert_int_equal(haze_fis_warning_count(u), 0);
    assert_int_equal(haze_fis_warning_count(m), 0);
    assert_true(has_warning(w, "w.fis:2: not UTF-8 text: read as Windows-1252"));
    double x[3] = {0.0, 0.3, 1.0}, yu[3], yw[3], ym[3];
    const haze_fis *fs[2] = {w, m};
    double *ys[2] = {yw, ym};
    assert_int_equal(haze_fis_eval(ctx, u, x, 3, yu, NULL), HAZE_OK);
    for (int k = 0; k < 2; k++) {
        assert_string_equal(haze_fis_name(fs[k]), "custo \xe2\x82\xac");
        assert_string_equal(haze_fis_var_name(fs[k], 0, 0), "Posi\xc3\xa7\xc3\xa3o");
        assert_int_equal(haze_fis_eval(ctx, fs[k], x, 3, ys[k], NULL), HAZE_OK);
        assert_memory_equal(ys[k], yu, sizeof yu);
    }
    haze_fis_free(u);
    haze_fis_free(w);
    haze_fis_free(m);
    /* .fll: a byte-order mark, and a truncated UTF-8 sequence (read as two
     * Windows-1252 characters) */
    const char *fll = "\xef\xbb\xbf"
                      "Engine: e\nInputVariable: x\n  range: 0 1\n  term: lo Triangle 0 0 1\n"
                      "OutputVariable: y\xc3\n  range: 0 1\n  aggregation: Maximum\n"
                      "  term: s Triangle 0 0.2 0.5\n"
                      "RuleBlock: r\n  rule: if x is lo then y\xc3 is s\n";
    haze_fis *f = NULL;
    if (haze_fis_parse_fll(ctx, fll, "b.fll", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_true(has_warning(f, "b.fll:5: not UTF-8 text: read as Windows-1252"));
    assert_string_equal(haze_fis_var_name(f, 1, 0), "y\xc3\x83");
    haze_fis_free(f);
    /* a long engine name is cut at the end of a character, so that the
     * model written as .fis is UTF-8 and reads back (fuzz_fis found it) */
    char longname[512] = "Engine: ";
    for (int i = 0; i < 70; i++) strcat(longname, "\xc5\xbd");
    strcat(longname,
           "\nInputVariable: x\n  range: 0 1\n  term: lo Triangle 0 0 1\n"
           "OutputVariable: y\n  range: 0 1\n  aggregation: Maximum\n"
           "  term: s Triangle 0 0.2 0.5\nRuleBlock: r\n  rule: if x is lo then y is s\n");
    if (haze_fis_parse_fll(ctx, longname, "l.fll", &f)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(strlen(haze_fis_name(f)), 62);
    char tmp[] = "/tmp/haze-fis-XXXXXX.fis";
    int fd = mkstemps(tmp, 4);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(haze_fis_save(ctx, f, tmp), HAZE_OK);
    haze_fis *g = NULL;
    if (haze_fis_load(ctx, tmp, &g)) fail_msg("%s", haze_ctx_errmsg(ctx));
    unlink(tmp);
    assert_string_equal(haze_fis_name(g), haze_fis_name(f));
    assert_int_equal(haze_fis_warning_count(g), 0);
    haze_fis_free(g);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

/* A .fis holds as many rules as it lists (files made by rule generators hold
 * thousands); NumRules is checked against them. The other counts stop at
 * 4096, a custom MF type is refused with the types that can be read, and a
 * type-2 system as such. */
static void test_fis_counts(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const int nr = 5000;
    size_t cap = 512 + (size_t)nr * 16;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int k = 0; k < 3; k++) {
        int declared = k == 0 ? nr : k == 1 ? nr + 1 : -1; /* -1: no NumRules line */
        size_t n = 0;
        n += (size_t)snprintf(text + n, cap - n, "[System]\nName='many'\n");
        if (declared >= 0) n += (size_t)snprintf(text + n, cap - n, "NumRules=%d\n", declared);
        n += (size_t)snprintf(text + n, cap - n,
                              "[Input1]\nName='x'\nRange=[0 1]\nNumMFs=2\n"
                              "MF1='lo':'trimf',[0 0 1]\nMF2='hi':'trimf',[0 1 1]\n"
                              "[Output1]\nName='y'\nRange=[0 1]\nNumMFs=2\n"
                              "MF1='a':'trimf',[0 0 0.5]\nMF2='b':'trimf',[0.5 1 1]\n[Rules]\n");
        for (int r = 0; r < nr; r++)
            n += (size_t)snprintf(text + n, cap - n, "%d, %d (1) : 1\n", 1 + r % 2, 1 + r % 2);
        haze_fis *f = NULL;
        int st = haze_fis_parse(ctx, text, "many.fis", &f);
        if (k == 1) {
            assert_int_equal(st, HAZE_ERR_PARSE);
            assert_non_null(
                strstr(haze_ctx_errmsg(ctx), "NumRules=5001 but the [Rules] section holds 5000"));
            continue;
        }
        if (st) fail_msg("%s", haze_ctx_errmsg(ctx));
        assert_int_equal(haze_fis_rule_count(f), nr);
        double x = 0.25, y;
        assert_int_equal(haze_fis_eval(ctx, f, &x, 1, &y, NULL), HAZE_OK);
        assert_true(y > 0.0 && y < 1.0);
        haze_fis_free(f);
    }
    free(text);
    haze_fis *f = NULL;
    assert_int_equal(haze_fis_parse(ctx, "[System]\nNumInputs=4097\n", "n.fis", &f),
                     HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "n.fis:2: NumInputs: 4097 is more than 4096"));
    const char *custom = "[System]\nName='c'\n[Input1]\nName='x'\nRange=[0 1]\nNumMFs=1\n"
                         "MF1='a':'unicamf',[0 1]\n";
    assert_int_equal(haze_fis_parse(ctx, custom, "c.fis", &f), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "c.fis:7: unknown MF type 'unicamf'"));
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "zmf, linsmf, linzmf;"));
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "a custom MF (a MATLAB function file)"));
    /* MATLAB's type-2 systems: refused as such, on the Type line */
    const char *t2 = "[System]\nName='t'\nType='mamdanitype2'\n[Input1]\nName='x'\n"
                     "Range=[0 1]\nNumMFs=1\nMF1='a':'trimf',[0 0.5 1]\n";
    assert_int_equal(haze_fis_parse(ctx, t2, "t2.fis", &f), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "t2.fis:3: type-2 fuzzy systems"));
    const char *tx = "[System]\nName='t'\nType='fuzzy'\n";
    assert_int_equal(haze_fis_parse(ctx, tx, "tx.fis", &f), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "tx.fis:3: system type 'fuzzy' unknown"));
    haze_ctx_free(ctx);
}

/* Within 1e-6 of each output's range (1 when that is 0), NaN as NaN. */
static void expect_close(const haze_fis *f, const char *what, size_t rows, const double *got,
                         const double *want, size_t wstride, double rel) {
    int no = haze_fis_output_count(f);
    for (size_t r = 0; r < rows; r++)
        for (int o = 0; o < no; o++) {
            double lo, hi, g = got[r * (size_t)no + (size_t)o], w = want[r * wstride + (size_t)o];
            haze_fis_var_range(NULL, f, 1, o, &lo, &hi);
            double tol = rel * (hi > lo ? hi - lo : 1.0);
            if (isnan(g) != isnan(w) || (!isnan(w) && !(fabs(g - w) <= tol)))
                fail_msg("%s row %zu output %d: haze %.17g, expected %.17g", what, r + 1, o + 1, g,
                         w);
        }
}

/* Real .fis files from public projects (tests/data/fis/corpus/README.md):
 * haze against the peers' outputs kept by scripts/golden/fis/corpus_compare.py
 * (golden/MANIFEST), and each file written as .fll and read back gives what
 * the .fis gives in fuzzylite mode. */
static void test_fis_corpus(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    char path[1024], line[512];
    snprintf(path, sizeof path, "%s/fis/corpus/golden/MANIFEST", HAZE_TEST_DATA);
    FILE *mf = fopen(path, "r");
    assert_non_null(mf);
    int checked = 0;
    while (fgets(line, sizeof line, mf)) {
        char file[256], peer[32], mode[32];
        int ni, no;
        if (line[0] == '#' ||
            sscanf(line, "%255s %31s %31s %d %d", file, peer, mode, &ni, &no) != 5)
            continue;
        char rel[512];
        snprintf(rel, sizeof rel, "corpus/%s", file);
        haze_fis *f = load(ctx, rel);
        assert_int_equal(haze_fis_input_count(f), ni);
        assert_int_equal(haze_fis_output_count(f), no);
        haze_fis_mode m;
        assert_int_equal(haze_fis_mode_parse(NULL, mode, &m), HAZE_OK);
        haze_fis_set_mode(ctx, f, m);
        if (m == HAZE_FIS_MODE_FUZZYLITE) { /* fuzzylite's import: resolution 100, nan */
            haze_fis_set_points(ctx, f, 100);
            haze_fis_set_nan_if_no_rule(f, 1);
        }
        snprintf(path, sizeof path, "%s/fis/corpus/golden/%.*s.%s.csv", HAZE_TEST_DATA,
                 (int)strlen(file) - 4, file, peer);
        haze_table_options ro = haze_table_options_default();
        ro.header = 0;
        ro.allow_nonfinite = 1;
        haze_table *t = NULL;
        if (haze_table_read(ctx, path, &ro, &t)) fail_msg("%s", haze_ctx_errmsg(ctx));
        assert_int_equal((int)haze_table_column_count(t), ni + no);
        double *in = malloc(sizeof(double) * haze_table_row_count(t) * (size_t)ni);
        double *out = malloc(sizeof(double) * haze_table_row_count(t) * (size_t)no);
        double *back = malloc(sizeof(double) * haze_table_row_count(t) * (size_t)no);
        assert_true(in && out && back);
        for (size_t r = 0; r < haze_table_row_count(t); r++)
            for (int j = 0; j < ni; j++)
                in[r * (size_t)ni + (size_t)j] =
                    haze_table_data(t)[r * haze_table_column_count(t) + (size_t)j];
        assert_int_equal(haze_fis_eval(ctx, f, in, haze_table_row_count(t), out, NULL), HAZE_OK);
        char what[600];
        snprintf(what, sizeof what, "%s (%s)", file, peer);
        expect_close(f, what, haze_table_row_count(t), out, haze_table_data(t) + ni,
                     haze_table_column_count(t), 1e-6);
        if (m == HAZE_FIS_MODE_FUZZYLITE) {
            /* the .fll round trip, in the same settings */
            char tmp[] = "/tmp/haze-fis-XXXXXX.fll";
            int fd = mkstemps(tmp, 4);
            assert_true(fd >= 0);
            close(fd);
            if (haze_fis_save(ctx, f, tmp)) fail_msg("%s", haze_ctx_errmsg(ctx));
            haze_fis *g = NULL;
            if (haze_fis_load(ctx, tmp, &g)) fail_msg("%s: %s", file, haze_ctx_errmsg(ctx));
            remove(tmp);
            assert_int_equal(haze_fis_eval(ctx, g, in, haze_table_row_count(t), back, NULL),
                             HAZE_OK);
            snprintf(what, sizeof what, "%s written as .fll", file);
            expect_close(f, what, haze_table_row_count(t), back, out, (size_t)no, 1e-12);
            haze_fis_free(g);
        }
        free(in);
        free(out);
        free(back);
        haze_table_free(t);
        haze_fis_free(f);
        checked++;
    }
    fclose(mf);
    assert_true(checked >= 20);
    haze_ctx_free(ctx);
}

/* A .fll engine written as .fll reads back to the same outputs, bit for
 * bit (the fuzzylite binary reproduces its reference data on these files;
 * a .fis written as .fll: test_fis_corpus, within 1e-12, as MATLAB's MF
 * formulas and fuzzylite's round differently); Function
 * terms are refused, saying why. */
static void test_fll_writer(void **s) {
    (void)s;
    haze_ctx *ctx = cpu_ctx();
    const char *files[] = {"fuzzylite/mamdani_AllTerms.fll",
                           "fuzzylite/mamdani_SimpleDimmerChained.fll",
                           "fuzzylite/mamdani_Laundry.fll",
                           "fuzzylite/hybrid_tipper.fll",
                           "fuzzylite/tsukamoto_tsukamoto.fll",
                           "fuzzylite/takagi-sugeno_octave_heart_disease_risk.fll",
                           "fuzzylite-haze/connectives.fll",
                           "fuzzylite-haze/activation_highest_3.fll",
                           "fuzzylite-haze/activation_threshold_le.fll"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        haze_fis *a = load(ctx, files[i]);
        char tmp[] = "/tmp/haze-fis-XXXXXX.fll";
        int fd = mkstemps(tmp, 4);
        assert_true(fd >= 0);
        close(fd);
        if (haze_fis_save(ctx, a, tmp)) fail_msg("%s: %s", files[i], haze_ctx_errmsg(ctx));
        haze_fis *b = NULL;
        if (haze_fis_load(ctx, tmp, &b)) fail_msg("%s: %s", files[i], haze_ctx_errmsg(ctx));
        remove(tmp);
        int ni = haze_fis_input_count(a), no = haze_fis_output_count(a);
        assert_int_equal(ni, haze_fis_input_count(b));
        assert_int_equal(no, haze_fis_output_count(b));
        double in[300 * 8], oa[300 * 4], ob[300 * 4];
        srand(11);
        for (int k = 0; k < 300 * ni; k++) {
            double lo, hi;
            haze_fis_var_range(NULL, a, 0, k % ni, &lo, &hi);
            in[k] = lo + (hi - lo) * rand() / (double)RAND_MAX;
        }
        assert_int_equal(haze_fis_eval(ctx, a, in, 300, oa, NULL), HAZE_OK);
        assert_int_equal(haze_fis_eval(ctx, b, in, 300, ob, NULL), HAZE_OK);
        for (int k = 0; k < 300 * no; k++)
            if (!(oa[k] == ob[k] || (isnan(oa[k]) && isnan(ob[k]))))
                fail_msg("%s row %d: %.17g, written as .fll %.17g", files[i], k / no + 1, oa[k],
                         ob[k]);
        haze_fis_free(a);
        haze_fis_free(b);
    }
    haze_fis *f = load(ctx, "fuzzylite-haze/functions.fll");
    assert_int_equal(haze_fis_save(ctx, f, "/tmp/haze-never.fll"), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "cannot be written as .fll: Function term"));
    assert_int_equal(access("/tmp/haze-never.fll", F_OK), -1);
    haze_fis_free(f);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tipper_matlab),
        cmocka_unit_test(test_octave_mamdani_tip),
        cmocka_unit_test(test_octave_investment),
        cmocka_unit_test(test_octave_heart),
        cmocka_unit_test(test_octave_linear_tip),
        cmocka_unit_test(test_octave_sugeno_tip),
        cmocka_unit_test(test_octave_cubic),
        cmocka_unit_test(test_membership_functions),
        cmocka_unit_test(test_no_rule_and_clamp),
        cmocka_unit_test(test_defuzz_methods),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_fast_path_identical),
        cmocka_unit_test(test_plain_row_identical),
        cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_norms_stable),
        cmocka_unit_test(test_fuzzylite_examples),
        cmocka_unit_test(test_fuzzylite_own_engines),
        cmocka_unit_test(test_fll_bad_input),
        cmocka_unit_test(test_fll_function),
        cmocka_unit_test(test_fll_hedges),
        cmocka_unit_test(test_exact_closed_forms),
        cmocka_unit_test(test_exact_limit),
        cmocka_unit_test(test_exact_refused),
        cmocka_unit_test(test_fis_by_position),
        cmocka_unit_test(test_fis_ranges),
        cmocka_unit_test(test_fis_range_expr_limits),
        cmocka_unit_test(test_fuzzylite_mode_threshold),
        cmocka_unit_test(test_fll_duplicate_terms),
        cmocka_unit_test(test_fll_version5_names),
        cmocka_unit_test(test_fis_encodings),
        cmocka_unit_test(test_fis_counts),
        cmocka_unit_test(test_fis_corpus),
        cmocka_unit_test(test_fll_writer),
        cmocka_unit_test(test_plan_cache),
        cmocka_unit_test(test_plan_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
