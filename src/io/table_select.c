/*
 * src/io/table_select.c - the columns a read keeps (haze_table_options'
 * columns and drop): the lists resolved against a file's header or column
 * count, and a table cut down to the columns kept, in place.
 *
 * A list is comma-separated; each item is a header name, a 0-based column
 * number or an inclusive range A-B of them, looked up in that order (a
 * header may name a column "2-3"). The CSV parser resolves the lists once
 * it knows the header, does not parse the fields of the columns left out
 * (they may hold text: ids, labels, dates) and cuts every table it makes;
 * a .npy file is read whole and cut after (table.c).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/text.h"
#include "haze/io.h"
#include "io/io_types.h"
#include "io/table_internal.h"

/* An item of a list: [s, e) less blanks at its ends. */
typedef struct {
    const char *s;
    size_t len;
} item;

/* The next item of list at *p (advanced past it and its comma); 0 at the end. */
static int next_item(const char **p, item *it) {
    const char *s = *p;
    if (!s) return 0;
    const char *e = strchr(s, ',');
    const char *end = e ? e : s + strlen(s);
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    const char *t = end;
    while (t > s && (t[-1] == ' ' || t[-1] == '\t')) t--;
    it->s = s;
    it->len = (size_t)(t - s);
    *p = e ? e + 1 : NULL;
    return 1;
}

/* Digits only, as a column number (no sign, no blanks); 0 if not one. */
static int number_of(const char *s, size_t len, size_t *v) {
    if (len == 0 || len > 18) return 0;
    size_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        x = x * 10 + (size_t)(s[i] - '0');
    }
    *v = x;
    return 1;
}

/* "A-B" of column numbers; 0 if not one. */
static int range_of(const char *s, size_t len, size_t *a, size_t *b) {
    const char *dash = memchr(s, '-', len);
    return dash && number_of(s, (size_t)(dash - s), a) &&
           number_of(dash + 1, len - (size_t)(dash - s) - 1, b);
}

int haze__io_select_needs_names(const char *list) {
    const char *p = list;
    item it;
    size_t a, b;
    while (next_item(&p, &it))
        if (!number_of(it.s, it.len, &a) && !range_of(it.s, it.len, &a, &b)) return 1;
    return 0;
}

/* The header's names, "a, b, c", cut at about cap bytes. */
static void names_text(char *out, size_t cap, char *const *names, size_t cols) {
    size_t n = 0;
    out[0] = '\0';
    for (size_t j = 0; j < cols && n + 8 < cap; j++) {
        int w = snprintf(out + n, cap - n, "%s%s", j ? ", " : "", names[j] ? names[j] : "");
        if (w < 0 || (size_t)w >= cap - n) {
            memcpy(out + cap - 4, "...", 4);
            return;
        }
        n += (size_t)w;
    }
    if (n + 8 >= cap && cap > 4) memcpy(out + cap - 4, "...", 4);
}

typedef struct {
    haze_ctx *ctx;
    const char *path;
    long line; /* the header's line, or 0 */
    size_t cols;
    char *const *names;
} sel_src;

