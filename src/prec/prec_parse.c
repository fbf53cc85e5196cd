/*
 * src/prec/prec_parse.c - reader for Gappa's input language (the grammar of
 * the Gappa 1.4 manual, "Gappa language"), with the extensions of Linderman
 * et al., CGO 2010, Sec. 3.2 and 4.3: exp, log, exp2, log2, the cuda_32
 * format and the fast intrinsics cuda_exp2 / cuda_log2.
 *
 * Supported: named rounding operators (@rnd = float<ieee_64,ne>;), exact and
 * rounded definitions (y = e; y rnd= e; y float<ieee_32,ne>= e;), numbers in
 * decimal, binary (3b-27) and hexadecimal (0x1.8p3) forms, formulas
 * { H1 /\ H2 -> G1 /\ G2 } with "in [a,b]", "in ?", "<=", ">=", "|e| <= b",
 * relative errors "-/", and bisection hints "$ x;" and "$ x in N;".
 * Anything else is an error naming line and column, never ignored.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "prec/prec_front.h"

/* Default number of sub-ranges for a "$ x;" hint without a count. */
#define DEFAULT_BISECT 16

/* Deepest nesting of expressions and parenthesised formulas: the parser is
 * recursive, and a file of a million '(' must get an error, not overflow
 * the stack. Far above what people and generators write. */
#define MAX_DEPTH 1000

/* Largest |lsb weight| of fixed<> and |emin| of float<p, emin>. The
 * analyser works with these exponents in long and int arithmetic and with
 * MPFR numbers of bounded exponent; real formats stay far below (binary256:
 * emin -262378). */
#define MAX_FORMAT_EXP 1000000L

enum {
    T_EOF,
    T_IDENT,
    T_NUM,
    T_AND,  /* /\ */
    T_OR,   /* \/ */
    T_IMPL, /* -> */
    T_LE,
    T_GE,
    T_RDIV, /* -/ */
    T_PUNCT
};

typedef struct tok {
    int kind;
    char ch; /* T_PUNCT */
    int line, col;
    size_t start, end;
} tok;

typedef struct def {
    char *name;
    int is_rnd; /* 1: a named rounding operator (fmt); 0: an expression (node) */
    int id;
} def;

typedef struct parser {
    haze_ctx *ctx;
    haze_prec_script *s;
    const char *text;
    tok *toks;
    size_t n, pos;
    def *defs;
    int n_defs, cap_defs;
    int depth; /* current nesting of unary() and conjunction() */
    int status;
} parser;

static int perr(parser *p, const tok *t, int st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int perr(parser *p, const tok *t, int st, const char *fmt, ...) {
    if (p->status) return -1;
    va_list ap;
    va_start(ap, fmt);
    p->status = haze__text_verror(p->ctx, st, p->s->name, t->line, t->col, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---------------------------------------------------------------- lexer */

/* The kind of the two-character operator at s, or T_EOF if none starts there. */
static int two_char_op(const char *s) {
    static const struct {
        char a, b;
        int kind;
    } ops[] = {{'/', '\\', T_AND}, {'\\', '/', T_OR}, {'-', '>', T_IMPL},
               {'-', '/', T_RDIV}, {'<', '=', T_LE},  {'>', '=', T_GE}};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
        if (s[0] == ops[k].a && s[1] == ops[k].b) return ops[k].kind;
    return T_EOF;
}

static int lex(parser *p) {
    const char *x = p->text;
    size_t i = 0, cap = 256;
    int line = 1, col = 1;
    p->toks = haze__mp_malloc(cap * sizeof *p->toks);
    if (!p->toks) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    p->n = 0;
    for (;;) {
        while (x[i] && (isspace((unsigned char)x[i]) || x[i] == '#')) {
            if (x[i] == '#') {
                while (x[i] && x[i] != '\n') i++, col++;
                continue;
            }
            if (x[i] == '\n') line++, col = 0;
            i++, col++;
        }
        if (p->n + 1 >= cap) {
            cap *= 2;
            tok *nt = haze__mp_realloc(p->toks, cap * sizeof *nt);
            if (!nt) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
            p->toks = nt;
        }
        tok *t = &p->toks[p->n];
        t->line = line;
        t->col = col;
        t->start = i;
        t->ch = 0;
        char c = x[i];
        size_t j = i;
        int op;
        if (!c) {
            t->kind = T_EOF;
            t->end = i;
            p->n++;
            return 0;
        }
        if (isalpha((unsigned char)c) || c == '_') {
            while (isalnum((unsigned char)x[j]) || x[j] == '_') j++;
            t->kind = T_IDENT;
        } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)x[i + 1]))) {
            t->kind = T_NUM;
            if (c == '0' && (x[i + 1] == 'x' || x[i + 1] == 'X')) {
                j = i + 2;
                while (isxdigit((unsigned char)x[j]) || x[j] == '.') j++;
                if (x[j] == 'p' || x[j] == 'P') {
                    j++;
                    if (x[j] == '+' || x[j] == '-') j++;
                    while (isdigit((unsigned char)x[j])) j++;
                }
            } else {
                while (isdigit((unsigned char)x[j]) || x[j] == '.') j++;
                if (x[j] == 'e' || x[j] == 'E' || x[j] == 'b' || x[j] == 'B') {
                    size_t k = j + 1;
                    if (x[k] == '+' || x[k] == '-') k++;
                    if (isdigit((unsigned char)x[k])) {
                        j = k;
                        while (isdigit((unsigned char)x[j])) j++;
                    }
                }
            }
        } else if ((op = two_char_op(x + i)) != T_EOF) {
            t->kind = op;
            j = i + 2;
        } else if (strchr("()[]{}<>,;=+-*/|@$?~", c)) {
            t->kind = T_PUNCT;
            t->ch = c;
            j = i + 1;
        } else {
            return perr(p, t, HAZE_ERR_PARSE, "unexpected character '%c'", c);
        }
        t->end = j;
        col += (int)(j - i);
        i = j;
        p->n++;
    }
}

