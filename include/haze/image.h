/*
 * haze/image.h - 8-bit grey images in and out: PNG and JPEG (libpng,
 * libjpeg), PGM and PPM (by hand), both ways. Colour is turned
 * into luminance with the ITU-R BT.601 weights (0.299 R + 0.587 G +
 * 0.114 B, in integer arithmetic, rounded), the luma of JPEG and of most
 * image tools.
 *
 * Threads: as haze/core.h says ("Threads").
 */
#ifndef HAZE_IMAGE_H
#define HAZE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "haze/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A view of 8-bit grey pixels. Programs make their own around their buffers
 * (a binding wraps an array without a copy), so this layout is fixed: it will
 * not change (a different image type would get a new name). */
typedef struct haze_image {
    int width, height;
    uint8_t *data; /* width * height bytes, row-major, top row first */
} haze_image;

/*
 * Reads PNG, JPEG, PGM or PPM (told apart by their magic bytes; "-" reads
 * standard input) into luminance. Alpha is dropped; 16-bit samples are
 * scaled to 8 bits with rounding. A corrupt or unreadable file is an error
 * naming the file, and so is an image of more than 2^31 pixels or a
 * truncated one.
 *
 * Ownership: *out is new, freed with haze_image_free().
 */
HAZE_API int haze_image_load(haze_ctx *ctx, const char *path, haze_image **out);
/* A new zeroed image (width, height >= 1); freed with haze_image_free(). */
HAZE_API int haze_image_new(haze_ctx *ctx, int width, int height, haze_image **out);
/* Frees an image; NULL is a no-op. */
HAZE_API void haze_image_free(haze_image *img);
/*
 * Writes an 8-bit grey image in the format the name's extension says (any
 * case): .png PNG, .jpg or .jpeg JPEG (baseline, quality 95, grey), .pgm
 * binary PGM, .ppm binary PPM (three equal channels). A name without an
 * extension, and "-" (standard output), get PNG; another extension is an
 * error (HAZE_ERR_UNSUPPORTED) and nothing is written. Whole or not at all
 * (haze_outfile).
 */
HAZE_API int haze_image_save(haze_ctx *ctx, const haze_image *img, const char *path);
/* HAZE_OK when haze_image_save() can write `path`'s format, else the error
 * it would give (so a batch can refuse before any work). */
HAZE_API int haze_image_format_check(haze_ctx *ctx, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* HAZE_IMAGE_H */
