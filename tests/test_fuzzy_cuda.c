/*
 * tests/test_fuzzy_cuda.c - the GPU backend of haze_fuzzy_* gives the same
 * bits as the CPU backend: every operation, encoding and precision on random
 * arrays at several sizes and N, with hard operands (random bit patterns,
 * subnormals, huge values, cancellation, near-zero divisors: tests/fp_gen.h)
 * for lower-upper, which exercises every directed-rounding primitive; the
 * AXPY series for the compile-time-N kernels and the runtime-N one; and
 * sort-by-key. Exits 77 (skipped) without a GPU.
 */
#include <string.h>

#include "test_util.h"
#include "fp_gen.h"
#include "haze/fuzzy.h"
#ifdef HAZE_HAVE_CUDA
#include "fuzzy_dev.h"
#endif

static haze_ctx *cpu, *gpu;

static void fill(haze__rng *r, haze_fuzzy_array *a, int hard) {
    double lo[HAZE_FUZZY_MAX_CUTS], hi[HAZE_FUZZY_MAX_CUTS];
    for (size_t i = 0; i < haze_fuzzy_array_count(a); i++) {
        int n = haze_fuzzy_array_cut_count(a);
        if (hard && haze_fuzzy_array_encoding(a) == HAZE_FUZZY_LU) {
            /* raw bit patterns straight into storage: cut by cut, not nested */
            for (size_t k = 0; k < haze_fuzzy_array_stride(a); k += 2) {
                double x = haze_fuzzy_array_precision(a) ? fp_gen_float(r) : fp_gen_double(r);
                double y = haze_fuzzy_array_precision(a) ? fp_gen_partnerf(r, (float)x)
                                                         : fp_gen_partner(r, x);
                if (haze_fuzzy_array_precision(a)) {
                    ((float *)haze_fuzzy_array_data(a))[i * haze_fuzzy_array_stride(a) + k] =
                        (float)fmin(x, y);
                    ((float *)haze_fuzzy_array_data(a))[i * haze_fuzzy_array_stride(a) + k + 1] =
                        (float)fmax(x, y);
                } else {
                    ((double *)haze_fuzzy_array_data(a))[i * haze_fuzzy_array_stride(a) + k] =
                        fmin(x, y);
                    ((double *)haze_fuzzy_array_data(a))[i * haze_fuzzy_array_stride(a) + k + 1] =
                        fmax(x, y);
                }
            }
            continue;
        }
        double m = (haze__rng_uniform(r) - 0.5) * ldexp(1, (int)haze__rng_below(r, 40) - 20);
        double rho = 0, sc = fabs(m) * haze__rng_uniform(r) * (haze__rng_below(r, 4) ? 0.1 : 2);
        for (int k = 0; k < n; k++) {
            rho += sc * haze__rng_uniform(r) / n;
            lo[k] = m - rho, hi[k] = m + rho;
        }
        assert_int_equal(haze_fuzzy_set_cuts(cpu, a, i, lo, hi), HAZE_OK);
    }
}

static size_t bytes_of(const haze_fuzzy_array *a) {
    return haze_fuzzy_array_count(a) * haze_fuzzy_array_stride(a) *
           (haze_fuzzy_array_precision(a) ? sizeof(float) : sizeof(double));
}

