/*
 * src/prec/prec_cuda.cu - bisection of the input box on the GPU: one thread
 * per sub-box runs the double-interval engine of prec_box.h (haze's certified
 * interval arithmetic, directed rounding with the CUDA intrinsics), and the
 * host joins the sub-boxes' enclosures. The paper (Linderman et al., CGO
 * 2010, Sec. 4.3) took 90 s for 600 sub-ranges on a CPU; here a launch
 * covers up to a million sub-boxes.
 */
#include <stdlib.h>
#include <string.h>

#include "prec/prec_box_internal.h"

__global__ void prec_boxes_kernel(const pbox_ins *ins, pbox_prog p, long first, long count,
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
    pbox_ins *d_ins = NULL;
    double *d_out = NULL;
    int *d_err = NULL;
    haze_ivd *d_scratch = NULL;
    int long_prog = p->n > PBOX_MAX_NODES;
    size_t per = (size_t)p->ng * 2 * sizeof(double) + sizeof(int);
    if (long_prog) per += (size_t)p->n * 2 * sizeof(haze_ivd);
    size_t budget = haze__cuda_budget(ctx);
    long chunk = PBOX_CHUNK;
    if (budget && (size_t)chunk * per > budget / 2) chunk = (long)(budget / 2 / per);
    if (chunk < 1) return haze__error(ctx, HAZE_ERR_NOMEM, "GPU bisection: no device memory");
    if (long_prog && chunk > (1L << 16)) chunk = 1L << 16; /* enough threads to fill the GPU */
    if (chunk > count) chunk = count;
    cudaError_t e1 = cudaMalloc(&d_ins, (size_t)p->n * sizeof *d_ins);
    cudaError_t e2 = cudaMalloc(&d_out, (size_t)chunk * p->ng * 2 * sizeof(double));
    cudaError_t e3 = cudaMalloc(&d_err, (size_t)chunk * sizeof(int));
    cudaError_t e4 = cudaSuccess;
    if (long_prog) e4 = cudaMalloc(&d_scratch, (size_t)chunk * 2 * (size_t)p->n * sizeof(haze_ivd));
    cudaError_t ce = e1 != cudaSuccess ? e1 : e2 != cudaSuccess ? e2 : e3 != cudaSuccess ? e3 : e4;
    if (ce == cudaSuccess)
        ce = cudaMemcpyAsync(d_ins, p->ins, (size_t)p->n * sizeof *d_ins, cudaMemcpyHostToDevice,
                             st);
    for (long done = 0; ce == cudaSuccess && done < count; done += chunk) {
        long c = count - done < chunk ? count - done : chunk;
        int threads = 128;
        unsigned blocks = (unsigned)((c + threads - 1) / threads);
        prec_boxes_kernel<<<blocks, threads, 0, st>>>(d_ins, *p, first + done, c, d_out, d_err,
                                                      d_scratch);
        ce = cudaGetLastError();
        if (ce == cudaSuccess)
            ce =
                cudaMemcpyAsync(out + done * p->ng * 2, d_out,
                                (size_t)c * p->ng * 2 * sizeof(double), cudaMemcpyDeviceToHost, st);
        if (ce == cudaSuccess)
            ce = cudaMemcpyAsync(err + done, d_err, (size_t)c * sizeof(int), cudaMemcpyDeviceToHost,
                                 st);
        if (ce == cudaSuccess) ce = cudaStreamSynchronize(st);
    }
    cudaFree(d_ins);
    cudaFree(d_out);
    cudaFree(d_err);
    cudaFree(d_scratch);
    if (ce != cudaSuccess)
        return haze__error(ctx, HAZE_ERR_CUDA, "CUDA: GPU bisection: %s", cudaGetErrorString(ce));
    return HAZE_OK;
}
