/*
 * src/prec/prec_cuda.cu - bisection of the input box on the GPU: one thread
 * per sub-box runs the double-interval engine of prec_box.h (haze's certified
 * interval arithmetic, directed rounding with the CUDA intrinsics), the same
 * code the CPU runs in prec_box.c. The host side (compiling the program,
 * joining the sub-boxes' enclosures) is prec_gpu.c.
 */
#include <stdlib.h>
#include <string.h>

#include "core/cuda.h"
#include "prec/prec_box_internal.h"

static __global__ void boxes_kernel(const pbox_ins *ins, pbox_prog p, long first, long count,
                                    double *out, int *err, haze_ivd *scratch) {
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    haze_ivd Vs[PBOX_MAX_NODES], Es[PBOX_MAX_NODES], box[PBOX_MAX_VARS];
    haze_ivd *V = Vs, *E = Es;
    if (scratch) { /* a program longer than the local arrays: this thread's slice */
        V = scratch + (size_t)t * 2 * (size_t)p.n;
        E = V + p.n;
    }
    p.ins = NULL; /* the host pointer is not valid here */
    pbox_box(&p, first + t, box);
    int e = pbox_run(ins, p.n, box, V, E);
    err[t] = e;
    for (int g = 0; g < p.ng; g++) {
        out[(t * p.ng + g) * 2] = e ? 0 : V[p.goal[g]].lo;
        out[(t * p.ng + g) * 2 + 1] = e ? 0 : V[p.goal[g]].hi;
    }
}

/* Runs boxes first..first+count-1 into host arrays out and err. */
int haze__prec_boxes_cuda(haze_ctx *ctx, const pbox_prog *p, long first, long count, double *out,
                          int *err) {
    int rc = haze__cuda_begin(ctx);
    if (rc) return rc;
    cudaStream_t st = haze__stream(ctx);
    int long_prog = p->n > PBOX_MAX_NODES;
    size_t per = (size_t)p->ng * 2 * sizeof(double) + sizeof(int);
    if (long_prog) per += (size_t)p->n * 2 * sizeof(haze_ivd);
    size_t budget = haze__cuda_budget(ctx);
    long chunk = PBOX_CHUNK;
    if (budget && (size_t)chunk * per > budget / 2) chunk = (long)(budget / 2 / per);
    if (chunk < 1) return haze__error(ctx, HAZE_ERR_NOMEM, "GPU bisection: no device memory");
    if (long_prog && chunk > (1L << 16)) chunk = 1L << 16; /* enough threads to fill the GPU */
    if (chunk > count) chunk = count;
    size_t b_ins = (size_t)p->n * sizeof(pbox_ins);
    size_t b_out = (size_t)chunk * p->ng * 2 * sizeof(double);
    size_t b_err = (size_t)chunk * sizeof(int);
    size_t b_scratch = long_prog ? (size_t)chunk * 2 * (size_t)p->n * sizeof(haze_ivd) : 0;
    pbox_ins *d_ins = NULL;
    double *d_out = NULL;
    int *d_err = NULL;
    haze_ivd *d_scratch = NULL;
    rc = haze__dev_alloc(ctx, (void **)&d_ins, b_ins, "GPU bisection: the program");
    if (!rc) rc = haze__dev_alloc(ctx, (void **)&d_out, b_out, "GPU bisection: the enclosures");
    if (!rc) rc = haze__dev_alloc(ctx, (void **)&d_err, b_err, "GPU bisection: the domain flags");
    if (!rc && long_prog)
        rc = haze__dev_alloc(ctx, (void **)&d_scratch, b_scratch, "GPU bisection: the values");
    if (rc) goto done;
    HAZE_CUDA_GOTO(ctx, rc, done,
                   cudaMemcpyAsync(d_ins, p->ins, b_ins, cudaMemcpyHostToDevice, st));
    for (long at = 0; at < count; at += chunk) {
        long c = count - at < chunk ? count - at : chunk;
        int threads = 128;
        unsigned blocks = (unsigned)((c + threads - 1) / threads);
        boxes_kernel<<<blocks, threads, 0, st>>>(d_ins, *p, first + at, c, d_out, d_err, d_scratch);
        HAZE_CUDA_GOTO(ctx, rc, done, cudaGetLastError());
        HAZE_CUDA_GOTO(ctx, rc, done,
                       cudaMemcpyAsync(out + at * p->ng * 2, d_out,
                                       (size_t)c * p->ng * 2 * sizeof(double),
                                       cudaMemcpyDeviceToHost, st));
        HAZE_CUDA_GOTO(
            ctx, rc, done,
            cudaMemcpyAsync(err + at, d_err, (size_t)c * sizeof(int), cudaMemcpyDeviceToHost, st));
        HAZE_CUDA_GOTO(ctx, rc, done, cudaStreamSynchronize(st));
    }
done:
    haze__dev_free(ctx, d_ins, b_ins);
    haze__dev_free(ctx, d_out, b_out);
    haze__dev_free(ctx, d_err, b_err);
    haze__dev_free(ctx, d_scratch, b_scratch);
    return rc;
}
