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
 * Fast: one thread per pixel, a single pass: memberships and the defuzzified
 * byte come from the detector's tables (edge.c builds them with the
 * reference's own functions), so the image is identical to the reference's.
 * All arithmetic is integer: no rounding or contraction can differ.
 */
#include <stdint.h>

#include "core/internal.h"
#include "edge/edge_internal.h"

#define TILE       16
#define K2_THREADS 128

__constant__ unsigned char c_rules[8][8];

__global__ void fire_k1(const uint8_t *__restrict__ in, int *__restrict__ s_out, int w, int h,
                        int spread) {
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

__global__ void fire_k2(const int *__restrict__ s_in, uint8_t *__restrict__ out, int width,
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

__global__ void fire_fast(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int w, int h,
                          const short *__restrict__ pos_t, const short *__restrict__ neg_t,
                          const uint8_t *__restrict__ lut) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const int xl = max(x - 1, 0), xr = min(x + 1, w - 1);
    const uint8_t *rm = in + (size_t)max(y - 1, 0) * w, *r0 = in + (size_t)y * w,
                  *rp = in + (size_t)min(y + 1, h - 1) * w;
    const int c = __ldg(r0 + x);
    const int dNW = __ldg(rm + xl) - c + 255, dN = __ldg(rm + x) - c + 255,
              dNE = __ldg(rm + xr) - c + 255, dW = __ldg(r0 + xl) - c + 255,
              dE = __ldg(r0 + xr) - c + 255, dSW = __ldg(rp + xl) - c + 255,
              dS = __ldg(rp + x) - c + 255, dSE = __ldg(rp + xr) - c + 255;
#define P(i) ((int)__ldg(pos_t + (i)))
#define N(i) ((int)__ldg(neg_t + (i)))
    int best = N(dNW) + N(dN) + N(dNE) + P(dSW) + P(dS) + P(dSE);
    best = max(best, P(dNW) + P(dN) + P(dNE) + N(dSW) + N(dS) + N(dSE));
    best = max(best, N(dNW) + P(dNE) + N(dW) + P(dE) + N(dSW) + P(dSE));
    best = max(best, P(dNW) + N(dNE) + P(dW) + N(dE) + P(dSW) + N(dSE));
    best = max(best, N(dNW) + N(dN) + N(dW) + P(dE) + P(dS) + P(dSE));
    best = max(best, P(dNW) + P(dN) + P(dW) + N(dE) + N(dS) + N(dSE));
    best = max(best, N(dN) + N(dNE) + P(dW) + N(dE) + P(dSW) + P(dS));
    best = max(best, P(dN) + P(dNE) + N(dW) + P(dE) + N(dSW) + N(dS));
#undef P
#undef N
    out[(size_t)y * w + x] = __ldg(lut + best);
}

/* Device tables: pos[511], neg[511] (short), then the LUT. */
static size_t tables_bytes(void) {
    return sizeof(short) * 2 * 511 + HAZE__FIRE_SMAX + 1;
}

static int upload_tables(haze_ctx *ctx, haze_fire *f) {
    if (f->d_tables) return HAZE_OK;
    void *d = NULL;
    cudaStream_t s = haze__stream(ctx);
    HAZE_CUDA_TRY(ctx, cudaMalloc(&d, tables_bytes()));
    /* on the context's stream, so the kernels that follow see them; the
     * sources live in f as long as the detector */
    cudaError_t e = cudaMemcpyAsync(d, f->pos, sizeof f->pos, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync((char *)d + sizeof f->pos, f->neg, sizeof f->neg,
                            cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync((char *)d + 2 * sizeof f->pos, f->lut, sizeof f->lut,
                            cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
        e = cudaMemcpyToSymbolAsync(c_rules, haze__fire_rules, sizeof haze__fire_rules, 0,
                                    cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
        cudaFree(d);
        return haze__error(ctx, HAZE_ERR_CUDA, "CUDA: FIRE tables: %s", cudaGetErrorString(e));
    }
    f->d_tables = d;
    return HAZE_OK;
}

extern "C" void haze__fire_cuda_release(haze_fire *f) {
    if (f && f->d_tables) cudaFree(f->d_tables);
    if (f) f->d_tables = NULL;
}

extern "C" int haze__fire_device(haze_ctx *ctx, haze_fire *f, haze_fire_kernel kernel,
                                 const uint8_t *d_in, uint8_t *d_out, int *d_scratch, int width,
                                 int height) {
    int st = haze__cuda_begin(ctx);
    if (!st) st = upload_tables(ctx, f);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    if (kernel == HAZE_FIRE_REFERENCE) {
        dim3 b1(TILE, TILE), g1((width + TILE - 1) / TILE, (height + TILE - 1) / TILE);
        fire_k1<<<g1, b1, 0, s>>>(d_in, d_scratch, width, height, f->p.spread);
        HAZE_CUDA_TRY_LAUNCH(ctx);
        size_t n = (size_t)width * height;
        fire_k2<<<(unsigned)n, K2_THREADS, 0, s>>>(d_scratch, d_out, f->p.black_width, f->p.scale);
        HAZE_CUDA_TRY_LAUNCH(ctx);
    } else {
        const short *pos = (const short *)f->d_tables, *neg = pos + 511;
        const uint8_t *lut = (const uint8_t *)(neg + 511);
        dim3 b(32, 8), g((width + 31) / 32, (height + 7) / 8);
        fire_fast<<<g, b, 0, s>>>(d_in, d_out, width, height, pos, neg, lut);
        HAZE_CUDA_TRY_LAUNCH(ctx);
    }
    return HAZE_OK;
}

extern "C" int haze__fire_run_cuda(haze_ctx *ctx, haze_fire *f, haze_fire_kernel kernel,
                                   const haze_image *in, haze_image *out) {
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    const size_t n = (size_t)in->width * in->height;
    if (kernel == HAZE_FIRE_REFERENCE && n > 0x7fffffffu)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "FIRE reference: image too large for one block "
                           "per pixel");
    size_t need = 2 * n + (kernel == HAZE_FIRE_REFERENCE ? sizeof(int) * n : 0) + tables_bytes();
    if (need > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM, "FIRE: %zu bytes of device memory needed", need);
    uint8_t *d_in = NULL, *d_out = NULL;
    int *d_s = NULL;
    cudaStream_t s = haze__stream(ctx);
    cudaError_t e = cudaMalloc((void **)&d_in, n);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d_out, n);
    if (e == cudaSuccess && kernel == HAZE_FIRE_REFERENCE)
        e = cudaMalloc((void **)&d_s, sizeof(int) * n);
    if (e == cudaSuccess) e = cudaMemcpyAsync(d_in, in->data, n, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) {
        st = haze__fire_device(ctx, f, kernel, d_in, d_out, d_s, in->width, in->height);
        if (!st) e = cudaMemcpyAsync(out->data, d_out, n, cudaMemcpyDeviceToHost, s);
        if (!st && e == cudaSuccess) e = cudaStreamSynchronize(s);
    }
    if (!st && e != cudaSuccess)
        st = haze__error(ctx, HAZE_ERR_CUDA, "CUDA: FIRE: %s", cudaGetErrorString(e));
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_s);
    return st;
}
