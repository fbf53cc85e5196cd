/*
 * src/io/io_api.c - the public face of the io module's handles: the table's
 * accessors and the output file as an opaque handle (haze/io.h).
 */
#include <stdlib.h>

#include "core/internal.h"
#include "haze/io.h"
#include "io/io_types.h"
#include "io/table_internal.h"

size_t haze_table_row_count(const haze_table *t) {
    return t ? t->rows : 0;
}

size_t haze_table_file_row_count(const haze_table *t) {
    return t ? (t->file_rows ? t->file_rows : t->rows) : 0;
}

size_t haze_table_column_count(const haze_table *t) {
    return t ? t->cols : 0;
}

haze_precision haze_table_precision(const haze_table *t) {
    return t && t->data_f32 ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64;
}

void *haze_table_values(const haze_table *t) {
    if (!t) return NULL;
    return t->data_f32 ? (void *)t->data_f32 : (void *)t->data;
}

double *haze_table_data(const haze_table *t) {
    return t ? t->data : NULL;
}

const char *const *haze_table_names(const haze_table *t) {
    return t ? (const char *const *)t->names : NULL;
}

int haze_table_text_column(const haze_table *t) {
    return t ? t->text_col : -1;
}

const char *const *haze_table_text(const haze_table *t) {
    return t ? (const char *const *)t->text : NULL;
}

int haze_table_missing_value(const char *field) {
    return field ? haze__io_missing_field(field) : 0;
}

const size_t *haze_table_file_columns(const haze_table *t) {
    return t ? t->src : NULL;
}

const size_t *haze_table_text_lines(const haze_table *t) {
    return t ? t->text_line : NULL;
}

int haze_outfile_open(haze_ctx *ctx, const char *path, haze_outfile **out) {
    if (!out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_outfile_open: NULL argument");
    *out = NULL;
    haze_outfile *f = malloc(sizeof *f);
    if (!f) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    int st = haze__outfile_open(ctx, f, path);
    if (st) {
        free(f);
        return st;
    }
    *out = f;
    return HAZE_OK;
}

FILE *haze_outfile_stream(haze_outfile *f) {
    return f ? f->fp : NULL;
}

int haze_outfile_commit(haze_ctx *ctx, haze_outfile **f) {
    if (!f || !*f) return haze__error(ctx, HAZE_ERR_INVALID, "output file is not open");
    int st = haze__outfile_commit(ctx, *f);
    free(*f);
    *f = NULL;
    return st;
}

void haze_outfile_abort(haze_outfile **f) {
    if (!f || !*f) return;
    haze__outfile_abort(*f);
    free(*f);
    *f = NULL;
}
