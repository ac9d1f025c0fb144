/* Small state files beside the journal (STATE/inference-demand, STATE/services.json): each
 * written whole to a temporary file, fsync'd, renamed over the old one and the folder
 * fsync'd, so that a crash leaves the old contents or the new, never a mix. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "live/daemon/statefile.h"

int berth__state_write(const char *dir, const char *name, const void *buf, size_t len,
                       struct berth_err *err)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return berth_err_set(err, BERTH_EIO, "%s: %s", tmp, strerror(errno));
    int ok = write(fd, buf, len) == (ssize_t)len && !fsync(fd);
    ok = !close(fd) && ok && !rename(tmp, path);
    if (ok) { /* the rename too */
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok = dfd >= 0 && !fsync(dfd);
        if (dfd >= 0)
            close(dfd);
    }
    if (!ok) {
        int e = errno;
        unlink(tmp);
        return berth_err_set(err, BERTH_EIO, "%s: %s", path, strerror(e));
    }
    return 0;
}
