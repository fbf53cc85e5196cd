/*
 * src/io/table.c - numeric tables from CSV and NumPy .npy files, and back.
 *
 * The .npy layout follows NumPy's format specification (NEP 1): the magic
 * "\x93NUMPY", a version, a little-endian header length and a Python-literal
 * dict with 'descr', 'fortran_order' and 'shape'.
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
#include "haze/io.h"
#include "io/number.h"

/*
 * malloc for the large buffers of a read: the file's text and the table.
 * Two pieces of advice to the kernel (where it does not know them, nothing
 * changes): transparent huge pages (MADV_HUGEPAGE, as NumPy asks for its
 * arrays), and the pages made present at once (MADV_POPULATE_WRITE, Linux
 * 5.14) instead of by one page fault each as the read first writes them. On
 * the development machine, a virtual machine where a fault and a TLB miss
 * are dear, writing 64 MiB of fresh memory took 0.10 CPU seconds with 4 KiB
 * pages faulted in one by one, 0.01 s with both.
 */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static void *big_alloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (p && n >= (1u << 20)) {
        uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)4095;
        if (e > a) {
#ifdef MADV_HUGEPAGE
            (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#endif
            (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
        }
    }
    return p;
}

haze_read_options haze_read_options_default(void) {
    haze_read_options o;
    o.header = -1;
    o.text_column = NULL;
    o.allow_nonfinite = 0;
    o.text_as_nan = 0;
    o.keep_float32 = 0;
    return o;
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
    free(t->data);
    free(t->data_f32);
    free(t);
}

int haze_table_column(const haze_table *t, const char *key) {
    if (!t || !key || !*key) return -1;
    if (t->names)
        for (size_t j = 0; j < t->cols; j++)
            if (t->names[j] && strcmp(t->names[j], key) == 0) return (int)j;
    char *end;
    long j = strtol(key, &end, 10);
    if (*end == '\0' && j >= 0 && (size_t)j < t->cols) return (int)j;
    return -1;
}

/* ------------------------------------------------------------------ CSV */

/*
 * The text is read once into one buffer and parsed in place, in two passes.
 * The first line that is not blank or a comment decides the delimiter, the
 * columns and the header (on one thread). A quoted field must end on its
 * line, so every line end is a safe place to cut the rest into chunks, one
 * per thread: pass 1 counts each chunk's lines and rows, so the table is
 * allocated once at its final size and each chunk knows its first line
 * number and row; pass 2 reads each chunk's rows straight into the table. A
 * row of plain numbers is read in one sweep (row_fast); anything else --
 * quotes, text, an error -- goes to the general path (row_general), which
 * splits the line in place and says what is wrong with it. Each chunk stops
 * at its first error, and the error of the first chunk that has one is
 * reported: the first in the file, the one a serial reader finds.
 */

typedef struct {
    char **v;
    size_t *at; /* where each field starts in its line (0-based, after leading blanks) */
    size_t n, cap;
} fields;

static int fields_push(fields *f, char *s, size_t at) {
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        char **v = realloc(f->v, cap * sizeof *v);
        if (!v) return HAZE_ERR_NOMEM;
        f->v = v;
        size_t *a = realloc(f->at, cap * sizeof *a);
        if (!a) return HAZE_ERR_NOMEM;
        f->at = a;
        f->cap = cap;
    }
    f->at[f->n] = at;
    f->v[f->n++] = s;
    return HAZE_OK;
}

static void fields_free(fields *f) {
    free(f->v);
    free(f->at);
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
    return s;
}

/* Splits one line in place. delim == ' ' splits on runs of blanks. A quoted
 * field must end on its line and be followed only by blanks before the next
 * delimiter: anything else is an error (HAZE_ERR_PARSE, *bad set to the
 * 0-based offset in the line of the offending character), not a field that
 * silently loses text. *unclosed tells the two apart. */
static int split_line(char *line, char delim, fields *f, size_t *bad, int *unclosed) {
    f->n = 0;
    char *p = line;
    if (delim == ' ') {
        for (;;) {
            while (*p == ' ' || *p == '\t' || *p == '\r') p++;
            if (!*p) break;
            char *start = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\r') p++;
            if (*p) *p++ = '\0';
            if (fields_push(f, start, (size_t)(start - line))) return HAZE_ERR_NOMEM;
        }
        return HAZE_OK;
    }
    for (;;) {
        /* blanks around fields, but not a tab that is the delimiter */
        while ((*p == ' ' || *p == '\t') && *p != delim) p++;
        char *start = p;
        if (*p == '"') { /* quoted field; "" is a quote */
            char *open = p;
            char *w = ++p;
            start = w;
            int closed = 0;
            while (*p) {
                if (*p == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    closed = 1;
                    break;
                } else {
                    *w++ = *p++;
                }
            }
            if (!closed) {
                *bad = (size_t)(open - line);
                *unclosed = 1;
                return HAZE_ERR_PARSE;
            }
            while ((*p == ' ' || *p == '\t' || *p == '\r') && *p != delim) p++;
            if (*p && *p != delim) {
                *bad = (size_t)(p - line);
                *unclosed = 0;
                return HAZE_ERR_PARSE;
            }
            int more = *p == delim;
            *w = '\0';
            if (more) p++;
            if (fields_push(f, start, (size_t)(open - line))) return HAZE_ERR_NOMEM;
            if (!more) break;
            continue;
        }
        while (*p && *p != delim) p++;
        int more = *p == delim;
        if (more) *p++ = '\0';
        if (fields_push(f, trim(start), (size_t)(start - line))) return HAZE_ERR_NOMEM;
        if (!more) break;
    }
    return HAZE_OK;
}

