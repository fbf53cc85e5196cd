/*
 * src/core/text.c - the text readers' toolkit (text.h).
 */
#include <errno.h>
#include <string.h>

#include "core/text.h"

int haze__text_verror(haze_ctx *ctx, int status, const char *name, long line, long col,
                      const char *fmt, va_list ap) {
    if (!ctx) return status;
    char msg[HAZE__ERRMSG_MAX];
    haze__vsnprintf(msg, sizeof msg, fmt, ap);
    char where[HAZE__ERRMSG_MAX / 2];
    size_t n = 0;
    where[0] = '\0';
    if (name) n += (size_t)snprintf(where, sizeof where, "%s", name);
    if (line > 0 && n < sizeof where) {
        n += (size_t)snprintf(where + n, sizeof where - n, "%s%ld", n ? ":" : "", line);
        if (col > 0 && n < sizeof where)
            n += (size_t)snprintf(where + n, sizeof where - n, ":%ld", col);
    }
    if (!name && line <= 0) return haze__error(ctx, status, "%s", msg);
    return haze__error(ctx, status, "%s: %s", where, msg);
}

int haze__text_error(haze_ctx *ctx, int status, const char *name, long line, long col,
                     const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    haze__text_verror(ctx, status, name, line, col, fmt, ap);
    va_end(ap);
    return status;
}

/* isspace() without the locale: a host program's locale never changes what a
 * file means. */
static int is_space(unsigned char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static unsigned char lower(unsigned char c) {
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

char *haze__text_trim(char *s) {
    while (is_space((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && is_space((unsigned char)s[n - 1])) n--;
    s[n] = '\0';
    return s;
}

int haze__text_ends_with(const char *s, const char *suffix, int nocase) {
    size_t n = strlen(s), k = strlen(suffix);
    if (k > n) return 0;
    const unsigned char *a = (const unsigned char *)s + n - k, *b = (const unsigned char *)suffix;
    for (size_t i = 0; i < k; i++)
        if (nocase ? lower(a[i]) != lower(b[i]) : a[i] != b[i]) return 0;
    return 1;
}

void haze__text_locate(const char *start, const char *at, long *line, long *col) {
    long ln = 1;
    const char *bol = start;
    for (const char *p = start; p < at; p++)
        if (*p == '\n') {
            ln++;
            bol = p + 1;
        }
    if (line) *line = ln;
    if (col) *col = (long)(at - bol) + 1;
}

int haze__text_number(const char *s, const char **end, double *out) {
    int saved = errno;
    char *e = NULL;
    double v = haze__strtod(s, &e);
    errno = saved;
    if (e == s) {
        *end = s;
        *out = 0;
        return HAZE_ERR_PARSE;
    }
    *end = e;
    *out = v;
    return HAZE_OK;
}
