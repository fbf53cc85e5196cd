/*
 * src/fuzzy/fuzzy.c - arrays of certified fuzzy numbers: construction from
 * membership functions and cut lists, element-wise operations, the AXPY
 * series (paper's Fig. 2), sort-by-key (Fig. 4), conversions, read-out.
 * The arithmetic itself is the scalar code of haze/fuzzy.h (Algorithms 1-4),
 * run here over the elements with OpenMP; fuzzy_cuda.cu runs the same
 * functions on the GPU, so both backends give the same bits.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/sized.h"
#include "fuzzy/fuzzy_internal.h"

/* CPU threads: one per this many cuts (elements x cuts, x iterations for
 * axpy; about 100 us) at least (haze__threads_for). */
#define FUZZY_PAR_WORK 8192

const char *haze_fuzzy_encoding_name(haze_fuzzy_encoding e) {
    switch (e) {
    case HAZE_FUZZY_LU:
        return "lu";
    case HAZE_FUZZY_MR:
        return "mr";
    case HAZE_FUZZY_MI:
        return "mi";
    }
    return "?";
}

int haze_fuzzy_encoding_parse(haze_ctx *ctx, const char *s, haze_fuzzy_encoding *out) {
    if (!s || !out)
        return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: no encoding name or no output");
    if (strcmp(s, "lu") == 0)
        *out = HAZE_FUZZY_LU;
    else if (strcmp(s, "mr") == 0)
        *out = HAZE_FUZZY_MR;
    else if (strcmp(s, "mi") == 0)
        *out = HAZE_FUZZY_MI;
    else
        return haze__error(ctx, HAZE_ERR_INVALID, "unknown encoding '%s': expected lu, mr or mi",
                           s);
    return HAZE_OK;
}

/*
 * The default level k of n, (n - k)/n, rounded down: a cut is computed at
 * the double level it is given, and the cut at a lower level holds the cut
 * at a higher one, so the cut at RD((n - k)/n) holds the exact (n - k)/n
 * cut, which "level 4/5" means (at RN(4/5) > 4/5, tri(0,1,2)'s cut was
 * strictly inside [0.8, 1.2]).
 */
double haze__fuzzy_level(int n, int k) {
    double q = (double)(n - k) / n;
    if (fma(q, (double)n, -(double)(n - k)) > 0) q = nextafter(q, 0.0); /* q n > n - k exactly */
    return q;
}

int haze_fuzzy_array_new(haze_ctx *ctx, haze_fuzzy_encoding enc, haze_precision prec, int ncuts,
                         size_t count, const double *alphas, haze_fuzzy_array **out) {
    if (!out) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL output pointer");
    *out = NULL;
    if (enc != HAZE_FUZZY_LU && enc != HAZE_FUZZY_MR && enc != HAZE_FUZZY_MI)
        return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: unknown encoding %d", (int)enc);
    if (prec != HAZE_PRECISION_F64 && prec != HAZE_PRECISION_F32)
        return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: unknown precision %d", (int)prec);
    if (ncuts < 1 || ncuts > HAZE_FUZZY_MAX_CUTS)
        return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: %d alpha-cuts, must be 1 to %d", ncuts,
                           HAZE_FUZZY_MAX_CUTS);
    if (alphas) {
        for (int k = 0; k < ncuts; k++) {
            if (!(alphas[k] > 0 && alphas[k] <= 1))
                return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: level %d is %g, not in (0, 1]",
                                   k + 1, alphas[k]);
            if (k > 0 && !(alphas[k] < alphas[k - 1]))
                return haze__error(ctx, HAZE_ERR_INVALID,
                                   "fuzzy: levels must decrease strictly (level %d)", k + 1);
        }
    }
    haze_fuzzy_array *a = calloc(1, sizeof *a);
    if (!a) return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: out of memory");
    a->encoding = enc;
    a->precision = prec;
    a->ncuts = ncuts;
    a->count = count;
    a->stride = enc == HAZE_FUZZY_LU ? 2 * (size_t)ncuts : (size_t)ncuts + 1;
    a->alphas = malloc((size_t)ncuts * sizeof *a->alphas);
    size_t bytes = count * a->stride * haze__fuzzy_elem_size(a);
    a->data = calloc(1, bytes ? bytes : 1);
    if (!a->alphas || !a->data) {
        haze_fuzzy_array_free(a);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: out of memory for %zu numbers", count);
    }
    for (int k = 0; k < ncuts; k++) a->alphas[k] = alphas ? alphas[k] : haze__fuzzy_level(ncuts, k);
    *out = a;
    return HAZE_OK;
}