static int parse_number(const char *s, double *out) {
    return haze__number_field(s, strlen(s), out);
}

static char choose_delim(const char *line) {
    int in_q = 0;
    int comma = 0, semi = 0, tab = 0;
    for (const char *p = line; *p; p++) {
        if (*p == '"') in_q = !in_q;
        if (in_q) continue;
        comma += *p == ',';
        semi += *p == ';';
        tab += *p == '\t';
    }
    if (comma) return ',';
    if (semi) return ';';
    if (tab) return '\t';
    return ' ';
}

/* [p, le) holds only blanks, or a comment. */
static int is_blank_or_comment(const char *p, const char *le) {
    while (p < le && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    return p == le || *p == '#';
}

/* What every chunk reads the same way. */
typedef struct {
    const char *name; /* for messages */
    const haze_read_options *o;
    char delim;
    size_t cols;
    int text_col;
    char *const *names; /* the header's, or NULL */
} csv_cfg;

typedef struct {
    char *begin, *end;  /* whole lines */
    size_t lines, rows; /* pass 1 */
    size_t line0, row0; /* lines and rows before the chunk */
    int st;             /* the chunk's first error */
    char *msg;          /* its message (NULL: none, out of memory) */
    size_t *text_line;  /* with text_as_nan: cols first lines of a text field, 0 for none */
    fields f;
} csv_chunk;

/* Records the chunk's error "NAME:LINE[:COL]: MESSAGE" (haze__text_error's
 * form) in a context of the worker's own; the caller's thread reports it. */
static int chunk_error(csv_chunk *k, int st, const char *name, size_t line, size_t col,
                       const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static int chunk_error(csv_chunk *k, int st, const char *name, size_t line, size_t col,
                       const char *fmt, ...) {
    struct haze_ctx local;
    haze__ctx_init_local(&local);
    va_list ap;
    va_start(ap, fmt);
    k->st = haze__text_verror(&local, st, name, (long)line, (long)col, fmt, ap);
    va_end(ap);
    k->msg = strdup(haze_ctx_errmsg(&local));
    haze_ctx_clear_error(&local); /* frees this thread's slot for it */
    return k->st;
}

/* A copy of the cell [s, e) less blanks at its ends (the general path's trim). */
static char *text_cell(const char *s, const char *e) {
    while (s < e && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
    char *c = malloc((size_t)(e - s) + 1);
    if (c) {
        memcpy(c, s, (size_t)(e - s));
        c[e - s] = '\0';
    }
    return c;
}

static int is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

/*
 * The row that starts at p (its line ends at the next '\n' or at end) when
 * it is cols plain numbers (finite unless allowed) and unquoted text in the
 * text column: 1 with the row in dst (and *text) and *le at the line's end,
 * else 0 with nothing owned, and the general path reads the row. It accepts
 * only rows the general path reads the same way, with the same values, and
 * finds the line end as it goes (no separate search for it).
 */
static int row_fast(const csv_cfg *c, const char *p, const char *end, double *dst, char **text,
                    const char **le) {
    const char delim = c->delim;
    const int fin = !c->o->allow_nonfinite;
    size_t j = 0;
    *text = NULL;
    if (delim == ' ') {
        for (;;) {
            while (p < end && is_blank(*p)) p++;
            if (p == end || *p == '\n') break;
            if (j == c->cols) goto no;
            if ((int)j == c->text_col) {
                const char *s = p;
                while (p < end && !is_blank(*p) && *p != '\n') p++;
                if (!(*text = text_cell(s, p))) goto no;
                dst[j++] = NAN;
                continue;
            }
            double v;
            const char *q = haze__number_fast(p, end, &v);
            if (!q || (q < end && !is_blank(*q) && *q != '\n') || (fin && !isfinite(v))) goto no;
            dst[j++] = v;
            p = q;
        }
        if (j == c->cols) {
            *le = p;
            return 1;
        }
        goto no;
    }
    for (;;) {
        while (p < end && (*p == ' ' || (*p == '\t' && delim != '\t'))) p++;
        if (j == c->cols) goto no;
        if ((int)j == c->text_col) {
            if (p < end && *p == '"') goto no;
            const char *s = p;
            while (p < end && *p != delim && *p != '\n') p++;
            if (!(*text = text_cell(s, p))) goto no;
            dst[j++] = NAN;
        } else {
            double v;
            const char *q = haze__number_fast(p, end, &v);
            if (!q || (fin && !isfinite(v))) goto no;
            p = q;
            while (p < end && (*p == ' ' || *p == '\r' || (*p == '\t' && delim != '\t'))) p++;
            dst[j++] = v;
        }
        if (p == end || *p == '\n') break;
        if (*p != delim) goto no;
        p++;
    }
    if (j == c->cols) {
        *le = p;
        return 1;
    }
no:
    free(*text);
    *text = NULL;
    return 0;
}

/* The row at the NUL-terminated line, split in place, checked in the order
 * the reader always checked it. */
static int row_general(const csv_cfg *c, csv_chunk *k, char *line, size_t lineno, double *dst,
                       char **text) {
    size_t bad = 0, len = strlen(line);
    int unclosed = 0;
    int st = split_line(line, c->delim, &k->f, &bad, &unclosed);
    if (st == HAZE_ERR_PARSE)
        return chunk_error(k, st, c->name, lineno, bad + 1, "%s",
                           unclosed ? "quoted field is not closed on its line"
                                    : "expected a delimiter after the quoted field");
    if (st) return k->st = st;
    const fields *f = &k->f;
    if (f->n != c->cols) {
        /* the column where the first missing field would start (after the
         * line's last character, a line end's '\r' aside) or the first extra
         * field starts */
        while (len && line[len - 1] == '\r') len--;
        size_t col = f->n < c->cols ? len + 1 : f->at[c->cols] + 1;
        return chunk_error(k, HAZE_ERR_PARSE, c->name, lineno, col,
                           "expected %zu fields, found %zu", c->cols, f->n);
    }
    if (c->text_col >= 0 && !(*text = strdup(f->v[c->text_col]))) return k->st = HAZE_ERR_NOMEM;
    for (size_t j = 0; j < c->cols; j++) {
        double v = NAN;
        if ((int)j != c->text_col) {
            int num = parse_number(f->v[j], &v);
            if (!num && k->text_line) { /* NaN; the caller checks the columns it uses */
                v = NAN;
                if (!k->text_line[j]) k->text_line[j] = lineno;
            } else if (!num) {
                return chunk_error(k, HAZE_ERR_PARSE, c->name, lineno, 0,
                                   "column %zu%s%s%s: expected a number, found \"%.40s\"", j + 1,
                                   c->names ? " (" : "", c->names ? c->names[j] : "",
                                   c->names ? ")" : "", f->v[j]);
            } else if (!isfinite(v) && !c->o->allow_nonfinite) {
                return chunk_error(k, HAZE_ERR_PARSE, c->name, lineno, 0,
                                   "column %zu: \"%s\" is not a finite number", j + 1, f->v[j]);
            }
        }
        dst[j] = v;
    }
    return HAZE_OK;
}

/* Pass 1: the chunk's lines and rows. */
static void chunk_count(csv_chunk *k) {
    size_t lines = 0, rows = 0;
    for (char *p = k->begin; p < k->end;) {
        char *le = memchr(p, '\n', (size_t)(k->end - p));
        if (!le) le = k->end;
        lines++;
        rows += !is_blank_or_comment(p, le);
        p = le + 1;
    }
    k->lines = lines;
    k->rows = rows;
}

/* Pass 2: the chunk's rows into t. */
static void chunk_read(const csv_cfg *c, csv_chunk *k, haze_table *t) {
    size_t lineno = k->line0, row = k->row0;
    char *const end = k->end;
    for (char *p = k->begin; p < end;) {
        lineno++;
        char *q = p, *le;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
        if (q == end || *q == '\n' || *q == '#') { /* blank or a comment */
            le = memchr(q, '\n', (size_t)(end - q));
            p = le ? le + 1 : end;
            continue;
        }
        double *dst = t->data + row * c->cols;
        char *cell = NULL;
        const char *fe;
        if (row_fast(c, p, end, dst, &cell, &fe)) {
            le = (char *)fe;
        } else {
            le = memchr(p, '\n', (size_t)(end - p));
            if (!le) le = end;
            *le = '\0'; /* the line end, or the buffer's NUL */
            int st = row_general(c, k, p, lineno, dst, &cell);
            if (st) {
                free(cell);
                return;
            }
        }
        if (t->text) t->text[row] = cell;
        row++;
        p = le + 1;
    }
}

/* Lines [from, end) cut into n chunks at line ends. */
static void chunks_cut(csv_chunk *k, size_t n, char *from, char *end) {
    size_t len = (size_t)(end - from);
    char *prev = from;
    for (size_t i = 0; i < n; i++) {
        char *b = i + 1 == n ? end : from + len / n * (i + 1);
        if (b < prev) b = prev;
        if (b < end) {
            char *nl = memchr(b, '\n', (size_t)(end - b));
            b = nl ? nl + 1 : end;
        }
        k[i].begin = prev;
        k[i].end = b;
        prev = b;
    }
}

static int csv_parse(haze_ctx *ctx, const char *path, char *buf, size_t len,
                     const haze_read_options *o, haze_table *t) {
    fields f = {0};
    int st = HAZE_OK;
    int header = o->header;
    long text_index = -1; /* resolved once the columns are known */
    size_t lineno = 0;
    char *line = buf, *bufend = buf + len, *first = NULL;
    csv_chunk *k = NULL;
    size_t nk = 0;
    csv_cfg cfg = {path, o, 0, 0, -1, NULL};
    /* a UTF-8 byte-order mark (Excel's "CSV UTF-8", PowerShell) is not text */
    if (len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3;

    /* the first line that is not blank or a comment: delimiter, columns, header */
    char *le = NULL;
    while (line < bufend) {
        le = memchr(line, '\n', (size_t)(bufend - line));
        if (!le) le = bufend;
        lineno++;
        if (!is_blank_or_comment(line, le)) break;
        line = le + 1;
    }
    if (line >= bufend) {
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: no data rows (empty file)", path);
        goto out;
    }
    /* split a copy: a first line of data is read again with the others */
    if (!(first = malloc((size_t)(le - line) + 1))) {
        st = HAZE_ERR_NOMEM;
        goto out;
    }
    memcpy(first, line, (size_t)(le - line));
    first[le - line] = '\0';
    cfg.delim = choose_delim(first);
    size_t bad = 0;
    int unclosed = 0;
    if ((st = split_line(first, cfg.delim, &f, &bad, &unclosed))) {
        if (st == HAZE_ERR_PARSE)
            st = haze__text_error(ctx, st, path, (long)lineno, (long)bad + 1, "%s",
                                  unclosed ? "quoted field is not closed on its line"
                                           : "expected a delimiter after the quoted field");
        goto out;
    }
    t->cols = f.n;
    if (o->text_column) {
        char *end;
        long j = strtol(o->text_column, &end, 10);
        if (*end == '\0' && j >= 0) text_index = j;
    }
    if (header < 0) {
        header = 0;
        for (size_t j = 0; j < f.n; j++) {
            double v;
            if ((long)j != text_index && !parse_number(f.v[j], &v)) header = 1;
        }
        if (o->text_column && text_index < 0) header = 1; /* named: needs a header */
    }
    if (header) {
        t->names = calloc(f.n, sizeof *t->names);
        if (!t->names) {
            st = HAZE_ERR_NOMEM;
            goto out;
        }
        for (size_t j = 0; j < f.n; j++)
            if (!(t->names[j] = strdup(f.v[j]))) {
                st = HAZE_ERR_NOMEM;
                goto out;
            }
    }
    if (o->text_as_nan && !(t->text_line = calloc(f.n, sizeof *t->text_line))) {
        st = HAZE_ERR_NOMEM;
        goto out;
    }
    if (o->text_column) {
        int j = haze_table_column(t, o->text_column);
        if (j < 0) {
            st = haze__text_error(ctx, HAZE_ERR_PARSE, path, (long)lineno, 0,
                                  "no column '%s' (%zu columns%s)", o->text_column, t->cols,
                                  t->names ? " in the header" : ", no header");
            goto out;
        }
        t->text_col = j;
    }
    cfg.cols = t->cols;
    cfg.text_col = t->text_col;
    cfg.names = t->names;
    if (header) { /* the data starts on the next line */
        line = le < bufend ? le + 1 : bufend;
    } else {
        lineno--;
    }

    /* chunks of 64 KiB at least (a thread costs about as much as reading that), one per thread */
    int nthr = haze__threads(ctx);
    nk = (size_t)(bufend - line) / (1u << 16) + 1;
    if (nk > (size_t)nthr) nk = (size_t)nthr;
    if (!(k = calloc(nk, sizeof *k))) {
        nk = 0;
        st = HAZE_ERR_NOMEM;
        goto out;
    }
    chunks_cut(k, nk, line, bufend);
#pragma omp parallel for num_threads(nthr) schedule(static, 1) if (nk > 1)
    for (size_t i = 0; i < nk; i++) chunk_count(&k[i]);
    size_t rows = 0;
    for (size_t i = 0; i < nk; i++) {
        k[i].line0 = lineno;
        k[i].row0 = rows;
        lineno += k[i].lines;
        rows += k[i].rows;
        if (t->text_line && !(k[i].text_line = calloc(t->cols, sizeof *k[i].text_line))) {
            st = HAZE_ERR_NOMEM;
            goto out;
        }
    }
    if (rows == 0) {
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: no data rows after the header", path);
        goto out;
    }
    if (rows > SIZE_MAX / sizeof(double) / t->cols) {
        st = HAZE_ERR_NOMEM;
        goto out;
    }
    if (!(t->data = big_alloc(rows * t->cols * sizeof *t->data)) ||
        (t->text_col >= 0 && !(t->text = calloc(rows, sizeof *t->text)))) {
        st = HAZE_ERR_NOMEM;
        goto out;
    }
    t->rows = rows; /* every text cell is owned by t from here on */
#pragma omp parallel for num_threads(nthr) schedule(static, 1) if (nk > 1)
    for (size_t i = 0; i < nk; i++) chunk_read(&cfg, &k[i], t);
    for (size_t i = 0; i < nk && !st; i++) {
        if (k[i].st) {
            st = k[i].msg ? haze__error(ctx, k[i].st, "%s", k[i].msg) : k[i].st;
            break;
        }
        if (t->text_line)
            for (size_t j = 0; j < t->cols; j++)
                if (!t->text_line[j]) t->text_line[j] = k[i].text_line[j];
    }
out:
    for (size_t i = 0; i < nk; i++) {
        free(k[i].msg);
        free(k[i].text_line);
        fields_free(&k[i].f);
    }
    free(k);
    free(first);
    fields_free(&f);
    return st;
}

/* ------------------------------------------------------------------ NPY */

/*
 * The header is the repr() of a Python dict, e.g.
 *   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
 * NumPy reads it with ast.literal_eval; no C library packaged for Debian
 * parses Python literals, and the subset NEP 1 allows is small, so this is a
 * strict hand-written parser of exactly that subset: the three keys, each
 * once; 'descr' a string (a list is a structured dtype, refused by name);
 * 'fortran_order' True or False; 'shape' a tuple of integers (Python 2's
 * "3L" accepted). White space may stand between any two tokens, so
 * "'fortran_order':True" is read like "'fortran_order': True".
 */
typedef struct {
    const char *s; /* the header text */
    size_t n, i;   /* its length and the read position */
} npy_lex;

static void npy_blank(npy_lex *l) {
    while (l->i < l->n &&
           (l->s[l->i] == ' ' || l->s[l->i] == '\t' || l->s[l->i] == '\n' || l->s[l->i] == '\r'))
        l->i++;
}

static int npy_peek(npy_lex *l) {
    npy_blank(l);
    return l->i < l->n ? (unsigned char)l->s[l->i] : -1;
}

static int npy_eat(npy_lex *l, char c) {
    if (npy_peek(l) != (unsigned char)c) return 0;
    l->i++;
    return 1;
}

/* A quoted string without escapes (NumPy's keys and dtype strings have none). */
static int npy_string(npy_lex *l, char *buf, size_t cap) {
    int q = npy_peek(l);
    if (q != '\'' && q != '"') return 0;
    size_t k = 0;
    for (l->i++; l->i < l->n && l->s[l->i] != q; l->i++) {
        char c = l->s[l->i];
        if (c == '\\' || c == '\n' || k + 1 >= cap) return 0;
        buf[k++] = c;
    }
    if (l->i >= l->n) return 0;
    l->i++;
    buf[k] = '\0';
    return 1;
}

/* True or False, not followed by more of a name. */
static int npy_bool(npy_lex *l, int *v) {
    npy_blank(l);
    for (int b = 0; b < 2; b++) {
        const char *w = b ? "True" : "False";
        size_t m = strlen(w);
        if (l->n - l->i >= m && memcmp(l->s + l->i, w, m) == 0 &&
            (l->i + m == l->n ||
             !(isalnum((unsigned char)l->s[l->i + m]) || l->s[l->i + m] == '_'))) {
            l->i += m;
            *v = b;
            return 1;
        }
    }
    return 0;
}

/* A non-negative integer; 1 ok, 0 not one, -1 larger than size_t. */
static int npy_uint(npy_lex *l, size_t *v) {
    npy_blank(l);
    if (l->i >= l->n || !isdigit((unsigned char)l->s[l->i])) return 0;
    size_t x = 0;
    int over = 0;
    for (; l->i < l->n && isdigit((unsigned char)l->s[l->i]); l->i++) {
        size_t d = (size_t)(l->s[l->i] - '0');
        if (x > (SIZE_MAX - d) / 10) over = 1;
        x = over ? 0 : 10 * x + d;
    }
    if (l->i < l->n && l->s[l->i] == 'L') l->i++; /* Python 2 long */
    *v = x;
    return over ? -1 : 1;
}

typedef struct {
    char descr[64];
    int structured; /* 'descr' was a list of fields */
    int fortran;
    size_t dims[2];
    int nd;
    int seen[3]; /* descr, fortran_order, shape */
} npy_header;

static int npy_header_parse(haze_ctx *ctx, const char *path, const char *s, size_t n,
                            npy_header *h) {
    npy_lex l = {s, n, 0};
    const char *want = "'{'";
    memset(h, 0, sizeof *h);
    if (!npy_eat(&l, '{')) goto bad;
    while (!npy_eat(&l, '}')) {
        char key[32];
        want = "a quoted key";
        if (!npy_string(&l, key, sizeof key)) goto bad;
        int k = strcmp(key, "descr") == 0           ? 0
                : strcmp(key, "fortran_order") == 0 ? 1
                : strcmp(key, "shape") == 0         ? 2
                                                    : -1;
        if (k < 0 || h->seen[k])
            return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy header, offset %zu: %s key '%s'",
                               path, l.i, k < 0 ? "unknown" : "repeated", key);
        h->seen[k] = 1;
        want = "':'";
        if (!npy_eat(&l, ':')) goto bad;
        if (k == 0) {
            want = "a dtype string";
            if (npy_peek(&l) == '[') { /* structured: skip the list, bracket-balanced */
                h->structured = 1;
                int depth = 0;
                char q = 0;
                for (; l.i < l.n; l.i++) {
                    char c = l.s[l.i];
                    if (q) {
                        if (c == q) q = 0;
                    } else if (c == '\'' || c == '"') {
                        q = c;
                    } else if (c == '[' || c == '(') {
                        depth++;
                    } else if ((c == ']' || c == ')') && --depth == 0) {
                        l.i++;
                        break;
                    }
                }
                if (depth) goto bad;
            } else if (!npy_string(&l, h->descr, sizeof h->descr)) {
                goto bad;
            }
        } else if (k == 1) {
            want = "True or False";
            if (!npy_bool(&l, &h->fortran)) goto bad;
        } else {
            want = "'(' starting the shape";
            if (!npy_eat(&l, '(')) goto bad;
            int comma = 0; /* (3) is an integer in parentheses; NumPy writes (3,) */
            for (;;) {
                want = "a dimension or ')'";
                if (npy_eat(&l, ')')) break;
                size_t d;
                int r = npy_uint(&l, &d);
                if (r < 0)
                    return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy shape overflows", path);
                if (!r) goto bad;
                if (h->nd >= 2)
                    return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                                       "%s: .npy array has more than 2 dimensions", path);
                h->dims[h->nd++] = d;
                want = h->nd == 1 ? "',' (a one-element tuple is written (N,))" : "',' or ')'";
                if (npy_peek(&l) == ')' && (h->nd > 1 || comma)) {
                    l.i++;
                    break;
                }
                if (!npy_eat(&l, ',')) goto bad;
                comma = 1;
            }
        }
        want = "',' or '}'";
        if (npy_eat(&l, '}')) break;
        if (!npy_eat(&l, ',')) goto bad;
    }
    npy_blank(&l);
    want = "the end of the header";
    if (l.i != l.n) goto bad;
    return HAZE_OK;
bad:
    return haze__error(ctx, HAZE_ERR_PARSE,
                       "%s: .npy header, offset %zu: expected %s, found \"%.20s\"", path, l.i, want,
                       l.i < l.n ? l.s + l.i : "the end");
}

/* The fixed start of a .npy file (b: its first min(fsize, 12) bytes or more):
 * where the header dict starts (*off) and its length (*hlen). */
static int npy_prelude(haze_ctx *ctx, const char *path, const unsigned char *b, size_t fsize,
                       size_t *hlen, size_t *off) {
    if (fsize < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: not a NumPy .npy file", path);
    int major = b[6];
    if (major == 1) {
        *hlen = b[8] | (size_t)b[9] << 8;
        *off = 10;
    } else if (major == 2 || major == 3) {
        if (fsize < 12) return haze__error(ctx, HAZE_ERR_PARSE, "%s: truncated .npy header", path);
        *hlen = b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        *off = 12;
    } else {
        return haze__error(ctx, HAZE_ERR_VERSION, "%s: .npy format version %d is not supported",
                           path, major);
    }
    if (*hlen > fsize - *off)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: truncated .npy header", path);
    return HAZE_OK;
}

/* The header dict s (n bytes) of a file of fsize bytes whose data starts at
 * off: the shape into t, the value size (4 or 8) into *elem. */
static int npy_layout(haze_ctx *ctx, const char *path, const char *s, size_t n, size_t fsize,
                      size_t off, npy_header *h, int *elem, haze_table *t) {
    int st = npy_header_parse(ctx, path, s, n, h);
    if (st) return st;
    if (h->structured)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: .npy array has a structured dtype (named fields); save a plain "
                           "float32 or float64 array",
                           path);
    if (!h->seen[0])
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy header has no 'descr'", path);
    if (strcmp(h->descr, "<f8") == 0 || strcmp(h->descr, "float64") == 0)
        *elem = 8;
    else if (strcmp(h->descr, "<f4") == 0 || strcmp(h->descr, "float32") == 0)
        *elem = 4;
    else
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: .npy dtype '%s' is not supported: little-endian float32 or "
                           "float64 ('<f4', '<f8')",
                           path, h->descr);
    for (int k = 1; k < 3; k++) /* a dtype we cannot read is said first */
        if (!h->seen[k])
            return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy header has no '%s'", path,
                               k == 1 ? "fortran_order" : "shape");
    if (h->nd == 0) return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy array is a scalar", path);
    t->rows = h->dims[0];
    t->cols = h->nd == 2 ? h->dims[1] : 1;
    /* overflow first: a product that wraps to 0 is not an empty array */
    if (t->cols && t->rows > SIZE_MAX / t->cols)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy shape overflows", path);
    size_t count = t->rows * t->cols;
    if (count == 0) return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy array is empty", path);
    /* compared by division: count * elem (and count * 8 for the table) could
     * wrap for a shape that claims more than memory holds, and pass for a
     * short file */
    if (count > (fsize - off) / (size_t)*elem)
        return haze__error(ctx, HAZE_ERR_PARSE,
                           "%s: truncated .npy data (%zu bytes for %zu x %zu values of %d bytes)",
                           path, fsize - off, t->rows, t->cols, *elem);
    return HAZE_OK;
}

