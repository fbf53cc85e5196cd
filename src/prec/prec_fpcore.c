/*
 * src/prec/prec_fpcore.c - reader for FPBench's FPCore format (FPCore 1.x/2.0,
 * fpbench.org/spec): (FPCore (x y) :pre (and (<= a x b) ...) :precision
 * binary64 body). Inputs are reals in the :pre ranges, rounded to the
 * precision on entry (as FPTaylor's benchmarks do); every operation and every
 * constant of the body is rounded. The goal is the error of the body: the
 * rounded program minus the same expression in exact arithmetic.
 *
 * Supported: + - * / (n-ary + and *), unary -, sqrt, exp, log, fabs, fma,
 * let / let*, decimal and rational numbers, :precision binary32 | binary64,
 * :pre with <=, <, >=, > chains and "and". Everything else (if, while, pow,
 * trigonometry, ! annotations, tensors) is rejected with line and column.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "prec/prec_front.h"

typedef struct sx {
    int list; /* 1: a list of kids; 0: an atom */
    char *atom;
    struct sx **kids;
    int n;
    int line, col;
} sx;

typedef struct fp {
    haze_ctx *ctx;
    haze_prec_script *s;
    const char *t;
    size_t i;
    int line, col;
    int status;
    int fmt;
    long unroll; /* while loops: 0 rejects them, N unrolls at most N iterations */
    long work;   /* expressions translated so far (loops count once per iteration) */
    long max_work;
    unsigned char *mark; /* const_eval's scratch, nmark zero bytes between calls */
    size_t nmark;
    int strict_noted; /* a strict :pre bound has been noted */
} fp;

/* Expressions translated at most by default (haze_prec_parse_options'
 * max_ops): nested loops multiply their iterations (a loop in a loop's
 * update runs N^depth times), so the unrolled script gets a size limit
 * rather than the parser running for hours. 10^6 take about a second. */
#define MAX_WORK 1000000L

