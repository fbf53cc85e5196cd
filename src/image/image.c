/*
 * src/image/image.c - grey-level image input and output for the edge
 * module: PNG (libpng), JPEG (libjpeg), PGM/PPM (Netpbm formats, by hand,
 * after the Netpbm specification: "P2".."P6", maxval up to 65535). An output
 * is written in the format its name's extension says.
 *
 * Every reader refuses an image of more than 2^31 pixels before allocating
 * it; the JPEG reader also stops at the end of the data (libjpeg would pad a
 * truncated file with grey rows, so a few hundred bytes claiming 65500 x
 * 65500 pixels would decode for minutes), caps libjpeg's own memory and the
 * number of progressive scans.
 *
 * Colour becomes luminance with the BT.601 weights in integer arithmetic,
 * Y = (299 R + 587 G + 114 B + 500) / 1000, so every reader gives the same
 * byte for the same colour.
 */
#include <ctype.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jpeglib.h>
/* after jpeglib.h, which it needs */
#include <jerror.h>
#include <png.h>

#include "core/internal.h"
#include "haze/image.h"
#include "haze/io.h"
#include "io/io_types.h"

/* The most pixels an image may have: 2 GiB of grey bytes. */
#define MAX_PIXELS ((size_t)1 << 31)

static uint8_t luma(unsigned r, unsigned g, unsigned b) {
    return (uint8_t)((299u * r + 587u * g + 114u * b + 500u) / 1000u);
}

int haze_image_new(haze_ctx *ctx, int width, int height, haze_image **out) {
    if (!out || width < 1 || height < 1 || (size_t)width > SIZE_MAX / (size_t)height)
        return haze__error(ctx, HAZE_ERR_INVALID, "image size %d x %d is not valid", width, height);
    haze_image *im = malloc(sizeof *im);
    uint8_t *d = calloc((size_t)width * (size_t)height, 1);
    if (!im || !d) {
        free(im);
        free(d);
        return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory for a %d x %d image", width, height);
    }
    im->width = width;
    im->height = height;
    im->data = d;
    *out = im;
    return HAZE_OK;
}

void haze_image_free(haze_image *img) {
    if (!img) return;
    free(img->data);
    free(img);
}

/* ------------------------------------------------------------------ Netpbm */

typedef struct pnm_reader {
    const unsigned char *b;
    size_t len, pos;
} pnm_reader;

static void pnm_skip(pnm_reader *r) {
    for (;;) {
        while (r->pos < r->len && isspace(r->b[r->pos])) r->pos++;
        if (r->pos < r->len && r->b[r->pos] == '#') {
            while (r->pos < r->len && r->b[r->pos] != '\n') r->pos++;
            continue;
        }
        return;
    }
}

static int pnm_uint(pnm_reader *r, long max, long *out) {
    pnm_skip(r);
    if (r->pos >= r->len || !isdigit(r->b[r->pos])) return -1;
    long v = 0;
    while (r->pos < r->len && isdigit(r->b[r->pos])) {
        v = v * 10 + (r->b[r->pos++] - '0');
        if (v > max) return -1;
    }
    *out = v;
    return 0;
}