/*
 * A device array outlives the call that made it, and possibly its context:
 * it keeps the device its memory lives on and a reference to the account
 * that counts it, to free the memory there (the public struct comes first,
 * so a device array is freed through its haze_fuzzy_array pointer).
 */
typedef struct device_array {
    haze_fuzzy_array a;
    haze__dev_acct *acct;
    int device;
} device_array;

static size_t array_bytes(const haze_fuzzy_array *a) {
    return a->count * a->stride * haze__fuzzy_elem_size(a);
}

void haze_fuzzy_array_free(haze_fuzzy_array *a) {
    if (!a) return;
    free(a->alphas);
#ifdef HAZE_HAVE_CUDA
    if (a->on_device) {
        device_array *d = (device_array *)a;
        haze__fuzzy_cuda_free(d->acct, d->device, a->data, array_bytes(a));
        haze__dev_acct_drop(d->acct);
    } else
#endif
        free(a->data);
    free(a);
}

haze__fuzzy_state *haze__fuzzy_state_of(haze_ctx *ctx) {
    return haze__ctx_state(ctx, HAZE__STATE_FUZZY, sizeof(haze__fuzzy_state), NULL);
}

int haze_fuzzy_array_new_device(haze_ctx *ctx, haze_fuzzy_encoding enc, haze_precision prec,
                                int ncuts, size_t count, const double *alphas,
                                haze_fuzzy_array **out) {
    if (!out) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL output pointer");
    *out = NULL;
    if (!haze__use_cuda(ctx))
        return haze__error(ctx, HAZE_ERR_NODEVICE,
                           "fuzzy: device arrays need a context with the CUDA backend");
#ifdef HAZE_HAVE_CUDA
    /* the shape checks and levels of the host constructor, with no numbers */
    haze_fuzzy_array *h = NULL;
    int st = haze_fuzzy_array_new(ctx, enc, prec, ncuts, 0, alphas, &h);
    if (st) return st;
    device_array *d = calloc(1, sizeof *d);
    if (!d) {
        haze_fuzzy_array_free(h);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: out of memory");
    }
    d->a = *h; /* takes the levels */
    free(h->data);
    free(h);
    haze_fuzzy_array *a = &d->a;
    a->data = NULL;
    a->count = count;
    if ((st = haze__fuzzy_cuda_alloc(ctx, array_bytes(a), &a->data))) {
        haze_fuzzy_array_free(a); /* a host array without data yet */
        return st;
    }
    a->on_device = 1;
    d->acct = haze__dev_acct_hold(ctx);
    d->device = haze_ctx_device(ctx);
    *out = a;
    return HAZE_OK;
#else
    (void)enc, (void)prec, (void)ncuts, (void)count, (void)alphas;
    return HAZE_ERR_NODEVICE;
#endif
}

/* Host-only functions refuse device arrays. */
static int host_only(haze_ctx *ctx, const haze_fuzzy_array *a, const char *what) {
    if (a && a->on_device)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fuzzy: %s takes host arrays; copy the device array to one with "
                           "haze_fuzzy_array_copy",
                           what);
    return HAZE_OK;
}

/* ---------------------------------------------------------- construction */

static float f_down(double x) {
    float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}