static int ferr(fp *p, int line, int col, int st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int ferr(fp *p, int line, int col, int st, const char *fmt, ...) {
    if (p->status) return p->status;
    va_list ap;
    va_start(ap, fmt);
    p->status = haze__text_verror(p->ctx, st, p->s->name, line, col, fmt, ap);
    va_end(ap);
    return p->status;
}

static void sx_free(sx *x) {
    if (!x) return;
    for (int i = 0; i < x->n; i++) sx_free(x->kids[i]);
    haze__mp_free(x->kids);
    haze__mp_free(x->atom);
    haze__mp_free(x);
}

static void skip(fp *p) {
    for (;;) {
        char c = p->t[p->i];
        if (c == ';') {
            while (p->t[p->i] && p->t[p->i] != '\n') p->i++, p->col++;
        } else if (c == '\n') {
            p->i++, p->line++, p->col = 1;
        } else if (isspace((unsigned char)c)) {
            p->i++, p->col++;
        } else {
            return;
        }
    }
}

static sx *read_sx(fp *p, int depth) {
    skip(p);
    sx *x = haze__mp_calloc(1, sizeof *x);
    if (!x) {
        p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
        return NULL;
    }
    x->line = p->line;
    x->col = p->col;
    char c = p->t[p->i];
    if (!c) {
        ferr(p, p->line, p->col, HAZE_ERR_PARSE, "unexpected end of input");
        haze__mp_free(x);
        return NULL;
    }
    if (c == ')' || c == ']') {
        ferr(p, p->line, p->col, HAZE_ERR_PARSE, "unexpected '%c'", c);
        haze__mp_free(x);
        return NULL;
    }
    if (c == '(' || c == '[') {
        if (depth > 200) {
            ferr(p, p->line, p->col, HAZE_ERR_PARSE, "nesting too deep");
            haze__mp_free(x);
            return NULL;
        }
        char close = c == '(' ? ')' : ']';
        p->i++, p->col++;
        x->list = 1;
        for (;;) {
            skip(p);
            if (p->t[p->i] == close) {
                p->i++, p->col++;
                return x;
            }
            if (!p->t[p->i]) {
                ferr(p, x->line, x->col, HAZE_ERR_PARSE, "unclosed '%c'", c);
                sx_free(x);
                return NULL;
            }
            sx *k = read_sx(p, depth + 1);
            if (!k) {
                sx_free(x);
                return NULL;
            }
            sx **nk = haze__mp_realloc(x->kids, (size_t)(x->n + 1) * sizeof *nk);
            if (!nk) {
                sx_free(k);
                sx_free(x);
                p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
                return NULL;
            }
            x->kids = nk;
            x->kids[x->n++] = k;
        }
    }
    size_t j = p->i;
    if (c == '"') {
        j++;
        while (p->t[j] && p->t[j] != '"') j++;
        if (p->t[j]) j++;
    } else {
        while (p->t[j] && !isspace((unsigned char)p->t[j]) && !strchr("()[];", p->t[j])) j++;
    }
    x->atom = haze__mp_malloc(j - p->i + 1);
    if (x->atom) {
        memcpy(x->atom, p->t + p->i, j - p->i);
        x->atom[j - p->i] = 0;
    }
    p->col += (int)(j - p->i);
    p->i = j;
    if (!x->atom) {
        haze__mp_free(x);
        p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return x;
}

static int is_atom(const sx *x, const char *a) {
    return x && !x->list && !strcmp(x->atom, a);
}

/* A number atom (decimal or p/q) enclosed outward. 1 if it is a number. */
static int number(const char *a, pint *out) {
    char *end;
    const char *slash = strchr(a, '/');
    if (slash && slash != a) {
        char num[128], den[128];
        size_t n = (size_t)(slash - a);
        if (n >= sizeof num || strlen(slash + 1) >= sizeof den) return 0;
        memcpy(num, a, n);
        num[n] = 0;
        strcpy(den, slash + 1);
        pint x, y;
        haze__pi_init(&x);
        haze__pi_init(&y);
        int ok = number(num, &x) && number(den, &y) && !haze__pi_has_zero(&y);
        if (ok) haze__pi_div(out, &x, &y);
        return ok;
    }
    if (!(isdigit((unsigned char)a[0]) || ((a[0] == '-' || a[0] == '+' || a[0] == '.') && a[1])))
        return 0;
    locale_t lc = haze__numeric_begin(); /* MPFR reads localeconv()'s point */
    mpfr_strtofr(out->lo, a, &end, 10, MPFR_RNDD);
    int ok = !*end && end != a;
    if (ok) mpfr_strtofr(out->hi, a, &end, 10, MPFR_RNDU);
    haze__numeric_end(lc);
    return ok;
}

typedef struct binding {
    const char *name;
    int rounded, exact;
} binding;

typedef struct env {
    binding *b;
    int n, cap;
} env;

static int env_push(env *e, const char *name, int r, int x) {
    if (e->n == e->cap) {
        int cap = e->cap ? 2 * e->cap : 16;
        binding *nb = haze__mp_realloc(e->b, (size_t)cap * sizeof *nb);
        if (!nb) return -1;
        e->b = nb;
        e->cap = cap;
    }
    e->b[e->n++] = (binding){name, r, x};
    return 0;
}

static int node(fp *p, const sx *at, int op, int a, int b, int c, int fmt) {
    if (p->status || a < 0) return -1;
    int id = haze__prec_node(p->s, op, a, b, c, fmt, at->line, at->col);
    if (id < 0) p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    return id;
}

static int by_id(const void *x, const void *y) {
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* One node's exact value from its children's (v indexed by node id); 0 if
 * it is not a constant or not exact. */
static int const_step(const haze_prec_script *s, int id, mpfr_t *v) {
    const pnode *n = &s->nodes[id];
    if (n->op == OP_CONST) {
        if (!haze__pi_is_point(&n->k)) return 0;
        mpfr_set(v[id], n->k.lo, MPFR_RNDN);
        return 1;
    }
    if (n->op == OP_VAR || n->a < 0) return 0;
    mpfr_srcptr a = v[n->a], b = n->b >= 0 ? v[n->b] : NULL;
    mpfr_ptr out = v[id];
    int inexact;
    switch (n->op) {
    case OP_NEG:
        inexact = mpfr_neg(out, a, MPFR_RNDN);
        break;
    case OP_ADD:
        inexact = mpfr_add(out, a, b, MPFR_RNDN);
        break;
    case OP_SUB:
        inexact = mpfr_sub(out, a, b, MPFR_RNDN);
        break;
    case OP_MUL:
        inexact = mpfr_mul(out, a, b, MPFR_RNDN);
        break;
    case OP_DIV:
        inexact = mpfr_zero_p(b) || mpfr_div(out, a, b, MPFR_RNDN);
        break;
    case OP_ABS:
        inexact = mpfr_abs(out, a, MPFR_RNDN);
        break;
    case OP_RND:
        inexact = haze__prec_round_point(&s->fmts[n->fmt], out, a);
        break;
    default:
        return 0;
    }
    return !inexact;
}

/*
 * The value of a node that depends on no input, exactly; 0 if it has one
 * (or on error). Every node it depends on is evaluated once, children first
 * (their ids are smaller), without recursion: an unrolled loop makes long
 * chains, and a value used twice (x + x) would else double the work at
 * every level. mark is scratch of s->n_nodes zero bytes, left zero.
 */
static int const_eval(const haze_prec_script *s, int id, mpfr_t out, unsigned char *mark,
                      int *var) {
    size_t cap = 64, n = 0, done = 0;
    int *ids = haze__mp_malloc(cap * sizeof *ids);
    if (!ids) return 0;
    ids[n++] = id;
    mark[id] = 1;
    int ok = 1;
    /* ids[done..n) are waiting for their children to be collected */
    while (ok && done < n) {
        const pnode *x = &s->nodes[ids[done++]];
        if (x->op == OP_VAR) ok = 0, *var = 1;
        int kid[3] = {x->a, x->b, x->c};
        for (int k = 0; ok && k < 3; k++) {
            if (kid[k] < 0 || mark[kid[k]]) continue;
            if (n == cap) {
                int *m = haze__mp_realloc(ids, 2 * cap * sizeof *ids);
                if (!m) {
                    ok = 0;
                    break;
                }
                ids = m;
                cap *= 2;
            }
            mark[kid[k]] = 1;
            ids[n++] = kid[k];
        }
    }
    for (size_t i = 0; i < n; i++) mark[ids[i]] = 0;
    mpfr_t *v = ok ? haze__mp_malloc((size_t)s->n_nodes * sizeof *v) : NULL;
    if (v) {
        qsort(ids, n, sizeof *ids, by_id);
        size_t i;
        for (i = 0; ok && i < n; i++) {
            mpfr_init2(v[ids[i]], mpfr_get_prec(out));
            ok = const_step(s, ids[i], v);
        }
        if (ok) mpfr_set(out, v[id], MPFR_RNDN);
        while (i > 0) mpfr_clear(v[ids[--i]]);
    }
    ok = ok && v;
    haze__mp_free(v);
    haze__mp_free(ids);
    return ok;
}

static int expr(fp *p, const sx *e, env *en, int *r, int *x);

/*
 * Decides a loop condition at unrolling time. Its operands must not depend
 * on the inputs, and the rounded and the exact execution must agree, else
 * the loop cannot be unrolled statically.
 */
static int cond_eval(fp *p, const sx *e, env *en, int *truth) {
    if (is_atom(e, "TRUE") || is_atom(e, "FALSE")) {
        *truth = is_atom(e, "TRUE");
        return 0;
    }
    if (!e->list || e->n < 2 || e->kids[0]->list)
        return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED, "unsupported loop condition");
    const char *op = e->kids[0]->atom;
    if (!strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "not")) {
        int acc = !strcmp(op, "and"), t;
        for (int i = 1; i < e->n; i++) {
            if (cond_eval(p, e->kids[i], en, &t)) return -1;
            if (!strcmp(op, "and"))
                acc = acc && t;
            else if (!strcmp(op, "or"))
                acc = acc || t;
            else
                acc = !t;
        }
        *truth = acc;
        return 0;
    }
    static const char *cmp[] = {"<", "<=", ">", ">=", "==", "!="};
    int which = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(op, cmp[i])) which = i;
    if (which < 0 || e->n != 3)
        return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED, "unsupported loop condition '%s'",
                    op);
    int ra, xa, rb, xb;
    if (expr(p, e->kids[1], en, &ra, &xa) || expr(p, e->kids[2], en, &rb, &xb)) return -1;
    mpfr_t v[4];
    int ids[4] = {ra, rb, xa, xb}, ok = 1, res[2], var = 0;
    if (p->nmark < (size_t)p->s->n_nodes) { /* grown, not made anew per condition */
        size_t n = 2 * (size_t)p->s->n_nodes;
        unsigned char *m = haze__mp_realloc(p->mark, n);
        if (!m) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
        memset(m + p->nmark, 0, n - p->nmark);
        p->mark = m, p->nmark = n;
    }
    for (int i = 0; i < 4; i++) {
        mpfr_init2(v[i], 4096);
        ok = ok && const_eval(p->s, ids[i], v[i], p->mark, &var);
    }
    for (int k = 0; ok && k < 2; k++) {
        int c = mpfr_cmp(v[2 * k], v[2 * k + 1]);
        res[k] = which == 0   ? c < 0
                 : which == 1 ? c <= 0
                 : which == 2 ? c > 0
                 : which == 3 ? c >= 0
                 : which == 4 ? c == 0
                              : c != 0;
    }
    for (int i = 0; i < 4; i++) mpfr_clear(v[i]);
    if (!ok)
        return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED,
                    var ? "the loop condition depends on the inputs: cannot unroll (a loop "
                          "is unrolled when its condition is known before the analysis)"
                        : "the loop condition cannot be decided exactly (a value in it is "
                          "not exact at 4096 bits, or a division by zero): cannot unroll");
    if (res[0] != res[1])
        return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED,
                    "the rounded and the exact execution leave the loop at different iterations");
    *truth = res[0];
    return 0;
}

