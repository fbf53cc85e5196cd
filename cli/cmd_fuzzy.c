/*
 * cli/cmd_fuzzy.c - `haze fuzzy eval`: evaluates an arithmetic expression on
 * fuzzy numbers with certified alpha-cut arithmetic (haze/fuzzy.h) and prints
 * the cuts of the result.
 *
 * Grammar (recursive descent, one value per node, evaluated while parsing):
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | '[' NUMBER ',' NUMBER ']' | NAME | '(' expr ')'
 *            | tri(l,m,u) | trap(a,b,c,d) | gauss(mu,sigma,k) | sqrt(expr) | sqr(expr)
 * NUMBER is a decimal or C99 hex float, read exactly by the library
 * (haze_fuzzy_parse_number): a crisp constant such as 0.1 becomes the
 * tightest double interval around it, and membership-function parameters
 * are enclosed the same way and cut outward (haze_fuzzy_set_membership), so
 * every cut contains the cut of the function of the decimal parameters.
 */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"

#define MAX_LETS 64
/* Deepest nesting of parentheses, function calls and unary minus signs: the
 * parser recurses once per level, so the limit keeps it off the stack's end
 * (as prec, FPCore and .fll readers do). */
#define MAX_DEPTH 1000

typedef struct binding {
    char name[32];
    haze_fuzzy_array *value;
} binding;

typedef struct evaluator {
    haze_ctx *ctx;
    haze_fuzzy_encoding enc;
    haze_precision prec;
    int ncuts;
    binding lets[MAX_LETS];
    int nlets;
    /* the text being parsed, for error columns */
    const char *src, *p, *what;
    int col0;  /* column of src in its line, less 1 (batch lines hold several items) */
    int depth; /* nesting of the parse at p */
    struct haze_fuzzy_op_options op_opt; /* haze_fuzzy_op options (--div-zero hull) */
    char err[512];
    int status;
    /* --plot: copies of the operands (functions, intervals, names), drawn
     * with the result */
    int keep;
    haze_fuzzy_array *shown[PLOT_FUZZY_OPERANDS];
    char shown_name[PLOT_FUZZY_OPERANDS][48];
    int nshown;
} evaluator;

static haze_fuzzy_array *fail_at(evaluator *ev, const char *at, int status, const char *msg) {
    if (!ev->status) {
        snprintf(ev->err, sizeof ev->err, "%s:%d: %s", ev->what, ev->col0 + (int)(at - ev->src) + 1,
                 msg);
        ev->status = status;
    }
    return NULL;
}

static void skip(evaluator *ev) {
    while (isspace((unsigned char)*ev->p)) ev->p++;
}

static haze_fuzzy_array *new_value(evaluator *ev) {
    haze_fuzzy_array *a = NULL;
    int st = haze_fuzzy_array_new(ev->ctx, ev->enc, ev->prec, ev->ncuts, 1, NULL, &a);
    if (st) {
        fail_at(ev, ev->p, st, haze_ctx_errmsg(ev->ctx));
        return NULL;
    }
    return a;
}

/* A number, as its tightest enclosing double interval [RD, RU] (read exactly). */
static int parse_number(evaluator *ev, double *lo, double *hi) {
    skip(ev);
    const char *s = ev->p, *end;
    int st = HAZE_ERR_PARSE;
    if (*s == '+' || *s == '-' || isdigit((unsigned char)*s) || *s == '.')
        st = haze_fuzzy_parse_number(NULL, s, &end, lo, hi);
    if (st == HAZE_OK) {
        ev->p = end;
        return 1;
    }
    if (st == HAZE_ERR_NOMEM) return fail_at(ev, s, st, "out of memory"), 0;
    fail_at(ev, s, HAZE_ERR_PARSE,
            st == HAZE_ERR_RANGE
                ? "number out of range (beyond the doubles, or an exponent beyond 100000)"
                : "expected a finite number");
    return 0;
}

static haze_fuzzy_array *parse_expr(evaluator *ev);

