/*
 * src/fcm/fcm_cuda_seed.cu - k-means++ seeding of fuzzy c-means on a CUDA
 * device, the same centres as the CPU's for the same seed.
 *
 * The seeding (greedy k-means++) is defined in fcm_internal.h so that its
 * order of operations depends on n alone. Each centre takes these kernels:
 * pp_update brings every point's distance to its nearest centre up to date
 * and sums them by blocks of HAZE__FCM_PP_BLOCK points (pairwise tree in
 * shared memory); pp_sample (one block) sums the block sums by segments
 * and a tree and walks segments, blocks and points towards each
 * candidate's target; pp_cand sums each candidate's potential by blocks;
 * pp_choose (one block) keeps the candidate of the smallest potential, and
 * pp_take copies it into the centres. Where the device has room, pp_cand
 * also keeps every candidate's distances and the next round takes the
 * chosen candidate's distances and block sums as they are (the very values
 * pp_update would compute, in the same order): one pass over the data a
 * round instead of two. Distances use correctly rounded
 * double operations without contraction (__dsub_rn, __dmul_rn, __dadd_rn),
 * as the CPU, built with -ffp-contract=off, computes them. The centres stay
 * on the device between rounds; the host waits once, for the c x d result.
 *
 * Why kernels of their own: the seeding's order of operations is fixed by
 * n alone, unlike the pass kernels' tiles and groups, and its rounds are
 * short and serial (one block picks the candidates), so they share nothing
 * with the pass.
 */
#include <cuda_runtime.h>
#include <math.h>

#include "fcm/fcm_cuda.h"
#include "fcm/fcm_internal.h"

#define PPB HAZE__FCM_PP_BLOCK
#define PPS HAZE__FCM_PP_SEGS

/* Rows of a block staged in shared memory with an odd stride (no bank
 * conflicts when each thread reads its own row) when they fit. */
template <typename T> static size_t stage_bytes(size_t d) {
    const size_t b = (size_t)PPB * (d + 1) * sizeof(T);
    return b <= 44 * 1024 ? b : 0; /* + the static 2 KiB: within the default 48 KiB */
}

/* Copies point i of x into row j of v (as doubles). */
template <typename T>
static __global__ void pp_take(const T *x, int d, const long long *pick, size_t i, double *vj) {
    const size_t r = pick ? (size_t)*pick : i;
    for (int k = threadIdx.x; k < d; k += blockDim.x) vj[k] = (double)x[r * (size_t)d + k];
}

/* The row of this thread's point i0 + threadIdx.x in the block's rows
 * (rows points from i0) of x: in global memory, or, when staged, in the
 * block's copy in dynamic shared memory (stride d + 1), made by the whole
 * block. */
template <typename T>
static __device__ const T *block_row(const T *x, size_t i0, size_t rows, int d, int staged) {
    extern __shared__ unsigned char pp_smem[];
    const int t = threadIdx.x;
    if (!staged) return x + (i0 + t) * (size_t)d;
    T *xs = (T *)pp_smem;
    const unsigned tot = (unsigned)rows * (unsigned)d, ud = (unsigned)d;
    const T *src = x + i0 * (size_t)d;
    /* Element e = t + s * PPB of the block's rows is row r, column k; both
     * are stepped, not divided for (a division per element cost more than
     * the distances). */
    const unsigned dr = PPB / ud, dk = PPB % ud;
    unsigned r = (unsigned)t / ud, k = (unsigned)t % ud;
    for (unsigned e = t; e < tot; e += PPB) {
        xs[r * (ud + 1) + k] = src[e];
        r += dr, k += dk;
        if (k >= ud) k -= ud, r++;
    }
    __syncthreads();
    return xs + (size_t)t * (d + 1);
}

/* dmin_i = min(dmin_i, |x_i - vl|^2) (first: dmin_i = |x_i - vl|^2) and the
 * block's pairwise sum of dmin into bs[block]. */
