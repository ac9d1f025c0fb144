/* The small helpers of berthd's cgroup files (cgroup_int.h): paths, one-write control files,
 * reading keyed values, folders, naps, and walking a cgroup.procs file; the table of
 * hierarchies' names. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live/exec/cgroup_int.h"

#define POLL_NS       5000000L /* between two looks at a condition */
#define FILE_PATH_MAX (BERTH__ISO_PATH_MAX + 64)

const char *const berth__cg_hier_key[BERTH__ISO_NHIER] = {"v2",   "memory",  "cpu",
                                                          "pids", "cpuacct", "freezer"};

/* ---- small file helpers ------------------------------------------------------------------- */

/* out = a/b; -1 when it does not fit. */
int berth__cg_join(char *out, size_t len, const char *a, const char *b)
{
    int n = snprintf(out, len, "%s/%s", a, b);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* Writes text to dir/file in one write. 0 or -errno. */
int berth__cg_put(const char *dir, const char *file, const char *text)
{
    char p[FILE_PATH_MAX];
    if (berth__cg_join(p, sizeof p, dir, file))
        return -ENAMETOOLONG;
    int fd = open(p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int e = w == (ssize_t)n ? 0 : w < 0 ? -errno : -EIO;
    close(fd);
    return e;
}

int berth__cg_put_err(const char *dir, const char *file, const char *text, struct berth_err *err)
{
    int e = berth__cg_put(dir, file, text);
    if (e)
        return berth_err_set(err, BERTH_EIO, "cgroup: %s/%s: %s", dir, file, strerror(-e));
    return 0;
}

/* Reads dir/file into buf (NUL-terminated, at most len - 1 bytes). The length, or -errno. */
ssize_t berth__cg_get(const char *dir, const char *file, char *buf, size_t len)
{
    char p[FILE_PATH_MAX];
    if (berth__cg_join(p, sizeof p, dir, file))
        return -ENAMETOOLONG;
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = 0;
    while (n + 1 < len) {
        ssize_t r = read(fd, buf + n, len - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = -errno;
            close(fd);
            return e;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

int berth__cg_has(const char *dir, const char *file)
{
    char p[FILE_PATH_MAX];
    return !berth__cg_join(p, sizeof p, dir, file) && access(p, F_OK) == 0;
}

/* The number after "key " in a "key value" per line file (cgroup.events, cpu.stat); -1. */
int64_t berth__cg_keyed(const char *dir, const char *file, const char *key)
{
    char buf[4096];
    if (berth__cg_get(dir, file, buf, sizeof buf) < 0)
        return -1;
    size_t kl = strlen(key);
    for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (!strncmp(l, key, kl) && l[kl] == ' ')
            return strtoll(l + kl + 1, NULL, 10);
    return -1;
}

/* The single number in dir/file; -1 when absent or not a number. */
int64_t berth__cg_number(const char *dir, const char *file)
{
    char buf[64], *end;
    if (berth__cg_get(dir, file, buf, sizeof buf) <= 0)
        return -1;
    long long v = strtoll(buf, &end, 10);
    return end == buf ? -1 : (int64_t)v;
}

/* mkdir that accepts an existing directory. 0 or -errno. */
int berth__cg_make_dir(const char *path)
{
    struct stat st;
    if (mkdir(path, 0755) == 0)
        return 0;
    int e = errno;
    if (e == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return access(path, W_OK) == 0 ? 0 : -errno;
    return -(e == EEXIST ? ENOTDIR : e);
}

/* Whether list (tokens separated by sep, up to a newline or the end) holds tok. */
int berth__cg_has_token(const char *list, const char *tok, char sep)
{
    size_t n = strlen(tok);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, sep);
        size_t len = e ? (size_t)(e - p) : strcspn(p, "\n");
        if (len == n && !strncmp(p, tok, n))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

void berth__cg_nap(void)
{
    struct timespec ts = {0, POLL_NS};
    nanosleep(&ts, NULL);
}

int64_t berth__cg_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* printf onto the end of buf (truncating quietly). */
__attribute__((format(printf, 3, 4))) void berth__cg_addf(char *buf, size_t len, const char *fmt,
                                                          ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - n, fmt, ap);
    va_end(ap);
}

/* A single path component of letters, digits, '-', '_', '.' that starts with a letter or
 * digit: never ".", "..", a hidden name or a path. (A name that is an interface file's, such
 * as "memory.max", fails at mkdir: berth__cg_make_dir wants a directory.) */
int berth__cg_valid_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (!n || n > BERTH__ISO_NAME_MAX || !isalnum((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
            return 0;
    return 1;
}

/* ---- cgroup.procs ------------------------------------------------------------------------- */

/* Calls fn for every pid in dir/cgroup.procs; stops early when fn returns nonzero. The number
 * of pids seen, or -errno. */
int berth__cg_each_pid(const char *dir, berth__cg_pid_fn fn, void *arg)
{
    char p[FILE_PATH_MAX], buf[4096];
    if (berth__cg_join(p, sizeof p, dir, "cgroup.procs"))
        return -ENAMETOOLONG;
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int64_t cur = -1;
    int count = 0, stop = 0;
    ssize_t r;
    while (!stop && (r = read(fd, buf, sizeof buf)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = -errno;
            close(fd);
            return e;
        }
        for (ssize_t i = 0; i < r && !stop; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                cur = (cur < 0 ? 0 : cur) * 10 + (buf[i] - '0');
                if (cur > INT32_MAX)
                    cur = INT32_MAX;
            } else if (cur > 0) {
                count++;
                stop = fn && fn((pid_t)cur, arg);
                cur = -1;
            }
        }
    }
    if (!stop && cur > 0) {
        count++;
        if (fn)
            fn((pid_t)cur, arg);
    }
    close(fd);
    return count;
}

struct find {
    pid_t pid;
    int found;
};

static int pid_find(pid_t pid, void *arg)
{
    struct find *f = arg;
    f->found |= pid == f->pid;
    return f->found;
}

int berth__cg_pid_signal(pid_t pid, void *arg)
{
    kill(pid, *(int *)arg);
    return 0;
}

int berth__cg_holds_self(const char *dir)
{
    struct find f = {getpid(), 0};
    berth__cg_each_pid(dir, pid_find, &f);
    return f.found;
}
