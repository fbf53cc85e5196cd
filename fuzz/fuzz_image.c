/*
 * fuzz/fuzz_image.c - the image reader (PNG and JPEG through libpng and
 * libjpeg, PGM and PPM by haze's own parser; told apart by magic bytes) on
 * arbitrary bytes, written to a temporary file. An image that loads must
 * have a positive size and data covering it; it is written back as PGM.
 * Nothing may crash, leak, read out of bounds or ask for more memory than
 * the header's size justifies.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "haze/haze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    haze_ctx *ctx = fuzz_ctx();
    char in[512];
    fuzz_temp_name(in, sizeof in, "", ".img");
    if (fuzz_temp_file(in, ".img", data, size)) return 0;
    haze_image *img = NULL;
    int st = haze_image_load(ctx, in, &img);
    unlink(in);
    if (st != HAZE_OK) {
        if (img) abort(); /* a failed load returns nothing */
        return 0;
    }
    if (!img || img->width < 1 || img->height < 1 || !img->data) abort();
    unsigned sum = 0; /* every pixel is there (ASan checks the reads) */
    for (size_t i = 0; i < (size_t)img->width * (size_t)img->height; i++) sum += img->data[i];
    if (sum == ~0u) abort(); /* not reachable: keeps the loop */
    char out[512];
    fuzz_temp_name(out, sizeof out, "", ".pgm");
    int fd = mkstemps(out, 4);
    if (fd >= 0) {
        close(fd);
        haze_image_save(ctx, img, out);
        unlink(out);
    }
    haze_image_free(img);
    return 0;
}
