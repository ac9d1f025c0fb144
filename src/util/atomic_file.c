/* The one atomic small-file writer (see atomic_file.h): a temporary beside the target,
 * written whole, renamed over it, with fsyncs and O_NOFOLLOW as the caller asks. Fixed
 * buffers only, so that it can fail in no allocation of its own. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/atomic_file.h"

/* Fails with what errno says of call on path: removes the temporary when made (keeping
 * errno), records the message. */
static int fail(const char *tmp, int made, const char *path, const char *call,
                struct berth_err *err)
{
    int e = errno;
    if (made)
        unlink(tmp);
    berth_err_set(err, BERTH_EIO, "%s: %s: %s", path, call, strerror(e));
    errno = e;
    return BERTH_EIO;
}

/* Writes all n bytes of p to fd (a short write continues; EINTR retries). 0 or -1 (errno). */
static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!w)
                errno = ENOSPC; /* write(2) wrote nothing and said no why */
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The folder of path (into buf): what stands before its last '/', "/" or "." without one. */
static const char *folder_of(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    if (slash == path)
        return "/";
    snprintf(buf, cap, "%.*s", (int)(slash - path), path);
    return buf;
}

int berth__atomic_write(const char *dir, const char *name, const void *buf, size_t len, int flags,
                        mode_t mode, struct berth_err *err)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8], folder[PATH_MAX];
    int n = dir ? snprintf(path, sizeof path, "%s/%s", dir, name)
                : snprintf(path, sizeof path, "%s", name);
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return berth_err_set(err, BERTH_EIO, "%.200s%s%.200s...: %s", dir ? dir : "",
                             dir ? "/" : "", name, strerror(errno));
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp,
                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
                      (flags & BERTH_AF_NOFOLLOW ? O_NOFOLLOW : 0),
                  mode);
    if (fd < 0)
        return fail(tmp, 0, tmp, "open", err);
    const char *call = write_all(fd, buf, len)                    ? "write"
                       : flags & BERTH_AF_FSYNC && fsync(fd) != 0 ? "fsync"
                                                                  : NULL;
    if (call) {
        int e = errno;
        close(fd);
        errno = e;
        return fail(tmp, 1, tmp, call, err);
    }
    if (close(fd))
        return fail(tmp, 1, tmp, "close", err);
    if (rename(tmp, path))
        return fail(tmp, 1, path, "rename", err);
    if (flags & BERTH_AF_FSYNC_DIR) { /* the rename too */
        const char *d = dir ? dir : folder_of(path, folder, sizeof folder);
        int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
            return fail(tmp, 0, d, "open", err);
        if (fsync(dfd)) {
            int e = errno;
            close(dfd);
            errno = e;
            return fail(tmp, 0, d, "fsync", err);
        }
        close(dfd);
    }
    return 0;
}