/* The table's storage: floats for a float32 array the caller keeps float32,
 * else doubles. */
static int npy_alloc(const haze_read_options *o, int elem, haze_table *t) {
    size_t count = t->rows * t->cols;
    if (elem == 4 && o->keep_float32) {
        if (count > SIZE_MAX / sizeof(float) || !(t->data_f32 = big_alloc(count * sizeof(float))))
            return HAZE_ERR_NOMEM;
    } else if (count > SIZE_MAX / sizeof(double) ||
               !(t->data = big_alloc(count * sizeof(double)))) {
        return HAZE_ERR_NOMEM;
    }
    return HAZE_OK;
}

/*
 * The values at src (file order) into the table, checked finite (unless
 * allowed) in file order. A C-order array may already be in place: src the
 * table itself, or, for float32 widened to double, the upper half of the
 * table (value i is read before double i is written, and double i covers
 * only float values up to i).
 */
static int npy_store(haze_ctx *ctx, const char *path, const npy_header *h, int elem,
                     const unsigned char *src, const haze_read_options *o, haze_table *t) {
    const size_t rows = t->rows, cols = t->cols, count = rows * cols;
    const int fin = !o->allow_nonfinite;
    for (size_t i = 0; i < count; i++) {
        /* Fortran order stores column after column: value i is (i % rows, i / rows) */
        size_t d = h->fortran ? (i % rows) * cols + i / rows : i;
        int finite;
        if (elem == 4) {
            float f;
            memcpy(&f, src + 4 * i, 4);
            finite = isfinite(f);
            if (t->data_f32)
                memcpy(t->data_f32 + d, &f, 4); /* the bits as they are, NaN payloads too */
            else
                t->data[d] = f;
        } else {
            double v;
            memcpy(&v, src + 8 * i, 8);
            finite = isfinite(v);
            t->data[d] = v;
        }
        if (!finite && fin)
            return haze__error(ctx, HAZE_ERR_PARSE, "%s: row %zu, column %zu: not a finite number",
                               path, d / cols + 1, d % cols + 1);
    }
    return HAZE_OK;
}

