/*
 * src/fnn/fnn.c - SONFIN (seed 001, section 2.2): the network, its structure
 * learning and its gradient-descent parameter learning, CPU reference.
 *
 * Layers (section 2.2): M_kj = exp(-(x_j - m_kj)^2 / sigma_kj^2) (layer 2),
 * mu_k = prod_j M_kj (layer 3), y_l = sum_k w_kl mu_k / sum_k mu_k (layer 4).
 * The product of thousands of memberships underflows, so layer 3 is kept as
 * log mu_k = -sum_j (x_j - m_kj)^2 / sigma_kj^2 and layer 4 normalises with
 * phi_k = exp(log mu_k - max_i log mu_i) / sum_i exp(log mu_i - max): the
 * same quotient, shifted so that the largest term is exactly 1.
 *
 * Gradients of E = 1/2 sum_l (y_l - d_l)^2, e_l = y_l - d_l (the thesis's
 * sigma update has typos; these are derived afresh, docs/fnn.md):
 *   dE/dw_kl      = e_l phi_k
 *   dE/dlog mu_k  = g_k = phi_k sum_l e_l (w_kl - y_l)
 *   dE/dm_kj      = g_k * 2 (x_j - m_kj) / sigma_kj^2
 *   dE/dsigma_kj  = g_k * 2 (x_j - m_kj)^2 / sigma_kj^3
 * Structure learning (section 2.2, Fig. 6): a rule is made for x when
 * max_k mu_k^(1/D) <= mu_th(epoch) = threshold * decay^epoch; centre x,
 * widths beta * ||x - m_K|| / sqrt(D) (the root-mean-square distance per input),
 * K the strongest rule (or one fixed width, option `width`); consequent w = d.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "core/rng.h"
#include "core/sized.h"
#include "fnn/fnn_internal.h"

/* Below this many multiply-adds a kernel runs on one thread: the fork costs more. */
#define PAR_WORK 32768

int haze_fnn_options_init(haze_fnn_options *opt, size_t size) {
    haze_fnn_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.epochs = 20;
    o.threshold = 0.8;
    o.decay = 0.5;
    o.beta = 0.5;
    o.width = 1.5;
    o.sigma0 = 1.0;
    o.rate = 0.05;
    o.batch = 1;
    o.max_rules = 0;
    o.seed = 1;
    o.shuffle = 1;
    o.validation = 0.1;
    o.step = NULL;
    o.step_every = 4096;
    return haze__sized_init(opt, size, &o, sizeof o);
}

int haze_fnn_new(haze_ctx *ctx, size_t inputs, size_t outputs, haze_fnn **out) {
    if (!out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_new: out is NULL");
    *out = NULL;
    if (inputs == 0 || outputs == 0)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "haze_fnn_new: need at least one input and one output (got %zu, %zu)",
                           inputs, outputs);
    haze_fnn *net = calloc(1, sizeof *net);
    if (!net) return haze__error(ctx, HAZE_ERR_NOMEM, "haze_fnn_new: out of memory");
    net->D = inputs;
    net->file_version = HAZE_FNN_FILE_VERSION;
    net->L = outputs;
    net->mean = calloc(inputs, sizeof *net->mean);
    net->scale = malloc(inputs * sizeof *net->scale);
    net->tmean = calloc(outputs, sizeof *net->tmean);
    net->tscale = malloc(outputs * sizeof *net->tscale);
    if (!net->mean || !net->scale || !net->tmean || !net->tscale) {
        haze_fnn_free(net);
        return haze__error(ctx, HAZE_ERR_NOMEM, "haze_fnn_new: out of memory");
    }
    for (size_t j = 0; j < inputs; j++) net->scale[j] = 1.0;
    for (size_t l = 0; l < outputs; l++) net->tscale[l] = 1.0;
    *out = net;
    return HAZE_OK;
}

