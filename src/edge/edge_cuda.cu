/*
 * src/edge/edge_cuda.cu - FIRE edge detection on the GPU.
 *
 * Reference: the two-kernel design of seed paper 002 (section "GPU
 * implementation", Figs. 5 and 6). Kernel 1 loads a 16x16 tile with a
 * one-pixel halo into shared memory, forms the eight differences, fires the
 * eight rules and keeps the largest (as the integer rule sum S). Kernel 2
 * runs one block of 128 threads per pixel: each thread does implication and
 * aggregation at two of the 256 consequent points, then two shared-memory
 * sum reductions (sequential addressing) give the centroid's numerator and
 * denominator. The paper keeps the image and the sets in texture memory;
 * here they are read through the read-only data cache (__ldg), which is what
 * texture fetches of linear memory become on current GPUs.
 *
 * Fast: a single pass, four pixels per thread (see fire_fast): memberships
 * and the defuzzified byte come from the detector's tables (edge.c builds them with the
 * reference's own functions), so the image is identical to the reference's.
 * All arithmetic is integer: no rounding or contraction can differ.
 */
#include <stdint.h>

#include "core/internal.h"
#include "edge/edge_internal.h"

#define TILE       16
#define K2_THREADS 128

/* Kernels, device helpers and the rule table have internal linkage (static,
 * not an anonymous namespace, which nvcc compiles into a global one), so the
 * library defines no global names outside haze_ and haze__. */
static __constant__ unsigned char c_rules[8][8];

static __global__ void fire_k1(const uint8_t *__restrict__ in, int *__restrict__ s_out, int w,
                               int h, int spread) {
    __shared__ int tile[TILE + 2][TILE + 2];
    const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    /* the tile and its halo, edge pixels replicated */
    for (int i = threadIdx.y * TILE + threadIdx.x; i < (TILE + 2) * (TILE + 2); i += TILE * TILE) {
        int ty = i / (TILE + 2), tx = i % (TILE + 2);
        int yy = min(max(y0 + ty - 1, 0), h - 1), xx = min(max(x0 + tx - 1, 0), w - 1);
        tile[ty][tx] = __ldg(in + (size_t)yy * w + xx);
    }
    __syncthreads();
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= w || y >= h) return;
    const int c = tile[threadIdx.y + 1][threadIdx.x + 1];
    int d[8];
    const int dy[8] = {-1, -1, -1, 0, 0, 1, 1, 1}, dx[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
    for (int m = 0; m < 8; m++) d[m] = tile[threadIdx.y + 1 + dy[m]][threadIdx.x + 1 + dx[m]] - c;
    int best = 0;
    for (int r = 0; r < 8; r++) {
        int s = 0;
        for (int m = 0; m < 8; m++) {
            int a = c_rules[r][m];
            if (a == 1) s += haze__fire_neg(d[m], spread);
            if (a == 2) s += haze__fire_pos(d[m], spread);
        }
        best = max(best, s);
    }
    s_out[(size_t)y * w + x] = best;
}

