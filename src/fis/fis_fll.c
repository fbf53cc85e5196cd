/*
 * src/fis/fis_fll.c - reading fuzzylite's .fll engines (FuzzyLite Language,
 * fuzzylite 6.0: fl/imex/FllImporter.cpp documents the format) into haze's
 * inference system, evaluated with fuzzylite's semantics (haze_fis.fl).
 *
 * Supported: InputVariable / OutputVariable / RuleBlock sections with their
 * keys (enabled, range, lock-range, term, aggregation, defuzzifier with its
 * resolution or weighted type, default, conjunction, disjunction,
 * implication, activation and its parameters, rule, lock-previous); the
 * terms listed in fis_model.h plus Constant, Linear and Function (compiled
 * by fis_expr.c); hedges not, very, somewhat, seldom, extremely, any; rules
 * "if A is [h..] t and|or ... then B is [h..] t and ... [with w]", "A is
 * any"; A may be an output variable (a chained engine: the degree its term
 * has reached from the rules triggered before). Not supported, refused
 * naming the line: parentheses and rules that mix "and" with "or",
 * NormalizedSum, rule blocks that disagree on their norms or activation.
 * A term named twice is kept, and rules name the first (fuzzylite's
 * Variable::getTerm), with a warning. Writing (haze__fll_save, at the end):
 * any model as a .fll engine with the meaning it has in FUZZYLITE mode.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/text.h"
#include "fis/fis_read.h"
#include "haze/io.h"

typedef struct fl_term {
    char name[HAZE__NAME_MAX];
    int type, line, np;
    double p[HAZE__FL_MAXP];
    char *fn; /* a Function's expression (compiled in build()), its column */
    int col;
} fl_term;

typedef struct fl_var {
    char name[HAZE__NAME_MAX];
    int line, enabled, lock, wtd, defuzz, agg, res, lockprev;
    double lo, hi, dflt;
    fl_term *t;
    int nt, cap;
} fl_var;

typedef struct fl_rule {
    int line;
    char *text;
} fl_rule;

/* An entry of the table of names: variable var of list k (0 inputs, 1
 * outputs) when term < 0, else that variable's term. */
typedef struct fl_name {
    int used, k, var, term;
} fl_name;

typedef struct fl_parser {
    haze_ctx *ctx;
    const char *file;
    char name[HAZE__NAME_MAX];
    fl_var *v[2]; /* inputs, outputs */
    int nv[2], cv[2];
    int norm[3], norm_line[3]; /* conjunction disjunction implication, -1 unset */
    fl_rule *rules;
    int nr, cr;
    int nprops, cprops, need_props;
    /* the activation method (HAZE__ACT_*) and its parameters; the line of
     * one other than General; rule blocks that have rules */
    int act, act_n, act_cmp, act_line, blocks, block_has_rules;
    double act_thr;
    /* the names of the variables and of their terms, hashed (open
     * addressing, cht a power of 2): an engine of thousands of them would
     * otherwise compare each definition and each use with every one,
     * seconds for 64 KB of text */
    fl_name *ht;
    int nht, cht;
    haze__warns warns;
} fl_parser;

/* Errors at a line of the file: "FILE:LINE: message". */
#define PARSE_ERR(line, ...)                                                                       \
    haze__text_error(ps->ctx, HAZE_ERR_PARSE, ps->file, line, 0, __VA_ARGS__)
#define UNSUP(line, ...)                                                                           \
    haze__text_error(ps->ctx, HAZE_ERR_UNSUPPORTED, ps->file, line, 0, __VA_ARGS__)

/* -1: "none" or empty; -2: unknown */
static int fl_norm(const char *s) {
    if (!*s || strcmp(s, "none") == 0) return -1;
    for (int i = 0; i < HAZE__FL_NORMS; i++)
        if (strcmp(haze__fl_norms[i].name, s) == 0) return haze__fl_norms[i].code;
    return -2;
}

static int fl_hedge(const char *s) {
    for (int i = 1; i <= HAZE__H_ANY; i++)
        if (strcmp(haze__hedge_names[i], s) == 0) return i;
    return 0;
}

/* 1 when s is a number and nothing else. */
static int parse_num(const char *s, double *out) {
    const char *end;
    return haze__text_number(s, &end, out) == HAZE_OK && *end == '\0';
}

static int copy_name(char *dst, const char *src) {
    if (strlen(src) >= HAZE__NAME_MAX) return -1;
    strcpy(dst, src);
    return 0;
}

static void fl_free(fl_parser *ps) {
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < ps->nv[k]; i++) {
            for (int t = 0; t < ps->v[k][i].nt; t++) free(ps->v[k][i].t[t].fn);
            free(ps->v[k][i].t);
        }
        free(ps->v[k]);
    }
    free(ps->rules);
    free(ps->ht);
    haze__warns_free(&ps->warns);
}

static const char *name_of(const fl_parser *ps, const fl_name *e) {
    const fl_var *v = &ps->v[e->k][e->var];
    return e->term < 0 ? v->name : v->t[e->term].name;
}

/* The owner of a name: -1 for a variable (their names are unique over
 * inputs and outputs), 2 var + k for the terms of variable var of list k. */
static int name_owner(const fl_name *e) {
    return e->term < 0 ? -1 : 2 * e->var + e->k;
}

