/*
 * src/fis/fis_read.h - the text formats of a model: the MATLAB/Octave .fis
 * reader (fis_file.c), the fuzzylite .fll reader (fis_fll.c), the compiler
 * of fuzzylite's Function expressions (fis_expr.c) and the two writers
 * (fis_write.c). Readers build a model (fis_model.h) and nothing else; none
 * calls another's file, and a half-built model goes to haze_fis_free.
 * haze_fis_load and haze_fis_save (fis.c) pick one by the file's name.
 */
#ifndef HAZE_FIS_READ_H
#define HAZE_FIS_READ_H

#include <stddef.h>

#include "fis/fis_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads a .fis text (buf is modified; file names it in messages). */
int haze__fis_read(haze_ctx *ctx, char *buf, const char *file, haze_fis **out);
/* Reads a fuzzylite .fll engine (buf is modified). */
int haze__fll_read(haze_ctx *ctx, char *buf, const char *file, haze_fis **out);
/* Writes f as a .fis file / a fuzzylite .fll engine; HAZE_ERR_UNSUPPORTED
 * for what the format cannot say with the same meaning. */
int haze__fis_write(haze_ctx *ctx, const haze_fis *f, const char *path);
int haze__fll_write(haze_ctx *ctx, const haze_fis *f, const char *path);

/* Function terms (fis_expr.c): the names of the unary and binary functions,
 * and the compiler. names[0..nnames) are the variables an expression may
 * name (HAZE__OP_VAR k reads vars[k]); "x" is the argument. The program goes
 * to p as described at HAZE__OP_NUM (at most cap doubles); *maxvar is the
 * largest variable index named (-1: none). Returns 0, or the 1-based column
 * in text of the error described in err. */
extern const char *const haze__fn1_names[HAZE__FN1_COUNT];
extern const char *const haze__fn2_names[HAZE__FN2_COUNT];
int haze__fn_compile(const char *text, const char *const *names, int nnames, double *p, int cap,
                     int *maxvar, char *err, size_t errcap);
/* The same with the names looked up by lookup(ud, name): a variable's
 * index, or -1 (a reader of many variables keeps them hashed: a linear
 * search per name in every expression would be quadratic). */
typedef int (*haze__fn_lookup)(const void *ud, const char *name);
int haze__fn_compile_lookup(const char *text, haze__fn_lookup lookup, const void *ud, double *p,
                            int cap, int *maxvar, char *err, size_t errcap);

#ifdef __cplusplus
}
#endif

#endif
