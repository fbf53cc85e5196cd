/*
 * src/fis/fis_eval.h - the drivers that evaluate a batch of rows: the CPU
 * reference (fis_cpu.c, OpenMP over rows) and its CUDA twin (fis_cuda.cu,
 * one thread per row), both running the row evaluator of fis_row.h over the
 * tables of a plan (fis_plan.h) that the caller got first. The public
 * haze_fis_eval* (fis.c) checks the arguments and picks one.
 */
#ifndef HAZE_FIS_EVAL_H
#define HAZE_FIS_EVAL_H

#include <stddef.h>

#include "fis/fis_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Evaluates n rows on the CPU; tb: the plan's tables (all NULL: none). */
int haze__fis_eval_cpu(haze_ctx *ctx, const haze_fis *f, const haze__fis_tabs *tb,
                       const double *inputs, size_t n, double *outputs, haze_fis_stats *stats);
/* lock-previous over a batch: rows flagged in held had an output with
 * lock-previous and no rule fired; they are evaluated again, in order, with
 * the last finite value of each output before them. scratch holds
 * haze__fis_scratch(f) doubles. The serial pass of both drivers. */
int haze__fis_hold(haze_ctx *ctx, const haze_fis *f, const haze__fis_tabs *tb, const double *in,
                   size_t n, double *out, const unsigned char *held, double *scratch);

#ifdef HAZE_HAVE_CUDA
/* Evaluates n rows on the context's device; plan: f's plan (NULL: none);
 * on_device: inputs and outputs are device pointers (no copies). */
int haze__fis_eval_cuda(haze_ctx *ctx, const haze_fis *f, const haze__fis_plan *plan,
                        const double *inputs, size_t n, double *outputs, haze_fis_stats *stats,
                        int on_device);
/* The same from host memory over the devices of a context over several
 * (fis_devices.c): a slice of the rows per device, each on its part of the
 * context on a thread of its own; one device's bits. On one device, or for
 * a model with lock-previous outputs, haze__fis_eval_cuda. */
int haze__fis_eval_devices(haze_ctx *ctx, const haze_fis *f, const haze__fis_plan *plan,
                           const double *inputs, size_t n, double *outputs, haze_fis_stats *stats);
#endif

#ifdef __cplusplus
}
#endif

#endif