/* (while cond ([x init update] ...) body) and while*, unrolled. */
static int loop(fp *p, const sx *e, env *en, int *r, int *x) {
    int seq = !strcmp(e->kids[0]->atom, "while*");
    if (!p->unroll)
        return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED,
                    "loops are analysed unrolled: use --unroll (haze_prec_parse with unroll > 0)");
    if (e->n != 4 || !e->kids[2]->list)
        return ferr(p, e->line, e->col, HAZE_ERR_PARSE,
                    "while takes a condition, bindings and a body");
    const sx *bs = e->kids[2];
    if (bs->n > 64)
        return ferr(p, bs->line, bs->col, HAZE_ERR_UNSUPPORTED, "too many loop variables");
    int base = en->n, nr[64], nx[64];
    for (int i = 0; i < bs->n; i++) {
        const sx *b = bs->kids[i];
        if (!b->list || b->n != 3 || b->kids[0]->list)
            return ferr(p, b->line, b->col, HAZE_ERR_PARSE, "a loop binding is [name init update]");
        if (expr(p, b->kids[1], en, &nr[i], &nx[i])) return -1;
        if (seq && env_push(en, b->kids[0]->atom, nr[i], nx[i]))
            return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    }
    if (!seq)
        for (int i = 0; i < bs->n; i++)
            if (env_push(en, bs->kids[i]->kids[0]->atom, nr[i], nx[i]))
                return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    for (long it = 0;; it++) {
        int t;
        if (cond_eval(p, e->kids[1], en, &t)) return -1;
        if (!t) break;
        if (it == p->unroll)
            return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED,
                        "the loop runs more than %ld iterations, the unrolling limit (the "
                        "option unroll; --unroll=N on the command line); a loop that never "
                        "ends cannot be analysed",
                        p->unroll);
        for (int i = 0; i < bs->n; i++) {
            if (expr(p, bs->kids[i]->kids[2], en, &nr[i], &nx[i])) return -1;
            if (seq) en->b[base + i].rounded = nr[i], en->b[base + i].exact = nx[i];
        }
        if (!seq)
            for (int i = 0; i < bs->n; i++)
                en->b[base + i].rounded = nr[i], en->b[base + i].exact = nx[i];
    }
    int st = expr(p, e->kids[3], en, r, x);
    en->n = base;
    return st;
}

