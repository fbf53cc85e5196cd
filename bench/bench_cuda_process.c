/*
 * bench/bench_cuda_process.c - what CUDA itself costs a process: the time
 * from the start of a process to its device context being ready, and from
 * the end of main to the end of the process (the driver tears the context
 * down as the process ends), for a bare CUDA program holding 0, 1.3 and 3 GB
 * of device memory; beside it, how long haze_ctx_new takes to return with
 * the AUTO backend and when the backend is settled. These are the fixed
 * costs of every GPU job of the command-line tool, which no kernel can
 * shorten (docs/benchmarks.md, "Whole jobs").
 *
 * Each case runs as a child process (this program again, --child), three
 * times; the table shows the fastest run's times, in seconds from the
 * parent's spawn.
 *
 * usage: bench_cuda_process
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "haze/haze.h"
#ifdef HAZE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

extern char **environ;

/* The child: the stamps of its steps on stdout, one "name seconds" a line
 * (CLOCK_MONOTONIC, the parent's clock too). */
static int child(const char *what, size_t mb) {
    printf("main %.6f\n", bench_now());
#ifdef HAZE_HAVE_CUDA
    if (strcmp(what, "cuda") == 0) {
        if (cudaFree(0) != cudaSuccess) return 2;
        printf("ready %.6f\n", bench_now());
        void *p = NULL;
        if (mb && (cudaMalloc(&p, mb << 20) != cudaSuccess || cudaMemset(p, 0, mb << 20) ||
                   cudaDeviceSynchronize() != cudaSuccess))
            return 2;
    } else {
        haze_ctx *ctx = NULL;
        if (haze_ctx_new(NULL, &ctx) != HAZE_OK) return 2;
        printf("returned %.6f\n", bench_now());
        if (haze_ctx_backend(ctx) != HAZE_BACKEND_CUDA) return 2;
        printf("ready %.6f\n", bench_now());
        haze_ctx_free(ctx);
    }
#else
    (void)what, (void)mb;
#endif
    printf("done %.6f\n", bench_now());
    fflush(stdout);
    return 0;
}

#ifdef HAZE_HAVE_CUDA
/* One run of the child: the stamps (relative to the spawn) and the end. */
typedef struct stamps {
    double ret, ready, done, end;
} stamps;

static int run(const char *self, const char *what, const char *mb, stamps *s) {
    int fd[2];
    if (pipe(fd)) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    char *argv[] = {(char *)self, "--child", (char *)what, (char *)mb, NULL};
    pid_t pid;
    const double t0 = bench_now();
    int e = posix_spawn(&pid, self, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (e) {
        close(fd[0]);
        return -1;
    }
    char buf[512];
    size_t len = 0;
    ssize_t k;
    while ((k = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)k;
    buf[len] = 0;
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    s->end = bench_now() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    s->ret = s->ready = s->done = -1;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char name[16];
        double t;
        if (sscanf(line, "%15s %lf", name, &t) != 2) continue;
        t -= t0;
        if (strcmp(name, "returned") == 0) s->ret = t;
        if (strcmp(name, "ready") == 0) s->ready = t;
        if (strcmp(name, "done") == 0) s->done = t;
    }
    return 0;
}
#endif

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child(argv[2], (size_t)strtoull(argv[3], NULL, 10));
#ifndef HAZE_HAVE_CUDA
    printf("bench_cuda_process: built without CUDA\n");
    return 0;
#else
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 1) {
        printf("bench_cuda_process: no CUDA device\n");
        return 0;
    }
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    printf("What CUDA costs a process, on %s: seconds from the spawn, fastest of 3 runs\n\n",
           p.name);
    printf("%-34s %9s %9s %9s %9s %11s\n", "process", "returned", "ready", "main end", "exited",
           "exit cost");
    const char *cases[][3] = {{"cuda", "0", "bare CUDA program, 0 MB"},
                              {"cuda", "1300", "bare CUDA program, 1.3 GB"},
                              {"cuda", "3000", "bare CUDA program, 3 GB"},
                              {"haze", "0", "haze_ctx_new (AUTO), settled"}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        stamps best = {0, 0, 0, 1e30}, s;
        for (int r = 0; r < 3; r++) {
            if (run("/proc/self/exe", cases[c][0], cases[c][1], &s)) {
                printf("%-34s failed\n", cases[c][2]);
                break;
            }
            if (s.end < best.end) best = s;
        }
        if (best.end >= 1e30) continue;
        char ret[16] = "-";
        if (best.ret >= 0) snprintf(ret, sizeof ret, "%.3f", best.ret);
        printf("%-34s %9s %9.3f %9.3f %9.3f %11.3f\n", cases[c][2], ret, best.ready, best.done,
               best.end, best.end - best.done);
    }
    printf("\nready: the device context made (cudaFree(0), or the backend settled);\n"
           "exit cost: from the end of main to the end of the process.\n");
    return 0;
#endif
}