static void free_names(char **v, size_t n) {
    if (!v) return;
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void haze_fnn_free(haze_fnn *net) {
    if (!net) return;
    free(net->m);
    free(net->s);
    free(net->w);
    free(net->mean);
    free(net->scale);
    free(net->tmean);
    free(net->tscale);
    free_names(net->classes, net->L);
    free_names(net->inames, net->D);
    free(net->target);
    free(net);
}

size_t haze_fnn_input_count(const haze_fnn *net) {
    return net ? net->D : 0;
}
size_t haze_fnn_output_count(const haze_fnn *net) {
    return net ? net->L : 0;
}
size_t haze_fnn_rule_count(const haze_fnn *net) {
    return net ? net->R : 0;
}
int haze_fnn_file_version(const haze_fnn *net) {
    return net ? net->file_version : 0;
}
int haze_fnn_is_classifier(const haze_fnn *net) {
    return net ? net->classifier : 0;
}
double *haze_fnn_centres(haze_fnn *net) {
    return net ? net->m : NULL;
}
double *haze_fnn_widths(haze_fnn *net) {
    return net ? net->s : NULL;
}
double *haze_fnn_weights(haze_fnn *net) {
    return net ? net->w : NULL;
}
const double *haze_fnn_mean(const haze_fnn *net) {
    return net ? net->mean : NULL;
}
const double *haze_fnn_scale(const haze_fnn *net) {
    return net ? net->scale : NULL;
}
const double *haze_fnn_target_mean(const haze_fnn *net) {
    return net ? net->tmean : NULL;
}
const double *haze_fnn_target_scale(const haze_fnn *net) {
    return net ? net->tscale : NULL;
}

const char *haze_fnn_class_name(const haze_fnn *net, size_t k) {
    if (!net || !net->classifier || !net->classes || k >= net->L) return NULL;
    return net->classes[k];
}
const char *haze_fnn_input_name(const haze_fnn *net, size_t j) {
    if (!net || !net->inames || j >= net->D) return NULL;
    return net->inames[j];
}
const char *haze_fnn_target_name(const haze_fnn *net) {
    return net ? net->target : NULL;
}

/* An exact copy of a name; the model file quotes names where needed, but a
 * record is one line, so line breaks are refused. */
static int name_dup(haze_ctx *ctx, const char *fn, const char *s, char **out) {
    if (strpbrk(s, "\r\n"))
        return haze__error(ctx, HAZE_ERR_INVALID, "%s: a name cannot hold a line break", fn);
    if (!(*out = strdup(s))) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", fn);
    return HAZE_OK;
}

int haze_fnn_set_classes(haze_ctx *ctx, haze_fnn *net, const char *const *names, size_t n) {
    if (!net || !names || n != net->L)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "haze_fnn_set_classes: need one name per output (%zu), got %zu",
                           net ? net->L : 0, n);
    char **v = calloc(n, sizeof *v);
    if (!v) return haze__error(ctx, HAZE_ERR_NOMEM, "haze_fnn_set_classes: out of memory");
    for (size_t i = 0; i < n; i++) {
        int st = name_dup(ctx, "haze_fnn_set_classes", names[i] ? names[i] : "", &v[i]);
        if (st) {
            free_names(v, n);
            return st;
        }
    }
    free_names(net->classes, net->L);
    net->classes = v;
    net->classifier = 1;
    return HAZE_OK;
}

int haze_fnn_set_names(haze_ctx *ctx, haze_fnn *net, const char *const *inputs,
                       const char *target) {
    if (!net) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_set_names: net is NULL");
    char **v = NULL;
    char *t = NULL;
    int st = HAZE_OK;
    if (inputs) {
        v = calloc(net->D, sizeof *v);
        if (!v) {
            st = haze__error(ctx, HAZE_ERR_NOMEM, "haze_fnn_set_names: out of memory");
            goto fail;
        }
        for (size_t j = 0; j < net->D; j++)
            if (inputs[j] && (st = name_dup(ctx, "haze_fnn_set_names", inputs[j], &v[j])))
                goto fail;
    }
    if (target && (st = name_dup(ctx, "haze_fnn_set_names", target, &t))) goto fail;
    free_names(net->inames, net->D);
    free(net->target);
    net->inames = v;
    net->target = t;
    return HAZE_OK;
fail:
    free_names(v, net->D);
    free(t);
    return st;
}

int haze__fnn_reserve(haze_ctx *ctx, haze_fnn *net, size_t rules) {
    if (rules <= net->cap) return HAZE_OK;
    /* cap * D and cap * L doubles must not wrap around size_t (a huge
     * request would else get a small array) */
    size_t width = net->D > net->L ? net->D : net->L;
    if (rules > SIZE_MAX / 2 / sizeof(double) / width)
        return haze__error(ctx, HAZE_ERR_NOMEM, "fnn: out of memory for %zu rules", rules);
    size_t cap = net->cap ? net->cap : 16;
    while (cap < rules) cap *= 2;
    double *m = realloc(net->m, cap * net->D * sizeof *m);
    if (m) net->m = m;
    double *s = m ? realloc(net->s, cap * net->D * sizeof *s) : NULL;
    if (s) net->s = s;
    double *w = s ? realloc(net->w, cap * net->L * sizeof *w) : NULL;
    if (!w) return haze__error(ctx, HAZE_ERR_NOMEM, "fnn: out of memory for %zu rules", cap);
    net->w = w;
    net->cap = cap;
    return HAZE_OK;
}

