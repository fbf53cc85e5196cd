/*
 * tests/test_edge.c - FIRE edge detection and image I/O on the CPU: the
 * paper's flat-window property, dark edges on a light background, the fast
 * version identical to the reference on photographs and on synthetic steps,
 * ramps and noise, golden images computed independently in NumPy
 * (scripts/golden/fis/fire_images.py), a user rule base through the fis
 * engine, and bad images.
 */
#include <string.h>
#include <unistd.h>

#include "core/rng.h"
#include "test_util.h"

static haze_image *load_img(haze_ctx *ctx, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/edge/%s", HAZE_TEST_DATA, name);
    haze_image *im = NULL;
    if (haze_image_load(ctx, path, &im)) fail_msg("%s", haze_ctx_errmsg(ctx));
    return im;
}

static haze_image *run(haze_ctx *ctx, haze_edge *f, haze_edge_kernel k, const haze_image *in) {
    haze_image *out = NULL;
    assert_int_equal(haze_image_new(ctx, in->width, in->height, &out), HAZE_OK);
    if (haze_edge_run(ctx, f, k, in, out)) fail_msg("%s", haze_ctx_errmsg(ctx));
    return out;
}

static void assert_same(const haze_image *a, const haze_image *b) {
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    size_t n = (size_t)a->width * (size_t)a->height;
    for (size_t i = 0; i < n; i++)
        if (a->data[i] != b->data[i])
            fail_msg("pixel (%zu, %zu): %d vs %d", i % (size_t)a->width, i / (size_t)a->width,
                     a->data[i], b->data[i]);
}

static void test_flat_is_white(void **s) {
    (void)s;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_edge *f = NULL;
    assert_int_equal(haze_edge_new(ctx, NULL, &f), HAZE_OK);
    haze_image *in = NULL;
    assert_int_equal(haze_image_new(ctx, 9, 7, &in), HAZE_OK);
    memset(in->data, 77, 63);
    for (int k = 0; k < 2; k++) {
        haze_image *out = run(ctx, f, (haze_edge_kernel)k, in);
        /* every antecedent at 0.5, centroid 127.5, times C = 2 */
        for (int i = 0; i < 63; i++) assert_int_equal(out->data[i], 255);
        haze_image_free(out);
    }
    haze_image_free(in);
    haze_edge_free(f);
    haze_ctx_free(ctx);
}

static void test_step_is_dark(void **s) {
    (void)s;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_edge *f = NULL;
    assert_int_equal(haze_edge_new(ctx, NULL, &f), HAZE_OK);
    haze_image *in = NULL;
    assert_int_equal(haze_image_new(ctx, 16, 16, &in), HAZE_OK);
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) in->data[y * 16 + x] = x < 8 ? 20 : 230;
    haze_image *out = run(ctx, f, HAZE_EDGE_REFERENCE, in);
    /* the two columns beside the step are dark, the rest white */
    for (int y = 0; y < 16; y++) {
        assert_int_equal(out->data[y * 16 + 7], 187); /* f_l = 0.75 */
        assert_int_equal(out->data[y * 16 + 8], 187);
        assert_int_equal(out->data[y * 16 + 2], 255);
        assert_int_equal(out->data[y * 16 + 13], 255);
    }
    haze_image_free(out);
    haze_image_free(in);
    haze_edge_free(f);
    haze_ctx_free(ctx);
}

/* Golden images from the independent NumPy formulation. */
static void check_golden(const char *img, const char *want, int spread, int width) {
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_edge_options p = haze_edge_options_default();
    p.spread = spread;
    p.black_width = width;
    haze_edge *f = NULL;
    assert_int_equal(haze_edge_new(ctx, &p, &f), HAZE_OK);
    haze_image *in = load_img(ctx, img), *gold = load_img(ctx, want);
    haze_image *ref = run(ctx, f, HAZE_EDGE_REFERENCE, in);
    haze_image *fast = run(ctx, f, HAZE_EDGE_FAST, in);
    assert_same(ref, gold);
    assert_same(fast, gold);
    haze_image_free(in);
    haze_image_free(gold);
    haze_image_free(ref);
    haze_image_free(fast);
    haze_edge_free(f);
    haze_ctx_free(ctx);
}

