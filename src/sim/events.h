/* The completion events of running jobs: a binary heap indexed by job, so that a job whose
 * completion moves (preempted, slowed, sped up) is removed or re-keyed at once, and the heap
 * never holds more than the running jobs. Ties go to the lower job number. */
#ifndef BERTH_SIM_EVENTS_H
#define BERTH_SIM_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "berth/time.h"

struct berth__ev {
    berth_us t;
    uint32_t job;
};

struct berth__events {
    struct berth__ev *heap;
    size_t n, cap;
    uint32_t *pos; /* per job: index in heap, or BERTH_EV_NONE */
    int oom;       /* a push ran out of memory (checked by the caller after a pass) */
};

#define BERTH_EV_NONE UINT32_MAX

/* For njobs jobs; 0 or -1 when out of memory. */
int berth__events_init(struct berth__events *q, size_t njobs);
void berth__events_free(struct berth__events *q);
/* Sets (or moves) job's completion to t. */
void berth__events_set(struct berth__events *q, uint32_t job, berth_us t);
void berth__events_remove(struct berth__events *q, uint32_t job);

static inline const struct berth__ev *berth__events_top(const struct berth__events *q)
{
    return q->n ? &q->heap[0] : NULL;
}

#endif
