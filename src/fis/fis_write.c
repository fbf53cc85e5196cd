/*
 * src/fis/fis_write.c - writing a model as a MATLAB/Octave .fis file
 * (writefis's format, the one fis_file.c reads) or as a fuzzylite .fll
 * engine (fuzzylite 6.0's FllExporter format, the one fis_fll.c reads).
 * Each writer refuses, with HAZE_ERR_UNSUPPORTED and the reason, what its
 * format cannot say with the same meaning; haze_fis_save (fis.c) picks one
 * by the file's name.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "fis/fis_math.h"
#include "fis/fis_read.h"
#include "haze/io.h"
#include "io/io_types.h"

/* ------------------------------------------------------- writing .fis */

static void put_code(FILE *fp, int mf, double hedge) {
    if (hedge != 0.0)
        fprintf(fp, "%s%d.%d", mf < 0 ? "-" : "", abs(mf), (int)round(hedge * 10.0) / 10 % 10);
    else
        fprintf(fp, "%d", mf);
}

/* A fuzzylite term as a MATLAB MF with the same values: its type and
 * parameters in q, or -1 when MATLAB has no such MF (or the height is not 1). */
static int fl_to_fis(const haze__mf *m, const double *p, double *q, int *nq) {
    static const struct {
        int from, to, n, perm[4];
    } map[] = {{HAZE__MF_FL_TRIANGLE, HAZE__MF_TRI, 3, {0, 1, 2, 0}},
               {HAZE__MF_FL_TRAPEZOID, HAZE__MF_TRAP, 4, {0, 1, 2, 3}},
               {HAZE__MF_FL_GAUSSIAN, HAZE__MF_GAUSS, 2, {1, 0, 0, 0}},
               {HAZE__MF_FL_GAUSSPROD, HAZE__MF_GAUSS2, 4, {1, 0, 3, 2}},
               {HAZE__MF_FL_BELL, HAZE__MF_GBELL, 3, {1, 2, 0, 0}},
               {HAZE__MF_FL_SIGMOID, HAZE__MF_SIG, 2, {1, 0, 0, 0}},
               {HAZE__MF_FL_SIGDIFF, HAZE__MF_DSIG, 4, {1, 0, 2, 3}},
               {HAZE__MF_FL_SIGPROD, HAZE__MF_PSIG, 4, {1, 0, 2, 3}},
               {HAZE__MF_FL_SSHAPE, HAZE__MF_S, 2, {0, 1, 0, 0}},
               {HAZE__MF_FL_ZSHAPE, HAZE__MF_Z, 2, {0, 1, 0, 0}},
               {HAZE__MF_FL_PISHAPE, HAZE__MF_PI, 4, {0, 1, 2, 3}},
               {HAZE__MF_FL_RECT, HAZE__MF_TRAP, 4, {0, 0, 1, 1}}};
    if (m->type == HAZE__MF_CONSTANT || m->type == HAZE__MF_LINEAR) {
        memcpy(q, p, sizeof(double) * (size_t)m->np);
        *nq = m->np;
        return m->type;
    }
    if (p[haze__fl_hidx(m->type, p)] != 1.0) return -1;
    if (m->type == HAZE__MF_FL_RAMP && p[0] != p[1]) {
        q[0] = p[0] < p[1] ? p[0] : p[1];
        q[1] = p[0] < p[1] ? p[1] : p[0];
        *nq = 2;
        return p[0] < p[1] ? HAZE__MF_LINS : HAZE__MF_LINZ;
    }
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (map[i].from == m->type) {
            for (int k = 0; k < map[i].n; k++) q[k] = p[map[i].perm[k]];
            *nq = map[i].n;
            return map[i].to;
        }
    return -1;
}