static float f_up(double x) {
    float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/*
 * Stores number i from its cuts. A caller's cuts must be bounded; `open`
 * (haze_fuzzy_convert) takes the unbounded cuts of a result too: an
 * overflow or a division's hull in one encoding stays an enclosure in
 * another (in midpoint-radius and midpoint-increment an unbounded cut has
 * radius inf, and only the cuts that contain an unbounded kernel lose
 * their midpoint).
 */
static int put_cuts(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, const double *lo,
                    const double *hi, int open, const char *what) {
    if (host_only(ctx, a, what)) return HAZE_ERR_INVALID;
    if (!a || !lo || !hi) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    if (i >= a->count)
        return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: index %zu out of range (%zu numbers)", i,
                           a->count);
    int n = a->ncuts;
    for (int k = 0; k < n; k++) {
        if (open ? isnan(lo[k]) || isnan(hi[k]) : !isfinite(lo[k]) || !isfinite(hi[k]))
            return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: cut %d has a non-finite bound",
                               k + 1);
        if (!(lo[k] <= hi[k]))
            return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: cut %d is inverted [%g, %g]", k + 1,
                               lo[k], hi[k]);
        if (k > 0 && !(lo[k] <= lo[k - 1] && hi[k] >= hi[k - 1]))
            return haze__error(ctx, HAZE_ERR_INVALID,
                               "fuzzy: cut %d does not contain cut %d (cuts must be nested)", k + 1,
                               k);
    }
    if (a->precision == HAZE_PRECISION_F64) {
        double t[2 * HAZE_FUZZY_MAX_CUTS] = {0};
        for (int k = 0; k < n; k++) t[2 * k] = lo[k], t[2 * k + 1] = hi[k];
        double *dst = (double *)a->data + i * a->stride;
        if (a->encoding == HAZE_FUZZY_LU) {
            memcpy(dst, t, 2 * (size_t)n * sizeof *t);
        } else {
            haze_fzlud_to_mr(n, dst, t);
            if (a->encoding == HAZE_FUZZY_MI) haze_fzmrd_to_mi(n, dst, dst);
        }
    } else {
        float t[2 * HAZE_FUZZY_MAX_CUTS] = {0};
        for (int k = 0; k < n; k++) t[2 * k] = f_down(lo[k]), t[2 * k + 1] = f_up(hi[k]);
        for (int k = 0; k < n; k++)
            if ((!isfinite(t[2 * k]) && isfinite(lo[k])) ||
                (!isfinite(t[2 * k + 1]) && isfinite(hi[k])))
                return haze__error(ctx, HAZE_ERR_RANGE, "fuzzy: cut %d overflows single precision",
                                   k + 1);
        float *dst = (float *)a->data + i * a->stride;
        if (a->encoding == HAZE_FUZZY_LU) {
            memcpy(dst, t, 2 * (size_t)n * sizeof *t);
        } else {
            haze_fzluf_to_mr(n, dst, t);
            if (a->encoding == HAZE_FUZZY_MI) haze_fzmrf_to_mi(n, dst, dst);
        }
    }
    return HAZE_OK;
}

int haze_fuzzy_set_cuts(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, const double *lo,
                        const double *hi) {
    return put_cuts(ctx, a, i, lo, hi, 0, "haze_fuzzy_set_cuts");
}

int haze_fuzzy_set_crisp(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, double lo, double hi) {
    double l[HAZE_FUZZY_MAX_CUTS], h[HAZE_FUZZY_MAX_CUTS];
    if (!a) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    for (int k = 0; k < a->ncuts; k++) l[k] = lo, h[k] = hi;
    return haze_fuzzy_set_cuts(ctx, a, i, l, h);
}

int haze_fuzzy_set_tri(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, double l, double m, double u) {
    return haze_fuzzy_set_tri_iv(ctx, a, i, haze_ivd_make(l, l), haze_ivd_make(m, m),
                                 haze_ivd_make(u, u));
}

int haze_fuzzy_set_trap(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, double p, double q, double r,
                        double s) {
    return haze_fuzzy_set_trap_iv(ctx, a, i, haze_ivd_make(p, p), haze_ivd_make(q, q),
                                  haze_ivd_make(r, r), haze_ivd_make(s, s));
}

int haze_fuzzy_set_gauss(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, double mu, double sigma,
                         double kk) {
    return haze_fuzzy_set_gauss_iv(ctx, a, i, haze_ivd_make(mu, mu), haze_ivd_make(sigma, sigma),
                                   haze_ivd_make(kk, kk));
}

/* A parameter enclosure must be finite and not inverted. */
static int bad_param(const haze_ivd *v, int n) {
    for (int k = 0; k < n; k++)
        if (!isfinite(v[k].lo) || !isfinite(v[k].hi) || !(v[k].lo <= v[k].hi)) return 1;
    return 0;
}

int haze_fuzzy_set_tri_iv(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, haze_ivd l, haze_ivd m,
                          haze_ivd u) {
    return haze_fuzzy_set_trap_iv(ctx, a, i, l, m, m, u);
}

