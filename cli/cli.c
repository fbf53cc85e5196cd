/*
 * cli/cli.c - helpers shared by the subcommands: exit codes, messages,
 * context creation and strict number parsing.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_exit_code(int status) {
    switch (status) {
    case HAZE_OK:
        return CLI_OK;
    case HAZE_ERR_INVALID:
    case HAZE_ERR_IO:
    case HAZE_ERR_PARSE:
    case HAZE_ERR_DOMAIN:
    case HAZE_ERR_MISMATCH:
    case HAZE_ERR_VERSION:
    case HAZE_ERR_UNSUPPORTED:
        return CLI_INPUT;
    default:
        return CLI_RUNTIME;
    }
}

void cli_errorf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("haze: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_fail(haze_ctx *ctx, int status) {
    const char *msg = ctx ? haze_ctx_errmsg(ctx) : "";
    if (msg && *msg)
        cli_errorf("%s", msg);
    else
        cli_errorf("%s", haze_status_message(status));
    return cli_exit_code_of(status, msg);
}

int cli_exit_code_of(int status, const char *msg) {
    /* an output that could not be written (a full disk, an I/O error) is
     * the run's failure, as a failed write to standard output is: not bad
     * input (the library says HAZE_ERR_IO for both) */
    if (status == HAZE_ERR_IO && msg && strstr(msg, ": cannot write output: ")) return CLI_RUNTIME;
    return cli_exit_code(status);
}

int cli_fail_data(haze_ctx *ctx, int status, const char *path, const char *hint, int missing_ok) {
    const char *msg = ctx ? haze_ctx_errmsg(ctx) : "";
    const size_t n = path ? strlen(path) : 0;
    /* the field as the message quotes it: "..." at its end */
    const char *found = msg && n && strncmp(msg, path, n) == 0 && msg[n] == ':'
                            ? strstr(msg, ": expected a number, found \"")
                            : NULL;
    const int text = found != NULL;
    /* the column as --drop takes it: its name, or its 0-based number when
     * the name is empty (a pandas index, a trailing delimiter) or would not
     * pass as one item of a list */
    char arg[160] = "NAME";
    const char *c = text ? strstr(msg, ": column ") : NULL;
    size_t col = 0;
    if (c && sscanf(c, ": column %zu", &col) == 1 && col > 0) {
        const char *p = c + 9;
        while (*p >= '0' && *p <= '9') p++;
        const char *e = p[0] == ' ' && p[1] == '(' ? strstr(p, "): expected a number") : NULL;
        const size_t len = e ? (size_t)(e - p - 2) : 0;
        const int plain = len && len < sizeof arg && !memchr(p + 2, ',', len) && p[2] != ' ' &&
                          p[2 + len - 1] != ' ';
        if (plain)
            snprintf(arg, sizeof arg, "%.*s", (int)len, p + 2);
        else
            snprintf(arg, sizeof arg, "%zu", col - 1);
    }
    int code = cli_fail(ctx, status);
    char field[64] = "";
    if (found) {
        const size_t len = strlen(found + 28);
        if (len && len < sizeof field && found[28 + len - 1] == '"')
            snprintf(field, sizeof field, "%.*s", (int)(len - 1), found + 28);
    }
    const int gap = found && (field[0] || found[28] == '"') && haze_table_missing_value(field);
    /* (an empty field of a column without a name: a trailing delimiter, not
     * a missing value) */
    const int unnamed = c && strstr(c, " (): expected a number");
    /* digits, one comma, digits: a decimal comma (Excel's CSV in much of Europe) */
    size_t a = strspn(field + (field[0] == '-' || field[0] == '+'), "0123456789");
    const char *comma = field + (field[0] == '-' || field[0] == '+') + a;
    const int decimal_comma = found && a && comma[0] == ',' && comma[1] &&
                              strspn(comma + 1, "0123456789") == strlen(comma + 1);
    const char *at;
    if (decimal_comma)
        cli_errorf("a decimal comma? Numbers are read with a decimal point (1.5); convert the "
                   "file first, e.g. with sed 's/,/./g' when its fields are separated by ';' or "
                   "tabs");
    else if (gap && missing_ok && !unnamed)
        cli_errorf("a missing value: leave the rows that have one out with --missing skip");
    else if (text && hint && (at = strstr(hint, "%s")))
        cli_errorf("%.*s%s%s", (int)(at - hint), hint, arg, at + 2);
    return code;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("haze: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "Run 'haze %s --help' for usage.\n", cmd);
    else
        fprintf(stderr, "Run 'haze --help' for usage.\n");
    return CLI_USAGE;
}

int cli_help_only(int argc, char **argv, const char *cmd, void (*help)(FILE *fp)) {
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            help(stdout);
            return CLI_OK;
        }
        return cli_usage_error(cmd, "unknown option");
    }
    if (optind < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return -1;
}