/* Why a fuzzylite engine cannot be written as .fis, or NULL when it can. */
static const char *fl_inexpressible(const haze_fis *f, char *why, size_t cap) {
    const haze__var *o0 = &f->out[0];
    for (int o = 0; o < f->no; o++) {
        const haze__var *v = &f->out[o];
        if (!v->wtd != !o0->wtd)
            return "outputs mixing Mamdani and weighted (Takagi-Sugeno) defuzzifiers";
        if (v->defuzz != o0->defuzz || (!v->wtd && v->agg != o0->agg))
            return "outputs with different defuzzifiers or aggregations";
        if (v->lock) return "lock-range on an output";
        if (v->lockprev) return "lock-previous on an output";
        if (!isnan(v->dflt)) return "a default output value other than nan";
    }
    if (f->props)
        return "rules on output variables (a chained engine), naming a variable twice or 'any', "
               "mixing 'and' with 'or' or grouping with parentheses";
    if (f->act != HAZE__ACT_GENERAL) return "an activation method other than General";
    /* fuzzylite takes any range, infinite and empty ones too; the .fis
     * reader (as MATLAB) wants finite numbers with min < max */
    for (int k = 0; k < f->ni + f->no; k++) {
        const haze__var *v = k < f->ni ? &f->in[k] : &f->out[k - f->ni];
        if (!(isfinite(v->lo) && isfinite(v->hi) && v->lo < v->hi)) {
            haze__snprintf(why, cap,
                           "the range [%g, %g] of '%s' (.fis needs finite bounds, min < max)",
                           v->lo, v->hi, v->name);
            return why;
        }
    }
    for (int r = 0; r < f->nr; r++)
        if (!(f->weight[r] >= 0.0 && f->weight[r] <= 1.0)) {
            haze__snprintf(why, cap, "rule %d's weight %g (.fis needs one in [0, 1])", r + 1,
                           f->weight[r]);
            return why;
        }
    double q[HAZE__FL_MAXP];
    int nq;
    for (int i = 0; i < f->nmfs; i++) {
        const haze__mf *m = &f->mfs[i];
        if (fl_to_fis(m, f->params + m->poff, q, &nq) < 0) {
            snprintf(why, cap, "term '%s' (%s%s), which has no MATLAB twin", m->name,
                     haze__mf_names[m->type],
                     m->type != HAZE__MF_FL_DISCRETE &&
                             f->params[m->poff + haze__fl_hidx(m->type, f->params + m->poff)] != 1.0
                         ? " with a height other than 1"
                         : "");
            return why;
        }
        for (int k = 0; k < nq; k++)
            if (!isfinite(q[k])) {
                haze__snprintf(why, cap,
                               "term '%s' with the parameter %g (.fis needs finite numbers)",
                               m->name, q[k]);
                return why;
            }
        int in_wtd = 0;
        for (int o = 0; o < f->no; o++)
            if (f->out[o].wtd && i >= f->out[o].mf0 && i < f->out[o].mf0 + f->out[o].nmf)
                in_wtd = 1;
        if (in_wtd && m->type != HAZE__MF_CONSTANT && m->type != HAZE__MF_LINEAR) {
            snprintf(why, cap, "Tsukamoto term '%s' in a weighted output", m->name);
            return why;
        }
    }
    for (int k = 0; k < f->nr * f->ni; k++)
        if (f->ante_fl[k] != 0 && f->ante_fl[k] != HAZE__H_NOT)
            return "hedges other than 'not' in antecedents";
    for (int k = 0; k < f->nr * f->no; k++)
        if (f->cons_fl[k] != 0) return "hedges in conclusions";
    return NULL;
}

