/*
 * haze/fcm.h - fuzzy c-means clustering (Bezdek 1981) with Euclidean or
 * Gustafson-Kessel distances, on the CPU or CUDA devices (one, or several
 * of one host: haze_fcm_options.devices).
 *
 * The objective is J = sum_i sum_j u_ij^m d(x_i, v_j), with d the squared
 * Euclidean distance (or the squared Gustafson-Kessel norm), minimised by
 * alternating the membership update (1) and the centre update (2) of
 * Anderson, Luke and Keller, "Speedup of fuzzy clustering through stream
 * processing on graphics processing units", IEEE TFS 16(4), 2008.
 *
 * Iteration k (k = 1, 2, ...) goes from the memberships U(k-1) to centres
 * V(k) = centres(U(k-1)) (and, for GK, the covariances of U(k-1) about V(k)),
 * then to the distances d(k) and new memberships U(k). objective[k-1] is
 * J(U(k-1), V(k)) and change is ||U(k) - U(k-1)||_F: the same quantities
 * scikit-fuzzy's cmeans and Octave's fuzzy-logic-toolkit report.
 *
 * Threads: as haze/core.h says ("Threads"); a result is read-only.
 */
#ifndef HAZE_FCM_H
#define HAZE_FCM_H

#include <stddef.h>
#include <stdint.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum haze_fcm_metric {
    HAZE_FCM_EUCLIDEAN = 0, /* squared Euclidean distance */
    HAZE_FCM_GK = 1         /* Gustafson-Kessel: per-cluster volume-normalised covariance */
} haze_fcm_metric;

typedef enum haze_fcm_init {
    HAZE_FCM_INIT_RANDOM = 0,     /* random memberships from the seed, rows summing to 1, as
                                     scikit-fuzzy and MATLAB start (for conformance with them);
                                     collapses on data of more than about 8 features */
    HAZE_FCM_INIT_KMEANSPP = 1,   /* k-means++ seeding of the centres (Arthur & Vassilvitskii),
                                     the default; on the device when the fit runs there, the
                                     same centres as on the CPU for the same seed */
    HAZE_FCM_INIT_CENTRES = 2,    /* init_data holds c x d centres */
    HAZE_FCM_INIT_MEMBERSHIPS = 3 /* init_data holds n x c memberships (rows are normalised) */
} haze_fcm_init;

typedef enum haze_fcm_stop {
    HAZE_FCM_STOP_MEMBERSHIP = 0, /* ||U(k) - U(k-1)||_F < tol (scikit-fuzzy) */
    HAZE_FCM_STOP_OBJECTIVE = 1   /* |J(k) - J(k-1)| < tol (MATLAB's fcm) */
} haze_fcm_stop;

