/*
 * haze/fuzzy.h - certified fuzzy arithmetic with N alpha-cuts, after Marin,
 * Defour and Milano, "An efficient midpoint-radius representation format to
 * deal with symmetric fuzzy numbers" (docs/fuzzy.md): Definitions 8-11,
 * Algorithms 1-4.
 *
 * Three encodings of a fuzzy number with n cuts at levels a_1 > ... > a_n:
 *   HAZE_FUZZY_LU  lower-upper: [lo_i, hi_i] per cut, any shape;
 *   HAZE_FUZZY_MR  midpoint-radius: one kernel m and radii rho_i (symmetric
 *                  numbers, Theorem 1), Algorithm 1;
 *   HAZE_FUZZY_MI  midpoint-increment: kernel and increments
 *                  d_i = rho_i - rho_i-1 (Definition 11), Algorithms 2-4.
 * Every cut of a result contains the exact result of the interval operation
 * on the operands' cuts (Definition 9), in float or double.
 *
 * Two layers:
 *
 * 1. Scalar functions on one fuzzy number held in a small array (layouts in
 *    haze/fuzzy_impl.h), header inline and __host__ __device__ under nvcc, so
 *    a user's CUDA kernel can call them (the paper's Fig. 2):
 *        haze_fz{lu,mr,mi}{d,f}_{add,sub,mul,div,neg,recip,sqr,sqrt}(n, c, a, b)
 *    Called with a compile-time constant n, the loops over cuts unroll and the
 *    number stays in registers (the paper's Table V point). C++ code gets
 *    haze::fuzzy_mr<T, N> etc. with operators, below.
 *
 * 2. A library API over arrays of fuzzy numbers (haze_fuzzy_array), on the
 *    CPU or the GPU of a context: construction from membership functions or
 *    cut lists, element-wise operations, the AXPY series of Fig. 2,
 *    sort-by-key (Fig. 4), conversions, read-out and defuzzification.
 *    Memory layout: array of structures, each number's packed values
 *    contiguous (the paper's layout; see docs/fuzzy.md).
 *
 * Threads: as haze/core.h says ("Threads"): an array is read-only as an
 * operand; the output array of a call (c, y, dst, the array set_* or
 * sort_by_key changes) must not be used by another call at the same time.
 */
#ifndef HAZE_FUZZY_H
#define HAZE_FUZZY_H

#include <stddef.h>
#include <stdint.h>

#include "haze/core.h"
#include "haze/interval.h"

/* Largest number of alpha-cuts. */
#define HAZE_FUZZY_MAX_CUTS 64

#if defined(__CUDA_ARCH__)
#define HAZE__PRAGMA_UNROLL _Pragma("unroll")
#else
#define HAZE__PRAGMA_UNROLL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------- scalar functions */

/* What the scalar functions return (haze/fuzzy_impl.h): 0 or these bits. */
#define HAZE_FUZZY_DOMAIN_BIT   1 /* a divisor's cut contains 0 / a root's cut is below 0 */
#define HAZE_FUZZY_OVERFLOW_BIT 2 /* bounded operands, unbounded result */

#define HAZE__P d
#define HAZE__S
#define HAZE__T   double
#define HAZE__INF ((double)INFINITY)
#include "haze/fuzzy_impl.h"
#undef HAZE__P
#undef HAZE__S
#undef HAZE__T
#undef HAZE__INF

#define HAZE__P   f
#define HAZE__S   f
#define HAZE__T   float
#define HAZE__INF ((float)INFINITY)
#include "haze/fuzzy_impl.h"
#undef HAZE__P
#undef HAZE__S
#undef HAZE__T
#undef HAZE__INF

/* ------------------------------------------------------------- array API */

typedef enum haze_fuzzy_encoding {
    HAZE_FUZZY_LU = 0, /* lower-upper */
    HAZE_FUZZY_MR = 1, /* midpoint-radius */
    HAZE_FUZZY_MI = 2  /* midpoint-increment */
} haze_fuzzy_encoding;