static unsigned name_hash(int owner, const char *s) {
    unsigned h = (2166136261u ^ (unsigned)owner) * 16777619u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static const fl_name *name_find(const fl_parser *ps, int owner, const char *s) {
    if (!ps->cht) return NULL;
    const unsigned mask = (unsigned)ps->cht - 1;
    for (unsigned i = name_hash(owner, s) & mask;; i = (i + 1) & mask) {
        const fl_name *e = &ps->ht[i];
        if (!e->used) return NULL;
        if (name_owner(e) == owner && strcmp(name_of(ps, e), s) == 0) return e;
    }
}

static void name_insert(const fl_parser *ps, fl_name *ht, int cap, fl_name e) {
    const unsigned mask = (unsigned)cap - 1;
    unsigned i = name_hash(name_owner(&e), name_of(ps, &e)) & mask;
    while (ht[i].used) i = (i + 1) & mask;
    ht[i] = e;
}

/* Enters variable var of list k (term -1), or its term, into the table. */
static int name_add(fl_parser *ps, int k, int var, int term) {
    if (2 * (ps->nht + 1) > ps->cht) {
        const int cap = ps->cht ? 2 * ps->cht : 256;
        fl_name *ht = calloc((size_t)cap, sizeof *ht);
        if (!ht) return haze__error(ps->ctx, HAZE_ERR_NOMEM, "out of memory");
        for (int i = 0; i < ps->cht; i++)
            if (ps->ht[i].used) name_insert(ps, ht, cap, ps->ht[i]);
        free(ps->ht);
        ps->ht = ht;
        ps->cht = cap;
    }
    const fl_name e = {1, k, var, term};
    name_insert(ps, ps->ht, ps->cht, e);
    ps->nht++;
    return 0;
}

/* "term: NAME TYPE p1 p2 ..." of variable vi of list k (lstart: where the
 * line starts, for columns); the caller enters the name in the table */
static int parse_term(fl_parser *ps, int k, int vi, int line, const char *lstart, char *val) {
    fl_var *v = &ps->v[k][vi];
    char *save = NULL, *name = strtok_r(val, " \t", &save), *type = strtok_r(NULL, " \t", &save);
    if (!name || !type) return PARSE_ERR(line, "expected 'term: NAME TYPE PARAMETERS'");
    if (v->nt == v->cap) {
        int cap = v->cap ? 2 * v->cap : 8;
        fl_term *t = realloc(v->t, sizeof *t * (size_t)cap);
        if (!t) return haze__error(ps->ctx, HAZE_ERR_NOMEM, "out of memory");
        v->t = t;
        v->cap = cap;
    }
    fl_term *t = &v->t[v->nt];
    memset(t, 0, sizeof *t);
    t->line = line;
    if (copy_name(t->name, name)) return PARSE_ERR(line, "term name too long");
    /* fuzzylite keeps both terms and names the first (Variable::getTerm):
     * the second is never used by a rule; the caller leaves it out of the
     * table of names */
    if (name_find(ps, 2 * vi + k, name))
        haze__warn(&ps->warns, ps->file, line,
                   "term '%s' of '%s' defined twice; rules name the first, as in fuzzylite", name,
                   v->name);
    int ty = -1;
    if (strcmp(type, "Constant") == 0)
        ty = HAZE__MF_CONSTANT;
    else if (strcmp(type, "Linear") == 0)
        ty = HAZE__MF_LINEAR;
    else
        for (int i = HAZE__MF_LINEAR + 1; i < HAZE__MF_COUNT; i++)
            if (strcmp(haze__mf_names[i], type) == 0) ty = i;
    if (ty < 0)
        return PARSE_ERR(line, "unknown term type '%s' (expected Triangle, Trapezoid, ...)", type);
    t->type = ty;
    if (ty == HAZE__MF_FL_FUNCTION) {
        /* the rest of the line is the expression; it is compiled once all
         * variables are known (it may name outputs defined further down) */
        char *expr = save ? haze__text_trim(save) : NULL;
        if (!expr || !*expr) return PARSE_ERR(line, "Function term '%s' needs an expression", name);
        t->fn = malloc(strlen(expr) + 1);
        if (!t->fn) return haze__error(ps->ctx, HAZE_ERR_NOMEM, "out of memory");
        strcpy(t->fn, expr);
        t->col = (int)(expr - lstart) + 1;
        return v->nt++, 0;
    }
    double vals[HAZE__FL_MAXP];
    int n = 0;
    for (char *tok; (tok = strtok_r(NULL, " \t", &save));) {
        if (n >= HAZE__FL_MAXP - 2) return UNSUP(line, "term '%s' has too many parameters", name);
        if (!parse_num(tok, &vals[n])) return PARSE_ERR(line, "'%s' is not a number", tok);
        n++;
    }
    if (ty == HAZE__MF_CONSTANT || ty == HAZE__MF_LINEAR) {
        if (ty == HAZE__MF_CONSTANT && n != 1)
            return PARSE_ERR(line, "Constant term '%s' needs 1 parameter, got %d", name, n);
        memcpy(t->p, vals, sizeof(double) * (size_t)n);
        t->np = n;
        return v->nt++, 0;
    }
    if (ty == HAZE__MF_FL_DISCRETE) {
        int pairs = n / 2;
        if (pairs < 1) return PARSE_ERR(line, "Discrete term '%s' needs x y pairs", name);
        t->p[0] = pairs;
        memcpy(t->p + 1, vals, sizeof(double) * (size_t)(2 * pairs));
        /* fuzzylite sorts the pairs by x (Discrete::sort), stably */
        for (int a = 1; a < pairs; a++)
            for (int b = a; b > 0 && t->p[1 + 2 * b] < t->p[1 + 2 * (b - 1)]; b--) {
                double x = t->p[1 + 2 * b], y = t->p[2 + 2 * b];
                t->p[1 + 2 * b] = t->p[1 + 2 * (b - 1)];
                t->p[2 + 2 * b] = t->p[2 + 2 * (b - 1)];
                t->p[1 + 2 * (b - 1)] = x;
                t->p[2 + 2 * (b - 1)] = y;
            }
        t->p[1 + 2 * pairs] = n % 2 ? vals[n - 1] : 1.0;
        t->np = 2 + 2 * pairs;
        return v->nt++, 0;
    }
    int need = haze__mf_nparams[ty];
    if (n < need || n > need + 1)
        return PARSE_ERR(line, "%s term '%s' needs %d parameters (and an optional height), got %d",
                         type, name, need, n);
    memcpy(t->p, vals, sizeof(double) * (size_t)n);
    t->p[need] = n > need ? vals[need] : 1.0;
    t->np = need + 1;
    v->nt++;
    return 0;
}

static int parse_defuzzifier(fl_parser *ps, fl_var *v, int line, char *val) {
    char *save = NULL, *name = strtok_r(val, " \t", &save), *arg = strtok_r(NULL, " \t", &save);
    static const char *const integral[] = {"Centroid", "Bisector", "MeanOfMaximum",
                                           "SmallestOfMaximum", "LargestOfMaximum"};
    static const int icode[] = {HAZE__D_CENTROID, HAZE__D_BISECTOR, HAZE__D_MOM, HAZE__D_SOM,
                                HAZE__D_LOM};
    if (!name) return PARSE_ERR(line, "expected a defuzzifier");
    for (int i = 0; i < 5; i++)
        if (strcmp(name, integral[i]) == 0) {
            v->wtd = 0;
            v->defuzz = icode[i];
            v->res = 100; /* IntegralDefuzzifier's default resolution */
            if (arg) {
                double r;
                if (!parse_num(arg, &r) || r < 1 || r > 1000000 || r != floor(r))
                    return PARSE_ERR(line, "resolution '%s' is not a whole number in 1..1e6", arg);
                v->res = (int)r;
            }
            return 0;
        }
    if (strcmp(name, "WeightedAverage") == 0 || strcmp(name, "WeightedSum") == 0) {
        v->defuzz = name[8] == 'A' ? HAZE__D_WTAVER : HAZE__D_WTSUM;
        v->wtd = 1;
        if (arg && strcmp(arg, "TakagiSugeno") == 0)
            v->wtd = 2;
        else if (arg && strcmp(arg, "Automatic") != 0 && strcmp(arg, "Tsukamoto") != 0)
            return PARSE_ERR(line, "weighted defuzzifier type '%s' unknown", arg);
        return 0;
    }
    return PARSE_ERR(line, "unknown defuzzifier '%s' (expected Centroid, Bisector, ...)", name);
}

static fl_var *find_var(fl_parser *ps, int k, const char *name, int *idx) {
    const fl_name *e = name_find(ps, -1, name);
    if (!e || e->k != k) return NULL;
    *idx = e->var;
    return &ps->v[k][e->var];
}

/* Term `name` of variable vi of list k, or -1. */
static int find_term(const fl_parser *ps, int k, int vi, const char *name) {
    const fl_name *e = name_find(ps, 2 * vi + k, name);
    return e ? e->term : -1;
}

/* One proposition "VAR is [hedges] TERM" from the token list; returns the
 * number of tokens used or a negative status. chain: the hedges in the
 * order they apply (the last written first). */
static int proposition(fl_parser *ps, int line, char **tok, int ntok, int k, int *var, int *term,
                       int *chain) {
    if (ntok < 3 || strcmp(tok[1], "is") != 0)
        return PARSE_ERR(line, "expected 'VARIABLE is [HEDGE..] TERM' at '%s'",
                         ntok ? tok[0] : "end of rule");
    int vk = k, vi = -1;
    fl_var *v = find_var(ps, k, tok[0], &vi);
    if (!v && k == 0 && (v = find_var(ps, 1, tok[0], &vi))) vk = 1; /* chained */
    *var = vk ? vi + (k == 0 ? ps->nv[0] : 0) : vi;
    if (!v) {
        int dummy;
        if (find_var(ps, 0, tok[0], &dummy))
            return PARSE_ERR(line, "'%s' is an input, expected an output", tok[0]);
        return PARSE_ERR(line, "unknown variable '%s'", tok[0]);
    }
    int i = 2, hedges[HAZE__H_MAX], nh = 0;
    /* hedge names come first, as in fuzzylite's Antecedent::load: a term
     * named like a hedge cannot be used in a rule */
    while (i < ntok && fl_hedge(tok[i])) {
        if (nh == HAZE__H_MAX) return UNSUP(line, "more than %d hedges", HAZE__H_MAX);
        hedges[nh++] = fl_hedge(tok[i++]);
    }
    *chain = 0;
    for (int h = 0; h < nh; h++) *chain |= hedges[h] << (3 * (nh - 1 - h));
    if (nh && hedges[nh - 1] == HAZE__H_ANY &&
        (i >= ntok || strcmp(tok[i], "and") == 0 || strcmp(tok[i], "or") == 0 ||
         strcmp(tok[i], ")") == 0)) {
        /* "VAR is [HEDGE..] any": no term; any gives 1 whatever the value
         * (fuzzylite's Antecedent applies the hedges to Any's 1) */
        *term = -1;
        return i;
    }
    if (i >= ntok) return PARSE_ERR(line, "expected a term of '%s'", tok[0]);
    *term = find_term(ps, vk, vi, tok[i]);
    if (*term < 0) return PARSE_ERR(line, "'%s' has no term '%s'", tok[0], tok[i]);
    return i + 1;
}

static int chain_len(int c) {
    int n = 0;
    for (; c; c >>= 3) n++;
    return n;
}

/* Appends a (variable, term, chain) triple to the propositions; variable
 * HAZE__FL_AND / HAZE__FL_OR for an operator. */
static int push_prop(fl_parser *ps, haze_fis *f, int var, int term, int chain) {
    if (ps->nprops == ps->cprops) {
        int cap = ps->cprops ? 2 * ps->cprops : 64;
        int *np = realloc(f->props, sizeof(int) * 3 * (size_t)cap);
        if (!np) return haze__error(ps->ctx, HAZE_ERR_NOMEM, "out of memory");
        f->props = np;
        ps->cprops = cap;
    }
    f->props[3 * ps->nprops] = var;
    f->props[3 * ps->nprops + 1] = term;
    f->props[3 * ps->nprops + 2] = chain;
    ps->nprops++;
    return 0;
}

/* Moves the operator on top of the stack ops[0..*nops) to the postfix
 * output; it takes two degrees off the evaluation stack and puts one back. */
static int pop_op(fl_parser *ps, haze_fis *f, const int *ops, int *nops, int *depth) {
    (*depth)--;
    return push_prop(ps, f, ops[--*nops], 0, 0);
}

static int parse_rule(fl_parser *ps, haze_fis *f, int r, const fl_rule *fr) {
    const int line = fr->line;
    char *tok[512];
    int nt = 0;
    char *save = NULL;
    /* parentheses are tokens of their own: "(a is x" -> "(", "a", "is", "x" */
    char buf[4 * 1024];
    size_t bl = 0;
    for (const char *c = fr->text; *c; c++) {
        if (bl + 4 >= sizeof buf) return UNSUP(line, "rule too long");
        if (*c == '(' || *c == ')') {
            buf[bl++] = ' ';
            buf[bl++] = *c;
            buf[bl++] = ' ';
        } else {
            buf[bl++] = *c;
        }
    }
    buf[bl] = 0;
    for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (nt == 512) return UNSUP(line, "rule too long");
        tok[nt++] = t;
    }
    if (nt < 1 || strcmp(tok[0], "if") != 0) return PARSE_ERR(line, "a rule starts with 'if'");
    int then = -1, with = nt;
    for (int i = 1; i < nt; i++)
        if (strcmp(tok[i], "then") == 0 && then < 0) then = i;
    if (then < 0) return PARSE_ERR(line, "expected 'then' in the rule");
    for (int i = then + 1; i < nt; i++)
        if (strcmp(tok[i], "with") == 0) with = i;
    f->weight[r] = 1.0;
    if (with < nt) {
        if (with != nt - 2 || !parse_num(tok[nt - 1], &f->weight[r]))
            return PARSE_ERR(line, "expected 'with WEIGHT' at the end of the rule");
    }
    /* The antecedent to postfix (shunting-yard), as fuzzylite's
     * Antecedent::load: 'and' binds tighter than 'or', both associate to the
     * left, parentheses group. A rule of one connective and no parentheses
     * also fills the antecedent table (the fast path); any other needs the
     * proposition lists, which every rule then evaluates. */
    int conn = 0, mixed = 0, parens = 0, depth = 0, maxdepth = 0, nops = 0, expect = 1;
    int ops[256];
    f->prop_off[r] = ps->nprops;
    for (int i = 1; i < then;) {
        if (strcmp(tok[i], "(") == 0) {
            if (!expect) return PARSE_ERR(line, "expected 'and', 'or' or 'then' at '('");
            if (nops == 256) return UNSUP(line, "rule too deeply nested");
            ops[nops++] = 0;
            parens = 1;
            i++;
            continue;
        }
        if (strcmp(tok[i], ")") == 0) {
            if (expect) return PARSE_ERR(line, "expected a proposition before ')'");
            while (nops > 0 && ops[nops - 1] != 0) {
                int s2 = pop_op(ps, f, ops, &nops, &depth);
                if (s2) return s2;
            }
            if (nops == 0) return PARSE_ERR(line, "')' without '('");
            nops--;
            i++;
            continue;
        }
        if (!expect) {
            int c = strcmp(tok[i], "and") == 0 ? 1 : (strcmp(tok[i], "or") == 0 ? 2 : 0);
            if (!c) return PARSE_ERR(line, "expected 'and', 'or' or 'then' at '%s'", tok[i]);
            if (conn && c != conn) mixed = 1;
            conn = c;
            const int op = c == 1 ? HAZE__FL_AND : HAZE__FL_OR;
            /* pop operators of higher or equal precedence (left association) */
            while (nops > 0 && ops[nops - 1] != 0 &&
                   (ops[nops - 1] == HAZE__FL_AND || op == HAZE__FL_OR)) {
                int s2 = pop_op(ps, f, ops, &nops, &depth);
                if (s2) return s2;
            }
            if (nops == 256) return UNSUP(line, "rule too long");
            ops[nops++] = op;
            expect = 1;
            i++;
            if (i >= then) return PARSE_ERR(line, "expected a proposition after '%s'", tok[i - 1]);
            continue;
        }
        int var, term, chain;
        int used = proposition(ps, line, tok + i, then - i, 0, &var, &term, &chain);
        if (used < 0) return used;
        int s2 = push_prop(ps, f, var, term + 1, chain);
        if (s2) return s2;
        if (++depth > maxdepth) maxdepth = depth;
        /* an output, an input named twice or "is any" needs the
         * proposition lists */
        if (var >= f->ni || term < 0 || f->ante[r * f->ni + var] != 0) {
            ps->need_props = 1;
        } else {
            f->ante[r * f->ni + var] = term + 1;
            f->ante_fl[r * f->ni + var] = chain;
        }
        i += used;
        expect = 0;
    }
    if (then == 1) return PARSE_ERR(line, "expected a proposition after 'if'");
    if (expect) return PARSE_ERR(line, "expected a proposition before 'then'");
    while (nops > 0) {
        if (ops[nops - 1] == 0) return PARSE_ERR(line, "'(' without ')'");
        int s2 = pop_op(ps, f, ops, &nops, &depth);
        if (s2) return s2;
    }
    if (maxdepth > HAZE__FL_STACK)
        return UNSUP(line, "a rule nested deeper than %d propositions", HAZE__FL_STACK);
    if (mixed || parens) ps->need_props = 1;
    f->conn[r] = conn ? conn : 1;
    f->prop_off[r + 1] = ps->nprops;
    /* conclusions: fuzzylite hedges the degree cumulatively from one
     * conclusion to the next (Consequent::modify), so each keeps the chain of
     * the ones before it */
    int run = 0, runlen = 0;
    for (int i = then + 1; i < with;) {
        int var, term, chain;
        int used = proposition(ps, line, tok + i, with - i, 1, &var, &term, &chain);
        if (used < 0) return used;
        if (term < 0) return PARSE_ERR(line, "a conclusion needs a term, not 'any'");
        if (f->cons[r * f->no + var] != 0)
            return UNSUP(line, "output '%s' appears twice in one rule", f->out[var].name);
        int cl = chain_len(chain);
        if (runlen + cl > HAZE__H_MAX) return UNSUP(line, "too many hedges in the conclusions");
        run |= chain << (3 * runlen);
        runlen += cl;
        f->cons[r * f->no + var] = term + 1;
        f->cons_fl[r * f->no + var] = run;
        i += used;
        if (i < with) {
            if (strcmp(tok[i], "and") != 0)
                return PARSE_ERR(line, "expected 'and' at '%s'", tok[i]);
            i++;
            if (i >= with) return PARSE_ERR(line, "expected a conclusion after 'and'");
        }
    }
    if (with == then + 1) return PARSE_ERR(line, "expected a conclusion after 'then'");
    return 0;
}

