/*
 * src/core/internal.h - what the modules share inside the library: the
 * context's layout, error raising, per-context module state and device
 * memory accounting. Not installed. CUDA sources get core/cuda.h (the CUDA
 * error idiom, the device allocator, device properties) through it.
 */
#ifndef HAZE_CORE_INTERNAL_H
#define HAZE_CORE_INTERNAL_H

#include <locale.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HAZE__ERRMSG_MAX 1024

/* Per-context module state: one block per module, see haze__ctx_state. */
enum {
    HAZE__STATE_FNN,
    HAZE__STATE_FCM,
    HAZE__STATE_FIS,
    HAZE__STATE_PREC,
    HAZE__STATE_FUZZY,
    HAZE__STATE_EDGE,
    HAZE__STATE_IO,      /* the open output group (src/io/outfile.c) */
    HAZE__STATE_STAGING, /* page-locked staging memory (src/core/core_cuda.cu) */
    HAZE__STATE_FIS_DEV, /* models' device images (src/fis/fis_cuda.cu) */
    HAZE__STATE_COUNT
};

/*
 * The device memory a context holds through haze__dev_alloc: an atomic
 * byte count, shared (reference counted) between the context and the
 * objects that outlive a call (device arrays, FIRE tables), so that what
 * they free after the call, or after the context, is returned to the
 * right count or to none.
 */
typedef struct haze__dev_acct haze__dev_acct;

/*
 * The context holds no error text: the last error is kept per thread and per
 * context (core.c), so threads that share a context each read their own.
 * `id` names the context there; it is never reused, so a freed context's
 * message cannot reach a new one at the same address.
 */
struct haze_ctx {
    /* resolved: CPU or CUDA; AUTO while the warm thread (below) still looks
     * for the device (haze__ctx_settle; read it through haze__use_cuda) */
    haze_backend backend;
    int device;
    int threads;
    size_t device_memory_limit;
    unsigned long long id;
    void *stream; /* cudaStream_t, created on first use by the CUDA backend */
    /* device bytes held through haze__dev_alloc (NULL in local contexts:
     * nothing counted) */
    haze__dev_acct *dev_acct;
    /* module state blocks (haze__ctx_state), made on first use */
    void *state[HAZE__STATE_COUNT];
    /* the thread that makes the device's CUDA context while the caller goes
     * on (haze__cuda_warm), joined by haze__ctx_settle, haze__cuda_begin and
     * haze_ctx_free */
    void *warm; /* pthread_t *, NULL: none running */
    /* a context over a set of devices (haze/core.h, "Several devices"):
     * ndev > 1 ids in devs (devs[0] == device) and parts[k], the context on
     * devs[k] (parts[0] is this context); 0 or 1: one device, devs and parts
     * NULL. owner: the context whose part this is (NULL: none) */
    int ndev;
    int *devs;
    struct haze_ctx **parts;
    struct haze_ctx *owner;
};

/* How many parts a context splits its work over (1 but for a set of
 * devices), and the k-th (0: ctx itself; NULL for k out of range). */
static inline int haze__ctx_parts(const haze_ctx *ctx) {
    return ctx && ctx->ndev > 1 ? ctx->ndev : 1;
}
static inline haze_ctx *haze__ctx_part(haze_ctx *ctx, int k) {
    if (k == 0) return ctx;
    return ctx && ctx->parts && k > 0 && k < ctx->ndev ? ctx->parts[k] : NULL;
}

/*
 * The module's state block for this context: `size` bytes made zeroed on
 * first use; destroy(block), if not NULL, is called by haze_ctx_free
 * before the block is freed. NULL when out of memory (nothing recorded) or
 * for an id out of range. Thread-safe: threads that share the context may
 * first use it at once; one block wins and all get it. Tuning switches
 * (which kernel, forced configurations, caches of launch configurations)
 * live here, never in process globals.
 */
void *haze__ctx_state(haze_ctx *ctx, int id, size_t size, void (*destroy)(void *));

/*
 * The context's device memory account with one more reference, for an
 * object that frees device memory after the call that made it (NULL for a
 * NULL context or a local one); haze__dev_acct_drop gives the reference
 * back. haze__dev_acct_bytes: the bytes it holds now.
 */