/*
 * The cut at level al is [p + al (q - p), s - al (s - r)] = [(1 - al) p + al q,
 * (1 - al) s + al r]: the lower end increases with p and q, the upper end
 * with r and s (0 < al <= 1), so the lower end is computed from the lower
 * ends of the enclosures and the upper end from their upper ends, every step
 * rounded outward.
 */
int haze_fuzzy_set_trap_iv(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, haze_ivd p, haze_ivd q,
                           haze_ivd r, haze_ivd s) {
    if (!a) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    haze_ivd v[4] = {p, q, r, s};
    if (bad_param(v, 4))
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fuzzy: membership parameters must be finite (and each enclosure "
                           "lower <= upper)");
    if (!(p.lo <= q.lo && q.lo <= r.lo && r.lo <= s.lo && p.hi <= q.hi && q.hi <= r.hi &&
          r.hi <= s.hi))
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fuzzy: membership parameters must be ordered (%g <= %g <= %g <= %g)",
                           p.lo, q.lo, r.lo, s.lo);
    double lo[HAZE_FUZZY_MAX_CUTS], hi[HAZE_FUZZY_MAX_CUTS];
    for (int k = 0; k < a->ncuts; k++) {
        double al = a->alphas[k];
        lo[k] = haze_rd_add(p.lo, haze_rd_mul(al, haze_rd_sub(q.lo, p.lo)));
        hi[k] = haze_ru_sub(s.hi, haze_rd_mul(al, haze_rd_sub(s.hi, r.hi)));
        if (lo[k] < p.lo) lo[k] = p.lo; /* the exact bound is >= p */
        if (hi[k] > s.hi) hi[k] = s.hi;
        if (al == 1) lo[k] = q.lo, hi[k] = r.hi; /* the kernel [q, r] itself */
        if (k > 0 && lo[k] > lo[k - 1]) lo[k] = lo[k - 1];
        if (k > 0 && hi[k] < hi[k - 1]) hi[k] = hi[k - 1];
    }
    return haze_fuzzy_set_cuts(ctx, a, i, lo, hi);
}

/*
 * The cut at level al is mu -+ sigma w, w = min(sqrt(-2 ln al), k): the
 * half-width grows with sigma and k, so it is bounded above from their upper
 * ends, and the cut's ends move with mu (lower end from mu's lower end).
 * ln and sqrt are widened: libm's log is within 1 ulp (glibc documents 1-2
 * for some functions), and -log is scaled up by 4 ulps before the
 * upward-rounded sqrt.
 */
int haze_fuzzy_set_gauss_iv(haze_ctx *ctx, haze_fuzzy_array *a, size_t i, haze_ivd mu,
                            haze_ivd sigma, haze_ivd kk) {
    if (!a) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    haze_ivd v[3] = {mu, sigma, kk};
    if (bad_param(v, 3) || !(sigma.hi > 0) || !(kk.hi > 0) || sigma.lo < 0 || kk.lo < 0)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fuzzy: gauss needs a finite mean, sigma > 0 and a truncation k > 0");
    double lo[HAZE_FUZZY_MAX_CUTS], hi[HAZE_FUZZY_MAX_CUTS];
    for (int k = 0; k < a->ncuts; k++) {
        double L = -log(a->alphas[k]); /* >= 0; libm's log is within 1 ulp */
        L = L * (1 + 0x1p-50);         /* log(1) = 0 exactly, so the kernel stays a point */
        double w = haze_ru_sqrt(haze_ru_mul(2, L));
        w = w * (1 + 0x1p-50);
        if (w > kk.hi) w = kk.hi;
        w = haze_ru_mul(sigma.hi, w);
        lo[k] = haze_rd_sub(mu.lo, w);
        hi[k] = haze_ru_add(mu.hi, w);
        if (k > 0 && lo[k] > lo[k - 1]) lo[k] = lo[k - 1];
        if (k > 0 && hi[k] < hi[k - 1]) hi[k] = hi[k - 1];
        /* finite parameters whose cut passes the largest double: say so
         * (set_cuts would call it a non-finite bound the caller gave) */
        if (!isfinite(lo[k]) || !isfinite(hi[k]))
            return haze__error(ctx, HAZE_ERR_RANGE,
                               "fuzzy: gauss parameters overflow double precision: the cut at "
                               "level %g, mu -+ sigma min(sqrt(-2 ln level), k), is unbounded",
                               a->alphas[k]);
    }
    return haze_fuzzy_set_cuts(ctx, a, i, lo, hi);
}

