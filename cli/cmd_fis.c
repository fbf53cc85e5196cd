/*
 * cli/cmd_fis.c - `haze fis`: fuzzy inference systems from the command line.
 *
 *   haze fis info MODEL.fis
 *   haze fis eval MODEL.fis [INPUTS.csv|-] [-o OUT.csv] [--mode M] [--points N] [--nan]
 *   haze fis surface MODEL.fis [--grid N] -o surface.csv   (like MATLAB's gensurf)
 *   haze fis convert IN.{fis,fll} -o OUT.{fis,fll}
 *   haze fis plot MODEL.fis [--var NAME] -o mfs.png   (like MATLAB's plotmf)
 *   haze fis rules MODEL.fis --at V1,V2,... [-o rules.png]   (like ruleview)
 *
 * Results go to standard output (or -o); messages, counts and the reader's
 * warnings ("haze: warning: FILE:LINE: ...") to standard error.
 */
#include <getopt.h>
#include <pthread.h>
#include <math.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "plot.h"
#include "progress.h"

static const char *const mode_help =
    "  --mode M           matlab (default for .fis: sums over linspace points,\n"
    "                     inputs clamped, mid-range when no rule fires) or octave\n"
    "                     (fuzzy-logic-toolkit: trapz, no clamping, NaN) or\n"
    "                     fuzzylite (midpoints of N cells, rules below 1e-6\n"
    "                     dropped; default for .fll) or exact (closed-form\n"
    "                     integrals of piecewise-linear output sets:\n"
    "                     trimf/trapmf/linsmf/linzmf, min/prod, max/sum; anything\n"
    "                     else is refused, exit 2)\n"
    "  --points N         points of the output range for Mamdani (default 101;\n"
    "                     .fll: each output's resolution)\n";

static void help(FILE *fp) {
    fprintf(fp,
            "usage: haze fis info MODEL.{fis,fll}\n"
            "       haze fis eval MODEL.{fis,fll} [INPUTS.csv|-] [-o OUT.csv]\n"
            "                     [--mode matlab|octave|fuzzylite|exact] [--points N] [--nan]\n"
            "       haze fis surface MODEL.{fis,fll} [--grid N] [-o OUT.csv] [--mode M] "
            "[--points N]\n"
            "       haze fis convert IN.{fis,fll} -o OUT.{fis,fll}\n"
            "       haze fis plot MODEL.{fis,fll} [--var NAME] -o OUT.{png,svg,pdf}\n"
            "       haze fis rules MODEL.{fis,fll} --at V1,V2,... [-o OUT.{png,svg,pdf}]\n\n"
            "Fuzzy inference with MATLAB/Octave .fis models (Mamdani and Sugeno) and\n"
            "fuzzylite .fll engines (also Tsukamoto and mixed outputs).\n\n"
            "  info      variables, ranges, membership functions and rules of a model\n"
            "  eval      evaluates every row of a table of inputs\n"
            "  surface   evaluates a grid over the first two inputs (like gensurf)\n"
            "  convert   writes a model as MATLAB .fis or fuzzylite .fll\n"
            "  plot      draws the membership functions (like plotmf)\n"
            "  rules     each rule's firing at one input vector, drawn like ruleview\n\n"
            "'haze fis SUBCOMMAND --help' describes each. Results go to standard output\n"
            "(or -o FILE); messages and warnings (\"haze: warning: FILE:LINE: ...\") go to\n"
            "standard error.\n\n"
            "Exit codes: 0 ok, 1 usage, 2 bad model or input (file and line named), 3 runtime.\n");
}

static void help_info(FILE *fp) {
    fprintf(fp, "usage: haze fis info MODEL.{fis,fll}\n\n"
                "Prints the model: its name, type and methods (AND, OR, implication,\n"
                "aggregation, defuzzification), each input and output with its range and\n"
                "every membership function with its type and parameters, and the rules in\n"
                "words, as MATLAB's showrule writes them (the weight last). Reader warnings\n"
                "go to standard error.\n\n"
                "Options:\n"
                "  -h, --help         this text\n");
}

static void help_eval(FILE *fp) {
    fprintf(fp,
            "usage: haze fis eval MODEL.{fis,fll} [INPUTS.csv|-] [-o OUT.csv]\n"
            "                     [--mode matlab|octave|fuzzylite|exact] [--points N] [--nan]\n"
            "                     [--json]\n\n"
            "Evaluates every row of INPUTS (CSV or .npy, a column per input; default:\n"
            "standard input) and writes one column per output (CSV, or .npy by\n"
            "extension; default: standard output). Counts of clamped inputs and of\n"
            "outputs where no rule fired go to standard error. With the global option\n"
            "--gpus (haze --gpus all fis eval ...), the rows are shared over those GPUs:\n"
            "the same outputs as on one. Into an output file (CSV) the inputs are read,\n"
            "evaluated and written in blocks (64 MiB of CSV text; HAZE_BLOCK_BYTES sets\n"
            "another size), a block read while the one before is evaluated and the one\n"
            "before that written (with --threads 1: in turn), in the memory of a few\n"
            "blocks; the file appears only when every block is written. With a GPU,\n"
            "reading and writing share the CPU threads 3:5 (HAZE_PIPELINE_THREADS=R,W\n"
            "sets the counts). Standard output and .npy outputs get the whole table at\n"
            "once.\n\n"
            "Options:\n"
            "  -o, --output FILE  where to write (default '-': standard output)\n"
            "%s"
            "  --nan              NaN instead of mid-range when no rule fires\n"
            "  --ignore-extra     leave out input columns the model does not name\n"
            "                     (default: an error). With a header, INPUTS columns are\n"
            "                     matched to the model's inputs by name; without, by order\n"
            "  --json             print a summary as JSON: rows, the counts above, and\n"
            "                     \"timings\", the seconds spent starting (the context and\n"
            "                     the model), reading the inputs, evaluating and writing\n"
            "                     the outputs (formatting, writing, the rename; in\n"
            "                     blocks, evaluating and writing are what did not\n"
            "                     overlap the reading), \"cpu_timings\", the CPU seconds\n"
            "                     of all threads in each, and \"busy\", the seconds spent\n"
            "                     evaluating and writing, overlapped or not; on standard\n"
            "                     output, or standard error when the results go there\n"
            "  -h, --help         this text\n",
            mode_help);
}

static void help_surface(FILE *fp) {
    fprintf(fp,
            "usage: haze fis surface MODEL.{fis,fll} [--grid N] [-o OUT.csv] [--mode M]\n"
            "                        [--points N] [--nan] [--inputs A,B] [--hold NAME=V,...]\n"
            "                        [--plot OUT.{png,svg,pdf}]\n\n"
            "Evaluates a grid of N x N points over the ranges of the first two inputs (N\n"
            "points for a model of one input; other inputs sit at mid-range), like\n"
            "MATLAB's gensurf, and writes the inputs and outputs, one row per point.\n\n"
            "Options:\n"
            "  --grid N           points per axis (default 15, 41 with --plot)\n"
            "  --inputs A,B       the two inputs of the grid, by name or number\n"
            "                     (default: the first two)\n"
            "  --hold NAME=V,...  values of the other inputs (default: mid-range)\n"
            "  --plot FILE        also draw each output as a heat map with contours over\n"
            "                     the two inputs (PNG, SVG or PDF by extension; the model\n"
            "                     needs two inputs); the table then goes to -o only\n"
            "  -o, --output FILE  where to write (default '-': standard output)\n"
            "%s"
            "  --nan              NaN instead of mid-range when no rule fires\n"
            "  -h, --help         this text\n",
            mode_help);
}

