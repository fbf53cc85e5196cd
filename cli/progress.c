/*
 * cli/progress.c - the progress line of long jobs (progress.h).
 */
#include "progress.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void cli_progress_begin(cli_progress *p, const cli_global *g, const char *cmd) {
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->on = !(g && g->quiet) && isatty(STDERR_FILENO);
    if (!p->on) return;
    p->delay = 1.0;
    const char *e = getenv("HAZE_PROGRESS_DELAY");
    if (e && *e) {
        char *end;
        double d = strtod(e, &end);
        if (!*end && d >= 0 && d <= 1e6) p->delay = d;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->t0 = now();
    p->last = -1e300;
    p->frac0 = -1;
}

/* "12.3 s", "4 min 05 s", "2 h 03 min" */
static void fmt_secs(char *buf, size_t cap, double s) {
    if (!(s < 359999)) s = 359999; /* 99 h 59 min at most */
    if (s < 59.5)
        snprintf(buf, cap, "%.*f s", s < 10 ? 1 : 0, s);
    else if (s < 3600)
        snprintf(buf, cap, "%d min %02d s", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, cap, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}

const char *cli_progress_count(char *buf, size_t cap, double n) {
    if (n < 1e4)
        snprintf(buf, cap, "%.0f", n);
    else if (n < 1e6)
        snprintf(buf, cap, "%.*fk", n < 1e5 ? 1 : 0, n / 1e3);
    else if (n < 1e9)
        snprintf(buf, cap, "%.*fM", n < 1e8 ? 1 : 0, n / 1e6);
    else
        snprintf(buf, cap, "%.*fG", n < 1e11 ? 1 : 0, n / 1e9);
    return buf;
}

/* Draws "cmd: what  elapsed[, about left]" when due; p->lock held. */
static void draw(cli_progress *p, double done, const char *what) {
    double t = now(), el = t - p->t0;
    /* the estimate starts at the first fraction known, again when it goes
     * back (a job's next stage) */
    if (done >= 0 && (p->frac0 < 0 || done < p->fracl)) p->frac0 = done, p->tfrac0 = t;
    if (done >= 0) p->fracl = done;
    if (el < p->delay || t - p->last < 0.095) return;
    p->last = t;
    char line[256], a[32], b[32];
    fmt_secs(a, sizeof a, el);
    int n;
    /* the rate since the first known fraction, so that set-up before it
     * (reading the file) does not count */
    if (done > p->frac0 && done <= 1 && t > p->tfrac0) {
        double left = (t - p->tfrac0) * (1 - done) / (done - p->frac0);
        fmt_secs(b, sizeof b, left);
        n = snprintf(line, sizeof line, "%s: %s  %s, about %s left", p->cmd, what, a, b);
    } else {
        n = snprintf(line, sizeof line, "%s: %s  %s", p->cmd, what, a);
    }
    if (n < 0) return;
    if (n > 79) n = 79; /* one line of a narrow terminal: '\r' must reach its start */
    line[n] = 0;
    /* pad over the rest of a longer previous line */
    fprintf(stderr, "\r%s%*s", line, p->width > n ? p->width - n : 0, "");
    fflush(stderr);
    p->width = n;
    p->shown = 1;
}

static void *tick(void *arg) {
    cli_progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (p->ticking) {
        draw(p, -1, p->phase);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100000000L;
        if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&p->wake, &p->lock, &ts);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Stops the phase's thread, if any. */
static void stop_ticker(cli_progress *p) {
    if (!p->ticking) return;
    pthread_mutex_lock(&p->lock);
    p->ticking = 0;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->ticker, NULL);
}

void cli_progress_update(cli_progress *p, double done, const char *fmt, ...) {
    if (!p->on) return;
    stop_ticker(p);
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    draw(p, done, what);
}

void cli_progress_phase(cli_progress *p, const char *what) {
    if (!p->on) return;
    stop_ticker(p);
    snprintf(p->phase, sizeof p->phase, "%s", what);
    p->ticking = 1;
    if (pthread_create(&p->ticker, NULL, tick, p) != 0) {
        p->ticking = 0; /* no thread: the phase goes unshown */
        draw(p, -1, p->phase);
    }
}

void cli_progress_clear(cli_progress *p) {
    if (!p->on) return;
    stop_ticker(p);
    if (!p->shown) return;
    fprintf(stderr, "\r%*s\r", p->width, "");
    fflush(stderr);
    p->shown = 0;
    p->width = 0;
}

void cli_progress_end(cli_progress *p) {
    if (!p->on) return;
    cli_progress_clear(p);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    p->on = 0;
}
