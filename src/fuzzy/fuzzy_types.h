/*
 * src/fuzzy/fuzzy_types.h - the layout of haze_fuzzy_array, opaque in the
 * public API (haze/fuzzy.h).
 */
#ifndef HAZE_FUZZY_TYPES_H
#define HAZE_FUZZY_TYPES_H

#include "haze/fuzzy.h"

struct haze_fuzzy_array {
    haze_fuzzy_encoding encoding;
    haze_precision precision;
    int ncuts;
    size_t count;
    size_t stride;  /* values per number */
    double *alphas; /* ncuts levels, strictly decreasing, in (0, 1] */
    void *data;     /* double * or float *; device memory when on_device */
    int on_device;  /* made by haze_fuzzy_array_new_device */
};

#endif