template <typename T>
static __global__ void __launch_bounds__(PPB)
    pp_update(const T *x, size_t n, int d, const double *vl, int first, double *dmin, double *bs,
              int staged) {
    __shared__ double s[PPB];
    const int t = threadIdx.x;
    const size_t i0 = (size_t)blockIdx.x * PPB, i = i0 + t;
    const size_t rows = n - i0 < (size_t)PPB ? n - i0 : (size_t)PPB;
    const T *xi = block_row(x, i0, rows, d, staged);
    double w = 0;
    if ((size_t)t < rows) {
        double a = 0;
        for (int k = 0; k < d; k++) {
            const double e = __dsub_rn((double)xi[k], vl[k]);
            a = __dadd_rn(a, __dmul_rn(e, e));
        }
        const double old = first ? INFINITY : dmin[i];
        w = a < old ? a : old;
        dmin[i] = w;
    }
    s[t] = w;
    __syncthreads();
    for (int h = PPB / 2; h > 0; h >>= 1) {
        if (t < h) s[t] = __dadd_rn(s[t], s[t + h]);
        __syncthreads();
    }
    if (t == 0) bs[blockIdx.x] = s[0];
}

/* The total of nb block sums bs by one block of PPS threads: thread s sums
 * its segment into q[s]; the tree of the segment sums is returned to all. */
static __device__ double block_total(const double *bs, size_t nb, size_t L, double *q, double *t2) {
    const int s = threadIdx.x;
    double a = 0;
    for (size_t b = (size_t)s * L; b < ((size_t)s + 1) * L && b < nb; b++) a = __dadd_rn(a, bs[b]);
    q[s] = t2[s] = a;
    __syncthreads();
    for (int h = PPS / 2; h > 0; h >>= 1) {
        if (s < h) t2[s] = __dadd_rn(t2[s], t2[s + h]);
        __syncthreads();
    }
    const double tot = t2[0];
    __syncthreads();
    return tot;
}

/* One block of PPS threads: the total of dmin, then the walk of each
 * candidate t towards u[t] * total (cand[t]; alt when no point is off the
 * centres), and the candidates' rows into cv (trials x d doubles). With
 * sel, dmin and bs are the kept distances and block sums of candidate
 * *sel (dmin + *sel * n, bs + *sel * nb). */
template <typename T>
static __global__ void __launch_bounds__(PPS)
    pp_sample(const T *x, size_t n, int d, const double *bs, size_t nb, size_t L,
              const double *dmin, const int *sel, const double *u, int trials, size_t alt,
              long long *cand, double *cv) {
    __shared__ double q[PPS], t2[PPS], wb[PPB];
    __shared__ long long blk, pick;
    __shared__ double acc_s, target_s;
    const int s = threadIdx.x;
    if (sel) bs += (size_t)*sel * nb, dmin += (size_t)*sel * n;
    const double tot = block_total(bs, nb, L, q, t2);
    for (int t = 0; t < trials; t++) {
        if (s == 0) {
            long long b = -1;
            double acc = 0, target = 0;
            if (tot > 0) {
                target = __dmul_rn(u[t], tot);
                const long long sg = haze__fcm_pp_level(q, PPS, target, &acc);
                if (sg >= 0) {
                    const size_t b0 = (size_t)sg * L;
                    const long long bb =
                        haze__fcm_pp_level(bs + b0, L < nb - b0 ? L : nb - b0, target, &acc);
                    if (bb >= 0) b = (long long)b0 + bb;
                }
            }
            blk = b;
            acc_s = acc;
            target_s = target;
        }
        __syncthreads();
        const long long b = blk;
        size_t i0 = 0, rows = 0;
        if (b >= 0) {
            i0 = (size_t)b * PPB;
            rows = n - i0 < (size_t)PPB ? n - i0 : (size_t)PPB;
            if ((size_t)s < rows) wb[s] = dmin[i0 + s];
        }
        __syncthreads();
        if (s == 0) {
            long long i = -1;
            if (b >= 0) {
                double acc = acc_s;
                i = haze__fcm_pp_level(wb, rows, target_s, &acc);
            }
            pick = i >= 0 ? (long long)i0 + i : (long long)alt;
            cand[t] = pick;
        }
        __syncthreads();
        for (int k = s; k < d; k += PPS) cv[(size_t)t * d + k] = (double)x[(size_t)pick * d + k];
        __syncthreads();
    }
}

