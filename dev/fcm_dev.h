/*
 * dev/fcm_dev.h - fuzzy c-means from the inside, for tests and benchmarks:
 * switches that force one configuration of the CUDA pass on a context (they
 * were the environment variables HAZE_FCM_NO_SHAPE, HAZE_FCM_KEEP_EIGHTHS,
 * HAZE_FCM_NO_PIPELINE and HAZE_FCM_CPU_SEED, read by every fit of the
 * process), the count of passes queued ahead, and the two halves of the
 * k-means++ seeding. A switch belongs to the context it is set on and
 * changes nothing for another; it takes effect from the next fit or
 * prediction on it. Without CUDA the switches are kept and change nothing.
 */
#ifndef HAZE_DEV_FCM_DEV_H
#define HAZE_DEV_FCM_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* on = 0: the fast Euclidean kernel runs the steady float32 iterations that
 * the fixed-shape kernel would (what a GPU before compute capability 8.0
 * runs); 1: the library's choice (the default). HAZE_OK, or HAZE_ERR_NOMEM. */
int haze_dev_fcm_set_shape(haze_ctx *ctx, int on);
/* The share of the fixed-shape kernel's groups, in eighths (0 .. 8), that
 * keep U between passes; -1: the share measured fastest for the shape (the
 * default). HAZE_ERR_INVALID for any other value. */
int haze_dev_fcm_set_keep_eighths(haze_ctx *ctx, int eighths);
/* on = 0: no pass is queued ahead with the next centres formed on the
 * device; 1: the default. */
int haze_dev_fcm_set_pipeline(haze_ctx *ctx, int on);
/* on = 1: k-means++ on the CPU even where the device could seed (the same
 * centres; for timing); 0: the default. */
int haze_dev_fcm_set_cpu_seed(haze_ctx *ctx, int on);
/* on = 1: k-means++ on the device computes each round's distances again
 * rather than keeping every candidate's (the same centres; tests of that
 * path); 0: the default, which keeps them where the device has room. */
int haze_dev_fcm_set_seed_lean(haze_ctx *ctx, int on);
/* The passes queued ahead that fits on ctx used and that they dropped, since
 * the context was made (0 and 0 without CUDA). */
void haze_dev_fcm_queue_counts(haze_ctx *ctx, unsigned long *used, unsigned long *dropped);
/* The last fit over several devices (haze_fcm_options.device_count > 1) on
 * ctx: the all-gathers each part made (*calls) and the seconds spent inside
 * them, the most over the parts (*most: it includes the wait at the
 * exchange for the slowest part, and in a process of a fit over several
 * processes the caller's hook) and the least (*least: about the exchange
 * alone, as the slowest part waits least). 0 before any such fit. */
void haze_dev_fcm_exchange_seconds(haze_ctx *ctx, unsigned long *calls, double *most,
                                   double *least);

/* Candidates per centre of the greedy k-means++ for c clusters. */
size_t haze_dev_fcm_pp_trials(size_t c);
/* k-means++ on the CPU for the seed: the c x d centres a fit on ctx starts
 * from (x: n x d, float when single, else double). */
int haze_dev_fcm_kmeanspp(haze_ctx *ctx, const void *x, int single, size_t n, size_t d, size_t c,
                          uint64_t seed, double *v);
/* The seeding for given draws (idx[0] the first index; idx[j] and u[j * trials
 * .. + trials) those of round j): on the CPU, and on ctx's device with the
 * data uploaded as a fit uploads it. The device version returns 1 when it
 * declines (the data would be streamed, memory), HAZE_ERR_UNSUPPORTED
 * without CUDA. */
int haze_dev_fcm_seed_cpu(haze_ctx *ctx, const void *x, int single, size_t n, size_t d, size_t c,
                          size_t trials, const size_t *idx, const double *u, double *v);
int haze_dev_fcm_seed_device(haze_ctx *ctx, const void *x, int single, size_t n, size_t d, size_t c,
                             size_t trials, const size_t *idx, const double *u, double *v);

#ifdef __cplusplus
}
#endif

#endif
