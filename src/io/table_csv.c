/*
 * src/io/table_csv.c - CSV and TSV text into a table: a fast, exact number
 * parser (io/number.h) over line-aligned chunks on all threads.
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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/internal.h"
#include "core/text.h"
#include "haze/io.h"
#include "io/number.h"
#include "io/table_internal.h"
#include "io/io_types.h"
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

/* The first line's delimiter: a comma, semicolon or tab outside quotes (in
 * that order), else runs of blanks between fields; a line of one quoted
 * field (no blank outside the quotes, a blank at its ends aside) is a
 * one-column CSV file, so that a quoted name such as R's "value" loses its
 * quotes. */
static char choose_delim(const char *line) {
    int in_q = 0, quotes = 0;
    int comma = 0, semi = 0, tab = 0, blank = 0;
    const char *s = line, *e = line + strlen(line);
    while (*s == ' ' || *s == '\r') s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\r')) e--;
    for (const char *p = s; p < e; p++) {
        if (*p == '"') in_q = !in_q, quotes++;
        if (in_q) continue;
        comma += *p == ',';
        semi += *p == ';';
        tab += *p == '\t';
        blank += *p == ' ';
    }
    if (comma) return ',';
    if (semi) return ';';
    if (tab) return '\t';
    return blank || !quotes ? ' ' : ',';
}

/* [p, le) holds only blanks, or a comment. */
static int is_blank_or_comment(const char *p, const char *le) {
    while (p < le && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    return p == le || *p == '#';
}

/* What every chunk reads the same way. */
typedef struct {
    const char *name; /* for messages */
    const haze_table_options *o;
    char delim;
    size_t cols;
    int text_col;
    char *const *names;        /* the header's, or NULL */
    const unsigned char *skip; /* cols flags: a column left out, not parsed; or NULL */
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
            if (c->skip && c->skip[j]) { /* left out: any text */
                if (*p == '"') goto no;
                while (p < end && !is_blank(*p) && *p != '\n') p++;
                dst[j++] = NAN;
                continue;
            }
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
        if (c->skip && c->skip[j]) { /* left out: any text, unquoted */
            if (p < end && *p == '"') goto no;
            while (p < end && *p != delim && *p != '\n') p++;
            dst[j++] = NAN;
        } else if ((int)j == c->text_col) {
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
        /* one more than the header names: row names without a name, as R's
         * write.table writes them (pandas and R read them as the index) */
        const int rownames = c->names && f->n == c->cols + 1;
        return chunk_error(k, HAZE_ERR_PARSE, c->name, lineno, col,
                           "expected %zu fields, found %zu%s", c->cols, f->n,
                           rownames ? " (the header names one column fewer than this line: row "
                                      "names with no name in the header, as R's write.table "
                                      "writes them? Put a name before the first, such as "
                                      "\"id\", and leave that column out)"
                                    : "");
    }
    if (c->text_col >= 0 && !(*text = strdup(f->v[c->text_col]))) return k->st = HAZE_ERR_NOMEM;
    for (size_t j = 0; j < c->cols; j++) {
        double v = NAN;
        if ((int)j != c->text_col && !(c->skip && c->skip[j])) {
            int num = parse_number(f->v[j], &v);
            if (c->o->missing && (num ? isnan(v) : haze__io_missing_field(f->v[j]))) {
                v = NAN; /* a missing value, for the caller to leave out or fill */
            } else if (!num && k->text_line) { /* NaN; the caller checks the columns it uses */
                v = NAN;
                if (!k->text_line[j]) k->text_line[j] = lineno;
            } else if (!num) {
                return chunk_error(k, HAZE_ERR_PARSE, c->name, lineno, 0,
                                   "column %zu%s%s%s: expected a number, found \"%.40s\"", j + 1,
                                   c->names ? " (" : "", c->names ? c->names[j] : "",
                                   c->names ? ")" : "", f->v[j]);
            } else if (!isfinite(v) && !c->o->allow_nonfinite) {
                return chunk_error(k, HAZE_ERR_PARSE, c->name, lineno, 0,
                                   "column %zu%s%s%s: \"%s\" is not a finite number", j + 1,
                                   c->names ? " (" : "", c->names ? c->names[j] : "",
                                   c->names ? ")" : "", f->v[j]);
            }
        }
        dst[j] = v;
    }
    return HAZE_OK;
}

/* A byte that may start a blank line or a comment (is_blank_or_comment). */
static inline unsigned odd_start(unsigned char c) {
    return (c == ' ') | (c == '\t') | (c == '\r') | (c == '\n') | (c == '#');
}

/*
 * Pass 1: the chunk's lines and rows. First one pass over the bytes (16 at
 * a time with SSE2, one by one elsewhere): the line ends, and whether a
 * line starts with a byte that a blank line or a comment may start with.
 * Where none does, every line is a row; else the lines are looked at one
 * by one. With one memchr a line the count was a sixth of the reading of
 * short rows ("4.7457,6.5747"); it is now about a twentieth.
 */
static void chunk_count(csv_chunk *k) {
    const unsigned char *b = (const unsigned char *)k->begin;
    const size_t n = (size_t)(k->end - k->begin);
    if (n == 0) {
        k->lines = k->rows = 0;
        return;
    }
    size_t nl = 0, odd = odd_start(b[0]), i = 0;
#if defined(__SSE2__)
    /* 16 bytes at a time: the line ends (counted in 16 byte-wide counters,
     * summed every 255 rounds), and those followed by such a byte */
    const __m128i cn = _mm_set1_epi8('\n'), cs = _mm_set1_epi8(' '), ct = _mm_set1_epi8('\t'),
                  cr = _mm_set1_epi8('\r'), ch = _mm_set1_epi8('#'), zero = _mm_setzero_si128();
    __m128i any = zero;
    while (i + 17 <= n) {
        __m128i cnt = zero;
        for (int r = 0; r < 255 && i + 17 <= n; r++, i += 16) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(b + i));
            const __m128i y = _mm_loadu_si128((const __m128i *)(b + i + 1));
            const __m128i o = _mm_or_si128(
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(y, cs), _mm_cmpeq_epi8(y, ct)),
                             _mm_or_si128(_mm_cmpeq_epi8(y, cr), _mm_cmpeq_epi8(y, ch))),
                _mm_cmpeq_epi8(y, cn));
            const __m128i e = _mm_cmpeq_epi8(x, cn);
            cnt = _mm_sub_epi8(cnt, e); /* e is -1 where a line ends */
            any = _mm_or_si128(any, _mm_and_si128(e, o));
        }
        const __m128i s2 = _mm_sad_epu8(cnt, zero);
        nl += (size_t)_mm_cvtsi128_si32(s2) + (size_t)_mm_extract_epi16(s2, 4);
    }
    odd |= (size_t)_mm_movemask_epi8(any);
