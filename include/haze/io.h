/*
 * haze/io.h - numeric tables in and out (CSV and NumPy .npy), and output files
 * that appear whole or not at all.
 *
 * Every reader reports a bad field with file, line and column in the
 * context's message; every writer writes to a temporary file in the target's
 * folder and renames it over the target only when everything was written.
 *
 * Threads: as haze/core.h says ("Threads"); a table is read-only once read.
 * An output group (haze_outgroup_*) belongs to one thread while it is open.
 */
#ifndef HAZE_IO_H
#define HAZE_IO_H

#include <stdio.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A dense row-major table of doubles, with optional column names and one
 * optional text column (class labels such as "A".."Z"): an opaque handle,
 * read through the accessors below. */
typedef struct haze_table haze_table;

typedef struct haze_table_options {
    size_t size;             /* sizeof(haze_table_options): set by haze_table_options_default() */
    int header;              /* 1: first line is a header; 0: none; -1: detect (default) */
    const char *text_column; /* name or 0-based index of a column that may hold text, or NULL */
    int allow_nonfinite;     /* 0 (default): NaN and Inf are errors */
    int text_as_nan;         /* 1: a CSV field that is not a number is NaN, not an error, and
                              * haze_table_text_lines says where (columns a caller may leave out,
                              * such as an id column); 0 (default): an error */
    int keep_float32;        /* 1: a float32 .npy file keeps its float32 values (no double
                              * copy; haze_table_precision says HAZE_PRECISION_F32 and
                              * haze_table_values gives them); other files are read into
                              * doubles as always. 0 (default): doubles, always */
    /* A .npy file's rows [first_row, first_row + max_rows) only (max_rows 0:
     * to the last row), read from their place in the file and nothing else:
     * one process's share of a data set. 0, 0 (default): every row. C-order
     * .npy files only (HAZE_ERR_UNSUPPORTED for CSV and Fortran order);
     * first_row past the last row is HAZE_ERR_INVALID. The file's row count
     * is haze_table_file_row_count. */
    size_t first_row, max_rows;
    /* The columns kept, as comma-separated lists of header names, 0-based
     * column numbers and inclusive ranges A-B of them (a name first: a
     * header may name a column "2-3"): columns, those kept and in that
     * order (NULL: every column, in the file's order); drop, those left
     * out of them (NULL: none). The table holds the columns kept, their
     * names and numbers as read; the fields of a CSV column left out are
     * not read as numbers (ids, dates, labels may stay in the file), nor
     * checked finite in a .npy file. A name no column has, a number past
     * the last column, a column kept twice, or nothing left is
     * HAZE_ERR_PARSE; a .npy file has no names (numbers only). Used with
     * text_column, the text column must be among those kept. */
    const char *columns, *drop;
    /* 1: a missing value -- an empty CSV field, one of the markers pandas
     * reads as missing (NA, N/A, NaN, nan, null, NULL, None, #N/A, <NA>,
     * ...) or '?' (UCI's) -- is read as NaN, and so is a NaN of a .npy
     * file, whatever allow_nonfinite says (infinities stay errors); the
     * caller leaves such rows out or fills them. 0 (default): errors. */
    int missing;
} haze_table_options;

/* 1 when the text field (blanks at its ends aside) is a missing value as
 * haze_table_options.missing reads it -- empty, NA, N/A, NaN, null, None,
 * ?, ... --, else 0: for a caller's own text column (a label left blank). */
HAZE_API int haze_table_missing_value(const char *field);

/* Fills the first `size` bytes of *opt with the defaults and sets opt->size
 * (haze/core.h); HAZE_ERR_INVALID when size < sizeof(size_t). */
HAZE_API int haze_table_options_init(haze_table_options *opt, size_t size);
static inline haze_table_options haze_table_options_default(void) {
    haze_table_options opt;
    haze_table_options_init(&opt, sizeof opt);
    return opt;
}

/*
 * Reads a CSV (comma, semicolon, tab or whitespace separated; "#" comments;
 * quoted fields; a leading UTF-8 byte-order mark is skipped) or a NumPy .npy
 * file (little-endian float32/float64, integers of 1 to 8 bytes and bools
 * read as doubles -- rounded to nearest beyond 2^53 --, C or Fortran order,
 * 1-D or 2-D; the header dict is parsed strictly, structured dtypes are
 * refused), told apart
 * by the ".npy" extension or the NumPy magic bytes. "-" reads CSV from
 * standard input. Ragged rows, empty files, non-numeric or non-finite fields
 * are errors naming the line and column. Numbers are read (and written by
 * the functions below) with a decimal point whatever locale the program set,
 * each as strtod reads it in the C locale (the correctly rounded double).
 * A regular file is read once: CSV text into one buffer, parsed on the
 * context's threads; a .npy array straight into the table (no copy unless it
 * is in Fortran order; with keep_float32, float32 data stays float32).
 *
 * Ownership: *out is new, freed with haze_table_free(). `opt` may be NULL.
 */