static tok *peek(parser *p) {
    return &p->toks[p->pos];
}
static tok *peek2(parser *p) {
    return &p->toks[p->pos + 1 < p->n ? p->pos + 1 : p->pos];
}
static tok *next(parser *p) {
    tok *t = &p->toks[p->pos];
    if (p->pos + 1 < p->n) p->pos++;
    return t;
}
static int is_p(const tok *t, char c) {
    return t->kind == T_PUNCT && t->ch == c;
}
static int is_id(parser *p, const tok *t, const char *w) {
    return t->kind == T_IDENT && strlen(w) == t->end - t->start &&
           !strncmp(p->text + t->start, w, t->end - t->start);
}

static int expect(parser *p, char c) {
    tok *t = peek(p);
    /* "fixed<-3,ne>= e": the definition part never reads ">=" as one token */
    if (c == '>' && t->kind == T_GE) {
        t->kind = T_PUNCT;
        t->ch = '=';
        t->col++;
        return 0;
    }
    if (!is_p(t, c)) {
        if (t->kind == T_EOF) return perr(p, t, HAZE_ERR_PARSE, "expected '%c' at end of input", c);
        return perr(p, t, HAZE_ERR_PARSE, "expected '%c', found '%.*s'", c,
                    (int)(t->end - t->start), p->text + t->start);
    }
    next(p);
    return 0;
}

static char *tok_str(parser *p, const tok *t) {
    size_t n = t->end - t->start;
    char *r = haze__mp_malloc(n + 1);
    if (r) {
        memcpy(r, p->text + t->start, n);
        r[n] = 0;
    }
    return r;
}

/* ---------------------------------------------------------------- numbers */

/* Encloses a number token: exact when it is dyadic and fits. */
static int number(parser *p, const tok *t, int neg, pint *out) {
    char *str = tok_str(p, t);
    if (!str) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    char *b = strpbrk(str, "bB");
    int bad = 0;
    if (b && !(str[0] == '0' && (str[1] == 'x' || str[1] == 'X'))) {
        *b = 0;
        char *end;
        long e = strtol(b + 1, &end, 10);
        if (*end || strchr(str, '.')) bad = 1;
        if (!bad) {
            locale_t lc = haze__numeric_begin(); /* MPFR reads localeconv()'s point */
            bad |= mpfr_set_str(out->lo, str, 10, MPFR_RNDD);
            bad |= mpfr_set_str(out->hi, str, 10, MPFR_RNDU);
            haze__numeric_end(lc);
            haze__pi_mul_2si(out, out, e);
        }
    } else {
        char *end;
        locale_t lc = haze__numeric_begin();
        mpfr_strtofr(out->lo, str, &end, 0, MPFR_RNDD);
        bad = *end != 0;
        mpfr_strtofr(out->hi, str, &end, 0, MPFR_RNDU);
        haze__numeric_end(lc);
    }
    haze__mp_free(str);
    if (bad) return perr(p, t, HAZE_ERR_PARSE, "malformed number");
    if (neg) haze__pi_neg(out, out);
    return 0;
}

/* A signed number (SNUMBER). */
static int snumber(parser *p, pint *out) {
    int neg = 0;
    tok *t = peek(p);
    if (is_p(t, '-') || is_p(t, '+')) {
        neg = is_p(t, '-');
        next(p);
        t = peek(p);
    }
    if (t->kind != T_NUM) return perr(p, t, HAZE_ERR_PARSE, "expected a number");
    next(p);
    return number(p, t, neg, out);
}

/* ------------------------------------------------------------- definitions */

static def *find_def(parser *p, const tok *t) {
    for (int i = p->n_defs - 1; i >= 0; i--)
        if (strlen(p->defs[i].name) == t->end - t->start &&
            !strncmp(p->defs[i].name, p->text + t->start, t->end - t->start))
            return &p->defs[i];
    return NULL;
}

