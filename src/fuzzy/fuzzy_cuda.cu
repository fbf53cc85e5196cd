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
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "core/internal.h"
#include "fuzzy/fuzzy_internal.h"

/*
 * Everything but the entry points has internal linkage, so the library
 * defines no global names outside haze_ and haze__: functions and kernels
 * are static, types sit in anonymous namespaces. (Kernels stay outside
 * them: nvcc compiles an anonymous namespace into a global one with a
 * per-file name, and a kernel's launch stub there is a global symbol.)
 */
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
} // namespace

/* first[0]: smallest index with the domain bit, first[1]: with the overflow bit (of `keep`). */
template <class T>
static __global__ void op_kernel(int enc, int op, int n, size_t stride, size_t count, T *c,
                                 const T *a, const T *b, size_t bstep, int keep,
                                 unsigned long long *first) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    int f = keep &
            ops<T>::apply(enc, op, n, c + i * stride, a + i * stride, b ? b + i * bstep : nullptr);
    if (f & HAZE_FUZZY_DOMAIN_BIT) atomicMin(&first[0], (unsigned long long)i);
    if (f & HAZE_FUZZY_OVERFLOW_BIT) atomicMin(&first[1], (unsigned long long)i);
}

/*
 * AXPY with the numbers in registers: compile-time N and encoding. SOA picks
 * the memory layout of a and y: 0 = array of structures (number i's values
 * at i*S .. i*S+S-1, the paper's layout and the library's), 1 = structure of
 * arrays (value k of number i at k*count + i, so a warp's loads of one value
 * are contiguous). The arithmetic is the same, so the results are the same.
 */
template <class T, int ENC, int N, int SOA>
static __global__ void axpy_kernel(size_t count, int iters, const T *a, const T *b, T *y) {
    constexpr int S = ENC == HAZE_FUZZY_LU ? 2 * N : N + 1;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    T ra[S], rb[S], ry[S], rt[S];
#pragma unroll
    for (int k = 0; k < S; k++)
        ra[k] = SOA ? a[(size_t)k * count + i] : a[i * S + k], rb[k] = b[k], ry[k] = 0;
    for (int it = 0; it < iters; it++) {
        ops<T>::apply(ENC, HAZE_FUZZY_MUL, N, rt, ra, ry);
        ops<T>::apply(ENC, HAZE_FUZZY_ADD, N, ry, rt, rb);
    }
#pragma unroll
    for (int k = 0; k < S; k++) (SOA ? y[(size_t)k * count + i] : y[i * S + k]) = ry[k];
}

/* Any N: the values live in local memory; es/ks: element and value strides. */
template <class T>
static __global__ void axpy_kernel_n(int enc, int n, size_t stride, size_t es, size_t ks,
                                     size_t count, int iters, const T *a, const T *b, T *y) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    T ra[2 * HAZE_FUZZY_MAX_CUTS], rt[2 * HAZE_FUZZY_MAX_CUTS], ry[2 * HAZE_FUZZY_MAX_CUTS];
    for (size_t k = 0; k < stride; k++) ra[k] = a[i * es + k * ks], ry[k] = 0;
    for (int it = 0; it < iters; it++) {
        ops<T>::apply(enc, HAZE_FUZZY_MUL, n, rt, ra, ry);
        ops<T>::apply(enc, HAZE_FUZZY_ADD, n, ry, rt, b);
    }
    for (size_t k = 0; k < stride; k++) y[i * es + k * ks] = ry[k];
}

template <class T, int ENC, int N>
static cudaError_t launch_axpy_n(size_t count, int iters, const T *a, const T *b, T *y, int soa,
                                 cudaStream_t s) {
    unsigned blocks = (unsigned)((count + 127) / 128);
    if (soa)
        axpy_kernel<T, ENC, N, 1><<<blocks, 128, 0, s>>>(count, iters, a, b, y);
    else
        axpy_kernel<T, ENC, N, 0><<<blocks, 128, 0, s>>>(count, iters, a, b, y);
    return cudaGetLastError();
}

