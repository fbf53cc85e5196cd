/*
 * cli/main.c - the haze command-line tool: global options and dispatch.
 *
 * Global options (--backend, --gpus, --threads, --quiet) may stand anywhere before a
 * "--"; they are taken out of argv before the subcommand parses the rest.
 *
 * Two things every command gets from here: SIGINT, SIGTERM, SIGHUP and
 * SIGPIPE remove the temporary output files before the process dies of the
 * signal, and a failed write to standard output (a full disk, a closed pipe
 * with SIGPIPE ignored) ends the run with exit code 3, whatever the command
 * printed it with.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

typedef struct {
    const char *name;
    cli_cmd_fn fn;
    const char *summary;
} command;

static const command commands[] = {
    {"info", cmd_info, "build options, backends, GPU and CPU of this machine"},
    {"demo", cmd_demo, "a tour of haze on embedded data"},
    /* certified fuzzy arithmetic */
    {"fuzzy", cmd_fuzzy, "certified fuzzy and interval arithmetic: haze fuzzy eval EXPR"},

    /* fuzzy inference and edge detection */
    {"fis", cmd_fis, "fuzzy inference with .fis and .fll models (info, eval, surface, convert)"},
    {"edge", cmd_edge, "FIRE fuzzy edge detection of images"},

    /* fuzzy c-means */
    {"fcm", cmd_fcm, "fuzzy c-means clustering (Euclidean or Gustafson-Kessel)"},

    /* neuro-fuzzy network */
    {"fnn", cmd_fnn, "SONFIN neuro-fuzzy network: train, predict, info, export"},

    /* rounding-error analysis */
    {"prec", cmd_prec, "static rounding-error analysis of a Gappa or FPCore script"},

};

static void usage(FILE *fp) {
    fprintf(fp,
            "usage: haze [--backend auto|cpu|cuda] [--gpus all|N|LIST] [--threads N] [--quiet]\n"
            "            COMMAND [ARGS]\n"
            "       haze --help | --version\n\n"
            "Fuzzy computing on CPU and GPU: certified interval and fuzzy arithmetic,\n"
            "fuzzy inference, fuzzy c-means, neuro-fuzzy networks, rounding-error analysis.\n\n"
            "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(fp, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp, "\nGlobal options:\n"
                "  --backend B   auto (default: GPU if present), cpu or cuda; or set HAZE_BACKEND\n"
                "  --gpus G      the GPUs that fcm, fis eval and edge share their work over, in\n"
                "                one process: all, the first N, or a list of device ids such\n"
                "                as 0,2 (one id: 3,); other commands run on the first; or set\n"
                "                HAZE_GPUS\n"
                "  --threads N   CPU threads at most (default: the cores no other task is\n"
                "                running on; or set HAZE_THREADS)\n"
                "  --quiet       no progress output\n"
                "  --help        this text; 'haze help COMMAND' or 'haze COMMAND --help'\n"
                "                for a command\n"
                "  --version     the version\n\n"
                "Exit codes: 0 success, 1 usage error, 2 bad input, 3 runtime or device error\n"
                "(a failed write to standard output included), 4 'haze prec': a bound not\n"
                "proved.\n");
}

/* Removes global options from argv; returns the new argc or -1 on error. */
static int take_globals(int argc, char **argv, cli_global *g, int *gpus_given) {
    int out = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            while (i < argc) argv[out++] = argv[i++];
            break;
        }
        const char *val = NULL;
        int is_backend = 0, is_threads = 0;
        if (strncmp(a, "--gpus", 6) == 0 && (a[6] == '\0' || a[6] == '=')) {
            if (a[6] == '=')
                val = a + 7;
            else if (i + 1 < argc)
                val = argv[++i];
            else {
                cli_usage_error(NULL, "option %s needs a value", a);
                return -1;
            }
            if (cli_gpus_parse(val, "--gpus", g)) return -1;
            *gpus_given = 1;
            continue;
        }
        if (strncmp(a, "--backend", 9) == 0 && (a[9] == '\0' || a[9] == '='))
            is_backend = 1;
        else if (strncmp(a, "--threads", 9) == 0 && (a[9] == '\0' || a[9] == '='))
            is_threads = 1;
        if (is_backend || is_threads) {
            if (a[9] == '=')
                val = a + 10;
            else if (i + 1 < argc)
                val = argv[++i];
            else {
                cli_usage_error(NULL, "option %s needs a value", a);
                return -1;
            }
            if (is_backend && haze_backend_parse(NULL, val, &g->backend) != HAZE_OK) {
                cli_usage_error(NULL, "--backend: expected auto, cpu or cuda, got '%s'", val);
                return -1;
            }
            long n;
            if (is_threads) {
                if (!cli_parse_int(val, 1, 4096, &n)) {
                    cli_usage_error(NULL, "--threads: expected a number from 1 to 4096, got '%s'",
                                    val);
                    return -1;
                }
                g->threads = (int)n;
            }
            continue;
        }
        if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            g->quiet = 1;
            continue;
        }
        argv[out++] = argv[i];
    }
    argv[out] = NULL;
    return out;
}

/* Removes the temporaries of unfinished outputs, then dies of the signal as
 * if nothing had caught it (the shell sees the usual 128 + N). */
