/*
 * src/core/text.h - what every text reader of the library shares: an error
 * message that names the place (file, line, column), white-space trimming,
 * suffix tests, line and column of a byte, and numbers read in the C locale
 * whatever the host program set with setlocale.
 */
#ifndef HAZE_CORE_TEXT_H
#define HAZE_CORE_TEXT_H

#include <stdarg.h>

#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Records "NAME:LINE:COL: MESSAGE" in ctx and returns status. NAME NULL:
 * left out; LINE <= 0: ":LINE" and ":COL" left out; COL <= 0: ":COL" left
 * out. With nothing to name, the message alone.
 */
int haze__text_error(haze_ctx *ctx, int status, const char *name, long line, long col,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
int haze__text_verror(haze_ctx *ctx, int status, const char *name, long line, long col,
                      const char *fmt, va_list ap);

/* Trims ASCII white space (space, \t \n \v \f \r) in place: the end is cut
 * with a '\0'; returns the first byte that is not white space. */
char *haze__text_trim(char *s);

/* 1 when s ends with suffix (nocase: ASCII letters compared without case),
 * else 0. */
int haze__text_ends_with(const char *s, const char *suffix, int nocase);

/* The 1-based line and column (counted in bytes) of `at` inside the text
 * that starts at `start` (start <= at); lines end at '\n'. */
void haze__text_locate(const char *start, const char *at, long *line, long *col);

/*
 * A model file's text as its readers take it (buf: '\0'-terminated). A
 * UTF-8 byte-order mark at the start is skipped. In text that is not valid
 * UTF-8, each byte that is not part of a UTF-8 character is read as
 * Windows-1252 (what MATLAB and editors on Western European Windows write),
 * the rest kept, in a new buffer. Returns the text to parse: inside buf, or
 * *conv, which the caller frees (NULL when buf was used); NULL when out of
 * memory. *bad_line: the line of the first byte that is not UTF-8 (0: none,
 * the text is buf's).
 */
char *haze__text_utf8(char *buf, char **conv, long *bad_line);

/* src into dst (cap bytes with the '\0'), cut if longer at the end of a
 * UTF-8 character rather than inside one. */
void haze__text_copy_cut(char *dst, size_t cap, const char *src);

/* A malloc'd copy of s made UTF-8 as haze__text_utf8 makes a text (a name
 * from a header line, say); NULL when out of memory. */
char *haze__text_utf8_dup(const char *s);

/*
 * A floating-point number at s, read as strtod reads it in the C locale
 * (decimal and hexadecimal forms, inf and nan; leading white space skipped
 * as strtod does). HAZE_OK with *end just past it, or HAZE_ERR_PARSE when
 * there is no number (*end = s, *out = 0). A magnitude beyond the range
 * gives +-inf and HAZE_OK, a tiny one its rounding (possibly 0): the caller
 * decides whether that is an error. errno is left as it was.
 */
int haze__text_number(const char *s, const char **end, double *out);

#ifdef __cplusplus
}
#endif

#endif
