/* The trace object's insides and the builder every loader and the generator use. */
#ifndef BERTH_IO_TRACE_INT_H
#define BERTH_IO_TRACE_INT_H

#include "berth/trace.h"
#include "util/mem.h"

#define BERTH_MAX_TEXT    255                          /* bytes in an id or a name */
#define BERTH_MAX_TIME_US INT64_C(1000000000000000000) /* 10^12 s */

struct berth_trace {
    struct berth_jobspec *jobs;
    size_t n, cap;
    char *path;
    struct berth__arena strings; /* every string the jobs point to */
};

/* An empty trace named path (copied). NULL when out of memory. */
struct berth_trace *berth__trace_new(const char *path);
/* Appends a copy of js; its strings must already live in t->strings (or be static ""). */
int berth__trace_push(struct berth_trace *t, const struct berth_jobspec *js);
/* Copies s[0..len) into the trace's arena; NULL when out of memory. */
const char *berth__trace_str(struct berth_trace *t, const char *s, size_t len);
/* A job spec with every optional field at its default (1 GPU, whole GPUs, strings ""). */
void berth__jobspec_defaults(struct berth_jobspec *js);
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
