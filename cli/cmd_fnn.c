/*
 * cli/cmd_fnn.c - `haze fnn train|predict|info|export`: the SONFIN neuro-fuzzy
 * network of seed 001 (section 2.2) from the command line.
 *
 * Tables are read with haze_table_read (the target column may hold text
 * labels); models and predictions are written atomically, and every check
 * of the input happens before anything is written.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"
#include "progress.h"

static void help(FILE *fp) {
    fprintf(fp, "usage: haze fnn train DATA --target COLUMN [options] -o MODEL\n"
                "       haze fnn predict MODEL DATA [--head N | --tail N] [-o OUT.csv]\n"
                "       haze fnn info MODEL\n"
                "       haze fnn export MODEL -o MODEL.fis\n\n"
                "SONFIN, the self-constructing neural fuzzy inference network: Gaussian\n"
                "memberships, product rules, weighted-average outputs; rules are created\n"
                "while training and all parameters tuned by gradient descent.\n"
                "`haze fnn SUBCOMMAND --help` describes each subcommand.\n");
}

static void help_train(FILE *fp) {
    fprintf(fp,
            "usage: haze fnn train DATA --target COLUMN [options] -o MODEL\n\n"
            "Trains a SONFIN network on the table DATA (CSV or .npy) and writes it to\n"
            "MODEL ('-': standard output). Progress and the summary go to stderr.\n"
            "Inputs are standardised per input (--scale), regression targets too; a\n"
            "share of the rows (--validation) is held out, the epoch that does best on\n"
            "it is kept, and the learning rate is halved after an epoch whose loss rose.\n\n"
            "  --target COLUMN   the column to learn (name or 0-based index); required\n"
            "  --inputs LIST     the input columns: header names, 0-based column numbers\n"
            "                    and ranges A-B, comma-separated (default: all but the\n"
            "                    target)\n"
            "  --drop LIST       columns that are not inputs (ids, dates: not read)\n"
            "  --missing WHAT    error (default): an empty field, NA, NaN, ? ... is an\n"
            "                    error; skip: rows with one are left out\n"
            "  --classes         classification: one output per distinct label, argmax\n"
            "                    (default: regression on the numeric target)\n"
            "  --epochs N        passes over the data (%d)\n"
            "  --threshold T     new rule when the best per-input firing is <= T (%g)\n"
            "  --decay D         threshold of epoch e is T * D^e (%g)\n"
            "  --width W         every new rule gets width W (standardised units, %g);\n"
            "                    0: widths from --beta\n"
            "  --beta B          new widths = B * distance to the strongest rule (%g);\n"
            "                    given without --width, it selects this rule (--width 0)\n"
            "  --rate R          initial learning rate tau (%g)\n"
            "  --validation F    share of the rows held out to pick the best epoch (%g;\n"
            "                    0: none, the last epoch is kept)\n"
            "  --batch B         1: online, sample by sample (default); >1: mini-batch\n"
            "  --max-rules N     no new rules beyond N (0: no limit)\n"
            "  --seed S          seed of the shuffles and of the held-out pick (1)\n"
            "  --scale input|global  z-scores per input (default) or one for all inputs\n"
            "  --head N          train on the first N rows only\n"
            "  --tail N          train on the last N rows only\n"
            "  -o MODEL          the model file to write (required)\n"
            "  --plot FILE       draw the loss, accuracy and rule count per epoch (PNG,\n"
            "                    SVG or PDF by extension)\n"
            "  -h, --help        this text\n",
            haze_fnn_options_default().epochs, haze_fnn_options_default().threshold,
            haze_fnn_options_default().decay, haze_fnn_options_default().width,
            haze_fnn_options_default().beta, haze_fnn_options_default().rate,
            haze_fnn_options_default().validation);
}

static void help_predict(FILE *fp) {
    fprintf(fp, "usage: haze fnn predict MODEL DATA [--head N | --tail N] [-o OUT.csv]\n\n"
                "Writes one prediction per row of DATA as CSV with a header: the class label\n"
                "(exactly as in the training data, quoted where CSV needs it) or the value.\n"
                "When DATA holds the target column, accuracy or RMSE goes to stderr.\n"
                "When DATA has a header, its columns are matched to the model's inputs by\n"
                "name (a missing name is an error, and so is an unknown column unless\n"
                "--ignore-extra); without one, by order.\n\n"
                "  --head N          predict the first N rows only\n"
                "  --tail N          predict the last N rows only\n"
                "  --ignore-extra    leave out columns the model does not know\n"
                "  --missing WHAT    error (default), or skip: a row with a missing input\n"
                "                    (empty, NA, NaN, ? ...) is not predicted (nan, or no\n"
                "                    class) nor scored\n"
                "  -o OUT.csv        where to write (default '-': standard output)\n"
                "  -h, --help        this text\n");
}

static void help_info(FILE *fp) {
    fprintf(fp, "usage: haze fnn info MODEL\n\n"
                "Prints the model's kind, inputs, outputs, rules, target and classes on\n"
                "standard output.\n\n"
                "  -h, --help        this text\n");
}

static void help_export(FILE *fp) {
    fprintf(fp, "usage: haze fnn export MODEL -o MODEL.fis\n\n"
                "Writes the network as a MATLAB/Octave Sugeno .fis file (gaussmf inputs on\n"
                "the raw scale, constant outputs; read by MATLAB, Octave, fuzzylite and\n"
                "haze fis). '-' writes to standard output.\n\n"
                "  -o MODEL.fis      the file to write (required)\n"
                "  -h, --help        this text\n");
}

/* ------------------------------------------------------------ data sets */