static int add_def(parser *p, const tok *t, int is_rnd, int id) {
    if (find_def(p, t))
        return perr(p, t, HAZE_ERR_PARSE, "'%.*s' is already defined", (int)(t->end - t->start),
                    p->text + t->start);
    char *name = tok_str(p, t);
    if (!name) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    if (haze__prec_find_var(p->s, name) >= 0) {
        haze__mp_free(name);
        return perr(p, t, HAZE_ERR_PARSE, "'%.*s' is defined after being used as an input variable",
                    (int)(t->end - t->start), p->text + t->start);
    }
    if (p->n_defs == p->cap_defs) {
        int cap = p->cap_defs ? 2 * p->cap_defs : 16;
        def *nd = haze__mp_realloc(p->defs, (size_t)cap * sizeof *nd);
        if (!nd) {
            haze__mp_free(name);
            return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
        }
        p->defs = nd;
        p->cap_defs = cap;
    }
    p->defs[p->n_defs].name = name;
    p->defs[p->n_defs].is_rnd = is_rnd;
    p->defs[p->n_defs].id = id;
    p->n_defs++;
    return 0;
}

/* Parses "<...>" after float/fixed/int into a format; returns its index. */
static int format_params(parser *p, const tok *fun) {
    pformat f;
    memset(&f, 0, sizeof f);
    f.emin = LONG_MIN;
    f.emax = LONG_MAX;
    f.extra_abs = LONG_MIN;
    if (expect(p, '<')) return -1;
    long nums[2];
    int n_nums = 0;
    const char *name = NULL;
    tok *t;
    for (;;) {
        t = peek(p);
        if (t->kind == T_IDENT) {
            tok *after = peek2(p);
            if (is_p(after, '>') || after->kind == T_GE) break; /* the direction */
            if (name || n_nums) return perr(p, t, HAZE_ERR_PARSE, "unexpected format parameter");
            static const char *names[] = {"ieee_32", "ieee_64", "ieee_128", "x86_80", "cuda_32"};
            for (size_t i = 0; i < sizeof names / sizeof *names; i++)
                if (is_id(p, t, names[i])) name = names[i];
            if (!name)
                return perr(p, t, HAZE_ERR_UNSUPPORTED, "unknown floating-point format '%.*s'",
                            (int)(t->end - t->start), p->text + t->start);
            next(p);
        } else {
            int neg = 0;
            if (is_p(t, '-') || is_p(t, '+')) {
                neg = is_p(t, '-');
                next(p);
                t = peek(p);
            }
            if (t->kind != T_NUM || n_nums == 2)
                return perr(p, t, HAZE_ERR_PARSE, "expected a format parameter");
            char *str = tok_str(p, t), *end;
            if (!str) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
            errno = 0;
            long v = strtol(str, &end, 10);
            int bad = *end != 0, range = errno == ERANGE || v > MAX_FORMAT_EXP;
            haze__mp_free(str);
            if (bad) return perr(p, t, HAZE_ERR_PARSE, "expected an integer");
            /* every parameter (precision, lsb weight, emin): the analyser
             * keeps them in long and int arithmetic */
            if (range)
                return perr(p, t, HAZE_ERR_PARSE, "format parameter out of range (-%ld to %ld)",
                            MAX_FORMAT_EXP, MAX_FORMAT_EXP);
            nums[n_nums++] = neg ? -v : v;
            next(p);
        }
        if (expect(p, ',')) return -1;
    }
    static const char *dirs[] = {"ne", "na", "zr", "aw", "up", "dn"};
    int dir = -1;
    for (int i = 0; i < 6; i++)
        if (is_id(p, t, dirs[i])) dir = i;
    if (dir < 0)
        return perr(p, t, HAZE_ERR_UNSUPPORTED,
                    "rounding direction '%.*s' is not supported (ne, na, zr, aw, up, dn)",
                    (int)(t->end - t->start), p->text + t->start);
    next(p);
    if (expect(p, '>')) return -1;
    f.dir = dir;
    if (is_id(p, fun, "fixed") || is_id(p, fun, "int")) {
        int want = is_id(p, fun, "int") ? 0 : 1;
        if (name || n_nums != want)
            return perr(p, fun, HAZE_ERR_PARSE, "%s takes %s",
                        is_id(p, fun, "int") ? "int" : "fixed",
                        want ? "<lsb_weight, direction>" : "<direction>");
        f.fixed = 1;
        f.lsb = want ? nums[0] : 0;
    } else {
        if (name) {
            if (n_nums)
                return perr(p, fun, HAZE_ERR_PARSE, "float<name, direction> takes no number");
            if (!strcmp(name, "ieee_32") || !strcmp(name, "cuda_32")) {
                f.prec = 24, f.emin = -149, f.emax = 127;
                f.ftz = !strcmp(name, "cuda_32");
            } else if (!strcmp(name, "ieee_64")) {
                f.prec = 53, f.emin = -1074, f.emax = 1023;
            } else if (!strcmp(name, "ieee_128")) {
                f.prec = 113, f.emin = -16494, f.emax = 16383;
            } else {
                f.prec = 64, f.emin = -16445, f.emax = 16383;
            }
        } else {
            if (n_nums < 1 || nums[0] < 2 || nums[0] > 1000)
                return perr(p, fun, HAZE_ERR_PARSE, "float precision must be from 2 to 1000");
            f.prec = nums[0];
            if (n_nums == 2) f.emin = nums[1];
        }
    }
    int id = haze__prec_add_format(p->s, &f);
    if (id < 0) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    return id;
}

