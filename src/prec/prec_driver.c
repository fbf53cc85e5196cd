/*
 * src/prec/prec_driver.c - one whole analysis of a script: bisection and
 * refinement (prec_bisect.c), then the second pass for the roundings that
 * both sides of a goal share (prec_share.c), each goal's enclosures
 * intersected.
 */
#include "prec/prec_driver.h"

int haze__prec_enclose(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine, pint *acc,
                       prec_boxrec *rec, long *boxes) {
    int rc = haze__prec_bisect(ctx, s, engine, acc, rec, boxes);
    /* roundings shared by both sides of a goal, counted once (prec_share.c);
     * the affine engine cancels them by itself */
    if (!rc && !s->no_share && engine != HAZE_PREC_AA) {
        int sr = haze__prec_share_pass(ctx, s, acc);
        if (sr == HAZE_ERR_NOMEM)
            rc = haze__error(ctx, sr, "out of memory");
        else if (sr)
            haze_ctx_clear_error(ctx); /* e.g. a domain error once the values decouple */
    }
    return rc;
}