/* The block sums of min(dmin_i, |x_i - cand_t|^2) for each candidate t
 * into cs[t * nb + block], and with keep the values into keep[t * n + i];
 * sel as in pp_sample. */
template <typename T>
static __global__ void __launch_bounds__(PPB)
    pp_cand(const T *x, size_t n, int d, const double *cv, int trials, const double *dmin,
            const int *sel, double *cs, size_t nb, int staged, double *keep) {
    __shared__ double s[PPB];
    const int t = threadIdx.x;
    const size_t i0 = (size_t)blockIdx.x * PPB, i = i0 + t;
    if (sel) dmin += (size_t)*sel * n;
    const size_t rows = n - i0 < (size_t)PPB ? n - i0 : (size_t)PPB;
    const T *xi = block_row(x, i0, rows, d, staged);
    const double dm = (size_t)t < rows ? dmin[i] : 0;
    for (int c = 0; c < trials; c++) {
        const double *w = cv + (size_t)c * d;
        double val = 0;
        if ((size_t)t < rows) {
            double a = 0;
            for (int k = 0; k < d; k++) {
                const double e = __dsub_rn((double)xi[k], w[k]);
                a = __dadd_rn(a, __dmul_rn(e, e));
            }
            val = a < dm ? a : dm;
            if (keep) keep[(size_t)c * n + i] = val;
        }
        s[t] = val;
        __syncthreads();
        for (int h = PPB / 2; h > 0; h >>= 1) {
            if (t < h) s[t] = __dadd_rn(s[t], s[t + h]);
            __syncthreads();
        }
        if (t == 0) cs[(size_t)c * nb + blockIdx.x] = s[0];
        __syncthreads();
    }
}

/* One block of PPS threads: each candidate's potential, and the candidate
 * of the smallest (the first on ties) into *pick, its number into *chose. */
static __global__ void __launch_bounds__(PPS)
    pp_choose(const double *cs, size_t nb, size_t L, int trials, const long long *cand,
              long long *pick, int *chose) {
    __shared__ double q[PPS], t2[PPS];
    double best = 0;
    int bt = 0;
    for (int t = 0; t < trials; t++) {
        const double p = block_total(cs + (size_t)t * nb, nb, L, q, t2);
        if (t == 0 || p < best) best = p, bt = t;
    }
    if (threadIdx.x == 0) *pick = cand[bt], *chose = bt;
}

#define TRY(call) HAZE_CUDA_TRY(ctx, call)

