/*
 * src/fcm/fcm_cuda_pass.h - the device arithmetic that the plain and the
 * fast pass kernels share (fcm_cuda_plain.cu, fcm_cuda_fast.cu): the
 * fuzzifier's power written so that m = 2 is one correctly rounded product,
 * and the seeded random memberships of fcm_internal.h. Not installed.
 */
#ifndef HAZE_FCM_CUDA_PASS_H
#define HAZE_FCM_CUDA_PASS_H

#include <math.h>

#include "fcm/fcm_cuda.h"

/* A product that the compiler may not contract into an FMA. */
static __device__ inline float mul(float a, float b) {
    return __fmul_rn(a, b);
}
static __device__ inline double mul(double a, double b) {
    return __dmul_rn(a, b);
}

static __device__ inline float powT(float a, float b) {
    return powf(a, b);
}
static __device__ inline double powT(double a, double b) {
    return pow(a, b);
}
template <typename T> static __device__ inline T powm(T u, double m) {
    return m == 2.0 ? mul(u, u) : powT(u, (T)m);
}

static __device__ inline double rand_u(uint64_t seed, uint64_t i, uint64_t j, uint64_t c) {
    return haze__fcm_rand(seed, i, j, c);
}

#endif
