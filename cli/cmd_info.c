/*
 * cli/cmd_info.c - `haze info`: what this build of haze can do here.
 */
#include <string.h>

#include <mpfr.h>

#include "cli.h"

static void help(FILE *fp) {
    fprintf(fp, "usage: haze info [--help]\n\n"
                "Prints the build options, the backends available, the GPUs (name, memory,\n"
                "multiprocessors) and the CPU threads, then the backend a context gets with\n"
                "the global options. Fails with exit code 3 if --backend cuda (or\n"
                "HAZE_BACKEND=cuda) is asked for and no GPU can be used.\n");
}

static void fmt_bytes(char *buf, size_t n, size_t bytes) {
    snprintf(buf, n, "%.1f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
}

int cmd_info(int argc, char **argv, const cli_global *g) {
    int code = cli_help_only(argc, argv, "info", help);
    if (code >= 0) return code;

    printf("haze %s\n", haze_version());
    printf("build:\n");
    printf("  CUDA backend    %s\n", haze_build_has_cuda() ? "built" : "not built");
    printf("  OpenMP          %s\n", haze_build_has_openmp() ? "yes" : "no");
    printf("  MPFR            %s\n", mpfr_get_version());
#if defined(__clang__)
    printf("  compiler        clang %s\n", __clang_version__);
#elif defined(__GNUC__)
    printf("  compiler        gcc %d.%d.%d\n", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
    int ndev = haze_device_count();
    printf("backends:\n");
    printf("  cpu             available, %d thread%s\n", haze_ctx_default_threads(),
           haze_ctx_default_threads() == 1 ? "" : "s");
    if (!haze_build_has_cuda())
        printf("  cuda            not built\n");
    else if (ndev == 0)
        printf("  cuda            built, but no GPU found on this machine\n");
    else
        printf("  cuda            available, %d device%s\n", ndev, ndev == 1 ? "" : "s");
    for (int d = 0; d < ndev; d++) {
        haze_device_info di = haze_device_info_init();
        if (haze_device_query(NULL, d, &di) != HAZE_OK) continue;
        char tot[32], fr[32];
        fmt_bytes(tot, sizeof tot, di.total_mem);
        fmt_bytes(fr, sizeof fr, di.free_mem);
        printf("  gpu %d           %s, compute %d.%d, %d SMs, %s (%s free), %.0f GB/s peak\n", d,
               di.name, di.cc_major, di.cc_minor, di.sm_count, tot, fr, di.peak_bandwidth / 1e9);
    }

    haze_ctx *ctx;
    code = cli_ctx_new(g, &ctx);
    if (code) return code;
    haze_backend b = haze_ctx_backend(ctx);
    printf("context:\n");
    if (b == HAZE_BACKEND_CUDA)
        printf("  backend         cuda (device %d)\n", haze_ctx_device(ctx));
    else
        printf("  backend         cpu (%d thread%s)%s\n", haze_ctx_threads(ctx),
               haze_ctx_threads(ctx) == 1 ? "" : "s", ndev == 0 ? ", no GPU here" : "");
    haze_ctx_free(ctx);
    return CLI_OK;
}
