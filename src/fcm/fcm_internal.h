/*
 * src/fcm/fcm_internal.h - what the CPU and CUDA halves of fuzzy c-means
 * share: the description of one pass over the data, the seeded random
 * initial memberships (a pure function of seed, row and column so that both
 * backends draw the same ones without storing them), and the CUDA entry
 * points. Not installed.
 */
#ifndef HAZE_FCM_INTERNAL_H
#define HAZE_FCM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/hd.h"
#include "core/internal.h"
#include "haze/fcm.h"
#include "fcm/fcm_result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the memberships U(k-1) of a pass come from. */
enum { HAZE__FCM_SRC_RANDOM = 0, HAZE__FCM_SRC_MEMORY = 1, HAZE__FCM_SRC_CENTERS = 2 };

/* Scalars a pass accumulates, after the c*d sums of u^m x and the c sums of u^m. */
enum {
    HAZE__FCM_J = 0, /* sum u_prev^m d: J(U(k-1), V(k)) */
    HAZE__FCM_DU2,   /* sum (u - u_prev)^2 */
    HAZE__FCM_PC,    /* sum u^2 */
    HAZE__FCM_PE,    /* -sum u ln u */
    HAZE__FCM_JSELF, /* sum u^m d: J(U(k), V(k)), for Xie-Beni */
    HAZE__FCM_NSCALAR
};

/* Doubles in the sums of a pass. */
static inline size_t haze__fcm_stride(size_t c, size_t d, int cov) {
    return cov ? c * d * d + c : c * d + c + HAZE__FCM_NSCALAR;
}

/*
 * A fit over several parts (fcm_parts.c; haze/fcm.h, "total_rows"): the
 * hook, the row range of every part, learnt from the first exchange.
 * Every collective step is one call of the hook; a part that fails between
 * two steps makes the next step a failure (haze__fcm_parts_fail), so the
 * other parts, already in it, fail with its status and message.
 */
typedef struct haze__fcm_parts {
    int (*allgather)(void *arg, const void *mine, size_t count, void **all, size_t *total);
    void *arg;
    size_t count;        /* parts */
    size_t self;         /* this part's index (ambiguous only among empty parts) */
    size_t total;        /* rows of the whole data set */
    size_t first, n;     /* this part's rows */
    size_t align;        /* every part starts on a multiple of this many rows */
    size_t *row0, *rows; /* every part's (count each) */
    int progress;        /* some part has a progress callback, which may stop the fit */
    int stop_out;        /* this part's callback asked to stop: sent with every pass's sums */
    int stop_in;         /* some part's was, by the last pass's exchange */
    int totals;          /* some part runs its passes on a GPU: a pass's sums are every part's
                            own total added in part order (haze__fcm_parts_add), not the
                            tile tree over the parts */
    int dead;            /* a step failed on every part: no more steps */
} haze__fcm_parts;

/* Rows per tile of the pass for `rows` rows in all and `stride` doubles of
 * partial sums per tile: 1024 times a power of 2, the smallest that keeps
 * the partial sums of all tiles under 2^22 doubles (or one tile per 1024
 * rows at most). A function of the whole problem only, so the tiles and
 * their sums are the same for any split into threads and parts. */
size_t haze__fcm_tile(size_t rows, size_t stride);
/* The row multiple every part starts on: the largest tile of the fit's passes. */
size_t haze__fcm_part_align(size_t rows, size_t d, size_t c, int gk);

/*
 * The sums of the pass from the partial sums of this part's tiles [t0, t1)
 * (`part`, stride doubles each, overwritten): the pairwise
 * tree over the global tile index (leaf t the partial of tile t; a node
 * covering [a, a + 2^k) the sum of its halves, a half past the last tile
 * absent), the same bits for any split. With pp NULL the part is the whole;
 * with pp->totals, this part's own total (its tiles' tree), then
 * haze__fcm_parts_add.
 */
int haze__fcm_tree_sum(haze_ctx *ctx, haze__fcm_parts *pp, double *part, size_t t0, size_t t1,
                       size_t stride, double *sums);

/* The first step (st: this part's validation): every part's options and
 * rows, checked to agree. *out is new (haze__fcm_parts_free) on success. */
int haze__fcm_parts_begin(haze_ctx *ctx, int st, const haze_fcm_options *opt, int single_data,
                          int gpu, size_t n, size_t d, haze__fcm_parts **out);
void haze__fcm_parts_free(haze__fcm_parts *pp);
/* After a local failure st: the one step that hands it to the other parts
 * (nothing when a step already failed). Returns st, or the failure of an
 * earlier part in part order. */