static void test_golden_camera(void **s) {
    (void)s;
    check_golden("camera.png", "camera_fire.pgm", 64, 128);
}
static void test_golden_astronaut_rgb(void **s) {
    (void)s;
    check_golden("astronaut.png", "astronaut_fire.pgm", 64, 128);
}
static void test_golden_coins_ppm(void **s) {
    (void)s;
    check_golden("coins.ppm", "coins_fire.pgm", 64, 128);
    check_golden("coins.ppm", "coins_fire_t32_w64.pgm", 32, 64);
}

/* Synthetic images: steps, ramps, noise, in odd sizes (borders, tails). */
static void fill_synthetic(haze_image *im, int kind, haze__rng *r) {
    int w = im->width, h = im->height;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v;
            switch (kind) {
            case 0:
                v = (x * 3 + y * 2 > w + h) ? 255 : 0;
                break; /* diagonal step */
            case 1:
                v = (x * 255) / (w > 1 ? w - 1 : 1);
                break; /* ramp */
            case 2:
                v = (int)haze__rng_below(r, 256);
                break; /* noise */
            default:
                v = ((x / 5 + y / 3) % 2) ? 200 : 40; /* blocks */
                v += (int)haze__rng_below(r, 21) - 10;
            }
            im->data[(size_t)y * (size_t)w + (size_t)x] = (uint8_t)v;
        }
}

static void test_fast_equals_reference(void **s) {
    (void)s;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze__rng r;
    haze__rng_seed(&r, 11);
    const int sizes[][2] = {{1, 1}, {1, 9}, {7, 1}, {2, 2}, {33, 17}, {64, 48}, {131, 77}};
    for (int pset = 0; pset < 3; pset++) {
        haze_edge_options p = haze_edge_options_default();
        if (pset == 1) p.spread = 1, p.black_width = 255, p.scale = 1;
        if (pset == 2) p.spread = 255, p.black_width = 1, p.scale = 3;
        haze_edge *f = NULL;
        assert_int_equal(haze_edge_new(ctx, &p, &f), HAZE_OK);
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int kind = 0; kind < 4; kind++) {
                haze_image *in = NULL;
                assert_int_equal(haze_image_new(ctx, sizes[si][0], sizes[si][1], &in), HAZE_OK);
                fill_synthetic(in, kind, &r);
                haze_image *a = run(ctx, f, HAZE_EDGE_REFERENCE, in);
                haze_ctx_set_threads(ctx, 1 + (int)(si % 3));
                haze_image *b = run(ctx, f, HAZE_EDGE_FAST, in);
                assert_same(a, b);
                haze_image_free(in);
                haze_image_free(a);
                haze_image_free(b);
            }
        haze_edge_free(f);
    }
    /* the JPEG photograph too */
    haze_edge *f = NULL;
    assert_int_equal(haze_edge_new(ctx, NULL, &f), HAZE_OK);
    haze_image *in = load_img(ctx, "hubble.jpg");
    assert_int_equal(in->width, 96);
    assert_int_equal(in->height, 64);
    haze_image *a = run(ctx, f, HAZE_EDGE_REFERENCE, in), *b = run(ctx, f, HAZE_EDGE_FAST, in);
    assert_same(a, b);
    haze_image_free(in);
    haze_image_free(a);
    haze_image_free(b);
    haze_edge_free(f);
    haze_ctx_free(ctx);
}

