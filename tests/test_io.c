/*
 * tests/test_io.c - CSV and .npy tables, error messages with line and
 * column, and output files that appear whole or not at all.
 */
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

static void test_csv_header(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *p = haze_test_write("a.csv", "# comment\nx,y,z\n1,2,3\n4.5,-6e2,0x1p-3\n\n");
    haze_table *t;
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_int_equal(haze_table_row_count(t), 2);
    assert_int_equal(haze_table_column_count(t), 3);
    assert_non_null(haze_table_names(t));
    assert_string_equal(haze_table_names(t)[1], "y");
    assert_true(haze_table_data(t)[3] == 4.5 && haze_table_data(t)[4] == -600.0 &&
                haze_table_data(t)[5] == 0.125);
    assert_int_equal(haze_table_column(t, "z"), 2);
    assert_int_equal(haze_table_column(t, "1"), 1);
    assert_int_equal(haze_table_column(t, "w"), -1);
    haze_table_free(t);
    haze_ctx_free(ctx);
}

static void test_csv_plain_and_spaces(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *p = haze_test_write("b.txt", "1 2\n3\t4\n");
    haze_table *t;
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_null(haze_table_names(t));
    assert_int_equal(haze_table_row_count(t), 2);
    assert_int_equal(haze_table_column_count(t), 2);
    assert_true(haze_table_data(t)[3] == 4.0);
    haze_table_free(t);
    haze_ctx_free(ctx);
}

/* Tab-separated with quoted fields: the tab after a closing quote is the
 * delimiter, not a blank to skip; an empty field between two tabs stays. */
static void test_tsv_quoted(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *p = haze_test_write("q.tsv", "\"x\"\t\"y\"\t\"z\"\n\"1\"\t2\t3\n4\t \"5\" \t6\n");
    haze_table *t;
    int st = haze_table_read(ctx, p, NULL, &t);
    if (st) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_non_null(haze_table_names(t));
    assert_string_equal(haze_table_names(t)[2], "z");
    assert_int_equal(haze_table_row_count(t), 2);
    assert_int_equal(haze_table_column_count(t), 3);
    assert_true(haze_table_data(t)[0] == 1.0 && haze_table_data(t)[4] == 5.0 &&
                haze_table_data(t)[5] == 6.0);
    haze_table_free(t);
    p = haze_test_write("e.tsv", "1\t2\t3\n1\t\t3\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE); /* empty field */
    if (!strstr(haze_ctx_errmsg(ctx), "e.tsv:2:")) fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_ctx_free(ctx);
}

static void test_csv_text_column(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *p = haze_test_write("c.csv", "lettr,a,b\nT,2,8\n\"I\",5,12\n");
    haze_table_options o = haze_table_options_default();
    o.text_column = "lettr";
    haze_table *t;
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_OK);
    assert_int_equal(haze_table_text_column(t), 0);
    assert_string_equal(haze_table_text(t)[1], "I");
    assert_true(haze_table_data(t)[5] == 12.0);
    haze_table_free(t);
    o.text_column = "label";
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "label"));
    /* a name the header has twice is no one column */
    p = haze_test_write("c2.csv", "a,a,b\nx,2,8\n");
    o.text_column = "a";
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "c2.csv:1: the header names 'a' twice (columns 1 and 2)"))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    /* one column with a quoted name (R's write.csv of one vector): CSV, quotes off */
    p = haze_test_write("c3.csv", "\"value\"\r\n112\r\n118\r\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_string_equal(haze_table_names(t)[0], "value");
    assert_int_equal(haze_table_row_count(t), 2);
    assert_true(haze_table_data(t)[1] == 118);
    haze_table_free(t);
    haze_ctx_free(ctx);
}