/* "activation: NAME [PARAMETERS]" with fuzzylite's parameters: First and
 * Last: rules and threshold (both or neither: 1 and 0); Highest and Lowest:
 * rules (required, as fuzzylite); Threshold: comparison and threshold (both
 * or neither: >= 0). */
static int parse_activation(fl_parser *ps, int line, char *val) {
    static const char *const names[] = {"General", "First",        "Last",     "Highest",
                                        "Lowest",  "Proportional", "Threshold"};
    static const char *const cmps[] = {"<", "<=", "==", "!=", ">=", ">"};
    char *save = NULL, *name = strtok_r(val, " \t", &save);
    char *a = strtok_r(NULL, " \t", &save), *b = strtok_r(NULL, " \t", &save);
    if (!name || strcmp(name, "none") == 0) return 0; /* fuzzylite then runs none; haze General */
    int act = -1;
    for (int i = 0; i < 7; i++)
        if (strcmp(name, names[i]) == 0) act = i;
    if (act < 0)
        return PARSE_ERR(line,
                         "unknown activation '%s' (expected General, First, Last, Highest, "
                         "Lowest, Proportional or Threshold)",
                         name);
    int n = 1, cmp = HAZE__CMP_GE;
    double thr = 0.0, v;
    const int want = act == HAZE__ACT_GENERAL || act == HAZE__ACT_PROPORTIONAL ? 0
                     : act == HAZE__ACT_HIGHEST || act == HAZE__ACT_LOWEST     ? 1
                                                                               : 2;
    if ((want == 0 && a) || (want == 1 && (!a || b)) || (want == 2 && a && !b) ||
        strtok_r(NULL, " \t", &save))
        return PARSE_ERR(line, "activation %s takes %s", name,
                         want == 0   ? "no parameters"
                         : want == 1 ? "one parameter: the number of rules"
                         : act == HAZE__ACT_THRESHOLD
                             ? "two parameters: a comparison (<, <=, ==, !=, >=, >) and a threshold"
                             : "two parameters: the number of rules and a threshold");
    if (act == HAZE__ACT_THRESHOLD && a) {
        cmp = -1;
        for (int i = 0; i < 6; i++)
            if (strcmp(a, cmps[i]) == 0) cmp = i;
        if (cmp < 0)
            return PARSE_ERR(line, "unknown comparison '%s' (expected <, <=, ==, !=, >=, >)", a);
        if (!parse_num(b, &thr)) return PARSE_ERR(line, "threshold '%s' is not a number", b);
    } else if (a) {
        /* fuzzylite reads the number of rules as a number cast to int */
        if (!parse_num(a, &v) || !(fabs(v) < 1e9))
            return PARSE_ERR(line, "number of rules '%s' is not a number", a);
        n = (int)v;
        if (b && !parse_num(b, &thr)) return PARSE_ERR(line, "threshold '%s' is not a number", b);
    }
    if (ps->act_line &&
        (ps->act != act || ps->act_n != n || ps->act_cmp != cmp || ps->act_thr != thr))
        return UNSUP(line,
                     "rule blocks with different activations (here %s, line %d another) "
                     "are not supported",
                     name, ps->act_line);
    if (act == HAZE__ACT_GENERAL && !ps->act_line) return 0;
    ps->act = act;
    ps->act_n = n;
    ps->act_cmp = cmp;
    ps->act_thr = thr;
    ps->act_line = line;
    return 0;
}

