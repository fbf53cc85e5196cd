/*
 * tests/table_ref.c - the table reader as it was before the fast readers
 * (src/io/table.c until the parallel CSV reader and the direct .npy read),
 * kept for test_table only, as the reference the fast readers must match:
 * the same numbers bit for bit and the same error messages. It reads the
 * whole file into a growing buffer, splits each line into fields and reads
 * every number with strtod in the C locale. Not part of the library.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "haze/io.h"
#include "table_ref.h"
#include "core/text.h"
#include "io/io_types.h" /* white-box: the reader's own table */

/* ------------------------------------------------------------------ CSV */

typedef struct {
    char **v;
    size_t n, cap;
} fields;

static int fields_push(fields *f, char *s) {
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        char **v = realloc(f->v, cap * sizeof *v);
        if (!v) return HAZE_ERR_NOMEM;
        f->v = v;
        f->cap = cap;
    }
    f->v[f->n++] = s;
    return HAZE_OK;
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
            if (fields_push(f, start)) return HAZE_ERR_NOMEM;
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
            if (fields_push(f, start)) return HAZE_ERR_NOMEM;
            if (!more) break;
            continue;
        }
        while (*p && *p != delim) p++;
        int more = *p == delim;
        if (more) *p++ = '\0';
        if (fields_push(f, trim(start))) return HAZE_ERR_NOMEM;
        if (!more) break;
    }
    return HAZE_OK;
}

static int parse_number(const char *s, double *out) {
    if (!*s) return 0;
    errno = 0;
    char *end;
    double v = haze__strtod(s, &end);
    if (end == s || *end != '\0') return 0;
    *out = v;
    return 1;
}

/* A line of one quoted field (blanks at its ends aside) is a one-column
 * CSV line: the reader's rule since R's one-column files ("value"). */
static char choose_delim(const char *line) {
    int in_q = 0, quoted = 0;
    int comma = 0, semi = 0, tab = 0, blank = 0;
    size_t len = strlen(line);
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\r')) len--;
    const char *p = line;
    while (*p == ' ' || *p == '\r') p++;
    for (; p < line + len; p++) {
        if (*p == '"') in_q = !in_q, quoted = 1;
        if (in_q) continue;
        comma += *p == ',';
        semi += *p == ';';
        tab += *p == '\t';
        blank += *p == ' ';
    }
    if (comma) return ',';
    if (semi) return ';';
    if (tab) return '\t';
    return quoted && !blank ? ',' : ' ';
}

static int is_blank_or_comment(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    return *s == '\0' || *s == '#';
}

static int csv_parse(haze_ctx *ctx, const char *path, char *buf, const haze_table_options *o,
                     haze_table *t) {
    fields f = {0};
    size_t cap = 0, nvals = 0, textcap = 0;
    int st = HAZE_OK;
    char delim = 0;
    int header = o->header;
    long text_index = -1; /* resolved once the columns are known */
    size_t lineno = 0;
    char *line = buf;
    /* a UTF-8 byte-order mark (Excel's "CSV UTF-8", PowerShell) is not text */
    if (strncmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3;

    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        lineno++;
        char *next = nl ? nl + 1 : NULL;
        if (is_blank_or_comment(line)) {
            line = next;
            continue;
        }
        if (!delim) delim = choose_delim(line);
        size_t bad = 0;
        int unclosed = 0;
        if ((st = split_line(line, delim, &f, &bad, &unclosed))) {
            if (st == HAZE_ERR_PARSE)
                st = haze__error(ctx, st, "%s:%zu:%zu: %s", path, lineno, bad + 1,
                                 unclosed ? "quoted field is not closed on its line"
                                          : "expected a delimiter after the quoted field");
            goto out;
        }

        if (t->cols == 0) { /* first non-comment line: columns, header */
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
                    if (!(t->names[j] = haze__text_utf8_dup(f.v[j]))) {
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
                    st = haze__error(ctx, HAZE_ERR_PARSE, "%s:%zu: no column '%s' (%zu columns%s)",
                                     path, lineno, o->text_column, t->cols,
                                     t->names ? " in the header" : ", no header");
                    goto out;
                }
                t->text_col = j;
            }
            if (header) {
                line = next;
                continue;
            }
        }
        if (f.n != t->cols) {
            st = haze__error(ctx, HAZE_ERR_PARSE, "%s:%zu: expected %zu fields, found %zu", path,
                             lineno, t->cols, f.n);
            goto out;
        }
        if (nvals + t->cols > cap) {
            /* room for 1024 rows at first, but not beyond 64 Ki values: a
             * single line of a million delimiters must not ask for gigabytes */
            size_t first = t->cols < 64 ? 1024 * t->cols : t->cols < 65536 ? 65536 : t->cols;
            size_t ncap = cap ? 2 * cap : first;
            double *d = realloc(t->data, ncap * sizeof *d);
            if (!d) {
                st = HAZE_ERR_NOMEM;
                goto out;
            }
            t->data = d;
            cap = ncap;
        }
        if (t->text_col >= 0) {
            if (t->rows == textcap) {
                size_t ncap = textcap ? 2 * textcap : 1024;
                char **tx = realloc(t->text, ncap * sizeof *tx);
                if (!tx) {
                    st = HAZE_ERR_NOMEM;
                    goto out;
                }
                t->text = tx;
                textcap = ncap;
            }
            if (!(t->text[t->rows] = strdup(f.v[t->text_col]))) {
                st = HAZE_ERR_NOMEM;
                goto out;
            }
        }
        for (size_t j = 0; j < t->cols; j++) {
            double v = NAN;
            if ((int)j != t->text_col) {
                int num = parse_number(f.v[j], &v);
                if (!num && t->text_line) { /* NaN; the caller checks the columns it uses */
                    v = NAN;
                    if (!t->text_line[j]) t->text_line[j] = lineno;
                } else if (!num) {
                    st = haze__error(ctx, HAZE_ERR_PARSE,
                                     "%s:%zu: column %zu%s%s%s: expected a number, found \"%.40s\"",
                                     path, lineno, j + 1, t->names ? " (" : "",
                                     t->names ? t->names[j] : "", t->names ? ")" : "", f.v[j]);
                    t->rows++; /* the text cell of this row is owned now */
                    goto out;
                } else if (!isfinite(v) && !o->allow_nonfinite) {
                    st = haze__error(ctx, HAZE_ERR_PARSE,
                                     "%s:%zu: column %zu%s%s%s: \"%s\" is not a finite number",
                                     path, lineno, j + 1, t->names ? " (" : "",
                                     t->names ? t->names[j] : "", t->names ? ")" : "", f.v[j]);
                    t->rows++;
                    goto out;
                }
            }
            t->data[nvals++] = v;
        }
        t->rows++;
        line = next;
    }
    if (t->rows == 0)
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: no data rows%s", path,
                         t->cols ? " after the header" : " (empty file)");
