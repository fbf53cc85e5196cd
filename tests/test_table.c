/*
 * tests/test_table.c - the fast table readers against the reader they
 * replace (table_ref.c: one thread, strtod, the whole file copied): the same
 * numbers bit for bit, the same names, text cells and text lines, and the
 * same error messages (a ragged row's message now also names the column),
 * on every file of tests/data, examples/data and data, on the fuzz corpus
 * (read with the options the fuzzer picks and the others), and on generated
 * CSV files -- large enough to be cut into chunks for several threads --
 * and .npy files, with random damage.
 */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "table_ref.h"
#include "test_util.h"
#include "io/io_types.h" /* white-box: the reader's own table */

static size_t files_read, reads_compared, failures;

/* Under HAZE_TEST_QUICK (sanitizer runs) fewer generated files and one
 * thread count. */
static int quick(void) {
    return getenv("HAZE_TEST_QUICK") != NULL;
}

static int same_message(const char *neu, const char *old) {
    if (strcmp(neu, old) == 0) return 1;
    /* "P:L: no column 'X' (N columns in the header)" of a header that holds
     * numbers only is now said as such */
    const char *q = strstr(old, " columns in the header)"), *o = strstr(old, ": no column '");
    const char *m = strstr(neu, "': the first line holds numbers only, so the file has no header");
    if (q && o && m && !q[23] && strncmp(neu, old, (size_t)(o - old)) == 0) {
        const char *paren = strrchr(old, '(');
        size_t cols = 0;
        char tail[64];
        if (paren && sscanf(paren, "(%zu", &cols) == 1 && cols > 0) {
            snprintf(tail, sizeof tail, "(0 to %zu)", cols - 1);
            const size_t nl = strlen(neu), tl = strlen(tail);
            return nl > tl && strcmp(neu + nl - tl, tail) == 0 &&
                   strncmp(neu + (o - old), o, (size_t)(paren - o - 1)) == 0;
        }
    }
    /* "P:L: expected N fields, found M" is now "P:L:C: expected N fields, found M", with a
     * note on row names when M is one more than N after a header */
    static char cut[2048];
    const char *note = strstr(neu, " (the header names one column fewer than this line");
    if (note && (size_t)(note - neu) < sizeof cut) {
        snprintf(cut, sizeof cut, "%.*s", (int)(note - neu), neu);
        neu = cut;
    }
    const char *r = strstr(old, ": expected ");
    if (!r || !strstr(r, " fields, found ")) return 0;
    size_t pre = (size_t)(r - old);
    if (strncmp(neu, old, pre) != 0 || neu[pre] != ':' || !isdigit((unsigned char)neu[pre + 1]))
        return 0;
    const char *p = neu + pre + 1;
    while (isdigit((unsigned char)*p)) p++;
    return strcmp(p, r) == 0;
}

#define MISMATCH(...)                                                                              \
    do {                                                                                           \
        if (failures++ < 20) print_error(__VA_ARGS__);                                             \
        goto done;                                                                                 \
    } while (0)

/*
 * The file read in blocks of `block` bytes (haze_table_reader) against the
 * whole read a (status sa, message ma) of the file's size bytes: the same
 * status and message, or the same rows, bit for bit, names, text cells and
 * text lines (the first in the file) when the blocks are put together. A
 * NUL byte (binary data) is found when its block is read, so an error in
 * the lines before it may come first.
 */