int haze__fcm_parts_fail(haze_ctx *ctx, haze__fcm_parts *pp, int st);
/* One step through the hook in which `parts` parts all fail with status st
 * (no message): what a process of several parts sends in place of its
 * parts' bytes when it cannot gather them (fcm_devices.c), so that every
 * other part fails at that step. Returns the hook's status; what the hook
 * gave goes to *all, *total when all is not NULL (else it is freed). */
int haze__fcm_parts_send_failure(int (*allgather)(void *, const void *, size_t, void **, size_t *),
                                 void *arg, size_t parts, int st, void **all, size_t *total);
/* With pp->totals: every part's `sums` (stride doubles, this part's own
 * total, in and out) added in part order, left to right: the same bits on
 * every part. st: this part's status (a failure is handed to the others). */
int haze__fcm_parts_add(haze_ctx *ctx, haze__fcm_parts *pp, int st, double *sums, size_t stride);
/* Each column's min (lo) and max (hi) over every part (d each, in and out). */
int haze__fcm_parts_box(haze_ctx *ctx, haze__fcm_parts *pp, int st, double *lo, double *hi,
                        size_t d);
/* k-means++ over the parts: the centres haze__fcm_seed_cpu picks from all
 * the rows, bit for bit (the same draws and sums; x holds this part's rows). */
int haze__fcm_seed_parts(haze_ctx *ctx, haze__fcm_parts *pp, const void *x, int single, size_t d,
                         size_t c, size_t trials, const size_t *idx, const double *u, double *v);

/*
 * One pass over the data. With v == NULL it only accumulates the sums of
 * u^m x and u^m of the source memberships (the first centre update). With v
 * set it computes distances to v (Euclidean, or with the norm matrices a),
 * the new memberships, the scalars above and the sums for the next centres.
 * All matrices are row-major doubles; the pass rounds them to float itself
 * in single precision.
 */
typedef struct haze__fcm_pass {
    const void *x; /* n x d data: float when single, else double */
    size_t n, d, c;
    double m;
    int single;
    const double *v, *a;   /* centres V(k) (c x d) and GK norms (c x d x d) or NULL */
    int src;               /* HAZE__FCM_SRC_* for U(k-1) */
    uint64_t seed;         /* SRC_RANDOM */
    const double *u0;      /* SRC_MEMORY: n x c, rows summing to 1 */
    const double *vp, *ap; /* SRC_CENTERS: the previous centres and norms (ap may be NULL) */
    double *u_out;         /* n x c memberships of v, or NULL */
    int indices;           /* 1: the pass must fill PC, PE and JSELF; 0: a backend may leave them
                              0 (the GPU skips them, and their logarithms, during the iteration) */
    int want_du;           /* 0: a backend may leave DU2 as NaN, and, with src CENTERS, J as NaN
                              (fcm.c then takes J(U(k-1), V(k)) from the previous pass's JSELF and
                              S0 by the parallel-axis identity); JSELF must then be filled */
    int cov;               /* 1: accumulate sum u^m (x - v_j)(x - v_j)^T (c*d*d) and sum u^m (c)
                              of the source memberships about the centres v instead */
    double *sums;          /* out: c*d + c + HAZE__FCM_NSCALAR doubles, or c*d*d + c for cov */
    int last;              /* 1: no pass with the next centres follows (a backend need not prepare
                              one) */
    /* One part of a fit over several (CPU only): x holds rows [row0, row0 + n)
     * of `total`; the sums are those of all the rows. NULL: the data is whole. */
    haze__fcm_parts *parts;
} haze__fcm_pass;

/* fcm.c: the fit without a device set (the plain fit, or one part of
 * several), and the check of its options and shape that it starts with. */
int haze__fcm_fit_one(haze_ctx *ctx, const void *x, haze_precision type, size_t n, size_t d,
                      const haze_fcm_options *opt, haze_fcm_result **out);
int haze__fcm_validate(haze_ctx *ctx, const void *x, haze_precision type, size_t n, size_t d,
                       const haze_fcm_options *opt);
/* fcm_devices.c: the fit over opt->device_count devices of one host, a part
 * per device on a thread of its own (haze/fcm.h, "devices"). */
int haze__fcm_fit_devices(haze_ctx *ctx, const void *x, haze_precision type, size_t n, size_t d,
                          const haze_fcm_options *opt, haze_fcm_result **out);

#ifdef HAZE_HAVE_NCCL
/*
 * The in-process all-gather between the GPUs of a fit over several devices
 * through NCCL (fcm_nccl.cu): one communicator per device (ncclCommInitAll),
 * a send and a receive buffer on each device, grown as needed. The parts'
 * threads call reserve, then (once every part's reserve succeeded) gather,
 * each for its own rank only; the caller's thread makes and frees it.
 */
