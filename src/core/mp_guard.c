/*
 * src/core/mp_guard.c - GMP's memory functions, so that an allocation that
 * fails inside GMP or MPFR becomes HAZE_ERR_NOMEM instead of an abort.
 *
 * GMP has no way to report a failed allocation: its own memory functions
 * print a message and abort, and MPFR uses GMP's. haze installs functions
 * that allocate exactly as malloc, realloc and free do; when one fails on a
 * thread that is inside a guarded haze call (haze__mp_run), it unwinds to
 * that call with longjmp and the call returns HAZE_ERR_NOMEM.
 *
 * GMP's manual leaves the result of a longjmp out of its allocation
 * functions undetermined; what makes it sound here:
 *  - every block GMP, MPFR or the guarded haze code (haze__mp_malloc)
 *    allocates on the thread while a guard is up is recorded, and the ones
 *    still live when the allocation fails are freed: they belong to the
 *    unwound call (its variables, MPFR's temporaries);
 *  - before that, MPFR's per-thread caches (constants, its pool of integers),
 *    which an interrupted computation may leave half-updated, are freed with
 *    mpfr_free_cache() and are rebuilt at their next use;
 *  - the guarded code reads nothing the unwound call wrote: it returns.
 * Outside a guard a failure aborts with GMP's message, as GMP's own functions
 * do, so a program's own use of GMP behaves as before. A program that
 * installed its own GMP memory functions before it made its first haze
 * context keeps them (and GMP's failures inside haze are then its own).
 */
#include <gmp.h>
#include <mpfr.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* GMP's own functions: haze only replaces those (weak: absent, nothing is
 * replaced). */
extern void *__gmp_default_allocate(size_t) __attribute__((weak));
extern void *__gmp_default_reallocate(void *, size_t, size_t) __attribute__((weak));
extern void __gmp_default_free(void *, size_t) __attribute__((weak));

typedef struct guard {
    jmp_buf jb;
    struct guard *prev;
    int depth;
} guard;

/* The blocks allocated under the guards of this thread: an open-addressing
 * set of pointers, each with the depth of the guard it was made under. */
typedef struct ent {
    void *p; /* NULL: empty; TOMB: removed */
    int level;
} ent;
#define TOMB ((void *)1)

static _Thread_local struct {
    ent *t;
    size_t cap, used; /* used counts removed slots too */
    int depth;
    guard *top;
} mt;

static size_t slot_of(const void *p, size_t cap) {
    uint64_t h = (uint64_t)(uintptr_t)p >> 4;
    h *= 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static void forget_all(void) {
    free(mt.t);
    mt.t = NULL;
    mt.cap = mt.used = 0;
}

/* Records p at `level`; 0 if the set could not grow. */
static int track(void *p, int level) {
    if ((mt.used + 1) * 2 > mt.cap) {
        size_t cap = mt.cap ? mt.cap * 2 : 64;
        ent *t = calloc(cap, sizeof *t);
        if (!t) return 0;
        size_t used = 0;
        for (size_t i = 0; i < mt.cap; i++) {
            if (!mt.t[i].p || mt.t[i].p == TOMB) continue;
            size_t k = slot_of(mt.t[i].p, cap);
            while (t[k].p) k = (k + 1) & (cap - 1);
            t[k] = mt.t[i];
            used++;
        }
        free(mt.t);
        mt.t = t;
        mt.cap = cap;
        mt.used = used;
    }
    size_t k = slot_of(p, mt.cap);
    while (mt.t[k].p && mt.t[k].p != TOMB) k = (k + 1) & (mt.cap - 1);
    if (!mt.t[k].p) mt.used++;
    mt.t[k].p = p;
    mt.t[k].level = level;
    return 1;
}

/* Removes p; returns its level, 0 if it was not recorded. */
static int untrack(void *p) {
    if (!mt.cap || !p) return 0;
    size_t k = slot_of(p, mt.cap);
    while (mt.t[k].p) {
        if (mt.t[k].p == p) {
            int level = mt.t[k].level;
            mt.t[k].p = TOMB;
            return level;
        }
        k = (k + 1) & (mt.cap - 1);
    }
    return 0;
}

/* Unwinds to the innermost guard; never returns. */
static void fail(size_t n) {
    guard *g = mt.top;
    if (!g) {
        fprintf(stderr, "GNU MP: Cannot allocate memory (size=%zu)\n", n);
        abort();
    }
    mpfr_free_cache(); /* first: it frees blocks that are recorded too */
    for (size_t i = 0; i < mt.cap; i++)
        if (mt.t[i].p && mt.t[i].p != TOMB && mt.t[i].level >= g->depth) {
            free(mt.t[i].p);
            mt.t[i].p = TOMB;
        }
    mt.depth = g->depth - 1;
    mt.top = g->prev;
    if (!mt.depth) forget_all();
    longjmp(g->jb, 1);
}

void *haze__mp_malloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (p && mt.depth && !track(p, mt.depth)) {
        free(p);
        return NULL;
    }
    return p;
}

void *haze__mp_calloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p && mt.depth && !track(p, mt.depth)) {
        free(p);
        return NULL;
    }
    return p;
}

void *haze__mp_realloc(void *p, size_t n) {
    int level = mt.depth ? untrack(p) : 0;
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        if (level) track(p, level); /* its slot was just freed: no growth */
        return NULL;
    }
    /* a block that cannot be recorded is only not freed by an unwinding */
    if (level)
        track(q, level);
    else if (!p && mt.depth)
        track(q, mt.depth);
    return q;
}

void haze__mp_free(void *p) {
    if (mt.depth) untrack(p);
    free(p);
}

static void *gmp_alloc(size_t n) {
    void *p = haze__mp_malloc(n);
    if (!p) fail(n);
    return p;
}

static void *gmp_realloc(void *p, size_t old, size_t n) {
    (void)old;
    void *q = haze__mp_realloc(p, n);
    if (!q) fail(n);
    return q;
}

static void gmp_free(void *p, size_t n) {
    (void)n;
    haze__mp_free(p);
}

static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void install(void) {
    void *(*a)(size_t);
    void *(*r)(void *, size_t, size_t);
    void (*f)(void *, size_t);
    mp_get_memory_functions(&a, &r, &f);
    if (__gmp_default_allocate && a == __gmp_default_allocate && r == __gmp_default_reallocate &&
        f == __gmp_default_free)
        mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
}

void haze__mp_install(void) {
    pthread_once(&install_once, install);
}

static void enter(guard *g) {
    haze__mp_install();
    g->prev = mt.top;
    g->depth = ++mt.depth;
    mt.top = g;
}

static void leave(guard *g) {
    /* what was made under this guard now belongs to the one around it */
    if (g->depth == 1) {
        forget_all();
    } else {
        for (size_t i = 0; i < mt.cap; i++)
            if (mt.t[i].p && mt.t[i].p != TOMB && mt.t[i].level == g->depth)
                mt.t[i].level = g->depth - 1;
    }
    mt.depth = g->depth - 1;
    mt.top = g->prev;
}

int haze__mp_run(haze_ctx *ctx, int (*fn)(void *), void *arg) {
    int (*volatile f)(void *) = fn;
    void *volatile a = arg;
    haze_ctx *volatile c = ctx;
    guard g;
    enter(&g);
    if (setjmp(g.jb)) return haze__error(c, HAZE_ERR_NOMEM, "out of memory");
    int rc = f(a);
    leave(&g);
    return rc;
}