#endif
    for (; i + 1 < n; i++) {
        const unsigned e = b[i] == '\n';
        nl += e;
        odd |= e & odd_start(b[i + 1]);
    }
    nl += b[n - 1] == '\n';
    if (odd == 0) {
        k->lines = k->rows = nl + (b[n - 1] != '\n');
        return;
    }
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

/* A copy of names (n of them; NULL: none) in *out, in UTF-8: a name that
 * is not (a header saved as Windows-1252 by a spreadsheet) is read as
 * Windows-1252, as the model readers read theirs, so that the names match
 * whichever of the two encodings each file was saved in. */
static int names_copy(char *const *names, size_t n, char ***out) {
    *out = NULL;
    if (!names) return HAZE_OK;
    char **c = calloc(n ? n : 1, sizeof *c);
    if (!c) return HAZE_ERR_NOMEM;
    for (size_t j = 0; j < n; j++)
        if (!(c[j] = haze__text_utf8_dup(names[j]))) {
            for (size_t i = 0; i < j; i++) free(c[i]);
            free(c);
            return HAZE_ERR_NOMEM;
        }
    *out = c;
    return HAZE_OK;
}

void haze__io_csv_state_free(haze__csv_state *s) {
    if (s->names)
        for (size_t j = 0; j < s->cols; j++) free(s->names[j]);
    free(s->names);
    free(s->keep);
    free(s->skip);
    free(s->spare);
    memset(s, 0, sizeof *s);
}

