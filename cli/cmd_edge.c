/*
 * cli/cmd_edge.c - `haze edge`: FIRE fuzzy edge detection (seed paper 002),
 * or edge detection with the user's own Mamdani rule base (--rules).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <strings.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "plot.h"
#include "progress.h"

/* --json's timings: per frame, the seconds its decoding, its detection and
 * its encoding and writing took (each entry written by the one thread that
 * did that step); all NULL without --json. One command runs per process. */
static struct { double *decode, *detect, *encode; } edge_secs;

static double mono_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double sum_secs(const double *v, int n) {
    double s = 0;
    for (int i = 0; v && i < n; i++) s += v[i];
    return s;
}

/* Reading the frames on several threads: each takes the next frame not yet
 * taken. A context may be shared by threads, and each thread has its own
 * last error, so a failure's message is copied here by the thread that
 * met it; the first failing frame (in input order) is the one reported. */
typedef struct {
    haze_ctx *ctx;
    char **names;
    haze_image **imgs;
    int n;
    atomic_int next, done, failed;
    int *status;
    char (*msg)[512];
} frame_reader;

/* A reading thread's loop; `pr` (the calling thread's) shows the frames
 * read so far before each frame it takes. */
static void read_frames_loop(frame_reader *r, cli_progress *pr) {
    for (;;) {
        if (pr) {
            int done = atomic_load(&r->done);
            cli_progress_update(pr, 0.5 * done / r->n, "reading frame %d/%d",
                                done < r->n ? done + 1 : r->n, r->n);
        }
        int i = atomic_fetch_add(&r->next, 1);
        if (i >= r->n || atomic_load(&r->failed)) break;
        double t0 = mono_s();
        r->status[i] = haze_image_load(r->ctx, r->names[i], &r->imgs[i]);
        if (edge_secs.decode) edge_secs.decode[i] = mono_s() - t0;
        if (r->status[i]) {
            snprintf(r->msg[i], sizeof r->msg[i], "%s", haze_ctx_errmsg(r->ctx));
            atomic_store(&r->failed, 1);
        }
        atomic_fetch_add(&r->done, 1);
    }
}

static void *read_frames(void *arg) {
    read_frames_loop(arg, NULL);
    return NULL;
}

/* Starts min(threads, n) - 1 helper threads running fn(arg) (the calling
 * thread is the last of them); *started: how many did start. */
static pthread_t *helpers_start(int threads, int n, void *(*fn)(void *), void *arg, int *started) {
    if (threads > n) threads = n;
    pthread_t *tid = calloc((size_t)(threads > 1 ? threads - 1 : 1), sizeof *tid);
    *started = 0;
    for (int t = 1; tid && t < threads; t++, (*started)++)
        if (pthread_create(&tid[t - 1], NULL, fn, arg) != 0) break;
    return tid;
}

static void helpers_join(pthread_t *tid, int started) {
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    free(tid);
}

/* The first frame whose status is a failure, or -1. */
static int first_failure(const int *status, int n) {
    for (int i = 0; i < n; i++)
        if (status[i]) return i;
    return -1;
}

/* Reads the n frames on up to `threads` threads (this one included); the
 * progress line shows the frames read. Returns 0, or the first failing
 * frame's status with its message printed. */
static int read_all(haze_ctx *ctx, char **names, int n, int threads, haze_image **imgs,
                    cli_progress *pr) {
    frame_reader r = {.ctx = ctx, .names = names, .imgs = imgs, .n = n};
    r.status = calloc((size_t)n, sizeof *r.status);
    r.msg = calloc((size_t)n, sizeof *r.msg);
    if (!r.status || !r.msg) {
        free(r.status), free(r.msg);
        cli_errorf("out of memory");
        return HAZE_ERR_NOMEM;
    }
    int started;
    pthread_t *tid = helpers_start(threads, n, read_frames, &r, &started);
    /* this thread reads too, and shows the progress */
    read_frames_loop(&r, pr);
    helpers_join(tid, started);
    int i = first_failure(r.status, n), st = i < 0 ? HAZE_OK : r.status[i];
    if (st) {
        cli_progress_clear(pr);
        cli_errorf("%s", r.msg[i][0] ? r.msg[i] : haze_status_message(st));
    }
    free(r.status), free(r.msg);
    return st;
}

