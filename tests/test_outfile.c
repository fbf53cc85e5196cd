/*
 * tests/test_outfile.c - output files: NULL arguments, the short temporary
 * name, modes, links and special files, groups of outputs that land
 * together, and the signal-time removal of temporaries.
 */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

static void put(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static int same_text(const char *path, const char *text) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    char buf[256] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    return n == strlen(text) && memcmp(buf, text, n) == 0;
}

/* Files in the scratch folder whose name holds ".tmp". */
static int temps_left(void) {
    DIR *d = opendir(haze_test_dir());
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp")) n++;
    closedir(d);
    return n;
}

static void test_null_arguments(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    haze_outfile *f = NULL;
    double x[4] = {1, 2, 3, 4};
    char *buf = NULL;
    size_t len;
    assert_int_equal(haze_outfile_open(ctx, haze_test_path("a.csv"), NULL), HAZE_ERR_INVALID);
    assert_int_equal(haze_outfile_open(NULL, haze_test_path("a.csv"), NULL), HAZE_ERR_INVALID);
    assert_int_equal(haze_outfile_open(ctx, NULL, &f), HAZE_ERR_INVALID);
    assert_int_equal(haze_outfile_commit(ctx, NULL), HAZE_ERR_INVALID);
    haze_outfile_abort(NULL);
    assert_int_equal(haze_io_read_file(ctx, NULL, &buf, &len), HAZE_ERR_INVALID);
    assert_int_equal(haze_io_read_file(ctx, haze_test_path("a.csv"), NULL, &len), HAZE_ERR_INVALID);
    assert_int_equal(haze_table_write(ctx, NULL, x, HAZE_PRECISION_F64, 2, 2, NULL),
                     HAZE_ERR_INVALID);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("a.csv"), NULL, HAZE_PRECISION_F64, 2, 2, NULL),
        HAZE_ERR_INVALID);
    assert_int_equal(
        haze_table_write(NULL, haze_test_path("a.csv"), NULL, HAZE_PRECISION_F64, 2, 2, NULL),
        HAZE_ERR_INVALID);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("a.csv"), NULL, HAZE_PRECISION_F32, 2, 2, NULL),
        HAZE_ERR_INVALID);
    assert_int_equal(access(haze_test_path("a.csv"), F_OK), -1);
    assert_int_equal(haze_outgroup_begin(NULL), HAZE_ERR_INVALID);
    assert_int_equal(haze_outgroup_add(ctx, haze_test_path("a.csv")),
                     HAZE_ERR_INVALID); /* no group */
    assert_int_equal(haze_outgroup_commit(ctx), HAZE_ERR_INVALID);
    haze_outgroup_abort(NULL);
    haze_ctx_free(ctx);
}

/* Names up to the folder's limit of 255 bytes work: the temporary's name
 * does not grow with the target's. */
static void test_long_name(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    char name[256];
    memset(name, 'n', 255);
    name[255] = '\0';
    double x[2] = {1, 2};
    assert_int_equal(haze_table_write(ctx, haze_test_path(name), x, HAZE_PRECISION_F64, 1, 2, NULL),
                     HAZE_OK);
    assert_true(same_text(haze_test_path(name), "1,2\n"));
    assert_int_equal(temps_left(), 0);
    unlink(haze_test_path(name));
    haze_ctx_free(ctx);
}

