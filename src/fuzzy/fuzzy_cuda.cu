/*
 * src/fuzzy/fuzzy_cuda.cu - the GPU twin of fuzzy.c: element-wise fuzzy
 * operations, the AXPY series of the paper's Fig. 2 and sort-by-key
 * (Fig. 4, with CUB's radix sort). One thread per fuzzy number, running the
 * same header functions as the CPU (haze/fuzzy.h), whose rounding is done by
 * CUDA's directed-rounding intrinsics: results are bit-identical to the CPU.
 *
 * The AXPY kernel is instantiated for compile-time N = 1..16, 20, 24 and 32
 * so that the loop over cuts unrolls and the numbers stay in registers (the
 * paper's Table V / Fig. 3c argument); other N use a runtime-n kernel.
 */
#include <cub/cub.cuh>
#include <stdint.h>

#include "core/internal.h"
#include "fuzzy/fuzzy_internal.h"

namespace {

/* The scalar function for (encoding, op) in precision T, on the device. */
template <class T> struct ops;
#define HAZE__OPS(T, P)                                                                            \
    template <> struct ops<T> {                                                                    \
        static __device__ __forceinline__ int apply(int enc, int op, int n, T *c, const T *a,      \
                                                    const T *b) {                                  \
            switch (enc * 8 + op) {                                                                \
            case 0:                                                                                \
                return haze_fzlu##P##_add(n, c, a, b);                                             \
            case 1:                                                                                \
                return haze_fzlu##P##_sub(n, c, a, b);                                             \
            case 2:                                                                                \
                return haze_fzlu##P##_mul(n, c, a, b);                                             \
            case 3:                                                                                \
                return haze_fzlu##P##_div(n, c, a, b);                                             \
            case 4:                                                                                \
                return haze_fzlu##P##_neg(n, c, a);                                                \
            case 5:                                                                                \
                return haze_fzlu##P##_recip(n, c, a);                                              \
            case 6:                                                                                \
                return haze_fzlu##P##_sqr(n, c, a);                                                \
            case 7:                                                                                \
                return haze_fzlu##P##_sqrt(n, c, a);                                               \
            case 8:                                                                                \
                return haze_fzmr##P##_add(n, c, a, b);                                             \
            case 9:                                                                                \
                return haze_fzmr##P##_sub(n, c, a, b);                                             \
            case 10:                                                                               \
                return haze_fzmr##P##_mul(n, c, a, b);                                             \
            case 11:                                                                               \
                return haze_fzmr##P##_div(n, c, a, b);                                             \
            case 12:                                                                               \
                return haze_fzmr##P##_neg(n, c, a);                                                \
            case 13:                                                                               \
                return haze_fzmr##P##_recip(n, c, a);                                              \
            case 14:                                                                               \
                return haze_fzmr##P##_sqr(n, c, a);                                                \
            case 15:                                                                               \
                return haze_fzmr##P##_sqrt(n, c, a);                                               \
            case 16:                                                                               \
                return haze_fzmi##P##_add(n, c, a, b);                                             \
            case 17:                                                                               \
                return haze_fzmi##P##_sub(n, c, a, b);                                             \
            case 18:                                                                               \
                return haze_fzmi##P##_mul(n, c, a, b);                                             \
            case 19:                                                                               \
                return haze_fzmi##P##_div(n, c, a, b);                                             \
            case 20:                                                                               \
                return haze_fzmi##P##_neg(n, c, a);                                                \
            case 21:                                                                               \
                return haze_fzmi##P##_recip(n, c, a);                                              \
            case 22:                                                                               \
                return haze_fzmi##P##_sqr(n, c, a);                                                \
            default:                                                                               \
                return haze_fzmi##P##_sqrt(n, c, a);                                               \
            }                                                                                      \
        }                                                                                          \
    };
HAZE__OPS(double, d)
HAZE__OPS(float, f)
#undef HAZE__OPS

template <class T>
__global__ void op_kernel(int enc, int op, int n, size_t stride, size_t count, T *c, const T *a,
                          const T *b, size_t bstep, unsigned long long *first_bad) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    if (ops<T>::apply(enc, op, n, c + i * stride, a + i * stride, b ? b + i * bstep : nullptr))
        atomicMin(first_bad, (unsigned long long)i);
}

/* AXPY with the numbers in registers: compile-time N and encoding. */
template <class T, int ENC, int N>
__global__ void axpy_kernel(size_t count, int iters, const T *a, const T *b, T *y) {
    constexpr int S = ENC == HAZE_FUZZY_LU ? 2 * N : N + 1;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    T ra[S], rb[S], ry[S], rt[S];
#pragma unroll
    for (int k = 0; k < S; k++) ra[k] = a[i * S + k], rb[k] = b[k], ry[k] = 0;
    for (int it = 0; it < iters; it++) {
        ops<T>::apply(ENC, HAZE_FUZZY_MUL, N, rt, ra, ry);
        ops<T>::apply(ENC, HAZE_FUZZY_ADD, N, ry, rt, rb);
    }
#pragma unroll
    for (int k = 0; k < S; k++) y[i * S + k] = ry[k];
}

