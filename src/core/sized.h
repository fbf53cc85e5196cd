/*
 * Structs that carry their size (the public API's rule, haze/core.h): options
 * the caller passes in and records the library fills in start with
 * `size_t size`, the size the caller was compiled with. These helpers are the
 * one place that reads and writes them, so an older caller (a smaller struct)
 * keeps working when fields are appended.
 */
#ifndef HAZE_SIZED_H
#define HAZE_SIZED_H

#include <stddef.h>

#include "haze/core.h"

/*
 * The caller's options `opt` (may be NULL: the defaults) over `dst`, which
 * holds the library's defaults (its own size, dst_size bytes): the fields
 * that opt->size covers are taken, dst->size is left at dst_size.
 * HAZE_ERR_INVALID when opt->size is less than sizeof(size_t) ("set it with
 * WHAT_options_default()"); HAZE_ERR_UNSUPPORTED when opt is larger than
 * dst_size and a byte past dst_size is not zero (a field this library does
 * not know was set). `what` names the struct in the message.
 */
int haze__sized_take(haze_ctx *ctx, void *dst, size_t dst_size, const void *opt, const char *what);

/*
 * Fills the first `size` bytes of `opt` from `def` (the library's defaults,
 * def_size bytes; zeros past them) and sets its size field to `size`.
 * HAZE_ERR_INVALID when opt is NULL or size < sizeof(size_t).
 */
int haze__sized_init(void *opt, size_t size, const void *def, size_t def_size);

/*
 * Copies the library's record `src` (src_size bytes, its size field first)
 * into the caller's `dst` (may be NULL: nothing to do), no more than
 * dst->size bytes, keeping dst->size. HAZE_ERR_INVALID when dst->size is less
 * than sizeof(size_t) ("set it with WHAT_init()").
 */
int haze__sized_give(haze_ctx *ctx, void *dst, const void *src, size_t src_size, const char *what);

#endif
