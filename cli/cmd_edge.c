/*
 * cli/cmd_edge.c - `haze edge`: FIRE fuzzy edge detection (seed paper 002),
 * or edge detection with the user's own Mamdani rule base (--rules).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "plot.h"
#include "progress.h"

static void help(FILE *fp) {
    fprintf(fp, "usage: haze edge IN.png [IN2 ...] -o OUT [--rules MODEL.fis] [--kernel K]\n"
                "                 [--spread T] [--black-width W] [--scale C] [--format F]\n"
                "                 [--side-by-side PICTURE.{png,svg,pdf}]\n\n"
                "FIRE edge detection: edges come out dark on a light background. Inputs are\n"
                "PNG, JPEG, PGM or PPM (colour becomes BT.601 luminance); borders replicate\n"
                "the edge pixels. With one input, OUT is the output file, written in the\n"
                "format its extension says (.png, .jpg/.jpeg, .pgm, .ppm; PNG without an\n"
                "extension; another extension is refused). With several inputs (a batch of\n"
                "frames), or when OUT ends in '/' or is a folder, OUT is a folder (created\n"
                "if it ends in '/' and does not exist) and each result is\n"
                "OUT/<input name>.png (or the --format given); two inputs with the same name\n"
                "are refused. All inputs are read before anything is written, and the\n"
                "outputs land together or none does. Results go to the files; the names\n"
                "written go to stderr (not with --quiet).\n\n"
                "Options:\n"
                "  -o, --output OUT     output file, or folder (OUT/) for the results\n"
                "  --rules MODEL.fis    a Mamdani model with 8 inputs (differences to the\n"
                "                       neighbours NW, N, NE, W, E, SW, S, SE, in -255..255)\n"
                "                       and 1 output in 0..255, instead of FIRE's rules\n"
                "  --kernel K           fast (default) or reference; both give the same image\n"
                "  --spread T           antecedent trapezoids: negative [-256 -255 -T T],\n"
                "                       positive [-T T 255 256] (1..255, default 64)\n"
                "  --black-width W      consequent black: triangle 1 at 0 to 0 at W; white\n"
                "                       its mirror image (1..255, default 128)\n"
                "  --scale C            output = C x centroid, clipped (1..8, default 2)\n"
                "  --format F           png (default), jpg, pgm or ppm for outputs in a folder\n"
                "  --side-by-side FILE  also draw the input and its edges side by side (one\n"
                "                       input; PNG, SVG or PDF by extension)\n"
                "  -h, --help           this text\n\n"
                "Exit codes: 0 ok, 1 usage, 2 unreadable image or model, 3 runtime.\n");
}

static const char *base_name(const char *path, char *buf, size_t cap) {
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    snprintf(buf, cap, "%s", s);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf) *dot = '\0';
    return buf;
}

int cmd_edge(int argc, char **argv, const cli_global *g) {
    static const struct option opts[] = {{"help", no_argument, 0, 'h'},
                                         {"output", required_argument, 0, 'o'},
                                         {"rules", required_argument, 0, 'r'},
                                         {"kernel", required_argument, 0, 'k'},
                                         {"spread", required_argument, 0, 't'},
                                         {"black-width", required_argument, 0, 'w'},
                                         {"scale", required_argument, 0, 'c'},
                                         {"format", required_argument, 0, 'f'},
                                         {"side-by-side", required_argument, 0, 'S'},
                                         {0, 0, 0, 0}};
    const char *output = NULL, *rules = NULL, *format = "png", *side = NULL;
    haze_edge_options fp = haze_edge_options_default();
    haze_edge_kernel kernel = HAZE_EDGE_FAST;
    long v;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            help(stdout);
            return CLI_OK;
        case 'o':
            output = optarg;
            break;
        case 'r':
            rules = optarg;
            break;
        case 'k':
            if (strcmp(optarg, "fast") == 0)
                kernel = HAZE_EDGE_FAST;
            else if (strcmp(optarg, "reference") == 0)
                kernel = HAZE_EDGE_REFERENCE;
            else
                return cli_usage_error("edge", "--kernel: expected fast or reference, got '%s'",
                                       optarg);
            break;
        case 't':
            if (!cli_parse_int(optarg, 1, 255, &v))
                return cli_usage_error("edge", "--spread: expected 1 to 255, got '%s'", optarg);
            fp.spread = (int)v;
            break;
        case 'w':
            if (!cli_parse_int(optarg, 1, 255, &v))
                return cli_usage_error("edge", "--black-width: expected 1 to 255, got '%s'",
                                       optarg);
            fp.black_width = (int)v;
            break;
        case 'c':
            if (!cli_parse_int(optarg, 1, 8, &v))
                return cli_usage_error("edge", "--scale: expected 1 to 8, got '%s'", optarg);
            fp.scale = (int)v;
            break;
        case 'f':
            if (strcmp(optarg, "png") && strcmp(optarg, "pgm") && strcmp(optarg, "ppm") &&
                strcmp(optarg, "jpg") && strcmp(optarg, "jpeg"))
                return cli_usage_error("edge", "--format: expected png, jpg, pgm or ppm, got '%s'",
                                       optarg);
            format = optarg;
            break;
        case 'S':
            side = optarg;
            break;
        default:
            return cli_usage_error("edge", "unknown option");
        }
    }
    int nin = argc - optind;
    if (nin < 1) return cli_usage_error("edge", "expected at least one input image");
    if (!output || !*output) return cli_usage_error("edge", "-o OUT is required");
    if (side && nin > 1)
        return cli_usage_error("edge", "--side-by-side takes one input image, got %d", nin);
    if (side) {
        int prc = plot_check_path("edge", "--side-by-side", side);
        if (prc) return prc;
    }
    size_t olen = strlen(output);
    struct stat sb;
    int exists = stat(output, &sb) == 0, is_dir = exists && S_ISDIR(sb.st_mode);
    int to_dir = nin > 1 || is_dir || output[olen - 1] == '/';
    if (to_dir && exists && !is_dir)
        return cli_usage_error("edge", "%s is a file; with %d inputs -o names a folder", output,
                               nin);
    if (to_dir && !exists && output[olen - 1] != '/')
        return cli_usage_error("edge",
                               "with %d inputs, -o names a folder and '%s' does not exist "
                               "(write '%s/' to create it)",
                               nin, output, output);
    /* the output names, refused now if one cannot be written or two collide */
    char(*paths)[4096] = calloc((size_t)nin, sizeof *paths);
    if (!paths) {
        cli_errorf("out of memory");
        return CLI_RUNTIME;
    }
    int rc = CLI_OK;
    for (int i = 0; i < nin && !rc; i++) {
        char base[1024];
        int n = to_dir ? snprintf(paths[i], sizeof paths[i], "%s%s%s.%s", output,
                                  output[olen - 1] == '/' ? "" : "/",
                                  base_name(argv[optind + i], base, sizeof base), format)
                       : snprintf(paths[i], sizeof paths[i], "%s", output);
        if (n < 0 || (size_t)n >= sizeof paths[i])
            rc = cli_usage_error("edge", "output name too long for %s", argv[optind + i]);
        else if (haze_image_format_check(NULL, paths[i]) != HAZE_OK)
            rc = cli_usage_error("edge",
                                 "-o %s: unknown image type (write .png, .jpg, .jpeg, .pgm or "
                                 ".ppm)",
                                 paths[i]);
        for (int j = 0; j < i && !rc; j++)
            if (strcmp(paths[i], paths[j]) == 0)
                rc = cli_usage_error("edge", "%s and %s would both be written to %s",
                                     argv[optind + j], argv[optind + i], paths[i]);
    }
    if (rc) {
        free(paths);
        return rc;
    }
    haze_ctx *ctx = NULL;
    rc = cli_ctx_new(g, &ctx);
    if (rc) {
        free(paths);
        return rc;
    }
    haze_fis *fis = NULL;
    haze_edge *fire = NULL;
    haze_image **imgs = calloc((size_t)nin, sizeof *imgs);
    haze_image *out = NULL;
    int made_dir = 0;
    int st = imgs ? HAZE_OK : HAZE_ERR_NOMEM;
    if (!st && to_dir && !exists) {
        if (mkdir(output, 0777) == 0) {
            made_dir = 1;
        } else {
            int e = errno;
            cli_errorf("%s: cannot create the folder: %s%s", output, strerror(e),
                       e == ENOENT ? " (create its parent first, e.g. mkdir -p)" : "");
            rc = CLI_INPUT;
            st = HAZE_ERR_IO;
        }
    }
    if (!st) st = haze_outgroup_begin(ctx);
    for (int i = 0; i < nin && !st; i++) st = haze_outgroup_add(ctx, paths[i]);
    if (!st && side) st = haze_outgroup_add(ctx, side);
    if (!st && rules) st = haze_fis_load(ctx, rules, &fis);
    if (!st && !rules) st = haze_edge_new(ctx, &fp, &fire);
    cli_progress pr;
    cli_progress_begin(&pr, g, "edge");
    /* reading counts as the first half of the job, the detection the second */
    for (int i = 0; i < nin && !st; i++) {
        cli_progress_update(&pr, 0.5 * i / nin, "reading frame %d/%d", i + 1, nin);
        st = haze_image_load(ctx, argv[optind + i], &imgs[i]);
    }
    for (int i = 0; i < nin && !st; i++) {
        cli_progress_update(&pr, 0.5 + 0.5 * i / nin, "frame %d/%d", i + 1, nin);
        st = haze_image_new(ctx, imgs[i]->width, imgs[i]->height, &out);
        if (!st)
            st = fis ? haze_edge_run_fis(ctx, fis, imgs[i], out)
                     : haze_edge_run(ctx, fire, kernel, imgs[i], out);
        if (!st) st = haze_image_save(ctx, out, paths[i]);
        if (!st && side) {
            cli_progress_clear(&pr); /* plot_edge may print a message */
            char base[1024];
            snprintf(base, sizeof base, "%s", argv[optind + i]);
            const char *slash = strrchr(base, '/');
            if ((rc = plot_edge(ctx, imgs[i], out, slash ? slash + 1 : base,
                                rules ? "rules of the model" : "FIRE", side)))
                st = HAZE_ERR_IO;
        }
        haze_image_free(out);
        out = NULL;
    }
    cli_progress_end(&pr);
    if (!st) st = haze_outgroup_commit(ctx);
    if (!st && made_dir) cli_info(g, "haze edge: created folder %s\n", output);
    for (int i = 0; i < nin && !st; i++)
        cli_info(g, "haze edge: %s -> %s\n", argv[optind + i], paths[i]);
    haze_outgroup_abort(ctx);
    if (st && made_dir) rmdir(output); /* only if still empty */
    free(paths);
    if (!rc) rc = st ? cli_fail(ctx, st) : CLI_OK;
    if (imgs)
        for (int i = 0; i < nin; i++) haze_image_free(imgs[i]);
    free(imgs);
    haze_edge_free(fire);
    haze_fis_free(fis);
    haze_ctx_free(ctx);
    return rc;
}