static void help_convert(FILE *fp) {
    fprintf(fp, "usage: haze fis convert IN.{fis,fll} -o OUT.{fis,fll}\n\n"
                "Reads a model and writes it in the format that the extension of OUT names\n"
                "(anything but .fll, and '-' for standard output, is MATLAB .fis):\n"
                "  .fis  a .fll engine that .fis cannot express is refused, saying what\n"
                "  .fll  fuzzylite 6 FuzzyLite Language; the resolution of Mamdani outputs\n"
                "        is --points N (default 101); what fuzzylite cannot say with the\n"
                "        same meaning is refused, saying what\n"
                "Refusals exit 2 and write nothing.\n\n"
                "Options:\n"
                "  -o, --output FILE  where to write (required)\n"
                "  --points N         resolution of Mamdani outputs in a .fll\n"
                "  -h, --help         this text\n");
}

static void help_plot(FILE *fp) {
    fprintf(fp, "usage: haze fis plot MODEL.{fis,fll} [--var NAME] -o OUT.{png,svg,pdf}\n\n"
                "Draws the membership functions of every input and output of the model, one\n"
                "panel per variable over its range, like MATLAB's plotmf; with --var only\n"
                "that variable's. The picture's type is the extension of OUT. A Sugeno\n"
                "output's constants are drawn as stems at their values; its linear terms\n"
                "are named in the legend only.\n\n"
                "Options:\n"
                "  -o, --output FILE  the picture (required)\n"
                "  --var NAME         one variable, by name, or as in1, in2, out1, ...\n"
                "  -h, --help         this text\n\n"
                "Exit codes: 0 ok, 1 usage (an unknown variable too), 2 bad model, 3 runtime.\n");
}

static void help_rules(FILE *fp) {
    fprintf(fp,
            "usage: haze fis rules MODEL.{fis,fll} --at V1,V2,... [-o OUT.{png,svg,pdf}]\n"
            "                      [--mode M] [--points N]\n\n"
            "Evaluates the model at one input vector (one value per input, in order)\n"
            "and prints each rule's firing degree (after its weight) and the outputs,\n"
            "as fis eval computes them. With -o, draws it like MATLAB's ruleview: a\n"
            "row per rule with each input's set filled up to its degree and each\n"
            "output's implied set, and a last row with each output's aggregate and\n"
            "its defuzzified value (the first 30 rules of a larger model).\n\n"
            "Options:\n"
            "  --at V1,V2,...     the input vector (required)\n"
            "  -o, --output FILE  the picture\n"
            "%s"
            "  -h, --help         this text\n",
            mode_help);
}

static void (*sub_help(const char *sub))(FILE *) {
    if (strcmp(sub, "info") == 0) return help_info;
    if (strcmp(sub, "eval") == 0) return help_eval;
    if (strcmp(sub, "surface") == 0) return help_surface;
    if (strcmp(sub, "plot") == 0) return help_plot;
    if (strcmp(sub, "rules") == 0) return help_rules;
    return help_convert;
}

typedef struct fis_opts {
    const char *output;
    haze_fis_mode mode;
    int have_mode;
    long points;
    long grid;
    int nan;
    int ignore_extra;
    int json;
    const char *plot, *var, *inputs, *hold, *at; /* pictures (cli/plot_figs.c) */
} fis_opts;

static int parse_opts(int argc, char **argv, fis_opts *o, int *first_arg, void (*hp)(FILE *)) {
    static const struct option opts[] = {
        {"help", no_argument, 0, 'h'},         {"output", required_argument, 0, 'o'},
        {"mode", required_argument, 0, 'm'},   {"points", required_argument, 0, 'p'},
        {"grid", required_argument, 0, 'g'},   {"nan", no_argument, 0, 'n'},
        {"ignore-extra", no_argument, 0, 'x'}, {"plot", required_argument, 0, 'P'},
        {"var", required_argument, 0, 'V'},    {"inputs", required_argument, 0, 'I'},
        {"hold", required_argument, 0, 'H'},   {"at", required_argument, 0, 'A'},
        {"json", no_argument, 0, 'J'},         {0, 0, 0, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            hp(stdout);
            return -1;
        case 'o':
            o->output = optarg;
            break;
        case 'm':
            if (haze_fis_mode_parse(NULL, optarg, &o->mode) != HAZE_OK)
                return cli_usage_error(
                    "fis", "--mode: expected matlab, octave, fuzzylite or exact, got '%s'", optarg);
            o->have_mode = 1;
            break;
        case 'p':
            if (!cli_parse_int(optarg, 2, 1000000, &o->points))
                return cli_usage_error("fis", "--points: expected 2 to 1000000, got '%s'", optarg);
            break;
        case 'g':
            if (!cli_parse_int(optarg, 2, 10000, &o->grid))
                return cli_usage_error("fis", "--grid: expected 2 to 10000, got '%s'", optarg);
            break;
        case 'n':
            o->nan = 1;
            break;
        case 'x':
            o->ignore_extra = 1;
            break;
        case 'P':
            o->plot = optarg;
            break;
        case 'V':
            o->var = optarg;
            break;
        case 'I':
            o->inputs = optarg;
            break;
        case 'H':
            o->hold = optarg;
            break;
        case 'A':
            o->at = optarg;
            break;
        case 'J':
            o->json = 1;
            break;
        default:
            return cli_usage_error("fis", "unknown option");
        }
    }
    *first_arg = optind;
    return 0;
}

static int load_model(haze_ctx *ctx, const char *path, const fis_opts *o, haze_fis **f) {
    int st = haze_fis_load(ctx, path, f);
    if (st) return st;
    if (o->have_mode) haze_fis_set_mode(ctx, *f, o->mode);
    if (o->points) haze_fis_set_points(ctx, *f, (int)o->points);
    if (o->nan) haze_fis_set_nan_if_no_rule(*f, 1);
    return HAZE_OK;
}

static void print_params(const double *p, int np) {
    printf("[");
    for (int k = 0; k < np; k++) printf("%s%.10g", k ? " " : "", p[k]);
    printf("]");
}

