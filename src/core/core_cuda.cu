/*
 * src/core/core_cuda.cu - CUDA device probing, per-context CUDA state, the
 * CUDA error idiom, the device allocator that keeps a context within its
 * device_memory_limit, and the cache of device properties (core/cuda.h).
 * Built only when haze is configured with CUDA.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "core/internal.h"

extern "C" int haze__cuda_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" int haze__cuda_usable(int device, char *why, size_t why_len) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(why, why_len, "%s", cudaGetErrorString(e));
        cudaGetLastError();
        return HAZE_ERR_NODEVICE;
    }
    if (device < 0 || device >= n) {
        snprintf(why, why_len, "the machine has %d CUDA device%s", n, n == 1 ? "" : "s");
        return HAZE_ERR_NODEVICE;
    }
    if (!haze__cuda_props(device)) {
        snprintf(why, why_len, "its properties cannot be read");
        return HAZE_ERR_NODEVICE;
    }
    return HAZE_OK;
}

extern "C" int haze__cuda_probe(int device, haze_device_info *info, char *why, size_t why_len) {
    int st = haze__cuda_usable(device, why, why_len);
    if (st) return st;
    const cudaDeviceProp *pp = haze__cuda_props(device);
    if (!pp) return HAZE_ERR_NODEVICE; /* (read above: not reached) */
    const cudaDeviceProp &p = *pp;
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->id = device;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    info->total_mem = p.totalGlobalMem;
    info->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    info->max_threads_per_block = p.maxThreadsPerBlock;
    info->regs_per_sm = p.regsPerMultiprocessor;
    info->smem_per_sm = p.sharedMemPerMultiprocessor;
    info->smem_per_block = p.sharedMemPerBlockOptin;
    info->warp_size = p.warpSize;
    info->mem_bus_width = p.memoryBusWidth;
    int clock_khz = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess)
        info->peak_bandwidth = 2.0 * clock_khz * 1e3 * (p.memoryBusWidth / 8.0);
    cudaRuntimeGetVersion(&info->runtime_version);
    cudaDriverGetVersion(&info->driver_version);
    int prev = 0;
    cudaGetDevice(&prev);
    if (cudaSetDevice(device) == cudaSuccess) {
        size_t fr = 0, tot = 0;
        if (cudaMemGetInfo(&fr, &tot) == cudaSuccess) info->free_mem = fr;
        cudaSetDevice(prev);
    }
    cudaGetLastError();
    return HAZE_OK;
}

typedef struct warm_arg {
    pthread_t thread;
    int device;
    int probe;  /* look for the device first */
    int usable; /* (probe) whether it was found usable */
    pid_t pid;  /* the process that started the thread */
} warm_arg;

/* Warm-up threads still making a context: a process that ends (exit, or a
 * context never freed) waits for them before the CUDA runtime's own exit
 * handler tears the runtime down under them (warm_atexit, registered after
 * the runtime's, which the static runtime registers before main, runs
 * before it). */
static int warm_running;
static pid_t warm_pid; /* the process whose threads they are (not a forked child) */
static pthread_once_t warm_once = PTHREAD_ONCE_INIT;

static void warm_atexit(void) {
    if (getpid() != warm_pid) return;
    for (int i = 0; i < 10000 && __atomic_load_n(&warm_running, __ATOMIC_ACQUIRE) > 0; i++) {
        struct timespec ts = {0, 1000000}; /* 1 ms, 10 s at most */
        nanosleep(&ts, NULL);
    }
}

static void warm_register(void) {
    warm_pid = getpid();
    atexit(warm_atexit);
}

static void *warm_main(void *p) {
    warm_arg *a = (warm_arg *)p;
    char why[256];
    a->usable = !a->probe || haze__cuda_usable(a->device, why, sizeof why) == HAZE_OK;
    /* the device's primary context, made now; an error is left for the
     * first real call to meet and report */
    if (a->usable && (cudaSetDevice(a->device) != cudaSuccess || cudaFree(0) != cudaSuccess))
        cudaGetLastError();
    __atomic_fetch_sub(&warm_running, 1, __ATOMIC_ACQ_REL);
    return NULL;
}

