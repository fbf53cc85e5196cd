/*
 * tests/test_core_text.c - the core layer's pieces that every module uses:
 * the text readers' toolkit (core/text.h: messages with file, line and
 * column, trimming, suffixes, locating a byte, numbers in the C locale) and
 * the per-context module state (haze__ctx_state: made once, zeroed,
 * destroyed when the context is freed, also when threads first use it at
 * once).
 */
#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "test_util.h"

#include "core/internal.h"
#include "core/text.h"

static void test_text_error(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    assert_int_equal(haze__text_error(ctx, HAZE_ERR_PARSE, "a.fis", 3, 7, "bad %s", "token"),
                     HAZE_ERR_PARSE);
    assert_string_equal(haze_ctx_errmsg(ctx), "a.fis:3:7: bad token");
    assert_int_equal(haze_ctx_errcode(ctx), HAZE_ERR_PARSE);
    haze__text_error(ctx, HAZE_ERR_PARSE, "a.fis", 3, 0, "no column");
    assert_string_equal(haze_ctx_errmsg(ctx), "a.fis:3: no column");
    haze__text_error(ctx, HAZE_ERR_PARSE, "a.fis", 0, 9, "no line");
    assert_string_equal(haze_ctx_errmsg(ctx), "a.fis: no line");
    haze__text_error(ctx, HAZE_ERR_IO, NULL, 12, 4, "no name");
    assert_string_equal(haze_ctx_errmsg(ctx), "12:4: no name");
    assert_int_equal(haze_ctx_errcode(ctx), HAZE_ERR_IO);
    haze__text_error(ctx, HAZE_ERR_PARSE, NULL, -1, 4, "nothing to name");
    assert_string_equal(haze_ctx_errmsg(ctx), "nothing to name");
    /* numbers in the message are the library's (C locale) */
    haze__text_error(ctx, HAZE_ERR_RANGE, "x.csv", 1, 2, "%g", 0.5);
    assert_string_equal(haze_ctx_errmsg(ctx), "x.csv:1:2: 0.5");
    /* a NULL context: the status still comes back */
    assert_int_equal(haze__text_error(NULL, HAZE_ERR_PARSE, "a", 1, 1, "x"), HAZE_ERR_PARSE);
    haze_ctx_free(ctx);
}

static void test_text_trim(void **state) {
    (void)state;
    char a[] = " \t\r\n x y \v\f\r\n";
    assert_string_equal(haze__text_trim(a), "x y");
    char b[] = "";
    assert_string_equal(haze__text_trim(b), "");
    char c[] = " \t\n ";
    assert_string_equal(haze__text_trim(c), "");
    char d[] = "abc";
    assert_ptr_equal(haze__text_trim(d), d);
    /* bytes above 127 are not white space, whatever a locale says (0xa0 is
     * a no-break space in Latin-1) */
    char e[] = "\xa0z\xa0";
    assert_string_equal(haze__text_trim(e), "\xa0z\xa0");
}

static void test_text_ends_with(void **state) {
    (void)state;
    assert_true(haze__text_ends_with("model.fis", ".fis", 0));
    assert_false(haze__text_ends_with("model.FIS", ".fis", 0));
    assert_true(haze__text_ends_with("model.FIS", ".fis", 1));
    assert_true(haze__text_ends_with("model.fis", ".FiS", 1));
    assert_true(haze__text_ends_with("x", "", 0));
    assert_true(haze__text_ends_with(".fis", ".fis", 0));
    assert_false(haze__text_ends_with("fis", ".fis", 1));
    assert_false(haze__text_ends_with("", "a", 0));
    assert_false(haze__text_ends_with("a.fll", ".fis", 1));
    /* only ASCII letters fold */
    assert_false(haze__text_ends_with("a\xc4", "\xe4", 1));
}

static void test_text_locate(void **state) {
    (void)state;
    const char *t = "ab\ncde\n\nxyz";
    long line = 0, col = 0;
    haze__text_locate(t, t, &line, &col);
    assert_int_equal(line, 1);
    assert_int_equal(col, 1);
    haze__text_locate(t, t + 2, &line, &col); /* the first '\n' ends line 1 */
    assert_int_equal(line, 1);
    assert_int_equal(col, 3);
    haze__text_locate(t, t + 5, &line, &col); /* 'e' */
    assert_int_equal(line, 2);
    assert_int_equal(col, 3);
    haze__text_locate(t, t + 7, &line, &col); /* the empty line 3 */
    assert_int_equal(line, 3);
    assert_int_equal(col, 1);
    haze__text_locate(t, t + 10, &line, &col); /* 'z' */
    assert_int_equal(line, 4);
    assert_int_equal(col, 3);
    haze__text_locate(t, t + strlen(t), &line, &col); /* the end */
    assert_int_equal(line, 4);
    assert_int_equal(col, 4);
}