typedef struct haze_fcm_options {
    size_t size;              /* sizeof(haze_fcm_options): set by haze_fcm_options_default() */
    int clusters;             /* c >= 2, c <= n */
    double m;                 /* fuzzifier > 1; default 2 */
    haze_fcm_metric metric;   /* default EUCLIDEAN */
    haze_fcm_init init;       /* default KMEANSPP */
    const double *init_data;  /* centres or memberships for INIT_CENTERS / INIT_MEMBERSHIPS */
    haze_fcm_stop stop;       /* default MEMBERSHIP */
    double tol;               /* default 1e-5; 0 runs max_iter iterations */
    int max_iter;             /* default 300 */
    uint64_t seed;            /* for INIT_RANDOM and INIT_KMEANSPP; default 0 */
    haze_precision precision; /* F32: compute in float (double data rounded to float);
                                 default F64. Float data always computes in float */
    int want_memberships;     /* 1: fill result->memberships (n x c) */
    double gk_reg;            /* GK: ridge added to each covariance, relative to its trace/d;
                                 default 1e-10 (see docs/fcm.md) */
    /* Called after each iteration when not NULL (progress display); a non-zero
     * return stops the run early (the result is still complete). */
    int (*progress)(void *arg, int iter, double objective, double change);
    void *progress_arg;
    /* One fit over several processes (MPI ranks; docs/fcm.md, "Several
     * processes"): with `allgather` set, haze_fcm_fit runs one part of a fit
     * whose x holds rows [first_row, first_row + n) of a data set of
     * total_rows rows. Every part passes the same options (but the hook's arg
     * and, with INIT_MEMBERSHIPS, init_data: its own n rows); the parts'
     * row ranges follow each other in part order, each starting on the
     * boundary haze_fcm_part_rows gives. Every part gets the same centres,
     * objective and indices, bit for bit those of one process holding all
     * the rows (for any number of parts and threads), and the memberships of
     * its own rows; when one part fails, every part fails with its status and
     * message. Where some part runs on a GPU, the parts' sums are added in
     * part order instead, and the results agree with one process's to
     * rounding (docs/fcm.md, "Several GPUs"), the same bits on every part. A
     * progress callback is called on every part; the fit stops when one
     * returns non-zero. Without allgather: 0, 0 (the data is whole). */
    size_t total_rows, first_row;
    /* All-gather across the parts: every part passes its `count` bytes at
     * `mine` and gets every part's bytes concatenated in part order in *all
     * (*total bytes; the counts may differ), malloc'd by the hook and freed by
     * the library. Collective: every part calls it the same number of times
     * (the library makes sure of it, failures included). Non-zero return: the
     * fit fails (HAZE_ERR_IO). */
    int (*allgather)(void *arg, const void *mine, size_t count, void **all, size_t *total);
    void *allgather_arg;
    /* Several devices of one host in one call (docs/fcm.md, "Several GPUs"):
     * device_count > 1 runs the fit as that many parts at once, one thread
     * each (the calling thread runs the first, and the progress callback),
     * over contiguous slices of the rows on tile boundaries
     * (haze_fcm_part_rows), exchanging through the library's own
     * in-process all-gather (NCCL between the GPUs where the library was
     * built with it, else host memory). On a CUDA context part k runs on
     * CUDA device devices[k] (devices NULL: 0 .. device_count - 1), with a
     * context of its own: the caller's device memory limit on each device,
     * its CPU threads divided among the parts. On a CPU context devices must
     * be NULL and the parts run on the CPU, with the plain CPU fit's bits.
     * The result is the plain fit's in form (every row's memberships) and
     * its centres agree with one GPU's to rounding (docs/fcm.md). Every
     * part's failure is the call's, with its message. A device that is not
     * present: HAZE_ERR_NODEVICE; listed twice: HAZE_ERR_INVALID.
     * device_count 0: the context's devices (on a context over a set of
     * devices, haze/core.h "Several devices", without allgather: the fit
     * over that set as if listed here; else the plain fit on the context);
     * 1 without a list: the plain fit on the context; a list of one device:
     * the plain fit on that device. These fields win over the context's set.
     * With allgather too (a process of a fit over several that drives
     * several devices; docs/fcm.md, "Processes with several GPUs"), the
     * process's rows [first_row, first_row + n) are cut again into its
     * device_count local parts, which gather among themselves; the first
     * then calls the caller's allgather once per step with the local parts'
     * bytes concatenated in local part order, and hands every part's bytes
     * to the others: to the other processes the process is device_count
     * parts of the fit, in that order. The local cut: see part_first. */
    const int *devices;
    int device_count;
    /* The local cut of a process with allgather and device_count > 1: with
     * part_count > 0, its local part k holds the rows haze_fcm_part_rows
     * gives part part_first + k of part_count of the whole data set, and
     * [first_row, first_row + n) must be the union of these (else
     * HAZE_ERR_INVALID); the parts then are those of one process running
     * all part_count parts (devices = every process's, in process order),
     * and so are the bits. part_count 0 (the default): the process's rows
     * cut into device_count as evenly as whole tiles go, counted from
     * first_row (for two processes of two parts each, or for one process,
     * the same cut). Ignored without allgather. */
    size_t part_first, part_count;
} haze_fcm_options;