haze__dev_acct *haze__dev_acct_hold(haze_ctx *ctx);
void haze__dev_acct_drop(haze__dev_acct *acct);
size_t haze__dev_acct_bytes(const haze__dev_acct *acct);
/* Counts `bytes` in (add) or out (release) of an account (NULL: nothing).
 * haze__dev_acct_add fails (returns 0) when the new total would pass
 * `limit` (0: none), and then counts nothing; else returns 1. *held is the
 * total before. (core.c; the CUDA allocator uses them.) */
int haze__dev_acct_add(haze__dev_acct *acct, size_t bytes, size_t limit, size_t *held);
void haze__dev_acct_release(haze__dev_acct *acct, size_t bytes);
/*
 * Frees device memory of an object that outlives the call that made it:
 * p (may be NULL) on `device`, with `bytes` returned to acct (may be NULL),
 * whose reference is kept (drop it when the object goes). Without CUDA a
 * no-op. (core_cuda.cu)
 */
void haze__dev_free_held(haze__dev_acct *acct, int device, void *p, size_t bytes);

/*
 * Makes *c a CPU context on the stack for one worker thread of a parallel
 * region: errors raised in it are read back (haze_ctx_errmsg) by that same
 * thread, which then hands the message to the caller's context after the
 * join. The library's worker threads never raise errors in the caller's
 * context: the caller's thread would not see them.
 */
void haze__ctx_init_local(struct haze_ctx *c);

/*
 * Records an error in the context (if not NULL) for the calling thread and
 * returns `status`, so a failing path reads
 * `return haze__error(ctx, HAZE_ERR_PARSE, "%s:%d: ...", ...)`.
 */
