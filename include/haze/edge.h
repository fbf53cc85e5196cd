/*
 * haze/edge.h - FIRE edge detection (Fuzzy Inference Ruled by Else-action,
 * Russo and Ramponi) as Anderson et al. describe it for the GPU (docs/edge.md
 * names the paper): per pixel, eight luminance differences to the 3x3 neighbours, eight
 * rules of six antecedents over the sets negative and positive, rule firing
 * = mean of its six memberships, f_l = max over rules, else-rule
 * f_s = 1 - f_l, min implication, max aggregation, centroid over 256 points
 * of the consequent domain, scaled by C to 0..255. Edges come out dark on a
 * light background. Borders replicate the edge pixels.
 *
 * All arithmetic is integer (memberships in units of 1/1024), so the CPU
 * reference, the fast CPU version, the paper's two-kernel GPU design and the
 * fast GPU kernel give the identical 8-bit image. docs/edge.md has the
 * parameters and their source.
 *
 * Threads: as haze/core.h says ("Threads"), with one exception: with the
 * CUDA backend the first haze_edge_run on a detector copies its tables to
 * the device, and must not overlap with another call on that detector; run
 * it once before threads share the detector.
 */
#ifndef HAZE_EDGE_H
#define HAZE_EDGE_H

#include "haze/core.h"
#include "haze/fis.h"
#include "haze/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct haze_edge_options {
    size_t size; /* sizeof(haze_edge_options): set by haze_edge_options_default() */
    /* Antecedents over a difference d in [-255, 255]: negative is the
     * trapezoid [-256 -255 -spread spread], positive [-spread spread 255 256],
     * so d = 0 is 0.5 in both (the paper's flat-window property).
     * 1..255, default 64. */
    int spread;
    /* Consequents over 0..255: black is the triangle falling from 1 at 0 to
     * 0 at black_width, white its mirror image rising from 255 - black_width
     * to 1 at 255. 1..255, default 128. */
    int black_width;
    /* C: the centroid (at most 127.5) is multiplied by C and rounded;
     * 1..8, default 2 (the paper's). Results above 255 are clipped. */
    int scale;
} haze_edge_options;

/* Fills the first `size` bytes of *opt with the defaults and sets opt->size
 * (haze/core.h); HAZE_ERR_INVALID when size < sizeof(size_t). */
HAZE_API int haze_edge_options_init(haze_edge_options *opt, size_t size);
static inline haze_edge_options haze_edge_options_default(void) {
    haze_edge_options opt;
    haze_edge_options_init(&opt, sizeof opt);
    return opt;
}

typedef enum haze_edge_kernel {
    HAZE_EDGE_FAST = 0,     /* table-driven single pass (CPU: all threads; GPU: one kernel) */
    HAZE_EDGE_REFERENCE = 1 /* CPU: plain per-pixel loop; GPU: the paper's two kernels */
} haze_edge_kernel;

/* A FIRE edge detector. */
typedef struct haze_edge haze_edge;

/*
 * A FIRE edge detector with the given options (NULL: the defaults); it
 * keeps its tables (and, on the GPU, device copies) between frames.
 * Ownership: *out is new, freed with haze_edge_free().
 */
HAZE_API int haze_edge_new(haze_ctx *ctx, const haze_edge_options *opt, haze_edge **out);
/* Frees the detector (and its device tables); NULL is a no-op. */
HAZE_API void haze_edge_free(haze_edge *edge);

/*
 * Edge image of `in` into `out` (same size, caller-owned) on the context's
 * backend with the chosen kernel. Every kernel gives the same bytes.
 */
HAZE_API int haze_edge_run(haze_ctx *ctx, haze_edge *edge, haze_edge_kernel kernel,
                           const haze_image *in, haze_image *out);

/*
 * The generalisation the paper proposes: a user's own rule base. `fis` has
 * 8 inputs, the differences P_neighbour - P_centre in the order NW, N, NE,
 * W, E, SW, S, SE (each in [-255, 255]), and 1 output whose value is rounded
 * and clipped to 0..255 (NaN becomes 255). Evaluated through
 * haze_fis_eval on the context's backend.
 */
HAZE_API int haze_edge_run_fis(haze_ctx *ctx, const haze_fis *fis, const haze_image *in,
                               haze_image *out);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_EDGE_H */