/* Fills the first `size` bytes of *opt with the defaults above, with clusters
 * = 0 (the caller must set it), and sets opt->size (haze/core.h);
 * HAZE_ERR_INVALID when size < sizeof(size_t). */
HAZE_API int haze_fcm_options_init(haze_fcm_options *opt, size_t size);
static inline haze_fcm_options haze_fcm_options_default(void) {
    haze_fcm_options opt;
    haze_fcm_options_init(&opt, sizeof opt);
    return opt;
}

/*
 * The rows of part `part` (0-based) of `parts` in a fit over several
 * processes of total_rows rows of d features with the options opt (its
 * clusters and metric): *first and *count (0 for a part beyond the data),
 * whole tiles of the library's fixed tiling, as evenly as they go.
 * HAZE_ERR_INVALID when part >= parts or an argument is NULL or 0.
 */
HAZE_API int haze_fcm_part_rows(haze_ctx *ctx, const haze_fcm_options *opt, size_t total_rows,
                                size_t d, size_t part, size_t parts, size_t *first, size_t *count);

/* Why a result is degenerate (haze_fcm_result_degenerate, a set of these
 * bits; docs/fcm.md, "Degenerate results"): the run may still have
 * converged, to a partition that says nothing about the data. */
enum {
    HAZE_FCM_DEGENERATE_COINCIDENT = 1, /* two centres closer than 1e-3 times the fuzzy spread
                                           sqrt(sum u^m d / sum u^m) */
    HAZE_FCM_DEGENERATE_UNIFORM = 2,    /* partition coefficient within 1e-3 (1 - 1/c) of 1/c:
                                           every point about equally in every cluster */
    HAZE_FCM_DEGENERATE_EMPTY = 4       /* a cluster whose weight sum_i u_ij^m is below 1/2 */
};

/* A clustering (a fit's result, or a model made from centres): an opaque
 * handle, read through the accessors below. */
typedef struct haze_fcm_result haze_fcm_result;

/*
 * Clusters the n x d row-major matrix x of `type` numbers (HAZE_PRECISION_F64:
 * double; F32: float, computed in float without a double copy, for data sets
 * near the host's memory size). Validates everything first: n >= 1, d >= 1,
 * 2 <= c <= n, m > 1, finite data whose squared distances are finite in the
 * precision used (each column's range r_k: sum r_k^2 below the largest
 * double, or float in single precision), init data of the right kind.
 *
 * Ownership: on success *out is new and freed with haze_fcm_result_free();
 * on failure *out is NULL and the context holds the reason.
 */
HAZE_API int haze_fcm_fit(haze_ctx *ctx, const void *x, haze_precision type, size_t n, size_t d,
                          const haze_fcm_options *opt, haze_fcm_result **out);
/*
 * A model for haze_fcm_predict from c x d centres (row-major) and the
 * fuzzifier m; with `norms` (c x d x d norm-inducing matrices A_j) a
 * Gustafson-Kessel model, else Euclidean. The arrays are copied; checked as
 * haze_fcm_predict checks a model. Its other accessors read 0 (no iterations,
 * no memberships). *out is new, freed with haze_fcm_result_free().
 */
HAZE_API int haze_fcm_result_new(haze_ctx *ctx, size_t c, size_t d, const double *centres, double m,
                                 const double *norms, haze_fcm_result **out);
/* NULL is a no-op. */
HAZE_API void haze_fcm_result_free(haze_fcm_result *r);