typedef enum haze_fuzzy_opcode {
    HAZE_FUZZY_ADD,
    HAZE_FUZZY_SUB,
    HAZE_FUZZY_MUL,
    HAZE_FUZZY_DIV,
    HAZE_FUZZY_NEG,
    HAZE_FUZZY_RECIP,
    HAZE_FUZZY_SQR,
    HAZE_FUZZY_SQRT
} haze_fuzzy_opcode;

/* "lu", "mr", "mi" and back; parse returns HAZE_ERR_INVALID for others
 * (ctx may be NULL). */
HAZE_API const char *haze_fuzzy_encoding_name(haze_fuzzy_encoding e);
HAZE_API int haze_fuzzy_encoding_parse(haze_ctx *ctx, const char *s, haze_fuzzy_encoding *out);

/*
 * An array of `count` fuzzy numbers sharing encoding, precision and levels,
 * in host or device memory: an opaque handle, read through the accessors
 * below and changed through the functions after them.
 */
typedef struct haze_fuzzy_array haze_fuzzy_array;

HAZE_API haze_fuzzy_encoding haze_fuzzy_array_encoding(const haze_fuzzy_array *a);
HAZE_API haze_precision haze_fuzzy_array_precision(const haze_fuzzy_array *a);
HAZE_API int haze_fuzzy_array_cut_count(const haze_fuzzy_array *a);
HAZE_API size_t haze_fuzzy_array_count(const haze_fuzzy_array *a);
/* Values per number: 2 * cuts for LU, cuts + 1 otherwise. */
HAZE_API size_t haze_fuzzy_array_stride(const haze_fuzzy_array *a);
/* The cut_count levels, strictly decreasing, in (0, 1]; valid while a lives. */
HAZE_API const double *haze_fuzzy_array_alphas(const haze_fuzzy_array *a);
/* count * stride values of the precision's type (double or float), array of
 * structures; device memory when on_device. Valid while a lives; the owner
 * may write them (the encoding's invariants are then the writer's duty). */
HAZE_API void *haze_fuzzy_array_data(const haze_fuzzy_array *a);
/* 1 for an array made by haze_fuzzy_array_new_device. */
HAZE_API int haze_fuzzy_array_on_device(const haze_fuzzy_array *a);

/*
 * Creates an array of `count` numbers, all crisp 0. `alphas` (ncuts values,
 * strictly decreasing in (0, 1]) may be NULL for the levels 1, (n-1)/n, ...,
 * 1/n, each the largest double not above it (a cut at a lower level holds
 * the cut at a higher one, so the cut stored at 0.7999... holds the exact
 * 4/5-cut). Ownership: *out is new; free it with haze_fuzzy_array_free().
 * Errors: HAZE_ERR_INVALID (ncuts outside 1..HAZE_FUZZY_MAX_CUTS, bad levels),
 * HAZE_ERR_NOMEM.
 */
HAZE_API int haze_fuzzy_array_new(haze_ctx *ctx, haze_fuzzy_encoding enc, haze_precision prec,
                                  int ncuts, size_t count, const double *alphas,
                                  haze_fuzzy_array **out);
/* NULL is a no-op. */
HAZE_API void haze_fuzzy_array_free(haze_fuzzy_array *a);

/*
 * Device-resident arrays: the same as haze_fuzzy_array_new, but `data` is
 * device memory of the context's CUDA device (all numbers crisp 0), so that
 * chains of haze_fuzzy_op, haze_fuzzy_axpy and haze_fuzzy_sort_by_key run
 * without host transfers (their keys must then be device memory too), and
 * haze_fuzzy_array_data() may be handed to a user's own kernels (the layout
 * is the host's: array of structures, stride values per number). Operands of one call
 * must all be on the host or all on the device, and device arrays need a
 * context with the CUDA backend. The construction and read-out functions
 * (set_*, get_cut, hull, centroid, convert) take host arrays: move numbers
 * with haze_fuzzy_array_copy. Errors: HAZE_ERR_NODEVICE (no CUDA backend),
 * HAZE_ERR_NOMEM (device memory or the context's limit), and those of
 * haze_fuzzy_array_new.
 */
HAZE_API int haze_fuzzy_array_new_device(haze_ctx *ctx, haze_fuzzy_encoding enc,
                                         haze_precision prec, int ncuts, size_t count,
                                         const double *alphas, haze_fuzzy_array **out);
