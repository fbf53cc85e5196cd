/*
 * src/prec/prec_report.h - the report: a goal's enclosure as doubles, in
 * decimal and in Gappa's exact dyadic notation, and whether it proves the
 * bounds the script states (prec_report.c).
 */
#ifndef HAZE_PREC_REPORT_H
#define HAZE_PREC_REPORT_H

#include "prec/prec_internal.h"

/* The result of an analysis whose goal enclosures are acc[g], with the
 * grid's boxes rec (NULL: none; taken over, freed on failure) clipped to
 * them; *out NULL on failure. Runs under the caller's haze__mp_run guard. */
int haze__prec_report(haze_ctx *ctx, const haze_prec_script *s, const pint *acc, long boxes,
                      prec_boxrec *rec, haze_prec_result **out);
void haze__prec_result_free(haze_prec_result *r);

#endif
