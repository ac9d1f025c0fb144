/* Small state files beside the journal (STATE/inference-demand, STATE/services.json): each
 * written whole to a temporary file, fsync'd, renamed over the old one and the folder
 * fsync'd (util/atomic_file.h), so that a crash leaves the old contents or the new, never a
 * mix. */
#include "live/daemon/statefile.h"
#include "util/atomic_file.h"

int berth__state_write(const char *dir, const char *name, const void *buf, size_t len,
                       struct berth_err *err)
{
    return berth__atomic_write(dir, name, buf, len,
                               BERTH_AF_FSYNC | BERTH_AF_FSYNC_DIR | BERTH_AF_NOFOLLOW, 0600, err);
}
