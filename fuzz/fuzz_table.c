/*
 * fuzz/fuzz_table.c - the CSV and NumPy .npy table reader on arbitrary
 * bytes. The reader takes a path, so the input (less its first byte) is
 * written to a temporary file. The first byte picks the file name's suffix
 * (.csv or .npy) and the read options (header detection, a text column,
 * non-finite values). A table that is read must be consistent, and nothing
 * may crash, leak or read out of bounds.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "haze/haze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    haze_ctx *ctx = fuzz_ctx();
    unsigned sel = data[0];
    int npy = sel & 1;
    char path[512];
    fuzz_temp_name(path, sizeof path, "", npy ? ".npy" : ".csv");
    if (fuzz_temp_file(path, npy ? ".npy" : ".csv", data + 1, size - 1)) return 0;

    static const char *text_columns[] = {NULL, "0", "1", "label"};
    haze_read_options o = haze_read_options_default();
    o.header = (int)((sel >> 1) % 3) - 1; /* -1 detect, 0, 1 */
    o.text_column = text_columns[(sel >> 3) & 3];
    o.allow_nonfinite = (sel >> 5) & 1;
    haze_table *t = NULL;
    int st = haze_table_read(ctx, path, &o, &t);
    unlink(path);
    if (st != HAZE_OK) {
        if (t) abort(); /* a failed read returns nothing */
        return 0;
    }
    if (!t || t->rows == 0 || t->cols == 0 || !t->data) abort();
    if (t->text_col >= 0 && ((size_t)t->text_col >= t->cols || !t->text)) abort();
    /* every value is there (and finite unless allowed); names are strings */
    size_t finite = 0;
    for (size_t i = 0; i < t->rows * t->cols; i++) finite += isfinite(t->data[i]) != 0;
    if (!o.allow_nonfinite && t->text_col < 0 && finite != t->rows * t->cols) abort();
    if (t->names) /* empty names are allowed (pandas leaves the index column's empty) */
        for (size_t j = 0; j < t->cols; j++)
            if (!t->names[j] || (*t->names[j] && haze_table_column(t, t->names[j]) < 0)) abort();
    if (t->text)
        for (size_t i = 0; i < t->rows; i++)
            if (!t->text[i]) abort();
    haze_table_column(t, "0");
    haze_table_free(t);
    return 0;
}