/* Translates an expression into its rounded (*r) and exact (*x) nodes. */
static int expr(fp *p, const sx *e, env *en, int *r, int *x) {
    if (p->status) return -1;
    if (++p->work > p->max_work)
        return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED,
                    "the script is too large: more than %ld operations once its loops are "
                    "unrolled (option max_ops, --max-ops)",
                    p->max_work);
    if (!e->list) {
        pint k;
        haze__pi_init(&k);
        if (number(e->atom, &k)) {
            *x = haze__prec_const(p->s, &k, e->line, e->col);
            *r = node(p, e, OP_RND, *x, -1, -1, p->fmt);
            return *x < 0 || *r < 0 ? -1 : 0;
        }
        for (int i = en->n - 1; i >= 0; i--)
            if (!strcmp(en->b[i].name, e->atom)) {
                *r = en->b[i].rounded;
                *x = en->b[i].exact;
                return 0;
            }
        return ferr(p, e->line, e->col, HAZE_ERR_PARSE, "undefined variable '%s'", e->atom);
    }
    if (e->n == 0 || e->kids[0]->list)
        return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED, "expected an operation");
    const char *op = e->kids[0]->atom;
    int n = e->n - 1;
    if (!strcmp(op, "while") || !strcmp(op, "while*")) return loop(p, e, en, r, x);
    if (!strcmp(op, "let") || !strcmp(op, "let*")) {
        if (n != 2 || !e->kids[1]->list)
            return ferr(p, e->line, e->col, HAZE_ERR_PARSE, "let takes bindings and a body");
        const sx *bs = e->kids[1];
        int base = en->n;
        int nr[64], nx[64];
        if (bs->n > 64)
            return ferr(p, bs->line, bs->col, HAZE_ERR_UNSUPPORTED, "too many bindings");
        for (int i = 0; i < bs->n; i++) {
            const sx *b = bs->kids[i];
            if (!b->list || b->n != 2 || b->kids[0]->list)
                return ferr(p, b->line, b->col, HAZE_ERR_PARSE, "a binding is [name expression]");
            if (expr(p, b->kids[1], en, &nr[i], &nx[i])) return -1;
            /* let*: each binding sees the previous ones */
            if (!strcmp(op, "let*") && env_push(en, b->kids[0]->atom, nr[i], nx[i]))
                return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
        }
        if (!strcmp(op, "let"))
            for (int i = 0; i < bs->n; i++)
                if (env_push(en, bs->kids[i]->kids[0]->atom, nr[i], nx[i]))
                    return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
        int st = expr(p, e->kids[2], en, r, x);
        en->n = base;
        return st;
    }
    static const struct {
        const char *name;
        int op, arity; /* arity -1: n-ary (at least 2) */
    } ops[] = {{"+", OP_ADD, -1},    {"*", OP_MUL, -1},   {"/", OP_DIV, 2},   {"sqrt", OP_SQRT, 1},
               {"exp", OP_EXP, 1},   {"log", OP_LOG, 1},  {"fma", OP_FMA, 3}, {"fabs", OP_ABS, 1},
               {"exp2", OP_EXP2, 1}, {"log2", OP_LOG2, 1}};
    int code = -1, arity = 0;
    if (!strcmp(op, "-")) {
        code = n == 1 ? OP_NEG : OP_SUB;
        arity = n == 1 ? 1 : 2;
    }
    for (size_t i = 0; i < sizeof ops / sizeof *ops && code < 0; i++)
        if (!strcmp(op, ops[i].name)) code = ops[i].op, arity = ops[i].arity;
    if (code < 0)
        return ferr(p, e->kids[0]->line, e->kids[0]->col, HAZE_ERR_UNSUPPORTED,
                    "'%s' is not supported (haze analyses +, -, *, /, sqrt, fma, fabs, exp, "
                    "log, exp2, log2, let and let*, and while loops with --unroll)",
                    op);
    if ((arity > 0 && n != arity) || (arity < 0 && n < 2))
        return ferr(p, e->line, e->col, HAZE_ERR_PARSE, "'%s' takes %d argument%s", op,
                    arity > 0 ? arity : 2, arity == 1 ? "" : "s");
    int ar[3], ax[3];
    if (expr(p, e->kids[1], en, &ar[0], &ax[0])) return -1;
    if (arity < 0) { /* left fold, each step rounded */
        int cr = ar[0], cx = ax[0];
        for (int i = 2; i <= n; i++) {
            int br, bx;
            if (expr(p, e->kids[i], en, &br, &bx)) return -1;
            cx = node(p, e, code, cx, bx, -1, -1);
            cr = node(p, e, OP_RND, node(p, e, code, cr, br, -1, -1), -1, -1, p->fmt);
        }
        *r = cr;
        *x = cx;
        return p->status ? -1 : 0;
    }
    for (int i = 1; i < arity; i++)
        if (expr(p, e->kids[i + 1], en, &ar[i], &ax[i])) return -1;
    int b = arity > 1 ? 1 : -1, c = arity > 2 ? 2 : -1;
    *x = node(p, e, code, ax[0], b > 0 ? ax[1] : -1, c > 0 ? ax[2] : -1, -1);
    int rr = node(p, e, code, ar[0], b > 0 ? ar[1] : -1, c > 0 ? ar[2] : -1, -1);
    /* negation and |x| are exact */
    *r = code == OP_NEG || code == OP_ABS ? rr : node(p, e, OP_RND, rr, -1, -1, p->fmt);
    return p->status ? -1 : 0;
}

