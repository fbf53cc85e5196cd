/*
 * tests/plot_probe.c - reads a PNG back for the plot tests (tests/cli/plot.sh),
 * so that a picture can be checked without eyes:
 *
 *   plot_probe FILE size                          prints "WIDTH HEIGHT"
 *   plot_probe FILE colours                       prints the number of distinct colours
 *   plot_probe FILE count RRGGBB TOL X0 Y0 X1 Y1  prints how many pixels of the region
 *                                                 (fractions of width and height, from
 *                                                 the top left) are within TOL of the
 *                                                 colour in every channel
 *
 * Exit status 2 when the file is not a readable PNG.
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *load(const char *path, int *w, int *h) {
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) return NULL;
    img.format = PNG_FORMAT_RGB;
    unsigned char *px = malloc(PNG_IMAGE_SIZE(img));
    if (!px || !png_image_finish_read(&img, NULL, px, 0, NULL)) {
        free(px);
        png_image_free(&img);
        return NULL;
    }
    *w = (int)img.width;
    *h = (int)img.height;
    return px;
}

static int cmp_rgb(const void *a, const void *b) {
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: plot_probe FILE size|colours|count ...\n");
        return 1;
    }
    int w, h;
    unsigned char *px = load(argv[1], &w, &h);
    if (!px) {
        fprintf(stderr, "plot_probe: %s: not a readable PNG\n", argv[1]);
        return 2;
    }
    int rc = 0;
    if (strcmp(argv[2], "size") == 0) {
        printf("%d %d\n", w, h);
    } else if (strcmp(argv[2], "colours") == 0) {
        size_t n = (size_t)w * (size_t)h, distinct = 0;
        unsigned *v = malloc(n * sizeof *v + 1);
        if (!v) return 1;
        for (size_t i = 0; i < n; i++)
            v[i] = (unsigned)px[3 * i] << 16 | (unsigned)px[3 * i + 1] << 8 | px[3 * i + 2];
        qsort(v, n, sizeof *v, cmp_rgb);
        for (size_t i = 0; i < n; i++) distinct += i == 0 || v[i] != v[i - 1];
        printf("%zu\n", distinct);
        free(v);
    } else if (strcmp(argv[2], "count") == 0 && argc == 9) {
        unsigned long c = strtoul(argv[3], NULL, 16);
        int want[3] = {(int)(c >> 16 & 255), (int)(c >> 8 & 255), (int)(c & 255)};
        int tol = atoi(argv[4]);
        int x0 = (int)(atof(argv[5]) * w), y0 = (int)(atof(argv[6]) * h);
        int x1 = (int)(atof(argv[7]) * w), y1 = (int)(atof(argv[8]) * h);
        long n = 0;
        for (int y = y0; y < y1 && y < h; y++)
            for (int x = x0; x < x1 && x < w; x++) {
                const unsigned char *p = px + 3 * ((size_t)y * (size_t)w + (size_t)x);
                int ok = 1;
                for (int k = 0; k < 3; k++) ok &= abs(p[k] - want[k]) <= tol;
                n += ok;
            }
        printf("%ld\n", n);
    } else {
        fprintf(stderr, "plot_probe: unknown query\n");
        rc = 1;
    }
    free(px);
    return rc;
}
