/* Setting a job up from its spec: the one place that derives the engine's per-job fields. */
#include <string.h>

#include "berth/sim.h"
#include "model/cluster.h"
#include "model/job.h"

_Static_assert(sizeof(void *) != 8 || sizeof(struct berth_jobspec) == 72,
               "struct berth_jobspec grew: keep rare fields in its extra");

int berth__job_init(struct berth__job *j, const struct berth_jobspec *spec, uint32_t idx,
                    const struct berth_cluster *c)
{
    memset(j, 0, sizeof *j);
    j->spec = spec;
    j->idx = idx;
    j->state = BERTH_JOB_WAITING;
    j->gpus = spec->num_gpus;
    j->share =
        spec->gpu_share_milli > 0 && spec->gpu_share_milli < 1000 ? spec->gpu_share_milli : 1000;
    j->single = spec->single_server || (c && !c->allow_span);
    j->type = -1;
    j->first_start = j->finish = BERTH_TIME_NONE;
    j->cls = -1;
    j->work = (double)spec->duration_us;
    j->est_us = spec->duration_us;
    j->limit_us = berth_jobspec_extra(spec)->time_limit_us;
    if (berth_jobspec_extra(spec)->gpu_type[0] &&
        (!c || berth__cluster_type_mask(c, berth_jobspec_extra(spec)->gpu_type, &j->type_mask)))
        return -1;
    return 0;
}

berth_us berth__job_restart_us(const struct berth__job *j, int32_t gpus, berth_us flat, int tiers)
{
    if (berth_jobspec_extra(j->spec)->restart_us > 0)
        return berth_jobspec_extra(j->spec)->restart_us;
    switch (tiers) {
    case BERTH_RESTART_HELIOS:
        return (gpus <= 1 ? 7 : gpus <= 8 ? 30 : 60) * BERTH_US_PER_S;
    case BERTH_RESTART_LUCID:
        return (gpus <= 8 ? 40 : 60) * BERTH_US_PER_S;
    default:
        return flat;
    }
}

/* One record per job: keep it at 152 bytes on 64-bit machines (ten million jobs). */
_Static_assert(sizeof(void *) != 8 || sizeof(struct berth__job) == 152,
               "struct berth__job grew: fill the holes");