static void test_csv_errors(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_table *t = NULL;
    const char *p = haze_test_write("d.csv", "1,2\n3,4\n5\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    assert_null(t);
    /* the column where the missing field would start, or where the extra one starts */
    if (!strstr(haze_ctx_errmsg(ctx), "d.csv:3:2: expected 2 fields, found 1"))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    p = haze_test_write("d.csv", "1,2\r\n3, \"4\"\r\n5,6 ,7\r\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "d.csv:3:6: expected 2 fields, found 3"))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    p = haze_test_write("d.tsv", "1\t2\t3\n4\t5\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "d.tsv:2:4: expected 3 fields, found 2"))
        fail_msg("%s", haze_ctx_errmsg(ctx));

    p = haze_test_write("e.csv", "a,b\n1,2\n3,x7\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "e.csv:3: column 2 (b): expected a number"));

    p = haze_test_write("f.csv", "1,nan\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "not a finite number"));
    haze_table_options o = haze_table_options_default();
    o.allow_nonfinite = 1;
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_OK);
    haze_table_free(t);

    /* one field more than the header names: row names (R's write.table) said as such */
    p = haze_test_write("rn.csv", "mpg,cyl\nMazda,21,6\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "rn.csv:2:10: expected 2 fields, found 3 (the header names "
                                      "one column fewer than this line"))
        fail_msg("%s", haze_ctx_errmsg(ctx));

    p = haze_test_write("g.csv", "");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "empty"));
    p = haze_test_write("h.csv", "x,y\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "no data rows"));
    assert_int_equal(haze_table_read(ctx, "/nonexistent/x.csv", NULL, &t), HAZE_ERR_IO);
    assert_int_equal(haze_table_read(ctx, haze_test_dir(), NULL, &t), HAZE_ERR_IO);
    haze_ctx_free(ctx);
}

static void test_npy_roundtrip(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    char path[256];
    snprintf(path, sizeof path, "%s/m.npy", haze_test_dir());
    double m[6] = {1, -2.5, 3e300, 4e-310, 0x1.fffffffffffffp0, 6};
    assert_int_equal(haze_table_write(ctx, path, m, HAZE_PRECISION_F64, 3, 2, NULL), HAZE_OK);
    haze_table *t;
    assert_int_equal(haze_table_read(ctx, path, NULL, &t), HAZE_OK);
    assert_int_equal(haze_table_row_count(t), 3);
    assert_int_equal(haze_table_column_count(t), 2);
    assert_memory_equal(haze_table_data(t), m, sizeof m);
    haze_table_free(t);

    float f[4] = {1.5f, 2.25f, -3.0f, 1e-40f};
    snprintf(path, sizeof path, "%s/f.npy", haze_test_dir());
    assert_int_equal(haze_table_write(ctx, path, f, HAZE_PRECISION_F32, 4, 1, NULL), HAZE_OK);
    assert_int_equal(haze_table_read(ctx, path, NULL, &t), HAZE_OK);
    assert_int_equal(haze_table_row_count(t), 4);
    assert_true(haze_table_data(t)[3] == (double)1e-40f);
    haze_table_free(t);

    /* CSV round trip is exact with 17 digits */
    const char *names[] = {"u", "v"};
    snprintf(path, sizeof path, "%s/m.csv", haze_test_dir());
    assert_int_equal(haze_table_write(ctx, path, m, HAZE_PRECISION_F64, 3, 2, names), HAZE_OK);
    assert_int_equal(haze_table_read(ctx, path, NULL, &t), HAZE_OK);
    assert_memory_equal(haze_table_data(t), m, sizeof m);
    assert_string_equal(haze_table_names(t)[1], "v");
    haze_table_free(t);

    /* NaN is written "nan" whatever its sign (printf writes "-nan"), and
     * reads back as NaN */
    double nans[3] = {NAN, -NAN, 1.5};
    snprintf(path, sizeof path, "%s/nan.csv", haze_test_dir());
    if (haze_table_write(ctx, path, nans, HAZE_PRECISION_F64, 1, 3, NULL))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    char line[64] = "";
    FILE *nf = fopen(path, "r");
    assert_non_null(nf);
    assert_non_null(fgets(line, sizeof line, nf));
    fclose(nf);
    assert_string_equal(line, "nan,nan,1.5\n");
    haze_table_options ro = haze_table_options_default();
    ro.allow_nonfinite = 1;
    assert_int_equal(haze_table_read(ctx, path, &ro, &t), HAZE_OK);
    assert_true(isnan(haze_table_data(t)[0]) && isnan(haze_table_data(t)[1]));
    haze_table_free(t);

    static const char bad_npy[] = "\x93NUMPY\x01\x00\x10\x00{'descr': '<c8'}";
    snprintf(path, sizeof path, "%s/bad.npy", haze_test_dir());
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fwrite(bad_npy, 1, sizeof bad_npy - 1, fp);
    fclose(fp);
    assert_int_equal(haze_table_read(ctx, path, NULL, &t), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "float32 or float64"));
    haze_ctx_free(ctx);
}