/* With --plot: keeps a copy of operand v, the text [at, end) (once per text). */
static void remember(evaluator *ev, const char *at, const char *end, const haze_fuzzy_array *v) {
    if (!ev->keep || ev->nshown == PLOT_FUZZY_OPERANDS) return;
    char name[48];
    int len = (int)(end - at);
    snprintf(name, sizeof name, "%.*s%s", len > 40 ? 40 : len, at, len > 40 ? "..." : "");
    for (int i = 0; i < ev->nshown; i++)
        if (strcmp(ev->shown_name[i], name) == 0) return;
    haze_fuzzy_array *c = NULL;
    if (haze_fuzzy_array_new(ev->ctx, ev->enc, ev->prec, ev->ncuts, 1, NULL, &c)) return;
    memcpy(haze_fuzzy_array_data(c), haze_fuzzy_array_data(v),
           haze_fuzzy_array_stride(v) * (ev->prec ? 4 : 8));
    ev->shown[ev->nshown] = c;
    snprintf(ev->shown_name[ev->nshown++], sizeof ev->shown_name[0], "%s", name);
}

static int expect(evaluator *ev, char c) {
    skip(ev);
    if (*ev->p != c) {
        char msg[32];
        snprintf(msg, sizeof msg, "expected '%c'", c);
        fail_at(ev, ev->p, HAZE_ERR_PARSE, msg);
        return 0;
    }
    ev->p++;
    return 1;
}

static haze_fuzzy_array *apply(evaluator *ev, const char *at, haze_fuzzy_opcode op,
                               haze_fuzzy_array *a, haze_fuzzy_array *b) {
    if (!a || (op <= HAZE_FUZZY_DIV && !b)) {
        haze_fuzzy_array_free(a);
        haze_fuzzy_array_free(b);
        return NULL;
    }
    int st = haze_fuzzy_op(ev->ctx, op, a, b, &ev->op_opt, a);
    haze_fuzzy_array_free(b);
    const char *prec = ev->prec == HAZE_PRECISION_F32 ? "single" : "double";
    if (st == HAZE_ERR_RANGE) { /* the result is an enclosure with unbounded cuts: say so, go on */
        cli_errorf("%s:%d: warning: the result overflows %s precision (unbounded cuts)", ev->what,
                   ev->col0 + (int)(at - ev->src) + 1, prec);
        return a;
    }
    if (st) {
        haze_fuzzy_array_free(a);
        if (st == HAZE_ERR_DOMAIN)
            return fail_at(ev, at, st,
                           op == HAZE_FUZZY_SQRT
                               ? "square root of a number with negative values"
                               : "the divisor's support contains 0 (--div-zero hull gives the "
                                 "IEEE 1788 hull)");
        return fail_at(ev, at, st, haze_ctx_errmsg(ev->ctx));
    }
    return a;
}