/* ------------------------------------------------------------ CPU kernels */

/* Layer 2 and 3 for one sample and one rule: log mu_k. */
double haze__fnn_log_firing(const haze_fnn *net, const double *z, size_t k) {
    const double *m = net->m + k * net->D, *s = net->s + k * net->D;
    double acc = 0.0;
    for (size_t j = 0; j < net->D; j++) {
        double t = (z[j] - m[j]) / s[j];
        acc += t * t;
    }
    return -acc;
}

/* lm[i * R + k] = log mu_k(z_i) for rules [0, R). */
static void log_firing_all(const haze_fnn *net, const double *z, const size_t *idx, size_t B,
                           double *lm, int threads) {
    size_t R = net->R, D = net->D;
    long long total = (long long)(B * R);
#pragma omp parallel for num_threads(threads) if (B * R * D > PAR_WORK) schedule(static)
    for (long long t = 0; t < total; t++) {
        size_t i = (size_t)t / R, k = (size_t)t % R;
        lm[t] = haze__fnn_log_firing(net, z + (idx ? idx[i] : i) * D, k);
    }
}

/* Layer 4 for one sample: turns its row of log firings into phi (in place)
 * and writes y (L values). */
static void normalise(const haze_fnn *net, double *lm, double *y) {
    size_t R = net->R, L = net->L;
    double mx = -INFINITY;
    for (size_t k = 0; k < R; k++)
        if (lm[k] > mx) mx = lm[k];
    double sum = 0.0;
    for (size_t k = 0; k < R; k++) {
        double t = lm[k] - mx;
        lm[k] = t < HAZE__FNN_LOG_CUTOFF ? 0.0 : exp(t);
        sum += lm[k];
    }
    for (size_t l = 0; l < L; l++) y[l] = 0.0;
    for (size_t k = 0; k < R; k++) {
        double p = lm[k] / sum;
        lm[k] = p;
        const double *w = net->w + k * L;
        for (size_t l = 0; l < L; l++) y[l] += p * w[l];
    }
}

static size_t argmax(const double *v, size_t n) {
    size_t b = 0;
    for (size_t i = 1; i < n; i++)
        if (v[i] > v[b]) b = i;
    return b;
}

int haze__fnn_forward_cpu(haze_ctx *ctx, const haze_fnn *net, const double *z, size_t n,
                          double *y) {
    size_t R = net->R;
    int threads = haze__threads(ctx);
    /* Blocks of samples keep the scratch small for large n. */
    size_t blk = 256;
    double *lm = malloc(blk * R * sizeof *lm);
    if (!lm) return haze__error(ctx, HAZE_ERR_NOMEM, "fnn predict: out of memory");
    for (size_t i0 = 0; i0 < n; i0 += blk) {
        size_t B = n - i0 < blk ? n - i0 : blk;
        log_firing_all(net, z + i0 * net->D, NULL, B, lm, threads);
        long long bb = (long long)B;
#pragma omp parallel for num_threads(threads) if (B * R > PAR_WORK / 4)
        for (long long i = 0; i < bb; i++)
            normalise(net, lm + (size_t)i * R, y + (i0 + (size_t)i) * net->L);
    }
    free(lm);
    return HAZE_OK;
}

/* Appends a rule centred at z with consequent d; K is the strongest rule
 * (ignored for the first one). */
int haze__fnn_add_rule(haze_ctx *ctx, haze_fnn *net, const double *z, const double *d, size_t K,
                       const haze_fnn_options *o) {
    int st = haze__fnn_reserve(ctx, net, net->R + 1);
    if (st) return st;
    size_t D = net->D, R = net->R;
    double width = o->width > 0.0 ? o->width : o->sigma0;
    if (R > 0 && !(o->width > 0.0)) {
        const double *mK = net->m + K * D;
        double dist = 0.0;
        for (size_t j = 0; j < D; j++) dist += (z[j] - mK[j]) * (z[j] - mK[j]);
        width = o->beta * sqrt(dist / (double)D);
    }
    if (!(width >= HAZE__FNN_SIGMA_MIN)) width = HAZE__FNN_SIGMA_MIN;
    memcpy(net->m + R * D, z, D * sizeof *z);
    for (size_t j = 0; j < D; j++) net->s[R * D + j] = width;
    memcpy(net->w + R * net->L, d, net->L * sizeof *d);
    net->R = R + 1;
    return HAZE_OK;
}

/*
 * One step on the samples idx[0..B): structure learning sample by sample,
 * then one gradient step with the mean gradient of the batch (B = 1 is the
 * thesis's online learning).
 */