extern "C" int haze__cuda_warm(haze_ctx *ctx, int probe) {
    pthread_once(&warm_once, warm_register);
    warm_arg *a = (warm_arg *)calloc(1, sizeof *a);
    if (!a) return 0; /* no head start: the first call makes the context */
    a->device = ctx->device;
    a->probe = probe;
    a->pid = getpid();
    __atomic_fetch_add(&warm_running, 1, __ATOMIC_ACQ_REL);
    if (pthread_create(&a->thread, NULL, warm_main, a) != 0) {
        __atomic_fetch_sub(&warm_running, 1, __ATOMIC_ACQ_REL);
        free(a);
        return 0;
    }
    ctx->warm = a;
    return 1;
}

extern "C" int haze__cuda_warm_join(haze_ctx *ctx) {
    warm_arg *a = (warm_arg *)__atomic_exchange_n(&ctx->warm, NULL, __ATOMIC_ACQ_REL);
    if (!a) return 1;
    if (a->pid != getpid()) { /* a child forked from the process that started it: no such
                                 thread here, and no CUDA for a child either */
        free(a);
        return 0;
    }
    pthread_join(a->thread, NULL);
    const int usable = a->usable;
    free(a);
    return usable;
}

extern "C" void haze__cuda_ctx_release(haze_ctx *ctx) {
    haze__cuda_warm_join(ctx);
    if (ctx->stream) {
        cudaStreamDestroy((cudaStream_t)ctx->stream);
        ctx->stream = NULL;
    }
}

