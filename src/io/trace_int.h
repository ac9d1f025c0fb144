/* The trace object's insides and the builder every loader and the generator use. */
#ifndef BERTH_IO_TRACE_INT_H
#define BERTH_IO_TRACE_INT_H

#include "berth/trace.h"
#include "util/mem.h"

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
/* Fails with FILE:LINE when two jobs share an id (hash check, O(n)). */
int berth__trace_check_ids(const struct berth_trace *t, struct berth_err *err);

/* One loader per format, each in its own file. */
int berth__load_native(const char *path, struct berth_trace **out, struct berth_err *err);
int berth__load_philly_pollux(const char *path, struct berth_trace **out, struct berth_err *err);

#endif
