/*
 * src/core/error.c - status codes and their messages, and the last error of
 * each context, kept per thread. Beneath everything else: every module and
 * the rest of the core record errors here.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core/internal.h"

const char *haze_status_message(int status) {
    switch (status) {
#define HAZE__STATUS_MSG(name, value, msg)                                                         \
    case value:                                                                                    \
        return msg;
        HAZE_STATUS_MAP(HAZE__STATUS_MSG)
#undef HAZE__STATUS_MSG
    default:
        return "unknown status";
    }
}

const char *haze_status_name(int status) {
    switch (status) {
#define HAZE__STATUS_NAME(name, value, msg)                                                        \
    case value:                                                                                    \
        return #name;
        HAZE_STATUS_MAP(HAZE__STATUS_NAME)
#undef HAZE__STATUS_NAME
    default:
        return "UNKNOWN";
    }
}

/*
 * The last error, per thread and per context. A context may be shared by
 * threads (core.h), so its error cannot live in the context: one thread's
 * failure would overwrite the message another is reading (a data race, and
 * the wrong message). Like errno, each thread keeps its own: a few slots,
 * each naming the context by its id. A thread that raises errors in more
 * contexts than there are slots forgets the least recently used one's.
 * Thread-local storage needs no lock and no allocation, so an out-of-memory
 * error can always be recorded.
 */
#define ERR_SLOTS 4

typedef struct err_slot {
    unsigned long long id; /* 0: free */
    unsigned long long used;
    int code;
    char msg[HAZE__ERRMSG_MAX];
} err_slot;

static _Thread_local struct {
    err_slot slot[ERR_SLOTS];
    unsigned long long tick;
} errs;

unsigned long long haze__ctx_next_id(void) {
    static unsigned long long last; /* atomic: contexts are made on any thread */
    return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

static err_slot *err_find(const haze_ctx *ctx) {
    for (int i = 0; i < ERR_SLOTS; i++)
        if (errs.slot[i].id == ctx->id) return &errs.slot[i];
    return NULL;
}

int haze__verror(haze_ctx *ctx, int status, const char *fmt, va_list ap) {
    if (!ctx) return status;
    err_slot *e = err_find(ctx);
    if (!e) {
        e = &errs.slot[0];
        for (int i = 1; i < ERR_SLOTS && e->id; i++)
            if (!errs.slot[i].id || errs.slot[i].used < e->used) e = &errs.slot[i];
        e->id = ctx->id;
    }
    e->used = ++errs.tick;
    e->code = status;
    haze__vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    return status;
}

int haze__error(haze_ctx *ctx, int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    haze__verror(ctx, status, fmt, ap);
    va_end(ap);
    return status;
}

const char *haze_ctx_errmsg(const haze_ctx *ctx) {
    if (!ctx) return "no context";
    const err_slot *e = err_find(ctx);
    return e ? e->msg : "";
}
int haze_ctx_errcode(const haze_ctx *ctx) {
    if (!ctx) return HAZE_ERR_INVALID;
    const err_slot *e = err_find(ctx);
    return e ? e->code : HAZE_OK;
}

void haze_ctx_clear_error(haze_ctx *ctx) {
    if (!ctx) return;
    err_slot *e = err_find(ctx);
    if (e) e->id = 0;
}
