/*
 * src/fis/fis_file.c - reading and writing MATLAB/Octave .fis files.
 *
 * The format is the text format of MATLAB's Fuzzy Logic Toolbox (readfis /
 * writefis): INI-like sections [System], [InputN], [OutputN] and [Rules].
 * Reading is as tolerant as MATLAB's: comments ("%", "#"), keys in any order,
 * defaults for missing keys, blanks around "=", ":" and ",", MF parameter
 * lists longer than the type needs (old files pad with zeros: the first n are
 * used), rule lines with or without the comma between antecedents and
 * consequents, and Octave's hedge suffix in rule codes (2.3 is MF 2 with
 * hedge 3). As MATLAB's readfis, the k-th MF line of a section is MF k and
 * the k-th [Input..] section input k, whatever number they carry (a
 * warning says so where they differ), and a Range or parameter list may be
 * a MATLAB expression. Everything else that is wrong is an error naming
 * file and line.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/text.h"
#include "fis/fis_read.h"
#include "haze/io.h"

/* ------------------------------------------------------------ parse state */

typedef struct mf_spec {
    int line;
    char name[HAZE__NAME_MAX];
    int type;
    double *p;
    int np;
} mf_spec;

typedef struct var_spec {
    int present, line;
    char name[HAZE__NAME_MAX];
    int has_range, range_line;
    double lo, hi;
    int nmf, nmf_line; /* NumMFs, -1 if missing */
    mf_spec *mf;       /* indexed by position: the k-th MF line is MF k */
    int mf_cap, nmf_read;
} var_spec;

typedef struct rule_spec {
    int line;
    double *codes; /* ni + no, as the counts were when the rule was read */
    int ncodes;
    double weight;
    int conn;
} rule_spec;

typedef struct parser {
    haze_ctx *ctx;
    const char *file;
    char sysname[HAZE__NAME_MAX];
    char type[32];
    int ni, no, nr, ni_line, no_line, nr_line, type_line;
    char meth[5][32]; /* and or imp agg defuzz */
    int meth_line[5];
    var_spec *in, *out;
    int in_cap, out_cap;
    rule_spec *rules;
    int nrules, rules_cap;
    int nsec[2]; /* [Input..] and [Output..] sections read so far */
    haze__warns warns;
} parser;

static void parser_free(parser *ps) {
    for (int io = 0; io < 2; io++) {
        var_spec *v = io ? ps->out : ps->in;
        int cap = io ? ps->out_cap : ps->in_cap;
        for (int i = 0; i < cap; i++) {
            for (int k = 0; k < v[i].mf_cap; k++) free(v[i].mf[k].p);
            free(v[i].mf);
        }
        free(v);
    }
    for (int r = 0; r < ps->nrules; r++) free(ps->rules[r].codes);
    free(ps->rules);
    haze__warns_free(&ps->warns);
}

/* A parse error at a line of the file: "FILE:LINE: message". */
#define PERR(line, ...) haze__text_error(ps->ctx, HAZE_ERR_PARSE, ps->file, line, 0, __VA_ARGS__)

/* Removes surrounding single quotes (MATLAB strings). */
static int unquote(char *s, char *dst, size_t cap) {
    s = haze__text_trim(s);
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '\'' && s[n - 1] == '\'') {
        s[n - 1] = '\0';
        s++;
        n -= 2;
    }
    if (n >= cap) return -1;
    memcpy(dst, s, n + 1);
    return 0;
}

static int parse_int(const char *s, int *out) {
    char *end;
    errno = 0;
    double v = haze__strtod(s, &end);
    while (isspace((unsigned char)*end)) end++;
    if (end == s || *end || errno || v != floor(v) || v < 0 || v > 1e6) return -1;
    *out = (int)v;
    return 0;
}

/* Appends d to the malloc'd array v of cnt values (room for cap): 0, or -2
 * when out of memory (v is then freed). */
static int vector_push(double **v, int *cnt, int *cap, double d) {
    if (*cnt == *cap) {
        double *nv = realloc(*v, sizeof(double) * (size_t)*cap * 2);
        if (!nv) {
            free(*v);
            return -2;
        }
        *v = nv;
        *cap *= 2;
    }
    (*v)[(*cnt)++] = d;
    return 0;
}

/* Parses "[a b c]" (spaces or commas) into a malloc'd array. */
static int parse_vector(char *s, double **out, int *n) {
    s = haze__text_trim(s);
    size_t len = strlen(s);
    if (len < 2 || s[0] != '[' || s[len - 1] != ']') return -1;
    s[len - 1] = '\0';
    s++;
    int cap = 8, cnt = 0;
    double *v = malloc(sizeof(double) * (size_t)cap);
    if (!v) return -2;
    for (;;) {
        while (isspace((unsigned char)*s) || *s == ',') s++;
        if (!*s) break;
        const char *end;
        double d;
        if (haze__text_number(s, &end, &d) || !isfinite(d) ||
            (*end && !isspace((unsigned char)*end) && *end != ',')) {
            free(v);
            return -1;
        }
        if (vector_push(&v, &cnt, &cap, d)) return -2;
        s += end - s;
    }
    *out = v;
    *n = cnt;
    return 0;
}