/* ------------------------------------------------------------ expressions */

static int expr(parser *p, int rnd);

/* A node id from the graph, where -1 means out of memory: records it. */
static int made(parser *p, int id) {
    if (id < 0 && !p->status) p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    return id;
}

static int mk(parser *p, const tok *t, int op, int a, int b, int c, int rnd) {
    if (a < 0 || p->status) return -1;
    int id = haze__prec_node(p->s, op, a, b, c, -1, t->line, t->col);
    if (id >= 0 && rnd >= 0) id = haze__prec_node(p->s, OP_RND, id, -1, -1, rnd, t->line, t->col);
    if (id < 0) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory"), -1;
    return id;
}

static int intrinsic_format(parser *p, int ulps, long extra_abs) {
    pformat f;
    memset(&f, 0, sizeof f);
    f.prec = 24, f.emin = -149, f.emax = 127, f.ftz = 1, f.dir = DIR_NE;
    f.extra_ulps = ulps;
    f.extra_abs = extra_abs;
    int id = haze__prec_add_format(p->s, &f);
    if (id < 0) p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    return id;
}

static int primary(parser *p, int rnd) {
    tok *t = peek(p);
    if (t->kind == T_NUM) {
        next(p);
        pint k;
        haze__pi_init(&k);
        int r = number(p, t, 0, &k);
        int id = r ? -1 : haze__prec_const(p->s, &k, t->line, t->col);
        if (!r) made(p, id);
        haze__pi_clear(&k);
        return id;
    }
    if (is_p(t, '(')) {
        next(p);
        int id = expr(p, rnd);
        if (id < 0 || expect(p, ')')) return -1;
        return id;
    }
    if (is_p(t, '|')) {
        next(p);
        int id = expr(p, rnd);
        if (id < 0 || expect(p, '|')) return -1;
        return mk(p, t, OP_ABS, id, -1, -1, -1);
    }
    if (t->kind != T_IDENT) {
        if (t->kind == T_EOF) return perr(p, t, HAZE_ERR_PARSE, "unexpected end of input");
        const tok *u = peek2(p);
        if (is_p(t, '@') && u != t && (is_id(p, u, "FIX") || is_id(p, u, "FLT")))
            return perr(p, t, HAZE_ERR_UNSUPPORTED,
                        "Gappa's @FIX and @FLT predicates are not supported (a value known to be "
                        "fixed- or floating-point is written as a rounding of an input here)");
        return perr(p, t, HAZE_ERR_PARSE, "expected an expression, found '%.*s'",
                    (int)(t->end - t->start), p->text + t->start);
    }
    /* Gappa's relative roundings add_rel<p>(a, b), mul_rel, ...: named, not
     * read as a variable followed by '<' */
    static const char *const rel[] = {"add_rel", "sub_rel", "mul_rel",
                                      "div_rel", "fma_rel", "sqrt_rel"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++)
        if (is_id(p, t, rel[i]) && is_p(peek2(p), '<'))
            return perr(p, t, HAZE_ERR_UNSUPPORTED,
                        "Gappa's relative rounding operator %s<p> is not supported: write the "
                        "operation with a rounding of a format (float<ieee_64,ne>(a * b))",
                        rel[i]);
    next(p);
    /* rounding operator written in place: float<...>(e) */
    if ((is_id(p, t, "float") || is_id(p, t, "fixed") || is_id(p, t, "int")) &&
        is_p(peek(p), '<')) {
        int fmt = format_params(p, t);
        if (fmt < 0 || expect(p, '(')) return -1;
        int a = expr(p, rnd);
        if (a < 0 || expect(p, ')')) return -1;
        int id = haze__prec_node(p->s, OP_RND, a, -1, -1, fmt, t->line, t->col);
        if (id < 0) p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
        return id;
    }
    if (is_p(peek(p), '(')) {
        static const struct {
            const char *name;
            int op, arity;
        } funs[] = {{"sqrt", OP_SQRT, 1},      {"exp", OP_EXP, 1},       {"log", OP_LOG, 1},
                    {"exp2", OP_EXP2, 1},      {"log2", OP_LOG2, 1},     {"fma", OP_FMA, 3},
                    {"cuda_exp2", OP_EXP2, 1}, {"cuda_log2", OP_LOG2, 1}};
        def *d = find_def(p, t);
        int op = -1, arity = 1, which = -1;
        if (!(d && d->is_rnd))
            for (size_t i = 0; i < sizeof funs / sizeof *funs; i++)
                if (is_id(p, t, funs[i].name))
                    op = funs[i].op, arity = funs[i].arity, which = (int)i;
        if (!(d && d->is_rnd) && op < 0)
            return perr(p, t, HAZE_ERR_UNSUPPORTED, "unknown function '%.*s'",
                        (int)(t->end - t->start), p->text + t->start);
        next(p);
        int args[3];
        for (int i = 0; i < arity; i++) {
            if (i && expect(p, ',')) return -1;
            args[i] = expr(p, rnd);
            if (args[i] < 0) return -1;
        }
        if (expect(p, ')')) return -1;
        if (d && d->is_rnd)
            return made(p, haze__prec_node(p->s, OP_RND, args[0], -1, -1, d->id, t->line, t->col));
        if (which >= 6) {
            /* fast GPU intrinsics (CGO 2010, Sec. 4.3): the correctly rounded
             * binary32 result widened by the documented error */
            int fmt = which == 6 ? intrinsic_format(p, 2, LONG_MIN) : intrinsic_format(p, 3, -22);
            int e = mk(p, t, op, args[0], -1, -1, -1);
            if (fmt < 0 || e < 0) return -1;
            return made(p, haze__prec_node(p->s, OP_RND, e, -1, -1, fmt, t->line, t->col));
        }
        return mk(p, t, op, args[0], arity > 1 ? args[1] : -1, arity > 2 ? args[2] : -1, rnd);
    }
    def *d = find_def(p, t);
    if (d) {
        if (d->is_rnd)
            return perr(p, t, HAZE_ERR_PARSE, "rounding operator '%.*s' needs an argument",
                        (int)(t->end - t->start), p->text + t->start);
        return d->id;
    }
    char *name = tok_str(p, t);
    if (!name) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    int v = haze__prec_add_var(p->s, name, t->line, t->col);
    haze__mp_free(name);
    if (v < 0) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    return made(p, haze__prec_var(p->s, v, t->line, t->col));
}

