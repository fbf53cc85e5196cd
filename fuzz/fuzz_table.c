/*
 * fuzz/fuzz_table.c - the CSV and NumPy .npy table reader on arbitrary
 * bytes. The reader takes a path, so the input (less its first byte) is
 * written to a temporary file. The first byte picks the file name's suffix
 * (.csv or .npy) and the read options (header detection, a text column,
 * non-finite values, a .npy row range), the last byte the columns kept. A table that is read must
 * be consistent (a row range: the same rows as the whole file's; CSV read in blocks of 1 to 61
 * bytes, the last byte choosing: the same rows, or a failure where the whole read fails), and
 * nothing may crash, leak or read out of bounds.
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
    haze_table_options o = haze_table_options_default();
    o.header = (int)((sel >> 1) % 3) - 1; /* -1 detect, 0, 1 */
    o.text_column = text_columns[(sel >> 3) & 3];
    o.allow_nonfinite = (sel >> 5) & 1;
    static const size_t firsts[] = {0, 1, 0, 2}, maxes[] = {0, 0, 2, SIZE_MAX};
    o.first_row = firsts[(sel >> 6) & 3];
    o.max_rows = maxes[(sel >> 6) & 3];
    /* the columns kept: the last byte's top bits (its low ones pick the block size) */
    static const char *columns[] = {NULL, NULL, "1,0", "label,0-1"},
                      *drops[] = {NULL, "0", NULL, "2"};
    o.columns = columns[data[size - 1] >> 6];
    o.drop = drops[data[size - 1] >> 6];
    o.missing = (data[size - 1] >> 5) & 1;
    haze_table *t = NULL, *whole = NULL;
    int st = haze_table_read(ctx, path, &o, &t);
    if (st == HAZE_OK && (o.first_row || o.max_rows)) {
        haze_table_options w = o;
        w.first_row = w.max_rows = 0;
        if (haze_table_read(ctx, path, &w, &whole) == HAZE_OK) {
            const size_t cols = haze_table_column_count(whole);
            if (haze_table_file_row_count(t) != haze_table_row_count(whole) ||
                haze_table_column_count(t) != cols ||
                o.first_row + haze_table_row_count(t) > haze_table_row_count(whole) ||
                memcmp(haze_table_data(t), haze_table_data(whole) + o.first_row * cols,
                       haze_table_row_count(t) * cols * sizeof(double)) != 0)
                abort(); /* (NaN payloads compare as bits: the same bytes either way) */
            haze_table_free(whole);
        }
    }
    if (!npy && !o.first_row && !o.max_rows) {
        /* the same file in blocks of a few bytes (haze_table_reader): it
         * fails where the whole read fails, else its blocks are the table's
         * rows, bit for bit (some blocks' memory given back for later ones) */
        haze_table_reader *r = NULL;
        haze_table *b = NULL;
        size_t rows = 0;
        const size_t block = 1 + (size_t)data[size - 1] % 61;
        int bs = haze_table_reader_open(ctx, path, &o, block, &r);
        while (!bs && !(bs = haze_table_reader_next(ctx, r, &b)) && b) {
            const size_t n = haze_table_row_count(b), cols = haze_table_column_count(b);
            if (st == HAZE_OK && (n == 0 || cols != haze_table_column_count(t) ||
                                  rows + n > haze_table_row_count(t) ||
                                  memcmp(haze_table_data(b), haze_table_data(t) + rows * cols,
                                         n * cols * sizeof(double)) != 0))
                abort();
            rows += n;
            /* every other block's memory back to the reader: a later block
             * parsed into it must read the same */
            if (n % 2)
                haze_table_reader_reuse(r, b);
            else
                haze_table_free(b);
        }
        haze_table_reader_close(r);
        if ((bs == HAZE_OK) != (st == HAZE_OK) ||
            (st == HAZE_OK && rows != haze_table_row_count(t)))
            abort();
    }
    unlink(path);
    if (st != HAZE_OK) {
        if (t) abort(); /* a failed read returns nothing */
        return 0;
    }
    if (!t || haze_table_row_count(t) == 0 || haze_table_column_count(t) == 0 ||
        !haze_table_data(t))
        abort();
    if (haze_table_text_column(t) >= 0 &&
        ((size_t)haze_table_text_column(t) >= haze_table_column_count(t) || !haze_table_text(t)))
        abort();
    /* every value is there (and finite unless allowed; NaN where missing
     * values are read); names are strings */
    size_t finite = 0;
    for (size_t i = 0; i < haze_table_row_count(t) * haze_table_column_count(t); i++)
        finite += isfinite(haze_table_data(t)[i]) || (o.missing && isnan(haze_table_data(t)[i]));
    if (!o.allow_nonfinite && haze_table_text_column(t) < 0 &&
        finite != haze_table_row_count(t) * haze_table_column_count(t))
        abort();
    if (haze_table_names(t)) /* empty names are allowed (pandas leaves the index column's empty) */
        for (size_t j = 0; j < haze_table_column_count(t); j++)
            if (!haze_table_names(t)[j] ||
                (*haze_table_names(t)[j] && haze_table_column(t, haze_table_names(t)[j]) < 0))
                abort();
    if (haze_table_text(t))
        for (size_t i = 0; i < haze_table_row_count(t); i++)
            if (!haze_table_text(t)[i]) abort();
    haze_table_column(t, "0");
    haze_table_free(t);
    return 0;
}
