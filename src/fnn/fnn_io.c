/*
 * src/fnn/fnn_io.c - SONFIN model files (haze's own versioned text format,
 * docs/fnn.md "Model file") and the export as a MATLAB/Octave Sugeno .fis
 * file (the [System]/[Input]/[Output]/[Rules] text format of MATLAB's Fuzzy
 * Logic Toolbox, also read by Octave's fuzzy-logic-toolkit and fuzzylite).
 *
 * Numbers are written with 17 significant digits so that a saved model
 * predicts exactly what the trained one did. Names (inputs, target, class
 * labels) are kept exactly: from version 2 on, a name that is not a plain
 * token is written in double quotes with inner quotes doubled (the quoting
 * of RFC 4180), and "-" stands for a missing name only when bare.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "fnn/fnn_internal.h"
#include "haze/io.h"
#include "io/io_types.h"

static void put_row(FILE *fp, const char *key, const double *v, size_t n) {
    fputs(key, fp);
    for (size_t i = 0; i < n; i++) haze__fprintf(fp, " %.17g", v[i]);
    fputc('\n', fp);
}

/* A name as one token of the model file (see the file comment); NULL, no
 * name, is a bare "-". */
static void put_name(FILE *fp, const char *s) {
    if (!s) {
        fputs(" -", fp);
        return;
    }
    int plain = *s && strcmp(s, "-") != 0;
    for (const char *p = s; *p && plain; p++)
        if ((unsigned char)*p <= ' ' || *p == '"' || *p == 127) plain = 0;
    fputc(' ', fp);
    if (plain) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (const char *p = s; *p; p++) {
        if (*p == '"') fputc('"', fp);
        fputc(*p, fp);
    }
    fputc('"', fp);
}

/* What load checks, checked before anything is written: a model that haze
 * writes is one it reads back. */
static int savable(haze_ctx *ctx, const haze_fnn *net) {
    size_t D = net->D, L = net->L, RD = net->R * D;
    const char *what = NULL;
    for (size_t j = 0; j < D && !what; j++)
        if (!isfinite(net->mean[j]) || !(net->scale[j] > 0.0 && isfinite(net->scale[j])))
            what = "input scaling";
    for (size_t l = 0; l < L && !what; l++)
        if (!isfinite(net->tmean[l]) || !(net->tscale[l] > 0.0 && isfinite(net->tscale[l])))
            what = "target scaling";
    for (size_t i = 0; i < RD && !what; i++)
        if (!isfinite(net->m[i]) || !(net->s[i] > 0.0 && isfinite(net->s[i])))
            what = "rule centres or widths";
    for (size_t i = 0; i < net->R * L && !what; i++)
        if (!isfinite(net->w[i])) what = "consequents";
    const char *const *names[2] = {(const char *const *)net->inames,
                                   (const char *const *)net->classes};
    size_t counts[2] = {D, net->classifier && net->classes ? L : 0};
    for (int v = 0; v < 2 && !what; v++)
        for (size_t i = 0; names[v] && i < counts[v] && !what; i++)
            if (names[v][i] && strpbrk(names[v][i], "\r\n")) what = "names (a line break)";
    if (!what && net->target && strpbrk(net->target, "\r\n")) what = "names (a line break)";
    if (what)
        return haze__error(ctx, HAZE_ERR_DOMAIN,
                           "haze_fnn_save: the network's %s cannot be written (not finite, not "
                           "positive or not representable)",
                           what);
    return HAZE_OK;
}

