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

/* fuzzy c-means */

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

static const demo_part parts[] = {
    {"this machine (haze info)", demo_info},
    /* certified fuzzy arithmetic */

    /* fuzzy inference and edge detection */

    /* fuzzy c-means */

    /* neuro-fuzzy network */
    {"SONFIN neuro-fuzzy network on Letter (haze fnn)", demo_fnn},

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
