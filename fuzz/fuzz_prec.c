/*
 * fuzz/fuzz_prec.c - the precision-analysis script reader (Gappa's language
 * and FPCore) on arbitrary text. The first byte sets the loop unrolling
 * limit (0 rejects FPCore loops); the rest is the script. A script that
 * parses is evaluated exactly at one point of its input box and analysed
 * once with the interval engine on the whole box (no bisection, no
 * refinement: the cheapest analysis, linear in the script), and must not
 * crash, leak or read out of bounds.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "haze/haze.h"

/* A point inside [lo, hi] (either may be infinite). */
static double inside(double lo, double hi) {
    if (isfinite(lo) && isfinite(hi)) return lo / 2 + hi / 2;
    if (isfinite(lo)) return lo;
    if (isfinite(hi)) return hi;
    return 0.0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    haze_ctx *ctx = fuzz_ctx();
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    haze_prec_parse_options opt = haze_prec_parse_options_default();
    opt.unroll = data[0] & 7;
    opt.max_ops = 50000; /* the default 10^6 takes seconds under the sanitizers */
    haze_prec_script *s = NULL;
    int st = haze_prec_parse(ctx, text, "fuzz.g", &opt, &s);
    free(text);
    if (st != HAZE_OK) {
        if (s) abort(); /* a failed parse returns nothing */
        return 0;
    }
    size_t nv = haze_prec_var_count(s), ng = haze_prec_goal_count(s);
    if (ng == 0) abort(); /* a script without a goal is a parse error */
    double *x = malloc((nv ? nv : 1) * sizeof *x), *y = malloc(ng * sizeof *y);
    if (x && y) {
        for (size_t i = 0; i < nv; i++) {
            double lo = 0, hi = 0;
            if (haze_prec_var_range(ctx, s, i, &lo, &hi) != HAZE_OK || !haze_prec_var_name(s, i))
                abort();
            x[i] = inside(lo, hi);
            /* one box: the script's bisection hints could ask for 1e8 */
            if (haze_prec_set_bisect(ctx, s, haze_prec_var_name(s, i), 1) != HAZE_OK) abort();
        }
        haze_prec_eval(ctx, s, x, 64, y);
    }
    free(x);
    free(y);
    if (haze_prec_set_refine(ctx, s, 0) != HAZE_OK) abort();
    haze_prec_result *r = NULL;
    if (haze_prec_analyse(ctx, s, HAZE_PREC_IA, &r) == HAZE_OK) {
        if (!r || haze_prec_result_goal_count(r) != ng) abort();
    } else if (r) {
        abort();
    }
    haze_prec_result_free(r);
    haze_prec_free(s);
    return 0;
}