template <typename T>
static int seed_t(haze_ctx *ctx, const T *x, size_t n, size_t d, size_t c, size_t trials,
                  const size_t *idx, const double *u, double *v, cudaStream_t st, double *buf,
                  int keep) {
    const size_t nb = (n + PPB - 1) / PPB, L = (nb + PPS - 1) / PPS;
    const size_t sm = stage_bytes<T>(d);
    /* lean: dmin, bs, cs; keep: two sets of every candidate's distances
     * (km) and block sums (kb), the first round's pp_update writing the
     * first candidate's place of set 0 */
    double *dmin = buf, *bs = dmin + n, *cs = bs + nb, *dv = cs + trials * nb;
    double *km[2] = {NULL, NULL}, *kb[2] = {NULL, NULL};
    if (keep) {
        km[0] = buf, km[1] = km[0] + trials * n;
        kb[0] = km[1] + trials * n, kb[1] = kb[0] + trials * nb;
        dmin = km[0], bs = kb[0], dv = kb[1] + trials * nb;
    }
    double *cv = dv + c * d, *du = cv + trials * d;
    long long *cand = (long long *)(du + c * trials), *pick = cand + trials;
    int *chose = (int *)(pick + 1); /* two: this round's and the last round's */
    TRY(cudaMemcpyAsync(du, u, c * trials * sizeof(double), cudaMemcpyHostToDevice, st));
    pp_take<T><<<1, 128, 0, st>>>(x, (int)d, NULL, idx[0], dv);
    HAZE_CUDA_TRY_LAUNCH(ctx);
    for (size_t j = 1; j < c; j++) {
        /* keep: round j reads set 1 - j % 2 (the candidate the last round
         * chose; the first round's pp_update's as it is) and writes set
         * j % 2 */
        const int r = (int)(j % 2);
        const int *sel = keep && j > 1 ? chose + (1 - r) : NULL;
        const double *rd = keep ? km[1 - r] : dmin, *rb = keep ? kb[1 - r] : bs;
        if (!keep || j == 1) {
            pp_update<T><<<(unsigned)nb, PPB, sm, st>>>(x, n, (int)d, dv + (j - 1) * d, j == 1,
                                                        dmin, bs, sm > 0);
            HAZE_CUDA_TRY_LAUNCH(ctx);
        }
        pp_sample<T><<<1, PPS, 0, st>>>(x, n, (int)d, rb, nb, L, rd, sel, du + j * trials,
                                        (int)trials, idx[j], cand, cv);
        HAZE_CUDA_TRY_LAUNCH(ctx);
        double *ccs = keep ? kb[r] : cs, *ckm = keep && j + 1 < c ? km[r] : NULL;
        pp_cand<T><<<(unsigned)nb, PPB, sm, st>>>(x, n, (int)d, cv, (int)trials, rd, sel, ccs, nb,
                                                  sm > 0, ckm);
        HAZE_CUDA_TRY_LAUNCH(ctx);
        pp_choose<<<1, PPS, 0, st>>>(ccs, nb, L, (int)trials, cand, pick, chose + r);
        HAZE_CUDA_TRY_LAUNCH(ctx);
        pp_take<T><<<1, 128, 0, st>>>(x, (int)d, pick, 0, dv + j * d);
        HAZE_CUDA_TRY_LAUNCH(ctx);
    }
    TRY(cudaMemcpyAsync(v, dv, c * d * sizeof(double), cudaMemcpyDeviceToHost, st));
    TRY(cudaStreamSynchronize(st));
    return HAZE_OK;
}

/* keep: every candidate's distances and block sums kept, twice (a round
 * reads one set while it writes the other). The last double holds the two
 * ints of the chosen candidates. */
extern "C" size_t haze__fcm_seed_bytes(size_t n, size_t d, size_t c, size_t trials, int keep) {
    const size_t nb = (n + PPB - 1) / PPB;
    const size_t dist = keep ? 2 * trials * (n + nb) : n + nb * (1 + trials);
    return (dist + c * d + trials * d + c * trials + trials + 1 + 1) * sizeof(double);
}

extern "C" int haze__fcm_seed_run(haze_ctx *ctx, const void *dx, int single, size_t n, size_t d,
                                  size_t c, size_t trials, const size_t *idx, const double *u,
                                  double *v, cudaStream_t st, int keep) {
    size_t bytes = haze__fcm_seed_bytes(n, d, c, trials, keep);
    double *buf = NULL;
    if (keep && haze__dev_alloc(ctx, (void **)&buf, bytes, "fcm: k-means++ on the device")) {
        haze_ctx_clear_error(ctx); /* no room to keep the distances: recompute them */
        keep = 0, bytes = haze__fcm_seed_bytes(n, d, c, trials, 0);
    }
    if (!keep && haze__dev_alloc(ctx, (void **)&buf, bytes, "fcm: k-means++ on the device"))
        return 1; /* the CPU seeds instead */
    int r = single ? seed_t(ctx, (const float *)dx, n, d, c, trials, idx, u, v, st, buf, keep)
                   : seed_t(ctx, (const double *)dx, n, d, c, trials, idx, u, v, st, buf, keep);
    if (r) cudaStreamSynchronize(st);
    haze__dev_free(ctx, buf, bytes);
    return r;
}
