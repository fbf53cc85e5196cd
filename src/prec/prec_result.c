/*
 * src/prec/prec_result.c - the accessors of haze_prec_result (haze/prec.h).
 */
#include "prec/prec_result.h"

#include "core/internal.h"

size_t haze_prec_result_goal_count(const haze_prec_result *r) {
    return r ? r->n_goals : 0;
}

const haze_prec_goal *haze_prec_result_goal(const haze_prec_result *r, size_t i) {
    return r && i < r->n_goals ? &r->goals[i] : NULL;
}

size_t haze_prec_result_boxes(const haze_prec_result *r) {
    return r ? r->boxes : 0;
}

double haze_prec_result_seconds(const haze_prec_result *r) {
    return r ? r->seconds : 0.0;
}

/* The result's blocks come from haze__mp_*: an unwinding out of MPFR in the
 * middle of the report frees them; once the guard is left they are plain
 * malloc blocks that haze_prec_result_free can free at any depth. */
void haze__prec_boxrec_free(prec_boxrec *b) {
    if (!b) return;
    haze__mp_free(b->split);
    haze__mp_free(b->off);
    haze__mp_free(b->sub_lo);
    haze__mp_free(b->sub_hi);
    haze__mp_free(b->lo);
    haze__mp_free(b->hi);
    haze__mp_free(b);
}

int haze_prec_result_all_proved(const haze_prec_result *r) {
    return r ? r->all_proved : 0;
}

size_t haze_prec_result_box_count(const haze_prec_result *r) {
    return r && r->rec ? r->rec->n_box : 0;
}

int haze_prec_result_box(haze_ctx *ctx, const haze_prec_result *r, size_t box, size_t goal,
                         double *var_lo, double *var_hi, double *lo, double *hi) {
    if (!r) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_result_box: NULL result");
    const prec_boxrec *b = r->rec;
    if (!b || box >= b->n_box)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_result_box: no box %zu (it has %zu)",
                           box, b ? b->n_box : 0);
    if (goal >= (size_t)b->ng)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_result_box: no goal %zu (it has %d)",
                           goal, b->ng);
    size_t rest = box;
    for (int v = 0; v < b->nv; v++) {
        size_t n = (size_t)b->split[v], k = rest % n;
        rest /= n;
        if (var_lo) var_lo[v] = b->sub_lo[b->off[v] + k];
        if (var_hi) var_hi[v] = b->sub_hi[b->off[v] + k];
    }
    if (lo) *lo = b->lo[box * (size_t)b->ng + goal];
    if (hi) *hi = b->hi[box * (size_t)b->ng + goal];
    return HAZE_OK;
}