typedef struct {
    haze_table *t;
    int target;              /* column of the target, -1 if absent */
    size_t n, D;             /* rows used, input columns */
    double *x;               /* n x D inputs */
    size_t first;            /* first row used */
    size_t *rows;            /* with rows left out (--missing skip): the n rows used, else NULL */
    size_t left, first_left; /* rows left out, and the first of them */
} dataset;

/* The table row of the dataset's row i. */
static size_t row_of(const dataset *s, size_t i) {
    return s->rows ? s->rows[i] : s->first + i;
}

static void dataset_free(dataset *s) {
    haze_table_free(s->t);
    free(s->x);
    free(s->rows);
    memset(s, 0, sizeof *s);
}

/* Reads DATA; `target` (may be NULL) names a column that may hold text and
 * is left out of the inputs. head/tail: 0 for all rows. columns, drop: the
 * columns read (haze_table_options; NULL: all). */
static int dataset_read(haze_ctx *ctx, const char *path, const char *target, int text_target,
                        int need_target, size_t head, size_t tail, const char *columns,
                        const char *drop, int missing, dataset *s) {
    memset(s, 0, sizeof *s);
    haze_table_options ro = haze_table_options_default();
    ro.missing = missing != 0; /* 1: rows left out here (train); 2: read only (predict) */
    ro.text_column = text_target ? target : NULL;
    ro.columns = columns;
    ro.drop = drop;
    ro.text_as_nan = !need_target; /* predict: text only where no input is read (checked) */
    int st = haze_table_read(ctx, path, &ro, &s->t);
    if (st && !need_target && ro.text_column && strstr(haze_ctx_errmsg(ctx), "no column")) {
        /* predict: data without the target column is fine */
        ro.text_column = NULL;
        target = NULL;
        haze_ctx_clear_error(ctx);
        st = haze_table_read(ctx, path, &ro, &s->t);
    }
    if (st)
        return need_target ? cli_fail_data(ctx, st, path,
                                           "every column but the target is an input: leave this "
                                           "one out with --drop %s, or give the inputs with "
                                           "--inputs LIST",
                                           1)
                           : cli_fail(ctx, st);
    /* the text column is the target as the file numbers it, wherever the
     * columns kept put it */
    s->target = !target                             ? -1
                : haze_table_text_column(s->t) >= 0 ? haze_table_text_column(s->t)
                                                    : haze_table_column(s->t, target);
    if (need_target && s->target < 0) {
        cli_errorf("%s: no target column '%s'%s", path, target,
                   haze_table_names(s->t) ? "" : " (the file has no header line)");
        return CLI_INPUT;
    }
    size_t rows = haze_table_row_count(s->t);
    s->first = 0;
    s->n = rows;
    if (head && head < rows) s->n = head;
    if (tail && tail < rows) s->first = rows - tail, s->n = tail;
    s->D = haze_table_column_count(s->t) - (s->target >= 0 ? 1 : 0);
    if (s->D == 0) {
        cli_errorf("%s: no input columns besides the target", path);
        return CLI_INPUT;
    }
    if (s->target >= 0 && haze_table_text_lines(s->t) && haze_table_text_lines(s->t)[s->target]) {
        cli_errorf("%s:%zu: column %d (%s): expected a number (the model's target is numeric)",
                   path, haze_table_text_lines(s->t)[s->target], s->target + 1, target);
        return CLI_INPUT;
    }
    if (haze_table_text_column(s->t) >= 0 && haze_table_text_column(s->t) != s->target) {
        cli_errorf("%s: column %d holds text, inputs must be numeric", path,
                   haze_table_text_column(s->t) + 1);
        return CLI_INPUT;
    }
    const size_t cols = haze_table_column_count(s->t);
    if (missing == 1) { /* the rows with a missing input or target left out */
        if (!(s->rows = malloc((s->n ? s->n : 1) * sizeof *s->rows))) {
            cli_errorf("out of memory");
            return CLI_RUNTIME;
        }
        const int text = s->target >= 0 && haze_table_text_column(s->t) == s->target;
        size_t kept = 0;
        for (size_t i = 0; i < s->n; i++) {
            const size_t r = s->first + i;
            const double *row = haze_table_data(s->t) + r * cols;
            int gap = 0;
            for (size_t c = 0; c < cols; c++) gap |= (int)c != s->target && isnan(row[c]);
            if (s->target >= 0)
                gap |= text ? haze_table_missing_value(haze_table_text(s->t)[r])
                            : isnan(row[s->target]);
            if (!gap)
                s->rows[kept++] = r;
            else if (s->left++ == 0)
                s->first_left = r;
        }
        s->n = kept;
        if (kept == 0) {
            cli_errorf("%s: every row has a missing value", path);
            return CLI_INPUT;
        }
    }
    s->x = malloc(s->n * s->D * sizeof *s->x);
    if (!s->x) {
        cli_errorf("out of memory");
        return CLI_RUNTIME;
    }
    for (size_t i = 0; i < s->n; i++) {
        const double *row = haze_table_data(s->t) + row_of(s, i) * cols;
        size_t o = 0;
        for (size_t c = 0; c < haze_table_column_count(s->t); c++)
            if ((int)c != s->target) s->x[i * s->D + o++] = row[c];
    }
    return CLI_OK;
}

