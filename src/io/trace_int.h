/* What every loader and the generator share: the bad-row accounting and the loader table
 * (the trace object they fill is the model's, model/trace.h). Private to io/. */
#ifndef BERTH_IO_TRACE_INT_H
#define BERTH_IO_TRACE_INT_H

#include "model/trace.h"

struct berth__load;
/* Fails with FILE:LINE when two jobs share an id (hash check, O(n)); under --lenient (L
 * given and lenient) keeps the first and counts the others as bad rows. */
int berth__trace_check_ids(struct berth_trace *t, struct berth__load *L, struct berth_err *err);

/* What a loader works with: the user's path, the mode, the report and the trace to fill
 * (created by berth_trace_load_opts before the loader runs). */
struct berth__load {
    const char *path;
    int lenient;
    struct berth_load_report *rep; /* never NULL */
    struct berth_trace *t;
    berth_progress_fn progress; /* the bytes read (berth_load_opts; NULL: none) */
    void *progress_ctx;
};

/* A bad row. Strict: fills err with "PATH:LINE: column COL: expected EXP, found "FOUND""
 * and returns BERTH_EINPUT (the loader stops). Lenient: counts the reason
 * "column COL: expected EXP" and returns 0 (the loader skips the row). found may be NULL
 * (then "found" and found_len are left out of the message). */
int berth__load_bad(struct berth__load *L, uint32_t line, const char *column, const char *expected,
                    const char *found, size_t found_len, struct berth_err *err);
/* The same for a row-level problem that is not about one column ("expected 5 fields,
 * found 3"): msg is the whole reason. */
int berth__load_bad_row(struct berth__load *L, uint32_t line, const char *msg,
                        struct berth_err *err);
/* A row the format's documented rules leave out (not an error): counted under reason. */
void berth__load_exclude(struct berth__load *L, uint32_t line, const char *reason);

/* One loader per format, each in its own file; each fills L->t and L->rep->rows. */
typedef int (*berth__loader_fn)(struct berth__load *L, struct berth_err *err);
int berth__load_native(struct berth__load *L, struct berth_err *err);
int berth__load_philly_pollux(struct berth__load *L, struct berth_err *err);

#endif