static void on_fatal_signal(int sig) {
    haze_outfile_remove_temps();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void catch_fatal_signals(void) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        /* a signal the caller ignores (nohup, a background job) stays ignored */
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* The exit code once standard output is flushed and closed: 3 when any
 * write to it failed (the message is printed unless the command already
 * failed and said why). */
static int close_stdout(int rc) {
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad) return rc;
    if (rc == CLI_OK || rc == CLI_NOT_PROVED)
        cli_errorf("error writing to standard output: %s", strerror(e ? e : EIO));
    return CLI_RUNTIME;
}

/* `haze help COMMAND [SUB]`: the command's own --help. */
static int help_command(int argc, char **argv, const cli_global *g) {
    if (argc < 3) {
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (strcmp(argv[2], commands[i].name) != 0) continue;
        char **av = malloc(sizeof *av * (size_t)argc);
        if (!av) {
            cli_errorf("out of memory");
            return CLI_RUNTIME;
        }
        int n = 0;
        for (int k = 2; k < argc; k++) av[n++] = argv[k];
        av[n++] = "--help";
        av[n] = NULL;
        int rc = commands[i].fn(n, av, g);
        free(av);
        return rc;
    }
    return cli_usage_error(NULL, "help: unknown command '%s'", argv[2]);
}

/*
 * The thread count when neither --threads, HAZE_THREADS nor OMP_NUM_THREADS
 * names one: the cores that no other task is running on at start (the
 * running tasks of /proc/loadavg, this one excluded), at least 1, at most
 * the library's default (all cores). On a busy machine a second thread waits
 * for a core at every barrier and makes a job slower, not faster
 * (docs/benchmarks.md, "CPU threads"). The library then gives each parallel
 * region fewer threads still when its work is small.
 */
static int free_cores(void) {
    int all = haze_ctx_default_threads();
#if defined(__linux__)
    const char *e1 = getenv("HAZE_THREADS"), *e2 = getenv("OMP_NUM_THREADS");
    if ((e1 && *e1) || (e2 && *e2) || all <= 1) return all;
    FILE *fp = fopen("/proc/loadavg", "r");
    if (!fp) return all;
    double l1, l5, l15;
    int running = 0, tasks = 0;
    int ok = fscanf(fp, "%lf %lf %lf %d/%d", &l1, &l5, &l15, &running, &tasks) == 5;
    fclose(fp);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (!ok || running < 1 || cpus < 1) return all;
    long n = cpus - (running - 1);
    return n < 1 ? 1 : n < all ? (int)n : all;
#else
    return all;
#endif
}

static int run(int argc, char **argv) {
    cli_global g;
    memset(&g, 0, sizeof g);
    g.backend = HAZE_BACKEND_AUTO;
    g.argv0 = argv[0];
    int gpus_given = 0;
    argc = take_globals(argc, argv, &g, &gpus_given);
    if (argc < 0) return CLI_USAGE;
    if (gpus_given && g.backend == HAZE_BACKEND_CPU)
        return cli_usage_error(NULL, "--gpus runs on GPUs: it cannot go with --backend cpu");
    /* HAZE_GPUS: as --gpus, unless the backend is the CPU's (by --backend or
     * HAZE_BACKEND) */
    const char *eg = getenv("HAZE_GPUS"), *eb = getenv("HAZE_BACKEND");
    haze_backend envb = HAZE_BACKEND_AUTO;
    if (eb && haze_backend_parse(NULL, eb, &envb) != HAZE_OK) envb = HAZE_BACKEND_AUTO;
    if (!gpus_given && eg && *eg && g.backend != HAZE_BACKEND_CPU &&
        !(g.backend == HAZE_BACKEND_AUTO && envb == HAZE_BACKEND_CPU) &&
        cli_gpus_parse(eg, "HAZE_GPUS", &g))
        return CLI_USAGE;
    if (g.threads == 0) g.threads = free_cores();
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0) return help_command(argc, argv, &g);
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        printf("haze %s%s\n", haze_version(), haze_build_has_cuda() ? " (with CUDA)" : "");
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(cmd, commands[i].name) == 0) return commands[i].fn(argc - 1, argv + 1, &g);
    if (cmd[0] == '-') return cli_usage_error(NULL, "unknown option '%s'", cmd);
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
}

/*
 * OpenMP's waiting policy. libgomp's idle threads spin (about 300,000 rounds)
 * before they sleep, which on a busy machine takes the core from the threads
 * doing the work: on a loaded 2-core machine `haze prec` ran 5-12 times slower
 * on two threads than on one (docs/benchmarks.md, "CPU threads"). libgomp
 * reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, when it is loaded, before
 * main, so when the user set neither and more than one thread may run,
 * haze sets OMP_WAIT_POLICY=passive and runs itself again (Linux; the cost
 * of loading the program once more). Nothing changes when either is set, so
 * the choice stays the user's.
 */
static void passive_wait(char **argv) {
#if defined(__linux__)
    if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT")) return;
    /* one thread (--threads 1, HAZE_THREADS=1, one free core): nothing waits */
    int given = 0, one = 0;
    for (int i = 1; argv[i] && strcmp(argv[i], "--") != 0; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--threads") == 0 && argv[i + 1])
            v = argv[++i];
        else if (strncmp(argv[i], "--threads=", 10) == 0)
            v = argv[i] + 10;
        if (v) given = 1, one = strcmp(v, "1") == 0;
    }
    if (!given) one = free_cores() <= 1;
    if (one) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 0) != 0) return;
    execv("/proc/self/exe", argv);
    /* no /proc or the binary is gone: go on with libgomp's default */
#else
    (void)argv;
#endif
}

int main(int argc, char **argv) {
    passive_wait(argv);
    catch_fatal_signals();
    return close_stdout(run(argc, argv));
}