static void print_info(const haze_fis *f) {
    const int no = haze_fis_output_count(f);
    printf("name     %s\n", haze_fis_name(f));
    printf("type     %s\n", haze_fis_is_sugeno(f) ? "sugeno" : "mamdani");
    printf("methods  and %s, or %s, implication %s", haze_fis_method(f, "and", -1),
           haze_fis_method(f, "or", -1), haze_fis_method(f, "imp", -1));
    if (no > 0)
        printf(", aggregation %s, defuzzification %s", haze_fis_method(f, "agg", 0),
               haze_fis_method(f, "defuzz", 0));
    printf("\n");
    for (int io = 0; io < 2; io++) {
        int n = io ? no : haze_fis_input_count(f);
        printf("%s  %d\n", io ? "outputs" : "inputs ", n);
        for (int i = 0; i < n; i++) {
            double lo, hi;
            haze_fis_var_range(NULL, f, io, i, &lo, &hi);
            printf("  %d  %-24s [%.10g, %.10g]", i + 1, haze_fis_var_name(f, io, i), lo, hi);
            if (io && no > 1)
                printf("  aggregation %s, defuzzification %s", haze_fis_method(f, "agg", i),
                       haze_fis_method(f, "defuzz", i));
            printf("\n");
            for (int k = 0; k < haze_fis_mf_count(f, io, i); k++) {
                const char *name, *type;
                const double *p;
                int np;
                haze_fis_mf(NULL, f, io, i, k, &name, &type, &p, &np);
                printf("       %d  %-20s %-17s ", k + 1, name, type);
                print_params(p, np);
                printf("\n");
            }
        }
    }
    printf("rules    %d\n", haze_fis_rule_count(f));
    char buf[1024];
    for (int r = 0; r < haze_fis_rule_count(f); r++) {
        int len = haze_fis_rule_text(NULL, f, r, buf, sizeof buf);
        if (len < 0) continue;
        if ((size_t)len < sizeof buf) {
            printf("  %d. %s\n", r + 1, buf);
        } else {
            char *big = malloc((size_t)len + 1);
            if (big && haze_fis_rule_text(NULL, f, r, big, (size_t)len + 1) == len)
                printf("  %d. %s\n", r + 1, big);
            free(big);
        }
    }
}

/* The reader's warnings, on standard error. */
static void print_warnings(const haze_fis *f) {
    for (int i = 0; i < haze_fis_warning_count(f); i++)
        fprintf(stderr, "haze: warning: %s\n", haze_fis_warning(f, i));
}

/* The names of the inputs, then of the outputs (NULL when out of memory). */
static char **var_names(const haze_fis *f) {
    int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    char **names = malloc(sizeof(char *) * (size_t)(ni + no));
    if (!names) return NULL;
    for (int i = 0; i < ni; i++) names[i] = (char *)haze_fis_var_name(f, 0, i);
    for (int i = 0; i < no; i++) names[ni + i] = (char *)haze_fis_var_name(f, 1, i);
    return names;
}

