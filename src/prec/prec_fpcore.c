/*
 * src/prec/prec_fpcore.c - reader for FPBench's FPCore format.
 */
#include "prec/prec_internal.h"

int haze__prec_parse_fpcore(haze_ctx *ctx, haze_prec_script *s, const char *text) {
    (void)text;
    return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "%s:1:1: FPCore input is not supported yet",
                       s->name);
}
