/*
 * src/edge/edge.c - FIRE edge detection on the CPU (seed paper 002, section
 * "FIRE"; Russo and Ramponi's Fuzzy Inference Ruled by Else-action), and
 * edge detection with a user's Mamdani rule base (the paper's "Extension of
 * system").
 *
 * Two CPU versions give the same bytes: the reference evaluates every
 * membership, the eight rule means, implication, aggregation and the
 * 256-point centroid for each pixel, as the paper describes; the fast one
 * reads the memberships from 511-entry tables and the defuzzified byte from a
 * table indexed by the rule sum S (all 6145 values of S, each computed by the
 * reference's own defuzzification), so equality holds by construction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "core/sized.h"
#include "edge/edge_internal.h"

int haze_edge_options_init(haze_edge_options *opt, size_t size) {
    haze_edge_options p;
    memset(&p, 0, sizeof p);
    p.size = sizeof p;
    p.spread = 64;
    p.black_width = 128;
    p.scale = 2;
    return haze__sized_init(opt, size, &p, sizeof p);
}

int haze_edge_new(haze_ctx *ctx, const haze_edge_options *p, haze_edge **out) {
    if (!out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_edge_new: out is NULL");
    *out = NULL;
    haze_edge_options q = haze_edge_options_default();
    int take = haze__sized_take(ctx, &q, sizeof q, p, "haze_edge_options");
    if (take) return take;
    if (q.spread < 1 || q.spread > 255)
        return haze__error(ctx, HAZE_ERR_INVALID, "FIRE spread %d outside 1..255", q.spread);
    if (q.black_width < 1 || q.black_width > 255)
        return haze__error(ctx, HAZE_ERR_INVALID, "FIRE black width %d outside 1..255",
                           q.black_width);
    if (q.scale < 1 || q.scale > 8)
        return haze__error(ctx, HAZE_ERR_INVALID, "FIRE scale C=%d outside 1..8", q.scale);
    haze_edge *f = calloc(1, sizeof *f);
    if (!f) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    f->p = q;
    for (int d = -255; d <= 255; d++) {
        f->pos[d + 255] = (short)haze__fire_pos(d, q.spread);
        f->neg[d + 255] = (short)haze__fire_neg(d, q.spread);
    }
    for (int s = 0; s <= HAZE__FIRE_SMAX; s++)
        f->lut[s] = haze__fire_defuzz(s, q.black_width, q.scale);
    *out = f;
    return HAZE_OK;
}

void haze_edge_free(haze_edge *f) {
    if (!f) return;
#ifdef HAZE_HAVE_CUDA
    haze__fire_cuda_release(f);
#endif
    free(f);
}

/* The 3x3 window around (x, y), edge pixels replicated. */
static void window(const haze_image *in, int x, int y, int *center, int d[8]) {
    const int w = in->width, h = in->height;
    *center = in->data[(size_t)y * (size_t)w + (size_t)x];
    for (int m = 0; m < 8; m++) {
        int yy = y + haze__fire_dy[m], xx = x + haze__fire_dx[m];
        yy = yy < 0 ? 0 : (yy >= h ? h - 1 : yy);
        xx = xx < 0 ? 0 : (xx >= w ? w - 1 : xx);
        d[m] = (int)in->data[(size_t)yy * (size_t)w + (size_t)xx] - *center;
    }
}

/* The reference: the paper's steps, one pixel at a time, one thread. */
static void fire_reference(const haze_edge *f, const haze_image *in, haze_image *out) {
    const int T = f->p.spread, W = f->p.black_width, C = f->p.scale;
    for (int y = 0; y < in->height; y++)
        for (int x = 0; x < in->width; x++) {
            int c, d[8];
            window(in, x, y, &c, d);
            /* eq. 2: each rule's firing is the mean of six antecedents; the
             * largest wins (kept as the sum S = 6 * mean) */
            int best = 0;
            for (int r = 0; r < 8; r++) {
                int s = 0;
                for (int m = 0; m < 8; m++) {
                    int a = haze__fire_rules[r][m];
                    if (a == 1) s += haze__fire_neg(d[m], T);
                    if (a == 2) s += haze__fire_pos(d[m], T);
                }
                if (s > best) best = s;
            }
            /* else-rule, min implication, max aggregation, centroid over
             * 256 points, times C */
            int64_t num = 0, den = 0;
            for (int k = 0; k < 256; k++) {
                int64_t a = haze__fire_agg(best, k, W);
                num += (int64_t)k * a;
                den += a;
            }
            out->data[(size_t)y * (size_t)in->width + (size_t)x] = haze__fire_byte(num, den, C);
        }
}

/* CPU threads: one per this many pixels at least (about 100 us of
 * fire_fast), so that small images run on one (haze__threads_for). */
#define EDGE_PAR_PIXELS 8192

/* The fast CPU version: tables, rows over the threads. */
static void fire_fast(const haze_edge *f, const haze_image *in, haze_image *out, int threads) {
    const int w = in->width, h = in->height;
    const short *pos = f->pos + 255, *neg = f->neg + 255;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static)
#else
    (void)threads;
