/*
 * tests/test_util.h - what the C tests share: cmocka, the GPU skip rule, a
 * context helper and a scratch folder.
 */
#ifndef HAZE_TEST_UTIL_H
#define HAZE_TEST_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "haze/haze.h"

/* n points of d features around k random centres in [0, 10]^d (point i
 * around centre i mod k, Gaussian noise of standard deviation `spread`),
 * malloc'd, seeded: the c-means tests' data. */
static inline double *haze_test_blobs_spread(size_t n, size_t d, size_t k, double spread,
                                             unsigned seed) {
    double *x = malloc(n * d * sizeof *x), *mu = malloc(k * d * sizeof *mu);
    srand(seed);
    for (size_t i = 0; i < k * d; i++) mu[i] = 10.0 * rand() / RAND_MAX;
    for (size_t i = 0; i < n; i++)
        for (size_t q = 0; q < d; q++) {
            double u1 = (rand() + 1.0) / (RAND_MAX + 2.0), u2 = (double)rand() / RAND_MAX;
            x[i * d + q] =
                mu[(i % k) * d + q] + spread * sqrt(-2 * log(u1)) * cos(6.283185307 * u2);
        }
    free(mu);
    return x;
}

/* The same with unit noise (1 * s is s: the same points as before the
 * spread was a parameter). */
static inline double *haze_test_blobs(size_t n, size_t d, size_t k, unsigned seed) {
    return haze_test_blobs_spread(n, d, k, 1.0, seed);
}

/* Exit code that CTest reads as "skipped". */
#define HAZE_TEST_SKIP 77

/* Call first in a GPU test's main(): exits 77 when no GPU can be used. */
static inline void haze_test_require_gpu(void) {
    if (!haze_build_has_cuda() || haze_device_count() == 0) {
        fprintf(stderr, "no CUDA device: skipping\n");
        exit(HAZE_TEST_SKIP);
    }
}

/* A context on the given backend; fails the test if it cannot be made. */
static inline haze_ctx *haze_test_ctx(haze_backend b) {
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = b;
    haze_ctx *ctx = NULL;
    int st = haze_ctx_new(&o, &ctx);
    if (st != HAZE_OK) fail_msg("haze_ctx_new(%s): %s", haze_backend_name(b), haze_ctx_errmsg(ctx));
    return ctx;
}

/* The group's scratch folder: made by haze_test_dir_setup and removed with
 * what it holds by haze_test_dir_teardown (pass them as the group's setup and
 * teardown). */
static inline char *haze_test_dir(void) {
    static char dir[64];
    return dir;
}

static inline int haze_test_dir_setup(void **state) {
    (void)state;
    strcpy(haze_test_dir(), "/tmp/haze-test-XXXXXX");
    return mkdtemp(haze_test_dir()) ? 0 : -1;
}

static inline int haze_test_dir_teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", haze_test_dir());
    return system(cmd) == 0 ? 0 : -1;
}

/* The path of `name` in the scratch folder (the last four stay valid). */
static inline const char *haze_test_path(const char *name) {
    static char path[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", haze_test_dir(), name);
    return path[k];
}

/* Writes `text` to `name` in the scratch folder; returns its path. */
static inline const char *haze_test_write(const char *name, const char *text) {
    const char *p = haze_test_path(name);
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    return p;
}

/* HAZE_TEST_ONLY="test_a,test_b": runs only those tests of the group (the
 * quick mode of scripts/gpu-check.sh's compute-sanitizer runs). */
static inline int haze__test_group(const char *group, const struct CMUnitTest *tests, size_t n,
                                   CMFixtureFunction setup, CMFixtureFunction teardown) {
    const char *only = getenv("HAZE_TEST_ONLY");
    if (!only || !*only) return _cmocka_run_group_tests(group, tests, n, setup, teardown);
    struct CMUnitTest *sel = (struct CMUnitTest *)malloc(n * sizeof *sel);
    size_t k = 0;
    for (size_t i = 0; sel && i < n; i++) {
        size_t len = strlen(tests[i].name);
        for (const char *p = only; *p; p += strcspn(p, ",")) {
            if (*p == ',') p++;
            if (strncmp(p, tests[i].name, len) == 0 && (p[len] == ',' || p[len] == 0)) {
                sel[k++] = tests[i];
                break;
            }
        }
    }
    int rc = sel && k ? _cmocka_run_group_tests(group, sel, k, setup, teardown) : 0;
    free(sel);
    return rc;
}
/* HAZE_TEST_PART="k/n" (1 <= k <= n): a long test does only every n-th of
 * its cases, starting with the k-th, so that n runs together do all of them
 * (scripts/gpu-check.sh splits the slowest racecheck runs this way). A test
 * numbers its cases in order and asks for each; without the variable every
 * case is this run's. */
static inline int haze_test_part_mine(size_t i) {
    const char *p = getenv("HAZE_TEST_PART");
    unsigned k, n;
    if (!p || sscanf(p, "%u/%u", &k, &n) != 2 || n == 0 || k == 0 || k > n) return 1;
    return i % n == k - 1;
}

#undef cmocka_run_group_tests
#define cmocka_run_group_tests(tests, setup, teardown)                                             \
    haze__test_group(#tests, tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)

#endif