/* MATLAB's readfis evaluates a Range or a parameter list as a MATLAB
 * expression, and files written by hand use that ("[-pi/4 pi/4]"). What
 * haze evaluates: numbers, pi, eps, Inf, + - * / ^ (left-associative, ^
 * binding tighter than a sign, as in MATLAB: -2^2 is -4, 2^-1 is 0.5),
 * parentheses and the functions sqrt exp log log10 abs sin cos tan. Inside
 * [ ], blanks or commas separate elements, and a sign after a blank that
 * is not followed by a blank starts a new element ("[1 -2]" is two
 * elements, "[1 - 2]" one), MATLAB's rule. */
typedef struct mexpr {
    const char *s;
    int err;
    int depth; /* parentheses open; at most MX_MAX_DEPTH */
} mexpr;

#define MX_MAX_DEPTH 1000

static double mx_sum(mexpr *e, int in_vector);

static void mx_blank(mexpr *e) {
    while (*e->s == ' ' || *e->s == '\t') e->s++;
}

static double mx_primary(mexpr *e) {
    static const char *const fn[] = {"sqrt", "exp", "log", "log10", "abs", "sin", "cos", "tan"};
    mx_blank(e);
    const char *s = e->s;
    if (*s == '(') {
        if (e->depth >= MX_MAX_DEPTH) {
            e->err = 1;
            return 0.0;
        }
        e->s++;
        e->depth++;
        double v = mx_sum(e, 0);
        e->depth--;
        mx_blank(e);
        if (*e->s != ')') {
            e->err = 1; /* and stay on the character that is not ')' (it may be the end) */
            return v;
        }
        e->s++;
        return v;
    }
    if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        double v;
        haze__text_number(s, &e->s, &v); /* a digit: there is a number */
        return v;
    }
    if (!isalpha((unsigned char)*s)) {
        e->err = 1;
        return 0.0;
    }
    char id[16];
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
    if (n >= sizeof id) {
        e->err = 1;
        return 0.0;
    }
    memcpy(id, s, n);
    id[n] = '\0';
    e->s = s + n;
    if (strcmp(id, "pi") == 0) return 3.141592653589793;
    if (strcmp(id, "eps") == 0) return 2.220446049250313e-16;
    if (strcmp(id, "Inf") == 0 || strcmp(id, "inf") == 0) return INFINITY;
    for (int k = 0; k < (int)(sizeof fn / sizeof *fn); k++)
        if (strcmp(id, fn[k]) == 0) {
            mx_blank(e);
            if (*e->s != '(') break;
            double a = mx_primary(e);
            switch (k) {
            case 0:
                return sqrt(a);
            case 1:
                return exp(a);
            case 2:
                return log(a);
            case 3:
                return log10(a);
            case 4:
                return fabs(a);
            case 5:
                return sin(a);
            case 6:
                return cos(a);
            default:
                return tan(a);
            }
        }
    e->err = 1;
    return 0.0;
}

/* Any number of signs (and blanks) in a loop, without recursion: 1 if they
 * negate. */
static int mx_signs(mexpr *e) {
    int neg = 0;
    mx_blank(e);
    while (*e->s == '-' || *e->s == '+') {
        neg ^= *e->s == '-';
        e->s++;
        mx_blank(e);
    }
    return neg;
}

static double mx_power(mexpr *e) {
    double v = mx_primary(e);
    for (;;) {
        const char *before = e->s;
        mx_blank(e);
        if (*e->s != '^') {
            e->s = before;
            return v;
        }
        e->s++;
        int neg = mx_signs(e);
        double r = mx_primary(e);
        v = pow(v, neg ? -r : r);
    }
}

static double mx_unary(mexpr *e) {
    int neg = mx_signs(e);
    double v = mx_power(e);
    return neg ? -v : v;
}

static double mx_product(mexpr *e) {
    double v = mx_unary(e);
    for (;;) {
        const char *before = e->s;
        mx_blank(e);
        char c = *e->s;
        if (c != '*' && c != '/') {
            e->s = before;
            return v;
        }
        e->s++;
        double r = mx_unary(e);
        v = c == '*' ? v * r : v / r;
    }
}

static double mx_sum(mexpr *e, int in_vector) {
    double v = mx_product(e);
    for (;;) {
        const char *before = e->s;
        mx_blank(e);
        char c = *e->s;
        /* "[1 -2]": a sign after a blank, not before one, starts the next
         * element */
        if ((c != '+' && c != '-') ||
            (in_vector && e->s != before && e->s[1] != ' ' && e->s[1] != '\t')) {
            e->s = before;
            return v;
        }
        e->s++;
        double r = mx_product(e);
        v = c == '+' ? v + r : v - r;
    }
}

