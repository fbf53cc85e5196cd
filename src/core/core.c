/*
 * src/core/core.c - version, devices, and the execution context: its
 * backend, its module state blocks and its device memory account (the last
 * error is error.c's).
 *
 * Backend selection follows the policy of CHOLMOD's useGPU and ggml's
 * init_best: probe once when the context is made, prefer the GPU when one is
 * there, and treat an explicit request that cannot be met as an error.
 */
#include <ctype.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/internal.h"
#include "core/sized.h"

const char *haze_version(void) {
    return HAZE_VERSION_STRING;
}

const char *haze_backend_name(haze_backend b) {
    switch (b) {
    case HAZE_BACKEND_AUTO:
        return "auto";
    case HAZE_BACKEND_CPU:
        return "cpu";
    case HAZE_BACKEND_CUDA:
        return "cuda";
    }
    return "unknown";
}

int haze_backend_parse(haze_ctx *ctx, const char *s, haze_backend *out) {
    if (!s || !out) return haze__error(ctx, HAZE_ERR_INVALID, "backend: no name or no output");
    if (!strcasecmp(s, "auto"))
        *out = HAZE_BACKEND_AUTO;
    else if (!strcasecmp(s, "cpu"))
        *out = HAZE_BACKEND_CPU;
    else if (!strcasecmp(s, "cuda") || !strcasecmp(s, "gpu"))
        *out = HAZE_BACKEND_CUDA;
    else
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "unknown backend '%s': expected auto, cpu or cuda", s);
    return HAZE_OK;
}

int haze_build_has_cuda(void) {
#ifdef HAZE_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

int haze_build_has_openmp(void) {
#ifdef _OPENMP
    return 1;
#else
    return 0;
#endif
}

int haze_device_count(void) {
#ifdef HAZE_HAVE_CUDA
    return haze__cuda_count();
#else
    return 0;
#endif
}

int haze_device_query(haze_ctx *ctx, int device, haze_device_info *info) {
    if (!info) return haze__error(ctx, HAZE_ERR_INVALID, "device query: no output");
    haze_device_info full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    int st = haze__sized_give(ctx, info, &full, sizeof full, "haze_device_info");
    if (st) return st;
#ifdef HAZE_HAVE_CUDA
    char why[256];
    st = haze__cuda_probe(device, &full, why, sizeof why);
    full.size = sizeof full;
    if (st) return haze__error(ctx, st, "CUDA device %d: %s", device, why);
    return haze__sized_give(ctx, info, &full, sizeof full, "haze_device_info");
#else
    return haze__error(ctx, HAZE_ERR_NODEVICE,
                       "CUDA device %d: this build of haze has no CUDA support", device);
#endif
}

int haze_ctx_default_threads(void) {
    const char *env = getenv("HAZE_THREADS");
    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end == '\0' && n > 0 && n < 65536) return (int)n;
    }
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}

/* ------------------------------------------------ device memory accounting */

struct haze__dev_acct {
    size_t bytes;       /* atomic */
    unsigned long refs; /* atomic: the context and the objects that keep it */
};

haze__dev_acct *haze__dev_acct_hold(haze_ctx *ctx) {
    if (!ctx || !ctx->dev_acct) return NULL;
    __atomic_add_fetch(&ctx->dev_acct->refs, 1, __ATOMIC_RELAXED);
    return ctx->dev_acct;
}

void haze__dev_acct_drop(haze__dev_acct *acct) {
    if (acct && __atomic_sub_fetch(&acct->refs, 1, __ATOMIC_ACQ_REL) == 0) free(acct);
}

size_t haze__dev_acct_bytes(const haze__dev_acct *acct) {
    return acct ? __atomic_load_n(&acct->bytes, __ATOMIC_RELAXED) : 0;
}

