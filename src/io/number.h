/*
 * src/io/number.h - exact, locale-free decimal numbers for the text readers
 * and writers.
 *
 * Every function gives the double that strtod gives in the C locale (the
 * correctly rounded value, round to nearest even), bit for bit; the common
 * decimal forms take a fast path (number.cc), everything else goes to the
 * C library.
 */
#ifndef HAZE_IO_NUMBER_H
#define HAZE_IO_NUMBER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A plain decimal number at the start of [s, end): an optional '-', digits
 * with at most one '.', an optional exponent. Returns the byte after it with
 * the value in *out, or NULL where s does not start like one (a blank, '+',
 * "inf", "nan", ...; then nothing is said about the text: the caller takes
 * the general path). Where it returns q, strtod would stop at q with the
 * same value.
 */
const char *haze__number_fast(const char *s, const char *end, double *out);

/*
 * The whole NUL-terminated field s of n bytes as one number, as strtod in
 * the C locale reads it (leading white space, '+', hex, inf and nan
 * included): 1 with *out set when strtod consumes all of it, else 0. The
 * empty field is not a number.
 */
int haze__number_field(const char *s, size_t n, double *out);

/*
 * v as printf's "%.17g" gives it in the C locale ("%.9g" where f32: the value
 * of a float), into buf (32 bytes at least), NUL-terminated; returns the
 * length. Without {fmt} in the build this is snprintf, and the caller holds
 * the C numeric locale (haze__numeric_begin).
 */
size_t haze__number_print(char *buf, double v, int f32);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_IO_NUMBER_H */
