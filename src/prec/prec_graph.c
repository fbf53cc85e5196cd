/*
 * src/prec/prec_graph.c - the expression graph a script compiles to.
 *
 * Nodes are hash-consed, so two expressions written the same way (after
 * definitions are inlined) are one node. Each node knows its "stripped" twin:
 * the same expression with every rounding operator removed. A goal such as
 * "o_fx - o_m" whose two sides have the same stripped twin has an exact part
 * that is identically zero, which is Gappa's rewriting
 * o(a) - b -> (o(a) - a) + (a - b) (Linderman et al., CGO 2010, Sec. 3.1)
 * applied once and for all. Each node also carries Gappa's FIX and FLT facts
 * (the value is a multiple of 2^fix and has at most flt significant bits),
 * which prove roundings exact when they are.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "prec/prec_internal.h"

haze_prec_script *haze__prec_script_new(const char *name) {
    haze_prec_script *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->name = strdup(name ? name : "<script>");
    if (!s->name) {
        free(s);
        return NULL;
    }
    s->refine = -1;
    return s;
}

void haze__prec_script_free(haze_prec_script *s) {
    if (!s) return;
    for (int i = 0; i < s->n_nodes; i++)
        if (s->nodes[i].op == OP_CONST) haze__pi_clear(&s->nodes[i].k);
    for (int i = 0; i < s->n_vars; i++) {
        free(s->vars[i].name);
        haze__pi_clear(&s->vars[i].range);
    }
    for (int i = 0; i < s->n_goals; i++) {
        free(s->goals[i].text);
        haze__pi_clear(&s->goals[i].want);
    }
    free(s->nodes);
    free(s->hash);
    free(s->fmts);
    free(s->vars);
    free(s->goals);
    for (int i = 0; i < s->n_notes; i++) free(s->notes[i]);
    free(s->notes);
    free(s->name);
    free(s);
}

int haze__prec_add_note(haze_prec_script *s, const char *text) {
    char **v = realloc(s->notes, (size_t)(s->n_notes + 1) * sizeof *v);
    if (!v) return HAZE_ERR_NOMEM;
    s->notes = v;
    if (!(v[s->n_notes] = strdup(text))) return HAZE_ERR_NOMEM;
    s->n_notes++;
    return HAZE_OK;
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

static uint64_t node_hash(const pnode *n) {
    uint64_t h = (uint64_t)n->op;
    h = mix(h, (uint64_t)(int64_t)n->a);
    h = mix(h, (uint64_t)(int64_t)n->b);
    h = mix(h, (uint64_t)(int64_t)n->c);
    h = mix(h, (uint64_t)(int64_t)n->fmt);
    h = mix(h, (uint64_t)(int64_t)n->var);
    if (n->op == OP_CONST) {
        double lo = mpfr_get_d(n->k.lo, MPFR_RNDN), hi = mpfr_get_d(n->k.hi, MPFR_RNDN);
        uint64_t u, v;
        memcpy(&u, &lo, 8);
        memcpy(&v, &hi, 8);
        h = mix(mix(h, u), v);
    }
    /* the table takes the low bits, which mix() leaves equal for constants
     * whose doubles differ only in their high bits (0, 1, 2, ...): one chain
     * of all the counters of an unrolled loop, time n^2. A finaliser (the
     * one of MurmurHash3) spreads every bit over the low ones. */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

static int node_equal(const pnode *x, const pnode *y) {
    if (x->op != y->op || x->a != y->a || x->b != y->b || x->c != y->c || x->fmt != y->fmt ||
        x->var != y->var)
        return 0;
    if (x->op == OP_CONST) return mpfr_equal_p(x->k.lo, y->k.lo) && mpfr_equal_p(x->k.hi, y->k.hi);
    return 1;
}

