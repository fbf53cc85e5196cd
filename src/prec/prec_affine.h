/*
 * src/prec/prec_affine.h - affine forms with interval coefficients, the
 * arithmetic of the AA engine (prec_affine.c): c0 + sum c_i eps_i with every
 * noise symbol eps_i in [-1, 1] and every coefficient an MPFR interval that
 * encloses the true one over the box (de Figueiredo and Stolfi, 1997).
 */
#ifndef HAZE_PREC_AFFINE_H
#define HAZE_PREC_AFFINE_H

#include "prec/prec_pint.h"

typedef struct aform {
    int n, cap;
    int *sym;
    pint *c;
    pint c0;
} aform;

/* The functions that return int return 0, or 1 when out of memory (their
 * callers turn it into HAZE_ERR_NOMEM). */

/* Adds a new noise symbol for the interval d: mid(d) to the centre, rad(d) on sym. */
int haze__af_add_interval(aform *a, const pint *d, int *next_sym);
void haze__af_free(aform *a);
void haze__af_init(aform *a);
/* r = kx*x + ky*y (kx, ky intervals; NULL means 1; y may be NULL). r is new. */
int haze__af_lin(aform *r, const aform *x, const pint *kx, const aform *y, const pint *ky,
                 int *next_sym);
/* Standard affine product (de Figueiredo and Stolfi, Sec. 3.10): the
 * quadratic remainder, bounded by rad(x) rad(y), becomes a new symbol. */
int haze__af_mul(aform *r, const aform *x, const aform *y, int *next_sym);
/* Appends coefficient k on a symbol larger than all present. */
int haze__af_push(aform *a, int sym, const pint *k);
void haze__af_range(pint *out, const aform *a);

#endif
