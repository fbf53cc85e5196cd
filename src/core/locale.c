/*
 * src/core/locale.c - numbers in files are read and written with a decimal
 * point whatever locale the host program chose.
 *
 * A program that calls setlocale(LC_ALL, "") under a locale with a decimal
 * comma (Qt and GTK applications do) makes strtod stop at the '.' of "5.1",
 * printf write "0,5", and MPFR, which asks localeconv() for the decimal
 * point, do both. The library must neither depend on the process's locale
 * nor change it (setlocale is process-wide and not thread-safe). So there is
 * one mechanism: uselocale (POSIX.1-2008), which changes the locale of the
 * calling thread only, switches the thread to one "C" locale object, made
 * once, around each read or write of numbers, and back to whatever the
 * thread had. It is plain POSIX (strtod_l would be a GNU extension and would
 * not reach MPFR, snprintf or the error messages), it costs two stores of a
 * thread-local pointer, and other threads of the host never see a change.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

#include "core/internal.h"

static locale_t c_locale; /* (locale_t)0 if it could not be made */
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_make(void) {
    c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t haze__numeric_begin(void) {
    pthread_once(&c_locale_once, c_locale_make);
    /* without the object (it cannot fail in glibc), numbers follow the
     * thread's locale as they would without this file */
    return c_locale ? uselocale(c_locale) : (locale_t)0;
}

void haze__numeric_end(locale_t prev) {
    if (prev) uselocale(prev);
}

double haze__strtod(const char *s, char **end) {
    locale_t prev = haze__numeric_begin();
    double v = strtod(s, end);
    int e = errno; /* kept for the caller's ERANGE test */
    haze__numeric_end(prev);
    errno = e;
    return v;
}

int haze__vfprintf(FILE *fp, const char *fmt, va_list ap) {
    locale_t prev = haze__numeric_begin();
    int n = vfprintf(fp, fmt, ap);
    haze__numeric_end(prev);
    return n;
}

int haze__fprintf(FILE *fp, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = haze__vfprintf(fp, fmt, ap);
    va_end(ap);
    return n;
}

int haze__vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap) {
    locale_t prev = haze__numeric_begin();
    int n = vsnprintf(buf, cap, fmt, ap);
    haze__numeric_end(prev);
    return n;
}

int haze__snprintf(char *buf, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = haze__vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n;
}