static void compare_blocks(haze_ctx *ctx, const char *path, const haze_table_options *o,
                           const char *what, size_t block, size_t size, int sa, const char *ma,
                           const haze_table *a) {
    haze_table_reader *r = NULL;
    haze_table *t = NULL;
    static char mr[2048];
    size_t rows = 0, blocks = 0;
    int st = haze_table_reader_open(ctx, path, o, block, &r);
    while (!st && !(st = haze_table_reader_next(ctx, r, &t)) && t) {
        blocks++;
        if (sa) { /* the blocks before the error: given before it is found */
            haze_table_reader_reuse(r, t);
            t = NULL;
            continue;
        }
        if (t->rows == 0 || t->cols != a->cols || t->text_col != a->text_col ||
            rows + t->rows > a->rows || !t->data_f32 != !a->data_f32)
            MISMATCH("%s (%s, blocks of %zu): block %zu: %zu x %zu, whole %zu x %zu\n", path, what,
                     block, blocks, t->rows, t->cols, a->rows, a->cols);
        const size_t n = t->rows * t->cols, at = rows * a->cols;
        if (t->data_f32 ? memcmp(t->data_f32, a->data_f32 + at, n * sizeof(float))
                        : memcmp(t->data, a->data + at, n * sizeof(double)))
            MISMATCH("%s (%s, blocks of %zu): block %zu: other values\n", path, what, block,
                     blocks);
        if (!t->names != !a->names) MISMATCH("%s (%s): names differ in blocks\n", path, what);
        for (size_t j = 0; t->names && j < t->cols; j++)
            if (strcmp(t->names[j], a->names[j]))
                MISMATCH("%s (%s): block %zu: name %zu differs\n", path, what, blocks, j);
        if (!t->text != !a->text) MISMATCH("%s (%s): text differs in blocks\n", path, what);
        for (size_t i = 0; t->text && i < t->rows; i++)
            if (strcmp(t->text[i], a->text[rows + i]))
                MISMATCH("%s (%s): block %zu: text %zu differs\n", path, what, blocks, i);
        if (!t->text_line != !a->text_line)
            MISMATCH("%s (%s): text lines differ in blocks\n", path, what);
        for (size_t j = 0; t->text_line && j < t->cols; j++)
            /* the whole read's line is the first block's that has one */
            if (t->text_line[j] && (t->text_line[j] < a->text_line[j] ||
                                    (t->text_line[j] > a->text_line[j] && a->text_line[j] == 0)))
                MISMATCH("%s (%s): block %zu: column %zu: text at line %zu, whole read %zu\n", path,
                         what, blocks, j, t->text_line[j], a->text_line[j]);
        rows += t->rows;
        /* every other block's memory given back: a later block parsed into
         * it (its earlier numbers still there) must read the same */
        if (blocks % 2)
            haze_table_reader_reuse(r, t);
        else
            haze_table_free(t);
        t = NULL;
    }
    snprintf(mr, sizeof mr, "%s", st ? haze_ctx_errmsg(ctx) : "");
    if (st != sa)
        MISMATCH("%s (%s, blocks of %zu): status %d, whole read %d (%s | %s)\n", path, what, block,
                 st, sa, mr, ma);
    /* a NUL byte is seen when its block is read: an error in the lines
     * before it comes first */
    if (st && sa && block < size && strstr(ma, "binary data where CSV text was expected"))
        goto done;
    if (st && strcmp(mr, ma))
        MISMATCH("%s (%s, blocks of %zu):\n  got  %s\n  want %s\n", path, what, block, mr, ma);
    if (!st && rows != a->rows)
        MISMATCH("%s (%s, blocks of %zu): %zu rows, whole read %zu\n", path, what, block, rows,
                 a->rows);
done:
    haze_table_free(t);
    haze_table_reader_close(r);
}

/* Whether the file holds a carriage return followed by something else
 * than a line feed. */
static int cr_alone(const char *path) {
    FILE *fp = fopen(path, "rb");
    int c, prev = 0, found = 0;
    while (fp && !found && (c = getc(fp)) != EOF) {
        found = prev == '\r' && c != '\n';
        prev = c;
    }
    if (fp) fclose(fp);
    return found;
}