/* -------------------------------------------------------------- read-out */

int haze_fuzzy_get_cut(haze_ctx *ctx, const haze_fuzzy_array *a, size_t i, int k, double *lo,
                       double *hi) {
    if (!a || !lo || !hi) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    if (i >= a->count || k < 0 || k >= a->ncuts)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fuzzy: no cut %d of number %zu (%zu numbers of %d cuts)", k, i,
                           a->count, a->ncuts);
    if (a->on_device)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fuzzy: read-out of a device array (copy it to the host)");
    int n = a->ncuts;
    if (a->precision == HAZE_PRECISION_F64) {
        const double *x = (const double *)a->data + i * a->stride;
        double t[HAZE_FUZZY_MAX_CUTS + 1] = {0}, c[2 * HAZE_FUZZY_MAX_CUTS] = {0};
        if (a->encoding == HAZE_FUZZY_LU) {
            *lo = x[2 * k], *hi = x[2 * k + 1];
            return HAZE_OK;
        }
        if (a->encoding == HAZE_FUZZY_MI) {
            haze_fzmid_to_mr(n, t, x);
            x = t;
        }
        haze_fzmrd_to_lu(n, c, x);
        *lo = c[2 * k], *hi = c[2 * k + 1];
    } else {
        const float *x = (const float *)a->data + i * a->stride;
        float t[HAZE_FUZZY_MAX_CUTS + 1] = {0}, c[2 * HAZE_FUZZY_MAX_CUTS] = {0};
        if (a->encoding == HAZE_FUZZY_LU) {
            *lo = x[2 * k], *hi = x[2 * k + 1];
            return HAZE_OK;
        }
        if (a->encoding == HAZE_FUZZY_MI) {
            haze_fzmif_to_mr(n, t, x);
            x = t;
        }
        haze_fzmrf_to_lu(n, c, x);
        *lo = c[2 * k], *hi = c[2 * k + 1];
    }
    return HAZE_OK;
}

int haze_fuzzy_hull(haze_ctx *ctx, const haze_fuzzy_array *a, size_t i, double alpha, double *lo,
                    double *hi) {
    if (!a || !lo || !hi) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    if (i >= a->count || a->on_device) return haze_fuzzy_get_cut(ctx, a, i, 0, lo, hi);
    if (!(alpha > 0 && alpha <= 1))
        return haze__error(ctx, HAZE_ERR_DOMAIN, "fuzzy: level %g is outside (0, 1]", alpha);
    for (int k = 0; k < a->ncuts; k++)
        if (a->alphas[k] <= alpha) return haze_fuzzy_get_cut(ctx, a, i, k, lo, hi);
    /* below the lowest level: no certified hull */
    return haze__error(ctx, HAZE_ERR_DOMAIN, "fuzzy: level %g is below the lowest level %g", alpha,
                       a->alphas[a->ncuts - 1]);
}

int haze_fuzzy_centroid(haze_ctx *ctx, const haze_fuzzy_array *a, size_t i, double *value) {
    double num = 0, den = 0, lo, hi;
    if (!value) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    int st = haze_fuzzy_get_cut(ctx, a, i, 0, &lo, &hi);
    if (st) return st;
    for (int k = 0; k < a->ncuts; k++) {
        haze_fuzzy_get_cut(ctx, a, i, k, &lo, &hi);
        double next = k + 1 < a->ncuts ? a->alphas[k + 1] : 0;
        double w = (a->alphas[k] - next) * (hi - lo);
        num += w * (0.5 * lo + 0.5 * hi);
        den += w;
    }
    if (den > 0 && isfinite(num / den)) {
        *value = num / den;
    } else {
        haze_fuzzy_get_cut(ctx, a, i, 0, &lo, &hi);
        *value = 0.5 * lo + 0.5 * hi;
    }
    return HAZE_OK;
}

/* ------------------------------------------------------------ operations */

typedef int (*bin_d)(int, double *, const double *, const double *);
typedef int (*un_d)(int, double *, const double *);
typedef int (*bin_f)(int, float *, const float *, const float *);
typedef int (*un_f)(int, float *, const float *);

