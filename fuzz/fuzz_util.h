/*
 * fuzz/fuzz_util.h - what the fuzz targets share: one CPU context for the
 * whole run, and the input written to a temporary file for the readers that
 * take a path.
 *
 * The targets take inputs of any size, as the command line does (it reads
 * whole files and has no limit of its own): a smaller limit here would hide
 * what only large inputs reach (deep nesting, long loops, big counts).
 * libFuzzer's -max_len bounds what it makes (docs/fuzzing.md).
 */
#ifndef HAZE_FUZZ_UTIL_H
#define HAZE_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "haze/haze.h"

/* A single-threaded CPU context, made on first use and kept. */
static inline haze_ctx *fuzz_ctx(void) {
    static haze_ctx *ctx = NULL;
    if (!ctx) {
        haze_ctx_options o = haze_ctx_options_default();
        o.backend = HAZE_BACKEND_CPU;
        o.threads = 1;
        if (haze_ctx_new(&o, &ctx) != HAZE_OK) abort();
    }
    return ctx;
}

/*
 * A template "DIR/haze-fuzz-STEMXXXXXX SUFFIX" in buf (cap bytes): DIR is
 * $TMPDIR or /tmp. A long campaign runs much faster with TMPDIR on a tmpfs
 * (/dev/shm): every execution creates and removes files.
 */
static inline void fuzz_temp_name(char *buf, size_t cap, const char *stem, const char *suffix) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir || strlen(dir) > cap / 2) dir = "/tmp";
    snprintf(buf, cap, "%s/haze-fuzz-%sXXXXXX%s", dir, stem, suffix);
}

/* Writes data to a new file from the mkstemps template path (its name ends
 * in suffix after the XXXXXX); 0 on success, the file then exists. */
static inline int fuzz_temp_file(char *path, const char *suffix, const uint8_t *data, size_t size) {
    int fd = mkstemps(path, (int)strlen(suffix));
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(fd);
    if (done != size) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* The input less its first byte (which a target uses to pick options) as a
 * NUL-terminated string, malloc'd; NULL when empty or out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
    if (size < 1) return NULL;
    char *text = malloc(size);
    if (!text) return NULL;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    return text;
}

#endif