int haze__error(haze_ctx *ctx, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int haze__verror(haze_ctx *ctx, int status, const char *fmt, va_list ap);
/* A new context id (never 0, never reused; error.c names contexts by it). */
unsigned long long haze__ctx_next_id(void);

/*
 * Out of memory inside GMP and MPFR (mp_guard.c). haze__mp_run(ctx, fn, arg)
 * returns fn(arg), run under a guard on the calling thread: when an
 * allocation fails inside GMP or MPFR there, the blocks made under the guard
 * (GMP's, MPFR's and haze__mp_malloc's) are freed, fn is abandoned, "out of
 * memory" is recorded in ctx and HAZE_ERR_NOMEM returned. fn must leave
 * nothing outside its blocks that needs cleaning up when it is abandoned at
 * an MPFR call. Guards nest (what an inner run made belongs to the outer one
 * once it returns); an OpenMP worker that calls MPFR runs under its own,
 * since longjmp cannot cross threads.
 */
int haze__mp_run(haze_ctx *ctx, int (*fn)(void *), void *arg);
void haze__mp_install(void); /* GMP's memory functions (once; haze_ctx_new) */
/* malloc, calloc, realloc and free whose blocks an unwinding frees; NULL on
 * failure as malloc (they never unwind themselves). */
void *haze__mp_malloc(size_t n);
void *haze__mp_calloc(size_t n, size_t size);
void *haze__mp_realloc(void *p, size_t n);
void haze__mp_free(void *p);

/*
 * Numbers in files and messages are read and written in the "C" locale,
 * whatever the host program set with setlocale (src/core/locale.c). Use
 * haze__strtod and haze__fprintf / haze__snprintf instead of strtod and
 * fprintf / snprintf wherever a floating-point number is read or written;
 * around other locale-dependent calls (MPFR's mpfr_strtofr, mpfr_asprintf)
 * or a loop of many, bracket with begin/end: begin switches the calling
 * thread to the C locale and returns what to give end to switch it back.
 */
locale_t haze__numeric_begin(void);
void haze__numeric_end(locale_t prev);
double haze__strtod(const char *s, char **end);
int haze__fprintf(FILE *fp, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int haze__vfprintf(FILE *fp, const char *fmt, va_list ap);
int haze__snprintf(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int haze__vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap);

/* Threads for a CPU kernel on this context (>= 1). */
static inline int haze__threads(const haze_ctx *ctx) {
    return ctx && ctx->threads > 0 ? ctx->threads : 1;
}

/*
 * Threads for one CPU parallel region of `work` units, where a thread must
 * get at least `per_thread` units: min(haze__threads(ctx), work / per_thread),
 * at least 1. Pick `per_thread` as about 100 us of the region's work: a
 * fork/join costs a few microseconds on an idle machine but up to a
 * scheduler time slice on a busy one (a thread that waits at the barrier for
 * one that is not running), so a smaller region runs on the calling thread
 * alone. Use it as num_threads(nt) if (nt > 1). The regions' results never
 * depend on the number of threads (fixed tiles, per-item outputs), so this
 * only changes the time (docs/benchmarks.md, "CPU threads").
 * haze__threads_cap is the same with the thread count `nt` given.
 */
static inline int haze__threads_cap(int nt, double work, double per_thread) {
    if (nt < 1) return 1;
    if (!(per_thread > 0)) return nt;
    double k = work / per_thread;
    if (!(k >= 2)) return 1; /* NaN included */
    return k < (double)nt ? (int)k : nt;
}

/* Seconds on the monotonic clock (the timings results carry). */
double haze__now(void);

static inline int haze__threads_for(const haze_ctx *ctx, double work, double per_thread) {
    return haze__threads_cap(haze__threads(ctx), work, per_thread);
}

/* memcpy of n bytes on up to haze__threads(ctx) threads (1 MiB each at
 * least): one thread does not reach the memory's bandwidth. For copies
 * whose destination this CPU does not read soon (staging buffers, long
 * outputs): the stores stream past the cache where the CPU can. */
void haze__copy_par(const haze_ctx *ctx, void *dst, const void *src, size_t n);
/* Two such copies (n1 may be 0) on the same threads at once. */
void haze__copy_par2(const haze_ctx *ctx, void *d0, const void *s0, size_t n0, void *d1,
                     const void *s1, size_t n1);
/* At most `threads` threads for this thread's haze__copy_par calls from now
 * on (0: the context's count again): a call split over several devices
 * gives each device's copies its share of the host's threads. */
void haze__copy_par_cap(int threads);

/* The backend of a context whose AUTO backend is still being resolved
 * (the device looked for on the warm thread): waits for that thread, then
 * CPU or CUDA. Thread-safe. */
haze_backend haze__ctx_settle(haze_ctx *ctx);

/* 1 when a computation on this context should run on the GPU. */
static inline int haze__use_cuda(const haze_ctx *ctx) {
    if (!ctx) return 0;
    haze_backend b = __atomic_load_n(&ctx->backend, __ATOMIC_ACQUIRE);
    if (b == HAZE_BACKEND_AUTO) b = haze__ctx_settle((haze_ctx *)ctx);
    return b == HAZE_BACKEND_CUDA;
}

/* Device-side helpers (defined in core_cuda.cu; only with CUDA). */
int haze__cuda_probe(int device, haze_device_info *info, char *why, size_t why_len);
/* Whether `device` can run the CUDA backend (its properties read; no CUDA
 * context made): HAZE_OK, or HAZE_ERR_NODEVICE with the reason in why. */
int haze__cuda_usable(int device, char *why, size_t why_len);
/*
 * Starts making the device's CUDA context on a thread of its own (the
 * driver needs 0.1-0.3 s for it on a large GPU, and as long again to start
 * at all), so that the caller's work before its first CUDA call (reading
 * its files) overlaps it. probe: the thread first checks that the device
 * is usable (haze__cuda_usable) and makes no context when it is not.
 * Returns 1 when the thread runs. The CUDA runtime makes a device's
 * context once per process, whichever thread asks first;
 * haze__ctx_settle, haze__cuda_begin and haze_ctx_free wait for the
 * thread. haze__cuda_warm_join: 0 when the thread found the device
 * unusable, else 1 (also when none ran).
 */
int haze__cuda_warm(haze_ctx *ctx, int probe);
int haze__cuda_warm_join(haze_ctx *ctx);
int haze__cuda_count(void);
void haze__cuda_ctx_release(haze_ctx *ctx);
/*
 * Makes the context's device current and creates its stream on first use.
 * Every CUDA entry point of a module calls this first.
 */
int haze__cuda_begin(haze_ctx *ctx);
/*
 * Bytes of device memory a computation may allocate now: the free memory
 * (less a small reserve) capped by the context's device_memory_limit.
 * Streaming paths size their chunks from this.
 */
size_t haze__cuda_budget(haze_ctx *ctx);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
#include "core/cuda.h"
#endif

#endif
