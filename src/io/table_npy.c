/*
 * src/io/table_npy.c - NumPy .npy files into a table, read straight into
 * its final buffer.
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
#include "io/table_internal.h"
#include "io/io_types.h"
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
    char kind;   /* the dtype's: 'f' float, 'i' signed, 'u' unsigned integer, 'b' bool */
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
 * off: the shape into t (the rows of the range o asks for), the value size
 * (4 or 8) into *elem, the bytes before the range's first value into *skip. */
static int npy_layout(haze_ctx *ctx, const char *path, const char *s, size_t n, size_t fsize,
                      size_t off, const haze_table_options *o, npy_header *h, int *elem,
                      size_t *skip, haze_table *t) {
    *skip = 0;
    int st = npy_header_parse(ctx, path, s, n, h);
    if (st) return st;
    if (h->structured)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: .npy array has a structured dtype (named fields); save a plain "
                           "float32 or float64 array",
                           path);
    if (!h->seen[0])
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: .npy header has no 'descr'", path);
    /* little-endian floats of 4 and 8 bytes, integers, bools ('|' for a byte);
     * integers are read as NumPy's astype(float64) reads them (rounded to
     * nearest beyond 2^53) */
    const char *d = h->descr;
    h->kind = 0;
    *elem = 0;
    if (strcmp(d, "float64") == 0 || strcmp(d, "float32") == 0) {
        h->kind = 'f';
        *elem = d[5] == '6' ? 8 : 4;
    } else if ((d[0] == '<' || d[0] == '|') && d[1] && strchr("fiub", d[1]) && d[2] && !d[3]) {
        const int size = d[2] - '0';
        const int ok = d[1] == 'f'   ? size == 4 || size == 8
                       : d[1] == 'b' ? size == 1
                                     : size == 1 || size == 2 || size == 4 || size == 8;
        if (ok && (d[0] == '<' || size == 1)) {
            h->kind = d[1];
            *elem = size;
        }
    }
    if (!h->kind)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: .npy dtype '%s' is not supported: little-endian float32 or "
                           "float64 ('<f4', '<f8'), integers ('<i8', '|u1', ...) or bool ('|b1')",
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
    if (o->first_row || o->max_rows) { /* one part of the rows: C order keeps them together */
        if (h->fortran)
            return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                               "%s: a row range of a Fortran-order .npy array cannot be read "
                               "alone; save the array in C order",
                               path);
        if (o->first_row >= t->rows)
            return haze__error(ctx, HAZE_ERR_INVALID,
                               "%s: row range from row %zu, but the array has %zu rows", path,
                               o->first_row + 1, t->rows);
        const size_t left = t->rows - o->first_row;
        t->file_rows = t->rows;
        t->rows = o->max_rows && o->max_rows < left ? o->max_rows : left;
        *skip = o->first_row * t->cols * (size_t)*elem;
    }
    return HAZE_OK;
}

/* The table's storage: floats for a float32 array the caller keeps float32,
 * else doubles; lazy: pages left to the threads that will fill them. */
static int npy_alloc(const haze_table_options *o, const npy_header *h, int elem, haze_table *t,
                     int lazy) {
    size_t count = t->rows * t->cols;
    void *(*alloc)(size_t) = lazy ? haze__io_big_alloc_lazy : haze__io_big_alloc;
    if (h->kind == 'f' && elem == 4 && o->keep_float32) {
        if (count > SIZE_MAX / sizeof(float) || !(t->data_f32 = alloc(count * sizeof(float))))
            return HAZE_ERR_NOMEM;
    } else if (count > SIZE_MAX / sizeof(double) || !(t->data = alloc(count * sizeof(double)))) {
        return HAZE_ERR_NOMEM;
    }
    return HAZE_OK;
}

/* The first of the values [i0, i1) of a (elem bytes each, IEEE binary32 or
 * binary64) that is not finite, or i1: by the exponent bits, a block at a
 * time (a loop without exits, which the compiler vectorises). */
