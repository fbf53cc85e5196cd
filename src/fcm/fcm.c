/*
 * src/fcm/fcm.c - fuzzy c-means (Bezdek 1981): validation, initialisation,
 * the iteration and the validity indices; the CPU pass is fcm_cpu_impl.h.
 *
 * Each iteration is one pass over the data (Anderson, Luke and Keller,
 * IEEE TFS 16(4), 2008, equations (1) and (2), fused instead of their six
 * GPU programs): memberships of the current centres, the objective, the
 * membership change and the sums for the next centres together. The
 * previous memberships are recomputed from the previous centres inside the
 * pass instead of being stored, so no n x c matrix is kept on the host (the
 * GPU backend may keep one on the device, fcm_cuda.cu).
 *
 * Gustafson-Kessel (Gustafson and Kessel, 1979; Babuska, van der Veen and
 * Kaymak, 2002): d_ij = (x_i - v_j)^T A_j (x_i - v_j) with
 * A_j = (rho_j det F_j)^(1/d) F_j^-1 and F_j the fuzzy covariance of cluster
 * j, rho_j = 1; F_j gets a small ridge so that A_j always exists.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "core/sized.h"
#include "fcm/fcm_internal.h"

static inline double pow_f64(double a, double b) {
    return pow(a, b);
}
static inline float pow_f32(float a, float b) {
    return powf(a, b);
}

#define T         double
#define SFX(name) name##_f64
#include "fcm/fcm_cpu_impl.h"
#undef T
#undef SFX
#define T         float
#define SFX(name) name##_f32
#include "fcm/fcm_cpu_impl.h"
#undef T
#undef SFX

int haze__fcm_pass_cpu(haze_ctx *ctx, haze__fcm_pass *p) {
    return p->single ? pass_f32(ctx, p) : pass_f64(ctx, p);
}

haze__fcm_tuning *haze__fcm_tuning_of(haze_ctx *ctx) {
    return (haze__fcm_tuning *)haze__ctx_state(ctx, HAZE__STATE_FCM, sizeof(haze__fcm_tuning),
                                               NULL);
}

int haze_fcm_options_init(haze_fcm_options *opt, size_t size) {
    haze_fcm_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.m = 2.0;
    o.metric = HAZE_FCM_EUCLIDEAN;
    o.init = HAZE_FCM_INIT_KMEANSPP;
    o.stop = HAZE_FCM_STOP_MEMBERSHIP;
    o.tol = 1e-5;
    o.max_iter = 300;
    o.gk_reg = 1e-10;
    return haze__sized_init(opt, size, &o, sizeof o);
}

void haze_fcm_result_free(haze_fcm_result *r) {
    if (!r) return;
    free(r->centers);
    free(r->norms);
    free(r->memberships);
    free(r->objective);
    free(r->change);
    free(r);
}

int haze_fcm_labels(haze_ctx *ctx, const double *u, size_t n, size_t c, int *labels) {
    if (n == 0) return HAZE_OK;
    if (!u || !labels || c == 0)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm labels: %s",
                           c == 0 ? "no clusters" : "NULL argument");
    for (size_t i = 0; i < n; i++) {
        size_t best = 0;
        for (size_t j = 1; j < c; j++)
            if (u[i * c + j] > u[i * c + best]) best = j;
        labels[i] = (int)best;
    }
    return HAZE_OK;
}

/* Runs one pass on the context's backend. */
typedef struct fit_env {
    haze_ctx *ctx;
#ifdef HAZE_HAVE_CUDA
    haze__fcm_gpu *gpu;
#endif
} fit_env;

static int run_pass(fit_env *e, haze__fcm_pass *p) {
#ifdef HAZE_HAVE_CUDA
    /* One part of several on the device: its own rows' sums, then every
     * part's added in part order (the CPU pass adds them itself). */
    if (e->gpu && p->parts)
        return haze__fcm_parts_add(e->ctx, p->parts, haze__fcm_pass_cuda(e->ctx, e->gpu, p),
                                   p->sums, haze__fcm_stride(p->c, p->d, p->cov));
    if (e->gpu) return haze__fcm_pass_cuda(e->ctx, e->gpu, p);
#endif
    return haze__fcm_pass_cpu(e->ctx, p);
}

/* Greedy k-means++ (Arthur and Vassilvitskii, 2007, and their greedy
 * variant, as scikit-learn seeds k-means): first centre uniform, then for
 * each next one 2 + floor(ln c) candidates drawn with probability
 * proportional to the squared distance to the nearest centre chosen so far,
 * and the one that leaves the smallest sum of those distances kept; in the
 * order of fcm_internal.h that the device follows too. */
static inline double xval(const void *x, int single, size_t idx) {
    return single ? (double)((const float *)x)[idx] : ((const double *)x)[idx];
}

/* The random draws of the seeding, from the seed alone: idx[0] the first
 * centre; for round j >= 1, u[j * trials + t] (t < trials) the uniforms of
 * its candidates and idx[j] the fallback index. */
static void pp_draws(uint64_t seed, size_t n, size_t c, size_t trials, size_t *idx, double *u) {
    haze__rng r;
    haze__rng_seed(&r, seed);
    idx[0] = (size_t)haze__rng_below(&r, n);
    for (size_t t = 0; t < trials; t++) u[t] = 0;
    for (size_t j = 1; j < c; j++) {
        for (size_t t = 0; t < trials; t++) u[j * trials + t] = haze__rng_uniform(&r);
        idx[j] = (size_t)haze__rng_below(&r, n);
    }
}

/* The sum of the block sums bs (nb of them): segment sums into q[0 .. S),
 * their tree in q[S .. 2 S). */
static double pp_total(const double *bs, size_t nb, double *q) {
    enum { S = HAZE__FCM_PP_SEGS };
    const size_t L = (nb + S - 1) / S;
    for (size_t sg = 0; sg < S; sg++) {
        double t = 0;
        for (size_t b = sg * L; b < (sg + 1) * L && b < nb; b++) t = t + bs[b];
        q[sg] = q[S + sg] = t;
    }
    haze__fcm_pp_tree(q + S, S);
    return q[S];
}