/* One read by both readers, compared; and read in blocks. */
static void compare(haze_ctx *ctx, const char *path, const haze_table_options *o,
                    const char *what) {
    haze_table *a = NULL, *b = NULL;
    static char ma[2048], mb[2048];
    int sa = haze_table_read(ctx, path, o, &a);
    snprintf(ma, sizeof ma, "%s", sa ? haze_ctx_errmsg(ctx) : "");
    haze_table_options ro = *o;
    ro.keep_float32 = 0;
    int sb = haze_ref_table_read(ctx, path, &ro, &b);
    snprintf(mb, sizeof mb, "%s", sb ? haze_ctx_errmsg(ctx) : "");
    reads_compared++;
    /* the one refusal the reference predates: lines that end in a carriage
     * return alone (there must be a CR with something else than LF after it) */
    if (sa == HAZE_ERR_PARSE && strstr(ma, "a line that ends in a carriage return alone")) {
        if (!cr_alone(path)) MISMATCH("%s (%s): %s, but no lone CR\n", path, what, ma);
        goto done;
    }
    if (sa != sb)
        MISMATCH("%s (%s): status %d, reference %d (%s | %s)\n", path, what, sa, sb, ma, mb);
    if (sa) {
        if (a) MISMATCH("%s (%s): a table on failure\n", path, what);
        if (!same_message(ma, mb)) MISMATCH("%s (%s):\n  got  %s\n  want %s\n", path, what, ma, mb);
        goto done;
    }
    if (a->rows != b->rows || a->cols != b->cols || a->text_col != b->text_col)
        MISMATCH("%s (%s): %zu x %zu (text %d), reference %zu x %zu (text %d)\n", path, what,
                 a->rows, a->cols, a->text_col, b->rows, b->cols, b->text_col);
    size_t n = a->rows * a->cols;
    if (a->data_f32) {
        if (!o->keep_float32 || a->data) MISMATCH("%s (%s): float32 not asked for\n", path, what);
        for (size_t i = 0; i < n; i++) {
            float want = (float)b->data[i];
            if (!(isnan(want) && isnan(a->data_f32[i])) && memcmp(&want, a->data_f32 + i, 4))
                MISMATCH("%s (%s): value %zu: %a, reference %a\n", path, what, i,
                         (double)a->data_f32[i], (double)want);
        }
    } else {
        for (size_t i = 0; i < n; i++)
            if (memcmp(a->data + i, b->data + i, sizeof(double)))
                MISMATCH("%s (%s): value %zu (row %zu): %a, reference %a\n", path, what, i,
                         i / a->cols + 1, a->data[i], b->data[i]);
    }
    if (!a->names != !b->names) MISMATCH("%s (%s): names differ\n", path, what);
    if (a->names)
        for (size_t j = 0; j < a->cols; j++)
            if (strcmp(a->names[j], b->names[j]))
                MISMATCH("%s (%s): name %zu differs\n", path, what, j);
    if (!a->text != !b->text) MISMATCH("%s (%s): text differs\n", path, what);
    if (a->text)
        for (size_t i = 0; i < a->rows; i++)
            if (strcmp(a->text[i], b->text[i]))
                MISMATCH("%s (%s): text %zu: \"%s\", reference \"%s\"\n", path, what, i, a->text[i],
                         b->text[i]);
    if (!a->text_line != !b->text_line ||
        (a->text_line && memcmp(a->text_line, b->text_line, a->cols * sizeof *a->text_line)))
        MISMATCH("%s (%s): text lines differ\n", path, what);
done:
    if (!o->first_row && !o->max_rows) {
        /* in blocks: a few bytes (many blocks, lines longer than a block),
         * and a third of the file */
        struct stat fs;
        const size_t size = stat(path, &fs) == 0 ? (size_t)fs.st_size : 0;
        const size_t blocks[] = {size < (64u << 10) ? 7 : 4096, size / 3 + 1};
        for (int k = 0; k < 2; k++) compare_blocks(ctx, path, o, what, blocks[k], size, sa, ma, a);
    }
    haze_table_free(a);
    haze_table_free(b);
}

/*
 * Columns left out (haze_table_options columns, drop) against the whole
 * table read with text as NaN, a (cols > 1): the columns kept, bit for bit,
 * with their names and their file columns; or, when a column kept holds a
 * field that is not a number, the error at its first such line; and the
 * same in blocks. The header is read as a's was (a column left out may be
 * all the text of a first line, which then is data).
 */
static void compare_keep(haze_ctx *ctx, const char *path, const haze_table *a, const char *columns,
                         const char *drop, const size_t *keep, size_t n, const char *what) {
    haze_table_options o = haze_table_options_default();
    o.header = a->names ? 1 : 0;
    o.columns = columns;
    o.drop = drop;
    o.keep_float32 = a->data_f32 != NULL;
    haze_table *b = NULL;
    static char mb[2048], want[256];
    int sb = haze_table_read(ctx, path, &o, &b);
    snprintf(mb, sizeof mb, "%s", sb ? haze_ctx_errmsg(ctx) : "");
    reads_compared++;
    size_t line = 0, col = 0; /* the first line with text in a column kept, and that column */
    for (size_t k = 0; a->text_line && k < n; k++) {
        const size_t l = a->text_line[keep[k]];
        if (l && (!line || l < line || (l == line && keep[k] < col))) line = l, col = keep[k];
    }
    if (line) {
        snprintf(want, sizeof want, ":%zu: column %zu", line, col + 1);
        if (sb != HAZE_ERR_PARSE || !strstr(mb, want))
            MISMATCH("%s (%s): status %d (%s), want the error at '%s'\n", path, what, sb, mb, want);
        goto blocks;
    }
    if (sb) MISMATCH("%s (%s): status %d: %s\n", path, what, sb, mb);
    if (b->rows != a->rows || b->cols != n || !b->names != !a->names)
        MISMATCH("%s (%s): %zu x %zu, want %zu x %zu\n", path, what, b->rows, b->cols, a->rows, n);
    const size_t *src = haze_table_file_columns(b);
    for (size_t k = 0; k < n; k++) {
        if (src ? src[k] != keep[k] : keep[k] != k)
            MISMATCH("%s (%s): column %zu from file column %zu, want %zu\n", path, what, k,
                     src ? src[k] : k, keep[k]);
        if (b->names && strcmp(b->names[k], a->names[keep[k]]))
            MISMATCH("%s (%s): name %zu: %s, want %s\n", path, what, k, b->names[k],
                     a->names[keep[k]]);
    }
    for (size_t i = 0; i < a->rows; i++)
        for (size_t k = 0; k < n; k++) {
            const size_t x = i * n + k, y = i * a->cols + keep[k];
            if (a->data_f32 ? memcmp(b->data_f32 + x, a->data_f32 + y, sizeof(float))
                            : memcmp(b->data + x, a->data + y, sizeof(double)))
                MISMATCH("%s (%s): row %zu, column %zu differs\n", path, what, i + 1, k);
        }
blocks:;
    struct stat fs;
    const size_t size = stat(path, &fs) == 0 ? (size_t)fs.st_size : 0;
    compare_blocks(ctx, path, &o, what, size < (64u << 10) ? 7 : 4096, size, sb, mb, b);
done:
    haze_table_free(b);
}

