/*
 * src/io/io_types.h - the layout of the io module's handles (opaque in the
 * public API, haze/io.h) and the caller-allocated output file that the
 * library's own writers use behind haze__outfile_open.
 */
#ifndef HAZE_IO_TYPES_H
#define HAZE_IO_TYPES_H

#include <stdio.h>

#include "haze/io.h"

struct haze_table {
    size_t rows, cols;
    double *data; /* rows * cols values; the text column's cells hold NaN */
    char **names; /* cols names from the header line, or NULL if there was none */
    int text_col; /* index of the text column, or -1 */
    char **text;  /* rows strings of the text column, or NULL */
    /* with haze_table_options.text_as_nan: cols line numbers (1-based) of each column's first
     * field that is not a number (read as NaN), 0 for a column of numbers; else NULL */
    size_t *text_line;
    /* with haze_table_options.keep_float32 and a float32 .npy file: rows * cols floats as
     * stored, and data is NULL; else NULL */
    float *data_f32;
    size_t file_rows; /* the file's rows when a row range was read, else 0 (rows) */
    size_t cap;       /* the numbers data has room for when columns were left out, else 0 */
    size_t *src;      /* when columns were left out: cols 0-based columns of the file, else NULL */
};

struct haze_outfile {
    FILE *fp;
    char *path;       /* as given, for messages */
    char *tmp;        /* the temporary file; NULL when written straight through */
    char *target;     /* path with symbolic links followed: what tmp replaces */
    long slot;        /* the temporary's entry for haze_outfile_remove_temps */
    long group_index; /* 1 + its entry in the context's output group, or 0 */
};

/*
 * The output file of the public haze_outfile_* in a struct the caller owns
 * (on its stack): open() fills *f, commit() and abort() empty it again
 * (abort of an empty struct is a no-op).
 */
int haze__outfile_open(haze_ctx *ctx, haze_outfile *f, const char *path);
int haze__outfile_commit(haze_ctx *ctx, haze_outfile *f);
void haze__outfile_abort(haze_outfile *f);

#endif
