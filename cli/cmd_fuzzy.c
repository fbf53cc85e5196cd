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
 * NUMBER is a decimal or C99 hex float; a crisp constant is enclosed exactly
 * (a decimal such as 0.1 becomes the tightest interval around it), while
 * membership-function parameters are rounded to nearest.
 */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_LETS 64

typedef struct binding {
    char name[32];
    haze_fuzzy_array *value;
} binding;

typedef struct evaluator {
    haze_ctx *ctx;
    haze_fuzzy_encoding enc;
    haze_fuzzy_precision prec;
    int ncuts;
    binding lets[MAX_LETS];
    int nlets;
    /* the text being parsed, for error columns */
    const char *src, *p, *what;
    char err[512];
    int status;
    int depth; /* nesting of the expression being parsed */
} evaluator;

static haze_fuzzy_array *fail_at(evaluator *ev, const char *at, int status, const char *msg) {
    if (!ev->status) {
        snprintf(ev->err, sizeof ev->err, "%s:%d: %s", ev->what, (int)(at - ev->src) + 1, msg);
        ev->status = status;
    }
    return NULL;
}

static void skip(evaluator *ev) {
    while (isspace((unsigned char)*ev->p)) ev->p++;
}

static haze_fuzzy_array *new_value(evaluator *ev) {
    haze_fuzzy_array *a = NULL;
    int st = haze_fuzzy_array_new(ev->ctx, &a, ev->enc, ev->prec, ev->ncuts, 1, NULL);
    if (st) {
        fail_at(ev, ev->p, st, haze_ctx_errmsg(ev->ctx));
        return NULL;
    }
    return a;
}

/* A number, as its tightest enclosing double interval. */
static int parse_number(evaluator *ev, double *lo, double *hi) {
    skip(ev);
    const char *s = ev->p, *end = s;
    int st = haze_number_enclose(ev->ctx, s, &end, lo, hi); /* out of memory: not an abort */
    if (st == HAZE_OK)
        ev->p = end;
    else
        fail_at(ev, s, st, st == HAZE_ERR_NOMEM ? "out of memory" : "expected a finite number");
    return st == HAZE_OK;
}

