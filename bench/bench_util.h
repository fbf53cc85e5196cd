/*
 * bench/bench_util.h - helpers shared by the benchmark programs: a monotonic
 * wall clock and the optional GPU context.
 */
#ifndef HAZE_BENCH_UTIL_H
#define HAZE_BENCH_UTIL_H

#include <time.h>

#include "haze/haze.h"

/* Seconds on the monotonic clock. */
/* MATLAB's tipper (tipper.fis of the Fuzzy Logic Toolbox's examples), for
 * the benchmarks that time batch inference. */
static const char bench_tipper_fis[] =
    "[System]\nName='tipper'\nType='mamdani'\nNumInputs=2\nNumOutputs=1\nNumRules=3\n"
    "AndMethod='min'\nOrMethod='max'\nImpMethod='min'\nAggMethod='max'\nDefuzzMethod='centroid'\n"
    "[Input1]\nName='service'\nRange=[0 10]\nNumMFs=3\nMF1='poor':'gaussmf',[1.5 0]\n"
    "MF2='good':'gaussmf',[1.5 5]\nMF3='excellent':'gaussmf',[1.5 10]\n"
    "[Input2]\nName='food'\nRange=[0 10]\nNumMFs=2\nMF1='rancid':'trapmf',[0 0 1 3]\n"
    "MF2='delicious':'trapmf',[7 9 10 10]\n"
    "[Output1]\nName='tip'\nRange=[0 30]\nNumMFs=3\nMF1='cheap':'trimf',[0 5 10]\n"
    "MF2='average':'trimf',[10 15 20]\nMF3='generous':'trimf',[20 25 30]\n"
    "[Rules]\n1 1, 1 (1) : 2\n2 0, 2 (1) : 1\n3 2, 3 (1) : 2\n";

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