/*
 * Copies src into dst, host or device in any combination; both must have
 * the same encoding, precision, levels and count (HAZE_ERR_MISMATCH).
 */
HAZE_API int haze_fuzzy_array_copy(haze_ctx *ctx, haze_fuzzy_array *dst,
                                   const haze_fuzzy_array *src);

/*
 * Sets number i from its cuts: lo[k], hi[k] for level k (k = 0 is the
 * highest level), which must be finite, lo <= hi and nested. Values are
 * rounded outward to the precision. The symmetric encodings take the outward
 * symmetric envelope around the midpoint of the highest cut (exact for
 * symmetric input). Errors: HAZE_ERR_INVALID (non-finite, inverted or not
 * nested cuts, i out of range).
 */
HAZE_API int haze_fuzzy_set_cuts(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, const double *lo,
                                 const double *hi);
/* Crisp value [lo, hi] at every level (lo == hi for a number). */
HAZE_API int haze_fuzzy_set_crisp(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, double lo,
                                  double hi);
/*
 * Membership functions (paper's Fig. 1), cut at the array's levels:
 * triangular (l <= m <= u), trapezoidal (a <= b <= c <= d), and the Gaussian
 * of mean mu and deviation sigma > 0 truncated at mu -+ k sigma (k > 0): its
 * cut at level alpha is mu -+ sigma * min(sqrt(-2 ln alpha), k). Cut bounds
 * are computed in double with outward rounding (the Gaussian's logarithm and
 * square root are widened by 4 ulps, glibc's documented bound being 1-2).
 */
HAZE_API int haze_fuzzy_set_tri(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, double l, double m,
                                double u);
HAZE_API int haze_fuzzy_set_trap(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, double p, double q,
                                 double r, double s);
HAZE_API int haze_fuzzy_set_gauss(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, double mu,
                                  double sigma, double k);

/*
 * The same membership functions with parameters known only as enclosures:
 * each haze_ivd holds a true parameter (a decimal such as 0.3 is
 * [RD(0.3), RU(0.3)], see haze_fuzzy_parse_number). Every cut bound is
 * monotone in the parameters, so each cut's lower end is computed from the
 * parameters' ends that make it smallest and its upper end from those that
 * make it largest: the cuts contain those of the membership function of
 * every parameter set inside the enclosures (that satisfies the ordering).
 * Errors: HAZE_ERR_INVALID (a non-finite or inverted enclosure; lower ends
 * or upper ends out of order; sigma or k with an upper end <= 0 or a lower
 * end < 0), HAZE_ERR_RANGE (single precision overflow).
 */
HAZE_API int haze_fuzzy_set_tri_iv(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, haze_ivd l,
                                   haze_ivd m, haze_ivd u);
HAZE_API int haze_fuzzy_set_trap_iv(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, haze_ivd p,
                                    haze_ivd q, haze_ivd r, haze_ivd s);
HAZE_API int haze_fuzzy_set_gauss_iv(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, haze_ivd mu,
                                     haze_ivd sigma, haze_ivd k);
/*
 * A membership function given as text with decimal (or C99 hex-float)
 * parameters, "tri(l, m, u)", "trap(a, b, c, d)" or "gauss(mu, sigma, k)",
 * enclosed: the parameters are read exactly (their ordering and signs are
 * checked on the exact values) and each is enclosed by its outward double
 * rounding for haze_fuzzy_set_*_iv. `end` (may be NULL) receives where
 * parsing stopped: just past ')' on success, at the offending character on
 * a parse error; with end NULL, text after ')' other than spaces is an error.
 * Errors: HAZE_ERR_PARSE (syntax, unknown function), HAZE_ERR_RANGE (a
 * parameter outside the double range), HAZE_ERR_INVALID (as the _iv
 * functions, and parameters out of order).
 */
HAZE_API int haze_fuzzy_set_membership(haze_ctx *ctx, haze_fuzzy_array *a, size_t i,
                                       const char *spec, const char **end);
