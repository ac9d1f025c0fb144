/* A streaming CSV reader: one record at a time from a file of any size, RFC 4180 quoting
 * ("a,b" and "" escapes, quoted newlines), CRLF or LF endings, any one-byte separator.
 * Fields are NUL-terminated in the reader's buffer and valid until the next call. */
#ifndef BERTH_UTIL_CSV_H
#define BERTH_UTIL_CSV_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "berth/err.h"
#include "berth/progress.h"

struct berth__csv;

/* Opens path for reading. Errors name the file. */
int berth__csv_open(struct berth__csv **out, const char *path, char sep, struct berth_err *err);
/* Reads the next record: 1 = a record, 0 = end of file, < 0 = error (FILE:LINE in err).
 * Blank lines are skipped. */
int berth__csv_next(struct berth__csv *r, struct berth_err *err);
void berth__csv_close(struct berth__csv *r);
/* Tells fn the bytes read of the file's size at each read (fn NULL: nothing). */
void berth__csv_progress(struct berth__csv *r, berth_progress_fn fn, void *ctx);

size_t berth__csv_nfields(const struct berth__csv *r);
const char *berth__csv_field(const struct berth__csv *r, size_t i);
size_t berth__csv_len(const struct berth__csv *r, size_t i);
/* Line where the current record starts (1-based). */
uint32_t berth__csv_line(const struct berth__csv *r);
const char *berth__csv_path(const struct berth__csv *r);

/* Writes s as one CSV field: as is, or quoted with "" escapes when it holds a comma, a
 * quote or a line break. */
void berth__csv_put(FILE *f, const char *s);

#endif
