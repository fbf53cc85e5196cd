/*
 * cli/cmd_demo.c - `haze demo`: one short run of each capability of haze on
 * data embedded in the executable, so it works from any folder.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

typedef struct {
    const char *title;
    int (*run)(const cli_global *g);
} demo_part;

static int demo_info(const cli_global *g) {
    char name[] = "info";
    char *argv[] = {name, NULL};
    return cmd_info(1, argv, g);
}

/* Each module adds its demo step here: int demo_<module>(const cli_global *g). */
/* certified fuzzy arithmetic */

/* fuzzy inference and edge detection */
extern const unsigned char haze_demo_tipper_fis[], haze_demo_edge_png[];
extern const unsigned long haze_demo_tipper_fis_size, haze_demo_edge_png_size;

static int demo_fis(const cli_global *g) {
    haze_ctx *ctx = NULL;
    int rc = cli_ctx_new(g, &ctx);
    if (rc) return rc;
    haze_fis *f = NULL;
    int st = haze_fis_parse(ctx, (const char *)haze_demo_tipper_fis, "tipper.fis", &f);
    /* MATLAB's documented tipper points */
    const double in[8] = {2, 1, 4, 5, 7, 8, 1, 2};
    double out[4];
    if (!st) st = haze_fis_eval(ctx, f, in, 4, out);
    if (!st) {
        printf("MATLAB's tipper.fis (Mamdani, 3 rules) on %s: service, food -> tip %%\n",
               haze_backend_name(haze_ctx_backend(ctx)));
        for (int i = 0; i < 4; i++) printf("  %g, %g -> %.4f\n", in[2 * i], in[2 * i + 1], out[i]);
    }
    haze_fis_free(f);
    rc = st ? cli_fail(ctx, st) : CLI_OK;
    haze_ctx_free(ctx);
    return rc;
}

static int demo_edge(const cli_global *g) {
    char dir[] = "/tmp/haze-demo-XXXXXX", in[64], out[64];
    if (!mkdtemp(dir)) {
        cli_errorf("demo: cannot make a temporary folder");
        return CLI_RUNTIME;
    }
    snprintf(in, sizeof in, "%s/camera.png", dir);
    snprintf(out, sizeof out, "%s/edges.pgm", dir);
    FILE *fp = fopen(in, "wb");
    int ok =
        fp && fwrite(haze_demo_edge_png, 1, haze_demo_edge_png_size, fp) == haze_demo_edge_png_size;
    if (fp && fclose(fp)) ok = 0;
    int rc = CLI_RUNTIME;
    if (ok) {
        char name[] = "edge", o[] = "-o";
        char *argv[] = {name, in, o, out, NULL};
        rc = cmd_edge(4, argv, g);
    }
    if (!rc) {
        haze_ctx *ctx = NULL;
        haze_image *im = NULL;
        if (!cli_ctx_new(g, &ctx) && !haze_image_load(ctx, out, &im)) {
            size_t n = (size_t)im->width * (size_t)im->height, dark = 0;
            for (size_t i = 0; i < n; i++) dark += im->data[i] < 200;
            printf("FIRE edges of a %d x %d photograph: %.1f%% of pixels on edges (dark)\n",
                   im->width, im->height, 100.0 * (double)dark / (double)n);
            /* a coarse view: one character per 6 x 8 block */
            for (int y = 0; y + 8 <= im->height; y += 8) {
                printf("  ");
                for (int x = 0; x + 6 <= im->width; x += 6) {
                    int m = 255;
                    for (int yy = y; yy < y + 8; yy++)
                        for (int xx = x; xx < x + 6; xx++) {
                            int v = im->data[(size_t)yy * (size_t)im->width + (size_t)xx];
                            m = v < m ? v : m;
                        }
                    putchar(m < 150 ? '#' : (m < 200 ? '+' : (m < 240 ? '.' : ' ')));
                }
                putchar('\n');
            }
        }
        haze_image_free(im);
        haze_ctx_free(ctx);
    }
    remove(in);
    remove(out);
    rmdir(dir);
    return rc;
}

/* fuzzy c-means */

/* neuro-fuzzy network */

/* rounding-error analysis */

static const demo_part parts[] = {
    {"this machine (haze info)", demo_info},
    /* certified fuzzy arithmetic */

    /* fuzzy inference and edge detection */
    {"fuzzy inference (haze fis)", demo_fis},
    {"FIRE edge detection (haze edge)", demo_edge},

    /* fuzzy c-means */

    /* neuro-fuzzy network */

    /* rounding-error analysis */

};

static void help(FILE *fp) {
    fprintf(fp, "usage: haze demo [--help]\n\n"
                "Runs a short tour of haze on embedded data: each capability in turn,\n"
                "with the global --backend choosing CPU or GPU.\n");
}

int cmd_demo(int argc, char **argv, const cli_global *g) {
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            help(stdout);
            return CLI_OK;
        }
        return cli_usage_error("demo", "unknown option");
    }
    if (optind < argc) return cli_usage_error("demo", "unexpected argument '%s'", argv[optind]);
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        printf("\n== %zu. %s ==\n", i + 1, parts[i].title);
        fflush(stdout);
        int code = parts[i].run(g);
        if (code) return code;
    }
    return CLI_OK;
}