/* Writes a .npy file with the given header dict (padded as NumPy pads it)
 * and `nbytes` of data. */
static const char *write_npy(const char *name, const char *dict, const void *data, size_t nbytes) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", haze_test_dir(), name);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    size_t n = strlen(dict), total = 10 + n + 1, pad = (64 - total % 64) % 64;
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
    fputs(dict, fp);
    for (size_t i = 0; i < pad; i++) fputc(' ', fp);
    fputc('\n', fp);
    if (nbytes) fwrite(data, 1, nbytes, fp);
    fclose(fp);
    return path;
}

/* The header is parsed as the Python literal it is, not searched for
 * substrings: spacing does not matter, Fortran order is honoured, a
 * structured dtype is refused by name, and a shape whose product wraps is an
 * overflow, not an empty array. */
static void test_npy_header(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_table *t = NULL;
    const double d[6] = {1, 2, 3, 4, 5, 6};

    /* no blanks, double quotes, a trailing comma, Python 2 longs */
    const char *p = write_npy("tight.npy",
                              "{\"descr\":\"<f8\",\"fortran_order\":False,"
                              "\"shape\":(2L,3L),}",
                              d, sizeof d);
    if (haze_table_read(ctx, p, NULL, &t)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(haze_table_row_count(t), 2);
    assert_int_equal(haze_table_column_count(t), 3);
    assert_true(haze_table_data(t)[1] == 2 && haze_table_data(t)[3] == 4);
    haze_table_free(t);

    /* Fortran order without a space: column after column */
    p = write_npy("fortran.npy", "{'descr':'<f8','fortran_order':True,'shape':(2,3)}", d, sizeof d);
    if (haze_table_read(ctx, p, NULL, &t)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(haze_table_row_count(t), 2);
    assert_int_equal(haze_table_column_count(t), 3);
    /* stored 1,2 | 3,4 | 5,6 as columns: row 0 is 1,3,5 */
    assert_true(haze_table_data(t)[0] == 1 && haze_table_data(t)[1] == 3 &&
                haze_table_data(t)[2] == 5 && haze_table_data(t)[3] == 2 &&
                haze_table_data(t)[5] == 6);
    haze_table_free(t);

    /* 1-D */
    p = write_npy("vec.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", d,
                  sizeof d);
    if (haze_table_read(ctx, p, NULL, &t)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(haze_table_row_count(t), 6);
    assert_int_equal(haze_table_column_count(t), 1);
    haze_table_free(t);

    /* a structured array is not float64 because '<f8' appears in it */
    p = write_npy(
        "struct.npy",
        "{'descr': [('x', '<i8'), ('y', '<f8')], 'fortran_order': False, 'shape': (3,), }", d,
        sizeof d);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_UNSUPPORTED);
    assert_null(t);
    if (!strstr(haze_ctx_errmsg(ctx), "structured")) fail_msg("%s", haze_ctx_errmsg(ctx));

    /* integers and bools, as NumPy's astype(float64) reads them */
    const int64_t i8[4] = {-3, 0, 7, ((int64_t)1 << 53) + 1};
    p = write_npy("int.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", i8,
                  sizeof i8);
    haze_table_options k32 = haze_table_options_default();
    k32.keep_float32 = 1; /* integers are widened to double whatever it asks */
    assert_int_equal(haze_table_read(ctx, p, &k32, &t), HAZE_OK);
    assert_non_null(haze_table_data(t));
    assert_true(haze_table_data(t)[0] == -3 && haze_table_data(t)[2] == 7 &&
                haze_table_data(t)[3] == 9007199254740992.0); /* 2^53 + 1: ties to even */
    haze_table_free(t);
    const int16_t i2[6] = {-1, 2, -3, 4, 5, 32767}; /* Fortran order: columns */
    p = write_npy("i2.npy", "{'descr': '<i2', 'fortran_order': True, 'shape': (3, 2), }", i2,
                  sizeof i2);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_true(haze_table_data(t)[0] == -1 && haze_table_data(t)[1] == 4 &&
                haze_table_data(t)[4] == -3 && haze_table_data(t)[5] == 32767);
    haze_table_free(t);
    const uint8_t u1[3] = {0, 200, 255}, b1[3] = {1, 0, 1};
    p = write_npy("u1.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", u1,
                  sizeof u1);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_true(haze_table_data(t)[1] == 200 && haze_table_data(t)[2] == 255);
    haze_table_free(t);
    p = write_npy("b1.npy", "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", b1,
                  sizeof b1);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_true(haze_table_data(t)[0] == 1 && haze_table_data(t)[1] == 0);
    haze_table_free(t);
    const uint64_t u8[2] = {UINT64_MAX, 12};
    p = write_npy("u8.npy", "{'descr': '<u8', 'fortran_order': False, 'shape': (2,), }", u8,
                  sizeof u8);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_true(haze_table_data(t)[0] == 18446744073709551616.0 && haze_table_data(t)[1] == 12);
    haze_table_free(t);
    const uint16_t f2[2] = {0x3c00, 0x4000}; /* half precision 1, 2: refused */
    p = write_npy("f2.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }", f2,
                  sizeof f2);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_UNSUPPORTED);
    if (!strstr(haze_ctx_errmsg(ctx), "'<f2'")) fail_msg("%s", haze_ctx_errmsg(ctx));
    p = write_npy("big.npy", "{'descr': '>f8', 'fortran_order': False, 'shape': (6,), }", d,
                  sizeof d);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_UNSUPPORTED);

    /* 2^33 x 2^31 wraps to 0 in 64 bits */
    p = write_npy("wrap.npy",
                  "{'descr': '<f8', 'fortran_order': False, 'shape': (8589934592, 2147483648), }",
                  d, sizeof d);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "overflows")) fail_msg("%s", haze_ctx_errmsg(ctx));
    p = write_npy("huge.npy",
                  "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }",
                  d, sizeof d);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "overflows")) fail_msg("%s", haze_ctx_errmsg(ctx));
    p = write_npy("empty.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", d, 0);
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "empty")) fail_msg("%s", haze_ctx_errmsg(ctx));

    /* malformed or incomplete dicts */
    static const char *const bad[] = {
        "{'descr': '<f8', 'fortran_order': False}",                                /* no shape */
        "{'descr': '<f8', 'fortran_order': False, 'shape': (6), }",                /* not a tuple */
        "{'descr': '<f8', 'fortran_order': 0, 'shape': (6,), }",                   /* not a bool */
        "{'descr': '<f8', 'fortran_order': Falsey, 'shape': (6,), }",              /* a name */
        "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (6,)}", /* twice */
        "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), 'x': 1}",         /* unknown key */
        "{'descr': '<f8', 'fortran_order': False, 'shape': (-6,), }",              /* negative */
        "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), } x", /* trailing text */
        "{'descr': '<f8' 'fortran_order': False, 'shape': (6,), }",    /* no comma */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        p = write_npy("bad.npy", bad[i], d, sizeof d);
        int st = haze_table_read(ctx, p, NULL, &t);
        if (st != HAZE_ERR_PARSE) fail_msg("%s: status %d, %s", bad[i], st, haze_ctx_errmsg(ctx));
        assert_null(t);
    }
    haze_ctx_free(ctx);
}

