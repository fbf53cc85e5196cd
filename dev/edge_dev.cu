/*
 * dev/edge_dev.cu - dev/edge_dev.h through the edge module's private
 * header.
 */
#include "core/internal.h"
#include "edge/edge_internal.h"
#include "edge_dev.h"

extern "C" int haze_dev_edge_fire_device(haze_ctx *ctx, haze_edge *f, haze_edge_kernel kernel,
                                         const uint8_t *d_in, uint8_t *d_out, int *d_scratch,
                                         int width, int height) {
    return haze__fire_device(ctx, f, kernel, d_in, d_out, d_scratch, width, height);
}

extern "C" void *haze_dev_edge_stream(haze_ctx *ctx) {
    return ctx->stream;
}
