/*
 * cli/cmd_demo.c - `haze demo`: one short run of each capability of haze on
 * data embedded in the executable, so it works from any folder.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plot.h"

/* --plot FILE: the fuzzy c-means step draws its clusters there */
static const char *demo_plot;

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
extern const unsigned char haze_demo_fuzzy[];
extern const unsigned long haze_demo_fuzzy_size;
static int demo_fuzzy(const cli_global *g) {
    /* the embedded batch goes through a temporary file, as a user's would */
    char path[] = "/tmp/haze-demo-fuzzy-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return CLI_RUNTIME;
    FILE *fp = fdopen(fd, "w");
    if (!fp || fwrite(haze_demo_fuzzy, 1, haze_demo_fuzzy_size, fp) != haze_demo_fuzzy_size) {
        if (fp) fclose(fp);
        remove(path);
        return CLI_RUNTIME;
    }
    fclose(fp);
    char a0[] = "fuzzy", a1[] = "--encoding", a2[] = "mr", a3[] = "--cuts", a4[] = "3",
         a5[] = "eval", a6[] = "--batch";
    char *argv[] = {a0, a1, a2, a3, a4, a5, a6, path, NULL};
    int rc = cmd_fuzzy(8, argv, g);
    remove(path);
    return rc;
}

/* fuzzy inference and edge detection */
extern const unsigned char haze_demo_tipper_fis[], haze_demo_edge_png[];
extern const unsigned long haze_demo_tipper_fis_size, haze_demo_edge_png_size;
extern const unsigned char haze_demo_tipper_fll[];
extern const unsigned long haze_demo_tipper_fll_size;