static int load_pnm(haze_ctx *ctx, const char *path, const unsigned char *b, size_t len,
                    haze_image **out) {
    pnm_reader r = {b, len, 2};
    int kind = b[1] - '0'; /* 2, 3 ascii; 5, 6 binary */
    long w, h, maxv;
    if (pnm_uint(&r, INT_MAX, &w) || pnm_uint(&r, INT_MAX, &h) || pnm_uint(&r, 65535, &maxv) ||
        w < 1 || h < 1 || maxv < 1)
        return haze__error(ctx, HAZE_ERR_PARSE,
                           "%s: bad Netpbm header (expected width, height, maxval 1..65535)", path);
    if ((size_t)w * (size_t)h > MAX_PIXELS)
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: image of %ld x %ld is too large", path, w, h);
    int ch = (kind == 3 || kind == 6) ? 3 : 1;
    int bytes = maxv > 255 ? 2 : 1;
    /* an ASCII sample takes a digit and a separator: a header cannot ask for
     * more pixels than the bytes after it hold (a 27-byte file allocated 2 GB) */
    size_t rest = r.pos < len ? len - r.pos : 0;
    if (kind < 5 && (size_t)w * (size_t)h * (size_t)ch > rest / 2 + 1)
        return haze__error(ctx, HAZE_ERR_PARSE,
                           "%s: truncated Netpbm data (%ld x %ld pixels in %zu bytes)", path, w, h,
                           rest);
    haze_image *im;
    int st = haze_image_new(ctx, (int)w, (int)h, &im);
    if (st) return st;
    size_t n = (size_t)w * (size_t)h;
    if (kind >= 5) {
        r.pos++; /* the single whitespace after maxval */
        size_t need = n * (size_t)ch * (size_t)bytes;
        if (r.pos > len || len - r.pos < need) {
            haze_image_free(im);
            return haze__error(ctx, HAZE_ERR_PARSE,
                               "%s: truncated Netpbm data (%zu of %zu bytes of pixels)", path,
                               r.pos > len ? 0 : len - r.pos, need);
        }
    }
    for (size_t i = 0; i < n; i++) {
        unsigned v[3];
        for (int c = 0; c < ch; c++) {
            long s;
            if (kind >= 5) {
                const unsigned char *p = b + r.pos;
                s = bytes == 2 ? (p[0] << 8 | p[1]) : p[0];
                r.pos += (size_t)bytes;
            } else if (pnm_uint(&r, maxv, &s)) {
                haze_image_free(im);
                return haze__error(ctx, HAZE_ERR_PARSE,
                                   "%s: pixel %zu: expected a sample from 0 to %ld", path, i + 1,
                                   maxv);
            }
            if (s > maxv) {
                haze_image_free(im);
                return haze__error(ctx, HAZE_ERR_PARSE, "%s: sample %ld above maxval %ld", path, s,
                                   maxv);
            }
            v[c] = (unsigned)((s * 255 + maxv / 2) / maxv);
        }
        im->data[i] = ch == 3 ? luma(v[0], v[1], v[2]) : (uint8_t)v[0];
    }
    *out = im;
    return HAZE_OK;
}

/* --------------------------------------------------------------------- PNG */

typedef struct mem_src {
    const unsigned char *b;
    size_t len, pos;
} mem_src;

static void png_mem_read(png_structp p, png_bytep dst, png_size_t n) {
    mem_src *m = (mem_src *)png_get_io_ptr(p);
    if (m->len - m->pos < n) png_error(p, "truncated file");
    memcpy(dst, m->b + m->pos, n);
    m->pos += n;
}

typedef struct png_err {
    char msg[200];
} png_err;

/* libpng's and libjpeg's messages for a failed allocation ("Out of memory",
 * "insufficient memory", "Insufficient memory (case 4)") */
static int nomem_msg(const char *m) {
    return strstr(m, "ut of memory") || strstr(m, "nsufficient memory");
}

static void png_on_error(png_structp p, png_const_charp msg) {
    png_err *e = (png_err *)png_get_error_ptr(p);
    snprintf(e->msg, sizeof e->msg, "%s", msg);
    png_longjmp(p, 1);
}
static void png_on_warning(png_structp p, png_const_charp msg) {
    (void)p;
    (void)msg;
}

static int load_png(haze_ctx *ctx, const char *path, const unsigned char *b, size_t len,
                    haze_image **out) {
    png_err err = {"unknown error"};
    png_structp p =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &err, png_on_error, png_on_warning);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    if (!p || !info) {
        png_destroy_read_struct(&p, NULL, NULL);
        return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    }
    mem_src m = {b, len, 0};
    haze_image *volatile im = NULL;
    png_bytep *volatile rows = NULL;
    png_bytep volatile buf = NULL;
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_read_struct(&p, &info, NULL);
        haze_image_free(im);
        free(rows);
        free(buf);
        if (nomem_msg(err.msg)) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: corrupt PNG: %s", path, err.msg);
    }
    png_set_read_fn(p, &m, png_mem_read);
    png_read_info(p, info);
    png_uint_32 w = png_get_image_width(p, info), h = png_get_image_height(p, info);
    if ((size_t)w * h > MAX_PIXELS) png_error(p, "image too large");
    /* 16 to 8 bits rounded, (v * 255 + 32895) >> 16: for every v the
     * PGM reader's (v * 255 + 32767) / 65535 (png_set_strip_16 would drop
     * the low byte) */
    png_set_scale_16(p);
    png_set_strip_alpha(p);
    png_set_palette_to_rgb(p);
    png_set_expand_gray_1_2_4_to_8(p);
    png_set_packing(p);
    png_read_update_info(p, info);
    int ch = png_get_channels(p, info);
    size_t rowbytes = png_get_rowbytes(p, info);
    buf = malloc(rowbytes * h);
    rows = malloc(sizeof(png_bytep) * h);
    haze_image *tmp = NULL;
    if (!buf || !rows || haze_image_new(ctx, (int)w, (int)h, &tmp)) png_error(p, "out of memory");
    im = tmp;
    for (png_uint_32 y = 0; y < h; y++) rows[y] = buf + y * rowbytes;
    png_read_image(p, rows);
    png_read_end(p, NULL);
    for (png_uint_32 y = 0; y < h; y++)
        for (png_uint_32 x = 0; x < w; x++) {
            const png_byte *s = rows[y] + (size_t)x * (size_t)ch;
            im->data[(size_t)y * w + x] = ch >= 3 ? luma(s[0], s[1], s[2]) : s[0];
        }
    png_destroy_read_struct(&p, &info, NULL);
    free(rows);
    free(buf);
    *out = im;
    return HAZE_OK;
}

