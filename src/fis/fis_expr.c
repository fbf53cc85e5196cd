/*
 * src/fis/fis_expr.c - the compiler of fuzzylite's Function terms: an
 * expression over numbers, the engine's variables and the argument x, with
 * fuzzylite's operators and functions (fl/factory/FunctionFactory.cpp of
 * fuzzylite 6.0), to the postfix program that haze__fn_eval (fis_math.h)
 * runs on the CPU and the GPU alike.
 *
 * Grammar, loosest first (the precedences of fuzzylite's operators):
 *
 *   or   := and { "or" and }
 *   and  := add { "and" add }
 *   add  := mul { ("+" | "-") mul }
 *   mul  := pow { ("*" | "/" | "%") pow }
 *   pow  := un [ "^" pow ]               right-associative: 2^3^2 = 512
 *   un   := ("~" | "-" | "!") un | atom  binds tighter than ^: ~2^2 = 4
 *   atom := NUMBER | NAME | FUNC "(" or [ "," or ] ")" | "(" or ")"
 *
 * fuzzylite itself has no unary minus (it rejects "-a" and spells negation
 * "~a"); haze reads a leading "-" as "~". Logical operators and comparison
 * functions return 1 or 0 and compare within fuzzylite's 1e-6.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/text.h"
#include "fis/fis_read.h"

const char *const haze__fn1_names[HAZE__FN1_COUNT] = {
    "acos",  "asin",  "atan", "ceil", "cos",  "cosh", "exp",  "abs",   "fabs",  "floor", "log",
    "log10", "round", "sin",  "sinh", "sqrt", "tan",  "tanh", "log1p", "acosh", "asinh", "atanh"};
const char *const haze__fn2_names[HAZE__FN2_COUNT] = {"pow", "atan2", "fmod", "min", "max", "gt",
                                                      "ge",  "eq",    "neq",  "le",  "lt"};

typedef struct fx {
    const char *text, *s;   /* the whole expression, the next character */
    haze__fn_lookup lookup; /* a name's variable index, or -1 */
    const void *ud;
    double *p; /* p[1..] the program */
    int cap, n, depth, maxdepth, nest, maxvar;
    char *err;
    size_t errcap;
    int errcol;
} fx;