/* Squared distance of point i to the centre w, in double without contraction. */
static inline double pp_dist(const void *x, int single, size_t i, size_t d, const double *w) {
    double a = 0;
    for (size_t k = 0; k < d; k++) {
        const double e = xval(x, single, i * d + k) - w[k];
        a = a + e * e;
    }
    return a;
}

int haze__fcm_seed_cpu(haze_ctx *ctx, const void *x, int single, size_t n, size_t d, size_t c,
                       size_t trials, const size_t *idx, const double *u, double *v) {
    enum { B = HAZE__FCM_PP_BLOCK, S = HAZE__FCM_PP_SEGS };
    const size_t nb = (n + B - 1) / B, L = (nb + S - 1) / S;
    double *dmin = malloc(n * sizeof *dmin), *bs = malloc(nb * (trials + 1) * sizeof *bs);
    double *q = malloc(2 * S * sizeof *q), *cv = malloc(trials * d * sizeof *cv);
    if (!dmin || !bs || !q || !cv || trials > HAZE__FCM_PP_TRIALS_MAX) {
        free(dmin), free(bs), free(q), free(cv);
        return trials > HAZE__FCM_PP_TRIALS_MAX
                   ? haze__error(ctx, HAZE_ERR_INTERNAL, "fcm: %zu k-means++ trials", trials)
                   : haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for k-means++");
    }
    double *cs = bs + nb; /* trials x nb block sums of the candidates */
    size_t cand[HAZE__FCM_PP_TRIALS_MAX];
    const long long nbl = (long long)nb;
    for (size_t k = 0; k < d; k++) v[k] = xval(x, single, idx[0] * d + k);
    /* a thread per HAZE__FCM_PAR_WORK point-feature terms at least */
    const int nt = haze__threads_for(ctx, (double)n * (double)d, HAZE__FCM_PAR_WORK);
    const int ntt =
        haze__threads_for(ctx, (double)n * (double)d * (double)trials, HAZE__FCM_PAR_WORK);
    for (size_t j = 1; j < c; j++) {
        const double *vl = v + (j - 1) * d;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && nb > 16)
        for (long long b = 0; b < nbl; b++) {
            double s[B];
            for (size_t t = 0; t < B; t++) {
                const size_t i = (size_t)b * B + t;
                double w = 0;
                if (i < n) {
                    const double a = pp_dist(x, single, i, d, vl);
                    const double old = j == 1 ? INFINITY : dmin[i];
                    w = a < old ? a : old;
                    dmin[i] = w;
                }
                s[t] = w;
            }
            haze__fcm_pp_tree(s, B);
            bs[b] = s[0];
        }
        const double tot = pp_total(bs, nb, q);
        int same = 1;
        for (size_t t = 0; t < trials; t++) {
            long long pick = -1;
            if (tot > 0) {
                const double target = u[j * trials + t] * tot;
                double acc = 0;
                const long long sg = haze__fcm_pp_level(q, S, target, &acc);
                if (sg >= 0) {
                    const size_t b0 = (size_t)sg * L;
                    const long long b =
                        haze__fcm_pp_level(bs + b0, L < nb - b0 ? L : nb - b0, target, &acc);
                    if (b >= 0) {
                        const size_t i0 = (b0 + (size_t)b) * B;
                        const long long i =
                            haze__fcm_pp_level(dmin + i0, B < n - i0 ? B : n - i0, target, &acc);
                        if (i >= 0) pick = (long long)i0 + i;
                    }
                }
            }
            cand[t] = pick >= 0 ? (size_t)pick : idx[j]; /* all points on the centres */
            same &= cand[t] == cand[0];
            for (size_t k = 0; k < d; k++) cv[t * d + k] = xval(x, single, cand[t] * d + k);
        }
        size_t best = 0;
        if (!same) { /* the candidate that leaves the smallest potential sum_i dmin_i */
#pragma omp parallel for num_threads(ntt) schedule(static) if (ntt > 1 && nb > 16)
            for (long long b = 0; b < nbl; b++) {
                double s[B];
                for (size_t t = 0; t < trials; t++) {
                    for (size_t r = 0; r < B; r++) {
                        const size_t i = (size_t)b * B + r;
                        double w = 0;
                        if (i < n) {
                            const double a = pp_dist(x, single, i, d, cv + t * d);
                            w = a < dmin[i] ? a : dmin[i];
                        }
                        s[r] = w;
                    }
                    haze__fcm_pp_tree(s, B);
                    cs[t * nb + (size_t)b] = s[0];
                }
            }
            double pbest = pp_total(cs, nb, q);
            for (size_t t = 1; t < trials; t++) {
                const double pt = pp_total(cs + t * nb, nb, q);
                if (pt < pbest) pbest = pt, best = t;
            }
        }
        memcpy(v + j * d, cv + best * d, d * sizeof *v);
    }
    free(dmin), free(bs), free(q), free(cv);
    return HAZE_OK;
}

int haze__fcm_kmeanspp(haze_ctx *ctx, haze__fcm_gpu *gpu, const void *x, int single, size_t n,
                       size_t d, size_t c, uint64_t seed, double *v) {
    const size_t trials = haze__fcm_pp_trials(c);
    size_t *idx = malloc(c * sizeof *idx);
    double *u = malloc(c * trials * sizeof *u);
    int st = HAZE_OK;
    if (!idx || !u) {
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for k-means++");
        goto done;
    }
    pp_draws(seed, n, c, trials, idx, u);
#ifdef HAZE_HAVE_CUDA
    if (gpu) {
        st = haze__fcm_seed_cuda(ctx, gpu, trials, idx, u, v);
        if (st <= 0) goto done; /* done, or an error; 1: seed on the CPU */
    }
#else
    (void)gpu;
#endif
    st = haze__fcm_seed_cpu(ctx, x, single, n, d, c, trials, idx, u, v);
done:
    free(idx);
    free(u);
    return st;
}

/* GK norms A_j = det(F_j)^(1/d) F_j^-1 from the fuzzy covariances of the
 * source memberships about the centres v (a cov pass on the backend). */