/* -------------------------------------------------------------------- JPEG */

typedef struct jerr {
    struct jpeg_error_mgr pub;
    jmp_buf jb;
    char msg[JMSG_LENGTH_MAX];
} jerr;

static void jpeg_on_error(j_common_ptr c) {
    jerr *e = (jerr *)c->err;
    (*c->err->format_message)(c, e->msg);
    longjmp(e->jb, 1);
}
static void jpeg_on_message(j_common_ptr c) {
    (void)c;
}
/* Warnings are ignored, except where the pixel data ends early or cannot
 * be decoded: libjpeg would go on with made-up grey rows for as many as the
 * header claims (a 453-byte file ending in a marker would fill 40000 x
 * 40000 pixels). */
static void jpeg_on_emit(j_common_ptr c, int level) {
    if (level >= 0) return;
    const int code = c->err->msg_code;
    jerr *e = (jerr *)c->err;
    if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER) {
        snprintf(e->msg, sizeof e->msg, "truncated file (data ends before the last row)");
        longjmp(e->jb, 1);
    }
    if (code == JWRN_HUFF_BAD_CODE || code == JWRN_ARITH_BAD_CODE) {
        snprintf(e->msg, sizeof e->msg, "corrupt pixel data (a code that no table holds)");
        longjmp(e->jb, 1);
    }
}
/* A progressive file may have any number of scans, each a pass over the
 * whole image; real encoders write about 10. */
#define JPEG_MAX_SCANS 256
static void jpeg_on_progress(j_common_ptr c) {
    j_decompress_ptr d = (j_decompress_ptr)c;
    if (d->input_scan_number > JPEG_MAX_SCANS) {
        jerr *e = (jerr *)c->err;
        snprintf(e->msg, sizeof e->msg, "more than %d progressive scans", JPEG_MAX_SCANS);
        longjmp(e->jb, 1);
    }
}