/* The shape: n points (0 for a model made from centres), d features, c clusters. */
HAZE_API size_t haze_fcm_result_point_count(const haze_fcm_result *r);
HAZE_API size_t haze_fcm_result_feature_count(const haze_fcm_result *r);
HAZE_API size_t haze_fcm_result_cluster_count(const haze_fcm_result *r);
HAZE_API double haze_fcm_result_fuzzifier(const haze_fcm_result *r); /* m */
HAZE_API haze_fcm_metric haze_fcm_result_metric(const haze_fcm_result *r);
/* The arrays below are valid while r lives. */
/* c x d, row-major: V(K) of the last iteration K. */
HAZE_API const double *haze_fcm_result_centres(const haze_fcm_result *r);
/* GK only: c x d x d norm-inducing matrices A_j; else NULL. */
HAZE_API const double *haze_fcm_result_norms(const haze_fcm_result *r);
/* n x c memberships U(K) of these centres, or NULL if not asked. */
HAZE_API const double *haze_fcm_result_memberships(const haze_fcm_result *r);
/* iterations values J(U(k-1), V(k)). */
HAZE_API const double *haze_fcm_result_objective(const haze_fcm_result *r);
/* iterations values ||U(k) - U(k-1)||_F; with the objective's stopping rule
 * the CUDA backend leaves them NaN (not computed). */
HAZE_API const double *haze_fcm_result_change(const haze_fcm_result *r);
/* Iterations run (>= 1 for a fit). */
HAZE_API int haze_fcm_result_iterations(const haze_fcm_result *r);
/* 1 if the stopping rule was met before max_iter. */
HAZE_API int haze_fcm_result_converged(const haze_fcm_result *r);
/* (1/n) sum u^2 of U(K), Bezdek. */
HAZE_API double haze_fcm_result_partition_coefficient(const haze_fcm_result *r);
/* -(1/n) sum u ln u of U(K), Bezdek. */
HAZE_API double haze_fcm_result_partition_entropy(const haze_fcm_result *r);
/* sum u^m d / (n min_{j!=l} |v_j - v_l|^2), Xie & Beni 1991. */
HAZE_API double haze_fcm_result_xie_beni(const haze_fcm_result *r);
/* 0, or HAZE_FCM_DEGENERATE_* bits of U(K), V(K). */
HAZE_API int haze_fcm_result_degenerate(const haze_fcm_result *r);

/* Where a fit's time went (haze_fcm_result_timings, seconds by these
 * indices; on several GPUs or ranks, the calling thread's part). */
enum {
    HAZE_FCM_TIME_CHECK = 0,  /* the data checked (finite, in range) */
    HAZE_FCM_TIME_SETUP,      /* the memory of the fit; with a GPU, the device's context
                                 (made while the caller read its data, if it was not yet
                                 ready) and the data's upload */
    HAZE_FCM_TIME_SEEDING,    /* k-means++ (0 for other starts) */
    HAZE_FCM_TIME_ITERATIONS, /* the passes over the data, from the start to the last
                                 iteration's centres */
    HAZE_FCM_TIME_FINISH,     /* the indices and the memberships (a last pass, where
                                 needed), the device's memory freed */
    HAZE_FCM_TIME_COUNT
};
/* HAZE_FCM_TIME_COUNT values, valid while r lives; all 0 for a model made
 * from centres. */
HAZE_API const double *haze_fcm_result_timings(const haze_fcm_result *r);

/*
 * Memberships (n x c, row-major, written to the caller's u) of the points
 * x (n x d) for the fixed centres of a fitted model (its metric, norms and m)
 * or of one made by haze_fcm_result_new. `precision`: HAZE_PRECISION_F32
 * computes in float. Nothing is allocated for the caller.
 * Validates the model as the fit validates its options (c >= 2, m > 1,
 * finite centres, the norms of a GK model) and the data (finite, and
 * spanning with the centres no more than squared distances can hold in the
 * precision used: HAZE_ERR_DOMAIN, never NaN memberships).
 */
HAZE_API int haze_fcm_predict(haze_ctx *ctx, const haze_fcm_result *model, const double *x,
                              size_t n, size_t d, haze_precision precision, double *u);

/* Hard labels: the index of the largest membership of each row (first on ties).
 * HAZE_ERR_INVALID (nothing written) when u or labels is NULL with n > 0, or c is 0. */
HAZE_API int haze_fcm_labels(haze_ctx *ctx, const double *u, size_t n, size_t c, int *labels);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_FCM_H */
