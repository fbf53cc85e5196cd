/*
 * tests/test_core.c - status strings, version, backend selection, the
 * HAZE_BACKEND override and the CPU fallback; threads sharing a context
 * each read their own last error.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static int have_gpu(void) {
    return haze_build_has_cuda() && haze_device_count() > 0;
}

static void test_status_strings(void **state) {
    (void)state;
    assert_string_equal(haze_status_message(HAZE_OK), "success");
    assert_string_equal(haze_status_name(HAZE_ERR_PARSE), "ERR_PARSE");
    assert_string_equal(haze_status_message(12345), "unknown status");
    assert_string_equal(haze_status_name(12345), "UNKNOWN");
    /* every code has its own non-empty message */
    const int codes[] = {
#define X(name, value, msg) value,
        HAZE_STATUS_MAP(X)
#undef X
    };
    size_t n = sizeof codes / sizeof *codes;
    for (size_t i = 0; i < n; i++) {
        assert_true(strlen(haze_status_message(codes[i])) > 0);
        assert_true(codes[i] <= 0);
        for (size_t j = 0; j < i; j++) {
            assert_int_not_equal(codes[i], codes[j]);
            assert_string_not_equal(haze_status_message(codes[i]), haze_status_message(codes[j]));
        }
    }
}

static void test_version(void **state) {
    (void)state;
    assert_string_equal(haze_version(), HAZE_VERSION_STRING);
    char buf[64];
    snprintf(buf, sizeof buf, "%d.%d.%d", HAZE_VERSION_MAJOR, HAZE_VERSION_MINOR,
             HAZE_VERSION_PATCH);
    assert_string_equal(buf, haze_version());
    assert_int_equal(haze_build_has_cuda(), HAZE_WITH_CUDA);
}

static void test_backend_parse(void **state) {
    (void)state;
    haze_backend b;
    assert_int_equal(haze_backend_parse(NULL, "cpu", &b), HAZE_OK);
    assert_int_equal(b, HAZE_BACKEND_CPU);
    assert_int_equal(haze_backend_parse(NULL, "CUDA", &b), HAZE_OK);
    assert_int_equal(b, HAZE_BACKEND_CUDA);
    assert_int_equal(haze_backend_parse(NULL, "gpu", &b), HAZE_OK);
    assert_int_equal(b, HAZE_BACKEND_CUDA);
    assert_int_equal(haze_backend_parse(NULL, "Auto", &b), HAZE_OK);
    assert_int_equal(b, HAZE_BACKEND_AUTO);
    assert_int_equal(haze_backend_parse(NULL, "tpu", &b), HAZE_ERR_INVALID);
    assert_int_equal(haze_backend_parse(NULL, NULL, &b), HAZE_ERR_INVALID);
    assert_string_equal(haze_backend_name(HAZE_BACKEND_CUDA), "cuda");
}

static void test_ctx_default(void **state) {
    (void)state;
    unsetenv("HAZE_BACKEND");
    haze_ctx *ctx = NULL;
    assert_int_equal(haze_ctx_new(NULL, &ctx), HAZE_OK);
    assert_non_null(ctx);
    /* AUTO: the GPU when there is one, else a clean fallback to the CPU */
    assert_int_equal(haze_ctx_backend(ctx), have_gpu() ? HAZE_BACKEND_CUDA : HAZE_BACKEND_CPU);
    assert_true(haze_ctx_threads(ctx) >= 1);
    assert_string_equal(haze_ctx_errmsg(ctx), "");
    assert_int_equal(haze_ctx_errcode(ctx), HAZE_OK);
    haze_ctx_free(ctx);
    haze_ctx_free(NULL); /* no-op */
}

