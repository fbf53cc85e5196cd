/*
 * src/core/hd.h - one qualifier for functions that run on the host and in
 * CUDA kernels, for the library's internal headers (the public headers keep
 * their own HAZE_HD, see haze/round.h). Plain C sees static inline.
 */
#ifndef HAZE_CORE_HD_H
#define HAZE_CORE_HD_H

#ifdef __CUDACC__
#define HAZE__HD __host__ __device__ static inline
/* Rarely taken, large: compiled once on the device instead of inlined into
 * every kernel (keeps the kernels' registers and the build time down). */
#define HAZE__HD_COLD __host__ __device__ static __noinline__
#else
#define HAZE__HD      static inline
#define HAZE__HD_COLD static inline
#endif

#endif
