/*
 * cli/mpi.h - the haze tool's few MPI calls, for `mpirun -np R haze fcm`
 * (docs/fcm.md, "Several processes (MPI)"). The library has no MPI: it gets
 * cli_mpi_allgather as its hook. Built without MPI (HAZE_MPI off), these
 * are a one-process stand-in and cli_mpi_launched() is 0.
 */
#ifndef HAZE_CLI_MPI_H
#define HAZE_CLI_MPI_H

#include <stddef.h>

/* 1 when the tool was built with MPI and this process was started by an
 * MPI launcher (its environment says so), so a plain run never calls
 * MPI_Init. */
int cli_mpi_launched(void);
/* This process's rank from the launcher's environment, before MPI_Init
 * (0 when there is none). */
int cli_mpi_env_rank(void);
/* MPI_Init: *rank, *size. 0, or the exit code of a failure (3). */
int cli_mpi_init(int *rank, int *size);
void cli_mpi_finalize(void);
/* This process's rank among the processes of its host (MPI_Comm_split_type
 * with MPI_COMM_TYPE_SHARED) and their number; 0 and 1 without MPI. 0, or
 * non-zero on failure. */
int cli_mpi_local(int *rank, int *size);
/* haze_fcm_options.allgather over MPI_COMM_WORLD (arg unused). */
int cli_mpi_allgather(void *arg, const void *mine, size_t count, void **all, size_t *total);
/*
 * Every rank's exit code so far (0: fine) and, for a failure, its message:
 * the first failing rank's code is everybody's, and rank 0 prints that
 * rank's message ("haze: MSG"). Collective. Returns the agreed code.
 */
int cli_mpi_agree(int code, const char *msg);
/* MPI_Bcast of bytes from root; 0 or non-zero on failure. */
int cli_mpi_bcast(void *buf, size_t bytes, int root);
/* Rank 0 gets every rank's `bytes` at `mine` concatenated in rank order in
 * `all` (its size the sum of them; NULL on other ranks). */
int cli_mpi_gather(const void *mine, size_t bytes, void *all);
/* Rank 0 sends rank k its counts[k] bytes from `all` (in rank order); every
 * rank gets its own in `mine`. */
int cli_mpi_scatter(const void *all, const size_t *counts, void *mine, size_t bytes);

#endif