static int batch_step(haze_ctx *ctx, haze_fnn *net, haze__fnn_train_args *a, const size_t *idx,
                      size_t B, double **lm_buf, size_t *lm_cap, double *yb, double *gbuf) {
    const haze_fnn_options *o = a->opt;
    size_t D = net->D, L = net->L, R0 = net->R;
    int threads = haze__threads(ctx);
    size_t need = B * (R0 + B);
    if (need > *lm_cap) {
        double *p = realloc(*lm_buf, need * sizeof *p);
        if (!p) return haze__error(ctx, HAZE_ERR_NOMEM, "fnn train: out of memory");
        *lm_buf = p;
        *lm_cap = need;
    }
    double *lm = *lm_buf;
    /* Structure learning. */
    log_firing_all(net, a->z, idx, B, lm, threads);
    for (size_t i = 0; i < B; i++) {
        const double *z = a->z + idx[i] * D;
        double best = -INFINITY;
        size_t K = 0;
        for (size_t k = 0; k < R0; k++)
            if (lm[i * R0 + k] > best) best = lm[i * R0 + k], K = k;
        for (size_t k = R0; k < net->R; k++) { /* rules made earlier in this batch */
            double v = haze__fnn_log_firing(net, z, k);
            if (v > best) best = v, K = k;
        }
        if ((net->R == 0 || best / (double)D <= a->log_th) &&
            (o->max_rules == 0 || net->R < o->max_rules)) {
            int st = haze__fnn_add_rule(ctx, net, z, a->d + idx[i] * L, K, o);
            if (st) return st;
        }
    }
    size_t R = net->R;
    if (R != R0) log_firing_all(net, a->z, idx, B, lm, threads);
    /* Forward: phi and y per sample; the error before the update. */
    for (size_t i = 0; i < B; i++) {
        double *y = yb + i * L;
        const double *d = a->d + idx[i] * L;
        normalise(net, lm + i * R, y);
        double e2 = 0.0;
        for (size_t l = 0; l < L; l++) {
            y[l] -= d[l]; /* y now holds e = y - d; y itself is e + d */
            e2 += y[l] * y[l];
        }
        a->loss_sum += 0.5 * e2;
        if (net->classifier) {
            size_t best = 0;
            for (size_t l = 1; l < L; l++)
                if (y[l] + d[l] > y[best] + d[best]) best = l;
            if (best == argmax(d, L)) a->correct++;
        }
    }
    /* Parameter learning, one rule per task: no two tasks touch the same
     * parameter, so the update needs no reduction across threads. */
    double step = o->rate / (double)B;
    long long RR = (long long)R;
#pragma omp parallel for num_threads(threads) if (R * D * B > PAR_WORK) schedule(static)
    for (long long kk = 0; kk < RR; kk++) {
        size_t k = (size_t)kk;
#ifdef _OPENMP
        double *g = gbuf + (size_t)omp_get_thread_num() * B;
#else
        double *g = gbuf;
#endif
        double *w = net->w + k * L, *m = net->m + k * D, *s = net->s + k * D;
        int any = 0;
        for (size_t i = 0; i < B; i++) {
            const double *e = yb + i * L, *d = a->d + idx[i] * L;
            double phi = lm[i * R + k], acc = 0.0;
            /* w_kl - y_l with y_l = e_l + d_l */
            for (size_t l = 0; l < L; l++) acc += e[l] * (w[l] - (e[l] + d[l]));
            g[i] = phi * acc;
            if (g[i] != 0.0) any = 1;
        }
        for (size_t l = 0; l < L; l++) {
            double gw = 0.0;
            for (size_t i = 0; i < B; i++) gw += yb[i * L + l] * lm[i * R + k];
            w[l] -= step * gw;
        }
        if (!any) continue;
        for (size_t j = 0; j < D; j++) {
            double mj = m[j], sj = s[j], inv = 1.0 / sj, gm = 0.0, gs = 0.0;
            for (size_t i = 0; i < B; i++) {
                double diff = a->z[idx[i] * D + j] - mj;
                double t = 2.0 * g[i] * diff * inv * inv;
                gm += t;
                gs += t * diff * inv;
            }
            m[j] = mj - step * gm;
            double ns = sj - step * gs;
            s[j] = ns >= HAZE__FNN_SIGMA_MIN ? ns : HAZE__FNN_SIGMA_MIN;
        }
    }
    return HAZE_OK;
}

