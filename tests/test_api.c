/*
 * tests/test_api.c - the rules of the public API (haze/core.h): options and
 * records that carry their size (an older, smaller struct keeps working; an
 * uninitialised one and a field this library does not know are refused), the
 * opaque handles and their accessors, and a context message from the calls
 * that gained a context.
 */
#include <math.h>

#include "test_util.h"

/* A caller built against an older header: the options end before `seed`. */
typedef struct old_fcm_options {
    size_t size;
    int clusters;
    double m;
} old_fcm_options;

static const double blob[] = {0, 0, 0.1, 0, 0, 0.1, 5, 5, 5.1, 5, 5, 5.1};

static void test_options_size(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fcm_result *r = NULL;
    /* never initialised: size 0 is refused, with a message saying how */
    haze_fcm_options zero;
    memset(&zero, 0, sizeof zero);
    zero.clusters = 2;
    assert_int_equal(haze_fcm_fit(ctx, blob, HAZE_PRECISION_F64, 6, 2, &zero, &r),
                     HAZE_ERR_INVALID);
    assert_null(r);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "haze_fcm_options_default"));
    /* older and smaller: its fields are taken, the library's defaults for the rest */
    old_fcm_options old;
    assert_int_equal(haze_fcm_options_init((haze_fcm_options *)&old, sizeof old), HAZE_OK);
    assert_int_equal(old.size, sizeof old);
    assert_true(old.m == 2.0);
    old.clusters = 2;
    assert_int_equal(
        haze_fcm_fit(ctx, blob, HAZE_PRECISION_F64, 6, 2, (const haze_fcm_options *)&old, &r),
        HAZE_OK);
    assert_int_equal(haze_fcm_result_cluster_count(r), 2);
    assert_int_equal(haze_fcm_result_feature_count(r), 2);
    assert_int_equal(haze_fcm_result_point_count(r), 6);
    haze_fcm_result_free(r);
    /* newer and larger: zeros past the end are fine, a set field is refused */
    struct {
        haze_fcm_options o;
        double future;
    } big;
    memset(&big, 0, sizeof big);
    haze_fcm_options_init(&big.o, sizeof big);
    assert_int_equal(big.o.size, sizeof big);
    big.o.clusters = 2;
    assert_int_equal(haze_fcm_fit(ctx, blob, HAZE_PRECISION_F64, 6, 2, &big.o, &r), HAZE_OK);
    haze_fcm_result_free(r);
    big.future = 1;
    assert_int_equal(haze_fcm_fit(ctx, blob, HAZE_PRECISION_F64, 6, 2, &big.o, &r),
                     HAZE_ERR_UNSUPPORTED);
    assert_null(r);
    /* the same rule for every options struct */
    assert_int_equal(haze_ctx_options_init(NULL, sizeof(haze_ctx_options)), HAZE_ERR_INVALID);
    assert_int_equal(haze_table_options_init(&(haze_table_options){0}, 2), HAZE_ERR_INVALID);
    haze_edge *e = NULL;
    assert_int_equal(haze_edge_new(ctx, &(haze_edge_options){0}, &e), HAZE_ERR_INVALID);
    assert_null(e);
    haze_edge_options eo = haze_edge_options_default();
    assert_int_equal(eo.spread, 64);
    assert_int_equal(haze_edge_new(ctx, &eo, &e), HAZE_OK);
    haze_edge_free(e);
    haze_ctx_free(ctx);
}

/* Records the library fills in: no more than the caller's size is written. */
static void test_record_size(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fis *fis = NULL;
    const char *text = "[System]\nName='t'\nType='mamdani'\nNumInputs=1\nNumOutputs=1\n"
                       "NumRules=1\n[Input1]\nName='x'\nRange=[0 1]\nNumMFs=1\n"
                       "MF1='a':'trimf',[0 0.5 1]\n[Output1]\nName='y'\nRange=[0 1]\n"
                       "NumMFs=1\nMF1='b':'trimf',[0 0.5 1]\n[Rules]\n1, 1 (1) : 1\n";
    assert_int_equal(haze_fis_parse(ctx, text, "t", &fis), HAZE_OK);
    double in[2] = {-1, 0.5}, out[2];
    struct {
        size_t size;
        size_t clamped;
        size_t guard;
    } small = {offsetof(haze_fis_stats, no_rule), 0, 12345};
    assert_int_equal(haze_fis_eval(ctx, fis, in, 2, out, (haze_fis_stats *)&small), HAZE_OK);
    assert_int_equal(small.clamped, 1);
    assert_int_equal(small.guard, 12345); /* no_rule was not written */
    haze_fis_stats st = haze_fis_stats_init();
    assert_int_equal(haze_fis_eval(ctx, fis, in, 2, out, &st), HAZE_OK);
    assert_int_equal(st.size, sizeof st);
    assert_int_equal(st.clamped, 1);
    haze_fis_stats bad;
    memset(&bad, 0, sizeof bad);
    assert_int_equal(haze_fis_eval(ctx, fis, in, 2, out, &bad), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "haze_fis_stats_init"));
    haze_fis_free(fis);
    haze_ctx_free(ctx);
}

