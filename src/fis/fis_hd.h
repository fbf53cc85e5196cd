/*
 * src/fis/fis_hd.h - host+device qualifiers until the core layer's
 * src/core/hd.h lands (the one place to switch).
 */
#ifndef HAZE_FIS_HD_H
#define HAZE_FIS_HD_H
#ifndef HAZE__HD
#ifdef __CUDACC__
#define HAZE__HD      __host__ __device__ static inline
#define HAZE__HD_COLD __host__ __device__ static __noinline__
#else
#define HAZE__HD      static inline
#define HAZE__HD_COLD static inline
#endif
#endif
#endif
