/*
 * tests/test_fnn_fis.c - round trip of the SONFIN .fis export through haze's
 * own fuzzy inference engine: a trained network (tests/data/fnn/golden.model)
 * is exported, loaded with haze_fis_load and evaluated with haze_fis_eval;
 * the outputs must equal the network's own predictions. Built only when the
 * fis module is present (tests/CMakeLists.txt).
 */
#include <math.h>
#include <unistd.h>

#include "haze/fis.h"
#include "test_util.h"

static void test_fis_round_trip(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fnn *net;
    assert_int_equal(haze_fnn_load(ctx, HAZE_TEST_DATA "/fnn/golden.model", &net), HAZE_OK);
    haze_table *in;
    assert_int_equal(haze_table_read(ctx, HAZE_TEST_DATA "/fnn/golden-inputs.csv", NULL, &in),
                     HAZE_OK);
    size_t n = haze_table_row_count(in), L = haze_fnn_output_count(net);
    char path[] = "/tmp/haze-fnn-rt-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(haze_fnn_export_fis(ctx, net, path), HAZE_OK);
    haze_fis *fis = NULL;
    int st = haze_fis_load(ctx, path, &fis);
    if (st) fail_msg("haze_fis_load: %s", haze_ctx_errmsg(ctx));
    double *a = malloc(n * L * sizeof *a), *b = malloc(n * L * sizeof *b);
    assert_int_equal(haze_fnn_predict(ctx, net, haze_table_data(in), n, a), HAZE_OK);
    st = haze_fis_eval(ctx, fis, haze_table_data(in), n, b, NULL);
    if (st) fail_msg("haze_fis_eval: %s", haze_ctx_errmsg(ctx));
    for (size_t i = 0; i < n * L; i++)
        if (fabs(a[i] - b[i]) > 1e-9 * fmax(1.0, fabs(a[i])))
            fail_msg("sample %zu output %zu: fnn %.17g, fis %.17g", i / L, i % L, a[i], b[i]);
    free(a), free(b);
    remove(path);
    haze_fis_free(fis);
    haze_table_free(in);
    haze_fnn_free(net);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fis_round_trip)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