static size_t npy_first_nonfinite(const unsigned char *a, int elem, size_t i0, size_t i1) {
    for (size_t b = i0; b < i1; b += 4096) {
        const size_t e = i1 - b < 4096 ? i1 : b + 4096;
        int bad = 0;
        if (elem == 4) {
            for (size_t i = b; i < e; i++) {
                uint32_t u;
                memcpy(&u, a + 4 * i, 4);
                bad |= (u & 0x7f800000u) == 0x7f800000u;
            }
        } else {
            for (size_t i = b; i < e; i++) {
                uint64_t u;
                memcpy(&u, a + 8 * i, 8);
                bad |= (u & 0x7ff0000000000000u) == 0x7ff0000000000000u;
            }
        }
        if (bad)
            for (size_t i = b; i < e; i++) {
                double v;
                if (elem == 4) {
                    float f;
                    memcpy(&f, a + 4 * i, 4);
                    v = f;
                } else {
                    memcpy(&v, a + 8 * i, 8);
                }
                if (!isfinite(v)) return i;
            }
    }
    return i1;
}

/* haze__io_read_pieces' done for a .npy read with the values checked: the
 * first value of a piece that is not finite, the least over the pieces. */
typedef struct npy_scan {
    const unsigned char *dst;
    int elem;
    size_t first; /* count when every value is finite */
} npy_scan;

static void piece_finite(void *arg, size_t a, size_t len) {
    npy_scan *z = arg;
    const size_t i0 = a / (size_t)z->elem, i1 = (a + len) / (size_t)z->elem;
    size_t i = npy_first_nonfinite(z->dst, z->elem, i0, i1);
    if (i < i1) {
#ifdef _OPENMP
#pragma omp critical(haze_npy_bad)
#endif
        if (i < z->first) z->first = i;
    }
}

/*
 * The count values (elem bytes each) of a C-order array at offset at of fd
 * into dst, in pieces on the context's threads (one thread does not reach
 * the page cache's copy rate); with check, *bad is the first value that is
 * not finite (count if none). *got: the bytes read (fewer: the file shrank).
 */
static int npy_read_par(haze_ctx *ctx, int fd, size_t at, unsigned char *dst, size_t count,
                        int elem, int check, size_t *bad, size_t *got) {
    npy_scan z = {dst, elem, count};
    int e = haze__io_read_pieces(ctx, fd, at, dst, count * (size_t)elem,
                                 check ? piece_finite : NULL, &z, got);
    *bad = z.first;
    return e;
}

/* Value i of an integer or bool array (elem little-endian bytes each) as a
 * double: the bytes, then the sign extended for a signed kind. */
static double npy_integer(const unsigned char *src, char kind, int elem, size_t i) {
    const unsigned char *p = src + (size_t)elem * i;
    if (kind == 'b') return p[0] != 0;
    uint64_t u = 0;
    for (int k = elem; k-- > 0;) u = u << 8 | p[k];
    if (kind == 'u') return (double)u;
    if (elem < 8 && (u >> (8 * elem - 1) & 1)) u |= ~(uint64_t)0 << (8 * elem);
    int64_t v;
    memcpy(&v, &u, 8); /* two's complement, as NumPy stores it */
    return (double)v;
}

/*
 * The values at src (file order) into the table, checked finite (unless
 * allowed) in file order. A C-order array may already be in place: src the
 * table itself, or, for values narrower than a double, the table's last
 * count * elem bytes (value i is read before double i is written, and
 * double i covers only values up to i).
 */