HAZE_API int haze_table_read(haze_ctx *ctx, const char *path, const haze_table_options *opt,
                             haze_table **out);
/* Frees a table; NULL is a no-op. */
HAZE_API void haze_table_free(haze_table *t);

/* The table's shape and values: rows x cols numbers, row-major (the text
 * column's cells hold NaN). The values belong to the table (valid while it
 * lives) and may be changed in place by its owner. 0 and NULL for t NULL. */
HAZE_API size_t haze_table_row_count(const haze_table *t);
HAZE_API size_t haze_table_column_count(const haze_table *t);
/* The rows of the file: those of the table, or more when it was read with a
 * row range (haze_table_options.first_row, max_rows). 0 for t NULL. */
HAZE_API size_t haze_table_file_row_count(const haze_table *t);
/* HAZE_PRECISION_F64, or F32 for a float32 .npy file read with keep_float32. */
HAZE_API haze_precision haze_table_precision(const haze_table *t);
/* The values in the table's precision (double * or float *). */
HAZE_API void *haze_table_values(const haze_table *t);
/* The values as doubles; NULL when the table keeps float32 values. */
HAZE_API double *haze_table_data(const haze_table *t);
/* The cols names from the header line, or NULL if there was none (valid
 * while t lives). */
HAZE_API const char *const *haze_table_names(const haze_table *t);
/* Index of the text column, or -1; its rows strings, or NULL (valid while t
 * lives). */
HAZE_API int haze_table_text_column(const haze_table *t);
HAZE_API const char *const *haze_table_text(const haze_table *t);
/* With haze_table_options.text_as_nan: cols line numbers (1-based) of each
 * column's first field that is not a number (read as NaN), 0 for a column of
 * numbers; otherwise NULL. Valid while t lives. */
HAZE_API const size_t *haze_table_text_lines(const haze_table *t);

/* When columns were left out (haze_table_options columns, drop): for each
 * of the table's cols columns, its 0-based column in the file; NULL when
 * the table holds every column in the file's order. Valid while t lives. */
HAZE_API const size_t *haze_table_file_columns(const haze_table *t);

/* Index of a column given by name or by 0-based number (of the table's
 * columns); -1 if none. */
HAZE_API int haze_table_column(const haze_table *t, const char *name_or_index);

/*
 * A table read in blocks of rows: a job over a file larger than memory, or
 * one that works on a block while the next is read, holds a few blocks
 * instead of the whole table. A CSV or TSV regular file is read
 * `block_bytes` of text at a time (0: 64 MiB; whole lines, so a block holds
 * more when a line is longer) and parsed as haze_table_read parses the whole
 * file: the same columns, names and values, errors naming the file's own
 * line numbers (an error is found when its block is read, after the blocks
 * before it were given). Other inputs (.npy files, standard input, pipes)
 * are read whole, as one block. haze_table_options.first_row and max_rows
 * must be 0.
 *
 * haze_table_reader_next sets *out to the next block, a table of at least
 * one row (freed with haze_table_free), or to NULL after the last; after an
 * error it gives nothing more. haze_table_reader_progress: the fraction of
 * the file's bytes given so far, 0 to 1.
 *
 * Ownership: *out of haze_table_reader_open is new, freed with
 * haze_table_reader_close (NULL: a no-op).
 */
typedef struct haze_table_reader haze_table_reader;
HAZE_API int haze_table_reader_open(haze_ctx *ctx, const char *path, const haze_table_options *opt,
                                    size_t block_bytes, haze_table_reader **out);
HAZE_API int haze_table_reader_next(haze_ctx *ctx, haze_table_reader *r, haze_table **out);
HAZE_API double haze_table_reader_progress(const haze_table_reader *r);
HAZE_API void haze_table_reader_close(haze_table_reader *r);
/*
 * Frees a block the reader gave (instead of haze_table_free) and keeps its
 * numbers' memory for a later block: a long job's blocks then reuse one
 * or two buffers instead of fresh memory, which the kernel clears page by
 * page. t (NULL: a no-op) must be a block of r, not yet freed, and r still
 * open.
 */
HAZE_API void haze_table_reader_reuse(haze_table_reader *r, haze_table *t);

/*
 * Writes a rows x cols matrix of `type` numbers (double or float) to `path`
 * ("-": standard output): CSV with 17 significant digits (round-trip exact;
 * 9 for float) and an optional header of `names`, or .npy (float64 or
 * float32, as the data) when the path ends in ".npy". Atomic (temp +
 * rename).
 */
HAZE_API int haze_table_write(haze_ctx *ctx, const char *path, const void *data,
                              haze_precision type, size_t rows, size_t cols,
                              const char *const *names);