static int sel_error(const sel_src *z, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int sel_error(const sel_src *z, const char *fmt, ...) {
    if (!z->ctx) return HAZE_ERR_PARSE; /* a try: no message */
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    haze__vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return haze__text_error(z->ctx, HAZE_ERR_PARSE, z->path, z->line, 0, "%s", msg);
}

/*
 * The columns of one item appended to order at *n (a range's in its
 * order); what: "keep" or "leave out", for messages. A name the header
 * has once is that column; a number or range is a column number (also
 * when the header has it twice as a name).
 */
static int resolve_item(const sel_src *z, const item *it, const char *what, size_t *order,
                        size_t *n) {
    char name[200];
    snprintf(name, sizeof name, "%.*s", (int)(it->len < 190 ? it->len : 190), it->s);
    if (it->len == 0) return sel_error(z, "an empty item in the list of columns to %s", what);
    size_t a, b;
    const int numeric = number_of(it->s, it->len, &a) || range_of(it->s, it->len, &a, &b);
    if (z->names) {
        size_t hits = 0, at = 0, twice = 0;
        for (size_t j = 0; j < z->cols; j++)
            if (z->names[j] && strlen(z->names[j]) == it->len &&
                memcmp(z->names[j], it->s, it->len) == 0) {
                if (hits++ == 1) twice = j;
                if (hits == 1) at = j;
            }
        /* a name twice: a number stands for the column of that number */
        if (hits > 1 && !numeric)
            return sel_error(z,
                             "the header names '%s' twice (0-based columns %zu and %zu): "
                             "give the column's number",
                             name, at, twice);
        if (hits == 1) {
            order[(*n)++] = at;
            return HAZE_OK;
        }
    }
    if (number_of(it->s, it->len, &a)) {
        b = a;
    } else if (!range_of(it->s, it->len, &a, &b)) {
        if (!z->names)
            return sel_error(z,
                             "no column '%s' to %s: the file names no columns%s, so they are "
                             "given by their 0-based numbers (0 to %zu)",
                             name, what, z->line ? " (its first line holds numbers only)" : "",
                             z->cols - 1);
        char have[400];
        names_text(have, sizeof have, z->names, z->cols);
        return sel_error(z, "no column '%s' to %s (the header names %s)", name, what, have);
    } else if (a > b) {
        return sel_error(z, "column range '%s' runs backwards", name);
    }
    if (b >= z->cols)
        return sel_error(z, "no column %zu to %s: the file has %zu column%s, numbered from 0", b,
                         what, z->cols, z->cols == 1 ? "" : "s");
    for (size_t j = a; j <= b; j++) order[(*n)++] = j;
    return HAZE_OK;
}

int haze__io_select(haze_ctx *ctx, const char *path, long line, size_t cols, char *const *names,
                    const char *columns, const char *drop, size_t **keep, size_t *nkeep) {
    *keep = NULL;
    *nkeep = 0;
    sel_src z = {ctx, path, line, cols, names};
    /* a list names each column at most once, ranges included: cols entries
     * at most, and one more item overflows it (said as a repeat) */
    size_t *order = malloc((cols + 1) * sizeof *order);
    size_t *tmp = malloc((cols + 1) * sizeof *tmp);
    unsigned char *seen = calloc(cols ? cols : 1, 1);
    int st = !order || !tmp || !seen ? HAZE_ERR_NOMEM : HAZE_OK;
    size_t n = 0;
    item it;
    const char *p = columns;
    if (!st && columns) {
        while (!st && next_item(&p, &it)) {
            size_t m = 0;
            st = resolve_item(&z, &it, "keep", tmp, &m);
            for (size_t k = 0; !st && k < m; k++) {
                if (seen[tmp[k]])
                    st = sel_error(&z, "column %zu%s%s%s is kept twice", tmp[k], names ? " (" : "",
                                   names ? names[tmp[k]] : "", names ? ")" : "");
                else
                    seen[tmp[k]] = 1, order[n++] = tmp[k];
            }
        }
    } else if (!st) {
        for (size_t j = 0; j < cols; j++) order[n++] = j, seen[j] = 1;
    }
    p = drop;
    while (!st && drop && next_item(&p, &it)) {
        size_t m = 0;
        st = resolve_item(&z, &it, "leave out", tmp, &m);
        for (size_t k = 0; !st && k < m; k++) seen[tmp[k]] = 0;
    }
    size_t kept = 0;
    for (size_t k = 0; !st && k < n; k++)
        if (seen[order[k]]) order[kept++] = order[k];
    if (!st && kept == 0) st = sel_error(&z, "every column is left out");
    free(tmp);
    free(seen);
    if (st) {
        free(order);
        return st;
    }
    *keep = order;
    *nkeep = kept;
    return HAZE_OK;
}

int haze__io_select_identity(const size_t *keep, size_t nkeep, size_t cols) {
    if (nkeep != cols) return 0;
    for (size_t k = 0; k < nkeep; k++)
        if (keep[k] != k) return 0;
    return 1;
}

int haze__io_table_keep(haze_table *t, const size_t *keep, size_t n) {
    const size_t cols = t->cols;
    if (haze__io_select_identity(keep, n, cols)) return HAZE_OK;
    char **names = NULL;
    size_t *text_line = NULL, *src = malloc(n * sizeof *src);
    if (!src || (t->names && !(names = malloc(n * sizeof *names))) ||
        (t->text_line && !(text_line = malloc(n * sizeof *text_line)))) {
        free(src);
        free(names);
        return HAZE_ERR_NOMEM;
    }
    for (size_t k = 0; k < n; k++) src[k] = t->src ? t->src[keep[k]] : keep[k];
    free(t->src);
    t->src = src;
    if (!t->cap) t->cap = t->rows * cols;
    /* row by row from the front: row i's kept values land before its own
     * place and after the rows before it (n <= cols), through a copy of the
     * row's kept values (the order may permute them); the values as bits,
     * 8 or 4 bytes (NaN payloads kept) */
    const int wide = t->data != NULL;
    unsigned char *v = wide ? (unsigned char *)t->data : (unsigned char *)t->data_f32;
    uint64_t row[64], *r = n <= 64 ? row : malloc(n * sizeof *r);
    if (!r) {
        free(names);
        free(text_line);
        return HAZE_ERR_NOMEM; /* t->src is set: harmless, freed with t */
    }
    const size_t e = wide ? 8 : 4; /* memcpy of a constant size: one load, no aliasing */
    for (size_t i = 0; v && i < t->rows; i++) {
        const unsigned char *from = v + i * cols * e;
        unsigned char *to = (unsigned char *)r;
        if (wide)
            for (size_t k = 0; k < n; k++) memcpy(to + 8 * k, from + 8 * keep[k], 8);
        else
            for (size_t k = 0; k < n; k++) memcpy(to + 4 * k, from + 4 * keep[k], 4);
        memcpy(v + i * n * e, to, n * e);
    }
    if (r != row) free(r);
    if (t->names) {
        for (size_t k = 0; k < n; k++) {
            names[k] = t->names[keep[k]];
            t->names[keep[k]] = NULL;
        }
        for (size_t j = 0; j < cols; j++) free(t->names[j]);
        free(t->names);
        t->names = names;
    }
    if (t->text_line) {
        for (size_t k = 0; k < n; k++) text_line[k] = t->text_line[keep[k]];
        free(t->text_line);
        t->text_line = text_line;
    }
    int tc = -1;
    for (size_t k = 0; k < n; k++)
        if ((int)keep[k] == t->text_col) tc = (int)k;
    if (tc < 0 && t->text) { /* the caller refuses this; freed should it not */
        for (size_t i = 0; i < t->rows; i++) free(t->text[i]);
        free(t->text);
        t->text = NULL;
    }
    t->text_col = tc;
    t->cols = n;
    return HAZE_OK;
}
