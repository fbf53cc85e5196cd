/* TEMPORARY: the core layer's CUDA names until it lands (then removed). */
#ifndef HAZE_FCM_CORE_SHIM_H
#define HAZE_FCM_CORE_SHIM_H
#include <cuda_runtime.h>
#define HAZE_CUDA_GOTO(ctx, st, label, call)                                                       \
    do {                                                                                           \
        cudaError_t haze__e = (call);                                                              \
        if (haze__e != cudaSuccess) {                                                              \
            st = haze__error((ctx), HAZE_ERR_CUDA, "CUDA: %s: %s", #call,                          \
                             cudaGetErrorString(haze__e));                                         \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)
static inline int haze__dev_alloc(haze_ctx *ctx, void **p, size_t bytes, const char *what) {
    if (cudaMalloc(p, bytes) != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        return haze__error(ctx, HAZE_ERR_NOMEM, "out of device memory: %s needs %zu bytes", what,
                           bytes);
    }
    return HAZE_OK;
}
static inline void haze__dev_free(haze_ctx *ctx, void *p, size_t bytes) {
    (void)ctx, (void)bytes;
    cudaFree(p);
}
static inline const cudaDeviceProp *haze__cuda_props(int device) {
    static cudaDeviceProp pr;
    cudaGetDeviceProperties(&pr, device);
    return &pr;
}
#endif
