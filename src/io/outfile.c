/*
 * src/io/outfile.c - output files that appear whole or not at all, and
 * whole-file reads.
 *
 * A result is written to a temporary file in the target's own folder (so the
 * final rename(2) stays on one file system and is atomic), flushed and synced,
 * and only then renamed over the target. A failure at any step removes the
 * temporary and leaves an existing target untouched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "haze/io.h"

int haze_outfile_open(haze_ctx *ctx, haze_outfile *f, const char *path) {
    memset(f, 0, sizeof *f);
    if (!path || !*path) return haze__error(ctx, HAZE_ERR_INVALID, "empty output path");
    if (strcmp(path, "-") == 0) {
        f->fp = stdout;
        return HAZE_OK;
    }
    size_t n = strlen(path);
    f->path = strdup(path);
    f->tmp = malloc(n + 16);
    if (!f->path || !f->tmp) {
        haze_outfile_abort(f);
        return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    }
    snprintf(f->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(f->tmp);
    if (fd < 0) {
        int e = errno;
        free(f->tmp);
        f->tmp = NULL;
        haze_outfile_abort(f);
        return haze__error(ctx, HAZE_ERR_IO, "%s: cannot create output file: %s", path,
                           strerror(e));
    }
    fchmod(fd, 0644);
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        int nomem = errno == ENOMEM;
        close(fd);
        haze_outfile_abort(f);
        if (nomem) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
        return haze__error(ctx, HAZE_ERR_IO, "%s: cannot open output file", path);
    }
    return HAZE_OK;
}

int haze_outfile_commit(haze_ctx *ctx, haze_outfile *f) {
    if (!f->fp) return haze__error(ctx, HAZE_ERR_INVALID, "output file is not open");
    if (f->fp == stdout) {
        int bad = fflush(stdout) != 0 || ferror(stdout);
        f->fp = NULL;
        return bad ? haze__error(ctx, HAZE_ERR_IO, "error writing to standard output") : HAZE_OK;
    }
    int bad = fflush(f->fp) != 0 || ferror(f->fp);
    int e = errno;
    if (!bad && fsync(fileno(f->fp)) != 0 && errno != EINVAL) {
        bad = 1;
        e = errno;
    }
    if (fclose(f->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    f->fp = NULL;
    if (!bad && rename(f->tmp, f->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        char *path = f->path;
        f->path = NULL;
        haze_outfile_abort(f);
        int st = haze__error(ctx, HAZE_ERR_IO, "%s: cannot write output: %s", path, strerror(e));
        free(path);
        return st;
    }
    free(f->tmp);
    free(f->path);
    memset(f, 0, sizeof *f);
    return HAZE_OK;
}

void haze_outfile_abort(haze_outfile *f) {
    if (!f) return;
    if (f->fp && f->fp != stdout) fclose(f->fp);
    if (f->tmp) unlink(f->tmp);
    free(f->tmp);
    free(f->path);
    memset(f, 0, sizeof *f);
}

int haze_file_read_all(haze_ctx *ctx, const char *path, char **out, size_t *len) {
    *out = NULL;
    int is_stdin = strcmp(path, "-") == 0;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (!fp && errno == ENOMEM) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    if (!fp) return haze__error(ctx, HAZE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!is_stdin) {
        struct stat sb;
        if (fstat(fileno(fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
            fclose(fp);
            return haze__error(ctx, HAZE_ERR_IO, "%s: is a directory", path);
        }
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) goto nomem;
    for (;;) {
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) goto nomem;
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0) break;
    }
    if (ferror(fp)) {
        int e = errno;
        free(buf);
        if (!is_stdin) fclose(fp);
        return haze__error(ctx, HAZE_ERR_IO, "%s: read error: %s", path, strerror(e));
    }
    if (!is_stdin) fclose(fp);
    buf[n] = '\0';
    *out = buf;
    if (len) *len = n;
    return HAZE_OK;
nomem:
    free(buf);
    if (!is_stdin) fclose(fp);
    return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory while reading", path);
}