int haze__fnn_epoch_cpu(haze_ctx *ctx, haze_fnn *net, haze__fnn_train_args *a) {
    size_t B = a->opt->batch ? a->opt->batch : 1;
    if (B > a->n) B = a->n;
    int threads = haze__threads(ctx);
    double *yb = malloc(B * net->L * sizeof *yb);
    double *gbuf = malloc((size_t)threads * B * sizeof *gbuf);
    double *lm = NULL;
    size_t lm_cap = 0;
    int st = HAZE_OK;
    if (!yb || !gbuf) st = haze__error(ctx, HAZE_ERR_NOMEM, "fnn train: out of memory");
    for (size_t i0 = 0; st == HAZE_OK && i0 < a->n; i0 += B) {
        size_t b = a->n - i0 < B ? a->n - i0 : B;
        st = batch_step(ctx, net, a, a->order + i0, b, &lm, &lm_cap, yb, gbuf);
        haze__fnn_step_report(a, i0, i0 + b);
    }
    free(lm);
    free(yb);
    free(gbuf);
    return st;
}

/* ----------------------------------------------------------- public API */

static int check_finite(haze_ctx *ctx, const char *what, const double *v, size_t n, size_t cols) {
    for (size_t i = 0; i < n * cols; i++)
        if (!isfinite(v[i]))
            return haze__error(ctx, HAZE_ERR_DOMAIN, "%s: value %zu of row %zu is not finite", what,
                               i % cols + 1, i / cols + 1);
    return HAZE_OK;
}

/* z-scores (v - mean[j]) / scale[j] of the n rows of w values at v (inputs
 * or regression targets); where the difference overflows (values near
 * DBL_MAX of both signs), the two quotients are subtracted instead. */
static double *zscores(const double *v, size_t n, size_t w, const double *mean,
                       const double *scale) {
    double *z = malloc((n ? n : 1) * w * sizeof *z);
    if (!z) return NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < w; j++) {
            double x = v[i * w + j], t = (x - mean[j]) / scale[j];
            z[i * w + j] = isfinite(t) ? t : x / scale[j] - mean[j] / scale[j];
        }
    return z;
}

static double *standardise(const haze_fnn *net, const double *x, size_t n) {
    return zscores(x, n, net->D, net->mean, net->scale);
}

static double *standardise_targets(const haze_fnn *net, const double *d, size_t n) {
    return zscores(d, n, net->L, net->tmean, net->tscale);
}

/* Mean and standard deviation (1 for constant data) of v[i * stride],
 * i < n. Data beyond 2^600 in magnitude is scaled down by a power of two
 * first, so that sums of values near DBL_MAX do not overflow; ordinary data
 * is summed as it is. */
static void mean_sd(const double *v, size_t n, size_t stride, double *mean, double *sd) {
    double big = 0.0, f = 1.0, mu = 0.0, var = 0.0;
    for (size_t i = 0; i < n; i++) big = fmax(big, fabs(v[i * stride]));
    int ex = 0;
    if (big > 0x1p600) {
        frexp(big, &ex);
        f = ldexp(1.0, -ex);
    }
    for (size_t i = 0; i < n; i++) mu += v[i * stride] * f;
    mu /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double t = v[i * stride] * f - mu;
        var += t * t;
    }
    var /= (double)n;
    *mean = ldexp(mu, ex);
    *sd = var > 0.0 ? ldexp(sqrt(var), ex) : 1.0;
}

/* Fixes the scaling from the training data: mean and standard deviation per
 * input (or one for all inputs); a constant input keeps scale 1. A
 * regression network's targets get the same per output. */
static void fit_scaling(haze_fnn *net, const double *x, const double *d, size_t n, int global) {
    size_t D = net->D;
    if (global) {
        double mu, sd;
        mean_sd(x, n * D, 1, &mu, &sd);
        for (size_t j = 0; j < D; j++) net->mean[j] = mu, net->scale[j] = sd;
    } else {
        for (size_t j = 0; j < D; j++) mean_sd(x + j, n, D, &net->mean[j], &net->scale[j]);
    }
    if (!net->classifier)
        for (size_t l = 0; l < net->L; l++)
            mean_sd(d + l, n, net->L, &net->tmean[l], &net->tscale[l]);
    net->scaled = 1;
}

