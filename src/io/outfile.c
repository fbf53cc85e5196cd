/*
 * src/io/outfile.c - output files that appear whole or not at all, groups of
 * outputs that land together, and whole-file reads.
 *
 * A result for a regular file is written to a temporary file in the target's
 * own folder (so the final rename(2) stays on one file system and is
 * atomic), flushed and closed, and only then renamed over the target. A
 * failure at any step removes the temporary and leaves an existing target
 * untouched, so a run that fails or is killed never leaves a file cut short
 * under the target's name. The temporary has a short name of its own
 * (".haze-XXXXXX.tmp"), so any name the folder accepts can be an output.
 *
 * The temporary is not synced before the rename unless HAZE_SYNC=1 asks for
 * it: like sort -o, gzip, cp and numpy.save, which do not sync either, a
 * result is as safe against a power failure as the file system makes a
 * fresh file (ext4, in its default modes, commits a rename over another
 * file only with the new file's data). fsync(2) waits for the disk: 0.26 s of a 190 MB CSV result
 * on the development machine, where the whole `haze fis eval` job that made
 * it takes about 1 s on a 16-core host. HAZE_SYNC=1 syncs each temporary
 * before its rename, for outputs that must survive a power failure whole
 * once the command has returned.
 *
 * What is not a regular file is never replaced: a symbolic link is followed
 * and its target rewritten (the link stays), and a character device, FIFO or
 * other special file is written straight through ("-o /dev/null" stays the
 * device). A new file gets 0666 less the umask, as open(2) would give it; a
 * rewritten file keeps its mode (and, where allowed, its owner).
 *
 * Every live temporary is listed in a process-wide table that
 * haze_outfile_remove_temps() walks with nothing but atomic loads and
 * unlink(2), so a signal handler may call it. Old tables are never freed
 * (they are small, grow by doubling and stay linked from the new one), so a
 * handler that runs while the table grows still reads valid memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "haze/io.h"
#include "io/io_types.h"

/* ------------------------------------------------ the table of temporaries */

typedef struct temp_table {
    struct temp_table *prev; /* the table this one replaced, kept (see above) */
    size_t cap;
    _Atomic(char *) slot[];
} temp_table;

static _Atomic(temp_table *) temps;
static pthread_mutex_t temps_lock = PTHREAD_MUTEX_INITIALIZER;

/* Lists a temporary file; returns its slot, or -1 when memory ran out (the
 * file is then simply not removed by a signal). */
static long temp_register(const char *name) {
    char *copy = strdup(name);
    if (!copy) return -1;
    pthread_mutex_lock(&temps_lock);
    temp_table *t = atomic_load(&temps);
    size_t i = 0;
    if (t)
        while (i < t->cap && atomic_load(&t->slot[i])) i++;
    if (!t || i == t->cap) {
        size_t cap = t ? 2 * t->cap : 16;
        temp_table *n = calloc(1, sizeof *n + cap * sizeof n->slot[0]);
        if (!n) {
            pthread_mutex_unlock(&temps_lock);
            free(copy);
            return -1;
        }
        n->cap = cap;
        n->prev = t;
        for (size_t j = 0; t && j < t->cap; j++) atomic_init(&n->slot[j], atomic_load(&t->slot[j]));
        for (size_t j = t ? t->cap : 0; j < cap; j++) atomic_init(&n->slot[j], NULL);
        atomic_store(&temps, n); /* the old table stays allocated: see the header */
        t = n;
    }
    atomic_store(&t->slot[i], copy);
    pthread_mutex_unlock(&temps_lock);
    return (long)i;
}

static void temp_unregister(long i) {
    if (i < 0) return;
    pthread_mutex_lock(&temps_lock);
    temp_table *t = atomic_load(&temps);
    char *p = atomic_exchange(&t->slot[i], NULL);
    pthread_mutex_unlock(&temps_lock);
    free(p);
}

void haze_outfile_remove_temps(void) {
    temp_table *t = atomic_load(&temps);
    if (!t) return;
    for (size_t i = 0; i < t->cap; i++) {
        char *p = atomic_load(&t->slot[i]);
        if (p) unlink(p);
    }
}

