/* One writer for small files that must never be seen half-written (berthd's state files, the
 * journal's mark, the shim's pid and exit files, the Slurm scope file): the whole buffer goes
 * to a temporary file beside the target, which is then renamed over it, so that a reader or a
 * crash sees the old contents or the new, never a mix. Generic (layer 1). */
#ifndef BERTH_UTIL_ATOMIC_FILE_H
#define BERTH_UTIL_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "berth/err.h"

/* berth__atomic_write's flags (OR them; 0: none). */
enum {
    BERTH_AF_FSYNC = 1 << 0,     /* fsync the temporary before the rename: the new contents
                                    are on disk before their name is */
    BERTH_AF_FSYNC_DIR = 1 << 1, /* fsync the folder after the rename: the rename itself
                                    survives a crash */
    BERTH_AF_NOFOLLOW = 1 << 2,  /* open the temporary with O_NOFOLLOW: a symbolic link
                                    planted at its name is refused (ELOOP), never followed */
};

/* Writes len bytes of buf to dir/name (dir NULL: name is the whole path, relative to the
 * working folder or absolute) through the temporary dir/name.tmp: opened O_WRONLY | O_CREAT |
 * O_TRUNC | O_CLOEXEC (and O_NOFOLLOW with BERTH_AF_NOFOLLOW) with mode (less the umask, as
 * open(2) applies it; an existing temporary keeps its own), written whole, fsync'd with
 * BERTH_AF_FSYNC, closed and renamed over the target; with BERTH_AF_FSYNC_DIR the folder is
 * then opened and fsync'd. Allocates nothing. Returns 0, or BERTH_EIO with err's message
 * naming the path and the call that failed ("DIR/NAME.tmp: write: No space left on device")
 * and errno left as that call set it; after a failure the temporary is gone (unlinked) and
 * the target holds what it held before, unless only the folder's fsync failed (the rename
 * is done, maybe not yet durable). err may be NULL. */
int berth__atomic_write(const char *dir, const char *name, const void *buf, size_t len, int flags,
                        mode_t mode, struct berth_err *err);

#endif