int haze__fis_write(haze_ctx *ctx, const haze_fis *f, const char *path) {
    if (f->fl) {
        char why[256];
        const char *no = fl_inexpressible(f, why, sizeof why);
        if (no)
            return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                               "%s: this fuzzylite engine cannot be written as .fis: %s", path, no);
    }
    for (int i = 0; i < f->nr * (f->ni + f->no); i++) {
        double h = i < f->nr * f->ni ? f->ante_hedge[i] : f->cons_hedge[i - f->nr * f->ni];
        if (h != 0.0 && (h != round(h) || h < 1 || h > 9))
            return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                               "%s: hedge %g cannot be written as a .fis rule code", path, h);
    }
    /* a weighted (Takagi-Sugeno) fuzzylite output may have no aggregation
     * (-1, "none"); .fis wants one, and evaluation takes the maximum then
     * (haze__oagg), so that is what is written */
    const int agg = f->fl ? (f->out[0].agg >= 0 ? f->out[0].agg : HAZE__N_MAX) : f->agg_m;
    haze_outfile of;
    int st = haze__outfile_open(ctx, &of, path);
    if (st) return st;
    FILE *fp = of.fp;
    fprintf(fp,
            "[System]\nName='%s'\nType='%s'\nVersion=2.0\nNumInputs=%d\nNumOutputs=%d\n"
            "NumRules=%d\nAndMethod='%s'\nOrMethod='%s'\nImpMethod='%s'\nAggMethod='%s'\n"
            "DefuzzMethod='%s'\n",
            f->name, f->sugeno ? "sugeno" : "mamdani", f->ni, f->no, f->nr,
            haze__norm_names[f->and_m], haze__norm_names[f->or_m], haze__norm_names[f->imp_m],
            haze__norm_names[agg], haze__defuzz_names[f->fl ? f->out[0].defuzz : f->defuzz_m]);
    for (int io = 0; io < 2; io++) {
        int n = io ? f->no : f->ni;
        for (int i = 0; i < n; i++) {
            const haze__var *v = io ? &f->out[i] : &f->in[i];
            haze__fprintf(fp, "\n[%s%d]\nName='%s'\nRange=[%.17g %.17g]\nNumMFs=%d\n",
                          io ? "Output" : "Input", i + 1, v->name, v->lo, v->hi, v->nmf);
            for (int k = 0; k < v->nmf; k++) {
                const haze__mf *m = &f->mfs[v->mf0 + k];
                double q[HAZE__FL_MAXP];
                int nq = m->np, type = m->type;
                if (f->fl)
                    type = fl_to_fis(m, f->params + m->poff, q, &nq);
                else
                    memcpy(q, f->params + m->poff, sizeof(double) * (size_t)nq);
                fprintf(fp, "MF%d='%s':'%s',[", k + 1, m->name, haze__mf_names[type]);
                for (int p = 0; p < nq; p++) haze__fprintf(fp, "%s%.17g", p ? " " : "", q[p]);
                fprintf(fp, "]\n");
            }
        }
    }
    fprintf(fp, "\n[Rules]\n");
    for (int r = 0; r < f->nr; r++) {
        for (int j = 0; j < f->ni; j++) {
            if (j) fputc(' ', fp);
            int code = f->ante[r * f->ni + j];
            if (f->fl && f->ante_fl[r * f->ni + j] == HAZE__H_NOT) code = -code;
            put_code(fp, code, f->ante_hedge[r * f->ni + j]);
        }
        fputc(',', fp);
        for (int j = 0; j < f->no; j++) {
            fputc(' ', fp);
            put_code(fp, f->cons[r * f->no + j], f->cons_hedge[r * f->no + j]);
        }
        haze__fprintf(fp, " (%.17g) : %d\n", f->weight[r], f->conn[r]);
    }
    if (ferror(fp)) {
        haze__outfile_abort(&of);
        return haze__error(ctx, HAZE_ERR_IO, "%s: write error", path);
    }
    return haze__outfile_commit(ctx, &of);
}

/* ------------------------------------------------------- writing .fll */

/* A name fuzzylite reads back as one token meaning the same thing: the
 * characters of Op::validName (letters, digits, '_', '.'), others as '_';
 * a keyword or hedge name gets a '_' after it; taken names get _2, _3, ...
 * (taken: the names so far, n of them, FLL_NAME bytes each). */
#define FLL_NAME (HAZE__NAME_MAX + 16)
static void fll_name(const char *src, char (*taken)[FLL_NAME], int n, char *dst) {
    static const char *const reserved[] = {"if",        "is",  "then", "and",      "or",
                                           "with",      "not", "very", "somewhat", "seldom",
                                           "extremely", "any", "none"};
    char base[FLL_NAME];
    size_t k = 0;
    for (const char *c = src; *c && k < HAZE__NAME_MAX; c++)
        base[k++] = isalnum((unsigned char)*c) || *c == '_' || *c == '.' ? *c : '_';
    base[k] = '\0';
    if (!k) strcpy(base, "v");
    for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
        if (strcmp(base, reserved[i]) == 0) strcat(base, "_");
    strcpy(dst, base);
    for (int suffix = 2;; suffix++) {
        int clash = 0;
        for (int i = 0; i < n && !clash; i++) clash = strcmp(taken[i], dst) == 0;
        if (!clash) return;
        snprintf(dst, FLL_NAME, "%.65s_%d", base, suffix);
    }
}