static int demo_fis(const cli_global *g) {
    haze_ctx *ctx = NULL;
    int rc = cli_ctx_new(g, &ctx);
    if (rc) return rc;
    haze_fis *f = NULL;
    int st = haze_fis_parse(ctx, (const char *)haze_demo_tipper_fis, "tipper.fis", &f);
    /* MATLAB's documented tipper points */
    const double in[8] = {2, 1, 4, 5, 7, 8, 1, 2};
    double out[4];
    if (!st) st = haze_fis_eval(ctx, f, in, 4, out, NULL);
    if (!st) {
        printf("MATLAB's tipper.fis (Mamdani, 3 rules) on %s: service, food -> tip %%\n",
               haze_backend_name(haze_ctx_backend(ctx)));
        for (int i = 0; i < 4; i++) printf("  %g, %g -> %.4f\n", in[2 * i], in[2 * i + 1], out[i]);
    }
    haze_fis_free(f);
    f = NULL;
    /* fuzzylite's hybrid tipper: a Mamdani and a Takagi-Sugeno output */
    char *fll = malloc(haze_demo_tipper_fll_size + 1);
    if (!st && !fll) st = HAZE_ERR_NOMEM;
    if (!st) {
        memcpy(fll, haze_demo_tipper_fll, haze_demo_tipper_fll_size);
        fll[haze_demo_tipper_fll_size] = '\0';
        st = haze_fis_parse_fll(ctx, fll, "tipper_hybrid.fll", &f);
    }
    double out2[8];
    if (!st) st = haze_fis_eval(ctx, f, in, 4, out2, NULL);
    if (!st) {
        printf("fuzzylite's hybrid tipper.fll (fuzzylite mode): service, food -> mTip, tsTip\n");
        for (int i = 0; i < 4; i++)
            printf("  %g, %g -> %.4f, %.4f\n", in[2 * i], in[2 * i + 1], out2[2 * i],
                   out2[2 * i + 1]);
    }
    free(fll);
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
        cli_global quiet = *g; /* the temporary file names are no news */
        quiet.quiet = 1;
        rc = cmd_edge(4, argv, &quiet);
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
extern const unsigned char haze_data_iris[];
extern const unsigned long haze_data_iris_size;

/* Fuzzy c-means on Fisher's iris (embedded), three clusters from k-means++. */
static int demo_fcm(const cli_global *g) {
    char path[] = "/tmp/haze-demo-iris-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        cli_errorf("demo: cannot create a temporary file");
        return CLI_RUNTIME;
    }
    FILE *fp = fdopen(fd, "w");
    if (!fp || fwrite(haze_data_iris, 1, haze_data_iris_size, fp) != haze_data_iris_size) {
        if (fp) fclose(fp);
        remove(path);
        cli_errorf("demo: cannot write a temporary file");
        return CLI_RUNTIME;
    }
    fclose(fp);
    haze_ctx *ctx = NULL;
    int code = cli_ctx_new(g, &ctx);
    if (code) {
        remove(path);
        return code;
    }
    haze_table *x = NULL;
    haze_fcm_result *r = NULL;
    int st = haze_table_read(ctx, path, NULL, &x);
    remove(path);
    haze_fcm_options o = haze_fcm_options_default();
    o.clusters = 3;
    o.init = HAZE_FCM_INIT_KMEANSPP;
    o.seed = 1;
    o.want_memberships = 1;
    if (!st)
        st = haze_fcm_fit(ctx, haze_table_data(x), HAZE_PRECISION_F64, haze_table_row_count(x),
                          haze_table_column_count(x), &o, &r);
    if (!st) {
        printf("haze fcm iris.csv -c 3 --init kmeans++ --seed 1   (Fisher's iris, 150 x 4)\n");
        printf("%d iterations, objective %.6f, partition coefficient %.4f, Xie-Beni %.4f\n",
               haze_fcm_result_iterations(r),
               haze_fcm_result_objective(r)[haze_fcm_result_iterations(r) - 1],
               haze_fcm_result_partition_coefficient(r), haze_fcm_result_xie_beni(r));
        int lab[150] = {0}, count[3] = {0, 0, 0};
        haze_fcm_labels(ctx, haze_fcm_result_memberships(r), haze_fcm_result_point_count(r),
                        haze_fcm_result_cluster_count(r), lab);
        for (size_t i = 0; i < haze_fcm_result_point_count(r) && i < 150; i++) count[lab[i]]++;
        printf("centre (sepal length, sepal width, petal length, petal width)  points\n");
        for (size_t j = 0; j < 3; j++)
            printf("  %zu: %6.3f %6.3f %6.3f %6.3f  %3d\n", j + 1,
                   haze_fcm_result_centres(r)[j * 4], haze_fcm_result_centres(r)[j * 4 + 1],
                   haze_fcm_result_centres(r)[j * 4 + 2], haze_fcm_result_centres(r)[j * 4 + 3],
                   count[j]);
        printf("point 78 (a versicolor near virginica): memberships %.3f %.3f %.3f\n",
               haze_fcm_result_memberships(r)[77 * 3], haze_fcm_result_memberships(r)[77 * 3 + 1],
               haze_fcm_result_memberships(r)[77 * 3 + 2]);
        if (demo_plot) {
            code = plot_fcm(ctx, haze_table_data(x), NULL, (const char *const *)haze_table_names(x),
                            r, demo_plot);
            if (!code) printf("the clusters, drawn: %s\n", demo_plot);
        }
    }
    if (st) code = cli_fail(ctx, st);
    haze_fcm_result_free(r);
    haze_table_free(x);
    haze_ctx_free(ctx);
    return code;
}

/* neuro-fuzzy network */
extern const unsigned char haze_data_letter_demo[];
extern const unsigned long haze_data_letter_demo_size;
/* SONFIN on 1500 Letter rows, tested on 500 later ones: the embedded table
 * goes to a temporary file because the commands read files. */
