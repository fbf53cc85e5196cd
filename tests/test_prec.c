/*
 * tests/test_prec.c - the rounding-error analyser (haze/prec.h) on the CPU.
 *
 * - the paper's fixed-point example (Linderman et al., CGO 2010, Fig. 1-2):
 *   interval engine 9b-5 = 0.28125 (plain Gappa), affine engine 7b-5 =
 *   0.21875 (Gappa++), and an exhaustive grid that comes close to 0.21875;
 * - soundness: for every example and benchmark script, random and corner
 *   inputs evaluated exactly (MPFR, every rounding applied as specified)
 *   never leave the enclosure of any engine;
 * - side by side with Gappa 1.4.1 (golden outputs in tests/data/prec/gappa,
 *   made by scripts/golden/prec/gappa.sh) and FPTaylor's published bounds;
 * - the filter of Sec. 3.3: the affine bound converges, the interval one grows;
 * - bad input: messages with line and column.
 */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "core/rng.h"
#include "test_util.h"

static int quick(void) {
    return getenv("HAZE_TEST_QUICK") != NULL;
}

static haze_prec_script *load(haze_ctx *ctx, const char *path) {
    haze_prec_script *s = NULL;
    haze_prec_parse_options o = haze_prec_parse_options_default(); /* FPCore loops unrolled */
    o.unroll = 1000;
    int st = haze_prec_load(ctx, path, &o, &s);
    if (st) fail_msg("%s: %s", path, haze_ctx_errmsg(ctx));
    return s;
}

static haze_prec_result *analyse(haze_ctx *ctx, haze_prec_script *s, haze_prec_engine e) {
    haze_prec_result *r = NULL;
    int st = haze_prec_analyse(ctx, s, e, &r);
    if (st) fail_msg("analyse: %s", haze_ctx_errmsg(ctx));
    return r;
}

static void test_fixed_point_paper(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_prec_script *s = load(ctx, HAZE_SOURCE_DIR "/examples/prec/fixed_point.g");
    /* the engines' own figures: without adaptive refinement */
    assert_int_equal(haze_prec_set_refine(ctx, s, 0), 0);
    haze_prec_result *ia = analyse(ctx, s, HAZE_PREC_IA);
    haze_prec_result *aa = analyse(ctx, s, HAZE_PREC_AA);
    haze_prec_result *both = analyse(ctx, s, HAZE_PREC_BOTH);
    assert_string_equal(haze_prec_result_goal(ia, 0)->lo_exact, "-9b-5");
    assert_string_equal(haze_prec_result_goal(ia, 0)->hi_exact, "9b-5");
    assert_string_equal(haze_prec_result_goal(aa, 0)->lo_exact, "-7b-5");
    assert_string_equal(haze_prec_result_goal(aa, 0)->hi_exact, "7b-5");
    assert_string_equal(haze_prec_result_goal(both, 0)->hi_exact, "7b-5");
    /* the affine bound is nearly attained: exhaustive grid of inputs */
    double worst = 0;
    int step = quick() ? 16 : 32;
    for (int i = -2 * step; i <= 2 * step; i++)
        for (int j = -step; j <= step; j++) {
            double x[2], out;
            int v1 = strcmp(haze_prec_var_name(s, 0), "x1_m") == 0 ? 0 : 1;
            x[v1] = (double)i / step;
            x[1 - v1] = (double)j / step;
            assert_int_equal(haze_prec_eval(ctx, s, x, 256, &out), HAZE_OK);
            assert_true(out >= -0.21875 && out <= 0.21875);
            if (fabs(out) > worst) worst = fabs(out);
        }
    if (!quick()) assert_true(worst >= 0.2); /* the coarse quick grid misses the worst case */
    haze_prec_result_free(ia);
    haze_prec_result_free(aa);
    haze_prec_result_free(both);
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

/* Samples the script's box (random points, then every corner and centre)
 * and checks each goal's exact value against the enclosures of all engines. */
static void check_sound(haze_ctx *ctx, const char *path, int samples) {
    haze_prec_script *s = load(ctx, path);
    /* the Black-Scholes scripts bisect into thousands of boxes: 8 are enough here */
    if (strstr(path, "/bs_"))
        for (size_t i = 0; i < haze_prec_var_count(s); i++)
            assert_int_equal(haze_prec_set_bisect(ctx, s, haze_prec_var_name(s, i), 2), 0);
    /* refinement is part of every analysis; fewer analyses in the quick run */
    if (quick()) assert_int_equal(haze_prec_set_refine(ctx, s, 24), 0);
    haze_prec_result *r[3] = {analyse(ctx, s, HAZE_PREC_IA), analyse(ctx, s, HAZE_PREC_AA),
                              analyse(ctx, s, HAZE_PREC_BOTH)};
    size_t nv = haze_prec_var_count(s), ng = haze_prec_goal_count(s);
    double *lo = calloc(nv + 1, sizeof *lo), *hi = calloc(nv + 1, sizeof *hi);
    double *x = calloc(nv + 1, sizeof *x), *out = calloc(ng, sizeof *out);
    assert_non_null(lo);
    assert_non_null(hi);
    assert_non_null(x);
    assert_non_null(out);
    for (size_t i = 0; i < nv; i++)
        assert_int_equal(haze_prec_var_range(ctx, s, i, &lo[i], &hi[i]), 0);
    haze__rng rng;
    haze__rng_seed(&rng, 7);
    int corners = nv <= 8 ? 1 << nv : 0;
    for (int k = 0; k < samples + corners + 1; k++) {
        for (size_t i = 0; i < nv; i++) {
            double u;
            if (k < samples)
                u = haze__rng_uniform(&rng);
            else if (k < samples + corners)
                u = ((k - samples) >> i) & 1;
            else
                u = 0.5;
            x[i] = lo[i] + u * (hi[i] - lo[i]);
            if (x[i] > hi[i]) x[i] = hi[i];
        }
        assert_int_equal(haze_prec_eval(ctx, s, x, 512, out), HAZE_OK);
        for (size_t g = 0; g < ng; g++)
            for (int e = 0; e < 3; e++)
                if (!(out[g] >= haze_prec_result_goal(r[e], g)->lo &&
                      out[g] <= haze_prec_result_goal(r[e], g)->hi))
                    fail_msg("%s: goal %zu (%s) = %.17g outside [%.17g, %.17g] of engine %d", path,
                             g, haze_prec_result_goal(r[e], g)->text, out[g],
                             haze_prec_result_goal(r[e], g)->lo, haze_prec_result_goal(r[e], g)->hi,
                             e);
    }
    for (int e = 0; e < 3; e++) haze_prec_result_free(r[e]);
    free(lo);
    free(hi);
    free(x);
    free(out);
    haze_prec_free(s);
}

static int ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static void sound_dir(haze_ctx *ctx, const char *dir, int samples) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, ".g") && !ends_with(e->d_name, ".fpcore")) continue;
        /* the long unrolled filters are sampled at 10 and 30 steps */
        if (strstr(e->d_name, "_100.g") || strstr(e->d_name, "_300.g") ||
            strstr(e->d_name, "_1000.g"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check_sound(ctx, path, samples);
        n++;
    }
    closedir(d);
    assert_true(n > 0);
}