static void compare_selected(haze_ctx *ctx, const char *path) {
    haze_table_options o = haze_table_options_default();
    o.text_as_nan = 1;
    o.keep_float32 = 1;
    haze_table *a = NULL;
    if (haze_table_read(ctx, path, &o, &a) || a->cols < 2 || a->cols > 4096) {
        haze_table_free(a);
        return;
    }
    const size_t c = a->cols;
    size_t *keep = malloc(c * sizeof *keep);
    char *list = malloc(c * 24 + 16);
    assert_true(keep && list);
    /* by number, unless the header has a name of digits (a name comes first) */
    int digits = 0;
    for (size_t j = 0; a->names && j < c; j++)
        digits |= strspn(a->names[j], "0123456789-") == strlen(a->names[j]);
    for (size_t k = 0; k + 1 < c && !digits; k++) keep[k] = k + 1;
    if (!digits) compare_keep(ctx, path, a, NULL, "0", keep, c - 1, "drop 0");
    size_t len = 0; /* every column, last first */
    for (size_t k = 0; k < c && !digits; k++) {
        keep[k] = c - 1 - k;
        len += (size_t)sprintf(list + len, "%s%zu", k ? "," : "", keep[k]);
    }
    if (!digits) compare_keep(ctx, path, a, list, NULL, keep, c, "columns last first");
    if (a->names) { /* by name, where names are unique and not numbers */
        int plain = 1;
        for (size_t j = 0; j < c && plain; j++) {
            plain = a->names[j][0] && !strchr(a->names[j], ',') &&
                    !isspace((unsigned char)a->names[j][0]) &&
                    !isdigit((unsigned char)a->names[j][0]);
            for (size_t i = 0; i < j && plain; i++) plain = strcmp(a->names[i], a->names[j]) != 0;
            size_t l = strlen(a->names[j]);
            plain = plain && l && !isspace((unsigned char)a->names[j][l - 1]);
        }
        if (plain) { /* the last by name, then 1 to c - 2 as a range */
            const size_t cap = strlen(a->names[c - 1]) + 48;
            char *by = malloc(cap);
            assert_non_null(by);
            if (c > 2)
                snprintf(by, cap, "%s,1-%zu", a->names[c - 1], c - 2);
            else
                snprintf(by, cap, "%s", a->names[c - 1]);
            keep[0] = c - 1;
            for (size_t k = 1; k + 1 < c; k++) keep[k] = k;
            compare_keep(ctx, path, a, by, NULL, keep, c - 1, "a name and a range");
            free(by);
        }
    }
    free(keep);
    free(list);
    haze_table_free(a);
}

/* The file with every set of options the CLI and the fuzzer use. */
static void compare_all(haze_ctx *ctx, const char *path) {
    haze_table_options o = haze_table_options_default();
    files_read++;
    compare(ctx, path, &o, "defaults");
    o.header = 0;
    compare(ctx, path, &o, "no header");
    o.header = 1;
    compare(ctx, path, &o, "header");
    o.header = -1;
    static const char *tc[] = {"0", "1", "label"};
    for (int i = 0; i < 3; i++) {
        o.text_column = tc[i];
        compare(ctx, path, &o, tc[i]);
    }
    o.text_column = NULL;
    o.allow_nonfinite = 1;
    compare(ctx, path, &o, "non-finite");
    o.allow_nonfinite = 0;
    o.text_as_nan = 1;
    compare(ctx, path, &o, "text as NaN");
    o.text_as_nan = 0;
    o.keep_float32 = 1;
    compare(ctx, path, &o, "float32");
    compare_selected(ctx, path);
}

static void walk(haze_ctx *ctx, const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb)) continue;
        if (S_ISDIR(sb.st_mode))
            walk(ctx, p);
        else if (S_ISREG(sb.st_mode) && sb.st_size < (8 << 20))
            compare_all(ctx, p);
    }
    closedir(d);
}