/* "[e1 e2 ...]" of such expressions into a malloc'd array: 0, -1 (not
 * such a list, or a value that is not finite), -2 (out of memory). */
static int parse_mvector(const char *s, double **out, int *n) {
    while (isspace((unsigned char)*s)) s++;
    if (*s != '[') return -1;
    mexpr e = {s + 1, 0, 0};
    int cap = 8, cnt = 0;
    double *v = malloc(sizeof(double) * (size_t)cap);
    if (!v) return -2;
    for (;;) {
        while (isspace((unsigned char)*e.s) || *e.s == ',') e.s++;
        if (*e.s == ']') break;
        double d = mx_sum(&e, 1);
        if (e.err || !isfinite(d) ||
            (*e.s != ']' && *e.s != ',' && !isspace((unsigned char)*e.s))) {
            free(v);
            return -1;
        }
        if (vector_push(&v, &cnt, &cap, d)) return -2;
    }
    e.s++;
    while (isspace((unsigned char)*e.s)) e.s++;
    if (*e.s) {
        free(v);
        return -1;
    }
    *out = v;
    *n = cnt;
    return 0;
}

/* A list of plain numbers, or else of MATLAB expressions; s is kept. */
static int parse_vector_expr(const char *s, double **out, int *n) {
    size_t len = strlen(s);
    char *copy = malloc(len + 1);
    if (!copy) return -2;
    memcpy(copy, s, len + 1);
    int rc = parse_vector(copy, out, n);
    free(copy);
    if (rc == -1) rc = parse_mvector(s, out, n);
    return rc;
}

/* Grows a var_spec array so that index idx exists. */
static int ensure_var(var_spec **arr, int *cap, int idx) {
    if (idx < *cap) return 0;
    int nc = idx + 1 > *cap * 2 ? idx + 1 : *cap * 2;
    var_spec *n = realloc(*arr, sizeof(var_spec) * (size_t)nc);
    if (!n) return -1;
    memset(n + *cap, 0, sizeof(var_spec) * (size_t)(nc - *cap));
    for (int i = *cap; i < nc; i++) n[i].nmf = -1;
    *arr = n;
    *cap = nc;
    return 0;
}

static int ensure_mf(var_spec *v, int idx) {
    if (idx < v->mf_cap) return 0;
    int nc = idx + 1 > v->mf_cap * 2 ? idx + 1 : v->mf_cap * 2;
    mf_spec *n = realloc(v->mf, sizeof(mf_spec) * (size_t)nc);
    if (!n) return -1;
    memset(n + v->mf_cap, 0, sizeof(mf_spec) * (size_t)(nc - v->mf_cap));
    v->mf = n;
    v->mf_cap = nc;
    return 0;
}