static haze_fuzzy_array *parse_primary(evaluator *ev) {
    skip(ev);
    const char *at = ev->p;
    if (*at == '(') {
        ev->p++;
        haze_fuzzy_array *v = parse_expr(ev);
        if (v && !expect(ev, ')')) {
            haze_fuzzy_array_free(v);
            return NULL;
        }
        return v;
    }
    if (*at == '[') {
        double l1, h1, l2, h2;
        ev->p++;
        skip(ev);
        const char *a0 = ev->p;
        if (!parse_number(ev, &l1, &h1)) return NULL;
        const char *a1 = ev->p;
        if (!expect(ev, ',')) return NULL;
        skip(ev);
        const char *b0 = ev->p;
        if (!parse_number(ev, &l2, &h2)) return NULL;
        const char *b1 = ev->p;
        if (!expect(ev, ']')) return NULL;
        if (!(l1 <= h2))
            return fail_at(ev, at, HAZE_ERR_PARSE, "inverted interval (lower > upper)");
        /* [a, b] is trap(a, a, b, b): the library compares the decimals exactly (their
         * enclosures may overlap, [0.30000000000000001, 0.3] is inverted) and gives the
         * cuts [RD(a), RU(b)] */
        int na = (int)(a1 - a0), nb = (int)(b1 - b0);
        size_t cap = 2 * (size_t)na + 2 * (size_t)nb + 16;
        char *spec = malloc(cap);
        if (!spec) return fail_at(ev, at, HAZE_ERR_NOMEM, "out of memory");
        snprintf(spec, cap, "trap(%.*s,%.*s,%.*s,%.*s)", na, a0, na, a0, nb, b0, nb, b0);
        haze_fuzzy_array *v = new_value(ev);
        int st = v ? haze_fuzzy_set_membership(ev->ctx, v, 0, spec, NULL) : HAZE_OK;
        free(spec);
        if (!v) return NULL;
        if (!st) remember(ev, at, ev->p, v);
        if (st) {
            haze_fuzzy_array_free(v);
            if (st == HAZE_ERR_INVALID)
                return fail_at(ev, at, HAZE_ERR_PARSE, "inverted interval (lower > upper)");
            if (st == HAZE_ERR_RANGE)
                return fail_at(ev, at, HAZE_ERR_PARSE,
                               ev->prec == HAZE_PRECISION_F32 ? "interval out of range of single "
                                                                "precision"
                                                              : "interval out of range");
            return fail_at(ev, at, st, haze_ctx_errmsg(ev->ctx));
        }
        return v;
    }
    if (isalpha((unsigned char)*at) || *at == '_') {
        char name[32];
        size_t len = 0;
        while (isalnum((unsigned char)ev->p[len]) || ev->p[len] == '_') len++;
        if (len >= sizeof name) return fail_at(ev, at, HAZE_ERR_PARSE, "name too long");
        memcpy(name, ev->p, len);
        name[len] = 0;
        ev->p += len;
        skip(ev);
        if (*ev->p == '(') {
            static const struct {
                const char *name;
                int nargs;
            } fns[] = {{"tri", 3}, {"trap", 4}, {"gauss", 3}, {"sqrt", -1}, {"sqr", -1}};
            int f = -1;
            for (int i = 0; i < 5; i++)
                if (strcmp(name, fns[i].name) == 0) f = i;
            if (f < 0) return fail_at(ev, at, HAZE_ERR_PARSE, "unknown function");
            ev->p++;
            if (fns[f].nargs < 0) {
                haze_fuzzy_array *v = parse_expr(ev);
                if (!v || !expect(ev, ')')) {
                    haze_fuzzy_array_free(v);
                    return NULL;
                }
                return apply(ev, at, f == 3 ? HAZE_FUZZY_SQRT : HAZE_FUZZY_SQR, v, NULL);
            }
            /* the parameters are decimals: the library encloses each one and cuts outward */
            haze_fuzzy_array *v = new_value(ev);
            if (!v) return NULL;
            const char *end;
            int st = haze_fuzzy_set_membership(ev->ctx, v, 0, at, &end);
            if (st) {
                haze_fuzzy_array_free(v);
                /* syntax errors point at the character, bad values at the function */
                return fail_at(ev, st == HAZE_ERR_INVALID ? at : end,
                               st == HAZE_ERR_RANGE ? HAZE_ERR_PARSE : st,
                               haze_ctx_errmsg(ev->ctx));
            }
            ev->p = end;
            remember(ev, at, end, v);
            return v;
        }
        for (int i = ev->nlets - 1; i >= 0; i--) {
            if (strcmp(ev->lets[i].name, name) == 0) {
                haze_fuzzy_array *v = new_value(ev);
                if (v)
                    memcpy(haze_fuzzy_array_data(v), haze_fuzzy_array_data(ev->lets[i].value),
                           haze_fuzzy_array_stride(v) * (ev->prec ? 4 : 8));
                if (v) remember(ev, name, name + strlen(name), v);
                return v;
            }
        }
        return fail_at(ev, at, HAZE_ERR_PARSE, "unknown name (bind it with --let NAME=VALUE)");
    }
    double lo, hi;
    if (!parse_number(ev, &lo, &hi)) return NULL;
    haze_fuzzy_array *v = new_value(ev);
    if (!v) return NULL;
    int st = haze_fuzzy_set_crisp(ev->ctx, v, 0, lo, hi);
    if (st) {
        haze_fuzzy_array_free(v);
        if (st == HAZE_ERR_RANGE) /* bad input, as a number beyond the doubles is */
            return fail_at(ev, at, HAZE_ERR_PARSE, "number out of range of single precision");
        return fail_at(ev, at, st, haze_ctx_errmsg(ev->ctx));
    }
    return v;
}