/* ------------------------------------------------------- names and targets */

static char *dir_of(const char *path) {
    const char *s = strrchr(path, '/');
    if (!s) return strdup(".");
    if (s == path) return strdup("/");
    return strndup(path, (size_t)(s - path));
}

/*
 * Follows symbolic links from `path` to the file they end at (which need not
 * exist yet). Returns a new string, or NULL with errno set (ELOOP for a
 * cycle).
 */
static char *resolve_links(const char *path) {
    char *p = strdup(path);
    for (int hops = 0; p; hops++) {
        struct stat sb;
        if (lstat(p, &sb) != 0 || !S_ISLNK(sb.st_mode)) return p;
        if (hops == 40) {
            free(p);
            errno = ELOOP;
            return NULL;
        }
        char link[PATH_MAX];
        ssize_t n = readlink(p, link, sizeof link - 1);
        if (n < 0) {
            free(p);
            return NULL;
        }
        link[n] = '\0';
        char *next;
        if (link[0] == '/' || !strchr(p, '/')) {
            next = strdup(link);
        } else {
            char *d = dir_of(p);
            size_t len = d ? strlen(d) + (size_t)n + 2 : 0;
            next = d ? malloc(len) : NULL;
            if (next) snprintf(next, len, "%s/%s", d, link);
            free(d);
        }
        free(p);
        p = next;
    }
    return NULL;
}

/*
 * Creates a new temporary file in `dir`: O_EXCL with a random name, so open(2)
 * applies the umask to `mode` as it does for the final file.
 */
static int make_temp(const char *dir, mode_t mode, char **name) {
    static atomic_uint counter;
    size_t len = strlen(dir) + 32;
    char *t = malloc(len);
    if (!t) {
        errno = ENOMEM;
        return -1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
    for (int tries = 0; tries < 100; tries++) {
        x += 0x9E3779B97F4A7C15ull * (atomic_fetch_add(&counter, 1) + 1);
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
        char r[7];
        for (int k = 0; k < 6; k++, z /= 36) r[k] = digits[z % 36];
        r[6] = '\0';
        snprintf(t, len, "%s/.haze-%s.tmp", dir, r);
        int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd >= 0) {
            *name = t;
            return fd;
        }
        if (errno != EEXIST) break;
    }
    int e = errno;
    free(t);
    errno = e;
    return -1;
}

/* A name for a target that two spellings of one file share: the real path of
 * its folder and its own name. */
static char *target_key(const char *target) {
    char *d = dir_of(target), *real = d ? realpath(d, NULL) : NULL;
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    size_t len = real ? strlen(real) + strlen(base) + 2 : 0;
    char *key = real ? malloc(len) : NULL;
    if (key) snprintf(key, len, "%s/%s", real, base);
    free(d);
    free(real);
    return key;
}

/* ------------------------------------------------------------ output groups */

enum { ENTRY_RESERVED, ENTRY_OPEN, ENTRY_WRITTEN, ENTRY_DONE };

typedef struct group_entry {
    char *path;   /* as given, for messages */
    char *target; /* links followed: what the temporary is renamed to */
    char *key;    /* target_key(target) */
    char *tmp;
    long slot; /* in the table of temporaries */
    dev_t dev;
    ino_t ino;
    int state;
} group_entry;

/* The group's entries change under `lock`: threads that share the context
 * may write the group's files at once (haze edge encodes its frames on
 * several threads); opening, committing and the group's own calls are not
 * meant to overlap with haze_outgroup_commit or _abort. */
typedef struct haze__outgroup {
    group_entry *v;
    size_t n, cap;
    pthread_mutex_t lock;
} outgroup;

static void entry_drop(group_entry *e) {
    if (e->tmp && e->state != ENTRY_DONE) unlink(e->tmp);
    temp_unregister(e->slot);
    free(e->path);
    free(e->target);
    free(e->key);
    free(e->tmp);
    memset(e, 0, sizeof *e);
    e->slot = -1;
    e->state = ENTRY_DONE;
}