int haze_fnn_save(haze_ctx *ctx, const haze_fnn *net, const char *path) {
    if (!net || !path) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_save: NULL argument");
    int st0 = savable(ctx, net);
    if (st0) return st0;
    haze_outfile f = {0};
    int st = haze__outfile_open(ctx, &f, path);
    if (st) return st;
    FILE *fp = f.fp;
    fprintf(fp, "haze-fnn %d\n", HAZE_FNN_FILE_VERSION);
    fprintf(fp, "# SONFIN network written by haze %s (format: docs/fnn.md)\n", haze_version());
    fprintf(fp, "kind %s\n", net->classifier ? "classification" : "regression");
    fprintf(fp, "inputs %zu\noutputs %zu\nrules %zu\n", net->D, net->L, net->R);
    fputs("target", fp);
    put_name(fp, net->target);
    fputs("\nnames", fp);
    for (size_t j = 0; j < net->D; j++) put_name(fp, net->inames ? net->inames[j] : NULL);
    fputc('\n', fp);
    if (net->classifier) {
        fputs("classes", fp);
        for (size_t l = 0; l < net->L; l++) {
            if (net->classes)
                put_name(fp, net->classes[l]);
            else
                fprintf(fp, " %zu", l);
        }
        fputc('\n', fp);
    }
    put_row(fp, "mean", net->mean, net->D);
    put_row(fp, "scale", net->scale, net->D);
    put_row(fp, "tmean", net->tmean, net->L);
    put_row(fp, "tscale", net->tscale, net->L);
    for (size_t k = 0; k < net->R; k++) {
        put_row(fp, "m", net->m + k * net->D, net->D);
        put_row(fp, "s", net->s + k * net->D, net->D);
        put_row(fp, "w", net->w + k * net->L, net->L);
    }
    fputs("end\n", fp);
    if (ferror(fp)) {
        haze__outfile_abort(&f);
        return haze__error(ctx, HAZE_ERR_IO, "%s: write error", path);
    }
    return haze__outfile_commit(ctx, &f);
}

/* ------------------------------------------------------------------ load */

typedef struct {
    haze_ctx *ctx;
    const char *path;
    char *p;   /* next unread character */
    int line;  /* line number of the current line */
    char *cur; /* the current line (NUL-terminated in place) */
} reader;

/* Moves to the next line that is not blank or a comment; NULL at the end. */
static char *next_line(reader *r) {
    while (*r->p) {
        char *s = r->p, *e = strchr(s, '\n');
        if (e) {
            *e = '\0';
            r->p = e + 1;
        } else {
            r->p = s + strlen(s);
        }
        r->line++;
        size_t n = strlen(s);
        if (n && s[n - 1] == '\r') s[n - 1] = '\0';
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '\0' || *s == '#') continue;
        r->cur = s;
        return s;
    }
    return NULL;
}

static int bad(reader *r, const char *what) {
    return haze__error(r->ctx, HAZE_ERR_PARSE, "%s:%d:1: %s", r->path, r->line, what);
}

/* Expects a line "KEY ..." and returns what follows the key. */
static char *expect(reader *r, const char *key, int *st) {
    char *s = next_line(r);
    size_t n = strlen(key);
    if (!s) {
        *st = haze__error(r->ctx, HAZE_ERR_PARSE,
                          "%s:%d:1: file ends early (truncated?): expected '%s'", r->path, r->line,
                          key);
        return NULL;
    }
    if (strncmp(s, key, n) != 0 || (s[n] != ' ' && s[n] != '\t' && s[n] != '\0')) {
        char msg[128];
        snprintf(msg, sizeof msg, "expected '%s'", key);
        *st = bad(r, msg);
        return NULL;
    }
    return s + n;
}

/* Reads "KEY N" with lo <= N <= hi. The upper bound comes from the bytes that
 * follow (every count is backed by names or numbers later in the file), so a
 * short file cannot make the loader allocate gigabytes. */
static int read_size(reader *r, const char *key, size_t lo, size_t hi, size_t *out) {
    int st = 0;
    char *s = expect(r, key, &st);
    if (!s) return st;
    while (*s == ' ' || *s == '\t') s++;
    errno = 0;
    char *end = s;
    unsigned long long v = isdigit((unsigned char)*s) ? strtoull(s, &end, 10) : 0;
    while (*end == ' ' || *end == '\t') end++;
    if (errno || end == s || *end)
        return haze__error(r->ctx, HAZE_ERR_PARSE, "%s:%d:%d: expected a count after '%s'", r->path,
                           r->line, (int)(s - r->cur) + 1, key);
    if (v < lo || v > hi)
        return haze__error(r->ctx, HAZE_ERR_PARSE,
                           "%s:%d:%d: %s %llu: expected a count from %zu to %zu (what the rest "
                           "of the file can hold)",
                           r->path, r->line, (int)(s - r->cur) + 1, key, v, lo, hi);
    *out = (size_t)v;
    return HAZE_OK;
}