static int check_options(haze_ctx *ctx, const haze_fnn_options *o) {
    if (o->epochs < 0) return haze__error(ctx, HAZE_ERR_INVALID, "fnn: epochs must be >= 0");
    if (!(o->threshold >= 0.0 && o->threshold <= 1.0))
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: threshold must lie in [0, 1]");
    if (!(o->decay > 0.0 && o->decay <= 1.0))
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: decay must lie in (0, 1]");
    if (!(o->beta > 0.0 && isfinite(o->beta)))
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: beta must be positive");
    if (!(o->width >= 0.0 && isfinite(o->width)))
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: width must be >= 0 (0: beta * distance)");
    if (!(o->sigma0 > 0.0 && isfinite(o->sigma0)))
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: sigma0 must be positive");
    if (o->scaling != HAZE_FNN_SCALE_INPUT && o->scaling != HAZE_FNN_SCALE_GLOBAL)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: unknown scaling %d", o->scaling);
    if (!(o->rate >= 0.0 && isfinite(o->rate)))
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: the learning rate must be >= 0");
    if (!(o->validation >= 0.0 && o->validation < 1.0))
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn: the held-out share must lie in [0, 1)");
    return HAZE_OK;
}

/* The parameters of an epoch, kept to go back to. */
typedef struct {
    size_t R, cap;
    double *m, *s, *w;
} snapshot;

static int snapshot_take(haze_ctx *ctx, snapshot *p, const haze_fnn *net) {
    size_t D = net->D, L = net->L, R = net->R;
    if (R > p->cap) {
        size_t cap = R + R / 2;
        double *m = realloc(p->m, cap * D * sizeof *m);
        if (m) p->m = m;
        double *s = m ? realloc(p->s, cap * D * sizeof *s) : NULL;
        if (s) p->s = s;
        double *w = s ? realloc(p->w, cap * L * sizeof *w) : NULL;
        if (!w) return haze__error(ctx, HAZE_ERR_NOMEM, "fnn train: out of memory");
        p->w = w;
        p->cap = cap;
    }
    if (R) {
        memcpy(p->m, net->m, R * D * sizeof *p->m);
        memcpy(p->s, net->s, R * D * sizeof *p->s);
        memcpy(p->w, net->w, R * L * sizeof *p->w);
    }
    p->R = R;
    return HAZE_OK;
}

/* Back to the snapshot (the network's arrays are at least as large). */
static void snapshot_restore(const snapshot *p, haze_fnn *net) {
    size_t D = net->D, L = net->L;
    if (p->R) {
        memcpy(net->m, p->m, p->R * D * sizeof *p->m);
        memcpy(net->s, p->s, p->R * D * sizeof *p->s);
        memcpy(net->w, p->w, p->R * L * sizeof *p->w);
    }
    net->R = p->R;
}

static int all_finite(const double *v, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

static int forward(haze_ctx *ctx, const haze_fnn *net, const double *z, size_t n, double *y) {
#ifdef HAZE_HAVE_CUDA
    if (haze__use_cuda(ctx)) return haze__fnn_forward_cuda(ctx, net, z, n, y);
#endif
    return haze__fnn_forward_cpu(ctx, net, z, n, y);
}

/* Mean E and argmax accuracy of the network on n standardised samples. */
static int evaluate(haze_ctx *ctx, const haze_fnn *net, const double *z, const double *d, size_t n,
                    double *y, double *loss, double *accuracy) {
    size_t L = net->L, hits = 0;
    int st = forward(ctx, net, z, n, y);
    if (st) return st;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double *yi = y + i * L, *di = d + i * L;
        double e2 = 0.0;
        for (size_t l = 0; l < L; l++) e2 += (yi[l] - di[l]) * (yi[l] - di[l]);
        sum += 0.5 * e2;
        hits += argmax(yi, L) == argmax(di, L);
    }
    *loss = sum / (double)n;
    *accuracy = net->classifier ? (double)hits / (double)n : NAN;
    return HAZE_OK;
}

/*
 * The epoch loop. Held-out samples (options.validation) are picked once with
 * a generator of their own, so that the shuffles of the training samples
 * are those of a run without them; after each epoch the training loss is
 * compared with the previous epoch's, and a rise halves the learning rate.
 * The parameters of the best epoch on the held-out samples are kept; an
 * epoch that leaves a parameter infinite or NaN ends training with an error
 * and the best parameters.
 */