int haze__fuzzy_apply(haze_fuzzy_encoding enc, haze_precision prec, haze_fuzzy_opcode op, int n,
                      void *c, const void *a, const void *b) {
    static const bin_d bd[3][4] = {
        {haze_fzlud_add, haze_fzlud_sub, haze_fzlud_mul, haze_fzlud_div},
        {haze_fzmrd_add, haze_fzmrd_sub, haze_fzmrd_mul, haze_fzmrd_div},
        {haze_fzmid_add, haze_fzmid_sub, haze_fzmid_mul, haze_fzmid_div}};
    static const un_d ud[3][4] = {
        {haze_fzlud_neg, haze_fzlud_recip, haze_fzlud_sqr, haze_fzlud_sqrt},
        {haze_fzmrd_neg, haze_fzmrd_recip, haze_fzmrd_sqr, haze_fzmrd_sqrt},
        {haze_fzmid_neg, haze_fzmid_recip, haze_fzmid_sqr, haze_fzmid_sqrt}};
    static const bin_f bf[3][4] = {
        {haze_fzluf_add, haze_fzluf_sub, haze_fzluf_mul, haze_fzluf_div},
        {haze_fzmrf_add, haze_fzmrf_sub, haze_fzmrf_mul, haze_fzmrf_div},
        {haze_fzmif_add, haze_fzmif_sub, haze_fzmif_mul, haze_fzmif_div}};
    static const un_f uf[3][4] = {
        {haze_fzluf_neg, haze_fzluf_recip, haze_fzluf_sqr, haze_fzluf_sqrt},
        {haze_fzmrf_neg, haze_fzmrf_recip, haze_fzmrf_sqr, haze_fzmrf_sqrt},
        {haze_fzmif_neg, haze_fzmif_recip, haze_fzmif_sqr, haze_fzmif_sqrt}};
    int o = (int)op;
    if (prec == HAZE_PRECISION_F64) return o < 4 ? bd[enc][o](n, c, a, b) : ud[enc][o - 4](n, c, a);
    return o < 4 ? bf[enc][o](n, c, a, b) : uf[enc][o - 4](n, c, a);
}

static int same_shape(haze_ctx *ctx, const haze_fuzzy_array *x, const haze_fuzzy_array *y,
                      const char *what) {
    if (x->on_device != y->on_device)
        return haze__error(ctx, HAZE_ERR_MISMATCH,
                           "fuzzy: %s: one array is in device memory, the other in host memory",
                           what);
    if (x->encoding != y->encoding || x->precision != y->precision || x->ncuts != y->ncuts)
        return haze__error(ctx, HAZE_ERR_MISMATCH,
                           "fuzzy: %s: operands differ in encoding (%s/%s), precision or number "
                           "of cuts (%d/%d)",
                           what, haze_fuzzy_encoding_name(x->encoding),
                           haze_fuzzy_encoding_name(y->encoding), x->ncuts, y->ncuts);
    for (int k = 0; k < x->ncuts; k++)
        if (x->alphas[k] != y->alphas[k])
            return haze__error(ctx, HAZE_ERR_MISMATCH, "fuzzy: %s: operands have different levels",
                               what);
    return HAZE_OK;
}

/* Device arrays run on the CUDA backend only. */
static int device_backend(haze_ctx *ctx, const haze_fuzzy_array *a) {
    if (a->on_device && !haze__use_cuda(ctx))
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fuzzy: device arrays need a context with the CUDA backend");
    return HAZE_OK;
}

int haze_fuzzy_array_copy(haze_ctx *ctx, haze_fuzzy_array *dst, const haze_fuzzy_array *src) {
    if (!src || !dst) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    if (src->encoding != dst->encoding || src->precision != dst->precision ||
        src->ncuts != dst->ncuts || src->count != dst->count)
        return haze__error(ctx, HAZE_ERR_MISMATCH,
                           "fuzzy: copy needs the same encoding, precision, cuts and count");
    for (int k = 0; k < src->ncuts; k++)
        if (src->alphas[k] != dst->alphas[k])
            return haze__error(ctx, HAZE_ERR_MISMATCH, "fuzzy: copy: different levels");
    if (!src->on_device && !dst->on_device) {
        memmove(dst->data, src->data, array_bytes(src));
        return HAZE_OK;
    }
#ifdef HAZE_HAVE_CUDA
    return haze__fuzzy_cuda_copy(ctx, dst->data, src->data, array_bytes(src));
#else
    return haze__error(ctx, HAZE_ERR_NODEVICE, "fuzzy: device arrays need CUDA");
#endif
}