static int lookup(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

/* Norm names, with the Octave/MATLAB synonyms. */
static int norm_code(const char *s) {
    if (strcmp(s, "algebraic_product") == 0) return HAZE__N_PROD;
    if (strcmp(s, "algebraic_sum") == 0) return HAZE__N_PROBOR;
    return lookup(haze__norm_names, HAZE__N_COUNT, s);
}

/* MF line: 'name':'type',[params] */
static int parse_mf(parser *ps, int line, char *val, mf_spec *m) {
    /* the name may itself hold ':', '[' and quotes (a fuzzylite term's
     * name, written as .fis, may hold any of them); the type and the
     * parameters hold no ':' or '[', so the parameter list starts at the
     * last '[' and the type after the last ':' before it */
    char *s = haze__text_trim(val);
    char *br = strrchr(s, '[');
    if (!br) return PERR(line, "expected 'name':'type',[params] (no parameter list)");
    char *colon = NULL;
    for (char *c = s; c < br; c++)
        if (*c == ':') colon = c;
    if (!colon) return PERR(line, "expected 'name':'type',[params] (no ':')");
    *colon = '\0';
    char *rest = colon + 1;
    char *comma = br - 1;
    while (comma > rest && isspace((unsigned char)*comma)) comma--;
    if (*comma != ',') return PERR(line, "expected ',' between MF type and parameters");
    *comma = '\0';
    if (unquote(s, m->name, sizeof m->name)) return PERR(line, "MF name too long");
    char tname[64];
    if (unquote(rest, tname, sizeof tname)) return PERR(line, "MF type too long");
    m->type = lookup(haze__mf_names, HAZE__MF_LINEAR + 1, tname); /* MATLAB's types only */
    if (m->type < 0) {
        char known[256] = "";
        for (int t = 0; t < HAZE__MF_CONSTANT; t++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", t ? ", " : "",
                     haze__mf_names[t]);
        return PERR(line,
                    "unknown MF type '%s' (MATLAB's types: %s; constant and linear for Sugeno "
                    "outputs); a custom MF (a MATLAB function file) cannot be read",
                    tname, known);
    }
    int rc = parse_vector_expr(br, &m->p, &m->np);
    if (rc == -2)
        return haze__text_error(ps->ctx, HAZE_ERR_NOMEM, ps->file, line, 0, "out of memory");
    if (rc) return PERR(line, "expected a list of numbers in [ ] for the MF parameters");
    m->line = line;
    return 0;
}

/* Rule line: "a1 .. an, c1 .. cm (w) : conn", the comma optional. */
static int parse_rule(parser *ps, int line, char *s, int ni, int no) {
    double vals[4096];
    int cnt = 0, comma_at = -1;
    double w = 1.0;
    int conn = -1, have_w = 0;
    char *p = s;
    while (*p) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        if (*p == ',') {
            comma_at = cnt;
            p++;
            continue;
        }
        if (*p == '(') {
            char *end;
            w = haze__strtod(p + 1, &end);
            while (isspace((unsigned char)*end)) end++;
            if (end == p + 1 || *end != ')') return PERR(line, "expected (weight) in the rule");
            have_w = 1;
            p = end + 1;
            continue;
        }
        if (*p == ':') {
            char *end;
            double c = haze__strtod(p + 1, &end);
            while (isspace((unsigned char)*end)) end++;
            if (end == p + 1 || *end || (c != 1.0 && c != 2.0))
                return PERR(line, "expected ': 1' (AND) or ': 2' (OR) at the end of the rule");
            conn = (int)c;
            p = end;
            continue;
        }
        char *end;
        double v = haze__strtod(p, &end);
        if (end == p || !isfinite(v))
            return PERR(line, "expected a number in the rule, found '%.20s'", p);
        if (cnt == (int)(sizeof vals / sizeof *vals)) return PERR(line, "rule too long");
        vals[cnt++] = v;
        p = end;
    }
    if (!have_w || conn < 0) {
        /* MATLAB's plain numeric form: codes, weight, connection */
        if (cnt == ni + no + 2 && comma_at < 0 && !have_w && conn < 0) {
            w = vals[ni + no];
            /* checked as a number: converting 1e300 to int is undefined */
            if (vals[ni + no + 1] != 1.0 && vals[ni + no + 1] != 2.0)
                return PERR(line, "rule connection must be 1 or 2");
            conn = (int)vals[ni + no + 1];
            cnt = ni + no;
        } else {
            return PERR(line, "expected a rule 'a1 .. a%d, c1 .. c%d (weight) : 1|2'", ni, no);
        }
    }
    if (cnt != ni + no || (comma_at >= 0 && comma_at != ni))
        return PERR(line, "rule has %d antecedent and %d consequent codes, expected %d and %d",
                    comma_at >= 0 ? comma_at : (cnt < ni ? cnt : ni),
                    comma_at >= 0 ? cnt - comma_at : (cnt > ni ? cnt - ni : 0), ni, no);
    if (!(w >= 0.0 && w <= 1.0)) return PERR(line, "rule weight %g outside [0, 1]", w);
    /* a variable has at most 4096 MFs; a larger code names none, and
     * split_code could not convert it to int */
    for (int j = 0; j < cnt; j++)
        if (!(fabs(vals[j]) < 4097.0))
            return PERR(line, "rule code %g is not an MF number (at most 4096)", vals[j]);
    if (ps->nrules == ps->rules_cap) {
        int nc = ps->rules_cap ? ps->rules_cap * 2 : 16;
        rule_spec *nr = realloc(ps->rules, sizeof(rule_spec) * (size_t)nc);
        if (!nr) return haze__error(ps->ctx, HAZE_ERR_NOMEM, "out of memory");
        ps->rules = nr;
        ps->rules_cap = nc;
    }
    rule_spec *r = &ps->rules[ps->nrules];
    r->codes = malloc(sizeof(double) * (size_t)(cnt ? cnt : 1));
    if (!r->codes) return haze__error(ps->ctx, HAZE_ERR_NOMEM, "out of memory");
    memcpy(r->codes, vals, sizeof(double) * (size_t)cnt);
    r->ncodes = cnt;
    r->line = line;
    r->weight = w;
    r->conn = conn;
    ps->nrules++;
    return 0;
}

enum { SEC_NONE, SEC_SYSTEM, SEC_INPUT, SEC_OUTPUT, SEC_RULES };

/* Splits a rule code into MF number, hedge and NOT (Octave's
 * get_mf_index_and_hedge: 2.3 is MF 2 with hedge 0.3*10 = 3). */
static void split_code(double c, int *mf, double *hedge) {
    int neg = c < 0;
    double a = fabs(c);
    int k = (int)a;
    *hedge = k ? round(100.0 * (a - k)) / 10.0 : 0.0;
    *mf = neg ? -k : k;
}

