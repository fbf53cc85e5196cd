/*
 * cli/cli.h - what the subcommands of the haze tool share: exit codes, the
 * global options, context creation and error printing.
 *
 * Exit codes: 0 success, 1 usage error, 2 bad input (files, values),
 * 3 runtime or device error (a failed write to standard output included),
 * 4 `haze prec` only: a stated bound was not proved. Errors go to stderr as "haze: <message>",
 * where the library's message already names file and line when a file is involved.
 */
#ifndef HAZE_CLI_H
#define HAZE_CLI_H

#include <stdio.h>

#include "haze/haze.h"

enum { CLI_OK = 0, CLI_USAGE = 1, CLI_INPUT = 2, CLI_RUNTIME = 3, CLI_NOT_PROVED = 4 };

typedef struct cli_global {
    haze_backend backend;
    int threads; /* 0: default */
    int quiet;
    const char *argv0;
    /* --gpus (or HAZE_GPUS): the set of devices of the context
     * (cli_ctx_new), which `haze fcm`, `fis eval` and `edge` share their
     * work over; the first is every other command's device. Not given: all
     * 0. */
    int gpus_all;  /* "all": every device present */
    int gpu_count; /* "N": devices 0 .. N - 1; a list: its length */
    int gpu_list;  /* 1: gpu[] holds the list */
    int gpu[64];
} cli_global;

/* The devices --gpus names (all: every device present) into dev (max of
 * them): their count, 0 when --gpus was not given (or "all" finds none). */
int cli_gpus(const cli_global *g, int *dev, int max);
/* Parses a --gpus value (all, N or a list "0,2") into g; 0 or the usage
 * error's exit code, printed. */
int cli_gpus_parse(const char *s, const char *from, cli_global *g);

/* A subcommand: parses its own options from argv[1..] (argv[0] is its name). */
typedef int (*cli_cmd_fn)(int argc, char **argv, const cli_global *g);

/* Exit code for a library status. */
int cli_exit_code(int status);
/* The same for a status and its message: an output that could not be
 * written is a runtime error (3), not bad input. */
int cli_exit_code_of(int status, const char *msg);

/* cli_fail, and hint on a line of its own when the message is of a field
 * of the table at path that is not a number (a column of ids or labels);
 * the hint's one "%s" stands for that column as --drop takes it. With
 * missing_ok (the command takes --missing skip), a field that is a missing
 * value (empty, NA, ?) gets that option's hint instead. */
int cli_fail_data(haze_ctx *ctx, int status, const char *path, const char *hint, int missing_ok);
/* Prints "haze: <message>" (printf-style) to stderr. */
void cli_errorf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Prints the context's message for a failed status and returns the exit code. */
int cli_fail(haze_ctx *ctx, int status);

/* Prints a usage error and a hint to run `haze CMD --help`; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Makes a context from the global options; on failure prints why and returns
 * the exit code (3 for a missing device), else 0. */
int cli_ctx_new(const cli_global *g, haze_ctx **out);

/*
 * Which column of an input table feeds each input of a model. When the
 * table has a header and the model names its inputs, columns are matched by
 * name, whatever their order: a missing name is an error, and so is a column
 * the model does not know unless ignore_extra (as scikit-learn refuses
 * unseen feature names). Without a header, or for a model without names,
 * the columns are taken in order and their number must match.
 */
typedef struct cli_columns {
    const char *kind;         /* in messages: "the model", "the centres file" */
    const char *model;        /* the model's file, named in messages */
    const char *noun;         /* what the model calls a column: "input", "feature" */
    const char *const *names; /* the model's n input names, or NULL when it has none */
    size_t n;
    int skip;         /* a column that is not an input (fnn's target), or -1 */
    int ignore_extra; /* leave out columns the model does not name instead of failing */
} cli_columns;

/* Fills idx[0..c->n) with the table's column for each model input; prints
 * why not (naming `path`) and returns CLI_INPUT when they do not match. */
int cli_columns_match(const haze_table *t, const char *path, const cli_columns *c, size_t *idx);
/* The text check of cli_columns_match alone, for a later block of the same
 * file (haze_table_reader): the columns idx it chose must hold numbers. */
int cli_columns_text(const haze_table *t, const char *path, const cli_columns *c,
                     const size_t *idx);

/* A new rows x n matrix of the columns idx[0..n) of rows first.. of t, for
 * the caller to free; NULL when out of memory. */
double *cli_columns_gather(const haze_table *t, const size_t *idx, size_t n, size_t first,
                           size_t rows);

/*
 * Rows with missing values (--missing skip; read as NaN, haze_table_options
 * .missing): cli_rows_missing marks in mark[0..n) the rows of the n x d
 * values v (floats when f32, else doubles) that hold a NaN and returns how
 * many, *first the first such row; cli_rows_compact moves the rows not
 * marked to the front in their order, in place; cli_rows_expand spreads
 * the first n - (marked) rows of the n x k doubles u over all n rows, in
 * place, NaN in the marked ones.
 */
size_t cli_rows_missing(const void *v, int f32, size_t n, size_t d, unsigned char *mark,
                        size_t *first);
void cli_rows_compact(void *v, int f32, size_t n, size_t d, const unsigned char *mark);
void cli_rows_expand(double *u, size_t n, size_t k, const unsigned char *mark);
/* --missing's value into *mode: 0 for "error", 1 for "skip"; another is
 * a usage error of cmd (its exit code returned, else CLI_OK). */
int cli_missing_option(const char *cmd, const char *s, int *mode);

/* Strict number parsing for option values: 1 on success. */
int cli_parse_int(const char *s, long lo, long hi, long *out);
int cli_parse_double(const char *s, double *out);

/* Option parsing of a subcommand that takes nothing but --help: prints the
 * help or a usage error as needed. Returns -1 to go on, else the exit code. */
int cli_help_only(int argc, char **argv, const char *cmd, void (*help)(FILE *fp));

/* Opens an output group on ctx (haze_outgroup_begin) holding the n paths
 * (NULL entries skipped): the command's outputs then land together at
 * haze_outgroup_commit() or none does, and a missing folder fails before any
 * work. Returns a library status. */
int cli_outputs_begin(haze_ctx *ctx, int n, const char *const *paths);

/* Writes s as a JSON string (quotes included). Bytes that are not valid
 * UTF-8 (a file name in another encoding) become U+FFFD, so the document
 * stays valid JSON. */
void cli_json_str(FILE *fp, const char *s);

/* Progress and chatter go through this; silent with --quiet. */
void cli_info(const cli_global *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The subcommands (one file each). */
int cmd_info(int argc, char **argv, const cli_global *g);
int cmd_demo(int argc, char **argv, const cli_global *g);
/* certified fuzzy arithmetic */
int cmd_fuzzy(int argc, char **argv, const cli_global *g);

/* fuzzy inference and edge detection */
int cmd_fis(int argc, char **argv, const cli_global *g);
int cmd_edge(int argc, char **argv, const cli_global *g);

/* fuzzy c-means */
int cmd_fcm(int argc, char **argv, const cli_global *g);

/* neuro-fuzzy network */
int cmd_fnn(int argc, char **argv, const cli_global *g);

/* rounding-error analysis */
int cmd_prec(int argc, char **argv, const cli_global *g);

#endif