static int unary(parser *p, int rnd) {
    tok *t = peek(p);
    /* every recursion (signs, parentheses, |...|, function arguments) passes
     * here */
    if (p->depth >= MAX_DEPTH)
        return perr(p, t, HAZE_ERR_PARSE, "expression nested too deeply (more than %d levels)",
                    MAX_DEPTH);
    p->depth++;
    int id;
    if (is_p(t, '-')) {
        next(p);
        int a = unary(p, rnd);
        id = mk(p, t, OP_NEG, a, -1, -1, -1);
    } else if (is_p(t, '+')) {
        next(p);
        id = unary(p, rnd);
    } else {
        id = primary(p, rnd);
    }
    p->depth--;
    return id;
}

static int term(parser *p, int rnd) {
    int a = unary(p, rnd);
    while (a >= 0) {
        tok *t = peek(p);
        if (!is_p(t, '*') && !is_p(t, '/')) break;
        next(p);
        int b = unary(p, rnd);
        if (b < 0) return -1;
        a = mk(p, t, is_p(t, '*') ? OP_MUL : OP_DIV, a, b, -1, rnd);
    }
    return a;
}

static int expr(parser *p, int rnd) {
    int a = term(p, rnd);
    while (a >= 0) {
        tok *t = peek(p);
        if (!is_p(t, '+') && !is_p(t, '-')) break;
        next(p);
        int b = term(p, rnd);
        if (b < 0) return -1;
        a = mk(p, t, is_p(t, '+') ? OP_ADD : OP_SUB, a, b, -1, rnd);
    }
    return a;
}

/* ----------------------------------------------------------------- formulas */

static int add_goal(parser *p, const tok *start, int node, int kind) {
    haze_prec_script *s = p->s;
    if (s->n_goals == s->cap_goals) {
        int cap = s->cap_goals ? 2 * s->cap_goals : 8;
        pgoal *ng = realloc(s->goals, (size_t)cap * sizeof *ng);
        if (!ng) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
        s->goals = ng;
        for (int i = 0; i < s->n_goals; i++) haze__pi_fixup(&ng[i].want);
        s->cap_goals = cap;
    }
    pgoal *g = &s->goals[s->n_goals++];
    memset(g, 0, sizeof *g);
    g->node = node;
    g->kind = kind;
    haze__pi_init(&g->want);
    haze__pi_set_entire(&g->want);
    (void)start;
    return 0;
}

static int set_goal_text(parser *p, const tok *start) {
    pgoal *g = &p->s->goals[p->s->n_goals - 1];
    size_t a = start->start, b = p->toks[p->pos - 1].end;
    char *txt = malloc(b - a + 1);
    if (!txt) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
    size_t k = 0;
    int sp = 0;
    for (size_t i = a; i < b; i++) { /* collapse white space and drop comments */
        char c = p->text[i];
        if (c == '#') {
            while (i < b && p->text[i] != '\n') i++;
            c = ' ';
        }
        if (isspace((unsigned char)c)) {
            sp = 1;
            continue;
        }
        if (sp && k) txt[k++] = ' ';
        sp = 0;
        txt[k++] = c;
    }
    txt[k] = 0;
    g->text = txt;
    return 0;
}