static int load_jpeg(haze_ctx *ctx, const char *path, const unsigned char *b, size_t len,
                     haze_image **out) {
    struct jpeg_decompress_struct c;
    jerr e;
    haze_image *volatile im = NULL;
    unsigned char *volatile row = NULL;
    c.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = jpeg_on_error;
    e.pub.output_message = jpeg_on_message;
    e.pub.emit_message = jpeg_on_emit;
    struct jpeg_progress_mgr progress = {jpeg_on_progress, 0, 0, 0, 0};
    if (setjmp(e.jb)) {
        jpeg_destroy_decompress(&c);
        haze_image_free(im);
        free(row);
        if (nomem_msg(e.msg)) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
        if (e.pub.msg_code == JERR_BAD_PRECISION)
            return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                               "%s: unsupported JPEG: %s (JPEG of 8-bit samples is read)", path,
                               e.msg);
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: corrupt JPEG: %s", path, e.msg);
    }
    jpeg_create_decompress(&c);
    c.progress = &progress;
    /* libjpeg's own buffers (a progressive file keeps all coefficients):
     * about what the largest image allowed needs, then an error */
    c.mem->max_memory_to_use = (long)(MAX_PIXELS * 2);
    jpeg_mem_src(&c, b, (unsigned long)len);
    jpeg_read_header(&c, TRUE);
    if ((size_t)c.image_width * (size_t)c.image_height > MAX_PIXELS) {
        jpeg_destroy_decompress(&c);
        return haze__error(ctx, HAZE_ERR_PARSE, "%s: image of %u x %u is too large", path,
                           (unsigned)c.image_width, (unsigned)c.image_height);
    }
    if (c.jpeg_color_space == JCS_CMYK || c.jpeg_color_space == JCS_YCCK) {
        jpeg_destroy_decompress(&c);
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: a CMYK JPEG (greyscale and colour JPEG are read; convert it to "
                           "RGB first)",
                           path);
    }
    c.out_color_space = c.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&c);
    int w = (int)c.output_width, h = (int)c.output_height, ch = c.output_components;
    /* The pixels grow with the rows decoded (doubling, up to the height),
     * so that a small file whose header claims a huge image is refused at
     * the end of its data before that much memory is asked for. */
    row = malloc((size_t)w * (size_t)ch);
    im = malloc(sizeof *im);
    size_t cap = (size_t)h < ((size_t)1 << 20) / (size_t)w + 1 ? (size_t)h
                                                               : ((size_t)1 << 20) / (size_t)w + 1;
    if (im) {
        im->width = w, im->height = h;
        im->data = malloc(cap * (size_t)w);
    }
    if (!row || !im || !im->data) {
        jpeg_destroy_decompress(&c);
        free(row);
        haze_image_free(im);
        return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    }
    while (c.output_scanline < c.output_height) {
        size_t y = c.output_scanline;
        if (y == cap) {
            size_t ncap = cap * 2 < (size_t)h ? cap * 2 : (size_t)h;
            uint8_t *d = realloc(im->data, ncap * (size_t)w);
            if (!d) {
                snprintf(e.msg, sizeof e.msg, "Out of memory");
                longjmp(e.jb, 1);
            }
            im->data = d, cap = ncap;
        }
        JSAMPROW rp = row;
        jpeg_read_scanlines(&c, &rp, 1);
        uint8_t *dst = im->data + y * (size_t)w;
        if (ch == 3)
            for (int x = 0; x < w; x++) dst[x] = luma(row[3 * x], row[3 * x + 1], row[3 * x + 2]);
        else
            memcpy(dst, row, (size_t)w);
    }
    jpeg_finish_decompress(&c);
    jpeg_destroy_decompress(&c);
    free(row);
    *out = im;
    return HAZE_OK;
}

int haze_image_load(haze_ctx *ctx, const char *path, haze_image **out) {
    if (!path || !out) return haze__error(ctx, HAZE_ERR_INVALID, "haze_image_load: NULL argument");
    *out = NULL;
    char *buf = NULL;
    size_t len = 0;
    int st = haze_io_read_file(ctx, path, &buf, &len);
    if (st) return st;
    const unsigned char *b = (const unsigned char *)buf;
    if (len >= 8 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0)
        st = load_png(ctx, path, b, len, out);
    else if (len >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF)
        st = load_jpeg(ctx, path, b, len, out);
    else if (len >= 3 && b[0] == 'P' && (b[1] == '2' || b[1] == '3' || b[1] == '5' || b[1] == '6'))
        st = load_pnm(ctx, path, b, len, out);
    else if (len == 0)
        st = haze__error(ctx, HAZE_ERR_PARSE, "%s: an empty file, not an image", path);
    else if (len >= 2 && b[0] == 'P' && (b[1] == '1' || b[1] == '4' || b[1] == '7'))
        st = haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                         "%s: a Netpbm %s (P%c); PGM and PPM (P2, P3, P5, P6) are read", path,
                         b[1] == '7' ? "PAM file" : "PBM bitmap", b[1]);
    else
        st = haze__error(ctx, HAZE_ERR_PARSE,
                         "%s: not a PNG, JPEG, PGM or PPM image (unknown magic bytes)", path);
    free(buf);
    return st;
}

/* ----------------------------------------------------------------- writing */

static void png_file_write(png_structp p, png_bytep d, png_size_t n) {
    FILE *fp = (FILE *)png_get_io_ptr(p);
    if (fwrite(d, 1, n, fp) != n) png_error(p, "write error");
}
static void png_file_flush(png_structp p) {
    fflush((FILE *)png_get_io_ptr(p));
}

/* The output format an image file's name asks for. */
typedef enum { IMG_PNG, IMG_JPEG, IMG_PGM, IMG_PPM, IMG_UNKNOWN } img_format;