static int gk_norms(fit_env *e, haze__fcm_pass *src, const double *v, double reg, double *a) {
    haze_ctx *ctx = e->ctx;
    const size_t d = src->d, c = src->c, dd = d * d;
    double *f = malloc((c * dd + c) * sizeof *f);
    double *l = malloc((dd + d) * sizeof *l);
    if (!f || !l) {
        free(f);
        free(l);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for GK covariances");
    }
    double *diff = l + dd;
    haze__fcm_pass q = *src;
    q.v = v;
    q.a = NULL;
    q.u_out = NULL;
    q.cov = 1;
    q.sums = f;
    int st = run_pass(e, &q);
    if (st) {
        free(f);
        free(l);
        return st;
    }
    const double *w = f + c * dd;
    for (size_t j = 0; j < c; j++) {
        double *fj = f + j * dd, *aj = a + j * dd, tr = 0;
        for (size_t k = 0; k < dd; k++) fj[k] /= w[j];
        for (size_t k = 0; k < d; k++) tr += fj[k * d + k];
        int ok = 0;
        double ridge = tr > 0 && isfinite(tr) ? reg * tr / (double)d : 0;
        for (int attempt = 0; attempt < 40 && tr > 0 && isfinite(tr); attempt++) {
            /* Cholesky of F + ridge I */
            ok = 1;
            for (size_t k = 0; k < d && ok; k++)
                for (size_t q2 = 0; q2 <= k; q2++) {
                    double s = fj[k * d + q2] + (k == q2 ? ridge : 0);
                    for (size_t t = 0; t < q2; t++) s -= l[k * d + t] * l[q2 * d + t];
                    if (k == q2) {
                        if (!(s > 0)) {
                            ok = 0;
                            break;
                        }
                        l[k * d + k] = sqrt(s);
                    } else {
                        l[k * d + q2] = s / l[q2 * d + q2];
                    }
                }
            if (ok) break;
            ridge = ridge > 0 ? ridge * 10 : tr / (double)d * 1e-12;
        }
        if (!ok) { /* a cluster without spread: fall back to the Euclidean norm */
            for (size_t k = 0; k < dd; k++) aj[k] = 0;
            for (size_t k = 0; k < d; k++) aj[k * d + k] = 1;
            continue;
        }
        /* det^(1/d) as the geometric mean of the squared diagonal of L. */
        double logdet = 0;
        for (size_t k = 0; k < d; k++) logdet += 2 * log(l[k * d + k]);
        double scale = exp(logdet / (double)d);
        /* A = scale * F^-1: solve L L^T a_col = e_col. */
        for (size_t col = 0; col < d; col++) {
            for (size_t k = 0; k < d; k++) { /* forward */
                double s = k == col ? 1 : 0;
                for (size_t t = 0; t < k; t++) s -= l[k * d + t] * diff[t];
                diff[k] = s / l[k * d + k];
            }
            for (size_t k = d; k-- > 0;) { /* backward */
                double s = diff[k];
                for (size_t t = k + 1; t < d; t++) s -= l[t * d + k] * diff[t];
                diff[k] = s / l[k * d + k];
            }
            for (size_t k = 0; k < d; k++) aj[k * d + col] = scale * diff[k];
        }
        for (size_t k = 0; k < d; k++) /* exact symmetry */
            for (size_t q2 = 0; q2 < k; q2++)
                aj[k * d + q2] = aj[q2 * d + k] = 0.5 * (aj[k * d + q2] + aj[q2 * d + k]);
    }
    free(f);
    free(l);
    return HAZE_OK;
}

/* Rows [i0, i1) of x: the first row holding a value that is not finite
 * (i1 if none) and, when all are finite, the range of each column (lo, hi:
 * d values each, updated; NULL: not wanted; w: 2 d values of scratch).
 * Loops without exits or conversions, which the compiler vectorises: the
 * finiteness by the exponent bits over the whole block, then the ranges in
 * T. */
#define CHECK_ROWS(T, U, EXP)                                                                      \
    static size_t check_rows_##T(const T *x, size_t i0, size_t i1, size_t d, double *lo,           \
                                 double *hi, T *w) {                                               \
        const U *b = (const U *)(const void *)(x + i0 * d);                                        \
        const size_t m = (i1 - i0) * d;                                                            \
        int bad = 0;                                                                               \
        for (size_t k = 0; k < m; k++) bad |= (b[k] & EXP) == EXP;                                 \
        if (bad)                                                                                   \
            for (size_t i = i0; i < i1; i++)                                                       \
                for (size_t k = 0; k < d; k++)                                                     \
                    if (!isfinite(x[i * d + k])) return i;                                         \
        if (!lo) return i1;                                                                        \
        T *l = w, *h = w + d;                                                                      \
        for (size_t k = 0; k < d; k++) l[k] = h[k] = x[i0 * d + k];                                \
        for (size_t i = i0 + 1; i < i1; i++) {                                                     \
            const T *r = x + i * d;                                                                \
            for (size_t k = 0; k < d; k++) {                                                       \
                l[k] = r[k] < l[k] ? r[k] : l[k];                                                  \
                h[k] = r[k] > h[k] ? r[k] : h[k];                                                  \
            }                                                                                      \
        }                                                                                          \
        for (size_t k = 0; k < d; k++) {                                                           \
            lo[k] = (double)l[k] < lo[k] ? (double)l[k] : lo[k];                                   \
            hi[k] = (double)h[k] > hi[k] ? (double)h[k] : hi[k];                                   \
        }                                                                                          \
        return i1;                                                                                 \
    }
CHECK_ROWS(float, uint32_t, 0x7f800000u)
CHECK_ROWS(double, uint64_t, 0x7ff0000000000000u)
#undef CHECK_ROWS

/* Every value of the n x d matrix x (float when single) finite; with lo
 * and hi (d values each, updated) also the range of each column. Blocks of
 * rows on the context's threads; the first bad value in row order is the
 * one reported, whatever the threads. */
static int check_finite(haze_ctx *ctx, const void *x, int single, size_t n, size_t d,
                        const char *what, double *lo, double *hi) {
    const size_t blk = 1 << 14;
    const size_t nb = (n + blk - 1) / blk;
    const int nt = haze__threads_for(ctx, (double)n * (double)d, 1 << 20);
    double *rng = NULL;
    if (lo && nb > 1 && !(rng = malloc(2 * d * nb * sizeof *rng)))
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    size_t first = n; /* the first bad row */
    int nomem = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1 && nb > 1)