/* Whether the comma-separated list (NULL: none) has item, blanks aside. */
static int list_has(const char *list, const char *item) {
    const size_t n = strlen(item);
    for (const char *p = list; p;) {
        while (*p == ' ' || *p == '\t') p++;
        const char *e = strchr(p, ',');
        const char *end = e ? e : p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t')) end--;
        if ((size_t)(end - p) == n && memcmp(p, item, n) == 0) return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

/* Label of row i of the target column as text (numbers printed shortest). */
static const char *label_of(const dataset *s, size_t i, char *buf, size_t n) {
    size_t r = row_of(s, i);
    if (haze_table_text_column(s->t) == s->target && haze_table_text(s->t))
        return haze_table_text(s->t)[r];
    snprintf(buf, n, "%.17g",
             haze_table_data(s->t)[r * haze_table_column_count(s->t) + (size_t)s->target]);
    return buf;
}

static int cmp_label(const void *a, const void *b) {
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    char *ex, *ey;
    double dx = strtod(x, &ex), dy = strtod(y, &ey);
    if (*x && *y && !*ex && !*ey) return (dx > dy) - (dx < dy); /* numeric labels by value */
    return strcmp(x, y);
}

/* --------------------------------------------------------------- train */

typedef struct {
    const cli_global *g;
    haze_fnn_epoch last;                     /* the last epoch's report (epoch -1: none yet) */
    double best_val_loss, best_val_accuracy; /* of the best epoch */
    haze_fnn_epoch *hist;                    /* --plot: every epoch's report */
    int nhist, keep, nomem;
    cli_progress line; /* inside an epoch, on a terminal */
    int epochs;
} progress_state;

static void on_step(void *arg, int epoch, size_t done, size_t total) {
    progress_state *p = arg;
    char a[16], b[16];
    double f = total ? (double)done / (double)total : 1.0;
    cli_progress_update(&p->line, (epoch + f) / (p->epochs > 0 ? p->epochs : 1),
                        "epoch %d/%d  sample %s/%s", epoch + 1, p->epochs,
                        cli_progress_count(a, sizeof a, (double)done),
                        cli_progress_count(b, sizeof b, (double)total));
}

static int on_epoch(void *arg, const haze_fnn_epoch *e) {
    progress_state *p = arg;
    cli_progress_clear(&p->line); /* the epoch's line goes where it was */
    double rate = e->seconds > 0 ? (double)e->train_samples / e->seconds : 0.0;
    cli_info(p->g, "epoch %3d  rules %5zu  loss %.6f", e->epoch + 1, e->rules, e->loss);
    if (!isnan(e->accuracy)) cli_info(p->g, "  accuracy %6.2f%%", 100.0 * e->accuracy);
    if (e->val_samples) {
        cli_info(p->g, "  held-out loss %.6f", e->val_loss);
        if (!isnan(e->val_accuracy)) cli_info(p->g, "  accuracy %6.2f%%", 100.0 * e->val_accuracy);
    }
    cli_info(p->g, "  rate %.3g  %.0f samples/s\n", e->rate, rate);
    if (e->best_epoch == e->epoch)
        p->best_val_loss = e->val_loss, p->best_val_accuracy = e->val_accuracy;
    p->last = *e;
    if (p->keep) {
        haze_fnn_epoch *h = realloc(p->hist, sizeof *h * (size_t)(p->nhist + 1));
        if (!h) return p->nomem = 1;
        p->hist = h;
        h[p->nhist++] = *e;
    }
    return 0;
}

static int opt_double(const char *cmd, const char *name, const char *v, double *out) {
    if (!cli_parse_double(v, out))
        return cli_usage_error(cmd, "%s: expected a number, got '%s'", name, v);
    return 0;
}

static int opt_count(const char *cmd, const char *name, const char *v, long lo, long hi,
                     long *out) {
    if (!cli_parse_int(v, lo, hi, out))
        return cli_usage_error(cmd, "%s: expected a whole number from %ld to %ld, got '%s'", name,
                               lo, hi, v);
    return 0;
}

static int fnn_train(int argc, char **argv, const cli_global *g) {
    enum {
        O_TARGET = 256,
        O_CLASSES,
        O_EPOCHS,
        O_TH,
        O_DECAY,
        O_BETA,
        O_WIDTH,
        O_RATE,
        O_BATCH,
        O_MAXR,
        O_SEED,
        O_HEAD,
        O_TAIL,
        O_SCALE,
        O_VALID,
        O_INPUTS,
        O_DROP,
        O_MISSING
    };
    static const struct option opts[] = {{"help", no_argument, 0, 'h'},
                                         {"target", required_argument, 0, O_TARGET},
                                         {"classes", no_argument, 0, O_CLASSES},
                                         {"epochs", required_argument, 0, O_EPOCHS},
                                         {"threshold", required_argument, 0, O_TH},
                                         {"decay", required_argument, 0, O_DECAY},
                                         {"beta", required_argument, 0, O_BETA},
                                         {"width", required_argument, 0, O_WIDTH},
                                         {"rate", required_argument, 0, O_RATE},
                                         {"batch", required_argument, 0, O_BATCH},
                                         {"max-rules", required_argument, 0, O_MAXR},
                                         {"seed", required_argument, 0, O_SEED},
                                         {"scale", required_argument, 0, O_SCALE},
                                         {"validation", required_argument, 0, O_VALID},
                                         {"head", required_argument, 0, O_HEAD},
                                         {"tail", required_argument, 0, O_TAIL},
                                         {"output", required_argument, 0, 'o'},
                                         {"plot", required_argument, 0, 'P'},
                                         {"inputs", required_argument, 0, O_INPUTS},
                                         {"drop", required_argument, 0, O_DROP},
                                         {"missing", required_argument, 0, O_MISSING},
                                         {0, 0, 0, 0}};
    int missing = 0;
    haze_fnn_options o = haze_fnn_options_default();
    const char *target = NULL, *out = NULL, *plot = NULL, *inputs = NULL, *drop = NULL;
    int classes = 0, beta_set = 0, width_set = 0;
    long v, head = 0, tail = 0;
    int c, e = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            help_train(stdout);
            return CLI_OK;
        case 'o':
            out = optarg;
            break;
        case 'P':
            plot = optarg;
            break;
        case O_TARGET:
            target = optarg;
            break;
        case O_INPUTS:
            inputs = optarg;
            break;
        case O_DROP:
            drop = optarg;
            break;
        case O_MISSING:
            if ((e = cli_missing_option("fnn train", optarg, &missing))) return e;
            break;
        case O_CLASSES:
            classes = 1;
            break;
        case O_EPOCHS:
            e = opt_count("fnn train", "--epochs", optarg, 0, 1000000, &v);
            o.epochs = (int)v;
            break;
        case O_TH:
            e = opt_double("fnn train", "--threshold", optarg, &o.threshold);
            break;
        case O_DECAY:
            e = opt_double("fnn train", "--decay", optarg, &o.decay);
            break;
        case O_BETA:
            e = opt_double("fnn train", "--beta", optarg, &o.beta);
            beta_set = 1;
            break;
        case O_WIDTH:
            e = opt_double("fnn train", "--width", optarg, &o.width);
            width_set = 1;
            break;
        case O_RATE:
            e = opt_double("fnn train", "--rate", optarg, &o.rate);
            break;
        case O_VALID:
            e = opt_double("fnn train", "--validation", optarg, &o.validation);
            break;
        case O_BATCH:
            e = opt_count("fnn train", "--batch", optarg, 1, 1L << 30, &v);
            o.batch = (size_t)v;
            break;
        case O_MAXR:
            e = opt_count("fnn train", "--max-rules", optarg, 0, 1L << 30, &v);
            o.max_rules = (size_t)v;
            break;
        case O_SEED:
            e = opt_count("fnn train", "--seed", optarg, 0, 0x7fffffffL, &v);
            o.seed = (uint64_t)v;
            break;
        case O_HEAD:
            e = opt_count("fnn train", "--head", optarg, 1, 1L << 40, &head);
            break;
        case O_TAIL:
            e = opt_count("fnn train", "--tail", optarg, 1, 1L << 40, &tail);
            break;
        case O_SCALE:
            if (strcmp(optarg, "input") == 0)
                o.scaling = HAZE_FNN_SCALE_INPUT;
            else if (strcmp(optarg, "global") == 0)
                o.scaling = HAZE_FNN_SCALE_GLOBAL;
            else
                return cli_usage_error("fnn train", "--scale: expected input or global, got '%s'",
                                       optarg);
            break;
        default:
            return cli_usage_error("fnn train", "unknown option");
        }
        if (e) return e;
    }
    /* --beta alone asks for the distance rule (what it meant before fixed
     * widths became the default) */
    if (beta_set && !width_set) o.width = 0.0;
    if (optind + 1 != argc)
        return cli_usage_error("fnn train", "train needs exactly one DATA file");
    if (!target) return cli_usage_error("fnn train", "train needs --target COLUMN");
    if (list_has(inputs, target))
        return cli_usage_error("fnn train", "--inputs lists the target '%s': it is read anyway",
                               target);
    if (list_has(drop, target))
        return cli_usage_error("fnn train", "--drop leaves out the target '%s'", target);
    if (!out) return cli_usage_error("fnn train", "train needs -o MODEL");
    if (head && tail) return cli_usage_error("fnn train", "--head and --tail exclude each other");
    if (plot) {
        int prc = plot_check_path("fnn train", "--plot", plot);
        if (prc) return prc;
    }
    const char *path = argv[optind];
    haze_ctx *ctx = NULL;
    int code = cli_ctx_new(g, &ctx);
    if (code) return code;
    dataset s;
    progress_state ps;
    memset(&ps, 0, sizeof ps);
    haze_fnn *net = NULL;
    char **labels = NULL, **uniq = NULL;
    int *lab = NULL;
    double *d = NULL;
    size_t nc = 0;
    char *keep = NULL;
    if (inputs) { /* the inputs and the target */
        size_t n = strlen(inputs) + strlen(target) + 2;
        if (!(keep = malloc(n))) goto nomem;
        snprintf(keep, n, "%s,%s", inputs, target);
    }
    code =
        dataset_read(ctx, path, target, 1, 1, (size_t)head, (size_t)tail, keep, drop, missing, &s);
    free(keep);
    if (!code && s.left)
        cli_info(g,
                 "haze fnn: %zu of %zu rows have a missing value and are left out (the first: "
                 "data row %zu)\n",
                 s.left, s.left + s.n, s.first_left + 1);
    if (code) goto done;
    const char *tname = haze_table_names(s.t) ? haze_table_names(s.t)[s.target] : target;
    if (classes) {
        labels = calloc(s.n, sizeof *labels);
        uniq = calloc(s.n, sizeof *uniq);
        lab = malloc(s.n * sizeof *lab);
        if (!labels || !uniq || !lab) goto nomem;
        char buf[64];
        for (size_t i = 0; i < s.n; i++)
            if (!(labels[i] = strdup(label_of(&s, i, buf, sizeof buf)))) goto nomem;
        memcpy(uniq, labels, s.n * sizeof *uniq);
        qsort(uniq, s.n, sizeof *uniq, cmp_label);
        for (size_t i = 0; i < s.n; i++)
            if (nc == 0 || strcmp(uniq[nc - 1], uniq[i]) != 0) uniq[nc++] = uniq[i];
        if (nc < 2) {
            cli_errorf("%s: the target column '%s' has fewer than two classes", path, tname);
            code = CLI_INPUT;
            goto done;
        }
        /* numbers that are not all whole are a continuous target: a
         * regression's (scikit-learn's classifiers refuse them too) */
        size_t frac = s.n;
        for (size_t i = 0; i < s.n; i++) {
            char *end;
            const double lv = strtod(labels[i], &end);
            if (end == labels[i] || *end || !isfinite(lv)) {
                frac = s.n; /* a label that is not a number: classes */
                break;
            }
            if (frac == s.n && lv != floor(lv)) frac = i;
        }
        if (frac < s.n) {
            cli_errorf("%s: --classes: the target '%s' holds numbers that are not whole ('%s', "
                       "data row %zu): a continuous target is learnt by regression (leave out "
                       "--classes)",
                       path, tname, labels[frac], row_of(&s, frac) + 1);
            code = CLI_INPUT;
            goto done;
        }
        for (size_t i = 0; i < s.n; i++) {
            const char **hit = bsearch(&labels[i], uniq, nc, sizeof *uniq, cmp_label);
            lab[i] = (int)((char **)hit - uniq);
        }
    } else if (haze_table_text_column(s.t) == s.target && haze_table_text(s.t)) {
        for (size_t i = 0; i < s.n; i++) {
            char *end;
            const char *cell = haze_table_text(s.t)[row_of(&s, i)];
            double val = strtod(cell, &end);
            if (end == cell || *end || !isfinite(val)) {
                cli_errorf("%s:%zu: target '%s' is not a number ('%s'); use --classes for labels",
                           path, row_of(&s, i) + 1 + (haze_table_names(s.t) ? 1 : 0), tname, cell);
                code = CLI_INPUT;
                goto done;
            }
        }
    }
    int st = haze_fnn_new(ctx, s.D, classes ? nc : 1, &net);
    if (!st && classes) st = haze_fnn_set_classes(ctx, net, (const char *const *)uniq, nc);
    if (!st && haze_table_names(s.t)) {
        const char **in = malloc(s.D * sizeof *in);
        if (!in) goto nomem;
        size_t k = 0;
        for (size_t j = 0; j < haze_table_column_count(s.t); j++)
            if ((int)j != s.target) in[k++] = haze_table_names(s.t)[j];
        st = haze_fnn_set_names(ctx, net, in, tname);
        free(in);
    } else if (!st) {
        /* no header (.npy): the target is remembered by its column number */
        st = haze_fnn_set_names(ctx, net, NULL, tname);
    }
    if (st) {
        code = cli_fail(ctx, st);
        goto done;
    }
    ps.g = g;
    ps.keep = plot != NULL;
    if (plot && (st = cli_outputs_begin(ctx, 2, (const char *const[]){out, plot}))) {
        code = cli_fail(ctx, st);
        goto done;
    }
    ps.last.epoch = -1;
    o.progress = on_epoch;
    o.progress_arg = &ps;
    o.step = on_step;
    ps.epochs = o.epochs;
    cli_info(g, "fnn: %zu samples, %zu inputs, %s, backend %s\n", s.n, s.D,
             classes ? "classification" : "regression", haze_backend_name(haze_ctx_backend(ctx)));
    cli_progress_begin(&ps.line, g, "fnn");
    cli_progress_update(&ps.line, 0, "epoch 1/%d", o.epochs); /* the estimate's start */
    if (classes) {
        st = haze_fnn_train_classes(ctx, net, s.x, lab, s.n, &o);
    } else {
        d = malloc(s.n * sizeof *d);
        if (!d) goto nomem;
        for (size_t i = 0; i < s.n; i++) {
            size_t r = row_of(&s, i);
            d[i] = (haze_table_text_column(s.t) == s.target && haze_table_text(s.t))
                       ? strtod(haze_table_text(s.t)[r], NULL)
                       : haze_table_data(s.t)[r * haze_table_column_count(s.t) + (size_t)s.target];
        }
        st = haze_fnn_train(ctx, net, s.x, d, s.n, &o);
    }
    cli_progress_end(&ps.line);
    if (ps.nomem) goto nomem;
    if (!st) st = haze_fnn_save(ctx, net, out);
    if (st) {
        code = cli_fail(ctx, st);
        goto done;
    }
    if (plot) {
        if ((code = plot_fnn(ctx, ps.hist, ps.nhist, classes, plot))) goto done;
        if ((st = haze_outgroup_commit(ctx))) {
            code = cli_fail(ctx, st);
            goto done;
        }
    }
    if (ps.last.epoch >= 0 && ps.last.val_samples) {
        cli_info(g, "fnn: best epoch %d of %d on %zu held-out samples (", ps.last.best_epoch + 1,
                 ps.last.epoch + 1, ps.last.val_samples);
        if (classes) cli_info(g, "accuracy %.2f%%, ", 100.0 * ps.best_val_accuracy);
        cli_info(g, "loss %.6f); trained on %zu\n", ps.best_val_loss, ps.last.train_samples);
    }
    cli_info(g, "fnn: %zu rules, model written to %s\n", haze_fnn_rule_count(net), out);
    code = CLI_OK;
    goto done;
nomem:
    cli_errorf("out of memory");
    code = CLI_RUNTIME;
done:
    cli_progress_end(&ps.line);
    free(ps.hist);
    if (labels)
        for (size_t i = 0; i < s.n; i++) free(labels[i]);
    free(labels);
    free(uniq);
    free(lab);
    free(d);
    haze_fnn_free(net);
    dataset_free(&s);
    haze_ctx_free(ctx);
    return code;
}

