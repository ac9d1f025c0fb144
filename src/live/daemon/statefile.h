/* Small state files beside the journal (statefile.c), for the subsystems. */
#ifndef BERTH_LIVE_DAEMON_STATEFILE_H
#define BERTH_LIVE_DAEMON_STATEFILE_H

#include <stddef.h>

#include "berth/err.h"

/* Writes STATE-like file dir/name whole and durably (statefile.c): a crash leaves the old
 * contents or the new. */
int berth__state_write(const char *dir, const char *name, const void *buf, size_t len,
                       struct berth_err *err);

#endif