#endif
    for (size_t b = 0; b < nb; b++) {
        const size_t i0 = b * blk, i1 = i0 + blk < n ? i0 + blk : n;
        double *l = lo, *h = hi;
        if (rng) {
            l = rng + 2 * d * b, h = l + d;
            for (size_t k = 0; k < d; k++) l[k] = INFINITY, h[k] = -INFINITY;
        }
        double w[2 * 64];
        double *wp = d <= 64 ? w : malloc(2 * d * sizeof *wp);
        size_t bad = i0; /* no scratch: the block counts as bad (reported as out of memory) */
        if (wp)
            bad = single ? check_rows_float((const float *)x, i0, i1, d, l, h, (float *)wp)
                         : check_rows_double((const double *)x, i0, i1, d, l, h, wp);
        else {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            nomem = 1;
        }
        if (wp != w) free(wp);
        if (bad < i1) {
#ifdef _OPENMP
#pragma omp critical(haze_fcm_check)
#endif
            if (bad < first) first = bad;
        }
    }
    if (rng) {
        for (size_t b = 0; b < nb; b++)
            for (size_t k = 0; k < d; k++) {
                const double *l = rng + 2 * d * b, *h = l + d;
                lo[k] = l[k] < lo[k] ? l[k] : lo[k];
                hi[k] = h[k] > hi[k] ? h[k] : hi[k];
            }
        free(rng);
    }
    if (nomem) return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    if (first < n)
        for (size_t k = 0; k < d; k++)
            if (!isfinite(xval(x, single, first * d + k)))
                return haze__error(ctx, HAZE_ERR_DOMAIN,
                                   "fcm: %s row %zu column %zu is not a finite number", what,
                                   first + 1, k + 1);
    return HAZE_OK;
}

/* The squared distance between two points of the box lo..hi must be finite
 * in the precision of the computation: finite data that spans more (a value
 * near 1e154 in float64, 1e19 in float32) would give infinite distances and
 * NaN memberships. */
static int check_span(haze_ctx *ctx, const double *lo, const double *hi, size_t d, int single,
                      const char *who) {
    const double lim = single ? (double)FLT_MAX : DBL_MAX;
    double s = 0;
    for (size_t k = 0; k < d; k++) {
        const double w = hi[k] - lo[k];
        s += w * w;
        if (!(s <= lim))
            return haze__error(ctx, HAZE_ERR_DOMAIN,
                               "%s: column %zu spans %g to %g: squared distances overflow %s; "
                               "rescale the data",
                               who, k + 1, lo[k], hi[k], single ? "float32" : "float64");
    }
    return HAZE_OK;
}

static double *span_new(size_t d) {
    double *b = malloc(2 * d * sizeof *b);
    if (b)
        for (size_t k = 0; k < d; k++) b[k] = INFINITY, b[d + k] = -INFINITY;
    return b;
}

/* Centres from the accumulated sums; a cluster with no weight is an error. */
static int centres_from_sums(haze_ctx *ctx, const double *sums, size_t c, size_t d, double *v) {
    const double *w = sums + c * d;
    for (size_t j = 0; j < c; j++) {
        if (!(w[j] > 0))
            return haze__error(ctx, HAZE_ERR_RANGE,
                               "fcm: cluster %zu lost all its membership weight (sum of u^m is "
                               "0); try fewer clusters or a larger m",
                               j + 1);
        for (size_t k = 0; k < d; k++) v[j * d + k] = sums[j * d + k] / w[j];
    }
    return HAZE_OK;
}

/* J(U, V') of the next iteration from the sums of the pass that computed U
 * with the centres ref, where V' = S1 / S0 are the centres those sums give:
 * sum_i u^m |x_i - ref_j|^2 = sum_i u^m |x_i - V'_j|^2 + S0_j |V'_j - ref_j|^2
 * (parallel axes), so J(U, V') = JSELF - sum_j S0_j |V'_j - ref_j|^2. The
 * difference is the centres' movement, small and without cancellation near
 * convergence. In single precision the pass used the centres rounded to
 * float, and so does this. Used where a backend leaves J out of a pass. */
static double objective_next(const double *sums, const double *ref, const double *vnext, size_t c,
                             size_t d, int single) {
    const double *w = sums + c * d;
    double corr = 0;
    for (size_t j = 0; j < c; j++) {
        double s = 0;
        for (size_t k = 0; k < d; k++) {
            const double a = single ? (double)(float)ref[j * d + k] : ref[j * d + k];
            const double t = vnext[j * d + k] - a;
            s += t * t;
        }
        corr += w[j] * s;
    }
    return sums[c * d + c + HAZE__FCM_JSELF] - corr;
}

/* Partition coefficient, entropy and Xie-Beni of U(K), V(K) = r->centers from
 * the sums of a pass that computed the indices over n points (all the parts'). */
static void indices_from_sums(haze_fcm_result *r, const double *sums, size_t n) {
    const size_t d = r->d, c = r->c, nv = c * d;
    const double *vk = r->centers;
    r->partition_coefficient = sums[nv + c + HAZE__FCM_PC] / (double)n;
    r->partition_entropy = sums[nv + c + HAZE__FCM_PE] / (double)n;
    double sep = INFINITY;
    for (size_t j = 0; j < c; j++)
        for (size_t l = j + 1; l < c; l++) {
            double s = 0;
            for (size_t q = 0; q < d; q++) {
                double t = vk[j * d + q] - vk[l * d + q];
                s += t * t;
            }
            if (s < sep) sep = s;
        }
    r->xie_beni = sep > 0 ? sums[nv + c + HAZE__FCM_JSELF] / ((double)n * sep) : INFINITY;
}

/* Why U(K), V(K) = r->centers say nothing about the data (the
 * HAZE_FCM_DEGENERATE_* bits), from the sums of the pass that computed
 * them: sum u^m per cluster and JSELF = sum u^m d. */