/* keep_float32: a float32 .npy file is read into data_f32 as stored (C or
 * Fortran order), with no double table; a float64 file still into data. */
static void test_npy_keep_float32(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_table *t;
    const float f[6] = {1.5f, -2.25f, 3.1f, 1e-40f, 5.0f, 6.0f};
    haze_table_options o = haze_table_options_default();
    o.keep_float32 = 1;
    const char *p = write_npy(
        "f32.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", f, sizeof f);
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_OK);
    assert_null(haze_table_data(t));
    assert_non_null(
        (haze_table_precision(t) == HAZE_PRECISION_F32 ? (float *)haze_table_values(t) : NULL));
    assert_int_equal(haze_table_row_count(t), 2);
    assert_memory_equal(
        (haze_table_precision(t) == HAZE_PRECISION_F32 ? (float *)haze_table_values(t) : NULL), f,
        sizeof f);
    haze_table_free(t);
    p = write_npy("f32f.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f,
                  sizeof f);
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_OK);
    assert_true((haze_table_precision(t) == HAZE_PRECISION_F32 ? (float *)haze_table_values(t)
                                                               : NULL)[0] == f[0] &&
                (haze_table_precision(t) == HAZE_PRECISION_F32 ? (float *)haze_table_values(t)
                                                               : NULL)[1] == f[2] &&
                (haze_table_precision(t) == HAZE_PRECISION_F32 ? (float *)haze_table_values(t)
                                                               : NULL)[3] == f[1]);
    haze_table_free(t);
    /* without the option: widened to double in place, the same values */
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_null(
        (haze_table_precision(t) == HAZE_PRECISION_F32 ? (float *)haze_table_values(t) : NULL));
    assert_true(haze_table_data(t)[0] == (double)f[0] && haze_table_data(t)[5] == (double)f[5]);
    haze_table_free(t);
    const double d[2] = {0.1, 0.2};
    p = write_npy("f64.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", d,
                  sizeof d);
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_OK);
    assert_null(
        (haze_table_precision(t) == HAZE_PRECISION_F32 ? (float *)haze_table_values(t) : NULL));
    assert_true(haze_table_data(t)[1] == 0.2);
    haze_table_free(t);
    const float bad[2] = {1.0f, INFINITY};
    p = write_npy("inf.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", bad,
                  sizeof bad);
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "inf.npy: row 2, column 1: not a finite number"))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_ctx_free(ctx);
}