/* Reads s whole as one number (or fails the test). */
static double number(const char *s) {
    const char *end = NULL;
    double v = -1;
    if (haze__text_number(s, &end, &v) != HAZE_OK) fail_msg("'%s' not read", s);
    if (end != s + strlen(s)) fail_msg("'%s' read up to '%s'", s, end);
    return v;
}

static void check_numbers(void) {
    assert_true(number("0.5") == 0.5);
    assert_true(number("-1.25e-3") == -1.25e-3);
    assert_true(number("  7") == 7.0); /* leading space skipped as strtod does */
    assert_true(number("1e308") == 1e308);
    /* hexadecimal floating point and integers, as strtod reads them */
    assert_true(number("0x1p-2") == 0.25);
    assert_true(number("0x10") == 16.0);
    assert_true(number("-0X1.8P1") == -3.0);
    assert_true(number("0x1.fffffffffffffp1023") == DBL_MAX);
    assert_true(isinf(number("inf")) && number("-Infinity") < 0);
    assert_true(isnan(number("nan")));
    /* overflow: +-inf and HAZE_OK, the caller decides */
    double v = number("1e400");
    assert_true(isinf(v) && v > 0);
    v = number("-1e99999");
    assert_true(isinf(v) && v < 0);
    /* underflow: the rounding of the value */
    assert_true(number("1e-400") == 0.0);
    assert_true(number("4.9406564584124654e-324") == 4.9406564584124654e-324);

    /* the number ends where strtod's does */
    const char *s = "2.5,3", *end = NULL;
    double d = 0;
    assert_int_equal(haze__text_number(s, &end, &d), HAZE_OK);
    assert_true(d == 2.5);
    assert_ptr_equal(end, s + 3);
    s = "1.5e";
    assert_int_equal(haze__text_number(s, &end, &d), HAZE_OK);
    assert_ptr_equal(end, s + 3);
    /* no number: HAZE_ERR_PARSE, *end = s */
    const char *bad[] = {"", "  ", "x1", ",5", "e5", "+", "-.", "0x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        end = NULL;
        d = 1;
        int st = haze__text_number(bad[i], &end, &d);
        if (!strcmp(bad[i], "0x")) { /* strtod reads the 0 */
            assert_int_equal(st, HAZE_OK);
            assert_ptr_equal(end, bad[i] + 1);
            continue;
        }
        assert_int_equal(st, HAZE_ERR_PARSE);
        assert_ptr_equal(end, bad[i]);
        assert_true(d == 0);
    }
}

static void test_text_number(void **state) {
    (void)state;
    check_numbers();
}

/* A host program that switched to a decimal-comma locale changes nothing:
 * "0.5" is one half, "0,5" stops at the comma. */
static void test_text_number_locale(void **state) {
    (void)state;
    static const char *const locales[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE",
                                          "fr_FR.UTF-8", "fr_FR.utf8", "fr_FR"};
    const char *got = NULL;
    for (size_t i = 0; i < sizeof locales / sizeof *locales && !got; i++)
        if (setlocale(LC_ALL, locales[i]) && strcmp(localeconv()->decimal_point, ",") == 0)
            got = locales[i];
    if (!got) {
        setlocale(LC_ALL, "C");
        skip(); /* no decimal-comma locale installed */
    }
    check_numbers();
    const char *s = "0,5", *end = NULL;
    double d = 0;
    assert_int_equal(haze__text_number(s, &end, &d), HAZE_OK);
    assert_true(d == 0.0);
    assert_ptr_equal(end, s + 1);
    /* still the host's locale afterwards */
    assert_string_equal(localeconv()->decimal_point, ",");
    setlocale(LC_ALL, "C");
}

/* ------------------------------------------------------------ module state */

typedef struct probe_state {
    int value;
    char pad[200];
} probe_state;

static int destroyed;
static void *destroyed_block;

static void probe_destroy(void *p) {
    destroyed++;
    destroyed_block = p;
}