static int degeneracy(const haze_fcm_result *r, const double *sums) {
    const size_t d = r->d, c = r->c, nv = c * d;
    const double *w = sums + nv;
    int why = 0;
    double wt = 0;
    for (size_t j = 0; j < c; j++) {
        if (!(w[j] >= 0.5)) why |= HAZE_FCM_DEGENERATE_EMPTY;
        wt += w[j];
    }
    /* the mean weighted squared distance to the centres: the fuzzy spread */
    const double spread = wt > 0 ? sums[nv + c + HAZE__FCM_JSELF] / wt : 0;
    for (size_t j = 0; j < c; j++)
        for (size_t l = j + 1; l < c; l++) {
            double s = 0;
            for (size_t q = 0; q < d; q++) {
                const double t = r->centers[j * d + q] - r->centers[l * d + q];
                s += t * t;
            }
            if (s <= 1e-6 * spread) why |= HAZE_FCM_DEGENERATE_COINCIDENT;
        }
    const double inv = 1.0 / (double)c;
    if (r->partition_coefficient - inv <= 1e-3 * (1 - inv)) why |= HAZE_FCM_DEGENERATE_UNIFORM;
    return why;
}

/* The options and shape, before anything is read or made: with parts
 * (opt->allgather), n may be 0 and x NULL then, and c counts against the
 * whole data's rows. */
int haze__fcm_validate(haze_ctx *ctx, const void *x, haze_precision type, size_t n, size_t d,
                       const haze_fcm_options *opt) {
    const int parts = opt->allgather != NULL;
    const size_t total = parts ? opt->total_rows : n;
    const size_t c = opt->clusters > 0 ? (size_t)opt->clusters : 0;
    if (type != HAZE_PRECISION_F64 && type != HAZE_PRECISION_F32)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: unknown element type %d", (int)type);
    if (!x && !(parts && n == 0)) return haze__error(ctx, HAZE_ERR_INVALID, "fcm: NULL argument");
    if (!parts && (opt->first_row || (opt->total_rows && opt->total_rows != n)))
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fcm: rows %zu to %zu of %zu: a part of a fit needs the allgather hook",
                           opt->first_row + 1, opt->first_row + n, opt->total_rows);
    if (total < 1 || d < 1 || (parts && (opt->first_row > total || n > total - opt->first_row)))
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: no data (%zu x %zu)", total, d);
    if (opt->clusters < 2)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: need at least 2 clusters, got %d",
                           opt->clusters);
    if (c > total)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: %zu clusters for only %zu points", c,
                           total);
    if (!(opt->m > 1) || !isfinite(opt->m))
        return haze__error(ctx, HAZE_ERR_DOMAIN, "fcm: the fuzzifier m must be > 1, got %g",
                           opt->m);
    if (!(opt->tol >= 0) || !isfinite(opt->tol))
        return haze__error(ctx, HAZE_ERR_DOMAIN, "fcm: tolerance must be >= 0, got %g", opt->tol);
    if (opt->max_iter < 1)
        return haze__error(ctx, HAZE_ERR_DOMAIN, "fcm: max_iter must be >= 1, got %d",
                           opt->max_iter);
    if (opt->metric != HAZE_FCM_EUCLIDEAN && opt->metric != HAZE_FCM_GK)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: unknown metric %d", (int)opt->metric);
    if (opt->metric == HAZE_FCM_GK && (double)c * d * d > 1e8)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "fcm: Gustafson-Kessel with %zu clusters of %zu dimensions needs %zu "
                           "covariance entries; the limit is 1e8",
                           c, d, c * d * d);
    if (!(opt->gk_reg >= 0) || !isfinite(opt->gk_reg))
        return haze__error(ctx, HAZE_ERR_DOMAIN, "fcm: gk_reg must be >= 0");
    if ((opt->init == HAZE_FCM_INIT_CENTRES || (opt->init == HAZE_FCM_INIT_MEMBERSHIPS && n > 0)) &&
        !opt->init_data)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: init_data is NULL");
    if (opt->init < HAZE_FCM_INIT_RANDOM || opt->init > HAZE_FCM_INIT_MEMBERSHIPS)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: unknown init %d", (int)opt->init);
    if (opt->precision != HAZE_PRECISION_F64 && opt->precision != HAZE_PRECISION_F32)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: unknown precision %d", (int)opt->precision);
    if (opt->device_count < 0 || opt->device_count > 4096)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm: device_count %d is out of range",
                           opt->device_count);
    return HAZE_OK;
}

/* The first value of x (n x d, this part's rows from row `first`) that is
 * not finite, as the whole data's row: the data check's message with the
 * row of the whole data set, for a part. */
static int nonfinite_row(haze_ctx *ctx, const void *x, int single, size_t n, size_t d,
                         size_t first) {
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < d; k++)
            if (!isfinite(xval(x, single, i * d + k)))
                return haze__error(ctx, HAZE_ERR_DOMAIN,
                                   "fcm: data row %zu column %zu is not a finite number",
                                   first + i + 1, k + 1);
    return HAZE_OK;
}

/* k-means++ over the parts: the draws of the whole data's rows. */
static int kmeanspp_parts(haze_ctx *ctx, haze__fcm_parts *pp, const void *x, int single, size_t d,
                          size_t c, uint64_t seed, double *v) {
    const size_t trials = haze__fcm_pp_trials(c);
    size_t *idx = malloc(c * sizeof *idx);
    double *u = malloc(c * trials * sizeof *u);
    int st = HAZE_OK;
    if (!idx || !u) {
        free(idx);
        free(u);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for k-means++");
    }
    pp_draws(seed, pp->total, c, trials, idx, u);
    st = haze__fcm_seed_parts(ctx, pp, x, single, d, c, trials, idx, u, v);
    free(idx);
    free(u);
    return st;
}

/* The context's switch that makes a CPU part combine its sums as a GPU part. */
static int part_totals(haze_ctx *ctx) {
    const haze__fcm_tuning *t = haze__fcm_tuning_of(ctx);
    return t && t->part_totals;
}

