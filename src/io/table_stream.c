/*
 * src/io/table_stream.c - tables read and written in blocks of rows
 * (haze_table_reader, haze_table_writer): a job over a file larger than
 * memory, or one that evaluates a block while the next is read, holds a
 * few blocks instead of the file, its table and its results at once.
 *
 * A CSV regular file is read a block of text at a time, cut after its last
 * whole line (the rest carried to the next block), and parsed by the
 * whole-file parser's own code (haze__io_csv_block), which carries the
 * first line's decisions (delimiter, columns, header) and the line count
 * from block to block: the same values, names and error messages as
 * haze_table_read. Other inputs (.npy files, standard input, pipes) are
 * read whole and given as one block.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* memrchr */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/sized.h"
#include "core/text.h"
#include "haze/io.h"
#include "io/io_types.h"
#include "io/table_internal.h"

#define BLOCK_DEFAULT ((size_t)64 << 20)

struct haze_table_reader {
    char *path;
    haze_table_options o; /* its text_column, columns, drop: the reader's copies below */
    char *text_col, *columns, *drop;
    haze_table *whole; /* an input read whole: the one block, until given */
    int fd;            /* a CSV regular file read in blocks; -1 otherwise */
    size_t fsize;      /* its size when opened */
    size_t at;         /* bytes of it read */
    size_t block;      /* bytes read at a time */
    char *buf;         /* the text: a carried partial line, then what was read */
    size_t cap, have;
    size_t scanned; /* buf's first bytes known to hold no '\n' (a long line) */
    int eof;        /* nothing more to read */
    int over;       /* every block given, or failed: next gives nothing more */
    haze__csv_state s;
};

int haze_table_reader_open(haze_ctx *ctx, const char *path, const haze_table_options *opt,
                           size_t block_bytes, haze_table_reader **out) {
    if (!path || !out)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_reader_open: NULL argument");
    *out = NULL;
    haze_table_options o = haze_table_options_default();
    int st = haze__sized_take(ctx, &o, sizeof o, opt, "haze_table_options");
    if (st) return st;
    if (o.first_row || o.max_rows)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: a reader in blocks reads every row (no row range)", path);
    haze_table_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    }
    r->o = o;
    r->fd = -1;
    if ((o.text_column && !(r->o.text_column = r->text_col = strdup(o.text_column))) ||
        (o.columns && !(r->o.columns = r->columns = strdup(o.columns))) ||
        (o.drop && !(r->o.drop = r->drop = strdup(o.drop)))) {
        haze_table_reader_close(r);
        return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    }
    r->block = block_bytes ? block_bytes : BLOCK_DEFAULT;
    /* a CSV regular file (not .npy by name or by its magic bytes) */
    int fd = strcmp(path, "-") != 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
        !haze__text_ends_with(path, ".npy", 0)) {
        unsigned char pre[6];
        size_t npre = 0;
        if (haze__io_read_at(fd, 0, pre, sizeof pre, &npre) == 0 &&
            !(npre == 6 && memcmp(pre, "\x93NUMPY", 6) == 0)) {
            r->fd = fd;
            r->fsize = (size_t)sb.st_size;
            fd = -1;
        }
    }
    if (fd >= 0) close(fd);
    /* no more than the file's text (and a little room should it grow): a
     * huge block_bytes ("the whole file", SIZE_MAX) reads it as one block
     * instead of sizing a buffer past the address space (read_more's sums) */
    const size_t most = r->fsize < ((size_t)1 << 40) ? r->fsize + ((size_t)1 << 16) : SIZE_MAX / 4;
    if (r->fd >= 0 && r->block > most) r->block = most;
    if (r->fd < 0 && (st = haze_table_read(ctx, path, &r->o, &r->whole))) {
        haze_table_reader_close(r);
        return st;
    }
    *out = r;
    return HAZE_OK;
}

/* Reads the next block of text after what buf holds; sets r->eof at the
 * end of the file. */