/* Writes e as FPCore text into b (cut with "..." if it does not fit). */
static void sx_text(const sx *e, char *b, size_t cap, size_t *len) {
    if (*len + 1 >= cap) return;
    if (!e->list) {
        int n = snprintf(b + *len, cap - *len, "%s", e->atom);
        *len = n < 0 || (size_t)n >= cap - *len ? cap - 1 : *len + (size_t)n;
        return;
    }
    b[(*len)++] = '(';
    for (int i = 0; i < e->n && *len + 1 < cap; i++) {
        if (i) b[(*len)++] = ' ';
        sx_text(e->kids[i], b, cap, len);
    }
    if (*len + 1 < cap) b[(*len)++] = ')';
    b[*len] = '\0';
    if (*len + 1 >= cap && cap > 4) memcpy(b + cap - 4, "...", 4);
}

/* A note "LINE:COL: text" at e for haze_prec_note (what the parser read
 * but the analysis does not take as written). */
static int note_at(fp *p, const sx *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int note_at(fp *p, const sx *e, const char *fmt, ...) {
    char note[320];
    int n = snprintf(note, sizeof note, "%d:%d: ", e->line, e->col);
    va_list ap;
    va_start(ap, fmt);
    haze__vsnprintf(note + n, sizeof note - (size_t)n, fmt, ap);
    va_end(ap);
    if (haze__prec_add_note(p->s, note))
        return ferr(p, e->line, e->col, HAZE_ERR_NOMEM, "out of memory");
    return 0;
}

/* A :pre conjunct that bounds no single argument: kept as a note, since the
 * analysis covers the whole box and not the region the conjunct cuts out. */
static int pre_note(fp *p, const sx *e) {
    char text[160];
    size_t len = 0;
    text[0] = '\0';
    sx_text(e, text, sizeof text, &len);
    return note_at(p, e,
                   ":pre constraint %s is not used (only ranges of single arguments bound the "
                   "inputs); the bounds hold for the whole box",
                   text);
}

/* :pre - (and ...) of comparison chains with one variable between numbers. */
static int pre(fp *p, const sx *e) {
    if (!e->list || e->n < 1 || e->kids[0]->list)
        return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED, "unsupported :pre");
    const char *op = e->kids[0]->atom;
    if (!strcmp(op, "and")) {
        for (int i = 1; i < e->n; i++)
            if (pre(p, e->kids[i])) return -1;
        return 0;
    }
    int le = !strcmp(op, "<=") || !strcmp(op, "<"), ge = !strcmp(op, ">=") || !strcmp(op, ">");
    if (!le && !ge)
        return ferr(p, e->line, e->col, HAZE_ERR_UNSUPPORTED,
                    ":pre supports and, <=, <, >=, >; not '%s'", op);
    /* each adjacent pair: number op variable, or variable op number */
    int noted = 0;
    for (int i = 1; i + 1 < e->n; i++) {
        const sx *a = e->kids[i], *b = e->kids[i + 1];
        pint k;
        haze__pi_init(&k);
        const sx *var = NULL;
        int var_is_low; /* the variable is on the small side of the comparison */
        if (!a->list && number(a->atom, &k) && !b->list && !number(b->atom, &k)) {
            number(a->atom, &k);
            var = b;
            var_is_low = ge;
        } else if (!a->list && !number(a->atom, &k) && !b->list && number(b->atom, &k)) {
            var = a;
            var_is_low = le;
        } else {
            /* number-number: no range; anything else relates expressions */
            int numbers = !a->list && !b->list && number(a->atom, &k) && number(b->atom, &k);
            if (!numbers && !noted++ && pre_note(p, e)) return -1;
            continue;
        }
        int v = haze__prec_find_var(p->s, var->atom);
        if (v < 0)
            return ferr(p, var->line, var->col, HAZE_ERR_PARSE, "'%s' is not an argument",
                        var->atom);
        if ((!strcmp(op, "<") || !strcmp(op, ">")) && !p->strict_noted++ &&
            note_at(p, e,
                    ":pre bounds with '%s': the analysis takes the closed range, endpoints "
                    "included",
                    op))
            return -1;
        pvar *pv = &p->s->vars[v];
        if (var_is_low)
            mpfr_min(pv->range.hi, pv->range.hi, k.hi, MPFR_RNDU);
        else
            mpfr_max(pv->range.lo, pv->range.lo, k.lo, MPFR_RNDD);
        if (mpfr_cmp(pv->range.lo, pv->range.hi) > 0)
            return ferr(p, e->line, e->col, HAZE_ERR_PARSE, "empty range for '%s'", pv->name);
        pv->has_range = mpfr_number_p(pv->range.lo) && mpfr_number_p(pv->range.hi);
    }
    return 0;
}

