/*
 * cli/cli.c - helpers shared by the subcommands: exit codes, messages,
 * context creation and strict number parsing.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

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
        cli_errorf("%s", haze_strerror(status));
    return cli_exit_code(status);
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

int cli_ctx_new(const cli_global *g, haze_ctx **out) {
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = g->backend;
    o.threads = g->threads;
    int st = haze_ctx_new(out, &o);
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
