/* TEMPORARY switch: the core layer's CUDA header, or the shim until it lands. */
#if __has_include("core/cuda.h")
#include "core/cuda.h"
#else
#include "fcm/fcm_core_shim.h"
#endif