/* Writing the results while the next frames are detected: the detecting
 * threads (one per device of the context: the calling thread and, on a
 * context over several GPUs, a thread for each other device, each with its
 * own detector on that device's part of the context) take frame after
 * frame and publish each result (`ready`); the other threads encode and
 * write them (PNG and JPEG encoding is most of a frame's time), each taking
 * the next result not yet taken, in input order; the calling thread writes
 * what is left after its last detection. Every file goes through the
 * context's output group, so all land together or none does. */
typedef struct {
    haze_ctx *ctx;
    haze_image **outs;
    char (*paths)[4096];
    int n;
    atomic_int *ready; /* per frame: 1 once outs[i] holds its result */
    atomic_int next, failed, written;
    int *status;
    char (*msg)[512];
} frame_writer;

static void write_frames_loop(frame_writer *w) {
    for (;;) {
        int i = atomic_fetch_add(&w->next, 1);
        if (i >= w->n) break;
        while (!atomic_load(&w->ready[i]) && !atomic_load(&w->failed)) {
            struct timespec ts = {0, 200000}; /* a frame takes milliseconds */
            nanosleep(&ts, NULL);
        }
        if (atomic_load(&w->failed)) break;
        double t0 = mono_s();
        w->status[i] = haze_image_save(w->ctx, w->outs[i], w->paths[i]);
        if (edge_secs.encode) edge_secs.encode[i] = mono_s() - t0;
        if (w->status[i]) {
            snprintf(w->msg[i], sizeof w->msg[i], "%s", haze_ctx_errmsg(w->ctx));
            atomic_store(&w->failed, 1);
        }
        haze_image_free(w->outs[i]);
        w->outs[i] = NULL;
        atomic_fetch_add(&w->written, 1);
    }
}

static void *write_frames(void *arg) {
    write_frames_loop(arg);
    return NULL;
}

/* The frames' detection, shared by the detecting threads. */
typedef struct {
    frame_writer *w;
    haze_image **imgs;
    haze_fis *fis; /* the rules, or NULL: FIRE */
    haze_edge_kernel kernel;
    atomic_int next, detected;
    int *status; /* per frame: its detection's */
    char (*msg)[512];
} frame_detector;

/* One detecting thread: its device's context (a part of the caller's) and
 * detector; `pr` (the calling thread's) shows the frames done. */
typedef struct {
    frame_detector *d;
    haze_ctx *ctx;
    haze_edge *fire;
    cli_progress *pr;
} detector_part;

static void detect_loop(detector_part *p) {
    frame_detector *d = p->d;
    frame_writer *w = d->w;
    const int n = w->n;
    for (;;) {
        if (p->pr) {
            int done = atomic_load(&w->written), k = atomic_load(&d->detected);
            cli_progress_update(p->pr, 0.5 + 0.5 * (k + done) / (2.0 * n), "frame %d/%d",
                                k < n ? k + 1 : n, n);
        }
        if (atomic_load(&w->failed)) break;
        int i = atomic_fetch_add(&d->next, 1);
        if (i >= n) break;
        haze_image *out = NULL;
        double t0 = mono_s();
        int st = haze_image_new(p->ctx, d->imgs[i]->width, d->imgs[i]->height, &out);
        if (!st)
            st = d->fis ? haze_edge_run_fis(p->ctx, d->fis, d->imgs[i], out)
                        : haze_edge_run(p->ctx, p->fire, d->kernel, d->imgs[i], out);
        if (edge_secs.detect) edge_secs.detect[i] = mono_s() - t0;
        if (st) {
            haze_image_free(out);
            d->status[i] = st;
            snprintf(d->msg[i], sizeof d->msg[i], "%s", haze_ctx_errmsg(p->ctx));
            atomic_store(&w->failed, 1);
            break;
        }
        w->outs[i] = out;
        atomic_store(&w->ready[i], 1);
        atomic_fetch_add(&d->detected, 1);
    }
}

static void *detect_frames(void *arg) {
    detect_loop(arg);
    return NULL;
}

/* Detects the n frames (FIRE with `fire` and its options fp, or the rules
 * of fis) and writes each result to paths[i] on up to `threads` threads;
 * the frames are shared over the context's devices. The progress line
 * shows the frames done. Returns 0, or the first failing frame's status
 * with its message printed (a frame's detection before its writing) and
 * its exit code in *code. */
