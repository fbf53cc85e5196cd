/*
 * cli/cmd_prec.c - `haze prec`: static rounding-error analysis of a Gappa or
 * FPCore script (Linderman et al., CGO 2010: Gappa with an affine engine).
 * Prints each goal with its enclosure in decimal (rounded outward) and in
 * exact dyadic form; exit 0 when every goal with a stated bound is proved,
 * 4 when one is not, 1 on a usage error, 2 on bad input, 3 on a runtime
 * error. Parser notes (parts of the script not used) go to stderr as
 * warnings, and into the JSON output.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"
#include "progress.h"

static void help(FILE *fp) {
    fprintf(fp,
            "usage: haze prec SCRIPT.g|SCRIPT.fpcore [--engine ia|aa|both] [--bisect VAR=N]...\n"
            "                 [--refine N] [--unroll[=N]] [--max-ops N] [--json] [-o FILE]\n\n"
            "Bounds the rounding errors of the script's computation: each goal\n"
            "(\"e in ?\", \"|e| <= b\", \"a -/ b in ?\") gets an enclosure that no real\n"
            "execution can leave. The script is Gappa's language (with exp, log, exp2,\n"
            "log2, cuda_32, cuda_exp2, cuda_log2) or FPBench's FPCore.\n\n"
            "Options:\n"
            "  --engine E      ia (intervals, as Gappa), aa (affine forms) or both\n"
            "                  (default: both, the tighter bound at every node)\n"
            "  --bisect VAR=N  split input VAR into N equal sub-ranges (replaces the\n"
            "                  script's '$ VAR in N;' hint); sub-ranges run in parallel\n"
            "  --refine N      adaptive refinement: split the sub-box that decides a\n"
            "                  bound, up to N extra box analyses (0: off; default:\n"
            "                  256 for scripts of at most 512 graph nodes, else 0)\n"
            "  --unroll[=N]    unroll FPCore while loops (at most N iterations, default\n"
            "                  10000); their conditions must not depend on the inputs\n"
            "  --max-ops N     at most N operations once loops are unrolled (default\n"
            "                  1000000)\n"
            "  --json          print the result as JSON (with the warnings)\n"
            "  -o FILE         write the result to FILE instead of standard output\n"
            "  --plot FILE     also draw the bound of each goal from the interval and\n"
            "                  the affine engine (each engine run once more; one goal\n"
            "                  per step of an unrolled filter shows how the bounds grow;\n"
            "                  PNG, SVG or PDF)\n"
            "  -h, --help      this text\n\n"
            "The result goes to standard output (or FILE); warnings, such as an FPCore\n"
            ":pre constraint that is not used, go to standard error.\n\n"
            "Exit codes: 0 all stated bounds proved, 1 usage error, 2 bad input (syntax,\n"
            "undefined names, empty ranges, division by a range containing zero),\n"
            "3 runtime error, 4 a stated bound not proved.\n");
}

static void on_progress(void *arg, int stage, long done, long total) {
    cli_progress *p = arg;
    double f = total > 0 ? (double)done / (double)total : -1;
    if (stage == HAZE_PREC_STAGE_GRID)
        cli_progress_update(p, f, "box %ld/%ld", done, total);
    else
        cli_progress_update(p, f, "refining %ld/%ld", done, total);
}

static void print_text(FILE *fp, const char *script, haze_prec_engine e,
                       const haze_prec_result *r) {
    fprintf(fp, "# %s: engine %s, %zu sub-box%s, %.3f s\n", script, haze_prec_engine_name(e),
            haze_prec_result_boxes(r), haze_prec_result_boxes(r) == 1 ? "" : "es",
            haze_prec_result_seconds(r));
    for (size_t i = 0; i < haze_prec_result_goal_count(r); i++) {
        const haze_prec_goal *g = haze_prec_result_goal(r, i);
        fprintf(fp, "%s\n    in [%s, %s]\n    exact [%s, %s]\n", g->text, g->lo_decimal,
                g->hi_decimal, g->lo_exact, g->hi_exact);
        if (g->has_bound) fprintf(fp, "    %s\n", g->proved ? "proved" : "NOT PROVED");
    }
}

static void print_json(FILE *fp, const char *script, haze_prec_engine e, const haze_prec_script *s,
                       const haze_prec_result *r) {
    fprintf(fp, "{\"script\": ");
    cli_json_str(fp, script);
    fprintf(fp, ", \"engine\": \"%s\", \"boxes\": %zu, \"seconds\": %.6f, \"all_proved\": %s,\n",
            haze_prec_engine_name(e), haze_prec_result_boxes(r), haze_prec_result_seconds(r),
            haze_prec_result_all_proved(r) ? "true" : "false");
    fprintf(fp, " \"warnings\": [");
    for (size_t i = 0; i < haze_prec_note_count(s); i++) {
        fputs(i ? ", " : "", fp);
        cli_json_str(fp, haze_prec_note(s, i));
    }
    fprintf(fp, "],\n \"goals\": [\n");
    for (size_t i = 0; i < haze_prec_result_goal_count(r); i++) {
        const haze_prec_goal *g = haze_prec_result_goal(r, i);
        fprintf(fp, "  {\"goal\": ");
        cli_json_str(fp, g->text);
        fprintf(fp, ", \"lo\": \"%s\", \"hi\": \"%s\", \"lo_exact\": \"%s\", \"hi_exact\": \"%s\"",
                g->lo_decimal, g->hi_decimal, g->lo_exact, g->hi_exact);
        if (g->has_bound) fprintf(fp, ", \"proved\": %s", g->proved ? "true" : "false");
        fprintf(fp, "}%s\n", i + 1 < haze_prec_result_goal_count(r) ? "," : "");
    }
    fprintf(fp, " ]}\n");
}

int cmd_prec(int argc, char **argv, const cli_global *g) {
    static const struct option opts[] = {
        {"engine", required_argument, 0, 'e'}, {"bisect", required_argument, 0, 'b'},
        {"json", no_argument, 0, 'j'},         {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},         {"unroll", optional_argument, 0, 'u'},
        {"refine", required_argument, 0, 'r'}, {"max-ops", required_argument, 0, 'm'},
        {"plot", required_argument, 0, 'P'},   {0, 0, 0, 0}};
    haze_prec_engine engine = HAZE_PREC_BOTH;
    int json = 0;
    haze_prec_parse_options popt = haze_prec_parse_options_default();
    const char *output = "-", *plot = NULL;
    const char *bisect[64];
    int n_bisect = 0;
    long refine = HAZE_PREC_REFINE_AUTO;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "e:b:jo:h", opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            if (haze_prec_engine_parse(NULL, optarg, &engine))
                return cli_usage_error("prec", "--engine: expected ia, aa or both, got '%s'",
                                       optarg);
            break;
        case 'b':
            if (!strchr(optarg, '=') || n_bisect == 64)
                return cli_usage_error("prec", "--bisect: expected VAR=N, got '%s'", optarg);
            bisect[n_bisect++] = optarg;
            break;
        case 'j':
            json = 1;
            break;
        case 'u': {
            long n = 10000;
            if (optarg && !cli_parse_int(optarg, 1, 100000000, &n))
                return cli_usage_error("prec", "--unroll: expected a count from 1 to 1e8, got '%s'",
                                       optarg);
            popt.unroll = n;
            break;
        }
        case 'm': {
            long n = 0;
            if (!cli_parse_int(optarg, 1, 1000000000, &n))
                return cli_usage_error(
                    "prec", "--max-ops: expected a count from 1 to 1e9, got '%s'", optarg);
            popt.max_ops = n;
            break;
        }
        case 'r':
            if (!cli_parse_int(optarg, 0, 100000000, &refine))
                return cli_usage_error("prec", "--refine: expected a count from 0 to 1e8, got '%s'",
                                       optarg);
            break;
        case 'o':
            output = optarg;
            break;
        case 'P':
            plot = optarg;
            break;
        case 'h':
            help(stdout);
            return CLI_OK;
        default:
            return cli_usage_error("prec", "unknown option");
        }
    }
    if (optind >= argc) return cli_usage_error("prec", "missing SCRIPT");
    if (optind + 1 < argc)
        return cli_usage_error("prec", "unexpected argument '%s'", argv[optind + 1]);
    const char *path = argv[optind];
    if (plot) {
        int prc = plot_check_path("prec", "--plot", plot);
        if (prc) return prc;
    }
    haze_ctx *ctx = NULL;
    int code = cli_ctx_new(g, &ctx);
    if (code) return code;
    haze_prec_script *s = NULL;
    haze_prec_result *r = NULL;
    int st = haze_prec_load(ctx, path, &popt, &s);
    for (int i = 0; !st && i < n_bisect; i++) {
        char name[256];
        const char *eq = strchr(bisect[i], '=');
        size_t len = (size_t)(eq - bisect[i]);
        long n;
        if (len == 0 || len >= sizeof name || !cli_parse_int(eq + 1, 1, 100000000, &n)) {
            haze_prec_free(s);
            haze_ctx_free(ctx);
            return cli_usage_error(
                "prec", "--bisect: expected VAR=N with N from 1 to 1e8, got '%s'", bisect[i]);
        }
        memcpy(name, bisect[i], len);
        name[len] = 0;
        st = haze_prec_set_bisect(ctx, s, name, n);
        if (st) {
            cli_errorf("--bisect: %s", haze_ctx_errmsg(ctx));
            haze_prec_free(s);
            haze_ctx_free(ctx);
            return CLI_USAGE;
        }
    }
    for (size_t i = 0; !st && i < haze_prec_note_count(s); i++)
        cli_errorf("warning: %s:%s", path, haze_prec_note(s, i));
    if (!st) st = haze_prec_set_refine(ctx, s, refine);
    cli_progress pr;
    cli_progress_begin(&pr, g, "prec");
    if (!st && pr.on) {
        st = haze_prec_set_progress(ctx, s, on_progress, &pr);
        cli_progress_phase(&pr, "analysing"); /* until the first box (none on the GPU) */
    }
    if (!st) st = haze_prec_analyse(ctx, s, engine, &r);
    if (st) {
        cli_progress_end(&pr);
        code = cli_fail(ctx, st); /* domain errors are bad input: exit 2 */
        haze_prec_free(s);
        haze_ctx_free(ctx);
        return code;
    }
    haze_outfile *f = NULL;
    haze_prec_result *ria = NULL, *raa = NULL;
    int prc = 0;
    if (plot) { /* the result and the picture land together */
        st = cli_outputs_begin(ctx, 2,
                               (const char *const[]){strcmp(output, "-") ? output : NULL, plot});
        cli_progress_phase(&pr, "analysing for the plot (ia)");
        if (!st) st = haze_prec_analyse(ctx, s, HAZE_PREC_IA, &ria);
        cli_progress_phase(&pr, "analysing for the plot (aa)");
        if (!st) st = haze_prec_analyse(ctx, s, HAZE_PREC_AA, &raa);
    }
    cli_progress_end(&pr);
    if (!st) st = haze_outfile_open(ctx, output, &f);
    if (!st) {
        if (json)
            print_json(haze_outfile_stream(f), path, engine, s, r);
        else
            print_text(haze_outfile_stream(f), path, engine, r);
        st = haze_outfile_commit(ctx, &f);
    }
    if (!st && plot && !(prc = plot_prec(ctx, path, ria, raa, plot)))
        st = haze_outgroup_commit(ctx);
    haze_prec_result_free(ria);
    haze_prec_result_free(raa);
    code = prc                              ? prc
           : st                             ? cli_fail(ctx, st)
           : haze_prec_result_all_proved(r) ? CLI_OK
                                            : CLI_NOT_PROVED;
    haze_prec_result_free(r);
    haze_prec_free(s);
    haze_ctx_free(ctx);
    return code;
}
