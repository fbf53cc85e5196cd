/*
 * src/edge/edge_internal.h - FIRE's integer arithmetic, shared by the CPU
 * code (edge.c) and the CUDA kernels (edge_cuda.cu) so every path computes
 * the same bytes. Seed paper 002, section "FIRE" and Fig. 1 (rules), eq. 1
 * (differences), eq. 2 (rule firing as the mean of six antecedents).
 *
 * Units: a membership degree is an integer in 0..HAZE__FIRE_Q (1/1024
 * steps, rounded down). The sum of a rule's six degrees, S, stands for the
 * mean S / (6 Q); f_l = max_r S_r / (6 Q) and f_s = 1 - f_l. The aggregated
 * consequent at point k (0..255) is max(min(S, 6 black(k)), min(6Q - S,
 * 6 white(k))) in the same units, and the centroid is num / den of exact
 * 64-bit sums, rounded half up after the scaling by C.
 */
#ifndef HAZE_EDGE_INTERNAL_H
#define HAZE_EDGE_INTERNAL_H

#include <stdint.h>

#include "core/hd.h"
#include "core/internal.h"
#include "haze/edge.h"

#define HAZE__FHD HAZE__HD

#define HAZE__FIRE_Q    1024
#define HAZE__FIRE_SMAX (6 * HAZE__FIRE_Q)

/* Neighbours in the order NW, N, NE, W, E, SW, S, SE: row and column offsets. */
static const int haze__fire_dy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
static const int haze__fire_dx[8] = {-1, 0, 1, -1, 1, -1, 0, 1};

/*
 * The eight rules of Fig. 1: for each, the antecedent of each neighbour,
 * 0 unused, 1 negative, 2 positive. An edge through the centre along one of
 * four directions leaves out the two neighbours on the edge line and asks
 * one side to be darker than the centre (negative difference) and the other
 * lighter; each direction comes in both polarities.
 *                             NW N NE W E SW S SE
 */
static const unsigned char haze__fire_rules[8][8] = {
    {1, 1, 1, 0, 0, 2, 2, 2}, /* horizontal edge, dark above */
    {2, 2, 2, 0, 0, 1, 1, 1}, /* horizontal edge, dark below */
    {1, 0, 2, 1, 2, 1, 0, 2}, /* vertical edge, dark left */
    {2, 0, 1, 2, 1, 2, 0, 1}, /* vertical edge, dark right */
    {1, 1, 0, 1, 2, 0, 2, 2}, /* diagonal NE-SW edge, dark upper left */
    {2, 2, 0, 2, 1, 0, 1, 1}, /* the same, dark lower right */
    {0, 1, 1, 2, 1, 2, 2, 0}, /* diagonal NW-SE edge, dark upper right */
    {0, 2, 2, 1, 2, 1, 1, 0}, /* the same, dark lower left */
};

/* Positive: trapezoid [-T, T, 255, 256] at difference d in [-255, 255]. */
HAZE__FHD int haze__fire_pos(int d, int spread) {
    if (d <= -spread) return 0;
    if (d >= spread) return HAZE__FIRE_Q;
    return ((d + spread) * HAZE__FIRE_Q) / (2 * spread);
}
/* Negative: trapezoid [-256, -255, -T, T], the mirror image of positive. */
HAZE__FHD int haze__fire_neg(int d, int spread) {
    return haze__fire_pos(-d, spread);
}
/* Black: 1 at 0 falling to 0 at W; white: its mirror image. */
HAZE__FHD int haze__fire_black(int k, int w) {
    return k >= w ? 0 : ((w - k) * HAZE__FIRE_Q) / w;
}
HAZE__FHD int haze__fire_white(int k, int w) {
    return haze__fire_black(255 - k, w);
}

/* Aggregated consequent at point k for rule sum s (units of 1/(6Q)). */
HAZE__FHD int64_t haze__fire_agg(int s, int k, int w) {
    int b = 6 * haze__fire_black(k, w), wh = 6 * haze__fire_white(k, w);
    int fl = s < b ? s : b;
    int fs = HAZE__FIRE_SMAX - s;
    fs = fs < wh ? fs : wh;
    return fl > fs ? fl : fs;
}

/* Output byte from centroid sums: round(C * num / den), clipped to 255. */
HAZE__FHD uint8_t haze__fire_byte(int64_t num, int64_t den, int scale) {
    int64_t v = (2 * (int64_t)scale * num + den) / (2 * den);
    return (uint8_t)(v > 255 ? 255 : v);
}

/* The whole defuzzification for rule sum s: the reference's 256-point loop. */
HAZE__FHD uint8_t haze__fire_defuzz(int s, int w, int scale) {
    int64_t num = 0, den = 0;
    for (int k = 0; k < 256; k++) {
        int64_t a = haze__fire_agg(s, k, w);
        num += (int64_t)k * a;
        den += a;
    }
    return haze__fire_byte(num, den, scale);
}

struct haze_edge {
    haze_edge_options p;
    short pos[511], neg[511]; /* memberships at d + 255 */
    uint8_t lut[HAZE__FIRE_SMAX + 1];
    /* device copy of pos and neg (packed) and lut (CUDA only), made on first
     * use on the device of that call's context, counted in its account */
    void *d_tables;
    int d_device;
    haze__dev_acct *d_acct;
};

#ifdef HAZE_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
int haze__fire_run_cuda(haze_ctx *ctx, haze_edge *f, haze_edge_kernel kernel, const haze_image *in,
                        haze_image *out);
/* The kernels on device buffers: no transfers, no sync (haze__fire_run_cuda
 * runs them between its copies; dev/edge_dev.h times them). */
int haze__fire_device(haze_ctx *ctx, haze_edge *f, haze_edge_kernel kernel, const uint8_t *d_in,
                      uint8_t *d_out, int *d_scratch, int width, int height);
void haze__fire_cuda_release(haze_edge *f);
#ifdef __cplusplus
}
#endif
#endif

#endif