static double mono_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of the whole process (all its threads) so far. */
static double cpu_s(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* When a stage of fis eval began: the clock and the process's CPU time. */
typedef struct {
    double wall, cpu;
} stage_mark;

static stage_mark stage_now(void) {
    stage_mark m = {mono_s(), cpu_s()};
    return m;
}

/* fis eval --json: at[0..4] are the starts of starting (the context and
 * the model), reading the inputs (with matching their columns), evaluating,
 * writing the outputs (formatting, writing and the rename), and the end;
 * busy[0..1] the seconds spent evaluating and writing, overlapped with the
 * other stages or not. */
static void print_eval_json(FILE *fp, const char *model, const char *in_path, const char *out_path,
                            size_t rows, const haze_fis_stats *stats, const stage_mark *at,
                            const double *busy) {
    double secs[4], cpu[4];
    for (int i = 0; i < 4; i++) {
        secs[i] = at[i + 1].wall - at[i].wall;
        cpu[i] = at[i + 1].cpu - at[i].cpu;
    }
    double total = at[4].wall - at[0].wall;
    fprintf(fp, "{\n  \"model\": ");
    cli_json_str(fp, model);
    fprintf(fp, ",\n  \"inputs\": ");
    cli_json_str(fp, in_path);
    fprintf(fp, ",\n  \"output\": ");
    cli_json_str(fp, out_path);
    fprintf(fp, ",\n  \"rows\": %zu,\n  \"clamped\": %zu,\n  \"no_rule\": %zu,\n", rows,
            stats->clamped, stats->no_rule);
    fprintf(fp, "  \"seconds\": %.6f,\n  \"rows_per_second\": %.0f,\n", total,
            total > 0 ? (double)rows / total : 0.0);
    fprintf(fp,
            "  \"timings\": {\"start\": %.6f, \"read\": %.6f, \"eval\": %.6f, \"write\": "
            "%.6f},\n",
            secs[0], secs[1], secs[2], secs[3]);
    fprintf(fp,
            "  \"cpu_timings\": {\"start\": %.6f, \"read\": %.6f, \"eval\": %.6f, \"write\": "
            "%.6f},\n",
            cpu[0], cpu[1], cpu[2], cpu[3]);
    fprintf(fp, "  \"busy\": {\"eval\": %.6f, \"write\": %.6f}\n}\n", busy[0], busy[1]);
}

/* The table's own numbers when its columns are the model's inputs in order,
 * else a copy of the named columns (*copied set); NULL when out of memory. */
static double *eval_inputs(const haze_table *t, const size_t *idx, size_t ni, int *copied) {
    int same = haze_table_column_count(t) == ni && haze_table_data(t);
    for (size_t k = 0; k < ni && same; k++) same = idx[k] == k;
    *copied = !same;
    return same ? haze_table_data(t) : cli_columns_gather(t, idx, ni, 0, haze_table_row_count(t));
}

/* What a finished fis eval tells: the counts of clamped inputs and of
 * outputs where no rule fired, and with --json the summary (at: the
 * stages' starts; busy: the evaluating and writing times; print_eval_json). */
static void eval_done(const cli_global *g, const fis_opts *o, const char *model,
                      const char *in_path, const char *out_path, size_t rows,
                      const haze_fis_stats *stats, const stage_mark *at, const double *busy) {
    if (stats->clamped || stats->no_rule)
        cli_info(g,
                 "haze fis: %zu input value(s) clamped to their range, %zu output(s) with "
                 "no rule fired\n",
                 stats->clamped, stats->no_rule);
    if (o->json)
        print_eval_json(strcmp(out_path, "-") == 0 ? stderr : stdout, model, in_path, out_path,
                        rows, stats, at, busy);
}

/* How the model's ni inputs (names: theirs, then the outputs') are found
 * among a table's columns. */
static cli_columns input_spec(const char *model, char **names, int ni, const fis_opts *o) {
    cli_columns spec = {.kind = "the model",
                        .model = model,
                        .noun = "input",
                        .names = (const char *const *)names,
                        .n = (size_t)ni,
                        .skip = -1,
                        .ignore_extra = o->ignore_extra};
    return spec;
}

/* The whole table at once (a .npy output, whose header needs the row
 * count first). t0: when the command started; t1: when the model was
 * loaded. */
static int do_eval_whole(haze_ctx *ctx, haze_fis *f, const char *model, const char *in_path,
                         const fis_opts *o, const cli_global *g, stage_mark t0, stage_mark t1) {
    haze_table *t = NULL;
    haze_table_options ro = haze_table_options_default();
    ro.text_as_nan = 1; /* text only where no input is read (cli_columns_match checks) */
    cli_progress pr;
    cli_progress_begin(&pr, g, "fis eval");
    if (strcmp(in_path, "-") != 0 || !isatty(STDIN_FILENO)) /* not while the user types */
        cli_progress_phase(&pr, "reading the inputs");
    int st = haze_table_read(ctx, in_path, &ro, &t);
    if (st) {
        cli_progress_end(&pr);
        return cli_fail(ctx, st);
    }
    int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    char **names = var_names(f); /* inputs, then outputs (the output header) */
    size_t *idx = malloc(sizeof(size_t) * (size_t)ni + 1);
    cli_columns spec = input_spec(model, names, ni, o);
    int nomem = !names || !idx, copied = 0;
    cli_progress_clear(&pr); /* before any message of cli_columns_match */
    int code = nomem ? CLI_RUNTIME : cli_columns_match(t, in_path, &spec, idx);
    double *x = code ? NULL : eval_inputs(t, idx, (size_t)ni, &copied);
    double *out = malloc(sizeof(double) * haze_table_row_count(t) * (size_t)no + 1);
    free(idx);
    if (code || (!x && (copied || haze_table_row_count(t))) || !out) {
        if (!code || nomem) cli_errorf("out of memory");
        free(names);
        if (copied) free(x);
        free(out);
        haze_table_free(t);
        cli_progress_end(&pr);
        return code ? code : CLI_RUNTIME;
    }
    haze_fis_stats stats = haze_fis_stats_init();
    size_t rows = haze_table_row_count(t);
    stage_mark at[5] = {t0, t1, stage_now(), t1, t1};
    if (!pr.on) {
        st = haze_fis_eval(ctx, f, x, rows, out, &stats);
    } else {
        /* in chunks, to show where it is: every row is evaluated on its own,
         * so the outputs are the same as from one call */
        size_t chunk = rows / 100 > 65536 ? rows / 100 : 65536;
        char a[16], b[16];
        cli_progress_count(b, sizeof b, (double)rows);
        for (size_t r = 0; r < rows && !st; r += chunk) {
            size_t k = rows - r < chunk ? rows - r : chunk;
            cli_progress_update(&pr, (double)r / (double)rows, "%s/%s rows",
                                cli_progress_count(a, sizeof a, (double)r), b);
            haze_fis_stats cs = haze_fis_stats_init();
            st = haze_fis_eval(ctx, f, x + r * (size_t)ni, k, out + r * (size_t)no, &cs);
            stats.clamped += cs.clamped;
            stats.no_rule += cs.no_rule;
        }
        if (!st && rows == 0) st = haze_fis_eval(ctx, f, x, rows, out, &stats);
        /* not over results written to the same terminal */
        if (o->output && strcmp(o->output, "-") != 0)
            cli_progress_phase(&pr, "writing");
        else
            cli_progress_clear(&pr);
    }
    if (copied) free(x);
    at[3] = stage_now();
    /* the inputs are not needed any more: their memory goes back before the
     * outputs' text is made */
    haze_table_free(t);
    const char *out_path = o->output ? o->output : "-";
    if (!st)
        st = haze_table_write(ctx, out_path, out, HAZE_PRECISION_F64, rows, (size_t)no,
                              (const char *const *)(names + ni));
    at[4] = stage_now();
    cli_progress_end(&pr);
    free(names);
    if (!st) {
        const double busy[2] = {at[3].wall - at[2].wall, at[4].wall - at[3].wall};
        eval_done(g, o, model, in_path, out_path, rows, &stats, at, busy);
    }
    free(out);
    return st ? cli_fail(ctx, st) : CLI_OK;
}

/* A stage's time so far, wall and CPU, added to *sum. */
static void stage_add(stage_mark *sum, stage_mark from) {
    stage_mark now = stage_now();
    sum->wall += now.wall - from.wall;
    sum->cpu += now.cpu - from.cpu;
}

/*
 * A worker: a thread of its own that runs one job at a time beside the
 * main thread (worker_give hands a job over, worker_wait waits until it is
 * done). fis eval in blocks has two, the evaluation and the writing, so
 * that block k is evaluated and block k - 1 written while block k + 1 is
 * read. After the first failure no more jobs run. Without the thread (it
 * could not start, or one thread was asked for) worker_give runs the job
 * itself.
 */
typedef struct worker worker;
struct worker {
    haze_ctx *ctx;
    int (*run)(worker *w, void *job); /* on the worker's thread */
    void *arg;                        /* run's own data */
    pthread_t th;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void *job; /* the job being done; NULL: none */
    int quit;
    int st;          /* the first failure */
    char msg[1024];  /* its message, read on the worker's thread */
    double busy;     /* seconds spent in jobs */
    int inline_only; /* jobs run on the caller's thread (--threads 1) */
};

static void worker_init(worker *w, haze_ctx *ctx, int (*run)(worker *, void *), void *arg) {
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->run = run;
    w->arg = arg;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
}

/* Runs a job on the calling thread: its status, its failure kept. */
static int worker_run(worker *w, void *job) {
    const double t = mono_s();
    const int st = w->run(w, job);
    w->busy += mono_s() - t;
    if (st && !w->st) {
        w->st = st;
        snprintf(w->msg, sizeof w->msg, "%s", haze_ctx_errmsg(w->ctx));
    }
    return st;
}

static void *worker_main(void *arg) {
    worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->job && !w->quit) pthread_cond_wait(&w->cv, &w->mu);
        if (!w->job) break;
        void *job = w->job;
        const int failed = w->st;
        pthread_mutex_unlock(&w->mu);
        /* w->st and w->msg are this thread's until the job is marked done */
        if (!failed) worker_run(w, job);
        pthread_mutex_lock(&w->mu);
        w->job = NULL;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Waits until the worker's job is done: its status. */
static int worker_wait(worker *w) {
    pthread_mutex_lock(&w->mu);
    while (w->job) pthread_cond_wait(&w->cv, &w->mu);
    const int st = w->st;
    pthread_mutex_unlock(&w->mu);
    return st;
}

/* Hands a job to the worker (none being done: worker_wait, which tells
 * its status). */
static void worker_give(worker *w, void *job) {
    if (!w->started && !w->st && !w->inline_only)
        w->started = pthread_create(&w->th, NULL, worker_main, w) == 0;
    if (!w->started) {
        if (!w->st) worker_run(w, job);
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->job = job;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Ends the thread once its job is done. */
static void worker_stop(worker *w) {
    if (w->started) {
        pthread_mutex_lock(&w->mu);
        w->quit = 1;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->th, NULL);
        w->started = 0;
    }
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
}

/* One block of fis eval in blocks: its table, the inputs (the table's own
 * numbers or a copy), its outputs and counts. */
typedef struct {
    haze_table *t;
    double *x;
    int copied;
    size_t n;
    double *out;
    size_t cap; /* out's room, in numbers */
    haze_fis_stats stats;
} eval_block;

static int eval_job(worker *w, void *job) {
    eval_block *b = job;
    b->stats = haze_fis_stats_init();
    return haze_fis_eval(w->ctx, w->arg, b->x, b->n, b->out, &b->stats);
}

/* A block's outputs, for the writer (a copy of the pointer and count: the
 * block's own record is filled again while they are written). */
typedef struct {
    const double *out;
    size_t n;
} write_block;

static int write_job(worker *w, void *job) {
    const write_block *b = job;
    return haze_table_writer_append(w->ctx, w->arg, b->out, b->n);
}

/* A block's inputs are not needed any more: their memory goes back, to
 * the reader rd for a later block (NULL: freed). */
static void block_drop(haze_table_reader *rd, eval_block *b) {
    if (b->copied) free(b->x);
    haze_table_reader_reuse(rd, b->t);
    b->t = NULL;
    b->x = NULL;
    b->copied = 0;
}

/* Waits for the block given to the evaluation: its status. Its inputs'
 * memory goes back to the reader rd and its counts are added to *stats. */
static int block_back(worker *ev, haze_table_reader *rd, eval_block *b, haze_fis_stats *stats) {
    const int st = worker_wait(ev);
    block_drop(rd, b);
    stats->clamped += b->stats.clamped;
    stats->no_rule += b->stats.no_rule;
    return st;
}

/* Hands block b's outputs to the writer (through *wb) once the block before
 * is written, opening the output on the first: this thread's status (a
 * failure of the writer is its own, worker_wait). */
static int give_write(haze_ctx *ctx, worker *wr, write_block *wb, const eval_block *b,
                      haze_table_writer **tw, const char *out_path, char **names, int ni, int no) {
    const int wst = worker_wait(wr);
    if (wst) return wst; /* (told as the writer's: its message is on its thread) */
    if (!*tw) {
        const int st = haze_table_writer_open(ctx, out_path, HAZE_PRECISION_F64, (size_t)no,
                                              (const char *const *)(names + ni), tw);
        if (st) return st;
        wr->arg = *tw;
    }
    wb->out = b->out;
    wb->n = b->n;
    worker_give(wr, wb);
    return HAZE_OK;
}

/*
 * The CPU threads of reading and of writing in blocks. With a GPU the CPU's
 * work is the reading (parsing the text) and the writing (formatting the
 * outputs, and one thread's write(2)s in turn) at the same time, so each
 * gets its share of the context's threads (3/8 and 5/8: the split that was
 * fastest on a 16-core host once parsing took one pass a number;
 * docs/benchmarks.md) instead of two teams of every core, where the thread
 * whose turn it is to write(2) waits for a core. On the CPU the evaluation
 * is most of the work and all three share the threads.
 * HAZE_PIPELINE_THREADS=R,W sets the two counts.
 */
static void pipeline_threads(const haze_ctx *ctx, int *tr, int *tw) {
    const int t = haze_ctx_threads(ctx);
    *tr = *tw = t;
    const char *e = getenv("HAZE_PIPELINE_THREADS");
    int r, w;
    if (e && sscanf(e, "%d,%d", &r, &w) == 2 && r > 0 && w > 0) {
        *tr = r;
        *tw = w;
    } else if (t >= 4 && haze_ctx_backend(ctx) != HAZE_BACKEND_CPU) {
        *tr = (3 * t + 4) / 8;
        *tw = t - *tr;
    }
}

/* A CPU context of `threads` threads, or ctx itself when it has as many or
 * one cannot be made. */
static haze_ctx *cpu_ctx(haze_ctx *ctx, int threads) {
    if (threads == haze_ctx_threads(ctx) && haze_ctx_backend(ctx) == HAZE_BACKEND_CPU) return ctx;
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    o.threads = threads;
    haze_ctx *c = NULL;
    if (haze_ctx_new(&o, &c) != HAZE_OK) {
        haze_ctx_free(c);
        return ctx;
    }
    return c;
}

/*
 * The inputs read in blocks (haze_table_reader: 64 MiB of CSV text at a
 * time; other inputs whole, as one block) in a pipeline of three threads:
 * block k + 1 is read on this one while block k is evaluated and block
 * k - 1 written on two workers (the writing of one file is one thread's
 * write(2)s, the longest stage of a long job; docs/benchmarks.md). The
 * memory of a few blocks whatever the file's size, a long job in about the
 * time of its longest stage, and the same outputs, byte for byte, as the
 * whole table at once. An error in a later block (its line and column
 * named) leaves no output: the writer's file appears only at its commit;
 * of several failures the one of the earliest block is told. --json's
 * stages: the reading, and the evaluation and writing that did not overlap
 * it (this thread's waits for the workers, and the commit); "busy" has
 * the workers' own times.
 */
static int do_eval(haze_ctx *ctx, haze_fis *f, const char *model, const char *in_path,
                   const fis_opts *o, const cli_global *g, stage_mark t0, stage_mark t1) {
    const char *out_path = o->output ? o->output : "-";
    /* in blocks only into a file the writer replaces at its commit: standard
     * output, a pipe or a device would show the first blocks' rows before an
     * error in a later block is found, and a .npy header needs the row count
     * first (as haze_table_write tells them) */
    const size_t ol = strlen(out_path);
    struct stat sb;
    if ((ol >= 4 && strcmp(out_path + ol - 4, ".npy") == 0) || strcmp(out_path, "-") == 0 ||
        (stat(out_path, &sb) == 0 && !S_ISREG(sb.st_mode)))
        return do_eval_whole(ctx, f, model, in_path, o, g, t0, t1);
    haze_table_options ro = haze_table_options_default();
    ro.text_as_nan = 1; /* text only where no input is read (cli_columns checks) */
    cli_progress pr;
    cli_progress_begin(&pr, g, "fis eval");
    const int typing = strcmp(in_path, "-") == 0 && isatty(STDIN_FILENO);
    if (!typing) cli_progress_phase(&pr, "reading the inputs"); /* not while the user types */
    stage_mark sum[3] = {{0, 0}, {0, 0}, {0, 0}};               /* read, eval, write */
    stage_mark m = stage_now();
    haze_table_reader *rd = NULL;
    /* HAZE_BLOCK_BYTES: bytes of text a block (the library's 64 MiB
     * otherwise; tests make it small to have many blocks) */
    const char *bb = getenv("HAZE_BLOCK_BYTES");
    const size_t block_bytes = bb ? (size_t)strtoull(bb, NULL, 10) : 0;
    int tr, tw_threads;
    pipeline_threads(ctx, &tr, &tw_threads);
    haze_ctx *rctx = cpu_ctx(ctx, tr), *wctx = cpu_ctx(ctx, tw_threads);
    haze_ctx *sctx = rctx; /* where this thread's failure st was told: the writer's
                            * open or commit, else the reading */
    int st = haze_table_reader_open(rctx, in_path, &ro, block_bytes, &rd);
    if (st) {
        cli_progress_end(&pr);
        st = cli_fail(rctx, st);
        if (rctx != ctx) haze_ctx_free(rctx);
        if (wctx != ctx) haze_ctx_free(wctx);
        return st;
    }
    const int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    char **names = var_names(f); /* inputs, then outputs (the output header) */
    size_t *idx = malloc(sizeof(size_t) * (size_t)ni + 1);
    cli_columns spec = input_spec(model, names, ni, o);
    haze_table_writer *tw = NULL;
    worker ev, wr;
    worker_init(&ev, ctx, eval_job, f);
    worker_init(&wr, wctx, write_job, NULL);
    /* one thread asked for (--threads 1): the stages one after the other */
    ev.inline_only = wr.inline_only = haze_ctx_threads(ctx) == 1;
    haze_fis_stats stats = haze_fis_stats_init();
    eval_block blk[2];
    write_block wb[2];
    memset(blk, 0, sizeof blk);
    size_t rows = 0;
    int code = !names || !idx ? CLI_RUNTIME : CLI_OK;
    if (code) cli_errorf("out of memory");
    eval_block *evaluating = NULL; /* given to ev, not yet taken back */
    char a[16];
    for (size_t block = 0; !code; block++) {
        eval_block *b = &blk[block % 2];
        if (block > 0) m = stage_now();
        st = haze_table_reader_next(rctx, rd, &b->t);
        if (st || !b->t) {
            stage_add(&sum[0], m);
            break;
        }
        cli_progress_clear(&pr); /* before any message of cli_columns_match */
        code = block == 0 ? cli_columns_match(b->t, in_path, &spec, idx)
                          : cli_columns_text(b->t, in_path, &spec, idx);
        b->n = haze_table_row_count(b->t);
        b->x = code ? NULL : eval_inputs(b->t, idx, (size_t)ni, &b->copied);
        if (!code && !b->x) {
            cli_errorf("out of memory");
            code = CLI_RUNTIME;
        }
        stage_add(&sum[0], m);
        if (code) break;
        cli_progress_update(&pr, haze_table_reader_progress(rd), "%s rows",
                            cli_progress_count(a, sizeof a, (double)(rows + b->n)));
        if (evaluating) { /* block - 1: evaluated, then written */
            eval_block *d = evaluating;
            evaluating = NULL;
            m = stage_now();
            const int est = block_back(&ev, rd, d, &stats);
            stage_add(&sum[1], m);
            m = stage_now();
            if (est) break;
            if ((st = give_write(wctx, &wr, &wb[(block - 1) % 2], d, &tw, out_path, names, ni,
                                 no))) {
                sctx = wctx;
                break;
            }
            rows += d->n;
            stage_add(&sum[2], m);
        }
        if (b->n * (size_t)no > b->cap) { /* (block - 2 was written) */
            free(b->out);
            b->cap = b->n * (size_t)no;
            if (!(b->out = malloc(sizeof(double) * b->cap + 1))) {
                b->cap = 0;
                cli_errorf("out of memory");
                code = CLI_RUNTIME;
                break;
            }
        }
        m = stage_now(); /* (the evaluation itself, on one thread) */
        worker_give(&ev, b);
        stage_add(&sum[1], m);
        evaluating = b;
    }
    /* the last block (or one given before a failure) */
    m = stage_now();
    if (evaluating) {
        const int est = block_back(&ev, rd, evaluating, &stats);
        stage_add(&sum[1], m);
        m = stage_now();
        if (!est && !st && !code) {
            st = give_write(wctx, &wr, &wb[evaluating - blk], evaluating, &tw, out_path, names, ni,
                            no);
            if (st)
                sctx = wctx;
            else
                rows += evaluating->n;
        }
    }
    worker_wait(&wr);
    worker_stop(&ev);
    worker_stop(&wr);
    const int fails = ev.st || wr.st;
    if (!st && !fails && !code && tw && (st = haze_table_writer_commit(wctx, &tw))) sctx = wctx;
    haze_table_writer_abort(&tw); /* after an error: nothing is left */
    stage_add(&sum[2], m);
    cli_progress_end(&pr);
    haze_table_reader_close(rd);
    for (int i = 0; i < 2; i++) {
        block_drop(NULL, &blk[i]); /* a block read but never given */
        free(blk[i].out);
    }
    free(names);
    free(idx);
    /* the failure of the earliest block: the writer's, the evaluation's
     * (told on their threads), then this thread's */
    const worker *fw = wr.st ? &wr : ev.st ? &ev : NULL;
    if (!code && fw) {
        cli_errorf("%s", fw->msg[0] ? fw->msg : haze_status_message(fw->st));
        code = cli_exit_code_of(fw->st, fw->msg);
    } else if (!code && st) {
        code = cli_fail(sctx, st);
    } else if (!code) { /* the stages one after the other, each the sum of its parts */
        stage_mark at[5] = {t0, t1, t1, t1, t1};
        for (int i = 0; i < 3; i++)
            at[i + 2] = (stage_mark){at[i + 1].wall + sum[i].wall, at[i + 1].cpu + sum[i].cpu};
        const double busy[2] = {ev.busy, wr.busy};
        eval_done(g, o, model, in_path, out_path, rows, &stats, at, busy);
    }
    if (rctx != ctx) haze_ctx_free(rctx);
    if (wctx != ctx) haze_ctx_free(wctx);
    return code;
}

/* Point k of n evenly spaced over [l, h], ends exact: a weighted mean, which
 * stays finite for any finite range (l + k (h - l) / (n - 1) overflowed to
 * inf and NaN on [-1e308, 1e308]). */
static double grid_point(double l, double h, long k, long n) {
    const double t = (double)k / (double)(n - 1);
    const double v = k == n - 1 ? h : l * (1.0 - t) + h * t;
    return v < l ? l : v > h ? h : v;
}

/* The variables' names for a message: "inputs a, b; outputs c". */
static void var_list(const haze_fis *f, int outputs_too, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int io = 0; io <= outputs_too; io++) {
        int n = io ? haze_fis_output_count(f) : haze_fis_input_count(f);
        len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", io ? "; " : "",
                                io ? "outputs" : "inputs");
        for (int i = 0; i < n && len < cap; i++)
            len += (size_t)snprintf(buf + len, cap - len, "%s %s", i ? "," : "",
                                    haze_fis_var_name(f, io, i));
        if (len >= cap) break;
    }
}

