/*
 * cli/mpi.c - the haze tool's MPI calls (cli/mpi.h): start and stop, the
 * all-gather the library's fit over several processes runs on, the
 * agreement on an exit code, and moving rows between rank 0 and the others.
 * Without MPI (HAZE_WITH_MPI undefined) a one-process stand-in.
 */
#include "mpi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef HAZE_WITH_MPI
#include <limits.h>
#include <mpi.h>

/* Open MPI, MPICH and Slurm's PMI set these in every process they start. */
static const char *const launch_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                          "PMI_SIZE"};

int cli_mpi_launched(void) {
    for (size_t k = 0; k < sizeof launch_vars / sizeof *launch_vars; k++)
        if (getenv(launch_vars[k])) return 1;
    return 0;
}

int cli_mpi_env_rank(void) {
    const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
        const char *s = getenv(vars[k]);
        if (s) return atoi(s);
    }
    return 0;
}

int cli_mpi_init(int *rank, int *size) {
    int up = 0;
    MPI_Initialized(&up);
    if (!up && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        cli_errorf("MPI_Init failed");
        return CLI_RUNTIME;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return CLI_OK;
}

void cli_mpi_finalize(void) {
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Finalize();
}

int cli_mpi_local(int *rank, int *size) {
    MPI_Comm host;
    *rank = 0;
    *size = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) !=
        MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(host, rank);
    MPI_Comm_size(host, size);
    MPI_Comm_free(&host);
    return 0;
}

/* Every rank's count (as 64 bits), then the bytes: Allgatherv counts in int. */
int cli_mpi_allgather(void *arg, const void *mine, size_t count, void **all, size_t *total) {
    (void)arg;
    *all = NULL;
    *total = 0;
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long long c = count, *counts = malloc((size_t)size * sizeof *counts);
    int *ic = malloc((size_t)size * sizeof *ic), *disp = malloc((size_t)size * sizeof *disp);
    int rc = !counts || !ic || !disp;
    /* the counts go round whatever happened here, so that no rank waits */
    if (MPI_Allgather(&c, 1, MPI_UNSIGNED_LONG_LONG, counts ? counts : &c, counts ? 1 : 0,
                      MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = 1;
    int bad = rc;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        free(counts), free(ic), free(disp);
        return 1;
    }
    unsigned long long t = 0;
    for (int k = 0; k < size; k++) {
        if (counts[k] > (unsigned long long)INT_MAX - t) { /* the same on every rank */
            free(counts), free(ic), free(disp);
            return 2;
        }
        ic[k] = (int)counts[k];
        disp[k] = (int)t;
        t += counts[k];
    }
    unsigned char *b = malloc(t ? (size_t)t : 1);
    bad = !b;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) {
        free(b), free(counts), free(ic), free(disp);
        return 1;
    }
    rc = MPI_Allgatherv(mine, (int)count, MPI_BYTE, b, ic, disp, MPI_BYTE, MPI_COMM_WORLD) !=
         MPI_SUCCESS;
    free(counts), free(ic), free(disp);
    if (rc) {
        free(b);
        return 1;
    }
    *all = b;
    *total = (size_t)t;
    return 0;
}

int cli_mpi_agree(int code, const char *msg) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* the first failing rank: min over ranks of (failing ? rank : size) */
    int first = code ? rank : size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == size) return CLI_OK;
    int head[2] = {code, msg ? (int)strlen(msg) : 0};
    MPI_Bcast(head, 2, MPI_INT, first, MPI_COMM_WORLD);
    char *text = malloc((size_t)head[1] + 1);
    char *buf = rank == first ? (char *)msg : text;
    if (head[1] > 0) {
        /* a rank without memory for it still takes part */
        char dummy[1];
        MPI_Bcast(buf ? buf : dummy, buf ? head[1] : 0, MPI_CHAR, first, MPI_COMM_WORLD);
    }
    if (rank == 0 && head[1] > 0 && (rank == first ? msg : text)) {
        const char *s = rank == first ? msg : text;
        fprintf(stderr, "haze: %.*s\n", head[1], s);
    }
    free(text);
    return head[0];
}

