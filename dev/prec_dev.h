/*
 * dev/prec_dev.h - the rounding-error analyser's double-interval box engine,
 * reached from tests and benchmarks: a script compiled into the program that
 * GPU bisection runs, run on a range of sub-boxes on the CPU (the reference)
 * or on the GPU, so that the two can be compared bit for bit.
 */
#ifndef HAZE_DEV_PREC_DEV_H
#define HAZE_DEV_PREC_DEV_H

#include "haze/haze.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct haze_dev_prec_boxes haze_dev_prec_boxes;

/* Compiles s (its inputs' bisection counts as set now) into *out;
 * HAZE_ERR_UNSUPPORTED when the script needs what double intervals lack. */
int haze_dev_prec_boxes_compile(haze_ctx *ctx, const haze_prec_script *s,
                                haze_dev_prec_boxes **out);
void haze_dev_prec_boxes_free(haze_dev_prec_boxes *p);
/* The number of sub-boxes, of goals and of instructions of the program. */
long haze_dev_prec_boxes_count(const haze_dev_prec_boxes *p);
int haze_dev_prec_boxes_goals(const haze_dev_prec_boxes *p);
int haze_dev_prec_boxes_length(const haze_dev_prec_boxes *p);
/* Programs longer than this keep their values in device memory, not in
 * thread-local arrays. */
int haze_dev_prec_boxes_local_max(void);
/* Sub-boxes first..first+count-1 on the CPU: out[(t*goals + g)*2 + {0,1}]
 * the bounds of goal g on sub-box first+t, err[t] 0 or 1 + the instruction
 * whose operation is undefined there. */
int haze_dev_prec_boxes_host(const haze_dev_prec_boxes *p, long first, long count, double *out,
                             int *err);
/* The same on the GPU (HAZE_ERR_UNSUPPORTED without CUDA). */
int haze_dev_prec_boxes_cuda(haze_ctx *ctx, const haze_dev_prec_boxes *p, long first, long count,
                             double *out, int *err);

#ifdef __cplusplus
}
#endif

#endif