/* fuzzylite's name of a norm; "none" for -1. */
static const char *fll_norm_name(int code) {
    if (code < 0) return "none";
    for (int i = 0; i < HAZE__FL_NORMS; i++)
        if (haze__fl_norms[i].code == code) return haze__fl_norms[i].name;
    return "none";
}

/* A MATLAB MF as the fuzzylite term with the same values: its type and
 * parameters in q (fuzzylite's order, no height), or -1. */
static int fis_to_fl(int type, const double *p, int ni, double *q, int *nq) {
    static const struct {
        int from, to, n, perm[4];
    } map[] = {{HAZE__MF_TRI, HAZE__MF_FL_TRIANGLE, 3, {0, 1, 2, 0}},
               {HAZE__MF_TRAP, HAZE__MF_FL_TRAPEZOID, 4, {0, 1, 2, 3}},
               {HAZE__MF_GAUSS, HAZE__MF_FL_GAUSSIAN, 2, {1, 0, 0, 0}},
               {HAZE__MF_GAUSS2, HAZE__MF_FL_GAUSSPROD, 4, {1, 0, 3, 2}},
               {HAZE__MF_GBELL, HAZE__MF_FL_BELL, 3, {2, 0, 1, 0}},
               {HAZE__MF_SIG, HAZE__MF_FL_SIGMOID, 2, {1, 0, 0, 0}},
               {HAZE__MF_DSIG, HAZE__MF_FL_SIGDIFF, 4, {1, 0, 2, 3}},
               {HAZE__MF_PSIG, HAZE__MF_FL_SIGPROD, 4, {1, 0, 2, 3}},
               {HAZE__MF_S, HAZE__MF_FL_SSHAPE, 2, {0, 1, 0, 0}},
               {HAZE__MF_Z, HAZE__MF_FL_ZSHAPE, 2, {0, 1, 0, 0}},
               {HAZE__MF_PI, HAZE__MF_FL_PISHAPE, 4, {0, 1, 2, 3}}};
    if (type == HAZE__MF_CONSTANT || type == HAZE__MF_LINEAR) {
        *nq = type == HAZE__MF_CONSTANT ? 1 : ni + 1;
        memcpy(q, p, sizeof(double) * (size_t)*nq);
        return type;
    }
    if ((type == HAZE__MF_LINS || type == HAZE__MF_LINZ) && p[0] < p[1]) {
        q[0] = type == HAZE__MF_LINS ? p[0] : p[1];
        q[1] = type == HAZE__MF_LINS ? p[1] : p[0];
        *nq = 2;
        return HAZE__MF_FL_RAMP;
    }
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (map[i].from == type) {
            for (int k = 0; k < map[i].n; k++) q[k] = p[map[i].perm[k]];
            *nq = map[i].n;
            return map[i].to;
        }
    return -1;
}

/* The hedges of a chain as fuzzylite writes them (the last applied first). */
static void fll_chain(FILE *fp, int chain) {
    int c[HAZE__H_MAX], n = 0;
    for (; chain && n < HAZE__H_MAX; chain >>= 3) c[n++] = chain & 7;
    while (n > 0) haze__fprintf(fp, "%s ", haze__hedge_names[c[--n]]);
}

/* An Octave hedge exponent (with NOT) as a fuzzylite chain, or -1:
 * mu^2 is very, mu^0.5 somewhat; NOT applies after the hedge. */
static int fis_chain(double hedge, int neg) {
    int c = hedge == 0.0 || hedge == 1.0 ? 0
            : hedge == 2.0               ? HAZE__H_VERY
            : hedge == 0.5               ? HAZE__H_SOMEWHAT
                                         : -1;
    if (c < 0) return -1;
    return neg ? (c ? c | HAZE__H_NOT << 3 : HAZE__H_NOT) : c;
}

#define FLL_NO(...) (snprintf(why, cap, __VA_ARGS__), why)