static haze_ctx *ctx_threads(int threads) {
    haze_ctx_options co = haze_ctx_options_default();
    co.backend = HAZE_BACKEND_CPU;
    co.threads = threads;
    haze_ctx *ctx = NULL;
    assert_int_equal(haze_ctx_new(&co, &ctx), HAZE_OK);
    return ctx;
}

static void test_project_files(void **state) {
    (void)state;
    for (int threads = quick() ? 3 : 1; threads <= 3; threads += 2) {
        haze_ctx *ctx = ctx_threads(threads);
        walk(ctx, HAZE_SOURCE_DIR "/tests/data");
        walk(ctx, HAZE_SOURCE_DIR "/examples/data");
        walk(ctx, HAZE_SOURCE_DIR "/data");
        haze_ctx_free(ctx);
    }
    print_message("%zu files, %zu reads compared\n", files_read, reads_compared);
    assert_int_equal(failures, 0);
    assert_true(files_read > 50);
}

static void write_file(const char *path, const void *data, size_t n) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
}

/* Each corpus input as the fuzzer reads it (the first byte picks the
 * suffix and options), and with every other set of options. */
static void test_fuzz_corpus(void **state) {
    (void)state;
    const char *dir = HAZE_SOURCE_DIR "/fuzz/corpus/fuzz_table";
    DIR *d = opendir(dir);
    assert_non_null(d);
    haze_ctx *ctx = ctx_threads(3);
    struct dirent *e;
    size_t inputs = 0;
    static unsigned char buf[1 << 20];
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        FILE *fp = fopen(p, "rb");
        if (!fp) continue;
        size_t n = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        if (n < 1) continue;
        unsigned sel = buf[0];
        const char *path = haze_test_path(sel & 1 ? "corpus.npy" : "corpus.csv");
        write_file(path, buf + 1, n - 1);
        static const char *text_columns[] = {NULL, "0", "1", "label"};
        haze_table_options o = haze_table_options_default();
        o.header = (int)((sel >> 1) % 3) - 1;
        o.text_column = text_columns[(sel >> 3) & 3];
        o.allow_nonfinite = (sel >> 5) & 1;
        compare(ctx, path, &o, "fuzzer's options");
        compare_all(ctx, path);
        inputs++;
    }
    closedir(d);
    haze_ctx_free(ctx);
    print_message("%zu corpus inputs\n", inputs);
    assert_true(inputs > 10);
    assert_int_equal(failures, 0);
}

static uint64_t rng = 88172645463325252u;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A CSV file of about 200 KB (chunks for 3 threads), numbers in the forms
 * files hold, then up to 3 random changes: a delimiter, quote, blank, line
 * end, comment, text or odd number put in, or a byte taken out. */
static void test_generated_csv(void **state) {
    (void)state;
    static const char *bits[] = {",",   ";",   "\t",    " ",    "\"",    "\r",    "\n",
                                 "#",   "x",   "e",     "+",    "-",     ".",     "0",
                                 "nan", "inf", "0x1p3", "\"\"", "\"a\"", "1e999", " , "};
    static const char delims[] = {',', ';', '\t', ' '};
    size_t cap = 400000;
    char *text = malloc(cap + 64);
    assert_non_null(text);
    haze_ctx *ctx1 = ctx_threads(1), *ctx3 = ctx_threads(3);
    const char *path = haze_test_path("gen.csv");
    for (int f = 0; f < (quick() ? 15 : 60); f++) {
        char delim = delims[rnd() % 4];
        int cols = 1 + (int)(rnd() % 12), header = f % 3 == 0, crlf = f % 4 == 1;
        size_t k = 0;
        if (header) {
            for (int j = 0; j < cols; j++)
                k += (size_t)sprintf(text + k, "%s%s%d", j ? (char[]){delim, 0} : "",
                                     j == 1 ? "label" : "c", j);
            k += (size_t)sprintf(text + k, crlf ? "\r\n" : "\n");
        }
        while (k < 200000) {
            for (int j = 0; j < cols; j++) {
                if (j) text[k++] = delim;
                double v = ldexp((double)(int64_t)(rnd() >> 11) - 4503599627370496.0,
                                 (int)(rnd() % 80) - 60);
                switch (rnd() % 5) {
                case 0:
                    k += (size_t)sprintf(text + k, "%.17g", v);
                    break;
                case 1:
                    k += (size_t)sprintf(text + k, "%.3f", v / 1e6);
                    break;
                case 2:
                    k += (size_t)sprintf(text + k, "%g", v);
                    break;
                case 3:
                    k += (size_t)sprintf(text + k, "%d", (int)(rnd() % 1000) - 500);
                    break;
                default:
                    k += (size_t)sprintf(text + k, "%.6e", v);
                    break;
                }
            }
            if (rnd() % 50 == 0) k += (size_t)sprintf(text + k, "\n# a comment\n  ");
            k += (size_t)sprintf(text + k, crlf ? "\r\n" : "\n");
        }
        int changes = (int)(rnd() % 4);
        for (int c = 0; c < changes; c++) {
            size_t at = rnd() % k;
            if (rnd() % 4 == 0) {
                memmove(text + at, text + at + 1, k - at - 1);
                k--;
            } else {
                const char *b = bits[rnd() % (sizeof bits / sizeof *bits)];
                size_t m = strlen(b);
                memmove(text + at + m, text + at, k - at);
                memcpy(text + at, b, m);
                k += m;
            }
        }
        write_file(path, text, k);
        compare_all(ctx1, path);
        compare_all(ctx3, path);
    }
    haze_ctx_free(ctx1);
    haze_ctx_free(ctx3);
    free(text);
    assert_int_equal(failures, 0);
}

