/*
 * cli/cmd_demo.c - `haze demo`: one short run of each capability of haze on
 * data embedded in the executable, so it works from any folder.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

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

/* fuzzy c-means */

/* neuro-fuzzy network */

/* rounding-error analysis */

static const demo_part parts[] = {
    {"this machine (haze info)", demo_info},
    /* certified fuzzy arithmetic */
    {"certified fuzzy arithmetic (haze fuzzy eval --batch)", demo_fuzzy},

    /* fuzzy inference and edge detection */

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
