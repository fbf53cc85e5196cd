/*
 * dev/prec_dev.c - the box engine of the rounding-error analyser for tests
 * and benchmarks (prec_dev.h), through src/prec/prec_box_internal.h.
 */
#include <stdlib.h>

#include "prec/prec_box_internal.h"
#include "prec_dev.h"

struct haze_dev_prec_boxes {
    pbox_prog p;
};

int haze_dev_prec_boxes_compile(haze_ctx *ctx, const haze_prec_script *s,
                                haze_dev_prec_boxes **out) {
    *out = NULL;
    haze_dev_prec_boxes *b = calloc(1, sizeof *b);
    if (!b) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    int rc = haze__prec_box_compile(ctx, s, &b->p);
    if (rc) {
        free(b);
        return rc;
    }
    *out = b;
    return HAZE_OK;
}

void haze_dev_prec_boxes_free(haze_dev_prec_boxes *p) {
    if (!p) return;
    haze__prec_box_free(&p->p);
    free(p);
}

long haze_dev_prec_boxes_count(const haze_dev_prec_boxes *p) {
    return p->p.boxes;
}

int haze_dev_prec_boxes_goals(const haze_dev_prec_boxes *p) {
    return p->p.ng;
}

int haze_dev_prec_boxes_length(const haze_dev_prec_boxes *p) {
    return p->p.n;
}

int haze_dev_prec_boxes_local_max(void) {
    return PBOX_MAX_NODES;
}

int haze_dev_prec_boxes_host(const haze_dev_prec_boxes *p, long first, long count, double *out,
                             int *err) {
    return haze__prec_boxes_host(&p->p, first, count, out, err);
}

int haze_dev_prec_boxes_cuda(haze_ctx *ctx, const haze_dev_prec_boxes *p, long first, long count,
                             double *out, int *err) {
#ifdef HAZE_HAVE_CUDA
    return haze__prec_boxes_cuda(ctx, &p->p, first, count, out, err);
#else
    (void)p;
    (void)first;
    (void)count;
    (void)out;
    (void)err;
    return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "GPU bisection: built without CUDA");
#endif
}