static haze_fuzzy_array *parse_expr(evaluator *ev);

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
    int st = haze_fuzzy_op(ev->ctx, op, a, b, a);
    haze_fuzzy_array_free(b);
    if (st) {
        haze_fuzzy_array_free(a);
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
        if (!parse_number(ev, &l1, &h1) || !expect(ev, ',') || !parse_number(ev, &l2, &h2) ||
            !expect(ev, ']'))
            return NULL;
        if (!(l1 <= h2))
            return fail_at(ev, at, HAZE_ERR_PARSE, "inverted interval (lower > upper)");
        haze_fuzzy_array *v = new_value(ev);
        if (!v) return NULL;
        int st = haze_fuzzy_set_crisp(ev->ctx, v, 0, l1, h2);
        if (st) {
            haze_fuzzy_array_free(v);
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
            double arg[4], lo, hi;
            for (int i = 0; i < fns[f].nargs; i++) {
                if (i && !expect(ev, ',')) return NULL;
                if (!parse_number(ev, &lo, &hi)) return NULL;
                arg[i] = lo == hi ? lo : 0.5 * lo + 0.5 * hi; /* nearest */
            }
            if (!expect(ev, ')')) return NULL;
            haze_fuzzy_array *v = new_value(ev);
            if (!v) return NULL;
            int st = f == 0   ? haze_fuzzy_set_tri(ev->ctx, v, 0, arg[0], arg[1], arg[2])
                     : f == 1 ? haze_fuzzy_set_trap(ev->ctx, v, 0, arg[0], arg[1], arg[2], arg[3])
                              : haze_fuzzy_set_gauss(ev->ctx, v, 0, arg[0], arg[1], arg[2]);
            if (st) {
                haze_fuzzy_array_free(v);
                return fail_at(ev, at, st, haze_ctx_errmsg(ev->ctx));
            }
            return v;
        }
        for (int i = ev->nlets - 1; i >= 0; i--) {
            if (strcmp(ev->lets[i].name, name) == 0) {
                haze_fuzzy_array *v = new_value(ev);
                if (v) memcpy(v->data, ev->lets[i].value->data, v->stride * (ev->prec ? 4 : 8));
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
        return fail_at(ev, at, st, haze_ctx_errmsg(ev->ctx));
    }
    return v;
}

/* Every level of nesting passes here: a limit keeps the recursion off the
 * end of the stack ("((((...", "----..."). */
#define MAX_NESTING 1000

static haze_fuzzy_array *parse_unary(evaluator *ev) {
    skip(ev);
    if (ev->depth >= MAX_NESTING)
        return fail_at(ev, ev->p, HAZE_ERR_PARSE,
                       "expression nested too deeply (more than 1000 levels)");
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

static int pad_numbers; /* table output: fixed-width columns */

static void print_num(FILE *fp, double x, int exact) {
    if (exact)
        fprintf(fp, pad_numbers ? "%-24a" : "%a", x);
    else
        fprintf(fp, pad_numbers ? "%-24.17g" : "%.17g", x);
}

static void print_result(FILE *fp, const haze_fuzzy_array *v, out_format fmt, int exact,
                         const char *expr) {
    int sym = v->encoding != HAZE_FUZZY_LU;
    double mid = 0, lo, hi, c;
    pad_numbers = fmt == FMT_TABLE;
    if (sym) mid = v->precision ? ((float *)v->data)[0] : ((double *)v->data)[0];
    haze_fuzzy_centroid(v, 0, &c);
    if (fmt == FMT_JSON) {
        fprintf(fp, "{\"expression\": \"");
        for (const char *s = expr; *s; s++)
            if (*s == '"' || *s == '\\')
                fprintf(fp, "\\%c", *s);
            else if ((unsigned char)*s >= 32)
                fputc(*s, fp);
        fprintf(fp,
                "\", \"encoding\": \"%s\", \"precision\": \"%s\", \"centroid\": %.17g, \"cuts\": [",
                haze_fuzzy_encoding_name(v->encoding), v->precision ? "single" : "double", c);
    } else if (fmt == FMT_CSV) {
        fprintf(fp, "alpha,lower,upper%s\n", sym ? ",midpoint,radius" : "");
    } else {
        fprintf(fp, "# %s  (%s, %s, %d cuts, centroid %.17g)\n", expr,
                haze_fuzzy_encoding_name(v->encoding), v->precision ? "single" : "double", v->ncuts,
                c);
        fprintf(fp, "%-8s %-24s %-24s%s\n", "alpha", "lower", "upper",
                sym ? " midpoint                 radius" : "");
    }
    double rsum = 0;
    for (int k = 0; k < v->ncuts; k++) {
        haze_fuzzy_get_cut(v, 0, k, &lo, &hi);
        double rad = 0;
        if (sym) { /* stored radius; for increments their upward-rounded running sum */
            double x = v->precision ? ((float *)v->data)[1 + k] : ((double *)v->data)[1 + k];
            if (v->encoding == HAZE_FUZZY_MI)
                rsum = v->precision ? (double)haze_ru_addf((float)rsum, (float)x)
                                    : haze_ru_add(rsum, x);
            else
                rsum = x;
            rad = rsum;
        }
        const char *sep = fmt == FMT_CSV ? "," : fmt == FMT_JSON ? ", " : " ";
        if (fmt == FMT_JSON)
            fprintf(fp, "%s{\"alpha\": %.17g, \"lower\": ", k ? ", " : "", v->alphas[k]);
        else
            fprintf(fp, fmt == FMT_CSV ? "%.17g," : "%-8.6g ", v->alphas[k]);
        if (fmt == FMT_JSON && exact) fputc('"', fp);
        print_num(fp, lo, exact);
        if (fmt == FMT_JSON)
            fprintf(fp, exact ? "\", \"upper\": \"" : ", \"upper\": ");
        else
            fputs(sep, fp);
        print_num(fp, hi, exact);
        if (fmt == FMT_JSON && exact) fputc('"', fp);
        if (sym) {
            if (fmt == FMT_JSON)
                fprintf(fp, exact ? ", \"midpoint\": \"" : ", \"midpoint\": ");
            else
                fputs(sep, fp);
            print_num(fp, mid, exact);
            if (fmt == FMT_JSON)
                fprintf(fp, exact ? "\", \"radius\": \"" : ", \"radius\": ");
            else
                fputs(sep, fp);
            print_num(fp, rad, exact);
            if (fmt == FMT_JSON && exact) fputc('"', fp);
        }
        fputs(fmt == FMT_JSON ? "}" : "\n", fp);
    }
    if (fmt == FMT_JSON) fputs("]}\n", fp);
}

static void help(FILE *fp) {
    fprintf(
        fp,
        "usage: haze fuzzy eval EXPR [--let NAME=VALUE]... [options]\n"
        "       haze fuzzy eval --batch FILE|- [options]\n\n"
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
        "  --batch FILE|-        one evaluation per line: 'a=tri(1,2,3); b=2; a*b'\n"
        "                        (bindings then the expression, separated by ';';\n"
        "                        empty lines and lines starting with # are skipped)\n"
        "  -o, --output FILE     write there instead of stdout (whole or not at all)\n"
        "  -h, --help            this text\n\n"
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
    for (;;) {
        semi = strchr(item, ';');
        if (semi) *semi = 0;
        char *s = item;
        while (isspace((unsigned char)*s)) s++;
        if (!semi) {
            v = eval_text(ev, item, what);
            break;
        }
        if (strncmp(s, "let ", 4) == 0) memset(s, ' ', 3);
        if (!bind(ev, item, what)) break;
        item = semi + 1;
    }
    /* columns: the library message counts within the item; add the item's offset */
    if (!v && ev->status) {
        int col;
        char rest[480];
        if (sscanf(ev->err + strlen(what), ":%d: %479[^\n]", &col, rest) == 2)
            snprintf(ev->err, sizeof ev->err, "%s:%d: %s", what, col + (int)(item - line), rest);
    }
    if (v) {
        print_result(fp, v, fmt, exact, item);
        haze_fuzzy_array_free(v);
    }
    unbind_from(ev, keep);
    return v ? HAZE_OK : ev->status;
}

int cmd_fuzzy(int argc, char **argv, const cli_global *g) {
    static const struct option opts[] = {
        {"let", required_argument, 0, 'l'},      {"cuts", required_argument, 0, 'n'},
        {"encoding", required_argument, 0, 'e'}, {"precision", required_argument, 0, 'p'},
        {"format", required_argument, 0, 'f'},   {"exact", no_argument, 0, 'x'},
        {"batch", required_argument, 0, 'b'},    {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    const char *lets[MAX_LETS], *batch = NULL, *output = "-";
    int nlets = 0, exact = 0;
    long ncuts = 4;
    haze_fuzzy_encoding enc = HAZE_FUZZY_LU;
    haze_fuzzy_precision prec = HAZE_FUZZY_DOUBLE;
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
            if (haze_fuzzy_encoding_parse(optarg, &enc))
                return cli_usage_error("fuzzy", "--encoding must be lu, mr or mi");
            break;
        case 'p':
            if (strcmp(optarg, "single") == 0 || strcmp(optarg, "float") == 0)
                prec = HAZE_FUZZY_FLOAT;
            else if (strcmp(optarg, "double") == 0)
                prec = HAZE_FUZZY_DOUBLE;
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
        case 'b':
            batch = optarg;
            break;
        case 'o':
            output = optarg;
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

    haze_ctx *ctx;
    int rc = cli_ctx_new(g, &ctx);
    if (rc) return rc;
    evaluator *ev = calloc(1, sizeof *ev);
    if (!ev) {
        haze_ctx_free(ctx);
        cli_errorf("out of memory");
        return CLI_RUNTIME;
    }
    ev->ctx = ctx, ev->enc = enc, ev->prec = prec, ev->ncuts = (int)ncuts;
    haze_outfile out = {0};
    char *text = NULL;
    int st = HAZE_OK;
    for (int i = 0; i < nlets && !st; i++) {
        char what[64];
        snprintf(what, sizeof what, "--let %d", i + 1);
        if (!bind(ev, lets[i], what)) st = ev->status;
    }
    if (!st && batch) st = haze_file_read_all(ctx, batch, &text, NULL);
    if (st && !ev->status) {
        rc = cli_fail(ctx, st);
        goto done;
    }
    if (!st) st = haze_outfile_open(ctx, &out, output);
    if (st && !ev->status) {
        rc = cli_fail(ctx, st);
        goto done;
    }
    if (!st && expr) {
        haze_fuzzy_array *v = eval_text(ev, expr, "expression");
        if (v) {
            print_result(out.fp, v, fmt, exact, expr);
            haze_fuzzy_array_free(v);
        } else {
            st = ev->status;
        }
    } else if (!st) {
        long lineno = 0;
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
            st = eval_line(ev, line, name, lineno, out.fp, fmt, exact);
            if (!save || !*save) break;
        }
    }
    if (st) {
        haze_outfile_abort(&out);
        cli_errorf("%s", ev->err[0] ? ev->err : haze_ctx_errmsg(ctx));
        rc = cli_exit_code(st);
    } else {
        st = haze_outfile_commit(ctx, &out);
        rc = st ? cli_fail(ctx, st) : CLI_OK;
    }
done:
    unbind_from(ev, 0);
    free(text);
    free(ev);
    haze_ctx_free(ctx);
    return rc;
}