/* .npy files: float32 and float64, C and Fortran order, 1-D and 2-D,
 * version 1 and 2 headers, a non-finite value or a short file now and then. */
static void test_generated_npy(void **state) {
    (void)state;
    haze_ctx *ctx = ctx_threads(3);
    const char *path = haze_test_path("gen.npy");
    for (int f = 0; f < (quick() ? 30 : 80); f++) {
        int f32 = f & 1, fortran = (f >> 1) & 1, oned = f % 7 == 0, v2 = f % 5 == 0;
        size_t rows = 1 + rnd() % 300, cols = oned ? 1 : 1 + rnd() % 9, n = rows * cols;
        char dict[200];
        int dn = oned ? snprintf(dict, sizeof dict,
                                 "{'descr': '%s', 'fortran_order': %s, 'shape': (%zu,), }",
                                 f32 ? "<f4" : "<f8", fortran ? "True" : "False", rows)
                      : snprintf(dict, sizeof dict,
                                 "{'descr': '%s', 'fortran_order': %s, 'shape': (%zu, %zu), }",
                                 f32 ? "<f4" : "<f8", fortran ? "True" : "False", rows, cols);
        size_t pre = v2 ? 12 : 10, hl = (size_t)dn + 1;
        hl += (64 - (pre + hl) % 64) % 64;
        size_t bytes = pre + hl + n * (f32 ? 4 : 8);
        unsigned char *b = calloc(1, bytes);
        assert_non_null(b);
        memcpy(b, "\x93NUMPY", 6);
        b[6] = v2 ? 2 : 1;
        b[8] = (unsigned char)(hl & 0xff);
        b[9] = (unsigned char)(hl >> 8);
        memset(b + pre, ' ', hl);
        memcpy(b + pre, dict, (size_t)dn);
        b[pre + hl - 1] = '\n';
        for (size_t i = 0; i < n; i++) {
            double v = ldexp((double)(int64_t)(rnd() >> 11) - 4503599627370496.0,
                             (int)(rnd() % 200) - 100);
            if (f % 3 == 0 && rnd() % (n + 1) == 0) v = rnd() & 1 ? NAN : -INFINITY;
            if (f32) {
                float x = (float)v;
                memcpy(b + pre + hl + 4 * i, &x, 4);
            } else {
                memcpy(b + pre + hl + 8 * i, &v, 8);
            }
        }
        size_t len = f % 11 == 3 ? bytes - 1 - rnd() % (bytes / 2) : bytes;
        write_file(path, b, len);
        compare_all(ctx, path);
        free(b);
    }
    haze_ctx_free(ctx);
    assert_int_equal(failures, 0);
}

/* A .npy large enough to be read in pieces on several threads (16 MiB a
 * thread at least): the same bits as one thread, the first value that is not
 * finite in file order named whatever piece finds it first, and a file cut
 * short refused. */