static int read_row(reader *r, const char *key, double *v, size_t n) {
    int st = 0;
    char *s = expect(r, key, &st);
    if (!s) return st;
    for (size_t i = 0; i < n; i++) {
        char *end;
        errno = 0;
        v[i] = haze__strtod(s, &end);
        if (end == s || !isfinite(v[i])) {
            return haze__error(r->ctx, HAZE_ERR_PARSE, "%s:%d:%d: expected %zu numbers after '%s'",
                               r->path, r->line, (int)(s - r->cur) + 1, n, key);
        }
        s = end;
    }
    while (*s == ' ' || *s == '\t') s++;
    if (*s)
        return haze__error(r->ctx, HAZE_ERR_PARSE, "%s:%d:%d: more than %zu numbers after '%s'",
                           r->path, r->line, (int)(s - r->cur) + 1, n, key);
    return HAZE_OK;
}

/* The next name of a line, unquoted in place: *s moves past it, *quoted
 * tells a quoted one. NULL at the end of the line or (with *err set) at a
 * quote that is not closed. */
static char *next_name(char **s, int *quoted, int *err) {
    char *p = *s;
    while (*p == ' ' || *p == '\t') p++;
    *quoted = 0;
    if (!*p) return NULL;
    char *start = p;
    if (*p != '"') {
        while (*p && *p != ' ' && *p != '\t') p++;
        if (*p) *p++ = '\0';
        *s = p;
        return start;
    }
    char *w = ++p;
    start = w;
    for (;;) {
        if (!*p) {
            *err = 1;
            return NULL;
        }
        if (*p == '"' && p[1] == '"') {
            *w++ = '"';
            p += 2;
        } else if (*p == '"') {
            p++;
            break;
        } else {
            *w++ = *p++;
        }
    }
    if (*p && *p != ' ' && *p != '\t') {
        *err = 1;
        return NULL;
    }
    *w = '\0';
    *s = p;
    *quoted = 1;
    return start;
}

/* Splits the rest of a line into exactly n names; a bare "-" becomes NULL
 * (a missing name) where dash_null is set. */
static int read_tokens(reader *r, char *s, size_t n, int dash_null, char ***out) {
    char **v = calloc(n ? n : 1, sizeof *v);
    if (!v) return haze__error(r->ctx, HAZE_ERR_NOMEM, "out of memory");
    size_t i = 0;
    int err = 0, quoted, more = 0, nomem = 0;
    for (char *t; (t = next_name(&s, &quoted, &err)); i++) {
        if (i == n) {
            more = 1;
            break;
        }
        if (dash_null && !quoted && strcmp(t, "-") == 0) continue; /* NULL: no name */
        if (!(v[i] = strdup(t))) {
            nomem = 1;
            break;
        }
    }
    const char *why = nomem ? "out of memory"
                      : err ? "a quoted name is not closed or is followed by other text"
                            : "wrong number of names";
    if (i != n || err || more || nomem) {
        for (size_t k = 0; k < n; k++) free(v[k]);
        free(v);
        if (nomem) return haze__error(r->ctx, HAZE_ERR_NOMEM, "out of memory");
        return bad(r, why);
    }
    *out = v;
    return HAZE_OK;
}