int haze_fnn_train(haze_ctx *ctx, haze_fnn *net, const double *x, const double *d, size_t n,
                   const haze_fnn_options *opt) {
    if (!net || !x || !d)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_train: NULL argument");
    if (n == 0) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_train: no samples");
    haze_fnn_options o = haze_fnn_options_default();
    int take = haze__sized_take(ctx, &o, sizeof o, opt, "haze_fnn_options");
    if (take) return take;
    int st = check_options(ctx, &o);
    if (st) return st;
    if ((st = check_finite(ctx, "fnn train inputs", x, n, net->D))) return st;
    if ((st = check_finite(ctx, "fnn train targets", d, n, net->L))) return st;
    if (!net->scaled && net->R == 0) fit_scaling(net, x, d, n, o.scaling == HAZE_FNN_SCALE_GLOBAL);
    size_t D = net->D, L = net->L;
    size_t nval = (size_t)(o.validation * (double)n), ntr = n - nval;
    double *z = standardise(net, x, n), *t = standardise_targets(net, d, n);
    double *zs = malloc(n * D * sizeof *zs), *ts = malloc(n * L * sizeof *ts);
    double *yv = malloc((nval ? nval : 1) * L * sizeof *yv);
    size_t *order = malloc(n * sizeof *order);
    snapshot best = {0, 0, NULL, NULL, NULL};
    if (!z || !t || !zs || !ts || !yv || !order) {
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fnn train: out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) order[i] = i;
    if (nval) {
        /* a partial shuffle picks the held-out samples (the last nval) */
        haze__rng pick;
        haze__rng_seed(&pick, o.seed ^ 0x9e3779b97f4a7c15ULL);
        for (size_t i = n - 1; i >= ntr; i--) {
            size_t r = (size_t)haze__rng_below(&pick, i + 1), k = order[i];
            order[i] = order[r];
            order[r] = k;
        }
        /* training samples in their original order */
        char *held = calloc(n, 1);
        if (!held) {
            st = haze__error(ctx, HAZE_ERR_NOMEM, "fnn train: out of memory");
            goto done;
        }
        for (size_t i = ntr; i < n; i++) held[order[i]] = 1;
        size_t a = 0, b = ntr;
        for (size_t i = 0; i < n; i++) order[held[i] ? b++ : a++] = i;
        free(held);
    }
    for (size_t i = 0; i < n; i++) {
        memcpy(zs + i * D, z + order[i] * D, D * sizeof *zs);
        memcpy(ts + i * L, t + order[i] * L, L * sizeof *ts);
    }
    for (size_t i = 0; i < ntr; i++) order[i] = i;
    free(z), free(t); /* the reordered copies are used from here on */
    z = t = NULL;
    if ((st = snapshot_take(ctx, &best, net))) goto done;
    haze__rng rng;
    haze__rng_seed(&rng, o.seed);
    double rate = o.rate, prev = INFINITY, best_loss = INFINITY, best_acc = -1.0;
    int best_epoch = -1;
    for (int e = 0; e < o.epochs; e++) {
        if (o.shuffle)
            for (size_t i = ntr - 1; i > 0; i--) {
                size_t r = (size_t)haze__rng_below(&rng, i + 1), k = order[i];
                order[i] = order[r];
                order[r] = k;
            }
        haze_fnn_options eo = o;
        eo.rate = rate;
        double th = o.threshold * pow(o.decay, e);
        haze__fnn_train_args a = {zs,  ts,  ntr, order, th > 0.0 ? log(th) : -INFINITY,
                                  &eo, 0.0, 0,   e};
        double t0 = haze__now();
#ifdef HAZE_HAVE_CUDA
        if (haze__use_cuda(ctx))
            st = haze__fnn_epoch_cuda(ctx, net, &a);
        else
#endif
            st = haze__fnn_epoch_cpu(ctx, net, &a);
        if (st) break;
        double loss = a.loss_sum / (double)ntr, vloss = NAN, vacc = NAN;
        if (!isfinite(loss) || !all_finite(net->m, net->R * D) || !all_finite(net->s, net->R * D) ||
            !all_finite(net->w, net->R * L)) {
            snapshot_restore(&best, net);
            st = haze__error(ctx, HAZE_ERR_DOMAIN,
                             "fnn train: training diverged in epoch %d (a parameter or the loss "
                             "became infinite or NaN); try a lower learning rate than %g",
                             e + 1, rate);
            break;
        }
        if (nval && (st = evaluate(ctx, net, zs + ntr * D, ts + ntr * L, nval, yv, &vloss, &vacc)))
            break;
        int better = 1;
        if (nval)
            better = net->classifier ? vacc > best_acc || (vacc == best_acc && vloss < best_loss)
                                     : vloss < best_loss;
        if (better) {
            best_epoch = e;
            best_loss = vloss;
            best_acc = vacc;
            if ((st = snapshot_take(ctx, &best, net))) break;
        }
        haze_fnn_epoch info = {sizeof info,
                               e,
                               net->R,
                               loss,
                               net->classifier ? (double)a.correct / (double)ntr : NAN,
                               haze__now() - t0,
                               th,
                               rate,
                               vloss,
                               vacc,
                               best_epoch,
                               ntr,
                               nval};
        /* A rise of the training loss means steps too large for the
         * network (the held-out loss also rises when it overfits, which
         * keeping the best epoch answers). */
        if (loss > prev) rate *= 0.5;
        prev = loss;
        if (o.progress && o.progress(o.progress_arg, &info)) break;
    }
    if (st == HAZE_OK && nval) snapshot_restore(&best, net);
done:
    free(z), free(t), free(zs), free(ts), free(yv), free(order);
    free(best.m), free(best.s), free(best.w);
    return st;
}

