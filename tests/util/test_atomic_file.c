/* Tests for util/atomic_file.h, the one atomic small-file writer: the contents and mode it
 * leaves, a target replaced whole, a path given whole or as folder and name, and its
 * failures (no folder, a folder that is a file, a full disk through RLIMIT_FSIZE and through
 * a temporary that is a link to /dev/full, a link refused with BERTH_AF_NOFOLLOW, a rename
 * onto a folder, a name too long): each BERTH_EIO naming the path and the call, errno kept,
 * the old contents left and no temporary behind. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "tmpfile.h"
#include "util/atomic_file.h"

/* The whole of path into buf (NUL-terminated), or "(none)". */
static const char *slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = 0;
    if (!f)
        snprintf(buf, cap, "(none)");
    else
        fclose(f);
    return buf;
}

static int exists(const char *path)
{
    struct stat st;
    return !lstat(path, &st);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

static void test_write(void)
{
    struct tmp t;
    tmp_open(&t);
    mode_t old = umask(022);
    char buf[256], path[200], tmpf[210];
    struct berth_err err = {0};
    /* folder and name, every flag: a new file */
    CHECK_I64(berth__atomic_write(t.dir, "state", "one\n", 4,
                                  BERTH_AF_FSYNC | BERTH_AF_FSYNC_DIR | BERTH_AF_NOFOLLOW, 0600,
                                  &err),
              0);
    snprintf(path, sizeof path, "%s/state", t.dir);
    snprintf(tmpf, sizeof tmpf, "%s.tmp", path);
    CHECK_STR(slurp(path, buf, sizeof buf), "one\n");
    CHECK_I64(mode_of(path), 0600);
    CHECK(!exists(tmpf));
    /* replaced whole, shorter than before; the whole path, no flags */
    CHECK_I64(berth__atomic_write(NULL, path, "2", 1, 0, 0600, &err), 0);
    CHECK_STR(slurp(path, buf, sizeof buf), "2");
    CHECK(!exists(tmpf));
    /* an empty buffer: an empty file */
    CHECK_I64(berth__atomic_write(NULL, path, "", 0, BERTH_AF_FSYNC, 0600, NULL), 0);
    CHECK_STR(slurp(path, buf, sizeof buf), "");
    /* the mode less the umask, as open(2) gives it: 0666 under 022 */
    CHECK_I64(berth__atomic_write(t.dir, "shared", "x", 1, 0, 0666, &err), 0);
    CHECK_I64(mode_of(tmp_path(&t, "shared")), 0644);
    CHECK_I64(berth__atomic_write(t.dir, "mark", "y", 1, BERTH_AF_FSYNC, 0644, &err), 0);
    CHECK_I64(mode_of(tmp_path(&t, "mark")), 0644);
    /* a stale temporary (a crash between write and rename) is written over */
    tmp_write(&t, "state.tmp", "stale stale stale");
    CHECK_I64(berth__atomic_write(t.dir, "state", "three\n", 6, BERTH_AF_FSYNC, 0600, &err), 0);
    CHECK_STR(slurp(path, buf, sizeof buf), "three\n");
    CHECK(!exists(tmpf));
    /* a relative name in the working folder, with the folder's fsync ("." ) */
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK_I64(chdir(t.dir), 0);
    CHECK_I64(berth__atomic_write(NULL, "rel", "r", 1, BERTH_AF_FSYNC_DIR, 0600, &err), 0);
    CHECK_I64(chdir(cwd), 0);
    CHECK_STR(slurp(tmp_path(&t, "rel"), buf, sizeof buf), "r");
    /* a whole path with the folder's fsync: its folder is the part before the last '/' */
    CHECK_I64(
        berth__atomic_write(NULL, path, "four", 4, BERTH_AF_FSYNC | BERTH_AF_FSYNC_DIR, 0600, &err),
        0);
    CHECK_STR(slurp(path, buf, sizeof buf), "four");
    umask(old);
    tmp_close(&t);
}

/* A failure: BERTH_EIO, errno e, a message holding want, the target still old and no
 * temporary DIR/state.tmp. */
static void check_failed(int rc, int e, const struct berth_err *err, const char *want,
                         struct tmp *t, const char *old)
{
    char buf[256], tmpf[210];
    CHECK_I64(rc, BERTH_EIO);
    CHECK_I64(errno, e);
    CHECK_I64(err->code, BERTH_EIO);
    CHECK_HAS(err->msg, want);
    CHECK_HAS(err->msg, strerror(e));
    if (old)
        CHECK_STR(slurp(tmp_path(t, "state"), buf, sizeof buf), old);
    snprintf(tmpf, sizeof tmpf, "%s/state.tmp", t->dir);
    CHECK(!exists(tmpf));
}

static void test_fail_paths(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    char dir[200], want[300];
    /* no such folder */
    snprintf(dir, sizeof dir, "%s/none", t.dir);
    int rc = berth__atomic_write(dir, "state", "x", 1, BERTH_AF_FSYNC, 0600, &err);
    snprintf(want, sizeof want, "%s/state.tmp: open: ", dir);
    check_failed(rc, ENOENT, &err, want, &t, NULL);
    /* a folder that is a file */
    snprintf(dir, sizeof dir, "%s", tmp_write(&t, "file", "not a folder"));
    rc = berth__atomic_write(dir, "state", "x", 1, BERTH_AF_FSYNC_DIR, 0600, &err);
    snprintf(want, sizeof want, "%s/state.tmp: open: ", dir);
    check_failed(rc, ENOTDIR, &err, want, &t, NULL);
    /* the target is a folder: the rename fails, the temporary goes */
    CHECK_I64(mkdir(tmp_path(&t, "state"), 0700), 0);
    tmp_write(&t, "state/inside", "keeps the folder non-empty");
    rc = berth__atomic_write(t.dir, "state", "x", 1, BERTH_AF_FSYNC, 0600, &err);
    CHECK_I64(rc, BERTH_EIO);
    snprintf(want, sizeof want, "%s/state: rename: ", t.dir);
    CHECK_HAS(err.msg, want);
    CHECK(errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST);
    CHECK(!exists(tmp_path(&t, "state.tmp")));
    CHECK_I64(unlink(tmp_path(&t, "state/inside")), 0);
    CHECK_I64(rmdir(tmp_path(&t, "state")), 0);
    /* a name longer than a path may be */
    char name[5000];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = 0;
    rc = berth__atomic_write(t.dir, name, "x", 1, 0, 0600, &err);
    CHECK_I64(rc, BERTH_EIO);
    CHECK_I64(errno, ENAMETOOLONG);
    CHECK_HAS(err.msg, strerror(ENAMETOOLONG));
    CHECK_HAS(err.msg, t.dir);
    /* err may be NULL */
    snprintf(dir, sizeof dir, "%s/none", t.dir);
    CHECK_I64(berth__atomic_write(dir, "state", "x", 1, 0, 0600, NULL), BERTH_EIO);
    tmp_close(&t);
}

/* A full disk, two ways: the file size limit (write fails with EFBIG part way) and a
 * temporary that is a link to /dev/full (ENOSPC); both leave the old file and no temporary. */
static void test_full_disk(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    char want[300];
    tmp_write(&t, "state", "old");
    static char big[64 << 10];
    memset(big, 'b', sizeof big);
    struct rlimit was;
    CHECK_I64(getrlimit(RLIMIT_FSIZE, &was), 0);
    void (*sig)(int) = signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = {4096, was.rlim_max};
    CHECK_I64(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rc = berth__atomic_write(t.dir, "state", big, sizeof big, BERTH_AF_FSYNC, 0600, &err);
    int e = errno;
    CHECK_I64(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, sig);
    errno = e;
    snprintf(want, sizeof want, "%s/state.tmp: write: ", t.dir);
    check_failed(rc, EFBIG, &err, want, &t, "old");
    /* a link at the temporary's name: followed without BERTH_AF_NOFOLLOW (to /dev/full, a
     * disk that is always full), and the link is what goes */
    if (access("/dev/full", W_OK) == 0) {
        CHECK_I64(symlink("/dev/full", tmp_path(&t, "state.tmp")), 0);
        rc = berth__atomic_write(t.dir, "state", "new", 3, 0, 0600, &err);
        check_failed(rc, ENOSPC, &err, want, &t, "old");
        CHECK(exists("/dev/full"));
    }
    tmp_close(&t);
}

/* BERTH_AF_NOFOLLOW: a link planted at the temporary's name is refused, and what it points
 * at is neither written nor truncated. */
static void test_nofollow(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    char buf[64], want[300];
    tmp_write(&t, "state", "old");
    tmp_write(&t, "victim", "precious");
    char victim[200];
    snprintf(victim, sizeof victim, "%s", tmp_path(&t, "victim"));
    CHECK_I64(symlink(victim, tmp_path(&t, "state.tmp")), 0);
    int rc = berth__atomic_write(t.dir, "state", "evil", 4, BERTH_AF_NOFOLLOW, 0600, &err);
    CHECK_I64(rc, BERTH_EIO);
    CHECK_I64(errno, ELOOP);
    snprintf(want, sizeof want, "%s/state.tmp: open: %s", t.dir, strerror(ELOOP));
    CHECK_STR(err.msg, want);
    CHECK_STR(slurp(victim, buf, sizeof buf), "precious");
    CHECK_STR(slurp(tmp_path(&t, "state"), buf, sizeof buf), "old");
    tmp_close(&t);
}

static const struct check_test tests[] = {
    {"write", test_write},
    {"fail_paths", test_fail_paths},
    {"full_disk", test_full_disk},
    {"nofollow", test_nofollow},
};

CHECK_MAIN(tests)
