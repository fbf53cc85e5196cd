/*
 * src/fis/fis_model.c - the model's own functions (fis_model.h): the names
 * of its codes, the warnings a reader attaches, and freeing, which is the
 * model's alone (every reader frees a half-built model through it).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "fis/fis_model.h"

const char *const haze__mf_names[HAZE__MF_COUNT] = {
    "trimf", "trapmf", "gaussmf", "gauss2mf", "gbellmf", "sigmf", "dsigmf", "psigmf", "pimf", "smf",
    "zmf", "linsmf", "linzmf", "constant", "linear",
    /* fuzzylite's class names */
    "Triangle", "Trapezoid", "Gaussian", "GaussianProduct", "Bell", "Sigmoid", "SigmoidDifference",
    "SigmoidProduct", "SShape", "ZShape", "PiShape", "Ramp", "Rectangle", "Cosine", "Concave",
    "Spike", "Binary", "Discrete", "Function"};
/* parameters without the height; -1: variable */
const int haze__mf_nparams[HAZE__MF_COUNT] = {3, 4, 2, 4, 3, 2, 4, 4, 4, 2, 2, 2, 2, 1, -1, 3,  4,
                                              2, 4, 3, 2, 4, 4, 2, 2, 4, 2, 2, 2, 2, 2, 2,  -1, -1};
const char *const haze__norm_names[HAZE__N_COUNT] = {"min",
                                                     "prod",
                                                     "bounded_difference",
                                                     "drastic_product",
                                                     "einstein_product",
                                                     "hamacher_product",
                                                     "nilpotent_minimum",
                                                     "max",
                                                     "probor",
                                                     "bounded_sum",
                                                     "drastic_sum",
                                                     "einstein_sum",
                                                     "hamacher_sum",
                                                     "nilpotent_maximum",
                                                     "sum"};
const char *const haze__defuzz_names[HAZE__D_COUNT] = {"centroid", "bisector", "mom",  "som",
                                                       "lom",      "wtaver",   "wtsum"};
const char *const haze__hedge_names[HAZE__H_ANY + 1] = {"",       "not",       "very", "somewhat",
                                                        "seldom", "extremely", "any"};

void haze__warn(haze__warns *w, const char *file, int line, const char *fmt, ...) {
    char msg[1024];
    int k = snprintf(msg, sizeof msg, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    if (k >= 0 && (size_t)k < sizeof msg) haze__vsnprintf(msg + k, sizeof msg - (size_t)k, fmt, ap);
    va_end(ap);
    if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 4;
        char **m = realloc(w->msg, sizeof(char *) * (size_t)cap);
        if (!m) return;
        w->msg = m;
        w->cap = cap;
    }
    char *c = malloc(strlen(msg) + 1);
    if (!c) return;
    strcpy(c, msg);
    w->msg[w->n++] = c;
}

void haze__warns_free(haze__warns *w) {
    for (int i = 0; i < w->n; i++) free(w->msg[i]);
    free(w->msg);
    memset(w, 0, sizeof *w);
}

const haze__fl_norm haze__fl_norms[HAZE__FL_NORMS] = {
    {"Minimum", HAZE__N_MIN},
    {"AlgebraicProduct", HAZE__N_PROD},
    {"BoundedDifference", HAZE__N_BDIFF},
    {"DrasticProduct", HAZE__N_DPROD},
    {"EinsteinProduct", HAZE__N_EPROD},
    {"HamacherProduct", HAZE__N_HPROD},
    {"NilpotentMinimum", HAZE__N_NMIN},
    {"Maximum", HAZE__N_MAX},
    {"AlgebraicSum", HAZE__N_PROBOR},
    {"BoundedSum", HAZE__N_BSUM},
    {"DrasticSum", HAZE__N_DSUM},
    {"EinsteinSum", HAZE__N_ESUM},
    {"HamacherSum", HAZE__N_HSUM},
    {"NilpotentMaximum", HAZE__N_NMAX},
    {"UnboundedSum", HAZE__N_SUM},
    /* fuzzylite 6.0's NormalizedSum, (a + b) / max(1, a + b), is
     * the bounded sum to the bit (x / x = 1); checked against
     * fuzzylite (tests/data/fis/fuzzylite-haze/connectives) */
    {"NormalizedSum", HAZE__N_BSUM}};

void haze__fis_plan_forget(haze_fis *f) {
    free(f->plan); /* one block (fis_plan.c) */
    f->plan = NULL;
}

void haze__fis_free(haze_fis *f) {
    if (!f) return;
    free(f->in);
    free(f->out);
    free(f->mfs);
    free(f->params);
    free(f->ante);
    free(f->cons);
    free(f->ante_hedge);
    free(f->cons_hedge);
    free(f->weight);
    free(f->conn);
    free(f->ante_fl);
    free(f->cons_fl);
    free(f->props);
    free(f->prop_off);
    haze__fis_plan_forget(f);
    haze__warns_free(&f->warns);
    free(f);
}