int haze_fnn_train_classes(haze_ctx *ctx, haze_fnn *net, const double *x, const int *labels,
                           size_t n, const haze_fnn_options *opt) {
    if (!net || !labels)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_train_classes: NULL argument");
    size_t L = net->L;
    double *d = calloc((n ? n : 1) * L, sizeof *d);
    if (!d) return haze__error(ctx, HAZE_ERR_NOMEM, "fnn train: out of memory");
    for (size_t i = 0; i < n; i++) {
        if (labels[i] < 0 || (size_t)labels[i] >= L) {
            free(d);
            return haze__error(ctx, HAZE_ERR_INVALID,
                               "haze_fnn_train_classes: label %d of sample %zu outside [0, %zu)",
                               labels[i], i + 1, L);
        }
        d[i * L + (size_t)labels[i]] = 1.0;
    }
    net->classifier = 1;
    int st = haze_fnn_train(ctx, net, x, d, n, opt);
    free(d);
    return st;
}

int haze_fnn_predict(haze_ctx *ctx, const haze_fnn *net, const double *x, size_t n, double *y) {
    if (!net || (!x && n) || (!y && n))
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_predict: NULL argument");
    if (net->R == 0)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn predict: the network has no rules");
    if (n == 0) return HAZE_OK;
    int st = check_finite(ctx, "fnn predict inputs", x, n, net->D);
    if (st) return st;
    double *z = standardise(net, x, n);
    if (!z) return haze__error(ctx, HAZE_ERR_NOMEM, "fnn predict: out of memory");
    st = forward(ctx, net, z, n, y);
    free(z);
    if (st == HAZE_OK && !net->classifier)
        for (size_t i = 0; i < n; i++)
            for (size_t l = 0; l < net->L; l++)
                y[i * net->L + l] = net->tmean[l] + net->tscale[l] * y[i * net->L + l];
    return st;
}

int haze_fnn_classify(haze_ctx *ctx, const haze_fnn *net, const double *x, size_t n, int *labels) {
    if (!net || (!labels && n))
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_classify: NULL argument");
    /* before the scratch below: a network without rules can have any number
     * of outputs, none of them backed by memory */
    if (net->R == 0)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn classify: the network has no rules");
    if (n > SIZE_MAX / sizeof(double) / net->L)
        return haze__error(ctx, HAZE_ERR_NOMEM, "fnn classify: out of memory");
    double *y = malloc((n ? n : 1) * net->L * sizeof *y);
    if (!y) return haze__error(ctx, HAZE_ERR_NOMEM, "fnn classify: out of memory");
    int st = haze_fnn_predict(ctx, net, x, n, y);
    for (size_t i = 0; st == HAZE_OK && i < n; i++) labels[i] = (int)argmax(y + i * net->L, net->L);
    free(y);
    return st;
}

int haze_fnn_gradient(haze_ctx *ctx, const haze_fnn *net, const double *x, const double *d,
                      double *gw, double *gm, double *gs) {
    if (!net || !x || !d)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_gradient: NULL argument");
    if (net->R == 0)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn gradient: the network has no rules");
    size_t D = net->D, L = net->L, R = net->R;
    double *z = standardise(net, x, 1), *t = standardise_targets(net, d, 1);
    double *phi = malloc(R * sizeof *phi), *y = malloc(L * sizeof *y);
    if (!z || !t || !phi || !y) {
        free(z), free(t), free(phi), free(y);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fnn gradient: out of memory");
    }
    for (size_t k = 0; k < R; k++) phi[k] = haze__fnn_log_firing(net, z, k);
    normalise(net, phi, y);
    for (size_t k = 0; k < R; k++) {
        const double *w = net->w + k * L;
        double g = 0.0;
        for (size_t l = 0; l < L; l++) {
            double e = y[l] - t[l];
            g += e * (w[l] - y[l]);
            if (gw) gw[k * L + l] = e * phi[k];
        }
        g *= phi[k];
        for (size_t j = 0; j < D; j++) {
            double diff = z[j] - net->m[k * D + j], sj = net->s[k * D + j];
            if (gm) gm[k * D + j] = g * 2.0 * diff / (sj * sj);
            if (gs) gs[k * D + j] = g * 2.0 * diff * diff / (sj * sj * sj);
        }
    }
    free(z), free(t), free(phi), free(y);
    return HAZE_OK;
}