static int rehash(haze_prec_script *s, int cap) {
    int *h = malloc((size_t)cap * sizeof *h);
    if (!h) return -1;
    for (int i = 0; i < cap; i++) h[i] = -1;
    for (int i = 0; i < s->n_nodes; i++) {
        size_t j = node_hash(&s->nodes[i]) & (size_t)(cap - 1);
        while (h[j] >= 0) j = (j + 1) & (size_t)(cap - 1);
        h[j] = i;
    }
    free(s->hash);
    s->hash = h;
    s->hash_cap = cap;
    return 0;
}

/* Known FIX facts stay within [-FIX_MAX, FIX_MAX], so that the sum of two
 * cannot overflow a long (squaring a value 64 times doubles its fix 64
 * times). Above the range a fact is weakened to FIX_MAX, which is sound (a
 * multiple of 2^k is a multiple of every smaller power of two); below it
 * nothing is known. Known FLT facts likewise stay below FLT_MAX_KNOWN
 * (beyond: unknown, no bound on the significand). The constant 0 has fix
 * FIX_MAX. */
#define FIX_MAX       (LONG_MAX / 4)
#define FLT_MAX_KNOWN (LONG_MAX / 4)

static long fix_norm(long v) {
    if (v == FIX_UNKNOWN) return v;
    if (v > FIX_MAX) return FIX_MAX;
    return v < -FIX_MAX ? FIX_UNKNOWN : v;
}

static long flt_norm(long v) {
    return v > FLT_MAX_KNOWN ? FLT_UNKNOWN : v;
}

/* FIX and FLT of a constant: m 2^e with m odd has fix e and flt bits(m). */
static void const_facts(pnode *n) {
    n->fix = FIX_UNKNOWN;
    n->flt = FLT_UNKNOWN;
    if (!haze__pi_is_point(&n->k) || !mpfr_number_p(n->k.lo)) return;
    if (mpfr_zero_p(n->k.lo)) {
        n->fix = FIX_MAX;
        n->flt = 0;
        return;
    }
    mpz_t m;
    mpz_init(m);
    long e = mpfr_get_z_2exp(m, n->k.lo);
    mpz_abs(m, m);
    unsigned long tz = mpz_scan1(m, 0);
    n->fix = fix_norm(e + (long)tz);
    n->flt = flt_norm((long)mpz_sizeinbase(m, 2) - (long)tz);
    mpz_clear(m);
}

static long fix_add(long a, long b) {
    if (a == FIX_UNKNOWN || b == FIX_UNKNOWN) return FIX_UNKNOWN;
    return a < b ? a : b;
}

static long fix_mul(long a, long b) {
    if (a == FIX_UNKNOWN || b == FIX_UNKNOWN) return FIX_UNKNOWN;
    return fix_norm(a + b);
}

/* m-bit times n-bit significands need m + n bits, or n when m is 1 (a power of two). */
static long flt_mul(long a, long b) {
    if (a <= 1 && b != FLT_UNKNOWN) return a == 0 ? 0 : b;
    if (b <= 1 && a != FLT_UNKNOWN) return b == 0 ? 0 : a;
    if (a == FLT_UNKNOWN || b == FLT_UNKNOWN) return FLT_UNKNOWN;
    return flt_norm(a + b);
}

static void node_facts(const haze_prec_script *s, pnode *n) {
    const pnode *A = n->a >= 0 ? &s->nodes[n->a] : NULL;
    const pnode *B = n->b >= 0 ? &s->nodes[n->b] : NULL;
    const pnode *C = n->c >= 0 ? &s->nodes[n->c] : NULL;
    n->fix = FIX_UNKNOWN;
    n->flt = FLT_UNKNOWN;
    switch (n->op) {
    case OP_NEG:
    case OP_ABS:
        n->fix = A->fix;
        n->flt = A->flt;
        break;
    case OP_ADD:
    case OP_SUB:
        n->fix = fix_add(A->fix, B->fix);
        if (n->op == OP_ADD && n->a == n->b) { /* a + a = 2a: the bits of a */
            n->fix = A->fix == FIX_UNKNOWN ? FIX_UNKNOWN : fix_norm(A->fix + 1);
            n->flt = A->flt;
        }
        break;
    case OP_MUL:
        n->fix = fix_mul(A->fix, B->fix);
        n->flt = flt_mul(A->flt, B->flt);
        break;
    case OP_FMA:
        n->fix = fix_add(fix_mul(A->fix, B->fix), C->fix);
        break;
    case OP_RND: {
        const pformat *f = &s->fmts[n->fmt];
        long lsb = f->fixed ? f->lsb : f->emin;
        if (lsb == LONG_MIN)
            n->fix = A->fix;
        else
            n->fix = fix_norm(A->fix == FIX_UNKNOWN || A->fix < lsb ? lsb : A->fix);
        if (!f->fixed) n->flt = A->flt < f->prec ? A->flt : f->prec;
        break;
    }
    default:
        break;
    }
}