/* ------------------------------------------------------------- predict */

static int fnn_predict(int argc, char **argv, const cli_global *g) {
    enum { O_HEAD = 256, O_TAIL, O_EXTRA, O_MISSING };
    static const struct option opts[] = {{"help", no_argument, 0, 'h'},
                                         {"output", required_argument, 0, 'o'},
                                         {"head", required_argument, 0, O_HEAD},
                                         {"tail", required_argument, 0, O_TAIL},
                                         {"ignore-extra", no_argument, 0, O_EXTRA},
                                         {"missing", required_argument, 0, O_MISSING},
                                         {0, 0, 0, 0}};
    const char *out = "-";
    long head = 0, tail = 0;
    int ignore_extra = 0, missing = 0;
    int c, e = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            help_predict(stdout);
            return CLI_OK;
        case 'o':
            out = optarg;
            break;
        case O_HEAD:
            e = opt_count("fnn predict", "--head", optarg, 1, 1L << 40, &head);
            break;
        case O_TAIL:
            e = opt_count("fnn predict", "--tail", optarg, 1, 1L << 40, &tail);
            break;
        case O_EXTRA:
            ignore_extra = 1;
            break;
        case O_MISSING:
            if ((e = cli_missing_option("fnn predict", optarg, &missing))) return e;
            break;
        default:
            return cli_usage_error("fnn predict", "unknown option");
        }
        if (e) return e;
    }
    if (optind + 2 != argc) return cli_usage_error("fnn predict", "predict needs MODEL and DATA");
    if (head && tail) return cli_usage_error("fnn predict", "--head and --tail exclude each other");
    const char *mpath = argv[optind], *path = argv[optind + 1];
    haze_ctx *ctx = NULL;
    int code = cli_ctx_new(g, &ctx);
    if (code) return code;
    haze_fnn *net = NULL;
    dataset s;
    memset(&s, 0, sizeof s);
    double *y = NULL;
    int *truth = NULL;
    unsigned char *mark = NULL;
    size_t unseen = 0, unseen_row = 0;
    char first_unseen[128] = "";
    haze_outfile *f = NULL;
    int st = haze_fnn_load(ctx, mpath, &net);
    if (st) {
        code = cli_fail(ctx, st);
        goto done;
    }
    const char *tname = haze_fnn_target_name(net);
    /* The target column is used (and left out of the inputs) only when the
     * table has a header that names it. */
    int cls = haze_fnn_is_classifier(net);
    code = dataset_read(ctx, path, tname, cls, 0, (size_t)head, (size_t)tail, NULL, NULL,
                        missing ? 2 : 0, &s);
    if (code) goto done;
    size_t D = haze_fnn_input_count(net), L = haze_fnn_output_count(net);
    /* the model keeps its inputs' names: a table with a header is matched by name */
    const char **in = malloc(D * sizeof *in);
    size_t *idx = malloc(D * sizeof *idx);
    if (!in || !idx) {
        free(in);
        free(idx);
        goto nomem;
    }
    for (size_t j = 0; j < D; j++) in[j] = haze_fnn_input_name(net, j);
    cli_columns spec = {.kind = "the model",
                        .model = mpath,
                        .noun = "input",
                        .names = in,
                        .n = D,
                        .skip = s.target,
                        .ignore_extra = ignore_extra};
    code = cli_columns_match(s.t, path, &spec, idx);
    free(s.x);
    s.x = code ? NULL : cli_columns_gather(s.t, idx, D, s.first, s.n);
    free(in);
    free(idx);
    if (code) goto done;
    if (!s.x) goto nomem;
    /* --missing skip: rows with a missing input are not predicted (nan, or
     * no class, in the output) nor scored */
    size_t left = 0, first_left = 0;
    if (missing) {
        if (!(mark = malloc(s.n ? s.n : 1))) goto nomem;
        left = cli_rows_missing(s.x, 0, s.n, D, mark, &first_left);
        if (left) {
            cli_rows_compact(s.x, 0, s.n, D, mark);
            cli_info(g,
                     "haze fnn predict: %zu of %zu rows have a missing input (the first: data "
                     "row %zu): not predicted\n",
                     left, s.n, row_of(&s, first_left) + 1);
        }
    }
    if (s.target >= 0 && cls) {
        truth = malloc(s.n * sizeof *truth);
        if (!truth) goto nomem;
        char buf[64];
        for (size_t i = 0; i < s.n; i++) {
            const char *lb = label_of(&s, i, buf, sizeof buf);
            truth[i] = -1;
            if (missing && haze_table_missing_value(lb)) {
                truth[i] = -2; /* a missing label: not scored */
                continue;
            }
            for (size_t k = 0; k < L; k++)
                if (strcmp(lb, haze_fnn_class_name(net, k)) == 0) truth[i] = (int)k;
            /* a class the model never saw: predicted all the same, and
             * counted as wrong (as scikit-learn's accuracy_score does) */
            if (truth[i] < 0 && !(mark && mark[i]) && unseen++ == 0) {
                snprintf(first_unseen, sizeof first_unseen, "%s", lb);
                unseen_row = s.first + i + 1;
            }
        }
    }
    const size_t kept = s.n - left;
    y = malloc((kept ? kept : 1) * L * sizeof *y);
    if (!y) goto nomem;
    if ((kept && (st = haze_fnn_predict(ctx, net, s.x, kept, y))) ||
        (st = haze_outfile_open(ctx, out, &f))) {
        code = cli_fail(ctx, st);
        goto done;
    }
    size_t hits = 0, scored = 0;
    double se = 0.0;
    FILE *fo = haze_outfile_stream(f);
    haze_table_write_field(fo, tname ? tname : cls ? "class" : "y");
    fputc('\n', fo);
    for (size_t i = 0, k = 0; i < s.n; i++) {
        if (mark && mark[i]) { /* not predicted: no class, or nan */
            fputs(cls ? "\n" : "nan\n", fo);
            continue;
        }
        const double *yk = y + k++ * L;
        if (cls) {
            size_t b = 0;
            for (size_t j = 1; j < L; j++)
                if (yk[j] > yk[b]) b = j;
            haze_table_write_field(fo, haze_fnn_class_name(net, b));
            fputc('\n', fo);
            scored += !truth || truth[i] != -2;
            if (truth && (int)b == truth[i]) hits++;
        } else {
            fprintf(fo, "%.17g\n", yk[0]);
            const double want =
                s.target >= 0
                    ? haze_table_data(
                          s.t)[row_of(&s, i) * haze_table_column_count(s.t) + (size_t)s.target]
                    : NAN;
            if (!isnan(want)) { /* (a missing target is not scored) */
                se += (want - yk[0]) * (want - yk[0]);
                scored++;
            }
        }
    }
    if ((st = haze_outfile_commit(ctx, &f))) {
        code = cli_fail(ctx, st);
        goto done;
    }
    if (unseen)
        fprintf(stderr,
                "haze: warning: %s: %zu row%s of classes the model was not trained on (the first: "
                "'%s', data row %zu), counted as wrong\n",
                path, unseen, unseen == 1 ? "" : "s", first_unseen, unseen_row);
    if (truth && scored)
        cli_info(g, "fnn: accuracy %.2f%% (%zu of %zu)\n", 100.0 * (double)hits / (double)scored,
                 hits, scored);
    else if (s.target >= 0 && scored)
        cli_info(g, "fnn: RMSE %.6g over %zu rows\n", sqrt(se / (double)scored), scored);
    code = CLI_OK;
    goto done;