static int demo_fnn(const cli_global *g) {
    char dir[] = "/tmp/haze-demo-fnn-XXXXXX";
    if (!mkdtemp(dir)) {
        cli_errorf("demo: cannot make a temporary folder");
        return CLI_RUNTIME;
    }
    char data[64], model[64], fis[64], pred[64];
    snprintf(data, sizeof data, "%s/letter.csv", dir);
    snprintf(model, sizeof model, "%s/letter.fnn", dir);
    snprintf(fis, sizeof fis, "%s/letter.fis", dir);
    snprintf(pred, sizeof pred, "%s/pred.csv", dir);
    FILE *fp = fopen(data, "wb");
    int code = CLI_RUNTIME;
    if (fp && fwrite(haze_data_letter_demo, 1, haze_data_letter_demo_size, fp) ==
                  haze_data_letter_demo_size) {
        fclose(fp);
        fp = NULL;
        printf("haze fnn train letter.csv --target lettr --classes --head 1500 --epochs 3\n");
        fflush(stdout);
        char *a1[] = {"fnn",  "train",    data, "--target", "lettr", "--classes", "--head",
                      "1500", "--epochs", "3",  "-o",       model,   NULL};
        code = cmd_fnn(12, a1, g);
        if (!code) {
            printf("haze fnn predict letter.fnn letter.csv --tail 500\n");
            fflush(stdout);
            char *a2[] = {"fnn", "predict", model, data, "--tail", "500", "-o", pred, NULL};
            code = cmd_fnn(8, a2, g);
        }
        if (!code) {
            char *a3[] = {"fnn", "info", model, NULL};
            code = cmd_fnn(3, a3, g);
        }
        if (!code) {
            char *a4[] = {"fnn", "export", model, "-o", fis, NULL};
            code = cmd_fnn(5, a4, g);
        }
    } else {
        cli_errorf("demo: cannot write %s", data);
    }
    if (fp) fclose(fp);
    remove(data), remove(model), remove(fis), remove(pred);
    rmdir(dir);
    return code;
}

/* rounding-error analysis */
extern const unsigned char haze_demo_prec_script[];

/* The paper's fixed-point example (CGO 2010, Fig. 1-2) with both engines:
 * plain Gappa's interval bound and the tighter affine one. */
static int demo_prec(const cli_global *g) {
    haze_ctx *ctx = NULL;
    int code = cli_ctx_new(g, &ctx);
    if (code) return code;
    haze_prec_script *s = NULL;
    int st = haze_prec_parse(ctx, (const char *)haze_demo_prec_script, "fixed_point.g", NULL, &s);
    printf("y = c*x1 + (x2 - x1) in fixed point, x1 in [-10,10] at 3 fractional bits,\n"
           "x2 in [-5,5] at 2, every operation rounded to nearest at 3 bits:\n");
    for (int e = HAZE_PREC_IA; !st && e <= HAZE_PREC_AA; e++) {
        haze_prec_result *r = NULL;
        st = haze_prec_analyse(ctx, s, (haze_prec_engine)e, &r);
        if (!st)
            printf("  %-28s error o_fx - o_m in [%s, %s]\n",
                   e == HAZE_PREC_IA ? "interval engine (Gappa):" : "affine engine (Gappa++):",
                   haze_prec_result_goal(r, 0)->lo_decimal,
                   haze_prec_result_goal(r, 0)->hi_decimal);
        haze_prec_result_free(r);
    }
    code = st ? cli_fail(ctx, st) : CLI_OK;
    haze_prec_free(s);
    haze_ctx_free(ctx);
    return code;
}

static const demo_part parts[] = {
    {"this machine (haze info)", demo_info},
    /* certified fuzzy arithmetic */
    {"certified fuzzy arithmetic (haze fuzzy eval --batch)", demo_fuzzy},

    /* fuzzy inference and edge detection */
    {"fuzzy inference (haze fis)", demo_fis},
    {"FIRE edge detection (haze edge)", demo_edge},

    /* fuzzy c-means */
    {"fuzzy c-means on iris (haze fcm)", demo_fcm},

    /* neuro-fuzzy network */
    {"SONFIN neuro-fuzzy network on Letter (haze fnn)", demo_fnn},

    /* rounding-error analysis */
    {"rounding-error analysis (haze prec)", demo_prec},

};

static void help(FILE *fp) {
    fprintf(fp, "usage: haze demo [--plot FILE] [--help]\n\n"
                "Runs a short tour of haze on embedded data: each capability in turn,\n"
                "with the global --backend choosing CPU or GPU. With --plot, the fuzzy\n"
                "c-means step draws its clusters to FILE (PNG, SVG or PDF).\n");
}

int cmd_demo(int argc, char **argv, const cli_global *g) {
    int code;
    demo_plot = NULL;
    if (argc == 3 && strcmp(argv[1], "--plot") == 0) {
        if ((code = plot_check_path("demo", "--plot", argv[2]))) return code;
        demo_plot = argv[2];
    } else if ((code = cli_help_only(argc, argv, "demo", help)) >= 0) {
        return code;
    }
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        printf("\n== %zu. %s ==\n", i + 1, parts[i].title);
        fflush(stdout);
        code = parts[i].run(g);
        if (code) return code;
    }
    return CLI_OK;
}