static int build(parser *ps, haze_fis **out) {
    haze_ctx *ctx = ps->ctx;
    const char *const defaults[5] = {"min", "max", "min", "max", "centroid"};
    haze_fis *f = calloc(1, sizeof *f);
    if (!f) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    int st = HAZE_OK;
    snprintf(f->name, sizeof f->name, "%s", ps->sysname);
    if (!ps->type[0] || strcmp(ps->type, "mamdani") == 0)
        f->sugeno = 0;
    else if (strcmp(ps->type, "sugeno") == 0)
        f->sugeno = 1;
    else if (strcmp(ps->type, "mamdanitype2") == 0 || strcmp(ps->type, "sugenotype2") == 0) {
        st = haze__text_error(ps->ctx, HAZE_ERR_UNSUPPORTED, ps->file, ps->type_line, 0,
                              "type-2 fuzzy systems (Type='%s') are not supported: haze "
                              "evaluates type-1 Mamdani and Sugeno systems",
                              ps->type);
        goto fail;
    } else {
        st = PERR(ps->type_line ? ps->type_line : 1,
                  "system type '%s' unknown (expected 'mamdani' or 'sugeno')", ps->type);
        goto fail;
    }
    int *codes[5] = {&f->and_m, &f->or_m, &f->imp_m, &f->agg_m, &f->defuzz_m};
    for (int i = 0; i < 5; i++) {
        const char *m = ps->meth[i][0] ? ps->meth[i] : defaults[i];
        int c = i == 4 ? lookup(haze__defuzz_names, HAZE__D_COUNT, m) : norm_code(m);
        int ok = c >= 0;
        if (i == 0 || i == 2) ok = ok && c >= HAZE__N_MIN && c <= HAZE__N_NMIN;
        if (i == 1) ok = ok && c >= HAZE__N_MAX && c < HAZE__N_SUM;
        if (i == 3) ok = ok && c >= HAZE__N_MAX;
        if (i == 4 && ok)
            ok = f->sugeno ? (c == HAZE__D_WTAVER || c == HAZE__D_WTSUM) : (c < HAZE__D_WTAVER);
        if (!ok) {
            static const char *const what[5] = {
                "AndMethod (a t-norm: min, prod, ...)", "OrMethod (an s-norm: max, probor, ...)",
                "ImpMethod (min or prod, or another t-norm)", "AggMethod (max, sum, probor, ...)",
                "DefuzzMethod (centroid, bisector, mom, som, lom; wtaver or wtsum for sugeno)"};
            st =
                PERR(ps->meth_line[i] ? ps->meth_line[i] : 1, "'%s' is not a valid %s", m, what[i]);
            goto fail;
        }
        *codes[i] = c;
    }
    /* counts: NumInputs etc., or what the sections say when missing */
    f->ni = ps->ni_line ? ps->ni : 0;
    f->no = ps->no_line ? ps->no : 0;
    if (!ps->ni_line)
        for (int i = 0; i < ps->in_cap; i++)
            if (ps->in[i].present) f->ni = i + 1;
    if (!ps->no_line)
        for (int i = 0; i < ps->out_cap; i++)
            if (ps->out[i].present) f->no = i + 1;
    if (f->ni < 1 || f->no < 1) {
        st = PERR(1, "the system needs at least one input and one output section");
        goto fail;
    }
    for (int io = 0; io < 2; io++) {
        var_spec *vs = io ? ps->out : ps->in;
        int cap = io ? ps->out_cap : ps->in_cap, n = io ? f->no : f->ni;
        const char *kind = io ? "Output" : "Input";
        for (int i = n; i < cap; i++)
            if (vs[i].present) {
                st = PERR(vs[i].line, "section [%s%d] beyond Num%ss=%d", kind, i + 1, kind, n);
                goto fail;
            }
        for (int i = 0; i < n; i++)
            if (i >= cap || !vs[i].present) {
                st = PERR(io ? ps->no_line : ps->ni_line, "section [%s%d] is missing", kind, i + 1);
                goto fail;
            }
    }
    f->in = calloc((size_t)f->ni, sizeof *f->in);
    f->out = calloc((size_t)f->no, sizeof *f->out);
    if (!f->in || !f->out) goto nomem;
    /* MFs and parameters */
    int nmfs = 0, nparams = 0;
    for (int io = 0; io < 2; io++) {
        var_spec *vs = io ? ps->out : ps->in;
        int n = io ? f->no : f->ni;
        for (int i = 0; i < n; i++) {
            var_spec *v = &vs[i];
            int cnt = v->nmf >= 0 ? v->nmf : 0;
            if (v->nmf < 0)
                for (int k = 0; k < v->mf_cap; k++)
                    if (v->mf[k].line) cnt = k + 1;
            for (int k = cnt; k < v->mf_cap; k++)
                if (v->mf[k].line) {
                    st = PERR(v->mf[k].line, "MF%d beyond NumMFs=%d", k + 1, cnt);
                    goto fail;
                }
            for (int k = 0; k < cnt; k++) {
                if (k >= v->mf_cap || !v->mf[k].line) {
                    st = PERR(v->nmf_line ? v->nmf_line : v->line, "MF%d is missing", k + 1);
                    goto fail;
                }
                mf_spec *m = &v->mf[k];
                int need = haze__mf_nparams[m->type];
                if (m->type == HAZE__MF_LINEAR) need = f->ni + 1;
                if (io == 0 || !f->sugeno) {
                    if (m->type == HAZE__MF_LINEAR || (m->type == HAZE__MF_CONSTANT && io == 0)) {
                        st = PERR(m->line, "MF type '%s' is only allowed for Sugeno outputs",
                                  haze__mf_names[m->type]);
                        goto fail;
                    }
                } else if (m->type != HAZE__MF_LINEAR && m->type != HAZE__MF_CONSTANT) {
                    st = PERR(m->line, "a Sugeno output MF must be 'constant' or 'linear'");
                    goto fail;
                }
                if (m->np < need) {
                    st = PERR(m->line, "MF '%s' of type %s needs %d parameters, got %d", m->name,
                              haze__mf_names[m->type], need, m->np);
                    goto fail;
                }
                nparams += need;
            }
            nmfs += cnt;
            haze__var *hv = io ? &f->out[i] : &f->in[i];
            snprintf(hv->name, sizeof hv->name, "%s", v->name);
            /* MATLAB loads a Sugeno output of range [0 0] (its range is
             * used only for the mid-range value when no rule fires) */
            if (v->has_range && !(v->lo < v->hi) && !(io && f->sugeno && v->lo == v->hi)) {
                st = PERR(v->range_line, "Range [%.17g %.17g]: expected min < max%s", v->lo, v->hi,
                          io && f->sugeno ? " (or min = max for a Sugeno output)" : "");
                goto fail;
            }
            if (!v->has_range) {
                hv->lo = 0.0;
                hv->hi = 1.0;
            } else {
                hv->lo = v->lo;
                hv->hi = v->hi;
            }
            hv->nmf = cnt;
        }
    }
    f->mfs = calloc((size_t)(nmfs ? nmfs : 1), sizeof *f->mfs);
    f->params = calloc((size_t)(nparams ? nparams : 1), sizeof(double));
    if (!f->mfs || !f->params) goto nomem;
    for (int io = 0; io < 2; io++) {
        var_spec *vs = io ? ps->out : ps->in;
        int n = io ? f->no : f->ni;
        for (int i = 0; i < n; i++) {
            haze__var *hv = io ? &f->out[i] : &f->in[i];
            hv->mf0 = f->nmfs;
            for (int k = 0; k < hv->nmf; k++) {
                mf_spec *m = &vs[i].mf[k];
                haze__mf *d = &f->mfs[f->nmfs++];
                snprintf(d->name, sizeof d->name, "%s", m->name);
                d->type = m->type;
                d->np = m->type == HAZE__MF_LINEAR ? f->ni + 1 : haze__mf_nparams[m->type];
                d->poff = f->nparams;
                memcpy(f->params + f->nparams, m->p, sizeof(double) * (size_t)d->np);
                f->nparams += d->np;
            }
        }
    }
    /* rules */
    f->nr = ps->nrules;
    if (ps->nr_line && ps->nr != ps->nrules) {
        st = PERR(ps->nr_line, "NumRules=%d but the [Rules] section holds %d rules", ps->nr,
                  ps->nrules);
        goto fail;
    }
    size_t nrr = (size_t)(f->nr ? f->nr : 1);
    f->ante = calloc(nrr * (size_t)f->ni, sizeof(int));
    f->cons = calloc(nrr * (size_t)f->no, sizeof(int));
    f->ante_hedge = calloc(nrr * (size_t)f->ni, sizeof(double));
    f->cons_hedge = calloc(nrr * (size_t)f->no, sizeof(double));
    f->weight = calloc(nrr, sizeof(double));
    f->conn = calloc(nrr, sizeof(int));
    if (!f->ante || !f->cons || !f->ante_hedge || !f->cons_hedge || !f->weight || !f->conn)
        goto nomem;
    for (int r = 0; r < f->nr; r++) {
        rule_spec *rs = &ps->rules[r];
        /* a rule read before the counts were final (sections or NumInputs /
         * NumOutputs after [Rules]) may have a different number of codes */
        if (rs->ncodes != f->ni + f->no) {
            st = PERR(rs->line, "rule %d has %d codes, expected %d (%d inputs, %d outputs)", r + 1,
                      rs->ncodes, f->ni + f->no, f->ni, f->no);
            goto fail;
        }
        for (int j = 0; j < f->ni + f->no; j++) {
            int mf;
            double hedge;
            split_code(rs->codes[j], &mf, &hedge);
            int isout = j >= f->ni;
            int v = isout ? j - f->ni : j;
            const haze__var *hv = isout ? &f->out[v] : &f->in[v];
            if (abs(mf) > hv->nmf) {
                st = PERR(rs->line, "rule %d names MF %d of %s %d '%s', which has %d MFs", r + 1,
                          abs(mf), isout ? "output" : "input", v + 1, hv->name, hv->nmf);
                goto fail;
            }
            if (isout && mf < 0 && f->sugeno)
                haze__warn(&ps->warns, ps->file, rs->line,
                           "rule %d: the negated Sugeno consequent %d of output '%s' has no MATLAB "
                           "meaning; haze gives it Octave's (the rule's degree taken as 1 - w)",
                           r + 1, mf, hv->name);
            if (isout) {
                f->cons[r * f->no + v] = mf;
                f->cons_hedge[r * f->no + v] = hedge;
            } else {
                f->ante[r * f->ni + v] = mf;
                f->ante_hedge[r * f->ni + v] = hedge;
            }
        }
        f->weight[r] = rs->weight;
        f->conn[r] = rs->conn;
    }
    f->mode = HAZE_FIS_MODE_MATLAB;
    f->points = 101;
    f->warns = ps->warns;
    memset(&ps->warns, 0, sizeof ps->warns);
    *out = f;
    return HAZE_OK;
nomem:
    st = haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", ps->file);
fail:
    haze__fis_free(f);
    return st;
}

