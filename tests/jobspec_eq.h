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
           berth_jobspec_extra(a)->gpu_mem_mib == berth_jobspec_extra(b)->gpu_mem_mib &&
           a->total_steps == b->total_steps &&
           berth_jobspec_extra(a)->cpu_milli == berth_jobspec_extra(b)->cpu_milli &&
           berth_jobspec_extra(a)->mem_mib == berth_jobspec_extra(b)->mem_mib &&
           berth_jobspec_extra(a)->restart_us == berth_jobspec_extra(b)->restart_us &&
           !strcmp(berth_jobspec_extra(a)->job_type, berth_jobspec_extra(b)->job_type) &&
           !strcmp(berth_jobspec_extra(a)->user, berth_jobspec_extra(b)->user) &&
           !strcmp(a->queue, b->queue) &&
           !strcmp(berth_jobspec_extra(a)->gpu_type, berth_jobspec_extra(b)->gpu_type) &&
           a->single_server == b->single_server &&
           berth_jobspec_extra(a)->persist_mib == berth_jobspec_extra(b)->persist_mib &&
           berth_jobspec_extra(a)->ephem_mib == berth_jobspec_extra(b)->ephem_mib;
}

#endif
