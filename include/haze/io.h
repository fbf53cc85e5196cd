/*
 * haze/io.h - numeric tables in and out (CSV and NumPy .npy), and output files
 * that appear whole or not at all.
 *
 * Every reader reports a bad field with file, line and column in the
 * context's message; every writer writes to a temporary file in the target's
 * folder and renames it over the target only when everything was written.
 */
#ifndef HAZE_IO_H
#define HAZE_IO_H

#include <stdio.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A dense row-major table of doubles, with optional column names and one
 * optional text column (class labels such as "A".."Z"). */
typedef struct haze_table {
    size_t rows, cols;
    double *data; /* rows * cols values; the text column's cells hold NaN */
    char **names; /* cols names from the header line, or NULL if there was none */
    int text_col; /* index of the text column, or -1 */
    char **text;  /* rows strings of the text column, or NULL */
    /* with haze_read_options.text_as_nan: cols line numbers (1-based) of each column's first
     * field that is not a number (read as NaN), 0 for a column of numbers; else NULL */
    size_t *text_line;
    /* with haze_read_options.keep_float32 and a float32 .npy file: rows * cols floats as
     * stored, and data is NULL; else NULL */
    float *data_f32;
} haze_table;

typedef struct haze_read_options {
    int header;              /* 1: first line is a header; 0: none; -1: detect (default) */
    const char *text_column; /* name or 0-based index of a column that may hold text, or NULL */
    int allow_nonfinite;     /* 0 (default): NaN and Inf are errors */
    int text_as_nan;         /* 1: a CSV field that is not a number is NaN, not an error, and
                              * haze_table.text_line says where (columns a caller may leave out,
                              * such as an id column); 0 (default): an error */
    int keep_float32;        /* 1: a float32 .npy file is kept float32 in haze_table.data_f32
                              * (no double copy); other files are read into data as always.
                              * 0 (default): data, always */
} haze_read_options;

HAZE_API haze_read_options haze_read_options_default(void);

/*
 * Reads a CSV (comma, semicolon, tab or whitespace separated; "#" comments;
 * quoted fields; a leading UTF-8 byte-order mark is skipped) or a NumPy .npy
 * file (little-endian float32/float64, C or Fortran order, 1-D or 2-D; the
 * header dict is parsed strictly, structured dtypes are refused), told apart
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
HAZE_API int haze_table_read(haze_ctx *ctx, const char *path, const haze_read_options *opt,
                             haze_table **out);
HAZE_API void haze_table_free(haze_table *t);

/* Index of a column given by name or by 0-based number; -1 if none. */
HAZE_API int haze_table_column(const haze_table *t, const char *name_or_index);

/*
 * Writes a rows x cols matrix to `path` ("-": standard output): CSV with
 * 17 significant digits (round-trip exact) and an optional header of `names`,
 * or .npy (float64) when the path ends in ".npy". Atomic (temp + rename).
 */
HAZE_API int haze_matrix_write(haze_ctx *ctx, const char *path, const double *data, size_t rows,
                               size_t cols, const char *const *names);
/* The same for float data; .npy output keeps float32. */
HAZE_API int haze_matrix_write_f32(haze_ctx *ctx, const char *path, const float *data, size_t rows,
                                   size_t cols, const char *const *names);

/*
 * Writes the text `s` as one CSV field that haze_table_read gives back as it
 * is: bare, or in double quotes with inner quotes doubled (RFC 4180) when it
 * is empty, holds a delimiter the reader may choose (comma, semicolon, tab),
 * a quote or a line end, starts with '#' (a comment line) or has blanks at
 * its ends (trimmed from bare fields). Used for header names and labels.
 */
HAZE_API void haze_csv_put_field(FILE *fp, const char *s);

/*
 * An output file written whole or not at all. open() creates a temporary file
 * beside `path` (or uses stdout for "-"); write to f->fp; commit() flushes,
 * syncs and renames it over `path`; abort() removes the temporary. After
 * either, the struct is empty again.
 *
 * A symbolic link is followed: its target is rewritten and the link stays.
 * A path that names a character device, FIFO or other special file is
 * written straight through, never replaced (so "/dev/null" stays a device).
 * A new file gets mode 0666 less the umask; a rewritten file keeps its mode
 * (and its owner where the process may set it).
 */
typedef struct haze_outfile {
    FILE *fp;
    char *path;       /* as given, for messages */
    char *tmp;        /* the temporary file; NULL when written straight through */
    char *target;     /* path with symbolic links followed: what tmp replaces */
    long slot;        /* private: the temporary's entry for haze_outfile_remove_temps */
    long group_index; /* private: 1 + its entry in the context's output group, or 0 */
} haze_outfile;

HAZE_API int haze_outfile_open(haze_ctx *ctx, haze_outfile *f, const char *path);
HAZE_API int haze_outfile_commit(haze_ctx *ctx, haze_outfile *f);
HAZE_API void haze_outfile_abort(haze_outfile *f);

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
 * haze_matrix_write(), haze_image_save(), haze_fis_save(), ...) is written
 * and synced but not renamed; haze_outgroup_commit() renames them all and
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
HAZE_API int haze_file_read_all(haze_ctx *ctx, const char *path, char **out, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_IO_H */
