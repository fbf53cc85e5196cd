/*
 * cli/cmd_edge.c - `haze edge`: FIRE fuzzy edge detection (seed paper 002),
 * or edge detection with the user's own Mamdani rule base (--rules).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static void help(FILE *fp) {
    fprintf(fp, "usage: haze edge IN.png [IN2 ...] -o OUT [--rules MODEL.fis] [--kernel K]\n"
                "                 [--spread T] [--black-width W] [--scale C] [--format png|pgm]\n\n"
                "FIRE edge detection: edges come out dark on a light background. Inputs are\n"
                "PNG, JPEG, PGM or PPM (colour becomes BT.601 luminance); borders replicate\n"
                "the edge pixels. With one input, OUT is the output file (PNG, or PGM if it\n"
                "ends in .pgm); with several (a batch of frames), OUT is an existing folder\n"
                "and each result is OUT/<input name>.png (or .pgm with --format pgm). All\n"
                "inputs are read before anything is written.\n\n"
                "Options:\n"
                "  -o, --output OUT     output file, or folder for several inputs\n"
                "  --rules MODEL.fis    a Mamdani model with 8 inputs (differences to the\n"
                "                       neighbours NW, N, NE, W, E, SW, S, SE, in -255..255)\n"
                "                       and 1 output in 0..255, instead of FIRE's rules\n"
                "  --kernel K           fast (default) or reference; both give the same image\n"
                "  --spread T           antecedent trapezoids: negative [-256 -255 -T T],\n"
                "                       positive [-T T 255 256] (1..255, default 64)\n"
                "  --black-width W      consequent black: triangle 1 at 0 to 0 at W; white\n"
                "                       its mirror image (1..255, default 128)\n"
                "  --scale C            output = C x centroid, clipped (1..8, default 2)\n"
                "  --format F           png (default) or pgm for outputs in a folder\n"
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
                                         {0, 0, 0, 0}};
    const char *output = NULL, *rules = NULL, *format = "png";
    haze_fire_params fp = haze_fire_params_default();
    haze_fire_kernel kernel = HAZE_FIRE_FAST;
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
                kernel = HAZE_FIRE_FAST;
            else if (strcmp(optarg, "reference") == 0)
                kernel = HAZE_FIRE_REFERENCE;
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
            if (strcmp(optarg, "png") && strcmp(optarg, "pgm"))
                return cli_usage_error("edge", "--format: expected png or pgm, got '%s'", optarg);
            format = optarg;
            break;
        default:
            return cli_usage_error("edge", "unknown option");
        }
    }
    int nin = argc - optind;
    if (nin < 1) return cli_usage_error("edge", "expected at least one input image");
    if (!output) return cli_usage_error("edge", "-o OUT is required");
    if (nin > 1) {
        struct stat sb;
        if (stat(output, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return cli_usage_error("edge", "with %d inputs, -o must name an existing folder", nin);
    }
    haze_ctx *ctx = NULL;
    int rc = cli_ctx_new(g, &ctx);
    if (rc) return rc;
    haze_fis *fis = NULL;
    haze_fire *fire = NULL;
    haze_image **imgs = calloc((size_t)nin, sizeof *imgs);
    haze_image *out = NULL;
    int st = imgs ? HAZE_OK : HAZE_ERR_NOMEM;
    if (!st && rules) st = haze_fis_load(ctx, rules, &fis);
    if (!st && !rules) st = haze_fire_new(ctx, &fp, &fire);
    for (int i = 0; i < nin && !st; i++) st = haze_image_load(ctx, argv[optind + i], &imgs[i]);
    for (int i = 0; i < nin && !st; i++) {
        st = haze_image_new(ctx, imgs[i]->width, imgs[i]->height, &out);
        if (!st)
            st = fis ? haze_edge_fis(ctx, fis, imgs[i], out)
                     : haze_fire_run(ctx, fire, kernel, imgs[i], out);
        if (!st) {
            char path[4096], base[1024];
            if (nin == 1)
                snprintf(path, sizeof path, "%s", output);
            else
                snprintf(path, sizeof path, "%s/%s.%s", output,
                         base_name(argv[optind + i], base, sizeof base), format);
            st = haze_image_save(ctx, out, path);
            if (!st) cli_info(g, "haze edge: %s -> %s\n", argv[optind + i], path);
        }
        haze_image_free(out);
        out = NULL;
    }
    rc = st ? cli_fail(ctx, st) : CLI_OK;
    if (imgs)
        for (int i = 0; i < nin; i++) haze_image_free(imgs[i]);
    free(imgs);
    haze_fire_free(fire);
    haze_fis_free(fis);
    haze_ctx_free(ctx);
    return rc;
}