static void test_ctx_cpu_and_threads(void **state) {
    (void)state;
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    o.threads = 3;
    haze_ctx *ctx;
    assert_int_equal(haze_ctx_new(&o, &ctx), HAZE_OK);
    assert_int_equal(haze_ctx_backend(ctx), HAZE_BACKEND_CPU);
    assert_int_equal(haze_ctx_threads(ctx), 3);
    assert_int_equal(haze_ctx_set_threads(ctx, 0), HAZE_OK);
    assert_int_equal(haze_ctx_threads(ctx), haze_ctx_default_threads());
    assert_int_equal(haze_ctx_set_threads(ctx, -2), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "threads"));
    haze_ctx_clear_error(ctx);
    assert_string_equal(haze_ctx_errmsg(ctx), "");
    assert_int_equal(haze_ctx_set_device_memory_limit(ctx, 1 << 20), HAZE_OK);
    assert_int_equal(haze_ctx_device_memory_limit(ctx), 1 << 20);
    haze_ctx_free(ctx);

    o.threads = -1;
    assert_int_equal(haze_ctx_new(&o, &ctx), HAZE_ERR_INVALID);
    haze_ctx_free(ctx);
}

static void test_cuda_request(void **state) {
    (void)state;
    unsetenv("HAZE_BACKEND");
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CUDA;
    haze_ctx *ctx = NULL;
    int st = haze_ctx_new(&o, &ctx);
    if (have_gpu()) {
        assert_int_equal(st, HAZE_OK);
        assert_int_equal(haze_ctx_backend(ctx), HAZE_BACKEND_CUDA);
    } else {
        /* an explicit request that cannot be met is an error, never a fallback */
        assert_int_equal(st, HAZE_ERR_NODEVICE);
        assert_non_null(ctx);
        assert_non_null(strstr(haze_ctx_errmsg(ctx), "cuda"));
    }
    haze_ctx_free(ctx);

    o.device = 4096; /* no machine has this one */
    assert_int_equal(haze_ctx_new(&o, &ctx), HAZE_ERR_NODEVICE);
    assert_true(strlen(haze_ctx_errmsg(ctx)) > 0);
    haze_ctx_free(ctx);
}

static void test_env_override(void **state) {
    (void)state;
    haze_ctx *ctx;
    /* HAZE_BACKEND replaces an AUTO request */
    setenv("HAZE_BACKEND", "cpu", 1);
    assert_int_equal(haze_ctx_new(NULL, &ctx), HAZE_OK);
    assert_int_equal(haze_ctx_backend(ctx), HAZE_BACKEND_CPU);
    haze_ctx_free(ctx);

    setenv("HAZE_BACKEND", "cuda", 1);
    int st = haze_ctx_new(NULL, &ctx);
    if (have_gpu()) {
        assert_int_equal(st, HAZE_OK);
        assert_int_equal(haze_ctx_backend(ctx), HAZE_BACKEND_CUDA);
    } else {
        assert_int_equal(st, HAZE_ERR_NODEVICE);
        assert_non_null(strstr(haze_ctx_errmsg(ctx), "HAZE_BACKEND"));
    }
    haze_ctx_free(ctx);

    /* ... but not a program's explicit choice */
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    assert_int_equal(haze_ctx_new(&o, &ctx), HAZE_OK);
    assert_int_equal(haze_ctx_backend(ctx), HAZE_BACKEND_CPU);
    haze_ctx_free(ctx);

    setenv("HAZE_BACKEND", "quantum", 1);
    assert_int_equal(haze_ctx_new(NULL, &ctx), HAZE_ERR_INVALID);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "quantum"));
    haze_ctx_free(ctx);
    unsetenv("HAZE_BACKEND");

    setenv("HAZE_THREADS", "2", 1);
    assert_int_equal(haze_ctx_default_threads(), 2);
    unsetenv("HAZE_THREADS");
}

static void test_device_query(void **state) {
    (void)state;
    haze_device_info di = haze_device_info_init();
    if (!have_gpu()) {
        assert_int_equal(haze_device_query(NULL, 0, &di), HAZE_ERR_NODEVICE);
        assert_int_equal(haze_device_count(), 0);
    }
    assert_int_equal(haze_device_query(NULL, -1, &di), HAZE_ERR_NODEVICE);
    assert_int_equal(haze_device_query(NULL, 0, NULL), HAZE_ERR_INVALID);
}

/* Threads sharing one context, each raising its own errors: every thread
 * must read back its own message and code, never another's. */
enum { SHARE_THREADS = 8, SHARE_CALLS = 2000 };

typedef struct share_arg {
    haze_ctx *ctx;
    int id;
    int wrong;
} share_arg;