static int read_more(haze_ctx *ctx, haze_table_reader *r) {
    size_t want = r->block;
    if (r->have > SIZE_MAX / 2 - want)
        return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory while reading", r->path);
    if (r->cap < r->have + want + 1) {
        /* room for a carried line too (an eighth more), so that the next
         * blocks reuse the buffer instead of fresh memory each time */
        size_t cap = r->have + want + 1 + want / 8;
        if (cap < 2 * r->cap && r->cap < SIZE_MAX / 4) cap = 2 * r->cap; /* a long line: grow */
        char *b = haze__io_big_alloc_lazy(cap);
        if (!b) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory while reading", r->path);
        if (r->have) memcpy(b, r->buf, r->have);
        free(r->buf);
        r->buf = b;
        r->cap = cap;
    }
    size_t got = 0;
    int nul = 0;
    int e = haze__io_read_par_at(ctx, r->fd, r->at, r->buf + r->have, want, &got, &nul);
    if (e) return haze__io_read_error(ctx, r->path, e);
    if (nul)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: binary data where CSV text was expected",
                           r->path);
    r->at += got;
    r->have += got;
    if (got < want) r->eof = 1;
    return HAZE_OK;
}

int haze_table_reader_next(haze_ctx *ctx, haze_table_reader *r, haze_table **out) {
    if (!r || !out)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_reader_next: NULL argument");
    *out = NULL;
    if (r->over) return HAZE_OK;
    if (r->fd < 0) { /* read whole */
        *out = r->whole;
        r->whole = NULL;
        r->over = 1;
        return HAZE_OK;
    }
    int st = HAZE_OK;
    for (;;) {
        if (!r->eof && (st = read_more(ctx, r))) break;
        if (r->have == 0 && r->eof) { /* the end: the whole-file reader's checks */
            if (!r->s.started)
                st = haze__error(ctx, HAZE_ERR_PARSE, "%s: no data rows (empty file)", r->path);
            else if (r->s.rows == 0)
                st = haze__error(ctx, HAZE_ERR_PARSE, "%s: no data rows after the header", r->path);
            r->over = 1;
            return st;
        }
        /* whole lines only, but at the end of the file */
        size_t cut = r->have;
        if (!r->eof) {
            /* the text before r->scanned holds no line end (read on) */
            const char *nl = memrchr(r->buf + r->scanned, '\n', r->have - r->scanned);
            if (!nl) { /* a line longer than a block: read on */
                r->scanned = r->have;
                continue;
            }
            cut = (size_t)(nl - r->buf) + 1;
        }
        r->scanned = 0;
        haze_table *t = calloc(1, sizeof *t);
        if (!t) {
            st = haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", r->path);
            break;
        }
        t->text_col = -1;
        /* the parser ends the text with a NUL (its last line's end) */
        const char keep = r->buf[cut];
        r->buf[cut] = '\0';
        st = haze__io_csv_block(ctx, r->path, r->buf, cut, &r->o, &r->s, t);
        r->buf[cut] = keep;
        memmove(r->buf, r->buf + cut, r->have - cut);
        r->have -= cut;
        if (r->eof && r->have == 0) { /* the last text: its memory goes back now */
            free(r->buf);
            r->buf = NULL;
            r->cap = 0;
        }
        if (st == HAZE_ERR_NOMEM) haze__error(ctx, st, "%s: out of memory", r->path);
        if (st || t->rows == 0) {
            haze_table_free(t);
            if (st) break;
            continue; /* blank lines and comments: the next block */
        }
        *out = t;
        return HAZE_OK;
    }
    r->over = 1;
    return st;
}

double haze_table_reader_progress(const haze_table_reader *r) {
    if (!r) return 0;
    if (r->fd < 0) return r->over ? 1.0 : 0.0;
    if (r->over || r->fsize == 0) return 1.0;
    double f = (double)(r->at - r->have) / (double)r->fsize;
    return f < 0 ? 0 : (f > 1 ? 1 : f);
}

void haze_table_reader_reuse(haze_table_reader *r, haze_table *t) {
    if (!t) return;
    /* the larger of the two: a block's numbers fill it from the start */
    const size_t n = t->cap ? t->cap : t->rows * t->cols; /* room before columns left out */
    if (r && r->fd >= 0 && t->data && n >= r->s.spare_n) {
        free(r->s.spare);
        r->s.spare = t->data;
        r->s.spare_n = n;
        t->data = NULL;
    }
    haze_table_free(t);
}

void haze_table_reader_close(haze_table_reader *r) {
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    haze_table_free(r->whole);
    haze__io_csv_state_free(&r->s);
    free(r->buf);
    free(r->text_col);
    free(r->columns);
    free(r->drop);
    free(r->path);
    free(r);
}
