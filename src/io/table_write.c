/*
 * src/io/table_write.c - matrices written as CSV (formatted on all threads,
 * written in order) or .npy.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/text.h"
#include "haze/io.h"
#include "io/number.h"
#include "io/table_internal.h"
#include "io/io_types.h"
/* --------------------------------------------------------------- writing */

static int npy_write_header(FILE *fp, const char *descr, size_t rows, size_t cols) {
    char dict[256];
    int n = snprintf(dict, sizeof dict,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }", descr, rows,
                     cols);
    size_t total = 10 + (size_t)n + 1; /* header + '\n' */
    size_t pad = (64 - total % 64) % 64;
    unsigned hlen = (unsigned)(n + pad + 1);
    unsigned char pre[10] = {0x93,
                             'N',
                             'U',
                             'M',
                             'P',
                             'Y',
                             1,
                             0,
                             (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    fwrite(pre, 1, 10, fp);
    fwrite(dict, 1, (size_t)n, fp);
    for (size_t i = 0; i < pad; i++) fputc(' ', fp);
    fputc('\n', fp);
    return HAZE_OK;
}

/* Header names: "x,1" written bare made a centres file that fcm predict read
 * as one column too many. */
void haze_table_write_field(FILE *fp, const char *s) {
    size_t n = strlen(s);
    int quote = n == 0 || strpbrk(s, ",;\t\"\r\n") || s[0] == '#' || s[0] == ' ' || s[n - 1] == ' ';
    if (!quote) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"') fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

/* One thread's text of rows [r0, r1) (each value "%.17g", or "%.9g" for
 * float data, the shortest forms that read back exactly). */
typedef struct {
    char *s;
    size_t n, cap;
    int nomem;
} text_buf;

static void rows_format(text_buf *b, const void *data, int f32, size_t r0, size_t r1, size_t cols) {
    locale_t lc = haze__numeric_begin(); /* "0.5", not the host's "0,5"; per thread */
    b->n = 0;
    for (size_t i = r0; i < r1; i++) {
        if (b->cap - b->n < 32 * cols + 2) {
            size_t cap = 2 * b->cap + 32 * cols + 2;
            char *s = realloc(b->s, cap);
            if (!s) {
                b->nomem = 1;
                break;
            }
            b->s = s;
            b->cap = cap;
        }
        for (size_t j = 0; j < cols; j++) {
            if (j) b->s[b->n++] = ',';
            double v = f32 ? (double)((const float *)data)[i * cols + j]
                           : ((const double *)data)[i * cols + j];
            b->n += haze__number_print(b->s + b->n, v, f32);
        }
        b->s[b->n++] = '\n';
    }
    haze__numeric_end(lc);
}

/* The rows as CSV text: formatted on the context's threads, a block of rows
 * each, and written in order; the same bytes as one fprintf per value. */
static int csv_rows_write(haze_ctx *ctx, FILE *fp, const void *data, int f32, size_t rows,
                          size_t cols) {
    int nthr = haze__threads(ctx);
    if ((double)rows * (double)cols < 65536) nthr = 1;
    text_buf *b = calloc((size_t)nthr, sizeof *b);
    if (!b) return HAZE_ERR_NOMEM;
    const size_t per = 2048; /* rows per thread and round */
    int st = HAZE_OK;
    for (size_t r = 0; r < rows && !st; r += per * (size_t)nthr) {
#pragma omp parallel for num_threads(nthr) schedule(static, 1) if (nthr > 1)
        for (int k = 0; k < nthr; k++) {
            size_t r0 = r + (size_t)k * per, r1 = r0 + per;
            if (r0 > rows) r0 = rows;
            if (r1 > rows) r1 = rows;
            rows_format(&b[k], data, f32, r0, r1, cols);
        }
        for (int k = 0; k < nthr && !st; k++) {
            if (b[k].nomem)
                st = HAZE_ERR_NOMEM;
            else
                fwrite(b[k].s, 1, b[k].n, fp);
        }
    }
    for (int k = 0; k < nthr; k++) free(b[k].s);
    free(b);
    return st;
}

int haze_table_write(haze_ctx *ctx, const char *path, const void *data, haze_precision type,
                     size_t rows, size_t cols, const char *const *names) {
    if (!path || (!data && rows && cols))
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_write: NULL argument");
    if (type != HAZE_PRECISION_F64 && type != HAZE_PRECISION_F32)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_write: unknown element type %d",
                           (int)type);
    int f32 = type == HAZE_PRECISION_F32;
    haze_outfile f;
    int st = haze__outfile_open(ctx, &f, path);
    if (st) return st;
    if (haze__text_ends_with(path, ".npy", 0)) {
        npy_write_header(f.fp, f32 ? "<f4" : "<f8", rows, cols);
        fwrite(data, f32 ? 4 : 8, rows * cols, f.fp);
    } else {
        locale_t lc = haze__numeric_begin(); /* "0.5", not the host's "0,5" */
        if (names) {
            for (size_t j = 0; j < cols; j++) {
                if (j) fputc(',', f.fp);
                haze_table_write_field(f.fp, names[j]);
            }
            fputc('\n', f.fp);
        }
        haze__numeric_end(lc);
        st = csv_rows_write(ctx, f.fp, data, f32, rows, cols);
    }
    if (st) {
        haze__outfile_abort(&f);
        return haze__error(ctx, st, "%s: out of memory", path);
    }
    return haze__outfile_commit(ctx, &f);
}