int haze__fis_read(haze_ctx *ctx, char *buf, const char *file, haze_fis **out) {
    parser P;
    memset(&P, 0, sizeof P);
    parser *ps = &P;
    ps->ctx = ctx;
    ps->file = file;
    int st = HAZE_OK, sec = SEC_NONE, idx = 0, lineno = 0;
    var_spec *cur = NULL;
    char *conv = NULL;
    long bad = 0;
    char *line = haze__text_utf8(buf, &conv, &bad);
    if (!line) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    if (bad) haze__warn(&ps->warns, file, (int)bad, "not UTF-8 text: read as Windows-1252");
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        lineno++;
        char *s = haze__text_trim(line);
        line = nl ? nl + 1 : NULL;
        size_t len = strlen(s);
        if (len && s[len - 1] == '\r') s[--len] = '\0';
        if (!*s || *s == '%' || *s == '#') continue;
        if (*s == '[' && s[len - 1] == ']') {
            /* a section header (a rule line never starts with '[') */
            s[len - 1] = '\0';
            char *name = haze__text_trim(s + 1);
            if (strcmp(name, "System") == 0) {
                sec = SEC_SYSTEM;
            } else if (strcmp(name, "Rules") == 0) {
                sec = SEC_RULES;
            } else if ((strncmp(name, "Input", 5) == 0 && !parse_int(name + 5, &idx)) ||
                       (strncmp(name, "Output", 6) == 0 && !parse_int(name + 6, &idx))) {
                int isout = name[0] == 'O';
                if (idx < 1 || idx > 4096) {
                    st = PERR(lineno, "section number %d out of range", idx);
                    goto done;
                }
                /* MATLAB's readfis takes the k-th input (output) section
                 * as input (output) k, whatever number it is written with */
                int pos = ++ps->nsec[isout];
                if (pos != idx)
                    haze__warn(&ps->warns, file, lineno,
                               "section [%s] is the %s section number %d; taken as %s%d by "
                               "position, as MATLAB reads it",
                               name, isout ? "output" : "input", pos, isout ? "Output" : "Input",
                               pos);
                idx = pos;
                if (idx > 4096) {
                    st = PERR(lineno, "section number %d out of range", idx);
                    goto done;
                }
                if (ensure_var(isout ? &ps->out : &ps->in, isout ? &ps->out_cap : &ps->in_cap,
                               idx - 1)) {
                    st = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
                    goto done;
                }
                cur = isout ? &ps->out[idx - 1] : &ps->in[idx - 1];
                cur->present = 1;
                cur->line = lineno;
                sec = isout ? SEC_OUTPUT : SEC_INPUT;
            } else {
                st = PERR(lineno, "unknown section [%s] (expected System, InputN, OutputN, Rules)",
                          name);
                goto done;
            }
            continue;
        }
        if (sec == SEC_RULES) {
            if (!ps->ni_line || !ps->no_line) {
                /* rules need the counts: take them from the sections so far */
                int ni = ps->ni, no = ps->no;
                if (!ps->ni_line)
                    for (int i = 0; i < ps->in_cap; i++)
                        if (ps->in[i].present) ni = i + 1;
                if (!ps->no_line)
                    for (int i = 0; i < ps->out_cap; i++)
                        if (ps->out[i].present) no = i + 1;
                st = parse_rule(ps, lineno, s, ni, no);
            } else {
                st = parse_rule(ps, lineno, s, ps->ni, ps->no);
            }
            if (st) goto done;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            st = PERR(lineno, "expected 'Key=value', found '%.40s'", s);
            goto done;
        }
        *eq = '\0';
        char *key = haze__text_trim(s), *val = haze__text_trim(eq + 1);
        if (sec == SEC_NONE) {
            st = PERR(lineno, "'%s' before any section (expected [System] first)", key);
            goto done;
        }
        if (sec == SEC_SYSTEM) {
            static const char *const mk[5] = {"AndMethod", "OrMethod", "ImpMethod", "AggMethod",
                                              "DefuzzMethod"};
            int m = lookup(mk, 5, key);
            if (strcmp(key, "Name") == 0) {
                if (unquote(val, ps->sysname, sizeof ps->sysname))
                    st = PERR(lineno, "system name longer than %d characters", HAZE__NAME_MAX - 1);
            } else if (strcmp(key, "Type") == 0) {
                ps->type_line = lineno;
                if (unquote(val, ps->type, sizeof ps->type))
                    st = PERR(lineno, "expected Type='mamdani' or 'sugeno'");
            } else if (strcmp(key, "Version") == 0 || strcmp(key, "DisableStructuredRules") == 0) {
                /* accepted and ignored, as MATLAB does */
            } else if (strcmp(key, "NumInputs") == 0 || strcmp(key, "NumOutputs") == 0 ||
                       strcmp(key, "NumRules") == 0) {
                int v;
                if (parse_int(val, &v)) {
                    st = PERR(lineno, "%s: expected a whole number, found '%s'", key, val);
                } else if (v > 4096 && key[3] != 'R') {
                    /* (rules are as many as the [Rules] section holds: NumRules is only
                     * compared with them, and models with thousands exist) */
                    st = PERR(lineno, "%s: %d is more than 4096, the most haze reads", key, v);
                } else if (key[3] == 'I') {
                    ps->ni = v;
                    ps->ni_line = lineno;
                } else if (key[3] == 'O') {
                    ps->no = v;
                    ps->no_line = lineno;
                } else {
                    ps->nr = v;
                    ps->nr_line = lineno;
                }
            } else if (m >= 0) {
                if (unquote(val, ps->meth[m], sizeof ps->meth[m]))
                    st = PERR(lineno, "%s: value too long", key);
                ps->meth_line[m] = lineno;
            } else {
                st = PERR(lineno, "unknown key '%s' in [System]", key);
            }
            if (st) goto done;
            continue;
        }
        /* [InputN] / [OutputN] */
        if (strcmp(key, "Name") == 0) {
            if (unquote(val, cur->name, sizeof cur->name))
                st = PERR(lineno, "variable name longer than %d characters", HAZE__NAME_MAX - 1);
        } else if (strcmp(key, "Range") == 0) {
            double *v = NULL;
            int n = 0;
            int rc = parse_vector_expr(val, &v, &n);
            if (rc == -2) {
                st = haze__text_error(ctx, HAZE_ERR_NOMEM, file, lineno, 0, "out of memory");
            } else if (rc || n != 2) {
                st = PERR(lineno,
                          "Range: expected [min max], two numbers (or MATLAB expressions of "
                          "numbers, pi, + - * / ^ and parentheses), found '%.60s'",
                          val);
            } else {
                /* min < max is checked once the system type is known */
                cur->lo = v[0];
                cur->hi = v[1];
                cur->has_range = 1;
                cur->range_line = lineno;
            }
            free(v);
        } else if (strcmp(key, "NumMFs") == 0) {
            if (parse_int(val, &cur->nmf))
                st = PERR(lineno, "NumMFs: expected a whole number, found '%s'", val);
            else if (cur->nmf > 4096)
                st = PERR(lineno, "NumMFs: %d is more than 4096, the most haze reads", cur->nmf);
            cur->nmf_line = lineno;
        } else if (strncmp(key, "MF", 2) == 0 && !parse_int(key + 2, &idx) && idx >= 1 &&
                   idx <= 4096) {
            /* MATLAB's readfis takes the k-th MF line of a section as MF k,
             * whatever number it is written with */
            int pos = ++cur->nmf_read;
            if (pos > 4096) {
                st = PERR(lineno, "more than 4096 MF lines in one section");
                goto done;
            }
            if (pos != idx)
                haze__warn(&ps->warns, file, lineno,
                           "MF%d is the MF line number %d of its section; taken as MF%d by "
                           "position, as MATLAB reads it",
                           idx, pos, pos);
            if (ensure_mf(cur, pos - 1)) {
                st = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
                goto done;
            }
            mf_spec *m = &cur->mf[pos - 1];
            st = parse_mf(ps, lineno, val, m);
            if (st) {
                free(m->p);
                memset(m, 0, sizeof *m);
            }
        } else {
            st = PERR(lineno, "unknown key '%s' (expected Name, Range, NumMFs or MFn)", key);
        }
        if (st) goto done;
    }
    if (lineno == 0) {
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s:1: empty file (expected [System])", file);
        goto done;
    }
    st = build(ps, out);
done:
    parser_free(ps);
    free(conv);
    return st;
}
