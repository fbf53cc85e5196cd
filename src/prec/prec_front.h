/*
 * src/prec/prec_front.h - the front ends: readers that fill an empty script's
 * graph from Gappa (prec_parse.c) or FPCore (prec_fpcore.c) text, and the
 * choice between them (prec_front.c).
 */
#ifndef HAZE_PREC_FRONT_H
#define HAZE_PREC_FRONT_H

#include "prec/prec_internal.h"

int haze__prec_parse_gappa(haze_ctx *ctx, haze_prec_script *s, const char *text);
int haze__prec_parse_fpcore(haze_ctx *ctx, haze_prec_script *s, const char *text, long unroll,
                            long max_ops);
/* Reads text (FPCore when its first token is '(', else Gappa) into s and
 * checks that every input a goal needs has a range. Runs under the caller's
 * haze__mp_run guard. */
int haze__prec_read(haze_ctx *ctx, haze_prec_script *s, const char *text, long unroll,
                    long max_ops);

#endif