/* A Function term's variables: names[k ni + i] in build(), found through
 * the parser's table of names. */
typedef struct fn_names {
    const fl_parser *ps;
    int ni;
} fn_names;

static int fn_lookup(const void *ud, const char *name) {
    const fn_names *n = (const fn_names *)ud;
    const fl_name *e = name_find(n->ps, -1, name);
    return e ? e->k * n->ni + e->var : -1;
}

/* Compiles Function term tm of variable i (k: 0 input, 1 output), checking
 * that the variables it names have their values when fuzzylite evaluates
 * it: inputs always; outputs only in a weighted output after them (fuzzylite
 * defuzzifies outputs in order; an output named earlier, or in an input or
 * a Mamdani output's set, would carry the previous evaluation's value). */
static int compile_fn(fl_parser *ps, const haze_fis *f, const char *const *names, int k, int i,
                      const fl_var *v, fl_term *tm) {
    char err[256];
    int maxvar;
    const fn_names fn = {ps, f->ni};
    int col = haze__fn_compile_lookup(tm->fn, fn_lookup, &fn, tm->p, HAZE__FL_MAXP, &maxvar, err,
                                      sizeof err);
    if (col)
        return haze__text_error(ps->ctx, HAZE_ERR_PARSE, ps->file, tm->line, tm->col + col - 1,
                                "Function term '%s': %s", tm->name, err);
    tm->np = (int)tm->p[0] + 2;
    if (k == 0 && maxvar >= f->ni)
        return UNSUP(tm->line,
                     "Function term '%s' of input '%s' names output '%s', whose value is not "
                     "known when inputs are fuzzified",
                     tm->name, v->name, names[maxvar]);
    if (k == 1 && !v->wtd && maxvar >= 0)
        return UNSUP(tm->line,
                     "Function term '%s' of Mamdani output '%s' names '%s': only x is supported "
                     "in an output's fuzzy set",
                     tm->name, v->name, names[maxvar]);
    if (k == 1 && maxvar >= f->ni + i)
        return UNSUP(tm->line,
                     "Function term '%s' of output '%s' names output '%s', which is not computed "
                     "before it",
                     tm->name, v->name, names[maxvar]);
    return HAZE_OK;
}

