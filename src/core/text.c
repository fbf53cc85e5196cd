/*
 * src/core/text.c - the text readers' toolkit (text.h).
 */
#include <errno.h>
#include <stdlib.h>
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

/* The length of the UTF-8 sequence at s (1-4), or 0 when it is not one:
 * overlong forms, surrogates and code points past U+10FFFF are not. */
static int utf8_len(const unsigned char *s) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c < 0xC2 || c > 0xF4) return 0;
    int n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0; /* the '\0' at the end stops here too */
    if (c == 0xE0 && s[1] < 0xA0) return 0;  /* overlong */
    if (c == 0xED && s[1] >= 0xA0) return 0; /* surrogates */
    if (c == 0xF0 && s[1] < 0x90) return 0;  /* overlong */
    if (c == 0xF4 && s[1] >= 0x90) return 0; /* past U+10FFFF */
    return n;
}

/* Windows-1252's bytes 0x80-0x9F (WHATWG's table: the five it leaves
 * undefined stand for the C1 controls of the same number) */
static const unsigned short cp1252_80[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

char *haze__text_utf8(char *buf, char **conv, long *bad_line) {
    *conv = NULL;
    *bad_line = 0;
    if (strncmp(buf, "\xEF\xBB\xBF", 3) == 0) buf += 3;
    const unsigned char *p = (const unsigned char *)buf;
    long line = 1;
    int n;
    for (; *p; p += n) {
        if (*p == '\n') line++;
        if (!(n = utf8_len(p))) break;
    }
    if (!*p) return buf;
    *bad_line = line;
    /* every byte at most 3 in UTF-8 */
    size_t len = strlen(buf);
    unsigned char *out = malloc(3 * len + 1), *o = out;
    if (!out) return NULL;
    for (p = (const unsigned char *)buf; *p; p++) {
        if (*p >= 0x80 && (n = utf8_len(p))) { /* a UTF-8 character stays */
            memcpy(o, p, (size_t)n);
            o += n, p += n - 1;
            continue;
        }
        unsigned c = *p < 0x80 ? *p : *p < 0xA0 ? cp1252_80[*p - 0x80] : *p;
        if (c < 0x80) {
            *o++ = (unsigned char)c;
        } else if (c < 0x800) {
            *o++ = (unsigned char)(0xC0 | c >> 6);
            *o++ = (unsigned char)(0x80 | (c & 0x3F));
        } else {
            *o++ = (unsigned char)(0xE0 | c >> 12);
            *o++ = (unsigned char)(0x80 | (c >> 6 & 0x3F));
            *o++ = (unsigned char)(0x80 | (c & 0x3F));
        }
    }
    *o = '\0';
    *conv = (char *)out;
    return *conv;
}

char *haze__text_utf8_dup(const char *s) {
    char *d = strdup(s), *conv;
    long bad;
    if (!d) return NULL;
    char *r = haze__text_utf8(d, &conv, &bad);
    if (!r || conv) {
        free(d);
        return conv;
    }
    if (r != d) memmove(d, r, strlen(r) + 1); /* a byte-order mark left out */
    return d;
}

void haze__text_copy_cut(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--; /* inside a character */
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}