/* The bound part of an atom: "in ?", "in [a,b]", "<= b", ">= a". Fills *want. */
static int bound(parser *p, pint *want, pint *inner, int *has_lo, int *has_hi, int *question) {
    tok *t = peek(p);
    *has_lo = *has_hi = *question = 0;
    if (is_id(p, t, "in")) {
        next(p);
        if (is_p(peek(p), '?')) {
            next(p);
            *question = 1;
            return 0;
        }
        tok *lb = peek(p);
        if (expect(p, '[')) return -1;
        pint a, b;
        haze__pi_init(&a);
        haze__pi_init(&b);
        int r = snumber(p, &a);
        if (!r) r = expect(p, ',');
        if (!r) r = snumber(p, &b);
        if (!r) r = expect(p, ']');
        if (!r) {
            mpfr_set(want->lo, a.lo, MPFR_RNDD);
            mpfr_set(want->hi, b.hi, MPFR_RNDU);
            mpfr_set(inner->lo, a.hi, MPFR_RNDU);
            mpfr_set(inner->hi, b.lo, MPFR_RNDD);
            if (mpfr_cmp(a.lo, b.hi) > 0)
                r = perr(p, lb, HAZE_ERR_PARSE, "empty range: lower bound above upper bound");
        }
        *has_lo = *has_hi = 1;
        haze__pi_clear(&a);
        haze__pi_clear(&b);
        return r;
    }
    if (t->kind == T_LE || t->kind == T_GE) {
        next(p);
        if (is_p(peek(p), '?')) {
            next(p);
            *question = 1;
            return 0;
        }
        pint a;
        haze__pi_init(&a);
        int r = snumber(p, &a);
        haze__pi_set_entire(want);
        haze__pi_set_entire(inner);
        if (t->kind == T_LE) {
            mpfr_set(want->hi, a.hi, MPFR_RNDU);
            mpfr_set(inner->hi, a.lo, MPFR_RNDD);
            *has_hi = 1;
        } else {
            mpfr_set(want->lo, a.lo, MPFR_RNDD);
            mpfr_set(inner->lo, a.hi, MPFR_RNDU);
            *has_lo = 1;
        }
        haze__pi_clear(&a);
        return r;
    }
    return perr(p, t, HAZE_ERR_PARSE, "expected 'in', '<=' or '>='");
}