/* The calls that gained a context say why they failed. */
static void test_context_messages(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_backend b;
    assert_int_equal(haze_backend_parse(ctx, "tpu", &b), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "tpu"));
    assert_int_equal(haze_backend_parse(NULL, "tpu", &b), HAZE_ERR_INVALID); /* ctx may be NULL */
    haze_fuzzy_encoding enc;
    assert_int_equal(haze_fuzzy_encoding_parse(ctx, "xy", &enc), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "'xy'"));
    haze_prec_engine pe;
    assert_int_equal(haze_prec_engine_parse(ctx, "qq", &pe), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "'qq'"));
    int lab[2];
    double u[4] = {0.2, 0.8, 0.9, 0.1};
    assert_int_equal(haze_fcm_labels(ctx, u, 2, 0, lab), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "no clusters"));
    assert_int_equal(haze_fcm_labels(ctx, u, 2, 2, lab), HAZE_OK);
    assert_true(lab[0] == 1 && lab[1] == 0);
    haze_fuzzy_array *a = NULL;
    assert_int_equal(haze_fuzzy_array_new(ctx, HAZE_FUZZY_LU, HAZE_PRECISION_F32, 3, 2, NULL, &a),
                     HAZE_OK);
    double lo, hi;
    assert_int_equal(haze_fuzzy_get_cut(ctx, a, 2, 0, &lo, &hi), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "number 2"));
    assert_int_equal(haze_fuzzy_array_count(a), 2);
    assert_int_equal(haze_fuzzy_array_cut_count(a), 3);
    assert_int_equal(haze_fuzzy_array_stride(a), 6);
    assert_int_equal(haze_fuzzy_array_precision(a), HAZE_PRECISION_F32);
    assert_int_equal(haze_fuzzy_array_encoding(a), HAZE_FUZZY_LU);
    assert_true(haze_fuzzy_array_alphas(a)[0] == 1.0);
    assert_false(haze_fuzzy_array_on_device(a));
    assert_non_null(haze_fuzzy_array_data(a));
    haze_fuzzy_array_free(a);
    haze_ctx_free(ctx);
}

/* A model made from centres predicts as the fit that found them. */
static void test_fcm_model(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 2;
    o.want_memberships = 1;
    haze_fcm_result *r = NULL, *model = NULL;
    assert_int_equal(haze_fcm_fit(ctx, blob, HAZE_PRECISION_F64, 6, 2, &o, &r), HAZE_OK);
    assert_int_equal(haze_fcm_result_new(ctx, 2, 2, haze_fcm_result_centres(r),
                                         haze_fcm_result_fuzzifier(r), NULL, &model),
                     HAZE_OK);
    assert_int_equal(haze_fcm_result_metric(model), HAZE_FCM_EUCLIDEAN);
    assert_null(haze_fcm_result_memberships(model));
    double u[12];
    assert_int_equal(haze_fcm_predict(ctx, model, blob, 6, 2, HAZE_PRECISION_F64, u), HAZE_OK);
    for (int i = 0; i < 12; i++) assert_true(fabs(u[i] - haze_fcm_result_memberships(r)[i]) < 1e-6);
    assert_int_equal(haze_fcm_predict(ctx, model, blob, 6, 2, (haze_precision)5, u),
                     HAZE_ERR_INVALID);
    haze_fcm_result_free(model);
    haze_fcm_result_free(r);
    assert_int_equal(haze_fcm_result_new(ctx, 2, 2, NULL, 2, NULL, &model), HAZE_ERR_INVALID);
    assert_null(model);
    haze_ctx_free(ctx);
}

/* An output file handle: written whole, freed by commit and abort. */
static void test_outfile_handle(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_outfile *f = NULL;
    const char *path = haze_test_path("handle.csv");
    assert_int_equal(haze_outfile_open(ctx, path, &f), HAZE_OK);
    fputs("1,2\n", haze_outfile_stream(f));
    assert_int_equal(haze_outfile_commit(ctx, &f), HAZE_OK);
    assert_null(f);
    haze_outfile_abort(&f); /* after a commit: a no-op */
    haze_table *t = NULL;
    haze_table_options to = haze_table_options_default();
    to.header = 0;
    assert_int_equal(haze_table_read(ctx, path, &to, &t), HAZE_OK);
    assert_int_equal(haze_table_row_count(t), 1);
    assert_int_equal(haze_table_column_count(t), 2);
    assert_true(haze_table_data(t)[1] == 2);
    assert_null(haze_table_names(t));
    assert_int_equal(haze_table_text_column(t), -1);
    assert_null(haze_table_text_lines(t));
    haze_table_free(t);
    float xf[2] = {0.5f, 1.5f};
    assert_int_equal(haze_table_write(ctx, path, xf, HAZE_PRECISION_F32, 1, 2, NULL), HAZE_OK);
    assert_int_equal(haze_table_write(ctx, path, xf, (haze_precision)9, 1, 2, NULL),
                     HAZE_ERR_INVALID);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_size),
        cmocka_unit_test(test_record_size),
        cmocka_unit_test(test_context_messages),
        cmocka_unit_test(test_fcm_model),
        cmocka_unit_test_setup_teardown(test_outfile_handle, haze_test_dir_setup,
                                        haze_test_dir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
