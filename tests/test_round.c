/*
 * tests/test_round.c - the directed-rounding primitives of haze/round.h
 * against MPFR: for every operation, direction and precision, random hard
 * operands (fp_gen.h) must give exactly MPFR's correctly rounded result,
 * bit for bit (signed zeros, subnormals and overflow included).
 *
 * Reference: the operation at 200 bits rounded in the same direction, then
 * rounded to double/float in that direction again; rounding twice in one
 * direction equals rounding once.
 */
#include <mpfr.h>
#include <string.h>

#include "test_util.h"
#include "fp_gen.h"
#include "haze/round.h"

enum op { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_SQRT, OP_COUNT };
static const char *op_name[] = {"add", "sub", "mul", "div", "sqrt"};

static void ref_op(mpfr_t r, enum op op, double a, double b, mpfr_rnd_t rnd) {
    mpfr_t x, y;
    mpfr_inits2(200, x, y, (mpfr_ptr)0);
    mpfr_set_d(x, a, MPFR_RNDN);
    mpfr_set_d(y, b, MPFR_RNDN);
    switch (op) {
    case OP_ADD:
        mpfr_add(r, x, y, rnd);
        break;
    case OP_SUB:
        mpfr_sub(r, x, y, rnd);
        break;
    case OP_MUL:
        mpfr_mul(r, x, y, rnd);
        break;
    case OP_DIV:
        mpfr_div(r, x, y, rnd);
        break;
    default:
        mpfr_sqrt(r, x, rnd);
        break;
    }
    mpfr_clears(x, y, (mpfr_ptr)0);
}

static double haze_op(enum op op, double a, double b, int up) {
    switch (op) {
    case OP_ADD:
        return up ? haze_ru_add(a, b) : haze_rd_add(a, b);
    case OP_SUB:
        return up ? haze_ru_sub(a, b) : haze_rd_sub(a, b);
    case OP_MUL:
        return up ? haze_ru_mul(a, b) : haze_rd_mul(a, b);
    case OP_DIV:
        return up ? haze_ru_div(a, b) : haze_rd_div(a, b);
    default:
        return up ? haze_ru_sqrt(a) : haze_rd_sqrt(a);
    }
}

static float haze_opf(enum op op, float a, float b, int up) {
    switch (op) {
    case OP_ADD:
        return up ? haze_ru_addf(a, b) : haze_rd_addf(a, b);
    case OP_SUB:
        return up ? haze_ru_subf(a, b) : haze_rd_subf(a, b);
    case OP_MUL:
        return up ? haze_ru_mulf(a, b) : haze_rd_mulf(a, b);
    case OP_DIV:
        return up ? haze_ru_divf(a, b) : haze_rd_divf(a, b);
    default:
        return up ? haze_ru_sqrtf(a) : haze_rd_sqrtf(a);
    }
}

static int same_double(double x, double y) {
    return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0;
}
static int same_float(float x, float y) {
    return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0;
}

static void check_double(enum op op, uint64_t seed) {
    haze__rng rng;
    haze__rng_seed(&rng, seed);
    mpfr_t r;
    mpfr_init2(r, 200);
    long n = fp_gen_cases(1000000), bad = 0;
    for (long i = 0; i < n; i++) {
        double a = fp_gen_double(&rng);
        double b = op == OP_SQRT ? 0 : fp_gen_partner(&rng, a);
        if (op == OP_SQRT && haze__rng_below(&rng, 8) != 0) a = fabs(a);
        for (int up = 0; up < 2; up++) {
            mpfr_rnd_t rnd = up ? MPFR_RNDU : MPFR_RNDD;
            ref_op(r, op, a, b, rnd);
            double want = mpfr_get_d(r, rnd), got = haze_op(op, a, b, up);
            if (!same_double(want, got) && bad++ < 10)
                print_error("%s %s(%a, %a): got %a, want %a\n", up ? "RU" : "RD", op_name[op], a, b,
                            got, want);
        }
    }
    mpfr_clear(r);
    if (bad) fail_msg("%ld of %ld double %s results differ from MPFR", bad, 2 * n, op_name[op]);
}