static void test_large_npy(void **state) {
    (void)state;
    const char *path = haze_test_path("large.npy");
    const size_t rows = 1500007, cols = 7, n = rows * cols;
    for (int f64 = 0; f64 < 2; f64++) {
        const size_t elem = f64 ? 8 : 4, pre = 10, hl = 118, bytes = pre + hl + n * elem;
        unsigned char *b = malloc(bytes);
        assert_non_null(b);
        char dict[128];
        int dn = snprintf(dict, sizeof dict,
                          "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %zu), }",
                          f64 ? "<f8" : "<f4", rows, cols);
        memcpy(b, "\x93NUMPY\x01\x00", 8);
        b[8] = (unsigned char)hl, b[9] = 0;
        memset(b + pre, ' ', hl);
        memcpy(b + pre, dict, (size_t)dn);
        b[pre + hl - 1] = '\n';
        for (size_t i = 0; i < n; i++) {
            double v =
                ldexp((double)(int64_t)(rnd() >> 11) - 4503599627370496.0, (int)(rnd() % 60) - 30);
            if (f64) {
                memcpy(b + pre + hl + 8 * i, &v, 8);
            } else {
                float x = (float)v;
                memcpy(b + pre + hl + 4 * i, &x, 4);
            }
        }
        write_file(path, b, bytes);
        haze_table_options o = haze_table_options_default();
        o.keep_float32 = 1;
        haze_table *t1 = NULL, *t3 = NULL;
        haze_ctx *c1 = ctx_threads(1), *c3 = ctx_threads(3);
        assert_int_equal(haze_table_read(c1, path, &o, &t1), HAZE_OK);
        assert_int_equal(haze_table_read(c3, path, &o, &t3), HAZE_OK);
        assert_int_equal(haze_table_row_count(t3), rows);
        assert_int_equal(haze_table_precision(t3), f64 ? HAZE_PRECISION_F64 : HAZE_PRECISION_F32);
        assert_memory_equal(haze_table_values(t3), b + pre + hl, n * elem);
        assert_memory_equal(haze_table_values(t1), b + pre + hl, n * elem);
        haze_table_free(t1), haze_table_free(t3);
        /* two values that are not finite, the later one in an earlier-ending piece's reach */
        const size_t late = n - 3, early = n / 2 + 5;
        double inf = INFINITY, nan = NAN;
        float finf = INFINITY, fnan = NAN;
        memcpy(b + pre + hl + elem * late, f64 ? (void *)&inf : (void *)&finf, elem);
        memcpy(b + pre + hl + elem * early, f64 ? (void *)&nan : (void *)&fnan, elem);
        write_file(path, b, bytes);
        char want[96];
        snprintf(want, sizeof want, "row %zu, column %zu: not a finite number", early / cols + 1,
                 early % cols + 1);
        for (int k = 0; k < 2; k++) {
            haze_ctx *c = k ? c3 : c1;
            haze_table *t = NULL;
            assert_int_equal(haze_table_read(c, path, &o, &t), HAZE_ERR_PARSE);
            assert_null(t);
            if (!strstr(haze_ctx_errmsg(c), want)) fail_msg("%s", haze_ctx_errmsg(c));
        }
        o.allow_nonfinite = 1;
        assert_int_equal(haze_table_read(c3, path, &o, &t3), HAZE_OK);
        assert_memory_equal(haze_table_values(t3), b + pre + hl, n * elem);
        haze_table_free(t3);
        write_file(path, b, bytes - 5);
        assert_int_equal(haze_table_read(c3, path, &o, &t3), HAZE_ERR_PARSE);
        assert_non_null(strstr(haze_ctx_errmsg(c3), "truncated .npy data"));
        haze_ctx_free(c1), haze_ctx_free(c3);
        free(b);
    }
    remove(path);
}

/* A CSV file large enough to be read in pieces on several threads (16 MiB
 * a thread at least): the same table as one thread's read, and a NUL byte
 * near its end (in the last piece) refused by both. */
static void test_large_csv(void **state) {
    (void)state;
    const char *path = haze_test_path("large.csv");
    const size_t rows = 3000017, cols = 3;
    size_t cap = 40 + rows * cols * 12, n = 0;
    char *b = malloc(cap);
    assert_non_null(b);
    n += (size_t)snprintf(b, cap, "x,y,z\n");
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            n += (size_t)snprintf(b + n, cap - n, "%d%c", (int)(rnd() % 2000001) - 1000000,
                                  j + 1 < cols ? ',' : '\n');
    assert_true(n > ((size_t)48 << 20)); /* three pieces for three threads */
    write_file(path, b, n);
    haze_table *t1 = NULL, *t3 = NULL;
    haze_ctx *c1 = ctx_threads(1), *c3 = ctx_threads(3);
    assert_int_equal(haze_table_read(c1, path, NULL, &t1), HAZE_OK);
    assert_int_equal(haze_table_read(c3, path, NULL, &t3), HAZE_OK);
    assert_int_equal(haze_table_row_count(t3), rows);
    assert_int_equal(haze_table_column_count(t3), cols);
    assert_memory_equal(haze_table_data(t1), haze_table_data(t3), rows * cols * sizeof(double));
    haze_table_free(t1), haze_table_free(t3);
    b[n - 7] = '\0';
    write_file(path, b, n);
    for (int k = 0; k < 2; k++) {
        haze_ctx *c = k ? c3 : c1;
        haze_table *t = NULL;
        assert_int_equal(haze_table_read(c, path, NULL, &t), HAZE_ERR_PARSE);
        assert_null(t);
        if (!strstr(haze_ctx_errmsg(c), "binary data")) fail_msg("%s", haze_ctx_errmsg(c));
    }
    haze_ctx_free(c1), haze_ctx_free(c3);
    free(b);
    remove(path);
}