/* Why f cannot be written as .fll with the same meaning, or NULL. */
static const char *fll_inexpressible(const haze_fis *f, char *why, size_t cap) {
    for (int i = 0; i < f->nmfs; i++) {
        const haze__mf *m = &f->mfs[i];
        double q[HAZE__FL_MAXP];
        int nq;
        if (m->type == HAZE__MF_FL_FUNCTION)
            return FLL_NO("Function term '%s' (haze keeps its compiled form, not its text)",
                          m->name);
        if (!f->fl && fis_to_fl(m->type, f->params + m->poff, f->ni, q, &nq) < 0)
            return FLL_NO("MF '%s' (%s with equal parameters: a step fuzzylite's Ramp does "
                          "not make)",
                          m->name, haze__mf_names[m->type]);
    }
    for (int r = 0; r < f->nr; r++) {
        int nneg = 0;
        for (int j = 0; j < f->ni && !f->fl; j++) {
            int code = f->ante[r * f->ni + j];
            if (code != 0 && fis_chain(f->ante_hedge[r * f->ni + j], code < 0) < 0)
                return FLL_NO("rule %d: hedge %g, which fuzzylite has not (very is 2, "
                              "somewhat 0.5)",
                              r + 1, f->ante_hedge[r * f->ni + j]);
        }
        for (int o = 0; o < f->no && !f->fl; o++) {
            int code = f->cons[r * f->no + o];
            if (code == 0) continue;
            if (f->cons_hedge[r * f->no + o] != 0.0)
                return FLL_NO("rule %d: a hedged consequent (fuzzylite hedges the degree "
                              "otherwise)",
                              r + 1);
            if (code < 0 && !f->sugeno)
                return FLL_NO("rule %d: a negated Mamdani consequent (fuzzylite has no "
                              "complement of an output set)",
                              r + 1);
            nneg += code < 0;
        }
        if (nneg > 1)
            return FLL_NO("rule %d: more than one negated consequent (fuzzylite carries a "
                          "conclusion's 'not' over to the next)",
                          r + 1);
    }
    return NULL;
}

/* The antecedent of rule r from its postfix propositions, every operation
 * in parentheses (fuzzylite reads them; the order of the operands is
 * kept, so the same operations run in the same order). */
static int fll_props(haze_ctx *ctx, FILE *fp, const haze_fis *f, int r, char (*vn)[FLL_NAME],
                     char (*tn)[FLL_NAME]) {
    char *stack[HAZE__FL_STACK] = {0};
    int sp = 0, st = HAZE_OK;
    for (int e = f->prop_off[r]; e < f->prop_off[r + 1] && !st; e++) {
        const int *q = f->props + 3 * e;
        char buf[4 * FLL_NAME + 64 + 16 * HAZE__H_MAX];
        char *t = NULL;
        if (q[0] == HAZE__FL_AND || q[0] == HAZE__FL_OR) {
            if (sp < 2) return haze__error(ctx, HAZE_ERR_INTERNAL, "rule %d: bad postfix", r + 1);
            size_t n = strlen(stack[sp - 2]) + strlen(stack[sp - 1]) + 8;
            t = malloc(n);
            if (t)
                snprintf(t, n, "(%s %s %s)", stack[sp - 2], q[0] == HAZE__FL_AND ? "and" : "or",
                         stack[sp - 1]);
            free(stack[sp - 2]);
            free(stack[sp - 1]);
            sp -= 2;
        } else {
            const haze__var *v = q[0] < f->ni ? &f->in[q[0]] : &f->out[q[0] - f->ni];
            int c[HAZE__H_MAX], n = 0, len = 0;
            for (int chain = q[2]; chain && n < HAZE__H_MAX; chain >>= 3) c[n++] = chain & 7;
            len = snprintf(buf, sizeof buf, "%s is", vn[q[0]]);
            while (n > 0)
                len +=
                    snprintf(buf + len, sizeof buf - (size_t)len, " %s", haze__hedge_names[c[--n]]);
            if (q[1] > 0)
                snprintf(buf + len, sizeof buf - (size_t)len, " %s", tn[v->mf0 + q[1] - 1]);
            t = malloc(strlen(buf) + 1);
            if (t) strcpy(t, buf);
            if (sp == HAZE__FL_STACK) {
                free(t);
                t = NULL;
            }
        }
        if (!t)
            st = haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        else
            stack[sp++] = t;
    }
    if (!st && sp != 1) st = haze__error(ctx, HAZE_ERR_INTERNAL, "rule %d: bad postfix", r + 1);
    if (!st) haze__fprintf(fp, " %s", stack[0]);
    for (int i = 0; i < sp; i++) free(stack[i]);
    return st;
}