static void test_ops(void **state) {
    (void)state;
    haze__rng rng;
    haze__rng_seed(&rng, 11);
    const size_t sizes[] = {1, 1000, 100000};
    const int cuts[] = {1, 3, 8, 32};
    for (int e = 0; e < 3; e++)
        for (int p = 0; p < 2; p++)
            for (int si = 0; si < 3; si++)
                for (int ci = 0; ci < 4; ci++) {
                    haze_fuzzy_array *a, *b, *c1, *c2;
                    size_t n = sizes[si];
                    int nc = cuts[ci];
                    haze_fuzzy_encoding enc = (haze_fuzzy_encoding)e;
                    haze_precision pr = (haze_precision)p;
                    assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &a), 0);
                    assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &b), 0);
                    assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &c1), 0);
                    assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &c2), 0);
                    fill(&rng, a, 1);
                    fill(&rng, b, 1);
                    for (int op = 0; op <= HAZE_FUZZY_SQRT; op++) {
                        int s1 = haze_fuzzy_op(cpu, (haze_fuzzy_opcode)op, a, b, NULL, c1);
                        int s2 = haze_fuzzy_op(gpu, (haze_fuzzy_opcode)op, a, b, NULL, c2);
                        assert_int_equal(s1, s2);
                        if (memcmp(haze_fuzzy_array_data(c1), haze_fuzzy_array_data(c2),
                                   bytes_of(c1)) != 0)
                            fail_msg("CPU and GPU differ: %s %s op %d n=%zu cuts=%d",
                                     haze_fuzzy_encoding_name(enc), p ? "float" : "double", op, n,
                                     nc);
                        if (s1 && strcmp(haze_ctx_errmsg(cpu), haze_ctx_errmsg(gpu)) != 0)
                            fail_msg("CPU and GPU statuses differ: '%s' and '%s'",
                                     haze_ctx_errmsg(cpu), haze_ctx_errmsg(gpu));
                        if (op != HAZE_FUZZY_DIV && op != HAZE_FUZZY_RECIP) continue;
                        /* the IEEE 1788 hull for divisors containing 0: same status and bits */
                        s1 =
                            haze_fuzzy_op(cpu, (haze_fuzzy_opcode)op, a, b,
                                          &(haze_fuzzy_op_options){
                                              .size = sizeof(haze_fuzzy_op_options), .div_hull = 1},
                                          c1);
                        s2 =
                            haze_fuzzy_op(gpu, (haze_fuzzy_opcode)op, a, b,
                                          &(haze_fuzzy_op_options){
                                              .size = sizeof(haze_fuzzy_op_options), .div_hull = 1},
                                          c2);
                        assert_int_equal(s1, s2);
                        assert_true(s1 == HAZE_OK || s1 == HAZE_ERR_RANGE);
                        if (memcmp(haze_fuzzy_array_data(c1), haze_fuzzy_array_data(c2),
                                   bytes_of(c1)) != 0)
                            fail_msg("CPU and GPU differ with the hull flag");
                    }
                    haze_fuzzy_array_free(a);
                    haze_fuzzy_array_free(b);
                    haze_fuzzy_array_free(c1);
                    haze_fuzzy_array_free(c2);
                }
}

static void test_axpy_sort(void **state) {
    (void)state;
    haze__rng rng;
    haze__rng_seed(&rng, 12);
    const int cuts[] = {1, 4, 16, 17, 32};
    for (int e = 0; e < 3; e++)
        for (int p = 0; p < 2; p++)
            for (int ci = 0; ci < 5; ci++) {
                haze_fuzzy_array *a, *b, *y1, *y2;
                size_t n = 5000;
                haze_fuzzy_encoding enc = (haze_fuzzy_encoding)e;
                haze_precision pr = (haze_precision)p;
                int nc = cuts[ci];
                assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &a), 0);
                assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, 1, NULL, &b), 0);
                assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &y1), 0);
                assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &y2), 0);
                fill(&rng, a, 0);
                fill(&rng, b, 0);
                assert_int_equal(haze_fuzzy_axpy(cpu, a, b, 50, y1), HAZE_OK);
                assert_int_equal(haze_fuzzy_axpy(gpu, a, b, 50, y2), HAZE_OK);
                if (memcmp(haze_fuzzy_array_data(y1), haze_fuzzy_array_data(y2), bytes_of(y1)) != 0)
                    fail_msg("axpy differs: %s %s cuts=%d", haze_fuzzy_encoding_name(enc),
                             p ? "float" : "double", nc);