static int detect_and_write(haze_ctx *ctx, haze_edge *fire, const haze_edge_options *fp,
                            haze_edge_kernel kernel, haze_fis *fis, haze_image **imgs,
                            char (*paths)[4096], int n, int threads, cli_progress *pr, int *code) {
    const int D = haze_ctx_device_count(ctx) > 1 ? haze_ctx_device_count(ctx) : 1;
    frame_writer w = {.ctx = ctx, .paths = paths, .n = n};
    frame_detector d = {.w = &w, .imgs = imgs, .fis = fis, .kernel = kernel};
    w.outs = calloc((size_t)n, sizeof *w.outs);
    w.ready = calloc((size_t)n, sizeof *w.ready);
    w.status = calloc((size_t)n, sizeof *w.status);
    w.msg = calloc((size_t)n, sizeof *w.msg);
    d.status = calloc((size_t)n, sizeof *d.status);
    d.msg = calloc((size_t)n, sizeof *d.msg);
    detector_part *parts = calloc((size_t)D, sizeof *parts);
    pthread_t *dtid = calloc((size_t)D, sizeof *dtid);
    int st = HAZE_OK, dstarted = 1;
    if (!w.outs || !w.ready || !w.status || !w.msg || !d.status || !d.msg || !parts || !dtid) {
        st = HAZE_ERR_NOMEM;
        cli_errorf("out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) atomic_init(&w.ready[i], 0);
    /* a detector on each device (the first's is the caller's) */
    for (int k = 0; k < D && !st; k++) {
        parts[k] = (detector_part){.d = &d, .ctx = haze_ctx_part(ctx, k), .pr = k ? NULL : pr};
        if (k == 0 || fis)
            parts[k].fire = fire;
        else if ((st = haze_edge_new(parts[k].ctx, fp, &parts[k].fire)))
            cli_errorf("%s", haze_ctx_errmsg(parts[k].ctx));
    }
    if (st) goto out;
    int started;
    pthread_t *tid = helpers_start(threads, n, write_frames, &w, &started);
    for (; dstarted < D && dstarted < n; dstarted++) /* (one that cannot start: fewer detect) */
        if (pthread_create(&dtid[dstarted], NULL, detect_frames, &parts[dstarted]) != 0) break;
    detect_loop(&parts[0]);
    /* this thread writes too, then waits for the others */
    write_frames_loop(&w);
    for (int k = 1; k < dstarted; k++) pthread_join(dtid[k], NULL);
    helpers_join(tid, started);
    /* the first failure in frame order: a detection, or a frame's writing */
    int dat = first_failure(d.status, n), wat = first_failure(w.status, n);
    if (dat >= 0 && (wat < 0 || dat <= wat)) {
        st = d.status[dat];
        cli_progress_clear(pr);
        cli_errorf("%s", d.msg[dat][0] ? d.msg[dat] : haze_status_message(st));
        *code = cli_exit_code_of(st, d.msg[dat]);
    } else if (wat >= 0) {
        st = w.status[wat];
        cli_progress_clear(pr);
        cli_errorf("%s", w.msg[wat][0] ? w.msg[wat] : haze_status_message(st));
        *code = cli_exit_code_of(st, w.msg[wat]);
    }
out:
    for (int k = 1; parts && k < D; k++)
        if (parts[k].fire != fire) haze_edge_free(parts[k].fire);
    for (int i = 0; w.outs && i < n; i++) haze_image_free(w.outs[i]);
    free(w.outs), free(w.ready), free(w.status), free(w.msg);
    free(d.status), free(d.msg), free(parts), free(dtid);
    return st;
}

/* 1 when name ends in an extension the image readers take (any case). */
static int image_ext(const char *name) {
    const char *dot = strrchr(name, '.');
    static const char *const ext[] = {".png", ".jpg", ".jpeg", ".pgm", ".ppm"};
    for (size_t i = 0; dot && i < sizeof ext / sizeof *ext; i++)
        if (strcasecmp(dot, ext[i]) == 0) return 1;
    return 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The inputs with every folder among them replaced by its image files
 * (.png, .jpg, .jpeg, .pgm, .ppm in any case, hidden files left out), in
 * the byte order of their names; the rest as given. *owned: the *nowned
 * strings to free, then the list itself (NULL when no input is a folder
 * and the list is names itself). *any_dir: whether one was. 0, or an exit
 * code with the message printed. */
static int expand_inputs(char **names, int n, char ***out, int *nout, char ***owned, size_t *nowned,
                         int *any_dir) {
    *out = names, *nout = n, *owned = NULL, *nowned = 0, *any_dir = 0;
    struct stat sb;
    for (int i = 0; i < n; i++)
        if (stat(names[i], &sb) == 0 && S_ISDIR(sb.st_mode)) *any_dir = 1;
    if (!*any_dir) return CLI_OK;
    size_t cap = (size_t)n + 16, len = 0, nown = 0;
    char **list = malloc(cap * sizeof *list), **own = malloc(cap * sizeof *own);
    int rc = list && own ? CLI_OK : CLI_RUNTIME;
    for (int i = 0; i < n && !rc; i++) {
        if (!(stat(names[i], &sb) == 0 && S_ISDIR(sb.st_mode))) {
            list[len++] = names[i];
            continue;
        }
        DIR *d = opendir(names[i]);
        if (!d) {
            cli_errorf("%s: cannot read the folder: %s", names[i], strerror(errno));
            rc = CLI_INPUT;
            break;
        }
        size_t first = len;
        struct dirent *e;
        while (!rc && (e = readdir(d))) {
            if (e->d_name[0] == '.' || !image_ext(e->d_name)) continue;
            size_t dl = strlen(names[i]);
            char *path = malloc(dl + strlen(e->d_name) + 2);
            if (!path) {
                rc = CLI_RUNTIME;
                break;
            }
            sprintf(path, "%s%s%s", names[i], dl && names[i][dl - 1] == '/' ? "" : "/", e->d_name);
            if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
                free(path);
                continue;
            }
            if (len == cap) { /* (nown <= len: one capacity for both) */
                cap *= 2;
                char **l2 = realloc(list, cap * sizeof *list);
                if (l2) list = l2;
                char **o2 = realloc(own, cap * sizeof *own);
                if (o2) own = o2;
                if (!l2 || !o2) {
                    free(path);
                    rc = CLI_RUNTIME;
                    break;
                }
            }
            list[len++] = own[nown++] = path;
        }
        closedir(d);
        if (!rc && len == first) {
            cli_errorf("%s: a folder with no image in it (.png, .jpg, .jpeg, .pgm, .ppm)",
                       names[i]);
            rc = CLI_INPUT;
        }
        if (!rc) qsort(list + first, len - first, sizeof *list, by_name);
    }
    if (rc == CLI_RUNTIME) cli_errorf("out of memory");
    if (len > (size_t)INT_MAX) {
        cli_errorf("more than %d inputs", INT_MAX);
        rc = CLI_INPUT;
    }
    if (rc) {
        for (size_t k = 0; own && k < nown; k++) free(own[k]);
        free(own), free(list);
        return rc;
    }
    *out = list, *nout = (int)len, *owned = own, *nowned = nown;
    return CLI_OK;
}

static void help(FILE *fp) {
    fprintf(fp, "usage: haze edge IN.png [IN2 ...] -o OUT [--rules MODEL.fis] [--kernel K]\n"
                "                 [--spread T] [--black-width W] [--scale C] [--format F]\n"
                "                 [--side-by-side PICTURE.{png,svg,pdf}] [--json]\n\n"
                "FIRE edge detection: edges come out dark on a light background. Inputs are\n"
                "PNG, JPEG, PGM or PPM (colour becomes BT.601 luminance); borders replicate\n"
                "the edge pixels. With one input, OUT is the output file, written in the\n"
                "format its extension says (.png, .jpg/.jpeg, .pgm, .ppm; PNG without an\n"
                "extension; another extension is refused). With several inputs (a batch of\n"
                "frames, or a folder IN/ standing for its .png, .jpg, .jpeg, .pgm and .ppm\n"
                "files in the order of their names), or when OUT ends in '/' or is a\n"
                "folder, OUT is a folder (created if it ends in '/' and does not exist)\n"
                "and each result is\n"
                "OUT/<input name>.png (or the --format given); two inputs with the same name\n"
                "are refused. All inputs are read (on the --threads threads) before\n"
                "anything is written, and the outputs land together or none does. Results\n"
                "go to the files; the names written go to stderr (not with --quiet). With\n"
                "the global option --gpus (haze --gpus all edge ...), the frames are shared\n"
                "over those GPUs, a detector on each: the same bytes as on one.\n\n"
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
                "  --json               print a summary as JSON on stdout (stderr when OUT\n"
                "                       is -): frames, pixels, backend, threads, seconds,\n"
                "                       and \"timings\": the wall seconds of the phases\n"
                "                       (setup, read, detect_write, commit) and the seconds\n"
                "                       of the steps summed over the frames (decode,\n"
                "                       detect: on a GPU with the copies up and down,\n"
                "                       encode: PNG/JPEG encoding and writing the file)\n"
                "  -h, --help           this text\n\n"
                "Exit codes: 0 ok, 1 usage, 2 unreadable image or model, 3 runtime.\n");
}

/* --json's summary: the frames, their pixels, the context, the wall time from
 * the start, the phases' wall times and the steps' seconds over the frames. */
static void print_json(FILE *fp, haze_ctx *ctx, haze_image **imgs, int n, double total,
                       const double *phase) {
    double pixels = 0;
    for (int i = 0; i < n; i++) pixels += (double)imgs[i]->width * (double)imgs[i]->height;
    fprintf(fp, "{\n  \"frames\": %d,\n  \"pixels\": %.0f,\n", n, pixels);
    fprintf(fp, "  \"backend\": \"%s\",\n  \"threads\": %d,\n  \"seconds\": %.6f,\n",
            haze_ctx_backend(ctx) == HAZE_BACKEND_CUDA ? "cuda" : "cpu", haze_ctx_threads(ctx),
            total);
    fprintf(fp,
            "  \"timings\": {\"setup\": %.6f, \"read\": %.6f, \"detect_write\": %.6f, "
            "\"commit\": %.6f,\n              \"decode\": %.6f, \"detect\": %.6f, "
            "\"encode\": %.6f}\n}\n",
            phase[0], phase[1], phase[2], phase[3], sum_secs(edge_secs.decode, n),
            sum_secs(edge_secs.detect, n), sum_secs(edge_secs.encode, n));
}

static const char *base_name(const char *path, char *buf, size_t cap) {
    const char *s = strrchr(path, '/');
    s = s ? s + 1 : path;
    snprintf(buf, cap, "%s", s);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf) *dot = '\0';
    return buf;
}

static int cmd_edge_run(const cli_global *g, char **in, int nin, int any_dir, const char *output,
                        const char *rules, const char *format, const char *side,
                        haze_edge_options fp_in, haze_edge_kernel kernel, int json, double t_start);

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
                                         {"json", no_argument, 0, 'j'},
                                         {0, 0, 0, 0}};
    const char *output = NULL, *rules = NULL, *format = "png", *side = NULL;
    haze_edge_options fp = haze_edge_options_default();
    haze_edge_kernel kernel = HAZE_EDGE_FAST;
    long v;
    int json = 0;
    double t_start = mono_s();
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
        case 'j':
            json = 1;
            break;
        default:
            return cli_usage_error("edge", "unknown option");
        }
    }
    int nin = argc - optind;
    if (nin < 1) return cli_usage_error("edge", "expected at least one input image");
    /* a folder stands for its images */
    char **in = NULL, **in_owned = NULL;
    size_t in_nowned = 0;
    int any_dir = 0;
    int erc = expand_inputs(argv + optind, nin, &in, &nin, &in_owned, &in_nowned, &any_dir);
    if (erc) return erc;
    int rc =
        cmd_edge_run(g, in, nin, any_dir, output, rules, format, side, fp, kernel, json, t_start);
    for (size_t k = 0; k < in_nowned; k++) free(in_owned[k]);
    free(in_owned);
    if (in != argv + optind) free(in);
    return rc;
}