template <class T, int ENC>
static int launch_axpy(int n, size_t count, int iters, const T *a, const T *b, T *y, int soa,
                       cudaStream_t s, cudaError_t *err) {
    switch (n) {
#define HAZE__CASE(N)                                                                              \
    case N:                                                                                        \
        *err = launch_axpy_n<T, ENC, N>(count, iters, a, b, y, soa, s);                            \
        return 1;
        // clang-format off
        HAZE__CASE(1) HAZE__CASE(2) HAZE__CASE(3) HAZE__CASE(4) HAZE__CASE(5) HAZE__CASE(6)
        HAZE__CASE(7) HAZE__CASE(8) HAZE__CASE(9) HAZE__CASE(10) HAZE__CASE(11) HAZE__CASE(12)
        HAZE__CASE(13) HAZE__CASE(14) HAZE__CASE(15) HAZE__CASE(16) HAZE__CASE(20)
        HAZE__CASE(24) HAZE__CASE(32)
    default: return 0;
        // clang-format on
#undef HAZE__CASE
    }
}

/* One launch of the AXPY on device arrays, any encoding and precision. */
template <class T>
static cudaError_t launch_axpy_any(int enc, int n, size_t stride, size_t count, int iters,
                                   const T *a, const T *b, T *y, int soa, cudaStream_t s) {
    cudaError_t err = cudaSuccess;
    int done;
    if (enc == HAZE_FUZZY_LU)
        done = launch_axpy<T, HAZE_FUZZY_LU>(n, count, iters, a, b, y, soa, s, &err);
    else if (enc == HAZE_FUZZY_MR)
        done = launch_axpy<T, HAZE_FUZZY_MR>(n, count, iters, a, b, y, soa, s, &err);
    else
        done = launch_axpy<T, HAZE_FUZZY_MI>(n, count, iters, a, b, y, soa, s, &err);
    if (!done) {
        axpy_kernel_n<T><<<(unsigned)((count + 127) / 128), 128, 0, s>>>(
            enc, n, stride, soa ? 1 : stride, soa ? count : 1, count, iters, a, b, y);
        err = cudaGetLastError();
    }
    return err;
}

/*
 * Sort-by-key kernels. keybits_kernel: the OR and the AND of all keys (bits
 * where they differ are the only ones the radix sort has to look at) and,
 * where idx is given, idx[i] = i for the (key, index) sort, in one read of
 * the keys. or_and[0] must start at 0 and or_and[1] at ~0.
 */
static __global__ void keybits_kernel(size_t count, const uint32_t *__restrict__ keys,
                                      uint32_t *idx, uint32_t *or_and) {
    uint32_t o = 0, x = ~0u;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t k = keys[i];
        o |= k, x &= k;
        if (idx) idx[i] = (uint32_t)i;
    }
#if __CUDA_ARCH__ >= 800
    o = __reduce_or_sync(~0u, o);
    x = __reduce_and_sync(~0u, x);
#else /* redux.sync starts with Ampere */
    for (int off = 16; off > 0; off >>= 1) {
        o |= __shfl_xor_sync(~0u, o, off);
        x &= __shfl_xor_sync(~0u, x, off);
    }
#endif
    if ((threadIdx.x & 31) == 0) atomicOr(or_and, o), atomicAnd(or_and + 1, x);
}

namespace {
/* Division of 32-bit numbers by a fixed d >= 1 with a multiply and a shift. */
struct fastdiv {
    uint32_t m, s;
    explicit fastdiv(uint32_t d) {
        s = 0;
        while (((uint64_t)1 << s) < d) s++;
        m = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << s) - d)) / d + 1);
    }
    __device__ __forceinline__ uint32_t div(uint32_t n) const {
        return (uint32_t)(((uint64_t)__umulhi(n, m) + n) >> s);
    }
};
} // namespace

/*
 * Gather of whole numbers after the (key, index) sort: the records are moved
 * in chunks V (16, 8 or 4 bytes, the widest that divides the record), cpr
 * chunks per record, IT chunks per thread, all loads issued before the
 * stores: the reads are random, so what limits them is the number of bytes
 * in flight. total = count * cpr < 2^32.
 */