typedef struct haze__fcm_nccl haze__fcm_nccl;
/* HAZE_OK, or a status with the message in ctx (the host exchange then). */
int haze__fcm_nccl_new(haze_ctx *ctx, const int *devices, int count, haze__fcm_nccl **out);
/* Room for `bytes` from every rank (pctx: the rank's context, on its device). */
int haze__fcm_nccl_reserve(haze__fcm_nccl *nc, int rank, haze_ctx *pctx, size_t bytes);
/* The rank's `count` bytes at mine (count <= bytes) all-gathered in slots of
 * `bytes`: every rank's slot k in out (count * bytes bytes, host memory). */
int haze__fcm_nccl_gather(haze__fcm_nccl *nc, int rank, haze_ctx *pctx, const void *mine,
                          size_t count, size_t bytes, void *out);
/* The rank's buffers, freed by its thread before its context. */
void haze__fcm_nccl_release(haze__fcm_nccl *nc, int rank, haze_ctx *pctx);
void haze__fcm_nccl_free(haze__fcm_nccl *nc);
#endif

/* Uniform in (0, 1] for row i, column j: SplitMix64 of a counter (reproducible anywhere). */
HAZE__HD double haze__fcm_rand(uint64_t seed, uint64_t i, uint64_t j, uint64_t c) {
    uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (i * c + j + 1) * 0xd1b54a32d192ed03ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 1.0) * 0x1.0p-53;
}

/*
 * k-means++ seeding (Arthur and Vassilvitskii, 2007), defined so that the
 * CPU and the GPU pick the same centres for the same seed:
 *  - the random draws come first, from the seed alone: the first centre's
 *    index, then for each later centre j the uniforms u_jt of its
 *    haze__fcm_pp_trials(c) candidates and a fallback index a_j (used only
 *    when every point lies on a centre);
 *  - round j updates dmin_i = min(dmin_i, D(x_i, v_{j-1})), D summed over
 *    the features in order in double (the data converted exactly, no fused
 *    multiply-add), then sums dmin in a fixed order: blocks of
 *    HAZE__FCM_PP_BLOCK points by a pairwise tree (haze__fcm_pp_tree, past
 *    the last point zeros), the block sums in HAZE__FCM_PP_SEGS segments of
 *    L = ceil(blocks / SEGS) consecutive ones summed in order, and the
 *    segment sums by the same tree into the total;
 *  - each candidate is the point reached by walking the segments, then the
 *    blocks of the chosen one, then its points (haze__fcm_pp_level) towards
 *    target = u_jt * total;
 *  - the next centre is the candidate of the smallest potential (the first
 *    on ties), its potential sum_i min(dmin_i, D(x_i, cand)) summed in the
 *    same blocks, segments and tree.
 * Every step is a correctly rounded operation in an order fixed by n alone,
 * so any thread count and the device give the same bits.
 */
#define HAZE__FCM_PP_BLOCK      256
#define HAZE__FCM_PP_SEGS       1024
#define HAZE__FCM_PP_TRIALS_MAX 8

/* CPU threads: one per this many terms (point x centre x feature; about
 * 100 us of a pass) at least, so that small fits run on one thread
 * (haze__threads_for; docs/benchmarks.md, "CPU threads"). */
#define HAZE__FCM_PAR_WORK 65536

/* Candidates per centre, 2 + floor(ln c) (scikit-learn's greedy k-means++),
 * from integer thresholds (e^1 .. e^6 rounded up): no libm in the result. */
static inline size_t haze__fcm_pp_trials(size_t c) {
    static const size_t th[] = {3, 8, 21, 55, 149, 404};
    size_t t = 2;
    for (size_t k = 0; k < sizeof th / sizeof *th; k++) t += c >= th[k];
    return t;
}

/* Pairwise sum of s[0 .. width) in place (width a power of 2): s[0] is the sum. */
HAZE__HD void haze__fcm_pp_tree(double *s, size_t width) {
    for (size_t h = width / 2; h > 0; h /= 2)
        for (size_t t = 0; t < h; t++) s[t] = s[t] + s[t + h];
}

/* One level of the walk: the first i with acc + w[0] + ... + w[i] > target
 * (summed in this order) and w[i] > 0, else the last i with w[i] > 0; *acc
 * becomes the sum before entry i. -1 when no entry is > 0. */
