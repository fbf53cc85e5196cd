/*
 * src/fuzzy/fuzzy_api.c - the accessors of haze_fuzzy_array (haze/fuzzy.h).
 */
#include <stddef.h>

#include "fuzzy/fuzzy_types.h"

haze_fuzzy_encoding haze_fuzzy_array_encoding(const haze_fuzzy_array *a) {
    return a ? a->encoding : HAZE_FUZZY_LU;
}

haze_precision haze_fuzzy_array_precision(const haze_fuzzy_array *a) {
    return a ? a->precision : HAZE_PRECISION_F64;
}

int haze_fuzzy_array_cut_count(const haze_fuzzy_array *a) {
    return a ? a->ncuts : 0;
}

size_t haze_fuzzy_array_count(const haze_fuzzy_array *a) {
    return a ? a->count : 0;
}

size_t haze_fuzzy_array_stride(const haze_fuzzy_array *a) {
    return a ? a->stride : 0;
}

const double *haze_fuzzy_array_alphas(const haze_fuzzy_array *a) {
    return a ? a->alphas : NULL;
}

void *haze_fuzzy_array_data(const haze_fuzzy_array *a) {
    return a ? a->data : NULL;
}

int haze_fuzzy_array_on_device(const haze_fuzzy_array *a) {
    return a ? a->on_device : 0;
}