#ifdef HAZE_HAVE_CUDA
                /* the structure-of-arrays kernel computes the same bits */
                double kt = -1;
                memset(haze_fuzzy_array_data(y2), 0, bytes_of(y2));
                assert_int_equal(haze_dev_fuzzy_axpy(gpu, a, b, 50, y2, 1, 2, &kt), HAZE_OK);
                assert_true(kt >= 0);
                if (memcmp(haze_fuzzy_array_data(y1), haze_fuzzy_array_data(y2), bytes_of(y1)) != 0)
                    fail_msg("SoA axpy differs: %s %s cuts=%d", haze_fuzzy_encoding_name(enc),
                             p ? "float" : "double", nc);
#endif
                uint32_t *k1 = malloc(n * 4), *k2 = malloc(n * 4);
                for (size_t i = 0; i < n; i++)
                    k1[i] = k2[i] = (uint32_t)haze__rng_next(&rng) >> (i % 3 ? 20 : 0);
                memcpy(haze_fuzzy_array_data(y2), haze_fuzzy_array_data(y1), bytes_of(y1));
                assert_int_equal(haze_fuzzy_sort_by_key(cpu, k1, y1), HAZE_OK);
#ifdef HAZE_HAVE_CUDA
                haze__sort_stats ss;
                assert_int_equal(haze_dev_fuzzy_sort(gpu, k2, y2, HAZE__SORT_AUTO, &ss), HAZE_OK);
                assert_true(ss.kernel_s >= 0);
                assert_int_equal(ss.passes, 4);
#else
                assert_int_equal(haze_fuzzy_sort_by_key(gpu, k2, y2), HAZE_OK);
#endif
                assert_memory_equal(k1, k2, n * 4);
                assert_memory_equal(haze_fuzzy_array_data(y1), haze_fuzzy_array_data(y2),
                                    bytes_of(y1));
                free(k1);
                free(k2);
                haze_fuzzy_array_free(a);
                haze_fuzzy_array_free(b);
                haze_fuzzy_array_free(y1);
                haze_fuzzy_array_free(y2);
            }
}

#ifdef HAZE_HAVE_CUDA
/* Keys for the sort test: kind 0 full 32-bit, 1 below 2^12 (few distinct,
 * many ties), 2 multiples of 2^16 (low bits constant), 3 all equal, 4 bits
 * 5..20 only (one middle range). */
static uint32_t sort_key(haze__rng *r, int kind) {
    uint32_t x = (uint32_t)haze__rng_next(r);
    switch (kind) {
    case 0:
        return x;
    case 1:
        return x >> 20;
    case 2:
        return x << 16;
    case 3:
        return 0x5a5a5a5au;
    default:
        return (x & 0xffff0u) << 1 | 0x80000001u;
    }
}
#endif

/*
 * Sort-by-key on the GPU, both methods (records as CUB values, and (key,
 * index) pairs + gather), against the CPU's LSD radix sort bit for bit, for
 * record sizes 8 to 136 bytes and key sets that narrow the sorted bit range.
 */
