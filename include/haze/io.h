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
} haze_table;

typedef struct haze_read_options {
    int header;              /* 1: first line is a header; 0: none; -1: detect (default) */
    const char *text_column; /* name or 0-based index of a column that may hold text, or NULL */
    int allow_nonfinite;     /* 0 (default): NaN and Inf are errors */
} haze_read_options;

HAZE_API haze_read_options haze_read_options_default(void);

/*
 * Reads a CSV (comma, semicolon, tab or whitespace separated; "#" comments;
 * quoted fields) or a NumPy .npy file (float32/float64, C order, 1-D or 2-D),
 * told apart by the ".npy" extension or the NumPy magic bytes. "-" reads CSV
 * from standard input. Ragged rows, empty files, non-numeric or non-finite
 * fields are errors naming the line and column.
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
 * An output file written whole or not at all. open() creates a temporary file
 * beside `path` (or uses stdout for "-"); write to f->fp; commit() flushes,
 * syncs and renames it over `path`; abort() removes the temporary. After
 * either, the struct is empty again.
 */
typedef struct haze_outfile {
    FILE *fp;
    char *path;
    char *tmp;
} haze_outfile;

HAZE_API int haze_outfile_open(haze_ctx *ctx, haze_outfile *f, const char *path);
HAZE_API int haze_outfile_commit(haze_ctx *ctx, haze_outfile *f);
HAZE_API void haze_outfile_abort(haze_outfile *f);

/*
 * Reads a whole file (or "-" for stdin) into a NUL-terminated buffer.
 * *out is malloc'd; the caller frees it. *len may be NULL.
 */
HAZE_API int haze_file_read_all(haze_ctx *ctx, const char *path, char **out, size_t *len);

/*
 * The number at the start of s (decimal, or hexadecimal with 0x, as strtod
 * reads it; no leading space) as the tightest interval of doubles [lo, hi]
 * around it: lo == hi when it is a double. *end (may be NULL) is set past
 * it. HAZE_ERR_PARSE when s does not start with a finite number.
 */
HAZE_API int haze_number_enclose(haze_ctx *ctx, const char *s, const char **end, double *lo,
                                 double *hi);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_IO_H */