static void *share_worker(void *p) {
    share_arg *a = p;
    char want[128], name[32];
    for (int i = 0; i < SHARE_CALLS; i++) {
        int st, code;
        if ((a->id + i) % 2) {
            int n = -(a->id * 100000 + i + 1);
            st = haze_ctx_set_threads(a->ctx, n);
            snprintf(want, sizeof want, "threads must be >= 0, got %d", n);
            code = HAZE_ERR_INVALID;
        } else {
            /* a parse error naming this thread's script */
            snprintf(name, sizeof name, "t%d_%d", a->id, i);
            haze_prec_script *sc = NULL;
            st = haze_prec_parse(a->ctx, "x = ;", name, NULL, &sc);
            haze_prec_free(sc);
            snprintf(want, sizeof want, "%s:", name);
            code = HAZE_ERR_PARSE;
        }
        const char *msg = haze_ctx_errmsg(a->ctx);
        if (st != code || haze_ctx_errcode(a->ctx) != code || strncmp(msg, want, strlen(want)))
            a->wrong++;
        if (i % 100 == 99) {
            haze_ctx_clear_error(a->ctx);
            if (haze_ctx_errcode(a->ctx) != HAZE_OK || haze_ctx_errmsg(a->ctx)[0]) a->wrong++;
        }
    }
    return NULL;
}

static void test_shared_ctx_errors(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    pthread_t th[SHARE_THREADS];
    share_arg arg[SHARE_THREADS];
    for (int t = 0; t < SHARE_THREADS; t++) {
        arg[t] = (share_arg){ctx, t, 0};
        assert_int_equal(pthread_create(&th[t], NULL, share_worker, &arg[t]), 0);
    }
    for (int t = 0; t < SHARE_THREADS; t++) {
        assert_int_equal(pthread_join(th[t], NULL), 0);
        assert_int_equal(arg[t].wrong, 0);
    }
    /* this thread raised nothing in the context */
    assert_int_equal(haze_ctx_errcode(ctx), HAZE_OK);
    assert_string_equal(haze_ctx_errmsg(ctx), "");
    haze_ctx_free(ctx);
}

/* A freed context's message never shows in a new one (even at the same
 * address); a thread keeps the messages of several contexts apart. */
static void test_error_per_context(void **state) {
    (void)state;
    haze_ctx *a = haze_test_ctx(HAZE_BACKEND_CPU), *b = haze_test_ctx(HAZE_BACKEND_CPU);
    assert_int_equal(haze_ctx_set_threads(a, -1), HAZE_ERR_INVALID);
    assert_int_equal(haze_ctx_set_threads(b, -2), HAZE_ERR_INVALID);
    assert_string_equal(haze_ctx_errmsg(a), "threads must be >= 0, got -1");
    assert_string_equal(haze_ctx_errmsg(b), "threads must be >= 0, got -2");
    haze_ctx_free(a);
    a = haze_test_ctx(HAZE_BACKEND_CPU);
    assert_string_equal(haze_ctx_errmsg(a), "");
    assert_int_equal(haze_ctx_errcode(a), HAZE_OK);
    assert_string_equal(haze_ctx_errmsg(b), "threads must be >= 0, got -2");
    haze_ctx_free(a);
    haze_ctx_free(b);
}

/* A set of devices (haze_ctx_options.devices, device_count): the checks
 * that need no GPU, and what a context of one device or of the CPU says of
 * its devices. */
static void set_refused(const haze_ctx_options *o, int want, const char *says) {
    haze_ctx *ctx = NULL;
    assert_int_equal(haze_ctx_new(o, &ctx), want);
    assert_non_null(ctx);
    if (!strstr(haze_ctx_errmsg(ctx), says))
        fail_msg("message '%s' does not say '%s'", haze_ctx_errmsg(ctx), says);
    haze_ctx_free(ctx);
}