int haze__dev_acct_add(haze__dev_acct *acct, size_t bytes, size_t limit, size_t *held) {
    if (!acct) {
        *held = 0;
        return !limit || bytes <= limit;
    }
    size_t cur = __atomic_load_n(&acct->bytes, __ATOMIC_RELAXED);
    do {
        *held = cur;
        if (limit && (cur > limit || bytes > limit - cur)) return 0;
    } while (!__atomic_compare_exchange_n(&acct->bytes, &cur, cur + bytes, 1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return 1;
}

void haze__dev_acct_release(haze__dev_acct *acct, size_t bytes) {
    if (acct) __atomic_sub_fetch(&acct->bytes, bytes, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------ module state blocks */

/* A block's header: the destroy function, padded so the block that follows
 * is aligned for any type. */
typedef union state_head {
    void (*destroy)(void *);
    max_align_t align;
} state_head;

void *haze__ctx_state(haze_ctx *ctx, int id, size_t size, void (*destroy)(void *)) {
    if (!ctx || id < 0 || id >= HAZE__STATE_COUNT) return NULL;
    void *have = __atomic_load_n(&ctx->state[id], __ATOMIC_ACQUIRE);
    if (have) return (state_head *)have + 1;
    if (size > (size_t)-1 - sizeof(state_head)) return NULL;
    state_head *h = calloc(1, sizeof *h + size);
    if (!h) return NULL;
    h->destroy = destroy;
    /* threads sharing the context may race here: one block wins */
    if (!__atomic_compare_exchange_n(&ctx->state[id], &have, (void *)h, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        free(h);
        return (state_head *)have + 1;
    }
    return h + 1;
}

static void ctx_state_free(haze_ctx *ctx) {
    for (int i = 0; i < HAZE__STATE_COUNT; i++) {
        state_head *h = ctx->state[i];
        if (!h) continue;
        if (h->destroy) h->destroy(h + 1);
        free(h);
        ctx->state[i] = NULL;
    }
}

void haze__ctx_init_local(struct haze_ctx *c) {
    memset(c, 0, sizeof *c);
    c->backend = HAZE_BACKEND_CPU;
    c->threads = 1;
    c->id = haze__ctx_next_id();
}

int haze_ctx_options_init(haze_ctx_options *opt, size_t size) {
    haze_ctx_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.backend = HAZE_BACKEND_AUTO;
    o.device = -1;
    o.threads = 0;
    o.device_memory_limit = 0;
    o.devices = NULL;
    o.device_count = 0;
    return haze__sized_init(opt, size, &o, sizeof o);
}

/* Resolves the backend request of `ctx`; records the reason on failure. */
static int resolve_backend(haze_ctx *ctx, haze_backend want, const char *origin) {
    if (want == HAZE_BACKEND_CPU) {
        ctx->backend = HAZE_BACKEND_CPU;
        return HAZE_OK;
    }
#ifdef HAZE_HAVE_CUDA
    if (want == HAZE_BACKEND_AUTO && haze__cuda_warm(ctx, 1)) {
        /* the device looked for and its context made while the caller goes
         * on; the backend is settled when first needed (haze__ctx_settle) */
        ctx->backend = HAZE_BACKEND_AUTO;
        return HAZE_OK;
    }
    char why[256] = "";
    int st = haze__cuda_usable(ctx->device, why, sizeof why);
    if (st == HAZE_OK) {
        ctx->backend = HAZE_BACKEND_CUDA;
        haze__cuda_warm(ctx, 0); /* the device's context made while the caller goes on */
        return HAZE_OK;
    }
    if (want == HAZE_BACKEND_AUTO) {
        ctx->backend = HAZE_BACKEND_CPU; /* the clean fallback: no GPU here */
        return HAZE_OK;
    }
    return haze__error(ctx, HAZE_ERR_NODEVICE,
                       "backend 'cuda' requested%s but CUDA device %d is not usable: %s", origin,
                       ctx->device, why);
#else
    if (want == HAZE_BACKEND_AUTO) {
        ctx->backend = HAZE_BACKEND_CPU;
        return HAZE_OK;
    }
    return haze__error(ctx, HAZE_ERR_NODEVICE,
                       "backend 'cuda' requested%s but this build of haze has no CUDA support",
                       origin);
#endif
}

/* The ids of a set of devices (haze/core.h, "Several devices") into dev,
 * checked: the arguments first (each once, none negative, `device` in
 * agreement), then the host (each present). */
static int check_set(haze_ctx *ctx, const haze_ctx_options *o, int *dev) {
    const int R = o->device_count;
    for (int k = 0; k < R; k++) {
        dev[k] = o->devices ? o->devices[k] : k;
        if (dev[k] < 0)
            return haze__error(ctx, HAZE_ERR_INVALID,
                               "device set: %d is not a CUDA device id (item %d of the set)",
                               dev[k], k + 1);
        for (int j = 0; j < k; j++)
            if (dev[j] == dev[k])
                return haze__error(ctx, HAZE_ERR_INVALID,
                                   "device set: CUDA device %d is listed twice", dev[k]);
    }
    if (o->device >= 0 && o->device != dev[0])
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "device set: device %d differs from the set's first, %d (leave device "
                           "at -1 with a set)",
                           o->device, dev[0]);
#ifdef HAZE_HAVE_CUDA
    const int have = haze__cuda_count();
    for (int k = 0; k < R; k++) {
        if (dev[k] < have) continue;
        if (have == 0)
            return haze__error(ctx, HAZE_ERR_NODEVICE,
                               "device set: CUDA device %d is not present (this host has none)",
                               dev[k]);
        return haze__error(ctx, HAZE_ERR_NODEVICE,
                           "device set: CUDA device %d is not present (this host has %d: 0 to %d)",
                           dev[k], have, have - 1);
    }
    return HAZE_OK;
#else
    return haze__error(ctx, HAZE_ERR_NODEVICE,
                       "device set: CUDA device %d asked for, but this build of haze has no CUDA "
                       "support",
                       dev[0]);
#endif
}

/* The context over a set of devices: its own on the first, a part on each
 * of the others (ordinary contexts, owned by it). */
static int new_set(haze_ctx *ctx, const haze_ctx_options *o) {
    const int R = o->device_count;
    if (o->backend == HAZE_BACKEND_CPU)
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "a set of %d CUDA devices needs the CUDA backend, not the CPU", R);
    int *dev = malloc((size_t)R * sizeof *dev);
    if (!dev) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory for a set of %d devices", R);
    int st = check_set(ctx, o, dev);
    if (st) {
        free(dev);
        return st;
    }
    ctx->device = dev[0];
    if (R == 1) { /* a list of one: the context on that device */
        free(dev);
        return resolve_backend(ctx, HAZE_BACKEND_CUDA, " (by a set of devices)");
    }
    ctx->devs = dev;
    ctx->ndev = R;
    ctx->parts = calloc((size_t)R, sizeof *ctx->parts);
    if (!ctx->parts) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory for %d devices", R);
    ctx->parts[0] = ctx;
    if ((st = resolve_backend(ctx, HAZE_BACKEND_CUDA, " (by a set of devices)"))) return st;
    for (int k = 1; k < R; k++) {
        haze_ctx_options po = haze_ctx_options_default();
        po.backend = HAZE_BACKEND_CUDA;
        po.device = dev[k];
        po.threads = ctx->threads / R > 0 ? ctx->threads / R : 1;
        po.device_memory_limit = ctx->device_memory_limit;
        haze_ctx *part = NULL;
        st = haze_ctx_new(&po, &part);
        if (st) {
            st = part ? haze__error(ctx, st, "device set: CUDA device %d: %s", dev[k],
                                    haze_ctx_errmsg(part))
                      : haze__error(ctx, st, "device set: CUDA device %d: out of memory", dev[k]);
            haze_ctx_free(part);
            return st;
        }
        part->owner = ctx;
        ctx->parts[k] = part;
    }
    return HAZE_OK;
}

int haze_ctx_new(const haze_ctx_options *opt, haze_ctx **out) {
    if (!out) return HAZE_ERR_INVALID;
    *out = NULL;
    haze_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return HAZE_ERR_NOMEM;
    ctx->dev_acct = calloc(1, sizeof *ctx->dev_acct);
    if (!ctx->dev_acct) {
        free(ctx);
        return HAZE_ERR_NOMEM;
    }
    ctx->dev_acct->refs = 1;
    *out = ctx;
    ctx->id = haze__ctx_next_id();
    haze__mp_install();
    haze_ctx_options o = haze_ctx_options_default();
    int take = haze__sized_take(ctx, &o, sizeof o, opt, "haze_ctx_options");
    if (take) return take;

    ctx->backend = HAZE_BACKEND_CPU;
    ctx->device_memory_limit = o.device_memory_limit;
    ctx->device = o.device;
    const int set = o.device_count > 1 || (o.device_count == 1 && o.devices);
    if (set && ctx->device < 0) ctx->device = 0; /* (the set's first, once it is checked) */
    if (ctx->device < 0) { /* (a set names its devices: HAZE_DEVICE is not read) */
        const char *env = getenv("HAZE_DEVICE");
        ctx->device = 0;
        if (env && *env) {
            char *end;
            long d = strtol(env, &end, 10);
            if (*end != '\0' || d < 0 || d > 1024)
                return haze__error(ctx, HAZE_ERR_INVALID,
                                   "HAZE_DEVICE='%s': expected a device number", env);
            ctx->device = (int)d;
        }
    }
    if (o.threads < 0) return haze__error(ctx, HAZE_ERR_INVALID, "threads must be >= 0");
    ctx->threads = o.threads > 0 ? o.threads : haze_ctx_default_threads();

    haze_backend want = o.backend;
    const char *origin = "";
    if (want != HAZE_BACKEND_AUTO && want != HAZE_BACKEND_CPU && want != HAZE_BACKEND_CUDA)
        return haze__error(ctx, HAZE_ERR_INVALID, "unknown backend %d", (int)want);
    if (o.device_count < 0 || o.device_count > 4096)
        return haze__error(ctx, HAZE_ERR_INVALID, "device_count %d is out of range (0 to 4096)",
                           o.device_count);
    if (o.devices && o.device_count == 0)
        return haze__error(ctx, HAZE_ERR_INVALID, "a list of devices with a device_count of 0");
    if (set) return new_set(ctx, &o);
    if (want == HAZE_BACKEND_AUTO) {
        const char *env = getenv("HAZE_BACKEND");
        if (env && *env) {
            if (haze_backend_parse(NULL, env, &want) != HAZE_OK)
                return haze__error(ctx, HAZE_ERR_INVALID,
                                   "HAZE_BACKEND='%s': expected auto, cpu or cuda", env);
            origin = " (by HAZE_BACKEND)";
        }
    }
    return resolve_backend(ctx, want, origin);
}

void haze_ctx_free(haze_ctx *ctx) {
    if (!ctx || ctx->owner) return; /* a part goes with its context */
    for (int k = 1; ctx->parts && k < ctx->ndev; k++) {
        if (!ctx->parts[k]) continue;
        ctx->parts[k]->owner = NULL;
        haze_ctx_free(ctx->parts[k]);
    }
    free(ctx->parts);
    free(ctx->devs);
    haze_ctx_clear_error(ctx); /* other threads' slots are never read again */
    ctx_state_free(ctx);       /* before the stream goes: a destroy may still use it */
#ifdef HAZE_HAVE_CUDA
    haze__cuda_ctx_release(ctx);
#endif
    haze__dev_acct_drop(ctx->dev_acct);
    free(ctx);
}

haze_backend haze__ctx_settle(haze_ctx *ctx) {
    haze_backend b = __atomic_load_n(&ctx->backend, __ATOMIC_ACQUIRE);
#ifdef HAZE_HAVE_CUDA
    if (b != HAZE_BACKEND_AUTO) return b;
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* one thread joins the warm thread */
    pthread_mutex_lock(&mu);
    b = __atomic_load_n(&ctx->backend, __ATOMIC_ACQUIRE);
    if (b == HAZE_BACKEND_AUTO) {
        b = haze__cuda_warm_join(ctx) ? HAZE_BACKEND_CUDA : HAZE_BACKEND_CPU;
        __atomic_store_n(&ctx->backend, b, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&mu);
#endif
    return b;
}

haze_backend haze_ctx_backend(const haze_ctx *ctx) {
    return haze__use_cuda(ctx) ? HAZE_BACKEND_CUDA : HAZE_BACKEND_CPU;
}
int haze_ctx_device(const haze_ctx *ctx) {
    return ctx ? ctx->device : 0;
}
int haze_ctx_device_count(const haze_ctx *ctx) {
    if (!haze__use_cuda(ctx)) return 0;
    return ctx->ndev > 1 ? ctx->ndev : 1;
}
int haze_ctx_devices(const haze_ctx *ctx, int *out, int max) {
    const int n = haze_ctx_device_count(ctx);
    for (int k = 0; out && k < n && k < max; k++)
        out[k] = ctx->ndev > 1 ? ctx->devs[k] : ctx->device;
    return n;
}
haze_ctx *haze_ctx_part(haze_ctx *ctx, int k) {
    return haze__ctx_part(ctx, k);
}

/* The threads of each part of a set (haze/core.h, "Several devices"). */
static void parts_threads(haze_ctx *ctx) {
    for (int k = 1; ctx->parts && k < ctx->ndev; k++)
        if (ctx->parts[k])
            ctx->parts[k]->threads = ctx->threads / ctx->ndev > 0 ? ctx->threads / ctx->ndev : 1;
}
int haze_ctx_threads(const haze_ctx *ctx) {
    return haze__threads(ctx);
}

int haze_ctx_set_threads(haze_ctx *ctx, int threads) {
    if (!ctx) return HAZE_ERR_INVALID;
    if (threads < 0)
        return haze__error(ctx, HAZE_ERR_INVALID, "threads must be >= 0, got %d", threads);
    ctx->threads = threads > 0 ? threads : haze_ctx_default_threads();
    parts_threads(ctx);
    return HAZE_OK;
}

size_t haze_ctx_device_memory_limit(const haze_ctx *ctx) {
    return ctx ? ctx->device_memory_limit : 0;
}

int haze_ctx_set_device_memory_limit(haze_ctx *ctx, size_t bytes) {
    if (!ctx) return HAZE_ERR_INVALID;
    ctx->device_memory_limit = bytes;
    for (int k = 1; ctx->parts && k < ctx->ndev; k++)
        if (ctx->parts[k]) ctx->parts[k]->device_memory_limit = bytes;
    return HAZE_OK;
}

#ifndef HAZE_HAVE_CUDA
/* Without CUDA nothing was allocated on a device (core_cuda.cu frees it). */
void haze__dev_free_held(haze__dev_acct *acct, int device, void *p, size_t bytes) {
    (void)acct;
    (void)device;
    (void)p;
    (void)bytes;
}
#endif

static _Thread_local int copy_cap; /* haze__copy_par_cap; 0: none */

void haze__copy_par_cap(int threads) {
    copy_cap = threads > 0 ? threads : 0;
}

/* memcpy with streaming (non-temporal) stores where the CPU has them: the
 * destination is not read by this CPU soon (a staging buffer the copy
 * engines read, or a long output), so its lines are neither read first nor
 * kept in the cache: a third less memory traffic than a plain copy. glibc's
 * memcpy streams only above a threshold near the size of the last-level
 * cache (hundreds of MiB on a large server), far above a thread's piece
 * here; measured on a 16-core host, 16 threads: 51-53 GB/s with memcpy,
 * 61-67 GB/s streaming. */
static void copy_stream(void *dst, const void *src, size_t n) {
#if defined(__x86_64__) && defined(__SSE2__)
    char *d = (char *)dst;
    const char *s = (const char *)src;
    if (n < 4096) {
        memcpy(d, s, n);
        return;
    }
    const size_t head = (16 - ((uintptr_t)d & 15)) & 15; /* to a 16-byte boundary */
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    const size_t body = n & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        const __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        const __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
        const __m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
        _mm_stream_si128((__m128i *)(d + i), a);
        _mm_stream_si128((__m128i *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    _mm_sfence(); /* the streamed stores are seen before whatever follows */
    memcpy(d + body, s + body, n - body);
#else
    memcpy(dst, src, n);
#endif
}

void haze__copy_par(const haze_ctx *ctx, void *dst, const void *src, size_t n) {
    haze__copy_par2(ctx, dst, src, n, NULL, NULL, 0);
}

void haze__copy_par2(const haze_ctx *ctx, void *d0, const void *s0, size_t n0, void *d1,
                     const void *s1, size_t n1) {
    const size_t part = (size_t)1 << 20; /* bytes a thread copies at least */
    const size_t n = n0 + n1;
    int nt = haze__threads_for(ctx, (double)n, (double)part);
    if (copy_cap > 0 && nt > copy_cap) nt = copy_cap;
    if (nt <= 1) {
        if (n0) copy_stream(d0, s0, n0);
        if (n1) copy_stream(d1, s1, n1);
        return;
    }
    /* nt pieces of the two copies end to end, each a multiple of 64 bytes
     * but the last */
    const size_t piece = ((n + (size_t)nt - 1) / (size_t)nt + 63) & ~(size_t)63;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static, 1)
#endif
    for (int t = 0; t < nt; t++) {
        size_t a = (size_t)t * piece, e = a + piece < n ? a + piece : n;
        if (a < n0) { /* (the part of [a, e) in the first copy) */
            const size_t e0 = e < n0 ? e : n0;
            copy_stream((char *)d0 + a, (const char *)s0 + a, e0 - a);
            a = e0;
        }
        if (a < e) copy_stream((char *)d1 + (a - n0), (const char *)s1 + (a - n0), e - a);
    }
}

double haze__now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