int cli_mpi_bcast(void *buf, size_t bytes, int root) {
    for (size_t o = 0; o < bytes;) {
        const size_t n = bytes - o < (1u << 30) ? bytes - o : (1u << 30);
        if (MPI_Bcast((char *)buf + o, (int)n, MPI_BYTE, root, MPI_COMM_WORLD) != MPI_SUCCESS)
            return 1;
        o += n;
    }
    return 0;
}

/* Chunks of at most 1 GiB: MPI counts are int. */
static int send_bytes(const void *p, size_t bytes, int to) {
    for (size_t o = 0; o < bytes;) {
        const size_t n = bytes - o < (1u << 30) ? bytes - o : (1u << 30);
        if (MPI_Send((const char *)p + o, (int)n, MPI_BYTE, to, 7, MPI_COMM_WORLD) != MPI_SUCCESS)
            return 1;
        o += n;
    }
    return 0;
}

static int recv_bytes(void *p, size_t bytes, int from) {
    for (size_t o = 0; o < bytes;) {
        const size_t n = bytes - o < (1u << 30) ? bytes - o : (1u << 30);
        if (MPI_Recv((char *)p + o, (int)n, MPI_BYTE, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS)
            return 1;
        o += n;
    }
    return 0;
}

int cli_mpi_gather(const void *mine, size_t bytes, void *all) {
    int rank = 0, size = 1, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned long long b = bytes;
    if (rank != 0) {
        if (MPI_Send(&b, 1, MPI_UNSIGNED_LONG_LONG, 0, 6, MPI_COMM_WORLD) != MPI_SUCCESS) return 1;
        return send_bytes(mine, bytes, 0);
    }
    memcpy(all, mine, bytes);
    size_t o = bytes;
    for (int k = 1; k < size; k++) {
        if (MPI_Recv(&b, 1, MPI_UNSIGNED_LONG_LONG, k, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS)
            return 1;
        rc |= recv_bytes((char *)all + o, (size_t)b, k);
        o += (size_t)b;
    }
    return rc;
}

int cli_mpi_scatter(const void *all, const size_t *counts, void *mine, size_t bytes) {
    int rank = 0, size = 1, rc = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0) return recv_bytes(mine, bytes, 0);
    memcpy(mine, all, counts[0]);
    size_t o = counts[0];
    for (int k = 1; k < size; k++) {
        rc |= send_bytes((const char *)all + o, counts[k], k);
        o += counts[k];
    }
    return rc;
}

#else /* one process */

int cli_mpi_launched(void) {
    return 0;
}
int cli_mpi_env_rank(void) {
    return 0;
}
int cli_mpi_init(int *rank, int *size) {
    *rank = 0;
    *size = 1;
    return CLI_OK;
}
void cli_mpi_finalize(void) {}
int cli_mpi_local(int *rank, int *size) {
    *rank = 0;
    *size = 1;
    return 0;
}
int cli_mpi_allgather(void *arg, const void *mine, size_t count, void **all, size_t *total) {
    (void)arg;
    *all = malloc(count ? count : 1);
    if (!*all) return 1;
    memcpy(*all, mine, count);
    *total = count;
    return 0;
}
int cli_mpi_agree(int code, const char *msg) {
    if (code && msg && *msg) cli_errorf("%s", msg);
    return code;
}
int cli_mpi_bcast(void *buf, size_t bytes, int root) {
    (void)buf, (void)bytes, (void)root;
    return 0;
}
int cli_mpi_gather(const void *mine, size_t bytes, void *all) {
    memcpy(all, mine, bytes);
    return 0;
}
int cli_mpi_scatter(const void *all, const size_t *counts, void *mine, size_t bytes) {
    (void)bytes;
    memcpy(mine, all, counts[0]);
    return 0;
}

#endif