static void test_device_set(void **state) {
    (void)state;
    unsetenv("HAZE_BACKEND");
    haze_ctx_options o = haze_ctx_options_default();
    assert_null(o.devices);
    assert_int_equal(o.device_count, 0);
    /* on the CPU backend: refused, saying why */
    o.backend = HAZE_BACKEND_CPU;
    o.device_count = 2;
    set_refused(&o, HAZE_ERR_INVALID, "needs the CUDA backend");
    /* the arguments are checked before the host is asked */
    const int twice[] = {0, 1, 0}, negative[] = {0, -3}, far[] = {4000, 0};
    for (int b = 0; b < 2; b++) {
        o.backend = b ? HAZE_BACKEND_CUDA : HAZE_BACKEND_AUTO;
        o.devices = twice;
        o.device_count = 3;
        set_refused(&o, HAZE_ERR_INVALID, "CUDA device 0 is listed twice");
        o.devices = negative;
        o.device_count = 2;
        set_refused(&o, HAZE_ERR_INVALID, "-3 is not a CUDA device id");
        o.devices = far;
        o.device = 1; /* not the set's first */
        set_refused(&o, HAZE_ERR_INVALID, "differs from the set's first");
        o.device = -1;
        /* a device the host does not have: named, with how many there are */
        set_refused(&o, HAZE_ERR_NODEVICE,
                    haze_build_has_cuda() ? "CUDA device 4000 is not present" : "no CUDA support");
        o.devices = NULL;
        o.device_count = -1;
        set_refused(&o, HAZE_ERR_INVALID, "device_count -1");
        o.devices = far;
        o.device_count = 0;
        set_refused(&o, HAZE_ERR_INVALID, "device_count of 0");
    }
    /* the host: a set of more devices than it has */
    o.backend = HAZE_BACKEND_AUTO;
    o.devices = NULL;
    o.device_count = haze_device_count() + 1;
    if (o.device_count < 2) o.device_count = 2;
    set_refused(&o, HAZE_ERR_NODEVICE,
                haze_build_has_cuda() ? "is not present" : "no CUDA support");
    /* a CPU context has no devices; its part 0 is itself */
    haze_ctx *cpu = haze_test_ctx(HAZE_BACKEND_CPU);
    int ids[4] = {-1, -1, -1, -1};
    assert_int_equal(haze_ctx_device_count(cpu), 0);
    assert_int_equal(haze_ctx_devices(cpu, ids, 4), 0);
    assert_int_equal(ids[0], -1);
    assert_ptr_equal(haze_ctx_part(cpu, 0), cpu);
    assert_null(haze_ctx_part(cpu, 1));
    assert_null(haze_ctx_part(cpu, -1));
    haze_ctx_free(haze_ctx_part(cpu, 0)); /* (the context itself) */
    assert_int_equal(haze_ctx_device_count(NULL), 0);
    assert_int_equal(haze_ctx_devices(NULL, NULL, 0), 0);
    assert_null(haze_ctx_part(NULL, 0));
    /* options of the size before the set was added: the one device */
    haze_ctx_options old;
    const size_t old_size = offsetof(haze_ctx_options, devices);
    assert_int_equal(haze_ctx_options_init(&old, old_size), HAZE_OK);
    old.backend = HAZE_BACKEND_CPU;
    haze_ctx *ctx = NULL;
    assert_int_equal(haze_ctx_new(&old, &ctx), HAZE_OK);
    assert_int_equal(haze_ctx_device_count(ctx), 0);
    haze_ctx_free(ctx);
}

/* A process forked while an AUTO context still looks for its device (in a
 * build with CUDA: on a thread of its own) settles on the CPU instead of
 * waiting for a thread it does not have (CUDA does not carry over a fork
 * either); the parent settles as ever. */
static void test_ctx_fork(void **state) {
    (void)state;
    unsetenv("HAZE_BACKEND");
    haze_ctx *ctx = NULL;
    assert_int_equal(haze_ctx_new(NULL, &ctx), HAZE_OK);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(30); /* a child that waits for the thread fails the test, not the run */
        _exit(haze_ctx_backend(ctx) == HAZE_BACKEND_CPU ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(haze_ctx_backend(ctx), have_gpu() ? HAZE_BACKEND_CUDA : HAZE_BACKEND_CPU);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_strings),      cmocka_unit_test(test_version),
        cmocka_unit_test(test_backend_parse),       cmocka_unit_test(test_ctx_default),
        cmocka_unit_test(test_ctx_cpu_and_threads), cmocka_unit_test(test_cuda_request),
        cmocka_unit_test(test_env_override),        cmocka_unit_test(test_device_query),
        cmocka_unit_test(test_shared_ctx_errors),   cmocka_unit_test(test_error_per_context),
        cmocka_unit_test(test_device_set),          cmocka_unit_test(test_ctx_fork),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