static int fx_fail(fx *c, const char *at, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fx_fail(fx *c, const char *at, const char *fmt, ...) {
    if (c->errcol) return -1; /* the first error stands */
    va_list ap;
    va_start(ap, fmt);
    haze__vsnprintf(c->err, c->errcap, fmt, ap);
    va_end(ap);
    c->errcol = (int)(at - c->text) + 1;
    return -1;
}

static void fx_space(fx *c) {
    while (isspace((unsigned char)*c->s)) c->s++;
}

/* Appends one word; pushes and pops move the simulated stack depth. */
static int fx_emit(fx *c, double w, int push) {
    if (c->n + 2 > c->cap) return fx_fail(c, c->s, "expression too long");
    c->p[1 + c->n++] = w;
    c->depth += push;
    if (c->depth > c->maxdepth) c->maxdepth = c->depth;
    if (c->depth > HAZE__FN_STACK) return fx_fail(c, c->s, "expression nested too deeply");
    return 0;
}

static int is_name0(char ch) {
    return isalpha((unsigned char)ch) || ch == '_';
}
static int is_name(char ch) {
    return isalnum((unsigned char)ch) || ch == '_' || ch == '.';
}

/* The word at s if it is exactly `w` (not a prefix of a longer name). */
static int fx_word(const char *s, const char *w) {
    size_t n = strlen(w);
    return strncmp(s, w, n) == 0 && !is_name(s[n]);
}

static int fx_or(fx *c);

static int fx_atom(fx *c) {
    fx_space(c);
    const char *at = c->s;
    if (*at == '(') {
        c->s++;
        if (fx_or(c)) return -1;
        fx_space(c);
        if (*c->s != ')')
            return fx_fail(c, c->s, "expected ')' to close the '(' at column %d",
                           (int)(at - c->text) + 1);
        c->s++;
        return 0;
    }
    if (isdigit((unsigned char)*at) || (*at == '.' && isdigit((unsigned char)at[1]))) {
        const char *end;
        double v;
        haze__text_number(at, &end, &v); /* a digit: there is a number */
        c->s = end;
        if (is_name0(*end)) return fx_fail(c, at, "malformed number");
        if (fx_emit(c, HAZE__OP_NUM, 1)) return -1;
        return fx_emit(c, v, 0);
    }
    if (!is_name0(*at)) {
        if (!*at) return fx_fail(c, at, "expected a number, a name or '(' at the end");
        return fx_fail(c, at, "expected a number, a name or '(' at '%c'", *at);
    }
    const char *e = at;
    while (is_name(*e)) e++;
    const size_t len = (size_t)(e - at);
    char name[HAZE__NAME_MAX];
    if (len >= sizeof name) return fx_fail(c, at, "name too long");
    memcpy(name, at, len);
    name[len] = '\0';
    c->s = e;
    fx_space(c);
    if (*c->s == '(') {
        int op = -1, arity = 0;
        for (int k = 0; k < HAZE__FN1_COUNT; k++)
            if (strcmp(name, haze__fn1_names[k]) == 0) op = HAZE__OP_F1 + k, arity = 1;
        for (int k = 0; k < HAZE__FN2_COUNT; k++)
            if (strcmp(name, haze__fn2_names[k]) == 0) op = HAZE__OP_F2 + k, arity = 2;
        if (op < 0) return fx_fail(c, at, "unknown function '%s'", name);
        const char *open = c->s++;
        int args = 0;
        for (;;) {
            fx_space(c);
            if (args == 0 && *c->s == ')') break;
            if (fx_or(c)) return -1;
            args++;
            fx_space(c);
            if (*c->s != ',') break;
            c->s++;
        }
        if (*c->s != ')')
            return fx_fail(c, c->s, "expected ',' or ')' in the call of '%s' at column %d", name,
                           (int)(open - c->text) + 1);
        c->s++;
        if (args != arity)
            return fx_fail(c, at, "function '%s' takes %d argument%s, got %d", name, arity,
                           arity > 1 ? "s" : "", args);
        return fx_emit(c, op, 1 - arity);
    }
    if (strcmp(name, "x") == 0) return fx_emit(c, HAZE__OP_X, 1);
    const int var = c->lookup(c->ud, name);
    if (var >= 0) {
        if (var > c->maxvar) c->maxvar = var;
        if (fx_emit(c, HAZE__OP_VAR, 1)) return -1;
        return fx_emit(c, var, 0);
    }
    for (int k = 0; k < HAZE__FN1_COUNT; k++)
        if (strcmp(name, haze__fn1_names[k]) == 0)
            return fx_fail(c, at, "expected '(' after the function '%s'", name);
    for (int k = 0; k < HAZE__FN2_COUNT; k++)
        if (strcmp(name, haze__fn2_names[k]) == 0)
            return fx_fail(c, at, "expected '(' after the function '%s'", name);
    return fx_fail(c, at, "unknown variable '%s' (expected x or a variable of the engine)", name);
}

static int fx_unary(fx *c) {
    fx_space(c);
    const char ch = *c->s;
    if (ch == '~' || ch == '-' || ch == '!') {
        if (++c->nest > 200) return fx_fail(c, c->s, "expression nested too deeply");
        c->s++;
        if (fx_unary(c)) return -1;
        c->nest--;
        return fx_emit(c, ch == '!' ? HAZE__OP_NOT : HAZE__OP_NEG, 0);
    }
    return fx_atom(c);
}

static int fx_pow(fx *c) {
    if (++c->nest > 200) return fx_fail(c, c->s, "expression nested too deeply");
    if (fx_unary(c)) return -1;
    fx_space(c);
    if (*c->s == '^') {
        c->s++;
        if (fx_pow(c) || fx_emit(c, HAZE__OP_POW, -1)) return -1;
    }
    c->nest--;
    return 0;
}

static int fx_mul(fx *c) {
    if (fx_pow(c)) return -1;
    for (;;) {
        fx_space(c);
        const char ch = *c->s;
        if (ch != '*' && ch != '/' && ch != '%') return 0;
        c->s++;
        if (fx_pow(c)) return -1;
        if (fx_emit(c, ch == '*' ? HAZE__OP_MUL : (ch == '/' ? HAZE__OP_DIV : HAZE__OP_MOD), -1))
            return -1;
    }
}

static int fx_add(fx *c) {
    if (fx_mul(c)) return -1;
    for (;;) {
        fx_space(c);
        const char ch = *c->s;
        if (ch != '+' && ch != '-') return 0;
        c->s++;
        if (fx_mul(c) || fx_emit(c, ch == '+' ? HAZE__OP_ADD : HAZE__OP_SUB, -1)) return -1;
    }
}

static int fx_and(fx *c) {
    if (fx_add(c)) return -1;
    for (;;) {
        fx_space(c);
        if (!fx_word(c->s, "and")) return 0;
        c->s += 3;
        if (fx_add(c) || fx_emit(c, HAZE__OP_AND, -1)) return -1;
    }
}

static int fx_or(fx *c) {
    if (++c->nest > 200) return fx_fail(c, c->s, "expression nested too deeply");
    if (fx_and(c)) return -1;
    for (;;) {
        fx_space(c);
        if (!fx_word(c->s, "or")) break;
        c->s += 2;
        if (fx_and(c) || fx_emit(c, HAZE__OP_OR, -1)) return -1;
    }
    c->nest--;
    return 0;
}

int haze__fn_compile_lookup(const char *text, haze__fn_lookup lookup, const void *ud, double *p,
                            int cap, int *maxvar, char *err, size_t errcap) {
    fx c;
    memset(&c, 0, sizeof c);
    c.text = c.s = text;
    c.lookup = lookup;
    c.ud = ud;
    c.p = p;
    c.cap = cap - 1; /* the height slot after the program */
    c.err = err;
    c.errcap = errcap;
    c.maxvar = -1;
    if (fx_or(&c) == 0) {
        fx_space(&c);
        if (*c.s) fx_fail(&c, c.s, "unexpected '%c' after the expression", *c.s);
    }
    if (c.errcol) return c.errcol;
    p[0] = c.n;
    p[1 + c.n] = 1.0;
    *maxvar = c.maxvar;
    return 0;
}

typedef struct fx_names {
    const char *const *names;
    int n;
} fx_names;

static int fx_names_lookup(const void *ud, const char *name) {
    const fx_names *l = (const fx_names *)ud;
    for (int k = 0; k < l->n; k++)
        if (strcmp(name, l->names[k]) == 0) return k;
    return -1;
}

int haze__fn_compile(const char *text, const char *const *names, int nnames, double *p, int cap,
                     int *maxvar, char *err, size_t errcap) {
    const fx_names l = {names, nnames};
    return haze__fn_compile_lookup(text, fx_names_lookup, &l, p, cap, maxvar, err, errcap);
}
