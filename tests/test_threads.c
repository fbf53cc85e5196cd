/*
 * tests/test_threads.c - the threading rule of core.h: threads share one
 * context and read-only objects (a model, a script, a clustering) and each
 * computes what one thread alone computes. Run under ThreadSanitizer by
 * `scripts/test.sh --tsan`, which reports any data race between them.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

enum { THREADS = 4, ROUNDS = 3, ROWS = 64 };

typedef struct shared {
    haze_ctx *ctx;
    haze_fis *fis;
    haze_prec_script *script;
    haze_fcm_result *fcm;
    double in[ROWS * 2], fis_ref[ROWS], prec_lo, prec_hi, fcm_ref[ROWS * 3];
} shared;

typedef struct worker {
    shared *sh;
    int wrong;
} worker;

static void *work(void *p) {
    worker *w = p;
    shared *sh = w->sh;
    for (int r = 0; r < ROUNDS; r++) {
        double out[ROWS], u[ROWS * 3];
        if (haze_fis_eval(sh->ctx, sh->fis, sh->in, ROWS, out, NULL) ||
            memcmp(out, sh->fis_ref, sizeof out))
            w->wrong++;
        haze_prec_result *res = NULL;
        if (haze_prec_analyse(sh->ctx, sh->script, HAZE_PREC_IA, &res) ||
            haze_prec_result_goal(res, 0)->lo != sh->prec_lo ||
            haze_prec_result_goal(res, 0)->hi != sh->prec_hi)
            w->wrong++;
        haze_prec_result_free(res);
        if (haze_fcm_predict(sh->ctx, sh->fcm, sh->in, ROWS, 2, HAZE_PRECISION_F64, u) ||
            memcmp(u, sh->fcm_ref, sizeof u))
            w->wrong++;
        double lo, hi;
        if (haze_fuzzy_parse_number(NULL, "0.1", NULL, &lo, &hi) || !(lo < hi)) w->wrong++;
    }
    return NULL;
}

static void test_shared_objects(void **state) {
    (void)state;
    shared sh;
    memset(&sh, 0, sizeof sh);
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    o.threads = 1;
    assert_int_equal(haze_ctx_new(&o, &sh.ctx), HAZE_OK);
    assert_int_equal(haze_fis_load(sh.ctx, HAZE_SOURCE_DIR "/data/tipper.fis", &sh.fis), HAZE_OK);
    assert_int_equal(haze_prec_parse(sh.ctx,
                                     "y = x * x - x;\nyr float<ieee_32,ne> = x * x - x;\n"
                                     "{ x in [0.5, 2] -> yr - y in ? }",
                                     "t.g", NULL, &sh.script),
                     HAZE_OK);
    for (int i = 0; i < ROWS; i++) {
        sh.in[2 * i] = 10.0 * i / ROWS;
        sh.in[2 * i + 1] = 10.0 - 10.0 * i / ROWS;
    }
    haze_fcm_options fo = haze_fcm_options_default();
    fo.clusters = 3;
    fo.seed = 1;
    assert_int_equal(haze_fcm_fit(sh.ctx, sh.in, HAZE_PRECISION_F64, ROWS, 2, &fo, &sh.fcm),
                     HAZE_OK);
    /* what one thread computes */
    assert_int_equal(haze_fis_eval(sh.ctx, sh.fis, sh.in, ROWS, sh.fis_ref, NULL), HAZE_OK);
    haze_prec_result *res = NULL;
    assert_int_equal(haze_prec_analyse(sh.ctx, sh.script, HAZE_PREC_IA, &res), HAZE_OK);
    sh.prec_lo = haze_prec_result_goal(res, 0)->lo;
    sh.prec_hi = haze_prec_result_goal(res, 0)->hi;
    haze_prec_result_free(res);
    assert_int_equal(
        haze_fcm_predict(sh.ctx, sh.fcm, sh.in, ROWS, 2, HAZE_PRECISION_F64, sh.fcm_ref), HAZE_OK);

    pthread_t th[THREADS];
    worker w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (worker){&sh, 0};
        assert_int_equal(pthread_create(&th[t], NULL, work, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(th[t], NULL), 0);
        assert_int_equal(w[t].wrong, 0);
    }
    haze_fcm_result_free(sh.fcm);
    haze_prec_free(sh.script);
    haze_fis_free(sh.fis);
    haze_ctx_free(sh.ctx);
}

/* Threads sharing a context write the files of its open output group at
 * once (haze edge writes a batch's frames so): named in advance or not, each
 * file lands at the group's commit with what its thread wrote. */
enum { FILES = 6 };

typedef struct writer {
    haze_ctx *ctx;
    int t, wrong;
} writer;

static void *write_files(void *p) {
    writer *w = p;
    for (int k = 0; k < FILES; k++) {
        char path[600]; /* (haze_test_path's buffers are not the threads' to share) */
        snprintf(path, sizeof path, "%s/g%d_%d.csv", haze_test_dir(), w->t, k);
        double v[2] = {w->t, k};
        if (haze_table_write(w->ctx, path, v, HAZE_PRECISION_F64, 1, 2, NULL)) w->wrong++;
    }
    return NULL;
}

static void test_shared_output_group(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    assert_int_equal(haze_outgroup_begin(ctx), HAZE_OK);
    for (int t = 0; t < THREADS; t += 2) /* half the files named in advance */
        for (int k = 0; k < FILES; k++) {
            char path[64];
            snprintf(path, sizeof path, "g%d_%d.csv", t, k);
            assert_int_equal(haze_outgroup_add(ctx, haze_test_path(path)), HAZE_OK);
        }
    pthread_t th[THREADS];
    writer w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (writer){ctx, t, 0};
        assert_int_equal(pthread_create(&th[t], NULL, write_files, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(th[t], NULL), 0);
        assert_int_equal(w[t].wrong, 0);
    }
    char path[64];
    snprintf(path, sizeof path, "g%d_%d.csv", 1, 0);
    assert_int_not_equal(access(haze_test_path(path), F_OK), 0); /* nothing before the commit */
    assert_int_equal(haze_outgroup_commit(ctx), HAZE_OK);
    for (int t = 0; t < THREADS; t++)
        for (int k = 0; k < FILES; k++) {
            snprintf(path, sizeof path, "g%d_%d.csv", t, k);
            char *text = NULL, want[64];
            size_t len = 0;
            assert_int_equal(haze_io_read_file(ctx, haze_test_path(path), &text, &len), HAZE_OK);
            snprintf(want, sizeof want, "%d,%d\n", t, k);
            assert_string_equal(text, want);
            free(text);
        }
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_objects),
        cmocka_unit_test(test_shared_output_group),
    };
    return cmocka_run_group_tests(tests, haze_test_dir_setup, haze_test_dir_teardown);
}