/* One atom: a hypothesis when hyp, else a goal. */
static int atom(parser *p, int hyp) {
    tok *start = peek(p);
    if (is_id(p, start, "not") || is_id(p, start, "FIX") || is_id(p, start, "FLT"))
        return perr(p, start, HAZE_ERR_UNSUPPORTED, "'%.*s' formulas are not supported",
                    (int)(start->end - start->start), p->text + start->start);
    int absolute = 0, rel = 0, a, b = -1;
    /* |e| or |a -/ b| */
    if (is_p(start, '|')) {
        size_t save = p->pos;
        next(p);
        a = expr(p, -1);
        if (a < 0) return -1;
        if (peek(p)->kind == T_RDIV) {
            next(p);
            b = expr(p, -1);
            if (b < 0) return -1;
            rel = 1;
        }
        if (expect(p, '|')) return -1;
        absolute = 1;
        /* "|x| + 1 <= ..." : not a plain absolute atom, reparse as an expression */
        tok *t = peek(p);
        if (!rel && !(t->kind == T_LE || is_id(p, t, "in") || t->kind == T_GE)) {
            p->pos = save;
            absolute = 0;
            a = expr(p, -1);
            if (a < 0) return -1;
        }
    } else {
        a = expr(p, -1);
        if (a < 0) return -1;
        if (peek(p)->kind == T_RDIV) {
            next(p);
            b = expr(p, -1);
            if (b < 0) return -1;
            rel = 1;
        }
    }
    pint want, inner;
    haze__pi_init(&want);
    haze__pi_init(&inner);
    int has_lo, has_hi, question;
    int r = bound(p, &want, &inner, &has_lo, &has_hi, &question);
    if (!hyp) haze__pi_set(&want, &inner); /* goals are proved against the inner bounds */
    haze__pi_clear(&inner);
    if (r) {
        haze__pi_clear(&want);
        return -1;
    }
    if (hyp) {
        const pnode *n = &p->s->nodes[a];
        const def *named = start->kind == T_IDENT ? find_def(p, start) : NULL;
        if (!rel && !question && named && named->id == a && n->op != OP_VAR) {
            /* Gappa's idiom x = rnd(x_); { x in [a,b] -> ... } */
            haze__pi_clear(&want);
            return perr(p, start, HAZE_ERR_UNSUPPORTED,
                        "'%s' is defined (on line %d), and ranges are given to inputs only: put "
                        "the range on the input it is computed from",
                        named->name, n->line);
        }
        if (rel || question || n->op != OP_VAR) {
            haze__pi_clear(&want);
            return perr(p, start, HAZE_ERR_UNSUPPORTED,
                        "only hypotheses on input variables are supported (x in [a,b], |x| <= b)");
        }
        pvar *v = &p->s->vars[n->var];
        if (absolute) {
            if (has_lo || !has_hi) {
                haze__pi_clear(&want);
                return perr(p, start, HAZE_ERR_UNSUPPORTED, "only |x| <= b is supported");
            }
            mpfr_neg(want.lo, want.hi, MPFR_RNDD);
        }
        if (mpfr_cmp(want.lo, want.hi) > 0)
            r = perr(p, start, HAZE_ERR_PARSE, "empty range for '%s'", v->name);
        if (!r) {
            haze__pi_meet(&v->range, &v->range, &want);
            if (mpfr_cmp(v->range.lo, want.lo) < 0) mpfr_set(v->range.lo, want.lo, MPFR_RNDD);
            if (mpfr_cmp(v->range.hi, want.hi) > 0) mpfr_set(v->range.hi, want.hi, MPFR_RNDU);
            if (mpfr_cmp(v->range.lo, v->range.hi) > 0)
                r = perr(p, start, HAZE_ERR_PARSE, "empty range for '%s'", v->name);
            v->has_range = 1;
        }
        haze__pi_clear(&want);
        return r;
    }
    int node = a, kind = GOAL_VALUE;
    if (rel) {
        int d = mk(p, start, OP_SUB, a, b, -1, -1);
        node = mk(p, start, OP_DIV, d, b, -1, -1);
        kind = absolute ? GOAL_ABSREL : GOAL_REL;
        if (absolute) node = mk(p, start, OP_ABS, node, -1, -1, -1);
    } else if (absolute) {
        node = mk(p, start, OP_ABS, a, -1, -1, -1);
        kind = GOAL_ABS;
    }
    if (node < 0 || add_goal(p, start, node, kind)) {
        haze__pi_clear(&want);
        return -1;
    }
    pgoal *g = &p->s->goals[p->s->n_goals - 1];
    if (!question) {
        if (absolute && has_hi && !has_lo) mpfr_set_inf(want.lo, -1);
        haze__pi_set(&g->want, &want);
        g->has_lo = has_lo;
        g->has_hi = has_hi;
    }
    haze__pi_clear(&want);
    return set_goal_text(p, start);
}

static int conjunction(parser *p, int hyp) {
    for (;;) {
        tok *t = peek(p);
        if (is_p(t, '(')) {
            /* a parenthesised formula or an expression: try as a formula list */
            size_t save = p->pos;
            next(p);
            int depth_ok = 1;
            /* look for "/\" or "->" before the matching ')' to decide */
            int d = 1;
            size_t i = p->pos;
            int formula = 0;
            for (; i < p->n && d > 0; i++) {
                tok *u = &p->toks[i];
                if (is_p(u, '(')) d++;
                if (is_p(u, ')')) d--;
                if (d == 1 &&
                    (u->kind == T_AND || is_id(p, u, "in") || u->kind == T_LE || u->kind == T_GE))
                    formula = 1;
            }
            (void)depth_ok;
            if (formula) {
                if (p->depth >= MAX_DEPTH)
                    return perr(p, t, HAZE_ERR_PARSE,
                                "formula nested too deeply (more than %d levels)", MAX_DEPTH);
                p->depth++;
                int r = conjunction(p, hyp);
                p->depth--;
                if (r || expect(p, ')')) return -1;
            } else {
                p->pos = save;
                if (atom(p, hyp)) return -1;
            }
        } else if (atom(p, hyp)) {
            return -1;
        }
        t = peek(p);
        if (t->kind == T_OR)
            return perr(p, t, HAZE_ERR_UNSUPPORTED, "disjunctions (\\/) are not supported");
        if (t->kind != T_AND) return 0;
        next(p);
    }
}

static int formula(parser *p) {
    /* parse the left part as goals first; if "->" follows, they were hypotheses */
    size_t start = p->pos;
    int g0 = p->s->n_goals;
    tok *t = peek(p);
    if (is_p(t, '}')) return perr(p, t, HAZE_ERR_PARSE, "empty formula");
    /* find a top-level "->" */
    int d = 0, has_impl = 0;
    for (size_t i = p->pos; i < p->n; i++) {
        tok *u = &p->toks[i];
        if (is_p(u, '(') || is_p(u, '{')) d++;
        if (is_p(u, ')')) d--;
        if (is_p(u, '}')) {
            if (d == 0) break;
            d--;
        }
        if (d == 0 && u->kind == T_IMPL) {
            has_impl = 1;
            break;
        }
    }
    (void)start;
    (void)g0;
    if (has_impl) {
        if (conjunction(p, 1)) return -1;
        if (peek(p)->kind != T_IMPL) return perr(p, peek(p), HAZE_ERR_PARSE, "expected '->'");
        next(p);
    }
    if (conjunction(p, 0)) return -1;
    t = peek(p);
    if (t->kind == T_IMPL)
        return perr(p, t, HAZE_ERR_UNSUPPORTED, "nested implications are not supported");
    return 0;
}

