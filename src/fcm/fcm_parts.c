/*
 * src/fcm/fcm_parts.c - one fuzzy c-means fit over several processes, and
 * the sums of a pass that make it the same fit as one process's.
 *
 * The library holds no MPI: the caller gives an all-gather hook
 * (haze_fcm_options.allgather) and the rows of its part. Every step below
 * is one call of the hook, with a 16-byte header (payload length, status,
 * flag) before each part's payload; a failing part sends its status and
 * message instead, and every part then fails with the first failing part's
 * status and message, so no part waits for one that has given up.
 *
 * What is exchanged (docs/fcm.md, "Several processes (MPI)"):
 *  - the options, shape and rows of every part (the first step), checked to
 *    agree and to follow each other on tile boundaries;
 *  - each column's range (the overflow check of the whole data);
 *  - per pass, the sums of the maximal aligned subtrees of the part's tiles
 *    in the pairwise tree over the global tile index (at most about
 *    2 log2(tiles) vectors a part), from which every part builds the same
 *    root: the tree is fixed by the tile count, not by the split;
 *  - for k-means++, the segment sums of fcm_internal.h's order (a segment
 *    inside one part as its sum, one that straddles parts as its block sums)
 *    and the candidates from the parts that own them: the centres one
 *    process picks, bit for bit.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fcm/fcm_internal.h"

size_t haze__fcm_tile(size_t rows, size_t stride) {
    size_t cap = ((size_t)1 << 22) / (stride ? stride : 1);
    if (cap < 1) cap = 1;
    size_t tile = 1024;
    while ((rows + tile - 1) / tile > cap) tile *= 2;
    return tile;
}

size_t haze__fcm_part_align(size_t rows, size_t d, size_t c, int gk) {
    const size_t t = haze__fcm_tile(rows, haze__fcm_stride(c, d, 0));
    const size_t g = gk ? haze__fcm_tile(rows, haze__fcm_stride(c, d, 1)) : 0;
    return t > g ? t : g; /* both 1024 times a power of 2: a multiple of the other */
}

int haze_fcm_part_rows(haze_ctx *ctx, const haze_fcm_options *opt, size_t total_rows, size_t d,
                       size_t part, size_t parts, size_t *first, size_t *count) {
    if (first) *first = 0;
    if (count) *count = 0;
    if (!opt || !first || !count)
        return haze__error(ctx, HAZE_ERR_INVALID, "fcm part rows: NULL argument");
    if (opt->size < sizeof(size_t) || opt->clusters < 1 || total_rows < 1 || d < 1 || parts < 1 ||
        part >= parts)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "fcm part rows: part %zu of %zu of %zu rows x %zu features, %d clusters",
                           part, parts, total_rows, d, opt->clusters);
    const size_t tile =
        haze__fcm_part_align(total_rows, d, (size_t)opt->clusters, opt->metric == HAZE_FCM_GK);
    const size_t nt = (total_rows + tile - 1) / tile;
    /* tiles [part * nt / parts, (part + 1) * nt / parts), without overflow */
    const size_t a = (size_t)((unsigned long long)part * nt / parts);
    const size_t b = (size_t)((unsigned long long)(part + 1) * nt / parts);
    const size_t r0 = a * tile, r1 = b * tile < total_rows ? b * tile : total_rows;
    *first = r0 < total_rows ? r0 : total_rows;
    *count = r1 > *first ? r1 - *first : 0;
    return HAZE_OK;
}

/* ---- the steps ---------------------------------------------------------- */

typedef struct msg_head {
    uint64_t bytes; /* payload bytes after this header (a multiple of 8) */
    int32_t status; /* 0, or the part's failure: the payload is its message */
    int32_t flag;
} msg_head;

/* Every part's payload of one step. */
typedef struct msgs {
    unsigned char *buf; /* from the hook */
    double **at;        /* count payloads, 8-aligned */
    size_t *len;        /* their bytes */
    size_t count;
} msgs;

static void msgs_free(msgs *m) {
    free(m->buf);
    free(m->at);
    free(m->len);
    memset(m, 0, sizeof *m);
}

/* One step: this part's status st (its message sent when not 0), flag and
 * payload; every part's payload in *m. The first failure in part order
 * becomes every part's (its message raised again here). */