static img_format format_of(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (strcmp(path, "-") == 0 || !dot || dot == base) return IMG_PNG; /* no extension */
    if (!strcasecmp(dot, ".png")) return IMG_PNG;
    if (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg")) return IMG_JPEG;
    if (!strcasecmp(dot, ".pgm")) return IMG_PGM;
    if (!strcasecmp(dot, ".ppm")) return IMG_PPM;
    return IMG_UNKNOWN;
}

int haze_image_format_check(haze_ctx *ctx, const char *path) {
    if (!path) return haze__error(ctx, HAZE_ERR_INVALID, "haze_image_format_check: NULL argument");
    if (format_of(path) != IMG_UNKNOWN) return HAZE_OK;
    return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                       "%s: unknown image type '%s' (write .png, .jpg, .jpeg, .pgm or .ppm)", path,
                       strrchr(path, '.'));
}

static int save_png(haze_ctx *ctx, const haze_image *img, const char *path, FILE *fp) {
    png_err err = {"unknown error"};
    png_structp p =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &err, png_on_error, png_on_warning);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    if (!p || !info) {
        png_destroy_write_struct(&p, NULL);
        return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    }
    if (setjmp(png_jmpbuf(p))) {
        png_destroy_write_struct(&p, &info);
        if (nomem_msg(err.msg)) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
        return haze__error(ctx, HAZE_ERR_IO, "%s: PNG write failed: %s", path, err.msg);
    }
    png_set_write_fn(p, fp, png_file_write, png_file_flush);
    png_set_IHDR(p, info, (png_uint_32)img->width, (png_uint_32)img->height, 8, PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    /* zlib's fastest level, as OpenCV writes PNG by default: a 4K frame in
     * 0.15 s instead of 1.2 s at libpng's default level 6, about 15% larger
     * (docs/benchmarks.md, "FIRE over files") */
    png_set_compression_level(p, 1);
    png_write_info(p, info);
    for (int y = 0; y < img->height; y++)
        png_write_row(p, img->data + (size_t)y * (size_t)img->width);
    png_write_end(p, NULL);
    png_destroy_write_struct(&p, &info);
    return HAZE_OK;
}

/* Baseline grey JPEG at quality 95 (edges are sharp: lower qualities ring). */
static int save_jpeg(haze_ctx *ctx, const haze_image *img, const char *path, FILE *fp) {
    if (img->width > 65500 || img->height > 65500)
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                           "%s: JPEG holds at most 65500 x 65500 pixels, not %d x %d", path,
                           img->width, img->height);
    struct jpeg_compress_struct c;
    jerr e;
    c.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = jpeg_on_error;
    e.pub.output_message = jpeg_on_message;
    if (setjmp(e.jb)) {
        jpeg_destroy_compress(&c);
        if (nomem_msg(e.msg)) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
        return haze__error(ctx, HAZE_ERR_IO, "%s: JPEG write failed: %s", path, e.msg);
    }
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, fp);
    c.image_width = (JDIMENSION)img->width;
    c.image_height = (JDIMENSION)img->height;
    c.input_components = 1;
    c.in_color_space = JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW rp = img->data + (size_t)c.next_scanline * (size_t)img->width;
        jpeg_write_scanlines(&c, &rp, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    return HAZE_OK;
}

int haze_image_save(haze_ctx *ctx, const haze_image *img, const char *path) {
    if (!img || !path) return haze__error(ctx, HAZE_ERR_INVALID, "haze_image_save: NULL argument");
    img_format fmt = format_of(path);
    int st = haze_image_format_check(ctx, path);
    if (st) return st;
    haze_outfile of;
    st = haze__outfile_open(ctx, &of, path);
    if (st) return st;
    size_t n = (size_t)img->width * (size_t)img->height;
    if (fmt == IMG_PGM) {
        fprintf(of.fp, "P5\n%d %d\n255\n", img->width, img->height);
        fwrite(img->data, 1, n, of.fp);
    } else if (fmt == IMG_PPM) { /* grey in three equal channels */
        fprintf(of.fp, "P6\n%d %d\n255\n", img->width, img->height);
        for (size_t i = 0; i < n; i++) {
            uint8_t v = img->data[i];
            putc(v, of.fp);
            putc(v, of.fp);
            putc(v, of.fp);
        }
    } else {
        st = fmt == IMG_JPEG ? save_jpeg(ctx, img, path, of.fp) : save_png(ctx, img, path, of.fp);
        if (st) {
            haze__outfile_abort(&of);
            return st;
        }
    }
    if (ferror(of.fp)) {
        haze__outfile_abort(&of);
        return haze__error(ctx, HAZE_ERR_IO, "%s: write error", path);
    }
    return haze__outfile_commit(ctx, &of);
}