static haze_fuzzy_array *parse_unary(evaluator *ev) {
    skip(ev);
    if (ev->depth >= MAX_DEPTH) {
        char msg[96];
        snprintf(msg, sizeof msg, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
        return fail_at(ev, ev->p, HAZE_ERR_PARSE, msg);
    }
    ev->depth++;
    haze_fuzzy_array *v;
    if (*ev->p == '-') {
        const char *at = ev->p++;
        v = apply(ev, at, HAZE_FUZZY_NEG, parse_unary(ev), NULL);
    } else {
        v = parse_primary(ev);
    }
    ev->depth--;
    return v;
}

static haze_fuzzy_array *parse_term(evaluator *ev) {
    haze_fuzzy_array *v = parse_unary(ev);
    for (;;) {
        skip(ev);
        if (!v || (*ev->p != '*' && *ev->p != '/')) return v;
        const char *at = ev->p;
        haze_fuzzy_opcode op = *ev->p++ == '*' ? HAZE_FUZZY_MUL : HAZE_FUZZY_DIV;
        v = apply(ev, at, op, v, parse_unary(ev));
    }
}

static haze_fuzzy_array *parse_expr(evaluator *ev) {
    haze_fuzzy_array *v = parse_term(ev);
    for (;;) {
        skip(ev);
        if (!v || (*ev->p != '+' && *ev->p != '-')) return v;
        const char *at = ev->p;
        haze_fuzzy_opcode op = *ev->p++ == '+' ? HAZE_FUZZY_ADD : HAZE_FUZZY_SUB;
        v = apply(ev, at, op, v, parse_term(ev));
    }
}

/* Parses a whole expression text; NULL with ev->err on failure. */
static haze_fuzzy_array *eval_text(evaluator *ev, const char *text, const char *what) {
    ev->src = ev->p = text;
    ev->what = what;
    ev->depth = 0;
    haze_fuzzy_array *v = parse_expr(ev);
    skip(ev);
    if (v && *ev->p) {
        haze_fuzzy_array_free(v);
        return fail_at(ev, ev->p, HAZE_ERR_PARSE, "unexpected text after the expression");
    }
    return v;
}

/* "NAME=EXPR": evaluates and binds (a later binding of a name hides an earlier one). */
static int bind(evaluator *ev, const char *text, const char *what) {
    const char *eq = strchr(text, '=');
    ev->src = text;
    ev->what = what;
    size_t len = eq ? (size_t)(eq - text) : 0;
    while (len && isspace((unsigned char)text[len - 1])) len--;
    const char *s = text;
    while (isspace((unsigned char)*s) && s < text + len) s++;
    if (!eq || s == text + len || !(isalpha((unsigned char)*s) || *s == '_')) {
        fail_at(ev, text, HAZE_ERR_PARSE, "expected NAME=VALUE");
        return 0;
    }
    if (ev->nlets == MAX_LETS) {
        fail_at(ev, text, HAZE_ERR_PARSE, "too many bindings");
        return 0;
    }
    binding *b = &ev->lets[ev->nlets];
    size_t nl = (size_t)(text + len - s);
    if (nl >= sizeof b->name) {
        fail_at(ev, s, HAZE_ERR_PARSE, "name too long");
        return 0;
    }
    for (size_t i = 0; i < nl; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_') {
            fail_at(ev, s + i, HAZE_ERR_PARSE, "bad character in name");
            return 0;
        }
    memcpy(b->name, s, nl);
    b->name[nl] = 0;
    ev->src = text; /* columns count from the start of NAME=VALUE */
    ev->p = eq + 1;
    ev->depth = 0;
    haze_fuzzy_array *v = parse_expr(ev);
    skip(ev);
    if (v && *ev->p) {
        haze_fuzzy_array_free(v);
        fail_at(ev, ev->p, HAZE_ERR_PARSE, "unexpected text after the value");
        return 0;
    }
    if (!v) return 0;
    b->value = v;
    ev->nlets++;
    return 1;
}

static void unbind_from(evaluator *ev, int keep) {
    while (ev->nlets > keep) haze_fuzzy_array_free(ev->lets[--ev->nlets].value);
}

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON } out_format;

/*
 * One number as text: %.17g, or %a with --exact; infinities and NaN (an
 * empty cut) as "inf", "-inf" and "nan", never "-nan". A bound in decimal
 * is rounded outward (dir -1: a decimal <= x, 1: >= x, 0: the nearest):
 * the 17 digits of x name x, but as a number they may lie on the wrong
 * side of it (0x1.999999999999ap-3 is 0.2000000000000000111..., and its
 * %.17g, 0.20000000000000001, lies below it), and then those of the
 * neighbouring double outward are printed, which lie on the right side.
 */