/*
 * Reads a number written in decimal ("0.1", "-2.5e-3", ".5") or as a C99
 * hex float ("0x1.8p-3"), after optional spaces, exactly, and gives its
 * tightest double enclosure: *lo = RD(x), *hi = RU(x) (equal when x is a
 * double). `end` (may be NULL) receives the first character after the
 * number (s itself when there is none). Returns HAZE_OK, HAZE_ERR_PARSE (no
 * number) or HAZE_ERR_RANGE (|x| beyond the largest double, or a decimal
 * exponent beyond +-100000). ctx may be NULL.
 */
HAZE_API int haze_fuzzy_parse_number(haze_ctx *ctx, const char *s, const char **end, double *lo,
                                     double *hi);

/* Cut k of number i as a double interval (outward; exact from the storage). */
HAZE_API int haze_fuzzy_get_cut(haze_ctx *ctx, const haze_fuzzy_array *a, size_t i, int k,
                                double *lo, double *hi);
/*
 * Hull at any level alpha in (0, 1]: the cut of the lowest stored level that
 * is >= alpha... more precisely the cut of the highest level a_k <= alpha,
 * which contains the alpha-cut. HAZE_ERR_DOMAIN if alpha < a_n.
 */
HAZE_API int haze_fuzzy_hull(haze_ctx *ctx, const haze_fuzzy_array *a, size_t i, double alpha,
                             double *lo, double *hi);
/*
 * Centroid of the staircase membership function the cuts define
 * (mu(x) = max{a_k : x in cut k}): sum_k w_k (lo_k + hi_k) / 2 / sum_k w_k with
 * w_k = (a_k - a_k+1)(hi_k - lo_k), a_n+1 = 0; the kernel's midpoint when
 * all cuts are points. Plain double arithmetic (not certified).
 */
HAZE_API int haze_fuzzy_centroid(haze_ctx *ctx, const haze_fuzzy_array *a, size_t i, double *value);

/* Options of haze_fuzzy_op (NULL: the defaults). */
typedef struct haze_fuzzy_op_options {
    size_t size; /* sizeof(haze_fuzzy_op_options): set by haze_fuzzy_op_options_default() */
    /* 1: division (and RECIP) by a number whose cuts contain 0 returns HAZE_OK
     * with the IEEE 1788 hull in those cuts (what the call leaves there with
     * HAZE_ERR_DOMAIN otherwise); square roots of negative cuts stay
     * HAZE_ERR_DOMAIN, overflow HAZE_ERR_RANGE. Default 0. */
    int div_hull;
} haze_fuzzy_op_options;

/* Fills the first `size` bytes of *opt with the defaults and sets opt->size
 * (haze/core.h); HAZE_ERR_INVALID when size < sizeof(size_t). */
HAZE_API int haze_fuzzy_op_options_init(haze_fuzzy_op_options *opt, size_t size);
static inline haze_fuzzy_op_options haze_fuzzy_op_options_default(void) {
    haze_fuzzy_op_options opt;
    haze_fuzzy_op_options_init(&opt, sizeof opt);
    return opt;
}

/*
 * Element-wise c = a op b (b ignored by unary ops). a, b, c share encoding,
 * precision and ncuts; b may have count 1 (broadcast); c must have a's
 * count; c may be a or b. Runs on the context's backend; CPU and GPU give
 * the same bits. c is always complete, every cut an enclosure; the status
 * says where that took an unbounded or empty cut, naming the first index:
 *   HAZE_ERR_DOMAIN  a divisor's cut contains 0 (DIV, RECIP), or a square
 *                    root's argument has a cut below 0: such elements hold
 *                    the IEEE 1788 enclosure (a half-line, the whole line,
 *                    or empty for a division by [0, 0] and the root of a
 *                    negative cut; the symmetric encodings can only hold
 *                    the whole line);
 *   HAZE_ERR_RANGE   no domain problem, but an element's bounded operands
 *                    gave an unbounded cut: overflow (1e308 * 10 in double
 *                    is [DBL_MAX, +inf] in lower-upper, the whole line in the
 *                    symmetric encodings); a status, not a failure.
 * Other errors: HAZE_ERR_MISMATCH, HAZE_ERR_INVALID. `opt` may be NULL (the
 * defaults); opt->div_hull turns the division's HAZE_ERR_DOMAIN into HAZE_OK.
 */