/* The fit on data of `type` (NULL for a part without rows). */
static int fit(haze_ctx *ctx, const void *data, haze_precision type, size_t n, size_t d,
               const haze_fcm_options *opt, haze_fcm_result **out) {
    if (out) *out = NULL;
    if (!ctx || !opt || !out) return haze__error(ctx, HAZE_ERR_INVALID, "fcm: NULL argument");
    double mark[HAZE_FCM_TIME_COUNT + 1]; /* the phases' starts, then the end */
    mark[HAZE_FCM_TIME_CHECK] = haze__now();
    const size_t c = opt->clusters > 0 ? (size_t)opt->clusters : 0;
    int st = haze__fcm_validate(ctx, data, type, n, d, opt);
    const double *x = type == HAZE_PRECISION_F64 ? data : NULL;
    const float *x32 = type == HAZE_PRECISION_F32 ? data : NULL;
    /* A part: the first step checks that every part agrees, and any part's
     * failure from here on is every part's (haze__fcm_parts_fail). */
    haze__fcm_parts *pp = NULL;
    if (opt->allgather &&
        (st = haze__fcm_parts_begin(ctx, st, opt, type == HAZE_PRECISION_F32,
                                    haze__use_cuda(ctx) || part_totals(ctx), n, d, &pp)))
        return st;
    if (st) return st;
    const size_t total = pp ? pp->total : n;
    const int single = type == HAZE_PRECISION_F32 || opt->precision == HAZE_PRECISION_F32;
    double *box = span_new(d);
    if (!box) st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    if (!st && n > 0)
        st = x ? check_finite(ctx, x, 0, n, d, "data", box, box + d)
               : check_finite(ctx, x32, 1, n, d, "data", box, box + d);
    if (st == HAZE_ERR_DOMAIN && pp) /* the row in the whole data set */
        st = nonfinite_row(ctx, data, x32 != NULL, n, d, pp->first);
    if (pp) st = haze__fcm_parts_box(ctx, pp, st, box, box + d, d);
    if (!st) st = check_span(ctx, box, box + d, d, single, "fcm"); /* the same on every part */
    free(box);
    if (st) {
        haze__fcm_parts_free(pp);
        return st;
    }
    mark[HAZE_FCM_TIME_SETUP] = haze__now();

    const int gk = opt->metric == HAZE_FCM_GK;
    const size_t nv = c * d, na = gk ? c * d * d : 0;
    const size_t nsums = nv + c + HAZE__FCM_NSCALAR;
    int maxit = opt->max_iter;
    haze_fcm_result *r = calloc(1, sizeof *r);
    /* V(k), V(k-1), A(k), A(k-1), the sums of pass k and those of pass k - 1 */
    double *v = calloc(2 * nv + 2 * na + 2 * nsums + 1, sizeof *v);
    double *u0 = NULL;
    float *xf = NULL;
    if (!r || !v) goto nomem;
    r->n = n, r->d = d, r->c = c, r->m = opt->m, r->metric = opt->metric;
    r->centers = malloc(nv * sizeof *r->centers);
    r->objective = malloc((size_t)maxit * sizeof *r->objective);
    r->change = malloc((size_t)maxit * sizeof *r->change);
    if (!r->centers || !r->objective || !r->change) goto nomem;
    if (gk && !(r->norms = malloc(na * sizeof *r->norms))) goto nomem;
    double *vk = v, *vprev = v + nv, *ak = v + 2 * nv, *aprev = v + 2 * nv + na;
    double *sums = v + 2 * nv + 2 * na, *sums_prev = sums + nsums;
    const void *xp = x ? (const void *)x : (const void *)x32;
    if (x && single) {
        if (!(xf = malloc((n ? n * d : 1) * sizeof *xf))) goto nomem;
        for (size_t i = 0; i < n * d; i++) xf[i] = (float)x[i];
        xp = xf;
    }

    haze__fcm_pass p;
    memset(&p, 0, sizeof p);
    p.x = xp, p.n = n, p.d = d, p.c = c, p.m = opt->m, p.single = single;
    p.sums = sums;
    p.parts = pp;
    /* The change of memberships only where the stopping rule reads it (the
     * GPU then keeps U(k-1) or recomputes it; without it J comes from the
     * previous pass, see objective_next). */
    p.want_du = opt->stop == HAZE_FCM_STOP_MEMBERSHIP;
    /* A part of several runs its passes on the device when it has rows; a
     * part without any runs the CPU pass over none. */
    const int on_gpu = haze__use_cuda(ctx) && (!pp || n > 0);
    switch (opt->init) {
    case HAZE_FCM_INIT_RANDOM:
        p.src = HAZE__FCM_SRC_RANDOM;
        p.seed = opt->seed;
        if (pp && on_gpu) { /* the device draws by its own row index: the same memberships,
                               drawn here by the rows' index in the whole data */
            if (!(u0 = malloc((n ? n * c : 1) * sizeof *u0))) goto nomem;
            for (size_t i = 0; i < n; i++) {
                double tot = 0;
                for (size_t j = 0; j < c; j++) tot += haze__fcm_rand(p.seed, pp->first + i, j, c);
                for (size_t j = 0; j < c; j++)
                    u0[i * c + j] = haze__fcm_rand(p.seed, pp->first + i, j, c) / tot;
            }
            p.src = HAZE__FCM_SRC_MEMORY;
            p.u0 = u0;
        }
        break;
    case HAZE_FCM_INIT_MEMBERSHIPS:
        if (!(u0 = malloc((n ? n * c : 1) * sizeof *u0))) goto nomem;
        for (size_t i = 0; i < n; i++) { /* a part's init_data holds its own rows */
            double tot = 0;
            for (size_t j = 0; j < c; j++) {
                double t = opt->init_data[i * c + j];
                if (!isfinite(t) || t < 0) {
                    st = haze__error(ctx, HAZE_ERR_DOMAIN,
                                     "fcm: initial membership row %zu column %zu is %g; "
                                     "memberships must be finite and >= 0",
                                     (pp ? pp->first : 0) + i + 1, j + 1, t);
                    goto fail;
                }
                tot += t;
            }
            if (!(tot > 0)) {
                st = haze__error(ctx, HAZE_ERR_DOMAIN,
                                 "fcm: initial memberships of row %zu are all zero",
                                 (pp ? pp->first : 0) + i + 1);
                goto fail;
            }
            for (size_t j = 0; j < c; j++) u0[i * c + j] = opt->init_data[i * c + j] / tot;
        }
        p.src = HAZE__FCM_SRC_MEMORY;
        p.u0 = u0;
        break;
    case HAZE_FCM_INIT_CENTRES:
        if ((st = check_finite(ctx, opt->init_data, 0, c, d, "initial centre", NULL, NULL)))
            goto fail;
        memcpy(vprev, opt->init_data, nv * sizeof *vprev);
        p.src = HAZE__FCM_SRC_CENTERS;
        p.vp = vprev; /* with the Euclidean norm: no covariance exists yet */
        break;
    case HAZE_FCM_INIT_KMEANSPP: /* seeded below, on the fit's backend */
        p.src = HAZE__FCM_SRC_CENTERS;
        p.vp = vprev;
        break;
    }

    fit_env env;
    memset(&env, 0, sizeof env);
    env.ctx = ctx;
#ifdef HAZE_HAVE_CUDA
    if (on_gpu && (st = haze__fcm_cuda_begin(ctx, xp, n, d, c, p.single, gk,
                                             (p.src == HAZE__FCM_SRC_MEMORY ? c : 0) +
                                                 (opt->want_memberships ? c : 0) +
                                                 (opt->init == HAZE_FCM_INIT_KMEANSPP ? 1 : 0),
                                             &env.gpu)))
        goto fail;
    if (env.gpu && pp) haze__fcm_cuda_part(env.gpu);
#endif
    mark[HAZE_FCM_TIME_SEEDING] = haze__now();
    /* From the data the fit computes with (rounded to float in single
     * precision), which is what the device holds. */
    if (opt->init == HAZE_FCM_INIT_KMEANSPP && pp) {
        if ((st = kmeanspp_parts(ctx, pp, xp, single, d, c, opt->seed, vprev))) goto fail_env;
    } else if (opt->init == HAZE_FCM_INIT_KMEANSPP) {
#ifdef HAZE_HAVE_CUDA
        st = haze__fcm_kmeanspp(ctx, env.gpu, xp, single, n, d, c, opt->seed, vprev);
#else
        st = haze__fcm_kmeanspp(ctx, NULL, xp, single, n, d, c, opt->seed, vprev);
#endif
        if (st) goto fail_env;
    }
    mark[HAZE_FCM_TIME_ITERATIONS] = /* no seeding: 0 s, not the clock's step */
        opt->init == HAZE_FCM_INIT_KMEANSPP ? haze__now() : mark[HAZE_FCM_TIME_SEEDING];
    /* The CPU pass computes the indices at no extra cost; the GPU pass skips
     * them during the iteration (they need a logarithm per membership) and
     * gets them from one extra pass at the end, which computes U(K) and
     * V(K) exactly as the last iteration did. */
    p.indices = 1;
#ifdef HAZE_HAVE_CUDA
    if (env.gpu) p.indices = 0;
#endif
    if (pp && pp->totals) p.indices = 0; /* every part runs the same passes */
    /* V(1) from U(0). */
    if ((st = run_pass(&env, &p))) goto fail_env;
    if ((st = centres_from_sums(ctx, sums, c, d, vk))) goto fail_env;
    double jnext = p.src == HAZE__FCM_SRC_CENTERS
                       ? objective_next(sums, vprev, vk, c, d, single)
                       : NAN; /* random or given U(0): the pass computes J itself */
    int k;
    for (k = 1; k <= maxit; k++) {
        if (gk && (st = gk_norms(&env, &p, vk, opt->gk_reg, ak))) goto fail_env;
        p.v = vk;
        p.a = gk ? ak : NULL;
        p.last = k == maxit;
        if ((st = run_pass(&env, &p))) goto fail_env;
        if (pp && pp->stop_in) {
            /* a part's callback stopped the fit at iteration k - 1, which
             * this pass's exchange told every part: its results stand, with
             * its sums (this pass is dropped) */
            memcpy(sums, sums_prev, nsums * sizeof *sums);
            break;
        }
        if (pp) memcpy(sums_prev, sums, nsums * sizeof *sums);
        double jk = sums[nv + c + HAZE__FCM_J], du = sqrt(sums[nv + c + HAZE__FCM_DU2]);
        if (isnan(jk)) jk = jnext; /* left out by the backend */
        if (isnan(jk)) {
            st = haze__error(ctx, HAZE_ERR_INTERNAL, "fcm: iteration %d has no objective", k);
            goto fail_env;
        }
        r->objective[k - 1] = jk;
        r->change[k - 1] = du;
        r->iterations = k;
        memcpy(r->centers, vk, nv * sizeof *vk);
        if (gk) memcpy(r->norms, ak, na * sizeof *ak);
        if (p.indices) indices_from_sums(r, sums, total);
        int stop = opt->stop == HAZE_FCM_STOP_MEMBERSHIP
                       ? du < opt->tol
                       : (k >= 2 && fabs(jk - r->objective[k - 2]) < opt->tol);
        if (stop) r->converged = 1;
        const int quit = opt->progress && opt->progress(opt->progress_arg, k, jk, du);
        if (quit && pp && !stop && k < maxit) {
            /* one part's callback stops every part: the flag goes with the
             * next pass's sums (no exchange of its own each iteration), and
             * every part ends after that pass, with this iteration's results */
            pp->stop_out = 1;
        } else if (quit) {
            stop = 1;
        }
        if (stop || k == maxit) break;
        /* Next iteration: U(k) is recomputed from V(k), A(k). */
        memcpy(vprev, vk, nv * sizeof *vk);
        if (gk) memcpy(aprev, ak, na * sizeof *ak);
        p.src = HAZE__FCM_SRC_CENTERS;
        p.vp = vprev;
        p.ap = gk ? aprev : NULL;
        if ((st = centres_from_sums(ctx, sums, c, d, vk))) goto fail_env;
        jnext = objective_next(sums, vprev, vk, c, d, single);
    }
    if (pp) pp->stop_out = 0;
    mark[HAZE_FCM_TIME_FINISH] = haze__now();
    if (opt->want_memberships || !p.indices) {
        if (opt->want_memberships &&
            !(r->memberships = malloc((n ? n * c : 1) * sizeof *r->memberships))) {
            st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for %zu x %zu memberships", n,
                             c);
            goto fail_env;
        }
        p.src = HAZE__FCM_SRC_CENTERS; /* source unused for the output but must be valid */
        p.vp = r->centers;
        p.ap = r->norms;
        p.v = r->centers;
        p.a = r->norms;
        p.u_out = r->memberships;
        int had = p.indices;
        p.indices = 1;
        if ((st = run_pass(&env, &p))) goto fail_env;
        if (!had) indices_from_sums(r, sums, total);
    }
    r->degenerate = degeneracy(r, sums);