static const char *num_text(char *buf, size_t cap, double x, int exact, int dir, int *nomem) {
    if (x != x) return "nan";
    if (isinf(x)) return x > 0 ? "inf" : "-inf";
    snprintf(buf, cap, exact ? "%a" : "%.17g", x);
    double lo, hi;
    if (!exact && dir) {
        /* (the exact reading needs memory: without it, no bound is printed) */
        int st = haze_fuzzy_parse_number(NULL, buf, NULL, &lo, &hi);
        if (st) *nomem = 1;
        if (!st && lo != hi && (dir < 0 ? lo == x : hi == x)) /* the decimal lies beyond x */
            snprintf(buf, cap, "%.17g", nextafter(x, dir < 0 ? -INFINITY : INFINITY));
    }
    return buf;
}

/*
 * A number in the output format: JSON takes it bare when it is a finite
 * number printed in decimal, and as a string otherwise (hex floats with
 * --exact, and "inf", "-inf", "nan", which JSON numbers cannot hold); the
 * table pads it to a column.
 */
static void put_num(FILE *fp, out_format fmt, double x, int exact, int dir, int *nomem) {
    char buf[64];
    const char *t = num_text(buf, sizeof buf, x, exact, dir, nomem);
    if (fmt == FMT_JSON)
        fprintf(fp, exact || !isfinite(x) ? "\"%s\"" : "%s", t);
    else
        fprintf(fp, fmt == FMT_TABLE ? "%-24s" : "%s", t);
}

/* HAZE_ERR_NOMEM when a decimal bound could not be checked (what was written
 * is then to be dropped), else HAZE_OK. */
static int print_result(FILE *fp, const haze_fuzzy_array *v, out_format fmt, int exact,
                        const char *expr) {
    int nomem = 0;
    int sym = haze_fuzzy_array_encoding(v) != HAZE_FUZZY_LU;
    double mid = 0, lo, hi, c;
    char buf[64];
    if (sym)
        mid = haze_fuzzy_array_precision(v) ? ((float *)haze_fuzzy_array_data(v))[0]
                                            : ((double *)haze_fuzzy_array_data(v))[0];
    haze_fuzzy_centroid(NULL, v, 0, &c);
    if (fmt == FMT_JSON) {
        fprintf(fp, "{\"expression\": ");
        cli_json_str(fp, expr);
        fprintf(fp, ", \"encoding\": \"%s\", \"precision\": \"%s\", \"centroid\": ",
                haze_fuzzy_encoding_name(haze_fuzzy_array_encoding(v)),
                haze_fuzzy_array_precision(v) ? "single" : "double");
        put_num(fp, fmt, c, 0, 0, &nomem);
        fputs(", \"cuts\": [", fp);
    } else if (fmt == FMT_CSV) {
        fprintf(fp, "alpha,lower,upper%s\n", sym ? ",midpoint,radius" : "");
    } else {
        fprintf(fp, "# %s  (%s, %s, %d cuts, centroid %s)\n", expr,
                haze_fuzzy_encoding_name(haze_fuzzy_array_encoding(v)),
                haze_fuzzy_array_precision(v) ? "single" : "double", haze_fuzzy_array_cut_count(v),
                num_text(buf, sizeof buf, c, 0, 0, &nomem));
        fprintf(fp, "%-8s %-24s %-24s%s\n", "alpha", "lower", "upper",
                sym ? " midpoint                 radius" : "");
    }
    double rsum = 0;
    for (int k = 0; k < haze_fuzzy_array_cut_count(v); k++) {
        haze_fuzzy_get_cut(NULL, v, 0, k, &lo, &hi);
        double rad = 0;
        if (sym) { /* stored radius; for increments their upward-rounded running sum */
            double x = haze_fuzzy_array_precision(v) ? ((float *)haze_fuzzy_array_data(v))[1 + k]
                                                     : ((double *)haze_fuzzy_array_data(v))[1 + k];
            if (haze_fuzzy_array_encoding(v) == HAZE_FUZZY_MI)
                rsum = haze_fuzzy_array_precision(v) ? (double)haze_ru_addf((float)rsum, (float)x)
                                                     : haze_ru_add(rsum, x);
            else
                rsum = x;
            rad = rsum;
        }
        double val[4] = {lo, hi, mid, rad};
        static const char *const key[4] = {"lower", "upper", "midpoint", "radius"};
        if (fmt == FMT_JSON)
            fprintf(fp, "%s{\"alpha\": %.17g", k ? ", " : "", haze_fuzzy_array_alphas(v)[k]);
        else
            fprintf(fp, fmt == FMT_CSV ? "%.17g" : "%-8.6g", haze_fuzzy_array_alphas(v)[k]);
        for (int j = 0; j < (sym ? 4 : 2); j++) {
            if (fmt == FMT_JSON)
                fprintf(fp, ", \"%s\": ", key[j]);
            else
                fputc(fmt == FMT_CSV ? ',' : ' ', fp);
            put_num(fp, fmt, val[j], exact, j == 0 ? -1 : j == 2 ? 0 : 1, &nomem); /* outward */
        }
        fputs(fmt == FMT_JSON ? "}" : "\n", fp);
    }
    if (fmt == FMT_JSON) fputs("]}\n", fp);
    return nomem ? HAZE_ERR_NOMEM : HAZE_OK;
}