/* Any N: the values live in local memory. */
template <class T>
__global__ void axpy_kernel_n(int enc, int n, size_t stride, size_t count, int iters, const T *a,
                              const T *b, T *y) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    T rt[2 * HAZE_FUZZY_MAX_CUTS], ry[2 * HAZE_FUZZY_MAX_CUTS];
    for (size_t k = 0; k < stride; k++) ry[k] = 0;
    for (int it = 0; it < iters; it++) {
        ops<T>::apply(enc, HAZE_FUZZY_MUL, n, rt, a + i * stride, ry);
        ops<T>::apply(enc, HAZE_FUZZY_ADD, n, ry, rt, b);
    }
    for (size_t k = 0; k < stride; k++) y[i * stride + k] = ry[k];
}

template <class T, int ENC, int N>
cudaError_t launch_axpy_n(size_t count, int iters, const T *a, const T *b, T *y, cudaStream_t s) {
    unsigned blocks = (unsigned)((count + 127) / 128);
    axpy_kernel<T, ENC, N><<<blocks, 128, 0, s>>>(count, iters, a, b, y);
    return cudaGetLastError();
}

template <class T, int ENC>
int launch_axpy(int n, size_t count, int iters, const T *a, const T *b, T *y, cudaStream_t s,
                cudaError_t *err) {
    switch (n) {
#define HAZE__CASE(N)                                                                              \
    case N:                                                                                        \
        *err = launch_axpy_n<T, ENC, N>(count, iters, a, b, y, s);                                 \
        return 1;
        HAZE__CASE(1)
        HAZE__CASE(2) HAZE__CASE(3) HAZE__CASE(4) HAZE__CASE(5) HAZE__CASE(6) HAZE__CASE(7)
            HAZE__CASE(8) HAZE__CASE(9) HAZE__CASE(10) HAZE__CASE(11) HAZE__CASE(12) HAZE__CASE(13)
                HAZE__CASE(14) HAZE__CASE(15) HAZE__CASE(16) HAZE__CASE(20) HAZE__CASE(24)
                    HAZE__CASE(32)
#undef HAZE__CASE
                        default : return 0;
    }
}

__global__ void gather_kernel(size_t count, size_t bytes_per, const uint32_t *idx,
                              const unsigned char *src, unsigned char *dst) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const unsigned char *s = src + (size_t)idx[i] * bytes_per;
    unsigned char *d = dst + i * bytes_per;
    if (bytes_per % 8 == 0)
        for (size_t k = 0; k < bytes_per; k += 8) *(uint64_t *)(d + k) = *(const uint64_t *)(s + k);
    else
        for (size_t k = 0; k < bytes_per; k += 4) *(uint32_t *)(d + k) = *(const uint32_t *)(s + k);
}

__global__ void iota_kernel(size_t count, uint32_t *idx) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) idx[i] = (uint32_t)i;
}

/* Device buffers freed on every path. */
struct dev_bufs {
    void *p[8] = {};
    ~dev_bufs() {
        for (void *q : p)
            if (q) cudaFree(q);
    }
};

} // namespace