/* The CSV writer formats blocks of rows on several threads and writes each
 * as soon as the ones before it are out: the same bytes as one fprintf per
 * value in the C locale, in order. */
static void test_csv_write(void **state) {
    (void)state;
    haze_ctx *ctx = ctx_threads(3);
    const size_t rows = 60013, cols = 7; /* 9 blocks of text for 3 threads */
    double *v = malloc(rows * cols * sizeof *v);
    float *f = malloc(rows * cols * sizeof *f);
    assert_true(v && f);
    for (size_t i = 0; i < rows * cols; i++) {
        uint64_t b = rnd();
        memcpy(&v[i], &b, sizeof b);
        if (!isfinite(v[i]) || i % 3 == 0) v[i] = ldexp((double)(int64_t)(rnd() >> 20), -20);
        f[i] = (float)v[i];
    }
    for (int k = 0; k < 2; k++) {
        const char *path = haze_test_path("w.csv"), *ref = haze_test_path("w_ref.csv");
        const char *names[] = {"a", "b,c", "", "d", "e", "f", "g"};
        if (k)
            assert_int_equal(haze_table_write(ctx, path, f, HAZE_PRECISION_F32, rows, cols, names),
                             HAZE_OK);
        else
            assert_int_equal(haze_table_write(ctx, path, v, HAZE_PRECISION_F64, rows, cols, NULL),
                             HAZE_OK);
        FILE *fp = fopen(ref, "w");
        assert_non_null(fp);
        if (k) fputs("a,\"b,c\",\"\",d,e,f,g\n", fp);
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                fprintf(fp, k ? "%.9g%s" : "%.17g%s", k ? (double)f[i * cols + j] : v[i * cols + j],
                        j + 1 < cols ? "," : "\n");
        fclose(fp);
        char *a, *b;
        size_t na, nb;
        assert_int_equal(haze_io_read_file(ctx, path, &a, &na), HAZE_OK);
        assert_int_equal(haze_io_read_file(ctx, ref, &b, &nb), HAZE_OK);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na);
        free(a);
        free(b);
    }
    free(v);
    free(f);
    haze_ctx_free(ctx);
}

/* A block of any size, up to SIZE_MAX ("the whole file"): the file read as
 * one block, as the whole read gives it. Sizes near SIZE_MAX once wrapped the
 * reader's buffer size to a few bytes (a heap overflow) or to none. */
static void test_huge_blocks(void **state) {
    (void)state;
    haze_ctx *ctx = ctx_threads(3);
    char path[512];
    snprintf(path, sizeof path, "%s/huge_blocks.csv", haze_test_dir());
    char text[8192];
    size_t n = (size_t)snprintf(text, sizeof text, "a,b\n");
    for (int i = 0; n < sizeof text - 64; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%d,%d.5\n", i, i % 7);
    write_file(path, text, n);
    haze_table_options o = haze_table_options_default();
    haze_table *a = NULL;
    assert_int_equal(haze_table_read(ctx, path, &o, &a), HAZE_OK);
    const size_t blocks[] = {
        SIZE_MAX,
        SIZE_MAX - 1,
        SIZE_MAX / 2,
        (size_t)1 << 40,
        n,
        n - 1,
#if SIZE_MAX == UINT64_MAX
        (size_t)16397105843297379282u /* the buffer's size wrapped to 77 */
#else
        SIZE_MAX / 9 * 8
#endif
    };
    for (size_t k = 0; k < sizeof blocks / sizeof *blocks; k++)
        compare_blocks(ctx, path, &o, "huge blocks", blocks[k], n, HAZE_OK, "", a);
    haze_table_free(a);
    haze_ctx_free(ctx);
    assert_int_equal(failures, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_project_files), cmocka_unit_test(test_fuzz_corpus),
        cmocka_unit_test(test_generated_csv), cmocka_unit_test(test_generated_npy),
        cmocka_unit_test(test_csv_write),     cmocka_unit_test(test_large_npy),
        cmocka_unit_test(test_large_csv),     cmocka_unit_test(test_huge_blocks),
    };
    return cmocka_run_group_tests(tests, haze_test_dir_setup, haze_test_dir_teardown);
}
