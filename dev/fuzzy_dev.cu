/*
 * dev/fuzzy_dev.cu - dev/fuzzy_dev.h: forced choices go through the
 * context's fuzzy state for the one call and are put back after it; the
 * timing probes are here alone.
 */
#include <string.h>

#include "core/internal.h"
#include "fuzzy/fuzzy_internal.h"
#include "fuzzy_dev.h"

extern "C" int haze_dev_fuzzy_sort(haze_ctx *ctx, uint32_t *keys, haze_fuzzy_array *a,
                                   haze__sort_method method, haze__sort_stats *stats) {
    haze__fuzzy_state *fs = haze__fuzzy_state_of(ctx);
    if (!fs) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    const haze__fuzzy_state saved = *fs;
    fs->sort_method = method;
    fs->timing = 1;
    memset(&fs->sort_stats, 0, sizeof fs->sort_stats);
    int st = haze_fuzzy_sort_by_key(ctx, keys, a);
    if (stats) *stats = fs->sort_stats;
    fs->sort_method = saved.sort_method;
    fs->timing = saved.timing;
    return st;
}

extern "C" int haze_dev_fuzzy_axpy(haze_ctx *ctx, const haze_fuzzy_array *a,
                                   const haze_fuzzy_array *b, int iters, haze_fuzzy_array *y,
                                   int soa, int reps, double *kernel_s) {
    haze__fuzzy_state *fs = haze__fuzzy_state_of(ctx);
    if (!fs) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    const haze__fuzzy_state saved = *fs;
    fs->axpy_soa = soa;
    fs->axpy_reps = reps;
    fs->timing = kernel_s != NULL;
    fs->axpy_kernel_s = 0;
    int st = haze_fuzzy_axpy(ctx, a, b, iters, y);
    if (kernel_s) *kernel_s = fs->axpy_kernel_s;
    fs->axpy_soa = saved.axpy_soa;
    fs->axpy_reps = saved.axpy_reps;
    fs->timing = saved.timing;
    return st;
}

extern "C" int haze_dev_fuzzy_copy_bw(haze_ctx *ctx, size_t bytes, double *bytes_per_s) {
    *bytes_per_s = 0;
    int st = haze__cuda_begin(ctx);
    if (st) return st;
    if (2 * bytes + 64 > haze__cuda_budget(ctx))
        return haze__error(ctx, HAZE_ERR_NOMEM, "fuzzy: %zu bytes do not fit the device budget",
                           2 * bytes);
    cudaStream_t s = haze__stream(ctx);
    cudaEvent_t ev[2] = {NULL, NULL};
    void *p[2] = {NULL, NULL};
    float best = 0;
    HAZE_CUDA_GOTO(ctx, st, done, cudaEventCreate(&ev[0]));
    HAZE_CUDA_GOTO(ctx, st, done, cudaEventCreate(&ev[1]));
    for (int i = 0; i < 2; i++)
        if ((st = haze__dev_alloc(ctx, &p[i], bytes, "copy bandwidth buffer"))) goto done;
    HAZE_CUDA_GOTO(ctx, st, done, cudaMemsetAsync(p[0], 1, bytes, s));
    for (int r = 0; r < 6; r++) {
        HAZE_CUDA_GOTO(ctx, st, done, cudaEventRecord(ev[0], s));
        HAZE_CUDA_GOTO(ctx, st, done,
                       cudaMemcpyAsync(p[1], p[0], bytes, cudaMemcpyDeviceToDevice, s));
        HAZE_CUDA_GOTO(ctx, st, done, cudaEventRecord(ev[1], s));
        HAZE_CUDA_GOTO(ctx, st, done, cudaEventSynchronize(ev[1]));
        float ms = 0;
        HAZE_CUDA_GOTO(ctx, st, done, cudaEventElapsedTime(&ms, ev[0], ev[1]));
        if (r > 0 && (best == 0 || ms < best)) best = ms;
    }
    *bytes_per_s = best > 0 ? 2.0 * (double)bytes / (1e-3 * best) : 0;
done:
    for (int i = 0; i < 2; i++) {
        haze__dev_free(ctx, p[i], bytes);
        if (ev[i]) cudaEventDestroy(ev[i]);
    }
    return st;
}

extern "C" int haze_dev_fuzzy_clock_khz(int device) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v;
}

extern "C" int haze_dev_fuzzy_alloc(haze_ctx *ctx, size_t bytes, void **p) {
    return haze__fuzzy_cuda_alloc(ctx, bytes, p);
}

extern "C" void haze_dev_fuzzy_free(haze_ctx *ctx, void *p, size_t bytes) {
    haze__dev_free(ctx, p, bytes);
}

extern "C" int haze_dev_fuzzy_copy(haze_ctx *ctx, void *dst, const void *src, size_t bytes) {
    return haze__fuzzy_cuda_copy(ctx, dst, src, bytes);
}
