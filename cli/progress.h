/*
 * cli/progress.h - one progress line on stderr for long jobs, in one style
 * for every subcommand:
 *
 *   fcm: iteration 37/300  12.3 s, about 4 s left
 *
 * Silent unless stderr is a terminal and --quiet is not given; nothing is
 * drawn during the first second of a job (HAZE_PROGRESS_DELAY, seconds, read
 * here only, changes that for tests), then the line is redrawn in place
 * ('\r') at most ten times a second and cleared by cli_progress_end(), so the
 * terminal shows what it would have shown without it. Results on stdout are
 * never touched.
 */
#ifndef HAZE_CLI_PROGRESS_H
#define HAZE_CLI_PROGRESS_H

#include <pthread.h>

#include "cli.h"

typedef struct cli_progress {
    int on;          /* 0: every call is a no-op */
    int shown;       /* a line is on the screen */
    double t0;       /* start, seconds (monotonic) */
    double delay;    /* nothing before t0 + delay */
    double last;     /* time of the last redraw */
    double frac0;    /* the fraction done when the estimate started */
    double tfrac0;   /* ... and its time */
    double fracl;    /* the last fraction given */
    const char *cmd; /* "fcm", "fis eval", ... */
    int width;       /* characters of the line on the screen */
    /* a phase without steps (cli_progress_phase): a thread redraws it */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t ticker;
    int ticking;
    char phase[96];
} cli_progress;

/* Starts a job named cmd (a string that outlives p): on only when stderr is
 * a terminal and g is not quiet. */
void cli_progress_begin(cli_progress *p, const cli_global *g, const char *cmd);

/* Where the job is: `what` (printf-style, e.g. "iteration %d/%d") and the
 * fraction of the job done, in [0, 1], or a negative number when unknown (no
 * time left shown). Cheap to call often: draws at most ten times a second. */
void cli_progress_update(cli_progress *p, double done, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A phase of the job that reports no steps (the library gives no callback
 * for it, e.g. "seeding"): the line shows it with the time spent, redrawn by
 * a thread until the next update, clear or end. */
void cli_progress_phase(cli_progress *p, const char *what);

/* Clears the line (when one is shown), e.g. before other output to stderr;
 * the next update draws it again. */
void cli_progress_clear(cli_progress *p);

/* Clears the line and turns p off. */
void cli_progress_end(cli_progress *p);

/* n as a short count: 950, 3.2k, 12M, 1.5G. */
const char *cli_progress_count(char *buf, size_t cap, double n);

#endif