template <class V, int IT>
static __global__ void gather_kernel(uint32_t total, uint32_t cpr, fastdiv fd,
                                     const uint32_t *__restrict__ idx, const V *__restrict__ src,
                                     V *__restrict__ dst) {
    uint32_t base = blockIdx.x * blockDim.x * IT + threadIdx.x;
    uint32_t j[IT];
    V v[IT];
#pragma unroll
    for (int k = 0; k < IT; k++) {
        uint32_t t = base + k * blockDim.x;
        if (t < total) j[k] = __ldg(idx + fd.div(t));
    }
#pragma unroll
    for (int k = 0; k < IT; k++) {
        uint32_t t = base + k * blockDim.x;
        if (t < total) {
            uint32_t i = fd.div(t);
            v[k] = __ldg(src + (size_t)j[k] * cpr + (t - i * cpr));
        }
    }
#pragma unroll
    for (int k = 0; k < IT; k++) {
        uint32_t t = base + k * blockDim.x;
        if (t < total) dst[t] = v[k];
    }
}

/* The same for arrays of 2^32 chunks or more: one thread per 32-bit word. */
static __global__ void gather_words_kernel(size_t count, size_t words_per, const uint32_t *idx,
                                           const uint32_t *src, uint32_t *dst) {
    size_t total = count * words_per;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (size_t)gridDim.x * blockDim.x) {
        size_t i = t / words_per, w = t - i * words_per;
        dst[t] = src[(size_t)idx[i] * words_per + w];
    }
}

template <class V>
static cudaError_t launch_gather_v(size_t count, size_t per, const uint32_t *idx, const void *src,
                                   void *dst, cudaStream_t s) {
    constexpr int IT = 4;
    uint32_t cpr = (uint32_t)(per / sizeof(V)), total = (uint32_t)(count * cpr);
    unsigned blocks = (unsigned)(((size_t)total + 256 * IT - 1) / (256 * IT));
    gather_kernel<V, IT>
        <<<blocks, 256, 0, s>>>(total, cpr, fastdiv(cpr), idx, (const V *)src, (V *)dst);
    return cudaGetLastError();
}

/* dst[i] = src[idx[i]] for records of per bytes (a multiple of 4). */
static cudaError_t launch_gather(size_t count, size_t per, const uint32_t *idx, const void *src,
                                 void *dst, cudaStream_t s) {
    if (count * (per / 4) >= ((size_t)1 << 32)) {
        size_t words = count * (per / 4);
        unsigned blocks = (unsigned)std::min<size_t>((words + 255) / 256, (size_t)1 << 30);
        gather_words_kernel<<<blocks, 256, 0, s>>>(count, per / 4, idx, (const uint32_t *)src,
                                                   (uint32_t *)dst);
        return cudaGetLastError();
    }
    if (per % 16 == 0) return launch_gather_v<uint4>(count, per, idx, src, dst, s);
    if (per % 8 == 0) return launch_gather_v<uint2>(count, per, idx, src, dst, s);
    return launch_gather_v<uint32_t>(count, per, idx, src, dst, s);
}

/*
 * The 64-byte DRAM segments one number of `per` bytes touches in the
 * gather, on average over the numbers of the array (number i starts at
 * byte i per). The gather reads them at random, and DRAM delivers whole
 * 64-byte segments to such reads: Nsight Compute on an H100 measured 57
 * to 86 bytes read per number of 8 to 32 bytes, 1-11% below this count
 * because of L2 hits (docs/fuzzy.md, scripts/profile-sort.sh).
 */
static double gather_segments(size_t per) {
    size_t g = per, b = 64;
    while (b) { /* g = gcd(per, 64) */
        size_t t = g % b;
        g = b, b = t;
    }
    const size_t period = 64 / g;
    double touched = 0;
    for (size_t i = 0; i < period; i++)
        touched += (double)((i * per + per - 1) / 64 - (i * per) / 64 + 1);
    return touched / (double)period;
}

namespace {
/* A number of S bytes as a CUB value, for the records method. */
template <int S> struct record { uint32_t w[S / 4]; };
} // namespace

/*
 * CUB radix sort of (key, value) in double buffers; *temp_bytes is set when
 * temp is NULL. On return *sel is the buffer (0 or 1) that holds the result.
 */
template <class V>
static cudaError_t radix_pairs(void *temp, size_t *temp_bytes, uint32_t *k[2], void *v[2],
                               uint32_t n, int begin_bit, int end_bit, cudaStream_t s, int *sel) {
    cub::DoubleBuffer<uint32_t> dk(k[0], k[1]);
    cub::DoubleBuffer<V> dv((V *)v[0], (V *)v[1]);
    cudaError_t err =
        cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, dk, dv, n, begin_bit, end_bit, s);
    *sel = dk.selector;
    return err;
}