/* A variable named by its name, as in1/out2 or (for inputs) its number:
 * 0 and *io, *idx set, or -1. */
static int find_var(const haze_fis *f, const char *s, int inputs_only, int *io, int *idx) {
    for (int k = 0; k <= !inputs_only; k++)
        for (int i = 0; i < (k ? haze_fis_output_count(f) : haze_fis_input_count(f)); i++)
            if (strcmp(s, haze_fis_var_name(f, k, i)) == 0) {
                *io = k;
                *idx = i;
                return 0;
            }
    long v;
    int k = strncmp(s, "out", 3) == 0 ? 1 : 0;
    const char *num = strncmp(s, "in", 2) == 0 ? s + 2 : k ? s + 3 : s;
    if (k && inputs_only) return -1;
    int n = k ? haze_fis_output_count(f) : haze_fis_input_count(f);
    if (!cli_parse_int(num, 1, n > 0 ? n : 1, &v) || n < 1) return -1;
    *io = k;
    *idx = (int)v - 1;
    return 0;
}

/* --inputs A,B and --hold NAME=V,...: the grid's inputs into *ix, *iy and
 * the other inputs' values into hold[ni] (mid-range unless given), with a
 * description of the held ones for the plot's title. Prints why not and
 * returns CLI_USAGE. */
