/*
 * src/prec/prec_box_internal.h - the compiled double-interval program of a
 * script and its box space, shared by the CPU twin (prec_box.c) and the CUDA
 * bisection (prec_cuda.cu).
 */
#ifndef HAZE_PREC_BOX_INTERNAL_H
#define HAZE_PREC_BOX_INTERNAL_H

#include "prec/prec_box.h"
#include "prec/prec_internal.h"

#define PBOX_MAX_VARS  16
#define PBOX_MAX_GOALS 16
/* Programs up to PBOX_MAX_NODES keep their values in thread-local arrays;
 * longer ones (up to this) in a per-thread slice of a device buffer. */
#define PBOX_MAX_PROGRAM (1 << 20)
/* Sub-boxes per launch (bounded further by the device memory budget). */
#define PBOX_CHUNK (1L << 20)

typedef struct pbox_prog {
    pbox_ins *ins;
    int *node_of; /* script node of each instruction (for messages) */
    int n, ng, nv;
    int goal[PBOX_MAX_GOALS];
    double lo[PBOX_MAX_VARS], hi[PBOX_MAX_VARS];
    long split[PBOX_MAX_VARS];
    long boxes;
} pbox_prog;

/* The bounds of box number b (the first input varies fastest, as on the CPU). */
HAZE__HD void pbox_box(const pbox_prog *p, long b, haze_ivd *box) {
    for (int v = 0; v < p->nv; v++) {
        long n = p->split[v];
        box[v] = pbox_sub_range(p->lo[v], p->hi[v], b % n, n);
        b /= n;
    }
}

#ifdef __cplusplus
extern "C" {
#endif
/* HAZE_ERR_UNSUPPORTED when the script needs what the program lacks (exp, log, ...). */
int haze__prec_box_compile(haze_ctx *ctx, const haze_prec_script *s, pbox_prog *out);
void haze__prec_box_free(pbox_prog *p);
/* Boxes first..first+count-1 on the CPU: out[(t*ng + g)*2 + {0,1}], err[t] (0 or 1 + instruction).
 */
int haze__prec_boxes_host(const pbox_prog *p, long first, long count, double *out, int *err);
/* The same on the GPU. */
int haze__prec_boxes_cuda(haze_ctx *ctx, const pbox_prog *p, long first, long count, double *out,
                          int *err);
#ifdef __cplusplus
}
#endif

#endif