static void test_sort_methods(void **state) {
    (void)state;
#ifdef HAZE_HAVE_CUDA
    haze__rng rng;
    haze__rng_seed(&rng, 21);
    /* (encoding, precision, cuts): records of 8, 12, 16, 16, 24, 68, 136 bytes */
    const int cfg[][3] = {{HAZE_FUZZY_LU, 1, 1}, {HAZE_FUZZY_MR, 1, 2}, {HAZE_FUZZY_LU, 1, 2},
                          {HAZE_FUZZY_MR, 0, 1}, {HAZE_FUZZY_LU, 1, 3}, {HAZE_FUZZY_MR, 1, 16},
                          {HAZE_FUZZY_MI, 0, 16}};
    const size_t sizes[] = {2, 777, 70001};
    const int want_bits[] = {32, 12, 16, 0, 16};
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++)
        for (int kind = 0; kind < 5; kind++)
            for (int si = 0; si < 3; si++)
                for (int method = HAZE__SORT_GATHER; method <= HAZE__SORT_RECORDS; method++) {
                    size_t n = sizes[si];
                    haze_fuzzy_array *y1, *y2;
                    assert_int_equal(haze_fuzzy_array_new(cpu, (haze_fuzzy_encoding)cfg[c][0],
                                                          (haze_precision)cfg[c][1], cfg[c][2], n,
                                                          NULL, &y1),
                                     0);
                    assert_int_equal(haze_fuzzy_array_new(cpu, (haze_fuzzy_encoding)cfg[c][0],
                                                          (haze_precision)cfg[c][1], cfg[c][2], n,
                                                          NULL, &y2),
                                     0);
                    fill(&rng, y1, 0);
                    memcpy(haze_fuzzy_array_data(y2), haze_fuzzy_array_data(y1), bytes_of(y1));
                    uint32_t *k1 = malloc(n * 4), *k2 = malloc(n * 4);
                    for (size_t i = 0; i < n; i++) k1[i] = k2[i] = sort_key(&rng, kind);
                    assert_int_equal(haze_fuzzy_sort_by_key(cpu, k1, y1), HAZE_OK);
                    haze__sort_stats ss;
                    size_t per = bytes_of(y1) / n;
                    int st = haze_dev_fuzzy_sort(gpu, k2, y2, (haze__sort_method)method, &ss);
                    if (method == HAZE__SORT_RECORDS && per != 8 && per != 12 && per != 16) {
                        assert_int_equal(st, HAZE_ERR_UNSUPPORTED);
                    } else {
                        assert_int_equal(st, HAZE_OK);
                        assert_int_equal(ss.method, method);
                        /* the pre-pass found the bits that vary (exactly, for these sizes) */
                        if (n > 100) assert_int_equal(ss.end_bit - ss.begin_bit, want_bits[kind]);
                        assert_int_equal(ss.passes, (ss.end_bit - ss.begin_bit + 7) / 8);
                        if (memcmp(k1, k2, n * 4) != 0 ||
                            memcmp(haze_fuzzy_array_data(y1), haze_fuzzy_array_data(y2),
                                   bytes_of(y1)) != 0)
                            fail_msg("sort differs: %zu-byte numbers, keys %d, n %zu, method %d",
                                     per, kind, n, method);
                    }
                    free(k1);
                    free(k2);
                    haze_fuzzy_array_free(y1);
                    haze_fuzzy_array_free(y2);
                }
#endif
}

#ifdef HAZE_HAVE_CUDA
/* Device-resident arrays: op, axpy and sort on device arrays give the bits
 * of the same calls on host arrays; misuse is refused. */