static int is_binary(haze_fuzzy_opcode op) {
    return op <= HAZE_FUZZY_DIV;
}

int haze_fuzzy_op_options_init(haze_fuzzy_op_options *opt, size_t size) {
    haze_fuzzy_op_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    return haze__sized_init(opt, size, &o, sizeof o);
}

int haze_fuzzy_op(haze_ctx *ctx, haze_fuzzy_opcode op, const haze_fuzzy_array *a,
                  const haze_fuzzy_array *b, const haze_fuzzy_op_options *opt,
                  haze_fuzzy_array *c) {
    haze_fuzzy_op_options o = haze_fuzzy_op_options_default();
    int take = haze__sized_take(ctx, &o, sizeof o, opt, "haze_fuzzy_op_options");
    if (take) return take;
    if (!a || !c || (is_binary(op) && !b))
        return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL operand");
    if ((int)op < 0 || op > HAZE_FUZZY_SQRT)
        return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: unknown operation %d", (int)op);
    int st = same_shape(ctx, a, c, "result");
    if (st) return st;
    if (is_binary(op)) {
        if ((st = same_shape(ctx, a, b, "operands"))) return st;
        if (b->count != a->count && b->count != 1)
            return haze__error(ctx, HAZE_ERR_MISMATCH, "fuzzy: %zu and %zu numbers", a->count,
                               b->count);
    }
    if (c->count != a->count)
        return haze__error(ctx, HAZE_ERR_MISMATCH, "fuzzy: result holds %zu numbers, need %zu",
                           c->count, a->count);
    if ((st = device_backend(ctx, a))) return st;
    /* the bits that count: a division's domain bit is no problem with the hull flag */
    int keep = HAZE_FUZZY_DOMAIN_BIT | HAZE_FUZZY_OVERFLOW_BIT;
    if (o.div_hull && (op == HAZE_FUZZY_DIV || op == HAZE_FUZZY_RECIP))
        keep = HAZE_FUZZY_OVERFLOW_BIT;
    size_t first[2] = {SIZE_MAX, SIZE_MAX};
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx)) {
        st = haze__fuzzy_op_cuda(ctx, op, a, b, c, keep, first);
        if (st) return st;
    } else
#endif
    {
        size_t es = haze__fuzzy_elem_size(a) * a->stride, n = a->count;
        size_t bstep = is_binary(op) && b->count == n ? es : 0;
        const char *pa = a->data, *pb = is_binary(op) ? b->data : NULL;
        char *pc = c->data;
        long long nn = (long long)n;
        size_t fd = SIZE_MAX, fo = SIZE_MAX;
        const int nt = haze__threads_for(ctx, (double)nn * (double)a->ncuts, FUZZY_PAR_WORK);
#pragma omp parallel for num_threads(nt) reduction(min : fd, fo) schedule(static) if (nt > 1)
        for (long long j = 0; j < nn; j++) {
            size_t i = (size_t)j;
            int f = keep & haze__fuzzy_apply(a->encoding, a->precision, op, a->ncuts, pc + i * es,
                                             pa + i * es, pb ? pb + i * bstep : NULL);
            if ((f & HAZE_FUZZY_DOMAIN_BIT) && i < fd) fd = i;
            if ((f & HAZE_FUZZY_OVERFLOW_BIT) && i < fo) fo = i;
        }
        first[0] = fd, first[1] = fo;
    }
    if (first[0] != SIZE_MAX)
        return haze__error(ctx, HAZE_ERR_DOMAIN, "fuzzy: element %zu: %s", first[0],
                           op == HAZE_FUZZY_SQRT ? "square root of a number with negative values"
                                                 : "the divisor's support contains 0");
    if (first[1] != SIZE_MAX)
        return haze__error(ctx, HAZE_ERR_RANGE,
                           "fuzzy: element %zu: the result overflows %s precision (unbounded "
                           "cuts)",
                           first[1], a->precision == HAZE_PRECISION_F32 ? "single" : "double");
    return HAZE_OK;
}