static void group_free(outgroup *g) {
    if (!g) return;
    for (size_t i = 0; i < g->n; i++) entry_drop(&g->v[i]);
    free(g->v);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/*
 * The context's open output group lives in its io state block (core.h's
 * per-context state), so that freeing the context removes the group and its
 * temporaries without the core knowing about files.
 */
typedef struct io_state {
    outgroup *group;
} io_state;

static void io_state_destroy(void *p) {
    group_free(((io_state *)p)->group);
}

/* The context's io state, NULL when out of memory (then no group is open:
 * opening one made the block). */
static io_state *io_of(haze_ctx *ctx) {
    return ctx ? haze__ctx_state(ctx, HAZE__STATE_IO, sizeof(io_state), io_state_destroy) : NULL;
}

static outgroup *group_of(haze_ctx *ctx) {
    io_state *s = io_of(ctx);
    return s ? s->group : NULL;
}

/* Removes the context's open output group, if any, with its temporaries. */
static void group_release(haze_ctx *ctx) {
    io_state *s = io_of(ctx);
    if (!s) return;
    group_free(s->group);
    s->group = NULL;
}

int haze_outgroup_begin(haze_ctx *ctx) {
    if (!ctx) return HAZE_ERR_INVALID;
    io_state *s = io_of(ctx);
    if (!s) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    if (s->group) return haze__error(ctx, HAZE_ERR_INVALID, "an output group is already open");
    outgroup *g = calloc(1, sizeof(outgroup));
    if (!g) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&g->lock, NULL);
    s->group = g;
    return HAZE_OK;
}

static group_entry *group_find(outgroup *g, const char *key) {
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i].state != ENTRY_DONE && g->v[i].key && strcmp(g->v[i].key, key) == 0)
            return &g->v[i];
    return NULL;
}

static group_entry *group_push(haze_ctx *ctx, outgroup *g) {
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        group_entry *v = realloc(g->v, cap * sizeof *v);
        if (!v) {
            haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
            return NULL;
        }
        g->v = v;
        g->cap = cap;
    }
    group_entry *e = &g->v[g->n++];
    memset(e, 0, sizeof *e);
    e->slot = -1;
    e->state = ENTRY_DONE;
    return e;
}

/* ------------------------------------------------------------ output files */

static int fail_io(haze_ctx *ctx, const char *path, const char *what, int e) {
    if (e == ENOMEM) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    return haze__error(ctx, HAZE_ERR_IO, "%s: %s: %s", path, what, strerror(e));
}

/*
 * Opens the temporary for a regular-file target (links already followed):
 * with the target's mode and owner when it exists, else 0666 less the umask.
 */
static int open_temp(haze_ctx *ctx, const char *path, const char *target, const struct stat *old,
                     char **tmp) {
    char *dir = dir_of(target);
    if (!dir) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    int fd = make_temp(dir, old ? 0600 : 0666, tmp);
    int e = errno;
    if (fd < 0) {
        int st;
        if (e == ENOENT || e == ENOTDIR)
            st = haze__error(ctx, HAZE_ERR_IO,
                             "%s: cannot create output file: folder '%s' does not exist "
                             "(create it first)",
                             path, dir);
        else
            st = fail_io(ctx, path, "cannot create output file", e);
        free(dir);
        return st;
    }
    free(dir);
    if (old) {
        /* keep the owner where allowed (root, or a group of ours), then the
         * mode; a failed chown leaves the file ours, which is what a new
         * file would be */
        if ((old->st_uid != geteuid() || old->st_gid != getegid()) &&
            fchown(fd, old->st_uid, old->st_gid) != 0)
            (void)!fchown(fd, (uid_t)-1, old->st_gid);
        (void)!fchmod(fd, old->st_mode & 07777);
    }
    return fd;
}

