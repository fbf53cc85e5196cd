/*
 * src/io/table_write.c - matrices written as CSV (formatted on all threads,
 * written in order as the blocks are made) or .npy.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sync_file_range */
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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
 * float data: enough digits to read back the same bits). */
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
            if (v != v) { /* "nan" whatever its sign: printf gives "-nan" */
                memcpy(b->s + b->n, "nan", 3);
                b->n += 3;
            } else {
                b->n += haze__number_print(b->s + b->n, v, f32);
            }
        }
        b->s[b->n++] = '\n';
    }
    haze__numeric_end(lc);
}

/* Text of about this many bytes a block: large enough for one write(2) to
 * be cheap, small enough for the threads to take turns often. */
#define BLOCK_BYTES ((size_t)1 << 20)

/* Whose turn it is to write: the blocks go out in order. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t turn;
    size_t next; /* the block to write next */
    int nomem;
    int err;          /* errno of the first write that failed (on its own thread) */
    int file;         /* a regular file: its pages go to the disk as they come */
    size_t sent, end; /* offsets in it: sent to the disk up to, written up to */
} write_order;

/*
 * Asks the kernel to start writing each 8 MiB of text to the disk as it
 * comes, without waiting. Left to itself, ext4 writes a new file only when
 * a rename replaces an older one with it ("auto_da_alloc"), and the rename
 * waits for that: 0.3-0.5 s of a 190 MB result on the development machine,
 * 0.1 s when written as it came (the rest is freeing the older file), for
 * 0.04 s of these calls. Nothing is synced or waited for
 * (src/io/outfile.c).
 */
static void writeback(write_order *w, FILE *fp, size_t n) {
    w->end += n;
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    if (w->file && w->end - w->sent >= ((size_t)8 << 20) && fflush(fp) == 0) {
        (void)sync_file_range(fileno(fp), (off_t)w->sent, (off_t)(w->end - w->sent),
                              SYNC_FILE_RANGE_WRITE);
        w->sent = w->end;
    }
#else
    (void)fp;
#endif
}

/*
 * The rows as CSV text: blocks of rows formatted on the context's threads,
 * thread t taking blocks t, t + n, t + 2n, ..., each written by the thread
 * that made it as soon as the blocks before it are out, so that writing
 * overlaps making the text of the next blocks (the write is the one step
 * that cannot be shared). The same bytes as one fprintf per value.
 */
static int csv_rows_write(haze_ctx *ctx, FILE *fp, const void *data, int f32, size_t rows,
                          size_t cols, int *err) {
    size_t per = BLOCK_BYTES / (20 * (cols ? cols : 1)); /* rows a block, about 20 bytes a value */
    if (per < 64) per = 64;
    const size_t nblocks = (rows + per - 1) / per;
    int nthr = haze__threads_for(ctx, (double)rows * (double)cols, 65536.0);
    if ((size_t)nthr > nblocks) nthr = nblocks ? (int)nblocks : 1;
    write_order w;
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.turn, NULL);
    w.next = 0;
    struct stat sb;
    long at = ftell(fp); /* after the header */
    w.file = fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode) && at >= 0;
    w.sent = w.end = w.file ? (size_t)at : 0;
    w.nomem = 0;
    w.err = 0;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
    {
#ifdef _OPENMP
        const size_t self = (size_t)omp_get_thread_num(), team = (size_t)omp_get_num_threads();
#else
        const size_t self = 0, team = 1;
#endif
        text_buf b = {NULL, 0, 0, 0};
        for (size_t k = self; k < nblocks; k += team) {
            const size_t r0 = k * per, r1 = rows - r0 < per ? rows : r0 + per;
            rows_format(&b, data, f32, r0, r1, cols);
            pthread_mutex_lock(&w.lock);
            while (w.next != k) pthread_cond_wait(&w.turn, &w.lock);
            if (b.nomem) w.nomem = 1;
            const int skip = w.nomem || w.err;
            pthread_mutex_unlock(&w.lock);
            if (!skip) {
                /* alone: the others wait for their turn. A failed write's
                 * errno is this thread's own: kept for the message */
                if (fwrite(b.s, 1, b.n, fp) != b.n) w.err = errno ? errno : EIO;
                writeback(&w, fp, b.n);
            }
            pthread_mutex_lock(&w.lock);
            w.next = k + 1;
            pthread_cond_broadcast(&w.turn);
            pthread_mutex_unlock(&w.lock);
        }
        free(b.s);
    }
    pthread_cond_destroy(&w.turn);
    pthread_mutex_destroy(&w.lock);
    *err = w.err;
    return w.nomem ? HAZE_ERR_NOMEM : w.err ? HAZE_ERR_IO : HAZE_OK;
}