extern "C" int haze__cuda_begin(haze_ctx *ctx) {
    if (__atomic_load_n(&ctx->warm, __ATOMIC_ACQUIRE)) haze__cuda_warm_join(ctx);
    HAZE_CUDA_TRY(ctx, cudaSetDevice(ctx->device));
    if (!__atomic_load_n(&ctx->stream, __ATOMIC_ACQUIRE)) {
        cudaStream_t s;
        /* blocking: ordered after the caller's legacy-stream copies (core.h) */
        HAZE_CUDA_TRY(ctx, cudaStreamCreateWithFlags(&s, cudaStreamDefault));
        /* threads sharing the context may race here: one stream wins */
        void *none = NULL;
        if (!__atomic_compare_exchange_n(&ctx->stream, &none, (void *)s, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            cudaStreamDestroy(s);
    }
    return HAZE_OK;
}

extern "C" size_t haze__cuda_budget(haze_ctx *ctx) {
    size_t fr = 0, tot = 0;
    if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    size_t reserve = (size_t)256 << 20; /* leave room for the runtime and other users */
    size_t budget = fr > reserve ? fr - reserve : fr / 2;
    if (ctx->device_memory_limit) {
        /* what the context holds already counts against its limit */
        size_t held = haze__dev_acct_bytes(ctx->dev_acct);
        size_t left = held < ctx->device_memory_limit ? ctx->device_memory_limit - held : 0;
        if (left < budget) budget = left;
    }
    return budget;
}

extern "C" int haze__cuda_error(haze_ctx *ctx, cudaError_t e, const char *call, const char *file,
                                int line) {
    cudaGetLastError(); /* a later launch check must not see this error again */
    return haze__error(ctx, HAZE_ERR_CUDA, "CUDA: %s: %s (%s:%d)", call, cudaGetErrorString(e),
                       file, line);
}

/*
 * The device allocator. The limit is checked and the bytes counted before
 * cudaMalloc, in one atomic step, so threads sharing a context cannot pass
 * it together; a failed cudaMalloc gives them back.
 */
extern "C" int haze__dev_alloc(haze_ctx *ctx, void **p, size_t bytes, const char *what) {
    *p = NULL;
    size_t n = bytes ? bytes : 1, held = 0;
    size_t limit = ctx ? ctx->device_memory_limit : 0;
    haze__dev_acct *acct = ctx ? ctx->dev_acct : NULL;
    if (!haze__dev_acct_add(acct, n, limit, &held))
        return haze__error(ctx, HAZE_ERR_NOMEM,
                           "out of device memory: %s needs %zu bytes, the context holds %zu of "
                           "its limit of %zu",
                           what, bytes, held, limit);
    /* a request larger than the free memory is refused before cudaMalloc:
     * a failing cudaMalloc is an error that NVIDIA's checker reports (and
     * the bytes are known to be missing); one that races with another
     * process's allocation still fails below */
    size_t fr0 = 0, tot0 = 0;
    if (cudaMemGetInfo(&fr0, &tot0) == cudaSuccess && n > fr0) {
        haze__dev_acct_release(acct, n);
        return haze__error(ctx, HAZE_ERR_NOMEM,
                           "out of device memory: %s needs %zu bytes, the device has %zu free",
                           what, bytes, fr0);
    }
    cudaGetLastError();
    cudaError_t e = cudaMalloc(p, n);
    if (e == cudaSuccess) return HAZE_OK;
    *p = NULL;
    haze__dev_acct_release(acct, n);
    cudaGetLastError();
    if (e != cudaErrorMemoryAllocation)
        return haze__cuda_error(ctx, e, "cudaMalloc", __FILE__, __LINE__);
    size_t fr = 0, tot = 0;
    if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) cudaGetLastError();
    return haze__error(ctx, HAZE_ERR_NOMEM,
                       "out of device memory: %s needs %zu bytes, the device has %zu free", what,
                       bytes, fr);
}

/* Frees p on `device` (-1: the current one), making it current meanwhile. */
static void free_on(int device, void *p) {
    int prev = -1;
    if (device >= 0 && cudaGetDevice(&prev) == cudaSuccess && prev != device &&
        cudaSetDevice(device) == cudaSuccess) {
        cudaFree(p);
        cudaSetDevice(prev);
    } else {
        cudaFree(p);
    }
    cudaGetLastError(); /* a failed free (a broken context) is not the next call's error */
}

extern "C" void haze__dev_free(haze_ctx *ctx, void *p, size_t bytes) {
    if (!p) return;
    free_on(ctx ? ctx->device : -1, p);
    if (ctx) haze__dev_acct_release(ctx->dev_acct, bytes ? bytes : 1);
}

extern "C" void haze__dev_free_held(haze__dev_acct *acct, int device, void *p, size_t bytes) {
    if (!p) return;
    free_on(device, p);
    haze__dev_acct_release(acct, bytes ? bytes : 1);
}

/*
 * Device properties, read once per device: cudaGetDeviceProperties reads
 * every attribute of the device (it is slow), and kernels' launch sizes
 * need a few of them on every call. (Device numbers beyond the table are
 * refused, as HAZE_DEVICE refuses them.)
 */
#define PROPS_MAX 1025
static cudaDeviceProp *props_cache[PROPS_MAX];

extern "C" const cudaDeviceProp *haze__cuda_props(int device) {
    if (device < 0 || device >= PROPS_MAX) return NULL;
    cudaDeviceProp *have = __atomic_load_n(&props_cache[device], __ATOMIC_ACQUIRE);
    if (have) return have;
    cudaDeviceProp *p = (cudaDeviceProp *)malloc(sizeof *p);
    if (!p) return NULL;
    if (cudaGetDeviceProperties(p, device) != cudaSuccess) {
        cudaGetLastError();
        free(p);
        return NULL;
    }
    cudaDeviceProp *none = NULL;
    /* threads may race here: one copy wins, the others are freed */
    if (!__atomic_compare_exchange_n(&props_cache[device], &none, p, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        free(p);
        return none;
    }
    return p;
}

/* The context's staging buffer (HAZE__STATE_STAGING). */
typedef struct staging {
    void *p;
    size_t bytes;
    int busy; /* a call holds p */
} staging;

static void staging_free(void *arg) {
    staging *g = (staging *)arg;
    if (g->p) cudaFreeHost(g->p);
    g->p = NULL, g->bytes = 0;
}

extern "C" int haze__cuda_staging(haze_ctx *ctx, size_t bytes, void **out) {
    *out = NULL;
    staging *g = (staging *)haze__ctx_state(ctx, HAZE__STATE_STAGING, sizeof *g, staging_free);
    if (!g) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    int idle = 0;
    if (!__atomic_compare_exchange_n(&g->busy, &idle, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        /* another thread's call holds the context's buffer: one of this call's own */
        HAZE_CUDA_TRY(ctx, cudaMallocHost(out, bytes));
        return HAZE_OK;
    }
    if (g->bytes < bytes) {
        staging_free(g);
        cudaError_t e = cudaMallocHost(&g->p, bytes);
        if (e != cudaSuccess) {
            g->p = NULL;
            __atomic_store_n(&g->busy, 0, __ATOMIC_RELEASE);
            return haze__cuda_error(ctx, e, "cudaMallocHost(staging)", __FILE__, __LINE__);
        }
        g->bytes = bytes;
    }
    *out = g->p;
    return HAZE_OK;
}

extern "C" void haze__cuda_staging_release(haze_ctx *ctx, void *p) {
    if (!p) return;
    staging *g = (staging *)haze__ctx_state(ctx, HAZE__STATE_STAGING, sizeof *g, staging_free);
    if (g && p == g->p && __atomic_load_n(&g->busy, __ATOMIC_ACQUIRE))
        __atomic_store_n(&g->busy, 0, __ATOMIC_RELEASE);
    else
        cudaFreeHost(p);
}

extern "C" int haze__host_page_locked(const void *p, size_t bytes) {
    if (!p) return 0;
    const void *ends[2] = {p, (const char *)p + (bytes ? bytes - 1 : 0)};
    for (int e = 0; e < 2; e++) {
        cudaPointerAttributes a;
        if (cudaPointerGetAttributes(&a, ends[e]) != cudaSuccess) {
            cudaGetLastError(); /* (not an error to keep) */
            return 0;
        }
        if (a.type != cudaMemoryTypeHost) return 0;
    }
    return 1;
}

extern "C" int haze__cuda_upload(haze_ctx *ctx, void *dst, const void *src, size_t bytes) {
    enum { NBUF = 3 };
    const size_t chunk = (size_t)16 << 20;
    cudaStream_t st = haze__stream(ctx);
    char *stage = NULL;
    cudaEvent_t ev[NBUF] = {NULL, NULL, NULL};
    int st_ = HAZE_OK, staged = bytes >= 4 * chunk && !haze__host_page_locked(src, bytes);
    if (staged && haze__cuda_staging(ctx, NBUF * chunk, (void **)&stage) != HAZE_OK) staged = 0;
    for (int b = 0; staged && b < NBUF; b++)
        if (cudaEventCreateWithFlags(&ev[b], cudaEventDisableTiming) != cudaSuccess) staged = 0;
    if (!staged) { /* small, page-locked already, or no staging to be had: the driver's copy */
        cudaGetLastError();
        HAZE_CUDA_GOTO(ctx, st_, done,
                       cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st));
        HAZE_CUDA_GOTO(ctx, st_, done, cudaStreamSynchronize(st));
        goto done;
    }
    for (size_t off = 0, k = 0; off < bytes; off += chunk, k++) {
        const int b = (int)(k % NBUF);
        const size_t len = bytes - off < chunk ? bytes - off : chunk;
        if (k >= NBUF) HAZE_CUDA_GOTO(ctx, st_, done, cudaEventSynchronize(ev[b]));
        haze__copy_par(ctx, stage + b * chunk, (const char *)src + off, len);
        HAZE_CUDA_GOTO(
            ctx, st_, done,
            cudaMemcpyAsync((char *)dst + off, stage + b * chunk, len, cudaMemcpyHostToDevice, st));
        HAZE_CUDA_GOTO(ctx, st_, done, cudaEventRecord(ev[b], st));
    }
    HAZE_CUDA_GOTO(ctx, st_, done, cudaStreamSynchronize(st));
done:
    if (st_) cudaStreamSynchronize(st); /* no copy still reads the staging buffer */
    for (int b = 0; b < NBUF; b++)
        if (ev[b]) cudaEventDestroy(ev[b]);
    haze__cuda_staging_release(ctx, stage);
    return st_;
}
