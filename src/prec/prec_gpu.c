/*
 * src/prec/prec_gpu.c - the GPU side of bisection, on the host: compiles the
 * script into the double-interval program (prec_box.c), runs its sub-boxes
 * on the GPU in chunks (prec_cuda.cu) and joins their enclosures. The paper
 * (Linderman et al., CGO 2010, Sec. 4.3) took 90 s for 600 sub-ranges on a
 * CPU; here a launch covers up to a million sub-boxes.
 */
#include <math.h>
#include <stdlib.h>

#include "prec/prec_driver.h"

#ifdef HAZE_HAVE_CUDA
static int enclose(haze_ctx *ctx, const haze_prec_script *s, pint *acc, prec_boxrec *rec) {
    pbox_prog p;
    int rc = haze__prec_box_compile(ctx, s, &p);
    if (rc) return rc;
    long chunk = p.boxes < PBOX_CHUNK ? p.boxes : PBOX_CHUNK;
    double *out = (double *)malloc((size_t)chunk * p.ng * 2 * sizeof(double));
    int *err = (int *)malloc((size_t)chunk * sizeof(int));
    double *lo = (double *)malloc((size_t)p.ng * sizeof(double));
    double *hi = (double *)malloc((size_t)p.ng * sizeof(double));
    if (!out || !err || !lo || !hi) rc = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    for (int g = 0; !rc && g < p.ng; g++) lo[g] = INFINITY, hi[g] = -INFINITY;
    for (long first = 0; !rc && first < p.boxes; first += chunk) {
        long c = p.boxes - first < chunk ? p.boxes - first : chunk;
        rc = haze__prec_boxes_cuda(ctx, &p, first, c, out, err);
        for (long t = 0; !rc && t < c; t++) {
            if (err[t]) {
                const pnode *n = &s->nodes[p.node_of[err[t] - 1]];
                rc =
                    haze__error(ctx, HAZE_ERR_DOMAIN, "%s:%d:%d: %s", s->name, n->line, n->col,
                                n->op == OP_DIV ? "division by a range that contains zero"
                                                : "square root of a range that reaches below zero");
                break;
            }
            for (int g = 0; g < p.ng; g++) {
                double a = out[(t * p.ng + g) * 2], b = out[(t * p.ng + g) * 2 + 1];
                if (a != a) a = -INFINITY;
                if (b != b) b = INFINITY;
                if (a < lo[g]) lo[g] = a;
                if (b > hi[g]) hi[g] = b;
                /* the same grid as the CPU's: box first + t is record first + t */
                if (rec && (size_t)p.boxes == rec->n_box) {
                    rec->lo[(size_t)(first + t) * (size_t)p.ng + (size_t)g] = a;
                    rec->hi[(size_t)(first + t) * (size_t)p.ng + (size_t)g] = b;
                }
            }
        }
    }
    for (int g = 0; !rc && g < p.ng; g++) {
        mpfr_set_d(acc[g].lo, lo[g], MPFR_RNDD);
        mpfr_set_d(acc[g].hi, hi[g], MPFR_RNDU);
    }
    free(out);
    free(err);
    free(lo);
    free(hi);
    haze__prec_box_free(&p);
    return rc;
}
#endif

int haze__prec_enclose_gpu(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine,
                           pint *acc, prec_boxrec *rec, int *done) {
    *done = 0;
#ifdef HAZE_HAVE_CUDA
    if (!haze__use_cuda(ctx) || engine != HAZE_PREC_IA) return HAZE_OK;
    int rc = enclose(ctx, s, acc, rec);
    if (rc == HAZE_ERR_UNSUPPORTED) {
        haze_ctx_clear_error(ctx);
        return HAZE_OK;
    }
    *done = 1;
    return rc;
#else
    (void)ctx;
    (void)s;
    (void)engine;
    (void)acc;
    (void)rec;
    return HAZE_OK;
#endif
}