#ifdef HAZE_HAVE_CUDA
    haze__fcm_cuda_end(env.gpu);
#endif
    free(v);
    free(u0);
    free(xf);
    haze__fcm_parts_free(pp);
    mark[HAZE_FCM_TIME_COUNT] = haze__now();
    for (int i = 0; i < HAZE_FCM_TIME_COUNT; i++) r->timings[i] = mark[i + 1] - mark[i];
    *out = r;
    return HAZE_OK;

fail_env:
#ifdef HAZE_HAVE_CUDA
    haze__fcm_cuda_end(env.gpu);
#endif
    goto fail;
nomem:
    st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory (%zu points x %zu features)", n, d);
fail:
    st = haze__fcm_parts_fail(ctx, pp, st); /* the other parts are in their next step */
    haze__fcm_parts_free(pp);
    haze_fcm_result_free(r);
    free(v);
    free(u0);
    free(xf);
    return st;
}

int haze_fcm_fit(haze_ctx *ctx, const void *x, haze_precision type, size_t n, size_t d,
                 const haze_fcm_options *opt, haze_fcm_result **out) {
    if (out) *out = NULL;
    if (!opt) return haze__error(ctx, HAZE_ERR_INVALID, "fcm: NULL argument");
    haze_fcm_options o = haze_fcm_options_default();
    int take = haze__sized_take(ctx, &o, sizeof o, opt, "haze_fcm_options");
    if (take) return take;
    /* the type and x are checked in fit, where a part fails with the others */
    if (o.device_count == 0 && !o.devices && !o.allgather && haze__ctx_parts(ctx) > 1) {
        o.devices = ctx->devs; /* the context's set (haze/core.h, "Several devices") */
        o.device_count = ctx->ndev;
    }
    if (o.device_count > 1 || (o.device_count == 1 && o.devices))
        return haze__fcm_fit_devices(ctx, x, type, n, d, &o, out);
    return fit(ctx, x, type, n, d, &o, out);
}

