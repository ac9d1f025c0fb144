/* Setting a job up from its spec: the one place that derives the engine's per-job fields. */
#include <string.h>

#include "cluster_int.h"
#include "job.h"

int berth__job_init(struct berth_job *j, const struct berth_jobspec *spec, uint32_t idx,
                    const struct berth_cluster *c)
{
    memset(j, 0, sizeof *j);
    j->spec = spec;
    j->idx = idx;
    j->state = BERTH_JOB_WAITING;
    j->gpus = spec->num_gpus;
    j->single = spec->single_server || (c && !c->allow_span);
    j->want_type = -1;
    j->type = -1;
    j->first_start = j->finish = BERTH_TIME_NONE;
    if (spec->gpu_type[0]) {
        int t = c ? berth_cluster_type_find(c, spec->gpu_type) : -1;
        if (t < 0)
            return -1;
        j->want_type = (int16_t)t;
    }
    return 0;
}
