/* One comparison of two job specs for the tests and the fuzz harness: every field a trace
 * file can carry (strings by content), so a round trip through native CSV must keep them all.
 * The source status and line are not compared: native CSV does not carry them. */
#ifndef BERTH_TESTS_JOBSPEC_EQ_H
#define BERTH_TESTS_JOBSPEC_EQ_H

#include <string.h>

#include "berth/trace.h"

static inline int same_job(const struct berth_jobspec *a, const struct berth_jobspec *b)
{
    return !strcmp(a->id, b->id) && a->arrival_us == b->arrival_us &&
           a->duration_us == b->duration_us && a->num_gpus == b->num_gpus &&
           a->min_gpus == b->min_gpus && a->max_gpus == b->max_gpus &&
           a->gpu_share_milli == b->gpu_share_milli && a->priority == b->priority &&
           a->gpu_mem_mib == b->gpu_mem_mib && a->total_steps == b->total_steps &&
           a->cpu_milli == b->cpu_milli && a->mem_mib == b->mem_mib &&
           a->restart_us == b->restart_us && !strcmp(a->job_type, b->job_type) &&
           !strcmp(a->user, b->user) && !strcmp(a->queue, b->queue) &&
           !strcmp(a->gpu_type, b->gpu_type) && a->single_server == b->single_server &&
           a->persist_mib == b->persist_mib && a->ephem_mib == b->ephem_mib;
}

#endif