static int push_node(haze_prec_script *s, const pnode *proto) {
    if (s->hash_cap == 0 || 2 * (s->n_nodes + 1) > s->hash_cap)
        if (rehash(s, s->hash_cap ? 2 * s->hash_cap : 256)) return -1;
    size_t j = node_hash(proto) & (size_t)(s->hash_cap - 1);
    while (s->hash[j] >= 0) {
        if (node_equal(&s->nodes[s->hash[j]], proto)) return s->hash[j];
        j = (j + 1) & (size_t)(s->hash_cap - 1);
    }
    if (s->n_nodes == s->cap_nodes) {
        int cap = s->cap_nodes ? 2 * s->cap_nodes : 64;
        pnode *nn = realloc(s->nodes, (size_t)cap * sizeof *nn);
        if (!nn) return -1;
        s->nodes = nn;
        for (int i = 0; i < s->n_nodes; i++)
            if (nn[i].op == OP_CONST) haze__pi_fixup(&nn[i].k);
        s->cap_nodes = cap;
    }
    int id = s->n_nodes++;
    pnode *n = &s->nodes[id];
    *n = *proto;
    if (proto->op == OP_CONST) {
        haze__pi_init(&n->k);
        haze__pi_set(&n->k, &proto->k);
    }
    s->hash[j] = id;
    return id;
}

int haze__prec_const(haze_prec_script *s, const pint *k, int line, int col) {
    pnode p;
    memset(&p, 0, sizeof p);
    p.op = OP_CONST;
    p.a = p.b = p.c = -1;
    p.fmt = p.var = -1;
    p.line = line;
    p.col = col;
    haze__pi_init(&p.k);
    haze__pi_set(&p.k, k);
    const_facts(&p);
    int id = push_node(s, &p);
    haze__pi_clear(&p.k);
    if (id >= 0) s->nodes[id].strip = id;
    return id;
}

int haze__prec_var(haze_prec_script *s, int var, int line, int col) {
    pnode p;
    memset(&p, 0, sizeof p);
    p.op = OP_VAR;
    p.a = p.b = p.c = -1;
    p.fmt = -1;
    p.var = var;
    p.line = line;
    p.col = col;
    p.fix = FIX_UNKNOWN;
    p.flt = FLT_UNKNOWN;
    int id = push_node(s, &p);
    if (id >= 0) s->nodes[id].strip = id;
    return id;
}

static int is_const(const haze_prec_script *s, int id) {
    return id >= 0 && s->nodes[id].op == OP_CONST;
}

/* Folds exact arithmetic on constants (the enclosure stays outward). */
static int fold(haze_prec_script *s, int op, int a, int b, int line, int col) {
    pint r;
    haze__pi_init(&r);
    const pint *x = &s->nodes[a].k, *y = b >= 0 ? &s->nodes[b].k : NULL;
    switch (op) {
    case OP_NEG:
        haze__pi_neg(&r, x);
        break;
    case OP_ADD:
        haze__pi_add(&r, x, y);
        break;
    case OP_SUB:
        haze__pi_sub(&r, x, y);
        break;
    default:
        haze__pi_mul(&r, x, y);
        break;
    }
    int id = haze__prec_const(s, &r, line, col);
    haze__pi_clear(&r);
    return id;
}

