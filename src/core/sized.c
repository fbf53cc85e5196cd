/*
 * Structs that carry their size: the one reader and writer of the size field
 * of options and of the records the library fills in (see sized.h).
 */
#include "core/sized.h"

#include <string.h>

#include "core/internal.h"
#include "haze/version.h"

int haze__sized_take(haze_ctx *ctx, void *dst, size_t dst_size, const void *opt, const char *what) {
    if (!opt) return HAZE_OK;
    size_t size;
    memcpy(&size, opt, sizeof size);
    if (size < sizeof(size_t))
        return haze__error(ctx, HAZE_ERR_INVALID,
                           "%s: size is %zu: set it with %s_default() (or %s_init())", what, size,
                           what, what);
    if (size > dst_size) {
        const unsigned char *extra = (const unsigned char *)opt + dst_size;
        for (size_t i = 0; i < size - dst_size; i++)
            if (extra[i])
                return haze__error(ctx, HAZE_ERR_UNSUPPORTED,
                                   "%s: a field at byte %zu is set, but this version of haze (%s) "
                                   "knows the first %zu bytes only",
                                   what, dst_size + i, HAZE_VERSION_STRING, dst_size);
    }
    memcpy((char *)dst + sizeof(size_t), (const char *)opt + sizeof(size_t),
           (size < dst_size ? size : dst_size) - sizeof(size_t));
    return HAZE_OK;
}

int haze__sized_init(void *opt, size_t size, const void *def, size_t def_size) {
    if (!opt || size < sizeof(size_t)) return HAZE_ERR_INVALID;
    memcpy(opt, def, size < def_size ? size : def_size);
    if (size > def_size) memset((char *)opt + def_size, 0, size - def_size);
    memcpy(opt, &size, sizeof size);
    return HAZE_OK;
}

int haze__sized_give(haze_ctx *ctx, void *dst, const void *src, size_t src_size, const char *what) {
    if (!dst) return HAZE_OK;
    size_t size;
    memcpy(&size, dst, sizeof size);
    if (size < sizeof(size_t))
        return haze__error(ctx, HAZE_ERR_INVALID, "%s: size is %zu: set it with %s_init()", what,
                           size, what);
    if (size > src_size) memset((char *)dst + src_size, 0, size - src_size);
    memcpy((char *)dst + sizeof(size_t), (const char *)src + sizeof(size_t),
           (size < src_size ? size : src_size) - sizeof(size_t));
    return HAZE_OK;
}
