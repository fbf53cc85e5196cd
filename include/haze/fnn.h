/*
 * haze/fnn.h - SONFIN, the self-constructing neural fuzzy inference network
 * (zero-order Takagi-Sugeno; Juang and Lin, 1998) in the form docs/fnn.md
 * describes: Gaussian membership per rule and input, product AND, weighted-average output layer
 * with L outputs; rules created during training (structure learning) and all
 * parameters tuned by gradient descent (parameter learning).
 *
 * The network works on standardised inputs (z-scores computed from the first
 * training set and stored in the model), so one threshold and one overlap
 * coefficient fit every data set; a regression network also learns
 * standardised targets. The .fis export folds both scalings back into the
 * membership functions and consequents. Training holds out a slice of the
 * samples, keeps the parameters of the epoch that did best on it and halves
 * the learning rate after an epoch whose loss rose. docs/fnn.md gives the formulas and every choice
 * made where the description it follows is ambiguous.
 *
 * Threads: as haze/core.h says ("Threads"). A network is read-only in
 * predict, classify and gradient; training and the set_ calls change it and
 * must not overlap with any other call on it.
 */
#ifndef HAZE_FNN_H
#define HAZE_FNN_H

#include <stddef.h>
#include <stdint.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the model file format written by haze_fnn_save(). */
#define HAZE_FNN_FILE_VERSION 2

typedef struct haze_fnn haze_fnn;

/* What one epoch of training did; passed to the progress callback (made by
 * the library: size is the size of the struct it filled, so a caller built
 * against a later header checks it before reading a field added later). */
typedef struct haze_fnn_epoch {
    size_t size;         /* sizeof(haze_fnn_epoch) of the library */
    int epoch;           /* 0-based */
    size_t rules;        /* rules after the epoch */
    double loss;         /* mean E = 1/2 sum (y - d)^2 per training sample, before each update
                            (standardised targets for regression) */
    double accuracy;     /* classification: share of samples whose argmax was right; else NaN */
    double seconds;      /* wall time of the epoch */
    double threshold;    /* firing threshold used in this epoch */
    double rate;         /* learning rate used in this epoch */
    double val_loss;     /* mean E on the held-out samples after the epoch; NaN without them */
    double val_accuracy; /* classification: accuracy on the held-out samples; else NaN */
    int best_epoch;      /* the epoch whose parameters training keeps so far (0-based) */
    size_t train_samples, val_samples; /* how the samples were split */
} haze_fnn_epoch;

/* Called after each epoch; return non-zero to stop training early. */
typedef int (*haze_fnn_progress_fn)(void *arg, const haze_fnn_epoch *e);

/* How the first training call standardises inputs: each input by its own mean
 * and standard deviation, or all inputs by one mean and one standard
 * deviation (keeps the geometry of pixel-like data, where rare pixels would
 * otherwise get huge z-scores). */
enum { HAZE_FNN_SCALE_INPUT = 0, HAZE_FNN_SCALE_GLOBAL = 1 };

typedef struct haze_fnn_options {
    size_t size;       /* sizeof(haze_fnn_options): set by haze_fnn_options_default() */
    int epochs;        /* passes over the data (default 20) */
    double threshold;  /* mu_th: a rule is made when the best per-input firing
                          max_k mu_k^(1/dim) is <= mu_th (default 0.8) */
    double decay;      /* mu_th of epoch e is threshold * decay^e (default 0.5) */
    double beta;       /* width 0 only: overlap coefficient: new width = beta * distance to the
                          nearest rule centre (default 0.5) */
    double width;      /* > 0: every new rule gets this width (standardised
                          units) instead of beta * distance and sigma0
                          (default 1.5); 0: the distance rule */
    double sigma0;     /* width of the first rule, standardised units (default 1) */
    double rate;       /* learning rate tau at the start (default 0.05); halved
                          after each epoch whose training loss rose */
    size_t batch;      /* 1: online, sample by sample (as SONFIN is described); >1: mini-batch */
    size_t max_rules;  /* no new rule beyond this many; 0: no limit */
    uint64_t seed;     /* seeds the shuffle of each epoch (default 1) */
    int shuffle;       /* 1 (default): shuffle each epoch; 0: data order */
    int scaling;       /* HAZE_FNN_SCALE_INPUT (default) or _GLOBAL; read by the
                          first training call only */
    double validation; /* share of the samples held out (floor(validation * n),
                          a seeded random pick) to choose the epoch whose
                          parameters are kept: the best held-out accuracy
                          (classification; ties: lower loss) or loss (regression)
                          (default 0.1). 0, or fewer than one sample: no
                          hold-out, the last epoch is kept */
    haze_fnn_progress_fn progress; /* may be NULL */
    void *progress_arg;
    /* Inside an epoch: when not NULL, called with progress_arg after about
     * every step_every training samples (the epoch, 0-based; the samples of
     * the epoch done so far, of total), for a progress display. On the GPU
     * the count is of the samples handed to the device, which may run a few
     * steps behind. Default NULL and 4096. */
    void (*step)(void *arg, int epoch, size_t done, size_t total);
    size_t step_every;
} haze_fnn_options;

/* Fills the first `size` bytes of *opt with the defaults and sets opt->size
 * (haze/core.h); HAZE_ERR_INVALID when size < sizeof(size_t). */
HAZE_API int haze_fnn_options_init(haze_fnn_options *opt, size_t size);
static inline haze_fnn_options haze_fnn_options_default(void) {
    haze_fnn_options opt;
    haze_fnn_options_init(&opt, sizeof opt);
    return opt;
}

/*
 * A new network with no rules for `inputs` inputs and `outputs` outputs.
 * Ownership: *out is new, freed with haze_fnn_free().
 */