static __global__ void fire_k2(const int *__restrict__ s_in, uint8_t *__restrict__ out, int width,
                               int scale) {
    __shared__ long long num[K2_THREADS], den[K2_THREADS];
    const size_t p = blockIdx.x;
    const int s = s_in[p];
    const int t = threadIdx.x;
    /* implication (min) and aggregation (max) at points t and t + 128 */
    long long a0 = haze__fire_agg(s, t, width), a1 = haze__fire_agg(s, t + K2_THREADS, width);
    num[t] = (long long)t * a0 + (long long)(t + K2_THREADS) * a1;
    den[t] = a0 + a1;
    __syncthreads();
    for (int stride = K2_THREADS / 2; stride > 0; stride >>= 1) {
        if (t < stride) {
            num[t] += num[t + stride];
            den[t] += den[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) out[p] = haze__fire_byte(num[0], den[0], scale);
}

/*
 * Fast kernel. A block of 32 x 8 threads covers FT_W x FT_H pixels, each
 * thread FT_PX horizontally adjacent pixels. The tile and its one-pixel halo
 * (edge pixels replicated) are staged in shared memory with coalesced loads,
 * and so is the membership table, packed: pk[d + 255] = pos(d) | neg(d) << 16.
 *
 * The eight rules are four pairs of opposite polarity (rules 2i and 2i+1 ask
 * negative where the other asks positive), so one 32-bit sum of six packed
 * words gives both: with the word itself where rule 2i asks positive and its
 * halves swapped where it asks negative, the low half is rule 2i's sum S and
 * the high half rule 2i+1's. Sums stay below 6 * 1024 < 2^16, so the halves
 * never carry into each other, and a per-half maximum (__vmaxu2) finds the
 * largest S. Integer arithmetic only: the same S, hence the same byte, as
 * the reference.
 */
#define FT_PX 4
#define FT_W  (32 * FT_PX)
#define FT_H  8

static __device__ __forceinline__ uint32_t swap16(uint32_t w) {
    return __byte_perm(w, 0, 0x1032);
}

static __global__ void __launch_bounds__(256)
    fire_fast(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int w, int h,
              const uint32_t *__restrict__ packed, const uint8_t *__restrict__ lut) {
    __shared__ uint32_t pk[511];
    __shared__ uint8_t tile[FT_H + 2][FT_W + 4];
    const int tid = threadIdx.y * 32 + threadIdx.x;
    const int x0 = blockIdx.x * FT_W, y0 = blockIdx.y * FT_H;
    for (int i = tid; i < 511; i += 256) pk[i] = __ldg(packed + i);
    for (int i = tid; i < (FT_H + 2) * (FT_W + 2); i += 256) {
        const int ty = i / (FT_W + 2), tx = i - ty * (FT_W + 2);
        const int yy = min(max(y0 + ty - 1, 0), h - 1), xx = min(max(x0 + tx - 1, 0), w - 1);
        tile[ty][tx] = __ldg(in + (size_t)yy * w + xx);
    }
    __syncthreads();
    const int y = y0 + threadIdx.y;
    if (y >= h) return;
    const int ty = threadIdx.y + 1;
    uint8_t res[FT_PX];
#pragma unroll
    for (int k = 0; k < FT_PX; k++) {
        const int tx = threadIdx.x * FT_PX + k + 1;
        const int c = tile[ty][tx] - 255;
        /* word of each neighbour: pos(d) low, neg(d) high */
        const uint32_t wNW = pk[tile[ty - 1][tx - 1] - c], wN = pk[tile[ty - 1][tx] - c],
                       wNE = pk[tile[ty - 1][tx + 1] - c], wW = pk[tile[ty][tx - 1] - c],
                       wE = pk[tile[ty][tx + 1] - c], wSW = pk[tile[ty + 1][tx - 1] - c],
                       wS = pk[tile[ty + 1][tx] - c], wSE = pk[tile[ty + 1][tx + 1] - c];
        const uint32_t sNW = swap16(wNW), sN = swap16(wN), sNE = swap16(wNE), sW = swap16(wW),
                       sE = swap16(wE), sSW = swap16(wSW), sS = swap16(wS), sSE = swap16(wSE);
        /* low half: rules 0, 2, 4, 6 (haze__fire_rules); high half: 1, 3, 5, 7 */
        const uint32_t r01 = sNW + sN + sNE + wSW + wS + wSE;
        const uint32_t r23 = sNW + wNE + sW + wE + sSW + wSE;
        const uint32_t r45 = sNW + sN + sW + wE + wS + wSE;
        const uint32_t r67 = sN + sNE + wW + sE + wSW + wS;
        const uint32_t m = __vmaxu2(__vmaxu2(r01, r23), __vmaxu2(r45, r67));
        const int best = max((int)(m & 0xffffu), (int)(m >> 16));
        res[k] = __ldg(lut + best);
    }
    const int x = x0 + threadIdx.x * FT_PX;
    uint8_t *o = out + (size_t)y * w + x;
    if (x + FT_PX <= w && ((uintptr_t)o & 3) == 0) {
        *(uchar4 *)o = make_uchar4(res[0], res[1], res[2], res[3]);
    } else {
#pragma unroll
        for (int k = 0; k < FT_PX; k++)
            if (x + k < w) o[k] = res[k];
    }
}

/* Device tables: the packed memberships (511 words), then the LUT. */
static size_t tables_bytes(void) {
    return sizeof(uint32_t) * 511 + HAZE__FIRE_SMAX + 1;
}

/*
 * The detector's tables on the context's device, uploaded on first use
 * there (a detector moved to a context on another device uploads them
 * again; one detector must not run on two devices at once).
 */
static int upload_tables(haze_ctx *ctx, haze_edge *f) {
    if (f->d_tables && f->d_device == ctx->device) return HAZE_OK;
    haze__fire_cuda_release(f);
    uint32_t packed[511]; /* copied before the synchronisation below returns */
    for (int i = 0; i < 511; i++)
        packed[i] = (uint32_t)(uint16_t)f->pos[i] | (uint32_t)(uint16_t)f->neg[i] << 16;
    void *d = NULL;
    cudaStream_t s = haze__stream(ctx);
    int st = haze__dev_alloc(ctx, &d, tables_bytes(), "FIRE tables");
    if (st) return st;
    /* on the context's stream, so the kernels that follow see them */
    HAZE_CUDA_GOTO(ctx, st, fail,
                   cudaMemcpyAsync(d, packed, sizeof packed, cudaMemcpyHostToDevice, s));
    HAZE_CUDA_GOTO(ctx, st, fail,
                   cudaMemcpyAsync((char *)d + sizeof packed, f->lut, sizeof f->lut,
                                   cudaMemcpyHostToDevice, s));
    HAZE_CUDA_GOTO(ctx, st, fail,
                   cudaMemcpyToSymbolAsync(c_rules, haze__fire_rules, sizeof haze__fire_rules, 0,
                                           cudaMemcpyHostToDevice, s));
    HAZE_CUDA_GOTO(ctx, st, fail, cudaStreamSynchronize(s));
    /* the tables outlive this call: they keep the account and the device */
    f->d_tables = d;
    f->d_device = ctx->device;
    f->d_acct = haze__dev_acct_hold(ctx);
    return HAZE_OK;
fail:
    haze__dev_free(ctx, d, tables_bytes());
    return st;
}

extern "C" void haze__fire_cuda_release(haze_edge *f) {
    if (!f || !f->d_tables) return;
    haze__dev_free_held(f->d_acct, f->d_device, f->d_tables, tables_bytes());
    haze__dev_acct_drop(f->d_acct);
    f->d_tables = NULL;
    f->d_acct = NULL;
}

extern "C" int haze__fire_device(haze_ctx *ctx, haze_edge *f, haze_edge_kernel kernel,
                                 const uint8_t *d_in, uint8_t *d_out, int *d_scratch, int width,
                                 int height) {
    int st = haze__cuda_begin(ctx);
    if (!st) st = upload_tables(ctx, f);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    if (kernel == HAZE_EDGE_REFERENCE) {
        dim3 b1(TILE, TILE), g1((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
        fire_k1<<<g1, b1, 0, s>>>(d_in, d_scratch, width, height, f->p.spread);
        HAZE_CUDA_TRY_LAUNCH(ctx);
        size_t n = (size_t)width * height;
        fire_k2<<<(unsigned)n, K2_THREADS, 0, s>>>(d_scratch, d_out, f->p.black_width, f->p.scale);
        HAZE_CUDA_TRY_LAUNCH(ctx);
    } else {
        const uint32_t *packed = (const uint32_t *)f->d_tables;
        const uint8_t *lut = (const uint8_t *)(packed + 511);
        dim3 b(32, FT_H), g((width + FT_W - 1) / FT_W, (height + FT_H - 1) / FT_H);
        fire_fast<<<g, b, 0, s>>>(d_in, d_out, width, height, packed, lut);
        HAZE_CUDA_TRY_LAUNCH(ctx);
    }
    return HAZE_OK;
}

extern "C" int haze__fire_run_cuda(haze_ctx *ctx, haze_edge *f, haze_edge_kernel kernel,
                                   const haze_image *in, haze_image *out) {
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    const size_t n = (size_t)in->width * in->height;
    if (kernel == HAZE_EDGE_REFERENCE && n > 0x7fffffffu)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "FIRE reference: image too large for one block "
                           "per pixel");
    size_t need = 2 * n + (kernel == HAZE_EDGE_REFERENCE ? sizeof(int) * n : 0) + tables_bytes();
    if (need > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM, "FIRE: %zu bytes of device memory needed", need);
    uint8_t *d_in = NULL, *d_out = NULL;
    int *d_s = NULL;
    cudaStream_t s = haze__stream(ctx);
    const size_t s_bytes = kernel == HAZE_EDGE_REFERENCE ? sizeof(int) * n : 0;
    if ((st = haze__dev_alloc(ctx, (void **)&d_in, n, "FIRE input")) ||
        (st = haze__dev_alloc(ctx, (void **)&d_out, n, "FIRE output")) ||
        (s_bytes && (st = haze__dev_alloc(ctx, (void **)&d_s, s_bytes, "FIRE rule sums"))))
        goto done;
    HAZE_CUDA_GOTO(ctx, st, done, cudaMemcpyAsync(d_in, in->data, n, cudaMemcpyHostToDevice, s));
    if ((st = haze__fire_device(ctx, f, kernel, d_in, d_out, d_s, in->width, in->height)))
        goto done;
    HAZE_CUDA_GOTO(ctx, st, done, cudaMemcpyAsync(out->data, d_out, n, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_GOTO(ctx, st, done, cudaStreamSynchronize(s));
done:
    haze__dev_free(ctx, d_in, n);
    haze__dev_free(ctx, d_out, n);
    haze__dev_free(ctx, d_s, s_bytes);
    return st;
}