int haze__prec_node(haze_prec_script *s, int op, int a, int b, int c, int fmt, int line, int col) {
    if (a < 0 || (op >= OP_ADD && op <= OP_FMA && op != OP_ABS && b < 0)) return -1;
    /* commutative operations in one order, so that a*b and b*a are one node */
    if ((op == OP_ADD || op == OP_MUL) && a > b) {
        int t = a;
        a = b;
        b = t;
    }
    /* x - x is 0 exactly: the rewriting that isolates rounding errors */
    if (op == OP_SUB && a == b) {
        pint z;
        haze__pi_init(&z);
        int id = haze__prec_const(s, &z, line, col);
        haze__pi_clear(&z);
        return id;
    }
    /* rounding a constant that the format holds exactly changes nothing */
    if (op == OP_RND && is_const(s, a) && haze__pi_is_point(&s->nodes[a].k)) {
        mpfr_t r;
        mpfr_init2(r, PREC_BITS + 8);
        int same = haze__prec_round_point(&s->fmts[fmt], r, s->nodes[a].k.lo) == 0 &&
                   mpfr_equal_p(r, s->nodes[a].k.lo) && s->fmts[fmt].extra_ulps == 0 &&
                   s->fmts[fmt].extra_abs == LONG_MIN;
        mpfr_clear(r);
        if (same) return a;
    }
    /* rounding what FIX/FLT already prove representable changes nothing
     * (at any magnitude below overflow, which the analysis still checks on
     * the rounding that made the value) */
    if (op == OP_RND) {
        const pformat *f = &s->fmts[fmt];
        const pnode *x = &s->nodes[a];
        int plain = f->extra_ulps == 0 && f->extra_abs == LONG_MIN;
        long emin = f->ftz ? -126 : f->emin;
        if (plain && x->fix != FIX_UNKNOWN &&
            (f->fixed ? x->fix >= f->lsb
                      : x->flt <= f->prec && (emin == LONG_MIN || x->fix >= emin) &&
                            x->op == OP_RND && s->fmts[x->fmt].emax <= f->emax))
            return a;
    }
    /* x + 0, x - 0 and x * 1 are x */
    if (op == OP_ADD || op == OP_SUB || op == OP_MUL) {
        for (int k = 0; k < 2; k++) {
            int c0 = k ? b : a, other = k ? a : b;
            if (op == OP_SUB && k == 0) continue;
            if (!is_const(s, c0) || !haze__pi_is_point(&s->nodes[c0].k)) continue;
            if (op == OP_MUL ? mpfr_cmp_ui(s->nodes[c0].k.lo, 1) == 0
                             : mpfr_zero_p(s->nodes[c0].k.lo))
                return other;
        }
    }
    /* exact constant folding keeps ideal expressions like 0.5 * x shared */
    if ((op == OP_NEG && is_const(s, a)) ||
        ((op == OP_ADD || op == OP_SUB || op == OP_MUL) && is_const(s, a) && is_const(s, b))) {
        int ok = 1;
        if (op != OP_NEG)
            ok = haze__pi_is_point(&s->nodes[a].k) && haze__pi_is_point(&s->nodes[b].k);
        if (ok) {
            int id = fold(s, op, a, op == OP_NEG ? -1 : b, line, col);
            if (id >= 0 && haze__pi_is_point(&s->nodes[id].k)) return id;
        }
    }
    /* 0 / b and |0| are 0 (the ideal part of a relative error goal) */
    if ((op == OP_DIV || op == OP_ABS) && is_const(s, a) && haze__pi_is_point(&s->nodes[a].k) &&
        mpfr_zero_p(s->nodes[a].k.lo))
        return a;
    pnode p;
    memset(&p, 0, sizeof p);
    p.op = op;
    p.a = a;
    p.b = b;
    p.c = c;
    p.fmt = op == OP_RND ? fmt : -1;
    p.var = -1;
    p.line = line;
    p.col = col;
    /* the stripped twin first, so that it always has a smaller id */
    int strip;
    if (op == OP_RND) {
        strip = s->nodes[a].strip;
    } else {
        int sa = s->nodes[a].strip, sb = b >= 0 ? s->nodes[b].strip : -1;
        int sc = c >= 0 ? s->nodes[c].strip : -1;
        if (sa == a && sb == b && sc == c)
            strip = -2; /* itself */
        else
            strip = haze__prec_node(s, op, sa, sb, sc, -1, line, col);
        if (strip == -1) return -1;
    }
    node_facts(s, &p);
    int id = push_node(s, &p);
    if (id < 0) return -1;
    s->nodes[id].strip = strip == -2 ? id : strip;
    return id;
}