/* A .npy file held in memory (standard input, a pipe). */
static int npy_parse(haze_ctx *ctx, const char *path, const unsigned char *b, size_t len,
                     const haze_read_options *o, haze_table *t) {
    size_t hlen, off;
    npy_header h;
    int elem;
    int st = npy_prelude(ctx, path, b, len, &hlen, &off);
    if (!st) st = npy_layout(ctx, path, (const char *)b + off, hlen, len, off + hlen, &h, &elem, t);
    if (!st) st = npy_alloc(o, elem, t);
    if (!st) st = npy_store(ctx, path, &h, elem, b + off + hlen, o, t);
    return st;
}

/* n bytes at offset at of fd into dst; *got: how many there were (fewer at
 * the end of the file). */
static int read_at(int fd, size_t at, void *dst, size_t n, size_t *got) {
    size_t k = 0;
    while (k < n) {
        size_t want = n - k < (1u << 30) ? n - k : (1u << 30);
        ssize_t r = pread(fd, (char *)dst + k, want, (off_t)(at + k));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return errno ? errno : EIO;
        if (r == 0) break;
        k += (size_t)r;
    }
    *got = k;
    return 0;
}

static int read_error(haze_ctx *ctx, const char *path, int e) {
    return haze__error(ctx, HAZE_ERR_IO, "%s: read error: %s", path, strerror(e));
}