static void test_soundness(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    int samples = quick() ? 30 : 300;
    sound_dir(ctx, HAZE_SOURCE_DIR "/examples/prec", samples);
    sound_dir(ctx, HAZE_TEST_DATA "/prec/bench", samples);
    sound_dir(ctx, HAZE_TEST_DATA "/prec/fpcore", samples);
    sound_dir(ctx, HAZE_TEST_DATA "/prec/long", samples);
    haze_ctx_free(ctx);
}

/* Reads Gappa's "e in [lo {...}, hi {...}]" line from a golden file. */
static int gappa_bound(const char *name, double *lo, double *hi) {
    char path[1024], line[4096];
    snprintf(path, sizeof path, "%s/prec/gappa/%s.txt", HAZE_TEST_DATA, name);
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    int ok = -1;
    while (fgets(line, sizeof line, fp)) {
        char *b = strstr(line, " in [");
        if (!b) continue;
        char *p = b + 5, *c = strchr(p, ',');
        /* "lo {decimal, 2^(..)}, hi {...}": the comma after the braces */
        char *brace = strchr(p, '{');
        if (brace && c && brace < c) {
            char *close = strchr(brace, '}');
            c = close ? strchr(close, ',') : NULL;
        }
        if (!c) break;
        *c = 0;
        char *q = c + 1;
        while (*q == ' ') q++;
        /* m b e  or  m (an integer) */
        double v[2];
        char *s[2] = {p, q};
        for (int k = 0; k < 2; k++) {
            /* Gappa's exact m*2^e, rounded outward to double (lo down, hi
             * up), as haze's doubles are: equal exact bounds compare equal */
            char *q0 = s[k], *end;
            while (*q0 == ' ') q0++;
            int neg = *q0 == '-';
            unsigned long long m = strtoull(q0 + neg, &end, 10);
            long ex = 0;
            if (*end == 'b') ex = strtol(end + 1, &end, 10);
            long double ml = (long double)m; /* exact: 64-bit significand */
            double d = (double)ml;
            int up = (k == 1) != neg; /* magnitude rounded up for hi>0 or lo<0 */
            if (up && (long double)d < ml) d = nextafter(d, HUGE_VAL);
            if (!up && (long double)d > ml) d = nextafter(d, 0);
            v[k] = ldexp(neg ? -d : d, (int)ex);
        }
        *lo = v[0];
        *hi = v[1];
        ok = 0;
        break;
    }
    fclose(fp);
    return ok;
}