static int hints(parser *p) {
    for (;;) {
        tok *t = peek(p);
        if (t->kind == T_EOF) return 0;
        if (!is_p(t, '$'))
            return perr(p, t, HAZE_ERR_UNSUPPORTED,
                        "only bisection hints ($ x; $ x in N;) are supported after the formula");
        next(p);
        for (;;) {
            tok *v = peek(p);
            if (v->kind != T_IDENT) return perr(p, v, HAZE_ERR_PARSE, "expected an input variable");
            char *name = tok_str(p, v);
            if (!name) return p->status = haze__error(p->ctx, HAZE_ERR_NOMEM, "out of memory");
            int vi = haze__prec_find_var(p->s, name);
            haze__mp_free(name);
            if (vi < 0)
                return perr(p, v, HAZE_ERR_UNSUPPORTED,
                            "bisection is supported on input variables only, not on '%.*s'",
                            (int)(v->end - v->start), p->text + v->start);
            next(p);
            long n = DEFAULT_BISECT;
            if (is_id(p, peek(p), "in")) {
                next(p);
                tok *k = peek(p);
                char *str = k->kind == T_NUM ? tok_str(p, k) : NULL, *end = NULL;
                n = str ? strtol(str, &end, 10) : 0;
                int bad = !str || *end || n < 1 || n > 100000000;
                haze__mp_free(str);
                if (bad)
                    return perr(p, k, HAZE_ERR_UNSUPPORTED,
                                "expected a count of sub-ranges (1 to 1e8); split points are not "
                                "supported");
                next(p);
            }
            p->s->vars[vi].bisect = n;
            if (!is_p(peek(p), ',')) break;
            next(p);
        }
        if (expect(p, ';')) return -1;
    }
}

int haze__prec_parse_gappa(haze_ctx *ctx, haze_prec_script *s, const char *text) {
    parser P;
    memset(&P, 0, sizeof P);
    P.ctx = ctx;
    P.s = s;
    P.text = text;
    parser *p = &P;
    int r = lex(p);
    while (!r) {
        tok *t = peek(p);
        if (is_p(t, '{')) break;
        if (t->kind == T_EOF) {
            r = perr(p, t, HAZE_ERR_PARSE, "expected a formula in braces { ... }");
            break;
        }
        if (is_p(t, '@')) {
            next(p);
            tok *name = peek(p);
            if (name->kind != T_IDENT) {
                r = perr(p, name, HAZE_ERR_PARSE, "expected an operator name after '@'");
                break;
            }
            next(p);
            if ((r = expect(p, '='))) break;
            tok *fun = peek(p);
            if (!(is_id(p, fun, "float") || is_id(p, fun, "fixed") || is_id(p, fun, "int"))) {
                r = perr(p, fun, HAZE_ERR_UNSUPPORTED,
                         "expected float<...>, fixed<...> or int<...>");
                break;
            }
            next(p);
            int fmt = format_params(p, fun);
            if (fmt < 0 || add_def(p, name, 1, fmt) || expect(p, ';')) r = -1;
            continue;
        }
        if (t->kind != T_IDENT) {
            r = perr(p, t, HAZE_ERR_PARSE, "expected a definition or '{'");
            break;
        }
        next(p);
        int rnd = -1;
        tok *u = peek(p);
        if (u->kind == T_IDENT) { /* y rnd= e; or y float<...>= e; */
            next(p);
            if ((is_id(p, u, "float") || is_id(p, u, "fixed") || is_id(p, u, "int")) &&
                is_p(peek(p), '<')) {
                rnd = format_params(p, u);
                if (rnd < 0) {
                    r = -1;
                    break;
                }
            } else {
                def *d = find_def(p, u);
                if (!d || !d->is_rnd) {
                    r = perr(p, u, HAZE_ERR_PARSE, "'%.*s' is not a rounding operator",
                             (int)(u->end - u->start), p->text + u->start);
                    break;
                }
                rnd = d->id;
            }
        }
        if ((r = expect(p, '='))) break;
        int e = expr(p, rnd);
        if (e < 0 || add_def(p, t, 0, e) || expect(p, ';')) r = -1;
    }
    if (!r) {
        next(p); /* '{' */
        r = formula(p);
        if (!r) r = expect(p, '}');
        if (!r) r = hints(p);
    }
    for (int i = 0; i < P.n_defs; i++) haze__mp_free(P.defs[i].name);
    haze__mp_free(P.defs);
    haze__mp_free(P.toks);
    if (r || P.status) return P.status ? P.status : HAZE_ERR_PARSE;
    return HAZE_OK;
}