static void test_bad_params(void **s) {
    (void)s;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_edge_options p = haze_edge_options_default();
    haze_edge *f = NULL;
    p.spread = 0;
    assert_int_equal(haze_edge_new(ctx, &p, &f), HAZE_ERR_INVALID);
    p = haze_edge_options_default();
    p.black_width = 256;
    assert_int_equal(haze_edge_new(ctx, &p, &f), HAZE_ERR_INVALID);
    p = haze_edge_options_default();
    p.scale = 0;
    assert_int_equal(haze_edge_new(ctx, &p, &f), HAZE_ERR_INVALID);
    assert_null(f);
    haze_ctx_free(ctx);
}

/* A user rule base through the fis engine: a Mamdani model of the FIRE idea
 * with two rules on the N/S differences gives dark horizontal edges. */
static void test_edge_fis(void **s) {
    (void)s;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    char text[4096];
    size_t len = (size_t)snprintf(text, sizeof text,
                                  "[System]\nName='hedge'\nNumInputs=8\n"
                                  "NumOutputs=1\nNumRules=2\n");
    const char *nm[8] = {"NW", "N", "NE", "W", "E", "SW", "S", "SE"};
    for (int i = 0; i < 8; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "[Input%d]\nName='%s'\nRange=[-255 255]\nNumMFs=1\n"
                                "MF1='big':'trapmf',[-300 -255 -128 -32]\n",
                                i + 1, nm[i]);
    snprintf(text + len, sizeof text - len,
             "[Output1]\nName='grey'\nRange=[0 255]\nNumMFs=2\nMF1='black':'trimf',[-1 0 128]\n"
             "MF2='white':'trimf',[127 255 256]\n[Rules]\n0 1 0 0 0 0 0 0, 1 (1) : 1\n"
             "0 -1 0 0 0 0 0 0, 2 (1) : 1\n");
    haze_fis *fis = NULL;
    if (haze_fis_parse(ctx, text, "hedge.fis", &fis)) fail_msg("%s", haze_ctx_errmsg(ctx));
    haze_image *in = NULL, *out = NULL;
    assert_int_equal(haze_image_new(ctx, 8, 8, &in), HAZE_OK);
    assert_int_equal(haze_image_new(ctx, 8, 8, &out), HAZE_OK);
    for (int i = 0; i < 64; i++) in->data[i] = i < 32 ? 0 : 250;
    if (haze_edge_run_fis(ctx, fis, in, out)) fail_msg("%s", haze_ctx_errmsg(ctx));
    /* row 4 has a much darker row above it: N difference -250, "big" */
    assert_true(out->data[4 * 8 + 3] < 100);
    assert_true(out->data[1 * 8 + 3] > 150);
    haze_fis_free(fis);
    /* a model with the wrong number of inputs is refused */
    if (haze_fis_load(ctx, HAZE_TEST_DATA "/fis/tipper.fis", &fis)) fail_msg("load");
    assert_int_equal(haze_edge_run_fis(ctx, fis, in, out), HAZE_ERR_MISMATCH);
    haze_fis_free(fis);
    haze_image_free(in);
    haze_image_free(out);
    haze_ctx_free(ctx);
}

static int write_file(const char *path, const void *data, size_t n) {
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    fwrite(data, 1, n, fp);
    return fclose(fp);
}