static void test_vs_gappa(void **state) {
    (void)state;
    /* the default analysis (both engines, automatic refinement, no hints):
     * never above Gappa 1.4.1's bound */
    static const char *const cases[] = {
        "carbonGas",  "doppler1",  "himmilbeau",  "kepler0",      "predatorPrey", "rigidBody1",
        "rigidBody2", "sine",      "sineOrder3",  "sqroot",       "turbine1",     "turbine3",
        "verhulst",   "jetEngine", "fixed_point", "iir_stable_10"};
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double glo = 0, ghi = 0;
        if (gappa_bound(cases[i], &glo, &ghi)) fail_msg("no golden file for %s", cases[i]);
        char path[1024];
        if (!strcmp(cases[i], "fixed_point") || !strncmp(cases[i], "iir", 3))
            snprintf(path, sizeof path, "%s/examples/prec/%s.g", HAZE_SOURCE_DIR, cases[i]);
        else
            snprintf(path, sizeof path, "%s/prec/bench/%s.g", HAZE_TEST_DATA, cases[i]);
        haze_prec_script *s = load(ctx, path);
        haze_prec_result *r = analyse(ctx, s, HAZE_PREC_BOTH);
        double h =
            fmax(fabs(haze_prec_result_goal(r, 0)->lo), fabs(haze_prec_result_goal(r, 0)->hi));
        double g = fmax(fabs(glo), fabs(ghi));
        if (!(h <= g)) fail_msg("%s: haze %.6g, Gappa %.6g", cases[i], h, g);
        haze_prec_result_free(r);
        haze_prec_free(s);
    }
    haze_ctx_free(ctx);
}

static void test_vs_fptaylor(void **state) {
    (void)state;
    /* FPTaylor's published bounds (Solovyev et al., TOPLAS 2019, Table 3),
     * within a factor 1.5, with the default analysis (no bisection hints) */
    static const struct {
        const char *name;
        double fptaylor;
    } cases[] = {{"rigidBody1", 2.95e-13},
                 {"doppler1", 1.22e-13},
                 {"turbine1", 1.67e-14},
                 {"jetEngine", 1.03e-11}};
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/prec/bench/%s.g", HAZE_TEST_DATA, cases[i].name);
        haze_prec_script *s = load(ctx, path);
        haze_prec_result *r = analyse(ctx, s, HAZE_PREC_BOTH);
        double h =
            fmax(fabs(haze_prec_result_goal(r, 0)->lo), fabs(haze_prec_result_goal(r, 0)->hi));
        if (!(h <= 1.5 * cases[i].fptaylor))
            fail_msg("%s: haze %.6g, FPTaylor %.6g", cases[i].name, h, cases[i].fptaylor);
        haze_prec_result_free(r);
        haze_prec_free(s);
    }
    haze_ctx_free(ctx);
}

/* Roundings shared by both sides of a goal are counted once: the filter's
 * quantised inputs feed both filters, and the interval engine alone now
 * matches Gappa's bound at 10 steps (it was 3.9e-4, Gappa 1.67e-4). */