int haze__prec_add_format(haze_prec_script *s, const pformat *f) {
    for (int i = 0; i < s->n_fmts; i++)
        if (!memcmp(&s->fmts[i], f, sizeof *f)) return i;
    if (s->n_fmts == s->cap_fmts) {
        int cap = s->cap_fmts ? 2 * s->cap_fmts : 8;
        pformat *nf = realloc(s->fmts, (size_t)cap * sizeof *nf);
        if (!nf) return -1;
        s->fmts = nf;
        s->cap_fmts = cap;
    }
    s->fmts[s->n_fmts] = *f;
    return s->n_fmts++;
}

int haze__prec_find_var(const haze_prec_script *s, const char *name) {
    for (int i = 0; i < s->n_vars; i++)
        if (!strcmp(s->vars[i].name, name)) return i;
    return -1;
}

int haze__prec_add_var(haze_prec_script *s, const char *name, int line, int col) {
    int i = haze__prec_find_var(s, name);
    if (i >= 0) return i;
    if (s->n_vars == s->cap_vars) {
        int cap = s->cap_vars ? 2 * s->cap_vars : 8;
        pvar *nv = realloc(s->vars, (size_t)cap * sizeof *nv);
        if (!nv) return -1;
        s->vars = nv;
        for (int k = 0; k < s->n_vars; k++) haze__pi_fixup(&nv[k].range);
        s->cap_vars = cap;
    }
    pvar *v = &s->vars[s->n_vars];
    memset(v, 0, sizeof *v);
    v->name = strdup(name);
    if (!v->name) return -1;
    haze__pi_init(&v->range);
    haze__pi_set_entire(&v->range);
    v->bisect = 1;
    v->line = line;
    v->col = col;
    return s->n_vars++;
}

int haze__prec_check_ranges(haze_ctx *ctx, const haze_prec_script *s) {
    if (s->n_goals == 0)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: the script has no goal", s->name);
    char *need = calloc((size_t)s->n_nodes + 1, 1);
    if (!need) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    for (int g = 0; g < s->n_goals; g++) need[s->goals[g].node] = 1;
    int rc = 0;
    for (int i = s->n_nodes - 1; i >= 0 && !rc; i--) {
        if (!need[i]) continue;
        const pnode *n = &s->nodes[i];
        need[n->strip] = 1;
        if (n->a >= 0) need[n->a] = 1;
        if (n->b >= 0) need[n->b] = 1;
        if (n->c >= 0) need[n->c] = 1;
        if (n->op == OP_VAR && !s->vars[n->var].has_range) {
            const pvar *v = &s->vars[n->var];
            if (s->fpcore) {
                int lo = mpfr_number_p(v->range.lo), hi = mpfr_number_p(v->range.hi);
                rc = haze__text_error(ctx, HAZE_ERR_PARSE, s->name, v->line, v->col,
                                      "argument '%s' needs a range: :pre bounds it %s; bound "
                                      "it on both sides, e.g. (<= lo %s hi)",
                                      v->name,
                                      lo   ? "only from below"
                                      : hi ? "only from above"
                                           : "on neither side",
                                      v->name);
            } else {
                rc = haze__text_error(ctx, HAZE_ERR_PARSE, s->name, v->line, v->col,
                                      "undefined variable '%s' (no definition and no range; "
                                      "add '%s in [a,b]' to the hypotheses)",
                                      v->name, v->name);
            }
        }
    }
    free(need);
    return rc;
}