static void test_device_arrays(void **state) {
    (void)state;
    haze__rng rng;
    haze__rng_seed(&rng, 13);
    const size_t sizes[] = {1, 777, 100000};
    for (int e = 0; e < 3; e++)
        for (int p = 0; p < 2; p++)
            for (int si = 0; si < 3; si++) {
                size_t n = sizes[si];
                int nc = si == 1 ? 8 : 3;
                haze_fuzzy_encoding enc = (haze_fuzzy_encoding)e;
                haze_precision pr = (haze_precision)p;
                haze_fuzzy_array *a, *b, *b1, *c1, *c2, *da, *db, *db1, *dc;
                assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &a), 0);
                assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &b), 0);
                assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, 1, NULL, &b1), 0);
                assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &c1), 0);
                assert_int_equal(haze_fuzzy_array_new(cpu, enc, pr, nc, n, NULL, &c2), 0);
                assert_int_equal(haze_fuzzy_array_new_device(gpu, enc, pr, nc, n, NULL, &da), 0);
                assert_int_equal(haze_fuzzy_array_new_device(gpu, enc, pr, nc, n, NULL, &db), 0);
                assert_int_equal(haze_fuzzy_array_new_device(gpu, enc, pr, nc, 1, NULL, &db1), 0);
                assert_int_equal(haze_fuzzy_array_new_device(gpu, enc, pr, nc, n, NULL, &dc), 0);
                assert_true(haze_fuzzy_array_on_device(da) && !haze_fuzzy_array_on_device(a));
                /* new device arrays hold crisp zeros, as host ones */
                assert_int_equal(haze_fuzzy_array_copy(gpu, c2, dc), HAZE_OK);
                assert_memory_equal(haze_fuzzy_array_data(c1), haze_fuzzy_array_data(c2),
                                    bytes_of(c1));
                fill(&rng, a, 1);
                fill(&rng, b, 1);
                fill(&rng, b1, 0);
                assert_int_equal(haze_fuzzy_array_copy(gpu, da, a), HAZE_OK);
                assert_int_equal(haze_fuzzy_array_copy(gpu, db, b), HAZE_OK);
                assert_int_equal(haze_fuzzy_array_copy(gpu, db1, b1), HAZE_OK);
                for (int op = 0; op <= HAZE_FUZZY_SQRT; op++) {
                    int s1 = haze_fuzzy_op(gpu, (haze_fuzzy_opcode)op, a, b, NULL, c1);
                    int s2 = haze_fuzzy_op(gpu, (haze_fuzzy_opcode)op, da, db, NULL, dc);
                    assert_int_equal(s1, s2);
                    assert_int_equal(haze_fuzzy_array_copy(gpu, c2, dc), HAZE_OK);
                    if (memcmp(haze_fuzzy_array_data(c1), haze_fuzzy_array_data(c2),
                               bytes_of(c1)) != 0)
                        fail_msg("device array op %d differs: %s %s n=%zu", op,
                                 haze_fuzzy_encoding_name(enc), p ? "float" : "double", n);
                }
                /* in place, with a broadcast operand */
                assert_int_equal(haze_fuzzy_op(gpu, HAZE_FUZZY_ADD, a, b1, NULL, c1), HAZE_OK);
                assert_int_equal(haze_fuzzy_array_copy(gpu, dc, da), HAZE_OK);
                assert_int_equal(haze_fuzzy_op(gpu, HAZE_FUZZY_ADD, dc, db1, NULL, dc), HAZE_OK);
                assert_int_equal(haze_fuzzy_array_copy(gpu, c2, dc), HAZE_OK);
                assert_memory_equal(haze_fuzzy_array_data(c1), haze_fuzzy_array_data(c2),
                                    bytes_of(c1));
                /* axpy */
                fill(&rng, a, 0);
                assert_int_equal(haze_fuzzy_array_copy(gpu, da, a), HAZE_OK);
                assert_int_equal(haze_fuzzy_axpy(gpu, a, b1, 20, c1), HAZE_OK);
                assert_int_equal(haze_fuzzy_axpy(gpu, da, db1, 20, dc), HAZE_OK);
                assert_int_equal(haze_fuzzy_array_copy(gpu, c2, dc), HAZE_OK);
                assert_memory_equal(haze_fuzzy_array_data(c1), haze_fuzzy_array_data(c2),
                                    bytes_of(c1));
                /* sort: keys in device memory too */
                uint32_t *k1 = malloc(n * 4), *k2 = malloc(n * 4);
                void *dk = NULL;
                for (size_t i = 0; i < n; i++) k1[i] = (uint32_t)haze__rng_next(&rng) >> (i % 7);
                assert_int_equal(haze_dev_fuzzy_alloc(gpu, n * 4, &dk), HAZE_OK);
                assert_int_equal(haze_dev_fuzzy_copy(gpu, dk, k1, n * 4), HAZE_OK);
                assert_int_equal(haze_fuzzy_sort_by_key(gpu, k1, c1), HAZE_OK);
                assert_int_equal(haze_fuzzy_sort_by_key(gpu, (uint32_t *)dk, dc), HAZE_OK);
                assert_int_equal(haze_dev_fuzzy_copy(gpu, k2, dk, n * 4), HAZE_OK);
                assert_int_equal(haze_fuzzy_array_copy(gpu, c2, dc), HAZE_OK);
                assert_memory_equal(k1, k2, n * 4);
                assert_memory_equal(haze_fuzzy_array_data(c1), haze_fuzzy_array_data(c2),
                                    bytes_of(c1));
                haze_dev_fuzzy_free(gpu, dk, n * 4);
                free(k1);
                free(k2);
                /* misuse */
                double lo = 0, hi = 0;
                assert_int_equal(haze_fuzzy_op(gpu, HAZE_FUZZY_ADD, da, b, NULL, dc),
                                 HAZE_ERR_MISMATCH);
                assert_int_equal(haze_fuzzy_op(cpu, HAZE_FUZZY_NEG, da, NULL, NULL, dc),
                                 HAZE_ERR_INVALID);
                assert_int_equal(haze_fuzzy_set_crisp(gpu, da, 0, 1, 2), HAZE_ERR_INVALID);
                assert_int_equal(haze_fuzzy_get_cut(gpu, da, 0, 0, &lo, &hi), HAZE_ERR_INVALID);
                assert_int_equal(haze_fuzzy_convert(gpu, da, c1), HAZE_ERR_INVALID);
                assert_int_equal(haze_fuzzy_array_copy(gpu, db1, da),
                                 n == 1 ? HAZE_OK : HAZE_ERR_MISMATCH);
                haze_fuzzy_array *arr[] = {a, b, b1, c1, c2, da, db, db1, dc};
                for (int q = 0; q < 9; q++) haze_fuzzy_array_free(arr[q]);
            }
}
#endif