static void check_float(enum op op, uint64_t seed) {
    haze__rng rng;
    haze__rng_seed(&rng, seed);
    mpfr_t r;
    mpfr_init2(r, 200);
    long n = fp_gen_cases(1000000), bad = 0;
    for (long i = 0; i < n; i++) {
        float a = fp_gen_float(&rng);
        float b = op == OP_SQRT ? 0 : fp_gen_partnerf(&rng, a);
        if (op == OP_SQRT && haze__rng_below(&rng, 8) != 0) a = fabsf(a);
        for (int up = 0; up < 2; up++) {
            mpfr_rnd_t rnd = up ? MPFR_RNDU : MPFR_RNDD;
            ref_op(r, op, a, b, rnd);
            float want = mpfr_get_flt(r, rnd), got = haze_opf(op, a, b, up);
            if (!same_float(want, got) && bad++ < 10)
                print_error("%s %sf(%a, %a): got %a, want %a\n", up ? "RU" : "RD", op_name[op],
                            (double)a, (double)b, (double)got, (double)want);
        }
    }
    mpfr_clear(r);
    if (bad) fail_msg("%ld of %ld float %s results differ from MPFR", bad, 2 * n, op_name[op]);
}

static void test_double_ops(void **state) {
    (void)state;
    for (int op = 0; op < OP_COUNT; op++) check_double((enum op)op, 1000 + (uint64_t)op);
}

static void test_float_ops(void **state) {
    (void)state;
    for (int op = 0; op < OP_COUNT; op++) check_float((enum op)op, 2000 + (uint64_t)op);
}

/* Hand-picked edges: overflow, underflow to zero, signed zeros, halfway cases. */
static void test_edges(void **state) {
    (void)state;
    assert_true(haze_ru_add(DBL_MAX, DBL_MAX) == INFINITY);
    assert_true(haze_rd_add(DBL_MAX, DBL_MAX) == DBL_MAX);
    assert_true(haze_rd_add(-DBL_MAX, -DBL_MAX) == -INFINITY);
    assert_true(haze_ru_add(-DBL_MAX, -DBL_MAX) == -DBL_MAX);
    assert_true(haze_ru_mul(0x1p-1074, 0x1p-1) == 0x1p-1074);
    assert_true(haze_rd_mul(0x1p-1074, 0x1p-1) == 0 && !signbit(haze_rd_mul(0x1p-1074, 0x1p-1)));
    assert_true(signbit(haze_ru_mul(-0x1p-1074, 0x1p-1)));
    assert_true(haze_rd_mul(-0x1p-1074, 0x1p-1) == -0x1p-1074);
    assert_true(signbit(haze_rd_add(1.0, -1.0)) && !signbit(haze_ru_add(1.0, -1.0)));
    assert_true(!signbit(haze_rd_add(0.0, 0.0)) && signbit(haze_rd_add(0.0, -0.0)));
    assert_true(haze_ru_div(1.0, 3.0) == haze__nextup(1.0 / 3.0) ||
                haze_ru_div(1.0, 3.0) > 1.0 / 3.0);
    assert_true(haze_rd_div(1.0, 3.0) < haze_ru_div(1.0, 3.0));
    assert_true(haze_rd_sqrt(4.0) == 2.0 && haze_ru_sqrt(4.0) == 2.0);
    assert_true(haze_rd_sqrt(2.0) < haze_ru_sqrt(2.0));
    assert_true(haze_ru_mulf(FLT_MAX, 2.0f) == INFINITY && haze_rd_mulf(FLT_MAX, 2.0f) == FLT_MAX);
    assert_true(haze_ru_addf(1.0f, 0x1p-100f) == haze__nextupf(1.0f));
    assert_true(haze_rd_addf(1.0f, 0x1p-100f) == 1.0f);
    assert_true(haze_rd_subf(1.0f, 0x1p-100f) == haze__nextdownf(1.0f));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_double_ops),
        cmocka_unit_test(test_float_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
