/* Reading a whole JSON file the way every JSON input of berth is read (cluster files,
 * Gavel's throughput table), so they all say the same things about a bad file. */
#ifndef BERTH_IO_JSON_LOAD_H
#define BERTH_IO_JSON_LOAD_H

#include <jansson.h>

#include "berth/err.h"

/* Parses path into *out (the caller json_decref()s it). A UTF-8 byte-order mark at the
 * start is skipped (editors add one) and duplicate keys are refused. BERTH_EIO
 * ("PATH: cannot open: REASON") when the file cannot be opened, BERTH_EINPUT
 * ("PATH:LINE:COLUMN: invalid JSON: REASON") when it is not JSON. */
int berth__json_load(const char *path, json_t **out, struct berth_err *err);

#endif
