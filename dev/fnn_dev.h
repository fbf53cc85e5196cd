/*
 * dev/fnn_dev.h - the SONFIN GPU backend's development interface: switches
 * that force one kernel configuration over the library's choice, timing
 * probes of single steps, what the library chose, and ULP probes of the
 * kernels' device arithmetic. For tests/ and bench/ only (libhaze_dev);
 * every switch is per context and changes nothing for another context. A
 * switch is set while nothing else runs on the context (like
 * haze_ctx_set_threads).
 */
#ifndef HAZE_FNN_DEV_H
#define HAZE_FNN_DEV_H

#include <stddef.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thread mapping of the CUDA kernels: the architecture-aware mapping of
 * seed 001 chapter 3 (the library's) or the GPU-FNN baseline (one block per
 * rule, one thread per input; inputs <= 1024 only). */
enum { HAZE_DEV_FNN_MAP_ATM = 0, HAZE_DEV_FNN_MAP_GPUFNN = 1 };
/* Online training (batch 1) under the ATM mapping: AUTO the library's
 * choice (one thread-block cluster while the network is small, Hopper and
 * later, with every parameter in registers where the network fits them);
 * LAUNCH the kernels launched per step; CLUSTER the cluster kernel that
 * keeps the parameters in shared memory, whenever the device has clusters;
 * REGISTER the register kernel wherever it fits (else as CLUSTER). */
enum {
    HAZE_DEV_FNN_ONLINE_AUTO = 0,
    HAZE_DEV_FNN_ONLINE_LAUNCH = 1,
    HAZE_DEV_FNN_ONLINE_CLUSTER = 2,
    HAZE_DEV_FNN_ONLINE_REGISTER = 3
};

/* Each returns HAZE_OK, HAZE_ERR_NOMEM (the context's state), or
 * HAZE_ERR_INVALID for a value out of range; ctx must be a CUDA context. */
int haze_dev_fnn_set_mapping(haze_ctx *ctx, int mapping);
int haze_dev_fnn_set_online(haze_ctx *ctx, int mode);
/* The register kernel's cluster size C and warps per block NW forced
 * (where the network fits them), or 0, 0 for the library's choice. */
int haze_dev_fnn_set_register_config(haze_ctx *ctx, int C, int NW);
/* The cluster kernel's block size, 512 or 1024 threads, or 0 for the
 * library's choice by shape. */
int haze_dev_fnn_set_cluster_threads(haze_ctx *ctx, int threads);
/* How the blocks of the cluster and register kernels exchange their
 * partials: AUTO (the library's choice, ASYNC), ASYNC (st.async stores
 * counted on each receiving block's transaction barrier) or BARRIER (plain
 * stores, then the cluster's barrier: the form compute-sanitizer's synccheck
 * can follow). Both give the same bits. */
enum { HAZE_DEV_FNN_XCHG_AUTO = 0, HAZE_DEV_FNN_XCHG_ASYNC = 1, HAZE_DEV_FNN_XCHG_BARRIER = 2 };
int haze_dev_fnn_set_exchange(haze_ctx *ctx, int how);

/* Whether online training of R rules on D inputs, L outputs takes the
 * register kernel, and in which configuration (blocks, warps per block,
 * lanes per rule). */
int haze_dev_fnn_register_config(haze_ctx *ctx, size_t D, size_t L, size_t R, int *C, int *NW,
                                 int *G);
/* The cluster size online training of R rules on D inputs, L outputs runs
 * in; 0 when it takes the launches. */
int haze_dev_fnn_uses_cluster(haze_ctx *ctx, size_t D, size_t L, size_t R);
/* Name of the firing kernel the configuration search chose on the context
 * for a shape (inputs, rules, samples per step), NULL if none was searched
 * there yet. */
const char *haze_dev_fnn_choice(haze_ctx *ctx, size_t D, size_t R, size_t B);
/* The log firing strengths lm (B x R) of B samples z (B x D, standardised)
 * under R rules (centres m, widths s, R x D) computed by firing variant v
 * alone, without the search: v from 0 to haze_dev_fnn_variants() - 1, the
 * last the GPU-FNN kernel (D <= 1024); the others are the search's
 * candidates. Host arrays. */
int haze_dev_fnn_variants(void);
int haze_dev_fnn_fire_variant(haze_ctx *ctx, int v, const double *z, size_t B, const double *m,
                              const double *s, size_t R, size_t D, double *lm);
/* Shapes the context's search has kept (firing and update caches together). */
size_t haze_dev_fnn_cached(haze_ctx *ctx);

/*
 * Mean kernel time (microseconds) of one online training step (fire_us:
 * firing strengths; update_us: structure test, output layer, consequents,
 * then centres and widths) of a network with R rules on D inputs and L
 * outputs, with random parameters, under `mapping`. HAZE_ERR_UNSUPPORTED
 * when the mapping cannot run that shape.
 */
int haze_dev_fnn_step_time(haze_ctx *ctx, size_t D, size_t R, size_t L, int mapping, int reps,
                           double *fire_us, double *update_us);
/* Mean time (microseconds) of one online step in a cluster of `cluster`
 * blocks (0: the library's choice), `reps` steps in one launch;
 * HAZE_ERR_UNSUPPORTED where the device has no clusters or the shape does
 * not fit. */
int haze_dev_fnn_cluster_step_time(haze_ctx *ctx, size_t D, size_t R, size_t L, int cluster,
                                   int reps, double *us);
/* The largest error, in ulps of the C library's result, of the kernels'
 * short-latency exp (n arguments in [-45, 0]) and reciprocal (n arguments
 * in [1e-3, 45e3]) against exp() and 1.0 / x on the host. */
int haze_dev_fnn_math_ulps(haze_ctx *ctx, size_t n, double *exp_ulps, double *rcp_ulps);

#ifdef __cplusplus
}
#endif

#endif