HAZE__HD long long haze__fcm_pp_level(const double *w, size_t count, double target, double *acc) {
    double a = *acc, alast = a;
    long long last = -1;
    for (size_t i = 0; i < count; i++) {
        const double wi = w[i];
        if (wi > 0) {
            if (a + wi > target) {
                *acc = a;
                return (long long)i;
            }
            last = (long long)i;
            alast = a;
        }
        a = a + wi;
    }
    *acc = alast;
    return last;
}

/* The seeding on the CPU, or on the device when the fit runs there (gpu not
 * NULL and the data resident); x: float when single, else double. */
typedef struct haze__fcm_gpu haze__fcm_gpu; /* fcm_cuda.cu */
int haze__fcm_kmeanspp(haze_ctx *ctx, haze__fcm_gpu *gpu, const void *x, int single, size_t n,
                       size_t d, size_t c, uint64_t seed, double *v);
/* The CPU seeding for the draws idx, u (see haze__fcm_seed_cuda). */
int haze__fcm_seed_cpu(haze_ctx *ctx, const void *x, int single, size_t n, size_t d, size_t c,
                       size_t trials, const size_t *idx, const double *u, double *v);

/* The CPU pass (OpenMP over the context's threads). */
int haze__fcm_pass_cpu(haze_ctx *ctx, haze__fcm_pass *p);

/*
 * The context's fuzzy c-means tuning (its HAZE__STATE_FCM block, zeroed on
 * first use): all zero is the library's own choice everywhere. The
 * development library (dev/fcm_dev.h) sets the switches, for tests and
 * benchmarks; the CUDA half reads them when a fit or a prediction begins
 * and counts the passes it queued ahead here.
 */
typedef struct haze__fcm_tuning {
    int no_shape;      /* 1: the fast kernel runs the passes of the fixed-shape kernel */
    int keep8;         /* 0: the shape's measured share; 1 + k: k eighths of the groups keep U */
    int no_pipeline;   /* 1: no pass is queued ahead */
    int cpu_seed;      /* 1: k-means++ on the CPU where the device could seed */
    int seed_lean;     /* 1: k-means++ on the device recomputes each round's distances
                          where it could keep them */
    int host_exchange; /* 1: a fit over several devices exchanges through host memory even
                          where the library has NCCL */
    int fail_thread;   /* 1 + k: starting part k's thread of a fit over several devices fails
                          as if the system had none left (tests of that path) */
    int part_totals;   /* 1: a part of a fit over several on the CPU combines the sums as a part
                          on a GPU does (haze__fcm_parts.totals; tests of that path on the CPU) */
    int fail_gather;   /* k > 0: at its k-th all-gather, part 1 of a fit over several devices is
                          short of memory for the parts' bytes (tests of that path) */
    unsigned long queued_used, queued_dropped; /* passes queued ahead used, dropped (atomic) */
    /* the last fit over several devices on the context: its all-gathers (part 0's count) and
       the seconds inside them, the most and the least over the parts (fcm_devices.c) */
    unsigned long exchange_calls;
    double exchange_most, exchange_least;
} haze__fcm_tuning;
/* The block of ctx; NULL when out of memory. */
haze__fcm_tuning *haze__fcm_tuning_of(haze_ctx *ctx);

#ifdef HAZE_HAVE_CUDA
/* Device state of one fit: the data stays resident when it fits the budget,
 * else it is streamed through in chunks at every pass. u_cols: the doubles
 * a point needs on the device for memberships the passes read or write (c
 * for starting memberships from memory, c for memberships asked for, one
 * for k-means++ seeding's distances, 0 when none), counted with the data
 * against the budget. */
int haze__fcm_cuda_begin(haze_ctx *ctx, const void *x, size_t n, size_t d, size_t c, int single,
                         int gk, size_t u_cols, haze__fcm_gpu **out);
/* The pass on the device; same contract as the CPU pass. */
int haze__fcm_pass_cuda(haze_ctx *ctx, haze__fcm_gpu *g, haze__fcm_pass *p);
void haze__fcm_cuda_end(haze__fcm_gpu *g);
/* The fit is one part of several: the device never forms the next centres
 * from its own sums (no pass queued ahead), since they come from every
 * part's. */
void haze__fcm_cuda_part(haze__fcm_gpu *g);
/* k-means++ on the device (the definition above): idx[0] the first index,
 * idx[j] and u[j * trials .. j * trials + trials) the draws of round j;
 * writes the c x d centres to v.
 * Returns 1 when the device does not do it (data streamed, memory, or the
 * context's cpu_seed switch): the caller then seeds on the CPU, with the
 * same result. */
int haze__fcm_seed_cuda(haze_ctx *ctx, haze__fcm_gpu *g, size_t trials, const size_t *idx,
                        const double *u, double *v);
#endif

#ifdef __cplusplus
}
#endif

#endif