static void test_ctx_state(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    destroyed = 0;
    probe_state *s = haze__ctx_state(ctx, HAZE__STATE_FUZZY, sizeof *s, probe_destroy);
    assert_non_null(s);
    assert_int_equal(s->value, 0);
    for (size_t i = 0; i < sizeof s->pad; i++) assert_int_equal(s->pad[i], 0);
    assert_true((uintptr_t)s % _Alignof(max_align_t) == 0);
    s->value = 42;
    /* the same block again (size and destroy of later calls are ignored) */
    probe_state *t = haze__ctx_state(ctx, HAZE__STATE_FUZZY, sizeof *t, NULL);
    assert_ptr_equal(t, s);
    assert_int_equal(t->value, 42);
    /* another module, another block; another context, another block */
    probe_state *u = haze__ctx_state(ctx, HAZE__STATE_EDGE, sizeof *u, NULL);
    assert_non_null(u);
    assert_ptr_not_equal(u, s);
    assert_int_equal(u->value, 0);
    haze_ctx *other = haze_test_ctx(HAZE_BACKEND_CPU);
    probe_state *o = haze__ctx_state(other, HAZE__STATE_FUZZY, sizeof *o, probe_destroy);
    assert_non_null(o);
    assert_ptr_not_equal(o, s);
    assert_int_equal(o->value, 0);
    /* out of range and NULL */
    assert_null(haze__ctx_state(ctx, HAZE__STATE_COUNT, 8, NULL));
    assert_null(haze__ctx_state(ctx, -1, 8, NULL));
    assert_null(haze__ctx_state(NULL, HAZE__STATE_FUZZY, 8, NULL));
    /* destroyed once, when its context is freed */
    assert_int_equal(destroyed, 0);
    haze_ctx_free(ctx);
    assert_int_equal(destroyed, 1);
    assert_ptr_equal(destroyed_block, s);
    haze_ctx_free(other);
    assert_int_equal(destroyed, 2);
    assert_ptr_equal(destroyed_block, o);
    /* a context that never used it destroys nothing */
    ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_ctx_free(ctx);
    assert_int_equal(destroyed, 2);
}

#define RACE_THREADS 8
#define RACE_ROUNDS  200

typedef struct race_arg {
    haze_ctx *ctx;
    pthread_barrier_t *go;
    void *got;
    int nonzero;
} race_arg;

static void *race_worker(void *p) {
    race_arg *a = p;
    pthread_barrier_wait(a->go);
    probe_state *s = haze__ctx_state(a->ctx, HAZE__STATE_FIS, sizeof *s, probe_destroy);
    a->got = s;
    if (s) {
        /* zeroed when first seen by every thread, whoever made it */
        for (size_t i = 0; i < sizeof s->pad; i++) a->nonzero += s->pad[i] != 0;
        __atomic_add_fetch(&s->value, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* Threads that share a context and first use its state at once all get the
 * same block; it is destroyed once. */
static void test_ctx_state_race(void **state) {
    (void)state;
    for (int r = 0; r < RACE_ROUNDS; r++) {
        haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
        pthread_barrier_t go;
        assert_int_equal(pthread_barrier_init(&go, NULL, RACE_THREADS), 0);
        pthread_t th[RACE_THREADS];
        race_arg arg[RACE_THREADS];
        for (int t = 0; t < RACE_THREADS; t++) {
            arg[t] = (race_arg){ctx, &go, NULL, 0};
            assert_int_equal(pthread_create(&th[t], NULL, race_worker, &arg[t]), 0);
        }
        for (int t = 0; t < RACE_THREADS; t++) assert_int_equal(pthread_join(th[t], NULL), 0);
        pthread_barrier_destroy(&go);
        for (int t = 0; t < RACE_THREADS; t++) {
            assert_non_null(arg[t].got);
            assert_ptr_equal(arg[t].got, arg[0].got);
            assert_int_equal(arg[t].nonzero, 0);
        }
        assert_int_equal(((probe_state *)arg[0].got)->value, RACE_THREADS);
        destroyed = 0;
        haze_ctx_free(ctx);
        assert_int_equal(destroyed, 1);
        assert_ptr_equal(destroyed_block, arg[0].got);
    }
}

/* The device memory account without a device: the limit is kept, the bytes
 * come back, and an object's reference keeps the account after its
 * context is gone. */
static void test_dev_acct(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze__dev_acct *a = haze__dev_acct_hold(ctx);
    assert_non_null(a);
    size_t held = 1;
    assert_int_equal(haze__dev_acct_add(a, 600, 1000, &held), 1);
    assert_int_equal(held, 0);
    assert_int_equal(haze__dev_acct_add(a, 401, 1000, &held), 0); /* would pass the limit */
    assert_int_equal(held, 600);
    assert_int_equal(haze__dev_acct_bytes(a), 600);
    assert_int_equal(haze__dev_acct_add(a, 400, 1000, &held), 1);     /* exactly the limit */
    assert_int_equal(haze__dev_acct_add(a, (size_t)-1, 0, &held), 1); /* no limit */
    haze__dev_acct_release(a, (size_t)-1);
    haze__dev_acct_release(a, 400);
    assert_int_equal(haze__dev_acct_bytes(a), 600);
    /* the object outlives the context */
    haze_ctx_free(ctx);
    haze__dev_free_held(a, 0, NULL, 600);
    haze__dev_acct_release(a, 600);
    assert_int_equal(haze__dev_acct_bytes(a), 0);
    haze__dev_acct_drop(a);
    assert_null(haze__dev_acct_hold(NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_error),     cmocka_unit_test(test_text_trim),
        cmocka_unit_test(test_text_ends_with), cmocka_unit_test(test_text_locate),
        cmocka_unit_test(test_text_number),    cmocka_unit_test(test_text_number_locale),
        cmocka_unit_test(test_ctx_state),      cmocka_unit_test(test_ctx_state_race),
        cmocka_unit_test(test_dev_acct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
