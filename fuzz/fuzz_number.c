/*
 * fuzz/fuzz_number.c - the numbers of the CSV reader and writer against the
 * C library. The input less its first byte is a text: haze__number_fast on
 * it (not NUL-terminated: it must not read past its end) must stop where
 * strtod stops, with strtod's value, in the rounding mode the first byte
 * picks (the value read is the nearest double in every mode; strtod runs in
 * round to nearest); haze__number_field must accept the whole text exactly
 * when strtod consumes all of it, with the same value. A value read is then
 * printed by haze__number_print, which must give snprintf's "%.17g" (and
 * "%.9g" of it as a float). Any difference aborts.
 */
#include <fenv.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/number.h"

static void same_print(double v) {
    char a[40], b[40];
    haze__number_print(a, v, 0);
    snprintf(b, sizeof b, "%.17g", v);
    if (strcmp(a, b) != 0) {
        fprintf(stderr, "%a printed \"%s\", printf \"%s\"\n", v, a, b);
        abort();
    }
    haze__number_print(a, (double)(float)v, 1);
    snprintf(b, sizeof b, "%.9g", (double)(float)v);
    if (strcmp(a, b) != 0) {
        fprintf(stderr, "%a as a float printed \"%s\", printf \"%s\"\n", v, a, b);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 4096) return 0;
    static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    const int mode = modes[data[0] & 3];
    const size_t n = size - 1;
    /* the text alone in a buffer of its size (AddressSanitizer sees a read
     * past it), and a NUL-terminated copy for strtod */
    char *s = malloc(n ? n : 1), *z = malloc(n + 1);
    if (!s || !z) abort();
    memcpy(s, data + 1, n);
    memcpy(z, data + 1, n);
    z[n] = '\0';
    char *end;
    const double ref = strtod(z, &end);
    double v = 0;
    fesetround(mode);
    const char *q = haze__number_fast(s, s + n, &v);
    fesetround(FE_TONEAREST);
    /* where the fast path reads a number, strtod reads the same one (a NUL
     * byte in the text is no digit: both stop before it) */
    const size_t len = strlen(z);
    if (q && ((size_t)(q - s) != (size_t)(end - z) || memcmp(&v, &ref, sizeof v) != 0)) {
        fprintf(stderr, "\"%.60s\" (rounding mode %d): fast path %td bytes, %a; strtod %td, %a\n",
                z, data[0] & 3, q - s, v, end - z, ref);
        abort();
    }
    double f = 0;
    const int whole = haze__number_field(z, len, &f);
    const int ref_whole = len > 0 && end == z + len;
    if (whole != ref_whole || (whole && memcmp(&f, &ref, sizeof f) != 0)) {
        fprintf(stderr, "\"%.60s\": field %d %a; strtod %d %a\n", z, whole, f, ref_whole, ref);
        abort();
    }
    if (whole) same_print(f);
    free(s);
    free(z);
    return 0;
}