/* A .npy file of fsize bytes: the values read straight into the table (one
 * read, no copy) unless the array is in Fortran order. pre holds its first
 * npre bytes. */
static int npy_read_fd(haze_ctx *ctx, const char *path, const char *name, int fd, size_t fsize,
                       const unsigned char *pre, size_t npre, const haze_read_options *o,
                       haze_table *t) {
    size_t hlen, off, got;
    int st = npy_prelude(ctx, name, pre, fsize, &hlen, &off), e, elem;
    if (st) return st;
    char *hdr = NULL;
    const char *hs = (const char *)pre + off;
    if (off + hlen > npre) { /* a long header: read it whole */
        if (!(hdr = malloc(hlen ? hlen : 1))) return HAZE_ERR_NOMEM;
        if ((e = read_at(fd, off, hdr, hlen, &got))) {
            free(hdr);
            return read_error(ctx, path, e);
        }
        if (got < hlen) { /* the file shrank */
            free(hdr);
            return haze__error(ctx, HAZE_ERR_PARSE, "%s: truncated .npy header", name);
        }
        hs = hdr;
    }
    npy_header h;
    st = npy_layout(ctx, name, hs, hlen, fsize, off + hlen, &h, &elem, t);
    free(hdr);
    if (!st) st = npy_alloc(o, elem, t);
    if (st) return st;
    const size_t count = t->rows * t->cols, bytes = count * (size_t)elem;
    unsigned char *dst, *tmp = NULL;
    if (h.fortran) {
        if (!(dst = tmp = big_alloc(bytes))) return HAZE_ERR_NOMEM;
    } else if (t->data_f32) {
        dst = (unsigned char *)t->data_f32;
    } else {
        dst = (unsigned char *)t->data + (elem == 4 ? 4 * count : 0); /* widened in place */
    }
    if ((e = read_at(fd, off + hlen, dst, bytes, &got))) {
        st = read_error(ctx, path, e);
    } else if (got < bytes) { /* the file shrank */
        st = haze__error(ctx, HAZE_ERR_PARSE,
                         "%s: truncated .npy data (%zu bytes for %zu x %zu values of %d bytes)",
                         name, got, t->rows, t->cols, elem);
    } else {
        st = npy_store(ctx, name, &h, elem, dst, o, t);
    }
    free(tmp);
    return st;
}