/* The error of csv_rows_write's status st (errno e) for the output f. */
static int rows_error(haze_ctx *ctx, const haze_outfile *f, const char *path, int st, int e) {
    if (st == HAZE_ERR_IO && f->fp == stdout)
        return haze__error(ctx, st, "error writing to standard output: %s", strerror(e));
    if (st == HAZE_ERR_IO)
        return haze__error(ctx, st, "%s: cannot write output: %s", path, strerror(e));
    return haze__error(ctx, st, "%s: out of memory", path);
}

/* The CSV header line of names (NULL: none). */
static void csv_header(FILE *fp, const char *const *names, size_t cols) {
    if (!names) return;
    locale_t lc = haze__numeric_begin(); /* "0.5", not the host's "0,5" */
    for (size_t j = 0; j < cols; j++) {
        if (j) fputc(',', fp);
        haze_table_write_field(fp, names[j]);
    }
    fputc('\n', fp);
    haze__numeric_end(lc);
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
    int st = haze__outfile_open(ctx, &f, path), e = 0;
    if (st) return st;
    if (haze__text_ends_with(path, ".npy", 0)) {
        npy_write_header(f.fp, f32 ? "<f4" : "<f8", rows, cols);
        fwrite(data, f32 ? 4 : 8, rows * cols, f.fp);
    } else {
        csv_header(f.fp, names, cols);
        st = csv_rows_write(ctx, f.fp, data, f32, rows, cols, &e);
    }
    if (st) {
        rows_error(ctx, &f, path, st, e);
        haze__outfile_abort(&f);
        return st;
    }
    return haze__outfile_commit(ctx, &f);
}

/* ------------------------------------------------- writing in blocks */

struct haze_table_writer {
    haze_outfile f;
    int f32;
    size_t cols;
};

int haze_table_writer_open(haze_ctx *ctx, const char *path, haze_precision type, size_t cols,
                           const char *const *names, haze_table_writer **out) {
    if (!path || !out)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_writer_open: NULL argument");
    *out = NULL;
    if (type != HAZE_PRECISION_F64 && type != HAZE_PRECISION_F32)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_writer_open: unknown element type %d",
                           (int)type);
    if (haze__text_ends_with(path, ".npy", 0))
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: a .npy file is written whole (haze_table_write)", path);
    haze_table_writer *w = calloc(1, sizeof *w);
    if (!w) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    int st = haze__outfile_open(ctx, &w->f, path);
    if (st) {
        free(w);
        return st;
    }
    w->f32 = type == HAZE_PRECISION_F32;
    w->cols = cols;
    csv_header(w->f.fp, names, cols);
    *out = w;
    return HAZE_OK;
}

int haze_table_writer_append(haze_ctx *ctx, haze_table_writer *w, const void *data, size_t rows) {
    if (!w || (!data && rows && w->cols))
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_writer_append: NULL argument");
    int e = 0, st = csv_rows_write(ctx, w->f.fp, data, w->f32, rows, w->cols, &e);
    return st ? rows_error(ctx, &w->f, w->f.path ? w->f.path : "-", st, e) : HAZE_OK;
}

int haze_table_writer_commit(haze_ctx *ctx, haze_table_writer **w) {
    if (!w || !*w)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_writer_commit: NULL argument");
    int st = haze__outfile_commit(ctx, &(*w)->f);
    free(*w);
    *w = NULL;
    return st;
}

void haze_table_writer_abort(haze_table_writer **w) {
    if (!w || !*w) return;
    haze__outfile_abort(&(*w)->f);
    free(*w);
    *w = NULL;
}