static int exchange(haze_ctx *ctx, haze__fcm_parts *pp, int st, int flag, const void *payload,
                    size_t bytes, msgs *m, int *any) {
    memset(m, 0, sizeof *m);
    if (any) *any = 0;
    if (pp->dead) return st ? st : haze__error(ctx, HAZE_ERR_INTERNAL, "fcm: a step after failure");
    const char *text = NULL;
    if (st) {
        text = haze_ctx_errmsg(ctx);
        payload = text;
        bytes = strlen(text) + 1;
    }
    const size_t padded = (bytes + 7) / 8 * 8;
    unsigned char *mine = calloc(1, sizeof(msg_head) + padded);
    if (!mine) {
        /* still take part in the step, as a failure without a message */
        msg_head h = {0, HAZE_ERR_NOMEM, 0};
        void *all = NULL;
        size_t total = 0;
        pp->dead = 1;
        if (pp->allgather(pp->arg, &h, sizeof h, &all, &total) == 0) free(all);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for an exchange");
    }
    msg_head h = {padded, st, flag};
    memcpy(mine, &h, sizeof h);
    if (bytes) memcpy(mine + sizeof h, payload, bytes);
    void *all = NULL;
    size_t total = 0;
    const int hook = pp->allgather(pp->arg, mine, sizeof h + padded, &all, &total);
    free(mine);
    if (hook) {
        free(all);
        pp->dead = 1;
        return haze__error(ctx, HAZE_ERR_IO, "fcm: the exchange between the parts failed (%d)",
                           hook);
    }
    /* count the parts, then index them */
    size_t count = 0, off = 0;
    unsigned char *b = all;
    while (off + sizeof(msg_head) <= total) {
        msg_head g;
        memcpy(&g, b + off, sizeof g);
        if (g.bytes > total - off - sizeof g || g.bytes % 8) break;
        off += sizeof g + (size_t)g.bytes;
        count++;
    }
    if (off != total || !all || count == 0 || (pp->count && count != pp->count)) {
        free(all);
        pp->dead = 1;
        return haze__error(ctx, HAZE_ERR_INTERNAL,
                           "fcm: the parts' exchange is malformed (%zu bytes, %zu parts)", total,
                           count);
    }
    m->buf = b;
    m->count = count;
    m->at = malloc(count * sizeof *m->at);
    m->len = malloc(count * sizeof *m->len);
    int fail = 0, fstatus = 0;
    size_t fpart = 0;
    off = 0;
    for (size_t k = 0; k < count; k++) {
        msg_head g;
        memcpy(&g, b + off, sizeof g);
        if (m->at) m->at[k] = (double *)(void *)(b + off + sizeof g);
        if (m->len) m->len[k] = (size_t)g.bytes;
        if (g.status && !fail) fail = 1, fstatus = g.status, fpart = k;
        if (any && g.flag) *any = 1;
        off += sizeof g + (size_t)g.bytes;
    }
    if (fail) {
        pp->dead = 1;
        /* the failing part's message, from its payload */
        size_t o = 0;
        for (size_t k = 0; k < fpart; k++) {
            msg_head g;
            memcpy(&g, b + o, sizeof g);
            o += sizeof g + (size_t)g.bytes;
        }
        msg_head g;
        memcpy(&g, b + o, sizeof g);
        const char *s = (const char *)(b + o + sizeof g);
        size_t len = 0;
        while (len < g.bytes && s[len]) len++;
        char *copy = malloc(len + 1);
        if (copy) {
            memcpy(copy, s, len);
            copy[len] = 0;
        }
        msgs_free(m);
        if (any) *any = 0;
        const int r = copy && len ? haze__error(ctx, fstatus, "%s", copy)
                                  : haze__error(ctx, fstatus, "fcm: part %zu of %zu failed",
                                                fpart + 1, count);
        free(copy);
        return r;
    }
    if (st) { /* cannot happen: this part's own status is in the buffer */
        msgs_free(m);
        pp->dead = 1;
        return st;
    }
    if (!m->at || !m->len) {
        msgs_free(m);
        return haze__fcm_parts_fail(ctx, pp,
                                    haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory"));
    }
    return HAZE_OK;
}

int haze__fcm_parts_fail(haze_ctx *ctx, haze__fcm_parts *pp, int st) {
    if (!pp || pp->dead) return st;
    msgs m;
    int r = exchange(ctx, pp, st, 0, NULL, 0, &m, NULL);
    msgs_free(&m);
    return r;
}

int haze__fcm_parts_send_failure(int (*allgather)(void *, const void *, size_t, void **, size_t *),
                                 void *arg, size_t parts, int st, void **all, size_t *total) {
    msg_head one = {0, st, 0}, few[8] = {{0, 0, 0}};
    msg_head *h = parts <= 8 ? few : malloc(parts * sizeof *h);
    if (!h) { /* one part's failure still fails every part */
        h = &one;
        parts = 1;
    }
    for (size_t k = 0; k < parts; k++) h[k] = one;
    void *got = NULL;
    size_t bytes = 0;
    const int r = allgather(arg, h, parts * sizeof *h, &got, &bytes);
    if (all && !r) {
        *all = got;
        *total = bytes;
    } else {
        free(got);
    }
    if (h != few && h != &one) free(h);
    return r;
}

void haze__fcm_parts_free(haze__fcm_parts *pp) {
    if (!pp) return;
    free(pp->row0);
    free(pp->rows);
    free(pp);
}

/* ---- the first step: options and rows ----------------------------------- */

/* What every part must agree on, in this order; doubles by their bits. */
enum {
    SIG_D,
    SIG_C,
    SIG_M,
    SIG_METRIC,
    SIG_INIT,
    SIG_STOP,
    SIG_TOL,
    SIG_MAXIT,
    SIG_SEED,
    SIG_PREC,
    SIG_TYPE,
    SIG_GKREG,
    SIG_TOTAL,
    SIG_WANTU,
    SIG_CENTRES,
    SIG_AGREE,
    SIG_FIRST = SIG_AGREE,
    SIG_N,
    SIG_PROGRESS,
    SIG_GPU,
    SIG_COUNT
};
static const char *const sig_name[SIG_AGREE] = {
    "feature count",   "cluster count",     "fuzzifier m",
    "metric",          "initialisation",    "stopping rule",
    "tolerance",       "iteration limit",   "seed",
    "precision",       "element type",      "GK regularisation",
    "total row count", "membership output", "initial centres (a hash of them)"};

static uint64_t dbits(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* FNV-1a over the bytes of the initial centres: they must be the same everywhere */
static uint64_t fnv(const void *p, size_t bytes) {
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < bytes; i++) h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

static void sig_print(char *buf, size_t size, int field, uint64_t v) {
    if (field == SIG_M || field == SIG_TOL || field == SIG_GKREG) {
        double x;
        memcpy(&x, &v, sizeof x);
        haze__snprintf(buf, size, "%.17g", x);
    } else {
        haze__snprintf(buf, size, "%llu", (unsigned long long)v);
    }
}

int haze__fcm_parts_begin(haze_ctx *ctx, int st, const haze_fcm_options *opt, int single_data,
                          int gpu, size_t n, size_t d, haze__fcm_parts **out) {
    *out = NULL;
    haze__fcm_parts *pp = calloc(1, sizeof *pp);
    if (!pp) return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    pp->allgather = opt->allgather;
    pp->arg = opt->allgather_arg;
    uint64_t sig[SIG_COUNT];
    const size_t c = opt->clusters > 0 ? (size_t)opt->clusters : 0;
    sig[SIG_D] = d;
    sig[SIG_C] = c;
    sig[SIG_M] = dbits(opt->m);
    sig[SIG_METRIC] = (uint64_t)opt->metric;
    sig[SIG_INIT] = (uint64_t)opt->init;
    sig[SIG_STOP] = (uint64_t)opt->stop;
    sig[SIG_TOL] = dbits(opt->tol);
    sig[SIG_MAXIT] = (uint64_t)(int64_t)opt->max_iter;
    sig[SIG_SEED] = opt->seed;
    sig[SIG_PREC] = (uint64_t)opt->precision;
    sig[SIG_TYPE] = (uint64_t)single_data;
    sig[SIG_GKREG] = dbits(opt->gk_reg);
    sig[SIG_TOTAL] = opt->total_rows;
    sig[SIG_WANTU] = opt->want_memberships != 0;
    sig[SIG_CENTRES] = !st && opt->init == HAZE_FCM_INIT_CENTRES && opt->init_data
                           ? fnv(opt->init_data, c * d * sizeof(double))
                           : 0;
    sig[SIG_FIRST] = opt->first_row;
    sig[SIG_N] = n;
    sig[SIG_PROGRESS] = opt->progress != NULL;
    sig[SIG_GPU] = gpu != 0;
    msgs m;
    int r = exchange(ctx, pp, st, 0, sig, sizeof sig, &m, NULL);
    if (r) {
        haze__fcm_parts_free(pp);
        return r;
    }
    const size_t R = m.count;
    pp->count = R;
    pp->row0 = malloc(R * sizeof *pp->row0);
    pp->rows = malloc(R * sizeof *pp->rows);
    int bad = !pp->row0 || !pp->rows;
    for (size_t k = 0; k < R && !bad; k++) bad = m.len[k] != sizeof sig;
    if (bad) {
        const int nomem = !pp->row0 || !pp->rows;
        msgs_free(&m);
        /* different lengths are seen by every part, which all stop here; out
         * of memory is this part's, handed to the others at the next step */
        r = nomem ? haze__fcm_parts_fail(ctx, pp,
                                         haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory"))
                  : haze__error(ctx, HAZE_ERR_MISMATCH,
                                "fcm: the parts run different versions of the library");
        haze__fcm_parts_free(pp);
        return r;
    }
    /* Every part sees every part's fields: the same message everywhere. */
    const uint64_t *s0 = (const uint64_t *)(void *)m.at[0];
    r = HAZE_OK;
    for (size_t k = 1; k < R && !r; k++) {
        const uint64_t *sk = (const uint64_t *)(void *)m.at[k];
        for (int f = 0; f < SIG_AGREE && !r; f++)
            if (sk[f] != s0[f]) {
                char a[40], b[40];
                sig_print(a, sizeof a, f, s0[f]);
                sig_print(b, sizeof b, f, sk[f]);
                r = haze__error(ctx, HAZE_ERR_MISMATCH,
                                "fcm: the parts disagree on the %s: part 1 has %s, part %zu has %s",
                                sig_name[f], a, k + 1, b);
            }
    }
    const size_t total = (size_t)s0[SIG_TOTAL];
    pp->total = total;
    pp->first = opt->first_row;
    pp->n = n;
    pp->align = haze__fcm_part_align(total, d, c, opt->metric == HAZE_FCM_GK);
    size_t next = 0;
    for (size_t k = 0; k < R; k++) {
        const uint64_t *sk = (const uint64_t *)(void *)m.at[k];
        pp->row0[k] = (size_t)sk[SIG_FIRST];
        pp->rows[k] = (size_t)sk[SIG_N];
        pp->progress |= sk[SIG_PROGRESS] != 0;
        pp->totals |= sk[SIG_GPU] != 0;
        if (r) continue;
        if (pp->row0[k] != next || pp->rows[k] > total - next)
            r = haze__error(ctx, HAZE_ERR_INVALID,
                            "fcm: part %zu holds rows %zu to %zu of %zu, but the parts before it "
                            "end at row %zu: the parts' rows must follow each other in part order",
                            k + 1, pp->row0[k] + 1, pp->row0[k] + pp->rows[k], total, next);
        else if (pp->row0[k] % pp->align && pp->row0[k] != total)
            r = haze__error(ctx, HAZE_ERR_INVALID,
                            "fcm: part %zu starts at row %zu, not on a tile boundary (a multiple "
                            "of %zu rows); take the parts' rows from haze_fcm_part_rows",
                            k + 1, pp->row0[k] + 1, pp->align);
        next = pp->row0[k] + pp->rows[k];
    }
    if (!r && next != total)
        r = haze__error(ctx, HAZE_ERR_INVALID, "fcm: the parts hold %zu of the %zu rows", next,
                        total);
    pp->self = 0;
    for (size_t k = 0; k < R; k++)
        if (pp->row0[k] == pp->first && pp->rows[k] == n) {
            pp->self = k;
            break;
        }
    msgs_free(&m);
    if (r) {
        haze__fcm_parts_free(pp);
        return r;
    }
    *out = pp;
    return HAZE_OK;
}

int haze__fcm_parts_box(haze_ctx *ctx, haze__fcm_parts *pp, int st, double *lo, double *hi,
                        size_t d) {
    double *mine = st ? NULL : malloc(2 * d * sizeof *mine);
    if (!st && !mine) st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    if (mine) {
        memcpy(mine, lo, d * sizeof *lo);
        memcpy(mine + d, hi, d * sizeof *hi);
    }
    msgs m;
    int r = exchange(ctx, pp, st, 0, mine, st ? 0 : 2 * d * sizeof *mine, &m, NULL);
    free(mine);
    if (r) return r;
    for (size_t k = 0; k < m.count; k++) {
        if (m.len[k] != 2 * d * sizeof(double)) {
            msgs_free(&m);
            pp->dead = 1;
            return haze__error(ctx, HAZE_ERR_INTERNAL, "fcm: the parts' ranges are malformed");
        }
        for (size_t j = 0; j < d; j++) { /* min and max: exact in any order */
            if (m.at[k][j] < lo[j]) lo[j] = m.at[k][j];
            if (m.at[k][d + j] > hi[j]) hi[j] = m.at[k][d + j];
        }
    }
    msgs_free(&m);
    return HAZE_OK;
}

/* ---- the pairwise tree over tiles --------------------------------------- */

static void vadd(double *a, const double *b, size_t stride) {
    for (size_t k = 0; k < stride; k++) a[k] = a[k] + b[k];
}

/* The maximal aligned blocks [a, a + size) of [t0, t1), in order: their
 * count; with part, each is reduced in place pairwise to its first tile. */
static size_t tree_blocks(double *part, size_t t0, size_t t1, size_t stride, size_t *size) {
    size_t nb = 0;
    for (size_t a = t0; a < t1;) {
        size_t s = 1;
        while (a % (2 * s) == 0 && 2 * s <= t1 - a) s *= 2;
        if (part) {
            double *b = part + (a - t0) * stride;
            for (size_t h = 1; h < s; h *= 2)
                for (size_t i = 0; i + h < s; i += 2 * h)
                    vadd(b + i * stride, b + (i + h) * stride, stride);
        }
        if (size) size[nb] = s;
        nb++;
        a += s;
    }
    return nb;
}

/* The root from the blocks of every part in tile order (vec[b], size[b];
 * overwritten): siblings merged as they meet (a block of the size of the
 * one before it is its sibling, as a binary counter carries), then the
 * remaining nodes, of decreasing sizes, summed from the right: the nodes
 * past the last tile are absent. */
static void tree_root(double **vec, const size_t *size, size_t nb, size_t stride, double *out) {
    double *sv[130];
    size_t ss[130], top = 0;
    for (size_t b = 0; b < nb; b++) {
        sv[top] = vec[b];
        ss[top] = size[b];
        top++;
        while (top >= 2 && ss[top - 2] == ss[top - 1]) {
            vadd(sv[top - 2], sv[top - 1], stride);
            ss[top - 2] *= 2;
            top--;
        }
    }
    for (size_t i = top - 1; i-- > 0;) vadd(sv[i], sv[i + 1], stride);
    memcpy(out, sv[0], stride * sizeof *out);
}

int haze__fcm_parts_add(haze_ctx *ctx, haze__fcm_parts *pp, int st, double *sums, size_t stride) {
    msgs m;
    st =
        exchange(ctx, pp, st, pp->stop_out, sums, st ? 0 : stride * sizeof *sums, &m, &pp->stop_in);
    if (st) return st;
    for (size_t k = 0; k < m.count; k++)
        if (m.len[k] != stride * sizeof(double)) {
            msgs_free(&m);
            pp->dead = 1;
            return haze__error(ctx, HAZE_ERR_INTERNAL, "fcm: the parts' sums are malformed");
        }
    memcpy(sums, m.at[0], stride * sizeof *sums);
    for (size_t k = 1; k < m.count; k++) vadd(sums, m.at[k], stride);
    msgs_free(&m);
    return HAZE_OK;
}

int haze__fcm_tree_sum(haze_ctx *ctx, haze__fcm_parts *pp, double *part, size_t t0, size_t t1,
                       size_t stride, double *sums) {
    if (pp && pp->totals) { /* this part's total, then the parts' in part order */
        if (t1 > t0)
            haze__fcm_tree_sum(ctx, NULL, part, t0, t1, stride, sums);
        else
            memset(sums, 0, stride * sizeof *sums);
        return haze__fcm_parts_add(ctx, pp, HAZE_OK, sums, stride);
    }
    size_t size[130];
    const size_t nb = tree_blocks(part, t0, t1, stride, size);
    if (!pp) {
        double *vec[130];
        size_t at = 0;
        for (size_t b = 0; b < nb; b++) {
            vec[b] = part + at * stride;
            at += size[b];
        }
        tree_root(vec, size, nb, stride, sums);
        return HAZE_OK;
    }
    /* this part's block sums, then every part's */
    const size_t cap = pp->count * 130;
    double *mine = malloc((nb ? nb : 1) * stride * sizeof *mine);
    double **vec = malloc(cap * sizeof *vec);
    size_t *vsize = malloc(cap * sizeof *vsize);
    int st =
        mine && vec && vsize ? HAZE_OK : haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    if (!st) {
        size_t at = 0;
        for (size_t b = 0; b < nb; b++) {
            memcpy(mine + b * stride, part + at * stride, stride * sizeof *mine);
            at += size[b];
        }
    }
    msgs m;
    st = exchange(ctx, pp, st, pp->stop_out, mine, st ? 0 : nb * stride * sizeof *mine, &m,
                  &pp->stop_in);
    free(mine);
    if (st) {
        free(vec), free(vsize);
        return st;
    }
    /* part k's tiles from its rows: the blocks it sent */
    const size_t tl = haze__fcm_tile(pp->total, stride);
    size_t nv = 0;
    int bad = 0;
    for (size_t k = 0; k < m.count && !bad; k++) {
        const size_t a = pp->row0[k] / tl, b = (pp->row0[k] + pp->rows[k] + tl - 1) / tl;
        size_t sz[130];
        const size_t kb = tree_blocks(NULL, a, b > a ? b : a, stride, sz);
        if (m.len[k] != kb * stride * sizeof(double) || nv + kb > cap) {
            bad = 1;
            break;
        }
        for (size_t j = 0; j < kb; j++) {
            vec[nv] = m.at[k] + j * stride;
            vsize[nv] = sz[j];
            nv++;
        }
    }
    if (bad || nv == 0) {
        free(vec), free(vsize), msgs_free(&m);
        pp->dead = 1;
        return haze__error(ctx, HAZE_ERR_INTERNAL, "fcm: the parts' sums are malformed");
    }
    tree_root(vec, vsize, nv, stride, sums);
    free(vec), free(vsize), msgs_free(&m);
    return HAZE_OK;
}

/* ---- k-means++ over the parts ------------------------------------------- */

enum { PB = HAZE__FCM_PP_BLOCK, PS = HAZE__FCM_PP_SEGS };

static inline double xv(const void *x, int single, size_t idx) {
    return single ? (double)((const float *)x)[idx] : ((const double *)x)[idx];
}

/* Part k's blocks [*b0, *b1) of PB rows (a part starts on a tile, a whole
 * number of blocks). */
static void part_blocks(const haze__fcm_parts *pp, size_t k, size_t *b0, size_t *b1) {
    *b0 = pp->row0[k] / PB;
    *b1 = pp->rows[k] ? (pp->row0[k] + pp->rows[k] + PB - 1) / PB : *b0;
}

/* The part that holds row r (a row of the data, so there is one). */
static size_t owner_of_row(const haze__fcm_parts *pp, size_t r) {
    for (size_t k = 0; k < pp->count; k++)
        if (r >= pp->row0[k] && r - pp->row0[k] < pp->rows[k]) return k;
    return 0;
}

/* Words of one array in the message of a part with blocks [b0, b1): per
 * segment it touches, its sum when the segment lies inside the part, else
 * the part's blocks of it. */
static size_t seg_words(size_t b0, size_t b1, size_t L, size_t nb) {
    size_t w = 0;
    for (size_t sg = b1 > b0 ? b0 / L : 1, last = b1 > b0 ? (b1 - 1) / L : 0; sg <= last; sg++) {
        const size_t s = sg * L, e = s + L < nb ? s + L : nb;
        w += s >= b0 && e <= b1 ? 1 : (e < b1 ? e : b1) - (s > b0 ? s : b0);
    }
    return w;
}

/* A part's blocks [b0, b1) among nb in segments of L. */
typedef struct seg_walk {
    size_t b0, b1, L, nb;
} seg_walk;

/* This part's message for K arrays of block sums (K x nbl, block b0 first). */
static void seg_pack(const seg_walk *w, const double *bs, size_t K, size_t nbl, double *out) {
    size_t o = 0;
    for (size_t a = 0; a < K; a++) {
        if (w->b1 <= w->b0) continue;
        for (size_t sg = w->b0 / w->L; sg <= (w->b1 - 1) / w->L; sg++) {
            const size_t s = sg * w->L, e = s + w->L < w->nb ? s + w->L : w->nb;
            const double *z = bs + a * nbl;
            if (s >= w->b0 && e <= w->b1) {
                double t = 0;
                for (size_t b = s; b < e; b++) t = t + z[b - w->b0];
                out[o++] = t;
            } else {
                const size_t lo = s > w->b0 ? s : w->b0, hi = e < w->b1 ? e : w->b1;
                for (size_t b = lo; b < hi; b++) out[o++] = z[b - w->b0];
            }
        }
    }
}

/* Every part's message of K arrays: the segment sums q (K x PS), each summed
 * in block order from 0 as one process sums it. */
static int seg_exchange(haze_ctx *ctx, haze__fcm_parts *pp, int st, const double *bs, size_t K,
                        size_t nbl, size_t L, size_t nb, double *q, msgs *m) {
    size_t b0, b1;
    part_blocks(pp, pp->self, &b0, &b1);
    const seg_walk me = {b0, b1, L, nb};
    const size_t words = K * seg_words(b0, b1, L, nb);
    double *out = st ? NULL : malloc((words ? words : 1) * sizeof *out);
    if (!st && !out) st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for k-means++");
    if (out) seg_pack(&me, bs, K, nbl, out);
    st = exchange(ctx, pp, st, 0, out, st ? 0 : words * sizeof *out, m, NULL);
    free(out);
    if (st) return st;
    for (size_t k = 0; k < K * PS; k++) q[k] = 0;
    for (size_t k = 0; k < m->count; k++) {
        part_blocks(pp, k, &b0, &b1);
        const size_t wk = seg_words(b0, b1, L, nb);
        if (m->len[k] != K * wk * sizeof(double)) {
            msgs_free(m);
            pp->dead = 1;
            return haze__error(ctx, HAZE_ERR_INTERNAL,
                               "fcm: the parts' k-means++ sums are malformed");
        }
        const double *z = m->at[k];
        for (size_t a = 0; a < K && b1 > b0; a++)
            for (size_t sg = b0 / L; sg <= (b1 - 1) / L; sg++) {
                const size_t s = sg * L, e = s + L < nb ? s + L : nb;
                if (s >= b0 && e <= b1) {
                    q[a * PS + sg] = *z++;
                } else {
                    const size_t cnt = (e < b1 ? e : b1) - (s > b0 ? s : b0);
                    for (size_t i = 0; i < cnt; i++) q[a * PS + sg] = q[a * PS + sg] + *z++;
                }
            }
    }
    return HAZE_OK;
}

/* The block sums of segment sg (array 0) from the messages of the parts that
 * share it, in order, into out (the segment's e - s blocks). */
static void seg_blocks(const haze__fcm_parts *pp, const msgs *m, size_t sg, size_t L, size_t nb,
                       double *out) {
    const size_t s = sg * L, e = s + L < nb ? s + L : nb;
    for (size_t k = 0; k < m->count; k++) {
        size_t b0, b1;
        part_blocks(pp, k, &b0, &b1);
        if (b1 <= s || b0 >= e) continue;
        const double *z = m->at[k];
        for (size_t g = b0 / L; g < sg; g++) { /* skip the segments before */
            const size_t gs = g * L, ge = gs + L < nb ? gs + L : nb;
            z += gs >= b0 && ge <= b1 ? 1 : (ge < b1 ? ge : b1) - (gs > b0 ? gs : b0);
        }
        const size_t lo = s > b0 ? s : b0, hi = e < b1 ? e : b1;
        for (size_t b = lo; b < hi; b++) out[b - s] = *z++;
    }
}

/* Row r's coordinates, sent by the part that holds it. */
static int from_owner(haze_ctx *ctx, haze__fcm_parts *pp, int st, size_t r, const void *x,
                      int single, size_t d, double *v) {
    double *out = st ? NULL : calloc(1 + d, sizeof *out);
    if (!st && !out) st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for k-means++");
    if (out && r >= pp->first && r - pp->first < pp->n) {
        out[0] = 1;
        for (size_t k = 0; k < d; k++) out[1 + k] = xv(x, single, (r - pp->first) * d + k);
    }
    msgs m;
    st = exchange(ctx, pp, st, 0, out, st ? 0 : (1 + d) * sizeof *out, &m, NULL);
    free(out);
    if (st) return st;
    const size_t k = owner_of_row(pp, r);
    if (m.len[k] != (1 + d) * sizeof(double) || m.at[k][0] != 1) {
        msgs_free(&m);
        pp->dead = 1;
        return haze__error(ctx, HAZE_ERR_INTERNAL, "fcm: row %zu was not sent by its part", r + 1);
    }
    memcpy(v, m.at[k] + 1, d * sizeof *v);
    msgs_free(&m);
    return HAZE_OK;
}

static inline double pdist(const void *x, int single, size_t i, size_t d, const double *w) {
    double a = 0;
    for (size_t k = 0; k < d; k++) {
        const double e = xv(x, single, i * d + k) - w[k];
        a = a + e * e;
    }
    return a;
}

int haze__fcm_seed_parts(haze_ctx *ctx, haze__fcm_parts *pp, const void *x, int single, size_t d,
                         size_t c, size_t trials, const size_t *idx, const double *u, double *v) {
    const size_t N = pp->total, n = pp->n, me = pp->self;
    const size_t nb = (N + PB - 1) / PB, L = (nb + PS - 1) / PS;
    size_t b0, b1;
    part_blocks(pp, me, &b0, &b1);
    const size_t nbl = b1 - b0, slot = 1 + d;
    double *dmin = malloc((n ? n : 1) * sizeof *dmin);
    double *bs = malloc((nbl ? nbl : 1) * (trials + 1) * sizeof *bs);
    double *q = malloc((trials + 1) * PS * sizeof *q), *cv = malloc(trials * d * sizeof *cv);
    double *tmp = malloc((L > PS ? L : PS) * sizeof *tmp);
    double *out = malloc((trials + 1) * slot * sizeof *out);
    int st = HAZE_OK;
    if (trials > HAZE__FCM_PP_TRIALS_MAX)
        st = haze__error(ctx, HAZE_ERR_INTERNAL, "fcm: %zu k-means++ trials", trials);
    else if (!dmin || !bs || !q || !cv || !tmp || !out)
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for k-means++");
    double *cs = bs + nbl; /* trials x nbl block sums of the candidates */
    size_t cand[HAZE__FCM_PP_TRIALS_MAX];
    const long long nbll = (long long)nbl;
    st = from_owner(ctx, pp, st, idx[0], x, single, d, v);
    const int nt = haze__threads_for(ctx, (double)n * (double)d, HAZE__FCM_PAR_WORK);
    const int ntt =
        haze__threads_for(ctx, (double)n * (double)d * (double)trials, HAZE__FCM_PAR_WORK);
    for (size_t j = 1; j < c && !st; j++) {
        const double *vl = v + (j - 1) * d;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && nbl > 16)
        for (long long b = 0; b < nbll; b++) {
            double s[PB];
            for (size_t t = 0; t < PB; t++) {
                const size_t i = (size_t)b * PB + t;
                double w = 0;
                if (i < n) {
                    const double a = pdist(x, single, i, d, vl);
                    const double old = j == 1 ? INFINITY : dmin[i];
                    w = a < old ? a : old;
                    dmin[i] = w;
                }
                s[t] = w;
            }
            haze__fcm_pp_tree(s, PB);
            bs[b] = s[0];
        }
        msgs m;
        if ((st = seg_exchange(ctx, pp, HAZE_OK, bs, 1, nbl, L, nb, q, &m))) break;
        memcpy(q + PS, q, PS * sizeof *q);
        haze__fcm_pp_tree(q + PS, PS);
        const double tot = q[PS];
        /* each candidate walked by the part that holds its segment's blocks
         * (every part, for a segment that straddles parts) and its point */
        memset(out, 0, (trials + 1) * slot * sizeof *out);
        for (size_t t = 0; t < trials && tot > 0; t++) {
            const double target = u[j * trials + t] * tot;
            double acc = 0;
            const long long sg = haze__fcm_pp_level(q, PS, target, &acc);
            if (sg < 0) continue;
            const size_t s = (size_t)sg * L, e = s + L < nb ? s + L : nb;
            long long b = -1;
            if (s >= b0 && e <= b1) { /* inside this part */
                b = haze__fcm_pp_level(bs + (s - b0), e - s, target, &acc);
            } else {
                size_t k0, k1;
                part_blocks(pp, owner_of_row(pp, s * PB), &k0, &k1);
                if (s >= k0 && e <= k1) continue; /* inside another part */
                seg_blocks(pp, &m, (size_t)sg, L, nb, tmp);
                b = haze__fcm_pp_level(tmp, e - s, target, &acc);
            }
            if (b < 0 || s + (size_t)b < b0 || s + (size_t)b >= b1) continue;
            const size_t i0 = (s + (size_t)b - b0) * PB;
            const long long i =
                haze__fcm_pp_level(dmin + i0, PB < n - i0 ? PB : n - i0, target, &acc);
            double *o = out + t * slot;
            o[0] = i >= 0 ? (double)(pp->first + i0 + (size_t)i) + 2 : 1;
            if (i >= 0)
                for (size_t k = 0; k < d; k++) o[1 + k] = xv(x, single, (i0 + (size_t)i) * d + k);
        }
        msgs_free(&m);
        if (idx[j] >= pp->first && idx[j] - pp->first < n) { /* the fallback, if this part's */
            double *o = out + trials * slot;
            o[0] = 1;
            for (size_t k = 0; k < d; k++) o[1 + k] = xv(x, single, (idx[j] - pp->first) * d + k);
        }
        if ((st = exchange(ctx, pp, HAZE_OK, 0, out, (trials + 1) * slot * sizeof *out, &m, NULL)))
            break;
        int same = 1;
        for (size_t t = 0; t < trials && !st; t++) {
            const double *from = NULL;
            for (size_t k = 0; k < m.count && !from; k++)
                if (m.len[k] == (trials + 1) * slot * sizeof(double) && m.at[k][t * slot] >= 2) {
                    from = m.at[k] + t * slot;
                    cand[t] = (size_t)(from[0] - 2);
                }
            for (size_t k = 0; k < m.count && !from; k++) /* all points on the centres */
                if (m.len[k] == (trials + 1) * slot * sizeof(double) &&
                    m.at[k][trials * slot] == 1) {
                    from = m.at[k] + trials * slot;
                    cand[t] = idx[j];
                }
            if (!from) {
                pp->dead = 1;
                st = haze__error(ctx, HAZE_ERR_INTERNAL,
                                 "fcm: no part sent k-means++ candidate %zu", t + 1);
                break;
            }
            memcpy(cv + t * d, from + 1, d * sizeof *cv);
            same &= cand[t] == cand[0];
        }
        msgs_free(&m);
        if (st) break;
        size_t best = 0;
        if (!same) { /* the candidate that leaves the smallest potential sum_i dmin_i */
#pragma omp parallel for num_threads(ntt) schedule(static) if (ntt > 1 && nbl > 16)
            for (long long b = 0; b < nbll; b++) {
                double s[PB];
                for (size_t t = 0; t < trials; t++) {
                    for (size_t r = 0; r < PB; r++) {
                        const size_t i = (size_t)b * PB + r;
                        double w = 0;
                        if (i < n) {
                            const double a = pdist(x, single, i, d, cv + t * d);
                            w = a < dmin[i] ? a : dmin[i];
                        }
                        s[r] = w;
                    }
                    haze__fcm_pp_tree(s, PB);
                    cs[t * nbl + (size_t)b] = s[0];
                }
            }
            double *qt = malloc(trials * PS * sizeof *qt);
            st = seg_exchange(ctx, pp,
                              qt ? HAZE_OK : haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory"),
                              cs, trials, nbl, L, nb, qt ? qt : q, &m);
            if (!st) {
                msgs_free(&m);
                double pbest = 0;
                for (size_t t = 0; t < trials; t++) {
                    memcpy(tmp, qt + t * PS, PS * sizeof *tmp);
                    haze__fcm_pp_tree(tmp, PS);
                    if (t == 0 || tmp[0] < pbest) pbest = tmp[0], best = t;
                }
            }
            free(qt);
            if (st) break;
        }
        memcpy(v + j * d, cv + best * d, d * sizeof *v);
    }
    free(dmin), free(bs), free(q), free(cv), free(tmp), free(out);
    return st;
}