int cli_gpus(const cli_global *g, int *dev, int max) {
    int n = g->gpus_all ? haze_device_count() : g->gpu_count;
    if (n > max) n = max;
    for (int k = 0; k < n; k++) dev[k] = g->gpu_list ? g->gpu[k] : k;
    return n;
}

int cli_gpus_parse(const char *s, const char *from, cli_global *g) {
    long v;
    g->gpus_all = g->gpu_list = g->gpu_count = 0;
    if (strcmp(s, "all") == 0) {
        g->gpus_all = 1;
        return 0;
    }
    if (!strchr(s, ',')) {
        if (!cli_parse_int(s, 1, 64, &v))
            return cli_usage_error(NULL,
                                   "%s: expected all, a number of GPUs from 1 to 64 or a list of "
                                   "device ids such as 0,2, got '%s'",
                                   from, s);
        g->gpu_count = (int)v;
        return 0;
    }
    char buf[32];
    for (const char *p = s; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 && e && !e[1] && g->gpu_count) break; /* "3,": one device */
        if (len == 0 || len >= sizeof buf || g->gpu_count == 64)
            return cli_usage_error(NULL, "%s: expected a list of device ids such as 0,2, got '%s'",
                                   from, s);
        memcpy(buf, p, len);
        buf[len] = 0;
        if (!cli_parse_int(buf, 0, 4095, &v))
            return cli_usage_error(NULL, "%s: '%s' is not a device id (0 to 4095) in '%s'", from,
                                   buf, s);
        for (int k = 0; k < g->gpu_count; k++)
            if (g->gpu[k] == (int)v)
                return cli_usage_error(NULL, "%s: device %ld is listed twice in '%s'", from, v, s);
        g->gpu[g->gpu_count++] = (int)v;
        if (!e) break;
        p = e + 1;
    }
    g->gpu_list = 1;
    return 0;
}

int cli_ctx_new(const cli_global *g, haze_ctx **out) {
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = g->backend;
    o.threads = g->threads;
    int dev[64];
    if (g->gpus_all || g->gpu_count) { /* GPUs asked for: a context over the set */
        if (o.backend == HAZE_BACKEND_AUTO) o.backend = HAZE_BACKEND_CUDA;
        o.device = g->gpu_list ? g->gpu[0] : 0;
        const int n = cli_gpus(g, dev, 64);
        if (n > 1 || (n == 1 && g->gpu_list)) { /* (all: none present is the context's refusal) */
            o.device = -1;
            o.devices = dev;
            o.device_count = n;
        }
    }
    int st = haze_ctx_new(&o, out);
    if (st == HAZE_OK) return 0;
    int code = st == HAZE_ERR_NODEVICE ? CLI_RUNTIME : cli_exit_code(st);
    cli_fail(*out, st);
    haze_ctx_free(*out);
    *out = NULL;
    return code;
}

