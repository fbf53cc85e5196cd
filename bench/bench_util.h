/*
 * bench/bench_util.h - helpers shared by the benchmark programs: a monotonic
 * wall clock and the optional GPU context.
 */
#ifndef HAZE_BENCH_UTIL_H
#define HAZE_BENCH_UTIL_H

#include <time.h>

#include "haze/haze.h"

/* Seconds on the monotonic clock. */
static inline double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A CUDA context with options o (backend set to CUDA), or NULL where none can
 * be made. */
static inline haze_ctx *bench_gpu_ctx(haze_ctx_options *o) {
    haze_ctx *gpu = NULL;
    o->backend = HAZE_BACKEND_CUDA;
    if (haze_ctx_new(o, &gpu)) {
        haze_ctx_free(gpu);
        gpu = NULL;
    }
    return gpu;
}

#endif
