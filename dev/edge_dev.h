/*
 * dev/edge_dev.h - what the edge benchmark uses from inside the FIRE GPU
 * code: the kernels alone on device buffers, to be timed. CUDA builds only
 * (HAZE_HAVE_CUDA).
 */
#ifndef HAZE_DEV_EDGE_DEV_H
#define HAZE_DEV_EDGE_DEV_H

#include <stdint.h>

#include "haze/edge.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Queues FIRE's kernels on ctx's stream for a width x height image in
 * device memory: d_in to d_out, with d_scratch (width * height ints) for the
 * reference kernel. No transfers and no synchronisation (the first call
 * uploads the detector's tables and waits for that).
 */
int haze_dev_edge_fire_device(haze_ctx *ctx, haze_edge *f, haze_edge_kernel kernel,
                              const uint8_t *d_in, uint8_t *d_out, int *d_scratch, int width,
                              int height);

/* The context's CUDA stream (a cudaStream_t), to time the kernels on. */
void *haze_dev_edge_stream(haze_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