int cli_parse_int(const char *s, long lo, long hi, long *out) {
    if (!s || !*s) return 0;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

int cli_parse_double(const char *s, double *out) {
    if (!s || !*s) return 0;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno == ERANGE && fabs(v) == HUGE_VAL) return 0;
    if (*end || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

/* ------------------------------------------------- input columns by name */

/* Appends the names (at most 8, then how many in all) to buf as a list. */
static void name_list(char *buf, size_t cap, const char *const *names, size_t n) {
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < cap; i++) {
        if (i == 8) {
            snprintf(buf + len, cap - len, ", ... (%zu in all)", n);
            return;
        }
        int k = snprintf(buf + len, cap - len, "%s'%s'", i ? ", " : "", names[i]);
        if (k < 0) return;
        len += (size_t)k;
    }
}

/* Names are equal as written; failing that (loose), with blanks, control
 * characters and quotes taken as '_' and "" as "_", the way fnn model files
 * of version 1 stored them. */
static int same_name(const char *a, const char *b, int loose) {
    if (!loose) return strcmp(a, b) == 0;
    static const char empty[] = "_";
    if (!*a) a = empty;
    if (!*b) b = empty;
    for (;; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        if (!x || !y) return x == y;
        if (x <= ' ' || x == '\'' || x == '"' || x == 127) x = '_';
        if (y <= ' ' || y == '\'' || y == '"' || y == 127) y = '_';
        if (x != y) return 0;
    }
}

static int columns_match(const haze_table *t, const char *path, const cli_columns *c, size_t *idx) {
    size_t avail = haze_table_column_count(t) -
                   (c->skip >= 0 && (size_t)c->skip < haze_table_column_count(t) ? 1 : 0);
    int by_name = haze_table_names(t) && c->names;
    for (size_t k = 0; by_name && k < c->n; k++)
        if (!c->names[k]) by_name = 0; /* a model with unnamed inputs */
    if (!by_name) {
        if (avail != c->n) {
            cli_errorf("%s: %zu columns%s, but %s %s has %zu %ss", path, avail,
                       avail != haze_table_column_count(t) ? " besides the target" : "", c->kind,
                       c->model, c->n, c->noun);
            return CLI_INPUT;
        }
        for (size_t j = 0, k = 0; j < haze_table_column_count(t); j++)
            if ((int)j != c->skip) idx[k++] = j;
        return CLI_OK;
    }
    /* the names of the model in its order (a header that names a column
     * twice, say, read back by the job that wrote it) */
    int same = avail == c->n;
    for (size_t j = 0, k = 0; same && j < haze_table_column_count(t); j++)
        if ((int)j != c->skip) same = same_name(haze_table_names(t)[j], c->names[k++], 0);
    if (same) {
        for (size_t j = 0, k = 0; j < haze_table_column_count(t); j++)
            if ((int)j != c->skip) idx[k++] = j;
        return CLI_OK;
    }
    char list[512], have[512];
    const char **miss = malloc((c->n + haze_table_column_count(t) + 1) * sizeof *miss);
    char *used = calloc(haze_table_column_count(t) + 1, 1);
    if (!miss || !used) {
        free(miss);
        free(used);
        cli_errorf("out of memory");
        return CLI_RUNTIME;
    }
    int code = CLI_OK;
    size_t nmiss = 0;
    for (size_t k = 0; k < c->n; k++) {
        size_t hits = 0;
        for (int loose = 0; loose < 2 && !hits; loose++)
            for (size_t j = 0; j < haze_table_column_count(t); j++) {
                if ((int)j == c->skip || !same_name(haze_table_names(t)[j], c->names[k], loose))
                    continue;
                if (hits++) {
                    cli_errorf("%s: the header names '%s' twice (columns %zu and %zu)", path,
                               c->names[k], idx[k] + 1, j + 1);
                    code = CLI_INPUT;
                    goto out;
                }
                idx[k] = j;
                used[j] = 1;
            }
        if (!hits) miss[nmiss++] = c->names[k];
    }
    if (nmiss) {
        const char **cols = miss + nmiss;
        size_t ncols = 0;
        for (size_t j = 0; j < haze_table_column_count(t); j++)
            if ((int)j != c->skip) cols[ncols++] = haze_table_names(t)[j];
        name_list(list, sizeof list, miss, nmiss);
        name_list(have, sizeof have, cols, ncols);
        cli_errorf("%s: no column for the %s%s %s of %s %s (the header names %s)", path, c->noun,
                   nmiss > 1 ? "s" : "", list, c->kind, c->model, ncols ? have : "no other column");
        code = CLI_INPUT;
        goto out;
    }
    size_t nextra = 0;
    for (size_t j = 0; j < haze_table_column_count(t); j++)
        if ((int)j != c->skip && !used[j]) miss[nextra++] = haze_table_names(t)[j];
    if (nextra && !c->ignore_extra) {
        name_list(list, sizeof list, miss, nextra);
        name_list(have, sizeof have, c->names, c->n);
        cli_errorf("%s: column%s %s %s not among the %ss of %s %s (%s); leave %s out or pass "
                   "--ignore-extra",
                   path, nextra > 1 ? "s" : "", list, nextra > 1 ? "are" : "is", c->noun, c->kind,
                   c->model, have, nextra > 1 ? "them" : "it");
        code = CLI_INPUT;
    }
out:
    free(miss);
    free(used);
    return code;
}

/* ... and every column used holds numbers (a table read with text_as_nan may hold text in
 * the columns --ignore-extra leaves out, an id column, say) */
int cli_columns_match(const haze_table *t, const char *path, const cli_columns *c, size_t *idx) {
    int code = columns_match(t, path, c, idx);
    return code ? code : cli_columns_text(t, path, c, idx);
}

int cli_columns_text(const haze_table *t, const char *path, const cli_columns *c,
                     const size_t *idx) {
    /* the first such line in the file, whichever column: the same line
     * whether the file is read whole or in blocks */
    const size_t *tl = haze_table_text_lines(t);
    size_t j = 0, line = 0;
    for (size_t k = 0; tl && k < c->n; k++)
        if (tl[idx[k]] && (!line || tl[idx[k]] < line)) {
            line = tl[idx[k]];
            j = idx[k];
        }
    if (!line) return CLI_OK;
    cli_errorf("%s:%zu: column %zu%s%s%s: expected a number", path, line, j + 1,
               haze_table_names(t) ? " (" : "", haze_table_names(t) ? haze_table_names(t)[j] : "",
               haze_table_names(t) ? ")" : "");
    return CLI_INPUT;
}

double *cli_columns_gather(const haze_table *t, const size_t *idx, size_t n, size_t first,
                           size_t rows) {
    double *x = malloc((rows * n > 0 ? rows * n : 1) * sizeof *x);
    if (!x) return NULL;
    for (size_t i = 0; i < rows; i++)
        for (size_t k = 0; k < n; k++)
            x[i * n + k] = haze_table_data(t)[(first + i) * haze_table_column_count(t) + idx[k]];
    return x;
}

size_t cli_rows_missing(const void *v, int f32, size_t n, size_t d, unsigned char *mark,
                        size_t *first) {
    size_t count = 0;
    *first = n;
    for (size_t i = 0; i < n; i++) {
        int nan = 0;
        for (size_t j = 0; j < d; j++)
            nan |=
                f32 ? isnan(((const float *)v)[i * d + j]) : isnan(((const double *)v)[i * d + j]);
        mark[i] = (unsigned char)nan;
        if (nan && count++ == 0) *first = i;
    }
    return count;
}

void cli_rows_compact(void *v, int f32, size_t n, size_t d, const unsigned char *mark) {
    const size_t row = d * (f32 ? sizeof(float) : sizeof(double));
    unsigned char *b = v;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!mark[i]) {
            if (k != i) memmove(b + k * row, b + i * row, row);
            k++;
        }
}