int haze__io_csv_block(haze_ctx *ctx, const char *path, char *buf, size_t len,
                       const haze_table_options *o, haze__csv_state *s, haze_table *t) {
    if (o->first_row || o->max_rows)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: a row range is read from .npy files only", path);
    fields f = {0};
    int st = HAZE_OK;
    size_t lineno = s->lineno;
    char *line = buf, *bufend = buf + len, *first = NULL;
    csv_chunk *k = NULL;
    size_t nk = 0;
    const int start = !s->started;
    /* a UTF-8 byte-order mark (Excel's "CSV UTF-8", PowerShell) is not text */
    if (start && s->blocks == 0 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3;
    s->blocks++;

    if (start) {
        /* the first line that is not blank or a comment: delimiter, columns, header */
        int header = o->header;
        long text_index = -1; /* resolved once the columns are known */
        char *le = NULL;
        while (line < bufend) {
            le = memchr(line, '\n', (size_t)(bufend - line));
            if (!le) le = bufend;
            lineno++;
            if (!is_blank_or_comment(line, le)) break;
            line = le + 1;
        }
        if (line >= bufend) { /* not in this text: s->started stays 0 */
            s->lineno = lineno;
            goto out;
        }
        /* lines that end in a carriage return alone (classic Mac OS files)
         * would read as one long line: said as such, not as a header with
         * no data after it. A CR inside quotes, or before the LF of a CRLF
         * end, is not one. */
        int quoted = 0;
        for (const char *c = line; c < le; c++) {
            if (*c == '"') quoted = !quoted;
            if (*c == '\r' && !quoted && c + 1 < le) {
                st = haze__text_error(ctx, HAZE_ERR_PARSE, path, (long)lineno, (long)(c - line) + 1,
                                      "a line that ends in a carriage return alone (old Mac OS "
                                      "line ends): haze reads lines that end in LF or CRLF "
                                      "(convert with: tr '\\r' '\\n')");
                goto out;
            }
        }
        /* split a copy: a first line of data is read again with the others */
        if (!(first = malloc((size_t)(le - line) + 1))) {
            st = HAZE_ERR_NOMEM;
            goto out;
        }
        memcpy(first, line, (size_t)(le - line));
        first[le - line] = '\0';
        s->delim = choose_delim(first);
        size_t bad = 0;
        int unclosed = 0;
        if ((st = split_line(first, s->delim, &f, &bad, &unclosed))) {
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
        const int select = o->columns || o->drop;
        const int select_names = select && (haze__io_select_needs_names(o->columns) ||
                                            haze__io_select_needs_names(o->drop));
        int numbers_only = 0; /* a header only because a column was named */
        if (header < 0) {
            /* a column left out by number may hold text in every line: not a header's sign */
            size_t *kk = NULL, nkk = f.n;
            if (select && !select_names &&
                haze__io_select(NULL, path, 0, f.n, NULL, o->columns, o->drop, &kk, &nkk))
                nkk = f.n; /* said below, with the header's names if there is one */
            header = 0;
            for (size_t q = 0; q < nkk; q++) {
                const size_t j = kk ? kk[q] : q;
                double v;
                if ((long)j != text_index && !parse_number(f.v[j], &v) &&
                    !(o->missing && haze__io_missing_field(f.v[j])))
                    header = 1; /* (a missing value is no header's name) */
            }
            free(kk);
            numbers_only = !header && ((o->text_column && text_index < 0) || select_names);
            if (o->text_column && text_index < 0) header = 1; /* named: needs a header */
            if (select_names) header = 1;
        }
        if (header && (st = names_copy(f.v, f.n, &t->names))) goto out;
        if (o->text_column) {
            int j = haze__io_column(t, o->text_column);
            for (size_t q = 0; j >= 0 && t->names && q < t->cols; q++)
                if ((int)q != j && !strcmp(t->names[q], o->text_column) &&
                    !strcmp(t->names[j], o->text_column)) {
                    st = haze__text_error(ctx, HAZE_ERR_PARSE, path, (long)lineno, 0,
                                          "the header names '%s' twice (columns %d and %zu)",
                                          o->text_column, j + 1, q + 1);
                    goto out;
                }
            if (j < 0 && numbers_only) {
                st = haze__text_error(ctx, HAZE_ERR_PARSE, path, (long)lineno, 0,
                                      "no column '%s': the first line holds numbers only, so the "
                                      "file has no header; give the column by its 0-based number "
                                      "(0 to %zu)",
                                      o->text_column, t->cols - 1);
                goto out;
            }
            if (j < 0) {
                st = haze__text_error(ctx, HAZE_ERR_PARSE, path, (long)lineno, 0,
                                      "no column '%s' (%zu columns%s)", o->text_column, t->cols,
                                      t->names ? " in the header" : ", no header");
                goto out;
            }
            t->text_col = j;
        }
        if (select) {
            if ((st = haze__io_select(ctx, path, header ? (long)lineno : 0, t->cols,
                                      numbers_only ? NULL : t->names, o->columns, o->drop, &s->keep,
                                      &s->nkeep)))
                goto out;
            int text_kept = t->text_col < 0;
            for (size_t q = 0; q < s->nkeep; q++) text_kept |= (int)s->keep[q] == t->text_col;
            if (!text_kept) {
                st = haze__text_error(ctx, HAZE_ERR_PARSE, path, header ? (long)lineno : 0, 0,
                                      "the text column '%s' is among the columns left out",
                                      o->text_column);
                goto out;
            }
            if (haze__io_select_identity(s->keep, s->nkeep, t->cols)) {
                free(s->keep);
                s->keep = NULL;
            } else if (!(s->skip = malloc(t->cols))) {
                st = HAZE_ERR_NOMEM;
                goto out;
            } else {
                memset(s->skip, 1, t->cols);
                for (size_t q = 0; q < s->nkeep; q++) s->skip[s->keep[q]] = 0;
            }
        }
        if (header) { /* the data starts on the next line */
            line = le < bufend ? le + 1 : bufend;
        } else {
            lineno--;
        }
        /* what the blocks after this one are read with */
        if ((st = names_copy(t->names, t->cols, &s->names))) goto out;
        s->cols = t->cols;
        s->text_col = t->text_col;
        s->started = 1;
    } else {
        t->cols = s->cols;
        t->text_col = s->text_col;
        if ((st = names_copy(s->names, s->cols, &t->names))) goto out;
    }
    if (o->text_as_nan && !(t->text_line = calloc(t->cols, sizeof *t->text_line))) {
        st = HAZE_ERR_NOMEM;
        goto out;
    }
    csv_cfg cfg = {path, o, s->delim, t->cols, t->text_col, t->names, s->skip};

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
    s->lineno = lineno;
    if (rows == 0) goto out; /* blank lines and comments only */
    if (rows > SIZE_MAX / sizeof(double) / t->cols) {
        st = HAZE_ERR_NOMEM;
        goto out;
    }
    /* a block's memory given back, else fresh memory, lazy: each chunk's
     * thread faults in (and the kernel clears) the pages of its own rows */
    if (s->spare && s->spare_n >= rows * t->cols) {
        t->data = s->spare;
        s->spare = NULL;
        s->spare_n = 0;
    }
    if ((!t->data && !(t->data = haze__io_big_alloc_lazy(rows * t->cols * sizeof *t->data))) ||
        (t->text_col >= 0 && !(t->text = calloc(rows, sizeof *t->text)))) {
        st = HAZE_ERR_NOMEM;
        goto out;
    }
    t->rows = rows; /* every text cell is owned by t from here on */
    s->rows += rows;
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
    if (!st && s->keep) st = haze__io_table_keep(t, s->keep, s->nkeep);
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

int haze__io_csv_parse(haze_ctx *ctx, const char *path, char *buf, size_t len,
                       const haze_table_options *o, haze_table *t) {
    haze__csv_state s;
    memset(&s, 0, sizeof s);
    int st = haze__io_csv_block(ctx, path, buf, len, o, &s, t);
    if (!st && !s.started)
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: no data rows (empty file)", path);
    else if (!st && t->rows == 0)
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: no data rows after the header", path);
    haze__io_csv_state_free(&s);
    return st;
}