static int npy_store(haze_ctx *ctx, const char *path, const npy_header *h, int elem,
                     const unsigned char *src, const haze_table_options *o, haze_table *t) {
    const size_t rows = t->rows, cols = t->cols, count = rows * cols;
    const int fin = !o->allow_nonfinite;
    for (size_t i = 0; i < count; i++) {
        /* Fortran order stores column after column: value i is (i % rows, i / rows) */
        size_t d = h->fortran ? (i % rows) * cols + i / rows : i;
        int finite;
        if (h->kind != 'f') {
            t->data[d] = npy_integer(src, h->kind, elem, i);
            finite = 1;
        } else if (elem == 4) {
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
        if (!finite && fin) /* the file's row, also in a row range */
            return haze__error(ctx, HAZE_ERR_PARSE, "%s: row %zu, column %zu: not a finite number",
                               path, o->first_row + d / cols + 1, d % cols + 1);
    }
    return HAZE_OK;
}

/* A .npy file held in memory (standard input, a pipe). */
int haze__io_npy_parse(haze_ctx *ctx, const char *path, const unsigned char *b, size_t len,
                       const haze_table_options *o, haze_table *t) {
    size_t hlen = 0, off = 0, skip = 0;
    npy_header h;
    int elem;
    int st = npy_prelude(ctx, path, b, len, &hlen, &off);
    if (!st)
        st = npy_layout(ctx, path, (const char *)b + off, hlen, len, off + hlen, o, &h, &elem,
                        &skip, t);
    if (!st) st = npy_alloc(o, &h, elem, t, 0);
    if (!st) st = npy_store(ctx, path, &h, elem, b + off + hlen + skip, o, t);
    return st;
}

/* A .npy file of fsize bytes: the values read straight into the table (one
 * read, no copy) unless the array is in Fortran order. pre holds its first
 * npre bytes. */
int haze__io_npy_read_fd(haze_ctx *ctx, const char *path, const char *name, int fd, size_t fsize,
                         const unsigned char *pre, size_t npre, const haze_table_options *o,
                         haze_table *t) {
    size_t hlen = 0, off = 0, got, skip = 0;
    int st = npy_prelude(ctx, name, pre, fsize, &hlen, &off), e, elem;
    if (st) return st;
    char *hdr = NULL;
    const char *hs = (const char *)pre + off;
    if (off + hlen > npre) { /* a long header: read it whole */
        if (!(hdr = malloc(hlen ? hlen : 1))) return HAZE_ERR_NOMEM;
        if ((e = haze__io_read_at(fd, off, hdr, hlen, &got))) {
            free(hdr);
            return haze__io_read_error(ctx, path, e);
        }
        if (got < hlen) { /* the file shrank */
            free(hdr);
            return haze__error(ctx, HAZE_ERR_PARSE, "%s: truncated .npy header", name);
        }
        hs = hdr;
    }
    npy_header h;
    st = npy_layout(ctx, name, hs, hlen, fsize, off + hlen, o, &h, &elem, &skip, t);
    free(hdr);
    /* A C-order array whose values are stored as they are (float32 kept,
     * float64) is read in place on the threads and checked as it lands; the
     * others through npy_store. */
    const int as_is = !st && !h.fortran && h.kind == 'f' && (elem == 8 || o->keep_float32);
    if (!st) st = npy_alloc(o, &h, elem, t, as_is);
    if (st) return st;
    const size_t count = t->rows * t->cols, bytes = count * (size_t)elem;
    unsigned char *dst, *tmp = NULL;
    if (h.fortran) {
        if (!(dst = tmp = haze__io_big_alloc(bytes))) return HAZE_ERR_NOMEM;
    } else if (t->data_f32) {
        dst = (unsigned char *)t->data_f32;
    } else {
        dst = (unsigned char *)t->data + (size_t)(8 - elem) * count; /* widened in place */
    }
    size_t bad = count;
    if (as_is)
        e = npy_read_par(ctx, fd, off + hlen + skip, dst, count, elem, !o->allow_nonfinite, &bad,
                         &got);
    else
        e = haze__io_read_at(fd, off + hlen + skip, dst, bytes, &got);
    if (e) {
        st = haze__io_read_error(ctx, path, e);
    } else if (got < bytes) { /* the file shrank */
        st = haze__error(ctx, HAZE_ERR_PARSE,
                         "%s: truncated .npy data (%zu bytes for %zu x %zu values of %d bytes)",
                         name, got, t->rows, t->cols, elem);
    } else if (!as_is) {
        st = npy_store(ctx, name, &h, elem, dst, o, t);
    } else if (bad < count) {
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: row %zu, column %zu: not a finite number", name,
                         o->first_row + bad / t->cols + 1, bad % t->cols + 1);
    }
    free(tmp);
    return st;
}