int haze_fuzzy_axpy(haze_ctx *ctx, const haze_fuzzy_array *a, const haze_fuzzy_array *b, int iters,
                    haze_fuzzy_array *y) {
    if (!a || !b || !y) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL operand");
    int st = same_shape(ctx, a, b, "axpy");
    if (st || (st = same_shape(ctx, a, y, "axpy"))) return st;
    if (b->count != 1 || y->count != a->count || iters < 0)
        return haze__error(ctx, HAZE_ERR_MISMATCH,
                           "fuzzy: axpy needs b with one number, y as long as a, iters >= 0");
    if ((st = device_backend(ctx, a))) return st;
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx)) return haze__fuzzy_axpy_cuda(ctx, a, b, iters, y);
#endif
    size_t es = haze__fuzzy_elem_size(a) * a->stride;
    long long nn = (long long)a->count;
    const int nt =
        haze__threads_for(ctx, (double)nn * (double)a->ncuts * (double)iters, FUZZY_PAR_WORK);
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (long long j = 0; j < nn; j++) {
        double buf[2][2 * HAZE_FUZZY_MAX_CUTS];
        char *yc = (char *)y->data + (size_t)j * es;
        const char *ac = (const char *)a->data + (size_t)j * es;
        memset(yc, 0, es);
        for (int it = 0; it < iters; it++) {
            haze__fuzzy_apply(a->encoding, a->precision, HAZE_FUZZY_MUL, a->ncuts, buf[0], ac, yc);
            haze__fuzzy_apply(a->encoding, a->precision, HAZE_FUZZY_ADD, a->ncuts, yc, buf[0],
                              b->data);
        }
        (void)buf[1];
    }
    return HAZE_OK;
}

int haze_fuzzy_sort_by_key(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a) {
    if (!a || (!keys && a->count))
        return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    int st = device_backend(ctx, a);
    if (st) return st;
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx)) return haze__fuzzy_sort_cuda(ctx, keys, a);
#endif
    size_t n = a->count, es = haze__fuzzy_elem_size(a) * a->stride;
    uint32_t *k2 = malloc((n ? n : 1) * sizeof *k2);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), *idx2 = malloc((n ? n : 1) * sizeof *idx2);
    char *d2 = malloc(n ? n * es : 1);
    if (!k2 || !idx || !idx2 || !d2) {
        free(k2), free(idx), free(idx2), free(d2);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: out of memory sorting %zu numbers", n);
    }
    /* LSD radix sort on 8-bit digits: stable, like CUB's */
    for (size_t i = 0; i < n; i++) idx[i] = i;
    for (int pass = 0; pass < 4; pass++) {
        size_t cnt[257] = {0};
        int sh = 8 * pass;
        for (size_t i = 0; i < n; i++) cnt[((keys[idx[i]] >> sh) & 255) + 1]++;
        for (int d = 0; d < 256; d++) cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; i++) idx2[cnt[(keys[idx[i]] >> sh) & 255]++] = idx[i];
        size_t *t = idx;
        idx = idx2;
        idx2 = t;
    }
    for (size_t i = 0; i < n; i++) {
        k2[i] = keys[idx[i]];
        memcpy(d2 + i * es, (char *)a->data + idx[i] * es, es);
    }
    memcpy(keys, k2, n * sizeof *keys);
    memcpy(a->data, d2, n * es);
    free(k2), free(idx), free(idx2), free(d2);
    return HAZE_OK;
}

int haze_fuzzy_convert(haze_ctx *ctx, const haze_fuzzy_array *src, haze_fuzzy_array *dst) {
    if (!src || !dst) return haze__error(ctx, HAZE_ERR_INVALID, "fuzzy: NULL argument");
    if (host_only(ctx, src, "haze_fuzzy_convert") || host_only(ctx, dst, "haze_fuzzy_convert"))
        return HAZE_ERR_INVALID;
    if (src->count != dst->count || src->ncuts != dst->ncuts)
        return haze__error(ctx, HAZE_ERR_MISMATCH, "fuzzy: convert needs the same count and cuts");
    double lo[HAZE_FUZZY_MAX_CUTS], hi[HAZE_FUZZY_MAX_CUTS];
    for (size_t i = 0; i < src->count; i++) {
        for (int k = 0; k < src->ncuts; k++) haze_fuzzy_get_cut(ctx, src, i, k, &lo[k], &hi[k]);
        int st = put_cuts(ctx, dst, i, lo, hi, 1, "haze_fuzzy_convert");
        if (st) return st;
    }
    return HAZE_OK;
}