HAZE_API int haze_fnn_new(haze_ctx *ctx, size_t inputs, size_t outputs, haze_fnn **out);
HAZE_API void haze_fnn_free(haze_fnn *net);

HAZE_API size_t haze_fnn_input_count(const haze_fnn *net);
HAZE_API size_t haze_fnn_output_count(const haze_fnn *net);
HAZE_API size_t haze_fnn_rule_count(const haze_fnn *net);
/* The format version of the file the network was loaded from (1 or 2);
 * HAZE_FNN_FILE_VERSION for a network made in memory. */
HAZE_API int haze_fnn_file_version(const haze_fnn *net);

/*
 * Marks the network as a classifier with one output per class and names the
 * classes (n must equal the number of outputs; names are copied exactly, any
 * bytes but line breaks; the model file quotes them where needed). The pointer returned by
 * haze_fnn_class_name() lives as long as the network; NULL for a regression network or an index out
 * of range.
 */
HAZE_API int haze_fnn_set_classes(haze_ctx *ctx, haze_fnn *net, const char *const *names, size_t n);
HAZE_API int haze_fnn_is_classifier(const haze_fnn *net);
HAZE_API const char *haze_fnn_class_name(const haze_fnn *net, size_t k);

/* Names of the inputs and of the target column (copied exactly, no line
 * breaks; optional, used by the file formats and the CLI). NULL entries are
 * allowed. */
HAZE_API int haze_fnn_set_names(haze_ctx *ctx, haze_fnn *net, const char *const *inputs,
                                const char *target);
HAZE_API const char *haze_fnn_input_name(const haze_fnn *net, size_t j);
HAZE_API const char *haze_fnn_target_name(const haze_fnn *net);

/*
 * Trains on n samples: x is n x inputs, d is n x outputs (row-major) with the
 * desired outputs. The first call on a network without rules fixes the input
 * scaling from x (and, for a regression network, the target scaling from d).
 * Further calls continue training (new rules may appear). `opt` may be NULL
 * for the defaults. Runs on the context's backend. Training that drives a
 * parameter to infinity or NaN stops with HAZE_ERR_DOMAIN and leaves the
 * network as it was after its best epoch (before training if none).
 */
HAZE_API int haze_fnn_train(haze_ctx *ctx, haze_fnn *net, const double *x, const double *d,
                            size_t n, const haze_fnn_options *opt);
/* The same for a classifier: labels[i] in [0, outputs) becomes a one-hot target. */
HAZE_API int haze_fnn_train_classes(haze_ctx *ctx, haze_fnn *net, const double *x,
                                    const int *labels, size_t n, const haze_fnn_options *opt);

/* Network outputs y (n x outputs) for x (n x inputs). A network without rules
 * gives HAZE_ERR_INVALID. */
HAZE_API int haze_fnn_predict(haze_ctx *ctx, const haze_fnn *net, const double *x, size_t n,
                              double *y);
/* Argmax of the outputs per sample (ties: the lowest index). */
HAZE_API int haze_fnn_classify(haze_ctx *ctx, const haze_fnn *net, const double *x, size_t n,
                               int *labels);

/*
 * Gradient of E = 1/2 sum_l (y_l - d_l)^2 for one sample x (raw inputs) and
 * desired output d (raw; E is taken on the standardised targets
 * (d - target mean) / target scale, the loss training descends), with respect
 * to the parameters in standardised units:
 * gw (rules x outputs), gm and gs (rules x inputs; centres and widths). Any
 * of the three may be NULL. Exposed for tests (finite differences).
 */
HAZE_API int haze_fnn_gradient(haze_ctx *ctx, const haze_fnn *net, const double *x, const double *d,
                               double *gw, double *gm, double *gs);

/*
 * The parameters, in standardised input units: centres m and widths sigma
 * (rules x inputs, rule-major), consequents w (rules x outputs, in
 * standardised target units). Pointers stay valid until the network is
 * trained again or freed. The scaling: standardised x_j = (raw x_j - mean_j)
 * / scale_j; raw output y_l = target_mean_l + target_scale_l * (standardised
 * y_l) (0 and 1 for a classifier).
 */
HAZE_API double *haze_fnn_centres(haze_fnn *net);
HAZE_API double *haze_fnn_widths(haze_fnn *net);
HAZE_API double *haze_fnn_weights(haze_fnn *net);
HAZE_API const double *haze_fnn_mean(const haze_fnn *net);
HAZE_API const double *haze_fnn_scale(const haze_fnn *net);
HAZE_API const double *haze_fnn_target_mean(const haze_fnn *net);
HAZE_API const double *haze_fnn_target_scale(const haze_fnn *net);

/*
 * Versioned text model file (docs/fnn.md, "Model file"). Save is atomic and
 * refuses (HAZE_ERR_DOMAIN) a network that load would not read back (a
 * parameter that is not finite, a width or scale that is not positive). Load
 * reads versions 1 and 2, reports another version as HAZE_ERR_VERSION and a
 * truncated or malformed file as HAZE_ERR_PARSE with its line. *out is new,
 * freed with haze_fnn_free().
 */
HAZE_API int haze_fnn_save(haze_ctx *ctx, const haze_fnn *net, const char *path);
HAZE_API int haze_fnn_load(haze_ctx *ctx, const char *path, haze_fnn **out);

/*
 * Writes the network as a MATLAB/Octave .fis file: Type='sugeno',
 * AndMethod='prod', DefuzzMethod='wtaver', one gaussmf per rule and input on
 * the raw input scale, one constant output MF per rule and output. Atomic.
 */
HAZE_API int haze_fnn_export_fis(haze_ctx *ctx, const haze_fnn *net, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_FNN_H */
