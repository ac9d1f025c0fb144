/* CSV files whose columns are found by header name: one reader for every such trace and
 * cluster format. A format describes its columns once (struct berth__cols_spec); the reader
 * opens the file, maps the header onto the format's names (byte-order mark, unknown and
 * duplicate names, required ones), checks each row's width, and hands out fields by the
 * format's own column numbers. Every message names FILE:LINE and the column. */
#ifndef BERTH_IO_COLUMNS_H
#define BERTH_IO_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "io/trace_int.h"
#include "util/csv.h"

#define BERTH__COLS_MAX 24 /* known columns of one format, at most */

/* What a row reader returns for a row skipped under --lenient (a bad field, counted). */
#define BERTH__ROW_SKIPPED 1

struct berth__cols;

/* One format's columns. names[k] is the header name of the format's column k. */
struct berth__cols_spec {
    const char *const *names;
    int ncols;
    int nrequired; /* names[0 .. nrequired) must be in the header */
    /* Header names that are none of names: ignored when unknown is NULL; otherwise refused
     * with "column N: expected UNKNOWN (a, b, ...) or one starting with PREFIX, found "H""
     * (the list left out when unknown_bare, the prefix part when prefix is NULL, H cut to
     * quote_max bytes when that is not 0). Names starting with prefix are ignored. */
    const char *unknown;
    int unknown_bare;
    const char *prefix;
    int quote_max;
    /* A required column missing: "column C: expected in the headerHEADER, found no such
     * columnNOTE"; HEADER NULL means " (required: a, b, ...)", NOTE NULL means nothing. */
    const char *header;
    const char *missing_note;
    /* An empty file: "expected EMPTY, found an empty file". */
    const char *empty;
    /* Optional: run after the names are mapped, before the required ones are checked, to
     * refuse a file as a whole (returns 0 or an error with err filled). */
    int (*check)(const struct berth__cols *x, struct berth_err *err);
};

struct berth__cols {
    const struct berth__cols_spec *spec;
    struct berth__csv *csv;
    struct berth__load *L; /* a trace's load (bad rows per its mode); NULL: bad input fails */
    const char *path;
    uint32_t line;            /* the header's line (blank lines may come before it) */
    size_t nfields;           /* fields in the header */
    int idx[BERTH__COLS_MAX]; /* field index of each known column, -1 when absent */
};

/* Opens path, reads its header and maps it by spec. L is the trace load being filled, or
 * NULL for a file that is not a trace (a cluster file). Whatever it returns, x is ready for
 * berth__cols_close. */
int berth__cols_open(struct berth__cols *x, const struct berth__cols_spec *spec, const char *path,
                     struct berth__load *L, struct berth_err *err);
void berth__cols_close(struct berth__cols *x);
/* 0 when the current row has as many fields as the header; otherwise a bad row
 * ("expected N fields as in the header, found M"): BERTH__ROW_SKIPPED or an error. */
int berth__cols_width(const struct berth__cols *x, struct berth_err *err);
/* The "column C: expected in the header..." error, for a format's own rules on which
 * columns must come together. */
int berth__cols_missing(const struct berth__cols *x, int c, struct berth_err *err);

/* Column c's field in the current row: "FILE:LINE: column NAME: expected EXPECTED, found
 * "FIELD"", through berth__load_bad (BERTH__ROW_SKIPPED under --lenient) or, without L,
 * as an error at once. */
int berth__cols_bad(const struct berth__cols *x, int c, const char *expected,
                    struct berth_err *err);
/* Column c as a whole number in [lo, hi], or berth__cols_bad with expected. */
int berth__cols_int(const struct berth__cols *x, int c, int64_t lo, int64_t hi,
                    const char *expected, int64_t *out, struct berth_err *err);

/* Whether column c is in the header. */
static inline int berth__cols_has(const struct berth__cols *x, int c)
{
    return x->idx[c] >= 0;
}

/* Column c's field in the current row and its length; "" when the column is absent. */
static inline const char *berth__cols_get(const struct berth__cols *x, int c, size_t *len)
{
    if (x->idx[c] < 0) {
        *len = 0;
        return "";
    }
    *len = berth__csv_len(x->csv, (size_t)x->idx[c]);
    return berth__csv_field(x->csv, (size_t)x->idx[c]);
}

/* Whether column c is in the header and not empty in the current row. */
static inline int berth__cols_present(const struct berth__cols *x, int c)
{
    return x->idx[c] >= 0 && berth__csv_len(x->csv, (size_t)x->idx[c]) > 0;
}

/* The current row's line. */
static inline uint32_t berth__cols_line(const struct berth__cols *x)
{
    return berth__csv_line(x->csv);
}

/* The next data row with as many fields as the header: 1, or 0 at the end of the file, or an
 * error. Counts every row in L's report; under --lenient a row of another width is counted
 * as bad and passed over. (Inline: it runs once a row.) */
static inline int berth__cols_next(struct berth__cols *x, struct berth_err *err)
{
    int rc;
    while ((rc = berth__csv_next(x->csv, err)) > 0) {
        if (x->L)
            x->L->rep->rows++;
        if (berth__csv_nfields(x->csv) == x->nfields)
            return 1;
        if ((rc = berth__cols_width(x, err)) != BERTH__ROW_SKIPPED)
            return rc;
    }
    return rc;
}

/* s past a UTF-8 byte-order mark, if it starts with one. */
static inline const char *berth__cols_skip_bom(const char *s)
{
    return (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF
               ? s + 3
               : s;
}

#endif
