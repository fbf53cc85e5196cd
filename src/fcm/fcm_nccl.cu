/*
 * src/fcm/fcm_nccl.cu - the all-gather between the GPUs of one fit over
 * several devices of a host (fcm_devices.c) through NCCL: the bytes of
 * every part go from its device to every other by ncclAllGather, over
 * NVLink where the devices have it. Built only where CMake found NCCL
 * (HAZE_NCCL); without it the parts exchange through host memory.
 *
 * One communicator per device from ncclCommInitAll (one process, every
 * device), each used by its part's thread only. NCCL gathers equal slots,
 * so every rank sends a slot of the largest count (the counts go round the
 * threads' barrier first) and the receiver keeps each part's count of it.
 */
#ifdef HAZE_HAVE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "fcm/fcm_internal.h"

struct haze__fcm_nccl {
    int count;
    ncclComm_t *comm;
    struct rank_buf {
        void *send, *recv; /* device: one slot, count slots */
        size_t slot;       /* bytes of a slot they hold */
    } * buf;
};

static int nccl_error(haze_ctx *ctx, ncclResult_t r, const char *call) {
    return haze__error(ctx, HAZE_ERR_CUDA, "fcm: NCCL: %s: %s", call, ncclGetErrorString(r));
}

extern "C" int haze__fcm_nccl_new(haze_ctx *ctx, const int *devices, int count,
                                  haze__fcm_nccl **out) {
    *out = NULL;
    haze__fcm_nccl *nc = (haze__fcm_nccl *)calloc(1, sizeof *nc);
    if (!nc) return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    nc->count = count;
    nc->comm = (ncclComm_t *)calloc((size_t)count, sizeof *nc->comm);
    nc->buf = (struct haze__fcm_nccl::rank_buf *)calloc((size_t)count, sizeof *nc->buf);
    if (!nc->comm || !nc->buf) {
        free(nc->comm), free(nc->buf), free(nc);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    }
    const ncclResult_t r = ncclCommInitAll(nc->comm, count, devices);
    if (r != ncclSuccess) {
        free(nc->comm), free(nc->buf), free(nc);
        return nccl_error(ctx, r, "ncclCommInitAll");
    }
    *out = nc;
    return HAZE_OK;
}

extern "C" int haze__fcm_nccl_reserve(haze__fcm_nccl *nc, int rank, haze_ctx *pctx, size_t bytes) {
    struct haze__fcm_nccl::rank_buf *b = &nc->buf[rank];
    if (b->slot >= bytes) return HAZE_OK;
    int st = haze__cuda_begin(pctx);
    if (st) return st;
    haze__fcm_nccl_release(nc, rank, pctx);
    size_t want = b->slot ? b->slot : 4096;
    while (want < bytes) want *= 2;
    if ((st = haze__dev_alloc(pctx, &b->send, want, "fcm: the NCCL send buffer"))) return st;
    if ((st = haze__dev_alloc(pctx, &b->recv, want * (size_t)nc->count,
                              "fcm: the NCCL receive buffer"))) {
        haze__dev_free(pctx, b->send, want);
        b->send = NULL;
        return st;
    }
    b->slot = want;
    return HAZE_OK;
}

extern "C" int haze__fcm_nccl_gather(haze__fcm_nccl *nc, int rank, haze_ctx *pctx, const void *mine,
                                     size_t count, size_t bytes, void *out) {
    struct haze__fcm_nccl::rank_buf *b = &nc->buf[rank];
    int st = haze__cuda_begin(pctx);
    if (st) return st;
    cudaStream_t s = haze__stream(pctx);
    if (count)
        HAZE_CUDA_TRY(pctx, cudaMemcpyAsync(b->send, mine, count, cudaMemcpyHostToDevice, s));
    /* slot `bytes` from each rank, packed: rank k's at k * bytes */
    const ncclResult_t r = ncclAllGather(b->send, b->recv, bytes, ncclUint8, nc->comm[rank], s);
    if (r != ncclSuccess) return nccl_error(pctx, r, "ncclAllGather");
    HAZE_CUDA_TRY(
        pctx, cudaMemcpyAsync(out, b->recv, bytes * (size_t)nc->count, cudaMemcpyDeviceToHost, s));
    HAZE_CUDA_TRY(pctx, cudaStreamSynchronize(s));
    return HAZE_OK;
}

extern "C" void haze__fcm_nccl_release(haze__fcm_nccl *nc, int rank, haze_ctx *pctx) {
    struct haze__fcm_nccl::rank_buf *b = &nc->buf[rank];
    if (!b->slot) return;
    haze__cuda_begin(pctx); /* its device current */
    haze__dev_free(pctx, b->send, b->slot);
    haze__dev_free(pctx, b->recv, b->slot * (size_t)nc->count);
    b->send = b->recv = NULL;
    b->slot = 0;
}

extern "C" void haze__fcm_nccl_free(haze__fcm_nccl *nc) {
    if (!nc) return;
    for (int k = 0; k < nc->count; k++)
        if (nc->comm[k]) ncclCommDestroy(nc->comm[k]);
    free(nc->comm);
    free(nc->buf);
    free(nc);
}
#endif