out:
    free(f.v);
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

static int npy_parse(haze_ctx *ctx, const char *path, const unsigned char *b, size_t len,
                     const haze_table_options *o, haze_table *t) {
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: not a NumPy .npy file", path);
    int major = b[6];
    size_t hlen, off;
    if (major == 1) {
        hlen = b[8] | (size_t)b[9] << 8;
        off = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return haze__error(ctx, HAZE_ERR_PARSE, "%s: truncated .npy header", path);
        hlen = b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        off = 12;
    } else {
        return haze__error(ctx, HAZE_ERR_VERSION, "%s: .npy format version %d is not supported",
                           path, major);
    }
    if (hlen > len - off)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: truncated .npy header", path);
    npy_header h;
    int st = npy_header_parse(ctx, path, (const char *)b + off, hlen, &h);
    if (st) return st;
    if (h.structured)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: .npy array has a structured dtype (named fields); save a plain "
                           "float32 or float64 array",
                           path);
    if (!h.seen[0]) return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy header has no 'descr'", path);
    int elem;
    if (strcmp(h.descr, "<f8") == 0 || strcmp(h.descr, "float64") == 0)
        elem = 8;
    else if (strcmp(h.descr, "<f4") == 0 || strcmp(h.descr, "float32") == 0)
        elem = 4;
    else
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: .npy dtype '%s' is not supported: little-endian float32 or "
                           "float64 ('<f4', '<f8')",
                           path, h.descr);
    for (int k = 1; k < 3; k++) /* a dtype we cannot read is said first */
        if (!h.seen[k])
            return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy header has no '%s'", path,
                               k == 1 ? "fortran_order" : "shape");
    if (h.nd == 0) return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy array is a scalar", path);
    t->rows = h.dims[0];
    t->cols = h.nd == 2 ? h.dims[1] : 1;
    /* overflow first: a product that wraps to 0 is not an empty array */
    if (t->cols && t->rows > SIZE_MAX / t->cols)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy shape overflows", path);
    size_t n = t->rows * t->cols;
    if (n == 0) return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy array is empty", path);
    off += hlen;
    /* compared by division: n * elem (and n * 8 for the copy) could wrap for a
     * shape that claims more than memory holds, and pass for a short file */
    if (n > (len - off) / (size_t)elem)
        return haze__error(ctx, HAZE_ERR_PARSE,
                           "%s: truncated .npy data (%zu bytes for %zu x %zu values of %d bytes)",
                           path, len - off, t->rows, t->cols, elem);
    t->data = malloc(n * sizeof *t->data);
    if (!t->data) return HAZE_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        double v;
        if (elem == 8) {
            memcpy(&v, b + off + 8 * i, 8);
        } else {
            float f;
            memcpy(&f, b + off + 4 * i, 4);
            v = f;
        }
        /* Fortran order stores column after column: value i is (i % rows, i / rows) */
        size_t r = h.fortran ? i % t->rows : i / t->cols, c = h.fortran ? i / t->rows : i % t->cols;
        if (!isfinite(v) && !o->allow_nonfinite)
            return haze__error(ctx, HAZE_ERR_PARSE, "%s: row %zu, column %zu: not a finite number",
                               path, r + 1, c + 1);
        t->data[r * t->cols + c] = v;
    }
    return HAZE_OK;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int haze_ref_table_read(haze_ctx *ctx, const char *path, const haze_table_options *opt,
                        haze_table **out) {
    if (!path || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_table_read: NULL argument");
    *out = NULL;
    haze_table_options o = opt ? *opt : haze_table_options_default();
    char *buf;
    size_t len;
    int st = haze_io_read_file(ctx, path, &buf, &len);
    if (st) return st;
    haze_table *t = calloc(1, sizeof *t);
    if (!t) {
        free(buf);
        return HAZE_ERR_NOMEM;
    }
    t->text_col = -1;
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    if (ends_with(path, ".npy") || (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0))
        st = npy_parse(ctx, name, (const unsigned char *)buf, len, &o, t);
    else if (memchr(buf, '\0', len))
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: binary data where CSV text was expected", name);
    else
        st = csv_parse(ctx, name, buf, &o, t);
    free(buf);
    if (st == HAZE_ERR_NOMEM) haze__error(ctx, st, "%s: out of memory", name);
    if (st) {
        haze_table_free(t);
        return st;
    }
    *out = t;
    return HAZE_OK;
}