int haze_fnn_load(haze_ctx *ctx, const char *path, haze_fnn **out) {
    if (!path || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_load: NULL argument");
    *out = NULL;
    char *buf = NULL;
    int st = haze_io_read_file(ctx, path, &buf, NULL);
    if (st) return st;
    reader r = {ctx, path, buf, 0, buf};
    haze_fnn *net = NULL;
    char *s = next_line(&r);
    /* "haze-fnn VERSION": strtol rather than sscanf("%d"), whose overflow is
     * undefined, and nothing after the number */
    long version = -1;
    char *end = NULL;
    if (s && strncmp(s, "haze-fnn", 8) == 0 && (s[8] == ' ' || s[8] == '\t')) {
        s += 9;
        while (*s == ' ' || *s == '\t') s++;
        errno = 0;
        version = isdigit((unsigned char)*s) ? strtol(s, &end, 10) : -1;
        if (end)
            while (*end == ' ' || *end == '\t') end++;
        if (errno || !end || *end) version = -1;
    }
    if (version < 0) {
        st = haze__error(ctx, HAZE_ERR_PARSE,
                         "%s:%d:1: not a haze SONFIN model (expected 'haze-fnn VERSION')", path,
                         r.line);
        goto done;
    }
    if (version != 1 && version != HAZE_FNN_FILE_VERSION) {
        st = haze__error(ctx, HAZE_ERR_VERSION,
                         "%s:%d:%d: model file version %ld; this haze reads versions 1 to %d", path,
                         r.line, (int)(s - r.cur) + 1, version, HAZE_FNN_FILE_VERSION);
        goto done;
    }
    if (!(s = expect(&r, "kind", &st))) goto done;
    while (*s == ' ') s++;
    int classifier;
    if (strcmp(s, "classification") == 0)
        classifier = 1;
    else if (strcmp(s, "regression") == 0)
        classifier = 0;
    else {
        st = bad(&r, "kind must be classification or regression");
        goto done;
    }
    /* Each input has a name and two numbers after these lines, each class a
     * name, each rule 2 D + L numbers: at least two bytes apiece (a character
     * and a separator). A regression network's outputs are backed by its
     * rows tmean and tscale (version 2) or its rules (version 1); a version
     * 1 file without rules may still claim no more outputs than it has
     * pairs of bytes, since the network holds two numbers per output. */
    size_t D, L, R;
    if ((st = read_size(&r, "inputs", 1, strlen(r.p) / 2, &D)) ||
        (st = read_size(&r, "outputs", 1, strlen(r.p) / 2, &L)) ||
        (st = read_size(&r, "rules", 0, strlen(r.p) / 2 / (2 * D + L), &R)))
        goto done;
    if ((st = haze_fnn_new(ctx, D, L, &net))) goto done;
    net->classifier = classifier;
    /* version 1 wrote names as bare tokens (white space and quotes made
     * '_'), which the version 2 reader takes as they are */
    if (!(s = expect(&r, "target", &st))) goto done;
    char **tv = NULL;
    if ((st = read_tokens(&r, s, 1, 1, &tv))) goto done;
    net->target = tv[0];
    free(tv);
    if (!(s = expect(&r, "names", &st))) goto done;
    if ((st = read_tokens(&r, s, D, 1, &net->inames))) goto done;
    if (classifier) {
        if (!(s = expect(&r, "classes", &st))) goto done;
        if ((st = read_tokens(&r, s, L, 0, &net->classes))) goto done;
    }
    if ((st = read_row(&r, "mean", net->mean, D)) || (st = read_row(&r, "scale", net->scale, D)))
        goto done;
    for (size_t j = 0; j < D; j++)
        if (!(net->scale[j] > 0.0)) {
            st = bad(&r, "scale values must be positive");
            goto done;
        }
    if (version >= 2) {
        if ((st = read_row(&r, "tmean", net->tmean, L)) ||
            (st = read_row(&r, "tscale", net->tscale, L)))
            goto done;
        for (size_t l = 0; l < L; l++)
            if (!(net->tscale[l] > 0.0)) {
                st = bad(&r, "tscale values must be positive");
                goto done;
            }
    }
    net->scaled = 1;
    if ((st = haze__fnn_reserve(ctx, net, R))) goto done;
    for (size_t k = 0; k < R; k++) {
        if ((st = read_row(&r, "m", net->m + k * D, D)) ||
            (st = read_row(&r, "s", net->s + k * D, D)) ||
            (st = read_row(&r, "w", net->w + k * L, L)))
            goto done;
        for (size_t j = 0; j < D; j++)
            if (!(net->s[k * D + j] > 0.0)) {
                st = bad(&r, "widths must be positive");
                goto done;
            }
        net->R = k + 1;
    }
    if (!(s = expect(&r, "end", &st))) goto done;
    if (next_line(&r)) st = bad(&r, "text after 'end'");
done:
    free(buf);
    if (st) {
        haze_fnn_free(net);
        return st;
    }
    net->file_version = (int)version;
    *out = net;
    return HAZE_OK;
}

/* ---------------------------------------------------------------- export */

/* A name inside the .fis file's single quotes: quotes and control
 * characters, which the format cannot hold, become '_'. */
static void put_fis_name(FILE *fp, const char *prefix, const char *s) {
    fprintf(fp, "Name='%s", prefix);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        fputc(*p < ' ' || *p == '\'' || *p == 127 ? '_' : *p, fp);
    fputs("'\n", fp);
}

int haze_fnn_export_fis(haze_ctx *ctx, const haze_fnn *net, const char *path) {
    if (!net || !path)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_fnn_export_fis: NULL argument");
    if (net->R == 0)
        return haze__error(ctx, HAZE_ERR_INVALID, "fnn export: the network has no rules");
    size_t D = net->D, L = net->L, R = net->R;
    haze_outfile f = {0};
    int st = haze__outfile_open(ctx, &f, path);
    if (st) return st;
    FILE *fp = f.fp;
    fprintf(fp, "[System]\nName='sonfin'\nType='sugeno'\nVersion=2.0\n");
    fprintf(fp, "NumInputs=%zu\nNumOutputs=%zu\nNumRules=%zu\n", D, L, R);
    fprintf(fp, "AndMethod='prod'\nOrMethod='probor'\nImpMethod='prod'\nAggMethod='sum'\n"
                "DefuzzMethod='wtaver'\n");
    for (size_t j = 0; j < D; j++) {
        /* Raw scale: (z - m)^2 / s^2 = (x - c)^2 / (2 sd^2) with
         * c = mean + m * scale and sd = s * scale / sqrt(2) (gaussmf). */
        double lo = INFINITY, hi = -INFINITY;
        for (size_t k = 0; k < R; k++) {
            double c = net->mean[j] + net->m[k * D + j] * net->scale[j];
            double sd = net->s[k * D + j] * net->scale[j];
            if (c - 3 * sd < lo) lo = c - 3 * sd;
            if (c + 3 * sd > hi) hi = c + 3 * sd;
        }
        fprintf(fp, "\n[Input%zu]\n", j + 1);
        if (net->inames && net->inames[j])
            put_fis_name(fp, "", net->inames[j]);
        else
            fprintf(fp, "Name='x%zu'\n", j + 1);
        haze__fprintf(fp, "Range=[%.17g %.17g]\nNumMFs=%zu\n", lo, hi, R);
        for (size_t k = 0; k < R; k++) {
            double c = net->mean[j] + net->m[k * D + j] * net->scale[j];
            double sd = net->s[k * D + j] * net->scale[j] / sqrt(2.0);
            haze__fprintf(fp, "MF%zu='r%zu':'gaussmf',[%.17g %.17g]\n", k + 1, k + 1, sd, c);
        }
    }
    for (size_t l = 0; l < L; l++) {
        /* The weighted average of the raw consequents tmean + tscale w is
         * the raw output (the weights sum to one). */
        double lo = INFINITY, hi = -INFINITY, tm = net->tmean[l], ts = net->tscale[l];
        for (size_t k = 0; k < R; k++) {
            double w = tm + ts * net->w[k * L + l];
            if (w < lo) lo = w;
            if (w > hi) hi = w;
        }
        if (!(hi > lo)) hi = lo + 1.0;
        fprintf(fp, "\n[Output%zu]\n", l + 1);
        if (net->classifier && net->classes)
            put_fis_name(fp, "class_", net->classes[l]);
        else if (L == 1 && net->target)
            put_fis_name(fp, "", net->target);
        else
            fprintf(fp, "Name='y%zu'\n", l + 1);
        haze__fprintf(fp, "Range=[%.17g %.17g]\nNumMFs=%zu\n", lo, hi, R);
        for (size_t k = 0; k < R; k++)
            haze__fprintf(fp, "MF%zu='r%zu':'constant',[%.17g]\n", k + 1, k + 1,
                          tm + ts * net->w[k * L + l]);
    }
    fprintf(fp, "\n[Rules]\n");
    for (size_t k = 0; k < R; k++) {
        for (size_t j = 0; j < D; j++) fprintf(fp, "%zu ", k + 1);
        fputs(",", fp);
        for (size_t l = 0; l < L; l++) fprintf(fp, " %zu", k + 1);
        fputs(" (1) : 1\n", fp);
    }
    if (ferror(fp)) {
        haze__outfile_abort(&f);
        return haze__error(ctx, HAZE_ERR_IO, "%s: write error", path);
    }
    return haze__outfile_commit(ctx, &f);
}
