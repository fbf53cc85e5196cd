/*
 * src/prec/prec.c - the rounding-error analyser's public entry points, each
 * a thin layer over the parts below it: the front ends (prec_front.h), the
 * driver (prec_driver.h), the report (prec_report.h) and the point
 * evaluator (prec_engine.h). Every call that reaches MPFR runs under
 * haze__mp_run, so that out of memory inside it is an error, not an abort.
 */
#include <stdlib.h>
#include <string.h>

#include "haze/io.h"
#include "core/sized.h"
#include "prec/prec_driver.h"
#include "prec/prec_front.h"
#include "prec/prec_report.h"

typedef struct parse_job {
    haze_ctx *ctx;
    haze_prec_script *s;
    const char *text;
    long unroll, max_ops;
} parse_job;

static int parse_run(void *arg) {
    parse_job *j = arg;
    return haze__prec_read(j->ctx, j->s, j->text, j->unroll, j->max_ops);
}

int haze_prec_parse_options_init(haze_prec_parse_options *opt, size_t size) {
    haze_prec_parse_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    return haze__sized_init(opt, size, &o, sizeof o);
}

int haze_prec_parse(haze_ctx *ctx, const char *text, const char *name,
                    const haze_prec_parse_options *opt, haze_prec_script **out) {
    if (!text || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_parse: NULL argument");
    haze_prec_parse_options o = haze_prec_parse_options_default();
    int take = haze__sized_take(ctx, &o, sizeof o, opt, "haze_prec_parse_options");
    if (take) return take;
    long unroll = o.unroll, max_ops = o.max_ops;
    if (unroll < 0) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_parse: unroll < 0");
    if (max_ops < 0) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_parse: max_ops < 0");
    *out = NULL;
    haze_prec_script *s = haze__prec_script_new(name);
    if (!s) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    /* the script holds no GMP memory (its numbers keep their digits inside,
     * prec_internal.h): after an unwinding it is whole and can be freed; the
     * parser's own buffers are lost */
    parse_job j = {ctx, s, text, unroll, max_ops};
    int rc = haze__mp_run(ctx, parse_run, &j);
    if (rc) {
        haze__prec_script_free(s);
        return rc;
    }
    *out = s;
    return HAZE_OK;
}

int haze_prec_load(haze_ctx *ctx, const char *path, const haze_prec_parse_options *opt,
                   haze_prec_script **out) {
    if (!path || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_load: NULL argument");
    char *text = NULL;
    int rc = haze_io_read_file(ctx, path, &text, NULL);
    if (rc) return rc;
    rc = haze_prec_parse(ctx, text, path, opt, out);
    free(text);
    return rc;
}

size_t haze_prec_goal_count(const haze_prec_script *s) {
    return s ? (size_t)s->n_goals : 0;
}
size_t haze_prec_var_count(const haze_prec_script *s) {
    return s ? (size_t)s->n_vars : 0;
}

const char *haze_prec_var_name(const haze_prec_script *s, size_t i) {
    return s && i < (size_t)s->n_vars ? s->vars[i].name : NULL;
}

int haze_prec_var_range(haze_ctx *ctx, const haze_prec_script *s, size_t i, double *lo,
                        double *hi) {
    if (!s || !lo || !hi)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_var_range: NULL argument");
    if (i >= (size_t)s->n_vars)
        return haze__error(ctx, HAZE_ERR_INVALID, "%s: no input variable %zu (it has %d)", s->name,
                           i + 1, s->n_vars);
    *lo = mpfr_get_d(s->vars[i].range.lo, MPFR_RNDU); /* inside the range */
    *hi = mpfr_get_d(s->vars[i].range.hi, MPFR_RNDD);
    return HAZE_OK;
}

int haze_prec_set_bisect(haze_ctx *ctx, haze_prec_script *s, const char *var, long n) {
    if (!s || !var)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_set_bisect: NULL argument");
    int i = haze__prec_find_var(s, var);
    if (i < 0)
        return haze__error(ctx, HAZE_ERR_INVALID, "no input variable '%s' in %s", var, s->name);
    if (n < 1 || n > PREC_MAX_BOXES)
        return haze__error(ctx, HAZE_ERR_INVALID, "bisection count for '%s' must be from 1 to %ld",
                           var, PREC_MAX_BOXES);
    s->vars[i].bisect = n;
    return HAZE_OK;
}

long haze_prec_var_bisect(const haze_prec_script *s, size_t i) {
    return s && i < (size_t)s->n_vars ? s->vars[i].bisect : 0;
}

int haze_prec_set_refine(haze_ctx *ctx, haze_prec_script *s, long analyses) {
    if (!s) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_set_refine: NULL script");
    if (analyses < HAZE_PREC_REFINE_AUTO || analyses > PREC_MAX_BOXES)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "refinement budget must be -1 (automatic) or from 0 to %ld",
                           PREC_MAX_BOXES);
    s->refine = analyses;
    return HAZE_OK;
}

int haze_prec_set_progress(haze_ctx *ctx, haze_prec_script *s, haze_prec_progress_fn fn,
                           void *arg) {
    if (!s) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_set_progress: NULL script");
    s->progress = fn;
    s->progress_arg = arg;
    return HAZE_OK;
}

const char *haze_prec_engine_name(haze_prec_engine e) {
    return e == HAZE_PREC_IA ? "ia" : e == HAZE_PREC_AA ? "aa" : "both";
}

int haze_prec_engine_parse(haze_ctx *ctx, const char *str, haze_prec_engine *out) {
    if (!str || !out)
        return haze__error(ctx, HAZE_ERR_INVALID, "prec: no engine name or no output");
    if (!strcmp(str, "ia"))
        *out = HAZE_PREC_IA;
    else if (!strcmp(str, "aa"))
        *out = HAZE_PREC_AA;
    else if (!strcmp(str, "both"))
        *out = HAZE_PREC_BOTH;
    else
        return haze__error(ctx, HAZE_ERR_INVALID, "unknown engine '%s': expected ia, aa or both",
                           str);
    return HAZE_OK;
}

size_t haze_prec_note_count(const haze_prec_script *s) {
    return s ? (size_t)s->n_notes : 0;
}

const char *haze_prec_note(const haze_prec_script *s, size_t i) {
    return s && i < (size_t)s->n_notes ? s->notes[i] : NULL;
}

void haze_prec_free(haze_prec_script *s) {
    haze__prec_script_free(s);
}

void haze_prec_result_free(haze_prec_result *r) {
    haze__prec_result_free(r);
}

typedef struct analyse_job {
    haze_ctx *ctx;
    const haze_prec_script *s;
    haze_prec_engine engine;
    haze_prec_result **out;
} analyse_job;

static int analyse_run(void *arg) {
    analyse_job *j = arg;
    const haze_prec_script *s = j->s;
    int ng = s->n_goals;
    double t0 = haze__now();
    pint *acc = haze__mp_malloc((size_t)ng * sizeof *acc);
    if (!acc) return haze__error(j->ctx, HAZE_ERR_NOMEM, "out of memory");
    for (int g = 0; g < ng; g++) {
        haze__pi_init(&acc[g]);
        mpfr_set_inf(acc[g].lo, 1);
        mpfr_set_inf(acc[g].hi, -1);
    }
    long boxes = 0;
    prec_boxrec *rec = haze__prec_boxrec_new(s);
    int rc = rec ? 0 : haze__error(j->ctx, HAZE_ERR_NOMEM, "out of memory");
    if (!rc) rc = haze__prec_enclose(j->ctx, s, j->engine, acc, rec, &boxes);
    if (!rc)
        rc = haze__prec_report(j->ctx, s, acc, boxes, rec, j->out);
    else
        haze__prec_boxrec_free(rec);
    if (!rc) (*j->out)->seconds = haze__now() - t0;
    for (int g = 0; g < ng; g++) haze__pi_clear(&acc[g]);
    haze__mp_free(acc);
    return rc;
}

int haze_prec_analyse(haze_ctx *ctx, const haze_prec_script *s, haze_prec_engine engine,
                      haze_prec_result **out) {
    if (!s || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_analyse: NULL argument");
    *out = NULL;
    if (engine < HAZE_PREC_IA || engine > HAZE_PREC_BOTH)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_analyse: unknown engine %d",
                           (int)engine);
    analyse_job j = {ctx, s, engine, out};
    return haze__mp_run(ctx, analyse_run, &j);
}

typedef struct eval_job {
    haze_ctx *ctx;
    const haze_prec_script *s;
    const double *x;
    long prec_bits;
    double *out;
} eval_job;

static int eval_run(void *arg) {
    eval_job *j = arg;
    return haze__prec_eval_point(j->ctx, j->s, j->x, j->prec_bits, j->out);
}

int haze_prec_eval(haze_ctx *ctx, const haze_prec_script *s, const double *x, long prec_bits,
                   double *out) {
    if (!s || (!x && s->n_vars) || !out)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_prec_eval: NULL argument");
    if (prec_bits < 64) prec_bits = 64;
    int nn = s->n_nodes;
    /* MPFR aborts on a precision above its maximum; below it, the numbers
     * must still fit in memory together */
    if (prec_bits > HAZE_PREC_EVAL_MAX_BITS || prec_bits > MPFR_PREC_MAX)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "haze_prec_eval: %ld bits of precision: at most %ld are supported",
                           prec_bits, (long)HAZE_PREC_EVAL_MAX_BITS);
    if ((double)(nn + 1) * (double)(prec_bits / 8 + 32) > HAZE_PREC_EVAL_MAX_BYTES)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "haze_prec_eval: %d numbers of %ld bits need more than %.0f MiB", nn + 1,
                           prec_bits, HAZE_PREC_EVAL_MAX_BYTES / 1048576.0);
    eval_job j = {ctx, s, x, prec_bits, out};
    return haze__mp_run(ctx, eval_run, &j);
}
