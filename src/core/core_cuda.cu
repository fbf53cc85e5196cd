/*
 * src/core/core_cuda.cu - CUDA device probing and per-context CUDA state.
 * Built only when haze is configured with CUDA.
 */
#include <stdio.h>
#include <string.h>

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

extern "C" int haze__cuda_probe(int device, haze_device_info *info, char *why, size_t why_len) {
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
    cudaDeviceProp p;
    e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess) {
        snprintf(why, why_len, "%s", cudaGetErrorString(e));
        return HAZE_ERR_NODEVICE;
    }
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

extern "C" void haze__cuda_ctx_release(haze_ctx *ctx) {
    if (ctx->stream) {
        cudaStreamDestroy((cudaStream_t)ctx->stream);
        ctx->stream = NULL;
    }
}

extern "C" int haze__cuda_begin(haze_ctx *ctx) {
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
    if (ctx->device_memory_limit && ctx->device_memory_limit < budget)
        budget = ctx->device_memory_limit;
    return budget;
}