void cli_rows_expand(double *u, size_t n, size_t k, const unsigned char *mark) {
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) kept += !mark[i];
    for (size_t i = n; i-- > 0;) { /* from the back: row i's source is at or before it */
        if (mark[i]) {
            for (size_t j = 0; j < k; j++) u[i * k + j] = NAN;
        } else {
            kept--;
            if (kept != i) memmove(u + i * k, u + kept * k, k * sizeof *u);
        }
    }
}

int cli_missing_option(const char *cmd, const char *s, int *mode) {
    *mode = strcmp(s, "error") == 0 ? 0 : strcmp(s, "skip") == 0 ? 1 : -1;
    if (*mode >= 0) return CLI_OK;
    *mode = 0;
    return cli_usage_error(cmd, "--missing: expected error or skip, got '%s'", s);
}

void cli_info(const cli_global *g, const char *fmt, ...) {
    if (g && g->quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

int cli_outputs_begin(haze_ctx *ctx, int n, const char *const *paths) {
    int st = haze_outgroup_begin(ctx);
    for (int i = 0; i < n && !st; i++)
        if (paths[i]) st = haze_outgroup_add(ctx, paths[i]);
    return st;
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0. */
static int utf8_len(const unsigned char *s) {
    if (s[0] < 0x80) return 1;
    int n = s[0] >= 0xC2 && s[0] <= 0xDF   ? 2
            : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
            : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
                                           : 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (n == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0))) return 0;
    if (n == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))) return 0;
    return n;
}

void cli_json_str(FILE *fp, const char *str) {
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', fp);
    while (*s) {
        int n = utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", fp); /* one replacement per bad byte */
            s++;
        } else if (*s == '"' || *s == '\\') {
            fprintf(fp, "\\%c", *s++);
        } else if (*s < 0x20 || *s == 0x7F) {
            fprintf(fp, "\\u%04x", *s++);
        } else {
            fwrite(s, 1, (size_t)n, fp);
            s += n;
        }
    }
    fputc('"', fp);
}