static void test_modes_and_links(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    double x[2] = {1, 2};
    struct stat sb;
    mode_t old = umask(027);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("new.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_OK);
    assert_int_equal(stat(haze_test_path("new.csv"), &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0640);
    umask(022);
    chmod(haze_test_path("new.csv"), 0600);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("new.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_OK);
    assert_int_equal(stat(haze_test_path("new.csv"), &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    umask(old);
    /* a link: the target is rewritten, the link stays; also a link to a link
     * in another folder, relative, and a dangling one */
    assert_int_equal(symlink("new.csv", haze_test_path("link.csv")), 0);
    assert_int_equal(mkdir(haze_test_path("sub"), 0755), 0);
    assert_int_equal(symlink("../link.csv", haze_test_path("sub/link2.csv")), 0);
    x[0] = 7;
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("sub/link2.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_OK);
    assert_int_equal(lstat(haze_test_path("link.csv"), &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(lstat(haze_test_path("sub/link2.csv"), &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_true(same_text(haze_test_path("new.csv"), "7,2\n"));
    assert_int_equal(symlink("made.csv", haze_test_path("dangling.csv")), 0);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("dangling.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_OK);
    assert_true(same_text(haze_test_path("made.csv"), "7,2\n"));
    assert_int_equal(lstat(haze_test_path("dangling.csv"), &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    /* a cycle of links is an error, not a hang */
    assert_int_equal(symlink("loop2", haze_test_path("loop1")), 0);
    assert_int_equal(symlink("loop1", haze_test_path("loop2")), 0);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("loop1"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_ERR_IO);
    /* a FIFO is written through (opened for writing, so give it a reader) */
    assert_int_equal(mkfifo(haze_test_path("fifo"), 0644), 0);
    FILE *reader = fopen(haze_test_path("fifo"), "r+"); /* Linux: a FIFO opened r+ never blocks */
    assert_non_null(reader);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("fifo"), x, HAZE_PRECISION_F64, 1, 2, NULL), HAZE_OK);
    char got[16] = {0};
    assert_non_null(fgets(got, sizeof got, reader));
    assert_string_equal(got, "7,2\n");
    fclose(reader);
    assert_int_equal(lstat(haze_test_path("fifo"), &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    /* a folder is not a file */
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("sub"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_ERR_IO);
    assert_int_equal(temps_left(), 0);
    haze_ctx_free(ctx);
}

static void test_group(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    double x[2] = {1, 2};
    put(haze_test_path("g1.csv"), "old\n");
    /* a missing folder fails at add, before anything is written */
    assert_int_equal(haze_outgroup_begin(ctx), HAZE_OK);
    assert_int_equal(haze_outgroup_begin(ctx), HAZE_ERR_INVALID);
    assert_int_equal(haze_outgroup_add(ctx, haze_test_path("g1.csv")), HAZE_OK);
    assert_int_equal(haze_outgroup_add(ctx, haze_test_path("missing/g2.csv")), HAZE_ERR_IO);
    assert_non_null(strstr(haze_ctx_errmsg(ctx), "missing"));
    assert_int_equal(haze_outgroup_add(ctx, haze_test_path("./g1.csv")), HAZE_ERR_INVALID);
    assert_int_equal(temps_left(), 1);
    haze_outgroup_abort(ctx);
    assert_int_equal(temps_left(), 0);
    assert_true(same_text(haze_test_path("g1.csv"), "old\n"));
    /* written but not committed: the targets stay as they were */
    assert_int_equal(haze_outgroup_begin(ctx), HAZE_OK);
    assert_int_equal(haze_outgroup_add(ctx, haze_test_path("g1.csv")), HAZE_OK);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("g1.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_OK);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("g2.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_OK);
    assert_true(same_text(haze_test_path("g1.csv"), "old\n"));
    assert_int_equal(access(haze_test_path("g2.csv"), F_OK), -1);
    /* the same file twice in a group */
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("g2.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_ERR_INVALID);
    haze_outgroup_abort(ctx);
    assert_true(same_text(haze_test_path("g1.csv"), "old\n"));
    assert_int_equal(access(haze_test_path("g2.csv"), F_OK), -1);
    assert_int_equal(temps_left(), 0);
    /* committed: all land; an added output never written keeps its contents */
    put(haze_test_path("g3.csv"), "keep\n");
    assert_int_equal(haze_outgroup_begin(ctx), HAZE_OK);
    assert_int_equal(haze_outgroup_add(ctx, haze_test_path("g1.csv")), HAZE_OK);
    assert_int_equal(haze_outgroup_add(ctx, haze_test_path("g3.csv")), HAZE_OK);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("g1.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_OK);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("g2.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_OK);
    assert_int_equal(haze_outgroup_commit(ctx), HAZE_OK);
    assert_true(same_text(haze_test_path("g1.csv"), "1,2\n"));
    assert_true(same_text(haze_test_path("g2.csv"), "1,2\n"));
    assert_true(same_text(haze_test_path("g3.csv"), "keep\n"));
    assert_int_equal(temps_left(), 0);
    /* freeing the context ends an open group and removes its temporaries */
    assert_int_equal(haze_outgroup_begin(ctx), HAZE_OK);
    assert_int_equal(
        haze_table_write(ctx, haze_test_path("g4.csv"), x, HAZE_PRECISION_F64, 1, 2, NULL),
        HAZE_OK);
    assert_int_equal(temps_left(), 1);
    haze_ctx_free(ctx);
    assert_int_equal(temps_left(), 0);
    assert_int_equal(access(haze_test_path("g4.csv"), F_OK), -1);
}

/* What a signal handler calls: every live temporary goes, the target stays. */
static void test_remove_temps(void **state) {
    (void)state;
    haze_ctx *ctx = haze_test_ctx(HAZE_BACKEND_CPU);
    put(haze_test_path("r.csv"), "old\n");
    haze_outfile *f[20] = {NULL};
    for (int i = 0; i < 20; i++) { /* more than the first table holds */
        char name[32];
        snprintf(name, sizeof name, "r%d.csv", i);
        assert_int_equal(
            haze_outfile_open(ctx, i ? haze_test_path(name) : haze_test_path("r.csv"), &f[i]),
            HAZE_OK);
        fputs("new\n", haze_outfile_stream(f[i]));
    }
    assert_int_equal(temps_left(), 20);
    haze_outfile_remove_temps();
    assert_int_equal(temps_left(), 0);
    assert_int_equal(haze_outfile_commit(ctx, &f[0]), HAZE_ERR_IO);
    assert_true(same_text(haze_test_path("r.csv"), "old\n"));
    for (int i = 1; i < 20; i++) haze_outfile_abort(&f[i]);
    haze_ctx_free(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_arguments),  cmocka_unit_test(test_long_name),
        cmocka_unit_test(test_modes_and_links), cmocka_unit_test(test_group),
        cmocka_unit_test(test_remove_temps),
    };
    return cmocka_run_group_tests(tests, haze_test_dir_setup, haze_test_dir_teardown);
}
