/*
 * cli/cmd_fcm.c - `haze fcm`: fuzzy c-means clustering of a CSV or .npy
 * table, and `haze fcm predict`: memberships of new points for given
 * centres. The algorithm is haze_fcm_fit (include/haze/fcm.h, docs/fcm.md).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>

#include "cli.h"
#include "mpi.h"
#include "plot.h"
#include "progress.h"

static void help(FILE *fp) {
    fprintf(fp,
            "usage: haze fcm DATA.{csv,npy} -c K [options]\n"
            "       haze fcm predict CENTERS.csv DATA.{csv,npy} [options]   (see 'haze fcm "
            "predict --help')\n\n"
            "Fuzzy c-means clustering (Bezdek): memberships u_ij in [0,1] of every point to\n"
            "every one of K clusters, minimising sum u_ij^m d(x_i, v_j). CSV with or without\n"
            "a header, or NumPy .npy (floats, integers); one point per row.\n\n"
            "Options:\n"
            "  -c, --clusters K       number of clusters (2 <= K <= points; required)\n"
            "      --columns LIST     the features: header names, 0-based column numbers\n"
            "                         and ranges A-B, comma-separated (default: every column)\n"
            "      --drop LIST        columns to leave out (ids, labels, dates: not read)\n"
            "      --missing WHAT     error (default): an empty field, NA, NaN, ? ... is an\n"
            "                         error; skip: rows with one are left out of the fit,\n"
            "                         their memberships NaN and labels -1\n"
            "  -m, --fuzzifier M      fuzzifier m > 1 (default 2; closer to 1, e.g. 1.1, for\n"
            "                         data of many features)\n"
            "      --metric NAME      euclidean (default) or gk (Gustafson-Kessel: one\n"
            "                         volume-normalised covariance norm per cluster)\n"
            "      --init WHAT        kmeans++ (default: k-means++ seeding of the centres),\n"
            "                         random (seeded random memberships, the start of\n"
            "                         scikit-fuzzy and MATLAB: for conformance with them; it\n"
            "                         collapses on data of more than about 8 features), or a\n"
            "                         CSV/.npy FILE with K rows of centres or N rows of K\n"
            "                         initial memberships (told apart by shape)\n"
            "      --tol E            stopping tolerance (default 1e-5; 0: run --max-iter)\n"
            "      --stop RULE        membership (default: ||U(k)-U(k-1)||_F < E, as\n"
            "                         scikit-fuzzy) or objective (|J(k)-J(k-1)| < E, as MATLAB)\n"
            "      --max-iter N       at most N iterations (default 300)\n"
            "      --seed S           seed of kmeans++ or random, 0 to 2^64-1 (default 0)\n"
            "      --precision P      double (default) or single (float32 arithmetic)\n"
            "  -o, --output FILE      write the centres (K rows) to FILE (CSV or .npy)\n"
            "      --memberships FILE write the N x K memberships (CSV or .npy)\n"
            "      --labels FILE      write the hard labels (index of the largest membership)\n"
            "      --norms FILE       gk: write the K norm matrices A_j, one per row (D*D values,\n"
            "                         row-major), for `predict --norms`\n"
            "      --json             print the summary as JSON (with \"timings\": the seconds\n"
            "                         spent reading, fitting and writing, and \"fit_timings\":\n"
            "                         the fit's checking, setup (with a GPU: its context and\n"
            "                         the upload), seeding, iterations and finish)\n"
            "      --plot FILE        draw the points coloured by their largest membership\n"
            "                         (opacity: its size; the first two principal components\n"
            "                         beyond two features), the centres marked, and the\n"
            "                         objective per iteration (PNG, SVG or PDF by extension)\n"
            "  -h, --help             this text\n\n"
            "The summary (text, or JSON with --json) goes to stdout, with the centres when\n"
            "there is no -o; when a FILE above is '-' (stdout; one of them at most) the\n"
            "summary goes to stderr. On a terminal, a job longer than a second shows its\n"
            "progress (seeding, iteration, change) on one line of stderr, cleared at the end.\n"
            "A degenerate result (coincident centres, memberships all near 1/K, or an\n"
            "empty cluster) gets a warning on stderr and \"degenerate\" in the JSON: try\n"
            "-m closer to 1 or another --seed (docs/fcm.md).\n\n"
            "Started by mpirun (a tool built with MPI), the processes run one fit, each\n"
            "on its share of the rows (read from their place in a .npy file; rank 0 reads\n"
            "a CSV file and sends them), with the centres of a run on one process bit for\n"
            "bit; rank 0 writes the outputs and the summary (docs/fcm.md, \"Several\n"
            "processes (MPI)\"). --plot is not available there.\n\n"
            "With the global option --gpus (haze --gpus all fcm ...), one fit runs over\n"
            "several GPUs of this host, a share of the rows on each (docs/fcm.md, \"Several\n"
            "GPUs\"); the outputs are those of a run on one. Under mpirun, the L ranks of a\n"
            "host share the N GPUs of the set: when N >= L, local rank l drives the GPUs\n"
            "l*N/L to (l+1)*N/L - 1 of the set (N/L each; when L does not divide N, some\n"
            "ranks one more), every GPU a part of the fit in rank order, so that `mpirun\n"
            "-np 2 haze --gpus 0,1,2,3 fcm` gives the centres of `haze --gpus 0,1,2,3 fcm`\n"
            "bit for bit; when N < L, local rank l runs on the (l mod N)th GPU of the set.\n\n"
            "Exit codes: 0 success, 1 usage error, 2 bad input, 3 runtime or device error.\n");
}

static void help_predict(FILE *fp) {
    fprintf(fp, "usage: haze fcm predict CENTERS.csv DATA.{csv,npy} [options]\n\n"
                "Memberships of the points of DATA for the fixed centres of CENTERS (K rows, one\n"
                "centre per row, as `haze fcm -o` writes them): Euclidean, or Gustafson-Kessel\n"
                "with --norms FILE as written by `haze fcm --metric gk --norms`.\n\n"
                "Options:\n"
                "  -m, --fuzzifier M      fuzzifier m > 1 of the model (default 2)\n"
                "      --precision P      double (default) or single (float32 arithmetic)\n"
                "  -o, --output FILE      write the N x K memberships to FILE (CSV or .npy;\n"
                "                         default '-', stdout, unless --labels is '-')\n"
                "      --labels FILE      write the hard labels (index of the largest membership)\n"
                "      --norms FILE       the K norm matrices A_j of a gk model, one per row\n"
                "      --ignore-extra     leave out DATA columns the centres do not name\n"
                "      --missing WHAT     error (default), or skip: rows with a missing value\n"
                "                         (empty, NA, NaN, ? ...) get NaN memberships, label -1\n"
                "  -h, --help             this text\n\n"
                "The centres file carries the header of the fit's data; when DATA has a header\n"
                "too, its columns are matched to the centres' features by name (a missing or\n"
                "unknown name is an error), otherwise by order.\n"
                "Only one of -o and --labels can be '-' (stdout). Data whose squared distances\n"
                "to the centres overflow is refused (exit 2), as the fit refuses it.\n\n"
                "Exit codes: 0 success, 1 usage error, 2 bad input, 3 runtime or device error.\n");
}

/* 1 when path names stdout. */
static int is_stdout(const char *path) {
    return path && strcmp(path, "-") == 0;
}