static void help(FILE *fp) {
    fprintf(
        fp,
        "usage: haze fuzzy eval EXPR [--let NAME=VALUE]... [options]\n"
        "       haze fuzzy eval --batch FILE|- [options]\n"
        "       haze fuzzy eval [options] -- -EXPR   (an expression that starts with '-')\n\n"
        "Evaluates EXPR on fuzzy numbers with certified alpha-cut arithmetic and prints\n"
        "the cuts of the result (lower, upper; midpoint and radius for mr and mi).\n\n"
        "EXPR: + - * / and parentheses over numbers (decimal or hex float), crisp\n"
        "intervals [lo,hi], names bound with --let, and the functions tri(l,m,u),\n"
        "trap(a,b,c,d), gauss(mu,sigma,k) (truncated at mu -+ k sigma), sqrt(x), sqr(x).\n\n"
        "options:\n"
        "  --let NAME=VALUE      bind NAME (VALUE is an expression; repeatable)\n"
        "  --cuts N              alpha-cuts, 1 to %d (default 4): levels 1, (N-1)/N, ..., 1/N\n"
        "  --encoding lu|mr|mi   lower-upper, midpoint-radius, midpoint-increment (default lu)\n"
        "  --precision single|double   (default double)\n"
        "  --format table|csv|json     (default table)\n"
        "  --exact               print every bound as a hex float\n"
        "  --div-zero error|hull division by a number whose support contains 0: an error\n"
        "                        (default) or the IEEE 1788 hull (unbounded cuts)\n"
        "  --batch FILE|-        one evaluation per line: 'a=tri(1,2,3); b=2; a*b'\n"
        "                        (bindings then the expression, separated by ';';\n"
        "                        empty lines and lines starting with # are skipped;\n"
        "                        a bad line is reported with its line and column, the\n"
        "                        others are evaluated, and the exit code is then 2)\n"
        "  -o, --output FILE     write there instead of stdout (nothing is written when the\n"
        "                        run fails; a batch leaves out only its bad lines)\n"
        "  --plot FILE           draw the result's membership function, its cuts as\n"
        "                        nested intervals, with the operands (PNG, SVG or PDF;\n"
        "                        one EXPR, not --batch)\n"
        "  -h, --help            this text\n\n"
        "Results go to stdout (or -o), messages to stderr. Numbers a JSON number cannot\n"
        "hold are strings: \"inf\", \"-inf\", \"nan\" (an empty cut), and with --exact every\n"
        "bound. An overflow gives unbounded cuts (still an enclosure) and a warning.\n\n"
        "exit codes: 0 ok, 1 usage, 2 bad input (the message gives the column), 3 runtime\n",
        HAZE_FUZZY_MAX_CUTS);
}