static int surface_inputs(const haze_fis *f, const fis_opts *o, int *ix, int *iy, double *hold,
                          char *held, size_t cap) {
    int ni = haze_fis_input_count(f), io;
    char names[1024], buf[512];
    var_list(f, 0, names, sizeof names);
    *ix = 0;
    *iy = 1;
    for (int j = 0; j < ni; j++) {
        double l, h;
        haze_fis_var_range(NULL, f, 0, j, &l, &h);
        hold[j] = l / 2.0 + h / 2.0;
    }
    if (o->inputs) {
        snprintf(buf, sizeof buf, "%s", o->inputs);
        char *comma = strchr(buf, ',');
        if (!comma || strchr(comma + 1, ','))
            return cli_usage_error("fis", "--inputs: expected two inputs A,B, got '%s'", o->inputs);
        *comma = '\0';
        if (ni < 2)
            return cli_usage_error("fis",
                                   "surface --inputs: the model has %d input; a surface "
                                   "needs two",
                                   ni);
        if (find_var(f, buf, 1, &io, ix) || find_var(f, comma + 1, 1, &io, iy))
            return cli_usage_error("fis", "--inputs %s: no such input (%s)", o->inputs, names);
        if (*ix == *iy)
            return cli_usage_error("fis", "--inputs %s: two different inputs are needed",
                                   o->inputs);
    }
    size_t len = 0;
    held[0] = '\0';
    if (o->hold) {
        snprintf(buf, sizeof buf, "%s", o->hold);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            char *eq = strchr(tok, '=');
            int j;
            double v;
            if (!eq) return cli_usage_error("fis", "--hold: expected NAME=VALUE, got '%s'", tok);
            *eq = '\0';
            if (find_var(f, tok, 1, &io, &j))
                return cli_usage_error("fis", "--hold %s: no such input (%s)", tok, names);
            if (!cli_parse_double(eq + 1, &v) || !isfinite(v))
                return cli_usage_error("fis", "--hold %s: expected a number, got '%s'", tok,
                                       eq + 1);
            if (j == *ix || (ni > 1 && j == *iy))
                return cli_usage_error("fis", "--hold %s: that input is on the grid", tok);
            hold[j] = v;
        }
    }
    for (int j = 0; j < ni && len < cap; j++)
        if (j != *ix && j != *iy)
            len += (size_t)snprintf(held + len, cap - len, "%s%s = %.4g", len ? ", " : "",
                                    haze_fis_var_name(f, 0, j), hold[j]);
    return 0;
}

