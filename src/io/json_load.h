/* Reading a whole JSON file the way every JSON input of berth is read (cluster files,
 * Gavel's throughput table), so they all say the same things about a bad file; and writing
 * JSON text that is whole or nothing. */
#ifndef BERTH_IO_JSON_LOAD_H
#define BERTH_IO_JSON_LOAD_H

#include <jansson.h>

#include "berth/err.h"

/* Parses path into *out (the caller json_decref()s it). A UTF-8 byte-order mark at the
 * start is skipped (editors add one) and duplicate keys are refused. BERTH_EIO
 * ("PATH: cannot open: REASON") when the file cannot be opened, BERTH_EINPUT
 * ("PATH:LINE:COLUMN: invalid JSON: REASON") when it is not JSON. */
int berth__json_load(const char *path, json_t **out, struct berth_err *err);

/* json_dumps(j, flags), the same bytes, but NULL when any part of the text could not be
 * made. jansson's own json_dumps drops an object's key when its buffer cannot grow right
 * there and still returns the text (its do_dump ignores what dump_string returns): invalid
 * JSON, reported as success. The caller free()s the text. */
char *berth__json_dumps(const json_t *j, size_t flags);

#endif
