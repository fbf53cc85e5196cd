/*
 * src/io/table_base.c - what the table's reader and parsers share beneath
 * them: the large buffers, positioned reads and their errors, and finding a
 * column by name or number.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/text.h"
#include "haze/io.h"
#include "io/number.h"
#include "io/table_internal.h"
#include "io/io_types.h"

/*
 * malloc for the large buffers of a read: the file's text and the table.
 * Two pieces of advice to the kernel (where it does not know them, nothing
 * changes): transparent huge pages (MADV_HUGEPAGE, as NumPy asks for its
 * arrays), and the pages made present at once (MADV_POPULATE_WRITE, Linux
 * 5.14) instead of by one page fault each as the read first writes them. On
 * the development machine, a virtual machine where a fault and a TLB miss
 * are dear, writing 64 MiB of fresh memory took 0.10 CPU seconds with 4 KiB
 * pages faulted in one by one, 0.01 s with both.
 */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static void *big_alloc(size_t n, int populate) {
    void *p = malloc(n ? n : 1);
    if (p && n >= (1u << 20)) {
        uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)4095;
        if (e > a) {
#ifdef MADV_HUGEPAGE
            (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#endif
            if (populate) (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
        }
    }
    return p;
}

void *haze__io_big_alloc(size_t n) {
    return big_alloc(n, 1);
}

void *haze__io_big_alloc_lazy(size_t n) {
    return big_alloc(n, 0);
}

/* n bytes at offset at of fd into dst; *got: how many there were (fewer at
 * the end of the file). */
int haze__io_read_at(int fd, size_t at, void *dst, size_t n, size_t *got) {
    size_t k = 0;
    while (k < n) {
        size_t want = n - k < (1u << 30) ? n - k : (1u << 30);
        ssize_t r = pread(fd, (char *)dst + k, want, (off_t)(at + k));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return errno ? errno : EIO;
        if (r == 0) break;
        k += (size_t)r;
    }
    *got = k;
    return 0;
}

/* Bytes a thread of a parallel read reads at least. */
#define READ_PIECE ((size_t)16 << 20)

int haze__io_read_pieces(const haze_ctx *ctx, int fd, size_t at, void *dst, size_t n,
                         void (*done)(void *arg, size_t a, size_t len), void *arg, size_t *got) {
    const int nt = haze__threads_for(ctx, (double)n, (double)READ_PIECE);
    const size_t align = (size_t)2 << 20; /* huge pages, and whole values of any size */
    size_t piece = (n + (size_t)nt - 1) / (size_t)nt;
    piece = (piece + align - 1) / align * align;
    const size_t np = piece ? (n + piece - 1) / piece : 0;
    int err = 0;
    size_t total = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static, 1) reduction(+ : total) if (np > 1)
#endif
    for (size_t k = 0; k < np; k++) {
        const size_t a = k * piece, len = n - a < piece ? n - a : piece;
        size_t g = 0;
        int e = haze__io_read_at(fd, at + a, (char *)dst + a, len, &g);
        total += g;
        if (e) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            err = e;
        } else if (done && g == len) {
            done(arg, a, len);
        }
    }
    *got = total;
    return err;
}

/* haze__io_read_pieces' done for haze__io_read_par: a NUL byte in a piece. */
typedef struct nul_scan {
    const char *buf;
    int found;
} nul_scan;

static void piece_nul(void *arg, size_t a, size_t len) {
    nul_scan *z = arg;
    if (memchr(z->buf + a, '\0', len)) __atomic_store_n(&z->found, 1, __ATOMIC_RELAXED);
}

int haze__io_read_par_at(const haze_ctx *ctx, int fd, size_t at, void *dst, size_t n, size_t *got,
                         int *nul) {
    nul_scan z = {dst, 0};
    int e = haze__io_read_pieces(ctx, fd, at, dst, n, nul ? piece_nul : NULL, &z, got);
    if (e) return e;
    if (*got != n) {
        /* the file ends sooner (it shrank while it was read, or this is its
         * last block): the pieces may not meet */
        e = haze__io_read_at(fd, at, dst, n, got);
        z.found = !e && memchr(dst, '\0', *got) != NULL;
    }
    if (!e && nul) *nul = z.found;
    return e;
}

int haze__io_read_par(const haze_ctx *ctx, int fd, void *dst, size_t n, size_t *got, int *nul) {
    return haze__io_read_par_at(ctx, fd, 0, dst, n, got, nul);
}

int haze__io_read_error(haze_ctx *ctx, const char *path, int e) {
    return haze__error(ctx, HAZE_ERR_IO, "%s: read error: %s", path, strerror(e));
}

int haze__io_missing_field(const char *s) {
    /* pandas' default na_values (read_csv), and UCI's '?' */
    static const char *const marks[] = {"",         "#N/A", "#N/A N/A", "#NA",    "-1.#IND",
                                        "-1.#QNAN", "-NaN", "-nan",     "1.#IND", "1.#QNAN",
                                        "<NA>",     "N/A",  "NA",       "NULL",   "NaN",
                                        "None",     "n/a",  "nan",      "null",   "?"};
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
        if (strlen(marks[i]) == n && memcmp(marks[i], s, n) == 0) return 1;
    return 0;
}

int haze__io_column(const haze_table *t, const char *key) {
    if (!t || !key || !*key) return -1;
    if (t->names)
        for (size_t j = 0; j < t->cols; j++)
            if (t->names[j] && strcmp(t->names[j], key) == 0) return (int)j;
    char *end;
    long j = strtol(key, &end, 10);
    if (*end == '\0' && j >= 0 && (size_t)j < t->cols) return (int)j;
    return -1;
}