static int do_surface(haze_ctx *ctx, haze_fis *f, const fis_opts *o) {
    int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    if (o->plot && ni < 2)
        return cli_usage_error("fis",
                               "surface --plot: the model has %d input; a surface needs two "
                               "(draw its sets with 'haze fis plot')",
                               ni);
    long gn = o->grid ? o->grid : o->plot ? 41 : 15;
    size_t rows = ni >= 2 ? (size_t)(gn * gn) : (size_t)gn;
    double *in = malloc(sizeof(double) * rows * (size_t)ni);
    double *out = malloc(sizeof(double) * rows * (size_t)no);
    double *tab = malloc(sizeof(double) * rows * (size_t)(ni + no));
    double *hold = malloc(sizeof(double) * (size_t)(ni + 1));
    char held[512];
    int ix = 0, iy = 1;
    if (!in || !out || !tab || !hold) {
        free(in);
        free(out);
        free(tab);
        free(hold);
        cli_errorf("out of memory");
        return CLI_RUNTIME;
    }
    int rc = surface_inputs(f, o, &ix, &iy, hold, held, sizeof held);
    if (rc) {
        free(in);
        free(out);
        free(tab);
        free(hold);
        return rc;
    }
    for (size_t r = 0; r < rows; r++) {
        for (int j = 0; j < ni; j++) {
            double l, h, v;
            haze_fis_var_range(NULL, f, 0, j, &l, &h);
            if (j == ix)
                v = grid_point(l, h, (long)(r % (size_t)gn), gn);
            else if (j == iy)
                v = grid_point(l, h, (long)(r / (size_t)gn), gn);
            else
                v = hold[j];
            in[r * (size_t)ni + (size_t)j] = v;
        }
    }
    /* the table to -o (standard output without --plot) and the picture land
     * together */
    const char *csv = o->output ? o->output : o->plot ? NULL : "-";
    const char *paths[] = {csv, o->plot};
    int st = cli_outputs_begin(ctx, 2, paths);
    if (!st) st = haze_fis_eval(ctx, f, in, rows, out, NULL);
    if (!st && csv) {
        for (size_t r = 0; r < rows; r++) {
            memcpy(tab + r * (size_t)(ni + no), in + r * (size_t)ni, sizeof(double) * (size_t)ni);
            memcpy(tab + r * (size_t)(ni + no) + ni, out + r * (size_t)no,
                   sizeof(double) * (size_t)no);
        }
        char **names = var_names(f);
        st = !names ? HAZE_ERR_NOMEM
                    : haze_table_write(ctx, csv, tab, HAZE_PRECISION_F64, rows, (size_t)(ni + no),
                                       (const char *const *)names);
        free(names);
    }
    if (!st && o->plot) rc = plot_fis_surface(ctx, f, in, out, gn, ix, iy, held, o->plot);
    if (!st && !rc) st = haze_outgroup_commit(ctx);
    free(in);
    free(out);
    free(tab);
    free(hold);
    return rc ? rc : st ? cli_fail(ctx, st) : CLI_OK;
}

enum { RULES_POINTS = 201 };