int haze__outfile_open(haze_ctx *ctx, haze_outfile *f, const char *path) {
    if (!f) return haze__error(ctx, HAZE_ERR_INVALID, "haze__outfile_open: NULL argument");
    memset(f, 0, sizeof *f);
    f->slot = -1;
    if (!path || !*path) return haze__error(ctx, HAZE_ERR_INVALID, "empty output path");
    if (strcmp(path, "-") == 0) {
        f->fp = stdout;
        return HAZE_OK;
    }
    f->path = strdup(path);
    f->target = resolve_links(path);
    if (!f->path || !f->target) {
        int e = f->path ? errno : ENOMEM;
        haze__outfile_abort(f);
        if (e == ENOMEM) return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        return fail_io(ctx, path, "cannot follow the link", e);
    }
    struct stat sb;
    int exists = stat(f->target, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode)) {
        haze__outfile_abort(f);
        return haze__error(ctx, HAZE_ERR_IO, "%s: is a folder, not a file", path);
    }
    if (exists && !S_ISREG(sb.st_mode)) {
        /* a device, FIFO or socket: written through, never replaced */
        int fd = open(f->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        int e = errno;
        f->fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (!f->fp) {
            if (fd >= 0) close(fd);
            haze__outfile_abort(f);
            return fail_io(ctx, path, "cannot open output", e);
        }
        return HAZE_OK;
    }
    outgroup *g = group_of(ctx);
    group_entry *ge = NULL;
    int fd = -1;
    if (g) {
        char *key = target_key(f->target);
        if (!key) { /* else a reserved entry would be missed, then found twice */
            haze__outfile_abort(f);
            return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
        }
        pthread_mutex_lock(&g->lock);
        ge = group_find(g, key);
        free(key);
        if (ge && ge->state != ENTRY_RESERVED) {
            pthread_mutex_unlock(&g->lock);
            haze__outfile_abort(f);
            return haze__error(ctx, HAZE_ERR_INVALID, "%s: written twice as an output", path);
        }
        if (ge) {
            /* the temporary made by haze_outgroup_add, if it is still ours */
            fd = open(ge->tmp, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
            struct stat tb;
            if (fd >= 0 && (fstat(fd, &tb) != 0 || tb.st_dev != ge->dev || tb.st_ino != ge->ino)) {
                close(fd);
                fd = -1;
                errno = EEXIST;
            }
            if (fd < 0) {
                int e = errno;
                pthread_mutex_unlock(&g->lock);
                haze__outfile_abort(f);
                return fail_io(ctx, path, "temporary output file changed", e);
            }
            f->tmp = strdup(ge->tmp);
            if (!f->tmp) {
                close(fd);
                pthread_mutex_unlock(&g->lock);
                haze__outfile_abort(f);
                return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
            }
            ge->state = ENTRY_OPEN;
            f->group_index = (long)(ge - g->v) + 1;
        }
        pthread_mutex_unlock(&g->lock);
    }
    if (fd < 0) {
        int st = open_temp(ctx, path, f->target, exists ? &sb : NULL, &f->tmp);
        if (st < 0) {
            haze__outfile_abort(f);
            return st;
        }
        fd = st;
        f->slot = temp_register(f->tmp);
    }
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        int e = errno;
        close(fd);
        haze__outfile_abort(f);
        return fail_io(ctx, path, "cannot open output file", e);
    }
    return HAZE_OK;
}

/* HAZE_SYNC=1 in the environment: temporaries are synced before their
 * rename (see the top of this file). */
static int sync_asked(void) {
    const char *s = getenv("HAZE_SYNC");
    return s && strcmp(s, "1") == 0;
}

/* Flushes, syncs (a temporary, with HAZE_SYNC=1) and closes f->fp; 0 or an
 * errno value. */
static int finish_stream(haze_outfile *f) {
    int e = 0;
    if (fflush(f->fp) != 0 || ferror(f->fp)) e = errno ? errno : EIO;
    if (!e && f->tmp && sync_asked() && fsync(fileno(f->fp)) != 0 && errno != EINVAL) e = errno;
    if (fclose(f->fp) != 0 && !e) e = errno;
    f->fp = NULL;
    return e;
}

