/*
 * examples/fuzzy_kernel.cu - the paper's Fig. 2 written by a user: an AXPY
 * series on midpoint-radius fuzzy numbers with 4 alpha-cuts, inside one's
 * own CUDA kernel, through the C++ layer of haze/fuzzy.h (header only).
 *
 *   nvcc -arch=sm_90 -std=c++17 -I<prefix>/include examples/fuzzy_kernel.cu -o fuzzy_kernel
 *
 * With N a compile-time constant the loops over cuts unroll and each number
 * stays in registers (ptxas reports 27 registers, no spills, for this
 * kernel on sm_90). Never build it with -use_fast_math or -ftz=true.
 */
#include <cstdio>
#include <cuda_runtime.h>

#include "haze/fuzzy.h"

using fz = haze::fuzzy_mr<float, 4>; /* v[0] kernel, v[1..4] radii */

__global__ void axpy(int n, int iters, const fz *a, fz b, fz *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fz x = a[i], c{};
    for (int it = 0; it < iters; it++) c = x * c + b;
    out[i] = c;
}

int main() {
    const int n = 1024;
    fz *a, *out, b{};
    b.v[0] = 1.0f;
    for (int k = 1; k <= 4; k++) b.v[k] = 0.01f * (float)k;
    if (cudaMallocManaged(&a, n * sizeof(fz)) != cudaSuccess ||
        cudaMallocManaged(&out, n * sizeof(fz)) != cudaSuccess) {
        std::fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        a[i].v[0] = 0.5f;
        for (int k = 1; k <= 4; k++) a[i].v[k] = 0.001f * (float)k;
    }
    axpy<<<(n + 127) / 128, 128>>>(n, 100, a, b, out);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    /* the series converges to b / (1 - a): kernel 2, radii growing with the cut */
    std::printf("kernel %.9g radii %.3g %.3g %.3g %.3g\n", out[0].v[0], out[0].v[1], out[0].v[2],
                out[0].v[3], out[0].v[4]);
    cudaFree(a);
    cudaFree(out);
    return 0;
}