nomem:
    cli_errorf("out of memory");
    code = CLI_RUNTIME;
done:
    haze_outfile_abort(&f);
    free(y);
    free(truth);
    free(mark);
    dataset_free(&s);
    haze_fnn_free(net);
    haze_ctx_free(ctx);
    return code;
}

/* --------------------------------------------------------- info, export */

static int fnn_info_export(int argc, char **argv, const cli_global *g, int export) {
    static const struct option opts[] = {
        {"help", no_argument, 0, 'h'}, {"output", required_argument, 0, 'o'}, {0, 0, 0, 0}};
    const char *out = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, export ? "ho:" : "h", opts, NULL)) != -1) {
        if (c == 'h') {
            (export ? help_export : help_info)(stdout);
            return CLI_OK;
        }
        if (c == 'o' && export) {
            out = optarg;
            continue;
        }
        return cli_usage_error(export ? "fnn export" : "fnn info", "unknown option");
    }
    if (optind + 1 != argc)
        return cli_usage_error(export ? "fnn export" : "fnn info", "%s needs one MODEL",
                               export ? "export" : "info");
    if (export && !out)
        return cli_usage_error(export ? "fnn export" : "fnn info", "export needs -o FILE.fis");
    haze_ctx *ctx = NULL;
    int code = cli_ctx_new(g, &ctx);
    if (code) return code;
    haze_fnn *net = NULL;
    int st = haze_fnn_load(ctx, argv[optind], &net);
    if (!st && export) st = haze_fnn_export_fis(ctx, net, out);
    if (st) {
        code = cli_fail(ctx, st);
    } else if (!export) {
        size_t D = haze_fnn_input_count(net), L = haze_fnn_output_count(net);
        printf("model      %s (format version %d)\n", argv[optind], haze_fnn_file_version(net));
        printf("kind       %s\n", haze_fnn_is_classifier(net) ? "classification" : "regression");
        printf("inputs     %zu\noutputs    %zu\nrules      %zu\n", D, L, haze_fnn_rule_count(net));
        printf("target     ");
        haze_table_write_field(stdout, haze_fnn_target_name(net) ? haze_fnn_target_name(net) : "-");
        putchar('\n');
        if (haze_fnn_is_classifier(net)) {
            printf("classes   ");
            for (size_t k = 0; k < L; k++) {
                putchar(k ? ',' : ' '); /* one CSV record */
                haze_table_write_field(stdout, haze_fnn_class_name(net, k));
            }
            printf("\n");
        }
        printf("parameters %zu\n", haze_fnn_rule_count(net) * (2 * D + L));
    } else {
        cli_info(g, "fnn: %zu rules exported to %s\n", haze_fnn_rule_count(net), out);
    }
    haze_fnn_free(net);
    haze_ctx_free(ctx);
    return code;
}

int cmd_fnn(int argc, char **argv, const cli_global *g) {
    if (argc < 2) return cli_usage_error("fnn", "expected train, predict, info or export");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        help(stdout);
        return CLI_OK;
    }
    if (strcmp(sub, "train") == 0) return fnn_train(argc - 1, argv + 1, g);
    if (strcmp(sub, "predict") == 0) return fnn_predict(argc - 1, argv + 1, g);
    if (strcmp(sub, "info") == 0) return fnn_info_export(argc - 1, argv + 1, g, 0);
    if (strcmp(sub, "export") == 0) return fnn_info_export(argc - 1, argv + 1, g, 1);
    return cli_usage_error("fnn", "unknown subcommand '%s'", sub);
}