static void outfile_abort(haze_ctx *ctx, haze_outfile *f);

static void outfile_clear(haze_outfile *f) {
    free(f->tmp);
    free(f->path);
    free(f->target);
    memset(f, 0, sizeof *f);
    f->slot = -1;
}

int haze__outfile_commit(haze_ctx *ctx, haze_outfile *f) {
    if (!f || !f->fp) return haze__error(ctx, HAZE_ERR_INVALID, "output file is not open");
    if (f->fp == stdout) {
        int bad = fflush(stdout) != 0 || ferror(stdout);
        f->fp = NULL;
        return bad ? haze__error(ctx, HAZE_ERR_IO, "error writing to standard output") : HAZE_OK;
    }
    int e = finish_stream(f);
    outgroup *g = group_of(ctx);
    if (!e && f->tmp && g) {
        /* in a group: the temporary waits for haze_outgroup_commit */
        pthread_mutex_lock(&g->lock);
        group_entry *ge = f->group_index ? &g->v[f->group_index - 1] : NULL;
        if (!ge) {
            char *key = target_key(f->target);
            if (key && group_find(g, key)) {
                pthread_mutex_unlock(&g->lock);
                free(key);
                haze__outfile_abort(f);
                return haze__error(ctx, HAZE_ERR_INVALID, "%s: written twice as an output",
                                   f->path ? f->path : "output");
            }
            ge = key ? group_push(ctx, g) : NULL;
            if (!ge) {
                pthread_mutex_unlock(&g->lock);
                free(key);
                haze__outfile_abort(f);
                return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
            }
            ge->key = key;
            ge->path = f->path;
            ge->target = f->target;
            ge->tmp = f->tmp;
            ge->slot = f->slot;
            f->path = f->target = f->tmp = NULL;
            f->slot = -1;
        }
        ge->state = ENTRY_WRITTEN;
        pthread_mutex_unlock(&g->lock);
        outfile_clear(f);
        return HAZE_OK;
    }
    if (!e && f->tmp && rename(f->tmp, f->target) != 0) e = errno;
    if (e) {
        int st = haze__error(ctx, HAZE_ERR_IO, "%s: cannot write output: %s",
                             f->path ? f->path : "output", strerror(e));
        outfile_abort(ctx, f);
        return st;
    }
    temp_unregister(f->slot);
    outfile_clear(f);
    return HAZE_OK;
}

static void outfile_abort(haze_ctx *ctx, haze_outfile *f) {
    if (!f) return;
    if (f->fp && f->fp != stdout) fclose(f->fp);
    f->fp = NULL;
    outgroup *g = group_of(ctx);
    if (g && f->group_index > 0) {
        pthread_mutex_lock(&g->lock);
        if ((size_t)f->group_index <= g->n) entry_drop(&g->v[f->group_index - 1]);
        pthread_mutex_unlock(&g->lock);
    } else if (f->tmp) {
        unlink(f->tmp);
        temp_unregister(f->slot);
    }
    outfile_clear(f);
}

void haze__outfile_abort(haze_outfile *f) {
    if (!f) return;
    if (f->group_index > 0) {
        /* the group entry keeps the temporary; the group's commit or abort
         * (or the context's end) decides */
        if (f->fp && f->fp != stdout) fclose(f->fp);
        f->fp = NULL;
        f->slot = -1;
        outfile_clear(f);
        return;
    }
    outfile_abort(NULL, f);
}