int haze__prec_parse_fpcore(haze_ctx *ctx, haze_prec_script *s, const char *text, long unroll,
                            long max_ops) {
    fp P = {ctx, s, text, 0, 1, 1, 0, -1, unroll, 0, max_ops > 0 ? max_ops : MAX_WORK, NULL, 0, 0};
    fp *p = &P;
    s->fpcore = 1;
    sx *top = read_sx(p, 0);
    if (!top) return P.status;
    skip(p);
    if (!P.status && p->t[p->i])
        ferr(p, p->line, p->col, HAZE_ERR_UNSUPPORTED, "one FPCore per file is supported");
    if (!P.status && (!top->list || top->n < 3 || !is_atom(top->kids[0], "FPCore")))
        ferr(p, top->line, top->col, HAZE_ERR_PARSE, "expected (FPCore (arguments) ... body)");
    int k = 1;
    if (!P.status && !top->kids[1]->list) k = 2; /* FPCore 2.0 name */
    const sx *args = !P.status && k < top->n ? top->kids[k] : NULL;
    if (!P.status && (!args || !args->list))
        ferr(p, top->line, top->col, HAZE_ERR_PARSE, "expected the argument list");
    env en = {NULL, 0, 0};
    pformat f;
    memset(&f, 0, sizeof f);
    f.prec = 53, f.emin = -1074, f.emax = 1023, f.dir = DIR_NE, f.extra_abs = LONG_MIN;
    const sx *prop_pre = NULL;
    const char *name = NULL;
    int i = k + 1;
    for (; !P.status && i + 1 < top->n; i += 2) {
        const sx *key = top->kids[i];
        if (key->list || key->atom[0] != ':') break;
        const sx *val = top->kids[i + 1];
        if (!strcmp(key->atom, ":pre"))
            prop_pre = val;
        else if (!strcmp(key->atom, ":name") && !val->list)
            name = val->atom;
        else if (!strcmp(key->atom, ":precision")) {
            if (is_atom(val, "binary32"))
                f.prec = 24, f.emin = -149, f.emax = 127;
            else if (!is_atom(val, "binary64"))
                ferr(p, val->line, val->col, HAZE_ERR_UNSUPPORTED,
                     "precision binary32 or binary64 expected");
        }
    }
    if (!P.status && i != top->n - 1)
        ferr(p, top->line, top->col, HAZE_ERR_PARSE, "expected one body after the properties");
    if (!P.status) {
        P.fmt = haze__prec_add_format(s, &f);
        if (P.fmt < 0) P.status = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    }
    for (int a = 0; !P.status && a < args->n; a++) {
        const sx *v = args->kids[a];
        if (v->list) {
            ferr(p, v->line, v->col, HAZE_ERR_UNSUPPORTED,
                 "annotated or array arguments are not supported");
            break;
        }
        int vi = haze__prec_add_var(s, v->atom, v->line, v->col);
        int xn = vi < 0 ? -1 : haze__prec_var(s, vi, v->line, v->col);
        if (xn < 0) {
            P.status = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
            break;
        }
        int rn = node(p, v, OP_RND, xn, -1, -1, P.fmt);
        if (rn < 0 || env_push(&en, v->atom, rn, xn)) {
            if (!P.status) P.status = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
            break;
        }
    }
    if (!P.status && prop_pre) pre(p, prop_pre);
    int r = -1, x = -1;
    if (!P.status) expr(p, top->kids[top->n - 1], &en, &r, &x);
    if (!P.status) {
        const sx *b = top->kids[top->n - 1];
        int g = node(p, b, OP_SUB, r, x, -1, -1);
        pgoal *ng = realloc(s->goals, (size_t)(s->n_goals + 1) * sizeof *ng);
        if (g < 0 || !ng) {
            if (ng) s->goals = ng;
            if (!P.status) P.status = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        } else {
            s->goals = ng;
            for (int q = 0; q < s->n_goals; q++) haze__pi_fixup(&ng[q].want);
            s->cap_goals = s->n_goals + 1;
            pgoal *go = &s->goals[s->n_goals++];
            memset(go, 0, sizeof *go);
            go->node = g;
            go->kind = GOAL_VALUE;
            haze__pi_init(&go->want);
            char buf[512];
            const char *nm = name ? name : "FPCore";
            int nlen = (int)strlen(nm);
            if (nlen >= 2 && nm[0] == '"') nm++, nlen -= 2; /* drop the quotes */
            snprintf(buf, sizeof buf, "%.*s: rounded - exact (binary%d) in ?", nlen, nm,
                     f.prec == 24 ? 32 : 64);
            go->text = strdup(buf);
            if (!go->text) P.status = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        }
    }
    haze__mp_free(en.b);
    haze__mp_free(P.mark);
    sx_free(top);
    return P.status;
}