static void test_image_io(void **s) {
    (void)s;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    char dir[] = "/tmp/haze-img-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p1[256], p2[256];
    /* ASCII PGM and PPM with comments; 16-bit PGM */
    snprintf(p1, sizeof p1, "%s/a.pgm", dir);
    const char pgm[] = "P2\n# comment\n3 2\n# another\n10\n0 5 10\n10 5 0\n";
    write_file(p1, pgm, strlen(pgm));
    haze_image *im = NULL;
    if (haze_image_load(ctx, p1, &im)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_int_equal(im->width, 3);
    assert_int_equal(im->height, 2);
    assert_int_equal(im->data[0], 0);
    assert_int_equal(im->data[1], 128); /* 5 * 255 / 10 rounded */
    assert_int_equal(im->data[2], 255);
    /* PNG and PGM round trips */
    snprintf(p2, sizeof p2, "%s/b.png", dir);
    assert_int_equal(haze_image_save(ctx, im, p2), HAZE_OK);
    haze_image *b = NULL;
    if (haze_image_load(ctx, p2, &b)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_same(im, b);
    haze_image_free(b);
    snprintf(p2, sizeof p2, "%s/c.pgm", dir);
    assert_int_equal(haze_image_save(ctx, im, p2), HAZE_OK);
    if (haze_image_load(ctx, p2, &b)) fail_msg("%s", haze_ctx_errmsg(ctx));
    assert_same(im, b);
    haze_image_free(b);
    haze_image_free(im);
    const char ppm[] = "P3 1 1 255 255 0 0\n";
    write_file(p1, ppm, strlen(ppm));
    assert_int_equal(haze_image_load(ctx, p1, &im), HAZE_OK);
    assert_int_equal(im->data[0], 76); /* 0.299 * 255 */
    haze_image_free(im);
    const unsigned char pgm16[] = "P5 2 1 65535\n\xff\xff\x80\x00";
    write_file(p1, pgm16, sizeof pgm16 - 1);
    assert_int_equal(haze_image_load(ctx, p1, &im), HAZE_OK);
    assert_int_equal(im->data[0], 255);
    assert_int_equal(im->data[1], 128);
    haze_image_free(im);
    /* bad images: truncated, corrupt, unknown */
    const char *bad[] = {"P5 4 4 255\nabc",
                         "P2 2 2 255\n1 2 x 4\n",
                         "P5 0 4 255\n",
                         "\x89PNG\r\n\x1a\nnot really",
                         "\xff\xd8\xff\xe0garbage",
                         "GIF89a",
                         ""};
    const char *want[] = {"truncated",    "pixel 3",   "bad Netpbm header", "corrupt PNG",
                          "corrupt JPEG", "not a PNG", "an empty file"};
    for (int i = 0; i < 7; i++) {
        write_file(p1, bad[i], strlen(bad[i]));
        im = NULL;
        int st = haze_image_load(ctx, p1, &im);
        if (st != HAZE_ERR_PARSE || im) fail_msg("bad image %d accepted", i);
        if (!strstr(haze_ctx_errmsg(ctx), want[i]) || !strstr(haze_ctx_errmsg(ctx), p1))
            fail_msg("bad image %d: '%s'", i, haze_ctx_errmsg(ctx));
    }
    /* a PBM bitmap: refused as such */
    write_file(p1, "P4\n1 1\n\x80", 8);
    assert_int_equal(haze_image_load(ctx, p1, &im), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "a Netpbm PBM bitmap (P4)"));
    /* 16-bit PNG samples rounded to 8 bits as the PGM reader rounds them
     * (libpng's png_set_strip_16 dropped the low byte: 0 and 255 here) */
    {
        char src[1024];
        snprintf(src, sizeof src, "%s/edge/grey16.png", HAZE_TEST_DATA);
        if (haze_image_load(ctx, src, &im)) fail_msg("%s", haze_ctx_errmsg(ctx));
        const unsigned char want16[4] = {1, 128, 254, 0};
        assert_int_equal(im->width, 4);
        assert_memory_equal(im->data, want16, 4);
        haze_image_free(im);
        const unsigned char same[] = "P5 4 1 65535\n\x00\xff\x80\xff\xff\x00\x00\x80";
        write_file(p1, same, sizeof same - 1);
        assert_int_equal(haze_image_load(ctx, p1, &im), HAZE_OK);
        assert_memory_equal(im->data, want16, 4);
        haze_image_free(im);
    }
    /* a truncated real PNG */
    {
        char src[1024];
        snprintf(src, sizeof src, "%s/edge/camera.png", HAZE_TEST_DATA);
        char *buf = NULL;
        size_t n = 0;
        assert_int_equal(haze_io_read_file(ctx, src, &buf, &n), HAZE_OK);
        write_file(p1, buf, n / 2);
        free(buf);
        assert_int_equal(haze_image_load(ctx, p1, &im), HAZE_ERR_PARSE);
    }
    remove(p1);
    snprintf(p2, sizeof p2, "%s/b.png", dir);
    remove(p2);
    snprintf(p2, sizeof p2, "%s/c.pgm", dir);
    remove(p2);
    rmdir(dir);
    haze_ctx_free(ctx);
}

/* A JPEG header may claim up to 65500 x 65500 pixels in a few hundred
 * bytes: refused by size (as PNG and PNM are), or stopped at the end of the
 * data, in either case without decoding made-up rows for minutes. */
static void test_jpeg_limits(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    const char *seeds[] = {"seed-huge-size.jpg", "seed-huge-size-truncated.jpg",
                           "seed-truncated.jpg", "seed-truncated.png", "seed-truncated.pgm"};
    const char *want[] = {"65500 x 65500 is too large", "truncated", "truncated", "truncated",
                          "truncated"};
    for (int i = 0; i < 5; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/fuzz/corpus/fuzz_image/%s", HAZE_SOURCE_DIR, seeds[i]);
        haze_image *im = NULL;
        assert_int_equal(haze_image_load(ctx, path, &im), HAZE_ERR_PARSE);
        assert_null(im);
        if (!strstr(haze_ctx_errmsg(ctx), want[i]))
            fail_msg("%s: '%s'", seeds[i], haze_ctx_errmsg(ctx));
    }
    haze_ctx_free(ctx);
}

/* The extension decides the format written; an unknown one writes nothing. */
static void test_save_formats(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_image *src = load_img(ctx, "camera.png"), *back = NULL;
    char dir[] = "/tmp/haze-test-save-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *names[] = {"a.png", "a.jpg", "a.JPEG", "a.pgm", "a.ppm", "noext"};
    const unsigned char *magic[] = {
        (const unsigned char *)"\x89PNG",      (const unsigned char *)"\xff\xd8\xff",
        (const unsigned char *)"\xff\xd8\xff", (const unsigned char *)"P5",
        (const unsigned char *)"P6",           (const unsigned char *)"\x89PNG"};
    for (int i = 0; i < 6; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(haze_image_save(ctx, src, path), HAZE_OK);
        char *buf = NULL;
        size_t n = 0;
        assert_int_equal(haze_io_read_file(ctx, path, &buf, &n), HAZE_OK);
        size_t m = strlen((const char *)magic[i]);
        if (n < m || memcmp(buf, magic[i], m)) fail_msg("%s: wrong format", names[i]);
        free(buf);
        assert_int_equal(haze_image_load(ctx, path, &back), HAZE_OK);
        assert_int_equal(back->width, src->width);
        assert_int_equal(back->height, src->height);
        if (i != 1 && i != 2) /* lossless ones give the same bytes */
            assert_memory_equal(back->data, src->data, (size_t)src->width * src->height);
        haze_image_free(back);
        remove(path);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/a.gif", dir);
    assert_int_equal(haze_image_save(ctx, src, path), HAZE_ERR_UNSUPPORTED);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), ".gif"));
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(haze_image_format_check(ctx, "x/y.jpeg"), HAZE_OK);
    assert_int_equal(haze_image_format_check(ctx, "x.y/z"), HAZE_OK);
    assert_int_equal(haze_image_format_check(ctx, "z.tif"), HAZE_ERR_UNSUPPORTED);
    rmdir(dir);
    haze_image_free(src);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_is_white),    cmocka_unit_test(test_step_is_dark),
        cmocka_unit_test(test_golden_camera),    cmocka_unit_test(test_golden_astronaut_rgb),
        cmocka_unit_test(test_golden_coins_ppm), cmocka_unit_test(test_fast_equals_reference),
        cmocka_unit_test(test_bad_params),       cmocka_unit_test(test_edge_fis),
        cmocka_unit_test(test_image_io),         cmocka_unit_test(test_jpeg_limits),
        cmocka_unit_test(test_save_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