int haze_outgroup_add(haze_ctx *ctx, const char *path) {
    if (!ctx || !path)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_outgroup_add: NULL argument");
    outgroup *g = group_of(ctx);
    if (!g) return haze__error(ctx, HAZE_ERR_INVALID, "%s: no output group is open", path);
    if (!*path) return haze__error(ctx, HAZE_ERR_INVALID, "empty output path");
    if (strcmp(path, "-") == 0) return HAZE_OK;
    char *target = resolve_links(path);
    if (!target) return fail_io(ctx, path, "cannot follow the link", errno);
    struct stat sb;
    int exists = stat(target, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode)) {
        free(target);
        return haze__error(ctx, HAZE_ERR_IO, "%s: is a folder, not a file", path);
    }
    if (exists && !S_ISREG(sb.st_mode)) {
        free(target);
        return HAZE_OK; /* written through when it comes */
    }
    char *tmp = NULL;
    int fd = open_temp(ctx, path, target, exists ? &sb : NULL, &tmp);
    if (fd < 0) {
        free(target);
        return fd;
    }
    long slot = temp_register(tmp);
    struct stat tb;
    fstat(fd, &tb);
    close(fd);
    char *key = target_key(target);
    pthread_mutex_lock(&g->lock);
    group_entry *dup = key ? group_find(g, key) : NULL;
    group_entry *e = key && !dup ? group_push(ctx, g) : NULL;
    if (!e) {
        pthread_mutex_unlock(&g->lock);
        unlink(tmp);
        temp_unregister(slot);
        free(tmp);
        free(target);
        free(key);
        if (dup) return haze__error(ctx, HAZE_ERR_INVALID, "%s: named twice as an output", path);
        return haze__error(ctx, HAZE_ERR_NOMEM, "out of memory");
    }
    e->path = strdup(path);
    e->target = target;
    e->key = key;
    e->tmp = tmp;
    e->slot = slot;
    e->dev = tb.st_dev;
    e->ino = tb.st_ino;
    e->state = ENTRY_RESERVED;
    pthread_mutex_unlock(&g->lock);
    return HAZE_OK;
}

int haze_outgroup_commit(haze_ctx *ctx) {
    outgroup *g = group_of(ctx);
    if (!g) return haze__error(ctx, HAZE_ERR_INVALID, "no output group is open");
    int st = HAZE_OK;
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i].state == ENTRY_OPEN) {
            st = haze__error(ctx, HAZE_ERR_INVALID, "%s: output still open at the group's commit",
                             g->v[i].path);
            break;
        }
    /* the temporaries are whole files in their targets' folders: the
     * renames that follow fail only if a target turned into a folder or the
     * file system changed under us */
    for (size_t i = 0; i < g->n && !st; i++) {
        group_entry *e = &g->v[i];
        if (e->state != ENTRY_WRITTEN) continue;
        if (rename(e->tmp, e->target) != 0) {
            st = fail_io(ctx, e->path, "cannot write output", errno);
            break;
        }
        e->state = ENTRY_DONE; /* renamed: nothing left to remove */
    }
    group_release(ctx); /* outputs never written keep their old contents */
    return st;
}

void haze_outgroup_abort(haze_ctx *ctx) {
    group_release(ctx);
}

/* ------------------------------------------------------------------ reading */

int haze_io_read_file(haze_ctx *ctx, const char *path, char **out, size_t *len) {
    if (!path || !out)
        return haze__error(ctx, HAZE_ERR_INVALID, "haze_io_read_file: NULL argument");
    *out = NULL;
    int is_stdin = strcmp(path, "-") == 0;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (!fp && errno == ENOMEM) return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory", path);
    if (!fp) return haze__error(ctx, HAZE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!is_stdin) {
        struct stat sb;
        if (fstat(fileno(fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
            fclose(fp);
            return haze__error(ctx, HAZE_ERR_IO, "%s: is a directory", path);
        }
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) goto nomem;
    for (;;) {
        if (n + 1 >= cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) goto nomem;
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0) break;
    }
    if (ferror(fp)) {
        int e = errno;
        free(buf);
        if (!is_stdin) fclose(fp);
        return haze__error(ctx, HAZE_ERR_IO, "%s: read error: %s", path, strerror(e));
    }
    if (!is_stdin) fclose(fp);
    buf[n] = '\0';
    *out = buf;
    if (len) *len = n;
    return HAZE_OK;
nomem:
    free(buf);
    if (!is_stdin) fclose(fp);
    return haze__error(ctx, HAZE_ERR_NOMEM, "%s: out of memory while reading", path);
}