/* A regular file: a .npy file read straight into the table, or CSV text read
 * with one read into one buffer. */
static int read_regular(haze_ctx *ctx, const char *path, int fd, size_t fsize,
                        const haze_read_options *o, haze_table *t) {
    unsigned char pre[4096];
    size_t npre, len;
    int e = read_at(fd, 0, pre, fsize < sizeof pre ? fsize : sizeof pre, &npre);
    if (e) return read_error(ctx, path, e);
    if (haze__text_ends_with(path, ".npy", 0) || (npre >= 6 && memcmp(pre, "\x93NUMPY", 6) == 0))
        return npy_read_fd(ctx, path, path, fd, npre < fsize ? fsize : npre, pre, npre, o, t);
    char *buf = big_alloc(fsize + 1);
    if (!buf) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory while reading", path);
    if ((e = read_at(fd, 0, buf, fsize, &len))) {
        free(buf);
        return read_error(ctx, path, e);
    }
    buf[len] = '\0';
    int st;
    if (memchr(buf, '\0', len))
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: binary data where CSV text was expected", path);
    else
        st = csv_parse(ctx, path, buf, len, o, t);
    free(buf);
    return st;
}

int haze_table_read(haze_ctx *ctx, const char *path, const haze_read_options *opt,
                    haze_table **out) {
    if (!path || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_read: NULL argument");
    *out = NULL;
    haze_read_options o = opt ? *opt : haze_read_options_default();
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
        st = haze_file_read_all(ctx, path, &buf, &len);
        if (!st) {
            if (haze__text_ends_with(path, ".npy", 0) ||
                (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0))
                st = npy_parse(ctx, name, (const unsigned char *)buf, len, &o, t);
            else if (memchr(buf, '\0', len))
                st = haze__error(ctx, HAZE_ERR_PARSE, "%s: binary data where CSV text was expected",
                                 name);
            else
                st = csv_parse(ctx, name, buf, len, &o, t);
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

/* --------------------------------------------------------------- writing */

static int npy_write_header(FILE *fp, const char *descr, size_t rows, size_t cols) {
    char dict[256];
    int n = snprintf(dict, sizeof dict,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }", descr, rows,
                     cols);
    size_t total = 10 + (size_t)n + 1; /* header + '\n' */
    size_t pad = (64 - total % 64) % 64;
    unsigned hlen = (unsigned)(n + pad + 1);
    unsigned char pre[10] = {0x93,
                             'N',
                             'U',
                             'M',
                             'P',
                             'Y',
                             1,
                             0,
                             (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    fwrite(pre, 1, 10, fp);
    fwrite(dict, 1, (size_t)n, fp);
    for (size_t i = 0; i < pad; i++) fputc(' ', fp);
    fputc('\n', fp);
    return HAZE_OK;
}

/* Header names: "x,1" written bare made a centres file that fcm predict read
 * as one column too many. */
void haze_csv_put_field(FILE *fp, const char *s) {
    size_t n = strlen(s);
    int quote = n == 0 || strpbrk(s, ",;\t\"\r\n") || s[0] == '#' || s[0] == ' ' || s[n - 1] == ' ';
    if (!quote) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"') fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

/* One thread's text of rows [r0, r1) (each value "%.17g", or "%.9g" for
 * float data, the shortest forms that read back exactly). */
typedef struct {
    char *s;
    size_t n, cap;
    int nomem;
} text_buf;

static void rows_format(text_buf *b, const void *data, int f32, size_t r0, size_t r1, size_t cols) {
    locale_t lc = haze__numeric_begin(); /* "0.5", not the host's "0,5"; per thread */
    b->n = 0;
    for (size_t i = r0; i < r1; i++) {
        if (b->cap - b->n < 32 * cols + 2) {
            size_t cap = 2 * b->cap + 32 * cols + 2;
            char *s = realloc(b->s, cap);
            if (!s) {
                b->nomem = 1;
                break;
            }
            b->s = s;
            b->cap = cap;
        }
        for (size_t j = 0; j < cols; j++) {
            if (j) b->s[b->n++] = ',';
            double v = f32 ? (double)((const float *)data)[i * cols + j]
                           : ((const double *)data)[i * cols + j];
            b->n += (size_t)snprintf(b->s + b->n, 32, f32 ? "%.9g" : "%.17g", v);
        }
        b->s[b->n++] = '\n';
    }
    haze__numeric_end(lc);
}

/* The rows as CSV text: formatted on the context's threads, a block of rows
 * each, and written in order; the same bytes as one fprintf per value. */
static int csv_rows_write(haze_ctx *ctx, FILE *fp, const void *data, int f32, size_t rows,
                          size_t cols) {
    int nthr = haze__threads(ctx);
    if ((double)rows * (double)cols < 65536) nthr = 1;
    text_buf *b = calloc((size_t)nthr, sizeof *b);
    if (!b) return HAZE_ERR_NOMEM;
    const size_t per = 2048; /* rows per thread and round */
    int st = HAZE_OK;
    for (size_t r = 0; r < rows && !st; r += per * (size_t)nthr) {
#pragma omp parallel for num_threads(nthr) schedule(static, 1) if (nthr > 1)
        for (int k = 0; k < nthr; k++) {
            size_t r0 = r + (size_t)k * per, r1 = r0 + per;
            if (r0 > rows) r0 = rows;
            if (r1 > rows) r1 = rows;
            rows_format(&b[k], data, f32, r0, r1, cols);
        }
        for (int k = 0; k < nthr && !st; k++) {
            if (b[k].nomem)
                st = HAZE_ERR_NOMEM;
            else
                fwrite(b[k].s, 1, b[k].n, fp);
        }
    }
    for (int k = 0; k < nthr; k++) free(b[k].s);
    free(b);
    return st;
}

static int matrix_write(haze_ctx *ctx, const char *path, const void *data, int f32, size_t rows,
                        size_t cols, const char *const *names) {
    if (!path || (!data && rows && cols))
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_matrix_write: NULL argument");
    haze_outfile f;
    int st = haze_outfile_open(ctx, &f, path);
    if (st) return st;
    if (haze__text_ends_with(path, ".npy", 0)) {
        npy_write_header(f.fp, f32 ? "<f4" : "<f8", rows, cols);
        fwrite(data, f32 ? 4 : 8, rows * cols, f.fp);
    } else {
        locale_t lc = haze__numeric_begin(); /* "0.5", not the host's "0,5" */
        if (names) {
            for (size_t j = 0; j < cols; j++) {
                if (j) fputc(',', f.fp);
                haze_csv_put_field(f.fp, names[j]);
            }
            fputc('\n', f.fp);
        }
        haze__numeric_end(lc);
        st = csv_rows_write(ctx, f.fp, data, f32, rows, cols);
    }
    if (st) {
        haze_outfile_abort(&f);
        return haze__error(ctx, st, "%s: out of memory", path);
    }
    return haze_outfile_commit(ctx, &f);
}

int haze_matrix_write(haze_ctx *ctx, const char *path, const double *data, size_t rows, size_t cols,
                      const char *const *names) {
    return matrix_write(ctx, path, data, 0, rows, cols, names);
}

int haze_matrix_write_f32(haze_ctx *ctx, const char *path, const float *data, size_t rows,
                          size_t cols, const char *const *names) {
    return matrix_write(ctx, path, data, 1, rows, cols, names);
}