enum {
    OPT_METRIC = 256,
    OPT_INIT,
    OPT_TOL,
    OPT_STOP,
    OPT_MAXIT,
    OPT_SEED,
    OPT_PREC,
    OPT_MEMB,
    OPT_LABELS,
    OPT_JSON,
    OPT_NORMS,
    OPT_EXTRA,
    OPT_PLOT,
    OPT_COLUMNS,
    OPT_DROP,
    OPT_MISSING
};

typedef struct {
    cli_progress line;
    int max_iter;
} fit_progress;

static int progress(void *arg, int iter, double j, double change) {
    fit_progress *p = arg;
    (void)j;
    double done = p->max_iter > 0 ? (double)iter / p->max_iter : -1;
    if (isnan(change)) /* not computed: the stopping rule is the objective's */
        cli_progress_update(&p->line, done, "iteration %d/%d", iter, p->max_iter);
    else
        cli_progress_update(&p->line, done, "iteration %d/%d  change %.3g", iter, p->max_iter,
                            change);
    return 0;
}

static int write_labels(haze_ctx *ctx, const char *path, const double *u, size_t n, size_t c) {
    int *lab = malloc((n ? n : 1) * sizeof *lab);
    double *ld = malloc((n ? n : 1) * sizeof *ld);
    if (!lab || !ld) {
        free(lab);
        free(ld);
        return HAZE_ERR_NOMEM;
    }
    haze_fcm_labels(ctx, u, n, c, lab);
    for (size_t i = 0; i < n; i++) ld[i] = isnan(u[i * c]) ? -1 : lab[i]; /* a row left out */
    const char *names[] = {"label"};
    int st = haze_table_write(ctx, path, ld, HAZE_PRECISION_F64, n, 1, names);
    free(lab);
    free(ld);
    return st;
}