/* Evaluates one batch line "b1; b2; ...; expr" and prints it. */
static int eval_line(evaluator *ev, char *line, const char *file, long lineno, FILE *fp,
                     out_format fmt, int exact) {
    char what[512];
    snprintf(what, sizeof what, "%s:%ld", file, lineno);
    int keep = ev->nlets;
    char *item = line, *semi;
    haze_fuzzy_array *v = NULL;
    ev->status = 0;
    ev->err[0] = 0;
    for (;;) {
        semi = strchr(item, ';');
        if (semi) *semi = 0;
        char *s = item;
        while (isspace((unsigned char)*s)) s++;
        ev->col0 = (int)(item - line); /* columns count from the start of the line */
        if (!semi) {
            v = eval_text(ev, item, what);
            break;
        }
        if (strncmp(s, "let ", 4) == 0) memset(s, ' ', 3);
        if (!bind(ev, item, what)) break;
        item = semi + 1;
    }
    int ps = HAZE_OK;
    if (v) {
        if ((ps = print_result(fp, v, fmt, exact, item)))
            snprintf(ev->err, sizeof ev->err, "out of memory");
        haze_fuzzy_array_free(v);
    }
    unbind_from(ev, keep);
    ev->col0 = 0;
    return v ? ps : ev->status;
}

