/*
 * src/fnn/fnn_internal.h - the SONFIN network's layout, shared by the CPU
 * reference (fnn.c), the model files (fnn_io.c) and the CUDA backend
 * (fnn_cuda*.cu). Not installed.
 *
 * Parameters are stored rule-major and contiguous along the input dimension
 * (m[k * D + j]), the data layout of seed 001, section 3.4 (Fig. 13): rules
 * are appended during training, so only the dimension direction stays fixed.
 */
#ifndef HAZE_FNN_INTERNAL_H
#define HAZE_FNN_INTERNAL_H

#include <stddef.h>

#include "haze/fnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Widths never shrink below this (standardised units): a zero width would
 * make the membership a spike and its gradient infinite. */
#define HAZE__FNN_SIGMA_MIN 1e-3

/* A rule whose firing is below e^-40 times the strongest one's counts as not
 * firing (phi = 0): its share of every output is below 2^-57, under double
 * rounding, and skipping it keeps subnormal numbers (slow on CPUs) out of
 * the update. CPU and GPU apply the same cut. */
#define HAZE__FNN_LOG_CUTOFF (-40.0)

struct haze_fnn {
    size_t D, L;            /* inputs, outputs */
    size_t R;               /* rules */
    size_t cap;             /* rules the arrays have room for */
    double *m;              /* cap x D centres (standardised units) */
    double *s;              /* cap x D widths */
    double *w;              /* cap x L consequents */
    double *mean, *scale;   /* D: z_j = (x_j - mean_j) / scale_j */
    double *tmean, *tscale; /* L: raw y_l = tmean_l + tscale_l * y_l (0 and 1 for a classifier);
                               w is in these standardised target units */
    int scaled;             /* 1 once mean/scale are fixed */
    int classifier;
    char **classes;   /* L names, or NULL */
    char **inames;    /* D names (entries may be NULL), or NULL */
    char *target;     /* or NULL */
    int file_version; /* the format of the file it was loaded from (new: the current one) */
};

/* Makes room for at least `rules` rules; 0 or HAZE_ERR_NOMEM. */
int haze__fnn_reserve(haze_ctx *ctx, haze_fnn *net, size_t rules);

/* Training state handed to a backend: the epoch loop lives in fnn.c. */
typedef struct haze__fnn_train_args {
    const double *z; /* n x D standardised inputs */
    const double *d; /* n x L targets */
    size_t n;
    const size_t *order; /* n sample indices in visiting order */
    double log_th;       /* log of the firing threshold (per input) */
    const haze_fnn_options *opt;
    double loss_sum; /* out: sum of E before each update */
    size_t correct;  /* out: argmax hits (classifier) */
    int epoch;       /* 0-based, for opt->step */
} haze__fnn_train_args;

/* Calls opt->step when the samples done went from `from` to `to` past a
 * multiple of opt->step_every (or to the end of the epoch). */
static inline void haze__fnn_step_report(const haze__fnn_train_args *a, size_t from, size_t to) {
    const haze_fnn_options *o = a->opt;
    if (!o->step || to <= from) return;
    size_t every = o->step_every ? o->step_every : 1;
    if (to / every != from / every || to == a->n) o->step(o->progress_arg, a->epoch, to, a->n);
}

/* log mu_k of rule k for one standardised sample. */
double haze__fnn_log_firing(const haze_fnn *net, const double *z, size_t k);
/* Structure learning: appends a rule centred at z with consequent d, widths
 * from the distance to rule K (sigma0 for the first rule). */
int haze__fnn_add_rule(haze_ctx *ctx, haze_fnn *net, const double *z, const double *d, size_t K,
                       const haze_fnn_options *o);

int haze__fnn_epoch_cpu(haze_ctx *ctx, haze_fnn *net, haze__fnn_train_args *a);
int haze__fnn_forward_cpu(haze_ctx *ctx, const haze_fnn *net, const double *z, size_t n, double *y);

#ifdef HAZE_HAVE_CUDA
int haze__fnn_epoch_cuda(haze_ctx *ctx, haze_fnn *net, haze__fnn_train_args *a);
int haze__fnn_forward_cuda(haze_ctx *ctx, const haze_fnn *net, const double *z, size_t n,
                           double *y);
/* Thread mapping of the CUDA kernels: the architecture-aware mapping of
 * seed 001 chapter 3 (default) or the GPU-FNN baseline (one block per rule,
 * one thread per input; inputs <= 1024 only). Per context; the development
 * library (dev/fnn_dev.h) forces the baseline. */
enum { HAZE__FNN_MAP_ATM = 0, HAZE__FNN_MAP_GPUFNN = 1 };
/* Online training (batch 1) under the ATM mapping: AUTO the library's
 * choice; the others forced per context by the development library
 * (dev/fnn_dev.h says what each does). */
/* How the blocks of the online kernels' cluster exchange their partials
 * (fnn_cuda_cluster.cu says why there are two ways): AUTO the library's
 * choice (ASYNC); BARRIER forced per context by the development library,
 * for compute-sanitizer's synccheck. */
enum { HAZE__FNN_XCHG_AUTO = 0, HAZE__FNN_XCHG_ASYNC = 1, HAZE__FNN_XCHG_BARRIER = 2 };
enum {
    HAZE__FNN_ONLINE_AUTO = 0,
    HAZE__FNN_ONLINE_LAUNCH = 1,
    HAZE__FNN_ONLINE_CLUSTER = 2,
    HAZE__FNN_ONLINE_REGISTER = 3
};
#endif

#ifdef __cplusplus
}
#endif

#endif
