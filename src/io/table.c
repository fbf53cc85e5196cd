/*
 * src/io/table.c - numeric tables from CSV and NumPy .npy files: the public
 * reader, which picks the parser (table_csv.c, table_npy.c) by the file's
 * name or magic bytes; the writers are in table_write.c.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/text.h"
#include "core/sized.h"
#include "haze/io.h"
#include "io/number.h"
#include "io/table_internal.h"
#include "io/io_types.h"

int haze_table_options_init(haze_table_options *opt, size_t size) {
    haze_table_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.header = -1;
    o.text_column = NULL;
    o.allow_nonfinite = 0;
    o.text_as_nan = 0;
    o.keep_float32 = 0;
    return haze__sized_init(opt, size, &o, sizeof o);
}

void haze_table_free(haze_table *t) {
    if (!t) return;
    if (t->names)
        for (size_t j = 0; j < t->cols; j++) free(t->names[j]);
    if (t->text)
        for (size_t i = 0; i < t->rows; i++) free(t->text[i]);
    free(t->names);
    free(t->text);
    free(t->text_line);
    free(t->src);
    free(t->data);
    free(t->data_f32);
    free(t);
}

int haze_table_column(const haze_table *t, const char *key) {
    return haze__io_column(t, key);
}

/* A .npy file read with columns left out (haze_table_options columns,
 * drop) or missing values (NaN) allowed: every value read whatever it is,
 * the table cut to the columns kept, and those checked finite (unless
 * allowed; NaN allowed as missing), in the file's order. */
static int npy_keep(haze_ctx *ctx, const char *name, const haze_table_options *o, haze_table *t,
                    int st) {
    if (st || (!o->columns && !o->drop && !o->missing)) return st;
    size_t *keep = NULL, n = t->cols;
    if (o->columns || o->drop) {
        st = haze__io_select(ctx, name, 0, t->cols, NULL, o->columns, o->drop, &keep, &n);
        if (!st) st = haze__io_table_keep(t, keep, n);
    }
    const size_t count = t->rows * t->cols;
    for (size_t i = 0; !st && !o->allow_nonfinite && i < count; i++) {
        const double v = t->data ? t->data[i] : (double)t->data_f32[i];
        if (!isfinite(v) && !(o->missing && isnan(v))) /* the file's row and column */
            st = haze__error(ctx, HAZE_ERR_PARSE, "%s: row %zu, column %zu: not a finite number",
                             name, o->first_row + i / t->cols + 1,
                             (keep ? keep[i % t->cols] : i % t->cols) + 1);
    }
    free(keep);
    return st;
}

/* Options for the .npy reader: with columns left out or missing values
 * allowed, every value is read as it is (npy_keep checks those kept). */
static haze_table_options npy_options(const haze_table_options *o) {
    haze_table_options r = *o;
    if (o->columns || o->drop || o->missing) r.allow_nonfinite = 1;
    return r;
}

/* A regular file: a .npy file read straight into the table, or CSV text read
 * with one read into one buffer. */
static int read_regular(haze_ctx *ctx, const char *path, int fd, size_t fsize,
                        const haze_table_options *o, haze_table *t) {
    unsigned char pre[4096];
    size_t npre, len;
    int e = haze__io_read_at(fd, 0, pre, fsize < sizeof pre ? fsize : sizeof pre, &npre);
    if (e) return haze__io_read_error(ctx, path, e);
    if (haze__text_ends_with(path, ".npy", 0) || (npre >= 6 && memcmp(pre, "\x93NUMPY", 6) == 0)) {
        const haze_table_options no = npy_options(o);
        return npy_keep(ctx, path, o, t,
                        haze__io_npy_read_fd(ctx, path, path, fd, npre < fsize ? fsize : npre, pre,
                                             npre, &no, t));
    }
    char *buf = haze__io_big_alloc_lazy(fsize + 1);
    if (!buf) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory while reading", path);
    int nul = 0;
    if ((e = haze__io_read_par(ctx, fd, buf, fsize, &len, &nul))) {
        free(buf);
        return haze__io_read_error(ctx, path, e);
    }
    buf[len] = '\0';
    int st;
    if (nul)
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: binary data where CSV text was expected", path);
    else
        st = haze__io_csv_parse(ctx, path, buf, len, o, t);
    free(buf);
    return st;
}

int haze_table_read(haze_ctx *ctx, const char *path, const haze_table_options *opt,
                    haze_table **out) {
    if (!path || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_read: NULL argument");
    *out = NULL;
    haze_table_options o = haze_table_options_default();
    int take = haze__sized_take(ctx, &o, sizeof o, opt, "haze_table_options");
    if (take) return take;
    haze_table *t = calloc(1, sizeof *t);
    if (!t) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    t->text_col = -1;
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    int st = HAZE_OK, done = 0;
    if (strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat sb;
        if (fd < 0) {
            st = errno == ENOMEM
                     ? haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path)
                     : haze__error(ctx, HAZE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
            done = 1;
        } else if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            st = haze__error(ctx, HAZE_ERR_IO, "%s: is a directory", path);
            done = 1;
        } else if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
            st = read_regular(ctx, path, fd, (size_t)sb.st_size, &o, t);
            done = 1;
        }
        if (fd >= 0) close(fd);
    }
    if (!done) { /* standard input, a pipe, a device: read whole first */
        char *buf;
        size_t len;
        st = haze_io_read_file(ctx, path, &buf, &len);
        if (!st) {
            if (haze__text_ends_with(path, ".npy", 0) ||
                (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0)) {
                const haze_table_options no = npy_options(&o);
                st = npy_keep(
                    ctx, name, &o, t,
                    haze__io_npy_parse(ctx, name, (const unsigned char *)buf, len, &no, t));
            } else if (memchr(buf, '\0', len))
                st = haze__error(ctx, HAZE_ERR_PARSE, "%s: binary data where CSV text was expected",
                                 name);
            else
                st = haze__io_csv_parse(ctx, name, buf, len, &o, t);
            free(buf);
        }
    }
    if (st == HAZE_ERR_NOMEM) haze__error(ctx, st, "%s: out of memory", name);
    if (st) {
        haze_table_free(t);
        return st;
    }
    *out = t;
    return HAZE_OK;
}