static void test_shared_roundings(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    double glo = 0, ghi = 0;
    assert_int_equal(gappa_bound("iir_stable_10", &glo, &ghi), 0);
    haze_prec_script *s = load(ctx, HAZE_SOURCE_DIR "/examples/prec/iir_stable_10.g");
    assert_int_equal(haze_prec_set_refine(ctx, s, 0), 0);
    haze_prec_result *r = analyse(ctx, s, HAZE_PREC_IA);
    assert_true(haze_prec_result_goal(r, 0)->hi <= ghi && haze_prec_result_goal(r, 0)->lo >= glo);
    assert_true(haze_prec_result_goal(r, 0)->hi > 1e-4); /* not below the true worst case either */
    haze_prec_result_free(r);
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

/* Refinement: the API checks its argument, refinement never widens the
 * bound, and it is off with 0 (one box). */
static void test_refine(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_prec_script *s = load(ctx, HAZE_TEST_DATA "/prec/bench/doppler1.g");
    assert_int_equal(haze_prec_set_refine(ctx, s, -2), HAZE_ERR_INVALID);
    assert_int_equal(haze_prec_set_refine(NULL, NULL, 0), HAZE_ERR_INVALID);
    assert_int_equal(haze_prec_set_refine(ctx, s, 0), 0);
    haze_prec_result *r0 = analyse(ctx, s, HAZE_PREC_BOTH);
    assert_int_equal(haze_prec_result_boxes(r0), 1);
    assert_int_equal(haze_prec_set_refine(ctx, s, 64), 0);
    haze_prec_result *r1 = analyse(ctx, s, HAZE_PREC_BOTH);
    assert_true(haze_prec_result_boxes(r1) > 8);
    assert_true(haze_prec_result_goal(r1, 0)->hi < haze_prec_result_goal(r0, 0)->hi &&
                haze_prec_result_goal(r1, 0)->lo > haze_prec_result_goal(r0, 0)->lo);
    haze_prec_result_free(r0);
    haze_prec_result_free(r1);
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

/*
 * Per-box results (haze_prec_result_box): the boxes' ranges of each
 * bisected input tile its range, the join of the boxes' enclosures is the
 * goal's enclosure bit for bit, and each box's enclosure contains the exact
 * values at points inside the box.
 */
static void check_boxes(haze_ctx *ctx, haze_prec_script *s, haze_prec_engine e, const char *v1,
                        size_t n1, const char *v2, size_t n2) {
    haze_prec_result *r = analyse(ctx, s, e);
    size_t nb = haze_prec_result_box_count(r), nv = haze_prec_var_count(s);
    size_t ng = haze_prec_goal_count(s);
    double *vlo = malloc(nv * sizeof *vlo), *vhi = malloc(nv * sizeof *vhi);
    double *rlo = malloc(nv * sizeof *rlo), *rhi = malloc(nv * sizeof *rhi);
    double *x = malloc(nv * sizeof *x), *out = malloc(ng * sizeof *out);
    double *lo = malloc(nb * ng * sizeof *lo), *hi = malloc(nb * ng * sizeof *hi);
    assert_non_null(vlo && vhi && rlo && rhi && x && out && lo && hi);
    for (size_t v = 0; v < nv; v++)
        assert_int_equal(haze_prec_var_range(ctx, s, v, &rlo[v], &rhi[v]), 0);
    haze__rng rng;
    haze__rng_seed(&rng, 26);
    /* the stride of input v in the box numbering: the first varies fastest */
    size_t stride = 1;
    size_t *strides = malloc(nv * sizeof *strides), *split = malloc(nv * sizeof *split);
    assert_non_null(strides && split);
    for (size_t v = 0; v < nv; v++) {
        const char *name = haze_prec_var_name(s, v);
        split[v] = v1 && !strcmp(name, v1) ? n1 : v2 && !strcmp(name, v2) ? n2 : 1;
        strides[v] = stride;
        stride *= split[v];
    }
    assert_int_equal(stride, nb);
    for (size_t v = 0; v < nv; v++) { /* the sub-ranges tile the range */
        double prev_lo = -HUGE_VAL, prev_hi = -HUGE_VAL;
        for (size_t k = 0; k < split[v]; k++) {
            assert_int_equal(haze_prec_result_box(ctx, r, k * strides[v], 0, vlo, vhi, NULL, NULL),
                             0);
            assert_true(vlo[v] <= vhi[v]);
            if (k == 0) assert_true(vlo[v] <= rlo[v]);
            if (k == split[v] - 1) assert_true(vhi[v] >= rhi[v]);
            if (k > 0) assert_true(vlo[v] <= prev_hi && vlo[v] > prev_lo && vhi[v] > prev_hi);
            prev_lo = vlo[v];
            prev_hi = vhi[v];
        }
    }
    for (size_t b = 0; b < nb; b++)
        for (size_t g = 0; g < ng; g++)
            assert_int_equal(
                haze_prec_result_box(ctx, r, b, g, vlo, vhi, &lo[b * ng + g], &hi[b * ng + g]), 0);
    for (size_t g = 0; g < ng; g++) { /* the join, bit for bit */
        double jl = HUGE_VAL, jh = -HUGE_VAL;
        for (size_t b = 0; b < nb; b++) {
            if (lo[b * ng + g] < jl) jl = lo[b * ng + g];
            if (hi[b * ng + g] > jh) jh = hi[b * ng + g];
        }
        const haze_prec_goal *G = haze_prec_result_goal(r, g);
        assert_memory_equal(&jl, &G->lo, sizeof jl);
        assert_memory_equal(&jh, &G->hi, sizeof jh);
    }
    for (size_t b = 0; b < nb; b++) { /* points of each box: its corners, its centre, random */
        assert_int_equal(haze_prec_result_box(ctx, r, b, 0, vlo, vhi, NULL, NULL), 0);
        for (int t = 0; t < 6; t++) {
            for (size_t v = 0; v < nv; v++) {
                double a = fmax(vlo[v], rlo[v]), c = fmin(vhi[v], rhi[v]);
                x[v] = t == 0   ? a
                       : t == 1 ? c
                       : t == 2 ? a + 0.5 * (c - a)
                                : a + haze__rng_uniform(&rng) * (c - a);
            }
            assert_int_equal(haze_prec_eval(ctx, s, x, 256, out), 0);
            for (size_t g = 0; g < ng; g++)
                if (out[g] < lo[b * ng + g] || out[g] > hi[b * ng + g])
                    fail_msg("box %zu goal %zu: %.17g outside [%.17g, %.17g]", b, g, out[g],
                             lo[b * ng + g], hi[b * ng + g]);
        }
    }
    assert_int_equal(haze_prec_result_box(ctx, r, nb, 0, NULL, NULL, NULL, NULL), HAZE_ERR_INVALID);
    assert_int_equal(haze_prec_result_box(ctx, r, 0, ng, NULL, NULL, NULL, NULL), HAZE_ERR_INVALID);
    assert_int_equal(haze_prec_result_box(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL),
                     HAZE_ERR_INVALID);
    assert_int_equal(haze_prec_result_box_count(NULL), 0);
    free(strides);
    free(split);
    free(vlo);
    free(vhi);
    free(rlo);
    free(rhi);
    free(x);
    free(out);
    free(lo);
    free(hi);
    haze_prec_result_free(r);
}

static void test_boxes(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    /* one bisected input, exp and log; with and without refinement */
    haze_prec_script *s = load(ctx, HAZE_SOURCE_DIR "/examples/prec/log1pexp_double.g");
    check_boxes(ctx, s, HAZE_PREC_IA, NULL, 1, NULL,
                1); /* no bisection: one box, the whole range */
    assert_int_equal(haze_prec_set_bisect(ctx, s, "x_m", 16), 0);
    for (int e = HAZE_PREC_IA; e <= HAZE_PREC_BOTH; e++) check_boxes(ctx, s, e, "x_m", 16, NULL, 1);
    assert_int_equal(haze_prec_set_refine(ctx, s, 0), 0);
    check_boxes(ctx, s, HAZE_PREC_BOTH, "x_m", 16, NULL, 1);
    haze_prec_free(s);
    /* two bisected inputs (the first varies fastest) */
    s = load(ctx, HAZE_SOURCE_DIR "/examples/prec/fixed_point.g");
    assert_int_equal(haze_prec_set_bisect(ctx, s, "x1_m", 5), 0);
    assert_int_equal(haze_prec_set_bisect(ctx, s, "x2_m", 3), 0);
    check_boxes(ctx, s, HAZE_PREC_IA, "x1_m", 5, "x2_m", 3);
    check_boxes(ctx, s, HAZE_PREC_AA, "x1_m", 5, "x2_m", 3);
    haze_prec_free(s);
    /* the filter: the pass for shared roundings narrows the goal */
    s = load(ctx, HAZE_SOURCE_DIR "/examples/prec/iir_stable_10.g");
    assert_int_equal(haze_prec_set_bisect(ctx, s, "x9", 4), 0);
    check_boxes(ctx, s, HAZE_PREC_IA, "x9", 4, NULL, 1);
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

static void test_filter(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_prec_script *s = load(ctx, HAZE_SOURCE_DIR "/examples/prec/iir_stable_300.g");
    haze_prec_result *aa = analyse(ctx, s, HAZE_PREC_AA);
    haze_prec_result *ia = analyse(ctx, s, HAZE_PREC_IA);
    /* stable filter: the affine bound converges to about 4.0e-5 */
    assert_true(haze_prec_result_goal(aa, 0)->hi > 3.9e-5 &&
                haze_prec_result_goal(aa, 0)->hi < 4.1e-5);
    assert_true(haze_prec_result_goal(ia, 0)->hi > 1); /* the interval bound explodes */
    haze_prec_result_free(aa);
    haze_prec_result_free(ia);
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

/* Parsing `text` fails with `status` and a message containing `where`. */
static void bad(haze_ctx *ctx, const char *text, int status, const char *where) {
    haze_prec_script *s = NULL;
    haze_prec_result *r = NULL;
    int st = haze_prec_parse(ctx, text, "t.g", NULL, &s);
    if (!st) {
        st = haze_prec_analyse(ctx, s, HAZE_PREC_BOTH, &r);
        haze_prec_result_free(r);
        haze_prec_free(s);
    }
    if (st != status)
        fail_msg("'%s': status %d, want %d (%s)", text, st, status, haze_ctx_errmsg(ctx));
    if (!strstr(haze_ctx_errmsg(ctx), where))
        fail_msg("'%s': message '%s' lacks '%s'", text, haze_ctx_errmsg(ctx), where);
}

static void test_bad_input(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    bad(ctx, "y = x +;\n{ x in [0,1] -> y in ? }", HAZE_ERR_PARSE, "t.g:1:8:");
    bad(ctx, "y = x * z;\n{ x in [0,1] -> y in ? }", HAZE_ERR_PARSE,
        "t.g:1:9: undefined variable 'z'");
    bad(ctx, "y = tan(x);\n{ x in [0,1] -> y in ? }", HAZE_ERR_UNSUPPORTED,
        "t.g:1:5: unknown function");
    bad(ctx, "y = x;\n{ x in [1,0] -> y in ? }", HAZE_ERR_PARSE, "t.g:2:8: empty range");
    bad(ctx, "y = 1 / x;\n{ x in [-1,1] -> y in ? }", HAZE_ERR_DOMAIN, "t.g:1:7: division");
    bad(ctx, "y = log(x);\n{ x in [0,1] -> y in ? }", HAZE_ERR_DOMAIN, "t.g:1:5: logarithm");
    bad(ctx, "y = float<ieee_32,od>(x);\n{ x in [0,1] -> y in ? }", HAZE_ERR_UNSUPPORTED,
        "t.g:1:19:");
    bad(ctx, "y = x;\n{ x in [0,1] -> y in ? \\/ y in [0,1] }", HAZE_ERR_UNSUPPORTED,
        "t.g:2:24: disjunctions");
    bad(ctx, "y = x;\n{ x in [0,1] -> y in ? }\ny -> x;", HAZE_ERR_UNSUPPORTED, "t.g:3:1:");
    bad(ctx, "y = x;\n{ x in [0,1] -> y in ? }\n$ y;", HAZE_ERR_UNSUPPORTED, "t.g:3:3:");
    bad(ctx, "y = x;", HAZE_ERR_PARSE, "t.g:1:7: expected a formula");
    bad(ctx, "y = x; y = 2;\n{ x in [0,1] -> y in ? }", HAZE_ERR_PARSE,
        "t.g:1:8: 'y' is already defined");
    haze_ctx_free(ctx);
}

/* Every prefix and some byte mutations of real scripts: the readers must
 * answer (a script or an error with a position), never crash or leak. */
static void fuzz_file(haze_ctx *ctx, const char *path, haze__rng *rng) {
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    char *t = malloc(n + 1);
    assert_non_null(t);
    size_t step = quick() ? 13 : 3;
    for (size_t k = 0; k <= n; k += step) {
        memcpy(t, buf, k);
        t[k] = 0;
        haze_prec_script *s = NULL;
        if (haze_prec_parse(ctx, t, "f", NULL, &s) == HAZE_OK)
            haze_prec_free(s);
        else
            assert_true(strstr(haze_ctx_errmsg(ctx), "f") != NULL);
    }
    static const char junk[] = "()[]{}<>;,=+-*/|$?~@#\\ 0123456789.ebpx_azin";
    for (int k = 0; k < (quick() ? 20 : 200); k++) {
        memcpy(t, buf, n + 1);
        for (int m = 0; m < 3; m++)
            t[haze__rng_next(rng) % (n ? n : 1)] = junk[haze__rng_next(rng) % (sizeof junk - 1)];
        haze_prec_script *s = NULL;
        if (haze_prec_parse(ctx, t, "f", NULL, &s) == HAZE_OK) haze_prec_free(s);
    }
    free(t);
}

static void test_fuzz_readers(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze__rng rng;
    haze__rng_seed(&rng, 3);
    fuzz_file(ctx, HAZE_SOURCE_DIR "/examples/prec/fixed_point.g", &rng);
    fuzz_file(ctx, HAZE_SOURCE_DIR "/examples/prec/fcm_membership.g", &rng);
    fuzz_file(ctx, HAZE_TEST_DATA "/prec/bench/jetEngine.g", &rng);
    fuzz_file(ctx, HAZE_TEST_DATA "/prec/fpcore/doppler1.fpcore", &rng);
    fuzz_file(ctx, HAZE_TEST_DATA "/prec/fpcore/verhulst32.fpcore", &rng);
    haze_ctx_free(ctx);
}

/* FPCore and Gappa versions of one benchmark give the same bound. */
static void test_fpcore(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *names[] = {"rigidBody1", "doppler1"};
    for (int i = 0; i < 2; i++) {
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/prec/fpcore/%s.fpcore", HAZE_TEST_DATA, names[i]);
        snprintf(b, sizeof b, "%s/prec/bench/%s.g", HAZE_TEST_DATA, names[i]);
        haze_prec_script *s1 = load(ctx, a), *s2 = load(ctx, b);
        haze_prec_result *r1 = analyse(ctx, s1, HAZE_PREC_BOTH),
                         *r2 = analyse(ctx, s2, HAZE_PREC_BOTH);
        assert_string_equal(haze_prec_result_goal(r1, 0)->hi_exact,
                            haze_prec_result_goal(r2, 0)->hi_exact);
        haze_prec_result_free(r1);
        haze_prec_result_free(r2);
        haze_prec_free(s1);
        haze_prec_free(s2);
    }
    bad(ctx, "(FPCore (x) :pre (<= 0 x 1) (if (< x 0.5) x 1))", HAZE_ERR_UNSUPPORTED,
        "t.g:1:30: 'if'");
    bad(ctx, "(FPCore (x) :pre (<= 0 x 1) (+ x y))", HAZE_ERR_PARSE,
        "t.g:1:34: undefined variable 'y'");
    bad(ctx, "(FPCore (x) :pre (<= 1 x 0) x)", HAZE_ERR_PARSE, "empty range");
    bad(ctx, "(FPCore (x) :pre (<= 0 x 1) (+ x 1)", HAZE_ERR_PARSE, "t.g:1:1: unclosed");
    bad(ctx, "(FPCore (x) :pre (<= -1 x 1) (/ 1 x))", HAZE_ERR_DOMAIN, "division");
    /* FPCore's words in the messages: what :pre gave an argument, what the
     * analyser takes */
    bad(ctx, "(FPCore (x) :pre (>= x 0) (sqrt x))", HAZE_ERR_PARSE,
        "t.g:1:10: argument 'x' needs a range: :pre bounds it only from below");
    bad(ctx, "(FPCore (x y) :pre (<= 0 x 1) (+ x y))", HAZE_ERR_PARSE,
        "t.g:1:12: argument 'y' needs a range: :pre bounds it on neither side");
    bad(ctx, "(FPCore (x) :pre (<= 0 x 1) (fmax x 1))", HAZE_ERR_UNSUPPORTED,
        "'fmax' is not supported (haze analyses +, -, *, /, sqrt, fma, fabs, exp, log, exp2, "
        "log2, let and let*, and while loops with --unroll)");
    {
        /* a strict bound is analysed closed, and says so */
        haze_prec_script *st = NULL;
        assert_int_equal(
            haze_prec_parse(ctx, "(FPCore (x) :pre (< 1 x 2) (* x x))", "t.g", NULL, &st), HAZE_OK);
        assert_int_equal(haze_prec_note_count(st), 1);
        assert_non_null(strstr(haze_prec_note(st, 0), ":pre bounds with '<': the analysis takes "
                                                      "the closed range, endpoints included"));
        haze_prec_free(st);
    }
    /* loops: rejected without unrolling, unrolled with it */
    const char *loop =
        "(FPCore (x) :pre (<= 0 x 1)\n (while (< i 3) ([i 0 (+ i 1)] [s 0 (+ s x)]) s))";
    bad(ctx, loop, HAZE_ERR_UNSUPPORTED, "t.g:2:2: loops are analysed unrolled");
    haze_prec_parse_options o = haze_prec_parse_options_default();
    o.unroll = 2;
    haze_prec_script *s = NULL;
    assert_int_equal(haze_prec_parse(ctx, loop, "t.g", &o, &s), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "more than 2 iterations"));
    o.unroll = 3;
    assert_int_equal(haze_prec_parse(ctx, loop, "t.g", &o, &s), HAZE_OK);
    haze_prec_result *r = analyse(ctx, s, HAZE_PREC_BOTH);
    double x = 0.75, v;
    assert_int_equal(haze_prec_eval(ctx, s, &x, 256, &v), HAZE_OK); /* s = x + x + x rounded */
    assert_true(v >= haze_prec_result_goal(r, 0)->lo && v <= haze_prec_result_goal(r, 0)->hi);
    assert_true(haze_prec_result_goal(r, 0)->hi <= 0x1p-51);
    haze_prec_result_free(r);
    haze_prec_free(s);
    const char *dep = "(FPCore (x) :pre (<= 0 x 1) (while (< s 3) ([s 0 (+ s x)]) s))";
    o.unroll = 100;
    assert_int_equal(haze_prec_parse(ctx, dep, "t.g", &o, &s), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "depends on the inputs"));
    /* a condition of constants that is not exact: said as such */
    const char *inexact = "(FPCore (x) :pre (<= 0 x 1) (while (< (exp i) 3) ([i 0 (+ i 1)]"
                          " [s 0 (+ s x)]) s))";
    assert_int_equal(haze_prec_parse(ctx, inexact, "t.g", &o, &s), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "the loop condition cannot be decided exactly"));
    /* a loop in a loop: 40 x 40 iterations, over a limit of 1000 operations */
    const char *nest = "(FPCore (x) :pre (<= 0 x 1)\n (while (< i 40) ([i 0 (+ i 1)]\n"
                       "  [s 0 (while (< j 40) ([j 0 (+ j 1)] [t s (+ t x)]) t)]) s))";
    o.unroll = 100;
    o.max_ops = 1000;
    assert_int_equal(haze_prec_parse(ctx, nest, "t.g", &o, &s), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "more than 1000 operations"));
    o.max_ops = 0; /* the default, 10^6 */
    assert_int_equal(haze_prec_parse(ctx, nest, "t.g", &o, &s), HAZE_OK);
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

static void test_features(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    /* exactness (FIX/FLT), hex and binary numbers, named operators, bounds to prove */
    const char *text = "@rnd = float<ieee_32,ne>;\n"
                       "a = rnd(x); b = rnd(0x1.8p1);\n"
                       "y rnd= a * b;      # 24 bits times 2 bits: not exact\n"
                       "z = rnd(a * 2);    # times a power of two: exact\n"
                       "{ x in [1,2] -> |y - x*3| <= 1b-20 /\\ z - 2*a in [0,0] /\\ y -/ (x*3) in ?"
                       " /\\ y >= 3.5 }\n";
    haze_prec_script *s = NULL;
    assert_int_equal(haze_prec_parse(ctx, text, "f.g", NULL, &s), 0);
    haze_prec_result *r = analyse(ctx, s, HAZE_PREC_BOTH);
    assert_int_equal(haze_prec_result_goal_count(r), 4);
    assert_true(haze_prec_result_goal(r, 0)->has_bound && haze_prec_result_goal(r, 0)->proved);
    assert_true(haze_prec_result_goal(r, 1)->proved);
    assert_true(haze_prec_result_goal(r, 1)->lo == 0 && haze_prec_result_goal(r, 1)->hi == 0);
    assert_true(haze_prec_result_goal(r, 2)->relative &&
                fabs(haze_prec_result_goal(r, 2)->hi) <= ldexp(1, -22));
    assert_true(haze_prec_result_goal(r, 3)->has_bound &&
                !haze_prec_result_goal(r, 3)->proved); /* y can be 3 */
    assert_false(haze_prec_result_all_proved(r));
    haze_prec_result_free(r);
    haze_prec_free(s);
    haze_prec_free(NULL);
    haze_prec_result_free(NULL);
    haze_ctx_free(ctx);
}

/* What haze_prec_set_progress's callback saw. */
typedef struct {
    pthread_t caller;
    int calls[2], other_thread, backwards, over;
    long last[2], total[2];
} prec_seen;

static void on_prec_progress(void *arg, int stage, long done, long total) {
    prec_seen *p = arg;
    assert_true(stage == HAZE_PREC_STAGE_GRID || stage == HAZE_PREC_STAGE_REFINE);
    p->other_thread += !pthread_equal(pthread_self(), p->caller);
    p->backwards += p->calls[stage] && done < p->last[stage];
    p->over += done > total;
    p->calls[stage]++;
    p->last[stage] = done;
    p->total[stage] = total;
}

/* Progress: on the calling thread only, counts that never go back, the
 * grid's last report its whole size, refinement within its budget; the
 * result is that of a run without a callback. */
static void test_progress(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_prec_script *s = load(ctx, HAZE_SOURCE_DIR "/examples/prec/fixed_point.g");
    assert_int_equal(haze_prec_set_bisect(ctx, s, "x1_m", 6), 0);
    assert_int_equal(haze_prec_set_bisect(ctx, s, "x2_m", 3), 0);
    assert_int_equal(haze_prec_set_refine(ctx, s, 10), 0);
    haze_prec_result *r0 = analyse(ctx, s, HAZE_PREC_IA);
    prec_seen seen;
    memset(&seen, 0, sizeof seen);
    seen.caller = pthread_self();
    assert_int_equal(haze_prec_set_progress(NULL, NULL, NULL, NULL), HAZE_ERR_INVALID);
    assert_int_equal(haze_prec_set_progress(ctx, s, on_prec_progress, &seen), 0);
    haze_prec_result *r1 = analyse(ctx, s, HAZE_PREC_IA);
    assert_true(seen.calls[HAZE_PREC_STAGE_GRID] >= 2); /* 0 of 18 first, 18 of 18 last */
    assert_int_equal(seen.total[HAZE_PREC_STAGE_GRID], 18);
    assert_int_equal(seen.last[HAZE_PREC_STAGE_GRID], 18);
    assert_true(seen.calls[HAZE_PREC_STAGE_REFINE] >= 1);
    assert_int_equal(seen.total[HAZE_PREC_STAGE_REFINE], 10);
    assert_int_equal(seen.other_thread, 0);
    assert_int_equal(seen.backwards, 0);
    assert_int_equal(seen.over, 0);
    assert_int_equal(haze_prec_result_boxes(r0), haze_prec_result_boxes(r1));
    assert_string_equal(haze_prec_result_goal(r0, 0)->hi_exact,
                        haze_prec_result_goal(r1, 0)->hi_exact);
    /* off again */
    assert_int_equal(haze_prec_set_progress(ctx, s, NULL, NULL), 0);
    int before = seen.calls[0] + seen.calls[1];
    haze_prec_result *r2 = analyse(ctx, s, HAZE_PREC_IA);
    assert_int_equal(seen.calls[0] + seen.calls[1], before);
    haze_prec_result_free(r0);
    haze_prec_result_free(r1);
    haze_prec_result_free(r2);
    haze_prec_free(s);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_point_paper),
        cmocka_unit_test(test_features),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_soundness),
        cmocka_unit_test(test_vs_gappa),
        cmocka_unit_test(test_vs_fptaylor),
        cmocka_unit_test(test_refine),
        cmocka_unit_test(test_shared_roundings),
        cmocka_unit_test(test_fpcore),
        cmocka_unit_test(test_fuzz_readers),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_boxes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