static int cmd_predict(int argc, char **argv, const cli_global *g) {
    static const struct option opts[] = {{"fuzzifier", required_argument, 0, 'm'},
                                         {"precision", required_argument, 0, OPT_PREC},
                                         {"output", required_argument, 0, 'o'},
                                         {"labels", required_argument, 0, OPT_LABELS},
                                         {"norms", required_argument, 0, OPT_NORMS},
                                         {"ignore-extra", no_argument, 0, OPT_EXTRA},
                                         {"missing", required_argument, 0, OPT_MISSING},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    double m = 2.0;
    int missing = 0;
    int ignore_extra = 0;
    int single = 0;
    const char *out = NULL, *labels = NULL, *norms = NULL;
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "m:o:h", opts, NULL)) != -1) {
        switch (o) {
        case 'h':
            help_predict(stdout);
            return CLI_OK;
        case 'm':
            if (!cli_parse_double(optarg, &m))
                return cli_usage_error("fcm predict", "-m: expected a number, got '%s'", optarg);
            if (!(m > 1) || !isfinite(m))
                return cli_usage_error("fcm predict",
                                       "-m %s: the fuzzifier must be a finite number > 1", optarg);
            break;
        case OPT_PREC:
            if (strcmp(optarg, "single") && strcmp(optarg, "double"))
                return cli_usage_error("fcm predict", "--precision: expected single or double");
            single = strcmp(optarg, "single") == 0;
            break;
        case 'o':
            out = optarg;
            break;
        case OPT_LABELS:
            labels = optarg;
            break;
        case OPT_NORMS:
            norms = optarg;
            break;
        case OPT_EXTRA:
            ignore_extra = 1;
            break;
        case OPT_MISSING: {
            const int e = cli_missing_option("fcm predict", optarg, &missing);
            if (e) return e;
        } break;
        default:
            return cli_usage_error("fcm predict", "bad option");
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("fcm predict", "predict needs CENTERS and DATA files");
    if (is_stdout(out) && is_stdout(labels))
        return cli_usage_error("fcm predict", "-o and --labels cannot both be '-' (stdout)");
    if (!out && !is_stdout(labels)) out = "-"; /* the memberships, unless the labels go there */
    haze_ctx *ctx = NULL;
    int code = cli_ctx_new(g, &ctx);
    if (code) return code;
    haze_table *cv = NULL, *x = NULL, *nt = NULL;
    double *u = NULL, *xd = NULL;
    size_t *idx = NULL;
    const char *outputs[] = {out, labels};
    int st = cli_outputs_begin(ctx, 2, outputs);
    if (!st) st = haze_table_read(ctx, argv[optind], NULL, &cv);
    haze_table_options ro = haze_table_options_default();
    ro.text_as_nan = 1; /* text only where no feature is read (cli_columns_match checks) */
    ro.missing = missing;
    if (!st) st = haze_table_read(ctx, argv[optind + 1], &ro, &x);
    if (!st && norms) st = haze_table_read(ctx, norms, NULL, &nt);
    if (!st && nt &&
        (haze_table_row_count(nt) != haze_table_row_count(cv) ||
         haze_table_column_count(nt) !=
             haze_table_column_count(cv) * haze_table_column_count(cv))) {
        cli_errorf("%s: %zu rows of %zu values, but %zu centres of %zu features need %zu rows "
                   "of %zu (one norm matrix A_j per row, row-major)",
                   norms, haze_table_row_count(nt), haze_table_column_count(nt),
                   haze_table_row_count(cv), haze_table_column_count(cv), haze_table_row_count(cv),
                   haze_table_column_count(cv) * haze_table_column_count(cv));
        code = CLI_INPUT;
        st = HAZE_ERR_MISMATCH;
    }
    /* a norm matrix must be positive definite: at least its diagonal is > 0 */
    for (size_t j = 0; !st && nt && j < haze_table_row_count(nt); j++)
        for (size_t k = 0; k < haze_table_column_count(cv); k++)
            if (!(haze_table_data(
                      nt)[j * haze_table_column_count(nt) + k * haze_table_column_count(cv) + k] >
                  0)) {
                cli_errorf(
                    "%s: row %zu, column %zu: diagonal entry %zu of the norm matrix is "
                    "%g; a norm matrix must be positive definite",
                    norms, j + 1, k * haze_table_column_count(cv) + k + 1, k + 1,
                    haze_table_data(
                        nt)[j * haze_table_column_count(nt) + k * haze_table_column_count(cv) + k]);
                code = CLI_INPUT;
                st = HAZE_ERR_DOMAIN;
                break;
            }
    if (!st && haze_table_row_count(cv) < 2) {
        cli_errorf("%s: need at least 2 centres (rows), got %zu", argv[optind],
                   haze_table_row_count(cv));
        code = CLI_INPUT;
        st = HAZE_ERR_INVALID;
    }
    /* the fit writes the data's header above the centres: columns by name */
    cli_columns spec = {.kind = "the centres file",
                        .model = argv[optind],
                        .noun = "feature",
                        .names = (const char *const *)(cv ? haze_table_names(cv) : NULL),
                        .n = cv ? haze_table_column_count(cv) : 0,
                        .skip = -1,
                        .ignore_extra = ignore_extra};
    if (!st && !(idx = malloc((haze_table_column_count(cv) + 1) * sizeof *idx)))
        st = HAZE_ERR_NOMEM;
    if (!st && (code = cli_columns_match(x, argv[optind + 1], &spec, idx))) st = HAZE_ERR_MISMATCH;
    if (!st &&
        !(xd = cli_columns_gather(x, idx, haze_table_column_count(cv), 0, haze_table_row_count(x))))
        st = HAZE_ERR_NOMEM;
    if (!st && !(u = malloc(haze_table_row_count(x) * haze_table_row_count(cv) * sizeof *u)))
        st = HAZE_ERR_NOMEM;
    /* --missing skip: rows with a missing feature get NaN memberships and label -1 */
    const size_t nx = x ? haze_table_row_count(x) : 0, dc = cv ? haze_table_column_count(cv) : 0;
    size_t left = 0, first_left = 0;
    unsigned char *mark = NULL;
    if (!st && missing) {
        if (!(mark = malloc(nx ? nx : 1))) st = HAZE_ERR_NOMEM;
        if (mark) left = cli_rows_missing(xd, 0, nx, dc, mark, &first_left);
        if (left) {
            cli_rows_compact(xd, 0, nx, dc, mark);
            cli_info(g,
                     "haze fcm predict: %zu of %zu rows have a missing value (the first: data "
                     "row %zu): memberships NaN, label -1\n",
                     left, nx, first_left + 1);
        }
    }
    if (!st) {
        haze_fcm_result *model = NULL;
        st = haze_fcm_result_new(ctx, haze_table_row_count(cv), haze_table_column_count(cv),
                                 haze_table_data(cv), m, nt ? haze_table_data(nt) : NULL, &model);
        if (!st)
            st = haze_fcm_predict(ctx, model, xd, nx - left, dc,
                                  (single) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64, u);
        if (!st && left) cli_rows_expand(u, nx, haze_table_row_count(cv), mark);
        if (!st && out)
            st = haze_table_write(ctx, out, u, HAZE_PRECISION_F64, haze_table_row_count(x),
                                  haze_table_row_count(cv), NULL);
        if (!st && labels)
            st = write_labels(ctx, labels, u, haze_table_row_count(x), haze_table_row_count(cv));
        if (!st) st = haze_outgroup_commit(ctx);
        haze_fcm_result_free(model);
    }
    if (st && !code) code = cli_fail(ctx, st);
    free(u);
    free(xd);
    free(mark);
    free(idx);
    haze_table_free(cv);
    haze_table_free(x);
    haze_table_free(nt);
    haze_ctx_free(ctx);
    return code;
}

/* The reasons of a degenerate result, comma-separated words. */
static void degenerate_words(FILE *fp, int why, const char *quote) {
    const char *w[] = {"coincident_centres", "uniform_memberships", "empty_cluster"};
    int first = 1;
    for (int b = 0; b < 3; b++)
        if (why & (1 << b)) {
            fprintf(fp, "%s%s%s%s", first ? "" : ", ", quote, w[b], quote);
            first = 0;
        }
}

static void warn_degenerate(const haze_fcm_result *r, const haze_fcm_options *fo) {
    fprintf(stderr, "haze: warning: fcm: degenerate result (");
    degenerate_words(stderr, haze_fcm_result_degenerate(r), "");
    fprintf(stderr, "): the partition says little about the data.\n");
    if (fo->init == HAZE_FCM_INIT_RANDOM)
        fprintf(stderr, "haze: warning: --init random collapses on data of many features; try "
                        "--init kmeans++ (the default)\n");
    fprintf(stderr,
            "haze: warning: try a fuzzifier closer to 1 (now -m %g; 1.1 to 1.3 for data of many "
            "features, here %zu), fewer clusters, or another --seed\n",
            haze_fcm_result_fuzzifier(r), haze_fcm_result_feature_count(r));
}

static double mono_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* secs[0..2]: reading the data (and the start), the fit, writing the
 * outputs; n points (all the processes' in a run over several) */
static void print_json(FILE *fp, const char *data, const haze_fcm_result *r, size_t n, size_t left,
                       const double *secs) {
    fprintf(fp, "{\n  \"data\": ");
    cli_json_str(fp, data);
    fprintf(fp, ",\n  \"points\": %zu,\n  \"rows_left_out\": %zu,\n", n, left);
    fprintf(fp, "  \"features\": %zu,\n  \"clusters\": %zu,\n", haze_fcm_result_feature_count(r),
            haze_fcm_result_cluster_count(r));
    fprintf(fp, "  \"m\": %.17g,\n  \"metric\": \"%s\",\n", haze_fcm_result_fuzzifier(r),
            haze_fcm_result_metric(r) == HAZE_FCM_GK ? "gk" : "euclidean");
    fprintf(fp, "  \"iterations\": %d,\n  \"converged\": %s,\n  \"seconds\": %.6f,\n",
            haze_fcm_result_iterations(r), haze_fcm_result_converged(r) ? "true" : "false",
            secs[1]);
    fprintf(fp, "  \"timings\": {\"read\": %.6f, \"fit\": %.6f, \"write\": %.6f},\n", secs[0],
            secs[1], secs[2]);
    const double *ft = haze_fcm_result_timings(r);
    fprintf(fp,
            "  \"fit_timings\": {\"check\": %.6f, \"setup\": %.6f, \"seeding\": %.6f, "
            "\"iterations\": %.6f, \"finish\": %.6f},\n",
            ft[HAZE_FCM_TIME_CHECK], ft[HAZE_FCM_TIME_SETUP], ft[HAZE_FCM_TIME_SEEDING],
            ft[HAZE_FCM_TIME_ITERATIONS], ft[HAZE_FCM_TIME_FINISH]);
    fprintf(fp, "  \"objective\": %.17g,\n",
            haze_fcm_result_objective(r)[haze_fcm_result_iterations(r) - 1]);
    fprintf(fp, "  \"partition_coefficient\": %.17g,\n  \"partition_entropy\": %.17g,\n",
            haze_fcm_result_partition_coefficient(r), haze_fcm_result_partition_entropy(r));
    if (isfinite(haze_fcm_result_xie_beni(r)))
        fprintf(fp, "  \"xie_beni\": %.17g,\n", haze_fcm_result_xie_beni(r));
    else
        fprintf(fp, "  \"xie_beni\": null,\n");
    fprintf(fp, "  \"degenerate\": [");
    degenerate_words(fp, haze_fcm_result_degenerate(r), "\"");
    fprintf(fp, "],\n");
    fprintf(fp, "  \"objective_history\": [");
    for (int k = 0; k < haze_fcm_result_iterations(r); k++)
        fprintf(fp, "%s%.17g", k ? ", " : "", haze_fcm_result_objective(r)[k]);
    fprintf(fp, "],\n  \"centers\": [");
    for (size_t j = 0; j < haze_fcm_result_cluster_count(r); j++) {
        fprintf(fp, "%s[", j ? ", " : "");
        for (size_t k = 0; k < haze_fcm_result_feature_count(r); k++)
            fprintf(fp, "%s%.17g", k ? ", " : "",
                    haze_fcm_result_centres(r)[j * haze_fcm_result_feature_count(r) + k]);
        fprintf(fp, "]");
    }
    fprintf(fp, "]\n}\n");
}

/* --init WHAT for data of n rows and d columns: fo->init, and init_data
 * from *it (read here). A mismatch is described in why (for the caller to
 * print; exit code 2) and returns HAZE_ERR_MISMATCH. */
static int resolve_init(haze_ctx *ctx, const char *init, size_t n, size_t d, haze_fcm_options *fo,
                        haze_table **it, const char *const *names, const char *data, char *why,
                        size_t whysz) {
    int st = HAZE_OK;
    if (strcmp(init, "random") == 0) {
        fo->init = HAZE_FCM_INIT_RANDOM;
    } else if (strcmp(init, "kmeans++") == 0) {
        fo->init = HAZE_FCM_INIT_KMEANSPP;
    } else if (!(st = haze_table_read(ctx, init, NULL, it))) {
        if (haze_table_row_count(*it) == (size_t)fo->clusters &&
            haze_table_column_count(*it) == d) {
            fo->init = HAZE_FCM_INIT_CENTRES;
            /* centres with a header (as -o writes them) and data with one:
             * the features matched by name, as predict matches them */
            if (names && haze_table_names(*it)) {
                cli_columns spec = {.kind = "the data",
                                    .model = data,
                                    .noun = "feature",
                                    .names = names,
                                    .n = d,
                                    .skip = -1,
                                    .ignore_extra = 0};
                size_t *idx = malloc((d ? d : 1) * sizeof *idx);
                double *v = NULL;
                if (!idx) return HAZE_ERR_NOMEM;
                if (cli_columns_match(*it, init, &spec, idx)) {
                    snprintf(why, whysz,
                             "%s: start centres with a header are matched to the data's columns "
                             "by name",
                             init);
                    free(idx);
                    return HAZE_ERR_MISMATCH;
                }
                if (!(v = cli_columns_gather(*it, idx, d, 0, (size_t)fo->clusters))) {
                    free(idx);
                    return HAZE_ERR_NOMEM;
                }
                memcpy(haze_table_data(*it), v, (size_t)fo->clusters * d * sizeof *v);
                free(v);
                free(idx);
            }
        } else if (haze_table_row_count(*it) == n &&
                   haze_table_column_count(*it) == (size_t)fo->clusters) {
            fo->init = HAZE_FCM_INIT_MEMBERSHIPS;
        } else {
            snprintf(why, whysz,
                     "%s: %zu x %zu is neither %d centres of %zu features nor %zu x %d "
                     "memberships",
                     init, haze_table_row_count(*it), haze_table_column_count(*it), fo->clusters, d,
                     n, fo->clusters);
            st = HAZE_ERR_MISMATCH;
        }
        fo->init_data = haze_table_data(*it);
    }
    return st;
}

/* The summary (text or JSON) of a fit of n points, and the warning of a
 * degenerate result; with `centres`, the text lists the centres. */
static void print_summary(FILE *sum, const char *data, const haze_fcm_result *r, size_t n,
                          size_t left, const haze_fcm_options *fo, const double *secs, int json,
                          int centres) {
    if (json) {
        print_json(sum, data, r, n, left, secs);
    } else {
        fprintf(sum, "fcm: %zu points, %zu features, %zu clusters, m = %g, %s, %s\n", n,
                haze_fcm_result_feature_count(r), haze_fcm_result_cluster_count(r),
                haze_fcm_result_fuzzifier(r),
                haze_fcm_result_metric(r) == HAZE_FCM_GK ? "Gustafson-Kessel" : "Euclidean",
                (fo->precision == HAZE_PRECISION_F32) ? "float32" : "float64");
        fprintf(sum, "iterations %d (%s), %.3f s\n", haze_fcm_result_iterations(r),
                haze_fcm_result_converged(r) ? "converged" : "not converged", secs[1]);
        fprintf(sum,
                "objective %.10g\npartition coefficient %.6f\npartition entropy %.6f\n"
                "Xie-Beni index %.6g\n",
                haze_fcm_result_objective(r)[haze_fcm_result_iterations(r) - 1],
                haze_fcm_result_partition_coefficient(r), haze_fcm_result_partition_entropy(r),
                haze_fcm_result_xie_beni(r));
        if (centres) {
            fprintf(sum, "centres:\n");
            for (size_t j = 0; j < haze_fcm_result_cluster_count(r); j++) {
                for (size_t k = 0; k < haze_fcm_result_feature_count(r); k++)
                    fprintf(sum, "%s%.10g", k ? "," : "",
                            haze_fcm_result_centres(r)[j * haze_fcm_result_feature_count(r) + k]);
                fprintf(sum, "\n");
            }
        }
    }
    if (haze_fcm_result_degenerate(r)) warn_degenerate(r, fo);
    const int it = haze_fcm_result_iterations(r);
    if (!haze_fcm_result_converged(r) && fo->tol > 0 &&
        it > 0) /* (--tol 0: the count is the rule) */
        fprintf(stderr,
                "haze: warning: fcm: not converged after %d iterations (the last change %.3g, "
                "--tol %g): the centres may move further; raise --max-iter or loosen --tol\n",
                it, haze_fcm_result_change(r)[it - 1], fo->tol);
}

/* What `haze fcm` was asked, after its options. */
typedef struct fcm_job {
    haze_fcm_options fo;
    const char *data, *init, *out, *memb, *labels, *norms;
    int json;
    FILE *sum;
    const char *columns, *drop; /* the columns read (haze_table_options) */
} fcm_job;

/* A step of a run over several processes: this rank's exit code (code, or
 * that of the library status st with the context's message, or why), agreed
 * by every rank: the first failing rank's code, its message printed once. */
static int agree(haze_ctx *ctx, int st, int code, const char *why) {
    const char *msg = NULL;
    if (!code && st) {
        msg = ctx ? haze_ctx_errmsg(ctx) : NULL;
        if (!msg || !*msg) msg = haze_status_message(st);
        code = cli_exit_code_of(st, msg);
    } else if (code) {
        msg = why;
    }
    return cli_mpi_agree(code, msg);
}

static int ends_with_npy(const char *path) {
    const size_t n = strlen(path);
    return n >= 4 && strcmp(path + n - 4, ".npy") == 0;
}

/*
 * `mpirun -np R haze fcm ...`: one fit over the R processes (docs/fcm.md,
 * "Several processes (MPI)"). Each rank holds the rows haze_fcm_part_rows
 * gives it: a .npy file's rows are read by each rank from their place in the
 * file; a CSV file is read by rank 0, which sends each rank its rows. The
 * library exchanges the sums through cli_mpi_allgather; rank 0 gathers the
 * memberships and writes every output and the summary. Every step that can
 * fail on one rank ends in an agreement, so all ranks exit with one code
 * and rank 0 prints one message (the other ranks print nothing).
 */
/* Rank k's rows: the union of the fit's parts pf[k] .. pf[k + 1] - 1 of
 * pf[size] (haze_fcm_part_rows). */
static int rank_rows(haze_ctx *ctx, const haze_fcm_options *fo, size_t n, size_t d,
                     const size_t *pf, int size, int k, size_t *first, size_t *count) {
    size_t f = 0, c = 0, fl = 0, cl = 0;
    int st = haze_fcm_part_rows(ctx, fo, n, d, pf[k], pf[size], &f, &c);
    if (!st) st = haze_fcm_part_rows(ctx, fo, n, d, pf[k + 1] - 1, pf[size], &fl, &cl);
    *first = f;
    *count = st ? 0 : fl + cl - f;
    return st;
}

/* The parts of each rank (its GPUs, or HAZE_FCM_PARTS_PER_PROCESS on the
 * CPU) from every rank, as prefix sums pf[0 .. size]: rank k runs the
 * fit's parts pf[k] .. pf[k + 1] - 1. 0, or non-zero on failure. */
static int rank_parts(int local, int size, size_t **out) {
    uint64_t mine = (uint64_t)local;
    void *all = NULL;
    size_t total = 0;
    size_t *pf = malloc(((size_t)size + 1) * sizeof *pf);
    int rc = cli_mpi_allgather(NULL, &mine, sizeof mine, &all, &total);
    if (!rc && (!pf || total != (size_t)size * sizeof mine)) rc = 1;
    if (!rc) {
        pf[0] = 0;
        for (int k = 0; k < size; k++) {
            uint64_t gk;
            memcpy(&gk, (unsigned char *)all + (size_t)k * sizeof gk, sizeof gk);
            pf[k + 1] = pf[k] + (size_t)gk;
        }
    }
    free(all);
    if (rc) {
        free(pf);
        pf = NULL;
    }
    *out = pf;
    return rc;
}

static int fit_parts(fcm_job *a, const cli_global *g) {
    int rank = 0, size = 1;
    int code = cli_mpi_init(&rank, &size);
    if (code) return code;
    haze_fcm_options fo = a->fo;
    cli_global gc = *g; /* AUTO means the CPU here (the one-process bits) */
    int gpus[64];
    const int ngpus = cli_gpus(g, gpus, 64);
    int local = 1; /* the fit's parts this rank runs */
    char why[1024] = "";
    if (ngpus > 0) {
        /* --gpus SET of N GPUs over the L ranks of this host: local rank l
         * drives SET[l N / L .. (l + 1) N / L) when N >= L (N / L GPUs each,
         * or one more for some ranks when L does not divide N), else the
         * (l mod N)th GPU of the set */
        int lr = rank, ls = size;
        if (cli_mpi_local(&lr, &ls)) lr = rank, ls = size;
        gc.gpus_all = 0;
        gc.gpu_list = 1;
        if (ngpus >= ls) {
            const int a0 = lr * ngpus / ls, b0 = (lr + 1) * ngpus / ls;
            gc.gpu_count = b0 - a0;
            for (int k = 0; k < gc.gpu_count; k++) gc.gpu[k] = gpus[a0 + k];
        } else {
            gc.gpu_count = 1;
            gc.gpu[0] = gpus[lr % ngpus];
        }
        local = gc.gpu_count;
    } else if (g->gpus_all) {
        gc.gpus_all = 0;
        gc.gpu_count = 1; /* none present: the context's refusal */
    }
    if (!ngpus && !g->gpus_all) {
        /* on the CPU, each rank may run several parts (the layout of --gpus
         * without GPUs, for tests; the plain fit's bits all the same) */
        const char *e = getenv("HAZE_FCM_PARTS_PER_PROCESS");
        long v = 1;
        if (e && *e && !cli_parse_int(e, 1, 64, &v)) {
            snprintf(why, sizeof why, "HAZE_FCM_PARTS_PER_PROCESS: expected 1 to 64, got '%s'", e);
            code = CLI_USAGE;
        }
        local = (int)v;
    }
    if (gc.backend == HAZE_BACKEND_AUTO && !gc.gpu_count) gc.backend = HAZE_BACKEND_CPU;
    haze_ctx *ctx = NULL;
    haze_table *x = NULL, *it = NULL, *head = NULL;
    haze_fcm_result *r = NULL;
    double *mine = NULL, *u = NULL;
    size_t *counts = NULL, *pf = NULL;
    if ((code = cli_mpi_agree(code, why))) goto done;
    code = cli_ctx_new(&gc, &ctx); /* prints its reason on rank 0 */
    if ((code = cli_mpi_agree(code, rank && code ? "cannot make a context" : NULL))) goto done;
    if (rank_parts(local, size, &pf)) {
        code = cli_mpi_agree(CLI_RUNTIME, "fcm: gathering the ranks' part counts failed");
        goto done;
    }
    const char *outputs[] = {a->out, a->memb, a->labels, a->norms};
    int st = rank == 0 ? cli_outputs_begin(ctx, 4, outputs) : HAZE_OK;
    double secs[3] = {0, 0, 0}, tr = mono_s();
    /* The shape: a .npy header (and one row) on every rank; a CSV file on rank 0. */
    haze_table_options ro = haze_table_options_default();
    ro.keep_float32 = fo.precision == HAZE_PRECISION_F32;
    ro.columns = a->columns;
    ro.drop = a->drop;
    const int npy = ends_with_npy(a->data);
    uint64_t shape[3] = {0, 0, 0}; /* rows, columns, float32 */
    if (!st && npy) {
        ro.max_rows = 1;
        if (!(st = haze_table_read(ctx, a->data, &ro, &head))) {
            shape[0] = haze_table_file_row_count(head);
            shape[1] = haze_table_column_count(head);
            shape[2] = haze_table_precision(head) == HAZE_PRECISION_F32;
        }
    } else if (!st && rank == 0 && !(st = haze_table_read(ctx, a->data, &ro, &x))) {
        shape[0] = haze_table_row_count(x);
        shape[1] = haze_table_column_count(x);
    }
    if ((code = agree(ctx, st, code, why))) goto done;
    if (!npy && cli_mpi_bcast(shape, sizeof shape, 0)) {
        code = cli_mpi_agree(CLI_RUNTIME, "fcm: MPI_Bcast failed");
        goto done;
    }
    const size_t n = (size_t)shape[0], d = (size_t)shape[1];
    const haze_precision type = shape[2] ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64;
    size_t first = 0, count = 0;
    if ((size_t)fo.clusters > n) {
        snprintf(why, sizeof why, "%s: %d clusters for only %zu points", a->data, fo.clusters, n);
        code = CLI_INPUT;
    }
    if (!code) st = rank_rows(ctx, &fo, n, d, pf, size, rank, &first, &count);
    /* This rank's rows. */
    const void *xv = NULL;
    if (!code && !st && npy && count) {
        ro.first_row = first;
        ro.max_rows = count;
        if (!(st = haze_table_read(ctx, a->data, &ro, &x))) xv = haze_table_values(x);
    }
    if (!code && !st && !npy) {
        counts = calloc((size_t)size, sizeof *counts);
        mine = malloc((count ? count * d : 1) * sizeof *mine);
        for (int k = 0; counts && k < size && !st; k++) {
            size_t f, c;
            st = rank_rows(ctx, &fo, n, d, pf, size, k, &f, &c);
            counts[k] = c * d * sizeof(double);
        }
        if (!st && (!counts || !mine)) st = HAZE_ERR_NOMEM;
    }
    if (!code && !st) /* --init FILE: every rank reads it (centres, or every row's memberships) */
        st = resolve_init(ctx, a->init, n, d, &fo, &it, NULL, a->data, why,
                          sizeof why); /* (by position: rank 0 alone reads a CSV header) */
    if (*why && !code) code = CLI_INPUT;
    if ((code = agree(ctx, st, code, why))) goto done;
    if (!npy) {
        if (cli_mpi_scatter(x ? haze_table_data(x) : NULL, counts, mine,
                            count * d * sizeof *mine)) {
            code = cli_mpi_agree(CLI_RUNTIME, "fcm: sending the rows to the processes failed");
            goto done;
        }
        xv = mine;
    }
    if (fo.init == HAZE_FCM_INIT_MEMBERSHIPS) fo.init_data += first * (size_t)fo.clusters;
    secs[0] = mono_s() - tr;

    /* The fit: one over every rank's rows. */
    fit_progress fp;
    cli_progress_begin(&fp.line, g, "fcm"); /* rank 0's terminal only: the others write nowhere */
    fp.max_iter = fo.max_iter;
    if (fp.line.on) {
        fo.progress = progress;
        fo.progress_arg = &fp;
        cli_progress_phase(&fp.line,
                           fo.init == HAZE_FCM_INIT_KMEANSPP ? "seeding (k-means++)" : "starting");
    }
    fo.want_memberships = a->memb || a->labels;
    fo.total_rows = n;
    fo.first_row = first;
    fo.allgather = cli_mpi_allgather;
    if (local > 1) { /* this rank's parts of the fit: its GPUs, or CPU parts */
        fo.devices = ngpus ? gc.gpu : NULL;
        fo.device_count = local;
        fo.part_first = pf[rank];
        fo.part_count = pf[size];
    }
    double tf = mono_s();
    st = haze_fcm_fit(ctx, xv, type, count, d, &fo, &r);
    secs[1] = mono_s() - tf;
    cli_progress_end(&fp.line);
    if ((code = agree(ctx, st, 0, NULL))) goto done; /* the library fails on every rank at once */

    /* The memberships to rank 0, which writes everything. */
    double tw = mono_s();
    const size_t c = (size_t)fo.clusters;
    if (fo.want_memberships) {
        st = rank == 0 && !(u = malloc(n * c * sizeof *u)) ? HAZE_ERR_NOMEM : HAZE_OK;
        if ((code = agree(ctx, st, 0, NULL))) goto done;
        if (cli_mpi_gather(haze_fcm_result_memberships(r), count * c * sizeof *u, u)) {
            code = cli_mpi_agree(CLI_RUNTIME, "fcm: gathering the memberships failed");
            goto done;
        }
    }
    if (rank == 0) {
        const char *const *names =
            !npy && x ? (const char *const *)haze_table_names(x) : NULL; /* rank 0 read the CSV */
        if (!st && a->out)
            st = haze_table_write(ctx, a->out, haze_fcm_result_centres(r), HAZE_PRECISION_F64, c, d,
                                  names);
        if (!st && a->memb) st = haze_table_write(ctx, a->memb, u, HAZE_PRECISION_F64, n, c, NULL);
        if (!st && a->labels) st = write_labels(ctx, a->labels, u, n, c);
        if (!st && a->norms)
            st = haze_table_write(ctx, a->norms, haze_fcm_result_norms(r), HAZE_PRECISION_F64, c,
                                  d * d, NULL);
        if (!st) st = haze_outgroup_commit(ctx);
    }
    secs[2] = mono_s() - tw;
    if ((code = agree(ctx, st, 0, NULL))) goto done;
    if (rank == 0) print_summary(a->sum, a->data, r, n, 0, &fo, secs, a->json, !a->out);
done:
    haze_fcm_result_free(r);
    haze_table_free(x);
    haze_table_free(it);
    haze_table_free(head);
    free(mine);
    free(u);
    free(counts);
    free(pf);
    haze_ctx_free(ctx);
    cli_mpi_finalize();
    return code;
}

int cmd_fcm(int argc, char **argv, const cli_global *g) {
    if (argc >= 2 && strcmp(argv[1], "predict") == 0) return cmd_predict(argc - 1, argv + 1, g);
    /* Under an MPI launcher, rank 0 speaks for all: the other ranks' output
     * goes nowhere, and their failures reach rank 0 (fit_parts). */
    const int parts = cli_mpi_launched();
    if (parts && cli_mpi_env_rank() != 0) {
        int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            fflush(stdout);
            fflush(stderr);
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
    }
    static const struct option opts[] = {{"clusters", required_argument, 0, 'c'},
                                         {"fuzzifier", required_argument, 0, 'm'},
                                         {"metric", required_argument, 0, OPT_METRIC},
                                         {"init", required_argument, 0, OPT_INIT},
                                         {"tol", required_argument, 0, OPT_TOL},
                                         {"stop", required_argument, 0, OPT_STOP},
                                         {"max-iter", required_argument, 0, OPT_MAXIT},
                                         {"seed", required_argument, 0, OPT_SEED},
                                         {"precision", required_argument, 0, OPT_PREC},
                                         {"output", required_argument, 0, 'o'},
                                         {"memberships", required_argument, 0, OPT_MEMB},
                                         {"labels", required_argument, 0, OPT_LABELS},
                                         {"json", no_argument, 0, OPT_JSON},
                                         {"norms", required_argument, 0, OPT_NORMS},
                                         {"plot", required_argument, 0, OPT_PLOT},
                                         {"columns", required_argument, 0, OPT_COLUMNS},
                                         {"drop", required_argument, 0, OPT_DROP},
                                         {"missing", required_argument, 0, OPT_MISSING},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int missing = 0;
    haze_fcm_options fo = haze_fcm_options_default();
    const char *init = "kmeans++", *out = NULL, *memb = NULL, *labels = NULL, *norms = NULL;
    const char *plot = NULL, *columns = NULL, *drop = NULL;
    int json = 0;
    long l;
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "c:m:o:h", opts, NULL)) != -1) {
        switch (o) {
        case 'h':
            help(stdout);
            return CLI_OK;
        case 'c':
            if (!cli_parse_int(optarg, -(1L << 30), 1L << 30, &l))
                return cli_usage_error("fcm", "-c: expected a number of clusters, got '%s'",
                                       optarg);
            if (l < 2) /* a bad option value: a usage error, as a malformed one */
                return cli_usage_error("fcm", "-c %ld: fuzzy c-means needs at least 2 clusters", l);
            fo.clusters = (int)l;
            break;
        case 'm':
            if (!cli_parse_double(optarg, &fo.m))
                return cli_usage_error("fcm", "-m: expected a number, got '%s'", optarg);
            if (!(fo.m > 1) || !isfinite(fo.m))
                return cli_usage_error("fcm", "-m %s: the fuzzifier must be a finite number > 1",
                                       optarg);
            break;
        case OPT_METRIC:
            if (strcmp(optarg, "euclidean") == 0)
                fo.metric = HAZE_FCM_EUCLIDEAN;
            else if (strcmp(optarg, "gk") == 0)
                fo.metric = HAZE_FCM_GK;
            else
                return cli_usage_error("fcm", "--metric: expected euclidean or gk, got '%s'",
                                       optarg);
            break;
        case OPT_INIT:
            init = optarg;
            break;
        case OPT_TOL:
            if (!cli_parse_double(optarg, &fo.tol) || !(fo.tol >= 0) || !isfinite(fo.tol))
                return cli_usage_error("fcm", "--tol: expected a number >= 0, got '%s'", optarg);
            break;
        case OPT_STOP:
            if (strcmp(optarg, "membership") == 0)
                fo.stop = HAZE_FCM_STOP_MEMBERSHIP;
            else if (strcmp(optarg, "objective") == 0)
                fo.stop = HAZE_FCM_STOP_OBJECTIVE;
            else
                return cli_usage_error("fcm", "--stop: expected membership or objective");
            break;
        case OPT_MAXIT:
            if (!cli_parse_int(optarg, 1, 100000000, &l))
                return cli_usage_error("fcm", "--max-iter: expected a number >= 1, got '%s'",
                                       optarg);
            fo.max_iter = (int)l;
            break;
        case OPT_SEED: {
            /* digits only (strtoull would take a sign and spaces), and no
             * silent clamping of a value beyond 64 bits */
            char *end = NULL;
            errno = 0;
            unsigned long long s = strtoull(optarg, &end, 10);
            if (!isdigit((unsigned char)optarg[0]) || *end || errno == ERANGE || s > UINT64_MAX)
                return cli_usage_error("fcm",
                                       "--seed: expected a whole number from 0 to "
                                       "18446744073709551615, got '%s'",
                                       optarg);
            fo.seed = (uint64_t)s;
            break;
        }
        case OPT_PREC:
            if (strcmp(optarg, "single") && strcmp(optarg, "double"))
                return cli_usage_error("fcm", "--precision: expected single or double, got '%s'",
                                       optarg);
            fo.precision =
                (strcmp(optarg, "single") == 0) ? HAZE_PRECISION_F32 : HAZE_PRECISION_F64;
            break;
        case 'o':
            out = optarg;
            break;
        case OPT_MEMB:
            memb = optarg;
            break;
        case OPT_LABELS:
            labels = optarg;
            break;
        case OPT_NORMS:
            norms = optarg;
            break;
        case OPT_JSON:
            json = 1;
            break;
        case OPT_PLOT:
            plot = optarg;
            break;
        case OPT_COLUMNS:
            columns = optarg;
            break;
        case OPT_DROP:
            drop = optarg;
            break;
        case OPT_MISSING: {
            const int e = cli_missing_option("fcm", optarg, &missing);
            if (e) return e;
        } break;
        default:
            return cli_usage_error("fcm", "bad option");
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("fcm",
                               argc - optind < 1 ? "missing DATA file" : "expected one DATA file");
    if (fo.clusters == 0) return cli_usage_error("fcm", "the number of clusters -c K is required");
    if (norms && fo.metric != HAZE_FCM_GK)
        return cli_usage_error("fcm", "--norms needs --metric gk (Euclidean has no norm matrices)");
    /* Results on stdout push the summary to stderr; two results cannot share it. */
    const int to_stdout = is_stdout(out) + is_stdout(memb) + is_stdout(labels) + is_stdout(norms);
    if (to_stdout > 1)
        return cli_usage_error("fcm", "only one of -o, --memberships, --labels and --norms can "
                                      "be '-' (stdout)");
    FILE *sum = to_stdout ? stderr : stdout;
    const char *data = argv[optind];
    if (parts && plot)
        return cli_usage_error("fcm", "--plot is not drawn when several processes run one fit "
                                      "(mpirun); draw it from the outputs of a run on one");
    if (parts && missing)
        return cli_usage_error("fcm", "--missing skip is not available when several processes "
                                      "run one fit (mpirun): leave the rows out of the file first");
    if (parts) {
        fcm_job job = {fo, data, init, out, memb, labels, norms, json, sum, columns, drop};
        return fit_parts(&job, g);
    }
    if (plot) {
        int prc = plot_check_path("fcm", "--plot", plot);
        if (prc) return prc;
    }

    haze_ctx *ctx = NULL;
    int code = cli_ctx_new(g, &ctx);
    if (code) return code;
    haze_table *x = NULL, *it = NULL;
    haze_fcm_result *r = NULL;
    const char *outputs[] = {out, memb, labels, norms, plot};
    int st = cli_outputs_begin(ctx, 5, outputs);
    /* single precision: a float32 .npy file stays float32, no double copy */
    double secs[3] = {0, 0, 0}, tr = mono_s();
    haze_table_options ro = haze_table_options_default();
    ro.keep_float32 = (fo.precision == HAZE_PRECISION_F32);
    ro.columns = columns;
    ro.drop = drop;
    ro.missing = missing;
    if (!st) st = haze_table_read(ctx, data, &ro, &x);
    /* --missing skip: the rows with a missing value left out of the fit (moved
     * out of the table's front, in place), NaN in their rows of the outputs */
    size_t n = x ? haze_table_row_count(x) : 0, left = 0, first_left = 0;
    const size_t d = x ? haze_table_column_count(x) : 0;
    const int f32 = x && haze_table_precision(x) == HAZE_PRECISION_F32;
    unsigned char *mark = NULL;
    if (!st && missing) {
        if (!(mark = malloc(n)))
            st = HAZE_ERR_NOMEM;
        else
            left = cli_rows_missing(haze_table_values(x), f32, n, d, mark, &first_left);
        if (left) {
            cli_rows_compact(haze_table_values(x), f32, n, d, mark);
            cli_info(g,
                     "haze fcm: %zu of %zu rows have a missing value and are left out (the "
                     "first: data row %zu)\n",
                     left, n, first_left + 1);
        }
    }
    if (!st && (size_t)fo.clusters > n - left) {
        cli_errorf("%s: %d clusters for only %zu points%s", data, fo.clusters, n - left,
                   left ? " without missing values" : "");
        code = CLI_INPUT;
        st = HAZE_ERR_INVALID;
    }
    if (!st) {
        char why[1024] = "";
        st = resolve_init(ctx, init, n, d, &fo, &it, (const char *const *)haze_table_names(x), data,
                          why, sizeof why);
        if (*why) {
            cli_errorf("%s", why);
            code = CLI_INPUT;
        }
        if (!st && left && fo.init == HAZE_FCM_INIT_MEMBERSHIPS) /* the same rows out */
            cli_rows_compact(haze_table_data(it), 0, n, (size_t)fo.clusters, mark);
    }
    secs[0] = mono_s() - tr;
    fit_progress fp;
    cli_progress_begin(&fp.line, g, "fcm");
    fp.max_iter = fo.max_iter;
    if (!st && fp.line.on) {
        fo.progress = progress;
        fo.progress_arg = &fp;
        cli_progress_phase(&fp.line,
                           fo.init == HAZE_FCM_INIT_KMEANSPP ? "seeding (k-means++)" : "starting");
    }
    fo.want_memberships = memb || labels || plot;
    int gpus[64];
    const int ngpus = cli_gpus(g, gpus, 64);
    if (ngpus > 1) { /* one fit over these GPUs (docs/fcm.md, "Several GPUs") */
        fo.devices = gpus;
        fo.device_count = ngpus;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (!st)
        st = haze_fcm_fit(ctx, haze_table_values(x), haze_table_precision(x), n - left, d, &fo, &r);
    double *uall = NULL; /* the memberships of every row, NaN where left out */
    if (!st && left && (memb || labels)) {
        const size_t c = (size_t)fo.clusters;
        if (!(uall = malloc(n * c * sizeof *uall))) {
            st = HAZE_ERR_NOMEM;
        } else {
            memcpy(uall, haze_fcm_result_memberships(r), (n - left) * c * sizeof *uall);
            cli_rows_expand(uall, n, c, mark);
        }
    }
    const double *u = uall ? uall : r ? haze_fcm_result_memberships(r) : NULL;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cli_progress_end(&fp.line);
    secs[1] = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    double tw = mono_s();
    if (!st && out)
        st = haze_table_write(ctx, out, haze_fcm_result_centres(r), HAZE_PRECISION_F64,
                              haze_fcm_result_cluster_count(r), haze_fcm_result_feature_count(r),
                              (const char *const *)haze_table_names(x));
    if (!st && memb)
        st = haze_table_write(ctx, memb, u, HAZE_PRECISION_F64, n, haze_fcm_result_cluster_count(r),
                              NULL);
    if (!st && labels) st = write_labels(ctx, labels, u, n, haze_fcm_result_cluster_count(r));
    if (!st && norms)
        st = haze_table_write(ctx, norms, haze_fcm_result_norms(r), HAZE_PRECISION_F64,
                              haze_fcm_result_cluster_count(r),
                              haze_fcm_result_feature_count(r) * haze_fcm_result_feature_count(r),
                              NULL);
    if (!st && plot) {
        struct timespec p0, p1;
        clock_gettime(CLOCK_MONOTONIC, &p0);
        if ((code = plot_fcm(ctx, haze_table_data(x),
                             (haze_table_precision(x) == HAZE_PRECISION_F32
                                  ? (float *)haze_table_values(x)
                                  : NULL),
                             (const char *const *)haze_table_names(x), r, plot)))
            st = HAZE_ERR_IO;
        clock_gettime(CLOCK_MONOTONIC, &p1);
        if (!code)
            cli_info(g, "haze fcm: %s drawn in %.3f s\n", plot,
                     (double)(p1.tv_sec - p0.tv_sec) + 1e-9 * (double)(p1.tv_nsec - p0.tv_nsec));
    }
    if (!st) st = haze_outgroup_commit(ctx);
    secs[2] = mono_s() - tw;
    if (!st)
        print_summary(sum, data, r, haze_fcm_result_point_count(r), left, &fo, secs, json, !out);

    if (st && !code)
        code = cli_fail_data(ctx, st, data,
                             "every column is a feature: leave this one out with --drop %s, or "
                             "give the features with --columns LIST",
                             1);
    free(mark);
    free(uall);
    haze_fcm_result_free(r);
    haze_table_free(x);
    haze_table_free(it);
    haze_ctx_free(ctx);
    return code;
}