/*
 * The CSV text of haze_table_write written in blocks of rows: open (the
 * header of `names`, or none for NULL), append the blocks in order, then
 * commit; the file holds the bytes haze_table_write gives for all the rows
 * at once. Nothing appears under `path` before the commit (temp + rename,
 * as haze_table_write); abort removes what was written. A path ending in
 * ".npy" is refused (HAZE_ERR_UNSUPPORTED: its header needs the row count
 * first; haze_table_write writes it). `data` of append: rows x cols
 * numbers of the writer's type, row-major.
 *
 * Ownership: *out is new; haze_table_writer_commit or
 * haze_table_writer_abort frees it and sets the pointer to NULL.
 */
typedef struct haze_table_writer haze_table_writer;
HAZE_API int haze_table_writer_open(haze_ctx *ctx, const char *path, haze_precision type,
                                    size_t cols, const char *const *names, haze_table_writer **out);
HAZE_API int haze_table_writer_append(haze_ctx *ctx, haze_table_writer *w, const void *data,
                                      size_t rows);
HAZE_API int haze_table_writer_commit(haze_ctx *ctx, haze_table_writer **w);
HAZE_API void haze_table_writer_abort(haze_table_writer **w);

/*
 * Writes the text `s` as one CSV field that haze_table_read gives back as it
 * is: bare, or in double quotes with inner quotes doubled (RFC 4180) when it
 * is empty, holds a delimiter the reader may choose (comma, semicolon, tab),
 * a quote or a line end, starts with '#' (a comment line) or has blanks at
 * its ends (trimmed from bare fields). Used for header names and labels.
 */
HAZE_API void haze_table_write_field(FILE *fp, const char *s);

/*
 * An output file written whole or not at all (an opaque handle). open()
 * creates a temporary file beside `path` (or uses stdout for "-"); write to
 * haze_outfile_stream(f); commit() flushes, closes and renames it over
 * `path` (synced first where the environment has HAZE_SYNC=1); abort()
 * removes the temporary. Either frees the handle (commit also when it fails;
 * abort of NULL is a no-op).
 *
 * A symbolic link is followed: its target is rewritten and the link stays.
 * A path that names a character device, FIFO or other special file is
 * written straight through, never replaced (so "/dev/null" stays a device).
 * A new file gets mode 0666 less the umask; a rewritten file keeps its mode
 * (and its owner where the process may set it).
 */
typedef struct haze_outfile haze_outfile;

/* Ownership: *out is new; haze_outfile_commit or haze_outfile_abort frees it
 * and sets the caller's pointer to NULL (abort of a NULL handle is a no-op,
 * so an abort on every exit path is safe after a commit). */
HAZE_API int haze_outfile_open(haze_ctx *ctx, const char *path, haze_outfile **out);
/* The stream to write to (valid until commit or abort). */
HAZE_API FILE *haze_outfile_stream(haze_outfile *f);
HAZE_API int haze_outfile_commit(haze_ctx *ctx, haze_outfile **f);
HAZE_API void haze_outfile_abort(haze_outfile **f);

/*
 * Removes every temporary output file of this process that is still open.
 * Async-signal-safe (atomic loads and unlink(2) only): meant for a SIGINT or
 * SIGTERM handler, which then re-raises the signal. Outputs that were being
 * written keep their old contents.
 */
HAZE_API void haze_outfile_remove_temps(void);

/*
 * Output groups: the outputs of one command land together or none do.
 *
 * haze_outgroup_begin() opens a group on the context. haze_outgroup_add()
 * creates an output's temporary file at once, so a missing folder or a name
 * given twice fails before any work is done. While the group is open, every
 * output committed through the context (haze_outfile_commit(), and so
 * haze_table_write(), haze_image_save(), haze_fis_save(), ...) is written
 * (and synced, with HAZE_SYNC=1) but not renamed; haze_outgroup_commit() renames them all and
 * closes the group. haze_outgroup_abort(), a failed haze_outgroup_commit()
 * or haze_ctx_free() removes every temporary, leaving all targets as they
 * were. An output added but never written keeps its old contents. Standard
 * output and special files (devices, FIFOs) cannot wait: they are written as
 * they come.
 */
HAZE_API int haze_outgroup_begin(haze_ctx *ctx);
HAZE_API int haze_outgroup_add(haze_ctx *ctx, const char *path);
HAZE_API int haze_outgroup_commit(haze_ctx *ctx);
HAZE_API void haze_outgroup_abort(haze_ctx *ctx);

/*
 * Reads a whole file (or "-" for stdin) into a NUL-terminated buffer.
 * *out is malloc'd; the caller frees it. *len may be NULL.
 */
HAZE_API int haze_io_read_file(haze_ctx *ctx, const char *path, char **out, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_IO_H */