static int build(fl_parser *ps, haze_fis **out) {
    haze_ctx *ctx = ps->ctx;
    int st = HAZE_OK;
    const char **names = NULL;
    haze_fis *f = calloc(1, sizeof *f);
    if (!f) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    snprintf(f->name, sizeof f->name, "%s", ps->name);
    f->fl = 1;
    f->ni = ps->nv[0];
    f->no = ps->nv[1];
    if (f->ni < 1 || f->no < 1) {
        st = PARSE_ERR(1, "the engine needs at least one InputVariable and one OutputVariable");
        goto fail;
    }
    f->and_m = ps->norm[0] >= 0 ? ps->norm[0] : HAZE__N_MIN;
    f->or_m = ps->norm[1] >= 0 ? ps->norm[1] : HAZE__N_MAX;
    f->imp_m = ps->norm[2] >= 0 ? ps->norm[2] : HAZE__N_MIN;
    f->agg_m = HAZE__N_MAX;
    f->defuzz_m = HAZE__D_CENTROID;
    f->in = calloc((size_t)f->ni, sizeof *f->in);
    f->out = calloc((size_t)f->no, sizeof *f->out);
    if (!f->in || !f->out) goto nomem;
    int nmfs = 0, nparams = 0, allwtd = 1;
    /* the names a Function term may use: inputs, then outputs */
    names = malloc(sizeof *names * (size_t)(f->ni + f->no));
    if (!names) goto nomem;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < ps->nv[k]; i++) names[k * f->ni + i] = ps->v[k][i].name;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < ps->nv[k]; i++) {
            fl_var *v = &ps->v[k][i];
            if (!v->enabled) {
                st = UNSUP(v->line, "disabled variables are not supported");
                goto fail;
            }
            if (v->nt == 0 && k == 1) {
                st = PARSE_ERR(v->line, "output '%s' has no terms", v->name);
                goto fail;
            }
            if (k == 1 && !v->wtd && v->agg < 0) {
                st = PARSE_ERR(v->line, "output '%s' needs an aggregation for its defuzzifier",
                               v->name);
                goto fail;
            }
            if (k == 1) allwtd &= v->wtd != 0;
            for (int t = 0; t < v->nt; t++) {
                fl_term *tm = &v->t[t];
                if ((tm->type == HAZE__MF_CONSTANT || tm->type == HAZE__MF_LINEAR) &&
                    (k == 0 || !v->wtd)) {
                    st = UNSUP(tm->line,
                               "%s terms are only supported in outputs with a weighted "
                               "defuzzifier",
                               haze__mf_names[tm->type]);
                    goto fail;
                }
                if (tm->type == HAZE__MF_FL_FUNCTION &&
                    (st = compile_fn(ps, f, names, k, i, v, tm)))
                    goto fail;
                if (tm->type == HAZE__MF_LINEAR) {
                    if (tm->np > f->ni + 1) {
                        st = PARSE_ERR(tm->line, "Linear term has %d coefficients for %d inputs",
                                       tm->np, f->ni);
                        goto fail;
                    }
                    /* fuzzylite: missing coefficients count 0, the constant
                     * is the one after the inputs' coefficients */
                    tm->np = f->ni + 1;
                }
                nparams += tm->np;
            }
            nmfs += v->nt;
        }
    f->sugeno = allwtd;
    f->mfs = calloc((size_t)nmfs, sizeof *f->mfs);
    f->params = calloc((size_t)nparams, sizeof(double));
    if (!f->mfs || !f->params) goto nomem;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < ps->nv[k]; i++) {
            fl_var *v = &ps->v[k][i];
            haze__var *hv = k ? &f->out[i] : &f->in[i];
            snprintf(hv->name, sizeof hv->name, "%s", v->name);
            hv->lo = v->lo;
            hv->hi = v->hi;
            hv->nmf = v->nt;
            hv->mf0 = f->nmfs;
            hv->lock = v->lock;
            hv->wtd = v->wtd;
            hv->defuzz = v->defuzz;
            hv->agg = v->agg; /* -1: none (weighted outputs) */
            hv->res = v->res;
            hv->dflt = v->dflt;
            hv->lockprev = v->lockprev;
            f->lockprev |= v->lockprev;
            for (int t = 0; t < v->nt; t++) {
                haze__mf *m = &f->mfs[f->nmfs++];
                snprintf(m->name, sizeof m->name, "%s", v->t[t].name);
                m->type = v->t[t].type;
                m->np = v->t[t].np;
                m->poff = f->nparams;
                memcpy(f->params + f->nparams, v->t[t].p, sizeof(double) * (size_t)m->np);
                f->nparams += m->np;
            }
        }
    f->nr = ps->nr;
    size_t nrr = (size_t)(f->nr ? f->nr : 1);
    f->ante = calloc(nrr * (size_t)f->ni, sizeof(int));
    f->cons = calloc(nrr * (size_t)f->no, sizeof(int));
    f->ante_hedge = calloc(nrr * (size_t)f->ni, sizeof(double));
    f->cons_hedge = calloc(nrr * (size_t)f->no, sizeof(double));
    f->ante_fl = calloc(nrr * (size_t)f->ni, sizeof(int));
    f->cons_fl = calloc(nrr * (size_t)f->no, sizeof(int));
    f->weight = calloc(nrr, sizeof(double));
    f->conn = calloc(nrr, sizeof(int));
    f->prop_off = calloc(nrr + 1, sizeof(int));
    if (!f->ante || !f->cons || !f->ante_hedge || !f->cons_hedge || !f->ante_fl || !f->cons_fl ||
        !f->weight || !f->conn || !f->prop_off)
        goto nomem;
    for (int r = 0; r < f->nr; r++)
        if ((st = parse_rule(ps, f, r, &ps->rules[r]))) goto fail;
    if (!ps->need_props) { /* the antecedent codes say it all */
        free(f->props);
        free(f->prop_off);
        f->props = f->prop_off = NULL;
    }
    f->act = ps->act;
    f->act_n = ps->act_n;
    f->act_cmp = ps->act_cmp;
    f->act_thr = ps->act_thr;
    f->mode = HAZE_FIS_MODE_FUZZYLITE;
    f->points = 100;
    free(names);
    f->warns = ps->warns;
    memset(&ps->warns, 0, sizeof ps->warns);
    *out = f;
    return HAZE_OK;
