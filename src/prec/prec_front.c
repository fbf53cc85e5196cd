/*
 * src/prec/prec_front.c - the front ends' entry: a script's language is told
 * by its first token (FPCore's '(' after comments of either language), its
 * reader fills the graph, and the graph is checked for inputs without a
 * range.
 */
#include <ctype.h>

#include "prec/prec_front.h"

static int is_fpcore(const char *t) {
    for (;;) {
        while (isspace((unsigned char)*t)) t++;
        if (*t == ';' || *t == '#') { /* comments of either language */
            while (*t && *t != '\n') t++;
            continue;
        }
        return *t == '(';
    }
}

int haze__prec_read(haze_ctx *ctx, haze_prec_script *s, const char *text, long unroll,
                    long max_ops) {
    int rc = is_fpcore(text) ? haze__prec_parse_fpcore(ctx, s, text, unroll, max_ops)
                             : haze__prec_parse_gappa(ctx, s, text);
    return rc ? rc : haze__prec_check_ranges(ctx, s);
}