static cudaError_t radix_records(size_t per, void *temp, size_t *temp_bytes, uint32_t *k[2],
                                 void *v[2], uint32_t n, int begin_bit, int end_bit, cudaStream_t s,
                                 int *sel) {
    if (per == 8)
        return radix_pairs<record<8>>(temp, temp_bytes, k, v, n, begin_bit, end_bit, s, sel);
    if (per == 12)
        return radix_pairs<record<12>>(temp, temp_bytes, k, v, n, begin_bit, end_bit, s, sel);
    return radix_pairs<record<16>>(temp, temp_bytes, k, v, n, begin_bit, end_bit, s, sel);
}

namespace {
/* Device buffers, counted in the context's account, freed on every path. */
struct dev_bufs {
    haze_ctx *ctx;
    void *p[9] = {};
    size_t n[9] = {};
    explicit dev_bufs(haze_ctx *c) : ctx(c) {}
    dev_bufs(const dev_bufs &) = delete;
    dev_bufs &operator=(const dev_bufs &) = delete;
    int alloc(int i, size_t bytes, const char *what) {
        n[i] = bytes;
        return haze__dev_alloc(ctx, &p[i], bytes, what);
    }
    ~dev_bufs() {
        for (int i = 0; i < 9; i++) haze__dev_free(ctx, p[i], n[i]);
    }
};

/* Event pair destroyed on every path. */
struct dev_events {
    cudaEvent_t e[2] = {};
    ~dev_events() {
        for (cudaEvent_t q : e)
            if (q) cudaEventDestroy(q);
    }
};

} // namespace

/* Transposes rows x cols values of size es (array of structures <-> SoA). */
static void transpose(const unsigned char *src, unsigned char *dst, size_t rows, size_t cols,
                      size_t es) {
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            memcpy(dst + (c * rows + r) * es, src + (r * cols + c) * es, es);
}

/* The allocation and its status in one step: `return` on failure. */
#define ALLOC(m, i, bytes, what)                                                                   \
    do {                                                                                           \
        int haze__st = (m).alloc((i), (bytes), (what));                                            \
        if (haze__st) return haze__st;                                                             \
    } while (0)

