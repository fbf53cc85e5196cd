/*
 * src/fcm/fcm_nccl.cu - the all-gather between the GPUs of one fit over
 * several devices of a host (fcm_devices.c) through NCCL: the bytes of
 * every part go from its device to every other by ncclAllGather, over
 * NVLink where the devices have it. Built only where CMake found NCCL's
 * header (HAZE_NCCL); libnccl is loaded at run time (dlopen), not linked,
 * and without it (or without the header at build time) the parts exchange
 * through host memory.
 *
 * One communicator per device from ncclCommInitAll (one process, every
 * device), each used by its part's thread only. NCCL gathers equal slots,
 * so every rank sends a slot of the largest count (the counts go round the
 * threads' barrier first) and the receiver keeps each part's count of it.
 */
#ifdef HAZE_HAVE_NCCL
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "fcm/fcm_internal.h"

typedef ncclResult_t (*init_all_fn)(ncclComm_t *, int, const int *);
typedef ncclResult_t (*all_gather_fn)(const void *, void *, size_t, ncclDataType_t, ncclComm_t,
                                      cudaStream_t);
typedef ncclResult_t (*destroy_fn)(ncclComm_t);
typedef const char *(*error_string_fn)(ncclResult_t);

struct haze__fcm_nccl {
    void *lib; /* libnccl, from dlopen */
    init_all_fn init_all;
    all_gather_fn all_gather;
    destroy_fn destroy;
    error_string_fn error_string;
    int count;
    ncclComm_t *comm;
    struct rank_buf {
        void *send, *recv; /* device: one slot, count slots */
        size_t slot;       /* bytes of a slot they hold */
    } * buf;
};

static int nccl_error(const haze__fcm_nccl *nc, haze_ctx *ctx, ncclResult_t r, const char *call) {
    return haze__error(ctx, HAZE_ERR_CUDA, "fcm: NCCL: %s: %s", call, nc->error_string(r));
}

extern "C" int haze__fcm_nccl_new(haze_ctx *ctx, const int *devices, int count,
                                  haze__fcm_nccl **out) {
    *out = NULL;
    haze__fcm_nccl *nc = (haze__fcm_nccl *)calloc(1, sizeof *nc);
    if (!nc) return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    if (!(nc->lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL)) &&
        !(nc->lib = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL))) {
        free(nc);
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fcm: NCCL (libnccl.so.2) is not found");
    }
    nc->init_all = (init_all_fn)dlsym(nc->lib, "ncclCommInitAll");
    nc->all_gather = (all_gather_fn)dlsym(nc->lib, "ncclAllGather");
    nc->destroy = (destroy_fn)dlsym(nc->lib, "ncclCommDestroy");
    nc->error_string = (error_string_fn)dlsym(nc->lib, "ncclGetErrorString");
    nc->count = count;
    nc->comm = (ncclComm_t *)calloc((size_t)count, sizeof *nc->comm);
    nc->buf = (struct haze__fcm_nccl::rank_buf *)calloc((size_t)count, sizeof *nc->buf);
    int st = HAZE_OK;
    if (!nc->init_all || !nc->all_gather || !nc->destroy || !nc->error_string)
        st = haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fcm: libnccl lacks a function haze uses");
    else if (!nc->comm || !nc->buf)
        st = haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory");
    if (!st) {
        const ncclResult_t r = nc->init_all(nc->comm, count, devices);
        if (r != ncclSuccess) st = nccl_error(nc, ctx, r, "ncclCommInitAll");
    }
    if (st) {
        dlclose(nc->lib);
        free(nc->comm), free(nc->buf), free(nc);
        return st;
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
    const ncclResult_t r = nc->all_gather(b->send, b->recv, bytes, ncclUint8, nc->comm[rank], s);
    if (r != ncclSuccess) return nccl_error(nc, pctx, r, "ncclAllGather");
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
        if (nc->comm[k]) nc->destroy(nc->comm[k]);
    dlclose(nc->lib);
    free(nc->comm);
    free(nc->buf);
    free(nc);
}
#endif