#endif
    for (int y = 0; y < h; y++) {
        const uint8_t *rm = in->data + (size_t)(y > 0 ? y - 1 : 0) * (size_t)w;
        const uint8_t *r0 = in->data + (size_t)y * (size_t)w;
        const uint8_t *rp = in->data + (size_t)(y < h - 1 ? y + 1 : y) * (size_t)w;
        uint8_t *o = out->data + (size_t)y * (size_t)w;
        for (int x = 0; x < w; x++) {
            int xl = x > 0 ? x - 1 : 0, xr = x < w - 1 ? x + 1 : x;
            int c = r0[x];
            int dNW = rm[xl] - c, dN = rm[x] - c, dNE = rm[xr] - c, dW = r0[xl] - c;
            int dE = r0[xr] - c, dSW = rp[xl] - c, dS = rp[x] - c, dSE = rp[xr] - c;
            int s[8];
            s[0] = neg[dNW] + neg[dN] + neg[dNE] + pos[dSW] + pos[dS] + pos[dSE];
            s[1] = pos[dNW] + pos[dN] + pos[dNE] + neg[dSW] + neg[dS] + neg[dSE];
            s[2] = neg[dNW] + pos[dNE] + neg[dW] + pos[dE] + neg[dSW] + pos[dSE];
            s[3] = pos[dNW] + neg[dNE] + pos[dW] + neg[dE] + pos[dSW] + neg[dSE];
            s[4] = neg[dNW] + neg[dN] + neg[dW] + pos[dE] + pos[dS] + pos[dSE];
            s[5] = pos[dNW] + pos[dN] + pos[dW] + neg[dE] + neg[dS] + neg[dSE];
            s[6] = neg[dN] + neg[dNE] + pos[dW] + neg[dE] + pos[dSW] + pos[dS];
            s[7] = pos[dN] + pos[dNE] + neg[dW] + pos[dE] + neg[dSW] + neg[dS];
            int best = s[0];
            for (int r = 1; r < 8; r++) best = s[r] > best ? s[r] : best;
            o[x] = f->lut[best];
        }
    }
}

static int check_images(haze_ctx *ctx, const haze_image *in, const haze_image *out) {
    if (!in || !out || !in->data || !out->data)
        return haze__error(ctx, HAZE_ERR_INVALID, "edge: NULL image");
    if (in->width != out->width || in->height != out->height)
        return haze__error(ctx, HAZE_ERR_MISMATCH, "edge: input %d x %d, output %d x %d", in->width,
                           in->height, out->width, out->height);
    return HAZE_OK;
}

int haze_edge_run(haze_ctx *ctx, haze_edge *f, haze_edge_kernel kernel, const haze_image *in,
                  haze_image *out) {
    if (!f) return haze__error(ctx, HAZE_ERR_INVALID, "haze_edge_run: detector is NULL");
    int st = check_images(ctx, in, out);
    if (st) return st;
    if (kernel != HAZE_EDGE_FAST && kernel != HAZE_EDGE_REFERENCE)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_edge_run: unknown kernel %d", (int)kernel);
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx)) return haze__fire_run_cuda(ctx, f, kernel, in, out);
#endif
    if (kernel == HAZE_EDGE_REFERENCE)
        fire_reference(f, in, out);
    else
        fire_fast(f, in, out,
                  haze__threads_for(ctx, (double)in->width * (double)in->height, EDGE_PAR_PIXELS));
    return HAZE_OK;
}

int haze_edge_run_fis(haze_ctx *ctx, const haze_fis *fis, const haze_image *in, haze_image *out) {
    int st = check_images(ctx, in, out);
    if (st) return st;
    if (!fis || haze_fis_input_count(fis) != 8 || haze_fis_output_count(fis) != 1)
        return haze__error(ctx, HAZE_ERR_MISMATCH,
                           "edge rules: the model needs 8 inputs (neighbour differences NW, N, "
                           "NE, W, E, SW, S, SE) and 1 output, it has %d and %d",
                           fis ? haze_fis_input_count(fis) : 0,
                           fis ? haze_fis_output_count(fis) : 0);
    const size_t n = (size_t)in->width * (size_t)in->height;
    /* in bands, so a large frame does not need 72 bytes per pixel at once */
    const size_t band = 1 << 16;
    double *x = malloc(sizeof(double) * 8 * band), *y = malloc(sizeof(double) * band);
    if (!x || !y) {
        free(x);
        free(y);
        return haze__error(ctx, HAZE_ERR_NOMEM, "edge rules: out of memory");
    }
    for (size_t i0 = 0; i0 < n && !st; i0 += band) {
        size_t m = n - i0 < band ? n - i0 : band;
        for (size_t i = 0; i < m; i++) {
            int px = (int)((i0 + i) % (size_t)in->width), py = (int)((i0 + i) / (size_t)in->width);
            int c, d[8];
            window(in, px, py, &c, d);
            for (int k = 0; k < 8; k++) x[i * 8 + (size_t)k] = d[k];
        }
        st = haze_fis_eval(ctx, fis, x, m, y, NULL);
        for (size_t i = 0; i < m && !st; i++) {
            double v = y[i];
            v = isnan(v) ? 255.0 : floor(v + 0.5);
            out->data[i0 + i] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
        }
    }
    free(x);
    free(y);
    return st;
}