/* The columns a read keeps: by name, number and range, in the order asked;
 * text left in the columns left out; a .npy file's non-finite values left
 * out with their column; the text column moved with the others; the lists
 * copied by a reader in blocks. */
static void test_columns(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *p = haze_test_write("sel.csv", "id,a,b,c,label\nr1,1,2,3,x\n\"r,2\",4,5,6,y\n");
    haze_table_options o = haze_table_options_default();
    o.columns = "c, a";
    haze_table *t;
    int st = haze_table_read(ctx, p, &o, &t);
    if (st) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(haze_table_column_count(t), 2);
    assert_string_equal(haze_table_names(t)[0], "c");
    assert_string_equal(haze_table_names(t)[1], "a");
    assert_true(haze_table_data(t)[0] == 3 && haze_table_data(t)[1] == 1 &&
                haze_table_data(t)[2] == 6 && haze_table_data(t)[3] == 4);
    assert_int_equal(haze_table_file_columns(t)[0], 3);
    assert_int_equal(haze_table_file_columns(t)[1], 1);
    haze_table_free(t);
    /* the text column kept, numbered as the file numbers it */
    o.columns = NULL;
    o.drop = "0,2-3";
    o.text_column = "4";
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_OK);
    assert_int_equal(haze_table_column_count(t), 2);
    assert_int_equal(haze_table_text_column(t), 1);
    assert_string_equal(haze_table_text(t)[1], "y");
    assert_true(haze_table_data(t)[2] == 4);
    haze_table_free(t);
    o.drop = "label";
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "text column '4' is among the columns left out"));
    o.text_column = NULL;
    o.drop = "id";
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "sel.csv:2: column 5 (label): expected a number"))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    /* in blocks of a few bytes: the same table */
    o.drop = "id,label";
    haze_table_reader *r;
    char *drop = strdup("id,label");
    o.drop = drop;
    assert_int_equal(haze_table_reader_open(ctx, p, &o, 5, &r), HAZE_OK);
    memset(drop, 'x', strlen(drop)); /* the reader has its own copy */
    free(drop);
    size_t rows = 0;
    while ((st = haze_table_reader_next(ctx, r, &t)) == HAZE_OK && t) {
        assert_int_equal(haze_table_column_count(t), 3);
        assert_string_equal(haze_table_names(t)[0], "a");
        assert_true(haze_table_data(t)[0] == (rows ? 4 : 1));
        rows += haze_table_row_count(t);
        haze_table_reader_reuse(r, t);
    }
    assert_int_equal(st, HAZE_OK);
    assert_int_equal(rows, 2);
    haze_table_reader_close(r);
    o.drop = NULL;
    static const char *bad[][2] = {
        {"a,zz", "sel.csv:1: no column 'zz' to keep (the header names id, a, b, c, label)"},
        {"a,,b", "an empty item in the list of columns to keep"},
        {"3-1", "column range '3-1' runs backwards"},
        {"0-5", "no column 5 to keep: the file has 5 columns, numbered from 0"},
        {"a,1", "column 1 (a) is kept twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        o.columns = bad[i][0];
        assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
        if (!strstr(haze_ctx_errmsg(ctx), bad[i][1])) fail_msg("%s", haze_ctx_errmsg(ctx));
    }
    /* .npy: numbers only; a NaN in a column left out is not read */
    const double v[6] = {1, NAN, 3, 4, 5, 6};
    p = write_npy("sel.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", v,
                  sizeof v);
    o = haze_table_options_default();
    o.drop = "1";
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_OK);
    assert_true(haze_table_data(t)[1] == 3 && haze_table_data(t)[2] == 4);
    haze_table_free(t);
    o.drop = NULL;
    o.columns = "2,1";
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "sel.npy: row 1, column 2: not a finite number"))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    o.columns = "b";
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "the file names no columns"));
    haze_ctx_free(ctx);
}