int cmd_fuzzy(int argc, char **argv, const cli_global *g) {
    static const struct option opts[] = {
        {"let", required_argument, 0, 'l'},      {"cuts", required_argument, 0, 'n'},
        {"encoding", required_argument, 0, 'e'}, {"precision", required_argument, 0, 'p'},
        {"format", required_argument, 0, 'f'},   {"exact", no_argument, 0, 'x'},
        {"batch", required_argument, 0, 'b'},    {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},           {"div-zero", required_argument, 0, 'z'},
        {"plot", required_argument, 0, 'P'},     {0, 0, 0, 0}};
    const char *lets[MAX_LETS], *batch = NULL, *output = "-", *plot = NULL;
    int nlets = 0, exact = 0;
    int div_hull = 0;
    long ncuts = 4;
    int rc;
    haze_fuzzy_encoding enc = HAZE_FUZZY_LU;
    haze_precision prec = HAZE_PRECISION_F64;
    out_format fmt = FMT_TABLE;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            help(stdout);
            return CLI_OK;
        case 'l':
            if (nlets == MAX_LETS) return cli_usage_error("fuzzy", "too many --let");
            lets[nlets++] = optarg;
            break;
        case 'n':
            if (!cli_parse_int(optarg, 1, HAZE_FUZZY_MAX_CUTS, &ncuts))
                return cli_usage_error("fuzzy", "--cuts must be 1 to %d", HAZE_FUZZY_MAX_CUTS);
            break;
        case 'e':
            if (haze_fuzzy_encoding_parse(NULL, optarg, &enc))
                return cli_usage_error("fuzzy", "--encoding must be lu, mr or mi");
            break;
        case 'p':
            if (strcmp(optarg, "single") == 0 || strcmp(optarg, "float") == 0)
                prec = HAZE_PRECISION_F32;
            else if (strcmp(optarg, "double") == 0)
                prec = HAZE_PRECISION_F64;
            else
                return cli_usage_error("fuzzy", "--precision must be single or double");
            break;
        case 'f':
            if (strcmp(optarg, "table") == 0)
                fmt = FMT_TABLE;
            else if (strcmp(optarg, "csv") == 0)
                fmt = FMT_CSV;
            else if (strcmp(optarg, "json") == 0)
                fmt = FMT_JSON;
            else
                return cli_usage_error("fuzzy", "--format must be table, csv or json");
            break;
        case 'x':
            exact = 1;
            break;
        case 'z':
            if (strcmp(optarg, "hull") == 0)
                div_hull = 1;
            else if (strcmp(optarg, "error") == 0)
                div_hull = 0;
            else
                return cli_usage_error("fuzzy", "--div-zero must be error or hull");
            break;
        case 'b':
            batch = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'P':
            plot = optarg;
            break;
        default:
            return cli_usage_error("fuzzy", "unknown option");
        }
    }
    if (optind >= argc || strcmp(argv[optind], "eval") != 0)
        return cli_usage_error("fuzzy", "expected the action 'eval'");
    optind++;
    const char *expr = optind < argc ? argv[optind++] : NULL;
    if (optind < argc) return cli_usage_error("fuzzy", "unexpected argument '%s'", argv[optind]);
    if (!expr == !batch) return cli_usage_error("fuzzy", "give either EXPR or --batch FILE");
    if (plot && batch) return cli_usage_error("fuzzy", "--plot draws one EXPR, not a --batch");
    if (plot && (rc = plot_check_path("fuzzy", "--plot", plot))) return rc;

    haze_ctx *ctx;
    rc = cli_ctx_new(g, &ctx);
    if (rc) return rc;
    evaluator *ev = calloc(1, sizeof *ev);
    if (!ev) {
        haze_ctx_free(ctx);
        cli_errorf("out of memory");
        return CLI_RUNTIME;
    }
    ev->ctx = ctx, ev->enc = enc, ev->prec = prec, ev->ncuts = (int)ncuts;
    ev->op_opt = haze_fuzzy_op_options_default();
    ev->op_opt.div_hull = div_hull;
    haze_outfile *out = NULL;
    char *text = NULL;
    int st = HAZE_OK;
    for (int i = 0; i < nlets && !st; i++) {
        char what[64];
        snprintf(what, sizeof what, "--let %d", i + 1);
        if (!bind(ev, lets[i], what)) st = ev->status;
    }
    if (!st && batch) st = haze_io_read_file(ctx, batch, &text, NULL);
    if (st && !ev->status) {
        rc = cli_fail(ctx, st);
        goto done;
    }
    if (!st && plot)
        st = cli_outputs_begin(ctx, 2,
                               (const char *const[]){strcmp(output, "-") ? output : NULL, plot});
    if (!st) st = haze_outfile_open(ctx, output, &out);
    if (st && !ev->status) {
        rc = cli_fail(ctx, st);
        goto done;
    }
    if (!st && expr) {
        ev->keep = plot != NULL; /* the operands of EXPR, not those inside --let values */
        haze_fuzzy_array *v = eval_text(ev, expr, "expression");
        if (v && (st = print_result(haze_outfile_stream(out), v, fmt, exact, expr))) {
            snprintf(ev->err, sizeof ev->err, "out of memory");
            haze_fuzzy_array_free(v);
        } else if (v) {
            if (plot && (rc = plot_fuzzy(ctx, v, expr, (const haze_fuzzy_array *const *)ev->shown,
                                         (const char *)ev->shown_name, sizeof ev->shown_name[0],
                                         ev->nshown, plot))) {
                haze_fuzzy_array_free(v);
                haze_outfile_abort(&out);
                goto done;
            }
            haze_fuzzy_array_free(v);
        } else {
            st = ev->status;
        }
    } else if (!st) {
        long lineno = 0, nbad = 0, nlines = 0;
        char *save = NULL;
        const char *name = strcmp(batch, "-") == 0 ? "stdin" : batch;
        /* split on newlines by hand: strtok would skip empty lines and shift numbers */
        for (char *line = text; line && !st; line = save) {
            char *nl = strchr(line, '\n');
            save = nl ? nl + 1 : NULL;
            if (nl) *nl = 0;
            lineno++;
            char *s = line;
            while (isspace((unsigned char)*s)) s++;
            if (!*s || *s == '#') continue;
            nlines++;
            int ls = eval_line(ev, line, name, lineno, haze_outfile_stream(out), fmt, exact);
            if (ls && cli_exit_code(ls) == CLI_INPUT) { /* a bad line: say where, go on */
                cli_errorf("%s", ev->err[0] ? ev->err : haze_ctx_errmsg(ctx));
                nbad++;
            } else {
                st = ls; /* a runtime failure ends the batch */
            }
            if (!save || !*save) break;
        }
        if (!st && nbad) {
            /* the good lines' results are written; the exit code says some were not (when
             * none was good, nothing is: no empty file where a result was asked for) */
            if (nbad == nlines)
                haze_outfile_abort(&out);
            else
                st = haze_outfile_commit(ctx, &out);
            if (st) {
                rc = cli_fail(ctx, st);
            } else {
                cli_errorf("%ld of %ld lines of %s failed (their results are missing)", nbad,
                           nlines, name);
                rc = CLI_INPUT;
            }
            goto done;
        }
    }
    if (st) {
        haze_outfile_abort(&out);
        cli_errorf("%s", ev->err[0] ? ev->err : haze_ctx_errmsg(ctx));
        rc = cli_exit_code(st);
    } else {
        st = haze_outfile_commit(ctx, &out);
        if (!st && plot) st = haze_outgroup_commit(ctx);
        rc = st ? cli_fail(ctx, st) : CLI_OK;
    }
done:
    for (int i = 0; i < ev->nshown; i++) haze_fuzzy_array_free(ev->shown[i]);
    unbind_from(ev, 0);
    free(text);
    free(ev);
    haze_ctx_free(ctx);
    return rc;
}