/* The job itself, on the inputs nin names in[] (folders expanded). */
static int cmd_edge_run(const cli_global *g, char **in, int nin, int any_dir, const char *output,
                        const char *rules, const char *format, const char *side,
                        haze_edge_options fp_in, haze_edge_kernel kernel, int json,
                        double t_start) {
    haze_edge_options fp = fp_in;
    double t_phase[4] = {0, 0, 0, 0}; /* setup, read, detect_write, commit */
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
    int to_dir = nin > 1 || any_dir || is_dir || output[olen - 1] == '/';
    char why[64];
    if (any_dir)
        snprintf(why, sizeof why, "with a folder of inputs");
    else
        snprintf(why, sizeof why, "with %d inputs", nin);
    if (to_dir && exists && !is_dir)
        return cli_usage_error("edge", "%s is a file; %s -o names a folder", output, why);
    if (to_dir && !exists && output[olen - 1] != '/')
        return cli_usage_error("edge",
                               "%s, -o names a folder and '%s' does not exist "
                               "(write '%s/' to create it)",
                               why, output, output);
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
                                  base_name(in[i], base, sizeof base), format)
                       : snprintf(paths[i], sizeof paths[i], "%s", output);
        if (n < 0 || (size_t)n >= sizeof paths[i])
            rc = cli_usage_error("edge", "output name too long for %s", in[i]);
        else if (haze_image_format_check(NULL, paths[i]) != HAZE_OK)
            rc = cli_usage_error("edge",
                                 "-o %s: unknown image type (write .png, .jpg, .jpeg, .pgm or "
                                 ".ppm)",
                                 paths[i]);
        for (int j = 0; j < i && !rc; j++)
            if (strcmp(paths[i], paths[j]) == 0)
                rc = cli_usage_error("edge", "%s and %s would both be written to %s", in[j], in[i],
                                     paths[i]);
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
    if (!st && json) {
        edge_secs.decode = calloc((size_t)nin, sizeof(double));
        edge_secs.detect = calloc((size_t)nin, sizeof(double));
        edge_secs.encode = calloc((size_t)nin, sizeof(double));
        if (!edge_secs.decode || !edge_secs.detect || !edge_secs.encode) st = HAZE_ERR_NOMEM;
    }
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
    /* reading counts as the first half of the job, the detection the second;
     * the frames are read on the context's threads */
    int printed = 0, dcode = 0;
    double t_mark = mono_s();
    t_phase[0] = t_mark - t_start;
    if (!st) {
        st = read_all(ctx, in, nin, haze_ctx_threads(ctx), imgs, &pr);
        printed = st != 0;
    }
    t_phase[1] = mono_s() - t_mark;
    t_mark = mono_s();
    if (!st && !side) { /* detection and writing overlapped, the writing on the threads */
        st = detect_and_write(ctx, fire, &fp, kernel, fis, imgs, paths, nin, haze_ctx_threads(ctx),
                              &pr, &dcode);
        printed = st != 0; /* (its message is printed) */
    }
    for (int i = 0; i < nin && !st && side; i++) {
        cli_progress_update(&pr, 0.5 + 0.5 * i / nin, "frame %d/%d", i + 1, nin);
        st = haze_image_new(ctx, imgs[i]->width, imgs[i]->height, &out);
        if (!st)
            st = fis ? haze_edge_run_fis(ctx, fis, imgs[i], out)
                     : haze_edge_run(ctx, fire, kernel, imgs[i], out);
        if (!st) st = haze_image_save(ctx, out, paths[i]);
        if (!st && side) {
            cli_progress_clear(&pr); /* plot_edge may print a message */
            char base[1024];
            snprintf(base, sizeof base, "%s", in[i]);
            const char *slash = strrchr(base, '/');
            if ((rc = plot_edge(ctx, imgs[i], out, slash ? slash + 1 : base,
                                rules ? "rules of the model" : "FIRE", side)))
                st = HAZE_ERR_IO;
        }
        haze_image_free(out);
        out = NULL;
    }
    cli_progress_end(&pr);
    t_phase[2] = mono_s() - t_mark;
    t_mark = mono_s();
    if (!st) st = haze_outgroup_commit(ctx);
    t_phase[3] = mono_s() - t_mark;
    if (!st && json)
        print_json(strcmp(output, "-") == 0 ? stderr : stdout, ctx, imgs, nin, mono_s() - t_start,
                   t_phase);
    if (!st && made_dir) cli_info(g, "haze edge: created folder %s\n", output);
    for (int i = 0; i < nin && !st; i++) cli_info(g, "haze edge: %s -> %s\n", in[i], paths[i]);
    haze_outgroup_abort(ctx);
    if (st && made_dir) rmdir(output); /* only if still empty */
    free(paths);
    if (!rc) rc = !st ? CLI_OK : dcode ? dcode : printed ? cli_exit_code(st) : cli_fail(ctx, st);
    if (imgs)
        for (int i = 0; i < nin; i++) haze_image_free(imgs[i]);
    free(imgs);
    free(edge_secs.decode), free(edge_secs.detect), free(edge_secs.encode);
    edge_secs.decode = edge_secs.detect = edge_secs.encode = NULL;
    haze_edge_free(fire);
    haze_fis_free(fis);
    haze_ctx_free(ctx);
    return rc;
}
