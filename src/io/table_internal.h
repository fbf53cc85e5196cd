/*
 * src/io/table_internal.h - what the table reader's files share: the large
 * buffers, positioned reads and column lookup (table_base.c), and the CSV
 * and .npy parsers that haze_table_read (table.c) chooses between.
 */
#ifndef HAZE_IO_TABLE_INTERNAL_H
#define HAZE_IO_TABLE_INTERNAL_H

#include <stddef.h>

#include "haze/io.h"

/* malloc for a read's large buffers (the file's text, the table), with the
 * kernel told to back them with huge pages and make them present at once. */
void *haze__io_big_alloc(size_t n);
/* The same without making the pages present: for a buffer that several
 * threads fill at once, each faulting in its own pages. */
void *haze__io_big_alloc_lazy(size_t n);
/* n bytes at offset at of fd into dst; *got: how many there were. 0 or errno. */
int haze__io_read_at(int fd, size_t at, void *dst, size_t n, size_t *got);
/* n bytes at offset at of fd into dst, in 2 MiB-aligned pieces on the
 * context's threads (one reads them all when they are too few); each piece
 * read whole is handed to done(arg, first byte, length) on the thread that
 * read it (done may be NULL; it must be safe to call on several threads at
 * once). *got: the bytes read (fewer: the file shrank). 0 or errno. */
int haze__io_read_pieces(const haze_ctx *ctx, int fd, size_t at, void *dst, size_t n,
                         void (*done)(void *arg, size_t a, size_t len), void *arg, size_t *got);
/* The first n bytes of fd into dst, in pieces on the context's threads (each
 * faulting in its own pages of a lazy buffer: one thread reaches neither the
 * page cache's copy rate nor the rate fresh memory is cleared at); *got: how
 * many there were; *nul (unless NULL): whether they hold a NUL byte. 0 or
 * errno. */
int haze__io_read_par(const haze_ctx *ctx, int fd, void *dst, size_t n, size_t *got, int *nul);
/* The same from offset at of fd. */
int haze__io_read_par_at(const haze_ctx *ctx, int fd, size_t at, void *dst, size_t n, size_t *got,
                         int *nul);
/* "PATH: read error: ..." for errno e. */
int haze__io_read_error(haze_ctx *ctx, const char *path, int e);
/* CSV text buf (len bytes, NUL-terminated, writable) into t (table_csv.c). */
int haze__io_csv_parse(haze_ctx *ctx, const char *path, char *buf, size_t len,
                       const haze_table_options *o, haze_table *t);
/*
 * CSV text in blocks of whole lines (haze_table_reader): the first block
 * that holds a line of data decides the delimiter, the columns and the
 * header, as haze__io_csv_parse does for a whole file; the blocks after it
 * are read the same way, their line numbers counted on from the blocks
 * before. A block of blank lines and comments gives a table of no rows.
 */
typedef struct haze__csv_state {
    int started; /* the first line of data was seen: what follows is known */
    char delim;
    size_t cols;
    int text_col;
    char **names;  /* the header's (cols of them), or NULL */
    size_t lineno; /* lines before the next block */
    size_t rows;   /* rows read so far */
    size_t blocks; /* blocks read so far */
    size_t *keep;  /* the columns kept (haze_table_options columns, drop), or NULL: all */
    size_t nkeep;
    unsigned char *skip; /* cols flags: a column left out (not parsed), or NULL */
    double *spare;       /* memory of a block given back (haze_table_reader_reuse), or NULL */
    size_t spare_n;      /* its numbers */
} haze__csv_state;
int haze__io_csv_block(haze_ctx *ctx, const char *path, char *buf, size_t len,
                       const haze_table_options *o, haze__csv_state *s, haze_table *t);
void haze__io_csv_state_free(haze__csv_state *s);
/* A .npy file held in memory (table_npy.c). */
int haze__io_npy_parse(haze_ctx *ctx, const char *path, const unsigned char *b, size_t len,
                       const haze_table_options *o, haze_table *t);
/* A .npy file of fsize bytes read from fd straight into t; pre holds its
 * first npre bytes (table_npy.c). */
int haze__io_npy_read_fd(haze_ctx *ctx, const char *path, const char *name, int fd, size_t fsize,
                         const unsigned char *pre, size_t npre, const haze_table_options *o,
                         haze_table *t);

/*
 * The columns a read keeps (table_select.c): the lists columns and drop
 * (haze_table_options) resolved against a file of cols columns (names: the
 * header's, or NULL) into *keep, *nkeep column numbers in the order kept
 * (*keep freed by the caller); an error names path (and line, the header's,
 * when not 0); ctx NULL: the status alone, no message. haze__io_select_needs_names: whether a list
 * names a column (not only numbers and ranges). haze__io_table_keep cuts t to the columns
 * keep[0..n) in place (n <= t->cols, no repeats; HAZE_ERR_NOMEM).
 */
int haze__io_select(haze_ctx *ctx, const char *path, long line, size_t cols, char *const *names,
                    const char *columns, const char *drop, size_t **keep, size_t *nkeep);
int haze__io_select_needs_names(const char *list);
int haze__io_select_identity(const size_t *keep, size_t nkeep, size_t cols);
int haze__io_table_keep(haze_table *t, const size_t *keep, size_t n);

/* Whether the field s (blanks at its ends aside) stands for a missing value
 * (haze_table_options.missing): empty, pandas' markers, '?'. */
int haze__io_missing_field(const char *s);

/* The column named key, or numbered key (0-based), or -1 (haze_table_column). */
int haze__io_column(const haze_table *t, const char *key);

#endif