static int do_rules(haze_ctx *ctx, haze_fis *f, const fis_opts *o) {
    const int ni = haze_fis_input_count(f), no = haze_fis_output_count(f),
              nr = haze_fis_rule_count(f);
    const size_t n = RULES_POINTS;
    double *in = malloc(sizeof(double) * (size_t)(ni + 1)),
           *out = malloc(sizeof(double) * (no + 1));
    double *firing = malloc(sizeof(double) * (size_t)(nr + 1));
    double *ys = malloc(sizeof(double) * n * (size_t)(no + 1));
    double *implied = malloc(sizeof(double) * n * (size_t)nr * (size_t)no + 1);
    double *agg = malloc(sizeof(double) * n * (size_t)(no + 1));
    int *sets = calloc((size_t)(no + 1), sizeof *sets);
    int rc = CLI_OK, st = HAZE_OK, got = 0;
    if (!in || !out || !firing || !ys || !implied || !agg || !sets) {
        cli_errorf("out of memory");
        rc = CLI_RUNTIME;
        goto done;
    }
    /* --at V1,V2,...: one number per input */
    for (const char *p = o->at; p && got <= ni;) {
        char buf[64];
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        snprintf(buf, sizeof buf, "%.*s", (int)(len < 63 ? len : 63), p);
        if (got == ni || !cli_parse_double(buf, &in[got]) || !isfinite(in[got])) {
            rc = cli_usage_error("fis", "rules --at %s: expected %d number%s (the inputs %s)",
                                 o->at, ni, ni == 1 ? "" : "s", "in order");
            goto done;
        }
        got++;
        p = comma ? comma + 1 : NULL;
    }
    if (got != ni) {
        char names[1024];
        var_list(f, 0, names, sizeof names);
        rc = cli_usage_error("fis", "rules --at %s: expected %d number%s, one per input (%s)",
                             o->at, ni, ni == 1 ? "" : "s", names);
        goto done;
    }
    const char *paths[] = {o->output};
    st = cli_outputs_begin(ctx, 1, paths);
    if (!st) st = haze_fis_eval(ctx, f, in, 1, out, NULL);
    for (int k = 0; !st && k < no; k++) {
        int e = haze_fis_explain(ctx, f, in, k, (int)n, firing, ys + (size_t)k * n,
                                 implied + (size_t)k * (size_t)nr * n, agg + (size_t)k * n);
        sets[k] = e == HAZE_OK;
        if (e && e != HAZE_ERR_UNSUPPORTED) st = e;
    }
    if (!st && no == 0) st = haze_fis_explain(ctx, f, in, 0, (int)n, firing, ys, implied, agg);
    if (st) {
        rc = cli_fail(ctx, st);
        goto done;
    }
    char buf[1024];
    printf("rule  firing      text\n");
    for (int r = 0; r < nr; r++) {
        int len = haze_fis_rule_text(NULL, f, r, buf, sizeof buf);
        printf("%4d  %-10.6g  %s%s\n", r + 1, firing[r], len >= 0 ? buf : "",
               len >= (int)sizeof buf ? "..." : "");
    }
    for (int k = 0; k < no; k++) printf("%s = %.17g\n", haze_fis_var_name(f, 1, k), out[k]);
    if (o->output) {
        rc = plot_fis_rules(ctx, f, in, out, firing, (int)n, ys, implied, agg, sets, o->output);
        if (!rc && (st = haze_outgroup_commit(ctx))) rc = cli_fail(ctx, st);
    }
done:
    free(in);
    free(out);
    free(firing);
    free(ys);
    free(implied);
    free(agg);
    free(sets);
    return rc;
}

static int do_plot(haze_ctx *ctx, haze_fis *f, const fis_opts *o) {
    int io = 0, idx = -1;
    if (o->var && find_var(f, o->var, 0, &io, &idx)) {
        char names[1024];
        var_list(f, 1, names, sizeof names);
        return cli_usage_error("fis", "plot --var %s: the model has no such variable (%s)", o->var,
                               names);
    }
    return plot_fis_mfs(ctx, f, io, idx, o->output);
}

int cmd_fis(int argc, char **argv, const cli_global *g) {
    if (argc < 2)
        return cli_usage_error("fis",
                               "expected a subcommand: info, eval, surface, convert, plot, rules");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        help(stdout);
        return CLI_OK;
    }
    if (strcmp(sub, "info") && strcmp(sub, "eval") && strcmp(sub, "surface") &&
        strcmp(sub, "convert") && strcmp(sub, "plot") && strcmp(sub, "rules"))
        return cli_usage_error("fis", "unknown subcommand '%s'", sub);
    fis_opts o;
    memset(&o, 0, sizeof o);
    int first = 0;
    int rc = parse_opts(argc - 1, argv + 1, &o, &first, sub_help(sub));
    if (rc < 0) return CLI_OK;
    if (rc) return rc;
    int nargs = argc - 1 - first;
    char **args = argv + 1 + first;
    int max_args = strcmp(sub, "eval") == 0 ? 2 : 1;
    if (nargs < 1) return cli_usage_error("fis", "%s: expected a model file", sub);
    if (nargs > max_args)
        return cli_usage_error("fis", "%s: unexpected argument '%s'", sub, args[max_args]);
    if (strcmp(sub, "convert") == 0 && !o.output)
        return cli_usage_error("fis", "convert: -o OUT.fis or -o OUT.fll is required");
    int is_plot = strcmp(sub, "plot") == 0, is_surface = strcmp(sub, "surface") == 0;
    if (o.plot && !is_surface) return cli_usage_error("fis", "%s: --plot is for fis surface", sub);
    if ((o.inputs || o.hold) && !is_surface)
        return cli_usage_error("fis", "%s: --inputs and --hold are for fis surface", sub);
    if (o.var && !is_plot) return cli_usage_error("fis", "%s: --var is for fis plot", sub);
    if (o.json && strcmp(sub, "eval") != 0)
        return cli_usage_error("fis", "%s: --json is for fis eval", sub);
    int is_rules = strcmp(sub, "rules") == 0;
    if (o.at && !is_rules) return cli_usage_error("fis", "%s: --at is for fis rules", sub);
    if (is_rules && !o.at) return cli_usage_error("fis", "rules: --at V1,V2,... is required");
    if (is_rules && o.output && (rc = plot_check_path("fis", "rules -o", o.output))) return rc;
    if (is_plot && !o.output)
        return cli_usage_error("fis", "plot: -o OUT.png (or .svg, .pdf) is required");
    if (is_plot && (rc = plot_check_path("fis", "plot -o", o.output))) return rc;
    if (o.plot && (rc = plot_check_path("fis", "surface --plot", o.plot))) return rc;
    haze_ctx *ctx = NULL;
    stage_mark t0 = stage_now();
    rc = cli_ctx_new(g, &ctx);
    if (rc) return rc;
    haze_fis *f = NULL;
    int st = load_model(ctx, args[0], &o, &f);
    if (!st) print_warnings(f);
    if (st) {
        rc = cli_fail(ctx, st);
    } else if (strcmp(sub, "info") == 0) {
        print_info(f);
        rc = CLI_OK;
    } else if (strcmp(sub, "eval") == 0) {
        rc = do_eval(ctx, f, args[0], nargs > 1 ? args[1] : "-", &o, g, t0, stage_now());
    } else if (strcmp(sub, "surface") == 0) {
        rc = do_surface(ctx, f, &o);
    } else if (is_plot) {
        rc = do_plot(ctx, f, &o);
    } else if (is_rules) {
        rc = do_rules(ctx, f, &o);
    } else {
        st = haze_fis_save(ctx, f, o.output);
        rc = st ? cli_fail(ctx, st) : CLI_OK;
    }
    haze_fis_free(f);
    haze_ctx_free(ctx);
    return rc;
}
