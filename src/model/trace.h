/* The trace object's insides (the model's API: loaders fill it, the simulator and berth pack
 * read it, model/trace.c holds it). */
#ifndef BERTH_MODEL_TRACE_H
#define BERTH_MODEL_TRACE_H

#include "berth/trace.h"
#include "util/mem.h"

#define BERTH_MAX_TEXT    255                          /* bytes in an id or a name */
#define BERTH_MAX_TIME_US INT64_C(1000000000000000000) /* 10^12 s */

struct berth_trace {
    struct berth_jobspec *jobs;
    size_t n, cap;
    char *path;
    struct berth__arena strings; /* every string the jobs point to */
    const char **interned;       /* berth__trace_intern's table (open addressing), NULL: none */
    size_t ninterned, interned_cap;
    /* one copy of each distinct extra (berth__trace_push's table, open addressing) */
    const struct berth_jobspec_extra **extras;
    size_t nextras, extras_cap;
};

/* An empty trace named path (copied). NULL when out of memory. */
struct berth_trace *berth__trace_new(const char *path);
/* Appends jd's spec, pointing to the trace's one copy of its extra fields (NULL when all are
 * at their defaults); its strings must already live in t->strings (or be static ""). */
int berth__trace_push(struct berth_trace *t, const struct berth_jobdesc *jd);
/* js and its extra fields, side by side (out->spec.extra NULL). */
void berth__jobdesc_of(const struct berth_jobspec *js, struct berth_jobdesc *out);
/* Copies s[0..len) into the trace's arena; NULL when out of memory. */
const char *berth__trace_str(struct berth_trace *t, const char *s, size_t len);
/* The same, but one copy per distinct string (users, queues, job types: few values that
 * millions of jobs share); NULL when out of memory. */
const char *berth__trace_intern(struct berth_trace *t, const char *s, size_t len);
/* A job with every optional field at its default (1 GPU, whole GPUs, strings ""). */
void berth__jobspec_defaults(struct berth_jobdesc *jd);

#endif
