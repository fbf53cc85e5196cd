/*
 * tests/fault/fault_alloc.c - an allocation-failure shim, loaded with
 * LD_PRELOAD: malloc, calloc, realloc, posix_memalign, aligned_alloc and
 * memalign fail (NULL, errno ENOMEM) at the Nth call when HAZE_FAULT_N=N,
 * and every later one too when HAZE_FAULT_STICKY=1 (memory that has run
 * out). HAZE_FAULT_COUNT=FILE writes the number of calls counted at exit, so
 * a sweep knows the range of N; HAZE_FAULT_TRACE=1 prints the stack of the
 * failing call. glibc routes its own allocations (strdup,
 * fopen, GMP's default functions) through these, so they fail too.
 *
 * Not counted: calls before main (static constructors: with CUDA built in,
 * the runtime registers every kernel then and crashes on a failed
 * allocation, before any haze code runs); calls from libgomp, which exits
 * on a failed allocation by design (gomp_malloc), so no library using
 * OpenMP could report one; and calls before the first one that read the
 * environment. Run the program with one thread for a count that does not
 * depend on scheduling.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static long fail_at = -1; /* -1: not read yet; 0: never */
static int sticky, trace;
static long count;
static uintptr_t gomp_lo, gomp_hi;

static int find_gomp(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "libgomp")) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        gomp_lo = info->dlpi_addr + ph->p_vaddr;
        gomp_hi = gomp_lo + ph->p_memsz;
    }
    return 1;
}

static int in_setup;

static void setup(void) {
    in_setup = 1;
    const char *n = getenv("HAZE_FAULT_N"), *st = getenv("HAZE_FAULT_STICKY");
    sticky = st && *st == '1';
    trace = getenv("HAZE_FAULT_TRACE") != NULL;
    if (trace) { /* loads libgcc's unwinder now, not inside a failing call */
        void *b[2];
        backtrace(b, 2);
    }
    long v = n ? strtol(n, NULL, 10) : 0;
    dl_iterate_phdr(find_gomp, NULL);
    __atomic_store_n(&fail_at, v > 0 ? v : 0, __ATOMIC_RELEASE);
    in_setup = 0;
}

static int in_main; /* 1 once main has been entered */

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int counted_main(int argc, char **argv, char **envp) {
    __atomic_store_n(&in_main, 1, __ATOMIC_RELEASE);
    return real_main(argc, argv, envp);
}

/* glibc calls the program's constructors from here, then main: main is
 * wrapped so that counting starts there. */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end) {
    typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
                            void *);
    start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    real_main = main;
    return real(counted_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* 1 when this call is to fail. */
static int fail_now(void *caller) {
    if (!__atomic_load_n(&in_main, __ATOMIC_ACQUIRE)) return 0;
    if (__atomic_load_n(&fail_at, __ATOMIC_ACQUIRE) < 0) {
        if (in_setup) return 0; /* dl_iterate_phdr's own */
        setup();
    }
    uintptr_t c = (uintptr_t)caller;
    if (gomp_hi && c >= gomp_lo && c < gomp_hi) return 0;
    long k = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    if (!fail_at || k < fail_at || (k > fail_at && !sticky)) return 0;
    if (trace && k == fail_at) {
        void *b[32];
        backtrace_symbols_fd(b, backtrace(b, 32), 2);
    }
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n) {
    return fail_now(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size) {
    return fail_now(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n) {
    if (p && n == 0) return __libc_realloc(p, n); /* a free */
    return fail_now(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

void *memalign(size_t align, size_t n) {
    return fail_now(__builtin_return_address(0)) ? NULL : __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n) {
    return fail_now(__builtin_return_address(0)) ? NULL : __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n) {
    if (fail_now(__builtin_return_address(0))) return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("HAZE_FAULT_COUNT");
    if (!path || !*path) return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%ld\n", __atomic_load_n(&count, __ATOMIC_RELAXED));
    if (len > 0) (void)!write(fd, buf, (size_t)len);
    close(fd);
}