nomem:
    st = haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", ps->file);
fail:
    free(names);
    haze__fis_free(f);
    return st;
}

int haze__fll_read(haze_ctx *ctx, char *buf, const char *file, haze_fis **out) {
    fl_parser P;
    memset(&P, 0, sizeof P);
    fl_parser *ps = &P;
    ps->ctx = ctx;
    ps->file = file;
    for (int i = 0; i < 3; i++) ps->norm[i] = -1;
    int st = HAZE_OK, lineno = 0, sec = 0; /* 0 none/engine, 1 input, 2 output, 3 rule block */
    int blk_enabled = 1, blk_norm[3] = {-1, -1, -1};
    fl_var *cur = NULL;
    int cur_k = 0, cur_i = 0; /* cur is variable cur_i of list cur_k */
    char *conv = NULL;
    long bad = 0;
    char *next = haze__text_utf8(buf, &conv, &bad);
    if (!next) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    if (bad) haze__warn(&ps->warns, file, (int)bad, "not UTF-8 text: read as Windows-1252");
    while (next && *next) {
        char *line = next;
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = haze__text_trim(line);
        if (!*s) continue;
        char *colon = strchr(s, ':');
        if (!colon) {
            st = PARSE_ERR(lineno, "expected 'key: value'");
            goto done;
        }
        *colon = '\0';
        char *key = haze__text_trim(s), *val = haze__text_trim(colon + 1);
        if (strcmp(key, "Engine") == 0) {
            haze__text_copy_cut(ps->name, sizeof ps->name, val);
            sec = 0;
        } else if (strcmp(key, "InputVariable") == 0 || strcmp(key, "OutputVariable") == 0) {
            int k = key[0] == 'O';
            if (name_find(ps, -1, val)) {
                st = PARSE_ERR(lineno, "variable '%s' defined twice", val);
                goto done;
            }
            if (ps->nv[k] == ps->cv[k]) {
                int cap = ps->cv[k] ? 2 * ps->cv[k] : 8;
                fl_var *nv = realloc(ps->v[k], sizeof *nv * (size_t)cap);
                if (!nv) {
                    st = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
                    goto done;
                }
                ps->v[k] = nv;
                ps->cv[k] = cap;
            }
            cur = &ps->v[k][ps->nv[k]++];
            memset(cur, 0, sizeof *cur);
            if (!*val || copy_name(cur->name, val)) {
                st = PARSE_ERR(lineno, "expected a variable name (at most %d characters)",
                               HAZE__NAME_MAX - 1);
                goto done;
            }
            cur_k = k;
            cur_i = ps->nv[k] - 1;
            if ((st = name_add(ps, k, cur_i, -1))) goto done;
            cur->line = lineno;
            cur->enabled = 1;
            cur->lo = 0.0;
            cur->hi = 1.0;
            cur->agg = -1;
            cur->dflt = NAN;
            cur->defuzz = HAZE__D_CENTROID;
            cur->res = 100;
            sec = k ? 2 : 1;
        } else if (strcmp(key, "RuleBlock") == 0) {
            sec = 3;
            ps->block_has_rules = 0;
            blk_enabled = 1;
            for (int i = 0; i < 3; i++) blk_norm[i] = -1;
        } else if (strcmp(key, "description") == 0) {
            /* ignored */
        } else if (strcmp(key, "enabled") == 0 && sec) {
            int on = strcmp(val, "true") == 0;
            if (!on && strcmp(val, "false") != 0) {
                st = PARSE_ERR(lineno, "expected 'true' or 'false'");
                goto done;
            }
            if (sec == 3)
                blk_enabled = on;
            else
                cur->enabled = on;
        } else if ((sec == 1 || sec == 2) && strcmp(key, "range") == 0) {
            char *save = NULL, *a = strtok_r(val, " \t", &save), *b = strtok_r(NULL, " \t", &save);
            if (!a || !b || strtok_r(NULL, " \t", &save) || !parse_num(a, &cur->lo) ||
                !parse_num(b, &cur->hi)) {
                st = PARSE_ERR(lineno, "expected 'range: MIN MAX'");
                goto done;
            }
        } else if ((sec == 1 || sec == 2) && strcmp(key, "lock-range") == 0) {
            cur->lock = strcmp(val, "true") == 0;
            if (!cur->lock && strcmp(val, "false") != 0) {
                st = PARSE_ERR(lineno, "expected 'true' or 'false'");
                goto done;
            }
        } else if ((sec == 1 || sec == 2) && strcmp(key, "term") == 0) {
            if ((st = parse_term(ps, cur_k, cur_i, lineno, line, val))) goto done;
            const fl_term *nt = &cur->t[cur->nt - 1];
            if (!name_find(ps, 2 * cur_i + cur_k, nt->name) &&
                (st = name_add(ps, cur_k, cur_i, cur->nt - 1)))
                goto done;
        } else if (sec == 2 &&
                   (strcmp(key, "aggregation") == 0 || strcmp(key, "accumulation") == 0)) {
            /* accumulation: fuzzylite 5's name, which fuzzylite 6 still reads */
            cur->agg = fl_norm(val);
            if (cur->agg == -2 || (cur->agg >= 0 && cur->agg < HAZE__N_MAX)) {
                st = strcmp(val, "NormalizedSum") == 0
                         ? UNSUP(lineno, "NormalizedSum aggregation is not supported")
                         : PARSE_ERR(lineno, "'%s' is not an s-norm (Maximum, AlgebraicSum, ...)",
                                     val);
                goto done;
            }
        } else if (sec == 2 && strcmp(key, "defuzzifier") == 0) {
            if ((st = parse_defuzzifier(ps, cur, lineno, val))) goto done;
        } else if (sec == 2 && strcmp(key, "default") == 0) {
            if (!parse_num(val, &cur->dflt)) {
                st = PARSE_ERR(lineno, "expected a number (or nan) for the default");
                goto done;
            }
        } else if (sec == 2 &&
                   (strcmp(key, "lock-previous") == 0 || strcmp(key, "lock-valid") == 0)) {
            /* lock-valid: fuzzylite 5's name, read by fuzzylite 6 too */
            cur->lockprev = strcmp(val, "true") == 0;
            if (!cur->lockprev && strcmp(val, "false") != 0) {
                st = PARSE_ERR(lineno, "expected 'true' or 'false'");
                goto done;
            }
        } else if (sec == 3 &&
                   (strcmp(key, "conjunction") == 0 || strcmp(key, "disjunction") == 0 ||
                    strcmp(key, "implication") == 0 ||
                    (strcmp(key, "activation") == 0 && fl_norm(val) >= 0 &&
                     fl_norm(val) < HAZE__N_MAX))) {
            /* "activation: <t-norm>" is fuzzylite 5's implication, and
             * fuzzylite 6 reads it so; its other activations are methods */
            int which = key[0] == 'c' ? 0 : (key[0] == 'd' ? 1 : 2);
            int c = fl_norm(val);
            int tnorm = which != 1;
            if (c == -2 || (c >= 0 && (tnorm ? c >= HAZE__N_MAX : c < HAZE__N_MAX))) {
                st = PARSE_ERR(lineno, "'%s' is not a %s", val,
                               tnorm ? "t-norm (Minimum, AlgebraicProduct, ...)"
                                     : "s-norm (Maximum, AlgebraicSum, ...)");
                goto done;
            }
            blk_norm[which] = c;
            if (c >= 0 && blk_enabled) {
                if (ps->norm[which] >= 0 && ps->norm[which] != c) {
                    st = UNSUP(lineno,
                               "rule blocks with different %ss (here %s, line %d another) "
                               "are not supported",
                               which == 0   ? "conjunction"
                               : which == 1 ? "disjunction"
                                            : "implication",
                               val, ps->norm_line[which]);
                    goto done;
                }
                ps->norm[which] = c;
                ps->norm_line[which] = lineno;
            }
        } else if (sec == 3 && strcmp(key, "activation") == 0) {
            if (blk_enabled && (st = parse_activation(ps, lineno, val))) goto done;
        } else if (sec == 3 && strcmp(key, "rule") == 0) {
            if (!blk_enabled) continue;
            if (!ps->block_has_rules) ps->blocks++;
            ps->block_has_rules = 1;
            if (ps->nr == ps->cr) {
                int cap = ps->cr ? 2 * ps->cr : 16;
                fl_rule *nr = realloc(ps->rules, sizeof *nr * (size_t)cap);
                if (!nr) {
                    st = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
                    goto done;
                }
                ps->rules = nr;
                ps->cr = cap;
            }
            ps->rules[ps->nr].line = lineno;
            ps->rules[ps->nr++].text = val; /* points into buf, which outlives the parse */
        } else {
            st = PARSE_ERR(lineno, "unexpected key '%s'%s", key,
                           sec == 0 ? " outside a variable or rule block" : "");
            goto done;
        }
    }
    (void)blk_norm;
    if (ps->act != HAZE__ACT_GENERAL && ps->blocks > 1) {
        st = UNSUP(ps->act_line, "activation methods other than General need a single rule block "
                                 "(the rules they pick are counted per block)");
        goto done;
    }
    st = build(ps, out);
done:
    fl_free(ps);
    free(conv);
    return st;
}