/* Missing values (haze_table_options.missing): empty fields, pandas'
 * markers and '?' read as NaN; infinities and other text still errors; a
 * .npy file's NaN allowed, its infinity not. */
static void test_missing(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *p = haze_test_write("na.csv", "a,b,c\n1,,3\nNA, 5 ,?\nnan,N/A,null\n7,8,9\n");
    haze_table_options o = haze_table_options_default();
    haze_table *t;
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "na.csv:2: column 2 (b): expected a number, found \"\""))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    o.missing = 1;
    int st = haze_table_read(ctx, p, &o, &t);
    if (st) fail_msg("%s", haze_ctx_errmsg(ctx));
    const double *v = haze_table_data(t);
    assert_true(v[0] == 1 && isnan(v[1]) && v[2] == 3 && isnan(v[3]) && v[4] == 5 && isnan(v[5]) &&
                isnan(v[6]) && isnan(v[7]) && isnan(v[8]) && v[11] == 9);
    haze_table_free(t);
    /* a first line with a missing value is data, not a header */
    p = haze_test_write("na2.csv", "1,,3\n4,5,6\n");
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_OK);
    assert_null(haze_table_names(t));
    assert_int_equal(haze_table_row_count(t), 2);
    haze_table_free(t);
    p = haze_test_write("na3.csv", "a,b\n1,inf\n");
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "na3.csv:2: column 2 (b): \"inf\" is not a finite number"))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    p = haze_test_write("na4.csv", "a,b\n1,none\n");
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    const double d[4] = {1, NAN, 3, 4}, e[2] = {1, -INFINITY};
    p = write_npy("na.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", d,
                  sizeof d);
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_OK);
    assert_true(isnan(haze_table_data(t)[1]) && haze_table_data(t)[3] == 4);
    haze_table_free(t);
    p = write_npy("inf2.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", e,
                  sizeof e);
    assert_int_equal(haze_table_read(ctx, p, &o, &t), HAZE_ERR_PARSE);
    if (!strstr(haze_ctx_errmsg(ctx), "inf2.npy: row 2, column 1: not a finite number"))
        fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_ctx_free(ctx);
}