int haze__fcm_fit_one(haze_ctx *ctx, const void *x, haze_precision type, size_t n, size_t d,
                      const haze_fcm_options *opt, haze_fcm_result **out) {
    return fit(ctx, x, type, n, d, opt, out);
}

int haze_fcm_predict(haze_ctx *ctx, const haze_fcm_result *model, const double *x, size_t n,
                     size_t d, haze_precision precision, double *u) {
    if (precision != HAZE_PRECISION_F64 && precision != HAZE_PRECISION_F32)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm predict: unknown precision %d",
                           (int)precision);
    const int single = precision == HAZE_PRECISION_F32;
    if (!ctx || !model || !model->centers || (n > 0 && (!x || !u)))
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm predict: NULL argument");
    const size_t c = model->c;
    if (model->d < 1 || c < 2)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fcm predict: the model has %zu centres of %zu features; it needs at "
                           "least 2 centres of at least 1",
                           c, model->d);
    if (!(model->m > 1) || !isfinite(model->m))
        return haze__error(ctx, HAZE_ERR_DOMAIN,
                           "fcm predict: the fuzzifier m must be a finite number > 1, got %g",
                           model->m);
    if (model->metric != HAZE_FCM_EUCLIDEAN && model->metric != HAZE_FCM_GK)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm predict: unknown metric %d",
                           (int)model->metric);
    if (model->metric == HAZE_FCM_GK && !model->norms)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fcm predict: a Gustafson-Kessel model needs its norm matrices");
    if (d != model->d)
        return haze__error(ctx, HAZE_ERR_MISMATCH,
                           "fcm predict: the data has %zu columns but the centres have %zu", d,
                           model->d);
    double *box = span_new(d);
    if (!box) return haze__error(ctx, HAZE_ERR_NOMEM, "fcm predict: out of memory");
    int st = check_finite(ctx, model->centers, 0, c, d, "centre", box, box + d);
    if (!st && model->metric == HAZE_FCM_GK)
        st = check_finite(ctx, model->norms, 0, c, d * d, "norm matrix", NULL, NULL);
    if (!st && n > 0) st = check_finite(ctx, x, 0, n, d, "data", box, box + d);
    if (!st && n > 0) st = check_span(ctx, box, box + d, d, single != 0, "fcm predict");
    free(box);
    if (st || n == 0) return st;
    double *sums = malloc((c * d + c + HAZE__FCM_NSCALAR) * sizeof *sums);
    float *xf = NULL;
    if (!sums || (single && !(xf = malloc(n * d * sizeof *xf)))) {
        free(sums);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm predict: out of memory");
    }
    if (xf)
        for (size_t i = 0; i < n * d; i++) xf[i] = (float)x[i];
    haze__fcm_pass p;
    memset(&p, 0, sizeof p);
    p.x = xf ? (const void *)xf : (const void *)x;
    p.n = n, p.d = d, p.c = c, p.m = model->m, p.single = single != 0;
    p.v = p.vp = model->centers;
    p.a = p.ap = model->metric == HAZE_FCM_GK ? model->norms : NULL;
    p.src = HAZE__FCM_SRC_CENTERS;
    p.u_out = u;
    p.sums = sums;
    p.indices = 1;
    fit_env env;
    memset(&env, 0, sizeof env);
    env.ctx = ctx;
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx) &&
        (st = haze__fcm_cuda_begin(ctx, p.x, n, d, c, p.single, model->metric == HAZE_FCM_GK,
                                   u ? c : 0, &env.gpu)))
        goto done;
#endif
    st = run_pass(&env, &p);
#ifdef HAZE_HAVE_CUDA
    haze__fcm_cuda_end(env.gpu);
done:
#endif
    /* Finite data and centres whose squared distance overflows (|x - v| near
     * 1e154 in float64, 1e19 in float32) give no memberships: say so. */
    for (size_t i = 0; !st && i < n * c; i++)
        if (!isfinite(u[i]))
            st = haze__error(ctx, HAZE_ERR_DOMAIN,
                             "fcm predict: data row %zu: the squared distance to a centre "
                             "overflows %s; rescale the data and the centres",
                             i / c + 1, p.single ? "float32" : "float64");
    free(sums);
    free(xf);
    return st;
}