HAZE_API int haze_fuzzy_op(haze_ctx *ctx, haze_fuzzy_opcode op, const haze_fuzzy_array *a,
                           const haze_fuzzy_array *b, const haze_fuzzy_op_options *opt,
                           haze_fuzzy_array *c);

/*
 * The AXPY series of the paper's Fig. 2: for each element j,
 * y_j = x_{iters} with x_0 = 0 and x_{k+1} = a_j * x_k + b (b has count 1).
 */
HAZE_API int haze_fuzzy_axpy(haze_ctx *ctx, const haze_fuzzy_array *a, const haze_fuzzy_array *b,
                             int iters, haze_fuzzy_array *y);

/*
 * Sorts the array by its 32-bit keys, stably (the paper's Fig. 4); keys are
 * sorted along. CUB's radix sort on the GPU.
 */
HAZE_API int haze_fuzzy_sort_by_key(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a);

/*
 * Converts src into dst (same count and ncuts; any encodings and
 * precisions): outward, and to the symmetric encodings by the outward
 * symmetric envelope.
 */
HAZE_API int haze_fuzzy_convert(haze_ctx *ctx, const haze_fuzzy_array *src, haze_fuzzy_array *dst);

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------- C++ layer, compile-time N */
#if defined(__cplusplus)
namespace haze {
namespace detail {
template <class T> struct fz;
#define HAZE__FZ_TRAITS(T, P)                                                                      \
    template <> struct fz<T> {                                                                     \
        HAZE_HD int lu_add(int n, T *c, const T *a, const T *b) {                                  \
            return haze_fzlu##P##_add(n, c, a, b);                                                 \
        }                                                                                          \
        HAZE_HD int lu_mul(int n, T *c, const T *a, const T *b) {                                  \
            return haze_fzlu##P##_mul(n, c, a, b);                                                 \
        }                                                                                          \
        HAZE_HD int mr_add(int n, T *c, const T *a, const T *b) {                                  \
            return haze_fzmr##P##_add(n, c, a, b);                                                 \
        }                                                                                          \
        HAZE_HD int mr_mul(int n, T *c, const T *a, const T *b) {                                  \
            return haze_fzmr##P##_mul(n, c, a, b);                                                 \
        }                                                                                          \
        HAZE_HD int mi_add(int n, T *c, const T *a, const T *b) {                                  \
            return haze_fzmi##P##_add(n, c, a, b);                                                 \
        }                                                                                          \
        HAZE_HD int mi_mul(int n, T *c, const T *a, const T *b) {                                  \
            return haze_fzmi##P##_mul(n, c, a, b);                                                 \
        }                                                                                          \
    };
HAZE__FZ_TRAITS(double, d)
HAZE__FZ_TRAITS(float, f)
#undef HAZE__FZ_TRAITS
} // namespace detail

/* Fuzzy numbers with N cuts held by value (registers in a kernel). */
template <class T, int N> struct fuzzy_lu { T v[2 * N]; };
template <class T, int N> struct fuzzy_mr { T v[N + 1]; };
template <class T, int N> struct fuzzy_mi { T v[N + 1]; };
#define HAZE__FZ_OPS(K, S)                                                                         \
    template <class T, int N> HAZE__HDI K<T, N> operator+(const K<T, N> &a, const K<T, N> &b) {    \
        K<T, N> c;                                                                                 \
        detail::fz<T>::S##_add(N, c.v, a.v, b.v);                                                  \
        return c;                                                                                  \
    }                                                                                              \
    template <class T, int N> HAZE__HDI K<T, N> operator*(const K<T, N> &a, const K<T, N> &b) {    \
        K<T, N> c;                                                                                 \
        detail::fz<T>::S##_mul(N, c.v, a.v, b.v);                                                  \
        return c;                                                                                  \
    }
#if defined(__CUDACC__)
#define HAZE__HDI __host__ __device__ inline
#else
#define HAZE__HDI inline
#endif
HAZE__FZ_OPS(fuzzy_lu, lu)
HAZE__FZ_OPS(fuzzy_mr, mr)
HAZE__FZ_OPS(fuzzy_mi, mi)
#undef HAZE__HDI
#undef HAZE__FZ_OPS
} // namespace haze
#endif

#endif /* HAZE_FUZZY_H */