extern "C" int haze__fuzzy_op_cuda(haze_ctx *ctx, haze_fuzzy_opcode op, const haze_fuzzy_array *a,
                                   const haze_fuzzy_array *b, haze_fuzzy_array *c,
                                   size_t *first_bad) {
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    size_t es = haze__fuzzy_elem_size(a), bytes = a->count * a->stride * es;
    int binary = op <= HAZE_FUZZY_DIV;
    size_t bbytes = binary ? b->count * b->stride * es : 0;
    *first_bad = SIZE_MAX;
    if (a->count == 0) return HAZE_OK;
    if (2 * bytes + bbytes + 64 > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: %zu bytes do not fit the device budget",
                           2 * bytes + bbytes);
    dev_bufs m;
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[0], bytes));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[1], bytes));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[3], sizeof(unsigned long long)));
    if (binary) HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[2], bbytes));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[0], a->data, bytes, cudaMemcpyHostToDevice, s));
    if (binary)
        HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[2], b->data, bbytes, cudaMemcpyHostToDevice, s));
    unsigned long long none = ~0ull, bad = 0;
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[3], &none, sizeof none, cudaMemcpyHostToDevice, s));
    size_t bstep = binary && b->count == a->count ? a->stride : 0;
    unsigned blocks = (unsigned)((a->count + 255) / 256);
    if (a->precision == HAZE_FUZZY_DOUBLE)
        op_kernel<double><<<blocks, 256, 0, s>>>(
            (int)a->encoding, (int)op, a->ncuts, a->stride, a->count, (double *)m.p[1],
            (const double *)m.p[0], (const double *)m.p[2], bstep, (unsigned long long *)m.p[3]);
    else
        op_kernel<float><<<blocks, 256, 0, s>>>(
            (int)a->encoding, (int)op, a->ncuts, a->stride, a->count, (float *)m.p[1],
            (const float *)m.p[0], (const float *)m.p[2], bstep, (unsigned long long *)m.p[3]);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(c->data, m.p[1], bytes, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(&bad, m.p[3], sizeof bad, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    if (bad != none) *first_bad = (size_t)bad;
    return HAZE_OK;
}

extern "C" int haze__fuzzy_axpy_cuda(haze_ctx *ctx, const haze_fuzzy_array *a,
                                     const haze_fuzzy_array *b, int iters, haze_fuzzy_array *y) {
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    size_t es = haze__fuzzy_elem_size(a), bytes = a->count * a->stride * es;
    if (a->count == 0) return HAZE_OK;
    if (2 * bytes + 1024 > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: %zu bytes do not fit the device budget",
                           2 * bytes);
    dev_bufs m;
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[0], bytes));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[1], bytes));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[2], a->stride * es));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[0], a->data, bytes, cudaMemcpyHostToDevice, s));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[2], b->data, a->stride * es, cudaMemcpyHostToDevice, s));
    cudaError_t err = cudaSuccess;
    int done = 0;
    int n = a->ncuts;
    if (a->precision == HAZE_FUZZY_DOUBLE) {
        const double *pa = (const double *)m.p[0], *pb = (const double *)m.p[2];
        double *py = (double *)m.p[1];
        if (a->encoding == HAZE_FUZZY_LU)
            done = launch_axpy<double, HAZE_FUZZY_LU>(n, a->count, iters, pa, pb, py, s, &err);
        else if (a->encoding == HAZE_FUZZY_MR)
            done = launch_axpy<double, HAZE_FUZZY_MR>(n, a->count, iters, pa, pb, py, s, &err);
        else
            done = launch_axpy<double, HAZE_FUZZY_MI>(n, a->count, iters, pa, pb, py, s, &err);
        if (!done)
            axpy_kernel_n<double><<<(unsigned)((a->count + 127) / 128), 128, 0, s>>>(
                (int)a->encoding, n, a->stride, a->count, iters, pa, pb, py);
    } else {
        const float *pa = (const float *)m.p[0], *pb = (const float *)m.p[2];
        float *py = (float *)m.p[1];
        if (a->encoding == HAZE_FUZZY_LU)
            done = launch_axpy<float, HAZE_FUZZY_LU>(n, a->count, iters, pa, pb, py, s, &err);
        else if (a->encoding == HAZE_FUZZY_MR)
            done = launch_axpy<float, HAZE_FUZZY_MR>(n, a->count, iters, pa, pb, py, s, &err);
        else
            done = launch_axpy<float, HAZE_FUZZY_MI>(n, a->count, iters, pa, pb, py, s, &err);
        if (!done)
            axpy_kernel_n<float><<<(unsigned)((a->count + 127) / 128), 128, 0, s>>>(
                (int)a->encoding, n, a->stride, a->count, iters, pa, pb, py);
    }
    HAZE_CUDA_TRY(ctx, err);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(y->data, m.p[1], bytes, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return HAZE_OK;
}

extern "C" int haze__fuzzy_sort_cuda(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a) {
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    size_t n = a->count, per = a->stride * haze__fuzzy_elem_size(a), bytes = n * per;
    if (n < 2) return HAZE_OK;
    if (n > UINT32_MAX)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fuzzy: sort of more than 2^32 numbers");
    size_t temp = 0;
    HAZE_CUDA_TRY(ctx, cub::DeviceRadixSort::SortPairs(
                           nullptr, temp, (const uint32_t *)nullptr, (uint32_t *)nullptr,
                           (const uint32_t *)nullptr, (uint32_t *)nullptr, (int)n, 0, 32, s));
    if (2 * bytes + 4 * n * sizeof(uint32_t) + temp > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM,
                           "fuzzy: sort of %zu numbers does not fit the device", n);
    dev_bufs m;
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[0], n * sizeof(uint32_t)));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[1], n * sizeof(uint32_t)));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[2], n * sizeof(uint32_t)));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[3], n * sizeof(uint32_t)));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[4], bytes));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[5], bytes));
    HAZE_CUDA_TRY(ctx, cudaMalloc(&m.p[6], temp ? temp : 1));
    HAZE_CUDA_TRY(ctx,
                  cudaMemcpyAsync(m.p[0], keys, n * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[4], a->data, bytes, cudaMemcpyHostToDevice, s));
    unsigned blocks = (unsigned)((n + 255) / 256);
    iota_kernel<<<blocks, 256, 0, s>>>(n, (uint32_t *)m.p[2]);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    HAZE_CUDA_TRY(ctx, cub::DeviceRadixSort::SortPairs(m.p[6], temp, (const uint32_t *)m.p[0],
                                                       (uint32_t *)m.p[1], (const uint32_t *)m.p[2],
                                                       (uint32_t *)m.p[3], (int)n, 0, 32, s));
    gather_kernel<<<blocks, 256, 0, s>>>(n, per, (const uint32_t *)m.p[3],
                                         (const unsigned char *)m.p[4], (unsigned char *)m.p[5]);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    HAZE_CUDA_TRY(ctx,
                  cudaMemcpyAsync(keys, m.p[1], n * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(a->data, m.p[5], bytes, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return HAZE_OK;
}