int haze__fll_write(haze_ctx *ctx, const haze_fis *f, const char *path) {
    char why[320];
    const char *no = fll_inexpressible(f, why, sizeof why);
    if (no)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "%s: cannot be written as .fll: %s", path,
                           no);
    /* fuzzylite's names: variables share one set, terms one per variable */
    const int nv = f->ni + f->no;
    char(*vn)[FLL_NAME] = calloc((size_t)nv + 1, sizeof *vn);
    char(*tn)[FLL_NAME] = calloc((size_t)f->nmfs + 1, sizeof *tn);
    if (!vn || !tn) {
        free(vn);
        free(tn);
        return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < nv; k++) {
        const haze__var *v = k < f->ni ? &f->in[k] : &f->out[k - f->ni];
        fll_name(v->name, vn, k, vn[k]);
        for (int t = 0; t < v->nmf; t++)
            fll_name(f->mfs[v->mf0 + t].name, tn + v->mf0, t, tn[v->mf0 + t]);
    }
    char ename[FLL_NAME];
    fll_name(f->name, NULL, 0, ename);
    haze_outfile of;
    int st = haze__outfile_open(ctx, &of, path);
    if (st) {
        free(vn);
        free(tn);
        return st;
    }
    FILE *fp = of.fp;
    haze__fprintf(fp, "Engine: %s\n", ename);
    for (int k = 0; k < nv; k++) {
        const int out = k >= f->ni, i = out ? k - f->ni : k;
        const haze__var *v = out ? &f->out[i] : &f->in[i];
        const int wtd = f->fl ? v->wtd : out && f->sugeno;
        haze__fprintf(fp, "%s: %s\n  enabled: true\n  range: %.17g %.17g\n  lock-range: %s\n",
                      out ? "OutputVariable" : "InputVariable", vn[k], v->lo, v->hi,
                      f->fl && v->lock ? "true" : "false");
        if (out) {
            const int dm = f->fl ? v->defuzz : f->defuzz_m;
            static const char *const dn[] = {
                "Centroid",         "Bisector",        "MeanOfMaximum", "SmallestOfMaximum",
                "LargestOfMaximum", "WeightedAverage", "WeightedSum"};
            int agg = f->fl ? v->agg : (wtd ? -1 : f->agg_m);
            haze__fprintf(fp, "  aggregation: %s\n", fll_norm_name(agg));
            if (wtd)
                haze__fprintf(fp, "  defuzzifier: %s %s\n", dn[dm],
                              f->fl && v->wtd == 1 ? "Automatic" : "TakagiSugeno");
            else
                haze__fprintf(fp, "  defuzzifier: %s %d\n", dn[dm],
                              f->fl && v->res > 0 ? v->res : f->points);
            haze__fprintf(fp, "  default: %.17g\n  lock-previous: %s\n", f->fl ? v->dflt : NAN,
                          f->fl && v->lockprev ? "true" : "false");
        }
        for (int t = 0; t < v->nmf; t++) {
            const haze__mf *m = &f->mfs[v->mf0 + t];
            const double *p = f->params + m->poff;
            double q[HAZE__FL_MAXP];
            int nq = m->np, type = m->type;
            if (f->fl) {
                memcpy(q, p, sizeof(double) * (size_t)nq);
                if (type == HAZE__MF_FL_DISCRETE) { /* n x1 y1 .. xn yn h */
                    nq = 2 * (int)p[0] + (p[2 * (int)p[0] + 1] != 1.0);
                    memmove(q, q + 1, sizeof(double) * (size_t)nq);
                    if (nq % 2) q[nq - 1] = p[2 * (int)p[0] + 1];
                } else if (type != HAZE__MF_CONSTANT && type != HAZE__MF_LINEAR &&
                           q[nq - 1] == 1.0) {
                    nq--; /* the height 1 goes without saying */
                }
            } else {
                type = fis_to_fl(m->type, p, f->ni, q, &nq);
            }
            haze__fprintf(fp, "  term: %s %s", tn[v->mf0 + t],
                          type == HAZE__MF_CONSTANT ? "Constant"
                          : type == HAZE__MF_LINEAR ? "Linear"
                                                    : haze__mf_names[type]);
            for (int c = 0; c < nq; c++) haze__fprintf(fp, " %.17g", q[c]);
            fputc('\n', fp);
        }
    }
    int sugeno_only = 1;
    for (int o = 0; o < f->no; o++) sugeno_only &= f->fl ? f->out[o].wtd != 0 : f->sugeno;
    haze__fprintf(fp, "RuleBlock: \n  enabled: true\n  conjunction: %s\n  disjunction: %s\n",
                  fll_norm_name(f->and_m), fll_norm_name(f->or_m));
    haze__fprintf(fp, "  implication: %s\n", sugeno_only ? "none" : fll_norm_name(f->imp_m));
    static const char *const an[] = {"General", "First",        "Last",     "Highest",
                                     "Lowest",  "Proportional", "Threshold"};
    static const char *const cn[] = {"<", "<=", "==", "!=", ">=", ">"};
    haze__fprintf(fp, "  activation: %s", an[f->act]);
    if (f->act == HAZE__ACT_FIRST || f->act == HAZE__ACT_LAST)
        haze__fprintf(fp, " %d %.17g", f->act_n, f->act_thr);
    else if (f->act == HAZE__ACT_HIGHEST || f->act == HAZE__ACT_LOWEST)
        haze__fprintf(fp, " %d", f->act_n);
    else if (f->act == HAZE__ACT_THRESHOLD)
        haze__fprintf(fp, " %s %.17g", cn[f->act_cmp], f->act_thr);
    fputc('\n', fp);
    for (int r = 0; r < f->nr; r++) {
        int na = 0, nc = 0;
        for (int j = 0; j < f->ni; j++) na += f->ante[r * f->ni + j] != 0;
        for (int o = 0; o < f->no; o++) nc += f->cons[r * f->no + o] != 0;
        if (f->props) na = f->prop_off[r + 1] > f->prop_off[r];
        if (!na || !nc) continue; /* never fires, or concludes nothing: no effect */
        haze__fprintf(fp, "  rule: if");
        int first = 1;
        if (f->props) {
            if ((st = fll_props(ctx, fp, f, r, vn, tn))) {
                haze__outfile_abort(&of);
                free(vn);
                free(tn);
                return st;
            }
            first = 0;
        }
        for (int j = 0; j < f->ni && !f->props; j++) {
            const int code = f->ante[r * f->ni + j];
            if (!code) continue;
            const int k = (code < 0 ? -code : code) - 1;
            haze__fprintf(fp, "%s %s is ", first ? "" : (f->conn[r] == 2 ? " or" : " and"), vn[j]);
            first = 0;
            fll_chain(fp, f->fl ? f->ante_fl[r * f->ni + j]
                                : fis_chain(f->ante_hedge[r * f->ni + j], code < 0));
            haze__fprintf(fp, "%s", tn[f->in[j].mf0 + k]);
        }
        haze__fprintf(fp, " then");
        /* fuzzylite hedges the conclusions' degree cumulatively: those of a
         * .fll in order of growing chains, each with its own part; of a
         * .fis, the negated one (at most one) last */
        int prevlen = 0;
        first = 1;
        for (int pass = 0; pass < 2; pass++)
            for (int len = 0; len <= HAZE__H_MAX; len++)
                for (int o = 0; o < f->no; o++) {
                    const int code = f->cons[r * f->no + o];
                    if (!code) continue;
                    int chain = f->fl ? f->cons_fl[r * f->no + o] : (code < 0 ? HAZE__H_NOT : 0);
                    int cl = 0;
                    for (int c = chain; c; c >>= 3) cl++;
                    if (f->fl ? (pass || cl != len) : (len || (code < 0) != pass)) continue;
                    haze__fprintf(fp, "%s %s is ", first ? "" : " and", vn[f->ni + o]);
                    first = 0;
                    fll_chain(fp, f->fl ? chain >> (3 * prevlen) : chain);
                    if (f->fl) prevlen = cl;
                    haze__fprintf(fp, "%s", tn[f->out[o].mf0 + (code < 0 ? -code : code) - 1]);
                }
        if (f->weight[r] != 1.0) haze__fprintf(fp, " with %.17g", f->weight[r]);
        fputc('\n', fp);
    }
    free(vn);
    free(tn);
    if (ferror(fp)) {
        haze__outfile_abort(&of);
        return haze__error(ctx, HAZE_ERR_IO, "%s: write error", path);
    }
    return haze__outfile_commit(ctx, &of);
}