extern "C" int haze__fuzzy_op_cuda(haze_ctx *ctx, haze_fuzzy_opcode op, const haze_fuzzy_array *a,
                                   const haze_fuzzy_array *b, haze_fuzzy_array *c, int keep,
                                   size_t first[2]) {
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    size_t es = haze__fuzzy_elem_size(a), bytes = a->count * a->stride * es;
    int binary = op <= HAZE_FUZZY_DIV;
    size_t bbytes = binary ? b->count * b->stride * es : 0;
    first[0] = first[1] = SIZE_MAX;
    if (a->count == 0) return HAZE_OK;
    if (!a->on_device && 2 * bytes + bbytes + 64 > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: %zu bytes do not fit the device budget",
                           2 * bytes + bbytes);
    /* device arrays: the kernel works on them in place of the copies (each
     * thread reads its element before writing it, so c may be a or b) */
    const int dev = a->on_device;
    dev_bufs m(ctx);
    if (!dev) {
        ALLOC(m, 0, bytes, "fuzzy operand");
        ALLOC(m, 1, bytes, "fuzzy result");
        if (binary) ALLOC(m, 2, bbytes, "fuzzy operand");
        HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[0], a->data, bytes, cudaMemcpyHostToDevice, s));
        if (binary)
            HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[2], b->data, bbytes, cudaMemcpyHostToDevice, s));
    }
    const void *da = dev ? a->data : m.p[0], *db = dev ? (binary ? b->data : NULL) : m.p[2];
    void *dc = dev ? c->data : m.p[1];
    ALLOC(m, 3, 2 * sizeof(unsigned long long), "fuzzy status");
    unsigned long long none[2] = {~0ull, ~0ull}, bad[2] = {0, 0};
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[3], none, sizeof none, cudaMemcpyHostToDevice, s));
    size_t bstep = binary && b->count == a->count ? a->stride : 0;
    unsigned blocks = (unsigned)((a->count + 255) / 256);
    if (a->precision == HAZE_PRECISION_F64)
        op_kernel<double><<<blocks, 256, 0, s>>>(
            (int)a->encoding, (int)op, a->ncuts, a->stride, a->count, (double *)dc,
            (const double *)da, (const double *)db, bstep, keep, (unsigned long long *)m.p[3]);
    else
        op_kernel<float><<<blocks, 256, 0, s>>>(
            (int)a->encoding, (int)op, a->ncuts, a->stride, a->count, (float *)dc,
            (const float *)da, (const float *)db, bstep, keep, (unsigned long long *)m.p[3]);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    if (!dev) HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(c->data, dc, bytes, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(bad, m.p[3], sizeof bad, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    for (int k = 0; k < 2; k++)
        if (bad[k] != none[k]) first[k] = (size_t)bad[k];
    return HAZE_OK;
}

/*
 * AXPY. The context's fuzzy state may force the structure-of-arrays kernel
 * (soa), several launches (reps) and their timing (dev/fuzzy_dev.h); by
 * default one array-of-structures launch, untimed.
 */
extern "C" int haze__fuzzy_axpy_cuda(haze_ctx *ctx, const haze_fuzzy_array *a,
                                     const haze_fuzzy_array *b, int iters, haze_fuzzy_array *y) {
    haze__fuzzy_state *fs = haze__fuzzy_state_of(ctx);
    int soa = fs ? fs->axpy_soa : 0, reps = fs ? fs->axpy_reps : 1;
    double *kernel_s = fs && fs->timing ? &fs->axpy_kernel_s : NULL;
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    size_t es = haze__fuzzy_elem_size(a), bytes = a->count * a->stride * es;
    if (kernel_s) *kernel_s = 0;
    if (a->count == 0) return HAZE_OK;
    if (reps < 1) reps = 1;
    const int dev = a->on_device && !soa;
    if (!dev && 2 * bytes + 1024 > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: %zu bytes do not fit the device budget",
                           2 * bytes);
    if (a->on_device && soa)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fuzzy: the SoA AXPY takes host arrays");
    /* SoA: transposed on the host, so the device sees only its own layout */
    unsigned char *tmp = NULL;
    if (soa && !(tmp = (unsigned char *)malloc(bytes)))
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: out of host memory");
    struct host_buf {
        unsigned char *p;
        ~host_buf() { free(p); }
    } hold{tmp};
    if (soa) transpose((const unsigned char *)a->data, tmp, a->count, a->stride, es);
    dev_bufs m(ctx);
    dev_events ev;
    HAZE_CUDA_TRY(ctx, cudaEventCreate(&ev.e[0]));
    HAZE_CUDA_TRY(ctx, cudaEventCreate(&ev.e[1]));
    if (!dev) {
        ALLOC(m, 0, bytes, "fuzzy AXPY operand");
        ALLOC(m, 1, bytes, "fuzzy AXPY result");
        ALLOC(m, 2, a->stride * es, "fuzzy AXPY constant");
        HAZE_CUDA_TRY(
            ctx, cudaMemcpyAsync(m.p[0], soa ? tmp : a->data, bytes, cudaMemcpyHostToDevice, s));
        HAZE_CUDA_TRY(ctx,
                      cudaMemcpyAsync(m.p[2], b->data, a->stride * es, cudaMemcpyHostToDevice, s));
    }
    /* device arrays in place (y must not alias a, as on the CPU) */
    const void *pa = dev ? a->data : m.p[0], *pb = dev ? b->data : m.p[2];
    void *py = dev ? y->data : m.p[1];
    HAZE_CUDA_TRY(ctx, cudaEventRecord(ev.e[0], s));
    for (int r = 0; r < reps; r++) {
        if (a->precision == HAZE_PRECISION_F64)
            HAZE_CUDA_TRY(ctx, launch_axpy_any<double>((int)a->encoding, a->ncuts, a->stride,
                                                       a->count, iters, (const double *)pa,
                                                       (const double *)pb, (double *)py, soa, s));
        else
            HAZE_CUDA_TRY(ctx, launch_axpy_any<float>((int)a->encoding, a->ncuts, a->stride,
                                                      a->count, iters, (const float *)pa,
                                                      (const float *)pb, (float *)py, soa, s));
    }
    HAZE_CUDA_TRY(ctx, cudaEventRecord(ev.e[1], s));
    if (!dev)
        HAZE_CUDA_TRY(
            ctx, cudaMemcpyAsync(soa ? tmp : y->data, m.p[1], bytes, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    if (soa) transpose(tmp, (unsigned char *)y->data, a->stride, a->count, es);
    if (kernel_s) {
        float ms = 0;
        HAZE_CUDA_TRY(ctx, cudaEventElapsedTime(&ms, ev.e[0], ev.e[1]));
        *kernel_s = 1e-3 * ms / reps;
    }
    return HAZE_OK;
}

/*
 * Sort-by-key (docs/fuzzy.md, "Sort-by-key"). The timed part: the key-bits
 * pre-pass (with its read-back, which picks the bits to sort), CUB's radix
 * sort, and for GATHER the gather. The context's fuzzy state may force the
 * method and asks for the statistics (dev/fuzzy_dev.h).
 */
extern "C" int haze__fuzzy_sort_cuda(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a) {
    haze__fuzzy_state *fs = haze__fuzzy_state_of(ctx);
    haze__sort_method method = fs ? fs->sort_method : HAZE__SORT_AUTO;
    haze__sort_stats local;
    haze__sort_stats *out = fs && fs->timing ? &fs->sort_stats : &local;
    memset(out, 0, sizeof *out);
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    size_t n = a->count, per = a->stride * haze__fuzzy_elem_size(a), bytes = n * per;
    int records_ok = per == 8 || per == 12 || per == 16;
    if (method == HAZE__SORT_AUTO) method = per == 8 ? HAZE__SORT_RECORDS : HAZE__SORT_GATHER;
    if (method == HAZE__SORT_RECORDS && !records_ok)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "fuzzy: the records sort takes numbers of 8, 12 or 16 bytes, not %zu",
                           per);
    int gather = method == HAZE__SORT_GATHER;
    out->method = method;
    if (n < 2) return HAZE_OK;
    if (n > UINT32_MAX)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fuzzy: sort of more than 2^32 numbers");
    /* buffers: keys 0/1, values 2/3 (indices or records), records 4/5, temp 6, or_and 7 */
    uint32_t *k[2];
    void *v[2];
    size_t temp = 0;
    int sel = 0;
    k[0] = k[1] = nullptr;
    v[0] = v[1] = nullptr;
    /* the temp size for all 32 bits bounds the one for fewer */
    if (gather)
        HAZE_CUDA_TRY(ctx,
                      radix_pairs<uint32_t>(nullptr, &temp, k, v, (uint32_t)n, 0, 32, s, &sel));
    else
        HAZE_CUDA_TRY(ctx, radix_records(per, nullptr, &temp, k, v, (uint32_t)n, 0, 32, s, &sel));
    size_t need = 2 * n * sizeof(uint32_t) + 2 * bytes + temp + 64;
    if (gather) need += 2 * n * sizeof(uint32_t);
    if (need > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM,
                           "fuzzy: sort of %zu numbers does not fit the device", n);
    dev_bufs m(ctx);
    dev_events ev;
    HAZE_CUDA_TRY(ctx, cudaEventCreate(&ev.e[0]));
    HAZE_CUDA_TRY(ctx, cudaEventCreate(&ev.e[1]));
    for (int i = 0; i < 2; i++) ALLOC(m, i, n * sizeof(uint32_t), "fuzzy sort keys");
    if (gather)
        for (int i = 2; i < 4; i++) ALLOC(m, i, n * sizeof(uint32_t), "fuzzy sort indices");
    for (int i = 4; i < 6; i++) ALLOC(m, i, bytes, "fuzzy sort numbers");
    ALLOC(m, 6, temp ? temp : 1, "fuzzy sort temporary storage");
    ALLOC(m, 7, 2 * sizeof(uint32_t), "fuzzy sort key bits");
    k[0] = (uint32_t *)m.p[0], k[1] = (uint32_t *)m.p[1];
    v[0] = gather ? m.p[2] : m.p[4], v[1] = gather ? m.p[3] : m.p[5];
    uint32_t *or_and = (uint32_t *)m.p[7], bits[2] = {0, 0};
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(k[0], keys, n * sizeof(uint32_t), cudaMemcpyDefault, s));
    /* host or device arrays alike (device ones are copied on the device) */
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(m.p[4], a->data, bytes, cudaMemcpyDefault, s));
    HAZE_CUDA_TRY(ctx, cudaEventRecord(ev.e[0], s));
    HAZE_CUDA_TRY(ctx, cudaMemsetAsync(or_and, 0, sizeof(uint32_t), s));
    HAZE_CUDA_TRY(ctx, cudaMemsetAsync(or_and + 1, 0xff, sizeof(uint32_t), s));
    const cudaDeviceProp *props = haze__cuda_props(ctx->device);
    if (!props)
        return haze__error(ctx, HAZE_ERR_CUDA, "CUDA: the properties of device %d cannot be read",
                           ctx->device);
    int sms = props->multiProcessorCount;
    unsigned kblocks = (unsigned)std::min<size_t>((n + 255) / 256, (size_t)sms * 8);
    keybits_kernel<<<kblocks, 256, 0, s>>>(n, k[0], gather ? (uint32_t *)v[0] : nullptr, or_and);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(bits, or_and, sizeof bits, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    uint32_t vary = bits[0] ^ bits[1];
    double dn = (double)n;
    out->bytes = out->dram_bytes = gather ? 8 * dn : 4 * dn;
    if (vary == 0) {
        /* all keys equal: the stable order is the order given */
        HAZE_CUDA_TRY(ctx, cudaEventRecord(ev.e[1], s));
        HAZE_CUDA_TRY(ctx, cudaEventSynchronize(ev.e[1]));
    } else {
        int b0 = __builtin_ctz(vary), b1 = 32 - __builtin_clz(vary);
        out->begin_bit = b0, out->end_bit = b1, out->passes = (b1 - b0 + 7) / 8;
        if (gather) {
            HAZE_CUDA_TRY(ctx,
                          radix_pairs<uint32_t>(m.p[6], &temp, k, v, (uint32_t)n, b0, b1, s, &sel));
            HAZE_CUDA_TRY(ctx, launch_gather(n, per, (const uint32_t *)v[sel], m.p[4], m.p[5], s));
            /* histogram read of the keys, passes over (key, index), the gather */
            out->bytes += 4 * dn + 16.0 * out->passes * dn + (4 + 2.0 * per) * dn;
            out->dram_bytes = out->bytes + (gather_segments(per) * 64.0 - (double)per) * dn;
        } else {
            HAZE_CUDA_TRY(ctx,
                          radix_records(per, m.p[6], &temp, k, v, (uint32_t)n, b0, b1, s, &sel));
            out->bytes += 4 * dn + 2.0 * (4 + per) * out->passes * dn;
            out->dram_bytes = out->bytes;
        }
        HAZE_CUDA_TRY(ctx, cudaEventRecord(ev.e[1], s));
        HAZE_CUDA_TRY(ctx,
                      cudaMemcpyAsync(keys, k[sel], n * sizeof(uint32_t), cudaMemcpyDefault, s));
        HAZE_CUDA_TRY(
            ctx, cudaMemcpyAsync(a->data, gather ? m.p[5] : v[sel], bytes, cudaMemcpyDefault, s));
        HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    }
    float ms = 0;
    HAZE_CUDA_TRY(ctx, cudaEventElapsedTime(&ms, ev.e[0], ev.e[1]));
    out->kernel_s = 1e-3 * ms;
    return HAZE_OK;
}

extern "C" int haze__fuzzy_cuda_alloc(haze_ctx *ctx, size_t bytes, void **p) {
    *p = NULL;
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    if (bytes > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: %zu bytes do not fit the device budget",
                           bytes);
    if ((st = haze__dev_alloc(ctx, p, bytes, "fuzzy device array"))) return st;
    /* zeroed on the library's stream, in order with its kernels */
    cudaStream_t s = haze__stream(ctx);
    HAZE_CUDA_GOTO(ctx, st, fail, cudaMemsetAsync(*p, 0, bytes, s));
    HAZE_CUDA_GOTO(ctx, st, fail, cudaStreamSynchronize(s));
    return HAZE_OK;
fail:
    haze__dev_free(ctx, *p, bytes);
    *p = NULL;
    return st;
}

extern "C" void haze__fuzzy_cuda_free(haze__dev_acct *acct, int device, void *p, size_t bytes) {
    haze__dev_free_held(acct, device, p, bytes);
}

extern "C" int haze__fuzzy_cuda_copy(haze_ctx *ctx, void *dst, const void *src, size_t bytes) {
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    cudaStream_t s = haze__stream(ctx);
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return HAZE_OK;
}