/* A UTF-8 byte-order mark before the header or the first row is not part of
 * the first field. */
static void test_csv_bom(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_table *t;
    const char *p = haze_test_write("bom.csv", "\xEF\xBB\xBFx,y\n1,2\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_non_null(haze_table_names(t));
    assert_string_equal(haze_table_names(t)[0], "x");
    assert_int_equal(haze_table_column(t, "x"), 0);
    assert_int_equal(haze_table_row_count(t), 1);
    haze_table_free(t);
    p = haze_test_write("bom2.csv", "\xEF\xBB\xBF"
                                    "1,2\n3,4\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_null(haze_table_names(t)); /* the first row is data, not a header */
    assert_int_equal(haze_table_row_count(t), 2);
    assert_true(haze_table_data(t)[0] == 1.0);
    haze_table_free(t);
    /* a header that is not UTF-8 (a spreadsheet's Windows-1252) is read as
     * Windows-1252: its names are UTF-8, as a model's names are */
    p = haze_test_write("cp1252.csv", "Posi\xe7\xe3o,\x80,ok\n1,2,3\n");
    assert_int_equal(haze_table_read(ctx, p, NULL, &t), HAZE_OK);
    assert_string_equal(haze_table_names(t)[0], "Posi\xc3\xa7\xc3\xa3o");
    assert_string_equal(haze_table_names(t)[1], "\xe2\x82\xac");
    assert_string_equal(haze_table_names(t)[2], "ok");
    assert_int_equal(haze_table_column(t, "Posi\xc3\xa7\xc3\xa3o"), 0);
    haze_table_free(t);
    haze_ctx_free(ctx);
}

static void test_outfile_atomic(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *p = haze_test_write("keep.txt", "old contents\n");
    char path[256];
    strcpy(path, p);
    haze_outfile *f = NULL;
    assert_int_equal(haze_outfile_open(ctx, path, &f), HAZE_OK);
    fputs("half-writ", haze_outfile_stream(f));
    haze_outfile_abort(&f);
    char *text;
    assert_int_equal(haze_io_read_file(ctx, path, &text, NULL), HAZE_OK);
    assert_string_equal(text, "old contents\n"); /* untouched */
    free(text);

    assert_int_equal(haze_outfile_open(ctx, path, &f), HAZE_OK);
    fputs("new\n", haze_outfile_stream(f));
    assert_int_equal(haze_outfile_commit(ctx, &f), HAZE_OK);
    assert_int_equal(haze_io_read_file(ctx, path, &text, NULL), HAZE_OK);
    assert_string_equal(text, "new\n");
    free(text);

    assert_int_equal(haze_outfile_open(ctx, "/nonexistent-dir/out.csv", &f), HAZE_ERR_IO);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "/nonexistent-dir/out.csv"));
    /* no temporary left behind */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q tmp", haze_test_dir());
    assert_int_not_equal(system(cmd), 0);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_header),     cmocka_unit_test(test_csv_plain_and_spaces),
        cmocka_unit_test(test_tsv_quoted),     cmocka_unit_test(test_csv_text_column),
        cmocka_unit_test(test_csv_errors),     cmocka_unit_test(test_npy_roundtrip),
        cmocka_unit_test(test_outfile_atomic), cmocka_unit_test(test_npy_header),
        cmocka_unit_test(test_csv_bom),        cmocka_unit_test(test_npy_keep_float32),
        cmocka_unit_test(test_columns),        cmocka_unit_test(test_missing),
    };
    return cmocka_run_group_tests(tests, haze_test_dir_setup, haze_test_dir_teardown);
}
