/*
 * haze/image.h - 8-bit grey images in and out: PNG and JPEG (libpng,
 * libjpeg), PGM and PPM (read by hand); PNG and PGM out. Colour is turned
 * into luminance with the ITU-R BT.601 weights (0.299 R + 0.587 G +
 * 0.114 B, in integer arithmetic, rounded), the luma of JPEG and of most
 * image tools.
 */
#ifndef HAZE_IMAGE_H
#define HAZE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct haze_image {
    int width, height;
    uint8_t *data; /* width * height bytes, row-major, top row first */
} haze_image;

/*
 * Reads PNG, JPEG, PGM or PPM (told apart by their magic bytes; "-" reads
 * standard input) into luminance. Alpha is dropped; 16-bit samples are
 * scaled to 8 bits with rounding. A corrupt or unreadable file is an error
 * naming the file.
 *
 * Ownership: *out is new, freed with haze_image_free().
 */
HAZE_API int haze_image_load(haze_ctx *ctx, const char *path, haze_image **out);
/* A new zeroed image (width, height >= 1); freed with haze_image_free(). */
HAZE_API int haze_image_new(haze_ctx *ctx, int width, int height, haze_image **out);
/* Frees an image; NULL is a no-op. */
HAZE_API void haze_image_free(haze_image *img);
/*
 * Writes an 8-bit grey image: binary PGM when the path ends in ".pgm",
 * otherwise PNG. Whole or not at all (haze_outfile); "-" is standard output
 * (PNG).
 */
HAZE_API int haze_image_save(haze_ctx *ctx, const haze_image *img, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_IMAGE_H */