#ifdef HAZE_HAVE_CUDA
/* Device arrays count against the context's device memory limit while they
 * live, give their bytes back when freed, and may outlive their context. */
static void test_device_array_limit(void **state) {
    (void)state;
    haze_ctx *g = haze_test_ctx(HAZE_BACKEND_CUDA);
    assert_int_equal(haze_ctx_set_device_memory_limit(g, 1 << 20), HAZE_OK);
    haze_fuzzy_array *x = NULL, *y = NULL;
    /* 10000 numbers of 4 cuts, lower-upper double: 640000 bytes */
    assert_int_equal(
        haze_fuzzy_array_new_device(g, HAZE_FUZZY_LU, HAZE_PRECISION_F64, 4, 10000, NULL, &x),
        HAZE_OK);
    assert_int_equal(
        haze_fuzzy_array_new_device(g, HAZE_FUZZY_LU, HAZE_PRECISION_F64, 4, 10000, NULL, &y),
        HAZE_ERR_NOMEM);
    assert_null(y);
    haze_fuzzy_array_free(x);
    assert_int_equal(
        haze_fuzzy_array_new_device(g, HAZE_FUZZY_LU, HAZE_PRECISION_F64, 4, 10000, NULL, &y),
        HAZE_OK);
    /* freed after its context */
    haze_ctx_free(g);
    haze_fuzzy_array_free(y);
}
#endif

int main(void) {
    haze_test_require_gpu();
    cpu = haze_test_ctx(HAZE_BACKEND_CPU);
    gpu = haze_test_ctx(HAZE_BACKEND_CUDA);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops),           cmocka_unit_test(test_axpy_sort),
        cmocka_unit_test(test_sort_methods),
#ifdef HAZE_HAVE_CUDA
        cmocka_unit_test(test_device_arrays), cmocka_unit_test(test_device_array_limit),
#endif
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    haze_ctx_free(cpu);
    haze_ctx_free(gpu);
    return rc;
}
